import { parse, type ParseError } from 'jsonc-parser';

// The user's own statusLine, as ours carries it: its exact JSON text from settings.json, base64url,
// in our command's `--wrap`. settings.json is JSONC, so that text may hold comments: it is read
// with jsonc-parser, here, by both the installer and the statusline that runs it (which requires
// this module only when it has a line to wrap, so a plain refresh loads no parser).

/** The wrapped value, parsed as settings.json is (comments allowed); undefined when it is not valid. */
export function wrappedValue(wrap: string): { value: unknown } | undefined {
  const errors: ParseError[] = [];
  const value = parse(Buffer.from(wrap, 'base64url').toString('utf8'), errors, { allowTrailingComma: false });
  return errors.length ? undefined : { value };
}

/** The command the wrapped status line runs, when it has one. */
export function wrappedStatusLineCommand(wrap: string | undefined): string | undefined {
  if (!wrap) return undefined;
  const value = wrappedValue(wrap)?.value as { command?: unknown } | null | undefined;
  return typeof value?.command === 'string' && value.command.trim() !== '' ? value.command : undefined;
}
