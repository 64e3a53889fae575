import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeTranscript } from '../../../src/core/analyze';
import { renderTable, run } from '../../../src/cli/analyze';
import { claudeCodeSentences } from '../../../src/core/compat/claudeCode';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';
import { fixturesDir } from '../helpers/fixtures';
import { capturingIo } from '../helpers/capturingIo';

const realDir = path.join(fixturesDir, 'real', 'interactive-parallel-2000');
const transcriptName = fs.readdirSync(realDir).find((f) => f.endsWith('.jsonl'))!;

describe('CLI: transcript-lag analyze', () => {
  it('--json prints one JSON object: the analysis, with the contract fields', async () => {
    const c = capturingIo(realDir);
    assert.equal(await run([transcriptName, '--json'], c.io), 0);
    assert.equal(c.err(), '');
    assert.ok(c.out().endsWith('\n'));
    assert.equal(c.out().trim().split('\n').length, 1);
    const printed = JSON.parse(c.out());
    const expected = await analyzeTranscript({ path: path.join(realDir, transcriptName), files: nodeFileAccess, clock: c.io.clock });
    assert.deepEqual(printed, JSON.parse(JSON.stringify(expected)));
    assert.equal(typeof printed.lines, 'number');
    assert.equal(typeof printed.malformed, 'number');
    for (const call of printed.calls) {
      assert.deepEqual(Object.keys(call).slice(0, 4), ['tool_use_id', 'tool_name', 'line', 'result_line']);
    }
  });

  it('without --json prints a summary and one row per call', async () => {
    const c = capturingIo(realDir);
    assert.equal(await run([path.join(realDir, transcriptName)], c.io), 0);
    const a = await analyzeTranscript({ path: path.join(realDir, transcriptName), files: nodeFileAccess, clock: c.io.clock });
    assert.match(c.out(), new RegExp(`^lines +${a.lines} \\(${a.malformed} malformed\\)`, 'm'));
    for (const call of a.calls) {
      assert.match(c.out(), new RegExp(`^ *${call.line} +${call.result_line} +${call.shape} .*${call.tool_name} +${call.tool_use_id}$`, 'm'));
    }
  });

  it("names what the compat runner measured of the session's version (its call records' `version`)", async () => {
    const c = capturingIo(realDir);
    assert.equal(await run([path.join(realDir, transcriptName)], c.io), 0);
    const a = await analyzeTranscript({ path: path.join(realDir, transcriptName), files: nodeFileAccess, clock: c.io.clock });
    assert.ok(a.claude_code_version !== null, 'the fixture\'s call records say their version');
    const known = claudeCodeSentences(a.claude_code_version);
    assert.ok(known.length > 0, `something is known of ${a.claude_code_version} (src/core/compat/claudeCode.json)`);
    assert.ok(c.out().includes(`claude code ${known.join('; ')}`), c.out());
  });

  it('a version measured neither itself nor alike on both sides: unknown for this version, said', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-cli-'));
    try {
      // As measured 2026-12-07: 2.1.241 held a message's records while its hooks ran, 2.1.257 did not; 2.1.250 was not measured.
      const text = fs.readFileSync(path.join(realDir, transcriptName), 'utf8').replace(/"version":"[^"]*"/g, '"version":"2.1.250"');
      fs.writeFileSync(path.join(tmp, 't.jsonl'), text);
      const c = capturingIo(tmp);
      assert.equal(await run(['t.jsonl'], c.io), 0);
      assert.match(c.out(), /^claude code +2\.1\.250: unknown for this version whether it holds a message's records while its PreToolUse hooks run \(not measured; 2\.1\.241 did, 2\.1\.257 did not\); 2\.1\.250 does not load the plugin's mod \(as 2\.1\.241 and 2\.1\.257 measured; this version not measured\)$/m);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('--channel adds waits to the JSON and the table', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-cli-'));
    try {
      const channel = path.join(tmp, 'c.jsonl');
      const ev = { v: 1, at: 5, session_id: 's', transcript_path: '/x.jsonl', tool_use_id: 'toolu_field001r', event: 'wait', outcome: 'behind', polls: 50, waited_ms: 5000, bytes_on_disk: 10 };
      fs.writeFileSync(channel, `${JSON.stringify(ev)}\n`);
      const c = capturingIo(tmp);
      assert.equal(await run([path.join(realDir, transcriptName), '--json', '--channel', 'c.jsonl'], c.io), 0);
      const printed = JSON.parse(c.out());
      assert.deepEqual(printed.waits, { seen: 0, behind: 1, error: 0, unmatched: 0 });
      const table = capturingIo(tmp);
      assert.equal(await run([path.join(realDir, transcriptName), '--channel', channel], table.io), 0);
      // The field report's table, for this session.
      assert.match(table.out(), /^session +waits that saw the call +waits that ended behind +errors$/m);
      assert.match(table.out(), /^31fe55b3-cdf5-46f4-87b6-e09ef369569a +0 +1 +0$/m);
      assert.match(table.out(), /toolu_field001r +- +behind \(50 polls\)/);
      // Record lags need write times a file does not hold: said unknown, not guessed.
      assert.match(table.out(), /^record lags +unknown offline: no write times in a file/m);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('asks for one I/O thread; --threads is no option', async () => {
    const c = capturingIo(realDir);
    const ioThreads: number[] = [];
    c.io.ioThreads = (count) => ioThreads.push(count);
    assert.equal(await run([transcriptName, '--json'], c.io), 0);
    assert.deepEqual(ioThreads, [1]);
    const bad = capturingIo(realDir);
    assert.equal(await run([transcriptName, '--threads', '2'], bad.io), 2);
    assert.match(bad.err(), /Unknown option '--threads'/);
  });

  it('exits 2 with a clear message on a missing file, a missing channel, or bad arguments', async () => {
    const missing = capturingIo(realDir);
    assert.equal(await run(['no-such.jsonl'], missing.io), 2);
    assert.match(missing.err(), /transcript not found: .*no-such\.jsonl/);
    assert.equal(missing.out(), '');

    const noChannel = capturingIo(realDir);
    assert.equal(await run([transcriptName, '--channel', 'nope.jsonl'], noChannel.io), 2);
    assert.match(noChannel.err(), /channel file not found/);

    for (const args of [[], ['a', 'b'], [transcriptName, '--bogus']]) {
      const bad = capturingIo(realDir);
      assert.equal(await run([...args], bad.io), 2, args.join(' '));
      assert.match(bad.err(), /Usage: transcript-lag analyze/);
    }
  });

  it('the built CLI (dist/cli.js, made by `npm run build`, which `npm test` runs first) prints the same JSON', function () {
    const cli = path.resolve(__dirname, '../../../dist/cli.js');
    if (!fs.existsSync(cli)) this.skip();
    const file = path.join(realDir, transcriptName);
    const res = spawnSync(process.execPath, [cli, 'analyze', file, '--json'], { encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
    const printed = JSON.parse(res.stdout);
    const probe = fs.readFileSync(path.join(realDir, 'probe.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    for (const ev of probe.filter((e) => e.ev === 'seen')) {
      assert.equal(printed.calls.find((c: { tool_use_id: string }) => c.tool_use_id === ev.id).line, ev.line);
    }
    const missing = spawnSync(process.execPath, [cli, 'analyze', path.join(realDir, 'none.jsonl')], { encoding: 'utf8' });
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /transcript not found/);
  });

  describe('what reaches the terminal', () => {
    const ESC = '\u001b';
    const UNPRINTABLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
    let tmp: string;
    beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-cli-esc-'))));
    afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

    function hostileTranscript(): string {
      const sid = 'e0000000-0000-4000-8000-00000000000e';
      const title = `t${ESC}]52;c;ZXZpbA==\u0007${ESC}[2J\u009b2J\u202eitle`;
      const lines = [
        { type: 'custom-title', customTitle: title, sessionId: sid },
        { type: 'assistant', uuid: 'a1', timestamp: '2026-01-01T00:00:01.000Z', sessionId: sid, message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: `toolu_x${ESC}[2J`, name: `Ba${ESC}]52;c;eA==\u0007sh`, input: {} }] } },
        { type: 'user', uuid: 'u1', timestamp: '2026-01-01T00:00:02.000Z', sessionId: sid, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_x${ESC}[2J`, content: 'ok' }] } },
      ];
      const file = path.join(tmp, 't.jsonl');
      fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      return file;
    }

    it('the table prints titles, tool names and ids without control or bidi characters', async () => {
      const c = capturingIo(tmp);
      assert.equal(await run([hostileTranscript()], c.io), 0);
      assert.match(c.out(), /^title +t\]52;c;ZXZpbA==\[2J2Jitle$/m);
      assert.match(c.out(), /Ba\]52;c;eA==sh +toolu_x\[2J$/m);
      assert.doesNotMatch(c.out(), UNPRINTABLE);
    });

    it('--json keeps the exact strings, with DEL, C1 and bidi escaped as well as C0', async () => {
      const c = capturingIo(tmp);
      assert.equal(await run([hostileTranscript(), '--json'], c.io), 0);
      assert.doesNotMatch(c.out(), UNPRINTABLE);
      const printed = JSON.parse(c.out());
      assert.equal(printed.title, `t${ESC}]52;c;ZXZpbA==\u0007${ESC}[2J\u009b2J\u202eitle`);
      assert.equal(printed.calls[0].tool_name, `Ba${ESC}]52;c;eA==\u0007sh`);
    });
  });

  it('the table of 150,000 calls prints every row (no spread of the rows onto the stack)', async () => {
    const a = await analyzeTranscript({ path: path.join(realDir, transcriptName), files: nodeFileAccess, clock: capturingIo(realDir).io.clock });
    const call = a.calls[0]!;
    const calls = Array.from({ length: 150_000 }, (_, i) => ({ ...call, tool_use_id: `toolu_${i}`, line: i + 1 }));
    const table = renderTable({ ...a, calls, waits: { seen: 0, behind: 0, error: 0, unmatched: 0 } });
    const rows = table.split('\n').filter((l) => /^ *\d+ .* toolu_\d+/.test(l));
    assert.equal(rows.length, 150_000);
    assert.match(rows[149_999]!, /^150000 .* toolu_149999/);
  });
});
