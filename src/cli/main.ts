// transcript-lag CLI: each subcommand is a function run(args, io) of its module (installHook and
// installStatusline export two: runInstall and runUninstall).
// A subcommand's module is required only when it runs: scripts/build.mjs makes
// each its own bundle beside dist/cli.js, so `analyze` never parses or
// initialises watch's engine, chokidar, jsonc-parser or zod, a third of a start
// that loads them (BENCHMARKS.md). require(), not import(): the tests run the sources under
// tsx's CommonJS loader, where import() of an extensionless path does not resolve.
import type { CliIo } from './io';
import { nodeIo } from './io';

type Command = (args: string[], io: CliIo) => Promise<number>;

const commands: Record<string, () => Command> = {
  analyze: () => (require('./analyze') as typeof import('./analyze')).run,
  watch: () => (require('./watch') as typeof import('./watch')).run,
  'install-hook': () => (require('./installHook') as typeof import('./installHook')).runInstall,
  'uninstall-hook': () => (require('./installHook') as typeof import('./installHook')).runUninstall,
  statusline: () => (require('./statusline') as typeof import('./statusline')).run,
  message: () => (require('./message') as typeof import('./message')).run,
  replay: () => (require('./replay') as typeof import('./replay')).run,
  complete: () => (require('./complete') as typeof import('./complete')).run,
  'wrap-hooks': () => (require('./wrapHooks') as typeof import('./wrapHooks')).runWrap,
  'unwrap-hooks': () => (require('./wrapHooks') as typeof import('./wrapHooks')).runUnwrap,
  'install-statusline': () => (require('./installStatusline') as typeof import('./installStatusline')).runInstall,
  'uninstall-statusline': () => (require('./installStatusline') as typeof import('./installStatusline')).runUninstall,
};

/** The subcommands, in the order usage lists them; each answers --help on stdout with exit 0. */
export const commandNames = Object.keys(commands);

const usage = `Usage: transcript-lag <command> [options]

Commands:
  analyze FILE [--json] [--channel FILE]   what a transcript holds: lines, calls, batches, shapes
  watch [--all] [--claude-dir D] [--json]  follow live sessions: held, written, result, wait events
  install-hook [--probe] [--claude-dir D]  add the reporting hook to Claude Code's settings.json
  uninstall-hook [--claude-dir D]          remove only the entries install-hook added
  statusline                               Claude Code's statusLine command: held calls, else the last lag
  install-statusline [--claude-dir D]      set statusLine in settings.json (yours is kept and runs first)
  uninstall-statusline [--claude-dir D]    put back the statusLine install-statusline replaced
  message [--json]                         for a reviewing hook: the text of the message that carries its call
  replay FILE --hook CMD [--json]          run your PreToolUse hook on a session's calls: live against complete
  complete -- CMD [ARGS...]                in front of a PreToolUse hook: CMD's transcript holds its held call
  wrap-hooks [--project DIR]               put every PreToolUse command hook behind complete
  unwrap-hooks [--project DIR]             take them back, as they were

  --version                                the package's version
  <command> --help                         the command's options
`;

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage);
    return name ? 0 : 2;
  }
  if (name === '--version') {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    io.stderr(`transcript-lag: unknown command '${name}'\n\n${usage}`);
    return 2;
  }
  return command()(rest, io);
}

declare const __VERSION__: string | undefined;
const VERSION = typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev';

if (require.main === module) {
  main(process.argv.slice(2), nodeIo()).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`transcript-lag: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
