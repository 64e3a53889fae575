/**
 * `npm run demo` in the terminal: the engine follows the replayed sessions in the demo's Claude
 * dir, as `watch --all` does, and the screen shows what the Transcript Lag view would
 * (src/presentation/liveScreen.ts): per session its calls held now, their age ticking, and the
 * calls landed, with their lag and shape, and the probe's waits seen / behind. On a TTY the screen
 * redraws in place; anything else (a pipe, a CI log) gets plain lines, one each time a row changes.
 * scripts/demo.mjs replays the recordings and loads this from its bundle, dist/terminalDemo.js,
 * which takes the engine from the CLI's own engine bundle (scripts/build.mjs).
 */
import type { Clock } from '../rules/clock';
import { TranscriptLagEngine } from '../core/engine';
import { engineNoticeText } from '../core/engineNotices';
import type { FileAccess } from '../core/fileAccess';
import { chokidarChangeSource } from '../platform/chokidarChangeSource';
import { nodeFileAccess } from '../platform/nodeFileAccess';
import { systemClock } from '../platform/systemClock';
import { formatDuration } from '../presentation/format';
import { liveScreen, type LiveScreen } from '../presentation/liveScreen';
import { printable } from '../rules/printable';
import { ERROR_BACKGROUND, WARNING_BACKGROUND } from '../presentation/statusView';

export interface TerminalOut {
  write(text: string): void;
  /** Redraw in place with ANSI sequences; false: append plain lines. */
  isTTY: boolean;
  columns?: number;
  rows?: number;
}

export interface TerminalDemoOptions {
  claudeDir: string;
  out: TerminalOut;
  /** The screen's heading: what is being replayed. */
  title: string;
  /** The status bar's warning colour after this long a hold, as the extension's default. */
  warnAfterMs?: number;
  clock?: Clock;
  files?: FileAccess;
  /** The stat poll, the safety net under file events (ms). */
  pollMs?: number;
}

export interface TerminalDemo {
  /** One line of the demo's own narration: appended at once in plain mode, the latest few under the screen on a TTY. */
  note(text: string): void;
  /** Reads what is left, draws the final state, gives the terminal back and stops the engine. */
  stop(): Promise<void>;
}

const NOTES_SHOWN = 4;

const ansi = {
  bold: (s: string) => `\x1b[1m${s}\x1b[22m`,
  dim: (s: string) => `\x1b[2m${s}\x1b[22m`,
  red: (s: string) => `\x1b[31m${s}\x1b[39m`,
  green: (s: string) => `\x1b[32m${s}\x1b[39m`,
  yellow: (s: string) => `\x1b[33m${s}\x1b[39m`,
};

/** Cuts a line to `columns` characters (code points): with autowrap off, a longer line would be cut by the terminal anyway. */
function fit(line: string, columns: number): string {
  const chars = [...line];
  return chars.length <= columns ? line : `${chars.slice(0, Math.max(1, columns - 1)).join('')}…`;
}

/**
 * One frame of the TTY screen: heading, status bar, each session with its calls, the latest notes.
 * Lines are fitted to `columns` before colour is added, so no line wraps.
 */
export function ttyFrame(screen: LiveScreen, heading: string, notes: readonly string[], columns: number, rows: number): string[] {
  const lines: string[] = [];
  const add = (plain: string, colour: (s: string) => string = (s) => s) => lines.push(colour(fit(plain, columns)));
  add(heading, ansi.bold);
  const statusColour = screen.background === ERROR_BACKGROUND ? ansi.red : screen.background === WARNING_BACKGROUND ? ansi.yellow : (s: string) => s;
  add(`status bar: ${screen.status || 'no active session yet'}`, statusColour);
  for (const s of screen.sessions) {
    add('');
    add(`${s.glyph} ${s.name}`, ansi.bold);
    add(`    ${s.summary}`);
    for (const c of s.calls) {
      const colour = c.behind ? ansi.red : c.kind === 'held' ? ansi.yellow : ansi.green;
      add(`    ${c.glyph} ${c.kind.padEnd(6)} ${c.tool.padEnd(10)} ${c.description}${c.where ? `  (${c.where})` : ''}`, colour);
    }
  }
  if (notes.length > 0) add('');
  for (const n of notes.slice(-NOTES_SHOWN)) add(n, ansi.dim);
  // Cursor movement cannot reach above the top of the screen: keep the frame within it.
  const room = Math.max(3, rows - 1);
  if (lines.length > room) return [...lines.slice(0, room - 1), fit(`… ${lines.length - room + 1} more lines (a taller terminal shows them)`, columns)];
  return lines;
}

