#!/usr/bin/env node
// End-to-end: the packaged VSIX installed into a real VS Code (code-server), driven
// in headless Chromium the way a user sees it. A session of the opened folder holds
// a call (the hook fired, its record is not on disk yet): the status bar says held
// with a growing age, a click opens the transcript at the held line, the activity-bar
// view lists the call, and appending the record clears the hold.
//
//   node test/e2e/run.mjs [--vsix <file>] [--keep]
//
// Screenshots of every step go to test-artifacts/.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumPath, keepPageOnLoopback, launchChromium } from '../../scripts/codeServer/browser.mjs';
import { isMissingTool, requireCommands } from '../../scripts/lib/missingTool.mjs';
import { installExtension, startCodeServer, workbenchUrl } from '../../scripts/codeServer/server.mjs';
import {
  appendRecords, hookCommandFromSettings, installHook, lineCount, makeScenario, preToolUsePayload, runHookCommand, transcriptRecords,
} from './scenario.mjs';
import { parseAge, Workbench } from './workbench.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const artifacts = path.join(repoRoot, 'test-artifacts');
const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);

// "Within a second or two" with headroom for a loaded 2-core CI box; the measured time is printed.
const CLEAR_WITHIN_MS = 3000;
const SHOW_WITHIN_MS = 3000;
const HELD_CALL = { id: 'toolu_e2e_held_bash', name: 'Bash', input: { command: 'npm test', description: 'run the tests' } };

const results = [];
async function step(name, fn) {
  const started = Date.now();
  try {
    const note = await fn();
    results.push({ name, ok: true });
    console.log(`  ✓ ${name} (${Date.now() - started} ms)${note ? ` — ${note}` : ''}`);
  } catch (err) {
    results.push({ name, ok: false });
    console.log(`  ✗ ${name}`);
    throw err;
  }
}

