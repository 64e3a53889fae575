/**
 * Transports: what each way of reporting a tool call costs the user's session, per call. The real
 * Claude Code CLI runs in print mode (`claude -p`) against the field suite's stand-in Messages API,
 * which scripts six Read calls, one per assistant message. Per call: the time from the stand-in
 * closing the tool_use block to the request that carries its tool_result (the CLI ran the
 * PreToolUse hooks, the tool and the PostToolUse hooks in between). Transports, each in its own
 * sandbox HOME with `watch` running: no hook; install-hook (command hooks, two Node starts a call);
 * install-hook --http (http hooks to the receiver `watch` serves); the same with the receiver alone in
 * a process of its own (bench/receiverChild.ts; not something users run: it tells the http transport's
 * own cost from that of sharing `watch`'s event loop with the engine); the same http hooks answered by a
 * bare server (bench/bareHookChild.ts: `{}` at once, keep-alive, nothing written: the floor an http hook
 * costs); the plugin (`claude plugin install` from this folder); the mod alone (`--plugin-dir` of a copy
 * of plugin/ whose hooks.json keeps its "modules" and drops its command "hooks"); a floor mod whose
 * handlers, on the same events, only call `next` (what Claude Code's mod host costs). One round runs each
 * once, in an order that rotates round by round,
 * so all share the machine's moment. The field suite's helpers are loaded at run time from
 * test/field/ (ES modules that find the repository from their own URL, so not bundled).
 */
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchContext } from './lib/context';
import { row, type Row, type SectionResult } from './lib/report';
import { median, percentile } from './lib/stats';
import { freePort, receiverRoundTrips, startServerChild } from './receiverRoundTrip';

const SECTION = 'transports';
const CALLS = 6;

type Transport = 'none' | 'command' | 'http' | 'httpAlone' | 'httpBare' | 'plugin' | 'mod' | 'modFloor';
const TRANSPORTS: Transport[] = ['none', 'command', 'http', 'httpAlone', 'httpBare', 'plugin', 'mod', 'modFloor'];
/** The rows after `no hook`, in the table's order. */
const HOOKED = ['mod', 'modFloor', 'httpBare', 'http', 'httpAlone', 'command', 'plugin'] as const;
const LABEL: Record<Transport, string> = {
  none: 'no hook',
  command: 'command hook (install-hook)',
  http: 'http hook (install-hook --http)',
  httpAlone: 'http hook, receiver alone in its process',
  httpBare: 'http hook, bare server (answers {} at once)',
  plugin: 'plugin (claude plugin install)',
  mod: 'mod alone (--plugin-dir, no command hooks)',
  modFloor: 'floor mod (handlers only call next)',
};
const byTransport = <T>(make: () => T): Record<Transport, T> =>
  Object.fromEntries(TRANSPORTS.map((t) => [t, make()])) as Record<Transport, T>;

/** The bare server's last line, `{"requests":N,"connections":M}`, once SIGTERM ends it. */
async function stopBareChild(child: ChildProcess): Promise<{ requests: number; connections: number } | undefined> {
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += String(d)));
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  try {
    return JSON.parse(out.trim().split('\n').pop() ?? '') as { requests: number; connections: number };
  } catch {
    return undefined;
  }
}

/**
 * The mod and nothing else: a copy of plugin/ whose hooks.json keeps "modules" and drops the command
 * "hooks", so with `--plugin-dir` only the in-process mod runs.
 */
function modOnlyPlugin(repoRoot: string, into: string): string {
  fs.cpSync(path.join(repoRoot, 'plugin'), into, { recursive: true });
  const file = path.join(into, 'hooks', 'hooks.json');
  const hooks = JSON.parse(fs.readFileSync(file, 'utf8')) as { modules?: string[]; hooks?: unknown };
  if (!hooks.modules?.length) throw new Error('plugin/hooks/hooks.json declares no "modules": no mod to measure');
  delete hooks.hooks;
  fs.writeFileSync(file, JSON.stringify(hooks, null, 2));
  return into;
}

/** The events the mod handles (src/mod/register.ts), each handler only passing the event on. */
const FLOOR_MOD = `export function register(on) {
  on("session.start", async ($, e, next) => next(e));
  on("tool.call", async ($, e, next) => next(e));
  on("session.append", async ($, e, next) => next(e));
  on("ui.render", { component: "Spinner" }, async ($, e, next) => next(e));
  on("ui.render", { component: "ToolUse" }, async ($, e, next) => next(e));
}
`;

