// Runs the mod (src/mod/register.ts) outside Claude Code: `register(on, options)` with its handlers
// collected, driven by a fake `$` whose files are real temp files (node fs), whose timers run only
// when the test says (`tick`), whose `process.run` records each argv (and really runs mkdir, chmod
// and rm, the POSIX tools the mod runs) and whose receiver is none unless the test gives one. The
// mod reads its time from `Date.now()`: the harness stops it at the start and moves it only with its
// timers (`tick`), so a busy machine's real time never reaches a test; `dispose` gives it back.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ModApi, On, RenderEvent } from '../../../src/mod/api';
import { register } from '../../../src/mod/register';
import type { ConversationRow } from '../../../src/rules/modContract';

export const SESSION = '3e55a9e0-0000-4000-8000-00000000a11d';

type Hook = ($: ModApi, e: any, next: (e: any) => Promise<any>) => unknown;

interface Timer {
  at: number;
  every?: number;
  fn: () => void;
  cancelled: boolean;
}

export interface ModHarnessOptions {
  /** The Claude dir as Claude Code would name it: a POSIX path under the temp root by default; a Windows path (`C:\…`) is kept under the temp root too. */
  claudeDir?: string;
  options?: Record<string, unknown>;
  /** What `$.session.version()` answers; absent: the build has no such call and it throws. */
  version?: string;
  /** `$.session.version()` never answers. */
  versionHangs?: boolean;
  /**
   * The mod API of 2.1.286–2.1.325 as test/field/measure/heldMessageApi.mjs found it: no `$.session.info()`
   * (the transcript from classic.SessionStart), and `$.session.messages` refuses `last` (asked bare, it answers).
   */
  before326?: boolean;
  /** Print mode's order (measured on 2.1.300, test/field/measure/hookOrder.mjs): classic.SessionStart before session.start. */
  print?: boolean;
}

export class ModHarness {
  readonly root: string;
  readonly claudeDir: string;
  readonly transcript: string;
  /** How many times `$.fs.list` was called; each waits for `listGate` first. */
  lists = 0;
  listGate: Promise<void> = Promise.resolve();
  /** Files of other copies in the spool, listed but not made on disk (20,000 files cost seconds to make). */
  otherSpoolFiles = 0;
  /** Every argv `$.process.run` was given, in order. */
  readonly runs: string[][] = [];
  /** What `$.process.run` answers for a program the harness does not run (cmd.exe): its exit code. */
  runExitCode = 0;
  /** An exit code to answer instead of running the argv (a tool that fails); undefined: run it. */
  runFails: (argv: string[]) => number | undefined = () => undefined;
  /** `$.http.fetch`: rejects at once (no receiver) unless the test sets it. */
  fetch: (url: string, body: string) => Promise<{ ok: boolean; status: number }> = () => Promise.reject(new Error('ECONNREFUSED'));
  /** Sizes `$.fs.stat` gives instead of the file's, by real path (a stale view, as Claude Code 2.1.332's was seen to give). */
  readonly staleSizes = new Map<string, number>();
  /** `$.session.messages()`'s rows: the conversation so far. */
  rows: ConversationRow[] = [];
  readonly version: string | undefined;
  /** How many times `$.fs.read` was asked for bytes. */
  byteReads = 0;
  readonly versionHangs: boolean;
  readonly before326: boolean;
  readonly print: boolean;
  /** Every argument `$.session.messages` was given, in order (undefined: asked bare). */
  readonly messageAsks: unknown[] = [];
  private readonly hooks: { event: string; component?: string; hook: Hook }[] = [];
  private readonly timers: Timer[] = [];
  private readonly pending = new Set<Promise<unknown>>();
  private offset = 0;
  private readonly realNow = Date.now;
  readonly $: ModApi;

  constructor(opts: ModHarnessOptions = {}) {
    this.root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-mod-')));
    this.claudeDir = opts.claudeDir ?? path.join(this.root, '.claude');
    const sep = this.claudeDir.includes('\\') ? '\\' : '/';
    this.transcript = [this.claudeDir, 'projects', '-work', `${SESSION}.jsonl`].join(sep);
    fs.mkdirSync(path.dirname(this.real(this.transcript)), { recursive: true });
    fs.writeFileSync(this.real(this.transcript), '');
    const startedAt = this.realNow();
    Date.now = () => startedAt + this.offset;
    this.version = opts.version;
    this.versionHangs = opts.versionHangs ?? false;
    this.before326 = opts.before326 === true;
    this.print = opts.print === true;
    this.$ = this.fake();
    const on = ((event: string, matcherOrHook: { component: string } | Hook, maybeHook?: Hook) => {
      if (typeof matcherOrHook === 'function') this.hooks.push({ event, hook: matcherOrHook });
      else this.hooks.push({ event, component: matcherOrHook.component, hook: maybeHook! });
    }) as On;
    register(on, opts.options ?? {});
  }

