import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { CHANNEL_JSON_SCHEMA_PATH, renderChannelEventJsonSchema } from '../../../../src/core/channel/jsonSchema';
import { buildHook, hookInput, readJsonLines, runHook, tempHome } from '../../helpers/hookProcess';

const repoRoot = path.resolve(__dirname, '../../../..');
const committed = () => fs.readFileSync(path.join(repoRoot, CHANNEL_JSON_SCHEMA_PATH), 'utf8');

describe('channel JSON Schema', function () {
  before(async function () {
    this.timeout(60_000);
    await buildHook();
  });

  it('the committed file equals a fresh generation (run `npm run schema` after changing the zod schema)', () => {
    assert.equal(committed(), renderChannelEventJsonSchema());
  });

  it('its description names every event of the channel, landed and record included', () => {
    const { description } = JSON.parse(committed()) as { description: string };
    for (const event of ['pre', 'post', 'wait', 'landed', 'record']) assert.match(description, new RegExp(`\\b${event}\\b`), event);
  });

  it("the committed file accepts our hook's real pre, post and wait lines and refuses a broken one", async () => {
    const fromFile = z.fromJSONSchema(JSON.parse(committed()));
    const { claudeDir, env } = tempHome();
    const transcript = path.join(claudeDir, 'projects', '-work', 't.jsonl');
    fs.writeFileSync(transcript, '');
    const run = (fields: Record<string, unknown>, args: string[] = []) =>
      runHook({ env: { ...env, CLAUDE_CONFIG_DIR: claudeDir }, stdin: hookInput({ session_id: 'schema', transcript_path: transcript, ...fields }), args });
    await run({ prompt_id: 'p', agent_id: 'a' }, ['--probe', '--polls', '2', '--poll-ms', '5', '--timeout-ms', '9000']);
    await run({ hook_event_name: 'PostToolUse' });
    const lines = readJsonLines(path.join(claudeDir, 'transcript-lag', 'schema.jsonl')) as { event: string }[];
    assert.deepEqual(lines.map((l) => l.event), ['pre', 'wait', 'post']);
    for (const line of lines) assert.ok(fromFile.safeParse(line).success, JSON.stringify(line));
    assert.equal(fromFile.safeParse({ ...lines[1], outcome: 'maybe' }).success, false);
    assert.equal(fromFile.safeParse({ ...lines[0], tool_use_id: undefined }).success, false);
  });
});
