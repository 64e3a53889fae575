/**
 * `npm run bench` (through bench/run.mjs, which builds and bundles this file):
 * runs every benchmark in one go and prints each measurement beside its target.
 * Exit code 0 whatever the numbers: benchmarks report, tests gate.
 *
 * Options: --json (one JSON object on stdout), --quick (small counts, for
 * checking the harness), --size 1G|200M|<bytes> (cold-index transcript),
 * --rounds N, --only latency,cold,hook,statusline,extension,burst,ready,transports,replay-memory,complete, --profile (where
 * analyze spends its time, from node --cpu-prof on an unminified CLI bundle), --before-dist DIR (replay-memory:
 * another build's dist/ run beside this one),
 * --save FILE (the JSON report to a file as well as the table).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { coldIndex } from './coldIndex';
import { hookCost } from './hook';
import { replayMemory } from './replayMemory';
import { completeCost } from './complete';
import { statuslineCost } from './statusline';
import { transportCost } from './transports';
import type { BenchContext } from './lib/context';
import { formatTable, machine, summary, type SectionResult } from './lib/report';

type Section = (ctx: BenchContext) => Promise<SectionResult>;

/**
 * Sections that need the engine or the extension are bundled on their own by
 * run.mjs (while those are being written, one failing bundle must not stop the
 * others) and loaded here from the bundle folder.
 */
function bundled(name: string, exportName: string): () => Section {
  return () => {
    const file = path.join(__dirname, `${name}.cjs`);
    if (!fs.existsSync(file)) {
      const errors = path.join(__dirname, 'bundle-errors.json');
      const why = fs.existsSync(errors) ? (JSON.parse(fs.readFileSync(errors, 'utf8')) as Record<string, string>)[name] : undefined;
      throw new Error(`not bundled: ${why ?? 'missing'}`);
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require(file) as Record<string, Section>)[exportName];
  };
}

const sections: Record<string, { title: string; load: () => Section }> = {
  latency: { title: 'detection latency', load: bundled('latency', 'detectionLatency') },
  cold: { title: 'cold index', load: () => coldIndex },
  hook: { title: 'hook', load: () => hookCost },
  statusline: { title: 'terminal status line', load: () => statuslineCost },
  extension: { title: 'extension', load: bundled('extension', 'extensionCost') },
  burst: { title: 'burst', load: bundled('burst', 'burst') },
  ready: { title: 'ready', load: bundled('ready', 'readyWithHistory') },
  transports: { title: 'transports', load: () => transportCost },
  'replay-memory': { title: 'replay memory', load: () => replayMemory },
  complete: { title: 'transcript-lag complete', load: () => completeCost },
};

export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([KMG]i?B?)?$/i.exec(text.trim());
  if (!m) throw new Error(`--size: cannot read '${text}' (e.g. 1G, 200M, 5000000)`);
  const unit = (m[2] ?? '').toUpperCase()[0];
  const factor = unit === 'G' ? 2 ** 30 : unit === 'M' ? 2 ** 20 : unit === 'K' ? 2 ** 10 : 1;
  return Math.round(Number(m[1]) * factor);
}

interface Options {
  json: boolean;
  quick: boolean;
  profile: boolean;
  /** Also write the JSON report to this file (the table still goes to stdout). */
  save?: string;
  size?: number;
  rounds?: number;
  only?: string[];
  beforeDist?: string;
}

export function parseArgs(argv: string[]): Options {
  const opts: Options = { json: false, quick: false, profile: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') opts.json = true;
    else if (a === '--quick') opts.quick = true;
    else if (a === '--profile') opts.profile = true;
    else if (a === '--save') opts.save = argv[++i];
    else if (a === '--size') opts.size = parseSize(argv[++i] ?? '');
    else if (a === '--rounds') opts.rounds = Math.max(1, Number(argv[++i]) || 1);
    else if (a === '--only') opts.only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (a === '--before-dist') opts.beforeDist = argv[++i];
    else if (a === '--no-build') continue; // handled by run.mjs
    else throw new Error(`unknown option ${a}`);
  }
  for (const name of opts.only ?? []) if (!sections[name]) throw new Error(`--only: no section '${name}' (${Object.keys(sections).join(', ')})`);
  return opts;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const ctx: BenchContext = {
    repoRoot: path.resolve(__dirname, '../../..'),
    bundleDir: __dirname,
    quick: opts.quick,
    profile: opts.profile,
    sizeBytes: opts.size ?? (opts.quick ? 64 * 2 ** 20 : 2 ** 30),
    rounds: opts.rounds ?? (opts.quick ? 1 : 3),
    ...(opts.beforeDist !== undefined ? { beforeDist: opts.beforeDist } : {}),
    log: (m) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}\n`),
  };
  const started = new Date();
  const results: SectionResult[] = [];
  for (const [name, s] of Object.entries(sections)) {
    if (opts.only && !opts.only.includes(name)) continue;
    ctx.log(`${s.title}: start`);
    try {
      results.push(await s.load()(ctx));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      ctx.log(`${s.title}: failed: ${err instanceof Error ? err.stack : message}`);
      results.push({ section: s.title, rows: [], error: message.split('\n')[0].slice(0, 160) });
    }
  }
  const totals = summary(results);
  const report = { date: started.toISOString(), durationS: Math.round((Date.now() - started.getTime()) / 1000), machine: machine(), quick: opts.quick, totals, sections: results };
  if (opts.save) fs.writeFileSync(opts.save, `${JSON.stringify(report, null, 2)}\n`);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const m = report.machine;
  process.stdout.write(
    `\nTranscript Lag benchmarks, ${report.date}${opts.quick ? ' (QUICK: small sizes, not for the record)' : ''}\n` +
      `machine: ${m.nproc} CPUs, ${m.cpu}, ${(m.memoryBytes / 2 ** 30).toFixed(1)} GiB, Node ${m.node}, ${m.platform}, load ${m.loadAverage.join(' ')}\n\n` +
      `${formatTable(results)}\n\n` +
      `${totals.pass} PASS, ${totals.miss} MISS, ${totals.notRun} not run${totals.miss ? '  <-- targets missed, see MISS rows' : ''}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 0;
});
