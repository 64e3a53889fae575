import * as assert from 'node:assert/strict';
import { matcherMatches } from '../../../../src/core/replay/matcher';

const table: Array<[unknown, string, boolean]> = [
  [undefined, 'Bash', true],
  ['', 'Bash', true],
  ['*', 'mcp__memory__read', true],
  ['Bash', 'Bash', true],
  ['Bash', 'BashOutput', false],
  ['bash', 'Bash', false],
  ['Edit|Write', 'Write', true],
  ['Edit|Write', 'MultiEdit', false],
  ['Notebook.*', 'NotebookEdit', true],
  ['mcp__memory__.*', 'mcp__memory__create', true],
  ['mcp__memory', 'mcp__memory__create', false],
  ['^B.*h$', 'Bash', true],
  ['^B.*h$', 'BashOutput', false],
  ['Ed', 'Edit', false],
  ['Ed.', 'Edit', true],
  ['(unclosed', 'Bash', false],
  [42, 'Bash', false],
];

describe('replay: matchers applied as Claude Code applies them', () => {
  for (const [matcher, tool, expected] of table) {
    it(`${JSON.stringify(matcher)} ${expected ? 'takes' : 'leaves'} ${tool}`, () => assert.equal(matcherMatches(matcher, tool), expected));
  }
});
