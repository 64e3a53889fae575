// Which http hook entry of settings.json is ours: shared by the settings edits
// (src/core/settings/hookEntries.ts) and the plugin's hook (src/hook/pluginGuard.ts): the rules layer's, so
// the hook imports the rule the settings edits use; no imports here.

/** The header our http entries carry the secret in (src/platform/hookReceiver.ts reads it). */
export const HTTP_SECRET_HEADER = 'X-Transcript-Lag-Secret';
/** The only URLs our http entries use: our receiver on loopback. */
const OUR_HOOK_URL = /^http:\/\/127\.0\.0\.1:\d{1,5}\/hook$/;

/**
 * An http entry is ours when it is exactly what install-hook --http writes: a
 * POST to our receiver's path on loopback with our secret header. Another
 * http hook, even on the same port, is the user's.
 */
export function isOurHttpHook(hook: unknown): boolean {
  if (!hook || typeof hook !== 'object') return false;
  const h = hook as { type?: unknown; url?: unknown; headers?: unknown };
  if (h.type !== 'http' || typeof h.url !== 'string' || !OUR_HOOK_URL.test(h.url)) return false;
  const headers = h.headers;
  return !!headers && typeof headers === 'object' && typeof (headers as Record<string, unknown>)[HTTP_SECRET_HEADER] === 'string';
}
