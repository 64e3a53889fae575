// A stand-in for the Anthropic Messages API, served on 127.0.0.1 only, so the real Claude Code CLI
// can be driven through scripted tool calls without a network. Every request is logged (one JSON
// object per line) so a run shows what the CLI asked for and what it was told.
import http from 'node:http';
import fs from 'node:fs';

/** The marker a scripted Agent call's prompt carries, by which the stand-in knows its subagent's requests. */
export const SUBAGENT_MARK = 'SUBAGENT-TASK';
/** The main conversation's last answer: a session is over once a transcript holds it. */
export const FINAL_TEXT = 'Done: the field test script has finished.';

/**
 * A script is a list of turns; each turn is the tool calls of one assistant message, e.g.
 * [[{ name: 'Bash', id: 'toolu_field001b', input: { command: 'sleep 1' } }]].
 * A main-loop request (one that offers Bash) gets the first turn whose calls are not yet answered;
 * after the last turn the answer is plain text ending the turn.
 */
export function startStandInApi({ script, subScript = [], logFile, model = 'claude-opus-5-5', blockGapMs = 20, finishDelayMs = 0, onTiming }) {
  let reqCount = 0;
  // onTiming (the bench's transports section): { kind: 'request', t, toolResults } when a request's
  // headers arrive, { kind: 'tool_use', id, t } when a tool_use block is closed; t = performance.now().
  const timing = (e) => onTiming?.(e);
  const log = (obj) => fs.appendFileSync(logFile, JSON.stringify({ at: Date.now(), ...obj }) + '\n');

  const server = http.createServer((req, res) => {
    const arrivedAt = performance.now();
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const n = ++reqCount;
      let body = {};
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch {
        body = {};
      }
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (onTiming && Array.isArray(body.messages)) {
        const last = body.messages[body.messages.length - 1];
        const content = last && Array.isArray(last.content) ? last.content : [];
        timing({ kind: 'request', t: arrivedAt, toolResults: content.filter((b) => b && b.type === 'tool_result').map((b) => b.tool_use_id) });
      }
      try {
        route({ n, req, res, url, body });
      } catch (err) {
        log({ req: n, path: url.pathname, error: String(err) });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(err) } }));
      }
    });
  });

  function route({ n, req, res, url, body }) {
    const path = url.pathname;
    if (req.method === 'POST' && path.endsWith('/messages/count_tokens')) {
      log({ req: n, path, kind: 'count_tokens' });
      return json(res, { input_tokens: 1000 });
    }
    if (req.method === 'POST' && path.endsWith('/messages')) return messages(n, res, path, body);
    // Anything else (feature flags, metrics, account lookups): an empty success keeps the CLI quiet.
    log({ req: n, method: req.method, path, kind: 'other' });
    return json(res, {});
  }

  function messages(n, res, path, body) {
    const msgs = Array.isArray(body.messages) ? body.messages : [];
    const tools = Array.isArray(body.tools) ? body.tools.map((t) => t.name) : [];
    // Claude Code on Windows without Git Bash offers PowerShell in Bash's place.
    const isMainLoop = tools.includes('Bash') || tools.includes('PowerShell');
    const last = msgs[msgs.length - 1];
    const lastIsToolResult =
      !!last && Array.isArray(last.content) && last.content.some((b) => b && b.type === 'tool_result');
    // The next turn is the first one whose calls have no tool_result in the conversation yet. Counting
    // results by id (not by message shape) keeps this right across CLI versions that add reminders
    // or hook context after a tool_result.
    const answered = new Set();
    for (const m of msgs) {
      if (m.role !== 'user' || !Array.isArray(m.content)) continue;
      for (const b of m.content) if (b && b.type === 'tool_result') answered.add(b.tool_use_id);
    }
    // A subagent's conversation opens with the prompt the script gave its Agent call (SUBAGENT_MARK):
    // it gets the subagent's own turns (`subScript`).
    const first = msgs[0];
    const firstText = typeof first?.content === 'string' ? first.content : Array.isArray(first?.content) ? first.content.map((b) => b?.text ?? '').join('') : '';
    const isSubagent = firstText.includes(SUBAGENT_MARK);
    const turns = isSubagent ? subScript : script;
    const turnIndex = turns.findIndex((turn) => !turn.every((c) => answered.has(c.id)));
    let blocks;
    let stopReason;
    let kind;
    if (!isMainLoop) {
      // Side requests (titles, summaries, classifiers): a short, valid answer.
      kind = 'side';
      blocks = [{ type: 'text', text: sideAnswer(body) }];
      stopReason = 'end_turn';
    } else if (turnIndex >= 0) {
      kind = 'tools';
      const turn = turns[turnIndex];
      // A turn may name its text blocks (`turn.texts`, [] for none); else one line says what runs.
      const texts = turn.texts ?? [`Step ${turnIndex + 1}: running ${turn.map((c) => c.name).join(' and ')}.`];
      blocks = texts.map((text) => ({ type: 'text', text }));
      for (const call of turn) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
      stopReason = 'tool_use';
    } else {
      kind = 'final';
      blocks = [{ type: 'text', text: isSubagent ? 'Subagent: its steps are done.' : FINAL_TEXT }];
      stopReason = 'end_turn';
    }
    log({
      req: n,
      path,
      kind,
      ...(isSubagent ? { subagent: true } : {}),
      ...(n <= 3 && isMainLoop ? { toolNames: tools } : {}),
      model: body.model,
      stream: !!body.stream,
      tools: tools.length,
      messages: msgs.length,
      lastIsToolResult,
      shape: msgs.slice(-3).map((m) => `${m.role}:${Array.isArray(m.content) ? m.content.map((b) => b?.type).join('+') : 'text'}`),
      blocks: blocks.map((b) => (b.type === 'tool_use' ? b.id : b.type)),
    });
    const msgId = `msg_field${n}`;
    if (!body.stream) {
      return json(res, {
        id: msgId,
        type: 'message',
        role: 'assistant',
        model: body.model ?? model,
        content: blocks,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 20 },
      });
    }
    streamMessage(res, msgId, body.model ?? model, blocks, stopReason, blockGapMs, finishDelayMs, timing);
  }

  const server$ = new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = server.address().port;
      log({ listening: port });
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        /** A later run in the same sandbox (a fork) continues with these turns. */
        setScript: (turns) => {
          script = turns;
        },
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
  return server$;
}

