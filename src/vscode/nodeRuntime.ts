import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

/**
 * The program Claude Code will run the hook with. Claude Code is a native
 * binary, so a machine may have no Node at all: then VS Code's own runtime
 * runs the hook, told by ELECTRON_RUN_AS_NODE=1 to behave as plain Node.
 */
export interface NodeRuntime {
  /** Absolute path of the executable. */
  command: string;
  /** Environment the command needs (ELECTRON_RUN_AS_NODE for VS Code's runtime). */
  env: Record<string, string>;
  source: 'path' | 'editor';
}

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

export async function pickNodeRuntime(
  env: NodeJS.ProcessEnv = process.env,
  execPath: string = process.execPath,
  isElectron: boolean = process.versions.electron !== undefined,
): Promise<NodeRuntime> {
  const onPath = await findNodeOnPath(env.PATH ?? env.Path);
  if (onPath) return { command: onPath, env: {}, source: 'path' };
  // In a Node extension host (code-server, some remotes) execPath is Node already.
  return { command: execPath, env: isElectron ? { ELECTRON_RUN_AS_NODE: '1' } : {}, source: 'editor' };
}
