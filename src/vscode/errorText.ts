/** An error's message for a log line or a notification. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
