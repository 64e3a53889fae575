import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';

/**
 * Whether the program listening on the http hooks' port is our receiver with
 * this install's secret. Claude Code sends every tool call, and the secret in
 * its header, to whatever listens there: a port found taken is not "served by
 * another window" until the listener proves it. The proof: the HMAC of a fresh
 * nonce under the secret, which only a holder of the secret can give. The
 * question carries no secret, and the answer reveals none.
 */
export const CHALLENGE_PATH = '/challenge';
export const CHALLENGE_HEADER = 'x-transcript-lag-challenge';
export const ANSWER_HEADER = 'x-transcript-lag-answer';
/** How long a listener has to answer: it is on loopback, and ours answers at once. */
export const CHALLENGE_TIMEOUT_MS = 1000;

const NONCE = /^[0-9a-f]{32,128}$/;
const ANSWER = /^[0-9a-f]{64}$/;

export function isChallengeNonce(nonce: unknown): nonce is string {
  return typeof nonce === 'string' && NONCE.test(nonce);
}

/** What our receiver answers: bound to this purpose, so it is no HMAC of anything else. */
export function challengeAnswer(secret: string, nonce: string): string {
  return createHmac('sha256', secret).update(`transcript-lag receiver challenge\0${nonce}`).digest('hex');
}

/**
 * `ours`: the listener holds this secret (our receiver, in another window or `watch`);
 * `other-install`: it answers as our receiver does, with another secret (another Claude
 * dir's install on the same port); `foreign`: anything else, silence included.
 */
export type ListenerProof = 'ours' | 'other-install' | 'foreign';

export function proveListener(host: string, port: number, secret: string, timeoutMs = CHALLENGE_TIMEOUT_MS): Promise<ListenerProof> {
  const nonce = randomBytes(32).toString('hex');
  return new Promise((resolve) => {
    let settled = false;
    const done = (proof: ListenerProof) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(proof);
    };
    const req = http.request({ host, port, path: CHALLENGE_PATH, method: 'GET', headers: { [CHALLENGE_HEADER]: nonce, connection: 'close' }, agent: false }, (res) => {
      res.resume();
      const given = res.headers[ANSWER_HEADER];
      if (res.statusCode !== 200 || typeof given !== 'string' || !ANSWER.test(given)) return done('foreign');
      const expected = Buffer.from(challengeAnswer(secret, nonce), 'utf8');
      done(timingSafeEqual(Buffer.from(given, 'utf8'), expected) ? 'ours' : 'other-install');
    });
    const timer = setTimeout(() => done('foreign'), timeoutMs);
    req.on('error', () => done('foreign'));
    req.end();
  });
}
