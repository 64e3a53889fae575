import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInGroup, type GroupRunSpec } from '../../../src/rules/processGroupRun';

const sh = (script: string, over: Partial<GroupRunSpec> = {}): GroupRunSpec => ({
  file: '/bin/sh',
  args: ['-c', script],
  env: { PATH: process.env.PATH },
  input: '',
  timeoutMs: 20_000,
  maxBytes: 1024,
  stderr: true,
  overflow: 'drain',
  end: { kind: 'wait', outputGraceMs: 250 },
  ...over,
});

/** Whether a process id is still running (signal 0 only asks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 10));
  return !alive(pid);
}

(process.platform === 'win32' ? describe.skip : describe)('runInGroup (src/rules/processGroupRun.ts): a program in a process group of its own', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tl-group-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('hands the input on stdin and keeps stdout and stderr, the exit code said', async () => {
    const run = await runInGroup(sh('cat; echo err >&2; exit 3', { input: 'in' }));
    assert.equal(run.stdout.toString(), 'in');
    assert.equal(run.stderr.toString(), 'err\n');
    assert.equal(run.exitCode, 3);
    assert.equal(run.timedOut, false);
    assert.equal(run.spawnError, undefined);
  });

  it("overflow 'drain': keeps maxBytes of a stream, reads the rest so the program ends by itself", async () => {
    const run = await runInGroup(sh('head -c 200000 /dev/zero | tr "\\0" x', { maxBytes: 1000 }));
    assert.equal(run.stdout.length, 1000);
    assert.equal(run.exitCode, 0);
  });

  it("overflow 'kill': past maxBytes the whole group is killed and the run ends with what fit", async () => {
    const pidFile = join(dir, 'pid');
    const run = await runInGroup(sh(`echo $$ > '${pidFile}'; exec yes abc`, { maxBytes: 100, overflow: 'kill', end: { kind: 'now' } }));
    assert.equal(run.stdout.length, 100);
    assert.ok(await gone(Number(readFileSync(pidFile, 'utf8'))), 'yes is killed');
  });

  it("a timeout kills the group, a child it left too; 'wait' says the signal, 'now' ends at once", async () => {
    const childPid = join(dir, 'child');
    const waited = await runInGroup(sh(`sleep 30 & echo $! > '${childPid}'; wait`, { timeoutMs: 200 }));
    assert.equal(waited.timedOut, true);
    assert.equal(waited.signal, 'SIGKILL');
    assert.ok(await gone(Number(readFileSync(childPid, 'utf8'))), 'the sleep the shell started is killed with it');
    const now = await runInGroup(sh('printf early; sleep 30', { timeoutMs: 200, end: { kind: 'now' } }));
    assert.equal(now.timedOut, true);
    assert.equal(now.signal, null, 'ended at the kill, before the exit');
    assert.equal(now.stdout.toString(), 'early');
  });

  it('a stop kills it; the kill registered for our exit is undone once it ended', async () => {
    const stop = new AbortController();
    let registered = 0;
    let undone = 0;
    const running = runInGroup(
      sh('sleep 30', {
        atExit: () => {
          registered++;
          return () => undone++;
        },
      }),
      stop.signal,
    );
    setTimeout(() => stop.abort(), 50);
    const run = await running;
    assert.equal(run.signal, 'SIGKILL');
    assert.equal(run.timedOut, false);
    assert.deepEqual([registered, undone], [1, 1]);
  });

  it('a program that cannot start: spawnError, nothing kept', async () => {
    const run = await runInGroup(sh('', { file: join(dir, 'missing'), args: [] }));
    assert.match(run.spawnError ?? '', /could not start/);
    assert.equal(run.stdout.length, 0);
  });
});
