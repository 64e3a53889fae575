import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// `npm run demo` on a machine with only Node and npm: no `code`, no code-server in its cache and
// none of what installing it needs on PATH. It must play the recordings in the terminal through
// the real engine and end by itself. What the screen must say is derived from the recordings.

const repo = path.resolve(__dirname, '../../..');
const recordingsDir = path.join(repo, 'test/field/recordings');
const SPEED = 5;
/** A hold this long (replay time) cannot pass between two reads of the engine: it must be shown held. */
const SURELY_SEEN_HELD_MS = 200;

interface Row {
  kind: 'transcript' | 'channel';
  t: number;
  text: string;
}
interface Recording {
  meta: {
    scenario: string;
    t0_epoch_ms: number;
    calls: Array<{ tool_use_id: string; tool_name: string; line: number; with_result: boolean; wait?: 'seen' | 'behind' }>;
  };
  rows: Row[];
}

function load(scenario: string): Recording {
  const [meta, ...rows] = fs
    .readFileSync(path.join(recordingsDir, `${scenario}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  return { meta, rows };
}

/** When the recording's hook reported the call (its `pre`), and when its record and its result reached disk. */
function callTimes(rec: Recording, toolUseId: string): { preT: number; preAt: number; recordT: number; resultT: number } {
  const pre = rec.rows.find((r) => r.kind === 'channel' && JSON.parse(r.text).event === 'pre' && JSON.parse(r.text).tool_use_id === toolUseId);
  const holding = (type: string, key: 'id' | 'tool_use_id') =>
    rec.rows.find((r) => {
      if (r.kind !== 'transcript') return false;
      const content = JSON.parse(r.text).message?.content;
      return Array.isArray(content) && content.some((b: Record<string, unknown>) => b.type === type && b[key] === toolUseId);
    });
  const record = holding('tool_use', 'id');
  const result = holding('tool_result', 'tool_use_id');
  assert.ok(pre && record && result, `${rec.meta.scenario}: ${toolUseId} has a pre, a record and a result`);
  return { preT: pre.t, preAt: JSON.parse(pre.text).at, recordT: record.t, resultT: result.t };
}

/** formatDuration's texts back to ms (its lower end: `1.2s` is 1200–1299 ms). */
function parseDuration(text: string): number {
  let m = /^(\d+) ms$/.exec(text);
  if (m) return Number(m[1]);
  m = /^(\d+(?:\.\d)?)s$/.exec(text);
  if (m) return Number(m[1]) * 1000;
  m = /^(\d+)m (\d\d)s$/.exec(text);
  if (m) return Number(m[1]) * 60_000 + Number(m[2]) * 1000;
  throw new Error(`not a duration: ${text}`);
}

const DURATION = String.raw`(\d+ ms|\d+(?:\.\d)?s|\d+m \d\ds)`;

/** A directory whose only commands are node, npm and sh: the machine the demo must work on. */
function onlyNodePath(root: string): string {
  const bin = path.join(root, 'bin');
  fs.mkdirSync(bin);
  const find = (cmd: string) => {
    for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
      const p = path.join(dir, cmd);
      if (dir && fs.existsSync(p)) return p;
    }
    throw new Error(`${cmd} not on PATH: the test runs the demo through npm`);
  };
  fs.symlinkSync(process.execPath, path.join(bin, 'node'));
  fs.symlinkSync(find('npm'), path.join(bin, 'npm'));
  // npm runs scripts with sh.
  fs.symlinkSync(find('sh'), path.join(bin, 'sh'));
  return bin;
}

describe('npm run demo on a machine with only Node: the terminal view', function () {
  this.timeout(60_000);
  let root: string;
  let output: string;
  let status: number | null;
  let elapsedMs: number;
  let replays: Array<{ scenario: string; session: string }>;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-terminal-test-'));
    const bin = onlyNodePath(root);
    const cache = path.join(root, 'empty-cache');
    fs.mkdirSync(cache);
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: bin, TRANSCRIPT_LAG_CACHE: cache };
    delete env.CLAUDE_CONFIG_DIR;
    const started = Date.now();
    // stdout is a pipe: the plain log, no ANSI. Builds first, as `npm run demo` does.
    const run = spawnSync(process.execPath, ['scripts/demo.mjs', '--speed', String(SPEED), '--dir', path.join(root, 'demo')], {
      cwd: repo,
      env,
      encoding: 'utf8',
      timeout: 50_000,
    });
    elapsedMs = Date.now() - started;
    status = run.status;
    output = `${run.stdout}${run.stderr}`;
    replays = [...output.matchAll(/^\[demo\] replaying (\S+) .* \(session ([0-9a-f]{8})\)$/gm)].map((m) => ({ scenario: m[1], session: m[2] }));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('falls back to the terminal by itself, ends by itself with exit 0, and says in one line what to install for the VS Code view', () => {
    assert.equal(status, 0, output);
    assert.match(output, /^\[demo\] no `code` on PATH, and code-server cannot be installed here \(rg, .*not found\): playing the sessions in the terminal$/m);
    assert.match(output, /^\[demo\] For the VS Code view: install VS Code \(`code` on PATH\) or code-server's build tools: .*apt-get install -y .*ripgrep.*build-essential/m);
    // The live set at SPEED, the pauses between its sessions and a few seconds of final screen, plus a build and slack.
    const replayMs = replays.slice(1).reduce((sum, r) => sum + Math.max(...load(r.scenario).rows.map((row) => row.t)) / SPEED + 3000 / SPEED, 0);
    assert.ok(elapsedMs < replayMs + 25_000, `took ${elapsedMs} ms for ${Math.round(replayMs)} ms of replay`);
    // Not a terminal: plain lines, no control sequences.
    assert.doesNotMatch(output, /\x1b/);
  });

  it('shows every replayed call landed with its line, lag, shape and wait, the long holds held with their age, and each session\'s waits seen / behind', () => {
    assert.equal(replays.length, 4, output);
    const [history, ...live] = replays;
    for (const { scenario, session } of [history, ...live]) {
      const rec = load(scenario);
      const lines = output.split('\n').filter((l) => l.startsWith(`${session}  `));
      const sessionLines = lines.filter((l) => l.startsWith(`${session}  session  `));
      const seen = rec.meta.calls.filter((c) => c.wait === 'seen').length;
      const behind = rec.meta.calls.filter((c) => c.wait === 'behind').length;
      assert.match(sessionLines.at(-1) ?? '', new RegExp(`waits ${seen} seen / ${behind} behind`), `${scenario}: ${sessionLines.at(-1)}`);
      for (const call of rec.meta.calls) {
        const landed = lines.filter((l) => new RegExp(`^${session}  landed +${call.tool_name} .* · line ${call.line}$`).test(l)).at(-1);
        assert.ok(landed, `${scenario}: ${call.tool_use_id} landed at line ${call.line}\n${lines.join('\n')}`);
        if (call.wait) assert.match(landed, new RegExp(` ${call.wait} · `), landed);
        if (session === history.session) {
          // Indexed as history: what the hook's evidence proves, in the view's words.
          assert.match(landed, /(lag unknown|held [≤≥]|held \d|lag \d).* · (before result|with result|shape unknown) · /, landed);
          continue;
        }
        const { preT, preAt, recordT, resultT } = callTimes(rec, call.tool_use_id);
        // The replay writes the pre at preT/SPEED with its `at` moved by as much, the record at recordT/SPEED.
        const minLag = (recordT - preT) / SPEED + (preT - (preAt - rec.meta.t0_epoch_ms));
        const lag = new RegExp(`lag ${DURATION} · (before result|with result) · `).exec(landed);
        assert.ok(lag, `${scenario}: ${landed}`);
        const lagMs = parseDuration(lag[1]);
        assert.ok(lagMs >= minLag - 100 && lagMs <= minLag + 2000, `${scenario} ${call.tool_use_id}: lag ${lagMs} ms, the replay held it ${Math.round(minLag)} ms`);
        // The shape is what the engine saw: a record read before its result was written is `before result`. How
        // long after its write the record was read shows in its lag; a busy machine may read record and result together.
        const readLateMs = lagMs - minLag + 100;
        if (call.with_result || (resultT - recordT) / SPEED > readLateMs) assert.equal(lag[2], call.with_result ? 'with result' : 'before result', landed);
        if ((recordT - preT) / SPEED >= SURELY_SEEN_HELD_MS) {
          const held = lines.filter((l) => new RegExp(`^${session}  held +${call.tool_name} .*held ${DURATION}.* · after line (\\d+)$`).test(l));
          assert.ok(
            held.some((l) => Number(/after line (\d+)$/.exec(l)![1]) < call.line),
            `${scenario}: ${call.tool_use_id} shown held, with its age, before line ${call.line}\n${lines.join('\n')}`,
          );
        }
      }
    }
  });
});
