/**
 * The looks at a held call's file: every TICK_MS (SOON_TICK_MS once its hooks have settled or it has run) the new bytes of
 * each held call's transcript are read through a LineCursor, and a call whose record is there is
 * reported `landed` and released, its lag kept for its tool row.
 */
import { HELD_MESSAGE_TTL_MS } from '../rules/modContract';
import { verdictFromHook, type HeldBounds } from '../rules/hookEvidence';
import { LineCursor } from '../rules/lineCursor';
import { readNewLines } from '../rules/newLines';
import { callsOfLine, HEAD_BYTES } from '../rules/recordLine';
import type { ModApi } from './api';
import { dropHeldMessage } from './heldMessage';
import { modEvent, report } from './channelOut';
import { now, type HeldCall, type ModState } from './state';

const MAX_LAGS = 200;
/** Redraw rate while a call is held (the issue asks ≥ 4 a second) and how often its file is looked at. */
const TICK_MS = 100;
/** How often once a held call's hooks have settled or it has run: its record (and result) may land any moment. */
const SOON_TICK_MS = 10;
/** At most this much of a transcript is read per look (`$.fs.read` takes 4 MiB at most); the rest at the next looks. */
const READ_LIMIT = 4 * 1024 * 1024;
const MAX_SEEN = 1000;
/** Files looked at (a session and its subagents'): the oldest is forgotten past this. */
const MAX_CURSORS = 64;
/** A file's first look starts this far back, so a record written before its call fired is still found. */
const FIRST_LOOK_BACK = 1024 * 1024;

/**
 * A file past this is not looked at on a build whose `$.fs.read` gives the whole file: every look
 * (up to 100 a second while a record is due) would copy all of it through Claude Code's process.
 * Its calls' landings are then left to the engine and the hooks' own looks.
 */
export const WHOLE_READ_MAX = 4 * 1024 * 1024;

/** Whether the build's `$.fs.read` honours offset and length, asked once a session of a file that can tell. */
async function rangedReads($: ModApi, s: ModState, file: string): Promise<boolean> {
  if (s.looks.rangedReads === undefined) {
    const first = bytesOf((await $.fs.read(file, { as: 'bytes', offset: 0, length: 1 })).base64).length;
    // An empty file tells nothing; one byte asked and more given: the whole file, whatever was asked.
    if (first === 0) return true;
    s.looks.rangedReads = first === 1;
  }
  return s.looks.rangedReads;
}

/**
 * Up to READ_LIMIT bytes of the file from `offset`; none past its end, or when it cannot be read (not
 * written yet). On a build that gives the whole file (before 2.1.326), the part from `offset` of it:
 * taken as from `offset`, the whole file would be read again at every look as if appended.
 */
async function readFrom($: ModApi, s: ModState, file: string, offset: number): Promise<Uint8Array> {
  try {
    if (s.looks.tooBig.has(file)) return new Uint8Array(0);
    const ranged = await rangedReads($, s, file);
    const bytes = bytesOf((await $.fs.read(file, { as: 'bytes', offset, length: READ_LIMIT })).base64);
    if (ranged) return bytes;
    if (bytes.length > WHOLE_READ_MAX) {
      // Read whole once to learn it: never again (a file does not shrink back under the bound in a session that matters).
      s.looks.tooBig.add(file);
      return new Uint8Array(0);
    }
    return bytes.subarray(offset, offset + READ_LIMIT);
  } catch {
    return new Uint8Array(0);
  }
}

