// The field scenarios. Each is short: small probe bounds (10 × 100 ms), one prompt, one or two
// assistant messages with tool calls, then a final text answer from the stand-in.

// slowTool: the tool itself runs a while, so its result cannot share a batch with its record.
const bash = (id, command) => ({
  name: 'Bash',
  id,
  input: { command, description: 'field test step' },
  slowTool: command.startsWith('sleep'),
});
const read = (id, file) => ({ name: 'Read', id, input: { file_path: file } });

/** One call per message, two messages. */
export const SINGLE = (work) => [[bash('toolu_field001b', 'echo first')], [bash('toolu_field002b', 'sleep 1')]];
/**
 * Two parallel calls in one message, after a one-call warm-up message: in interactive mode the first
 * message of a session races something else that flushes the writer (see docs/COMPATIBILITY.md).
 */
export const PARALLEL = (work) => [
  [bash('toolu_field001b', 'echo warm-up')],
  [read('toolu_field002r', `${work}/notes.txt`), bash('toolu_field002b', 'sleep 1')],
];

/** A fork: the parent session makes one call; `--resume <parent> --fork-session` then makes its own. */
export const FORK_PARENT = (work) => [[bash('toolu_field001b', 'echo parent')]];
export const FORK_OWN = [[bash('toolu_field002b', 'echo fork')]];

/**
 * What the mod must get right about a call's message: text streamed in pieces (several blocks, lines,
 * multibyte), two calls in one message, and a message with no text at all.
 */
export const MOD_MESSAGES = (work) => [
  Object.assign([bash('toolu_field001b', 'echo first')], {
    texts: ['Plan for step 1, line one.\nLine two — with “quotes” and ünïcödé.', 'A second text block, before the call.'],
  }),
  Object.assign([read('toolu_field002r', `${work}/notes.txt`), bash('toolu_field002b', 'echo second')], { texts: ['Two calls in one message.'] }),
  Object.assign([bash('toolu_field003b', 'echo third')], { texts: [] }),
];

/** A subagent (the Agent tool) that makes one call of its own, in its own transcript file. */
export const MOD_SUBAGENT = () => [
  Object.assign(
    [{ name: 'Agent', id: 'toolu_field001a', input: { description: 'field subagent', prompt: 'SUBAGENT-TASK: run one step.', subagent_type: 'general-purpose' } }],
    { texts: ['Handing one step to a subagent.'] },
  ),
];
export const SUBAGENT_STEPS = [Object.assign([bash('toolu_field101s', 'echo from the subagent')], { texts: ['The subagent runs its step.'] })];

/** Every call's message says what it is for: examples/'s reviewing hooks let each run. */
export const MESSAGE_TOOL = (work) => [
  Object.assign([bash('toolu_field001b', 'echo first')], { texts: ['Listing nothing yet: a first step, to see the hooks run.'] }),
  Object.assign([read('toolu_field002r', `${work}/notes.txt`), bash('toolu_field002b', 'echo second')], { texts: ['Reading the notes and echoing, in one message.'] }),
];
/** The session without the mod that follows: its Bash call cannot be reviewed, so examples/'s hooks block it. */
export const NO_MOD_STEPS = [Object.assign([bash('toolu_field101b', 'echo without the mod')], { texts: ['This one says what it is for, but nobody can read it yet.'] })];

/** The hook lab's check (issue 38): two calls in one message with text before them, then one more with text. */
export const TRUTH_MULTI = (work) => [
  Object.assign([bash('toolu_field001b', 'echo first'), read('toolu_field001r', `${work}/notes.txt`)], { texts: ['Two calls in one message, after this text.'] }),
  Object.assign([bash('toolu_field002b', 'echo second')], { texts: ['One more.'] }),
];
/** A burst: four calls in one message, after a one-call warm-up. */
export const TRUTH_BURST = (work) => [
  [bash('toolu_field001b', 'echo warm-up')],
  [bash('toolu_field002b', 'echo a'), read('toolu_field002r', `${work}/notes.txt`), bash('toolu_field003b', 'echo b'), bash('toolu_field004b', 'echo c')],
];
/**
 * The compat runner's session (`npm run compat`): text then a call; two calls after text; a message with
 * no text; two calls with no text. Each place replay's model tells apart (first, first after text, later),
 * more than once, in one session per mode, so one version's run stays short.
 */
export const COMPAT_MESSAGES = (work) => [
  Object.assign([bash('toolu_field001b', 'echo first')], { texts: ['Plan for step 1, line one.\nLine two — with “quotes” and ünïcödé.'] }),
  Object.assign([read('toolu_field002r', `${work}/notes.txt`), bash('toolu_field002b', 'echo second')], { texts: ['Two calls in one message.'] }),
  Object.assign([bash('toolu_field003b', 'echo third')], { texts: [] }),
  Object.assign([bash('toolu_field004b', 'echo fourth'), read('toolu_field004r', `${work}/notes.txt`)], { texts: [] }),
];
const TRUTH_SCRIPTS = { single: SINGLE, multi: TRUTH_MULTI, parallel: PARALLEL, burst: TRUTH_BURST };

