import { z } from 'zod';
import { CHANNEL_SCHEMA_VERSION } from '../../rules/channelConstants';
import { channelEventSchema } from './schema';

/** Where the generated file lives in the repo (relative to its root). */
export const CHANNEL_JSON_SCHEMA_PATH = 'schema/channel-event.schema.json';

/**
 * The channel event format as JSON Schema, for hooks not written in
 * TypeScript that report their own wait outcomes. Generated from the zod
 * schema so the two cannot drift (a unit test compares the committed file).
 */
export function channelEventJsonSchema(): Record<string, unknown> {
  // io 'input': what a reader accepts. zod objects strip unknown keys rather
  // than refuse them, so other hooks may add fields of their own.
  const generated = z.toJSONSchema(channelEventSchema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    title: `Transcript Lag channel event, version ${CHANNEL_SCHEMA_VERSION}`,
    description:
      `One line of <claude dir>/transcript-lag/<session_id>.jsonl: a ${channelEventNames()} event. ` +
      'Append one JSON object per line with a single write; readers skip lines with an unknown v or event.',
    ...rest,
  };
}

/** The union's events, from the schema itself: "pre, post, wait, landed or record". */
export function channelEventNames(): string {
  const names = channelEventSchema.options.map((o) => o.shape.event.value);
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/** The exact text of the committed file: 2-space JSON and a final newline. */
export function renderChannelEventJsonSchema(): string {
  return JSON.stringify(channelEventJsonSchema(), null, 2) + '\n';
}