/** The mod plugin with FLOOR_MOD as its module: Claude Code's cost of running a mod at all. */
function floorModPlugin(repoRoot: string, into: string): string {
  modOnlyPlugin(repoRoot, into);
  const file = path.join(into, 'hooks', 'hooks.json');
  const hooks = JSON.parse(fs.readFileSync(file, 'utf8')) as { modules: string[] };
  for (const module of hooks.modules) fs.writeFileSync(path.join(into, 'hooks', module), FLOOR_MOD);
  return into;
}

type Timing = { kind: 'request'; t: number; toolResults: string[] } | { kind: 'tool_use'; id: string; t: number };
interface Sandbox { root: string; home: string; claudeDir: string; work: string; apiLog: string; settingsFile: string }
interface Watch { stop(): Promise<unknown>; stderr(): string }
interface Field {
  startStandInApi(o: { script: unknown; logFile: string; blockGapMs: number; finishDelayMs: number; onTiming: (e: Timing) => void }): Promise<{ url: string; setScript(s: unknown): void; close(): Promise<void> }>;
  makeSandbox(name: string): Sandbox;
  claudeEnv(sb: Sandbox, apiUrl: string): Record<string, string>;
  runPrint(o: { claudeBin: string; cwd: string; env: Record<string, string>; prompt: string; extraArgs?: string[]; timeoutMs?: number }): Promise<{ code: number | null; signal: string | null; stderr: string; startedAt: number; endedAt: number }>;
  installHook(o: { claudeDir: string; httpPort?: number }): string;
  installPlugin(o: { claudeBin: string; env: Record<string, string>; cwd: string; source: string }): Promise<unknown>;
  startWatch(o: { claudeDir: string; cwd: string }): Watch;
  ensureClaude(version: string, log: (m: string) => void): string;
  DEFAULT_CLAUDE_VERSION: string;
}

async function loadField(repoRoot: string): Promise<Field> {
  const load = (file: string) => import(pathToFileURL(path.join(repoRoot, 'test/field', file)).href) as Promise<Record<string, unknown>>;
  const mods = await Promise.all(['standInApi.mjs', 'sandbox.mjs', 'drivers.mjs', 'projectCli.mjs', 'claudeInstall.mjs'].map(load));
  return Object.assign({}, ...mods) as Field;
}

/** Read and Bash allowed, whatever install-hook wrote there (plain JSON: it writes no comments). */
function allowTools(settingsFile: string): void {
  const settings = fs.existsSync(settingsFile) ? (JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, { allow?: string[] }>) : {};
  settings.permissions = { ...settings.permissions, allow: [...new Set([...(settings.permissions?.allow ?? []), 'Read', 'Bash'])] };
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
}

/** pre and post events per tool_use_id, over every channel file of the sandbox and the mod's spool (one event a file). */
function channelCounts(claudeDir: string): Map<string, { pre: number; post: number }> {
  const counts = new Map<string, { pre: number; post: number }>();
  const dir = path.join(claudeDir, 'transcript-lag');
  const spool = path.join(dir, 'spool');
  const files = [
    ...(fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.jsonl')).map((n) => path.join(dir, n)) : []),
    ...(fs.existsSync(spool) ? fs.readdirSync(spool).filter((n) => n.endsWith('.json')).map((n) => path.join(spool, n)) : []),
  ];
  for (const file of files) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      let e: { event?: string; tool_use_id?: string };
      try {
        e = JSON.parse(line) as typeof e;
      } catch {
        continue;
      }
      if (!e.tool_use_id || (e.event !== 'pre' && e.event !== 'post')) continue;
      const c = counts.get(e.tool_use_id) ?? { pre: 0, post: 0 };
      c[e.event]++;
      counts.set(e.tool_use_id, c);
    }
  }
  return counts;
}

