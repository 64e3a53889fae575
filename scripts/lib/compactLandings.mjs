// Replay's landing table (src/core/replay/landings.json, `npm run landings`) as the bundles carry it: the
// same object, its rows written as arrays and rebuilt when the bundle loads, so the VSIX does not carry
// each row's seven key names (about 4 KB of the packed VSIX). A unit test holds the module to the JSON.
const ROW_KEYS = ['version', 'mode', 'place', 'calls', 'on_disk_at_fire', 'not_while_hooks_run'];
const DELAY_KEYS = ['calls', 'min_ms', 'p10_ms', 'p50_ms', 'p90_ms', 'max_ms'];

/** The ES module source that default-exports `table`, rows compacted. */
export function compactLandingsModule(table) {
  const { rows, ...rest } = table;
  for (const r of rows) {
    const keys = Object.keys(r);
    const known = [...ROW_KEYS, 'landed_while_hooks_run'];
    if (keys.length !== known.length || keys.some((k, i) => k !== known[i])) throw new Error(`landings.json: a row with other keys than ${known.join(', ')}: ${keys.join(', ')}`);
    const d = r.landed_while_hooks_run;
    if (d !== null && Object.keys(d).join() !== DELAY_KEYS.join()) throw new Error(`landings.json: a landing range with other keys than ${DELAY_KEYS.join(', ')}`);
  }
  const packed = rows.map((r) => [...ROW_KEYS.map((k) => r[k]), r.landed_while_hooks_run === null ? 0 : DELAY_KEYS.map((k) => r.landed_while_hooks_run[k])]);
  return [
    `const K = ${JSON.stringify(ROW_KEYS)};`,
    `const D = ${JSON.stringify(DELAY_KEYS)};`,
    `const R = ${JSON.stringify(packed)};`,
    'const from = (keys, values) => Object.fromEntries(keys.map((k, i) => [k, values[i]]));',
    `export default { ...${JSON.stringify(rest)}, rows: R.map((r) => ({ ...from(K, r), landed_while_hooks_run: r[K.length] === 0 ? null : from(D, r[K.length]) })) };`,
    '',
  ].join('\n');
}
