import { timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import { reportCall } from '../hook/callReport';
import { watchAndReport } from '../hook/landingProcess';
import { PayloadCollector, parseHookInput } from '../hook/stdin';

/**
 * The receiver of `http` hooks (install-hook --http): Claude Code POSTs the
 * same JSON a command hook gets on stdin, and the receiver writes the same
 * channel events the command hook would (src/hook/callReport.ts), so every
 * reader of the file channel sees them. One process serves the port (`watch`
 * or the extension); the others find it taken and read the file.
 *
 * Claude Code fails open when the receiver is down, and waits for the hook's
 * whole `timeout` when it hangs: so the receiver answers at once, before any
 * slow work (the landing watch runs after the answer).
 */
export interface HookReceiverOptions {
  /** Loopback only unless asked otherwise; install-hook --http writes 127.0.0.1. */
  host: string;
  port: number;
  /** The per-install secret every request must carry in SECRET_HEADER. */
  secret: string;
  channelDir: string;
  now: () => number;
  /** The http hook's timeout, reported on `pre` events like a command hook's. */
  timeoutMs?: number;
}

export const SECRET_HEADER = 'x-transcript-lag-secret';
export const HOOK_PATH = '/hook';
/** Bodies over this are refused: enough for a large Write's tool_input, bounded all the same. */
export const MAX_BODY_BYTES = 256 * 1024 * 1024;

export interface HookReceiver {
  port: number;
  close(): Promise<void>;
}

function sameSecret(given: string | string[] | undefined, secret: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(secret, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function startHookReceiver(opts: HookReceiverOptions): Promise<HookReceiver> {
  const server = http.createServer((req, res) => {
    // The hook fired when its request arrived.
    const firedAt = opts.now();
    const answer = (status: number) => {
      res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
      // An empty object: no decision, like a command hook's empty stdout.
      res.end(status === 200 ? '{}' : '');
    };
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== HOOK_PATH) {
      answer(404);
      req.resume();
      return;
    }
    if (!sameSecret(req.headers[SECRET_HEADER], opts.secret)) {
      answer(403);
      req.resume();
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
      answer(413);
      req.destroy();
      return;
    }
    const body = new PayloadCollector();
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        answer(413);
        req.destroy();
        return;
      }
      body.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return;
      const input = parseHookInput(body.bytes());
      const landings: Parameters<typeof watchAndReport>[0][] = [];
      const reported = input
        ? reportCall(input, {
            channelDir: opts.channelDir,
            firedAt,
            mode: 'announce',
            transport: 'http',
            timeoutMs: opts.timeoutMs,
            now: opts.now,
            watchLanding: (job) => landings.push(job),
          })
        : undefined;
      answer(reported?.written ? 200 : 400);
      for (const job of landings) void watchAndReport(job).catch(() => undefined);
    });
    req.on('error', () => undefined);
  });
  // A request that never finishes must not hold a socket open for long.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : opts.port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
