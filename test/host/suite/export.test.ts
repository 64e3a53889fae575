// Export Lag Samples writes every call seen as CSV or JSON, by file extension.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/presentation/commandIds';
import { scratchRoot } from './hostEnv';
import { eventually, extensionApi, FakeSession, newClaudeDir, runHook, useClaudeDir, sessionFollowed } from './support';

describe('export lag samples', () => {
  let session: FakeSession;

  before(async () => {
    const api = await extensionApi();
    const dir = newClaudeDir('export');
    await useClaudeDir(api, dir);
    session = new FakeSession(dir).prompt('go');
    await sessionFollowed(api, session);
    for (const id of ['toolu_exp_1', 'toolu_exp_2', 'toolu_exp_3']) {
      await runHook(dir, session.preToolUse(id, 'Grep'));
      session.toolUse(id, 'Grep').toolResult(id);
    }
    await eventually(api, 'three samples', () => api.samples().filter((x) => x.session_id === session.sessionId).length === 3);
  });

  it('writes CSV: a header and one row per call', async () => {
    const target = path.join(scratchRoot(), 'samples.csv');
    const uri = await vscode.commands.executeCommand<vscode.Uri>(COMMANDS.exportSamples, target);
    assert.equal(uri?.fsPath, target);
    const lines = fs.readFileSync(target, 'utf8').trim().split(/\r?\n/);
    assert.match(lines[0], /tool_use_id/);
    const ours = lines.filter((l) => l.includes(session.sessionId));
    assert.deepEqual(
      ours.map((l) => /toolu_exp_\d/.exec(l)?.[0]),
      ['toolu_exp_1', 'toolu_exp_2', 'toolu_exp_3'],
    );
  });

  it('writes JSON when the file name ends in .json', async () => {
    const target = path.join(scratchRoot(), 'samples.json');
    await vscode.commands.executeCommand(COMMANDS.exportSamples, vscode.Uri.file(target));
    const parsed = JSON.parse(fs.readFileSync(target, 'utf8')) as { samples: { session_id: string; tool_use_id: string; tool_name: string; lag_ms: number | null; line: number | null }[] };
    const mine = parsed.samples.filter((x) => x.session_id === session.sessionId);
    assert.deepEqual(mine.map((x) => x.tool_use_id), ['toolu_exp_1', 'toolu_exp_2', 'toolu_exp_3']);
    for (const x of mine) {
      assert.equal(x.tool_name, 'Grep');
      assert.equal(typeof x.lag_ms, 'number', 'the hook fired, so the lag is known');
      assert.equal(typeof x.line, 'number');
    }
  });
});
