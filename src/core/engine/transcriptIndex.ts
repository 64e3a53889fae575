import * as path from 'node:path';
import type { FileAccess } from '../fileAccess';
import { type TranscriptRef, listProjectDirs, listProjectTranscripts, projectsDirOf } from '../discovery';

/**
 * The transcripts under `<claudeDir>/projects/`, listed again only when a
 * folder's mtime says something was added or removed (or on a forced rescan),
 * so a poll costs a few stats, not a walk of every project.
 */
export class TranscriptIndex {
  private projectsMtime = -1;
  private dirNames: string[] = [];
  private readonly dirMtimes = new Map<string, number>();
  private readonly listings = new Map<string, TranscriptRef[]>();
  private readonly subagentMtimes = new Map<string, number>();
  /** Per project folder, the names in it that may be session folders (no `.jsonl`), as last listed. */
  private readonly folders = new Map<string, Set<string>>();

  constructor(
    private readonly files: FileAccess,
    private readonly claudeDir: string,
    /** Project folder names worth listing (the workspace's, or all). */
    private readonly accept: (dirName: string) => boolean,
  ) {}

  /** Every transcript in accepted project folders; `newRefs` are those not returned before. */
  async scan(force: boolean): Promise<{ refs: TranscriptRef[]; newRefs: TranscriptRef[] }> {
    const projects = projectsDirOf(this.claudeDir);
    const st = await this.files.stat(projects).catch(() => undefined);
    if (!st?.isDirectory) {
      this.dirNames = [];
      this.listings.clear();
      return { refs: [], newRefs: [] };
    }
    if (force || st.mtimeMs !== this.projectsMtime) {
      this.projectsMtime = st.mtimeMs;
      // An unreadable folder (EACCES) keeps what we knew: a poll must not fail for it.
      this.dirNames = (await listProjectDirs(this.files, this.claudeDir).catch(() => this.dirNames)).filter((n) => this.accept(n));
    }
    const refs: TranscriptRef[] = [];
    const newRefs: TranscriptRef[] = [];
    const live = new Set<string>();
    for (const name of this.dirNames) {
      const dir = path.join(projects, name);
      live.add(dir);
      const dst = await this.files.stat(dir).catch(() => undefined);
      if (!dst?.isDirectory) continue;
      let listing = this.listings.get(dir);
      if (!listing || force || dst.mtimeMs !== this.dirMtimes.get(dir)) {
        this.dirMtimes.set(dir, dst.mtimeMs);
        const before = new Set((listing ?? []).map((r) => r.path));
        const folders = new Set<string>();
        const listed = await listProjectTranscripts(this.files, dir, folders).catch(() => undefined);
        if (listed !== undefined) this.folders.set(dir, folders);
        listing = listed ?? listing ?? [];
        this.listings.set(dir, listing);
        for (const r of listing) if (!before.has(r.path)) newRefs.push(r);
      }
      refs.push(...listing);
    }
    for (const dir of [...this.listings.keys()]) {
      if (!live.has(dir)) {
        this.listings.delete(dir);
        this.dirMtimes.delete(dir);
        this.folders.delete(dir);
      }
    }
    return { refs, newRefs };
  }

  /**
   * Subagent transcripts of one session, when its `subagents/` folder changed
   * since the last look (a new agent started); undefined when unchanged.
   */
  async subagentsIfChanged(projectDir: string, sessionId: string): Promise<TranscriptRef[] | undefined> {
    const dir = path.join(projectDir, sessionId, 'subagents');
    // No session folder when the project folder was last listed: none can hold subagents, and
    // making one changes the project folder's mtime, so the next scan lists it. A poll over
    // 20,000 sessions then costs no stat for each.
    const folderListed = this.folders.get(projectDir)?.has(sessionId) ?? true;
    const st = folderListed ? await this.files.stat(dir).catch(() => undefined) : undefined;
    const mtime = st?.isDirectory ? st.mtimeMs : -1;
    if (this.subagentMtimes.get(dir) === mtime) return undefined;
    this.subagentMtimes.set(dir, mtime);
    if (mtime < 0) return [];
    const names = await this.files.readdir(dir).catch(() => [] as string[]);
    return names
      .filter((n) => n.startsWith('agent-') && n.endsWith('.jsonl'))
      .map((n) => ({ path: path.join(dir, n), projectDir, sessionId, kind: 'subagent' as const, agentId: n.slice('agent-'.length, -'.jsonl'.length) }));
  }

  forgetSession(projectDir: string, sessionId: string): void {
    this.subagentMtimes.delete(path.join(projectDir, sessionId, 'subagents'));
  }
}
