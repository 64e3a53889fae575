import { applyEdits, type Edit, type Node } from 'jsonc-parser';
import { COMPLETE_TOOL_FILE_NAME } from '../../rules/channelConstants';
import { shellQuote } from './hookCommand';
import { isOurHookCommand, parseSettings } from './hookEntries';

// `wrap-hooks` / `unwrap-hooks` (issue 39 §3): every PreToolUse command hook of a settings file put
// behind `transcript-lag complete` and taken back. Only each wrapped command's string token changes
// (the rest of the file, comments and layout included, stays byte for byte), and unwrap gives back
// the command as it was, exactly: the wrapped form carries it as one POSIX-quoted word.
//
//   node '<claude dir>/transcript-lag/bin/transcript-lag-complete.js' -- sh -c '<the command>'
//
// The command runs through `sh -c` as Claude Code runs a hook's command through a shell. Left as
// they are: our own reporting hook (install-hook's), an exec-form hook (`args`: no shell line to
// wrap), hooks of other events, and a command already wrapped.

export interface WrapSpec {
  /** The runtime, an absolute path (or `node`), quoted into the command. */
  nodePath: string;
  /** The wrapper's stable copy, `<claude dir>/transcript-lag/bin/transcript-lag-complete.js`. */
  wrapperPath: string;
}

export interface WrapResult {
  text: string;
  /** How many commands were wrapped (or, unwrapping, given back). */
  changed: number;
  /** Commands left as they are, and why (`exec form`, `ours`, `already wrapped`). */
  skipped: Array<{ command: string; why: string }>;
}

function wrappedPrefix(spec: WrapSpec): string {
  return `${shellQuote(spec.nodePath)} ${shellQuote(spec.wrapperPath)} -- sh -c `;
}

export function wrapCommand(command: string, spec: WrapSpec): string {
  return wrappedPrefix(spec) + shellQuote(command);
}

/** The word a shellQuote made, read back; undefined unless quoting it again gives the same text. */
function unquote(word: string): string | undefined {
  const m = /^'((?:[^']|'\\'')*)'$/.exec(word);
  if (!m) return undefined;
  const value = m[1].replace(/'\\''/g, "'");
  return shellQuote(value) === word ? value : undefined;
}

/** Two quoted words `'…' '…/transcript-lag-complete.js' -- sh -c '…'`: the command inside, else undefined. */
export function unwrapCommand(command: string): string | undefined {
  const m = /^('(?:[^']|'\\'')*') ('(?:[^']|'\\'')*') -- sh -c ('.*')$/s.exec(command);
  if (!m) return undefined;
  const wrapper = unquote(m[2]);
  if (wrapper === undefined || unquote(m[1]) === undefined || wrapper.split(/[/\\]/).pop() !== COMPLETE_TOOL_FILE_NAME) return undefined;
  return unquote(m[3]);
}

/** Each `{ "type": "command", "command": "…" }` hook of hooks.PreToolUse: its command's node, and the hook object's. */
function preToolUseCommands(root: Node): Array<{ hook: Node; command: Node }> {
  const out: Array<{ hook: Node; command: Node }> = [];
  const prop = (obj: Node | undefined, key: string) => (obj?.type === 'object' ? obj.children?.find((p) => p.children?.[0]?.value === key)?.children?.[1] : undefined);
  const groups = prop(prop(root, 'hooks'), 'PreToolUse');
  for (const group of groups?.type === 'array' ? groups.children ?? [] : []) {
    const hooks = prop(group, 'hooks');
    for (const hook of hooks?.type === 'array' ? hooks.children ?? [] : []) {
      if (prop(hook, 'type')?.value !== 'command') continue;
      const command = prop(hook, 'command');
      if (command?.type === 'string') out.push({ hook, command });
    }
  }
  return out;
}

function hasArgs(hook: Node): boolean {
  return hook.children?.some((p) => p.children?.[0]?.value === 'args') ?? false;
}

/** Replaces a string token alone: the bytes around it (a comment on its line, its layout) stay. */
function replaceString(node: Node, value: string): Edit {
  return { offset: node.offset, length: node.length, content: JSON.stringify(value) };
}

export function wrapPreToolUseHooks(text: string, spec: WrapSpec): WrapResult {
  const root = parseSettings(text);
  const edits: Edit[] = [];
  const skipped: WrapResult['skipped'] = [];
  for (const { hook, command } of preToolUseCommands(root)) {
    const value = command.value as string;
    if (unwrapCommand(value) !== undefined) skipped.push({ command: value, why: 'already wrapped' });
    else if (isOurHookCommand(value)) skipped.push({ command: value, why: "transcript-lag's own reporting hook" });
    else if (hasArgs(hook)) skipped.push({ command: value, why: 'exec form (args): no shell command line to wrap' });
    else edits.push(replaceString(command, wrapCommand(value, spec)));
  }
  return { text: edits.length > 0 ? applyEdits(text, edits) : text, changed: edits.length, skipped };
}

export function unwrapPreToolUseHooks(text: string): WrapResult {
  const root = parseSettings(text);
  const edits: Edit[] = [];
  for (const { command } of preToolUseCommands(root)) {
    const inner = unwrapCommand(command.value as string);
    if (inner !== undefined) edits.push(replaceString(command, inner));
  }
  return { text: edits.length > 0 ? applyEdits(text, edits) : text, changed: edits.length, skipped: [] };
}