const probe = { hook: 'probe', polls: 10, pollMs: 100 };
const announce = { hook: 'announce', polls: 10, pollMs: 100 };
// A model's stream does not end the instant a tool_use block closes: the stand-in waits before
// message_delta, so PreToolUse fires while the message is still open, as with the real API.
const stream = { blockGapMs: 100, finishDelayMs: 300 };

export const scenarios = [
  { name: 'print-single-announce', mode: 'print', ...announce, ...stream, script: SINGLE },
  // `metrics`: a real Prometheus scrapes `watch --metrics` every second, and PromQL must give the
  // recorder's calls, the probe's seen/behind counts and its median hold (here every wait is seen).
  { name: 'print-single-probe', mode: 'print', ...probe, ...stream, metrics: true, script: SINGLE },
  { name: 'print-parallel-probe-slow', mode: 'print', ...probe, ...stream, slowHookMs: 2000, script: PARALLEL },
  { name: 'interactive-single-announce', mode: 'interactive', ...announce, ...stream, script: SINGLE },
  { name: 'interactive-single-probe', mode: 'interactive', ...probe, ...stream, script: SINGLE },
  { name: 'interactive-parallel-probe-slow', mode: 'interactive', ...probe, ...stream, slowHookMs: 2000, script: PARALLEL },
  // The plugin installed by `claude plugin` instead of install-hook: from this folder, from a git URL
  // (nothing built: it runs the committed bundle), and beside install-hook (no call reported twice).
  { name: 'print-single-plugin', mode: 'print', ...announce, ...stream, install: 'plugin', script: SINGLE },
  { name: 'interactive-single-plugin-git', mode: 'interactive', ...announce, ...stream, install: 'plugin-git', slowHookMs: 1500, script: SINGLE },
  { name: 'print-single-plugin-and-install-hook', mode: 'print', ...announce, ...stream, install: 'plugin+hook', script: SINGLE },
  // The terminal's status line (install-statusline) while a slow reviewing hook holds each call, then idle.
  { name: 'interactive-single-statusline-slow', mode: 'interactive', ...announce, ...stream, slowHookMs: 2500, statusline: true, script: SINGLE },
  // The message ends the moment its last block closes, racing the hooks' start: measured, and only
  // the invariants asserted (2.1.332 mostly writes promptly then, but not always).
  // http hooks: watch serves the receiver; every call must still be held, written and timed.
  { name: 'print-single-http', mode: 'print', ...announce, ...stream, install: 'http', script: SINGLE },
  { name: 'interactive-single-http-slow', mode: 'interactive', ...announce, ...stream, slowHookMs: 2000, install: 'http', script: SINGLE },
  // Nothing watching: analyze --channel must still give every call the shape the recorder saw.
  { name: 'print-single-announce-unwatched', mode: 'print', ...announce, ...stream, watch: false, script: SINGLE },
  { name: 'interactive-single-announce-slow-unwatched', mode: 'interactive', ...announce, ...stream, slowHookMs: 2000, watch: false, script: SINGLE },
  { name: 'interactive-single-probe-endfirst', mode: 'interactive', ...probe, blockGapMs: 20, finishDelayMs: 0, racy: true, script: SINGLE },
  // Metrics again, where the probe ends behind: two parallel calls held while it waits.
  { name: 'interactive-parallel-probe-metrics', mode: 'interactive', ...probe, ...stream, metrics: true, script: PARALLEL },
  // The mod (Claude Code 2.1.286+, in process, as measured): loaded by --plugin-dir and by `claude plugin install`.
  // A reviewing settings hook asks `transcript-lag message --json` for each call's message.
  { name: 'interactive-mod-plugin-dir-slow', mode: 'interactive', ...announce, ...stream, install: 'plugin-dir', mod: true, reviewer: true, slowHookMs: 2000, sampleScreens: true, script: MOD_MESSAGES },
  { name: 'print-mod-plugin-dir', mode: 'print', ...announce, ...stream, install: 'plugin-dir', mod: true, reviewer: true, script: MOD_MESSAGES },
  { name: 'print-mod-subagent', mode: 'print', ...announce, ...stream, install: 'plugin-dir', mod: true, reviewer: true, script: MOD_SUBAGENT, subScript: SUBAGENT_STEPS },
  // The mod times each call's settings PreToolUse hooks (classic.PreToolUse, issue 33 §4): its `hooks` event
  // must say what the slow hook (2 s, the longest of them) measured itself, within 100 ms.
  { name: 'interactive-mod-hooks-timed', mode: 'interactive', ...announce, ...stream, install: 'plugin-dir', mod: true, slowHookMs: 2000, timeSlowHook: true, metrics: true, script: SINGLE },
  // http hooks installed: watch serves the receiver, the mod posts its events to it (nothing spooled).
  { name: 'print-mod-http', mode: 'print', ...announce, ...stream, install: 'http+plugin-dir', mod: true, script: SINGLE },
  { name: 'interactive-mod-plugin-slow', mode: 'interactive', ...announce, ...stream, install: 'plugin', mod: true, reviewer: true, slowHookMs: 2000, script: SINGLE },
  // The message tool with the plugin alone (issue 32): the plugin from a clone of the committed HEAD (nothing
  // built), its SessionStart hook copies the tool to ~/.claude/transcript-lag/bin/, and a reviewing hook naming
  // that copy gets each message from the mod with `mod: true`; examples/'s three hooks run beside it. Then a
  // print session without the plugin: `mod: false`, and the examples block its Bash call saying what to
  // install. The stand-in ends each message 2.5 s after its last block, so no record is on disk while the
  // PreToolUse hooks of either session run (print mode writes a record when its message ends).
  { name: 'interactive-mod-message-tool', mode: 'interactive', ...announce, blockGapMs: 100, finishDelayMs: 2500, install: 'plugin-dir', pluginClone: true, mod: true, reviewer: 'copied', examples: true, script: MESSAGE_TOOL, noModScript: NO_MOD_STEPS },
  // A forked session copies the parent's conversation into its file: history, never the fork's calls.
  { name: 'print-fork-announce', mode: 'print', ...announce, ...stream, script: FORK_PARENT, forkScript: FORK_OWN },
  // The hook lab's check (issue 38): three hooks that look for their own call (test/field/truthHooks/) in
  // real sessions, interactive and print, single, multi, parallel and burst, with nothing of ours and with
  // the plugin; then `replay` of each hook on the finished session must give every decision they really
  // made, and say `differs` wherever the real one differs from the complete run's. Their landings are
  // what src/core/replay/landings.json is measured from (npm run landings).
  ...['interactive', 'print'].flatMap((mode) =>
    Object.entries(TRUTH_SCRIPTS).flatMap(([shape, script]) => [
      { name: `${mode}-truth-${shape}`, mode, ...announce, ...stream, install: 'none', truth: true, script, ...(shape === 'burst' ? { blockGapMs: 20 } : {}) },
      { name: `${mode}-truth-${shape}-plugin`, mode, ...announce, ...stream, install: 'plugin-dir', mod: true, truth: true, script, ...(shape === 'burst' ? { blockGapMs: 20 } : {}) },
    ]),
  ),
  // A subagent's call: the hooks are handed the session's transcript_path, not the subagent's own file.
  ...['interactive', 'print'].map((mode) => ({ name: `${mode}-truth-subagent`, mode, ...announce, ...stream, install: 'none', truth: true, script: MOD_SUBAGENT, subScript: SUBAGENT_STEPS })),
  // `transcript-lag complete` (issue 39 §5): the plugin alone, from a clone of the committed HEAD (nothing
  // built); once-reading hooks (test/field/truthHooks/) unchanged behind the wrapper its SessionStart copied,
  // `node ~/.claude/transcript-lag/bin/transcript-lag-complete.js -- …`. Each must find its own call on every
  // call (text in pieces, two calls in one message, a message with no text, a burst of four, a subagent's);
  // the records the wrapper wrote must equal those Claude Code wrote later; replay must say differs: false.
  ...['interactive', 'print'].flatMap((mode) =>
    [
      // Each message ends 2.5 s after its last block (print mode writes a record when its message ends): held while the hooks run.
      ['messages', MOD_MESSAGES, { finishDelayMs: 2500 }],
      ['burst', TRUTH_BURST, { blockGapMs: 20 }],
      ['subagent', MOD_SUBAGENT, { subScript: SUBAGENT_STEPS, finishDelayMs: 2500 }],
    ].map(([shape, script, more]) => ({ name: `${mode}-complete-${shape}`, mode, ...announce, ...stream, install: 'plugin-dir', pluginClone: true, mod: true, complete: true, script, ...more })),
  ),
  // The compat runner's set (`npm run compat`, test/field/compat.mjs; not in the default suite): the truth
  // hooks (their landings feed replay's model), the plugin for the session (the mod where it loads: its
  // `classic.PreToolUse` timing, the held message a reviewing hook reads), interactive and print; and the
  // hook installed in exec form (`install-hook --form exec`), whether the version runs it.
  ...['interactive', 'print'].map((mode) => ({ name: `${mode}-compat`, compat: true, mode, ...announce, ...stream, install: 'plugin-dir', mod: true, reviewer: true, truth: true, truthReplay: false, script: COMPAT_MESSAGES })),
  { name: 'print-compat-exec', compat: true, mode: 'print', ...announce, ...stream, form: 'exec', watch: false, script: SINGLE },
];
