import type { HookReceiver, HookReceiverOptions } from './hookReceiver';
import { startHookReceiverThread } from './hookReceiverThread';
import { HTTP_HOOK_TIMEOUT_SEC } from './hookInstaller';
import { loadHttpHookConfig, type HttpHookConfig, type HttpHookConfigRead } from './httpConfigFile';
import { portHolder } from './portHolder';
import { proveListener, type ListenerProof } from './receiverChallenge';

/**
 * Serves the http hooks install-hook --http set up, for `watch` and the
 * extension alike: reads `transcript-lag/http.json` at each refresh() and
 * serves its port on 127.0.0.1 while it is there. When the port is taken, the
 * listener is asked to prove it holds this install's secret
 * (./receiverChallenge.ts): only then is it "another window or watch", whose
 * events this one reads from the file channel. Binding again is retried with
 * a growing delay (RETRY_FIRST_MS doubling up to RETRY_MAX_MS), so a port held
 * for good costs next to nothing.
 */
export interface ReceiverStatus {
  /**
   * `served-elsewhere`: our receiver with this install's secret holds the port; `port-shared`: a
   * receiver of another install (another Claude dir on the same port); `port-taken`: a program
   * that is not ours; `refused`: http.json cannot be trusted (detail says why).
   */
  state: 'off' | 'serving' | 'served-elsewhere' | 'port-shared' | 'port-taken' | 'failed' | 'refused';
  port?: number;
  detail?: string;
}

export const RETRY_FIRST_MS = 1_000;
export const RETRY_MAX_MS = 16_000;

export interface HookReceiverServiceOptions {
  /** Said once each: what was wrong with http.json and what was done, or why it could not be read. */
  onWarning?: (text: string) => void;
  readConfig?: (claudeDir: string) => Promise<HttpHookConfigRead>;
  startReceiver?: (opts: HookReceiverOptions) => Promise<HookReceiver>;
  proveListener?: (host: string, port: number, secret: string) => Promise<ListenerProof>;
  portHolder?: (port: number) => Promise<string | undefined>;
}

const HOST = '127.0.0.1';

export class HookReceiverService {
  private receiver: HookReceiver | undefined;
  private config: HttpHookConfig | undefined;
  private status: ReceiverStatus = { state: 'off' };
  private refreshing: Promise<ReceiverStatus> | undefined;
  /** Binds failed in a row for this config, and when the next may be tried. */
  private failures = 0;
  private retryAt = 0;
  private lastWarning = '';

  constructor(
    private claudeDir: string,
    private readonly now: () => number,
    private readonly onStatus: (status: ReceiverStatus) => void = () => undefined,
    private readonly opts: HookReceiverServiceOptions = {},
  ) {}

  get current(): ReceiverStatus {
    return this.status;
  }

  /** Another Claude dir: what it serves is that dir's config. */
  async setClaudeDir(claudeDir: string): Promise<ReceiverStatus> {
    if (claudeDir === this.claudeDir) return this.status;
    this.claudeDir = claudeDir;
    await this.stopReceiver();
    return this.refresh();
  }

  /** Starts, restarts or stops the receiver to match the config on disk now. Cheap when nothing changed. */
  refresh(): Promise<ReceiverStatus> {
    this.refreshing ??= this.refreshNow().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private warn(text: string): void {
    if (text === this.lastWarning) return;
    this.lastWarning = text;
    this.opts.onWarning?.(text);
  }

  private async refreshNow(): Promise<ReceiverStatus> {
    const read = await (this.opts.readConfig ?? loadHttpHookConfig)(this.claudeDir);
    // EMFILE and the like say nothing about the install: keep serving (or not) as before.
    if (read.state === 'unreadable') {
      this.warn(`http hooks: cannot read http.json (${read.code}); going on as before`);
      return this.status;
    }
    if (read.state === 'found' && read.warning) this.warn(`http hooks: ${read.warning}`);
    const config = read.state === 'found' ? read.config : undefined;
    const same = config && this.config && config.port === this.config.port && config.secret === this.config.secret;
    if (same && this.status.state === 'serving') return this.status;
    if (!same) {
      await this.stopReceiver();
      this.failures = 0;
      this.retryAt = 0;
    }
    this.config = config;
    if (!config) return this.set(read.state === 'refused' ? { state: 'refused', detail: read.reason } : { state: 'off' });
    if (this.now() < this.retryAt) return this.status;
    try {
      this.receiver = await (this.opts.startReceiver ?? startHookReceiverThread)({
        host: HOST,
        port: config.port,
        secret: config.secret,
        claudeDir: this.claudeDir,
        now: this.now,
        timeoutMs: HTTP_HOOK_TIMEOUT_SEC * 1000,
      });
      this.failures = 0;
      return this.set({ state: 'serving', port: config.port });
    } catch (err) {
      this.retryAt = this.now() + Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** this.failures++);
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EADDRINUSE') return this.set({ state: 'failed', port: config.port, detail: code ?? String((err as Error).message) });
      const proof = await (this.opts.proveListener ?? proveListener)(HOST, config.port, config.secret);
      if (proof === 'ours') return this.set({ state: 'served-elsewhere', port: config.port });
      if (proof === 'other-install') return this.set({ state: 'port-shared', port: config.port });
      // Named once, when it is first found there: the look through /proc is not free.
      if (this.status.state === 'port-taken' && this.status.port === config.port) return this.status;
      const holder = await (this.opts.portHolder ?? portHolder)(config.port).catch(() => undefined);
      return this.set({ state: 'port-taken', port: config.port, ...(holder ? { detail: holder } : {}) });
    }
  }

  private set(status: ReceiverStatus): ReceiverStatus {
    const changed = JSON.stringify(status) !== JSON.stringify(this.status);
    this.status = status;
    if (changed) this.onStatus(status);
    return status;
  }

  private async stopReceiver(): Promise<void> {
    const r = this.receiver;
    this.receiver = undefined;
    this.config = undefined;
    await r?.close();
  }

  /** Stops serving for good (shutdown): says nothing, since nothing about the install changed. */
  async stop(): Promise<void> {
    await this.stopReceiver();
    this.status = { state: 'off' };
  }
}

const NEW_PORT_HINT = "run 'transcript-lag install-hook --http --port N' with a free port";

/** One line for a log or stderr. */
export function receiverStatusText(s: ReceiverStatus): string {
  switch (s.state) {
    case 'off':
      return 'http hooks: none installed';
    case 'serving':
      return `http hooks: receiving on ${HOST}:${s.port}`;
    case 'served-elsewhere':
      return `http hooks: ${HOST}:${s.port} is served by another transcript-lag receiver with this install's secret (another window or watch); its events arrive through the channel`;
    case 'port-shared':
      return `http hooks: ${HOST}:${s.port} is served by a transcript-lag receiver of another install (another Claude dir on the same port?): it refuses this dir's hooks, so they go unreported; ${NEW_PORT_HINT}`;
    case 'port-taken':
      return `http hooks: ${HOST}:${s.port} is held by a program that is not transcript-lag${s.detail ? `: ${s.detail}` : ''}. Claude Code sends it every tool call and this install's secret; stop it, or ${NEW_PORT_HINT}`;
    case 'failed':
      return `http hooks: cannot serve ${HOST}:${s.port} (${s.detail}); http hook calls go unreported`;
    case 'refused':
      return `http hooks: ${s.detail}; http hook calls go unreported`;
  }
}
