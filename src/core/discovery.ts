import * as path from 'node:path';
import { readSmallFile, type FileAccess } from './fileAccess';

/**
 * Where Claude Code keeps sessions, and which of them belong to a workspace.
 * Pure path arithmetic plus reads through the FileAccess it is handed.
 */

/** `$CLAUDE_CONFIG_DIR` when set (and not blank), else `~/.claude`. */
export function resolveClaudeDir(env: Readonly<Record<string, string | undefined>>, homedir: string): string {
  const configured = env.CLAUDE_CONFIG_DIR?.trim();
  return configured ? path.resolve(configured) : path.join(homedir, '.claude');
}

export function projectsDirOf(claudeDir: string): string {
  return path.join(claudeDir, 'projects');
}

/**
 * Claude Code caps a project folder name at 200 characters. Past that it keeps
 * the first 200 and appends `-` and a hash of the original path, in base 36.
 * Sources: Claude Code's `sanitizePath` (MAX_SANITIZED_LENGTH = 200, quoted in
 * Untrivial-ai/agent-orchestrator PR #1612); the djb2-style int32 hash of the
 * Node build, verified against a real 262-character path in
 * Digital-Process-Tools/claude-remember issue #157 and heiervang-technologies/unleash
 * PR #237. Native builds were reported to hash with `Bun.hash` and v2.1.224 to
 * change the disambiguation (delexw/claude-code-trace issue #236); the 2.1.332
 * binary's own function is this same `h * 31` hash again. So, as
 * Corsinvest/cv4vs-agents PR #80 concluded, matching must not depend on the
 * suffix: folders are matched on the 200-character prefix and confirmed by the
 * `cwd` the transcript's own records carry.
 */
export const MAX_SLUG_LENGTH = 200;

/** Every character outside [A-Za-z0-9] becomes `-` (UTF-16 code units, like Claude Code's regex). */
export function sanitizePath(folder: string): string {
  return folder.replace(/[^a-zA-Z0-9]/g, '-');
}

/** The 32-bit hash of Claude Code's Node build: h = h * 31 + charCode, wrapping like `| 0`. */
export function claudePathHash(folder: string): number {
  let h = 0;
  for (let i = 0; i < folder.length; i++) h = ((h << 5) - h + folder.charCodeAt(i)) | 0;
  return h;
}

/** The project folder name Claude Code's Node build gives `folder` (see MAX_SLUG_LENGTH for the caveat). */
export function projectSlug(folder: string): string {
  const sanitized = sanitizePath(folder);
  if (sanitized.length <= MAX_SLUG_LENGTH) return sanitized;
  return `${sanitized.slice(0, MAX_SLUG_LENGTH)}-${Math.abs(claudePathHash(folder)).toString(36)}`;
}

/**
 * Whether paths differing only in letter case name one folder: on Windows (NTFS) and on macOS, whose
 * APFS is case-insensitive by default. The drive letter is the common case: VS Code says `c:\`,
 * Claude Code's CLI `C:\`, and one session can switch between them (anthropics/claude-code #75855,
 * #90588), so its sessions may be filed under `c--…` or `C--…`. One rule for every path comparison
 * here; tests pass it explicitly.
 */
export const PATHS_FOLD_CASE = process.platform === 'win32' || process.platform === 'darwin';

/**
 * Whether a project folder name may hold sessions of `folder` or of a folder
 * inside it. Only a hint (`/a/b-c` and `/a/b/c` share a slug): the caller
 * confirms with the records' `cwd`.
 */
export function projectDirMayHold(dirName: string, folder: string, foldCase = PATHS_FOLD_CASE): boolean {
  let sanitized = sanitizePath(folder);
  if (foldCase) {
    // Sanitized names are ASCII, so lowercasing changes nothing but the letters' case (and no lengths).
    sanitized = sanitized.toLowerCase();
    dirName = dirName.toLowerCase();
  }
  if (sanitized.length >= MAX_SLUG_LENGTH) return dirName.startsWith(`${sanitized.slice(0, MAX_SLUG_LENGTH)}-`) || dirName === sanitized.slice(0, MAX_SLUG_LENGTH);
  if (dirName === sanitized) return true;
  // A folder inside: its sanitized path continues with the separator's `-`.
  return dirName.startsWith(`${sanitized}-`);
}

