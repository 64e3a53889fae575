/**
 * The engine as the extension runs it: through the extension's own EngineHost
 * (src/vscode/engineHost.ts, free of `vscode` at run time), which builds the
 * engine with the chokidar change source and ticks it on its interval as the
 * safety net. Only the views are left out.
 */
import type { EngineEvent } from '../src/core/engineEvents';
import { chokidarChangeSource } from '../src/platform/chokidarChangeSource';
import { nodeFileAccess } from '../src/platform/nodeFileAccess';
import { systemClock } from '../src/platform/systemClock';
import { EngineHost } from '../src/vscode/engineHost';
import type { WatchStrategy } from './lib/writerPhase';

export interface EngineStrategyOptions {
  /** Every engine event, as EngineHost forwards them to the extension. */
  onEvent?: (e: EngineEvent) => void;
  /** EngineHost's onChanged: after each tick, start and stop. */
  onChanged?: () => void;
}

const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

export function engineStrategy(opts: EngineStrategyOptions = {}): WatchStrategy & { ticks(): number } {
  const { onEvent, onChanged } = opts;
  let host: EngineHost | undefined;
  let changed = 0;
  return {
    name: 'engine (EngineHost: chokidar + 1 s tick)',
    ticks: () => changed,
    async start(site, seen) {
      host = new EngineHost(
        {
          log: quietLog,
          files: nodeFileAccess,
          clock: systemClock,
          createEngine: async (engineOpts) => new (await import('../src/core/engine')).TranscriptLagEngine(engineOpts),
          createChangeSource: async () => chokidarChangeSource(),
          claudeDirOfSetting: () => site.claudeDir,
          workspaceFolders: () => [site.workspace],
          onEvent: (e) => {
            if (e.event === 'written') seen(e.tool_use_id);
            onEvent?.(e);
          },
          onChanged: () => {
            changed++;
            onChanged?.();
          },
        },
        { claudeDir: site.claudeDir, sessions: 'workspace', warnAfterMs: 2000, probePolls: 50, probePollMs: 100, recentCalls: 20, channelRetentionDays: 7, metricsPort: 0, metricsHost: '127.0.0.1' },
      );
      await host.start();
      if (!host.current()) throw new Error(`EngineHost did not start an engine on ${site.claudeDir}`);
    },
    async stop() {
      await host?.stop();
    },
  };
}
