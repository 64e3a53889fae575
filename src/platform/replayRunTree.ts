/**
 * Where one run of a replayed hook (live or complete) is pointed: a Claude dir of its own in the
 * replay's private temp folder, holding the session's transcript copies, cut to the length the run
 * is given (./prefixCopy.ts), and the plugin's tools as its SessionStart keeps them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CHANNEL_DIR_NAME, COMPLETE_TOOL_FILE_NAME, HOOK_BIN_DIR_NAME, MESSAGE_TOOL_FILE_NAME } from '../rules/channelConstants';
import { FirstReadWatch } from './firstRead';
import { PrefixCopy, type SourceFile } from './prefixCopy';

/**
 * The message tool's bytes: dist/cli-message.js beside the bundle that runs this (the CLI's, or the
 * extension's engine.js); from the sources (tests, tsx) the plugin's committed build, the same bytes.
 * Undefined when neither is there.
 */
export function messageToolSource(): string | undefined {
  return toolSource('cli-message.js', MESSAGE_TOOL_FILE_NAME);
}

/** `transcript-lag complete` as one file: dist/cli-complete.js beside the CLI, or the plugin's committed copy. */
export function completeToolSource(): string | undefined {
  return toolSource('cli-complete.js', COMPLETE_TOOL_FILE_NAME);
}

function toolSource(distName: string, pluginName: string): string | undefined {
  for (const candidate of [path.join(__dirname, distName), path.resolve(__dirname, '..', '..', 'plugin', HOOK_BIN_DIR_NAME, pluginName)]) {
    if (fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Where the copies of one run (live or complete) live: a Claude dir of its own. */
export class RunTree {
  readonly claudeDir: string;
  private readonly copies = new Map<string, PrefixCopy>();

  constructor(
    root: string,
    private readonly projectFolder: string,
    private readonly sessionId: string,
    messageTool: string | undefined,
  ) {
    this.claudeDir = path.join(root, '.claude');
    fs.mkdirSync(path.join(this.claudeDir, 'projects', projectFolder), { recursive: true, mode: 0o700 });
    // Where the plugin's SessionStart hook keeps it, so a hook that asks it (examples/) finds it.
    if (messageTool !== undefined) {
      const bin = path.join(this.claudeDir, CHANNEL_DIR_NAME, HOOK_BIN_DIR_NAME);
      fs.mkdirSync(bin, { recursive: true, mode: 0o700 });
      fs.copyFileSync(messageTool, path.join(bin, MESSAGE_TOOL_FILE_NAME));
      // And the complete wrapper beside it, as the plugin's SessionStart keeps both: a hook named through
      // CLAUDE_CONFIG_DIR finds it (one named by the user's own path reads the held message of the copy's Claude dir either way).
      const complete = completeToolSource();
      if (complete !== undefined) fs.copyFileSync(complete, path.join(bin, COMPLETE_TOOL_FILE_NAME));
    }
  }

  transcriptPath(): string {
    return path.join(this.claudeDir, 'projects', this.projectFolder, `${this.sessionId}.jsonl`);
  }

  /** Where a file of the session is copied: the session's own, or a subagent's beside it. */
  pathOf(agentId: string | undefined): string {
    if (agentId === undefined) return this.transcriptPath();
    return path.join(this.claudeDir, 'projects', this.projectFolder, this.sessionId, 'subagents', `agent-${agentId}.jsonl`);
  }

  /** A watch on the hook's first read of a copy made (./firstRead.ts); the copy kept as intact. */
  watchFirstRead(agentId: string | undefined): FirstReadWatch {
    const dest = this.pathOf(agentId);
    const watch = new FirstReadWatch(dest);
    this.copies.get(dest)?.timesSetByUs();
    return watch;
  }

  setLength(source: SourceFile, agentId: string | undefined, length: number): void {
    const dest = this.pathOf(agentId);
    let copy = this.copies.get(dest);
    if (copy === undefined) this.copies.set(dest, (copy = new PrefixCopy(source, dest)));
    copy.setLength(length);
  }
}

/** Writes a file only we may read, in a folder only we may enter. */
export function writePrivate(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.chmodSync(path.dirname(file), 0o700);
  fs.writeFileSync(file, text, { mode: 0o600 });
}
