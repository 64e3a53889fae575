/**
 * Records shaped like the ones Claude Code 2.1.332 writes (see
 * the transcripts in test/fixtures/real/): same keys in the same order, compact JSON,
 * raw UTF-8. Key order matters to a streaming scanner that stops early, so the
 * benchmark must not feed it friendlier records than the real ones.
 */
import { type Random, randomMessageId, randomToolUseId, randomUuid } from './random';

export interface SessionContext {
  sessionId: string;
  cwd: string;
  rand: Random;
  /** Advances a fake clock so timestamps increase like a real session's. */
  clockMs: number;
}

type Json = Record<string, unknown>;

function tail(ctx: SessionContext): Json {
  return { userType: 'external', entrypoint: 'cli', cwd: ctx.cwd, sessionId: ctx.sessionId, version: '2.1.332', gitBranch: 'HEAD' };
}

function stamp(ctx: SessionContext): string {
  ctx.clockMs += 1 + Math.floor(ctx.rand() * 400);
  return new Date(ctx.clockMs).toISOString();
}

const USAGE = {
  input_tokens: 10,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: 20,
  output_tokens_details: { thinking_tokens: 0 },
  server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
  service_tier: 'standard',
  cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
  inference_geo: '',
  iterations: [],
  speed: 'standard',
  fallback_credit: null,
};

export function userPrompt(ctx: SessionContext, parentUuid: string | null, text: string): Json {
  return {
    parentUuid,
    isSidechain: false,
    promptId: randomUuid(ctx.rand),
    type: 'user',
    message: { role: 'user', content: text },
    uuid: randomUuid(ctx.rand),
    timestamp: stamp(ctx),
    permissionMode: 'acceptEdits',
    origin: { kind: 'human' },
    promptSource: 'typed',
    turnOrigin: 'human',
    ...tail(ctx),
  };
}

/** One content block of an assistant message: Claude Code writes one record per block. */
export function assistantBlock(
  ctx: SessionContext,
  parentUuid: string,
  messageId: string,
  blockIndex: number,
  block: Json,
  stopReason: string | null,
): Json {
  return {
    parentUuid,
    isSidechain: false,
    message: {
      id: messageId,
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-5-5',
      content: [block],
      stop_reason: stopReason,
      stop_sequence: null,
      usage: USAGE,
      stop_details: null,
    },
    ...(block.type === 'tool_use' ? { toolInputStreamMs: 2 } : {}),
    apiBlockIndex: blockIndex,
    requestRef: randomUuid(ctx.rand),
    requestedModel: 'claude-opus-5-5',
    promptCacheRequested: '5m',
    type: 'assistant',
    uuid: randomUuid(ctx.rand),
    timestamp: stamp(ctx),
    effort: 'medium',
    perTurnEffort: 'medium',
    madeBy: 'model',
    session_id: ctx.sessionId,
    ...tail(ctx),
  };
}

export function toolUseBlock(id: string, name: string, input: Json): Json {
  return { type: 'tool_use', id, name, input };
}

/**
 * A tool_result record. Claude Code stores the output twice: in
 * `message.content` (what the model sees) and in `toolUseResult` (for the UI),
 * so a huge result makes a line twice its size.
 */
export function toolResult(ctx: SessionContext, toolUse: { id: string; uuid: string; name: string }, output: string): Json {
  const toolUseResult =
    toolUse.name === 'Read'
      ? { type: 'text', file: { filePath: `${ctx.cwd}/src/generated.ts`, content: output, numLines: 1, startLine: 1, totalLines: 1 } }
      : { stdout: output, stderr: '', interrupted: false, isImage: false, noOutputExpected: false };
  return {
    parentUuid: toolUse.uuid,
    isSidechain: false,
    promptId: randomUuid(ctx.rand),
    type: 'user',
    message: { role: 'user', content: [{ tool_use_id: toolUse.id, type: 'tool_result', content: output, is_error: false }] },
    uuid: randomUuid(ctx.rand),
    timestamp: stamp(ctx),
    toolUseResult,
    sandboxed: false,
    sourceToolAssistantUUID: toolUse.uuid,
    permissionDecision: { decision: 'accept', source: 'config', reasonType: 'rule', ruleSource: 'userSettings' },
    session_id: ctx.sessionId,
    ...tail(ctx),
  };
}

/** An attachment record (a file the user attached, skill listings, prompt snapshots…). */
export function attachment(ctx: SessionContext, parentUuid: string, kind: string, content: string): Json {
  return {
    parentUuid,
    isSidechain: false,
    attachment: { type: kind, filename: `${ctx.cwd}/notes/${kind}.md`, content },
    type: 'attachment',
    uuid: randomUuid(ctx.rand),
    timestamp: stamp(ctx),
    rendered: [{ content: `<system-reminder>\n${content.slice(0, 200)}\n</system-reminder>` }],
    renderedRole: 'system',
    ...tail(ctx),
  };
}

/** The per-batch trailer Claude Code appends after many write batches. */
export function metadataTrailer(ctx: SessionContext, leafUuid: string, lastPrompt: string): Json[] {
  const sessionId = ctx.sessionId;
  return [
    { type: 'last-prompt', lastPrompt, leafUuid, sessionId },
    { type: 'mode', mode: 'normal', sessionId },
    { type: 'permission-mode', permissionMode: 'acceptEdits', sessionId },
    { type: 'atis-latch', atis: '', sessionId },
  ];
}

export function apiRequest(ctx: SessionContext, filler: string): Json[] {
  const shapeHash = randomUuid(ctx.rand).replace(/-/g, '');
  return [
    { type: 'api-request-shape', sessionId: ctx.sessionId, shapeHash, timestamp: stamp(ctx), version: '2.1.332', shape: { system: [{ type: 'text', text: filler }] } },
    { type: 'api-request', sessionId: ctx.sessionId, id: randomUuid(ctx.rand), timestamp: stamp(ctx), version: '2.1.332', querySource: 'repl_main_thread', shapeHash, params: { model: 'claude-opus-5-5', max_tokens: 128000 } },
  ];
}

export function newIds(ctx: SessionContext): { toolUseId: string; messageId: string } {
  return { toolUseId: randomToolUseId(ctx.rand), messageId: randomMessageId(ctx.rand) };
}
