/**
 * The text of JSON.stringify(value), for a plain-data object, in pieces: each
 * top-level array longer than `batch` comes `batch` elements at a time. The
 * report of a large transcript holds many thousands of calls: as one string,
 * twice as large once a prompt makes it two-byte, plus its UTF-8 copy on the
 * way out, it was the peak of analyze's memory. Written piece by piece, the
 * peak stays with the scan.
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
