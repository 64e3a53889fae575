// Entry point the extension host loads (extensionTestsPath): runs every bundled
// *.test.js next to it with mocha and resolves or rejects, which the host turns
// into its exit code. The extension host's console does not reach the runner's
// terminal, so progress goes to a log file the runner tails, and a JSON summary
// lets the runner refuse a run that executed no tests.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import * as vscode from 'vscode';
import { afterReload, isReloadFile, markAfterReload, reloadRequested, summaryBeforeReload } from './reloadPhase';

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
  // The files with a part after a window reload run last (./reloadPhase.ts): what the others do
  // (closing tabs, switching the Claude dir) must not undo what they leave open for the reload.
  // After the reload, only they run again.
  const reloaded = afterReload();
  const files = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .sort((a, b) => Number(isReloadFile(a)) - Number(isReloadFile(b)) || (a < b ? -1 : a > b ? 1 : 0));
  for (const file of reloaded ? files.filter(isReloadFile) : files) mocha.addFile(path.join(__dirname, file));
  const log = progressLog();
  const summary: HostTestSummary = reloaded ? summaryBeforeReload<HostTestSummary>() : { passes: 0, failures: 0, pending: 0, failed: [] };
  if (reloaded) log('(the window reloaded)');
  return new Promise((resolve, reject) => {
    const runner = mocha.run(() => {
      if (!reloaded && reloadRequested()) {
        // This extension host ends with the reload; the next one runs the parts after it and settles the run.
        markAfterReload(summary);
        log('(reloading the window)');
        void vscode.commands.executeCommand('workbench.action.reloadWindow');
        setTimeout(() => reject(new Error('the window did not reload within 60 s')), 60_000);
        return;
      }
      const out = process.env.TRANSCRIPT_LAG_HOST_RESULTS;
      if (out) fs.writeFileSync(out, JSON.stringify(summary, null, 2));
      if (summary.failures > 0) reject(new Error(`${summary.failures} host test(s) failed`));
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
