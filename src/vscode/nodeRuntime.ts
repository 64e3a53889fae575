import { findNodeOnPath } from '../platform/nodeOnPath';

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
