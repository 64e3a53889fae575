/**
 * A PreToolUse hook group's `matcher` against a tool name, as Claude Code applies it: `*`, empty or
 * absent matches every tool; a matcher of only letters, digits, `_` and `|` is an exact, case-sensitive
 * name or `|`-separated names (`Edit|Write`); anything else is a JavaScript regular expression, not
 * anchored (`Notebook.*`, `mcp__memory__.*`, `^Bash$`), and one that does not compile matches nothing.
 */
export function matcherMatches(matcher: unknown, toolName: string): boolean {
  if (matcher === undefined || matcher === null || matcher === '' || matcher === '*') return true;
  if (typeof matcher !== 'string') return false;
  if (/^[A-Za-z0-9_|]+$/.test(matcher)) return matcher.split('|').some((name) => name === toolName);
  try {
    return new RegExp(matcher).test(toolName);
  } catch {
    return false;
  }
}
