// The metrics endpoint (prom-client and its server) as one bundle, dist/metrics.js, loaded only
// when metrics are asked for (`watch --metrics`, the extension's transcriptLag.metrics.port):
// nobody else pays for parsing prom-client.
export { LagMetrics, type LagMetricsOptions } from './lagMetrics';
export { startMetricsServer, type MetricsServer } from './metricsServer';
