import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  MAX_SLUG_LENGTH,
  WorkspaceMatcher,
  isActiveSession,
  listProjectDirs,
  listProjectTranscripts,
  isSameOrInside,
  projectDirMayHold,
  projectSlug,
  resolveClaudeDir,
  transcriptRefOf,
} from '../../../src/core/discovery';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';

describe('discovery', () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'tl-discovery-')));
  });
  afterEach(async () => {
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  it('Claude dir: $CLAUDE_CONFIG_DIR when set, else ~/.claude', () => {
    assert.equal(resolveClaudeDir({}, '/home/u'), path.join('/home/u', '.claude'));
    assert.equal(resolveClaudeDir({ CLAUDE_CONFIG_DIR: '  ' }, '/home/u'), path.join('/home/u', '.claude'));
    assert.equal(resolveClaudeDir({ CLAUDE_CONFIG_DIR: '/opt/claude-cfg' }, '/home/u'), path.resolve('/opt/claude-cfg'));
  });

  it('slug: every character outside [A-Za-z0-9] becomes -', () => {
    assert.equal(projectSlug('/home/u/my_project.v2'), '-home-u-my-project-v2');
    assert.equal(projectSlug('C:\\Users\\a b\\x'), 'C--Users-a-b-x');
    assert.equal(projectSlug('/srv/文档/p'), '-srv----p');
  });

  it('slug of a long path: first 200 characters, -, base-36 hash of the original path', () => {
    // The 262-character case of Digital-Process-Tools/claude-remember#157 ends in `--on930v`, 207 characters.
    const long = `/private/tmp/${'a'.repeat(60)}/${'b'.repeat(60)}/${'c'.repeat(60)}/${'d'.repeat(60)}`;
    const slug = projectSlug(long);
    assert.ok(long.length > MAX_SLUG_LENGTH);
    assert.equal(slug.slice(0, MAX_SLUG_LENGTH), long.replace(/[^a-zA-Z0-9]/g, '-').slice(0, MAX_SLUG_LENGTH));
    assert.match(slug.slice(MAX_SLUG_LENGTH), /^-[0-9a-z]+$/);
    assert.notEqual(projectSlug(`${long}x`), slug, 'two long paths with one prefix get different folders');
    // Matching does not depend on which hash the writer used.
    assert.ok(projectDirMayHold(`${slug.slice(0, MAX_SLUG_LENGTH)}-zzzz9`, long));
    assert.ok(!projectDirMayHold('-private-tmp-other', long));
  });

  it('a project folder may hold the folder and folders inside it, nothing else', () => {
    assert.ok(projectDirMayHold('-w-app', '/w/app'));
    assert.ok(projectDirMayHold('-w-app-sub-dir', '/w/app'));
    assert.ok(!projectDirMayHold('-w-apple', '/w/app'));
    assert.ok(!projectDirMayHold('-w', '/w/app'));
  });

  describe('Windows and macOS paths (run by Linux Node with path.win32, and by Windows Node in the Windows lane)', () => {
    it('Windows slugs: drive letter, backslashes, UNC, spaces', () => {
      assert.equal(projectSlug('C:\\Users\\me\\proj'), 'C--Users-me-proj');
      assert.equal(projectSlug('c:\\Users\\me\\proj'), 'c--Users-me-proj');
      assert.equal(projectSlug('\\\\server\\share\\proj'), '--server-share-proj');
      assert.equal(projectSlug('D:\\My Work\\app.v2'), 'D--My-Work-app-v2');
    });

    it('drive-letter case both ways, where the file system folds case', () => {
      for (const [dir, folder] of [
        ['c--Users-me-proj', 'C:\\Users\\me\\proj'],
        ['C--Users-me-proj', 'c:\\Users\\me\\proj'],
        ['C--Users-me-proj-sub', 'c:\\users\\ME\\proj'],
      ]) {
        assert.ok(projectDirMayHold(dir, folder, true), `${dir} may hold ${folder}`);
        assert.ok(!projectDirMayHold(dir, folder, false), `${dir} is another folder than ${folder} where case counts`);
      }
      assert.ok(!projectDirMayHold('c--Users-me-projx', 'C:\\Users\\me\\proj', true));
    });

    it('a long Windows path (over 200 characters) with Claude Code\'s hash suffix matches in either drive-letter case', () => {
      const long = `C:\\Users\\me\\${'a'.repeat(80)}\\${'b'.repeat(80)}\\${'c'.repeat(60)}`;
      assert.ok(long.length > MAX_SLUG_LENGTH);
      const filed = projectSlug(`c${long.slice(1)}`);
      assert.match(filed, /^c--Users-me-a+-b+-c+-[0-9a-z]+$/);
      assert.ok(projectDirMayHold(filed, long, true));
      assert.ok(!projectDirMayHold(filed, long, false));
    });

    it('inside a folder: drive-letter case, UNC, backslash and slash (path.win32)', () => {
      const w = path.win32;
      assert.ok(isSameOrInside('c:\\Users\\me\\proj\\src', 'C:\\Users\\me\\proj', true, w));
      assert.ok(isSameOrInside('C:/Users/me/proj/src', 'c:\\users\\me\\proj', true, w));
      assert.ok(isSameOrInside('\\\\server\\share\\proj\\a', '\\\\SERVER\\share\\proj', true, w));
      assert.ok(!isSameOrInside('\\\\server\\share\\projx', '\\\\server\\share\\proj', true, w));
      assert.ok(!isSameOrInside('D:\\Users\\me\\proj', 'C:\\Users\\me\\proj', true, w));
      // Where the file system keeps case (Linux), /W/App and /w/app are two folders.
      assert.ok(isSameOrInside('/w/app/sub', '/W/App', true, path.posix));
      assert.ok(!isSameOrInside('/w/app/sub', '/W/App', false, path.posix));
    });

    it('a session recorded under the folder\'s real path (macOS: /tmp is /private/tmp) matches the name the editor gave', async function () {
      const real = path.join(tmp, 'private-tmp', 'proj');
      await fsp.mkdir(path.join(real, 'sub'), { recursive: true });
      const alias = path.join(tmp, 'tmp');
      try {
        await fsp.symlink(path.join(tmp, 'private-tmp'), alias, 'junction');
      } catch {
        // Wine's node.exe cannot make links; the Windows lane prints this skip with its reason.
        this.skip();
      }
      const m = new WorkspaceMatcher(nodeFileAccess, [path.join(alias, 'proj')]);
      await m.refresh();
      assert.equal(await m.matchesCwd(path.join(real, 'sub')), true);
      assert.ok(m.mayHold(projectSlug(real)));
      assert.equal(await m.matchesCwd(path.join(tmp, 'private-tmp', 'other')), false);
    });

    it('the matcher folds case when told to: a session filed under z--… matches a Z:\\… workspace', async () => {
      const folder = path.join(tmp, 'Proj');
      await fsp.mkdir(folder);
      const folded = new WorkspaceMatcher(nodeFileAccess, [folder], true);
      await folded.refresh();
      assert.ok(folded.mayHold(projectSlug(folder).toLowerCase()));
      assert.equal(await folded.matchesCwd(path.join(tmp, 'proj', 'x')), true);
      const exact = new WorkspaceMatcher(nodeFileAccess, [folder], false);
      await exact.refresh();
      assert.ok(!exact.mayHold(projectSlug(folder).toLowerCase()));
      // Windows Node's own path.relative folds case already: there, even an exact matcher matches.
      assert.equal(await exact.matchesCwd(path.join(tmp, 'proj', 'x')), process.platform === 'win32');
    });
  });

  it('lists sessions, subagents in <session>/subagents and older agent-*.jsonl beside sessions', async () => {
    const claude = path.join(tmp, 'claude');
    const proj = path.join(claude, 'projects', '-w-app');
    await fsp.mkdir(path.join(proj, 's1', 'subagents'), { recursive: true });
    await fsp.writeFile(path.join(proj, 's1.jsonl'), '');
    await fsp.writeFile(path.join(proj, 's1', 'subagents', 'agent-a1.jsonl'), '');
    await fsp.writeFile(path.join(proj, 'agent-old.jsonl'), '');
    await fsp.writeFile(path.join(proj, 'notes.txt'), '');
    await fsp.writeFile(path.join(claude, 'projects', 'stray.jsonl'), '');
    assert.deepEqual(await listProjectDirs(nodeFileAccess, claude), ['-w-app']);
    const refs = await listProjectTranscripts(nodeFileAccess, proj);
    const byName = Object.fromEntries(refs.map((r) => [path.relative(proj, r.path), r]));
    assert.deepEqual(Object.keys(byName).sort(), ['agent-old.jsonl', 's1.jsonl', path.join('s1', 'subagents', 'agent-a1.jsonl')].sort());
    assert.deepEqual([byName['s1.jsonl'].kind, byName['s1.jsonl'].sessionId], ['session', 's1']);
    const sub = byName[path.join('s1', 'subagents', 'agent-a1.jsonl')];
    assert.deepEqual([sub.kind, sub.sessionId, sub.agentId], ['subagent', 's1', 'a1']);
    assert.deepEqual([byName['agent-old.jsonl'].kind, byName['agent-old.jsonl'].sessionId, byName['agent-old.jsonl'].agentId], ['subagent', undefined, 'old']);
    assert.deepEqual(await listProjectTranscripts(nodeFileAccess, path.join(claude, 'projects', 'missing')), []);
  });

  it('maps a transcript path to its place, and refuses paths outside projects/', () => {
    const claude = path.join(tmp, 'claude');
    const p = path.join(claude, 'projects', '-w', 's9', 'subagents', 'agent-z.jsonl');
    assert.deepEqual(transcriptRefOf(claude, p), { path: p, projectDir: path.join(claude, 'projects', '-w'), sessionId: 's9', kind: 'subagent', agentId: 'z' });
    assert.equal(transcriptRefOf(claude, path.join(claude, 'projects', '..', 'x.jsonl')), undefined);
    assert.equal(transcriptRefOf(claude, '/etc/passwd'), undefined);
    assert.equal(transcriptRefOf(claude, path.join(claude, 'projects', '-w', 's.txt')), undefined);
  });

  it('a session belongs to the workspace when its cwd is the folder, inside it, or in a git worktree of it', async () => {
    const main = path.join(tmp, 'repo');
    const wt = path.join(tmp, 'repo-wt', 'feature');
    const other = path.join(tmp, 'other');
    await fsp.mkdir(path.join(main, '.git', 'worktrees', 'feature'), { recursive: true });
    await fsp.mkdir(path.join(wt, 'src'), { recursive: true });
    await fsp.mkdir(path.join(other, '.git'), { recursive: true });
    await fsp.writeFile(path.join(wt, '.git'), `gitdir: ${path.join(main, '.git', 'worktrees', 'feature')}\n`);
    await fsp.writeFile(path.join(main, '.git', 'worktrees', 'feature', 'gitdir'), `${path.join(wt, '.git')}\n`);
    const m = new WorkspaceMatcher(nodeFileAccess, [main]);
    await m.refresh();
    assert.equal(await m.matchesCwd(main), true);
    assert.equal(await m.matchesCwd(path.join(main, 'deep', 'er')), true);
    assert.equal(await m.matchesCwd(path.join(wt, 'src')), true);
    assert.equal(await m.matchesCwd(other), false);
    assert.equal(await m.matchesCwd(`${main}-copy`), false);
    // The worktree's own project folder is worth listing, an unrelated one is not.
    assert.ok(m.mayHold(projectSlug(wt)));
    assert.ok(m.mayHold(projectSlug(path.join(main, 'pkg'))));
    assert.ok(!m.mayHold(projectSlug(other)));
  });

  it('a worktree of another repository does not match', async () => {
    const main = path.join(tmp, 'repo');
    const wt = path.join(tmp, 'wt');
    await fsp.mkdir(path.join(main, '.git'), { recursive: true });
    await fsp.mkdir(wt, { recursive: true });
    await fsp.writeFile(path.join(wt, '.git'), `gitdir: ${path.join(tmp, 'elsewhere', '.git', 'worktrees', 'wt')}\n`);
    const m = new WorkspaceMatcher(nodeFileAccess, [main]);
    await m.refresh();
    assert.equal(await m.matchesCwd(wt), false);
  });

  it('a worktree gitdir that is a FIFO, /dev/zero or huge is skipped, not read: refresh ends and other worktrees still match', async function () {
    if (process.platform === 'win32') this.skip();
    const main = path.join(tmp, 'repo');
    const admin = path.join(main, '.git', 'worktrees');
    const wt = path.join(tmp, 'repo-wt');
    for (const name of ['fifo', 'zero', 'huge', 'good', 'wt-fifo']) await fsp.mkdir(path.join(admin, name), { recursive: true });
    await fsp.mkdir(wt, { recursive: true });
    // A FIFO with no writer: a plain open() for reading waits for one forever.
    execFileSync('mkfifo', [path.join(admin, 'fifo', 'gitdir')]);
    await fsp.symlink('/dev/zero', path.join(admin, 'zero', 'gitdir'));
    await fsp.writeFile(path.join(admin, 'huge', 'gitdir'), `${path.join(tmp, 'x')}${' '.repeat(1 << 20)}\n`);
    await fsp.writeFile(path.join(admin, 'good', 'gitdir'), `${path.join(wt, '.git')}\n`);
    await fsp.writeFile(path.join(wt, '.git'), `gitdir: ${path.join(admin, 'good')}\n`);
    // A worktree whose own `.git` is a FIFO is no worktree.
    const fifoWt = path.join(tmp, 'fifo-wt');
    await fsp.mkdir(fifoWt);
    execFileSync('mkfifo', [path.join(fifoWt, '.git')]);
    const m = new WorkspaceMatcher(nodeFileAccess, [main]);
    await m.refresh();
    assert.ok(m.mayHold(projectSlug(wt)));
    assert.ok(!m.mayHold(projectSlug(path.join(tmp, 'x'))), 'the oversized gitdir named no worktree');
    assert.equal(await m.matchesCwd(wt), true);
    assert.equal(await m.matchesCwd(fifoWt), false);
  });

  it('active: recently modified or holding calls', () => {
    assert.equal(isActiveSession(1000, 0, 2000, 5000), true);
    assert.equal(isActiveSession(1000, 0, 9000, 5000), false);
    assert.equal(isActiveSession(1000, 1, 9000, 5000), true);
  });
});
