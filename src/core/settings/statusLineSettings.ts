import { applyEdits, getNodeValue, type Node } from 'jsonc-parser';
import { STATUSLINE_FILE_NAME } from '../../rules/channelConstants';
import { detectFormatting, ourScriptCommandRest, parseSettings, SettingsError } from './hookEntries';
import { addProperty, removeChild, replaceValue } from './jsonEdits';
import { shellFormOf, type ShellDialect } from './hookCommand';
import { wrappedValue } from './wrappedStatusLine';

// settings.json `statusLine`, edited as text like the hook entries (hookEntries.ts): every other
// byte stays. The user's own status line is kept inside ours: its exact JSON text goes, base64url,
// into our command's `--wrap` argument, so our statusline runs it and uninstall puts those very bytes
// back. Pure: text in, text out.

export interface StatusLineCommandSpec {
  /** Absolute path of the Node runtime. */
  nodePath: string;
  /** Which shells parse the command: POSIX (default), or Windows (Git Bash or PowerShell); see hookCommand.ts. */
  shells?: ShellDialect;
  /** A `node` on PATH runs it too: the Windows form may name it bare when nodePath cannot be. */
  nodeOnPath?: boolean;
  /** Absolute path of the installed statusline copy (its name is how we know our entry). */
  scriptPath: string;
  channelDir: string;
}

/** Claude Code runs the status line on every refresh; 1 s keeps a held call's age ticking. */
export const STATUSLINE_REFRESH_SECONDS = 1;

/**
 * Our statusLine command: `'<node>' '<script>' --channel-dir '<dir>' [--wrap <base64url>]`, by the
 * hook command's rule for the dialect (statusLine has no exec form: Claude Code always runs it
 * through a shell). base64url is [A-Za-z0-9_-]: a word every shell takes as it is.
 */
export function buildStatusLineCommand(spec: StatusLineCommandSpec, wrap?: string): string {
  const words = [spec.scriptPath, '--channel-dir', spec.channelDir, ...(wrap !== undefined ? ['--wrap', wrap] : [])];
  return shellFormOf(spec, words).command;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Our statusLine is exactly what buildStatusLineCommand writes (the only form install-statusline
 * ever wrote): a quoted runtime, our quoted script, `--channel-dir` and a quoted folder, then
 * nothing or `--wrap` and base64url. A command that merely mentions the script's name (a wrapper
 * of the user's, ours inside their pipeline) is theirs: wrapped on install, never removed.
 */
export function isOurStatusLineCommand(command: unknown): command is string {
  const rest = ourScriptCommandRest(command, STATUSLINE_FILE_NAME, false);
  if (rest === undefined) return false;
  return rest.length === 0 || (rest.length === 2 && rest[0].raw === '--wrap' && BASE64URL.test(rest[1].raw));
}

/** The `--wrap` payload of our command, when it has one. */
export function wrapOf(command: string): string | undefined {
  const rest = ourScriptCommandRest(command, STATUSLINE_FILE_NAME, false);
  return rest?.length === 2 && rest[0].raw === '--wrap' && BASE64URL.test(rest[1].raw) ? rest[1].raw : undefined;
}

function statusLineProperty(root: Node): { node: Node; index: number } | undefined {
  // A key given twice: the last one wins in JSON.parse, as in Claude Code, so that is the one to act on.
  const index = root.children?.map((p) => p.children?.[0]?.value).lastIndexOf('statusLine') ?? -1;
  if (index === -1) return undefined;
  return { node: root.children![index].children![1], index };
}

function ourCommandIn(node: Node): string | undefined {
  const value = getNodeValue(node) as { command?: unknown } | null;
  return isOurStatusLineCommand(value?.command) ? value!.command as string : undefined;
}

function normalize(text: string): string {
  return text.trim() === '' ? '{}' : text;
}

/**
 * Sets `statusLine` to ours, with refreshInterval 1 unless the user set one. A status line of the
 * user's is wrapped (run first, output joined; its other keys such as `padding` and
 * `refreshInterval` kept on ours); ours already there is brought up to date, keeping what it
 * wraps. Idempotent.
 */
export function installStatusLine(text: string, spec: StatusLineCommandSpec): string {
  const source = normalize(text);
  const root = parseSettings(source);
  const fmt = detectFormatting(source);
  const existing = statusLineProperty(root);
  let out: string;
  if (!existing) {
    const value = { type: 'command', command: buildStatusLineCommand(spec), refreshInterval: STATUSLINE_REFRESH_SECONDS };
    out = applyEdits(source, addProperty(source, root, 'statusLine', value, fmt));
  } else {
    const ours = ourCommandIn(existing.node);
    let wrap: string | undefined;
    let base: Record<string, unknown> = {};
    if (ours !== undefined) {
      wrap = wrapOf(ours);
      const previous = wrap === undefined ? undefined : wrappedValue(wrap)?.value;
      if (previous && typeof previous === 'object' && !Array.isArray(previous)) base = previous as Record<string, unknown>;
    } else {
      wrap = Buffer.from(source.slice(existing.node.offset, existing.node.offset + existing.node.length), 'utf8').toString('base64url');
      const value = getNodeValue(existing.node) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value)) base = value as Record<string, unknown>;
    }
    // The user's own refreshInterval stays (theirs, else the one on ours now): ours only fills a gap.
    const current = getNodeValue(existing.node) as { refreshInterval?: unknown } | null;
    const refreshInterval = base.refreshInterval ?? (ours !== undefined ? current?.refreshInterval : undefined) ?? STATUSLINE_REFRESH_SECONDS;
    const value = { ...base, type: 'command', command: buildStatusLineCommand(spec, wrap), refreshInterval };
    if (JSON.stringify(getNodeValue(existing.node)) === JSON.stringify(value)) return text;
    out = applyEdits(source, [replaceValue(source, existing.node, value, fmt)]);
  }
  return text.trim() === '' ? out + fmt.eol : out;
}

/** Removes our statusLine, putting back the exact text of the one it wrapped; anything else stays. */
export function uninstallStatusLine(text: string): string {
  if (text.trim() === '') return text;
  const root = parseSettings(text);
  const existing = statusLineProperty(root);
  if (!existing) return text;
  const ours = ourCommandIn(existing.node);
  if (ours === undefined) return text;
  const wrap = wrapOf(ours);
  if (wrap !== undefined) {
    if (!wrappedValue(wrap)) throw new SettingsError('the status line our statusLine wraps (its --wrap) is not valid JSON; left untouched. Set statusLine by hand');
    return applyEdits(text, [{ offset: existing.node.offset, length: existing.node.length, content: Buffer.from(wrap, 'base64url').toString('utf8') }]);
  }
  return applyEdits(text, removeChild(text, root, existing.index));
}

/** Our statusLine command currently in the text, if any. */
export function installedStatusLineCommand(text: string): string | undefined {
  const existing = statusLineProperty(parseSettings(normalize(text)));
  return existing ? ourCommandIn(existing.node) : undefined;
}
