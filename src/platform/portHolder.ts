import { promises as fsp } from 'node:fs';
import { printable } from '../rules/printable';

/**
 * Best effort, Linux only: which program listens on a loopback TCP port, as
 * `"name" (pid N)`, for a warning that the http hooks' port is held by a
 * program that is not ours. /proc/net/tcp{,6} give the listening socket's
 * inode; the process holding it is the one with `socket:[inode]` among its
 * descriptors (only our own user's processes can be looked into). Bounded:
 * a few thousand processes and descriptors at most; undefined when not found.
 */
const MAX_PROCESSES = 4096;
const MAX_FDS_PER_PROCESS = 4096;
const MAX_TABLE_BYTES = 8 * 1024 * 1024;
const LISTEN = '0A';

/** The inodes of sockets listening on `port` in a /proc/net/tcp table's text. */
export function listeningInodes(table: string, port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const out: string[] = [];
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    if (f.length < 10 || f[3] !== LISTEN || f[1]?.split(':')[1] !== hexPort) continue;
    if (/^[1-9][0-9]*$/.test(f[9]!)) out.push(f[9]!);
  }
  return out;
}

async function readBounded(file: string, maxBytes: number): Promise<string> {
  const handle = await fsp.open(file, 'r');
  try {
    const buffer = Buffer.alloc(maxBytes);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0 || (length += bytesRead) >= buffer.length) break;
    }
    return buffer.subarray(0, length).toString('latin1');
  } finally {
    await handle.close();
  }
}


export async function portHolder(port: number): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    const inodes = new Set<string>();
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      const text = await readBounded(table, MAX_TABLE_BYTES).catch(() => '');
      for (const inode of listeningInodes(text, port)) inodes.add(inode);
    }
    if (inodes.size === 0) return undefined;
    const wanted = new Set([...inodes].map((i) => `socket:[${i}]`));
    const pids = (await fsp.readdir('/proc')).filter((n) => /^[0-9]+$/.test(n)).slice(0, MAX_PROCESSES);
    for (const pid of pids) {
      const fds = await fsp.readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
      for (const fd of fds.slice(0, MAX_FDS_PER_PROCESS)) {
        const target = await fsp.readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
        if (!wanted.has(target)) continue;
        const comm = (await readBounded(`/proc/${pid}/comm`, 256).catch(() => '')).trim();
        return `${comm ? `"${printable(comm).slice(0, 64)}" ` : ''}(pid ${pid})`;
      }
    }
    return 'a process of another user';
  } catch {
    return undefined;
  }
}
