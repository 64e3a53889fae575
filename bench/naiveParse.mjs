// The naive baseline for the cold index: what a quick script does — read every
// line as a string (readline) and JSON.parse it whole, then pick out tool_use ids.
// Prints {lines, malformed, calls} so the bench can check it saw what analyze saw.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

const file = process.argv[2];
let lines = 0;
let malformed = 0;
let calls = 0;
const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
for await (const line of rl) {
  lines++;
  let rec;
  try {
    rec = JSON.parse(line);
  } catch {
    malformed++;
    continue;
  }
  const content = rec?.message?.content;
  if (Array.isArray(content)) for (const block of content) if (block?.type === 'tool_use') calls++;
}
process.stdout.write(`${JSON.stringify({ lines, malformed, calls })}\n`);
