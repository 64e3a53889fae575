import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { channelDirOf } from '../core/channel/paths';
import { readSmallFile } from '../core/fileAccess';
import { nodeFileAccess } from './nodeFileAccess';

/**
 * Where install-hook --http tells the receivers (watch, the extension) which
 * port to serve and which secret to require: `<claude dir>/transcript-lag/http.json`,
 * 0600 in the 0700 channel folder, as private as settings.json that holds the
 * same secret in its header.
 */
export interface HttpHookConfig {
  port: number;
  secret: string;
}

export const HTTP_CONFIG_FILE = 'http.json';
/** The receiver's port unless install-hook --http --port says otherwise. */
export const DEFAULT_HTTP_HOOK_PORT = 41877;

export function httpConfigPathOf(claudeDir: string): string {
  return path.join(channelDirOf(claudeDir), HTTP_CONFIG_FILE);
}

/** The config, or undefined when there is none or it is not what we write (never throws: it is only input). */
export async function readHttpHookConfig(claudeDir: string): Promise<HttpHookConfig | undefined> {
  try {
    const value = JSON.parse((await readSmallFile(nodeFileAccess, httpConfigPathOf(claudeDir), 4096)).toString('utf8')) as Partial<HttpHookConfig>;
    const { port, secret } = value;
    if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65_535) return undefined;
    if (typeof secret !== 'string' || !/^[A-Za-z0-9_-]{32,128}$/.test(secret)) return undefined;
    return { port: port as number, secret };
  } catch {
    return undefined;
  }
}

export function newHttpHookSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Writes the config beside its name and renames it over, so a receiver never reads half of it. */
export async function writeHttpHookConfig(claudeDir: string, config: HttpHookConfig): Promise<string> {
  const file = httpConfigPathOf(claudeDir);
  await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await fsp.writeFile(temp, `${JSON.stringify(config)}\n`, { mode: 0o600, flag: 'wx' });
    await fsp.rename(temp, file);
  } catch (err) {
    await fsp.rm(temp, { force: true });
    throw err;
  }
  return file;
}
