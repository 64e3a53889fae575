import type { HookInstallerPort } from './hookCommands';
import type * as EngineModule from './engineModule';

/**
 * Adapts src/platform/hookInstaller.ts (shared with the CLI's install-hook) to
 * the hook commands. The installer comes from the engine bundle, loaded on first use.
 */
export function hookInstallerPort(load: () => typeof EngineModule): HookInstallerPort {
  return {
    async install(req) {
      const r = await load().installHook({
        claudeDir: req.claudeDir,
        hookSourcePath: req.hookSource,
        nodePath: req.runtime.command,
        nodeEnv: req.runtime.env,
        probe: req.probe !== undefined,
        polls: req.probe?.polls,
        pollMs: req.probe?.pollMs,
        // Exec form (no shell) where the claude on PATH has it; shell form otherwise.
        form: 'auto',
      });
      return { settingsPath: r.settingsPath, changed: r.changed, command: r.command, gitBashOnly: r.gitBashOnly };
    },
    async wrap(req) {
      // A runtime that needs an environment (the editor's own, ELECTRON_RUN_AS_NODE) cannot be named in a wrapped shell command line.
      if (Object.keys(req.runtime.env ?? {}).length > 0) throw new Error('no `node` on PATH: the wrapped commands need a Node runtime of their own to start the wrapper');
      const r = await load().wrapHooks({ claudeDir: req.claudeDir, nodePath: req.runtime.command, wrapperSourcePath: req.wrapperSource });
      return { settingsPath: r.path, changed: r.changed, count: r.count };
    },
    async unwrap(claudeDir) {
      const r = await load().unwrapHooks({ claudeDir });
      return { settingsPath: r.path, changed: r.changed, count: r.count };
    },
    async uninstall(claudeDir) {
      const r = await load().uninstallHook({ claudeDir });
      return { settingsPath: r.settingsPath, changed: r.changed || r.hookDisabled || r.httpConfigRemoved };
    },
  };
}
