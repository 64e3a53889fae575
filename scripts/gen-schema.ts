// Writes schema/channel-event.schema.json from the zod channel schema.
// Run with `npm run schema` (tsx); test/unit/core/channel/jsonSchema.test.ts fails when the file is stale.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CHANNEL_JSON_SCHEMA_PATH, renderChannelEventJsonSchema } from '../src/core/channel/jsonSchema';

const target = path.resolve(__dirname, '..', CHANNEL_JSON_SCHEMA_PATH);
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.writeFileSync(target, renderChannelEventJsonSchema());
process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
