import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHookReceiver, type HookReceiver, type HookReceiverOptions } from '../../../src/platform/hookReceiver';
import { HookReceiverService, RETRY_FIRST_MS, RETRY_MAX_MS, receiverStatusText, type ReceiverStatus } from '../../../src/platform/hookReceiverService';
import { writeHttpHookConfig, type HttpHookConfigRead } from '../../../src/platform/httpConfigFile';

const SECRET = 'a'.repeat(43);
const OTHER_SECRET = 'b'.repeat(43);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
}

function listen(server: net.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

describe('HookReceiverService', () => {
  let dir: string;
  let port: number;
  let now: number;
  const statuses: ReceiverStatus[] = [];
  const warnings: string[] = [];
  const cleanup: (() => Promise<void> | void)[] = [];
  let starts = 0;
  const startReceiver = (opts: HookReceiverOptions): Promise<HookReceiver> => {
    starts++;
    return startHookReceiver(opts);
  };
  const service = (opts: ConstructorParameters<typeof HookReceiverService>[3] = {}) => {
    const s = new HookReceiverService(dir, () => now, (st) => statuses.push(st), { onWarning: (w) => warnings.push(w), startReceiver, ...opts });
    cleanup.push(() => s.stop());
    return s;
  };

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-receiver-service-'));
    port = await freePort();
    now = 1_000_000;
    statuses.length = 0;
    warnings.length = 0;
    starts = 0;
    await writeHttpHookConfig(dir, { port, secret: SECRET });
  });
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const holdPort = async (server: net.Server) => {
    await listen(server, port);
    cleanup.push(() => {
      server.close();
      (server as Server).closeAllConnections?.();
    });
  };

  it('a port held by a program that is not ours is said so, with the program named, never "served by another process"', async () => {
    await holdPort(createServer((_req, res) => res.end('{}')));
    const s = service();
    const status = await s.refresh();
    assert.equal(status.state, 'port-taken');
    const text = receiverStatusText(status);
    assert.match(text, /held by a program that is not transcript-lag/);
    assert.doesNotMatch(text, /arrive through the channel/);
    if (process.platform === 'linux') assert.match(text, new RegExp(`\\(pid ${process.pid}\\)`));
  });

  it('a port held by our receiver with this install\'s secret is "served elsewhere"; with another secret, a shared port', async () => {
    const ours = await startHookReceiver({ host: '127.0.0.1', port, secret: SECRET, claudeDir: dir, now: () => now });
    cleanup.push(() => ours.close());
    assert.equal((await service().refresh()).state, 'served-elsewhere');
    await ours.close();
    const other = await startHookReceiver({ host: '127.0.0.1', port, secret: OTHER_SECRET, claudeDir: dir, now: () => now });
    cleanup.push(() => other.close());
    const shared = await service().refresh();
    assert.equal(shared.state, 'port-shared');
    assert.match(receiverStatusText(shared), /another install \(another Claude dir on the same port\?\)/);
  });

  it('backs off binding a taken port: doubling from RETRY_FIRST_MS up to RETRY_MAX_MS', async () => {
    let challenges = 0;
    await holdPort(createServer((_req, res) => (challenges++, res.end())));
    const s = service({ portHolder: async () => undefined });
    const attemptsAt: number[] = [];
    for (let t = 0; t <= 50_000; t += 250) {
      now = 1_000_000 + t;
      const before = starts;
      await s.refresh();
      if (starts > before) attemptsAt.push(t);
    }
    assert.deepEqual([RETRY_FIRST_MS, RETRY_MAX_MS], [1000, 16_000]);
    assert.deepEqual(attemptsAt, [0, 1000, 3000, 7000, 15000, 31000, 47000]);
    assert.equal(challenges, attemptsAt.length);
  });

  it('backs off on EACCES too', async () => {
    let failures = 0;
    const s = service({
      startReceiver: async () => {
        failures++;
        throw Object.assign(new Error('listen EACCES'), { code: 'EACCES' });
      },
    });
    for (let t = 0; t < 10_000; t += 100) {
      now = 1_000_000 + t;
      assert.equal((await s.refresh()).state, 'failed');
    }
    assert.equal(failures, 4); // at 0, 1 s, 3 s, 7 s
  });

  it('a port change is served at once, even with a client holding a connection to the old port', async () => {
    const s = service();
    assert.equal((await s.refresh()).state, 'serving');
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    cleanup.push(() => void socket.destroy());
    await new Promise((r) => socket.once('connect', r));
    socket.write(`POST /hook HTTP/1.1\r\nHost: x\r\nX-Transcript-Lag-Secret: ${SECRET}\r\nContent-Length: 10\r\n\r\n`);
    const newPort = await freePort();
    await writeHttpHookConfig(dir, { port: newPort, secret: SECRET });
    assert.deepEqual(await s.refresh(), { state: 'serving', port: newPort });
    assert.equal(await bindable(port), true);
  });

  it('an unreadable http.json (EMFILE) is not taken for "uninstalled": it keeps serving and says why once', async () => {
    let read: HttpHookConfigRead = { state: 'found', config: { port, secret: SECRET } };
    const s = service({ readConfig: async () => read });
    assert.equal((await s.refresh()).state, 'serving');
    read = { state: 'unreadable', code: 'EMFILE' };
    assert.equal((await s.refresh()).state, 'serving');
    assert.equal((await s.refresh()).state, 'serving');
    assert.deepEqual(statuses.map((x) => x.state), ['serving']);
    assert.equal(await bindable(port), false);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /EMFILE/);
  });

  it('stop() at shutdown says nothing: "none installed" is for an uninstall only', async () => {
    const uninstalled = service();
    await uninstalled.refresh();
    await uninstalled.stop();
    assert.deepEqual(statuses.map((x) => x.state), ['serving']);
    const s = service();
    await s.refresh();
    fs.rmSync(path.join(dir, 'transcript-lag', 'http.json'));
    await s.refresh();
    assert.deepEqual(statuses.map((x) => x.state), ['serving', 'serving', 'off']);
  });

  it('a symlinked http.json is refused, said, and not served', async () => {
    const real = path.join(dir, 'elsewhere.json');
    fs.renameSync(path.join(dir, 'transcript-lag', 'http.json'), real);
    fs.symlinkSync(real, path.join(dir, 'transcript-lag', 'http.json'));
    const status = await service().refresh();
    assert.equal(status.state, 'refused');
    assert.match(receiverStatusText(status), /symbolic link/);
    assert.equal(starts, 0);
  });
});
