import type { ChannelTransport } from './channelConstants';

/** One report of when a call fired: a `pre` event's `at` and how it reached us. */
export interface FireReport {
  at: number;
  transport: ChannelTransport;
}

/**
 * Whether `next` is a better fire time for a call than `known`, so that the
 * choice does not depend on the order reports arrive in. The mod's report
 * wins whatever its time: its `at` is when `tool.call` fired, where a command
 * hook's is when its process started and an http hook's when its request was
 * made, both later and with the start-up in them. Among reports of one kind
 * the earliest wins (a duplicated line changes nothing); equal times fall to
 * the transport's name, only so the result is the same in every order.
 */
export function isBetterFire(known: FireReport | undefined, next: FireReport): boolean {
  if (!known) return true;
  const knownMod = known.transport === 'mod';
  if ((next.transport === 'mod') !== knownMod) return !knownMod;
  if (next.at !== known.at) return next.at < known.at;
  return next.transport < known.transport;
}