/**
 * The plain log of the screen: the lines of rows that appeared or changed since the last call,
 * each with its session's id as `watch` prints it. A held call is printed again as each whole
 * second of its hold passes, not on every frame.
 */
export class PlainScreenLog {
  private readonly printed = new Map<string, string>();

  lines(screen: LiveScreen): string[] {
    const out: string[] = [];
    const changed = (key: string, signature: string) => {
      if (this.printed.get(key) === signature) return false;
      this.printed.set(key, signature);
      return true;
    };
    for (const s of screen.sessions) {
      const id = s.session_id.slice(0, 8);
      const head = `${s.name}  ${s.summary}`;
      if (changed(`session/${s.session_id}`, head)) out.push(`${id}  session  ${head}`);
      for (const c of s.calls) {
        if (changed(c.key, c.signature)) out.push(`${id}  ${c.kind.padEnd(7)}  ${c.tool.padEnd(10)} ${c.description}${c.where ? ` · ${c.where}` : ''}`);
      }
    }
    return out;
  }
}

export async function startTerminalDemo(opts: TerminalDemoOptions): Promise<TerminalDemo> {
  const clock = opts.clock ?? systemClock;
  const out = opts.out;
  const warnAfterMs = opts.warnAfterMs ?? 2000;
  const startedAt = clock.now();
  const notes: string[] = [];
  const log = new PlainScreenLog();
  let drawnLines = 0;
  let stopped = false;
  let ticking: Promise<void> = Promise.resolve();

  const draw = () => {
    const now = clock.now();
    const screen = liveScreen(engine.sessions(), now, { warnAfterMs });
    if (!out.isTTY) {
      const lines = log.lines(screen);
      if (lines.length) out.write(`${lines.join('\n')}\n`);
      return;
    }
    const heading = `Transcript Lag demo · ${printable(opts.title)} · ${formatDuration(now - startedAt)}`;
    const frame = ttyFrame(screen, heading, notes, Math.max(20, out.columns ?? 80), Math.max(5, out.rows ?? 24));
    // Back to the frame's first line, clear to the end of the screen, draw again.
    out.write(`${drawnLines > 0 ? `\x1b[${drawnLines}F` : ''}\x1b[J${frame.join('\n')}\n`);
    drawnLines = frame.length;
  };
  let drawQueued = false;
  const queueDraw = () => {
    if (drawQueued || stopped) return;
    drawQueued = true;
    setImmediate(() => {
      drawQueued = false;
      if (!stopped) draw();
    });
  };
  const tick = () => {
    if (stopped) return;
    ticking = ticking.then(() => engine.tick()).catch((err: unknown) => note(`engine: ${err instanceof Error ? err.message : String(err)}`));
  };
  const note = (text: string) => {
    const line = printable(text);
    if (out.isTTY) {
      notes.push(line);
      if (notes.length > NOTES_SHOWN) notes.shift();
      queueDraw();
    } else out.write(`${line}\n`);
  };

  const engine = new TranscriptLagEngine({
    claudeDir: opts.claudeDir,
    workspaceFolders: [],
    // The demo's Claude dir is its own: every session in it is one of the replayed ones.
    scope: 'all',
    files: opts.files ?? nodeFileAccess,
    clock,
    changes: chokidarChangeSource({ onReady: tick }),
  });
  engine.onEvent(queueDraw);
  engine.onNotice((n) => note(engineNoticeText(n)));
  // Hide the cursor and turn autowrap off while the screen redraws in place (given back in stop()).
  if (out.isTTY) out.write('\x1b[?25l\x1b[?7l');
  await engine.start();
  const poll = setInterval(tick, opts.pollMs ?? 250);
  // On a TTY the ages tick; in a log, a hold is said again each whole second.
  const redraw = setInterval(queueDraw, out.isTTY ? 100 : 250);
  queueDraw();

  return {
    note,
    async stop() {
      if (stopped) return;
      // What the last writes appended is read before the final frame.
      tick();
      await ticking;
      stopped = true;
      clearInterval(poll);
      clearInterval(redraw);
      draw();
      if (out.isTTY) out.write('\x1b[?7h\x1b[?25h');
      await engine.dispose();
    },
  };
}
