import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLAUDE_CODE, knownOf, versionSentence, type BehaviourTable } from '../../../../src/core/compat/claudeCode';
import * as since from '../../../../src/rules/claudeCodeSince';

const repoRoot = path.resolve(__dirname, '../../../..');

interface Lib {
  behaviourTable: (rows: unknown[]) => BehaviourTable;
  compatSection: (rows: unknown[]) => string;
  decisions: (row: unknown) => Record<string, boolean | null>;
  knownOf: (t: BehaviourTable, version: string, what: string) => unknown;
  sinceModule: (t: BehaviourTable) => string;
  DOC_BEGIN: string;
  DOC_END: string;
}

const lib = async () => (await import(pathToFileURL(path.join(repoRoot, 'scripts/lib/compatRows.mjs')).href)) as Lib;
const rows = () =>
  fs
    .readFileSync(path.join(repoRoot, 'test/field/compat/results.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { version: string });

/** A row as the runner writes it, with only what decisions() reads. */
function row(version: string, o: { holds?: [number, number]; mods?: boolean; exec?: boolean }) {
  return {
    version,
    at: '2026-12-07T00:00:00.000Z',
    runner: { os: 'linux x64', node: '20', cores: 2, load1: 1 },
    scenarios: {},
    interactive: o.holds ? { opening: { calls: 1, held: 0, at_fire: 0 }, first: { calls: o.holds[1], held: o.holds[0], at_fire: 0 }, later: { calls: 1, held: 0, at_fire: 0 } } : null,
    print: null,
    mods_load: o.mods ?? null,
    classic_pre_tool_use: o.mods ? true : null,
    held_text_equal: o.mods ? { calls: 2, equal: 2 } : null,
    exec_form_runs: o.exec === undefined ? null : { calls: 2, ran: o.exec ? 2 : 0 },
  };
}

describe('what each Claude Code release does: the results file, the table the code reads, the page', () => {
  it('src/core/compat/claudeCode.json is exactly what test/field/compat/results.jsonl gives (npm run compat writes both)', async () => {
    const { behaviourTable } = await lib();
    assert.deepEqual(CLAUDE_CODE, behaviourTable(rows()));
  });

  it('src/rules/claudeCodeSince.ts, the versions the messages of the hook, mod and message tool name, is generated from the same table', async () => {
    const { sinceModule } = await lib();
    assert.equal(fs.readFileSync(path.join(repoRoot, 'src/rules/claudeCodeSince.ts'), 'utf8'), sinceModule(CLAUDE_CODE));
    assert.equal(since.MOD_LOADS_SINCE, CLAUDE_CODE.rules.mods.since);
    assert.equal(since.HELD_MESSAGE_SINCE, CLAUDE_CODE.rules.held_text.since);
    assert.equal(since.claudeCodeSince('2.1.326'), 'Claude Code 2.1.326+');
    assert.equal(since.claudeCodeSince(null), 'no Claude Code measured yet');
  });

  it("docs/COMPATIBILITY.md's table is generated from the same rows", async () => {
    const { compatSection, DOC_BEGIN, DOC_END } = await lib();
    const doc = fs.readFileSync(path.join(repoRoot, 'docs/COMPATIBILITY.md'), 'utf8');
    const begin = doc.indexOf(DOC_BEGIN);
    const end = doc.indexOf(DOC_END);
    assert.ok(begin >= 0 && end > begin, 'the section is there');
    assert.equal(doc.slice(begin, end + DOC_END.length), compatSection(rows()));
  });

  it('the rules: since is the split the fewest measured versions disagree with; the change is called out, a version against it kept as an exception', async () => {
    const { behaviourTable } = await lib();
    const t = behaviourTable([
      row('2.1.280', { holds: [2, 3], mods: false, exec: true }),
      row('2.1.283', { holds: [3, 3], mods: false, exec: true }),
      row('2.1.290', { holds: [2, 3], mods: true, exec: true }),
      // Run again: the later row replaces the earlier one.
      row('2.1.280', { holds: [0, 3], mods: false, exec: true }),
    ]);
    assert.deepEqual(t.rules.holds, { since: '2.1.283', last_without: '2.1.280' });
    assert.deepEqual(t.rules.mods, { since: '2.1.290', last_without: '2.1.283' });
    assert.deepEqual(t.rules.exec, { since: '2.1.280', last_without: null });
    // classic and held_text are told only where the mod loads: no change between a version that cannot tell and one that can.
    assert.deepEqual(t.rules.classic, { since: '2.1.290', last_without: null });
    assert.deepEqual(
      t.changes.map((c) => `${c.what} ${c.from}→${c.to} ${c.now}`),
      ['holds 2.1.280→2.1.283 true', 'mods 2.1.283→2.1.290 true'],
    );
    // A version measured once against its neighbours is an exception to the rule, not a change back and forth.
    const noisy = behaviourTable([
      row('2.1.280', { holds: [0, 3] }),
      row('2.1.281', { holds: [3, 3] }),
      row('2.1.283', { holds: [2, 3] }),
      row('2.1.285', { holds: [0, 3] }),
      row('2.1.290', { holds: [3, 3] }),
    ]);
    assert.deepEqual(noisy.rules.holds, { since: '2.1.281', last_without: '2.1.280' });
    assert.deepEqual(noisy.exceptions, [{ what: 'holds', version: '2.1.285', value: false }]);
    assert.deepEqual(noisy.changes.map((c) => `${c.what} ${c.from}→${c.to}`), ['holds 2.1.280→2.1.281']);
    // Beside the exception the rule says yes, but a measured no is next to it: unknown, not the rule's answer.
    assert.deepEqual(knownOf('2.1.284', 'holds', noisy), { value: undefined, how: 'unknown', below: '2.1.283', above: '2.1.285' });
    assert.equal(versionSentence('2.1.284', 'holds', noisy), "2.1.284: unknown for this version whether it holds a message's records while its PreToolUse hooks run (not measured; 2.1.283 did, 2.1.285 did not)");
    assert.deepEqual(knownOf('2.1.287', 'holds', noisy), { value: undefined, how: 'unknown', below: '2.1.285', above: '2.1.290' });
    assert.deepEqual(knownOf('2.1.282', 'holds', noisy), { value: true, how: 'between', below: '2.1.281', above: '2.1.283' });
    // The newest measured against the rule: a version past it is unknown (the rule and the row disagree).
    const lastAgainst = behaviourTable([row('2.1.280', { holds: [0, 3] }), row('2.1.281', { holds: [3, 3] }), row('2.1.282', { holds: [3, 3] }), row('2.1.283', { holds: [2, 3] }), row('2.1.284', { holds: [0, 3] })]);
    assert.deepEqual(lastAgainst.rules.holds, { since: '2.1.281', last_without: '2.1.280' });
    assert.deepEqual(knownOf('2.1.290', 'holds', lastAgainst), { value: undefined, how: 'unknown', below: '2.1.284' });
    assert.equal(versionSentence('2.1.290', 'holds', lastAgainst), "2.1.290: unknown for this version whether it holds a message's records while its PreToolUse hooks run (not measured; 2.1.284 did not)");
    // Before the oldest measured: the rule's side, where the oldest agrees.
    assert.deepEqual(knownOf('2.1.100', 'holds', lastAgainst), { value: false, how: 'rule' });
    // The views say what that version's one session showed, with its count.
    assert.equal(versionSentence('2.1.285', 'holds', noisy), "2.1.285 writes a message's records without waiting for its PreToolUse hooks (measured: 0 of 3 first calls of a message held)");
    // A tie keeps the later split: no version is said to do what none after it was seen to.
    assert.deepEqual(behaviourTable([row('2.1.280', { holds: [0, 3] }), row('2.1.281', { holds: [1, 3] }), row('2.1.282', { holds: [0, 3] })]).rules.holds, { since: null, last_without: '2.1.282' });
    // A version between two measured ones that differ is unknown, said so; past the measured ones it is what the rule says, and says how.
    assert.deepEqual(knownOf('2.1.285', 'mods', t), { value: undefined, how: 'unknown', below: '2.1.283', above: '2.1.290' });
    assert.equal(versionSentence('2.1.285', 'mods', t), "2.1.285: unknown for this version whether it loads the plugin's mod (not measured; 2.1.283 did not, 2.1.290 did)");
    assert.deepEqual(knownOf('2.1.282', 'holds', t), { value: undefined, how: 'unknown', below: '2.1.280', above: '2.1.283' });
    // Between two measured ones that agree: theirs, named.
    assert.deepEqual(knownOf('2.1.286', 'holds', t), { value: true, how: 'between', below: '2.1.283', above: '2.1.290' });
    assert.equal(versionSentence('2.1.286', 'holds', t), "2.1.286 holds a message's records while its PreToolUse hooks run (as 2.1.283 and 2.1.290 measured; this version not measured)");
    assert.deepEqual(knownOf('2.1.301', 'mods', t), { value: true, how: 'rule' });
    assert.deepEqual(knownOf('2.1.200', 'holds', t), { value: false, how: 'rule' });
    assert.deepEqual(knownOf('2.1.283', 'holds', t), { value: true, how: 'measured' });
    assert.equal(versionSentence('2.1.283', 'holds', t), "2.1.283 holds a message's records while its PreToolUse hooks run (measured: 3 of 3 first calls of a message held)");
    assert.equal(versionSentence('2.1.290', 'mods', t), "2.1.290 loads the plugin's mod (measured)");
    assert.equal(versionSentence('2.1.301', 'holds', t), "2.1.301 holds a message's records while its PreToolUse hooks run (as 2.1.283+; this version not measured)");
    assert.equal(versionSentence(undefined, 'holds', t), undefined);
  });

  it("the field suite's reading of the table (plain Node) is the code's, for every version from 2.1.100 to 2.1.400", async () => {
    const m = await lib();
    for (let p = 100; p <= 400; p++) {
      for (const what of ['holds', 'mods', 'classic', 'held_text', 'exec', 'stat_lags'] as const) {
        assert.deepEqual(m.knownOf(CLAUDE_CODE, `2.1.${p}`, what), knownOf(`2.1.${p}`, what), `2.1.${p} ${what}`);
      }
    }
  });

  it('the measured rows say what the field suite has always asserted: 2.1.280 does not hold, 2.1.332 holds and loads the mod', () => {
    assert.deepEqual(knownOf('2.1.280', 'holds'), { value: false, how: 'measured' });
    assert.deepEqual(knownOf('2.1.332', 'holds'), { value: true, how: 'measured' });
    assert.deepEqual(knownOf('2.1.332', 'mods'), { value: true, how: 'measured' });
    assert.deepEqual(knownOf('2.1.280', 'mods'), { value: false, how: 'measured' });
  });

  it('a version not measured between measured rows: theirs where they agree, unknown where they do not, never the rule against them', () => {
    const told = (what: 'holds' | 'mods' | 'held_text' | 'classic') => CLAUDE_CODE.versions.filter((r) => r[what] !== null);
    for (const what of ['holds', 'mods', 'held_text', 'classic'] as const) {
      const rows = told(what);
      for (const [i, lo] of rows.slice(0, -1).entries()) {
        const hi = rows[i + 1]!;
        const [a, b, c] = lo.version.split('.').map(Number) as [number, number, number];
        // Every patch release strictly between two neighbouring measured rows of the same minor.
        if (hi.version.split('.').slice(0, 2).join('.') !== `${a}.${b}`) continue;
        for (let p = c + 1; p < Number(hi.version.split('.')[2]); p++) {
          const k = knownOf(`${a}.${b}.${p}`, what);
          if (lo[what] === hi[what]) assert.deepEqual(k, { value: lo[what], how: 'between', below: lo.version, above: hi.version }, `${a}.${b}.${p} ${what}`);
          else assert.deepEqual(k, { value: undefined, how: 'unknown', below: lo.version, above: hi.version }, `${a}.${b}.${p} ${what}`);
        }
      }
    }
    // As measured 2026-12-07: 2.1.174 did not hold, 2.1.186 did; 2.1.186–2.1.241 held, 2.1.257 did not (the rule, 2.1.281+, says no for all of them).
    assert.equal(knownOf('2.1.180', 'holds')?.how, 'unknown');
    assert.deepEqual(knownOf('2.1.195', 'holds'), { value: true, how: 'between', below: '2.1.186', above: '2.1.200' });
    assert.equal(knownOf('2.1.250', 'holds')?.how, 'unknown');
    // Where the mod does not load, nothing tells whether it gets classic.PreToolUse; no held message reached a hook there.
    assert.equal(knownOf('2.1.250', 'classic'), undefined);
    assert.equal(knownOf('2.1.250', 'held_text')?.value, false);
  });
});
