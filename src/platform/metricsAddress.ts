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

/** 127.0.0.0/8 and ::1 (IPv4-mapped too), and the names that mean them. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

const IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const isIpLiteral = (h: string) => IPV4.test(h) || (h.includes(':') && /^[0-9a-f:.]+$/.test(h));

/**
 * Whether a request's Host header names this server: a loopback name or
 * address, or the address it is bound to. A page in a browser that a DNS name
 * of the attacker's points at 127.0.0.1 (DNS rebinding) sends that name, and
 * is refused. A server bound beyond loopback (0.0.0.0, a LAN address) also
 * takes any IP address, by which other machines reach it: an address is not
 * a name anyone can rebind.
 */
export function isAllowedHostHeader(header: string | undefined, boundHost: string): boolean {
  if (!header) return false;
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^:]+)(?::\d{1,5})?$/.exec(header.trim());
  if (!m) return false;
  const host = m[1]!.toLowerCase().replace(/^\[|\]$/g, '');
  if (isLoopbackHost(host) || host === boundHost.toLowerCase()) return true;
  return !isLoopbackHost(boundHost) && isIpLiteral(host);
}

/** Said whenever metrics are asked for beyond loopback, before binding. */
export function nonLoopbackMetricsWarning(host: string): string {
  const where = host === '0.0.0.0' || host === '::' ? 'every network interface' : host;
  return `warning: metrics asked for on ${where}, beyond this machine: anyone who can reach the port reads your sessions' tool names, lags and Claude Code versions`;
}