/** The bytes `$.fs.read(…, { as: 'bytes' })` gives, from their base64. */
function bytesOf(base64: string): Uint8Array {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

function remember(seen: Map<string, number>, id: string, lookNo: number): void {
  if (seen.has(id)) return;
  seen.set(id, lookNo);
  if (seen.size > MAX_SEEN) seen.delete(seen.keys().next().value as string);
}

/** The call left the held set: its record is on disk (`held`: how long, as its looks bound it), or it is given up on. */
function release($: ModApi, s: ModState, call: HeldCall, held: HeldBounds | undefined): void {
  s.held.delete(call.id);
  dropHeldMessage($, call);
  if (held === undefined) return;
  s.lags.set(call.id, held);
  if (s.lags.size > MAX_LAGS) s.lags.delete(s.lags.keys().next().value as string);
}

/** Reads what each held call's file gained since the last look and releases the calls whose record is there. */
async function look($: ModApi, s: ModState): Promise<void> {
  const started = now();
  const byFile = new Map<string, HeldCall[]>();
  for (const call of s.held.values()) {
    if (started - call.at > HELD_MESSAGE_TTL_MS) release($, s, call, undefined);
    else byFile.set(call.recordPath, [...(byFile.get(call.recordPath) ?? []), call]);
  }
  for (const [file, calls] of byFile) {
    const cursor = s.looks.cursors.get(file);
    if (cursor === undefined) continue;
    // Read first, from where the cursor is, without a stat: Claude Code 2.1.332's `$.fs.stat` was seen
    // to give a size ~100 ms old where `$.fs.read` had the new bytes (field: a look found a record 44
    // ms after a 5 ms tailer by reading, 114 ms by its stat), and one `$` call a look is one turn of
    // Claude Code's event loop less. A read past the end is empty; only then is the size asked for,
    // to see a file truncated or replaced under the cursor (`$.fs.stat` gives no inode, so a larger
    // replacement goes unseen), a little late at worst.
    const lookNo = ++s.looks.count;
    await readNewLines(
      cursor,
      {
        read: (offset) => readFrom($, s, file, offset),
        stat: async () => {
          try {
            return { size: (await $.fs.stat(file)).size };
          } catch {
            return { size: cursor.offset }; // not written yet
          }
        },
      },
      // Each line read as it comes (a view of the chunk: used at once, not kept), by the rules' one reading.
      (line, cut) => {
        const { records, results } = callsOfLine(line, !cut);
        for (const id of records) remember(s.looks.recordsSeen, id, lookNo);
        for (const id of results) remember(s.looks.resultsSeen, id, lookNo);
      },
      { sizeFrom: 'read', readBytes: READ_LIMIT },
    );
    const seenAt = now();
    for (const call of calls) {
      const recordLook = s.looks.recordsSeen.get(call.id);
      if (recordLook === undefined) {
        call.missedAt = started;
        continue;
      }
      // The look that found the record found its result too: one write, as far as a reader can tell.
      const withResult = s.looks.resultsSeen.get(call.id) === recordLook;
      const p = call.place;
      report($, s, p, modEvent(p, 'landed', seenAt, call.agentId, {
        tool_use_id: call.id,
        tool_name: call.tool,
        with_result: withResult,
        watched_from: 'pre',
        fired_at: Math.round(call.at),
        ...(call.missedAt !== undefined ? { missed_at: Math.round(call.missedAt) } : {}),
        ...(call.recordPath !== p.transcriptPath ? { record_path: call.recordPath } : {}),
      }), call.listed);
      // The bound the views give this landing (src/rules/hookEvidence.ts), so the row and the views say one number.
      const landing = { at: seenAt, with_result: withResult, watched_from: 'pre' as const, fired_at: call.at, ...(call.missedAt !== undefined ? { missed_at: call.missedAt } : {}) };
      release($, s, call, verdictFromHook({ landed: landing }).held);
    }
  }
  if (s.held.size === 0) {
    s.looks.ticker?.cancel();
    s.looks.ticker = undefined;
  } else watchHeld($, s);
  $.ui.invalidate('ui.render');
}

/** Starts looking at the held calls' files, TICK_MS apart, until none is held. */
export function watchHeld($: ModApi, s: ModState): void {
  // Once a call's settings hooks have settled, the hold they kept ends (2.1.281+ holds a message's
  // records while they run), and once it has run its result may be written any moment: looks as
  // close as the hook's landing watcher's, so the spinner's "held" ends within ~10 ms of the write
  // (5–13 ms after a 5 ms tailer in the field suite), and "found with its result" means one write to within them
  // (src/rules/hookEvidence.ts). Before, 10 looks a second: the redraw rate the spinner needs.
  const every = [...s.held.values()].some((c) => c.ran === true || c.hooks !== undefined) ? SOON_TICK_MS : TICK_MS;
  if (s.looks.ticker !== undefined && s.looks.tickerMs === every) return;
  s.looks.ticker?.cancel();
  s.looks.tickerMs = every;
  s.looks.ticker = $.clock.every(every, () => {
    if (s.looks.looking) return;
    s.looks.looking = true;
    look($, s)
      .catch(() => undefined)
      .finally(() => (s.looks.looking = false));
  });
}

/** Where the looks at a file start: a little before its end now (a partial first line is no record). */
export async function cursorAt($: ModApi, s: ModState, file: string): Promise<void> {
  if (s.looks.cursors.has(file)) return;
  let size = 0;
  try {
    size = (await $.fs.stat(file)).size;
  } catch {
    // not there yet: everything it will hold is new
  }
  const from = Math.max(0, size - FIRST_LOOK_BACK);
  // A line longer than HEAD_BYTES is judged by its head (src/rules/recordLine.ts): only that much is kept.
  s.looks.cursors.set(file, new LineCursor({ from, maxLineBytes: HEAD_BYTES, readLimit: READ_LIMIT }));
  if (s.looks.cursors.size > MAX_CURSORS) s.looks.cursors.delete(s.looks.cursors.keys().next().value as string);
}
