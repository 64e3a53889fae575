// One field scenario against the real CLI: sandbox HOME, stand-in API, the project's hook installed,
// `watch --json` running, the CLI driven in print or interactive mode, every transcript and channel
// line recorded with the time it reached disk. Returns measurements; assertions live elsewhere.
import fs from 'node:fs';
import path from 'node:path';
import { FINAL_TEXT, startStandInApi } from './standInApi.mjs';
import { startRecorder } from './recorder.mjs';
import { runPrint, runInteractive } from './drivers.mjs';
import { makeSandbox, addFieldSettings, claudeEnv, readJsonl } from './sandbox.mjs';
import { installHook, installPlugin, installStatusline, startWatch, analyze, repoRoot, CLI_JS } from './projectCli.mjs';
import { startGitHttpServer } from './gitHttpServer.mjs';
import { execFileSync } from 'node:child_process';
import { freePort, startPrometheus } from './prometheus.mjs';
import { placesOf } from '../../scripts/lib/landings.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));


export async function runScenario(scenario, { claudeBin, version, keep = false }) {
  const sb = makeSandbox(scenario.name);
  const def = { ...scenario, script: typeof scenario.script === 'function' ? scenario.script(sb.work) : scenario.script };
  const t0 = Date.now();
  // install: 'hook' (install-hook, the default), 'plugin' (`claude plugin` from this folder),
  // 'plugin-git' (`claude plugin` from a git URL), 'plugin+hook' (both: each call still reported once),
  // 'http' (install-hook --http: Claude Code POSTs each call to the receiver `watch` serves).
  const install = def.install ?? 'hook';
  // 'none': nothing of ours in the session (the hook lab's check of replay without evidence).
  if (install === 'hook' || install === 'plugin+hook') {
    installHook({ claudeDir: sb.claudeDir, probe: def.hook === 'probe', polls: def.polls, pollMs: def.pollMs, form: def.form });
  }
  if (install === 'http' || install === 'http+plugin-dir') installHook({ claudeDir: sb.claudeDir, httpPort: await freePort() });
  // 'plugin-dir': `claude --plugin-dir <repo>/plugin`, the mod and the plugin's command hooks loaded for the session;
  // with `pluginClone`, the plugin folder of a clone of the committed HEAD, where nothing is built (no dist/).
  const plugin = install.startsWith('plugin') && install !== 'plugin-dir' ? await installPluginFor(sb, install, claudeBin) : undefined;
  const clone = def.pluginClone ? cloneCommitted(sb) : undefined;
  const extraArgs = install.endsWith('plugin-dir') ? ['--plugin-dir', path.join(clone ?? repoRoot, 'plugin')] : [];
  // A reviewing hook as the README writes it: it asks `transcript-lag message --json` once per call; with
  // `reviewer: 'copied'`, the message tool the plugin's SessionStart hook copied into the Claude dir.
  const reviewerLog = path.join(sb.root, 'reviewer.log');
  // While the reviewing hook runs, the held messages on disk and their folders' modes (they hold assistant text).
  const modesLog = path.join(sb.root, 'held-modes.log');
  const held = path.join(sb.claudeDir, 'transcript-lag', 'held');
  const messageTool = path.join(sb.claudeDir, 'transcript-lag', 'bin', 'transcript-lag-message.js');
  const modDir = path.join(sb.claudeDir, 'transcript-lag', 'mod');
  // The mod's liveness files, as the reviewing hook finds them.
  const livenessLog = path.join(sb.root, 'liveness.log');
  const q = JSON.stringify;
  if (def.statusline) installStatusline({ claudeDir: sb.claudeDir });
  // `timeSlowHook`: the slow hook says when it ran, to hold the mod's timing of the settings hooks to.
  const slowHookLog = def.timeSlowHook ? path.join(sb.root, 'slow-hook.log') : undefined;
  addFieldSettings(sb, {
    slowHookMs: def.slowHookMs ?? 0,
    slowHookLog,
    reviewer: def.reviewer
      ? // Each answer with when it was given (ms), one append: a record on disk by then may answer from the transcript.
        `answer=$(${q(process.execPath)} ${def.reviewer === 'copied' ? `${q(messageTool)} --json` : `${q(CLI_JS)} message --json`}); printf '%s %s\n' "$(date +%s%3N)" "$answer" >> ${q(reviewerLog)}; ` +
        (def.reviewer === 'copied' ? `cat ${q(modDir)}/*.live.json >> ${q(livenessLog)} 2>/dev/null; echo >> ${q(livenessLog)}; ` : '') +
        `find ${q(held)} -printf '%m %y %p\\n' >> ${q(modesLog)} 2>/dev/null; true`
      : undefined,
  });
  // examples/'s reviewing hooks (sh, Python, Node), copied to ~/.claude/hooks/ and registered as examples/README.md says.
  const exitsLog = path.join(sb.root, 'example-exits.log');
  if (def.examples) addExampleHooks(sb, exitsLog);
  // `truth`: the hook lab's field check (issue 38): three hooks that read the transcript for their own
  // call (once at once in sh, once after Python's start, polling for 1.5 s), each logging what it saw.
  const truthLog = path.join(sb.root, 'truth.log');
  // `complete` (issue 39 §5): the same once-reading hooks, unchanged, each behind the wrapper the plugin's
  // SessionStart copied into the Claude dir, as the README's one-line change writes them.
  const truthHooks = truthHooksOf(def, sb);
  if (truthHooks) addTruthHooks(sb, truthLog, truthHooks);
  const api = await startStandInApi({
    script: def.script,
    subScript: def.subScript,
    logFile: sb.apiLog,
    blockGapMs: def.blockGapMs,
    finishDelayMs: def.finishDelayMs,
  });
  const projectsDir = path.join(sb.claudeDir, 'projects');
  const channelDir = path.join(sb.claudeDir, 'transcript-lag');
  // The mod's scenarios compare record lags with an independent 5 ms tailer.
  const recorder = startRecorder({ roots: [projectsDir, channelDir], pollMs: def.mod ? 5 : 10 });
  // `metrics`: watch serves /metrics on a free loopback port and a real Prometheus scrapes it.
  const metricsTarget = def.metrics ? `127.0.0.1:${await freePort()}` : undefined;
  // `watch: false`: nothing watches the session, so only what the hook left behind tells analyze.
  const watch = def.watch === false ? undefined : startWatch({ claudeDir: sb.claudeDir, cwd: sb.work, metrics: metricsTarget });
  let prometheus;
  let metrics;
  await sleep(800);
  const env = claudeEnv(sb, api.url);
  let run;
  let forkRun;
  let noModRun;
  let livenessLeft;
  try {
    if (metricsTarget) {
      prometheus = await startPrometheus({ dir: path.join(sb.root, 'prometheus'), target: metricsTarget });
      // Scraped once before the session: every later count is the session's.
      await prometheus.scrapedAfter(0, 30_000);
    }
    if (def.mode === 'print') {
      run = await runPrint({ claudeBin, cwd: sb.work, env, prompt: def.prompt ?? 'go', extraArgs });
      if (def.forkScript) forkRun = await runFork({ claudeBin, sb, env, api, script: def.script, forkScript: def.forkScript });
    } else {
      const finalAnswered = () =>
        recorder.lines.some((l) => l.file.startsWith(projectsDir) && /"stop_reason":"end_turn"/.test(l.text) && l.text.includes(FINAL_TEXT));
      run = await runInteractive({ claudeBin, cwd: sb.work, env, prompt: def.prompt ?? 'go', isDone: finalAnswered, extraArgs, sampleScreens: !!(def.statusline || def.sampleScreens) });
    }
    // The session ended (/exit): its mod removed its liveness file.
    if (def.noModScript && sessionIdOf(sb)) livenessLeft = fs.existsSync(path.join(modDir, `${sessionIdOf(sb)}.live.json`));
    if (def.noModScript) noModRun = await runNoMod({ claudeBin, sb, env, api, noModScript: def.noModScript });
    // watch polls on its own clock: give it time to report the last writes (and the hook's landing
    // watchers, which poll every 10 ms, time to report theirs).
    await sleep(1500);
    if (prometheus) metrics = await scrapeResults(prometheus, { hooksTimed: def.timeSlowHook === true });
  } finally {
    await prometheus?.stop();
    await watch?.stop();
    recorder.stop();
    await api.close();
  }

  const events = readJsonl(sb.eventLog);
  const apiLog = readJsonl(sb.apiLog);
  const sessionId = events.find((e) => e.session)?.session;
  const transcript = events.find((e) => e.transcript)?.transcript;
  const transcriptLines = recorder.lines.filter((l) => l.file === transcript);
  const channelFile = sessionId ? path.join(channelDir, `${sessionId}.jsonl`) : undefined;
  const channelLines = recorder.lines.filter((l) => l.file === channelFile);
  const channelEvents = channelLines.map((l) => ({ t: l.t, ...JSON.parse(l.text) }));

  // A subagent's calls are recorded in its own file, <session>/subagents/agent-<id>.jsonl.
  const subagentLines = transcript ? recorder.lines.filter((l) => l.file.startsWith(transcript.replace(/\.jsonl$/, '/subagents/'))) : [];
  const calls = [
    ...def.script.flatMap((turn, index) => turn.map((c, j) => ({ message: index, ...(j > 0 ? { laterInMessage: true } : {}), ...measureCall(c, { events, transcriptLines, channelEvents }) }))),
    ...(def.subScript ?? []).flatMap((turn, index) =>
      turn.map((c) => ({ message: `subagent ${index}`, subagent: true, ...measureCall(c, { events, transcriptLines: subagentLines, channelEvents }) })),
    ),
  ];
  let analysis;
  let analyzeError;
  try {
    analysis = transcript && fs.existsSync(transcript) ? analyze(transcript, channelFile) : undefined;
  } catch (err) {
    analyzeError = String(err.message ?? err);
  }
  // A fork: its session is the other one the hooks saw; its own calls are measured in its transcript.
  let fork;
  if (def.forkScript) {
    const forkEvent = events.find((e) => e.session && e.session !== sessionId);
    const forkTranscript = forkEvent?.transcript;
    const forkChannel = forkEvent ? path.join(channelDir, `${forkEvent.session}.jsonl`) : undefined;
    const forkLines = recorder.lines.filter((l) => l.file === forkTranscript);
    const forkChannelLines = recorder.lines.filter((l) => l.file === forkChannel);
    const forkChannelEvents = forkChannelLines.map((l) => ({ t: l.t, ...JSON.parse(l.text) }));
    for (const [index, turn] of def.forkScript.entries()) {
      for (const c of turn) {
        calls.push({
          message: def.script.length + index,
          session: forkEvent?.session,
          ...measureCall(c, { events, transcriptLines: forkLines, channelEvents: forkChannelEvents }),
        });
      }
    }
    fork = {
      run: forkRun && { ...forkRun, stdout: forkRun.stdout?.slice(0, 500), stderr: forkRun.stderr?.slice(0, 2000) },
      sessionId: forkEvent?.session,
      transcript: forkTranscript,
      channelFile: forkChannel,
      transcriptLines: forkLines.map((l) => ({ t: l.t - t0, line: l.line, text: l.text })),
      channelLines: forkChannelLines.map((l) => ({ t: l.t - t0, line: l.line, text: l.text })),
    };
    try {
      fork.analysis = forkTranscript && fs.existsSync(forkTranscript) ? analyze(forkTranscript, forkChannel) : undefined;
    } catch (err) {
      analyzeError = `fork: ${String(err.message ?? err)}`;
    }
  }
  // The hook lab's check: each truth hook replayed on the finished session, as a user would run it.
  const truth =
    truthHooks && transcript && fs.existsSync(transcript)
      ? { ...truthResult({ sb, transcript, truthLog, transcriptLines, truthHooks, keepRecords: !!def.complete, replay: def.truthReplay !== false }), places: Object.fromEntries(placesOf(def)) }
      : undefined;
  const result = {
    scenario: def.name,
    version,
    def,
    truth,
    t0,
    run: { ...run, screen: undefined, screens: undefined, stdout: run?.stdout?.slice(0, 500), stderr: run?.stderr?.slice(0, 2000) },
    screen: run?.screen,
    // What the terminal's status line said, sample by sample (def.statusline).
    statusLines: (run?.screens ?? []).map((s) => ({ t: s.t, line: s.text.split('\n').find((l) => l.includes('transcript-lag:'))?.trim() })),
    // The mod's spinner suffix ("held 2.1s"), sample by sample.
    heldScreens: (run?.screens ?? []).map((s) => ({ t: s.t, line: s.text.split('\n').find((l) => /· held \d/.test(l))?.trim() })),
    reviewerAnswers: def.reviewer ? readTimedAnswers(reviewerLog) : undefined,
    // Each run of the slow hook as it measured itself: `{ id, start, end }` (def.timeSlowHook).
    slowHookRuns: slowHookLog ? readJsonl(slowHookLog) : undefined,
    // The message tool with the plugin alone: copied from the clone, the mod's liveness, a session without the mod.
    messageTool: def.reviewer === 'copied'
      ? messageToolResult({ sb, clone, messageTool, livenessLog, livenessLeft, noModRun, sessionId: events.find((e) => e.session)?.session, def, exitsLog, recorder, modDir })
      : undefined,
    // Which events the recorder saw spooled (with a receiver up, the mod posts them to it instead).
    spooledEvents: [...recorder.spooled.values()],
    heldModes: def.reviewer && fs.existsSync(modesLog) ? fs.readFileSync(modesLog, 'utf8').split('\n').filter(Boolean) : undefined,
    // Each call's message as the transcript holds it in the end: its records' text blocks, by message.id.
    messages: messagesOf([...transcriptLines, ...subagentLines]),
    sessionId,
    transcript,
    channelFile,
    durationMs: Date.now() - t0,
    apiRequests: apiLog.filter((r) => r.req).map(({ at, ...r }) => ({ t: at - t0, ...r })),
    calls,
    watchEvents: watch ? watch.events.map((e) => ({ ...e, t: e.t - t0 })) : [],
    watchStderr: watch ? watch.stderr().slice(0, 2000) : '',
    analysis,
    analyzeError,
    fork,
    metrics,
    transcriptLineCount: transcriptLines.length,
    recording: {
      transcript: transcriptLines.map((l) => ({ t: l.t - t0, after: l.after === undefined ? undefined : l.after - t0, readAt: l.readAt - t0, line: l.line, text: l.text })),
      channel: channelLines.map((l) => ({ t: l.t - t0, line: l.line, text: l.text })),
    },
    sandbox: sb.root,
    plugin,
  };
  if (!keep) fs.rmSync(sb.root, { recursive: true, force: true });
  return result;
}

