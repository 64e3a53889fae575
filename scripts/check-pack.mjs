// CI: the npm package is a working command. Packs it (prepack builds), installs the tarball into a
// temporary prefix as a user would (`npm install -g`), offline: the bundles carry their
// dependencies, so it needs no registry, and runs `transcript-lag --version` and
// `transcript-lag analyze <fixture>` found on PATH from that prefix. Exits non-zero on any difference.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const fixture = path.join(root, 'test/fixtures/real/print-single-0');
const transcript = path.join(fixture, fs.readdirSync(fixture).find((f) => f.endsWith('.jsonl')));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-check-pack-'));
const fail = (message) => {
  console.error(`check-pack: ${message}`);
  process.exitCode = 1;
};
try {
  const packed = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', tmp], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
  const files = packed[0].files.map((f) => f.path).sort();
  console.log(`check-pack: ${packed[0].filename}, ${files.length} files: ${files.join(' ')}`);
  for (const needed of ['dist/cli.js', 'dist/cli-analyze.js', 'dist/engine.js', 'dist/hook.js', 'README.md', 'LICENSE']) {
    if (!files.includes(needed)) fail(`the package lacks ${needed}`);
  }
  for (const f of files) if (/\.map$|^src\/|^test\/|^dist\/extension\.js$/.test(f)) fail(`the package holds ${f}, which the command does not run`);

  const prefix = path.join(tmp, 'prefix');
  execFileSync(npm, ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', path.join(tmp, packed[0].filename)], { cwd: tmp, stdio: ['ignore', 'inherit', 'inherit'] });
  const bin = process.platform === 'win32' ? prefix : path.join(prefix, 'bin');
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` };
  // Found on PATH as a shell would, not by a path we give: the link npm made and its shebang.
  const run = (args) => execFileSync('transcript-lag', args, { cwd: tmp, env, encoding: 'utf8', shell: process.platform === 'win32' });

  const printed = run(['--version']);
  if (printed !== `${version}\n`) fail(`--version printed ${JSON.stringify(printed)}, not ${version}`);
  const analyzed = JSON.parse(run(['analyze', transcript, '--json']));
  if (analyzed.lines !== 30 || analyzed.calls?.[0]?.tool_use_id !== 'toolu_field001b') fail(`analyze printed ${JSON.stringify(analyzed).slice(0, 300)}`);
  if (!process.exitCode) console.log(`check-pack: transcript-lag ${version} installed from the tarball runs --version and analyze`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
