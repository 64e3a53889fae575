import type { Edit, FormattingOptions, Node } from 'jsonc-parser';

// Text edits on a jsonc-parser tree that touch only the bytes they must.
// jsonc-parser's own `modify` re-formats every line an insertion or removal
// touches, which rewrites a neighbour's hand-made one-line hook group; these
// edits leave neighbours byte for byte and lay out only what we insert, in the
// file's own indentation and line ends. Apply them with jsonc-parser's applyEdits.
// Adding only inserts bytes, and removing a child takes out what adding put in
// and never a comment, so that uninstall after install gives back the file
// byte for byte and a user's comment beside our entry stays
// (test/unit/core/settings/settingsEdits.test.ts states both as properties).

function indentUnit(fmt: FormattingOptions): string {
  return fmt.insertSpaces ? ' '.repeat(fmt.tabSize ?? 2) : '\t';
}

/** Leading whitespace of the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

function sameLine(text: string, a: number, b: number): boolean {
  return !text.slice(Math.min(a, b), Math.max(a, b)).includes('\n');
}

/** `value` as JSON laid out like the file, every line after the first starting with `indent`. */
export function layout(value: unknown, indent: string, fmt: FormattingOptions): string {
  const eol = fmt.eol ?? '\n';
  return JSON.stringify(value, null, indentUnit(fmt)).split('\n').join(eol + indent);
}

/** Indentation for a new child of `container`: that of its last child when on its own line, else one level deeper. */
function childIndent(text: string, container: Node, fmt: FormattingOptions): string {
  const last = container.children?.[container.children.length - 1];
  if (last && !sameLine(text, container.offset, last.offset)) return lineIndent(text, last.offset);
  return lineIndent(text, container.offset) + indentUnit(fmt);
}

interface TriviaPiece {
  kind: 'space' | 'newline' | 'comma' | 'comment';
  offset: number;
  end: number;
}

/**
 * What lies between two tokens of a valid document (a separator region: no
 * strings there, only white space, line ends, commas and comments).
 */
function trivia(text: string, from: number, to: number): TriviaPiece[] {
  const out: TriviaPiece[] = [];
  let i = from;
  while (i < to) {
    const c = text[i];
    let end: number;
    let kind: TriviaPiece['kind'];
    if (c === ',') [kind, end] = ['comma', i + 1];
    else if (c === '\n') [kind, end] = ['newline', i + 1];
    else if (c === '\r' && text[i + 1] === '\n') [kind, end] = ['newline', i + 2];
    else if (c === '/' && text[i + 1] === '/') {
      kind = 'comment';
      end = i + 2;
      while (end < to && text[end] !== '\n' && !(text[end] === '\r' && text[end + 1] === '\n')) end++;
    } else if (c === '/' && text[i + 1] === '*') {
      kind = 'comment';
      const close = text.indexOf('*/', i + 2);
      end = close < 0 || close + 2 > to ? to : close + 2;
    } else {
      kind = 'space';
      end = i + 1;
      while (end < to && /[ \t\v\f\u00a0\ufeff]/.test(text[end])) end++;
    }
    out.push({ kind, offset: i, end });
    i = end;
  }
  return out;
}

const hasComment = (pieces: TriviaPiece[]) => pieces.some((p) => p.kind === 'comment');

/**
 * Where the line holding `offset` starts, counting its line break: the offset
 * of the `\n` (or `\r\n`) before it, when only spaces lie between that and
 * `offset`. Undefined when something else shares the line before it.
 */
function ownLineBreak(text: string, offset: number): number | undefined {
  let i = offset;
  while (i > 0 && (text[i - 1] === ' ' || text[i - 1] === '\t')) i--;
  if (i === 0 || text[i - 1] !== '\n') return undefined;
  return text[i - 2] === '\r' ? i - 2 : i - 1;
}

/**
 * Removes a child that has its line to itself, from the line break before it
 * (`text[lineBreak]`) to its end, unless that line break ends a `//` comment
 * (in the trivia from `from`) and nothing but a line break follows the child:
 * then from the start of its line, so the comment does not swallow what follows.
 */
