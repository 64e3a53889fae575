import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EngineEvent } from '../core/engineEvents';
import type { SessionSnapshot } from '../core/snapshot';
import { isLoopbackHost, nonLoopbackMetricsWarning } from '../platform/metricsAddress';
import type * as MetricsModule from '../platform/metricsModule';

/**
 * `transcriptLag.metrics.port`: the engine's events as Prometheus metrics at
 * http://HOST:PORT/metrics, for a team's scraper (docs/METRICS.md). Off by
 * default; prom-client (dist/metrics.js) is loaded only once it is on. A port
 * in use is said once, and the extension goes on without metrics.
 */
type Log = Pick<vscode.LogOutputChannel, 'info' | 'warn' | 'error'>;

export interface MetricsSettings {
  metricsPort: number;
  metricsHost: string;
}

function loadMetricsModule(): typeof MetricsModule {
  // The path is computed so the bundler leaves this require alone: dist/metrics.js is its own bundle.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(__dirname, 'metrics.js')) as typeof MetricsModule;
}

export class MetricsEndpoint implements vscode.Disposable {
  private metrics: MetricsModule.LagMetrics | undefined;
  private server: MetricsModule.MetricsServer | undefined;
  private serving = '';
  private applying: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: Log,
    private readonly sessions: () => SessionSnapshot[],
    private readonly load: () => typeof MetricsModule = loadMetricsModule,
  ) {}

  observe(e: EngineEvent): void {
    this.metrics?.observe(e);
  }

  /** Where it serves now, e.g. `127.0.0.1:9464`; '' when off. */
  get address(): string {
    return this.server ? `${this.server.host}:${this.server.port}` : '';
  }

  apply(settings: MetricsSettings): Promise<void> {
    this.applying = this.applying.then(() => this.applyNow(settings)).catch((err) => this.log.error(`metrics: ${String(err)}`));
    return this.applying;
  }

  private async applyNow({ metricsPort, metricsHost }: MetricsSettings): Promise<void> {
    const wanted = metricsPort > 0 ? `${metricsHost}:${metricsPort}` : '';
    if (wanted === this.serving) return;
    await this.server?.close();
    this.server = undefined;
    this.serving = wanted;
    if (!wanted) return;
    const mod = this.load();
    // One set of series for the life of the window: counters never go back when the port changes.
    this.metrics ??= new mod.LagMetrics({ sessions: this.sessions });
    if (!isLoopbackHost(metricsHost)) this.log.warn(`metrics: ${nonLoopbackMetricsWarning(metricsHost)}`);
    try {
      this.server = await mod.startMetricsServer(this.metrics, { host: metricsHost, port: metricsPort });
      this.log.info(`metrics at http://${metricsHost.includes(':') ? `[${metricsHost}]` : metricsHost}:${this.server.port}/metrics`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'EADDRINUSE' ? 'the port is in use' : code === 'EADDRNOTAVAIL' ? 'no such local address' : String((err as Error).message);
      this.log.warn(`metrics: cannot listen on ${wanted} (${why})`);
      void vscode.window.showWarningMessage(`Transcript Lag: no metrics endpoint on ${wanted}: ${why}. Everything else works as usual.`);
    }
  }

  dispose(): void {
    void this.server?.close();
    this.server = undefined;
  }
}
