import { CHANNEL_SCHEMA_VERSION, HOOK_SOURCE } from '../rules/channelConstants';
import { appendChannelLine } from '../rules/channelWriter';
import { watchLanding, type LandingOptions } from './landingWatch';

/**
 * The detached process that watches a call's record land after its
 * PostToolUse hook has exited (./landingWatch.ts), and reports it as a
 * `landed` event. It runs the same bundle (`dist/hook.js --landing <job>`),
 * with no stdio, in a process group of its own: Claude Code never waits for it.
 */
export const LANDING_ARG = '--landing';

/** How long it watches at most: a result follows its PostToolUse hooks at once, unless another hook is slow. */
const LANDING_WATCH_MS = 60_000;

export interface LandingJob {
  v: number;
  event: 'landed';
  at: number;
  session_id: string;
  transcript_path: string;
  tool_use_id: string;
  tool_name?: string;
  agent_id?: string;
  /** The file to watch (the subagent's own for a subagent call). */
  record_path: string;
  /** Complete lines ended here when the post hook looked. */
  from_byte: number;
  channel_dir: string;
}

export function startLandingWatch(job: LandingJob): void {
  try {
    // Required here: only the post hooks that need a watch pay for loading child_process.
    const { spawn } = require('node:child_process') as typeof import('node:child_process');
    const payload = Buffer.from(JSON.stringify(job), 'utf8').toString('base64url');
    const child = spawn(process.execPath, [...process.execArgv, __filename, LANDING_ARG, payload], {
      detached: true,
      stdio: 'ignore',
      env: process.env,
      windowsHide: true,
    });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No watch: the call's shape stays unknown, which readers say.
  }
}

function parseJob(payload: string | undefined): LandingJob | undefined {
  if (!payload || payload.length > 64 * 1024) return undefined;
  try {
    const job = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LandingJob;
    const strings = [job.session_id, job.transcript_path, job.tool_use_id, job.record_path, job.channel_dir];
    if (!strings.every((v) => typeof v === 'string' && v.length > 0)) return undefined;
    if (!Number.isSafeInteger(job.from_byte) || job.from_byte < 0) return undefined;
    return job;
  } catch {
    return undefined;
  }
}

export async function runLandingWatch(payload: string | undefined): Promise<void> {
  const job = parseJob(payload);
  if (job) await watchAndReport(job);
}

/** Watches the job's record land and appends its `landed` event; in this process (the HTTP receiver) or a detached one. */
export async function watchAndReport(job: LandingJob, limits: Pick<LandingOptions, 'readBytes' | 'cancelled'> = {}): Promise<void> {
  const landing = await watchLanding(job.record_path, job.tool_use_id, {
    fromByte: job.from_byte,
    deadline: Date.now() + LANDING_WATCH_MS,
    // Every 10 ms for the first 5 s (the result usually follows its hooks at once), then every 100 ms.
    pollMs: (elapsed) => (elapsed < 5_000 ? 10 : 100),
    ...limits,
  });
  if (!landing) return;
  const { record_path, from_byte: _from, channel_dir, ...event } = job;
  appendChannelLine(channel_dir, job.session_id, {
    ...event,
    v: CHANNEL_SCHEMA_VERSION,
    at: landing.at,
    with_result: landing.with_result,
    ...(record_path !== job.transcript_path ? { record_path } : {}),
    source: HOOK_SOURCE,
  });
}
