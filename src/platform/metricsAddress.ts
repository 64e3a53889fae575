/** Where `/metrics` is served: parsed apart from the server, so a caller need not load prom-client to check it. */
export interface MetricsAddress {
  host: string;
  port: number;
}

/** `PORT` or `HOST:PORT` (an IPv6 host in brackets); undefined when it is neither. */
export function parseMetricsAddress(text: string): MetricsAddress | undefined {
  const m = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(text.trim());
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port > 65_535) return undefined;
  const host = m[1] === undefined ? '127.0.0.1' : m[1].replace(/^\[|\]$/g, '');
  return { host, port };
}
