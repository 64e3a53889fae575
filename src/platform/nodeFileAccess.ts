import { promises as fsp, type Stats } from 'node:fs';
import type { FileAccess, FileIdentity, OpenFile } from '../core/fileAccess';

function identity(s: Stats): FileIdentity {
  return { ino: s.ino, dev: s.dev, size: s.size, mtimeMs: s.mtimeMs, isFile: s.isFile(), isDirectory: s.isDirectory() };
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** The real file system, for the CLI, the extension and tests over temp files. */
export const nodeFileAccess: FileAccess = {
  async stat(path) {
    try {
      return identity(await fsp.stat(path));
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  },
  async open(path): Promise<OpenFile> {
    const handle = await fsp.open(path, 'r');
    return {
      read: async (buffer, offset, length, position) => (await handle.read(buffer, offset, length, position)).bytesRead,
      stat: async () => identity(await handle.stat()),
      close: () => handle.close(),
    };
  },
  async readdir(path) {
    try {
      return await fsp.readdir(path);
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
  },
  readFile: (path) => fsp.readFile(path),
};
