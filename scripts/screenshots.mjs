// node scripts/screenshots.mjs [--skip-build] [--out DIR] [--theme light|dark|both] [--sidebar PX]
//
// The Transcript Lag view as a new user first sees it: the demo's recorded sessions (scripts/demo.mjs
// --no-open writes them all at once into a temp Claude dir), the extension under development in
// code-server, Chromium at 1400×900 and the side bar at VS Code's default width, in a light and a dark
// theme. It writes, per theme, the side bar alone (`sidebar-<theme>.png`), the whole window
// (`window-<theme>.png`) and, for each row of the tree, whether its label and description were cut
// (`rows-<theme>.json`: the text and the pixels it needs against those it has), so what fits is measured
// and not guessed. Screenshots go to test-artifacts/screenshots/ (gitignored) unless --out names a folder.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { keepPageOnLoopback, launchChromium } from './codeServer/browser.mjs';
import { startCodeServer, workbenchUrl } from './codeServer/server.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    'skip-build': { type: 'boolean', default: false },
    out: { type: 'string' },
    theme: { type: 'string', default: 'both' },
    sidebar: { type: 'string' },
  },
});
const THEMES = { light: 'Default Light Modern', dark: 'Default Dark Modern' };
const themes = opts.theme === 'both' ? ['light', 'dark'] : [opts.theme];
for (const t of themes) if (!(t in THEMES)) throw new Error(`--theme takes light, dark or both, got ${t}`);
const out = path.resolve(opts.out ?? path.join(repo, 'test-artifacts', 'screenshots'));

function say(line) {
  console.log(`[screenshots] ${line}`);
}

/** Per tree row: its texts and whether each fits the room the row gives it (scrollWidth past clientWidth: cut). */
async function rowFits(page) {
  return page.locator('.part.sidebar .pane-body .monaco-list-row').evaluateAll((rows) =>
    rows.map((r) => {
      const name = r.querySelector('.label-name');
      const desc = r.querySelector('.label-description');
      const container = r.querySelector('.monaco-icon-label-container');
      return {
        label: (name?.textContent ?? '').trim(),
        description: (desc?.textContent ?? '').trim(),
        needs_px: container ? container.scrollWidth : 0,
        has_px: container ? container.clientWidth : 0,
        cut: container ? container.scrollWidth > container.clientWidth + 1 : false,
      };
    }),
  );
}

async function main() {
  if (!opts['skip-build']) {
    const build = spawnSync('npm', ['run', 'build'], { cwd: repo, stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-screenshots-'));
  try {
    say(`writing the demo's sessions into ${root}`);
    const demo = spawnSync(process.execPath, [path.join(repo, 'scripts', 'demo.mjs'), '--no-open', '--skip-build', '--speed', '50', '--dir', root], {
      cwd: repo,
      stdio: 'inherit',
    });
    if (demo.status !== 0) throw new Error(`demo --no-open exited ${demo.status}`);
    fs.mkdirSync(out, { recursive: true });
    for (const theme of themes) await shoot(root, theme);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

async function shoot(root, theme) {
  const home = path.join(root, 'home');
  const scratch = path.join(root, `cs-${theme}`);
  const server = await startCodeServer({
    userDataDir: path.join(scratch, 'user'),
    extensionsDir: path.join(scratch, 'extensions'),
    env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, '.claude') },
    settings: { 'workbench.colorTheme': THEMES[theme] },
  });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await keepPageOnLoopback(page);
    const url = workbenchUrl(server.origin, {
      folder: path.join(root, 'work'),
      payload: [['extensionDevelopmentPath', `vscode-remote://${server.authority}${repo}`]],
    });
    await page.goto(url);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.activitybar .action-item:has(a[aria-label^="Transcript Lag"])').first().click({ timeout: 60_000 });
    const rows = page.locator('.part.sidebar .pane-body .monaco-list-row');
    await rows.nth(2).waitFor({ timeout: 60_000 });
    if (opts.sidebar !== undefined) {
      // A side bar dragged to another width: the sash between it and the editor.
      const bar = await page.locator('.part.sidebar').boundingBox();
      await page.mouse.move(bar.x + bar.width, 400);
      await page.mouse.down();
      await page.mouse.move(bar.x + Number(opts.sidebar), 400, { steps: 5 });
      await page.mouse.up();
    }
    // Off every control, and time for the rows' ages to settle into one render.
    await page.mouse.move(900, 600);
    await page.waitForTimeout(1500);
    const bar = await page.locator('.part.sidebar').boundingBox();
    say(`${theme}: side bar ${Math.round(bar.width)} px wide`);
    await page.screenshot({ path: path.join(out, `window-${theme}.png`) });
    await page.locator('.part.sidebar').screenshot({ path: path.join(out, `sidebar-${theme}.png`) });
    const title = await page.locator('.part.sidebar .composite.title').evaluate((el) => {
      const t = el.querySelector('.title-label h2') ?? el.querySelector('.title-label');
      return { text: (t?.textContent ?? '').trim(), cut: t ? t.scrollWidth > t.clientWidth + 1 : false };
    });
    const fits = { sidebar_px: Math.round(bar.width), title, rows: await rowFits(page) };
    fs.writeFileSync(path.join(out, `rows-${theme}.json`), `${JSON.stringify(fits, null, 2)}\n`);
    const cut = fits.rows.filter((r) => r.cut);
    say(`${theme}: title ${JSON.stringify(title.text)}${title.cut ? ' (cut)' : ''}; ${fits.rows.length} rows, ${cut.length} cut`);
    for (const r of cut) say(`  cut: ${r.label} | ${r.description} (${r.needs_px} px in ${r.has_px})`);
    await replayShot(page, root, theme);
  } finally {
    await browser.close();
    await server.stop();
  }
}

/**
 * Replay Hook on Session… as a user runs it: the Command Palette, the first session, a command typed
 * into the hook picker and Enter; then the table, once it says Done.
 */
async function replayShot(page, root, theme) {
  const hook = path.join(root, 'review-hook.js');
  // A reviewing hook that wants its call in the transcript it is handed: it says no when the call is not there.
  fs.writeFileSync(
    hook,
    `let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', () => {
  const h = JSON.parse(input);
  const t = require('fs').readFileSync(h.transcript_path, 'utf8');
  if (t.includes(JSON.stringify(h.tool_use_id))) process.exit(0);
  process.stderr.write('my call is not in the transcript');
  process.exit(2);
});
`,
  );
  await page.keyboard.press('F1');
  await page.keyboard.type('Transcript Lag: Replay Hook on Session');
  await page.waitForTimeout(500);
  await page.keyboard.press('Enter');
  // The session picker (several sessions): the demo's session whose calls were held while their hooks ran.
  await page.waitForTimeout(1000);
  await page.keyboard.type('two parallel calls');
  await page.waitForTimeout(500);
  await page.keyboard.press('Enter');
  await page.waitForTimeout(1000);
  await page.keyboard.type(`node ${hook}`);
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(out, `picker-${theme}.png`) });
  await page.keyboard.press('Enter');
  const frame = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  await frame.locator('#state[data-state="done"]').waitFor({ timeout: 120_000 });
  await page.mouse.move(1300, 880);
  await page.waitForTimeout(800);
  await page.screenshot({ path: path.join(out, `replay-${theme}.png`) });
  say(`${theme}: replay table shot`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
