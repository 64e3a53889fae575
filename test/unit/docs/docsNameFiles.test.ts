import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

// The docs a newcomer reads to find their way name the repo's files, and so do the comments of src/; a
// file renamed or removed must take its name out of them (issue 31: docs that stay true; issue 41: no
// dangling file references). CHANGELOG.md is history: it names files as they were.
const repo = path.resolve(__dirname, '../../..');
const DOCS = ['DEVELOPERS.md', 'README.md', 'BENCHMARKS.md', ...['docs', 'docs/benchmarks'].flatMap((d) => readdirSync(path.join(repo, d)).filter((n) => n.endsWith('.md')).map((n) => `${d}/${n}`))];
const ROOTS = ['src', 'test', 'scripts', 'bench', 'plugin', 'docs', 'schema', 'media', '.ci', '.claude-plugin', 'examples'];

/** Repo paths a markdown text names: `src/…`, `test/…` and the other top folders, up to their last word character or slash. */
export function namedPaths(text: string): string[] {
  const roots = ROOTS.map((r) => r.replace('.', '\\.')).join('|');
  const re = new RegExp(`(?<![\\w./~-])((?:${roots})/[A-Za-z0-9_./-]*[A-Za-z0-9_/])`, 'g');
  return [...new Set([...text.matchAll(re)].map((m) => m[1]))];
}

/** Paths a source file names relative to itself (`./x.ts`, `../rules/y.ts`), of the kinds the repo's sources are. */
export function relativePaths(text: string): string[] {
  return [...new Set([...text.matchAll(/(?<![\w./-])(\.\.?\/[A-Za-z0-9_./-]*[A-Za-z0-9_])/g)].map((m) => m[1]).filter((p) => !/\.[a-z]+$/.test(p) || /\.(ts|mjs|c|h|json)$/.test(p)))];
}

/**
 * Source file names a text gives on their own (`tailReadAhead.ts`, `capture.c`), outside a command line (a
 * backticked span with a space: `npx tsx x.ts`) and a system header (`#include <stdint.h>`).
 */
export function bareNames(text: string): string[] {
  const prose = text.replace(/`([^`\n]*)`/g, (span, inner: string) => (/\s/.test(inner) ? '' : span)).replace(/<[\w./]+\.h>/g, '');
  return [...new Set([...prose.matchAll(/(?<![\w./<-])([A-Za-z][A-Za-z0-9_]*\.(?:ts|mjs|c|h))(?!\w)/g)].map((m) => m[1]))];
}

/** Every file git tracks (the worktree's names), and their base names. */
function trackedFiles(): { paths: string[]; names: Set<string> } {
  const paths = spawnSync('git', ['ls-files'], { cwd: repo, encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  return { paths, names: new Set(paths.map((p) => path.basename(p))) };
}

/** Generated places (gitignored: build output, bench scratch) are named before they exist. */
function ignoredByGit(p: string): boolean {
  return spawnSync('git', ['check-ignore', '-q', p], { cwd: repo }).status === 0;
}

describe('docs name files that exist', () => {
  it('finds the paths a text names (the reader works)', () => {
    assert.deepEqual(namedPaths('see `src/core/tail.ts`, src/mod/ and (test/unit/helpers/manualClock.ts); not a/src/x.ts or ~/src/y.ts'), ['src/core/tail.ts', 'src/mod/', 'test/unit/helpers/manualClock.ts']);
  });

  it('finds relative paths and file names (the readers work)', () => {
    assert.deepEqual(relativePaths('see ./tail.ts and (../rules/clock.ts), ./wasm/recall.c, ./constants; not ./hook.sh or a/./b'), ['./tail.ts', '../rules/clock.ts', './wasm/recall.c', './constants']);
    assert.deepEqual(bareNames('`tailReadAhead.ts` and capture.c; not `npx tsx x.ts`, #include <stdint.h>, index.d.ts or a/b.ts'), ['tailReadAhead.ts', 'capture.c']);
  });

  const tracked = trackedFiles();
  for (const doc of DOCS) {
    it(`${doc}: every repo path it names exists`, () => {
      const text = readFileSync(path.join(repo, doc), 'utf8');
      const missing = namedPaths(text).filter((p) => !existsSync(path.join(repo, p)) && !ignoredByGit(p));
      assert.deepEqual(missing, [], `${doc} names files that do not exist`);
      const unknown = bareNames(text).filter((n) => !tracked.names.has(n));
      assert.deepEqual(unknown, [], `${doc} names files no folder holds`);
    });
  }

  it("src/: every file its comments name, from the repo's root, from the file's folder or by name alone, exists", () => {
    const dangling: string[] = [];
    for (const file of tracked.paths.filter((p) => /^src\/.*\.(ts|c|h)$/.test(p))) {
      const text = readFileSync(path.join(repo, file), 'utf8');
      for (const p of namedPaths(text)) if (!existsSync(path.join(repo, p)) && !ignoredByGit(p)) dangling.push(`${file}: ${p}`);
      for (const p of relativePaths(text)) {
        const at = path.join(repo, path.dirname(file), p);
        if (![at, `${at}.ts`, path.join(at, 'index.ts')].some((c) => existsSync(c))) dangling.push(`${file}: ${p}`);
      }
      for (const n of bareNames(text)) if (!tracked.names.has(n)) dangling.push(`${file}: ${n}`);
    }
    assert.deepEqual(dangling, [], 'src/ names files that do not exist');
  });
});