/**
 * What Prometheus scraped from `watch --metrics`, once a scrape that started after the session's
 * last writes (watch has reported them by now) is in: calls, waits by outcome and the held-time
 * histogram's count and median, through the same PromQL as docs/METRICS.md and the dashboard.
 */
async function scrapeResults(prometheus, { hooksTimed }) {
  const after = Date.now();
  try {
    await prometheus.scrapedAfter(after);
    const one = async (q) => (await prometheus.query(q))[0]?.value;
    const waits = {};
    for (const r of await prometheus.query('sum by (outcome) (transcript_lag_waits_total)')) waits[r.metric.outcome] = r.value;
    return {
      calls: await one('sum(transcript_lag_calls_total)'),
      waits,
      heldCount: await one('sum(transcript_lag_held_seconds_count)'),
      medianHeldS: await one('histogram_quantile(0.5, sum by (le) (transcript_lag_held_seconds_bucket))'),
      p95HeldS: await one('histogram_quantile(0.95, sum by (le) (transcript_lag_held_seconds_bucket))'),
      scrapes: await one('count_over_time(up{job="transcript-lag"}[10m])'),
      documentedQueryFailures: await documentedQueryFailures(prometheus, { hooksTimed }),
      hooksCount: await one('sum(transcript_lag_hooks_seconds_count)'),
      // The histogram's upper bounds as scraped (+Inf last), to compare a median by bucket.
      bucketBounds: (await prometheus.query('sum by (le) (transcript_lag_held_seconds_bucket)')).map((r) => Number(r.metric.le)).sort((a, b) => a - b),
    };
  } catch (err) {
    return { error: String(err.message ?? err) };
  }
}

