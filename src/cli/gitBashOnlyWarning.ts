/** The Windows shell form had to quote the runtime: what that costs and the ways out (the exec form only for hooks: statusLine has none). */
export function gitBashOnlyWarning(what: 'entry' | 'status line'): string {
  return (
    `Warning: the runtime's path cannot be written bare (a space or the like) and no \`node\` on PATH is it, so this ${what}\n` +
    '  runs in Git Bash but not in PowerShell (Claude Code 2.1.120+ uses PowerShell where there is no Git Bash).\n' +
    (what === 'entry' ? '  Ways out: Claude Code 2.1.139+ on PATH (install-hook then writes the exec form, no shell), --form exec,\n  or put that node on PATH, or --node <a path without spaces>.\n' : '  Ways out: put that node on PATH, or --node <a path without spaces>.\n')
  );
}
