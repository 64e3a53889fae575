import * as vscode from 'vscode';
import type { HookReceiverService } from '../platform/hookReceiverService';
import { promises as fsp } from 'node:fs';
import { httpConfigPathOf } from '../platform/httpConfigFile';

/**
 * The http hooks' receiver (install-hook --http) in a window: while the Claude
 * dir has a `transcript-lag/http.json`, this window serves its port unless
 * another window or a `watch` does; all of them read the same file channel.
 * The receiver (in dist/engine.js) is loaded only once such a config exists.
 */
const CHECK_MS = 3000;

type Log = Pick<vscode.LogOutputChannel, 'info' | 'warn'>;

export class HttpHookReceiver implements vscode.Disposable {
  private service: HookReceiverService | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private busy = false;

  constructor(
    private readonly claudeDir: () => string,
    private readonly load: (claudeDir: string, onStatus: (text: string) => void) => HookReceiverService,
    private readonly log: Log,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.refresh(), CHECK_MS);
    void this.refresh();
  }

  /** Serves, or stops serving, to match the Claude dir's config now. */
  async refresh(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const dir = this.claudeDir();
      if (!this.service) {
        // Whatever is there, usable or not, is the service's to judge and say (a symlink refused, a mode fixed).
        if (!(await fsp.lstat(httpConfigPathOf(dir)).then(() => true, () => false))) return;
        this.service = this.load(dir, (text) => this.log.info(text));
      }
      await this.service.setClaudeDir(dir);
      await this.service.refresh();
    } catch (err) {
      this.log.warn(`http hooks: ${String(err)}`);
    } finally {
      this.busy = false;
    }
  }

  /** Where it serves now, for the test API: `serving:PORT`, `served-elsewhere:PORT`, `off`. */
  state(): string {
    const s = this.service?.current;
    return !s || s.state === 'off' ? 'off' : `${s.state}:${s.port}`;
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    void this.service?.stop();
  }
}
