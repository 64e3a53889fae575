/**
 * JSON.stringify(value) of a plain-data object, in pieces: top-level arrays longer than `batch`, `batch` elements
 * at a time. A large report as one string (two-byte once a prompt is, plus its UTF-8 copy) would top analyze's memory.
 */
export function* jsonPieces(value: Record<string, unknown>, batch = 100): Generator<string> {
  let first = true;
  yield '{';
  for (const [key, v] of Object.entries(value)) {
    // Keys JSON.stringify leaves out.
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    const head = `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (!Array.isArray(v) || v.length <= batch) {
      yield head + JSON.stringify(v);
      continue;
    }
    yield `${head}[`;
    for (let i = 0; i < v.length; i += batch) {
      // Stringified as an array so every element reads as JSON.stringify reads array elements.
      const text = JSON.stringify(v.slice(i, i + batch));
      yield (i === 0 ? '' : ',') + text.slice(1, -1);
    }
    yield ']';
  }
  yield '}';
}
