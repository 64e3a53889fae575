// Records, every few ms, each complete line appended to the .jsonl files under some folders, with the
// time it was first seen on disk (`t`, the poll's start) and the bounds that sighting proves: the line
// was not complete at `after` (the last stat that found the file short of it) and was on disk at `readAt`.
// A starved poll widens the bounds; it never moves them past the truth. This is the field test's ground truth for "when did the record
// land" (independent of the project's own tail), and the raw material of the demo recordings.
import fs from 'node:fs';
import path from 'node:path';

export function startRecorder({ roots, pollMs = 10, now = () => Date.now() }) {
  /** path -> { offset, partial, lineNo } */
  const files = new Map();
  const lines = [];
  /** The mod's spool files seen, by name: which event each held (read once; a folder may take it away first). */
  const spooled = new Map();
  const spooledEvent = (p) => {
    try {
      return JSON.parse(fs.readFileSync(p, 'utf8')).event;
    } catch {
      return 'unreadable';
    }
  };
  /** The mod's liveness files (`mod/<session>.live.json`), by path: each distinct text seen, with when. */
  const liveness = new Map();
  const live = [];
  let timer;
  let stopped = false;
  let lastPollAt;

  function listJsonl(dir, out) {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) listJsonl(p, out);
      else if (e.isFile() && e.name.endsWith('.jsonl')) out.push(p);
      else if (e.isFile() && e.name.endsWith('.json') && path.basename(dir) === 'spool' && !spooled.has(e.name)) spooled.set(e.name, spooledEvent(p));
      else if (e.isFile() && e.name.endsWith('.live.json') && path.basename(dir) === 'mod') live.push(p);
    }
  }

  function pollOnce() {
    const t = now();
    const found = [];
    live.length = 0;
    for (const r of roots) listJsonl(r, found);
    for (const p of live) {
      let text;
      try {
        text = fs.readFileSync(p, 'utf8');
      } catch {
        continue;
      }
      const seen = liveness.get(p) ?? [];
      if (seen.at(-1)?.text !== text) seen.push({ t, text });
      liveness.set(p, seen);
    }
    for (const p of found) {
      let st = files.get(p);
      if (!st) {
        // Not listed at the last poll: absent then, as far as this tailer knows.
        st = { offset: 0, partial: '', lineNo: 0, shortAt: lastPollAt };
        files.set(p, st);
      }
      const statAt = now();
      let size;
      try {
        size = fs.statSync(p).size;
      } catch {
        continue;
      }
      if (size <= st.offset) {
        st.shortAt = statAt;
        continue;
      }
      const fd = fs.openSync(p, 'r');
      try {
        const buf = Buffer.alloc(size - st.offset);
        const n = fs.readSync(fd, buf, 0, buf.length, st.offset);
        st.offset += n;
        const text = st.partial + buf.subarray(0, n).toString('utf8');
        const parts = text.split('\n');
        st.partial = parts.pop() ?? '';
        const readAt = now();
        for (const line of parts) lines.push({ t, after: st.shortAt, readAt, file: p, line: ++st.lineNo, text: line });
        // What is left unfinished was unfinished at this stat too.
        st.shortAt = statAt;
      } finally {
        fs.closeSync(fd);
      }
    }
    lastPollAt = t;
  }

  const loop = () => {
    if (stopped) return;
    pollOnce();
    timer = setTimeout(loop, pollMs);
  };
  loop();

  return {
    lines,
    spooled,
    liveness,
    /** Final poll, then stop. */
    stop() {
      stopped = true;
      clearTimeout(timer);
      pollOnce();
      return lines;
    },
  };
}
