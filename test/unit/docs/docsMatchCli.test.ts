import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { commandNames, main } from '../../../src/cli/main';
import { WATCH_JSON_EVENTS } from '../../../src/cli/watch';
import { capturingIo } from '../helpers/capturingIo';

// The docs say what the CLI takes and what `watch --json` prints; the code says what is. A flag
// written beside `transcript-lag <command>` (or `node …/cli.js <command>`, or `<command> --flag` in
// inline code) must be in that command's --help; a lone `--flag` in a CLI section must be in some
// command's --help; the `watch --json` event list must be exactly the events watch prints.

const root = path.resolve(__dirname, '../../..');
const docFiles = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const FLAG = /--[a-z][a-z0-9-]*/g;

async function helpOf(args: string[]): Promise<string> {
  const c = capturingIo(root);
  assert.equal(await main(args, c.io), 0, `${args.join(' ')}: ${c.err()}`);
  return c.out();
}

/** The command text of a doc: each line of a code block, and each inline code span outside them. */
function commandTexts(text: string): string[] {
  const out: string[] = [];
  const prose: string[] = [];
  let inBlock = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) inBlock = !inBlock;
    else if (inBlock) out.push(line);
    else prose.push(line);
  }
  for (const m of prose.join('\n').matchAll(/`([^`\n]+)`/g)) out.push(m[1]!);
  return out;
}

/** [command, flag] for each flag written after a subcommand: up to a comment, a pipe or another command. */
function documentedFlags(text: string): Array<[string, string]> {
  const names = commandNames.map((n) => n.replace(/-/g, '\\-')).join('|');
  const invocation = new RegExp(`(?:^|\\btranscript-lag\\s+|cli\\.js\\s+)(${names})\\b([^#|;&]*)`, 'g');
  const found: Array<[string, string]> = [];
  for (const t of commandTexts(text)) {
    for (const m of t.trim().matchAll(invocation)) {
      for (const flag of m[2]!.match(FLAG) ?? []) found.push([m[1]!, flag]);
    }
  }
  return found;
}

/** The sections whose heading names the CLI. */
function cliSections(text: string): string[] {
  return [...text.matchAll(/^(#{2,3}) [^\n]*\bCLI\b[^\n]*\n([\s\S]*?)(?=^#{1,3} |(?![\s\S]))/gm)].map((m) => m[2]!);
}

describe('docs: the CLI flags and watch events they name exist', () => {
  it('finds the documented invocations (the reader works)', () => {
    const all = docFiles.flatMap((f) => documentedFlags(read(f)));
    for (const expected of [['watch', '--json'], ['analyze', '--channel'], ['install-hook', '--probe'], ['message', '--json']]) {
      assert.ok(all.some(([c, f]) => c === expected[0] && f === expected[1]), `${expected.join(' ')} among ${JSON.stringify(all)}`);
    }
    assert.ok(docFiles.some((f) => cliSections(read(f)).length > 0), 'a CLI section');
  });

  it("every flag written beside a subcommand is in that subcommand's --help", async () => {
    const help = new Map<string, string>();
    for (const name of commandNames) help.set(name, await helpOf([name, '--help']));
    const missing: string[] = [];
    for (const file of docFiles) {
      for (const [command, flag] of documentedFlags(read(file))) {
        if (!((help.get(command)!.match(FLAG) ?? []) as string[]).includes(flag) && flag !== '--help') missing.push(`${file}: ${command} ${flag}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it("every lone `--flag` in a CLI section is some command's (or the CLI's own --version)", async () => {
    const known = new Set<string>((await helpOf(['--help'])).match(FLAG) ?? []);
    for (const name of commandNames) for (const f of (await helpOf([name, '--help'])).match(FLAG) ?? []) known.add(f);
    const missing: string[] = [];
    for (const file of docFiles) {
      for (const section of cliSections(read(file))) {
        for (const m of section.matchAll(/`(--[a-z][a-z0-9-]*)(?:[ =][^`]*)?`/g)) if (!known.has(m[1]!)) missing.push(`${file}: ${m[1]}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('the documented `watch --json` events are exactly the ones watch prints', () => {
    const lists = docFiles.flatMap((file) =>
      [...read(file).matchAll(/`event` \(((?:`[a-z_]+`,?\s*)+)\)/g)].map((m) => ({ file, events: [...m[1]!.matchAll(/`([a-z_]+)`/g)].map((e) => e[1]!) })),
    );
    assert.ok(lists.length > 0, 'the docs list the events of `watch --json`');
    for (const { file, events } of lists) {
      assert.deepEqual([...events].sort(), [...WATCH_JSON_EVENTS].sort(), `${file}: the event list of watch --json`);
    }
  });
});