/**
 * The documented queries (the Grafana dashboard's, with its range variables filled in, and the
 * metrics page, docs/METRICS.md), run on the scraped data: each must parse and give a result. Returns the
 * ones that did not, with why. A query of the hooks' time needs the mod's figures (`hooksTimed`):
 * without the mod there is none to give, and it is only checked to parse; so is one of a wrapped hook's
 * own time (no metrics scenario wraps its hooks: the series is held by test/unit's metrics tests).
 */
async function documentedQueryFailures(prometheus, { hooksTimed }) {
  const dashboard = JSON.parse(fs.readFileSync(path.join(repoRoot, 'docs', 'grafana-dashboard.json'), 'utf8'));
  const queries = dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((t) => ({
      where: `docs/grafana-dashboard.json "${panel.title}"`,
      expr: t.expr.replaceAll('$__range', '10m').replaceAll('$__rate_interval', '1m'),
    })),
  );
  const metricsPage = fs.readFileSync(path.join(repoRoot, 'docs', 'METRICS.md'), 'utf8');
  for (const block of metricsPage.matchAll(/```promql\n([\s\S]*?)```/g)) {
    for (const line of block[1].split('\n')) if (line.trim() && !line.startsWith('#')) queries.push({ where: 'docs/METRICS.md', expr: line.trim() });
  }
  const failures = [];
  for (const { where, expr } of queries) {
    try {
      const rows = await prometheus.query(expr);
      // Each wrapped hook's own time (transcript_lag_hook_seconds) needs hooks behind `complete`, which no metrics scenario has: parsed only.
      const needsAbsent = (!hooksTimed && expr.includes('transcript_lag_hooks_seconds')) || expr.includes('transcript_lag_hook_seconds');
      if (rows.length === 0 && !needsAbsent) failures.push(`${where}: ${expr}: no result`);
    } catch (err) {
      failures.push(`${where}: ${String(err.message ?? err)}`);
    }
  }
  return failures;
}

