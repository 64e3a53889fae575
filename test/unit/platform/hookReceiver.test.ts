import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServer, request } from 'node:http';
import * as net from 'node:net';
import { channelEventSchema, type ChannelEvent } from '../../../src/core/channel/schema';
import { parseChannelLine } from '../../../src/core/channel/reader';
import { HEADERS_TIMEOUT_MS, HOOK_PATH, MAX_MOD_BODY_BYTES, MOD_PATH, MAX_CONNECTIONS, MAX_WAITING_CONNECTIONS, SECRET_HEADER, WAITING_GRACE_MS, startHookReceiver, type HookReceiver } from '../../../src/platform/hookReceiver';
import { MAX_LANDING_WATCHES } from '../../../src/platform/receiverLandingWatches';
import { ANSWER_HEADER, CHALLENGE_HEADER, CHALLENGE_PATH, challengeAnswer, proveListener } from '../../../src/platform/receiverChallenge';
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

/** A connected socket to the port that has sent `head` (nothing when empty). */
function openSocket(port: number, head = ''): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      if (head) socket.write(head);
      resolve(socket);
    });
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

const closed = (socket: net.Socket) => (socket.destroyed ? Promise.resolve() : new Promise<void>((r) => socket.once('close', () => r())));

/** Resolves when `p` does; rejects, naming `what`, when it has not within `ms` (a hang, not a timing check). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

/** Whether the port can be bound again now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
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
    fs.mkdirSync(path.join(dir, 'projects', '-work'), { recursive: true });
    receiver = await startHookReceiver({ host: '127.0.0.1', port: 0, secret: SECRET, claudeDir: dir, now: () => clock, timeoutMs: 1000 });
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
    JSON.stringify({ session_id: SID, transcript_path: path.join(dir, 'projects', '-work', 't.jsonl'), hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'echo secret-input' }, tool_use_id: 'toolu_01HTTP', ...fields });

  it('the mod posts its channel events to /mod: appended as they came, with the secret, confined, bounded', async () => {
    const transcript = path.join(dir, 'projects', '-work', `${SID}.jsonl`);
    fs.writeFileSync(transcript, '');
    const event = { v: 1, event: 'pre', at: 1_800_000_000_123, session_id: SID, transcript_path: transcript, tool_use_id: 'toolu_01MOD', tool_name: 'Bash', transport: 'mod', source: 'transcript-lag-mod' };
    assert.equal((await post(receiver.port, JSON.stringify(event), { [SECRET_HEADER]: SECRET }, MOD_PATH)).status, 200);
    const record = { v: 1, event: 'record', at: 1_800_000_000_124, session_id: SID, transcript_path: transcript, uuid: '5f0e0000-0000-4000-8000-000000000001', record_type: 'assistant', tool_use_ids: ['toolu_01MOD'], source: 'transcript-lag-mod' };
    assert.equal((await post(receiver.port, JSON.stringify(record), { [SECRET_HEADER]: SECRET }, MOD_PATH)).status, 200);
    assert.deepEqual(channelEvents(), [event, record]);
    // Refused, nothing written: no secret, another source, a file outside projects/, too big.
    assert.equal((await post(receiver.port, JSON.stringify(event), {}, MOD_PATH)).status, 403);
    assert.equal((await post(receiver.port, JSON.stringify({ ...event, source: 'someone' }), { [SECRET_HEADER]: SECRET }, MOD_PATH)).status, 400);
    assert.equal((await post(receiver.port, JSON.stringify({ ...event, transcript_path: '/etc/passwd' }), { [SECRET_HEADER]: SECRET }, MOD_PATH)).status, 400);
    const big = JSON.stringify({ ...event, tool_name: 'x'.repeat(MAX_MOD_BODY_BYTES) });
    assert.equal((await post(receiver.port, big, { [SECRET_HEADER]: SECRET }, MOD_PATH).catch(() => ({ status: 413, body: '' }))).status, 413);
    assert.equal(channelEvents().length, 2);
  });

  it('the mod\'s hooks event (its timing of a call\'s settings hooks) is appended too, as it came, and the channel reader takes it', async () => {
    const transcript = path.join(dir, 'projects', '-work', `${SID}.jsonl`);
    fs.writeFileSync(transcript, '');
    const hooks = { v: 1, event: 'hooks', at: 1_800_000_001_357, session_id: SID, transcript_path: transcript, tool_use_id: 'toolu_01MOD', tool_name: 'Bash', transport: 'mod', hooks_ms: 1234, hooks_decision: 'deny', source: 'transcript-lag-mod' };
    assert.equal((await post(receiver.port, JSON.stringify(hooks), { [SECRET_HEADER]: SECRET }, MOD_PATH)).status, 200);
    const lines = fs.readFileSync(path.join(channelDir, `${SID}.jsonl`), 'utf8').split('\n').filter(Boolean);
    assert.deepEqual(lines.map((l) => JSON.parse(l)), [hooks]);
    assert.deepEqual(parseChannelLine(lines[0]), { kind: 'event', event: hooks });
  });

  it('stands aside for a call the mod lists, as the command hook does: 200, nothing written', async () => {
    const transcript = path.join(dir, 'projects', '-work', `${SID}.jsonl`);
    fs.writeFileSync(transcript, '');
    fs.mkdirSync(path.join(channelDir, 'mod'), { recursive: true });
    fs.writeFileSync(path.join(channelDir, 'mod', `${SID}.json`), JSON.stringify({ v: 1, calls: ['toolu_01MODLISTED'] }));
    assert.deepEqual(await post(receiver.port, payload({ transcript_path: transcript, tool_use_id: 'toolu_01MODLISTED' })), { status: 200, body: '{}' });
    assert.deepEqual(channelEvents(), []);
    assert.equal((await post(receiver.port, payload({ transcript_path: transcript, tool_use_id: 'toolu_02NOTLISTED' }))).status, 200);
    assert.deepEqual(channelEvents().map((e) => ('tool_use_id' in e ? e.tool_use_id : undefined)), ['toolu_02NOTLISTED']);
  });

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
      startHookReceiver({ host: '127.0.0.1', port: receiver.port, secret: SECRET, claudeDir: dir, now: () => clock }),
      (err: NodeJS.ErrnoException) => err.code === 'EADDRINUSE',
    );
  });
});

describe('HTTP hook receiver under hostile clients', () => {
  let dir: string;
  let receiver: HookReceiver | undefined;
  const sockets: net.Socket[] = [];

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-receiver-hostile-'));
    fs.mkdirSync(path.join(dir, 'projects', '-work'), { recursive: true });
    receiver = await startHookReceiver({ host: '127.0.0.1', port: 0, secret: SECRET, claudeDir: dir, now: Date.now, timeoutMs: 1000 });
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await receiver?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const hook = (fields: Record<string, unknown> = {}) =>
    JSON.stringify({ session_id: SID, transcript_path: path.join(dir, 'projects', '-work', 't.jsonl'), hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'toolu_01HOSTILE', ...fields });

  it('close() drops an idle connection instead of waiting for it, and the port is free at once', async () => {
    const r = receiver!;
    receiver = undefined;
    const idle = await openSocket(r.port);
    sockets.push(idle);
    const half = await openSocket(r.port, `POST ${HOOK_PATH} HTTP/1.1\r\nHost: x\r\n${SECRET_HEADER}: ${SECRET}\r\nContent-Length: 10\r\n\r\n`);
    sockets.push(half);
    await post(r.port, '{}'); // answered after the server has read the head above
    await within(r.close(), 1000, 'close() with an idle connection and a request under way');
    await within(Promise.all([closed(idle), closed(half)]), 1000, 'the connections closed by the receiver');
    assert.equal(await bindable(r.port), true);
  });

  it('a connection that sends no whole request head is dropped after the headers timeout', async function () {
    this.timeout(HEADERS_TIMEOUT_MS + 5000);
    const idle = await openSocket(receiver!.port);
    sockets.push(idle);
    await closed(idle);
  });

  it('a flood of half-open connections (no secret) drops the oldest of them and keeps an authenticated hook served', async () => {
    const oldest: net.Socket[] = [];
    for (let i = 0; i < 16; i++) oldest.push(await openSocket(receiver!.port, 'POST /hook HTTP/1.1\r\nX-Half: '));
    sockets.push(...oldest);
    // A connection is dropped for a newer one only once it has had its grace to send its head.
    await new Promise((r) => setTimeout(r, WAITING_GRACE_MS + 50));
    const newer: net.Socket[] = [];
    for (let i = 0; i < MAX_WAITING_CONNECTIONS; i++) newer.push(await openSocket(receiver!.port, 'POST /hook HTTP/1.1\r\nX-Half: '));
    sockets.push(...newer);
    await within(Promise.all(oldest.map(closed)), 1000, 'the oldest half-open connections dropped');
    assert.equal(newer.filter((s) => s.destroyed).length, 0);
    assert.deepEqual(await post(receiver!.port, hook()), { status: 200, body: '{}' });
  });

  it('holds at most MAX_CONNECTIONS connections: the process that runs the engine keeps its file descriptors', async () => {
    // Expect: 100-continue: the server says "100 Continue" once it has read the head, so each is a request under way.
    const head = `POST ${HOOK_PATH} HTTP/1.1\r\nHost: x\r\n${SECRET_HEADER}: ${SECRET}\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n`;
    const underWay = async () => {
      const s = await openSocket(receiver!.port, head);
      await new Promise<void>((resolve) => {
        s.once('data', () => resolve());
        s.once('close', () => resolve());
      });
      return s;
    };
    const held: net.Socket[] = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) held.push(await underWay());
    sockets.push(...held);
    assert.equal(held.filter((s) => s.destroyed).length, 0);
    // Past the cap, with none waiting for a head, a new connection is closed at once.
    const past: net.Socket[] = [];
    for (let i = 0; i < 8; i++) past.push(await openSocket(receiver!.port, head));
    sockets.push(...past);
    await within(Promise.all(past.map(closed)), 2000, 'connections past the cap closed');
    assert.equal(held.filter((s) => s.destroyed).length, 0);
  });

  it('at the connection cap, a hook still gets in: the oldest connection waiting for its head makes room', async () => {
    const held: net.Socket[] = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) held.push(await openSocket(receiver!.port, 'POST /hook HTTP/1.1\r\nX-Half: '));
    sockets.push(...held);
    assert.deepEqual(await post(receiver!.port, hook()), { status: 200, body: '{}' });
  });

  it('refuses a transcript_path outside the Claude dir\'s projects/ (by real path): 400 and nothing written', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-receiver-outside-'));
    try {
      fs.writeFileSync(path.join(outside, 'x.jsonl'), '');
      fs.symlinkSync(outside, path.join(dir, 'projects', 'evil'));
      for (const transcript of ['/etc/passwd', path.join(outside, 'x.jsonl'), path.join(dir, 'projects', 'evil', 'x.jsonl'), path.join(dir, 'projects', '-work', 't.txt'), 'relative/t.jsonl']) {
        assert.equal((await post(receiver!.port, hook({ transcript_path: transcript }))).status, 400, transcript);
      }
      assert.deepEqual(fs.existsSync(path.join(dir, 'transcript-lag')) ? fs.readdirSync(path.join(dir, 'transcript-lag')) : [], []);
      assert.equal((await post(receiver!.port, hook())).status, 200);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('bounds landing watches: one per call, at most MAX_LANDING_WATCHES however many PostToolUse requests come', async () => {
    const transcript = path.join(dir, 'projects', '-work', `${SID}.jsonl`);
    fs.writeFileSync(transcript, '{"type":"user"}\n');
    const posts = [];
    for (let i = 0; i < MAX_LANDING_WATCHES * 2; i++) posts.push(post(receiver!.port, hook({ hook_event_name: 'PostToolUse', transcript_path: transcript, tool_use_id: `toolu_forged${i}` })));
    for (let i = 0; i < 8; i++) posts.push(post(receiver!.port, hook({ hook_event_name: 'PostToolUse', transcript_path: transcript, tool_use_id: 'toolu_forged0' })));
    assert.ok((await Promise.all(posts)).every((r) => r.status === 200));
    await new Promise((r) => setImmediate(r));
    assert.equal(receiver!.landingWatches!(), MAX_LANDING_WATCHES);
  });

  it('dedupes a repeated tool_use_id into one landing watch', async () => {
    const transcript = path.join(dir, 'projects', '-work', `${SID}.jsonl`);
    fs.writeFileSync(transcript, '{"type":"user"}\n');
    for (let i = 0; i < 5; i++) assert.equal((await post(receiver!.port, hook({ hook_event_name: 'PostToolUse', transcript_path: transcript, tool_use_id: 'toolu_same' }))).status, 200);
    await new Promise((r) => setImmediate(r));
    assert.equal(receiver!.landingWatches!(), 1);
  });

  it('answers the challenge with the HMAC of the nonce under its secret, and proveListener tells ours, another install\'s and a stranger apart', async () => {
    const nonce = 'ab'.repeat(16);
    const answer = await new Promise<string | string[] | undefined>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: receiver!.port, path: CHALLENGE_PATH, headers: { [CHALLENGE_HEADER]: nonce } }, (res) => {
        res.resume();
        resolve(res.headers[ANSWER_HEADER]);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(answer, challengeAnswer(SECRET, nonce));
    assert.notEqual(answer, challengeAnswer(`${SECRET}x`, nonce));
    assert.equal(await proveListener('127.0.0.1', receiver!.port, SECRET), 'ours');
    assert.equal(await proveListener('127.0.0.1', receiver!.port, 'another-install-secret-0123456789abcdef'), 'other-install');
    const stranger = createServer((_req, res) => res.writeHead(200, { [ANSWER_HEADER]: 'f'.repeat(64), 'x-anything': '1' }).end('{}'));
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((r) => stranger.listen(0, '127.0.0.1', () => r()));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    try {
      // A stranger that forges the answer header answers as another install would: never as ours.
      assert.equal(await proveListener('127.0.0.1', (stranger.address() as net.AddressInfo).port, SECRET), 'other-install');
      assert.equal(await proveListener('127.0.0.1', (silent.address() as net.AddressInfo).port, SECRET, 200), 'foreign');
    } finally {
      stranger.close();
      stranger.closeAllConnections();
      silent.close();
    }
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
      fs.mkdirSync(path.join(dir, 'projects', '-work'), { recursive: true });
      const receiver = await startHookReceiverThread({ host: '127.0.0.1', port: 0, secret: SECRET, claudeDir: dir, now: Date.now, timeoutMs: 1000 }, workerFile);
      try {
        const body = JSON.stringify({ session_id: SID, transcript_path: path.join(dir, 'projects', '-work', 't.jsonl'), hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: {}, tool_use_id: 'toolu_thread' });
        assert.deepEqual(await post(receiver.port, body), { status: 200, body: '{}' });
        assert.equal((await post(receiver.port, body, { [SECRET_HEADER]: 'wrong' })).status, 403);
        const lines = fs.readFileSync(path.join(channelDir, `${SID}.jsonl`), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
        events.push(lines.map(({ at, transcript_path, ...rest }) => ({ ...rest, at: typeof at, transcript_path: path.relative(dir, transcript_path as string) })));
      } finally {
        await receiver.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    assert.equal(events[0]!.length, 1);
    assert.deepEqual(events[0], events[1]);
  });

  it('close() on the thread drops a connection with a request under way and frees the port at once', async function () {
    this.timeout(30_000);
    const built = path.resolve(__dirname, '../../../dist/hookReceiverWorker.js');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-receiver-thread-'));
    const receiver = await startHookReceiverThread({ host: '127.0.0.1', port: 0, secret: SECRET, claudeDir: dir, now: Date.now, timeoutMs: 1000 }, built);
    // A request whose body never comes: node's own close() drops idle connections, not one with a request under way.
    const idle = await openSocket(receiver.port, `POST ${HOOK_PATH} HTTP/1.1\r\nHost: x\r\n${SECRET_HEADER}: ${SECRET}\r\nContent-Length: 10\r\n\r\n`);
    await post(receiver.port, '{}'); // answered after the server has read the head above
    try {
      await within(receiver.close(), 1000, 'close() of the thread with a request under way');
      await within(closed(idle), 1000, 'the idle connection closed');
      assert.equal(await bindable(receiver.port), true);
    } finally {
      idle.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
