/**
 * One extension activation, timed in a fresh process: require dist/extension.js
 * with the vscode shim, then await activate(context). Prints {requireMs, activateMs}.
 */
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import { createVscodeShim, inert } from './vscodeShim';

interface ChildArgs {
  extensionPath: string;
  workspace: string;
  storage: string;
}

async function main(args: ChildArgs): Promise<void> {
  const shim = createVscodeShim(args.workspace);
  const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
  const original = loader._load;
  loader._load = function (request, parent, isMain) {
    return request === 'vscode' ? shim : original.call(this, request, parent, isMain);
  };
  const { Uri } = shim as { Uri: { file(p: string): unknown } };
  const memento = { get: (_k: string, d?: unknown) => d, update: async () => undefined, keys: () => [], setKeysForSync: () => undefined };
  const packageJSON = JSON.parse(fs.readFileSync(path.join(args.extensionPath, 'package.json'), 'utf8'));
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    extensionPath: args.extensionPath,
    extensionUri: Uri.file(args.extensionPath),
    globalStorageUri: Uri.file(path.join(args.storage, 'global')),
    storageUri: Uri.file(path.join(args.storage, 'workspace')),
    logUri: Uri.file(path.join(args.storage, 'log')),
    globalState: memento,
    workspaceState: memento,
    secrets: inert(),
    environmentVariableCollection: inert(),
    extensionMode: 1,
    extension: { id: `${packageJSON.publisher}.${packageJSON.name}`, packageJSON, extensionPath: args.extensionPath },
    asAbsolutePath: (p: string) => path.join(args.extensionPath, p),
  };

  const t0 = performance.now();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ext = require(path.join(args.extensionPath, 'dist/extension.js')) as { activate(c: unknown): unknown };
  const t1 = performance.now();
  await ext.activate(context);
  const t2 = performance.now();
  process.stdout.write(`${JSON.stringify({ requireMs: t1 - t0, activateMs: t2 - t1, subscriptions: context.subscriptions.length })}\n`);
}

main(JSON.parse(process.argv[2] ?? '{}') as ChildArgs).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stdout.write(`${JSON.stringify({ error: err instanceof Error ? err.stack : String(err) })}\n`);
    process.exit(0);
  },
);
