import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

// The VSIX ships the CLI beside the extension (docs/INSTALL.md, "The CLI as a command"): dist/cli.js
// requires each subcommand's bundle when it runs, so a bundle .vscodeignore does not admit is a
// subcommand that fails from the installed extension ("Cannot find module './cli-complete.js'").
// Its size bound is test/e2e/run.mjs's, on the packaged file (BENCHMARKS.md, "What is in the VSIX").
const repo = path.resolve(__dirname, '../../..');

/** The outfiles of scripts/build.mjs's `cliLazyModules`: the bundles dist/cli.js requires by name. */
export function lazyBundles(buildScript: string): string[] {
  const block = /const cliLazyModules = \{([\s\S]*?)\n\};/.exec(buildScript)?.[1] ?? '';
  return [...block.matchAll(/^\s*'src\/[^']+\.ts':\s*'(dist\/[^']+\.js)',/gm)].map((m) => m[1]);
}

/** The paths a .vscodeignore allow-list admits: its `!` lines as regexes (`**` any path, `*` within a folder). */
export function admitted(ignoreText: string): RegExp[] {
  return ignoreText
    .split('\n')
    .filter((l) => l.startsWith('!'))
    .map((l) => new RegExp(`^${l.slice(1).trim().replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '.*')}$`));
}

describe('the VSIX holds what the installed extension runs', () => {
  it('reads the build script and the allow-list (the readers work)', () => {
    assert.deepEqual(lazyBundles("const cliLazyModules = {\n  'src/cli/a.ts': 'dist/cli-a.js',\n  // x\n  'src/b.ts': 'dist/b.js',\n};\n"), ['dist/cli-a.js', 'dist/b.js']);
    const allow = admitted('**\n!dist/cli-*.js\n!media/**\n!README.md\n');
    const ok = (p: string) => allow.some((re) => re.test(p));
    assert.deepEqual(['dist/cli-a.js', 'dist/cli-a.js.map', 'dist/x/cli-a.js', 'media/a/b.css', 'README.md', 'READMEXmd'].map(ok), [true, false, false, true, true, false]);
  });

  it('admits every bundle dist/cli.js may require', () => {
    const bundles = lazyBundles(readFileSync(path.join(repo, 'scripts/build.mjs'), 'utf8'));
    assert.ok(bundles.length >= 10, `found ${bundles.length} bundles in scripts/build.mjs's cliLazyModules`);
    const allow = admitted(readFileSync(path.join(repo, '.vscodeignore'), 'utf8'));
    const left = ['dist/cli.js', ...bundles].filter((b) => !allow.some((re) => re.test(b)));
    assert.deepEqual(left, [], `.vscodeignore leaves out ${left.join(', ')}`);
  });
});
