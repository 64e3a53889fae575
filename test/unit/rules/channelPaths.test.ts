import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import fc from 'fast-check';
import { installedHookPathOf, isTranscriptPathAllowed, sessionIdOfChannelFile } from '../../../src/rules/channelPaths';
import { chooseChannelFilesToPrune } from '../../../src/core/channel/prune';

const claudeDir = path.resolve('/home/u/.claude');
const inProjects = (...parts: string[]) => path.join(claudeDir, 'projects', ...parts);

describe('channel paths', () => {
  it('allows transcripts inside <claudeDir>/projects/', () => {
    assert.ok(isTranscriptPathAllowed(inProjects('-work', 's.jsonl'), claudeDir));
    assert.ok(isTranscriptPathAllowed(inProjects('-work', 's', 'subagents', 'agent-1.jsonl'), claudeDir));
    assert.ok(isTranscriptPathAllowed(inProjects('-work', 'x', '..', 's.jsonl'), claudeDir), '.. that stays inside is fine');
  });

  it('refuses anything that escapes projects/, is relative, is not a .jsonl, or holds a NUL', () => {
    const refused = [
      inProjects('..', 'settings.json'),
      inProjects('..', '..', '.ssh', 'id_rsa.jsonl'),
      inProjects('-work', '..', '..', 'history.jsonl'),
      inProjects(),
      inProjects('-work', 'notes.txt'),
      path.join(claudeDir, 'projects-evil', 's.jsonl'),
      'projects/-work/s.jsonl',
      '/etc/passwd',
      inProjects('-work', 's.jsonl') + '\0.jsonl',
      '',
    ];
    for (const p of refused) assert.equal(isTranscriptPathAllowed(p, claudeDir), false, JSON.stringify(p));
  });

  it('whatever the path, an allowed one resolves strictly inside projects/ (property)', () => {
    const segment = fc.constantFrom('..', '.', 'a', '-work', 's.jsonl', '', '..a', 'projects');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), (segs) => {
        const p = path.join(claudeDir, 'projects', ...segs);
        if (isTranscriptPathAllowed(p, claudeDir)) {
          assert.ok(path.resolve(p).startsWith(inProjects() + path.sep), p);
        }
      }),
    );
  });

  it('checks Windows paths with the win32 rules', () => {
    const win = path.win32;
    assert.ok(isTranscriptPathAllowed('C:\\Users\\u\\.claude\\projects\\C--w\\s.jsonl', 'C:\\Users\\u\\.claude', win));
    assert.equal(isTranscriptPathAllowed('C:\\Users\\u\\.claude\\projects\\..\\x.jsonl', 'C:\\Users\\u\\.claude', win), false);
    assert.equal(isTranscriptPathAllowed('D:\\other\\s.jsonl', 'C:\\Users\\u\\.claude', win), false);
  });

  it('names only session files as channel files', () => {
    assert.equal(sessionIdOfChannelFile('0b7c5a8e-1111-4222-8333-944455556666.jsonl'), '0b7c5a8e-1111-4222-8333-944455556666');
    for (const foreign of ['bin', 'README.md', '.x.jsonl', 'a.jsonl.tmp', '.jsonl', 'a b.jsonl', 'settings.json']) {
      assert.equal(sessionIdOfChannelFile(foreign), undefined, foreign);
    }
  });

  it('keeps the installed hook under <claudeDir>/transcript-lag/bin/', () => {
    assert.equal(installedHookPathOf(claudeDir), path.join(claudeDir, 'transcript-lag', 'bin', 'transcript-lag-hook.js'));
  });
});

describe('channel pruning', () => {
  const now = 1_800_000_000_000;
  const day = 24 * 60 * 60 * 1000;

  it('chooses session files older than the age, and only those', () => {
    const entries = [
      { name: 'old-1.jsonl', mtimeMs: now - 8 * day },
      { name: 'fresh.jsonl', mtimeMs: now - 1 * day },
      { name: 'edge.jsonl', mtimeMs: now - 7 * day },
      { name: 'future.jsonl', mtimeMs: now + day },
      { name: 'bin', mtimeMs: now - 100 * day },
      { name: 'notes.txt', mtimeMs: now - 100 * day },
      { name: '..jsonl', mtimeMs: now - 100 * day },
      { name: 'old-0.jsonl', mtimeMs: now - 30 * day },
    ];
    assert.deepEqual(chooseChannelFilesToPrune(entries, now, 7 * day), ['old-0.jsonl', 'old-1.jsonl']);
  });

  it('chooses nothing for a zero, negative or NaN age', () => {
    const entries = [{ name: 'a.jsonl', mtimeMs: 0 }];
    for (const age of [0, -1, Number.NaN]) assert.deepEqual(chooseChannelFilesToPrune(entries, now, age), []);
  });
});
