// Built from src/mod/ by scripts/plugin-hook.mjs: edit the source, not this file.

// src/rules/channelConstants.ts
var CHANNEL_SCHEMA_VERSION = 1;
var CHANNEL_DIR_NAME = "transcript-lag";
var MOD_SOURCE = "transcript-lag-mod";
var HTTP_CONFIG_FILE = "http.json";
var SPOOL_DIR_NAME = "spool";
var SAFE_SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

// src/rules/modContract.ts
var HELD_DIR_NAME = "held";
var MOD_CALLS_DIR_NAME = "mod";
var MOD_CALLS_LISTED = 64;
var HELD_MESSAGE_VERSION = 1;
var HELD_MESSAGE_TTL_MS = 10 * 6e4;
var SAFE_TOOL_USE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,199}$/;
function separatorOf(path) {
  return path.lastIndexOf("\\") > path.lastIndexOf("/") ? "\\" : "/";
}
function parentOf(path) {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut <= 0 ? void 0 : path.slice(0, cut);
}
function recordFileOf(transcriptPath, sessionId, agentId) {
  if (agentId === void 0) return transcriptPath;
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(agentId) || !SAFE_SESSION_ID.test(sessionId)) return void 0;
  const dir = parentOf(transcriptPath);
  if (dir === void 0) return void 0;
  const sep = separatorOf(transcriptPath);
  return [dir, sessionId, "subagents", `agent-${agentId}.jsonl`].join(sep);
}
function claudeDirOfTranscript(transcriptPath) {
  const slug = parentOf(transcriptPath);
  const projects = slug && parentOf(slug);
  const name = projects?.slice(Math.max(projects.lastIndexOf("/"), projects.lastIndexOf("\\")) + 1);
  return name === "projects" ? parentOf(projects) : void 0;
}
function sessionIdOfTranscript(transcriptPath) {
  const name = transcriptPath.slice(Math.max(transcriptPath.lastIndexOf("/"), transcriptPath.lastIndexOf("\\")) + 1);
  const id = name.endsWith(".jsonl") ? name.slice(0, -".jsonl".length) : "";
  return SAFE_SESSION_ID.test(id) ? id : void 0;
}
function channelPath(claudeDir, ...parts) {
  const sep = separatorOf(claudeDir);
  return [claudeDir, CHANNEL_DIR_NAME, ...parts].join(sep);
}
function heldDirOf(claudeDir, sessionId) {
  return SAFE_SESSION_ID.test(sessionId) ? channelPath(claudeDir, HELD_DIR_NAME, sessionId) : void 0;
}
function heldMessagePath(claudeDir, sessionId, toolUseId) {
  const dir = heldDirOf(claudeDir, sessionId);
  return dir && SAFE_TOOL_USE_ID.test(toolUseId) ? `${dir}${separatorOf(claudeDir)}${toolUseId}.json` : void 0;
}
function modCallsPath(claudeDir, sessionId) {
  return SAFE_SESSION_ID.test(sessionId) ? channelPath(claudeDir, MOD_CALLS_DIR_NAME, `${sessionId}.json`) : void 0;
}
var MOD_LIVE_EVERY_MS = 5e3;
var MOD_LIVE_FRESH_MS = 3 * MOD_LIVE_EVERY_MS;
function modLivePath(claudeDir, sessionId) {
  return SAFE_SESSION_ID.test(sessionId) ? channelPath(claudeDir, MOD_CALLS_DIR_NAME, modLiveFileName(sessionId)) : void 0;
}
function modLiveFileName(sessionId) {
  return `${sessionId}.live.json`;
}
function spoolFileName(sessionId, instance, seq) {
  return `${sessionId}.${instance}.${String(seq).padStart(8, "0")}.json`;
}
function spoolDirPath(claudeDir) {
  return channelPath(claudeDir, SPOOL_DIR_NAME);
}
function spoolFilePath(claudeDir, sessionId, instance, seq) {
  return channelPath(claudeDir, SPOOL_DIR_NAME, spoolFileName(sessionId, instance, seq));
}
function heldMessageOf(rows, toolUseId) {
  const at = rows.findIndex((r) => r.role === "assistant" && r.toolUses.some((t) => t.tool_use_id === toolUseId));
  if (at === -1) return void 0;
  let first = at;
  while (first > 0 && rows[first - 1].role === "assistant") first--;
  let last = at;
  while (last + 1 < rows.length && rows[last + 1].role === "assistant") last++;
  const run = rows.slice(first, last + 1);
  const use = rows[at].toolUses.find((t) => t.tool_use_id === toolUseId);
  return {
    text_blocks: run.filter((r) => r.text !== "").map((r) => r.text),
    tool_use: { id: use.tool_use_id, name: use.tool, input: use.input ?? {} },
    blocks: blocksUpTo(rows, first, at, toolUseId),
    complete: first > 0
  };
}
var uuidOf = (row) => typeof row?.uuid === "string" && row.uuid !== "" ? row.uuid : void 0;
function blocksUpTo(rows, first, at, toolUseId) {
  const out = [];
  for (let i = first; i <= at; i++) {
    const row = rows[i];
    const uses = i === at ? row.toolUses.slice(0, row.toolUses.findIndex((t) => t.tool_use_id === toolUseId) + 1) : row.toolUses;
    const one = (row.text !== "" ? 1 : 0) + row.toolUses.length === 1;
    const uuid = one ? uuidOf(row) : void 0;
    const parent = one && i > first ? uuidOf(rows[i - 1]) : void 0;
    const ids = { ...uuid !== void 0 ? { uuid } : {}, ...parent !== void 0 ? { parent_uuid: parent } : {} };
    if (row.text !== "") out.push({ type: "text", text: row.text, ...ids });
    for (const t of uses) out.push({ type: "tool_use", id: t.tool_use_id, name: t.tool, input: t.input ?? {}, ...ids });
  }
  return out;
}

// src/mod/callList.ts
async function listCall($, s, call) {
  const file = modCallsPath(call.place.claudeDir, call.place.sessionId);
  if (file === void 0) return;
  if (s.listed?.sessionId !== call.place.sessionId) s.listed = { sessionId: call.place.sessionId, calls: [] };
  s.listed.calls = [...s.listed.calls, call.id].slice(-MOD_CALLS_LISTED);
  const list = s.listed;
  s.listWrites = s.listWrites.then(() => $.fs.write(file, JSON.stringify({ v: 1, calls: list.calls }))).catch(() => void 0);
  await s.listWrites;
}

