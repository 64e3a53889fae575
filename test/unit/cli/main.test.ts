import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { main } from '../../../src/cli/main';
import { fixturesDir } from '../helpers/fixtures';
import { capturingIo } from '../helpers/capturingIo';

describe('CLI: dispatch', () => {
  it('prints usage for --help (exit 0) and for no command (exit 2)', async () => {
    const help = capturingIo(process.cwd());
    assert.equal(await main(['--help'], help.io), 0);
    assert.match(help.out(), /analyze FILE/);
    assert.match(help.out(), /install-hook/);
    const none = capturingIo(process.cwd());
    assert.equal(await main([], none.io), 2);
    assert.match(none.out(), /Usage: transcript-lag/);
  });

  it('refuses an unknown command with exit 2 and says which', async () => {
    const c = capturingIo(process.cwd());
    assert.equal(await main(['analyse'], c.io), 2);
    assert.match(c.err(), /unknown command 'analyse'/);
  });

  it('runs a subcommand with the rest of the arguments', async () => {
    const dir = path.join(fixturesDir, 'real', 'print-single-0');
    const file = fs.readdirSync(dir).find((f) => f.endsWith('.jsonl'))!;
    const c = capturingIo(dir);
    assert.equal(await main(['analyze', file, '--json'], c.io), 0);
    const printed = JSON.parse(c.out()) as { lines: number; calls: Array<{ tool_use_id: string; line: number }> };
    assert.equal(printed.lines, 30);
    assert.deepEqual(printed.calls.map((x) => [x.tool_use_id, x.line]), [['toolu_field001b', 22]]);
  });
});
