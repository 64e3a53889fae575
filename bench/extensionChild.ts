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
  waitForSession: boolean;
}

/** Top-level `vscode.Name`s the extension's sources mention (for the shim to provide). */
function vscodeNamesUsed(dir: string): string[] {
  const names = new Set<string>();
  if (!fs.existsSync(dir)) return [];
  for (const file of fs.readdirSync(dir, { recursive: true }) as string[]) {
    if (!file.endsWith('.ts')) continue;
    for (const m of fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/\bvscode\.([A-Za-z_]\w*)/g)) names.add(m[1]);
  }
  return [...names];
}

async function main(args: ChildArgs): Promise<void> {
  const shim = createVscodeShim(args.workspace, vscodeNamesUsed(path.join(args.extensionPath, 'src/vscode')));
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
  const api = (await ext.activate(context)) as { engine?(): { sessions(): unknown[] } | undefined } | undefined;
  const t2 = performance.now();
  // Activation returns before the engine starts; also time until the workspace's session is followed.
  let followedMs: number | null = null;
  if (args.waitForSession) {
    while (performance.now() - t2 < 5000) {
      if ((api?.engine?.()?.sessions().length ?? 0) > 0) {
        followedMs = performance.now() - t2;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
  process.stdout.write(`${JSON.stringify({ requireMs: t1 - t0, activateMs: t2 - t1, followedMs })}\n`);
}

main(JSON.parse(process.argv[2] ?? '{}') as ChildArgs).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stdout.write(`${JSON.stringify({ error: err instanceof Error ? err.stack : String(err) })}\n`);
    process.exit(0);
  },
);