function packageVsix() {
  const given = option('--vsix');
  if (given) return path.resolve(given);
  const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
  const vsix = path.join(repoRoot, `transcript-lag-${version}.vsix`);
  fs.rmSync(vsix, { force: true });
  const r = spawnSync('npm', ['run', 'package'], { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0 || !fs.existsSync(vsix)) throw new Error(`npm run package did not produce ${vsix}`);
  return vsix;
}

// The limit of bench/extension.ts, read from there so it is said once (docs/benchmarks/sections.md,
// "Extension", says why it is what it is).
const VSIX_LIMIT_BYTES = Number(/VSIX_LIMIT_BYTES = (\d+) \* 1024;/.exec(fs.readFileSync(path.join(repoRoot, 'bench/extension.ts'), 'utf8'))?.[1]) * 1024;
if (!(VSIX_LIMIT_BYTES > 0)) throw new Error('bench/extension.ts must say VSIX_LIMIT_BYTES = <KiB> * 1024;');

/**
 * The allow-list in .vscodeignore is the contract: dist bundles (the extension's and the CLI's),
 * media, docs images, README, CHANGELOG, LICENSE and the channel schema; never sources, tests,
 * maps or node_modules.
 * Python's zipfile lists the archive (python3 is on every machine CI builds on).
 */
function checkVsixContents(vsix) {
  const size = fs.statSync(vsix).size;
  if (size > VSIX_LIMIT_BYTES) throw new Error(`${vsix} is ${size} bytes, over ${VSIX_LIMIT_BYTES / 1024} KiB`);
  const r = spawnSync('python3', ['-c', 'import sys,zipfile;print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', vsix], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cannot list ${vsix}: ${r.stderr}`);
  const files = r.stdout.split('\n').filter(Boolean).filter((f) => f.startsWith('extension/')).map((f) => f.slice('extension/'.length));
  const allowed = [/^package\.json$/, /^dist\/(extension|engine|hook|cli|cli-[a-z-]+|metrics|hookReceiverWorker)\.js$/, /^media\//, /^docs\/images\/[\w-]+\.png$/, /^(readme|changelog)\.md$/i, /^LICENSE(\.txt)?$/i, /^schema\/channel-event\.schema\.json$/];
  const stray = files.filter((f) => !allowed.some((re) => re.test(f)));
  if (stray.length) throw new Error(`unexpected files in the VSIX: ${stray.join(', ')}`);
  const required = ['package.json', 'dist/extension.js', 'dist/engine.js', 'dist/hook.js', 'schema/channel-event.schema.json'];
  // The CLI, run from the installed extension's folder (docs/INSTALL.md, "The CLI as a command").
  required.push('dist/cli.js', 'dist/cli-analyze.js', 'dist/cli-watch.js', 'dist/cli-install-hook.js', 'dist/cli-complete.js', 'dist/cli-wrap-hooks.js');
  for (const needed of required) {
    if (!files.includes(needed)) throw new Error(`the VSIX lacks ${needed}`);
  }
  return `${files.length} files, ${size} bytes`;
}

// A hung browser or server must fail the run, not stall CI.
const WATCHDOG_MS = Number(process.env.TRANSCRIPT_LAG_E2E_TIMEOUT_MS ?? 8 * 60_000);

async function main() {
  const started = Date.now();
  setTimeout(() => {
    console.error(`[e2e] no result after ${WATCHDOG_MS} ms: giving up`);
    process.exit(1);
  }, WATCHDOG_MS).unref();
  // Before packaging: a missing tool fails in a second, not minutes in.
  chromiumPath();
  requireCommands(['python3'], ['python3'], 'lists the VSIX');
  console.log('[e2e] packaging the VSIX');
  const vsix = packageVsix();
  await step(`the VSIX holds only what the installed extension needs, within ${VSIX_LIMIT_BYTES / 1024} KiB`, async () => checkVsixContents(vsix));
  const s = makeScenario();
  console.log(`[e2e] scratch ${s.root}`);
  const rec = transcriptRecords(s);
  // A session already under way: one call written with its result, no hook yet.
  appendRecords(s.transcript, [
    rec.prompt('fix the failing test'),
    rec.toolUse('toolu_e2e_read', 'Read', { file_path: path.join(s.workspace, 'notes.md') }),
    rec.toolResult('toolu_e2e_read', '# a project Claude Code works in'),
  ]);

  installHook(repoRoot, s);
  const preCommand = hookCommandFromSettings(s, 'PreToolUse');
  console.log(`[e2e] PreToolUse hook command from settings.json: ${preCommand}`);

  const serverDirs = { userDataDir: s.userData, extensionsDir: s.extensions, env: { HOME: s.home, CLAUDE_CONFIG_DIR: undefined } };
  installExtension(vsix, serverDirs);
  const server = await startCodeServer(serverDirs);
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await keepPageOnLoopback(page);
  const wb = new Workbench(page, artifacts);
  try {
    await step('workbench loads with the project folder', async () => {
      await page.goto(workbenchUrl(server.origin, { folder: s.workspace }));
      await wb.waitUntilReady();
      return server.origin;
    });

    await step('the extension starts and shows the session in sync', async () => {
      // onStartupFinished: code-server activates a few seconds after the workbench shows.
      const item = wb.ourItem();
      await item.waitFor({ timeout: 30_000 });
      const text = ((await item.textContent()) ?? '').trim();
      if (/held/.test(text)) throw new Error(`held before any hook ran: ${JSON.stringify(text)}`);
      return JSON.stringify(text);
    });

    let heldAfterLine = 0;
    let hookDoneAt = 0;
    await step('the hook command from settings.json runs on a PreToolUse payload', async () => {
      heldAfterLine = lineCount(s.transcript);
      const ms = runHookCommand(preCommand, preToolUsePayload(s, HELD_CALL.id, HELD_CALL.name, HELD_CALL.input), s);
      hookDoneAt = Date.now();
      return `exit 0, no stdout, ${ms} ms`;
    });

    let firstAge = 0;
    await step('the status bar says held', async () => {
      await wb.heldItem().waitFor({ timeout: SHOW_WITHIN_MS });
      const shownAfter = Date.now() - hookDoneAt;
      const text = ((await wb.heldItem().textContent()) ?? '').replace(/\s+/g, ' ').trim();
      if (!/^1 held · /.test(text)) throw new Error(`unexpected status text ${JSON.stringify(text)}`);
      firstAge = parseAge(text.split('·').pop());
      await wb.screenshot('e2e-1-status-held');
      return `${JSON.stringify(text)}, shown ${shownAfter} ms after the hook returned`;
    });

    await step('its age grows', async () => {
      await page.waitForTimeout(1500);
      const text = (await wb.heldItem().textContent()) ?? '';
      const age = parseAge(text.split('·').pop());
      if (!(age > firstAge)) throw new Error(`age did not grow: ${firstAge} ms then ${age} ms (${JSON.stringify(text)})`);
      return `${firstAge} ms → ${age} ms`;
    });

    await step('clicking it opens the transcript with the cursor on the held line', async () => {
      await wb.heldItem().click();
      await wb.activeTab().filter({ hasText: `${s.sessionId}.jsonl` }).waitFor({ timeout: 15_000 });
      // The line can take a moment after the tab appears: poll the indicator.
      let line = 0;
      for (let i = 0; i < 50 && line !== heldAfterLine; i++) {
        line = await wb.cursorLine();
        if (line !== heldAfterLine) await page.waitForTimeout(100);
      }
      await wb.screenshot('e2e-2-opened-at-held-line');
      if (line !== heldAfterLine) throw new Error(`cursor on Ln ${line}, expected the last line on disk, ${heldAfterLine}`);
      return `Ln ${line}`;
    });

    await step('the "Transcript Lag" activity-bar view lists the held call, badge 1', async () => {
      await wb.openViewContainer('Transcript Lag');
      const row = await wb.waitForTree(
        (rows) => rows.find((r) => r.label === HELD_CALL.name && /^held \d/.test(r.description)),
        15_000,
        `listed ${HELD_CALL.name} as held`,
      );
      // The badge is drawn a moment after the view's rows: wait for the state, bounded.
      let badge = await wb.activityBadge('Transcript Lag');
      for (const until = Date.now() + 5000; badge !== '1' && Date.now() < until; ) {
        await page.waitForTimeout(100);
        badge = await wb.activityBadge('Transcript Lag');
      }
      await wb.screenshot('e2e-3-view-lists-call');
      await wb.docsScreenshot('held-call');
      if (badge !== '1') throw new Error(`activity bar badge ${JSON.stringify(badge)}, expected "1"`);
      const label = await wb.activityLabel('Transcript Lag');
      if (!/1 call held/.test(label ?? '')) throw new Error(`activity bar entry says ${JSON.stringify(label)} with badge 1`);
      return `${row.label}: ${row.description}; entry: ${JSON.stringify(label)}`;
    });

    await step('appending the record clears held', async () => {
      const before = Date.now();
      appendRecords(s.transcript, [rec.toolUse(HELD_CALL.id, HELD_CALL.name, HELD_CALL.input)]);
      await wb.waitForStatusBar((texts) => !texts.some((t) => /\bheld\b/.test(t)), 10_000, 'stopped saying held');
      // The item stays, now showing the measured lag of the call that just landed.
      const text = ((await wb.ourItem().textContent()) ?? '').trim();
      const elapsed = Date.now() - before;
      await wb.screenshot('e2e-4-held-cleared');
      if (elapsed > CLEAR_WITHIN_MS) throw new Error(`held cleared only after ${elapsed} ms (limit ${CLEAR_WITHIN_MS} ms)`);
      return `${elapsed} ms; status bar: ${JSON.stringify(text)}`;
    });

    let recordLine = 0;
    await step('the view now shows the call as written, without a badge', async () => {
      recordLine = lineCount(s.transcript);
      const row = await wb.waitForTree(
        (rows) => !rows.some((r) => /^held /.test(r.description)) && rows.find((r) => r.label === HELD_CALL.name && /^lag \d/.test(r.description)),
        5000,
        `showed ${HELD_CALL.name} as written and nothing held`,
      );
      const badge = await wb.activityBadge('Transcript Lag');
      if (badge !== undefined) throw new Error(`badge still shows ${JSON.stringify(badge)} with nothing held`);
      // The badge's hover goes with it: the entry must not still speak of held calls.
      const label = await wb.activityLabel('Transcript Lag');
      if (/held/.test(label ?? '')) throw new Error(`no badge, but the entry still says ${JSON.stringify(label)}`);
      return `${row.label}: ${row.description}; entry: ${JSON.stringify(label)}`;
    });

    await step('clicking the call in the view opens the transcript at its record line', async () => {
      await wb.treeRows().filter({ has: page.locator('.label-name', { hasText: HELD_CALL.name }) }).first().click();
      let line = 0;
      for (let i = 0; i < 50 && line !== recordLine; i++) {
        line = await wb.cursorLine();
        if (line !== recordLine) await page.waitForTimeout(100);
      }
      await wb.screenshot('e2e-5-opened-at-record-line');
      await wb.docsScreenshot('written');
      if (line !== recordLine) throw new Error(`cursor on Ln ${line}, expected the record's line ${recordLine}`);
      return `Ln ${line}`;
    });
  } catch (err) {
    await wb.screenshot('e2e-failure').catch(() => {});
    console.error(`[e2e] ${err instanceof Error ? err.message : err}`);
    if (process.env.TRANSCRIPT_LAG_DEBUG) console.error(server.output().split('\n').slice(-60).join('\n'));
    return 1;
  } finally {
    await browser.close();
    await server.stop();
    if (!argv.includes('--keep')) fs.rmSync(s.root, { recursive: true, force: true });
    const passed = results.filter((r) => r.ok).length;
    console.log(`[e2e] ${passed}/${results.length} steps passed in ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in ${path.relative(repoRoot, artifacts)}/`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(isMissingTool(err) ? err.message : `[e2e] ${err instanceof Error ? err.stack : err}`);
    process.exit(1);
  },
);
