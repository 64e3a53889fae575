// A temp Claude dir with real transcript and channel files, written the way Claude Code and the hook write them.
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { projectSlug } from '../../../src/core/discovery';

export class ClaudeDirFixture {
  private constructor(
    readonly root: string,
    readonly claudeDir: string,
    readonly workspace: string,
  ) {}

  static async create(): Promise<ClaudeDirFixture> {
    const root = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'tl-engine-')));
    const claudeDir = path.join(root, 'claude');
    const workspace = path.join(root, 'ws');
    await fsp.mkdir(path.join(claudeDir, 'projects'), { recursive: true });
    await fsp.mkdir(path.join(claudeDir, 'transcript-lag'), { recursive: true });
    await fsp.mkdir(workspace, { recursive: true });
    return new ClaudeDirFixture(root, claudeDir, workspace);
  }

  transcriptPath(sessionId: string, folder = this.workspace): string {
    return path.join(this.claudeDir, 'projects', projectSlug(folder), `${sessionId}.jsonl`);
  }

  channelPath(sessionId: string): string {
    return path.join(this.claudeDir, 'transcript-lag', `${sessionId}.jsonl`);
  }

  async append(file: string, lines: object[]): Promise<void> {
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.appendFile(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  }

  async appendRaw(file: string, text: string): Promise<void> {
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.appendFile(file, text);
  }

  async remove(): Promise<void> {
    await fsp.rm(this.root, { recursive: true, force: true });
  }
}

let uuid = 0;

export function userPrompt(sessionId: string, cwd: string, text = 'please run the tests'): object {
  return { type: 'user', uuid: `u${++uuid}`, timestamp: '2026-01-01T00:00:00.000Z', sessionId, cwd, message: { role: 'user', content: text } };
}

export function toolUseRecord(sessionId: string, cwd: string, id: string, extra: object = {}): object {
  return {
    type: 'assistant',
    uuid: `a${++uuid}`,
    timestamp: '2026-01-01T00:00:01.000Z',
    sessionId,
    cwd,
    message: { id: `msg_${id}`, role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'ls' } }], stop_reason: 'tool_use' },
    ...extra,
  };
}

export function toolResultRecord(sessionId: string, cwd: string, id: string): object {
  return { type: 'user', uuid: `r${++uuid}`, timestamp: '2026-01-01T00:00:02.000Z', sessionId, cwd, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } };
}

export function preLine(sessionId: string, transcriptPath: string, id: string, at: number): object {
  return { v: 1, event: 'pre', at, session_id: sessionId, transcript_path: transcriptPath, tool_use_id: id, tool_name: 'Bash', source: 'transcript-lag-hook' };
}

export function waitLine(sessionId: string, transcriptPath: string, id: string, at: number, outcome: 'seen' | 'behind'): object {
  return { v: 1, event: 'wait', at, session_id: sessionId, transcript_path: transcriptPath, tool_use_id: id, outcome, polls: 50, waited_ms: 5000, bytes_on_disk: 10, source: 'transcript-lag-hook' };
}