function sideAnswer(body) {
  const system = JSON.stringify(body.system ?? '');
  // Title generation asks for JSON with a title; other side requests accept any short text.
  if (/title/i.test(system)) return JSON.stringify({ title: 'Field test' });
  return 'ok';
}

function json(res, obj) {
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_field' });
  res.end(JSON.stringify(obj));
}

/** Streams one message as SSE, with small gaps so the CLI sees a realistic stream. */
async function streamMessage(res, id, model, blocks, stopReason, blockGapMs, finishDelayMs, timing = () => {}) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': 'req_field' });
  const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  send('message_start', {
    message: {
      id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  });
  for (let index = 0; index < blocks.length; index++) {
    const b = blocks[index];
    if (b.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      // Streamed in pieces, as a model writes: a reader must join them exactly.
      for (let at = 0; at < b.text.length; at += 12) {
        send('content_block_delta', { index, delta: { type: 'text_delta', text: b.text.slice(at, at + 12) } });
        if (b.text.length > 12) await pause(2);
      }
    } else {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
    }
    await pause(blockGapMs);
    send('content_block_stop', { index });
    if (b.type === 'tool_use') timing({ kind: 'tool_use', id: b.id, t: performance.now() });
  }
  if (finishDelayMs > 0) await pause(finishDelayMs);
  send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 20 } });
  send('message_stop', {});
  res.end();
}
