import type { HookInstallerPort } from './hookCommands';

/**
 * Adapts src/platform/hookInstaller.ts to what the hook commands need.
 * (The installer is being written; until it lands the commands report that plainly.)
 */
export const hookInstallerPort: HookInstallerPort = {
  async install() {
    throw new Error('the hook installer is not part of this build yet');
  },
  async uninstall() {
    throw new Error('the hook installer is not part of this build yet');
  },
};