/** A shallow clone of the repository's committed HEAD: what a user's plugin folder holds, nothing built. */
function cloneCommitted(sb) {
  const clone = path.join(sb.root, 'clone');
  execFileSync('git', ['clone', '--quiet', '--depth', '1', `file://${repoRoot}`, clone]);
  return clone;
}

/** The first session the hooks saw. */
function sessionIdOf(sb) {
  return readJsonl(sb.eventLog).find((e) => e.session)?.session;
}

/**
 * examples/'s hooks in ~/.claude/hooks/, and their entries (examples/README.md's JSON blocks) added to
 * settings.json, each command as written, followed by a line in `exitsLog` saying how it exited.
 */
function addExampleHooks(sb, exitsLog) {
  const examples = path.join(repoRoot, 'examples');
  const hooksDir = path.join(sb.claudeDir, 'hooks');
  fs.mkdirSync(hooksDir, { recursive: true });
  for (const f of ['review.sh', 'review.py', 'review.mjs']) fs.copyFileSync(path.join(examples, f), path.join(hooksDir, f));
  const settings = JSON.parse(fs.readFileSync(sb.settingsFile, 'utf8'));
  for (const [, block] of fs.readFileSync(path.join(examples, 'README.md'), 'utf8').matchAll(/```json\n([\s\S]*?)```/g)) {
    for (const group of JSON.parse(block).hooks.PreToolUse) {
      for (const h of group.hooks) {
        const file = /review\.\w+/.exec(h.command)[0];
        h.command = `${h.command}; code=$?; echo "${file} $code" >> ${JSON.stringify(exitsLog)}; exit $code`;
      }
      settings.hooks.PreToolUse.push(group);
    }
  }
  fs.writeFileSync(sb.settingsFile, JSON.stringify(settings, null, 2));
}

