import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from 'node:http';
import { channelEventSchema, type ChannelEvent } from '../../../src/core/channel/schema';
import { HOOK_PATH, SECRET_HEADER, startHookReceiver, type HookReceiver } from '../../../src/platform/hookReceiver';
import { startHookReceiverThread } from '../../../src/platform/hookReceiverThread';
import { fixturesDir } from '../helpers/fixtures';

const SID = '0b7c5a8e-1111-4222-8333-944455556666';
const SECRET = 's3cret-of-this-install';

function post(port: number, body: string | Buffer, headers: Record<string, string> = { [SECRET_HEADER]: SECRET }, urlPath = HOOK_PATH): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: urlPath, method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('HTTP hook receiver', () => {
  let dir: string;
  let channelDir: string;
  let receiver: HookReceiver;
  let clock = 1_800_000_000_000;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-receiver-'));
    channelDir = path.join(dir, 'transcript-lag');
    receiver = await startHookReceiver({ host: '127.0.0.1', port: 0, secret: SECRET, channelDir, now: () => clock, timeoutMs: 1000 });
  });
  afterEach(async () => {
    await receiver.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const channelEvents = (): ChannelEvent[] => {
    const file = path.join(channelDir, `${SID}.jsonl`);
    if (!fs.existsSync(file)) return [];
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => channelEventSchema.parse(JSON.parse(l)));
  };

  /** The real print session's transcript, the file ending before the call's record (it is held). */
  function heldTranscript(): { transcript: string; toolUseId: string } {
    const real = path.join(fixturesDir, 'real', 'print-single-0');
    const name = fs.readdirSync(real).find((n) => n.endsWith('.jsonl'))!;
    const lines = fs.readFileSync(path.join(real, name), 'utf8').split('\n').filter(Boolean);
    const toolUseId = 'toolu_field001b';
    const at = lines.findIndex((l) => l.includes(`"id":"${toolUseId}"`));
    const transcript = path.join(dir, 'projects', '-work', name);
    fs.mkdirSync(path.dirname(transcript), { recursive: true });
    fs.writeFileSync(transcript, lines.slice(0, at).map((l) => `${l}\n`).join(''));
    return { transcript, toolUseId };
  }

  const payload = (fields: Record<string, unknown>) =>
    JSON.stringify({ session_id: SID, transcript_path: '/nonexistent/t.jsonl', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'echo secret-input' }, tool_use_id: 'toolu_01HTTP', ...fields });

  it('a PreToolUse POST becomes the pre event a command hook writes: fired when it arrived, transport http, no tool input', async () => {
    const { transcript, toolUseId } = heldTranscript();
    const res = await post(receiver.port, payload({ transcript_path: transcript, tool_use_id: toolUseId }));
    assert.deepEqual(res, { status: 200, body: '{}' });
    const [pre, ...rest] = channelEvents();
    assert.deepEqual(rest, []);
    if (pre?.event !== 'pre') throw new Error('a pre event');
    assert.deepEqual(
      [pre.at, pre.transport, pre.mode, pre.timeout_ms, pre.tool_use_id, pre.record_on_disk, pre.result_on_disk, pre.bytes_on_disk, pre.source],
      [clock, 'http', 'announce', 1000, toolUseId, false, false, fs.statSync(transcript).size, 'transcript-lag-hook'],
    );
    assert.ok(!fs.readFileSync(path.join(channelDir, `${SID}.jsonl`), 'utf8').includes('secret-input'));
  });

  it('a PostToolUse with the record not on disk: the receiver itself watches it land with its result', async () => {
    const { transcript, toolUseId } = heldTranscript();
    assert.equal((await post(receiver.port, payload({ hook_event_name: 'PostToolUse', transcript_path: transcript, tool_use_id: toolUseId }))).status, 200);
    const real = path.join(fixturesDir, 'real', 'print-single-0');
    const all = fs.readFileSync(path.join(real, path.basename(transcript)), 'utf8').split('\n').filter(Boolean);
    const from = all.findIndex((l) => l.includes(`"id":"${toolUseId}"`));
    const to = all.findIndex((l) => l.includes(`"tool_use_id":"${toolUseId}"`));
    fs.appendFileSync(transcript, all.slice(from, to + 1).map((l) => `${l}\n`).join(''));
    const until = Date.now() + 10_000;
    let landed: ChannelEvent | undefined;
    while (!(landed = channelEvents().find((e) => e.event === 'landed'))) {
      if (Date.now() > until) throw new Error('no landed event');
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(landed.event === 'landed' && landed.with_result, true);
  });

  it('refuses without the secret, with a wrong one, on another path or method, and bad bodies: 4xx and nothing written', async () => {
    const good = payload({});
    assert.equal((await post(receiver.port, good, {})).status, 403);
    assert.equal((await post(receiver.port, good, { [SECRET_HEADER]: `${SECRET}x` })).status, 403);
    assert.equal((await post(receiver.port, good, { [SECRET_HEADER]: SECRET }, '/other')).status, 404);
    assert.equal((await post(receiver.port, 'not json')).status, 400);
    assert.equal((await post(receiver.port, '[1,2]')).status, 400);
    assert.equal((await post(receiver.port, payload({ hook_event_name: 'Stop' }))).status, 400);
    assert.equal((await post(receiver.port, payload({ session_id: '../../etc' }))).status, 400);
    assert.deepEqual(fs.existsSync(channelDir) ? fs.readdirSync(channelDir) : [], []);
  });

  it('binds the address it is given only: a second receiver on the same port fails with EADDRINUSE', async () => {
    await assert.rejects(
      startHookReceiver({ host: '127.0.0.1', port: receiver.port, secret: SECRET, channelDir, now: () => clock }),
      (err: NodeJS.ErrnoException) => err.code === 'EADDRINUSE',
    );
  });
});

describe('HTTP hook receiver on its own thread (dist/hookReceiverWorker.js)', () => {
  it('answers and writes exactly what the in-process receiver does', async function () {
    this.timeout(60_000);
    const built = path.resolve(__dirname, '../../../dist/hookReceiverWorker.js');
    assert.ok(fs.existsSync(built), 'npm run build makes dist/hookReceiverWorker.js');
    const events: Record<string, unknown>[][] = [];
    for (const workerFile of [built, '/nonexistent/worker.js']) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-receiver-thread-'));
      const channelDir = path.join(dir, 'transcript-lag');
      const receiver = await startHookReceiverThread({ host: '127.0.0.1', port: 0, secret: SECRET, channelDir, now: Date.now, timeoutMs: 1000 }, workerFile);
      try {
        const body = JSON.stringify({ session_id: SID, transcript_path: '/nonexistent/t.jsonl', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: {}, tool_use_id: 'toolu_thread' });
        assert.deepEqual(await post(receiver.port, body), { status: 200, body: '{}' });
        assert.equal((await post(receiver.port, body, { [SECRET_HEADER]: 'wrong' })).status, 403);
        const lines = fs.readFileSync(path.join(channelDir, `${SID}.jsonl`), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
        events.push(lines.map(({ at, ...rest }) => ({ ...rest, at: typeof at })));
      } finally {
        await receiver.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    assert.equal(events[0]!.length, 1);
    assert.deepEqual(events[0], events[1]);
  });
});