/** True when `child` is `parent` or inside it (letter case folded where the file system folds it). */
export function isSameOrInside(child: string, parent: string, foldCase = PATHS_FOLD_CASE, paths: path.PlatformPath = path): boolean {
  let from = paths.resolve(parent);
  let to = paths.resolve(child);
  if (foldCase) {
    from = from.toLowerCase();
    to = to.toLowerCase();
  }
  const rel = paths.relative(from, to);
  return rel === '' || (!rel.startsWith('..') && !paths.isAbsolute(rel));
}

/** A transcript file found under `<claudeDir>/projects/`. */
export interface TranscriptRef {
  path: string;
  projectDir: string;
  /**
   * The session it belongs to: the file name for a session, the folder for
   * `<session>/subagents/agent-*.jsonl`; undefined for an older `agent-*.jsonl`
   * beside the sessions, whose parent is named only by its records' `sessionId`.
   */
  sessionId?: string;
  kind: 'session' | 'subagent';
  agentId?: string;
}

const JSONL = '.jsonl';

function agentIdOf(fileName: string): string {
  return fileName.slice('agent-'.length, -JSONL.length);
}

/** Every transcript directly in one project folder, and its sessions' subagent transcripts. */
export async function listProjectTranscripts(files: FileAccess, projectDir: string, folders?: Set<string>): Promise<TranscriptRef[]> {
  const names = await files.readdir(projectDir);
  const refs: TranscriptRef[] = [];
  const sessionIds = new Set<string>();
  for (const name of names) {
    if (!name.endsWith(JSONL)) continue;
    const full = path.join(projectDir, name);
    if (name.startsWith('agent-')) refs.push({ path: full, projectDir, kind: 'subagent', agentId: agentIdOf(name) });
    else {
      const sessionId = name.slice(0, -JSONL.length);
      sessionIds.add(sessionId);
      refs.push({ path: full, projectDir, sessionId, kind: 'session' });
    }
  }
  // Newer Claude Code keeps subagents in `<session>/subagents/`; a session folder may exist before its .jsonl.
  for (const name of names) {
    if (name.endsWith(JSONL) || name.startsWith('.')) continue;
    folders?.add(name);
    const subDir = path.join(projectDir, name, 'subagents');
    let subNames: string[];
    try {
      subNames = await files.readdir(subDir);
    } catch {
      continue;
    }
    for (const sub of subNames) {
      if (sub.startsWith('agent-') && sub.endsWith(JSONL)) {
        refs.push({ path: path.join(subDir, sub), projectDir, sessionId: name, kind: 'subagent', agentId: agentIdOf(sub) });
      }
    }
  }
  return refs;
}

/**
 * Where Claude Code (2.1.x) writes subagent `agentId`'s transcript for the
 * session whose main transcript is `mainTranscript`: `<session>/subagents/agent-<id>.jsonl`
 * beside it. Hook payloads of a subagent's calls name only the main transcript.
 */
export function subagentTranscriptPath(mainTranscript: string, agentId: string): string {
  const dir = path.dirname(mainTranscript);
  return path.join(dir, path.basename(mainTranscript, JSONL), 'subagents', `agent-${agentId}${JSONL}`);
}

/** Names of the project folders under `<claudeDir>/projects/`. */
export async function listProjectDirs(files: FileAccess, claudeDir: string): Promise<string[]> {
  const projects = projectsDirOf(claudeDir);
  const names = await files.readdir(projects);
  const dirs: string[] = [];
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const st = await files.stat(path.join(projects, name)).catch(() => undefined);
    if (st?.isDirectory) dirs.push(name);
  }
  return dirs.sort();
}

/** Where a transcript file sits: under which project folder and as what. Undefined outside `projects/`. */
export function transcriptRefOf(claudeDir: string, transcriptPath: string): TranscriptRef | undefined {
  const projects = projectsDirOf(claudeDir);
  const rel = path.relative(projects, path.resolve(transcriptPath));
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel) || !rel.endsWith(JSONL)) return undefined;
  const parts = rel.split(path.sep);
  const projectDir = path.join(projects, parts[0]);
  const full = path.join(projects, rel);
  if (parts.length === 2) {
    const name = parts[1];
    if (name.startsWith('agent-')) return { path: full, projectDir, kind: 'subagent', agentId: agentIdOf(name) };
    return { path: full, projectDir, sessionId: name.slice(0, -JSONL.length), kind: 'session' };
  }
  if (parts.length === 4 && parts[2] === 'subagents' && parts[3].startsWith('agent-')) {
    return { path: full, projectDir, sessionId: parts[1], kind: 'subagent', agentId: agentIdOf(parts[3]) };
  }
  return undefined;
}

/**
 * Git's pointer files (`.git/worktrees/<name>/gitdir`, a worktree's `.git`)
 * hold one path and a line end; anything longer is not one.
 */
