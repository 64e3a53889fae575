import { channelDirOf } from '../core/channel/paths';
import type { HookReceiver } from './hookReceiver';
import { startHookReceiverThread } from './hookReceiverThread';
import { HTTP_HOOK_TIMEOUT_SEC } from './hookInstaller';
import { readHttpHookConfig, type HttpHookConfig } from './httpHookConfig';

/**
 * Serves the http hooks install-hook --http set up, for `watch` and the
 * extension alike: reads `transcript-lag/http.json` at each refresh() and
 * serves its port on 127.0.0.1 while it is there. When another process
 * (another window, a `watch`) already serves the port, this one stays a
 * reader of the file channel, which the serving one writes.
 */
export interface ReceiverStatus {
  state: 'off' | 'serving' | 'served-elsewhere' | 'failed';
  port?: number;
  detail?: string;
}

export class HookReceiverService {
  private receiver: HookReceiver | undefined;
  private config: HttpHookConfig | undefined;
  private status: ReceiverStatus = { state: 'off' };
  private refreshing: Promise<ReceiverStatus> | undefined;

  constructor(
    private claudeDir: string,
    private readonly now: () => number,
    private readonly onStatus: (status: ReceiverStatus) => void = () => undefined,
  ) {}

  get current(): ReceiverStatus {
    return this.status;
  }

  /** Another Claude dir: what it serves is that dir's config. */
  async setClaudeDir(claudeDir: string): Promise<ReceiverStatus> {
    if (claudeDir === this.claudeDir) return this.status;
    this.claudeDir = claudeDir;
    await this.stop();
    return this.refresh();
  }

  /** Starts, restarts or stops the receiver to match the config on disk now. Cheap when nothing changed. */
  refresh(): Promise<ReceiverStatus> {
    this.refreshing ??= this.refreshNow().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async refreshNow(): Promise<ReceiverStatus> {
    const config = await readHttpHookConfig(this.claudeDir);
    const same = config && this.config && config.port === this.config.port && config.secret === this.config.secret;
    // Served elsewhere or failed: try again on the next refresh, the other process may be gone.
    if (same && this.status.state === 'serving') return this.status;
    if (!same) await this.stop();
    this.config = config;
    if (!config) return this.set({ state: 'off' });
    try {
      this.receiver = await startHookReceiverThread({
        host: '127.0.0.1',
        port: config.port,
        secret: config.secret,
        channelDir: channelDirOf(this.claudeDir),
        now: this.now,
        timeoutMs: HTTP_HOOK_TIMEOUT_SEC * 1000,
      });
      return this.set({ state: 'serving', port: config.port });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') return this.set({ state: 'served-elsewhere', port: config.port });
      return this.set({ state: 'failed', port: config.port, detail: code ?? String((err as Error).message) });
    }
  }

  private set(status: ReceiverStatus): ReceiverStatus {
    const changed = JSON.stringify(status) !== JSON.stringify(this.status);
    this.status = status;
    if (changed) this.onStatus(status);
    return status;
  }

  async stop(): Promise<void> {
    const r = this.receiver;
    this.receiver = undefined;
    this.config = undefined;
    if (this.status.state !== 'off') this.set({ state: 'off' });
    await r?.close();
  }
}

/** One line for a log or stderr. */
export function receiverStatusText(s: ReceiverStatus): string {
  switch (s.state) {
    case 'off':
      return 'http hooks: none installed';
    case 'serving':
      return `http hooks: receiving on 127.0.0.1:${s.port}`;
    case 'served-elsewhere':
      return `http hooks: 127.0.0.1:${s.port} is served by another process (another window or watch); its events arrive through the channel`;
    case 'failed':
      return `http hooks: cannot serve 127.0.0.1:${s.port} (${s.detail}); http hook calls go unreported`;
  }
}
