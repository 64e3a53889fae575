/** Waits for `f` to give a value: each look a turn of the event loop apart, given up after many (about 10 s). */
export async function until<T>(f: () => T | undefined | false): Promise<T> {
  for (let i = 0; i < 2000; i++) {
    const v = f();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('never happened');
}
