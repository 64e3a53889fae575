/**
 * The PreToolUse command hooks `replay` runs from a session's settings: the user's, and the project's
 * and the local ones when their folder is the user's alone (a session file may name any folder as its
 * `cwd`). Read from the settings files as small regular files, parsed by src/core/replay/replayHooks.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { addSettingsHooks, type SettingsHooks } from '../core/replay/replayHooks';

/** A settings file is a few KiB; past this it is not one. */
const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

/** Why a file or folder of a project's settings is not the user's alone: owned by another, or writable by others (POSIX). */
function notOwnedAlone(st: fs.Stats, what: string): string | undefined {
  const uid = process.getuid?.();
  // Windows has no owner bits to read here; VS Code's workspace trust stands in for it.
  if (uid === undefined) return undefined;
  if (st.uid !== uid) return `${what} belongs to another user (uid ${st.uid})`;
  if ((st.mode & 0o022) !== 0) return `${what} is writable by others (mode ${(st.mode & 0o777).toString(8)})`;
  return undefined;
}

/** A settings file's text when it is a small regular file; undefined when there is none. `owned`: refuse one that is not the user's alone. */
function readSettingsText(file: string, owned = false): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file}: not a regular file`);
    const refusal = owned ? notOwnedAlone(st, file) : undefined;
    if (refusal !== undefined) throw new Error(refusal);
    if (st.size > MAX_SETTINGS_BYTES) throw new Error(`${file}: over ${MAX_SETTINGS_BYTES >> 20} MiB`);
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(fd, buf, got, buf.length - got, got);
      if (n <= 0) break;
      got += n;
    }
    return buf.subarray(0, got).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Why the project settings of `projectDir` are not to be run (undefined: they may be). A session file
 * may come from anywhere and name any folder as its `cwd` (`/tmp/x`, which another local user may
 * have made): replay runs a project's hooks only from a folder, and its `.claude`, that the user owns
 * and others cannot write (the settings files are checked as they are read). `within`: the folders
 * that may hold it at all (VS Code: the trusted workspace's folders).
 */
export function projectHooksRefusal(projectDir: string, within?: readonly string[]): string | undefined {
  let real: string;
  try {
    real = fs.realpathSync(projectDir);
  } catch {
    return undefined; // no such folder: there are no settings to read in it
  }
  if (within !== undefined) {
    const inside = within.some((folder) => {
      let root: string;
      try {
        root = fs.realpathSync(folder);
      } catch {
        return false;
      }
      const rel = path.relative(root, real);
      return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
    });
    if (!inside) return `${projectDir} is not in a folder of this workspace`;
  }
  for (const dir of [real, path.join(real, '.claude')]) {
    let st: fs.Stats;
    try {
      st = fs.statSync(dir);
    } catch {
      continue; // no .claude: nothing to read
    }
    const refusal = notOwnedAlone(st, dir);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

/**
 * The PreToolUse command hooks of the user's settings (in `claudeDir`), and of the project's and the
 * local ones in `projectDir` when projectHooksRefusal lets them run (else a note says why not).
 */
export function settingsHooksOf(claudeDir: string, projectDir: string | undefined, within?: readonly string[]): SettingsHooks {
  const found: SettingsHooks = { hooks: [], notes: [], disabled: false };
  const files: Array<[string, 'user' | 'project' | 'local']> = [[path.join(claudeDir, 'settings.json'), 'user']];
  const refusal = projectDir === undefined ? undefined : projectHooksRefusal(projectDir, within);
  if (projectDir === undefined) found.notes.push("the session's records name no working directory: only the user settings are read");
  else if (refusal !== undefined) found.notes.push(`the project's hooks are not replayed: ${refusal}`);
  else files.push([path.join(projectDir, '.claude', 'settings.json'), 'project'], [path.join(projectDir, '.claude', 'settings.local.json'), 'local']);
  for (const [file, source] of files) {
    try {
      const text = readSettingsText(file, source !== 'user');
      if (text !== undefined) addSettingsHooks(found, text, source);
    } catch (err) {
      found.notes.push(`${source} settings ${file}: ${err instanceof Error ? err.message : String(err)}; its hooks are not replayed`);
    }
  }
  return found;
}
