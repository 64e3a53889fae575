// Reading the VS Code workbench as a user sees it: status bar texts, the
// editor's `Ln N` indicator, tabs, the activity bar and tree rows. Selectors are
// the workbench's own ids and classes (stable across 1.9x releases).
import * as fs from 'node:fs';
import * as path from 'node:path';

export class Workbench {
  /** @param {import('playwright-core').Page} page @param {string} artifactsDir */
  constructor(page, artifactsDir) {
    this.page = page;
    this.artifactsDir = artifactsDir;
  }

  async waitUntilReady(timeoutMs = 60_000) {
    await this.page.locator('.monaco-workbench').waitFor({ timeout: timeoutMs });
    await this.page.locator('#workbench\\.parts\\.statusbar').waitFor({ timeout: timeoutMs });
    // The explorer shows the opened folder once the remote file system is connected.
    await this.page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: timeoutMs });
  }

  /** Texts of every visible status bar item (codicons render as empty spans). */
  async statusBarTexts() {
    return this.page.locator('#workbench\\.parts\\.statusbar .statusbar-item').evaluateAll((els) =>
      els.map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim()).filter(Boolean),
    );
  }

  /** Our status bar item: VS Code gives it the id `<extension id>.<item id>`. */
  ourItem() {
    return this.page.locator('[id="transcript-lag.transcript-lag.transcriptLag.status"]');
  }

  /** Our status bar item while it says "held". */
  heldItem() {
    return this.ourItem().filter({ hasText: /\bheld\b/ });
  }

  /** Polls until predicate(texts) holds; returns the elapsed ms. Throws with the last texts on timeout. */
  async waitForStatusBar(predicate, timeoutMs, what) {
    const started = Date.now();
    let texts = [];
    while (Date.now() - started < timeoutMs) {
      texts = await this.statusBarTexts();
      if (predicate(texts)) return Date.now() - started;
      await this.page.waitForTimeout(100);
    }
    throw new Error(`status bar never ${what} within ${timeoutMs} ms; it shows ${JSON.stringify(texts)}`);
  }

  /** The editor's cursor position from the status bar ("Ln 12, Col 1"). */
  async cursorLine(timeoutMs = 10_000) {
    const item = this.page.locator('[id="status.editor.selection"]');
    await item.waitFor({ timeout: timeoutMs });
    const text = (await item.textContent()) ?? '';
    const m = /Ln (\d+)/.exec(text);
    if (!m) throw new Error(`cannot read the cursor line from ${JSON.stringify(text)}`);
    return Number(m[1]);
  }

  activeTab() {
    return this.page.locator('.tabs-container .tab.active');
  }

  async openViewContainer(title) {
    // Click the entry itself: its badge sits on top of the icon's link.
    const item = this.page.locator(`.activitybar .action-item:has(a[aria-label^="${title}"])`).first();
    await item.click();
    return item;
  }

  /** Ids and texts of the status bar entries (for diagnostics). */
  async statusBarEntries() {
    return this.page.locator('#workbench\\.parts\\.statusbar .statusbar-item').evaluateAll((els) =>
      els.map((e) => ({ id: e.id, text: (e.textContent ?? '').trim(), label: e.getAttribute('aria-label') })),
    );
  }

  /** The accessible name of an activity bar entry: its title, and its badge's hover text while it has one. */
  async activityLabel(title) {
    return this.page.locator(`.activitybar .action-item a[aria-label^="${title}"]`).first().getAttribute('aria-label');
  }

  /** The badge number on an activity bar entry, or undefined without a badge. */
  async activityBadge(title) {
    const badge = this.page.locator(`.activitybar .action-item:has(a[aria-label^="${title}"]) .badge-content`).first();
    if ((await badge.count()) === 0 || !(await badge.isVisible())) return undefined;
    return (await badge.textContent())?.trim();
  }

  treeRows() {
    return this.page.locator('.part.sidebar .pane-body .monaco-list-row');
  }

  /** Rows of the side bar's tree as { label, description }, top to bottom. */
  async treeRowTexts() {
    return this.treeRows().evaluateAll((rows) =>
      rows.map((r) => ({
        label: (r.querySelector('.label-name')?.textContent ?? '').trim(),
        description: (r.querySelector('.label-description')?.textContent ?? '').trim(),
      })),
    );
  }

  /** Polls the tree until predicate(rows) returns a truthy value; throws with the last rows on timeout. */
  async waitForTree(predicate, timeoutMs, what) {
    const started = Date.now();
    let rows = [];
    while (Date.now() - started < timeoutMs) {
      rows = await this.treeRowTexts();
      const hit = predicate(rows);
      if (hit) return hit;
      await this.page.waitForTimeout(100);
    }
    throw new Error(`the tree never ${what} within ${timeoutMs} ms; it shows ${JSON.stringify(rows)}`);
  }

  /**
   * The README's and docs/VIEWS.md's pictures (docs/images/, copied from here by hand): the window at
   * 1000×222, where the side bar keeps VS Code's default width beside a short editor and the status
   * bar, then the run's own size again.
   */
  async docsScreenshot(name) {
    const size = this.page.viewportSize();
    await this.page.setViewportSize({ width: 1000, height: 222 });
    try {
      // The title bar's empty stretch between the search box and the layout buttons: over no control, no text.
      await this.page.mouse.move(790, 16);
      await this.page.waitForTimeout(800);
      fs.mkdirSync(this.artifactsDir, { recursive: true });
      await this.page.screenshot({ path: path.join(this.artifactsDir, `docs-${name}.png`) });
    } finally {
      if (size) await this.page.setViewportSize(size);
      await this.page.waitForTimeout(300);
    }
  }

  async screenshot(name) {
    fs.mkdirSync(this.artifactsDir, { recursive: true });
    // Off every control: a hover shown earlier is not redrawn while the pointer stays, and would show what was true then.
    await this.page.mouse.move(900, 600);
    await this.page.waitForTimeout(150);
    const file = path.join(this.artifactsDir, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }
}

/** Parses an age as the extension prints it: `850 ms`, `1.2s`, `12s`, `2m 05s`, `1h 03m`. */
export function parseAge(text) {
  const m = /(?:(\d+)h )?(?:(\d+)m ?)?(?:(\d+(?:\.\d+)?)\s?(ms|s))?\s*$/.exec(text.trim());
  if (!m || (!m[1] && !m[2] && !m[3])) throw new Error(`not an age: ${JSON.stringify(text)}`);
  const [, h, min, value, unit] = m;
  return (Number(h ?? 0) * 3600 + Number(min ?? 0) * 60) * 1000 + (value ? Number(value) * (unit === 'ms' ? 1 : 1000) : 0);
}
