import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const repoRoot = path.resolve(__dirname, '../../..');

describe("the bundles' landing table (scripts/lib/compactLandings.mjs)", () => {
  it('is the committed landings.json once loaded, key order and nulls included; a row it does not know is refused', async () => {
    const { compactLandingsModule } = (await import(pathToFileURL(path.join(repoRoot, 'scripts/lib/compactLandings.mjs')).href)) as {
      compactLandingsModule(table: unknown): string;
    };
    const json = JSON.parse(fs.readFileSync(path.join(repoRoot, 'src/core/replay/landings.json'), 'utf8')) as { rows: Array<Record<string, unknown>> };
    assert.ok(json.rows.some((r) => r.landed_while_hooks_run === null) && json.rows.some((r) => r.landed_while_hooks_run !== null));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-compact-landings-'));
    try {
      const file = path.join(dir, 'landings.mjs');
      fs.writeFileSync(file, compactLandingsModule(json));
      const loaded = ((await import(pathToFileURL(file).href)) as { default: unknown }).default;
      assert.deepEqual(loaded, json);
      assert.equal(JSON.stringify(loaded), JSON.stringify(json), 'the same keys in the same order');
      assert.ok(fs.statSync(file).size < JSON.stringify(json).length * 0.7, 'smaller than the JSON');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.throws(() => compactLandingsModule({ ...json, rows: [{ ...json.rows[0], extra: 1 }] }), /other keys/);
  });
});