function removeOwnLine(text: string, from: number, lineBreak: number, start: number, end: number): Edit {
  const before = trivia(text, from, lineBreak).filter((p) => p.kind !== 'space');
  const last = before[before.length - 1];
  const endsLineComment = last?.kind === 'comment' && text.startsWith('//', last.offset);
  const followedByLineBreak = /^[ \t]*\r?\n/.test(text.slice(end));
  if (!endsLineComment || followedByLineBreak) return { offset: lineBreak, length: end - lineBreak, content: '' };
  const lineStart = text[lineBreak] === '\r' ? lineBreak + 2 : lineBreak + 1;
  return { offset: lineStart, length: end - lineStart, content: '' };
}

/**
 * Adds a child after the last one, or into an empty container, by insertion
 * only: every byte already there stays, comments keep describing what they
 * described, and removeChild takes back exactly what was added. A container
 * written on one line gets the child on that line, in compact JSON; otherwise
 * the child gets a line of its own, laid out like the file.
 */
export interface AppendOptions {
  /**
   * An empty container (white space only) gets the child right after its
   * opening bracket (`[{` ... `}]`) instead of on a line of its own, which
   * tells the container the user had from one we created (see hookSettings).
   */
  hugEmpty?: boolean;
}

function append(text: string, container: Node, entry: (indent: string, compact: boolean) => string, fmt: FormattingOptions, opts: AppendOptions = {}): Edit[] {
  const eol = fmt.eol ?? '\n';
  const indent = childIndent(text, container, fmt);
  const children = container.children ?? [];
  const bracket = container.offset + container.length - 1;
  if (children.length > 0) {
    const last = children[children.length - 1];
    const end = last.offset + last.length;
    const after = trivia(text, end, bracket);
    if (sameLine(text, container.offset, bracket) && !hasComment(after)) {
      const tight = children.length > 1 && text.slice(children[0].offset + children[0].length, children[1].offset) === ',';
      return [{ offset: end, length: 0, content: `${tight ? ',' : ', '}${entry('', true)}` }];
    }
    // A comment after the last child on its line (`"a": 1 // why`) stays there: the new child goes on the next line.
    const lineEnd = after.find((p) => p.kind === 'newline');
    if (lineEnd && hasComment(after.slice(0, after.indexOf(lineEnd)))) {
      return [
        { offset: end, length: 0, content: ',' },
        { offset: lineEnd.offset, length: 0, content: `${eol}${indent}${entry(indent, false)}` },
      ];
    }
    return [{ offset: end, length: 0, content: `,${eol}${indent}${entry(indent, false)}` }];
  }
  const inner = trivia(text, container.offset + 1, bracket);
  if (!hasComment(inner) && opts.hugEmpty) {
    // `[{` ... `}]` lines up with the bracket; an object's property sits one level in, like the ones after it.
    const hugIndent = container.type === 'array' ? lineIndent(text, container.offset) : indent;
    return [{ offset: container.offset + 1, length: 0, content: entry(hugIndent, false) }];
  }
  if (!hasComment(inner)) {
    // Empty but for white space: the child and the closing bracket each get a line, after what was there.
    return [{ offset: bracket, length: 0, content: `${eol}${indent}${entry(indent, false)}${eol}${lineIndent(text, container.offset)}` }];
  }
  // Only comments inside: the child goes on a line of its own before the closing bracket's line.
  const lineBreak = ownLineBreak(text, bracket);
  if (lineBreak !== undefined && lineBreak > container.offset) return [{ offset: lineBreak, length: 0, content: `${eol}${indent}${entry(indent, false)}` }];
  return [{ offset: bracket, length: 0, content: entry(indent, false) }];
}

export function appendToArray(text: string, array: Node, value: unknown, fmt: FormattingOptions, opts?: AppendOptions): Edit[] {
  return append(text, array, (indent, compact) => (compact ? JSON.stringify(value) : layout(value, indent, fmt)), fmt, opts);
}

