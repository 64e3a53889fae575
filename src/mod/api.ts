/**
 * The part of Claude Code's mod API this mod uses, as its 2.1.332 build declares
 * it in `<plugin>/.claude-plugin/types/claude-code/index.d.ts` (written when the
 * plugin loads; that file is the reference, this is a subset of it).
 */
export interface ToolCallEvent {
  tool: string;
  tool_use_id: string;
  /** The subagent loop the call runs in; absent on the main loop. */
  agentId?: string;
  [arg: string]: unknown;
}

/** The `e` of `classic.PreToolUse` (ToolCallEnvelope): tool.call's event without the loop, so no `agentId`. */
export interface ToolCallEnvelope {
  tool: string;
  tool_use_id: string;
  [arg: string]: unknown;
}

/**
 * What `classic.PreToolUse`'s `next` resolves to (PreToolUseResult): `{ allow: true }`, `{ ask }`,
 * `{ deny }` or none of them, with `updatedInput` and `additionalContext` beside.
 */
export interface PreToolUseResult {
  allow?: true;
  ask?: string;
  deny?: string;
  [field: string]: unknown;
}

export interface AppendEvent {
  message: { type: 'user' | 'assistant' | 'attachment' | 'system'; content?: Array<{ type?: string; id?: unknown; tool_use_id?: unknown }> };
  door: string;
  uuid: string;
  agentId?: string;
}

export interface RenderEvent {
  component: string;
  viewport?: { columns: number; rows: number };
  props: Record<string, unknown> & { word?: string; suffix?: string; tool_use_id?: string };
}

type Element = unknown;

export interface ModApi {
  clock: { now(): Promise<number>; every(ms: number, fn: () => void): { cancel(): void }; after(ms: number, fn: () => void): { cancel(): void } };
  session: {
    info(): Promise<{ transcriptPath: string; promptId?: string }>;
    messages(args?: { agentId?: string; last?: number }): Promise<unknown[] | { deny: string }>;
    /** The build, as the transcript's records carry it in `version` (2.1.332; an older build may throw: caught). */
    version(): Promise<{ version?: unknown }>;
  };
  fs: {
    read(path: string): Promise<string>;
    read(path: string, range: { as: 'bytes'; offset?: number; length?: number }): Promise<{ base64: string }>;
    write(path: string, text: string): Promise<void>;
    stat(path: string): Promise<{ kind: 'file' | 'dir' | 'other'; size: number; mtimeMs: number; isLink: boolean }>;
    list(path: string): Promise<Array<{ name: string }>>;
    exists(path: string): Promise<boolean>;
  };
  http: {
    fetch(url: string, init: { method: string; headers: Record<string, string>; body: string }): Promise<{ ok: boolean; status: number }>;
  };
  process: { run(argv: string[], init?: { timeoutMs?: number }): Promise<{ exitCode: number }> };
  ui: {
    invalidate(event: 'ui.render'): void;
    resolve(e: RenderEvent): { Box(props: object): Element; Text(props: object): Element };
  };
}

export type Next<E, R> = (e: E) => Promise<R>;
type Hook<E> = ($: ModApi, e: E, next: Next<E, any>) => unknown;

export interface On {
  (event: 'session.start', hook: Hook<unknown>): unknown;
  (event: 'session.end', hook: Hook<unknown>): unknown;
  (event: 'classic.SessionStart', hook: Hook<{ transcript_path?: string }>): unknown;
  (event: 'tool.call', hook: Hook<ToolCallEvent>): unknown;
  /** Fires inside `tool.call`, beneath every plugin's `tool.call` hook; its `next` runs the settings PreToolUse hooks. */
  (event: 'classic.PreToolUse', hook: Hook<ToolCallEnvelope>): unknown;
  (event: 'session.append', hook: Hook<AppendEvent>): unknown;
  (event: 'ui.render', matcher: { component: string }, hook: Hook<RenderEvent>): unknown;
}
