import { timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { Socket } from 'node:net';
import { channelDirOf } from '../rules/channelPaths';
import { ProjectsConfinement } from '../core/engine/projectsConfinement';
import { CHANNEL_SCHEMA_VERSION, MOD_SOURCE, SAFE_SESSION_ID } from '../rules/channelConstants';
import { reportCall } from '../hook/callReport';
import { appendChannelLine } from '../rules/channelWriter';
import { modReportsCall } from '../rules/modFiles';
import { PayloadCollector, parseHookInput } from '../rules/stdin';
import { LandingWatches } from './receiverLandingWatches';
import { nodeFileAccess } from './nodeFileAccess';
import { ANSWER_HEADER, CHALLENGE_HEADER, CHALLENGE_PATH, challengeAnswer, isChallengeNonce } from './receiverChallenge';

/**
 * The receiver of `http` hooks (install-hook --http): Claude Code POSTs the
 * same JSON a command hook gets on stdin, and the receiver writes the same
 * channel events the command hook would (src/hook/callReport.ts), so every
 * reader of the file channel sees them. One process serves the port (`watch`
 * or the extension); the others find it taken, ask the listener to prove it
 * holds the secret (GET /challenge, ./receiverChallenge.ts), and read the file.
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
  /** The Claude dir: events go to its channel folder, and only transcripts under its projects/ are named. */
  claudeDir: string;
  now: () => number;
  /** The http hook's timeout, reported on `pre` events like a command hook's. */
  timeoutMs?: number;
}

export const SECRET_HEADER = 'x-transcript-lag-secret';
export const HOOK_PATH = '/hook';
/** Bodies over this are refused: enough for a large Write's tool_input, bounded all the same. */
export const MAX_BODY_BYTES = 256 * 1024 * 1024;
/** Where the mod (src/mod/) posts its channel events while a receiver runs; else it spools them. */
export const MOD_PATH = '/mod';
/** A mod event is a few hundred bytes: ids, a path, times. */
export const MAX_MOD_BODY_BYTES = 64 * 1024;

/**
 * A channel event the mod posted, when it is one: the mod's own source, an event it writes, a
 * session id that names a channel file. The channel reader validates the line again in full.
 */
