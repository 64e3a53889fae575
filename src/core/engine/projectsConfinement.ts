import * as path from 'node:path';
import type { FileAccess } from '../fileAccess';
import { projectsDirOf } from '../discovery';

const JSONL = '.jsonl';

/**
 * Which transcript paths the engine may open: those whose real path (every
 * symlink resolved) is a `.jsonl` inside the real path of `<claudeDir>/projects/`.
 * Path arithmetic alone (channel/paths.ts) lets `projects/evil -> /elsewhere`
 * through; and a Claude dir reached through a symlink names one file two ways
 * (a hook event may name the real path, discovery the link path, or the other
 * way round). So a path is checked by its real path, and named the way the
 * engine names files: under `<claudeDir>/projects/` as configured.
 */
export class ProjectsConfinement {
  private readonly projects: string;
  private realProjects: string | undefined;

  constructor(
    private readonly files: FileAccess,
    claudeDir: string,
  ) {
    this.projects = path.resolve(projectsDirOf(claudeDir));
  }

  /**
   * The path under `<claudeDir>/projects/` that names the same file, when its
   * real path is inside the real projects folder; undefined otherwise (outside,
   * not a `.jsonl`, or its folder does not exist). A file not created yet is
   * judged by its folder's real path.
   */
  async confine(p: string): Promise<string | undefined> {
    if (!p || p.includes('\0') || !path.isAbsolute(p) || !p.endsWith(JSONL)) return undefined;
    // Cached once found: the projects folder is not moved under a running engine; a missing one is looked for again.
    this.realProjects ??= await this.files.realpath(this.projects).catch(() => undefined);
    const realProjects = this.realProjects;
    if (realProjects === undefined) return undefined;
    let real = await this.files.realpath(p).catch(() => undefined);
    if (real === undefined) {
      const dir = await this.files.realpath(path.dirname(p)).catch(() => undefined);
      if (dir === undefined) return undefined;
      real = path.join(dir, path.basename(p));
    }
    const rel = path.relative(realProjects, real);
    if (!rel || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel) || !rel.endsWith(JSONL)) return undefined;
    return path.join(this.projects, rel);
  }
}
