// The http transport and the metrics endpoint inside VS Code: a window serves the receiver
// install-hook --http set up, and /metrics once its setting names a port.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { closeAllEditors, eventually, extensionApi, FakeSession, newClaudeDir, sessionFollowed, setSetting, useClaudeDir } from './support';

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function send(port: number, urlPath: string, method: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: urlPath, method, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('http hooks and metrics in a window', () => {
  after(async () => {
    await setSetting('metrics.port', undefined);
    await closeAllEditors();
  });

  it('serves the http hooks of its Claude dir: a POST is a held call, then written with its lag; /metrics counts it', async () => {
    const api = await extensionApi();
    const dir = newClaudeDir('http-hooks');
    const port = await freePort();
    const secret = 'a'.repeat(43);
    fs.mkdirSync(path.join(dir, 'transcript-lag'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(dir, 'transcript-lag', 'http.json'), JSON.stringify({ port, secret }), { mode: 0o600 });
    const s = new FakeSession(dir).title('Over http').prompt('go');
    await useClaudeDir(api, dir);
    await sessionFollowed(api, s);
    await eventually(api, 'the receiver', () => api.httpHooks() === `serving:${port}`);

    const metricsPort = await freePort();
    await setSetting('metrics.port', metricsPort);
    await eventually(api, 'the metrics endpoint', () => api.metricsAddress() === `127.0.0.1:${metricsPort}`);

    const res = await send(port, '/hook', 'POST', JSON.stringify(s.preToolUse('toolu_http_1', 'Bash')), { 'content-type': 'application/json', 'X-Transcript-Lag-Secret': secret });
    assert.equal(res.status, 200);
    await eventually(api, 'the call held', () => api.statusView()?.held === 1);
    s.toolUse('toolu_http_1', 'Bash');
    await eventually(api, 'the call written', () => api.statusView()?.held === 0);
    const metrics = await send(metricsPort, '/metrics', 'GET', '');
    assert.match(metrics.text, /^transcript_lag_held_seconds_count\{tool="Bash",shape="before_result",transport="http"\} 1$/m);
    assert.equal((await send(port, '/hook', 'POST', '{}', { 'X-Transcript-Lag-Secret': 'wrong' })).status, 403);
  });
});