  /** Where a path the mod names is on this machine: a Windows path goes under the temp root. */
  real(p: string): string {
    if (!p.includes('\\')) return p;
    return path.join(this.root, 'win', ...p.replace(/^([A-Za-z]):/, '$1').split('\\').filter(Boolean));
  }

  /** A path the mod names under the Claude dir, joined as the mod joins it. */
  claudePath(...parts: string[]): string {
    return [this.claudeDir, ...parts].join(this.claudeDir.includes('\\') ? '\\' : '/');
  }

  dispose(): void {
    Date.now = this.realNow;
    for (const t of this.timers) t.cancelled = true;
    fs.rmSync(this.root, { recursive: true, force: true });
  }

  /** Runs the mod's handlers for `event` (ui.render: the one for `component`), innermost `next` given by the test. */
  emit(event: string, e: unknown, next: (e: any) => Promise<any> = async (x) => x, component?: string): Promise<unknown> {
    const hook = this.hooks.find((h) => h.event === event && h.component === component);
    if (!hook) return next(e);
    return Promise.resolve(hook.hook(this.$, e, next));
  }

  async start(): Promise<void> {
    // A build without `$.session.info()`: the session's classic SessionStart names its transcript, as Claude Code's does.
    const classic = () => (this.before326 ? this.emit('classic.SessionStart', { hook_event_name: 'SessionStart', session_id: SESSION, transcript_path: this.transcript, source: 'startup' }) : undefined);
    if (this.print) await classic();
    await this.emit('session.start', { isInteractive: !this.print });
    if (!this.print) await classic();
    await this.settle();
  }

  /**
   * A tool call: its `tool.call` runs up to `next` (what the call's settings hooks would then see is on disk
   * once this resolves); `finish()` lets the tool end and the call settle. With `hooks`, `next` first raises
   * `classic.PreToolUse` as Claude Code does, beneath tool.call, `hooks` standing for the settings hooks
   * (what it resolves to is their PreToolUseResult; it may wait for the test).
   */
  async call(id: string, tool = 'Bash', opts: { hooks?: () => Promise<unknown>; agentId?: string } = {}): Promise<{ finish(): Promise<void> }> {
    let release!: () => void;
    const ran = new Promise<void>((r) => (release = r));
    let reached!: () => void;
    const atNext = new Promise<void>((r) => (reached = r));
    const done = this.emit('tool.call', { tool, tool_use_id: id, ...(opts.agentId !== undefined ? { agentId: opts.agentId } : {}) }, async (e) => {
      reached();
      if (opts.hooks !== undefined) await this.emit('classic.PreToolUse', { tool, tool_use_id: id }, opts.hooks);
      await ran;
      return e;
    });
    await Promise.race([atNext, done]);
    await this.settle();
    return {
      finish: async () => {
        release();
        await done;
        await this.settle();
      },
    };
  }

  /** Appends a transcript line (a record Claude Code writes). */
  append(line: object): void {
    fs.appendFileSync(this.real(this.transcript), `${JSON.stringify(line)}\n`);
  }

