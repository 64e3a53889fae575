import { HOOK_RUN_DECISIONS, type HookRunDecision, MAX_HOOK_LABEL_LENGTH } from './channelConstants';
import { answerOf } from './hookDecision';
import { printable } from './printable';

/**
 * What the completing wrapper (src/cli/complete.ts) says of each hook it ran, as a `hook_run` channel
 * event (docs/CHANNEL.md): a short label of the hook's command, and its decision as Claude Code reads it.
 */

/**
 * Programs that run a script named by a later argument: the label is the script's, not theirs
 * (`python3 ~/hooks/review.py` is `review.py`).
 */
const RUNNERS: ReadonlySet<string> = new Set([
  'node', 'nodejs', 'bun', 'deno', 'tsx', 'ts-node', 'npx', 'bunx', 'uvx',
  'python', 'python3', 'python2', 'py', 'pypy', 'pypy3',
  'sh', 'bash', 'zsh', 'dash', 'ksh', 'fish',
  'ruby', 'perl', 'php', 'pwsh', 'powershell', 'lua', 'Rscript', 'osascript',
]);
/** A runner's options that take the code itself as their value: no script follows, the label stays the runner's. */
const CODE_OPTIONS: ReadonlySet<string> = new Set(['-c', '-e', '--eval', '-p', '--print', '-Command', '-command', '-EncodedCommand']);
/** A runner's options whose value names what runs (`python3 -m pkg.hook`): that value is the label. */
const MODULE_OPTIONS: ReadonlySet<string> = new Set(['-m']);
/** Words before the program that are no part of its name. */
const PREFIX_WORDS: ReadonlySet<string> = new Set(['exec', 'env', 'command', 'nohup', 'time']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The last part of a path, `/` or `\` separated (a script's file name, a program's name). */
function baseName(word: string): string {
  const trimmed = word.replace(/[/\\]+$/, '');
  return trimmed.slice(Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\')) + 1);
}

/**
 * The words of a shell command's first simple command, as `sh` splits them, well enough for a label:
 * quotes and backslashes undone, `$VAR` and `${VAR}` left as written; it stops at the first
 * operator (`;`, `|`, `&`, a newline, a redirection or a parenthesis), and reads at most 4 KiB.
 */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  const text = command.slice(0, 4096);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      word += text.slice(i + 1, end === -1 ? text.length : end);
      inWord = true;
      i = end === -1 ? text.length : end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && j + 1 < text.length && '"\\$`'.includes(text[j + 1])) j++;
        word += text[j];
      }
      inWord = true;
      i = j;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (c === ' ' || c === '\t') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (';|&\n<>()'.includes(c)) {
      break;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * A short label for a hook command (`hook` of a `hook_run` event): the program's name, or for a
 * runner (node, python3, bash, npx, …) the file name of the script it runs, or the module of `-m`.
 * Only names, never an argument's value: a command line may carry a token (`--token=…`,
 * `API_KEY=… ./hook.sh`, `--registry https://user:pass@host`), so assignments before the program and
 * options are skipped, a word after an option is taken only when it looks like a script (a path, a
 * file name with an extension), no word holding `=`, `@` or a URL is taken, and the path of a script
 * is cut to its file name. `sh -c '<command>'` (how `wrap-hooks` runs a settings hook)
 * is labelled by the command it runs. Control characters stripped, at most MAX_HOOK_LABEL_LENGTH
 * UTF-16 units; `hook` when nothing names it.
 */
export function hookLabel(program: string, args: readonly string[]): string {
  return cutLabel(labelOfWords([program, ...args], 0));
}

function labelOfWords(words: readonly string[], depth: number): string {
  let i = 0;
  // `/usr/bin/env TOKEN=… node h.js`, `exec ./h.sh`: the words before the program, and their options.
  let prefix = false;
  while (i < words.length) {
    const w = words[i];
    if (ASSIGNMENT.test(w) || PREFIX_WORDS.has(baseName(w))) prefix = PREFIX_WORDS.has(baseName(w)) || prefix;
    else if (!(prefix && w.startsWith('-'))) break;
    i++;
  }
  const program = words[i];
  if (program === undefined || program === '') return '';
  const name = baseName(program);
  const bare = name.replace(/\.exe$/i, '');
  if (!RUNNERS.has(bare)) return name;
  let afterOption = false;
  for (let j = i + 1; j < words.length; j++) {
    const w = words[j];
    if (CODE_OPTIONS.has(w)) {
      // `sh -c '<command>'`: the label of the command it runs (once: a command that is itself `sh -c` says so).
      const code = words[j + 1];
      if (depth === 0 && code !== undefined && (bare === 'sh' || bare === 'bash' || bare === 'zsh' || bare === 'dash' || bare === 'ksh')) {
        const inner = labelOfWords(shellWords(code), depth + 1);
        if (inner !== '') return inner;
      }
      return bare;
    }
    if (MODULE_OPTIONS.has(w)) return words[j + 1] !== undefined && nameLike(words[j + 1]) ? baseName(words[j + 1]) : bare;
    if (w === '--') {
      afterOption = false;
      continue;
    }
    if (w.startsWith('-')) {
      // `--registry URL`, `--config PATH`: what follows an option may be its value, not the script.
      afterOption = !w.includes('=');
      continue;
    }
    // `deno run x.ts`, `npx tsx x.ts`: a subcommand or a runner in front of the script.
    if ((w === 'run' && (bare === 'deno' || bare === 'bun')) || RUNNERS.has(w)) continue;
    const wasAfterOption = afterOption;
    afterOption = false;
    if (!nameLike(w) || (wasAfterOption && !SCRIPT_LIKE.test(w))) continue;
    return baseName(w) || bare;
  }
  return bare;
}

