// Headless Chromium (the Debian package) driven by playwright-core. A missing
// browser is an error, never a skip: the suites that need it must not pass vacuously.
import * as fs from 'node:fs';
import { chromium } from 'playwright-core';
import { aptInstall, findCommand, MissingToolError, missingTool } from '../lib/missingTool.mjs';

export function chromiumPath() {
  const given = process.env.CHROMIUM_PATH;
  if (given) {
    if (!fs.existsSync(given)) throw new MissingToolError(`CHROMIUM_PATH=${given} does not exist: unset it to use chromium from PATH (${aptInstall(['chromium'])})`);
    return given;
  }
  const found = findCommand('chromium') ?? findCommand('chromium-browser');
  if (!found) throw missingTool('chromium', ['chromium'], 'or set CHROMIUM_PATH');
  return found;
}

/** A fresh headless browser; playwright gives it a new, empty profile dir. */
export async function launchChromium() {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox', // CI runs as root, where Chromium's sandbox refuses to start
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Aborts every request a page makes to anything but loopback: the tests must not reach the internet. */
export async function keepPageOnLoopback(page) {
  await page.route(
    (url) => !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) && /^(https?|wss?):$/.test(url.protocol),
    (route) => route.abort('blockedbyclient'),
  );
}