/** The hook lab's truth hooks (test/field/truthHooks/), each as `<runner> <file> <log>`. */
export const TRUTH_HOOKS = ['once.sh', 'once.py', 'poll.sh'];
export function truthHookCommand(file, log) {
  const runner = file.endsWith('.py') ? 'python3' : 'sh';
  return `${runner} ${JSON.stringify(path.join(repoRoot, 'test', 'field', 'truthHooks', file))} ${JSON.stringify(log)}`;
}

/**
 * The truth hooks a scenario runs, each `{ name, command(log) }`: the hook lab's three as they are, or
 * (`complete`) its once-readers behind `node <claude dir>/transcript-lag/bin/transcript-lag-complete.js --`.
 * heldSeen.py knows a subagent's file; once.sh reads the transcript it is given, so not in the subagent's.
 */
function truthHooksOf(def, sb) {
  if (def.complete) {
    // Word for word the README's line: `~` is the session's HOME (sb.home; its .claude is sb.claudeDir).
    if (path.join(sb.home, '.claude') !== sb.claudeDir) throw new Error('the sandbox Claude dir is not ~/.claude');
    const names = def.subScript ? ['heldSeen.py'] : ['once.sh', 'heldSeen.py'];
    return names.map((name) => ({ name, command: (log) => `node ~/.claude/transcript-lag/bin/transcript-lag-complete.js -- ${truthHookCommand(name, log)}` }));
  }
  return def.truth ? TRUTH_HOOKS.map((name) => ({ name, command: (log) => truthHookCommand(name, log) })) : undefined;
}

