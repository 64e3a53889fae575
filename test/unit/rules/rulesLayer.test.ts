import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

// src/rules/ is what every per-call program (the hook, the mod, the status line, `message`, the
// receiver) shares with the engine: it must load nothing heavy, so the bundles stay small and the mod,
// which runs inside Claude Code, gets pure code. Only `node:` built-ins and each other.
const rules = path.resolve(__dirname, '../../../src/rules');

function importsOf(text: string): string[] {
  const specs = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)['"]([^'"]+)['"]/gm)].map((m) => m[1]);
  return [...new Set(specs)];
}

describe('the rules layer (src/rules/)', () => {
  it('reads imports (the reader works)', () => {
    assert.deepEqual(importsOf("import { a } from 'node:fs';\nimport type { B } from './b';\nconst c = require('zod');\nimport 'x';\nconst k = ['watched_from', 'y'];"), ['node:fs', './b', 'zod', 'x']);
  });

  for (const name of readdirSync(rules).filter((n) => n.endsWith('.ts'))) {
    it(`${name} imports only node: built-ins and src/rules/`, () => {
      const bad = importsOf(readFileSync(path.join(rules, name), 'utf8')).filter((s) => !s.startsWith('node:') && !/^\.\/[A-Za-z0-9_]+$/.test(s));
      assert.deepEqual(bad, [], `${name} imports ${bad.join(', ')}`);
    });
  }
});

// docs/ARCHITECTURE.md: the hook is standalone, its rules the same ones the engine uses, nothing else.
describe('the hook (src/hook/)', () => {
  const hook = path.resolve(__dirname, '../../../src/hook');
  for (const name of readdirSync(hook).filter((n) => n.endsWith('.ts'))) {
    it(`${name} imports only node: built-ins, src/hook/ and src/rules/`, () => {
      const bad = importsOf(readFileSync(path.join(hook, name), 'utf8')).filter((s) => !s.startsWith('node:') && !/^\.\/[A-Za-z0-9_]+$/.test(s) && !/^\.\.\/rules\/[A-Za-z0-9_]+$/.test(s));
      assert.deepEqual(bad, [], `${name} imports ${bad.join(', ')}`);
    });
  }
});
