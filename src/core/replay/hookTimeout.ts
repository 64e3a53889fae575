/**
 * How long Claude Code lets a command hook with no `timeout` of its own run before it kills it: 600 s
 * (its hooks docs; measured with 2.1.332 by test/field/measure/hookTimeout.mjs, docs/COMPATIBILITY.md).
 * `replay`'s default, so a slow hook is cut where Claude Code would cut it.
 */
export const CLAUDE_CODE_HOOK_TIMEOUT_S = 600;
