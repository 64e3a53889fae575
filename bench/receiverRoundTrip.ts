/**
 * What separates the http receiver from a bare server, without Claude Code's noise: PreToolUse
 * POSTs from a Node client (one keep-alive connection, as Claude Code's client keeps one per
 * session) over real sockets on 127.0.0.1, to bench/bareHookChild.ts (keep-alive, then answering
 * `connection: close` as the receiver does) and to bench/receiverChild.ts (the receiver, in a process
 * of its own) with a transcript of a few KiB and one of 8 MiB (its on-disk check reads the last
 * 4 MiB). Targets take turns, request by request. Round trip at the client; CPU of each server
 * process per request from /proc (Linux). PreToolUse only: a PostToolUse whose record never lands
 * leaves the receiver polling for it (src/hook/landingWatch.ts), which is not a request's cost.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeHttpHookConfig } from '../src/platform/httpConfigFile';
import { SECRET_HEADER, HOOK_PATH } from '../src/platform/hookReceiver';
import type { BenchContext } from './lib/context';
import { row, type Row } from './lib/report';
import { median, percentile } from './lib/stats';

/** A bundled server child (bench/receiverChild.ts, bench/bareHookChild.ts); resolves once it listens. */
export function startServerChild(bundleDir: string, name: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(bundleDir, `${name}.cjs`), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => {
      if (String(d).startsWith('serving')) return resolve(child);
      child.kill('SIGTERM');
      reject(new Error(`${name}: ${String(d).trim()}`));
    });
    child.once('exit', (code) => reject(new Error(`${name} exited ${code}`)));
  });
}

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** CPU time (ns) of every thread of a process, or undefined where /proc has no schedstat. */
function cpuNs(pid: number): number | undefined {
  try {
    let total = 0;
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) total += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    return total;
  } catch {
    return undefined;
  }
}

type Target = 'bare' | 'bareClose' | 'receiver' | 'receiverBig';
const LABEL: Record<Target, string> = {
  bare: 'bare server, keep-alive',
  bareClose: 'bare server, connection: close',
  receiver: 'receiver, 5 KiB transcript',
  receiverBig: 'receiver, 8 MiB transcript',
};

export async function receiverRoundTrips(ctx: BenchContext, section: string): Promise<{ rows: Row[]; details: unknown }> {
  const n = ctx.quick ? 40 : 300;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-bench-roundtrip-'));
  const claudeDir = path.join(root, '.claude');
  const project = path.join(claudeDir, 'projects', '-bench');
  fs.mkdirSync(project, { recursive: true });
  const line = `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'x'.repeat(2000) }, uuid: 'u' })}\n`;
  const small = path.join(project, '11111111-2222-3333-4444-555555555555.jsonl');
  const big = path.join(project, '66666666-7777-8888-9999-000000000000.jsonl');
  fs.writeFileSync(small, line.repeat(2));
  fs.writeFileSync(big, line.repeat(Math.ceil((8 * 2 ** 20) / line.length)));
  const secret = 'b'.repeat(43);
  const receiverPort = await freePort();
  await writeHttpHookConfig(claudeDir, { port: receiverPort, secret });
  const children: ChildProcess[] = [];
  try {
    const receiver = await startServerChild(ctx.bundleDir, 'receiverChild', [claudeDir]);
    children.push(receiver);
    const barePort = await freePort();
    const bare = await startServerChild(ctx.bundleDir, 'bareHookChild', [String(barePort)]);
    children.push(bare);
    const bareClosePort = await freePort();
    const bareClose = await startServerChild(ctx.bundleDir, 'bareHookChild', [String(bareClosePort), 'close']);
    children.push(bareClose);
    const target: Record<Target, { port: number; pid: number; transcript: string }> = {
      bare: { port: barePort, pid: bare.pid!, transcript: small },
      bareClose: { port: bareClosePort, pid: bareClose.pid!, transcript: small },
      receiver: { port: receiverPort, pid: receiver.pid!, transcript: small },
      receiverBig: { port: receiverPort, pid: receiver.pid!, transcript: big },
    };
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const post = (port: number, body: string) =>
      new Promise<number>((resolve, reject) => {
        const t = performance.now();
        const req = http.request(
          { host: '127.0.0.1', port, path: HOOK_PATH, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), [SECRET_HEADER]: secret } },
          (res) => {
            res.resume();
            res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t) : reject(new Error(`status ${res.statusCode}`))));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const targets = Object.keys(LABEL) as Target[];
    const rtt = Object.fromEntries(targets.map((t) => [t, [] as number[]])) as Record<Target, number[]>;
    const cpu = Object.fromEntries(targets.map((t) => [t, 0])) as Record<Target, number>;
    let k = 0;
    for (let i = 0; i < n; i++) {
      for (const t of targets) {
        const { port, pid, transcript } = target[t];
        const body = JSON.stringify({
          session_id: path.basename(transcript, '.jsonl'),
          transcript_path: transcript,
          cwd: root,
          permission_mode: 'acceptEdits',
          hook_event_name: 'PreToolUse',
          tool_name: 'Read',
          tool_input: { file_path: path.join(root, 'step1.txt') },
          tool_use_id: `toolu_roundtrip${++k}`,
        });
        const before = cpuNs(pid);
        rtt[t].push(await post(port, body));
        // The receiver writes the channel after answering: let it finish before the next target's turn.
        await new Promise((r) => setImmediate(r));
        const after = cpuNs(pid);
        if (before !== undefined && after !== undefined) cpu[t] += after - before;
      }
    }
    agent.destroy();
    const rows: Row[] = [];
    for (const t of targets) {
      const cpuNote = cpu[t] > 0 ? `; server CPU ${(cpu[t] / 1e6 / n).toFixed(2)} ms a request` : '';
      rows.push(row(section, `round trip, Node client: ${LABEL[t]} p50`, median(rtt[t]), 'ms', undefined, `p90 ${percentile(rtt[t], 90).toFixed(2)} ms; ${n} PreToolUse POSTs${cpuNote}`));
    }
    // A call makes two requests (PreToolUse, PostToolUse), each with the same on-disk check and channel append.
    const over = (t: Target) => 2 * (median(rtt[t]) - median(rtt.bare));
    const within3 = { op: '<=', limit: 3 } as const;
    rows.push(
      row(section, 'receiver over bare server, a call (2 round trips), 5 KiB transcript', over('receiver'), 'ms', within3,
        `connection: close alone ${over('bareClose').toFixed(2)} ms`),
      row(section, 'receiver over bare server, a call (2 round trips), 8 MiB transcript', over('receiverBig'), 'ms', within3,
        'the on-disk check reads the last 4 MiB of the transcript at each request'),
    );
    return { rows, details: { requests: n, rttMs: rtt, serverCpuNs: cpu } };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    fs.rmSync(root, { recursive: true, force: true });
  }
}
