import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

// Finding `node` as a shell would: the VS Code extension picks the hook's runtime this way, and on
// Windows install-hook may name the runtime `node` when PATH finds that very runtime (a path with a
// space cannot be written bare, and PowerShell cannot run a quoted one; see hookCommand.ts).

async function isExecutableFile(p: string): Promise<boolean> {
  try {
    const st = await fsp.stat(p);
    if (!st.isFile()) return false;
    if (process.platform !== 'win32') await fsp.access(p, 1 /* X_OK */);
    return true;
  } catch {
    return false;
  }
}

/** `node` on a PATH, as an absolute path; undefined when none. */
export async function findNodeOnPath(
  pathEnv: string | undefined,
  platform: NodeJS.Platform = process.platform,
  isExecutable: (p: string) => Promise<boolean> = isExecutableFile,
  pathExt = process.env.PATHEXT,
): Promise<string | undefined> {
  const dirs = (pathEnv ?? '').split(platform === 'win32' ? ';' : ':').filter((d) => d.length > 0);
  const names = platform === 'win32' ? (pathExt ?? '.EXE;.CMD').split(';').filter(Boolean).map((ext) => `node${ext.toLowerCase()}`) : ['node'];
  for (const dir of dirs) {
    for (const name of names) {
      // No realpath: /opt/homebrew/bin/node survives an upgrade, its Cellar target does not.
      const candidate = path.resolve(dir, name);
      if (await isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/** Whether `node` on the PATH of `env` is the runtime at `runtimePath` (same file once links are resolved; Windows compares without case). */
export async function nodeOnPathIs(runtimePath: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<boolean> {
  const found = await findNodeOnPath(env.PATH ?? env.Path, platform, undefined, env.PATHEXT ?? env.PathExt);
  if (found === undefined) return false;
  const real = (p: string) => fsp.realpath(p).catch(() => path.resolve(p));
  const [a, b] = await Promise.all([real(found), real(runtimePath)]);
  return platform === 'win32' ? a.toLowerCase() === b.toLowerCase() : a === b;
}