/** A word after an option is taken for the script only when it looks like one: a path, or a file name with an extension. */
const SCRIPT_LIKE = /[/\\]|\.[A-Za-z0-9]{1,6}$/;

/** Whether a word may name the hook: never one holding an assignment, a URL or credentials (`user:pass@host`). */
function nameLike(word: string): boolean {
  return word !== '' && !/[=@]|:\/\/|^[^:]{2,}:/.test(word);
}

function cutLabel(label: string): string {
  const text = printable(label).trim();
  if (text === '') return 'hook';
  if (text.length <= MAX_HOOK_LABEL_LENGTH) return text;
  // Cut in UTF-16 units, as the schema counts, never inside a surrogate pair.
  let head = text.slice(0, MAX_HOOK_LABEL_LENGTH - 1);
  if (/[\ud800-\udbff]$/.test(head)) head = head.slice(0, -1);
  return `${head}…`;
}

/** One wrapped hook's run as readers keep it: the `hook_run` event's own fields. */
export interface HookRun {
  /** A short label of the hook's command (hookLabel). */
  hook: string;
  /** When it exited (ms since epoch); it started `ms` before. */
  at: number;
  ms: number;
  /** As Claude Code reads its exit and stdout; absent when its answer was too long to read. */
  decision?: HookRunDecision;
  /** Null when a signal ended it. */
  exit_code: number | null;
  signal?: string;
  /** The transcript it was given held the call's record. */
  completed: boolean;
}

/** At most this many runs are kept per call: a call runs a handful of hooks; a flood of reports is not kept. */
export const MAX_HOOK_RUNS_PER_CALL = 16;

/** The run's fields of a `hook_run` event (or anything holding them), no more. */
export function hookRunOf(e: HookRun): HookRun {
  return {
    hook: e.hook,
    at: e.at,
    ms: e.ms,
    ...(e.decision !== undefined ? { decision: e.decision } : {}),
    exit_code: e.exit_code,
    ...(e.signal !== undefined ? { signal: e.signal } : {}),
    completed: e.completed,
  };
}

/**
 * A call's runs with one more, by start (then exit), as a new list; undefined when it adds nothing:
 * the same run again (same hook, exit time, length and code: one line read twice), or the call
 * already holds MAX_HOOK_RUNS_PER_CALL.
 */
export function withHookRun(runs: readonly HookRun[], run: HookRun): HookRun[] | undefined {
  if (runs.length >= MAX_HOOK_RUNS_PER_CALL) return undefined;
  if (runs.some((r) => r.hook === run.hook && r.at === run.at && r.ms === run.ms && r.exit_code === run.exit_code)) return undefined;
  return [...runs, run].sort((a, b) => a.at - a.ms - (b.at - b.ms) || a.at - b.at);
}

/** The head of a hook's stdout kept to read its decision from; a JSON answer longer than this is not read. */
export const HOOK_STDOUT_HEAD_BYTES = 64 * 1024;

/**
 * A wrapped hook's decision as Claude Code reads it (hookDecision.ts's rule): exit 2 `block`; exit 0
 * `allow`, or its JSON's `deny`/`ask`/`allow`; any other exit or a signal `error`. Undefined when it
 * cannot be told: exit 0 with more stdout than the head kept (the JSON could not be read whole).
 */
export function hookRunDecision(exitCode: number | null, signal: string | null, stdoutHead: string, stdoutCut: boolean): HookRunDecision | undefined {
  if (exitCode === 0 && stdoutCut) return undefined;
  const answer = answerOf({ exitCode, signal, timedOut: false, stdout: stdoutHead, stderr: '' }).decision;
  return (HOOK_RUN_DECISIONS as readonly string[]).includes(answer) ? (answer as HookRunDecision) : 'error';
}