export function addProperty(text: string, object: Node, key: string, value: unknown, fmt: FormattingOptions, opts?: AppendOptions): Edit[] {
  return append(text, object, (indent, compact) => `${JSON.stringify(key)}: ${compact ? JSON.stringify(value) : layout(value, indent, fmt)}`, fmt, opts);
}

/** Replaces a value in its own style: one written on one line stays on one line (see append). */
export function replaceValue(text: string, node: Node, value: unknown, fmt: FormattingOptions): Edit {
  const oneLine = !/\n/.test(text.slice(node.offset, node.offset + node.length));
  return { offset: node.offset, length: node.length, content: oneLine ? JSON.stringify(value) : layout(value, lineIndent(text, node.offset), fmt) };
}

/**
 * Removes child `index` of an array or object (for an object, the property
 * node) with one separator, and never a comment: a comment beside it belongs
 * to the user (it may describe a neighbour), so it stays. The inverse of
 * append: a child append added comes out as the bytes it went in as.
 */
export function removeChild(text: string, container: Node, index: number): Edit[] {
  const children = container.children ?? [];
  const node = children[index];
  const start = node.offset;
  const end = node.offset + node.length;
  const bracket = container.offset + container.length - 1;
  const prev = children[index - 1];
  const next = children[index + 1];
  if (!prev && !next) {
    const lineBreak = ownLineBreak(text, start);
    const inner = trivia(text, container.offset + 1, bracket);
    // The child and the closing bracket's line, as append put them into a container of white space.
    if (lineBreak !== undefined && !hasComment(inner) && /^\r?\n[ \t]*$/.test(text.slice(end, bracket))) return [{ offset: lineBreak, length: bracket - lineBreak, content: '' }];
    if (lineBreak === undefined) return [{ offset: start, length: end - start, content: '' }];
    return [removeOwnLine(text, container.offset + 1, lineBreak, start, end)];
  }
  if (next) {
    const after = trivia(text, end, next.offset);
    const comma = after.find((p) => p.kind === 'comma')!;
    const lineBreak = ownLineBreak(text, start);
    const rest = after.slice(after.indexOf(comma) + 1);
    const firstNonSpace = rest.find((p) => p.kind !== 'space');
    if (lineBreak !== undefined && firstNonSpace?.kind === 'newline' && !hasComment(after.slice(0, after.indexOf(comma)))) {
      // The child has its line(s) to itself: they go, line break included.
      const lineStart = text[lineBreak] === '\r' ? lineBreak + 2 : lineBreak + 1;
      return [{ offset: lineStart, length: firstNonSpace.end - lineStart, content: '' }];
    }
    if (hasComment(after)) {
      // A comment between the child and the next one stays where it is.
      return [
        { offset: start, length: end - start, content: '' },
        { offset: comma.offset, length: comma.end - comma.offset, content: '' },
      ];
    }
    // Not on a line of its own (`[x, a]`, or right after the bracket): the next child takes its place.
    return [{ offset: start, length: next.offset - start, content: '' }];
  }
  // The last child: its comma is the one after the previous child.
  const prevEnd = prev.offset + prev.length;
  const before = trivia(text, prevEnd, start);
  const comma = before.find((p) => p.kind === 'comma')!;
  const lineBreak = ownLineBreak(text, start);
  if (lineBreak !== undefined && lineBreak >= comma.end) {
    return [
      { offset: comma.offset, length: comma.end - comma.offset, content: '' },
      removeOwnLine(text, comma.end, lineBreak, start, end),
    ];
  }
  const between = before.slice(before.indexOf(comma) + 1);
  if (!hasComment(between) && !hasComment(before.slice(0, before.indexOf(comma)))) return [{ offset: prevEnd, length: end - prevEnd, content: '' }];
  return [
    { offset: comma.offset, length: comma.end - comma.offset, content: '' },
    { offset: start, length: end - start, content: '' },
  ];
}
