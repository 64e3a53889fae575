// A window reload inside one host run (code-server): the suite's `*.reload.test.ts` files run
// last, their first part asks for a reload (requestReload, with what the second part needs), and
// index.ts, once every test has run, keeps the summary and reloads the window. The reloaded
// workbench loads the same payload, so the extension host starts again and runs index.ts again,
// which sees the mark and runs only those files, whose second part (afterReload) checks what the
// reload brought back; the summary then counts both runs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scratchRoot } from './hostEnv';

const dir = () => path.join(scratchRoot(), 'reload');
const file = (name: string) => path.join(dir(), name);

/** A test file with a part that runs after the window reloaded. */
export function isReloadFile(name: string): boolean {
  return name.endsWith('.reload.test.js');
}

/** This run is the one after the reload. */
export function afterReload(): boolean {
  return fs.existsSync(file('after'));
}

/** Asks index.ts to reload the window once this run's tests are done; `state` is what the second part reads. */
export function requestReload(state: object): void {
  fs.mkdirSync(dir(), { recursive: true });
  fs.writeFileSync(file('state.json'), JSON.stringify(state));
}

export function reloadRequested(): boolean {
  return fs.existsSync(file('state.json'));
}

export function reloadState<T>(): T {
  return JSON.parse(fs.readFileSync(file('state.json'), 'utf8')) as T;
}

/** Marks the next run as the one after the reload, with the summary of this one. */
export function markAfterReload(summary: object): void {
  fs.writeFileSync(file('summary-before.json'), JSON.stringify(summary));
  fs.writeFileSync(file('after'), '');
}

/** The summary of the run before the reload. */
export function summaryBeforeReload<T>(): T {
  return JSON.parse(fs.readFileSync(file('summary-before.json'), 'utf8')) as T;
}
