import {
  applyEdits,
  getNodeValue,
  parseTree,
  printParseErrorCode,
  type FormattingOptions,
  type JSONPath,
  type Node,
  type ParseError,
} from 'jsonc-parser';
import { HOOK_FILE_NAME, HOOK_LAUNCHER_FILE_NAME } from '../../rules/channelConstants';
import { BARE_IN_EVERY_SHELL, POSIX_ENV_PROGRAM } from './hookCommand';
import { HTTP_SECRET_HEADER, isOurHttpHook } from '../../rules/ourHttpHook';
import { addProperty, appendToArray, removeChild, replaceValue } from './jsonEdits';

export { HTTP_SECRET_HEADER, isOurHttpHook };

// Claude Code's settings.json, edited as text with jsonc-parser so that every
// other key, hook, comment and the file's own formatting stay as they were.
// Pure: text in, text out. The file itself is handled by src/platform/settingsFile.ts.

export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse'] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Refusal with a message meant for the user. */
export class SettingsError extends Error {
  override name = 'SettingsError';
}

/** Our entry: a command hook running our hook file, or an http hook to our receiver. */
export type HookEntrySpec = (
  | {
      command: string;
      /** Exec form (Claude Code 2.1.139+): `command` is the runtime, spawned with these arguments and no shell. */
      args?: readonly string[];
      url?: undefined;
    }
  | {
      command?: undefined;
      /** `http://127.0.0.1:PORT/hook`: our receiver (src/platform/hookReceiver.ts). */
      url: string;
      /** The per-install secret our receiver requires in its header. */
      secret: string;
    }
) & {
  /** Seconds, as Claude Code reads `timeout`. */
  timeoutSec: number;
  /** Tool matcher; "*" matches every tool. */
  matcher?: string;
};

export interface ShellWord {
  /** As written, quotes included. */
  raw: string;
  /** What the shell passes on. */
  value: string;
}

/**
 * Splits a command into words the way a POSIX shell does for the subset we write: single quotes,
 * double quotes holding no `$`, backtick or backslash (the Windows form's spelling of a path with `'`),
 * backslash escapes, spaces. Undefined for anything else.
 */
