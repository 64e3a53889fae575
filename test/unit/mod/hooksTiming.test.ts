import * as assert from 'node:assert/strict';
import { ModHarness, SESSION } from './modHarness';

// The mod times each call's settings PreToolUse hooks (issue 33 §4): classic.PreToolUse fires inside
// tool.call, its `next` runs exactly those hooks. It reports `hooks` as soon as they settle, and the
// call's `post` carries the same figures (docs/CHANNEL.md).
describe('mod: the settings hooks\' share of each hold', () => {
  let h: ModHarness;
  afterEach(() => h?.dispose());

  /** Settings hooks that run until the test ends them with their PreToolUse result. */
  function slowHooks() {
    let end!: (result: unknown) => void;
    let fail!: (err: Error) => void;
    const hooks = () =>
      new Promise<unknown>((resolve, reject) => {
        end = resolve;
        fail = reject;
      });
    return { hooks, end: (result: unknown) => end(result), fail: (err: Error) => fail(err) };
  }
  const eventsOf = (kind: string) => h.spooled().filter((e) => e.event === kind);

  it('a hooks event as soon as the hooks settle: the call, transport mod, hooks_ms the time next took, its decision', async () => {
    h = new ModHarness();
    await h.start();
    const run = slowHooks();
    const firedAt = Date.now();
    const call = await h.call('toolu_01H', 'Edit', { hooks: run.hooks });
    await h.tick(1234);
    assert.deepEqual(eventsOf('hooks'), [], 'nothing while they run');
    run.end({ allow: true });
    await h.settle();
    assert.deepEqual(h.spooled().map((e) => e.event), ['pre', 'hooks'], 'reported before the tool ends');
    assert.deepEqual(eventsOf('hooks'), [
      {
        v: 1,
        event: 'hooks',
        at: firedAt + 1234,
        session_id: SESSION,
        transcript_path: h.transcript,
        tool_use_id: 'toolu_01H',
        tool_name: 'Edit',
        transport: 'mod',
        hooks_ms: 1234,
        hooks_decision: 'allow',
        source: 'transcript-lag-mod',
      },
    ]);
    await call.finish();
    const [post] = eventsOf('post');
    assert.deepEqual([post.hooks_ms, post.hooks_decision], [1234, 'allow'], 'post carries the same figures');
  });

  it('the decision each result shape makes: allow, ask, deny, or none (no hooks_decision field)', async () => {
    h = new ModHarness();
    await h.start();
    const shapes: Array<[unknown, string | undefined]> = [
      [{ allow: true }, 'allow'],
      [{ ask: 'check the path' }, 'ask'],
      [{ deny: 'not here' }, 'deny'],
      [{ deny: 'two at once', allow: true }, 'deny'],
      [{}, undefined],
      [{ updatedInput: { command: 'ls' }, additionalContext: ['note'] }, undefined],
      [undefined, undefined],
    ];
    for (const [i, [result]] of shapes.entries()) {
      const call = await h.call(`toolu_0${i}`, 'Bash', { hooks: async () => result });
      await call.finish();
    }
    for (const kind of ['hooks', 'post']) {
      const said = eventsOf(kind).map((e) => ('hooks_decision' in e ? e.hooks_decision : undefined));
      assert.deepEqual(said, shapes.map(([, d]) => d), kind);
      assert.deepEqual(eventsOf(kind).map((e) => e.hooks_ms), shapes.map(() => 0), `${kind}: no time passed`);
    }
  });

  it('a denied call still gets its post, with the hooks\' figures', async () => {
    h = new ModHarness();
    await h.start();
    const run = slowHooks();
    const call = await h.call('toolu_01D', 'Bash', { hooks: run.hooks });
    await h.tick(250);
    run.end({ deny: 'refused by review' });
    await call.finish();
    assert.deepEqual(h.spooled().map((e) => e.event), ['pre', 'hooks', 'post']);
    const [post] = eventsOf('post');
    assert.deepEqual([post.hooks_ms, post.hooks_decision], [250, 'deny']);
  });

  it('hooks that throw: timed, no decision; the error goes on up and the call still gets its post', async () => {
    h = new ModHarness();
    await h.start();
    const run = slowHooks();
    const call = await h.call('toolu_01T', 'Bash', { hooks: run.hooks });
    await h.tick(40);
    run.fail(new Error('hook crashed'));
    await assert.rejects(call.finish(), /hook crashed/);
    await h.settle();
    const [hooks] = eventsOf('hooks');
    const [post] = eventsOf('post');
    assert.equal(hooks.hooks_ms, 40);
    assert.equal('hooks_decision' in hooks, false);
    assert.equal(post.hooks_ms, 40);
    assert.equal('hooks_decision' in post, false);
  });

  it('no figures for a call whose classic.PreToolUse did not fire (managed hooks ended the chain above the mods): nothing guessed', async () => {
    h = new ModHarness();
    await h.start();
    const unraised = await h.call('toolu_01N');
    const timed = await h.call('toolu_01M', 'Bash', { hooks: async () => ({ allow: true }) });
    await h.tick(300);
    await unraised.finish();
    await timed.finish();
    assert.deepEqual(eventsOf('hooks').map((e) => e.tool_use_id), ['toolu_01M']);
    const posts = eventsOf('post').map((e) => [e.tool_use_id, e.hooks_ms, e.hooks_decision]);
    assert.deepEqual(posts, [['toolu_01N', undefined, undefined], ['toolu_01M', 0, 'allow']]);
    assert.equal('hooks_ms' in eventsOf('post')[0], false);
  });

  it('a subagent\'s call: the hooks event says its agent_id', async () => {
    h = new ModHarness();
    await h.start();
    const call = await h.call('toolu_01S', 'Read', { agentId: 'a1b2c3', hooks: async () => ({ ask: 'sure?' }) });
    await call.finish();
    const [hooks] = eventsOf('hooks');
    assert.deepEqual([hooks.agent_id, hooks.hooks_decision, hooks.tool_name], ['a1b2c3', 'ask', 'Read']);
  });

  it('a call whose record was on disk before its hooks ended (released early): its post still carries the figures', async () => {
    h = new ModHarness();
    await h.start();
    h.appendRecord('toolu_01E');
    const run = slowHooks();
    const call = await h.call('toolu_01E', 'Bash', { hooks: run.hooks });
    await h.tick(500);
    assert.deepEqual(eventsOf('landed').map((e) => e.tool_use_id), ['toolu_01E'], 'released while its hooks ran');
    run.end({ allow: true });
    await call.finish();
    const [post] = eventsOf('post');
    assert.deepEqual([post.hooks_ms, post.hooks_decision], [500, 'allow']);
  });

  it('a call the mod does not hold: timed and reported as the session\'s once its place is known, else not at all', async () => {
    h = new ModHarness();
    const raise = (id: string) => h.emit('classic.PreToolUse', { tool: 'Bash', tool_use_id: id }, async () => {
      await h.tick(70);
      return { deny: 'no' };
    });
    // Before session.start: no place, nothing to report to (and nothing asked for).
    assert.deepEqual(await raise('toolu_01X'), { deny: 'no' }, 'the hooks\' result goes on up');
    await h.settle();
    assert.deepEqual(h.spooled(), []);
    await h.start();
    await raise('toolu_01Y');
    await h.settle();
    const hooks = eventsOf('hooks');
    assert.deepEqual(hooks.map((e) => [e.tool_use_id, e.hooks_ms, e.hooks_decision, 'agent_id' in e]), [['toolu_01Y', 70, 'deny', false]]);
  });

  it('once the hooks settle, the call\'s file is looked at every 10 ms (the hold they kept ends): the spinner\'s "held" ends within 10 ms of the write', async () => {
    h = new ModHarness();
    await h.start();
    const run = slowHooks();
    const call = await h.call('toolu_01S', 'Bash', { hooks: run.hooks });
    await h.tick(350);
    run.end({ allow: true });
    await h.settle();
    h.appendRecord('toolu_01S');
    await h.tick(10);
    assert.deepEqual(eventsOf('landed').map((e) => e.tool_use_id), ['toolu_01S'], 'found by the next look, 10 ms on (the tool still running)');
    await call.finish();
  });
});
