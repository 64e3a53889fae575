/**
 * Text from someone else's file, made safe to print on a terminal: the C0
 * controls but tab and newline, DEL and the C1 controls (ESC starts the
 * sequences that move the cursor, set the title or write to the clipboard;
 * U+009B is a one-character CSI on some terminals) are dropped.
 */
export function stripControlCharacters(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/**
 * JSON text with the characters JSON.stringify leaves raw but a terminal or a
 * JavaScript parser may act on written as `\uXXXX` escapes: DEL, the C1
 * controls, and the line and paragraph separators. They occur only inside
 * strings (JSON's own syntax is ASCII), so the value parsed back is the same.
 */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