const MAX_GIT_POINTER_BYTES = 16 * 1024;

/**
 * Roots of the git worktrees of `folder`, from `<folder>/.git/worktrees/<name>/gitdir`
 * (each names the worktree's own `.git` file). Empty when `folder` has none.
 */
export async function gitWorktreesOf(files: FileAccess, folder: string): Promise<string[]> {
  const adminDir = path.join(folder, '.git', 'worktrees');
  const roots: string[] = [];
  for (const name of await files.readdir(adminDir).catch(() => [] as string[])) {
    try {
      const gitdir = (await readSmallFile(files, path.join(adminDir, name, 'gitdir'), MAX_GIT_POINTER_BYTES)).toString('utf8').trim();
      if (gitdir) roots.push(path.dirname(path.resolve(adminDir, name, gitdir)));
    } catch {
      // A half-removed worktree, or a `gitdir` that is no small regular file: skip it.
    }
  }
  return roots;
}

/**
 * Whether `cwd` lies in a git worktree of `mainFolder`: the nearest `.git` above
 * it is a file saying `gitdir: <mainFolder>/.git/worktrees/<name>`.
 */
export async function isInWorktreeOf(files: FileAccess, cwd: string, mainFolder: string): Promise<boolean> {
  const adminDir = path.join(path.resolve(mainFolder), '.git', 'worktrees');
  let dir = path.resolve(cwd);
  for (let depth = 0; depth < 64; depth++) {
    const dotGit = path.join(dir, '.git');
    const st = await files.stat(dotGit).catch(() => undefined);
    if (st?.isDirectory) return false; // a repository of its own
    if (st?.isFile) {
      const text = (await readSmallFile(files, dotGit, MAX_GIT_POINTER_BYTES).catch(() => Buffer.alloc(0))).toString('utf8');
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
      if (!m) return false;
      const gitdir = path.resolve(dir, m[1]);
      return path.dirname(gitdir) === adminDir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
  return false;
}

/**
 * Decides which sessions belong to a set of workspace folders: their `cwd` is
 * a folder, inside one, or in a git worktree of one. Answers are cached per cwd.
 */
export class WorkspaceMatcher {
  private worktreeRoots: string[] = [];
  /** The folders' real paths where they differ from the names given. */
  private folderAliases: string[] = [];
  private readonly cwdAnswers = new Map<string, boolean>();

  constructor(
    private readonly files: FileAccess,
    readonly folders: readonly string[],
    private readonly foldCase = PATHS_FOLD_CASE,
  ) {}

  /** Reads the folders' real paths and worktree lists; call again to notice new worktrees. */
  async refresh(): Promise<void> {
    // A folder's real path is a second name for it: on macOS VS Code opens `/tmp/x` while Claude Code,
    // from process.cwd(), files and records the session under `/private/tmp/x`.
    const realPaths: string[] = [];
    for (const f of this.folders) {
      const real = await this.files.realpath(f).catch(() => undefined);
      if (real && real !== f) realPaths.push(real);
    }
    const roots: string[] = [...realPaths];
    for (const f of this.folders) roots.push(...(await gitWorktreesOf(this.files, f)));
    if (roots.join('\0') !== this.worktreeRoots.join('\0')) this.cwdAnswers.clear();
    this.folderAliases = realPaths;
    this.worktreeRoots = roots;
  }

  /** A project folder worth listing: it may hold sessions of a folder or of a known worktree. */
  mayHold(dirName: string): boolean {
    return [...this.folders, ...this.worktreeRoots].some((f) => projectDirMayHold(dirName, f, this.foldCase));
  }

  async matchesCwd(cwd: string): Promise<boolean> {
    const known = this.cwdAnswers.get(cwd);
    if (known !== undefined) return known;
    let answer = [...this.folders, ...this.folderAliases].some((f) => isSameOrInside(cwd, f, this.foldCase));
    if (!answer) {
      for (const f of this.folders) {
        if (await isInWorktreeOf(this.files, cwd, f)) {
          answer = true;
          break;
        }
      }
    }
    if (this.cwdAnswers.size > 1000) this.cwdAnswers.clear();
    this.cwdAnswers.set(cwd, answer);
    return answer;
  }
}

/** "Active": modified within the window, or holding calls whose records are not on disk yet. */
export function isActiveSession(lastActivityAt: number, heldNow: number, now: number, activeWindowMs: number): boolean {
  return heldNow > 0 || now - lastActivityAt <= activeWindowMs;
}
