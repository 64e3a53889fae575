import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

// The docs a newcomer reads to find their way name the repo's files; a file renamed or removed
// must take its name out of them (issue 31: docs that stay true).
const repo = path.resolve(__dirname, '../../..');
const DOCS = ['DEVELOPERS.md', 'README.md', 'BENCHMARKS.md', ...['docs', 'docs/benchmarks'].flatMap((d) => readdirSync(path.join(repo, d)).filter((n) => n.endsWith('.md')).map((n) => `${d}/${n}`))];
const ROOTS = ['src', 'test', 'scripts', 'bench', 'plugin', 'docs', 'schema', 'media', '.ci', '.claude-plugin', 'examples'];

/** Repo paths a markdown text names: `src/…`, `test/…` and the other top folders, up to their last word character or slash. */
export function namedPaths(text: string): string[] {
  const roots = ROOTS.map((r) => r.replace('.', '\\.')).join('|');
  const re = new RegExp(`(?<![\\w./~-])((?:${roots})/[A-Za-z0-9_./-]*[A-Za-z0-9_/])`, 'g');
  return [...new Set([...text.matchAll(re)].map((m) => m[1]))];
}

/** Generated places (gitignored: build output, bench scratch) are named before they exist. */
function ignoredByGit(p: string): boolean {
  return spawnSync('git', ['check-ignore', '-q', p], { cwd: repo }).status === 0;
}

describe('docs name files that exist', () => {
  it('finds the paths a text names (the reader works)', () => {
    assert.deepEqual(namedPaths('see `src/core/tail.ts`, src/mod/ and (test/unit/helpers/manualClock.ts); not a/src/x.ts or ~/src/y.ts'), ['src/core/tail.ts', 'src/mod/', 'test/unit/helpers/manualClock.ts']);
  });

  for (const doc of DOCS) {
    it(`${doc}: every repo path it names exists`, () => {
      const text = readFileSync(path.join(repo, doc), 'utf8');
      const missing = namedPaths(text).filter((p) => !existsSync(path.join(repo, p)) && !ignoredByGit(p));
      assert.deepEqual(missing, [], `${doc} names files that do not exist`);
    });
  }
});
