// What a new user sees first (issue 43 §7): the empty view (package.json viewsWelcome) and the
// walkthrough lead with the Claude Code plugin, which the README leads with, and show replay; every
// command they link is one the extension contributes, and every page they show ships.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const repo = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
  contributes: {
    commands: { command: string }[];
    viewsWelcome: { view: string; contents: string }[];
    walkthroughs: { id: string; steps: { id: string; title: string; description: string; media: { markdown?: string; svg?: string } }[] }[];
  };
};
const commands = new Set(pkg.contributes.commands.map((c) => c.command));

/** The `command:` links of a text, by command id. */
function linkedCommands(text: string): string[] {
  return [...text.matchAll(/\]\(command:([A-Za-z0-9_.-]+)/g)].map((m) => m[1]!);
}

describe('the first screen: the empty view and the walkthrough', () => {
  it('the empty view names the plugin before Install Hook, and tells how to replay a hook', () => {
    const [welcome] = pkg.contributes.viewsWelcome;
    assert.equal(welcome!.view, 'transcriptLag.sessions');
    const text = welcome!.contents;
    const plugin = text.indexOf('claude plugin install transcript-lag@transcript-lag');
    assert.ok(plugin >= 0, text);
    assert.ok(plugin < text.indexOf('[Install Hook]'), 'the plugin first, the hook as the way without it');
    assert.match(text, /Replay Hook on Session/);
    for (const id of linkedCommands(text)) assert.ok(commands.has(id) || id.startsWith('workbench.'), id);
  });

  it('the walkthrough: why, the plugin, then the hook without it, watching, the report and replay; its links and pages exist', () => {
    const [walk] = pkg.contributes.walkthroughs;
    assert.deepEqual(walk!.steps.map((s) => s.id), ['lag', 'plugin', 'install', 'watch', 'report', 'replay']);
    const replay = walk!.steps.find((s) => s.id === 'replay')!;
    assert.deepEqual(linkedCommands(replay.description), ['transcriptLag.replayHook']);
    for (const step of walk!.steps) {
      for (const id of linkedCommands(step.description)) assert.ok(commands.has(id) || id.startsWith('transcriptLag.sessions'), `${step.id}: ${id}`);
      const page = step.media.markdown ?? step.media.svg;
      assert.ok(page && fs.existsSync(path.join(repo, page)), `${step.id}: ${page}`);
    }
    // The replay page names the way past a hook that decided differently, in the words the replay table uses.
    const replayPage = fs.readFileSync(path.join(repo, replay.media.markdown!), 'utf8');
    assert.match(replayPage, /transcript-lag message/);
    assert.match(replayPage, /transcript-lag-complete\.js -- <your hook>/);
  });
});
