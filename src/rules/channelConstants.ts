/**
 * Plain constants shared by the bundled hook and the engine. No imports: the
 * hook (dist/hook.js) pulls this file in and must stay free of zod and of
 * anything that is not a `node:` module.
 */

/** Version of the channel event format (`v` on every line). Readers skip versions they do not know. */
export const CHANNEL_SCHEMA_VERSION = 1;

/** Folder under the Claude dir that holds one `<session_id>.jsonl` per session, and `bin/`. */
export const CHANNEL_DIR_NAME = 'transcript-lag';

/** `source` of events our own hook writes. */
export const HOOK_SOURCE = 'transcript-lag-hook';

/** `source` of events the in-process mod (src/mod/, plugin/hooks/) writes. */
export const MOD_SOURCE = 'transcript-lag-mod';

/** `source` of the `measured` events an engine (a window, `watch`) writes: what its own live read of a record measured. */
export const ENGINE_SOURCE = 'transcript-lag-engine';

/** How a call's report reached the channel: a command hook process, an http hook, or the in-process mod. */
export const CHANNEL_TRANSPORTS = ['command', 'http', 'mod'] as const;
export type ChannelTransport = (typeof CHANNEL_TRANSPORTS)[number];

/** How a call's settings PreToolUse hooks decided, when they did: the mod's `hooks` event and its `post` (docs/CHANNEL.md). */
export const HOOKS_DECISIONS = ['allow', 'ask', 'deny'] as const;
export type HooksDecision = (typeof HOOKS_DECISIONS)[number];
/** The longest `hooks_ms` a reader takes (a day): a line saying more is no timing of a call's hooks, and is dropped. */
export const MAX_HOOKS_MS = 86_400_000;

/** The channel folder's file where install-hook --http keeps the receiver's port and secret. */
export const HTTP_CONFIG_FILE = 'http.json';

/**
 * Default age after which an untouched session file is pruned (src/core/channel/prune.ts), and past which a
 * spool file is removed unread (src/rules/spoolRead.ts): a week, 7 × 24 × 60 × 60 × 1000 ms, one literal so the
 * bundles that do not use it (the mod) drop it.
 */
export const DEFAULT_CHANNEL_MAX_AGE_MS = 604_800_000;

/** Subfolder of the channel folder where the mod spools events when no receiver answers: one file per event. */
export const SPOOL_DIR_NAME = 'spool';

/** File name of the stable hook copy; also the marker by which we know our settings.json entries. */
export const HOOK_FILE_NAME = 'transcript-lag-hook.js';

/**
 * File name of the Windows launcher beside the hook copy, written when the runtime needs an
 * environment (VS Code's Electron): an entry naming it alone is ours too (hookLauncherText).
 */
export const HOOK_LAUNCHER_FILE_NAME = 'transcript-lag-hook.cmd';

/** Subfolder of the channel folder where install-hook keeps the stable hook copy. */
export const HOOK_BIN_DIR_NAME = 'bin';

/**
 * Session ids that may name a channel file. Claude Code uses UUIDs; anything
 * else with a separator, a dot prefix, NUL or over the length is refused so a
 * hostile session_id can never make a path outside the channel folder.
 */
export const SAFE_SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Channel file name of a session. Only call with an id that passed SAFE_SESSION_ID. */
export const CHANNEL_FILE_SUFFIX = '.jsonl';

/** Limits of the schema's string fields, mirrored by the hook so its lines always validate. */
export const MAX_ID_LENGTH = 200;
export const MAX_PATH_LENGTH = 4096;

/** Probe defaults: like a reviewing hook, 50 polls 100 ms apart. */
export const DEFAULT_PROBE_POLLS = 50;
export const DEFAULT_PROBE_POLL_MS = 100;
/** The largest --timeout-ms the hook takes (src/hook/main.ts parseHookArgs), a day; install-hook refuses a longer probe wait. */
export const MAX_HOOK_TIMEOUT_MS = 86_400_000;

/** File name of install-statusline's stable copy of the statusline bundle; also the marker of our statusLine entry. */
export const STATUSLINE_FILE_NAME = 'transcript-lag-statusline.js';

/**
 * File name of the message tool's stable copy (`transcript-lag message` on its own, src/cli/message.ts),
 * which the plugin keeps in the channel folder's bin/ from each session start, for reviewing hooks to name.
 */
export const MESSAGE_TOOL_FILE_NAME = 'transcript-lag-message.js';

/**
 * File name of the completing wrapper's stable copy (`transcript-lag complete` on its own,
 * src/cli/complete.ts), kept beside the message tool by the plugin's session start, for a
 * PreToolUse hook's command to name.
 */
export const COMPLETE_TOOL_FILE_NAME = 'transcript-lag-complete.js';

/** `source` of the `hook_run` events the completing wrapper (`transcript-lag complete`) writes. */
export const COMPLETE_SOURCE = 'transcript-lag-complete';

/**
 * How a wrapped PreToolUse hook's run decided, as Claude Code reads its exit and stdout
 * (src/rules/hookDecision.ts): `block` exit 2; `allow`, `deny`, `ask` exit 0 (JSON or none); `error`
 * any other exit or a signal. The `hook_run` event's `decision` (docs/CHANNEL.md).
 */
export const HOOK_RUN_DECISIONS = ['allow', 'deny', 'ask', 'block', 'error'] as const;
export type HookRunDecision = (typeof HOOK_RUN_DECISIONS)[number];
/** A `hook_run`'s `hook` label is at most this long (src/rules/hookRun.ts cuts it). */
export const MAX_HOOK_LABEL_LENGTH = 64;