function addTruthHooks(sb, truthLog, truthHooks) {
  const settings = JSON.parse(fs.readFileSync(sb.settingsFile, 'utf8'));
  const hooks = truthHooks.map((h) => ({ type: 'command', command: h.command(truthLog), timeout: 30 }));
  // Bash and Read, the calls they look for: an Agent call they blocked would start no subagent.
  settings.hooks.PreToolUse.push({ matcher: 'Bash|Read', hooks });
  fs.writeFileSync(sb.settingsFile, JSON.stringify(settings, null, 2));
}

/**
 * What each truth hook really saw at each call, and what `replay --json` of the same hook on the
 * finished session says (the transcript's own Claude dir: the session's evidence found there, as
 * with a user's), for assertions.mjs's checkTruth.
 */
function truthResult({ sb, transcript, truthLog, transcriptLines, truthHooks, keepRecords, replay = true }) {
  const seen = readJsonl(truthLog);
  const replays = {};
  // `truthReplay: false` (the compat runner): what the hooks saw only; replaying three hooks costs a minute a session.
  for (const { name: hook, command } of replay ? truthHooks : []) {
    const log = path.join(sb.root, `replay-${hook}.log`);
    let out = '';
    let error;
    try {
      out = execFileSync(process.execPath, [CLI_JS, 'replay', transcript, '--json', '--hook', command(log)], {
        cwd: sb.work,
        env: { ...process.env, HOME: sb.home },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        timeout: 300_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      error = String(err.stderr || err.message).slice(0, 2000);
      out = String(err.stdout ?? '');
    }
    replays[hook] = { error, lines: out.split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
  }
  // When each line reached disk (the recorder's clock is Date.now(), the hooks' too).
  const landed = transcriptLines.map((l) => ({ t: l.t, line: l.line, text: l.text.slice(0, 400) }));
  // The records as they landed, whole, main and subagents' (the complete check compares the held ones with them).
  if (!keepRecords) return { seen, replays, landed };
  const records = [];
  const subagents = transcript.replace(/\.jsonl$/, '/subagents');
  const files = [transcript, ...(fs.existsSync(subagents) ? fs.readdirSync(subagents).filter((f) => f.endsWith('.jsonl')).map((f) => path.join(subagents, f)) : [])];
  for (const file of files) for (const rec of readJsonl(file)) records.push({ file, rec });
  return { seen, replays, landed, records, transcript };
}

/**
 * A print session in the same HOME without the plugin, so without its mod: the reviewing hooks still run
 * and the message tool copied by the earlier session answers them.
 */
async function runNoMod({ claudeBin, sb, env, api, noModScript }) {
  api.setScript(noModScript);
  await sleep(500);
  return runPrint({ claudeBin, cwd: sb.work, env, prompt: 'go' });
}

/** What the message-tool scenario checks (assertions.mjs, checkMessageTool). */
function messageToolResult({ sb, clone, messageTool, livenessLog, livenessLeft, noModRun, sessionId, def, exitsLog, recorder, modDir }) {
  const committed = clone && path.join(clone, 'plugin', 'bin', 'transcript-lag-message.js');
  const noModEvent = readJsonl(sb.eventLog).find((e) => e.session && e.session !== sessionId);
  const noModTranscript = noModEvent?.transcript;
  const results = {};
  for (const line of noModTranscript && fs.existsSync(noModTranscript) ? readJsonl(noModTranscript) : []) {
    for (const b of Array.isArray(line.message?.content) ? line.message.content : []) {
      if (b?.type === 'tool_result') results[b.tool_use_id] = { is_error: !!b.is_error, content: typeof b.content === 'string' ? b.content : JSON.stringify(b.content) };
    }
  }
  return {
    cloneHasDist: clone ? fs.existsSync(path.join(clone, 'dist')) : undefined,
    copied: fs.existsSync(messageTool),
    copiedIsCommitted: !!committed && fs.existsSync(messageTool) && fs.readFileSync(messageTool).equals(fs.readFileSync(committed)),
    liveness: fs.existsSync(livenessLog) ? fs.readFileSync(livenessLog, 'utf8').split('\n').filter(Boolean) : [],
    // Every version of the session's liveness file the recorder saw, with when.
    livenessSeen: (recorder.liveness.get(path.join(modDir, `${sessionId}.live.json`)) ?? []).map(({ t, text }) => ({ t, text })),
    // How each example hook exited, in order: `review.sh 0`, …
    exampleExits: fs.existsSync(exitsLog) ? fs.readFileSync(exitsLog, 'utf8').split('\n').filter(Boolean) : [],
    livenessLeft,
    noMod: def.noModScript
      ? {
          run: noModRun && { code: noModRun.code, signal: noModRun.signal, stderr: noModRun.stderr?.slice(0, 1000) },
          sessionId: noModEvent?.session,
          ids: def.noModScript.flat().map((c) => c.id),
          bashIds: def.noModScript.flat().filter((c) => c.name === 'Bash').map((c) => c.id),
          results,
        }
      : undefined,
  };
}

/**
 * `claude -p --resume <parent> --fork-session go` in the same sandbox: a new session whose file
 * starts with a copy of the parent's conversation; the stand-in then answers with the fork's turns.
 */
async function runFork({ claudeBin, sb, env, api, script, forkScript }) {
  const parent = readJsonl(sb.eventLog).find((e) => e.session)?.session;
  if (!parent) return undefined;
  api.setScript([...script, ...forkScript]);
  // The parent's last writes are on disk and watch has reported them before the fork starts.
  await sleep(500);
  return runPrint({ claudeBin, cwd: sb.work, env, prompt: 'go', extraArgs: ['--resume', parent, '--fork-session'] });
}

/**
 * Installs the plugin with the real CLI. 'plugin-git': from a shallow bare clone of this repository's
 * committed HEAD, served over smart HTTP on loopback (the CLI refuses file:// URLs), so what runs is
 * what a user's `claude plugin marketplace add <git URL>` gets: committed files, nothing built.
 */
async function installPluginFor(sb, install, claudeBin) {
  const env = claudeEnv(sb, 'http://127.0.0.1:9');
  if (install !== 'plugin-git') return { home: sb.home, source: repoRoot, ...(await installPlugin({ claudeBin, env, cwd: sb.work, source: repoRoot })) };
  const gitRoot = path.join(sb.root, 'git');
  execFileSync('git', ['clone', '--quiet', '--bare', '--depth', '1', `file://${repoRoot}`, path.join(gitRoot, 'transcript-lag.git')]);
  const server = await startGitHttpServer({ projectRoot: gitRoot });
  try {
    const source = `${server.url}/transcript-lag.git`;
    return { home: sb.home, source, ...(await installPlugin({ claudeBin, env, cwd: sb.work, source })) };
  } finally {
    await server.close();
  }
}

/** tool_use_id → the text blocks of the assistant message that carries it, as the transcript holds them. */
function messagesOf(lines) {
  const records = lines.map((l) => {
    try {
      return JSON.parse(l.text);
    } catch {
      return undefined;
    }
  });
  const texts = new Map();
  const callsOf = new Map();
  for (const r of records) {
    if (r?.type !== 'assistant' || !Array.isArray(r.message?.content)) continue;
    const id = r.message.id;
    if (!texts.has(id)) texts.set(id, []);
    for (const b of r.message.content) {
      if (b?.type === 'text') texts.get(id).push(b.text);
      if (b?.type === 'tool_use') callsOf.set(b.id, id);
    }
  }
  return Object.fromEntries([...callsOf].map(([call, message]) => [call, texts.get(message)]));
}

/** The content blocks of a transcript line whose record is of `type`; none for any other line. */
function blocksOf(text, type) {
  try {
    const r = JSON.parse(text);
    return r?.type === type && Array.isArray(r.message?.content) ? r.message.content : [];
  } catch {
    return [];
  }
}

/** Ground truth for one call: when its hooks fired, when its record and its result reached disk. */
function measureCall(call, { events, transcriptLines, channelEvents }) {
  const id = call.id;
  const pre = events.find((e) => e.ev === 'PreToolUse' && e.id === id);
  const post = events.find((e) => e.ev === 'PostToolUse' && e.id === id);
  // By the record's own type, as the rule reads it (src/rules/recordLine.ts): a line that only mentions the id
  // (2.1.332's `api-request-blob`, which holds the request's conversation) is neither.
  const record = transcriptLines.find((l) => l.text.includes(`"id":"${id}"`) && blocksOf(l.text, 'assistant').some((b) => b?.type === 'tool_use' && b.id === id));
  const result = transcriptLines.find((l) => l.text.includes(`"tool_use_id":"${id}"`) && blocksOf(l.text, 'user').some((b) => b?.type === 'tool_result' && b.tool_use_id === id));
  const wait = channelEvents.find((e) => e.event === 'wait' && e.tool_use_id === id);
  const channelPre = channelEvents.find((e) => e.event === 'pre' && e.tool_use_id === id);
  // Both hooks stamp their process start; the earlier one is closer to when Claude Code fired them.
  const starts = [pre?.at, channelPre?.at].filter((x) => typeof x === 'number');
  const firedAt = starts.length ? Math.min(...starts) : undefined;
  return {
    id,
    tool: call.name,
    slowTool: !!call.slowTool,
    preAt: pre?.at,
    postAt: post?.at,
    hooksMs: pre && post ? post.at - pre.at : undefined,
    line: record?.line,
    landedAt: record?.t,
    // The tailer's stat before that found the file short of the record: it was not on disk then.
    landedAfter: record?.after,
    landedReadAt: record?.readAt,
    firedAt,
    heldMs: firedAt !== undefined && record ? record.t - firedAt : undefined,
    resultLine: result?.line,
    resultAt: result?.t,
    resultAfter: result?.after,
    withResult: record && result ? result.t <= record.t : undefined,
    channelPreAt: channelPre?.at,
    wait: wait
      ? { outcome: wait.outcome, polls: wait.polls, waited_ms: wait.waited_ms, line: wait.line, max_polls: wait.max_polls }
      : undefined,
  };
}

/** The reviewing hook's answers, each `<ms> <json>`: the answer with `answered_at`. */
function readTimedAnswers(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      // A tool that printed nothing (or not JSON) gave no answer: the checks then count one fewer.
      const space = l.indexOf(' ');
      try {
        return [{ ...JSON.parse(l.slice(space + 1)), answered_at: Number(l.slice(0, space)) }];
      } catch {
        return [];
      }
    });
}
