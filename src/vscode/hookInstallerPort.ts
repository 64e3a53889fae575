import { installHook, uninstallHook } from '../platform/hookInstaller';
import type { HookInstallerPort } from './hookCommands';

/** Adapts src/platform/hookInstaller.ts (shared with the CLI's install-hook) to the hook commands. */
export const hookInstallerPort: HookInstallerPort = {
  async install(req) {
    const r = await installHook({
      claudeDir: req.claudeDir,
      hookSourcePath: req.hookSource,
      nodePath: req.runtime.command,
      nodeEnv: req.runtime.env,
      probe: req.probe !== undefined,
      polls: req.probe?.polls,
      pollMs: req.probe?.pollMs,
    });
    return { settingsPath: r.settingsPath, changed: r.changed, command: r.command };
  },
  async uninstall(claudeDir) {
    const r = await uninstallHook({ claudeDir });
    return { settingsPath: r.settingsPath, changed: r.changed || r.hookRemoved };
  },
};
