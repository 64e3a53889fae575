/**
 * The engine as the extension runs it (src/vscode/engineHost.ts): the chokidar
 * change source for low latency, and tick() on the host's interval as the
 * safety net, skipped while one is in flight.
 */
import { TranscriptLagEngine } from '../src/core/engine';
import type { ChangeSource } from '../src/core/changeSource';
import type { EngineEvent } from '../src/core/engineEvents';
import { chokidarChangeSource } from '../src/platform/chokidarChangeSource';
import { nodeFileAccess } from '../src/platform/nodeFileAccess';
import type { WatchStrategy } from './lib/writerPhase';

/**
 * TICK_INTERVAL_MS of src/vscode/engineHost.ts, copied: that module loads
 * `vscode` at run time, so the benchmark cannot import it. Keep the two equal.
 */
export const HOST_TICK_INTERVAL_MS = 1000;

export interface EngineStrategyOptions {
  /** Every engine event, as the extension's EngineHost forwards them. */
  onEvent?: (e: EngineEvent) => void;
  /** After each timer tick, as EngineHost calls onChanged. */
  onTicked?: () => void;
  /** A different change source than the shipped one, under another name. */
  variant?: { name: string; changes: () => ChangeSource };
}

export function engineStrategy(opts: EngineStrategyOptions = {}): WatchStrategy & { ticks(): number } {
  const { onEvent, onTicked, variant } = opts;
  let engine: TranscriptLagEngine | undefined;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let ticks = 0;
  return {
    name: variant?.name ?? 'engine (chokidar + 1 s tick)',
    ticks: () => ticks,
    async start(site, seen) {
      engine = new TranscriptLagEngine({
        claudeDir: site.claudeDir,
        workspaceFolders: [site.workspace],
        scope: 'workspace',
        files: nodeFileAccess,
        clock: { now: () => Date.now() },
        changes: variant ? variant.changes() : chokidarChangeSource(),
      });
      engine.onEvent((e) => {
        if (e.event === 'written') seen(e.tool_use_id);
        onEvent?.(e);
      });
      await engine.start();
      const e = engine;
      timer = setInterval(() => {
        if (inFlight) return;
        ticks++;
        inFlight = e
          .tick()
          .then(() => onTicked?.())
          .finally(() => (inFlight = undefined));
      }, HOST_TICK_INTERVAL_MS);
    },
    async stop() {
      clearInterval(timer);
      await inFlight;
      await engine?.dispose();
    },
  };
}
