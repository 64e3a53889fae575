import type { MeasuredKeeping } from '../core/engine';
import { appendChannelLines } from '../rules/channelWriter';

/**
 * Where an engine keeps what it measured (its `measured` events, src/core/correlator/measured.ts): the
 * session's channel file, appended as the hook appends (one write for the lines, O_APPEND, a file that
 * is not ours refused), so a line of ours never splits a hook's and the channel stays private (0600
 * in a 0700 folder). The window and `watch` pass it; `analyze` and the terminal demo do not.
 */
export const nodeMeasuredKeeping: MeasuredKeeping = {
  append: async (channelDir, sessionId, events) => appendChannelLines(channelDir, sessionId, events),
};
