import * as assert from 'node:assert/strict';
import { answerOf, type HookOutcome } from '../../../src/rules/hookDecision';

// How Claude Code reads a PreToolUse command hook's answer, one row per case.
const ok = (stdout: string, stderr = ''): HookOutcome => ({ exitCode: 0, timedOut: false, stdout, stderr });
const exit = (exitCode: number, stderr = '', stdout = ''): HookOutcome => ({ exitCode, timedOut: false, stdout, stderr });
const specific = (decision: string, reason?: string) => JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, ...(reason !== undefined ? { permissionDecisionReason: reason } : {}) } });

const table: Array<[string, HookOutcome, { decision: string; reason: string | null }]> = [
  ['exit 0, nothing printed', ok(''), { decision: 'allow', reason: null }],
  ['exit 0, plain text', ok('looks fine\n'), { decision: 'allow', reason: null }],
  ['exit 0, JSON without a decision', ok('{"suppressOutput":true}'), { decision: 'allow', reason: null }],
  ['exit 0, permissionDecision allow', ok(specific('allow', 'ok by me')), { decision: 'allow', reason: 'ok by me' }],
  ['exit 0, permissionDecision deny', ok(`${specific('deny', 'not in the transcript')}\n`), { decision: 'deny', reason: 'not in the transcript' }],
  ['exit 0, permissionDecision ask, no reason', ok(specific('ask')), { decision: 'ask', reason: null }],
  ['exit 0, an unknown permissionDecision', ok(specific('maybe', 'x')), { decision: 'allow', reason: null }],
  ['exit 0, the older decision "block"', ok('{"decision":"block","reason":"no"}'), { decision: 'deny', reason: 'no' }],
  ['exit 0, the older decision "approve"', ok('{"decision":"approve","reason":"yes"}'), { decision: 'allow', reason: 'yes' }],
  ['exit 0, JSON that does not parse', ok('{"hookSpecificOutput":'), { decision: 'allow', reason: null }],
  ['exit 2: stderr is the reason', exit(2, 'Say why first.\n'), { decision: 'block', reason: 'Say why first.' }],
  ['exit 2 ignores JSON on stdout', exit(2, '', specific('allow')), { decision: 'block', reason: null }],
  ['exit 1: a non-blocking error', exit(1, 'boom'), { decision: 'error', reason: 'boom' }],
  ['exit 1 with a deny on stdout: JSON is read on exit 0 only', exit(1, '', specific('deny', 'x')), { decision: 'error', reason: 'exit 1' }],
  ['exit 127 (no such command)', exit(127, 'sh: 1: nope: not found'), { decision: 'error', reason: 'sh: 1: nope: not found' }],
  ['killed by a signal', { exitCode: null, signal: 'SIGTERM', timedOut: false, stdout: '', stderr: '' }, { decision: 'error', reason: 'killed by SIGTERM' }],
  ['could not start', { exitCode: null, timedOut: false, spawnError: 'could not start: spawn /nope ENOENT', stdout: '', stderr: '' }, { decision: 'error', reason: 'could not start: spawn /nope ENOENT' }],
  ['cut at its timeout', { exitCode: null, signal: 'SIGKILL', timedOut: true, timeoutMs: 1500, stdout: '', stderr: '' }, { decision: 'timeout', reason: 'timed out after 1.5 s; its process group was killed' }],
];

describe('replay: a hook answer read as Claude Code reads it', () => {
  for (const [name, outcome, expected] of table) {
    it(name, () => assert.deepEqual(answerOf(outcome), expected));
  }
});
