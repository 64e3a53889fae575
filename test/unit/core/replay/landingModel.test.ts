import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CALL_PLACES, LANDING_TABLE, landingModelFor } from '../../../../src/core/replay/landingModel';

const repoRoot = path.resolve(__dirname, '../../../..');

describe("replay's landing model: the measured table, and the page that shows it", () => {
  it('docs/COMPATIBILITY.md shows exactly src/core/replay/landings.json (npm run landings writes both)', async () => {
    const { landingsSection, DOC_BEGIN, DOC_END } = (await import(pathToFileURL(path.join(repoRoot, 'scripts/lib/landings.mjs')).href)) as {
      landingsSection: (t: unknown) => string;
      DOC_BEGIN: string;
      DOC_END: string;
    };
    const doc = fs.readFileSync(path.join(repoRoot, 'docs/COMPATIBILITY.md'), 'utf8');
    const begin = doc.indexOf(DOC_BEGIN);
    const end = doc.indexOf(DOC_END);
    assert.ok(begin >= 0 && end > begin, 'the section is there');
    assert.equal(doc.slice(begin, end + DOC_END.length), landingsSection(LANDING_TABLE));
  });

  it('holds every mode and place of the calls it was measured on, each row adding up, for 2.1.280 and 2.1.332 at least', () => {
    const versions = new Set(LANDING_TABLE.rows.map((r) => r.version));
    for (const v of ['2.1.280', '2.1.332']) assert.ok(versions.has(v), v);
    for (const r of LANDING_TABLE.rows) {
      assert.ok(CALL_PLACES.includes(r.place), r.place);
      assert.equal(r.on_disk_at_fire + r.not_while_hooks_run + (r.landed_while_hooks_run?.calls ?? 0), r.calls, JSON.stringify(r));
      const d = r.landed_while_hooks_run;
      if (d) assert.ok(d.min_ms <= d.p10_ms && d.p10_ms <= d.p50_ms && d.p50_ms <= d.p90_ms && d.p90_ms <= d.max_ms, JSON.stringify(d));
    }
    assert.ok(LANDING_TABLE.hook_start_skew_ms >= 0);
  });

  it('what the field measured, as the model gives it: interactive 2.1.332 holds a first call while its hooks run (most of the time); 2.1.280 and print do not', () => {
    for (const place of ['opening', 'first', 'first-after-text'] as const) {
      const held = landingModelFor(LANDING_TABLE, '2.1.332', 'interactive', place);
      assert.ok(held.notWhileHooksRun > held.onDiskAtFire + (held.landed?.calls ?? 0), JSON.stringify(held));
    }
    for (const [version, mode] of [['2.1.280', 'interactive'], ['2.1.332', 'print']] as const) {
      const m = landingModelFor(LANDING_TABLE, version, mode, 'first');
      assert.ok(m.landed !== null && m.notWhileHooksRun === 0, `${version} ${mode}: ${JSON.stringify(m)}`);
    }
  });
});