  /** The assistant record of a call, as the transcript holds it. */
  appendRecord(id: string, tool = 'Bash'): void {
    this.append({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id, name: tool, input: {} }] } });
  }

  /** Moves the mod's time on by `ms`, running every timer that falls due, each followed by what it set going. */
  async tick(ms: number): Promise<void> {
    const end = Date.now() + ms;
    for (;;) {
      const due = this.timers.filter((t) => !t.cancelled && t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.offset += Math.max(0, due.at - Date.now());
      if (due.every !== undefined) due.at += due.every;
      else due.cancelled = true;
      due.fn();
      await this.settle();
    }
    this.offset += Math.max(0, end - Date.now());
    await this.settle();
  }

  /** Waits until no `$` call the mod made is still running, and what followed them has run. */
  async settle(): Promise<void> {
    for (let idle = 0; idle < 3; ) {
      if (this.pending.size > 0) {
        idle = 0;
        await Promise.allSettled([...this.pending]);
      } else idle++;
      await new Promise((r) => setImmediate(r));
    }
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    const done = () => this.pending.delete(p);
    p.then(done, done);
    return p;
  }

  private fake(): ModApi {
    const h = this;
    const timer = (ms: number, fn: () => void, every: boolean) => {
      const t: Timer = { at: Date.now() + ms, fn, cancelled: false, ...(every ? { every: Math.max(1, ms) } : {}) };
      h.timers.push(t);
      return { cancel: () => void (t.cancelled = true) };
    };
    function read(p: string): Promise<string>;
    function read(p: string, range: { as: 'bytes'; offset?: number; length?: number }): Promise<{ base64: string }>;
    function read(p: string, range?: { as: 'bytes'; offset?: number; length?: number }): Promise<string | { base64: string }> {
      return h.track(
        (async () => {
          if (!range) return fs.promises.readFile(h.real(p), 'utf8');
          h.byteReads++;
          // Before 2.1.326 (npm run compat's "mod API"): the whole file, whatever offset and length.
          if (h.before326) return { base64: (await fs.promises.readFile(h.real(p))).toString('base64') };
          const fd = await fs.promises.open(h.real(p), 'r');
          try {
            const buf = Buffer.alloc(range.length ?? 0);
            const { bytesRead } = await fd.read(buf, 0, buf.length, range.offset ?? 0);
            return { base64: buf.subarray(0, bytesRead).toString('base64') };
          } finally {
            await fd.close();
          }
        })(),
      );
    }
    return {
      clock: {
        now: () => h.track(Promise.resolve(Date.now())),
        every: (ms, fn) => timer(ms, fn, true),
        after: (ms, fn) => timer(ms, fn, false),
      },
      session: {
        info: () => (h.before326 ? h.track(Promise.reject(new TypeError("$.session.info is not a function. (In '$.session.info()', '$.session.info' is undefined)"))) : h.track(Promise.resolve({ transcriptPath: h.transcript }))),
        messages: (args) => {
          h.messageAsks.push(args);
          const last = args?.last;
          if (h.before326 && last !== undefined) return h.track(Promise.reject(new Error('transcript-lag: $.session.messages takes { agentId, as } or nothing (not last)')));
          return h.track(Promise.resolve(last === undefined ? h.rows : h.rows.slice(-last)));
        },
        // A build without the call: the engine's proxy throws (TypeError: not a function).
        // `versionHangs`: a build whose call never answers (not tracked: settle does not wait for it).
        version: () => (h.versionHangs ? new Promise(() => {}) : h.version !== undefined ? h.track(Promise.resolve({ version: h.version, base: h.version })) : h.track(Promise.reject(new TypeError('$.session.version is not a function')))),
      },
      fs: {
        read,
        // As Claude Code's (2.1.332): missing folders are made with the default mode, the file 0600.
        write: (p, text) =>
          h.track(
            (async () => {
              await fs.promises.mkdir(path.dirname(h.real(p)), { recursive: true });
              await fs.promises.writeFile(h.real(p), text, { mode: 0o600 });
            })(),
          ),
        stat: (p) =>
          h.track(
            (async () => {
              const l = await fs.promises.lstat(h.real(p));
              const st = l.isSymbolicLink() ? await fs.promises.stat(h.real(p)) : l;
              const size = h.staleSizes.get(h.real(p)) ?? st.size;
              return { kind: st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other', size, mtimeMs: st.mtimeMs, isLink: l.isSymbolicLink() } as const;
            })(),
          ),
        list: (p) => {
          h.lists++;
          // Waited for by settle once the gate is open: a list held at the gate is one still running.
          return h.listGate
            .then(() => h.track(fs.promises.readdir(h.real(p))))
            .then((names) => [...names, ...(p.endsWith('spool') ? Array.from({ length: h.otherSpoolFiles }, (_, i) => `other.${i}.json`) : [])].map((name) => ({ name })));
        },
        exists: (p) => h.track(fs.promises.access(h.real(p)).then(() => true, () => false)),
      },
      // Not waited for by settle: a receiver that never answers must not hang the test.
      http: { fetch: (url, init) => h.fetch(url, init.body) },
      process: {
        run: (argv) => {
          h.runs.push([...argv]);
          const failed = h.runFails(argv);
          if (failed !== undefined) return h.track(Promise.resolve({ exitCode: failed }));
          if (!['mkdir', 'chmod', 'rm'].includes(argv[0])) return h.track(Promise.resolve({ exitCode: h.runExitCode }));
          return h.track(new Promise((resolve) => execFile(argv[0], argv.slice(1), (err) => resolve({ exitCode: err ? (typeof err.code === 'number' ? err.code : 1) : 0 }))));
        },
      },
      ui: {
        invalidate: () => undefined,
        resolve: (_e: RenderEvent) => ({ Box: (props: object) => ({ Box: props }), Text: (props: object) => ({ Text: props }) }),
      },
    };
  }

  /** The spool's events of the session, in name order. */
  spooled(): { event: string; tool_use_id?: string; tool_use_ids?: string[]; [field: string]: unknown }[] {
    const dir = this.real(this.claudePath('transcript-lag', 'spool'));
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir)
      .filter((n) => n.startsWith(`${SESSION}.`))
      .sort()
      .map((n) => JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')));
  }

  /** The calls the mod lists in `mod/<session>.json` (the command hooks stand aside for these). */
  listed(): string[] {
    const file = this.real(this.claudePath('transcript-lag', 'mod', `${SESSION}.json`));
    return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { calls: string[] }).calls : [];
  }

  heldFile(id: string): string {
    return this.real(this.claudePath('transcript-lag', 'held', SESSION, `${id}.json`));
  }
}

/** The conversation rows of an assistant message with some text and one call. */
export function messageRows(id: string, text = 'Running it.'): ConversationRow[] {
  return [
    { role: 'user', text: 'go', toolUses: [] },
    { role: 'assistant', text, toolUses: [] },
    { role: 'assistant', text: '', toolUses: [{ tool_use_id: id, tool: 'Bash', input: { command: 'ls' } }] },
  ];
}
