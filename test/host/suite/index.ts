// Entry point the extension host loads (extensionTestsPath): runs every bundled
// *.test.js next to it with mocha and resolves or rejects, which the host turns
// into its exit code. The extension host's console does not reach the runner's
// terminal, so progress goes to a log file the runner tails, and a JSON summary
// lets the runner refuse a run that executed no tests.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

interface HostTestSummary {
  passes: number;
  failures: number;
  pending: number;
  failed: { title: string; error: string }[];
}

function progressLog(): (line: string) => void {
  const file = process.env.TRANSCRIPT_LAG_HOST_LOG;
  return (line) => {
    if (file) fs.appendFileSync(file, line + '\n');
    else console.log(line);
  };
}

export function run(): Promise<void> {
  // The reporter prints to the host console (visible in a desktop VS Code's debug console).
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 30_000, reporter: 'dot' });
  const grep = process.env.TRANSCRIPT_LAG_HOST_GREP;
  if (grep) mocha.grep(grep);
  for (const file of fs.readdirSync(__dirname).filter((f) => f.endsWith('.test.js')).sort()) {
    mocha.addFile(path.join(__dirname, file));
  }
  const log = progressLog();
  const summary: HostTestSummary = { passes: 0, failures: 0, pending: 0, failed: [] };
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const out = process.env.TRANSCRIPT_LAG_HOST_RESULTS;
      if (out) fs.writeFileSync(out, JSON.stringify(summary, null, 2));
      if (failures > 0) reject(new Error(`${failures} host test(s) failed`));
      else resolve();
    });
    runner.on('suite', (suite) => {
      if (suite.title) log(`${'  '.repeat(Math.max(0, suite.titlePath().length - 1))}${suite.title}`);
    });
    runner.on('pass', (test) => {
      summary.passes++;
      log(`${'  '.repeat(test.titlePath().length - 1)}✓ ${test.title} (${test.duration ?? 0} ms)`);
    });
    runner.on('pending', (test) => {
      summary.pending++;
      log(`${'  '.repeat(test.titlePath().length - 1)}- ${test.title}`);
    });
    runner.on('fail', (test, err: Error) => {
      summary.failures++;
      summary.failed.push({ title: test.fullTitle(), error: String(err?.stack ?? err) });
      log(`${'  '.repeat(Math.max(0, test.titlePath().length - 1))}✗ ${test.title}: ${err?.message ?? err}`);
    });
  });
}
