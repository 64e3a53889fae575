/**
 * What http.json (`<claude dir>/transcript-lag/http.json`, written by install-hook --http) must
 * hold to be ours: a port and a secret of our shape. One rule for the receivers
 * (src/platform/httpConfigFile.ts) and the mod (src/mod/), which posts to the receiver it names.
 * No imports: the mod bundle takes it.
 */
export interface HttpHookConfig {
  port: number;
  secret: string;
}

/** A larger http.json is not ours. */
export const MAX_HTTP_CONFIG_BYTES = 4096;

export function parseHttpHookConfig(text: string): HttpHookConfig | undefined {
  try {
    const { port, secret } = JSON.parse(text) as Partial<HttpHookConfig>;
    if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65_535) return undefined;
    if (typeof secret !== 'string' || !/^[A-Za-z0-9_-]{32,128}$/.test(secret)) return undefined;
    return { port: port as number, secret };
  } catch {
    return undefined;
  }
}
