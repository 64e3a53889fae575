// A system command the suites need and the OS lacks. The runners print its message alone, one
// line that names the command to install it, instead of a stack trace.
import * as fs from 'node:fs';
import * as path from 'node:path';

export class MissingToolError extends Error {
  constructor(message) {
    super(message);
    this.name = 'MissingToolError';
  }
}

/** True for a MissingToolError, also one thrown by another copy of this module. */
export function isMissingTool(err) {
  return err instanceof Error && err.name === 'MissingToolError';
}

/** The apt-get line that installs the Debian packages (sudo only when not root). */
export function aptInstall(packages) {
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  return `${sudo}apt-get install -y ${packages.join(' ')}`;
}

/** `<what> not found: <apt-get line>` (with the purpose in brackets when given). */
export function missingTool(what, packages, purpose) {
  return new MissingToolError(`${what} not found${purpose ? ` (${purpose})` : ''}: ${aptInstall(packages)}`);
}

/** The executable `cmd` on PATH, or undefined. */
export function findCommand(cmd) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, cmd);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Throws a MissingToolError naming the first of `commands` not on PATH and the packages to install. */
export function requireCommands(commands, packages, purpose) {
  const missing = commands.filter((c) => !findCommand(c));
  if (missing.length) throw missingTool(missing.join(', '), packages, purpose);
}

/** Ends the process with exit 1: a MissingToolError as its one line, anything else with its stack. */
export function failAndExit(prefix, err) {
  console.error(isMissingTool(err) ? err.message : `${prefix}${err instanceof Error ? err.stack : err}`);
  process.exit(1);
}