function modEventOf(bytes: Buffer | undefined): { session_id: string; transcript_path: string } | undefined {
  if (bytes === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const e = value as Record<string, unknown> | null;
  if (!e || typeof e !== 'object' || Array.isArray(e)) return undefined;
  if (e.v !== CHANNEL_SCHEMA_VERSION || e.source !== MOD_SOURCE || !['pre', 'post', 'landed', 'record', 'hooks'].includes(e.event as string)) return undefined;
  if (typeof e.session_id !== 'string' || !SAFE_SESSION_ID.test(e.session_id) || typeof e.transcript_path !== 'string') return undefined;
  if (!Number.isInteger(e.at)) return undefined;
  return e as { session_id: string; transcript_path: string };
}

/**
 * Connections that have not sent a whole request head yet, at most: past it the
 * oldest such one is dropped, so a flood of half-open connections (no secret
 * needed) cannot keep a hook's request out.
 */
export const MAX_WAITING_CONNECTIONS = 64;
/** A connection younger than this is never dropped for a newer one (MAX_CONNECTIONS still bounds them). */
export const WAITING_GRACE_MS = 250;
/** Connections at once, at most: each is a file descriptor of the process that also runs the engine. */
export const MAX_CONNECTIONS = 256;
/** A request head must be in within this; Claude Code sends its whole request at once. */
export const HEADERS_TIMEOUT_MS = 2_000;
/** A whole request (a large Write's body included) must be in within this. */
export const REQUEST_TIMEOUT_MS = 10_000;

export interface HookReceiver {
  port: number;
  /** Stops listening and drops every open connection: never waits for a client. */
  close(): Promise<void>;
  /** Landing watches running now (in this thread's receiver only). */
  landingWatches?: () => number;
}

function sameSecret(given: string | string[] | undefined, secret: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(secret, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function startHookReceiver(opts: HookReceiverOptions): Promise<HookReceiver> {
  const channelDir = channelDirOf(opts.claudeDir);
  // The file channel's rule (src/core/engine/projectsConfinement.ts): a request naming any other file is refused.
  const confinement = new ProjectsConfinement(nodeFileAccess, opts.claudeDir);
  const landings = new LandingWatches();
  const server = http.createServer(
    // Node checks the header and request timeouts on this interval (30 s by default).
    { connectionsCheckingInterval: 250, headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    (req, res) => {
      served(req.socket);
      // The hook fired when its request arrived.
      const firedAt = opts.now();
      const answer = (status: number, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers });
        // An empty object: no decision, like a command hook's empty stdout.
        res.end(status === 200 ? '{}' : '');
      };
      const url = (req.url ?? '').split('?')[0];
      if (req.method === 'GET' && url === CHALLENGE_PATH) {
        // Another receiver asking whether this listener is ours (./receiverChallenge.ts): no secret needed to ask.
        const nonce = req.headers[CHALLENGE_HEADER];
        if (isChallengeNonce(nonce)) answer(200, { [ANSWER_HEADER]: challengeAnswer(opts.secret, nonce) });
        else answer(400);
        req.resume();
        return;
      }
      if (req.method !== 'POST' || (url !== HOOK_PATH && url !== MOD_PATH)) {
        answer(404);
        req.resume();
        return;
      }
      if (!sameSecret(req.headers[SECRET_HEADER], opts.secret)) {
        answer(403);
        req.resume();
        return;
      }
      const limit = url === MOD_PATH ? MAX_MOD_BODY_BYTES : MAX_BODY_BYTES;
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > limit) {
        answer(413);
        req.destroy();
        return;
      }
      const body = new PayloadCollector();
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          answer(413);
          req.destroy();
          return;
        }
        body.push(chunk);
      });
      req.on('end', () => {
        if (size > limit) return;
        if (url === MOD_PATH) {
          // The mod's event, already a channel line: appended as the spool's fold would append it.
          const event = modEventOf(body.bytes().whole);
          void (event ? confinement.confine(event.transcript_path) : Promise.resolve(undefined)).then((confined) => {
            answer(event && confined !== undefined && appendChannelLine(channelDir, event.session_id, event) ? 200 : 400);
          });
          return;
        }
        const input = parseHookInput(body.bytes());
        void (input ? confinement.confine(input.transcript_path ?? '') : Promise.resolve(undefined)).then((confined) => {
          // The mod reports this call (it listed it before the hooks ran): stand aside, as the command hook does.
          if (input && confined !== undefined && modReportsCall(input)) return answer(200);
          const reported =
            input && confined !== undefined
              ? reportCall(input, {
                  channelDir,
                  firedAt,
                  mode: 'announce',
                  transport: 'http',
                  timeoutMs: opts.timeoutMs,
                  now: opts.now,
                  // Started after the answer: Claude Code does not wait for it.
                  watchLanding: (job) => setImmediate(() => landings.start(job)),
                })
              : undefined;
          answer(reported?.written ? 200 : 400);
        });
      });
      req.on('error', () => undefined);
    },
  );
  // Open connections, to drop on close (server.close() waits for them, and stops enforcing the
  // timeouts meanwhile), and those still waiting for a request head, oldest first, each with the
  // timer that drops it (node's headersTimeout spares a connection that has sent nothing at all).
  const sockets = new Set<Socket>();
  const waiting = new Map<Socket, { since: number; timer: NodeJS.Timeout }>();
  const served = (socket: Socket) => {
    clearTimeout(waiting.get(socket)?.timer);
    waiting.delete(socket);
  };
  const drop = (socket: Socket) => {
    served(socket);
    sockets.delete(socket);
    socket.destroy();
  };
  server.on('connection', (socket: Socket) => {
    const now = performance.now();
    sockets.add(socket);
    waiting.set(socket, { since: now, timer: setTimeout(() => socket.destroy(), HEADERS_TIMEOUT_MS) });
    socket.once('close', () => {
      sockets.delete(socket);
      served(socket);
    });
    // Past MAX_WAITING_CONNECTIONS, the oldest that has had WAITING_GRACE_MS to send its head goes: one
    // accepted in the same burst as many others has not been read from yet, and a hook's head comes
    // with its connection.
    for (const [oldest, { since }] of waiting) {
      if (waiting.size <= MAX_WAITING_CONNECTIONS || now - since < WAITING_GRACE_MS) break;
      drop(oldest);
    }
    // Past MAX_CONNECTIONS, the oldest waiting one goes, young or not; with none waiting, this one.
    // (Not server.maxConnections: that drops the newest, so held connections would keep every hook out.)
    if (sockets.size > MAX_CONNECTIONS) drop(waiting.keys().next().value ?? socket);
  });
  const close = () =>
    new Promise<void>((done) => {
      landings.stop();
      server.close(() => done());
      for (const socket of sockets) socket.destroy();
      for (const { timer } of waiting.values()) clearTimeout(timer);
      waiting.clear();
    });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve({ port: typeof address === 'object' && address ? address.port : opts.port, close, landingWatches: () => landings.size });
    });
  });
}