export async function transportCost(ctx: BenchContext): Promise<SectionResult> {
  const field = await loadField(ctx.repoRoot);
  const version = process.env.TL_FIELD_CLI_VERSION || field.DEFAULT_CLAUDE_VERSION;
  const claudeBin = field.ensureClaude(version, ctx.log);
  // A round takes ~13 s here: eight fit the section in under two minutes, and fewer left the
  // http row's median a few ms either way from one run to the next; --rounds asks for more.
  const rounds = ctx.quick ? 1 : Math.max(ctx.rounds, 8);
  const timings: Timing[] = [];
  const scratch = field.makeSandbox('bench-api');
  const api = await field.startStandInApi({ script: [], logFile: scratch.apiLog, blockGapMs: 1, finishDelayMs: 0, onTiming: (e) => timings.push(e) });
  const boxes = new Map<Transport, { sb: Sandbox; watch: Watch; receiver?: ChildProcess; extraArgs: string[] }>();
  const perCall = byTransport<number[]>(() => []);
  const perRound = byTransport<number[]>(() => []);
  const unreported = byTransport<string[]>(() => []);
  const runMs = byTransport<number[]>(() => []);
  let pluginInstallMs: number | undefined;
  let bareServed: { requests: number; connections: number } | undefined;
  try {
    for (const transport of TRANSPORTS) {
      const sb = field.makeSandbox(`bench-${transport}`);
      for (let k = 1; k <= CALLS; k++) fs.writeFileSync(path.join(sb.work, `step${k}.txt`), `transports bench, file ${k}\n`);
      if (transport === 'command') field.installHook({ claudeDir: sb.claudeDir });
      const httpPort = transport === 'http' || transport === 'httpAlone' || transport === 'httpBare' ? await freePort() : undefined;
      if (httpPort !== undefined) field.installHook({ claudeDir: sb.claudeDir, httpPort });
      // Serving first, so this sandbox's watch finds the port taken and leaves it (it still reads the channel).
      const receiver =
        transport === 'httpAlone'
          ? await startServerChild(ctx.bundleDir, 'receiverChild', [sb.claudeDir])
          : transport === 'httpBare'
            ? await startServerChild(ctx.bundleDir, 'bareHookChild', [String(httpPort)])
            : undefined;
      const extraArgs =
        transport === 'mod'
          ? ['--plugin-dir', modOnlyPlugin(ctx.repoRoot, path.join(sb.root, 'mod-plugin'))]
          : transport === 'modFloor'
            ? ['--plugin-dir', floorModPlugin(ctx.repoRoot, path.join(sb.root, 'mod-plugin'))]
            : [];
      if (transport === 'plugin') {
        const t = performance.now();
        await field.installPlugin({ claudeBin, env: field.claudeEnv(sb, 'http://127.0.0.1:9'), cwd: sb.work, source: ctx.repoRoot });
        pluginInstallMs = performance.now() - t;
      }
      allowTools(sb.settingsFile);
      boxes.set(transport, { sb, receiver, extraArgs, watch: field.startWatch({ claudeDir: sb.claudeDir, cwd: sb.work }) });
    }
    // watch binds the http receiver and is ready well within this.
    await new Promise((r) => setTimeout(r, 1500));
    for (let round = 0; round < rounds; round++) {
      const order = TRANSPORTS.map((_, i) => TRANSPORTS[(i + round) % TRANSPORTS.length]);
      for (const transport of order) {
        const { sb, extraArgs } = boxes.get(transport)!;
        const ids = Array.from({ length: CALLS }, (_, k) => `toolu_bench${transport}${round}${k + 1}`);
        api.setScript(ids.map((id, k) => [{ name: 'Read', id, input: { file_path: path.join(sb.work, `step${k + 1}.txt`) } }]));
        timings.length = 0;
        const run = await field.runPrint({ claudeBin, cwd: sb.work, env: field.claudeEnv(sb, api.url), prompt: 'go', extraArgs, timeoutMs: 60_000 });
        if (run.code !== 0) throw new Error(`${transport}: claude -p exited ${run.code ?? run.signal}: ${run.stderr.slice(0, 300)}`);
        runMs[transport].push(run.endedAt - run.startedAt);
        const gaps: number[] = [];
        for (const id of ids) {
          const sent = timings.find((e): e is Extract<Timing, { kind: 'tool_use' }> => e.kind === 'tool_use' && e.id === id);
          const answered = timings.find((e): e is Extract<Timing, { kind: 'request' }> => e.kind === 'request' && e.toolResults.includes(id));
          if (!sent || !answered) throw new Error(`${transport}: call ${id} was ${sent ? 'never answered' : 'never streamed'}`);
          gaps.push(answered.t - sent.t);
        }
        perCall[transport].push(...gaps);
        perRound[transport].push(median(gaps));
        // The bare server and the floor mod report nothing.
        if (transport !== 'none' && transport !== 'httpBare' && transport !== 'modFloor') {
          // Hooks may land after the CLI's next request; give the channel a moment.
          await new Promise((r) => setTimeout(r, 300));
          const counts = channelCounts(sb.claudeDir);
          for (const id of ids) {
            const c = counts.get(id);
            if (!c || c.pre !== 1 || c.post !== 1) unreported[transport].push(`${id} pre ${c?.pre ?? 0} post ${c?.post ?? 0}`);
          }
        }
        ctx.log(`transports: round ${round + 1}/${rounds} ${transport}: median ${median(gaps).toFixed(1)} ms a call`);
      }
    }
  } finally {
    await api.close();
    for (const [transport, { sb, watch, receiver }] of boxes) {
      await watch.stop();
      if (transport === 'httpBare' && receiver) bareServed = await stopBareChild(receiver);
      else receiver?.kill('SIGTERM');
      fs.rmSync(sb.root, { recursive: true, force: true });
    }
    fs.rmSync(scratch.root, { recursive: true, force: true });
  }

  const base = median(perCall.none);
  const samples = `${rounds} rounds × ${CALLS} Read calls`;
  const rows: Row[] = [
    row(SECTION, 'no hook: tool_use → next request p50', base, 'ms', undefined, `p90 ${percentile(perCall.none, 90).toFixed(1)} ms; ${samples}; Claude Code ${version}, claude -p`),
  ];
  const added = byTransport(() => 0);
  for (const transport of HOOKED) added[transport] = median(perCall[transport]) - base;
  for (const transport of HOOKED) {
    // Per round, against no hook in the same round: less sensitive to the machine's drift.
    const paired = median(perRound[transport].map((m, i) => m - perRound.none[i]));
    const target = transport === 'http' ? ({ op: '<=', limit: 15 } as const) : transport === 'mod' ? ({ op: '<=', limit: 2 } as const) : undefined;
    const served = transport === 'httpBare' && bareServed ? `; ${bareServed.requests} requests on ${bareServed.connections} connections` : '';
    rows.push(
      row(SECTION, `${LABEL[transport]}: added per call`, added[transport], 'ms', target,
        `p50 ${median(perCall[transport]).toFixed(1)} vs ${base.toFixed(1)} ms; paired by round ${paired.toFixed(1)} ms${served}`),
    );
  }
  rows.push(
    row(SECTION, 'mod over the floor mod, paired by round', median(perRound.mod.map((m, i) => m - perRound.modFloor[i])), 'ms', undefined,
      `medians ${(added.mod - added.modFloor).toFixed(1)} ms`),
  );
  // The http receiver against the floor an http hook costs, side by side. Through Claude Code this moves by tens
  // of ms from run to run on a busy machine: the target (within 3 ms) is on the round trips below.
  const overBare = (transport: Transport) => median(perRound[transport].map((m, i) => m - perRound.httpBare[i]));
  rows.push(
    row(SECTION, 'http hook over the bare server, paired by round', overBare('http'), 'ms', undefined,
      `receiver alone in its process: ${overBare('httpAlone').toFixed(1)} ms; medians ${(added.http - added.httpBare).toFixed(1)} ms`),
  );
  for (const transport of ['mod', 'http', 'command'] as const) {
    rows.push(row(SECTION, `${LABEL[transport]} / no hook, tool_use → next request`, median(perCall[transport]) / base, 'x', undefined, 'ratio of p50s, same run'));
  }
  for (const transport of ['mod', 'http', 'httpAlone', 'command', 'plugin'] as const) {
    const missing = unreported[transport];
    rows.push(row(SECTION, `${LABEL[transport]}: calls not reported once each`, missing.length, '', { op: '<=', limit: 0 },
      `of ${rounds * CALLS}, pre and post in the channel${transport === 'mod' ? ' or the spool' : ''}${missing.length ? `: ${missing.slice(0, 3).join(', ')}` : ''}`));
  }
  if (pluginInstallMs !== undefined) rows.push(row(SECTION, 'plugin: marketplace add + install', pluginInstallMs, 'ms', undefined, 'two `claude plugin` commands, once'));
  const roundTrips = await receiverRoundTrips(ctx, SECTION);
  rows.push(...roundTrips.rows);
  return { section: SECTION, rows, details: { version, rounds, perCallMs: perCall, perRoundMedianMs: perRound, runMs, unreported, bareServed, roundTrips: roundTrips.details } };
}
