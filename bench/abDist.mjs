// Two builds of the CLI side by side: `analyze FILE --json` with dist A, then
// with dist B, alternating which goes first, N pairs; prints both medians and
// the paired differences (B - A), whose mean and median are what a change is
// judged by here: on a machine whose speed drifts, a pair shares its moment.
//
//   cp -r dist /tmp/dist-before   # before the change
//   npm run build                 # after it
//   node bench/abDist.mjs FILE 16 /tmp/dist-before dist
//
// Env assignments may prefix a dist: "UV_THREADPOOL_SIZE=2|dist". Node runs
// without NODE_EXTRA_CA_CERTS, as in the bench (see BENCHMARKS.md).
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const [file, pairsArg, a, b] = process.argv.slice(2);
const pairs = Number(pairsArg);
if (!file || !a || !b || !(pairs >= 2)) {
  console.error('usage: node bench/abDist.mjs FILE PAIRS [ENV=V …|]DIST_A [ENV=V …|]DIST_B');
  process.exit(2);
}

function contender(spec) {
  const [assignments, dist] = spec.includes('|') ? spec.split('|') : ['', spec];
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  for (const kv of assignments.split(/\s+/).filter(Boolean)) {
    const at = kv.indexOf('=');
    env[kv.slice(0, at)] = kv.slice(at + 1);
  }
  const cli = path.resolve(dist, 'cli.js');
  return () => {
    const start = process.hrtime.bigint();
    const run = spawnSync(process.execPath, [cli, 'analyze', file, '--json'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    if (run.status !== 0) throw new Error(`${spec}: exit ${run.status}`);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const runA = contender(a);
const runB = contender(b);
const times = { a: [], b: [] };
for (let i = 0; i < pairs; i++) {
  // Alternate the order, so neither always runs right after the other.
  if (i % 2 === 0) {
    times.a.push(runA());
    times.b.push(runB());
  } else {
    times.b.push(runB());
    times.a.push(runA());
  }
}
const diffs = times.b.map((t, i) => t - times.a[i]);
const mean = diffs.reduce((s, d) => s + d, 0) / diffs.length;
const sd = Math.sqrt(diffs.reduce((s, d) => s + (d - mean) ** 2, 0) / (diffs.length - 1));
const f = (x) => x.toFixed(1);
console.log(`A ${a}: median ${f(median(times.a))} ms`);
console.log(`B ${b}: median ${f(median(times.b))} ms`);
console.log(`B - A: mean ${mean >= 0 ? '+' : ''}${f(mean)} ms ± ${f((2 * sd) / Math.sqrt(diffs.length))} (2 s.e.), median ${f(median(diffs))} ms, ${pairs} pairs`);
