// A real Prometheus (the Debian package) scraping `watch --metrics` during a field scenario: its own
// config and storage in the sandbox, both ends on loopback ports free at the time (never 9090, where
// Debian's packaged service may listen). The scenario queries it over the HTTP API at the end.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { findCommand, missingTool } from '../../scripts/lib/missingTool.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** How often Prometheus scrapes watch: often enough for a ~20 s session. */
export const SCRAPE_INTERVAL_S = 1;

/** The prometheus binary, or a MissingToolError naming the package. */
export function prometheusBin() {
  const bin = findCommand('prometheus');
  if (!bin) throw missingTool('prometheus', ['prometheus'], 'the field suite scrapes watch --metrics with it');
  return bin;
}

/** A loopback port nothing listens on now (the kernel's pick). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export async function startPrometheus({ dir, target }) {
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const config = path.join(dir, 'prometheus.yml');
  fs.writeFileSync(
    config,
    [
      'global:',
      `  scrape_interval: ${SCRAPE_INTERVAL_S}s`,
      `  scrape_timeout: ${SCRAPE_INTERVAL_S * 800}ms`,
      'scrape_configs:',
      '  - job_name: transcript-lag',
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  const child = spawn(
    prometheusBin(),
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let exitedEarly;
  exited.then((how) => (exitedEarly = how));
  const url = `http://127.0.0.1:${port}`;

  async function api(pathAndQuery) {
    const res = await fetch(`${url}${pathAndQuery}`, { signal: AbortSignal.timeout(5000) });
    const body = await res.json();
    if (body.status !== 'success') throw new Error(`prometheus ${pathAndQuery}: ${body.error ?? res.status}`);
    return body.data;
  }

  /** The target's last scrape: when it started (ms) and whether it worked. */
  async function lastScrape() {
    const data = await api('/api/v1/targets?state=active');
    const t = data.activeTargets.find((x) => x.scrapeUrl.includes(target));
    return t ? { at: Date.parse(t.lastScrape), health: t.health, error: t.lastError } : undefined;
  }

  return {
    url,
    stderr: () => stderr,
    /** Waits, up to `timeoutMs`, for a successful scrape that started after `afterMs`. */
    async scrapedAfter(afterMs, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      let last;
      while (Date.now() < deadline) {
        if (exitedEarly) throw new Error(`prometheus exited (${exitedEarly.code ?? exitedEarly.signal}): ${stderr.trim().slice(-500)}`);
        try {
          last = await lastScrape();
          if (last && last.health === 'up' && last.at > afterMs) return last;
        } catch {
          // not ready yet
        }
        await sleep(200);
      }
      throw new Error(`no successful scrape of ${target} after ${new Date(afterMs).toISOString()} (last: ${JSON.stringify(last)}); prometheus stderr: ${stderr.trim().slice(-500)}`);
    },
    /** An instant PromQL query: its vector as [{metric, value}] with numbers. */
    async query(promql) {
      const data = await api(`/api/v1/query?query=${encodeURIComponent(promql)}`);
      if (data.resultType !== 'vector') throw new Error(`${promql}: a ${data.resultType}, expected a vector`);
      return data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      const how = await exited;
      clearTimeout(timer);
      return how;
    },
  };
}
