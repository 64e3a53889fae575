/** What cmdTakesAsIs lets through besides letters, digits and the space, as a reader would write it. */
export const CMD_LITERAL_PUNCTUATION = "\\ : . _ - ' ~ # $ + [ ] { }";

/**
 * Whether cmd.exe keeps a path as one argument, as it is. Git Bash and PowerShell run a `.cmd` as
 * `cmd /c "<path>"`; the exec form is `cmd.exe /d /c <path>` and the mod's `cmd.exe /d /c del /f /q
 * <path>`, each quoted only for a space. Unquoted, cmd splits an argument at `,` `;` `=` (as at a
 * space), so `del` of `C:\x\.claude,work\f` deletes every file in `C:\x\.claude` too; quoted or
 * not it acts on `& | < > ^ ( )` and `"`, and expands `%` and `!`; `del` takes `/…` for a switch and
 * `* ?` for wildcards. So a whitelist, the one rule for every path we give cmd (the launcher, the mod's
 * `del`): letters and digits of any script (and their combining marks), the space, and
 * CMD_LITERAL_PUNCTUATION, which cmd's parser gives no meaning; not `ÿ` (U+00FF), as the byte 0xFF is
 * one more place cmd splits. No control character.
 */
export function cmdTakesAsIs(p: string): boolean {
  return /^[\p{L}\p{M}\p{N} \\:._\-'~#$+[\]{}]*$/u.test(p) && !p.includes('\u00ff');
}
