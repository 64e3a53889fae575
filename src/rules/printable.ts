/**
 * Text from transcripts, channel files and file names, made safe to show: in a terminal (the
 * `analyze` table, `watch`'s readable lines, the status line) and in VS Code's labels, tooltips,
 * status bar and report. A transcript is hostile input: a title holding `ESC]52;c;…BEL` would
 * write the terminal's clipboard, `ESC[2J` would clear it, and a bidi override would make a label
 * read as something it is not.
 *
 * Removed: the C0 controls (U+0000–U+001F, ESC among them), DEL (U+007F), the C1 controls
 * (U+0080–U+009F, CSI U+009B among them), and the bidi embeddings, overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069). Tab, line feed, vertical tab, form feed, carriage return and
 * NEL become one space each, so words on two lines stay two words. All other Unicode stays.
 *
 * Pure and without imports, so even the hook and status line bundles (`node:` modules only) may use
 * it. The status line itself prints no text from transcripts, only counts and durations; the
 * output of the user's own status line command it wraps passes as it is, colours included, as
 * Claude Code would show it without us.
 * JSON output (`analyze --json`, `watch --json`) is data for programs and keeps every character:
 * JSON.stringify already writes the C0 controls as escapes, and jsonEscapingUnprintable writes DEL,
 * C1 and the bidi characters as `\uXXXX` too, so the JSON reads back exactly the same and is still
 * harmless when it lands on a terminal.
 */

const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const SPACING = /[\t\n\u000b\f\r\u0085]/;

export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => (SPACING.test(c) ? ' ' : ''));
}

/** The same, for a text printed whole on its own lines (`message`): line feed and tab stay. */
export function printableLines(text: string): string {
  return text.replace(UNPRINTABLE, (c) => (c === '\n' || c === '\t' ? c : SPACING.test(c) ? ' ' : ''));
}

const UNESCAPED_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text with DEL, C1, the line and paragraph separators (a JavaScript parser older than ES2019
 * ends a line there) and the bidi characters written as `\uXXXX` escapes: the same JSON value.
 * These characters only ever stand inside JSON strings, where an escape means the character itself.
 */
export function jsonEscapingUnprintable(json: string): string {
  return json.replace(UNESCAPED_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
