/**
 * Seeded randomness, so a benchmark's writer schedule and generated transcript
 * are the same from run to run and strategies compared side by side see the
 * same input.
 */
export type Random = () => number;

/** mulberry32: tiny, fast, good enough for schedules and filler text. Returns [0, 1). */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomInt(rand: Random, min: number, maxInclusive: number): number {
  return min + Math.floor(rand() * (maxInclusive - min + 1));
}

const HEX = '0123456789abcdef';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function pick(rand: Random, alphabet: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
  return s;
}

export function randomUuid(rand: Random): string {
  return `${pick(rand, HEX, 8)}-${pick(rand, HEX, 4)}-4${pick(rand, HEX, 3)}-a${pick(rand, HEX, 3)}-${pick(rand, HEX, 12)}`;
}

/** Shaped like Claude Code's tool_use ids: `toolu_01` and 22 base62 characters. */
export function randomToolUseId(rand: Random): string {
  return `toolu_01${pick(rand, BASE62, 22)}`;
}

export function randomMessageId(rand: Random): string {
  return `msg_01${pick(rand, BASE62, 22)}`;
}
