import * as http from 'node:http';
import type { LagMetrics } from './lagMetrics';
import { isAllowedHostHeader, type MetricsAddress } from './metricsAddress';

/**
 * Serves GET /metrics in the Prometheus text format, for `watch --metrics` and
 * the extension's `transcriptLag.metrics.port`. Bound to loopback unless the
 * user names another address: the series describe a developer's sessions.
 * Requests whose Host is not this server's are refused (isAllowedHostHeader).
 */
export interface MetricsServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

export function startMetricsServer(metrics: LagMetrics, address: MetricsAddress): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    // DNS rebinding: a web page must not read the series through a name of its own pointed at us.
    if (!isAllowedHostHeader(req.headers.host, address.host)) {
      res.writeHead(421).end();
      return;
    }
    const url = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    metrics.text().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  server.headersTimeout = 5_000;
  server.requestTimeout = 10_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      const bound = server.address();
      resolve({
        host: address.host,
        port: typeof bound === 'object' && bound ? bound.port : address.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