// src/rules/cmdArgument.ts
function cmdTakesAsIs(p) {
  return /^[\p{L}\p{M}\p{N} \\:._\-'~#$+[\]{}]*$/u.test(p) && !p.includes("\xFF");
}

// src/mod/heldMessage.ts
var ROWS = 64;
async function privateFolder($, p) {
  const dir = heldDirOf(p.claudeDir, p.sessionId);
  if (dir === void 0) return false;
  if (dir.includes("\\")) return true;
  const lock = ["chmod", "700", channelPath(p.claudeDir), channelPath(p.claudeDir, HELD_DIR_NAME), dir];
  try {
    if ((await $.process.run(lock, { timeoutMs: 2e3 })).exitCode === 0) return true;
    const made = await $.process.run(["mkdir", "-p", "-m", "700", dir], { timeoutMs: 2e3 });
    if (made.exitCode !== 0) return false;
    return (await $.process.run(lock, { timeoutMs: 2e3 })).exitCode === 0;
  } catch {
    return false;
  }
}
async function storeHeldMessage($, s, call) {
  if (!s.keepHeldMessages) return;
  const file = heldMessagePath(call.place.claudeDir, call.place.sessionId, call.id);
  if (file === void 0) return;
  const privately = privateFolder($, call.place);
  let found;
  for (let last = ROWS; last <= 4096; last *= 4) {
    const { rows, all } = await newestRows($, s, call.agentId, last);
    if (!Array.isArray(rows)) return;
    found = heldMessageOf(rows, call.id);
    if (all || found === void 0 || found.complete || rows.length < last) break;
  }
  if (found === void 0 || !await privately) return;
  const version = await claudeCodeVersionOf($, s);
  const message = {
    v: HELD_MESSAGE_VERSION,
    tool_use_id: call.id,
    session_id: call.place.sessionId,
    ...call.agentId !== void 0 ? { agent_id: call.agentId } : {},
    at: call.at,
    text_blocks: found.text_blocks,
    tool_use: found.tool_use,
    blocks: found.blocks,
    ...version !== void 0 ? { version } : {}
  };
  await $.fs.write(file, JSON.stringify(message));
  call.heldFile = file;
  call.heldKept = true;
  if (!s.held.has(call.id)) dropHeldMessage($, call);
}
async function newestRows($, s, agentId, last) {
  if (s.messagesTakeLast !== false) {
    try {
      const rows = await $.session.messages(agentId !== void 0 ? { agentId, last } : { last });
      s.messagesTakeLast = true;
      return { rows, all: false };
    } catch (err) {
      if (s.messagesTakeLast === true || !/\blast\b/.test(String(err?.message ?? err))) throw err;
      s.messagesTakeLast = false;
    }
  }
  return { rows: await (agentId !== void 0 ? $.session.messages({ agentId }) : $.session.messages()), all: true };
}
var VERSION_WAIT_MS = 100;
function claudeCodeVersionOf($, s) {
  s.claudeCodeVersion ??= new Promise((resolve) => {
    let timer;
    const done = (v) => {
      timer?.cancel();
      resolve(v);
    };
    try {
      timer = $.clock.after(VERSION_WAIT_MS, () => done(void 0));
      $.session.version().then(
        (r) => {
          const v = r?.version;
          done(typeof v === "string" && /^[0-9A-Za-z.+-]{1,64}$/.test(v) ? v : void 0);
        },
        () => done(void 0)
      );
    } catch {
      done(void 0);
    }
  });
  return s.claudeCodeVersion;
}
function dropHeldMessageNow($, call) {
  const file = call.heldFile;
  if (file === void 0) return Promise.resolve();
  call.heldFile = void 0;
  return removeOrEmpty($, file);
}
function dropHeldMessage($, call) {
  void dropHeldMessageNow($, call);
}
function removeOrEmpty($, file) {
  const windows = file.includes("\\");
  const remove = !windows ? ["rm", "-f", file] : cmdTakesAsIs(file) ? ["cmd.exe", "/d", "/c", "del", "/f", "/q", file] : void 0;
  const removed = remove === void 0 ? Promise.resolve() : $.process.run(remove, { timeoutMs: 1e3 }).then(() => void 0, () => void 0);
  return removed.then(() => $.fs.exists(file)).then((left) => left ? $.fs.write(file, "") : void 0).catch(() => $.fs.write(file, "").catch(() => void 0));
}

// src/mod/state.ts
var MAX_CALLS = 500;
function newState(options) {
  return {
    keepHeldMessages: asBool(options?.keepHeldMessages, true),
    instance: crypto.randomUUID().replace(/-/g, "").slice(0, 8),
    held: /* @__PURE__ */ new Map(),
    calling: /* @__PURE__ */ new Map(),
    lags: /* @__PURE__ */ new Map(),
    looks: { cursors: /* @__PURE__ */ new Map(), recordsSeen: /* @__PURE__ */ new Map(), resultsSeen: /* @__PURE__ */ new Map(), count: 0, tickerMs: 0, looking: false, tooBig: /* @__PURE__ */ new Set() },
    spool: { spooled: 0, unfolded: 0, recounting: false, recountedAt: -Infinity },
    listWrites: Promise.resolve(),
    aliveWrites: Promise.resolve()
  };
}
function asBool(value, fallback) {
  if (typeof value === "boolean") return value;
  if (value === "false") return false;
  if (value === "true") return true;
  return fallback;
}
function placeOf(transcriptPath) {
  if (!transcriptPath) return void 0;
  const sessionId = sessionIdOfTranscript(transcriptPath);
  const claudeDir = claudeDirOfTranscript(transcriptPath);
  return sessionId && claudeDir ? { transcriptPath, sessionId, claudeDir } : void 0;
}
var now = () => Date.now();

// src/mod/liveness.ts
function writeAlive($, s, p) {
  const file = modLivePath(p.claudeDir, p.sessionId);
  if (file === void 0) return s.aliveWrites;
  const alive = { v: 1, session_id: p.sessionId, at: Math.round(now()), every_ms: MOD_LIVE_EVERY_MS, keep_held_messages: s.keepHeldMessages };
  s.aliveWrites = s.aliveWrites.then(() => $.fs.write(file, JSON.stringify(alive))).catch(() => void 0);
  return s.aliveWrites;
}
function removeAlive($, s, p) {
  const file = modLivePath(p.claudeDir, p.sessionId);
  if (file === void 0) return Promise.resolve();
  s.aliveWrites = s.aliveWrites.then(() => removeOrEmpty($, file));
  return s.aliveWrites;
}
function keepAlive($, s) {
  s.alive?.cancel();
  s.alive = $.clock.every(MOD_LIVE_EVERY_MS, () => {
    if (s.place !== void 0) void writeAlive($, s, s.place);
  });
}

// src/rules/hookEvidence.ts
var ONE_WRITE_WINDOW_MS = 20;
function landingShape(landed, since) {
  if (!landed.with_result) return "before_result";
  return since !== void 0 && landed.at - since <= ONE_WRITE_WINDOW_MS ? "with_result" : void 0;
}
function hooksFields(hooks) {
  if (hooks === void 0) return {};
  return hooks.decision !== void 0 ? { hooks_ms: hooks.ms, hooks_decision: hooks.decision } : { hooks_ms: hooks.ms };
}
function foundBy(look2) {
  return look2?.record_on_disk === true ? look2.checked_at : void 0;
}
function earlierFind(known, next) {
  return next === void 0 || known !== void 0 && known <= next ? known : next;
}
function recordFoundAt(seen) {
  return earlierFind(earlierFind(earlierFind(seen.foundAt, foundBy(seen.pre)), foundBy(seen.post)), seen.landed?.at);
}
function verdictFromHook(seen, firedAt) {
  const { pre, post, landed } = seen;
  const verdict = {};
  const fromPre = landed?.watched_from === "pre";
  let shape;
  if (fromPre) shape = landingShape(landed, landed.missed_at ?? landed.fired_at);
  else {
    const preSaw = pre?.record_on_disk === true || seen.waitFoundAt !== void 0;
    const postSaw = post?.record_on_disk;
    const postMissed = postSaw === false && post?.result_on_disk === false;
    if (preSaw) shape = "before_result";
    else if (postSaw === true && post?.result_on_disk === false) shape = "before_result";
    else if (postMissed && landed !== void 0) shape = landed.with_result ? "with_result" : "before_result";
  }
  if (shape !== void 0) verdict.shape = shape;
  const fire = firedAt ?? (fromPre ? landed.fired_at : void 0) ?? pre?.at;
  if (fire === void 0) return verdict;
  const found = recordFoundAt(seen);
  let missed;
  const looks = [pre?.record_on_disk === false ? pre.checked_at : void 0, post?.record_on_disk === false ? post.checked_at : void 0, seen.waitMissedAt];
  for (const at of looks) {
    if (at === void 0 || found !== void 0 && at >= found) continue;
    missed = Math.max(missed ?? at, at);
  }
  if (found === void 0 && missed === void 0) return verdict;
  const min = missed === void 0 ? 0 : Math.max(0, missed - fire);
  verdict.held = { min_ms: min, max_ms: found === void 0 ? null : Math.max(min, found - fire) };
  return verdict;
}

// src/rules/lineCursor.ts
var NEWLINE = 10;
function bomLength(chunk) {
  return chunk.length >= 3 && chunk[0] === 239 && chunk[1] === 187 && chunk[2] === 191 ? 3 : 0;
}
var LineCursor = class {
  at;
  /** Bytes of the line in progress taken so far (its start is at - partial). */
  partial = 0;
  /** The line in progress began before the first byte read (a start mid-file, a jump): dropped up to its newline. */
  skipping;
  /** The size the last look saw (-1 before the first). */
  seenSize = -1;
  identity;
  /** Where this look's reads end. */
  stop;
  readLimit;
  skipOverLimit;
  maxLineBytes;
  /** `takeLines` only, made at its first call: a process following thousands of files through `take` holds none. */
  heads;
  constructor(opts = {}) {
    const from = opts.from ?? 0;
    if (!(Number.isSafeInteger(from) && from >= 0)) throw new RangeError(`from must be a byte offset, got ${from}`);
    const readLimit = opts.readLimit ?? Infinity;
    if (!(readLimit >= 1)) throw new RangeError(`readLimit must be at least 1, got ${readLimit}`);
    this.at = from;
    this.stop = from;
    this.skipping = !(opts.lineStart ?? from === 0);
    this.readLimit = readLimit;
    this.skipOverLimit = opts.overLimit === "skip";
    this.maxLineBytes = opts.maxLineBytes ?? 1024 * 1024;
  }
  /** Bytes taken: complete lines and the line in progress. */
  get offset() {
    return this.at;
  }
  /** Bytes of the line in progress taken so far (0 at a line's start). */
  get partialBytes() {
    return this.skipping ? 0 : this.partial;
  }
  /**
   * A look begins: the file's size now and, where the caller has one, its identity (compared as
   * given; `dev:ino`). Another identity, or a size below the offset, starts over at byte 0.
   */
  look(size, identity) {
    let restarted;
    if (identity !== void 0 && this.identity !== void 0 && identity !== this.identity) restarted = "replaced";
    else if (size < this.at) restarted = "truncated";
    if (restarted !== void 0) this.reset();
    if (identity !== void 0) this.identity = identity;
    this.seenSize = size;
    const skipped = this.plan();
    return restarted !== void 0 ? { restarted, skipped } : { skipped };
  }
  /** Where this look's reading ends: the size it saw, at most the read limit past the offset, not past `upTo` (unless already there). */
  readEnd(upTo = Infinity) {
    return Math.max(this.at, Math.min(this.stop, upTo));
  }
  /** The next read of this look, at most `maxBytes` (its buffer); undefined once the look has read all it may. */
  nextRead(maxBytes) {
    const length = Math.min(maxBytes, this.stop - this.at);
    return length > 0 ? { offset: this.at, length } : void 0;
  }
  /**
   * The bytes read at `offset` (what `nextRead` asked for, or fewer): complete lines to `sink`, the
   * rest as the line in progress. An empty chunk (the file ended early) ends the look.
   */
  take(chunk, sink) {
    const n = chunk.length;
    if (n === 0) {
      this.stop = this.at;
      return;
    }
    const base = this.at;
    let pos = base === 0 ? bomLength(chunk) : 0;
    const many = sink.lines !== void 0;
    while (pos < n) {
      if (many && this.partial === 0 && !this.skipping) {
        const next = sink.lines(chunk, pos, base);
        if (next > pos) {
          pos = next;
          continue;
        }
      }
      const newline = chunk.indexOf(NEWLINE, pos);
      if (newline === -1) {
        if (!this.skipping) sink.part(chunk, pos, n);
        this.partial += n - pos;
        break;
      }
      if (this.skipping) this.skipping = false;
      else {
        const end = base + newline + 1;
        sink.line(chunk, pos, newline, end - 1 - (newline - pos) - this.partial, end);
      }
      this.partial = 0;
      pos = newline + 1;
    }
    this.at = base + n;
  }
  /** As `take`, each complete line handed whole (or its first `maxLineBytes`, `cut`); the line in progress is carried, up to that bound. */
  takeLines(chunk, onLine) {
    const heads = this.heads ??= new LineHeads(this.maxLineBytes);
    heads.onLine = onLine;
    this.take(chunk, heads);
  }
  /**
   * Back to byte 0, a line's start: the caller knows the file changed under the offset (rewritten in
   * place, deleted, re-created). A look under way goes on from there, within the size it saw.
   */
  restart() {
    this.reset();
    if (this.seenSize >= 0) this.plan();
  }
  reset() {
    this.at = 0;
    this.stop = 0;
    this.partial = 0;
    this.skipping = false;
    this.identity = void 0;
    this.heads?.drop();
  }
  /** Where this look's reads end, after a jump when the read limit says skip; returns the bytes jumped over. */
  plan() {
    const size = this.seenSize;
    let skipped = 0;
    if (this.skipOverLimit && size - this.at > this.readLimit) {
      skipped = size - this.readLimit - this.at;
      this.at = size - this.readLimit;
      this.partial = 0;
      this.skipping = true;
      this.heads?.drop();
    }
    this.stop = Math.max(this.at, Math.min(size, this.at + this.readLimit));
    return skipped;
  }
};
var LineHeads = class {
  constructor(max) {
    this.max = max;
  }
  onLine = () => void 0;
  pieces = [];
  held = 0;
  cut = false;
  part(chunk, from, to) {
    this.keep(chunk, from, to);
  }
  line(chunk, from, to, start, end) {
    if (this.pieces.length === 0 && !this.cut) {
      const cut2 = to - from > this.max;
      this.onLine(chunk.subarray(from, cut2 ? from + this.max : to), cut2, start, end);
      return;
    }
    this.keep(chunk, from, to);
    const bytes = this.pieces.length === 1 ? this.pieces[0] : new Uint8Array(this.held);
    if (this.pieces.length > 1) {
      let at = 0;
      for (const p of this.pieces) {
        bytes.set(p, at);
        at += p.length;
      }
    }
    const cut = this.cut;
    this.drop();
    this.onLine(bytes, cut, start, end);
  }
  drop() {
    this.pieces = [];
    this.held = 0;
    this.cut = false;
  }
  keep(chunk, from, to) {
    const room = this.max - this.held;
    if (to - from > room) this.cut = true;
    const n = Math.min(room, to - from);
    if (n <= 0) return;
    const copy = new Uint8Array(n);
    copy.set(chunk.subarray(from, from + n));
    this.pieces.push(copy);
    this.held += n;
  }
};

// src/rules/newLines.ts
async function readNewLines(cursor, source, sink, opts) {
  const take = typeof sink === "function" ? (chunk) => cursor.takeLines(chunk, sink) : (chunk) => cursor.take(chunk, sink);
  if (opts.sizeFrom === "read") {
    if (!("read" in source)) throw new TypeError("sizeFrom 'read' takes a source that reads a chunk at a time");
    return readFirst(cursor, source, take, opts.readBytes);
  }
  const { size, identity } = await source.stat();
  const looked = cursor.look(size, identity);
  if (opts.onLook !== void 0 && await opts.onLook(looked) === false) return { ...looked, size, done: false };
  const end = cursor.readEnd(opts.upTo);
  let failure;
  if ("readSpan" in source) {
    if (cursor.offset < end) {
      failure = await source.readSpan(cursor.offset, end, (chunk) => {
        take(chunk);
        return opts.stop?.() !== true;
      });
    }
  } else {
    for (let r = cursor.nextRead(Math.min(opts.readBytes, end - cursor.offset)); r !== void 0 && opts.stop?.() !== true; r = cursor.nextRead(Math.min(opts.readBytes, end - cursor.offset))) {
      take(await source.read(r.offset, r.length));
    }
  }
  const out = { ...looked, size, done: cursor.readEnd(opts.upTo) <= cursor.offset };
  if (failure !== void 0) out.failure = failure;
  return out;
}
async function readFirst(cursor, source, take, readBytes) {
  let bytes = await source.read(cursor.offset, readBytes);
  let looked = { skipped: 0 };
  if (bytes.length === 0) {
    const { size, identity } = await source.stat();
    looked = cursor.look(size, identity);
    if (looked.restarted === void 0) return { ...looked, size, done: true };
    bytes = await source.read(cursor.offset, readBytes);
  }
  if (bytes.length > 0) {
    cursor.look(cursor.offset + bytes.length);
    take(bytes);
  }
  return { ...looked, size: cursor.offset, done: true };
}

// src/rules/recordLine.ts
var HEAD_BYTES = 1024 * 1024;
var CALL_ID_CAP = 512;
var MAX_CALLS_A_LINE = 1e3;
function ownerOf(f) {
  return f.type ?? f.role;
}
function callsOfLine(line, complete = true) {
  const f = lineFactsOf(line, complete);
  return counts(f, line.length, complete) ? callsOfFacts(f) : { records: [], results: [] };
}
function callsOfFacts(f) {
  const out = { records: [], results: [] };
  const owner = ownerOf(f);
  for (const b of f.blocks) {
    if (owner === "assistant" && b.type === "tool_use" && b.id && out.records.length < MAX_CALLS_A_LINE) out.records.push(b.id);
    if (owner === "user" && b.type === "tool_result" && b.tool_use_id && out.results.length < MAX_CALLS_A_LINE) out.results.push(b.tool_use_id);
  }
  return out;
}
function counts(f, length, complete) {
  if (f.broken) return false;
  return !complete || length > HEAD_BYTES || f.whole;
}
function lineFactsOf(line, complete = true) {
  const s = new LineHeadScanner();
  s.feed(line);
  return s.end(complete);
}
var QUOTE = 34;
var BACKSLASH = 92;
var MAX_KEPT_BYTES = 6 * CALL_ID_CAP;
var LONG = "";
var decoder = new TextDecoder();
function isSpace(c) {
  return c === 32 || c === 10 || c === 13 || c === 9;
}
function isHex(c) {
  return c >= 48 && c <= 57 || (c | 32) >= 97 && (c | 32) <= 102;
}
function isEscaped(c) {
  return c === QUOTE || c === BACKSLASH || c === 47 || c === 98 || c === 102 || c === 110 || c === 114 || c === 116;
}
var N_MINUS = 0;
var N_ZERO = 1;
var N_INT = 2;
var N_DOT = 3;
var N_FRAC = 4;
var N_E = 5;
var N_ESIGN = 6;
var N_EXP = 7;
var N_ENDS = [false, true, true, false, true, false, false, true];
function numberNext(state, c) {
  const digit = c >= 48 && c <= 57;
  switch (state) {
    case N_MINUS:
      return c === 48 ? N_ZERO : digit ? N_INT : -1;
    case N_ZERO:
    case N_INT:
      if (digit) return state === N_INT ? N_INT : -1;
      return c === 46 ? N_DOT : (c | 32) === 101 ? N_E : -1;
    case N_DOT:
      return digit ? N_FRAC : -1;
    case N_FRAC:
      return digit ? N_FRAC : (c | 32) === 101 ? N_E : -1;
    case N_E:
      return digit ? N_EXP : c === 43 || c === 45 ? N_ESIGN : -1;
    default:
      return digit ? N_EXP : -1;
  }
}
var WORDS = { 116: "true", 102: "false", 110: "null" };
var LineHeadScanner = class {
  facts = { blocks: [], whole: false, broken: false };
  stack = [];
  expect = 0 /* Value */;
  fed = 0;
  // Inside a string: what it is for, the escape being read (0 none, 1 after `\`, 2–5 the hex digits of `\u`), what was kept of it.
  str;
  escape = 0;
  kept = [];
  keptOver = false;
  keptEscapes = false;
  // Inside a literal: a word (its letters, how many read) or a number (its state).
  word;
  wordAt = 0;
  number = -1;
  /** Bytes read so far (at most HEAD_BYTES). */
  get bytesRead() {
    return this.fed;
  }
  reset() {
    this.facts = { blocks: [], whole: false, broken: false };
    this.stack = [];
    this.expect = 0 /* Value */;
    this.fed = 0;
    this.str = void 0;
    this.escape = 0;
    this.word = void 0;
    this.number = -1;
    this.kept = [];
  }
  feed(bytes, from = 0, to = bytes.length) {
    if (this.facts.broken || this.expect === 6 /* Done */) {
      this.fed = Math.min(HEAD_BYTES, this.fed + (to - from));
      if (this.expect === 6 /* Done */) this.trailing(bytes, from, Math.min(to, from + HEAD_BYTES));
      return;
    }
    const end = Math.min(to, from + (HEAD_BYTES - this.fed));
    if (end <= from) return;
    this.fed += end - from;
    let i = from;
    while (i < end && !this.facts.broken) {
      if (this.str !== void 0) {
        i = this.inString(bytes, i, end);
        continue;
      }
      const c = bytes[i];
      if (this.word !== void 0) {
        if (this.wordAt < this.word.length) {
          if (c !== this.word.charCodeAt(this.wordAt)) return this.broken();
          this.wordAt++;
          i++;
          continue;
        }
        this.word = void 0;
        if (!this.literalEnds(c)) return;
        continue;
      }
      if (this.number >= 0) {
        const next = numberNext(this.number, c);
        if (next >= 0) {
          this.number = next;
          i++;
          continue;
        }
        const ended = N_ENDS[this.number];
        this.number = -1;
        if (!ended) return this.broken();
        if (!this.literalEnds(c)) return;
        continue;
      }
      i++;
      if (isSpace(c)) continue;
      this.token(c);
      if (this.expect === 6 /* Done */) {
        this.facts.whole = true;
        this.trailing(bytes, i, end);
        return;
      }
    }
  }
  /** The facts once the line's bytes are in; `complete`: its end was reached (its newline read). */
  end(complete = true) {
    const f = this.facts;
    if (!complete || this.expect !== 6 /* Done */) f.whole = false;
    return { ...f, blocks: f.blocks.map((b) => ({ ...b })) };
  }
  /** A literal (inside a container: the top is an object) ends only where a delimiter follows; false when `c` breaks it. */
  literalEnds(c) {
    if (c === 44 || c === 125 || c === 93 || isSpace(c)) {
      this.expect = 5 /* CommaOrEnd */;
      return true;
    }
    this.broken();
    return false;
  }
  /** After the top-level value only white space may follow, or the line is no JSON. */
  trailing(bytes, from, to) {
    for (let i = from; i < to; i++) {
      if (!isSpace(bytes[i])) {
        this.facts.broken = true;
        this.facts.whole = false;
        return;
      }
    }
  }
  top() {
    return this.stack[this.stack.length - 1];
  }
  /** Where a value about to start sits. */
  valueAt() {
    const f = this.top();
    if (f === void 0) return 1 /* Top */;
    if (f.object) {
      if (f.at === 1 /* Top */ && f.key === "message") return 2 /* Message */;
      if (f.at === 2 /* Message */ && f.key === "content") return 3 /* Content */;
      return 0 /* Other */;
    }
    return f.at === 3 /* Content */ ? 4 /* Block */ : 0 /* Other */;
  }
  /** Whether the value of the current key is one the facts keep. */
  keepsValue() {
    const f = this.top();
    if (f === void 0 || !f.object) return false;
    if (f.at === 1 /* Top */) return f.key === "type";
    if (f.at === 2 /* Message */) return f.key === "role";
    if (f.at === 4 /* Block */) return f.key === "type" || f.key === "id" || f.key === "tool_use_id";
    return false;
  }
  token(c) {
    switch (this.expect) {
      case 0 /* Value */:
        return this.startValue(c);
      case 1 /* ValueOrEnd */:
        if (c === 93) return this.close(false);
        return this.startValue(c);
      case 2 /* KeyOrEnd */:
        if (c === 125) return this.close(true);
        if (c === QUOTE) return this.startString(0 /* Key */);
        return this.broken();
      case 3 /* Key */:
        if (c === QUOTE) return this.startString(0 /* Key */);
        return this.broken();
      case 4 /* Colon */:
        if (c === 58) {
          this.expect = 0 /* Value */;
          return;
        }
        return this.broken();
      case 5 /* CommaOrEnd */: {
        const f = this.top();
        if (c === 44) {
          this.expect = f.object ? 3 /* Key */ : 0 /* Value */;
          return;
        }
        if (c === 125 && f.object || c === 93 && !f.object) return this.close(f.object);
        return this.broken();
      }
      default:
        return this.broken();
    }
  }
  startValue(c) {
    const at = this.valueAt();
    if (this.stack.length === 0 && c !== 123) return this.broken();
    if (c === 123 || c === 91) {
      const object = c === 123;
      if (at === 4 /* Block */ && object) this.facts.blocks.push({});
      const into = at === 2 /* Message */ && !object || at === 3 /* Content */ && object || at === 4 /* Block */ && !object ? 0 /* Other */ : at;
      this.stack.push({ at: into, object });
      this.expect = object ? 2 /* KeyOrEnd */ : 1 /* ValueOrEnd */;
      return;
    }
    if (c === QUOTE) return this.startString(this.keepsValue() ? 1 /* Kept */ : 2 /* Skipped */);
    const word = WORDS[c];
    if (word !== void 0) {
      this.word = word;
      this.wordAt = 1;
      return;
    }
    if (c === 45 || c >= 48 && c <= 57) {
      this.number = c === 45 ? N_MINUS : c === 48 ? N_ZERO : N_INT;
      return;
    }
    this.broken();
  }
  /**
   * A key was read: what the facts held under it goes (JSON.parse keeps a key's last value), so a head cut
   * after a key given again knows only what its new value showed, as the engine's tokenizer does.
   */
  keyRead() {
    const f = this.top();
    if (f.at === 1 /* Top */ && f.key === "message") {
      this.facts.role = void 0;
      this.facts.blocks = [];
    } else if (f.at === 2 /* Message */ && f.key === "content") this.facts.blocks = [];
    else if (this.keepsValue()) this.setKept(void 0);
  }
  /** The value of the kept key now being read (top-level type, message.role, a block's type, id or tool_use_id). */
  setKept(value) {
    const f = this.top();
    if (f.at === 1 /* Top */) this.facts.type = value;
    else if (f.at === 2 /* Message */) this.facts.role = value;
    else if (f.at === 4 /* Block */) {
      const b = this.facts.blocks[this.facts.blocks.length - 1];
      if (b !== void 0 && (f.key === "type" || f.key === "id" || f.key === "tool_use_id")) b[f.key] = value;
    }
  }
  close(object) {
    const f = this.stack.pop();
    if (f === void 0 || f.object !== object) return this.broken();
    this.expect = this.stack.length === 0 ? 6 /* Done */ : 5 /* CommaOrEnd */;
  }
  broken() {
    this.facts.broken = true;
  }
  startString(kind) {
    this.str = kind;
    this.escape = 0;
    this.kept = [];
    this.keptOver = false;
    this.keptEscapes = false;
  }
  /** Reads a string's bytes from `i`: to its closing quote (then handles it) or to `end`. Returns where it stopped. */
  inString(bytes, i, end) {
    const from = i;
    for (; i < end; i++) {
      const c = bytes[i];
      if (this.escape === 0) {
        if (c === QUOTE) {
          this.keep(bytes, from, i);
          this.endString();
          return i + 1;
        }
        if (c === BACKSLASH) this.escape = 1;
        else if (c < 32) break;
        continue;
      }
      if (this.escape === 1) {
        if (c === 117) this.escape = 2;
        else if (isEscaped(c)) this.escape = 0;
        else break;
      } else if (isHex(c)) this.escape = this.escape === 5 ? 0 : this.escape + 1;
      else break;
    }
    if (i < end) {
      this.broken();
      return end;
    }
    this.keep(bytes, from, end);
    return end;
  }
  keep(bytes, from, to) {
    if (this.str === 2 /* Skipped */ || this.keptOver) return;
    if (this.kept.length + (to - from) > MAX_KEPT_BYTES) {
      this.keptOver = true;
      this.kept = [];
      return;
    }
    for (let k = from; k < to; k++) {
      if (bytes[k] === BACKSLASH) this.keptEscapes = true;
      this.kept.push(bytes[k]);
    }
  }
  /** The text of the string kept, JSON escapes decoded; undefined when longer than CALL_ID_CAP. */
  keptText() {
    if (this.keptOver) return void 0;
    const raw = decoder.decode(Uint8Array.from(this.kept));
    const text = this.keptEscapes ? JSON.parse(`"${raw}"`) : raw;
    return text.length <= CALL_ID_CAP ? text : void 0;
  }
  endString() {
    const kind = this.str;
    this.str = void 0;
    if (kind === 0 /* Key */) {
      const f = this.top();
      const name = this.keptText();
      f.key = name !== void 0 && name.length <= 16 ? name : void 0;
      this.expect = 4 /* Colon */;
      this.keyRead();
      return;
    }
    if (kind === 1 /* Kept */) {
      const f = this.top();
      const text = this.keptText();
      this.setKept(text === void 0 && f.key !== "id" && f.key !== "tool_use_id" ? LONG : text);
    }
    this.expect = this.stack.length === 0 ? 6 /* Done */ : 5 /* CommaOrEnd */;
  }
};

// src/rules/channelEvent.ts
function channelEventHead(event, at, sessionId, transcriptPath) {
  return { v: CHANNEL_SCHEMA_VERSION, event, at: Math.round(at), session_id: sessionId, transcript_path: transcriptPath };
}

// src/rules/httpConfigText.ts
var MAX_HTTP_CONFIG_BYTES = 4096;
function parseHttpHookConfig(text) {
  try {
    const { port, secret } = JSON.parse(text);
    if (!Number.isInteger(port) || port < 1 || port > 65535) return void 0;
    if (typeof secret !== "string" || !/^[A-Za-z0-9_-]{32,128}$/.test(secret)) return void 0;
    return { port, secret };
  } catch {
    return void 0;
  }
}

// src/mod/channelOut.ts
var MAX_UNFOLDED = 2e4;
var SPOOL_RECOUNT = 1e3;
var CAPPED_RECOUNT_MS = 1e3;
var POST_TIMEOUT_MS = 2e3;
function modEvent(p, kind, at, agentId, fields) {
  return {
    ...channelEventHead(kind, at, p.sessionId, p.transcriptPath),
    ...fields,
    ...agentId !== void 0 ? { agent_id: agentId } : {},
    source: MOD_SOURCE
  };
}
function spoolFull($, s, p) {
  if (s.spool.unfolded < MAX_UNFOLDED) return false;
  recountSpool($, s, p, true);
  return true;
}
function recountSpool($, s, p, full) {
  const at = now();
  if (s.spool.recounting || full && at - s.spool.recountedAt < CAPPED_RECOUNT_MS) return;
  s.spool.recounting = true;
  s.spool.recountedAt = at;
  const dir = spoolDirPath(p.claudeDir);
  $.fs.list(dir).then(
    (entries) => void (s.spool.unfolded = entries.length),
    // A spool folder that is gone (transcript-lag/ deleted) holds nothing.
    () => $.fs.exists(dir).then((there) => void (there ? void 0 : s.spool.unfolded = 0))
  ).catch(() => void 0).finally(() => s.spool.recounting = false);
}
function report($, s, p, ev, listed = false) {
  const body = JSON.stringify(ev);
  let sent = false;
  const spool = () => {
    if (sent) return;
    sent = true;
    if (!listed && spoolFull($, s, p)) return;
    s.spool.spooled += 1;
    s.spool.unfolded += 1;
    $.fs.write(spoolFilePath(p.claudeDir, p.sessionId, s.instance, s.spool.spooled), body).catch(() => void 0);
    if (s.spool.spooled % SPOOL_RECOUNT === 0) recountSpool($, s, p, false);
  };
  const receiver = s.receiver;
  if (receiver === void 0) return spool();
  const timer = $.clock.after(POST_TIMEOUT_MS, spool);
  $.http.fetch(receiver.url, { method: "POST", headers: { "content-type": "application/json", "x-transcript-lag-secret": receiver.secret }, body }).then((res) => {
    timer.cancel();
    if (res.ok) sent = true;
    else spool();
  }).catch(() => {
    timer.cancel();
    spool();
  });
}
async function findReceiver($, s, p) {
  const file = channelPath(p.claudeDir, HTTP_CONFIG_FILE);
  try {
    const st = await $.fs.stat(file);
    const config = st.kind === "file" && !st.isLink && st.size <= MAX_HTTP_CONFIG_BYTES ? parseHttpHookConfig(await $.fs.read(file)) : void 0;
    if (config !== void 0) {
      s.receiver = { url: `http://127.0.0.1:${config.port}/mod`, secret: config.secret };
      return;
    }
  } catch {
  }
  s.receiver = void 0;
}

// src/mod/looks.ts
var MAX_LAGS = 200;
var TICK_MS = 100;
var SOON_TICK_MS = 10;
var READ_LIMIT = 4 * 1024 * 1024;
var MAX_SEEN = 1e3;
var MAX_CURSORS = 64;
var FIRST_LOOK_BACK = 1024 * 1024;
var WHOLE_READ_MAX = 4 * 1024 * 1024;
async function rangedReads($, s, file) {
  if (s.looks.rangedReads === void 0) {
    const first = bytesOf((await $.fs.read(file, { as: "bytes", offset: 0, length: 1 })).base64).length;
    if (first === 0) return true;
    s.looks.rangedReads = first === 1;
  }
  return s.looks.rangedReads;
}
async function readFrom($, s, file, offset) {
  try {
    if (s.looks.tooBig.has(file)) return new Uint8Array(0);
    const ranged = await rangedReads($, s, file);
    const bytes = bytesOf((await $.fs.read(file, { as: "bytes", offset, length: READ_LIMIT })).base64);
    if (ranged) return bytes;
    if (bytes.length > WHOLE_READ_MAX) {
      s.looks.tooBig.add(file);
      return new Uint8Array(0);
    }
    return bytes.subarray(offset, offset + READ_LIMIT);
  } catch {
    return new Uint8Array(0);
  }
}
function bytesOf(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
function remember(seen, id, lookNo) {
  if (seen.has(id)) return;
  seen.set(id, lookNo);
  if (seen.size > MAX_SEEN) seen.delete(seen.keys().next().value);
}
function release($, s, call, held) {
  s.held.delete(call.id);
  dropHeldMessage($, call);
  if (held === void 0) return;
  s.lags.set(call.id, held);
  if (s.lags.size > MAX_LAGS) s.lags.delete(s.lags.keys().next().value);
}
async function look($, s) {
  const started = now();
  const byFile = /* @__PURE__ */ new Map();
  for (const call of s.held.values()) {
    if (started - call.at > HELD_MESSAGE_TTL_MS) release($, s, call, void 0);
    else byFile.set(call.recordPath, [...byFile.get(call.recordPath) ?? [], call]);
  }
  for (const [file, calls] of byFile) {
    const cursor = s.looks.cursors.get(file);
    if (cursor === void 0) continue;
    const lookNo = ++s.looks.count;
    await readNewLines(
      cursor,
      {
        read: (offset) => readFrom($, s, file, offset),
        stat: async () => {
          try {
            return { size: (await $.fs.stat(file)).size };
          } catch {
            return { size: cursor.offset };
          }
        }
      },
      // Each line read as it comes (a view of the chunk: used at once, not kept), by the rules' one reading.
      (line, cut) => {
        const { records, results } = callsOfLine(line, !cut);
        for (const id of records) remember(s.looks.recordsSeen, id, lookNo);
        for (const id of results) remember(s.looks.resultsSeen, id, lookNo);
      },
      { sizeFrom: "read", readBytes: READ_LIMIT }
    );
    const seenAt = now();
    for (const call of calls) {
      const recordLook = s.looks.recordsSeen.get(call.id);
      if (recordLook === void 0) {
        call.missedAt = started;
        continue;
      }
      const withResult = s.looks.resultsSeen.get(call.id) === recordLook;
      const p = call.place;
      report($, s, p, modEvent(p, "landed", seenAt, call.agentId, {
        tool_use_id: call.id,
        tool_name: call.tool,
        with_result: withResult,
        watched_from: "pre",
        fired_at: Math.round(call.at),
        ...call.missedAt !== void 0 ? { missed_at: Math.round(call.missedAt) } : {},
        ...call.recordPath !== p.transcriptPath ? { record_path: call.recordPath } : {}
      }), call.listed);
      const landing = { at: seenAt, with_result: withResult, watched_from: "pre", fired_at: call.at, ...call.missedAt !== void 0 ? { missed_at: call.missedAt } : {} };
      release($, s, call, verdictFromHook({ landed: landing }).held);
    }
  }
  if (s.held.size === 0) {
    s.looks.ticker?.cancel();
    s.looks.ticker = void 0;
  } else watchHeld($, s);
  $.ui.invalidate("ui.render");
}
function watchHeld($, s) {
  const every = [...s.held.values()].some((c) => c.ran === true || c.hooks !== void 0) ? SOON_TICK_MS : TICK_MS;
  if (s.looks.ticker !== void 0 && s.looks.tickerMs === every) return;
  s.looks.ticker?.cancel();
  s.looks.tickerMs = every;
  s.looks.ticker = $.clock.every(every, () => {
    if (s.looks.looking) return;
    s.looks.looking = true;
    look($, s).catch(() => void 0).finally(() => s.looks.looking = false);
  });
}
async function cursorAt($, s, file) {
  if (s.looks.cursors.has(file)) return;
  let size = 0;
  try {
    size = (await $.fs.stat(file)).size;
  } catch {
  }
  const from = Math.max(0, size - FIRST_LOOK_BACK);
  s.looks.cursors.set(file, new LineCursor({ from, maxLineBytes: HEAD_BYTES, readLimit: READ_LIMIT }));
  if (s.looks.cursors.size > MAX_CURSORS) s.looks.cursors.delete(s.looks.cursors.keys().next().value);
}

// src/mod/hooksTiming.ts
function hooksDecisionOf(result) {
  if (typeof result !== "object" || result === null) return void 0;
  const r = result;
  if (typeof r.deny === "string") return "deny";
  if (typeof r.ask === "string") return "ask";
  if (r.allow === true) return "allow";
  return void 0;
}
function hooksSettled($, s, e, started, result) {
  const ended = now();
  if (typeof e?.tool_use_id !== "string") return;
  const hooks = { ms: Math.max(0, Math.round(ended - started)) };
  const decision = hooksDecisionOf(result);
  if (decision !== void 0) hooks.decision = decision;
  const call = s.calling.get(e.tool_use_id);
  if (call !== void 0) {
    call.hooks = hooks;
    if (s.held.has(call.id)) watchHeld($, s);
  }
  const p = call?.place ?? s.place;
  if (p === void 0) return;
  const fields = { tool_use_id: e.tool_use_id, tool_name: call?.tool ?? e.tool, transport: "mod", ...hooksFields(hooks) };
  report($, s, p, modEvent(p, "hooks", ended, call?.agentId, fields), call?.listed ?? false);
}

// src/rules/durationText.ts
function formatDuration(ms) {
  const v = Number.isFinite(ms) && ms > 0 ? ms : 0;
  if (v < 1e3) return `${Math.round(v)} ms`;
  if (v < 1e4) {
    return `${(Math.floor(v / 100) / 10).toFixed(1)}s`;
  }
  const totalSeconds = Math.floor(v / 1e3);
  if (totalSeconds < 60) return `${totalSeconds}s`;
  const totalMinutes = Math.floor(totalSeconds / 60);
  if (totalMinutes < 60) return `${totalMinutes}m ${String(totalSeconds % 60).padStart(2, "0")}s`;
  const hours = Math.floor(totalMinutes / 60);
  return `${hours}h ${String(totalMinutes % 60).padStart(2, "0")}m`;
}
function boundsText(b) {
  if (b.max_ms === null) return `\u2265 ${formatDuration(b.min_ms)}`;
  if (b.min_ms <= 0) return `\u2264 ${formatDuration(b.max_ms)}`;
  return `${formatDuration(b.min_ms)}\u2013${formatDuration(b.max_ms)}`;
}

// src/mod/rows.ts
async function spinnerHeld($, s, e, next) {
  if (s.held.size === 0) return next(e);
  let oldest = Infinity;
  for (const call of s.held.values()) oldest = Math.min(oldest, call.at);
  const more = s.held.size > 1 ? ` (${s.held.size} calls)` : "";
  const room = Math.max(0, (e.viewport?.columns ?? 80) - String(e.props.word ?? "").length - 20);
  const suffix = ` \xB7 held ${formatDuration(now() - oldest)}${more}`.slice(0, room);
  return next({ ...e, props: { ...e.props, suffix: `${e.props.suffix ?? ""}${suffix}` } });
}
async function toolRowLag($, s, e, next) {
  const id = e.props.tool_use_id;
  const lag = typeof id === "string" ? s.lags.get(id) : void 0;
  const theirs = await next(e);
  if (lag === void 0) return theirs;
  const { Box, Text } = $.ui.resolve(e);
  return Box({ flexDirection: "column", children: [theirs, Text({ dimColor: true, wrap: "truncate-end", children: [`  \u23BF transcript lag ${boundsText(lag)}`] })] });
}
async function toolGroupLag($, s, e, next) {
  const calls = Array.isArray(e.props.calls) ? e.props.calls : [];
  const landed = calls.map((c) => typeof c.tool_use_id === "string" ? s.lags.get(c.tool_use_id) : void 0).filter((l) => l !== void 0);
  const theirs = await next(e);
  if (e.props.isExpanded === true || landed.length === 0) return theirs;
  const { Box, Text } = $.ui.resolve(e);
  const which = landed.length === calls.length ? "" : ` (${landed.length} of ${calls.length} calls)`;
  return Box({ flexDirection: "column", children: [theirs, Text({ dimColor: true, wrap: "truncate-end", children: [`  \u23BF transcript lag \u2264 ${formatDuration(Math.max(...landed.map((l) => l.max_ms ?? l.min_ms)))}${which}`] })] });
}

// src/mod/register.ts
async function transcriptPathOf($) {
  try {
    return (await $.session.info()).transcriptPath;
  } catch {
    return void 0;
  }
}
function register(on, options) {
  const s = newState(options);
  on("session.start", async ($, e, next) => {
    s.place = placeOf(await transcriptPathOf($)) ?? s.place;
    if (s.place !== void 0) {
      await findReceiver($, s, s.place);
      if (s.keepHeldMessages) await privateFolder($, s.place);
      await writeAlive($, s, s.place);
    }
    keepAlive($, s);
    return next(e);
  });
  on("session.end", async ($, e, next) => {
    const dropping = [...s.held.values()].map((call) => dropHeldMessageNow($, call));
    s.held.clear();
    s.calling.clear();
    s.alive?.cancel();
    s.alive = void 0;
    if (s.place !== void 0) dropping.push(removeAlive($, s, s.place));
    await Promise.all(dropping);
    return next(e);
  });
  on("classic.SessionStart", async ($, e, next) => {
    const before = s.place;
    s.place = placeOf(e.transcript_path) ?? s.place;
    if (s.place !== void 0 && s.keepHeldMessages) await privateFolder($, s.place);
    if (before !== void 0 && before.sessionId !== s.place?.sessionId) void removeAlive($, s, before);
    if (s.place !== void 0) await writeAlive($, s, s.place);
    return next(e);
  });
  on("tool.call", async ($, e, next) => {
    const at = now();
    const p = s.place ?? placeOf(await transcriptPathOf($));
    if (p === void 0 || s.held.size >= MAX_CALLS) return next(e);
    s.place = p;
    const recordPath = recordFileOf(p.transcriptPath, p.sessionId, e.agentId);
    if (recordPath === void 0) return next(e);
    const listed = !spoolFull($, s, p);
    const call = { id: e.tool_use_id, tool: e.tool, at, agentId: e.agentId, place: p, recordPath, listed };
    report($, s, p, modEvent(p, "pre", at, e.agentId, { tool_use_id: call.id, tool_name: call.tool, transport: "mod" }), listed);
    s.held.set(call.id, call);
    s.calling.set(call.id, call);
    await Promise.all([
      cursorAt($, s, recordPath),
      listed ? listCall($, s, call).catch(() => void 0) : void 0,
      // The held message is a convenience: the call goes on without it.
      storeHeldMessage($, s, call).catch(() => void 0)
    ]);
    watchHeld($, s);
    const post = () => {
      s.calling.delete(call.id);
      report($, s, p, modEvent(p, "post", now(), e.agentId, { tool_use_id: call.id, tool_name: call.tool, transport: "mod", ...hooksFields(call.hooks), held_message: call.heldKept === true }), listed);
      call.ran = true;
      if (s.held.has(call.id)) watchHeld($, s);
    };
    try {
      const ran = await next(e);
      post();
      return ran;
    } catch (err) {
      post();
      throw err;
    }
  });
  on("classic.PreToolUse", async ($, e, next) => {
    const started = now();
    let result;
    try {
      result = await next(e);
      return result;
    } finally {
      hooksSettled($, s, e, started, result);
    }
  });
  on("session.append", async ($, e, next) => {
    const p = s.place;
    if (p !== void 0) {
      const at = now();
      const ids = [];
      for (const b of e.message.content ?? []) {
        if (b?.type === "tool_use" && typeof b.id === "string") ids.push(b.id);
        else if (b?.type === "tool_result" && typeof b.tool_use_id === "string") ids.push(b.tool_use_id);
      }
      report($, s, p, modEvent(p, "record", at, e.agentId, { uuid: e.uuid, record_type: e.message.type, ...ids.length > 0 ? { tool_use_ids: ids } : {} }));
    }
    return next(e);
  });
  on("ui.render", { component: "Spinner" }, ($, e, next) => spinnerHeld($, s, e, next));
  on("ui.render", { component: "ToolUse" }, ($, e, next) => toolRowLag($, s, e, next));
  on("ui.render", { component: "ToolGroup" }, ($, e, next) => toolGroupLag($, s, e, next));
}
export {
  register
};
