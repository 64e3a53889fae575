// `transcript-lag wrap-hooks` / `unwrap-hooks` (issue 39 §3): every PreToolUse command hook of a
// settings file put behind `transcript-lag complete`, and taken back (src/core/settings/wrapHooks.ts,
// src/platform/hookInstaller.ts's wrapHooks).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliIo } from './io';
import { resolveClaudeDir } from '../core/discovery';
import { unwrapHooks, wrapHooks, type WrapHooksResult } from '../platform/hookInstaller';
import { SETTINGS_BACKUP_SUFFIX, SettingsFileError } from '../platform/settingsFile';

const wrapUsage = `Usage: transcript-lag wrap-hooks [--project DIR] [--claude-dir D] [--node PATH]

Puts every PreToolUse command hook of <claude dir>/settings.json (or DIR/.claude/settings.json)
behind 'transcript-lag complete', so a hook that reads the transcript finds its call there while
Claude Code holds it back (docs/HELD-MESSAGE.md). Each command becomes
  '<node>' '<claude dir>/transcript-lag/bin/transcript-lag-complete.js' -- sh -c '<command>'
and nothing else in the file changes; a backup is written to settings.json${SETTINGS_BACKUP_SUFFIX}.
Exec-form hooks (args), transcript-lag's own hook and wrapped ones are left as they are.

  --project DIR    the project's .claude/settings.json
  --claude-dir D   the Claude dir, where the wrapper is kept (default: $CLAUDE_CONFIG_DIR or ~/.claude)
  --node PATH      absolute path of the Node runtime the commands start (default: this one)
`;

const unwrapUsage = `Usage: transcript-lag unwrap-hooks [--project DIR] [--claude-dir D]

Gives back each command wrap-hooks wrapped, as it was; nothing else in the file changes.
`;

interface WrapArgs {
  claudeDir?: string;
  projectDir?: string;
  nodePath?: string;
}

function parseArgs(args: string[], allowNode: boolean): WrapArgs | string {
  const out: WrapArgs = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--claude-dir' || a === '--project' || (allowNode && a === '--node')) {
      const v = args[++i];
      if (!v) return `${a} needs a path`;
      if (a === '--claude-dir') out.claudeDir = v;
      else if (a === '--project') out.projectDir = v;
      else out.nodePath = v;
    } else return `unknown option '${a}'`;
  }
  return out;
}

/** The wrapper's build beside this CLI (dist/cli-complete.js), or from the sources' dist/. */
function wrapperSourcePath(): string | undefined {
  for (const p of [path.join(__dirname, 'cli-complete.js'), path.resolve(__dirname, '..', '..', 'dist', 'cli-complete.js')]) if (fs.existsSync(p)) return p;
  return undefined;
}

function fail(io: CliIo, err: unknown): number {
  io.stderr(`transcript-lag: ${err instanceof SettingsFileError || err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}

function said(r: WrapHooksResult, verb: string): string {
  const skipped = r.skipped.map((s) => `  left as it is (${s.why}): ${s.command}\n`).join('');
  return `${r.count === 0 ? `no PreToolUse command hook to ${verb}` : `${verb === 'wrap' ? 'wrapped' : 'unwrapped'} ${r.count} PreToolUse command hook${r.count === 1 ? '' : 's'}`} in ${r.path}${r.backupPath ? ` (backup: ${r.backupPath})` : ''}\n${skipped}`;
}

export async function runWrap(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(wrapUsage);
    return 0;
  }
  const parsed = parseArgs(args, true);
  if (typeof parsed === 'string') {
    io.stderr(`transcript-lag wrap-hooks: ${parsed}\n\n${wrapUsage}`);
    return 2;
  }
  const claudeDir = parsed.claudeDir ? path.resolve(io.cwd, parsed.claudeDir) : resolveClaudeDir(io.env, io.homedir);
  try {
    const r = await wrapHooks({
      claudeDir,
      projectDir: parsed.projectDir !== undefined ? path.resolve(io.cwd, parsed.projectDir) : undefined,
      nodePath: parsed.nodePath ?? process.execPath,
      wrapperSourcePath: wrapperSourcePath(),
    });
    io.stdout(said(r, 'wrap'));
    return 0;
  } catch (err) {
    return fail(io, err);
  }
}

export async function runUnwrap(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(unwrapUsage);
    return 0;
  }
  const parsed = parseArgs(args, false);
  if (typeof parsed === 'string') {
    io.stderr(`transcript-lag unwrap-hooks: ${parsed}\n\n${unwrapUsage}`);
    return 2;
  }
  const claudeDir = parsed.claudeDir ? path.resolve(io.cwd, parsed.claudeDir) : resolveClaudeDir(io.env, io.homedir);
  try {
    const r = await unwrapHooks({ claudeDir, projectDir: parsed.projectDir !== undefined ? path.resolve(io.cwd, parsed.projectDir) : undefined });
    io.stdout(said(r, 'unwrap'));
    return 0;
  } catch (err) {
    return fail(io, err);
  }
}
