import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { ProjectsConfinement } from '../../../../src/core/engine/projectsConfinement';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { ClaudeDirFixture } from '../../helpers/engineFixture';

describe('ProjectsConfinement', () => {
  let fx: ClaudeDirFixture;
  let projects: string;
  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
    projects = path.join(fx.claudeDir, 'projects');
    await fsp.mkdir(path.join(projects, '-w'));
    await fsp.writeFile(path.join(projects, '-w', 's.jsonl'), '');
    await fsp.mkdir(path.join(fx.root, 'outside'));
    await fsp.writeFile(path.join(fx.root, 'outside', 'o.jsonl'), '');
    await fsp.writeFile(path.join(fx.root, 'outside', 'secret.txt'), '');
  });
  afterEach(() => fx.remove());

  it('keeps a transcript inside projects/, named as the engine names it', async () => {
    const c = new ProjectsConfinement(nodeFileAccess, fx.claudeDir);
    assert.equal(await c.confine(path.join(projects, '-w', 's.jsonl')), path.join(projects, '-w', 's.jsonl'));
    // Not created yet: judged by its folder.
    assert.equal(await c.confine(path.join(projects, '-w', 'new.jsonl')), path.join(projects, '-w', 'new.jsonl'));
  });

  it('refuses what a symlink leads out of projects/, a non-.jsonl target, and a missing folder', async () => {
    await fsp.symlink(path.join(fx.root, 'outside'), path.join(projects, 'evil'));
    await fsp.symlink(path.join(fx.root, 'outside', 'o.jsonl'), path.join(projects, '-w', 'link.jsonl'));
    await fsp.symlink(path.join(fx.root, 'outside', 'secret.txt'), path.join(projects, '-w', 'txt.jsonl'));
    const c = new ProjectsConfinement(nodeFileAccess, fx.claudeDir);
    for (const p of [
      path.join(projects, 'evil', 'o.jsonl'),
      path.join(projects, 'evil', 'later.jsonl'),
      path.join(projects, '-w', 'link.jsonl'),
      path.join(projects, '-w', 'txt.jsonl'),
      path.join(projects, 'nope', 'x.jsonl'),
      path.join(projects, '..', 'outside', 'o.jsonl'),
      'relative/x.jsonl',
    ]) {
      assert.equal(await c.confine(p), undefined, p);
    }
  });

  it('maps a symlink inside projects/ to the file it names there', async () => {
    await fsp.symlink(path.join(projects, '-w'), path.join(projects, 'alias'));
    const c = new ProjectsConfinement(nodeFileAccess, fx.claudeDir);
    assert.equal(await c.confine(path.join(projects, 'alias', 's.jsonl')), path.join(projects, '-w', 's.jsonl'));
  });
});