function shellWords(command: string): ShellWord[] | undefined {
  const words: ShellWord[] = [];
  let i = 0;
  while (i < command.length) {
    if (command[i] === ' ') {
      i++;
      continue;
    }
    const start = i;
    let value = '';
    while (i < command.length && command[i] !== ' ') {
      if (command[i] === "'") {
        const close = command.indexOf("'", i + 1);
        if (close < 0) return undefined;
        value += command.slice(i + 1, close);
        i = close + 1;
      } else if (command[i] === '"') {
        const close = command.indexOf('"', i + 1);
        if (close < 0) return undefined;
        const inner = command.slice(i + 1, close);
        if (/[$`\\]/.test(inner)) return undefined;
        value += inner;
        i = close + 1;
      } else if (command[i] === '\\' && i + 1 < command.length) {
        value += command[i + 1];
        i += 2;
      } else value += command[i++];
    }
    words.push({ raw: command.slice(start, i), value });
  }
  return words;
}

/** shellQuote's output (single-quoted runs joined by `\'`), or windowsShellQuote's double-quoted one. */
const QUOTED = /^(?:'[^']*'(?:\\''[^']*')*|"[^"$`\\]*")$/;
/** A runtime the Windows form writes bare (BARE_IN_EVERY_SHELL): a Windows path, or `node` found on PATH. */
const isBareRuntime = (w: ShellWord | undefined) => w !== undefined && (w.raw === 'node' || BARE_IN_EVERY_SHELL.test(w.raw));
const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*='[^']*'(?:\\''[^']*')*$/;
const quoted = (w: ShellWord | undefined) => w !== undefined && QUOTED.test(w.raw);
/** What may follow `--channel-dir <dir>` in a command we wrote: options, numbers, quoted values. */
const OPTION_OR_NUMBER = /^(?:--[a-z][a-z-]*|\d+)$/;

/**
 * The words after `--channel-dir '<dir>'` when the command starts the way every command we write
 * does: a quoted runtime, our quoted script (by its file name, at an absolute or relative path),
 * `--channel-dir` and a quoted folder; with `envAllowed`, after optional `NAME='value'`
 * assignments. Undefined for anything else. Shared by the hook's and the status line's rule.
 */
export function ourScriptCommandRest(command: unknown, fileName: string, envAllowed: boolean): ShellWord[] | undefined {
  if (typeof command !== 'string') return undefined;
  const words = shellWords(command);
  if (!words) return undefined;
  let i = 0;
  while (envAllowed && i < words.length && ENV_ASSIGNMENT.test(words[i].raw)) i++;
  const [runtime, script, channelFlag, channelDir, ...rest] = words.slice(i);
  if (!(quoted(runtime) || isBareRuntime(runtime)) || !quoted(script) || !quoted(channelDir) || channelFlag?.raw !== '--channel-dir') return undefined;
  if (script.value.split(/[/\\]/).pop() !== fileName || !/[/\\]/.test(script.value)) return undefined;
  return rest;
}

/**
 * Our entries are exactly the commands install-hook writes (buildHookCommand):
 * optional `NAME='value'` assignments, a quoted runtime, our quoted hook file,
 * `--channel-dir` and a quoted folder, then only options and their values. A
 * command that merely mentions the hook file's name (a wrapper script, a log
 * file, our hook inside someone's pipeline) is the user's and is never touched.
 */
export function isOurHookCommand(command: unknown): boolean {
  if (isOurHookLauncher(command)) return true;
  const rest = ourScriptCommandRest(command, HOOK_FILE_NAME, true);
  return rest !== undefined && rest.every((w) => OPTION_OR_NUMBER.test(w.raw) || quoted(w));
}

/** The Windows launcher's entry (hookLauncherText): one word, bare or quoted, naming our launcher by an absolute path. */
function isOurHookLauncher(command: unknown): boolean {
  const words = typeof command === 'string' ? shellWords(command) : undefined;
  if (words?.length !== 1 || !(quoted(words[0]) || isBareRuntime(words[0]))) return false;
  return isAbsoluteAnywhere(words[0].value) && words[0].value.split(/[/\\]/).pop() === HOOK_LAUNCHER_FILE_NAME;
}

/**
 * The exec form install-hook writes (buildHookExec): an absolute runtime, our hook file by an absolute
 * path, `--channel-dir` and a folder, then only options and numbers. A user's exec entry that runs
 * anything else, or our file among other arguments, is theirs.
 */
export function isOurHookExec(command: unknown, args: unknown): boolean {
  if (typeof command !== 'string' || !Array.isArray(args) || !args.every((a) => typeof a === 'string')) return false;
  let words = args as string[];
  // The Windows launcher run by cmd.exe (launcherExec): `cmd.exe /d /c <absolute …\transcript-lag-hook.cmd>`.
  if (/(^|[/\\])cmd\.exe$/i.test(command) && isAbsoluteAnywhere(command)) {
    const [d, c, launcher, ...more] = words;
    return d === '/d' && c === '/c' && more.length === 0 && launcher !== undefined && isAbsoluteAnywhere(launcher) && launcher.split(/[/\\]/).pop() === HOOK_LAUNCHER_FILE_NAME;
  }
  // A runtime given its environment by env(1): `/usr/bin/env NAME=value… <runtime> <hook> …` (buildHookExec).
  if (command === POSIX_ENV_PROGRAM) {
    const assignments = words.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    if (assignments < 1) return false;
    [command, ...words] = words.slice(assignments);
  }
  const [script, flag, channelDir, ...rest] = words;
  if (typeof command !== 'string' || !isAbsoluteAnywhere(command) || script === undefined || !isAbsoluteAnywhere(script)) return false;
  if (script.split(/[/\\]/).pop() !== HOOK_FILE_NAME || flag !== '--channel-dir' || !channelDir) return false;
  return rest.every((w) => OPTION_OR_NUMBER.test(w));
}

/** Absolute on POSIX or Windows (`C:\`, `C:/`, UNC): settings.json may come from either. */
function isAbsoluteAnywhere(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[/\\]/.test(p) || p.startsWith('\\\\');
}

/** A hook object (an element of a group's `hooks`) that install-hook wrote, in any form, by either transport. */
function isOurHook(hook: unknown): boolean {
  if (!hook || typeof hook !== 'object') return false;
  const h = hook as { type?: unknown; command?: unknown; args?: unknown };
  if (h.type === 'command') return h.args === undefined ? isOurHookCommand(h.command) : isOurHookExec(h.command, h.args);
  return isOurHttpHook(hook);
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

/**
 * The node at `path`, taking the last of duplicate keys as JSON.parse (and so
 * Claude Code) does; jsonc-parser's findNodeAtLocation takes the first, which
 * readers ignore.
 */
function nodeAt(root: Node | undefined, path: JSONPath): Node | undefined {
  let node = root;
  for (const segment of path) {
    if (!node?.children) return undefined;
    if (typeof segment === 'number') {
      node = node.type === 'array' ? node.children[segment] : undefined;
      continue;
    }
    if (node.type !== 'object') return undefined;
    let found: Node | undefined;
    for (const property of node.children) if (property.children?.[0]?.value === segment) found = property.children[1];
    node = found;
  }
  return node;
}

/** The parse tree of a valid settings text, or a SettingsError saying what is wrong and where. */
export function parseSettings(text: string): Node {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: false, disallowComments: false });
  if (errors.length > 0) {
    const e = errors[0];
    throw new SettingsError(`not valid JSON: ${printParseErrorCode(e.error)} at ${lineColumn(text, e.offset)}`);
  }
  if (!root || root.type !== 'object') throw new SettingsError('the top level must be a JSON object');
  const hooks = nodeAt(root, ['hooks']);
  if (hooks && hooks.type !== 'object') throw new SettingsError('"hooks" must be an object');
  for (const event of HOOK_EVENTS) {
    const list = nodeAt(root, ['hooks', event]);
    if (list && list.type !== 'array') throw new SettingsError(`"hooks.${event}" must be an array`);
  }
  return root;
}

/** Indentation and line ends of the file itself, so our insertions look like the rest. */
export function detectFormatting(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indents = text
    .split(/\r?\n/)
    .map((l) => /^([ \t]+)\S/.exec(l)?.[1])
    .filter((s): s is string => s !== undefined);
  if (indents.some((s) => s.startsWith('\t'))) return { insertSpaces: false, tabSize: 1, eol };
  // A loop, not Math.min(...spread): a file of 100,000+ lines would overflow the call stack.
  let size = Infinity;
  for (const s of indents) size = Math.min(size, s.length);
  if (size === Infinity) size = 2;
  return { insertSpaces: true, tabSize: Math.max(1, Math.min(size, 8)), eol };
}

interface OurEntry {
  event: HookEventName;
  group: number;
  hook: number;
  /** Every hook of the group is ours: the whole group goes when the entry goes. */
  groupIsOurs: boolean;
  /** The group's value, for comparing with what we would write. */
  groupValue: unknown;
}

function ourEntries(root: Node, event: HookEventName): OurEntry[] {
  const list = nodeAt(root, ['hooks', event]);
  const out: OurEntry[] = [];
  list?.children?.forEach((groupNode, group) => {
    const hooksNode = nodeAt(groupNode, ['hooks']);
    if (!hooksNode || hooksNode.type !== 'array' || !hooksNode.children) return;
    const hooks = hooksNode.children.map((h) => (h.type === 'object' ? getNodeValue(h) : undefined));
    const groupIsOurs = hooks.length > 0 && hooks.every(isOurHook);
    hooks.forEach((value, hook) => {
      if (isOurHook(value)) out.push({ event, group, hook, groupIsOurs, groupValue: getNodeValue(groupNode) });
    });
  });
  return out;
}

function ourGroup(spec: HookEntrySpec): unknown {
  const hook =
    spec.url === undefined
      ? spec.args
        ? { type: 'command', command: spec.command, args: [...spec.args], timeout: spec.timeoutSec }
        : { type: 'command', command: spec.command, timeout: spec.timeoutSec }
      : // Fails open: a receiver that is down or slow never blocks a tool call for longer than the timeout.
        { type: 'http', url: spec.url, timeout: spec.timeoutSec, headers: { [HTTP_SECRET_HEADER]: spec.secret }, onFailure: 'continue' };
  return { matcher: spec.matcher ?? '*', hooks: [hook] };
}

const BOM = '\ufeff';

/**
 * Edits the text after a leading byte order mark and puts the mark back: an
 * editor that writes one wrote it on purpose, and Claude Code reads the file
 * past it.
 */
function keepingBom(text: string, edit: (body: string) => string): string {
  if (!text.startsWith(BOM)) return edit(text);
  const body = text.slice(BOM.length);
  const out = edit(body);
  return out === body ? text : BOM + out;
}

function normalize(text: string): string {
  return text.trim() === '' ? '{}' : text;
}

function at(root: Node, path: JSONPath): Node {
  const node = nodeAt(root, path);
  if (!node) throw new Error(`settings edit: nothing at ${path.join('.')}`);
  return node;
}

/** Removes one of our entries: its whole group when the group is only ours, else just the entry. */
function removeEntry(text: string, e: OurEntry): string {
  const root = parseSettings(text);
  const edit = e.groupIsOurs ? removeChild(text, at(root, ['hooks', e.event]), e.group) : removeChild(text, at(root, ['hooks', e.event, e.group, 'hooks']), e.hook);
  return applyEdits(text, edit);
}

/** Removes property `key` of the object at `path` when it is there and empty. */
function dropIfEmpty(text: string, path: JSONPath, key: string): string {
  const root = parseSettings(text);
  const object = nodeAt(root, path);
  const value = nodeAt(root, [...path, key]);
  if (!object || !value || (value.children?.length ?? 0) > 0) return text;
  const index = object.children!.findIndex((p) => p.children?.[1] === value);
  // A comment inside, or between the key and the value, is the user's: the container is theirs too.
  const keyNode = object.children![index].children![0];
  if (/\/[/*]/.test(text.slice(keyNode.offset + keyNode.length, value.offset + value.length - 1))) return text;
  return applyEdits(text, removeChild(text, object, index));
}

/**
 * Whether a container was there, empty, before install filled it: install
 * writes into such a container right after its opening bracket (see
 * jsonEdits' append), while a container install creates has its first child
 * on a line of its own. Uninstall keeps the former, so a user's
 * `"PreToolUse": []` or `"hooks": {}` outlives install and uninstall.
 */
function filledByInstall(text: string, container: Node | undefined): boolean {
  const first = container?.children?.[0];
  if (!first || first.offset !== container!.offset + 1) return false;
  // One we created in a one-line container is compact, on one line: `[{"matcher":...}]`.
  return /\n/.test(text.slice(first.offset, first.offset + first.length));
}

function removeOurs(text: string): string {
  let out = text;
  let removed = false;
  const keepHooks = filledByInstall(text, nodeAt(parseSettings(text), ['hooks']));
  for (const event of HOOK_EVENTS) {
    const root = parseSettings(out);
    const entries = ourEntries(root, event);
    if (entries.length === 0) continue;
    const keepList = filledByInstall(out, nodeAt(root, ['hooks', event]));
    for (const e of entries.reverse()) out = removeEntry(out, e);
    // Only an event list our removal emptied goes; one that was empty before stays.
    if (!keepList) out = dropIfEmpty(out, ['hooks'], event);
    removed = true;
  }
  return removed && !keepHooks ? dropIfEmpty(out, [], 'hooks') : out;
}

/**
 * Adds our PreToolUse and PostToolUse entries, or brings existing ones up to
 * `spec` in place. Idempotent: installing again never duplicates, and changes
 * nothing when our entries already say the same.
 */
export function installHookEntries(text: string, spec: HookEntrySpec): string {
  return keepingBom(text, (body) => installInBody(body, spec));
}

function installInBody(text: string, spec: HookEntrySpec): string {
  let out = normalize(text);
  const fmt = detectFormatting(out);
  const wanted = ourGroup(spec);
  for (const event of HOOK_EVENTS) {
    const entries = ourEntries(parseSettings(out), event);
    // Keep the first group that holds only our one entry, in its place; drop every other entry of ours.
    const kept = entries.find((e) => e.groupIsOurs && (e.groupValue as { hooks: unknown[] }).hooks.length === 1);
    for (const e of entries.filter((x) => x !== kept).reverse()) out = removeEntry(out, e);
    const root = parseSettings(out);
    if (kept) {
      // Removals may have shifted its index: it is now our only entry of the event.
      const current = ourEntries(root, event)[0];
      if (JSON.stringify(current.groupValue) !== JSON.stringify(wanted)) {
        out = applyEdits(out, [replaceValue(out, at(root, ['hooks', event, current.group]), wanted, fmt)]);
      }
      continue;
    }
    const hooks = nodeAt(root, ['hooks']);
    const list = nodeAt(root, ['hooks', event]);
    // The user's own empty list or hooks object is filled from its opening bracket, so uninstall knows to keep it.
    const edit = list
      ? appendToArray(out, list, wanted, fmt, { hugEmpty: true })
      : hooks
        ? addProperty(out, hooks, event, [wanted], fmt, { hugEmpty: true })
        : addProperty(out, root, 'hooks', { [event]: [wanted] }, fmt);
    out = applyEdits(out, edit);
  }
  if (out === normalize(text)) return text;
  // A file we create ends with a newline like any text file.
  return text.trim() === '' ? out + fmt.eol : out;
}

/** Removes only our entries; everything else, comments and formatting included, stays. */
export function uninstallHookEntries(text: string): string {
  return keepingBom(text, (body) => {
    if (body.trim() === '') return body;
    parseSettings(body);
    return removeOurs(body);
  });
}

/** Our entries currently in the text, per event: the command, or an http entry's URL (for status displays). */
export function installedHookCommands(text: string): Record<HookEventName, string[]> {
  const root = parseSettings(normalize(text.startsWith(BOM) ? text.slice(BOM.length) : text));
  const out = { PreToolUse: [] as string[], PostToolUse: [] as string[] };
  for (const event of HOOK_EVENTS) {
    for (const e of ourEntries(root, event)) {
      const hook = (e.groupValue as { hooks: { command?: string; args?: string[]; url?: string }[] }).hooks[e.hook];
      out[event].push(hook.args ? [hook.command, ...hook.args].join(' ') : (hook.command ?? hook.url ?? ''));
    }
  }
  return out;
}
