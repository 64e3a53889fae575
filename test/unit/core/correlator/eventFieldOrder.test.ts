import { strict as assert } from 'node:assert';
import { Correlator } from '../../../../src/core/correlator';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import { SESSION, TRANSCRIPT, post, pre, tailRead, toolResult, toolUse, wait } from '../../helpers/correlatorInputs';

/** Each call event's fields, in order: `watch --json` prints them so (the correlator builds events without spreads, issue 30). */
describe('Correlator call events: fields and their order', () => {
  it('held, written, result, joined, wait, post, revised, and held at a session shown, as before', () => {
    const c = new Correlator();
    const read = (observedAt: number, firstLine: number, scans: Parameters<typeof tailRead>[2]) =>
      c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, read: tailRead(observedAt, firstLine, scans) });
    const events: EngineEvent[] = [
      ...c.ingestHook(pre('A', 1000, { timeout_ms: 60_000, transport: 'mod', agent_id: 'ag1' }), 1010),
      ...read(1500, 1, [toolUse('A', { messageId: 'msg_1', apiBlockIndex: 0, version: '2.1.332' })]),
      ...read(1600, 2, [toolResult('A')]),
      ...read(1700, 3, [toolUse('B')]),
      ...c.ingestHook(pre('B', 1650), 1800),
      ...c.ingestHook(wait('C', 1900, 'seen'), 1900),
      ...c.ingestHook(post('C', 1950), 1960),
      ...c.ingestHook(pre('D', 2000, { timeout_ms: 1000 }), 2010),
      // The mod's timing of E's settings hooks and its post with the same, then E's record: the hooks event, and written carrying them.
      ...c.ingestHook({ ...pre('E', 2100), event: 'hooks', transport: 'mod', hooks_ms: 900, hooks_decision: 'allow' } as never, 3000),
      ...c.ingestHook({ ...post('E', 2950), transport: 'mod', hooks_ms: 900, hooks_decision: 'allow' }, 3001),
      ...read(3100, 4, [toolUse('E')]),
      // F read late: the mod's look had found it first, learned after its written.
      ...c.ingestHook(pre('F', 3200, { transport: 'mod' }), 3201),
      ...read(3900, 5, [toolUse('F')]),
      ...c.ingestHook({ ...pre('F', 3300), event: 'landed', with_result: false, watched_from: 'pre', fired_at: 3200 } as never, 3950),
    ];
    const fields = (e: EngineEvent) => `${e.event}${'tool_use_id' in e ? ` ${e.tool_use_id}` : ''}: ${Object.keys(e).join(',')}`;
    assert.deepEqual(events.filter((e) => e.event !== 'session').map(fields), [
      'held A: session_id,tool_use_id,tool_name,transcript_path,agent_id,event,at,transport,timeout_ms',
      'written A: session_id,tool_use_id,tool_name,transcript_path,agent_id,event,transport,at,line,generation,record_at,fired_at,lag_ms,with_result,shape,message_id,block_index,claude_version,record,batch_first_line,batch_last_line',
      'result A: session_id,tool_use_id,tool_name,transcript_path,agent_id,event,at,line,with_result',
      'written B: session_id,tool_use_id,tool_name,transcript_path,event,at,line,generation,record_at,fired_at,lag_ms,with_result,shape,record,batch_first_line,batch_last_line',
      'joined B: session_id,tool_use_id,tool_name,transcript_path,event,at,fired_at,lag_ms,transport',
      'wait C: session_id,tool_use_id,transcript_path,event,at,outcome,polls,waited_ms,bytes_on_disk,source,claude_version',
      'post C: session_id,tool_use_id,transcript_path,event,at',
      'held D: session_id,tool_use_id,tool_name,transcript_path,event,at,transport,timeout_ms',
      'post E: session_id,tool_use_id,transcript_path,event,at',
      'hooks E: session_id,tool_use_id,tool_name,transcript_path,event,at,hooks_ms,hooks_decision',
      'written E: session_id,tool_use_id,tool_name,transcript_path,event,at,line,generation,record_at,fired_at,lag_ms,with_result,shape,record,hooks_ms,hooks_decision,batch_first_line,batch_last_line',
      'held F: session_id,tool_use_id,tool_name,transcript_path,event,at,transport',
      'written F: session_id,tool_use_id,tool_name,transcript_path,event,transport,at,line,generation,record_at,fired_at,lag_ms,with_result,shape,record,batch_first_line,batch_last_line',
      'revised F: session_id,tool_use_id,tool_name,transcript_path,event,at,fired_at,lag_bounds,shape',
    ]);
    assert.deepEqual(c.heldEvents(SESSION).map(fields), ['held D: session_id,tool_use_id,tool_name,transcript_path,event,at,transport,timeout_ms']);
  });
});
