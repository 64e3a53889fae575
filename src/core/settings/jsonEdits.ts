import type { Edit, FormattingOptions, Node } from 'jsonc-parser';

// Text edits on a jsonc-parser tree that touch only the bytes they must.
// jsonc-parser's own `modify` re-formats every line an insertion or removal
// touches, which rewrites a neighbour's hand-made one-line hook group; these
// edits leave neighbours byte for byte and lay out only what we insert, in the
// file's own indentation and line ends. Apply them with jsonc-parser's applyEdits.

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

function append(text: string, container: Node, entry: (indent: string) => string, fmt: FormattingOptions): Edit {
  const eol = fmt.eol ?? '\n';
  const indent = childIndent(text, container, fmt);
  const children = container.children ?? [];
  if (children.length > 0) {
    const last = children[children.length - 1];
    const end = last.offset + last.length;
    const bracket = container.offset + container.length - 1;
    // A container closed on its last child's line (`{"a":1}`) gets its bracket on a line of its own.
    if (sameLine(text, end, bracket) && /^\s*$/.test(text.slice(end, bracket))) {
      return { offset: end, length: bracket - end, content: `,${eol}${indent}${entry(indent)}${eol}${lineIndent(text, container.offset)}` };
    }
    return { offset: end, length: 0, content: `,${eol}${indent}${entry(indent)}` };
  }
  // Empty container: replace whatever is between the brackets (whitespace, comments of nothing).
  const inner = { offset: container.offset + 1, length: container.length - 2 };
  return { ...inner, content: `${eol}${indent}${entry(indent)}${eol}${lineIndent(text, container.offset)}` };
}

export function appendToArray(text: string, array: Node, value: unknown, fmt: FormattingOptions): Edit {
  return append(text, array, (indent) => layout(value, indent, fmt), fmt);
}

export function addProperty(text: string, object: Node, key: string, value: unknown, fmt: FormattingOptions): Edit {
  return append(text, object, (indent) => `${JSON.stringify(key)}: ${layout(value, indent, fmt)}`, fmt);
}

export function replaceValue(text: string, node: Node, value: unknown, fmt: FormattingOptions): Edit {
  return { offset: node.offset, length: node.length, content: layout(value, lineIndent(text, node.offset), fmt) };
}

/**
 * Removes child `index` of an array or object (for an object, the property node)
 * with its separator: up to the next child, or from the previous one when it
 * is the last, or everything between the brackets when it is the only one.
 */
export function removeChild(text: string, container: Node, index: number): Edit {
  const children = container.children ?? [];
  const node = children[index];
  if (children.length === 1) return { offset: container.offset + 1, length: container.length - 2, content: '' };
  if (index < children.length - 1) return { offset: node.offset, length: children[index + 1].offset - node.offset, content: '' };
  const prev = children[index - 1];
  const from = prev.offset + prev.length;
  const bracket = container.offset + container.length - 1;
  if (sameLine(text, container.offset, from) && /^\s*$/.test(text.slice(node.offset + node.length, bracket))) {
    // What is left sits on the opening line: close it there again, padded as it is after its opening bracket.
    return { offset: from, length: bracket - from, content: text[container.offset + 1] === ' ' ? ' ' : '' };
  }
  return { offset: from, length: node.offset + node.length - from, content: '' };
}
