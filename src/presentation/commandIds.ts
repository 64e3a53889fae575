/**
 * Command, view and setting ids, in one place so package.json, the views, the
 * tooltip's command links and the tests agree. Kept free of `vscode` so pure
 * code can name them.
 */
export const COMMANDS = {
  installHook: 'transcriptLag.installHook',
  installHookProbe: 'transcriptLag.installHookProbe',
  uninstallHook: 'transcriptLag.uninstallHook',
  wrapHooks: 'transcriptLag.wrapHooks',
  unwrapHooks: 'transcriptLag.unwrapHooks',
  openHeldLine: 'transcriptLag.openHeldLine',
  showReport: 'transcriptLag.showReport',
  exportSamples: 'transcriptLag.exportSamples',
  showLog: 'transcriptLag.showLog',
  copyToolUseId: 'transcriptLag.copyToolUseId',
  openTranscript: 'transcriptLag.openTranscript',
  openCall: 'transcriptLag.openCall',
  replayHook: 'transcriptLag.replayHook',
} as const;

export const VIEW_CONTAINER_ID = 'transcriptLag';
export const TREE_VIEW_ID = 'transcriptLag.sessions';
export const REPORT_VIEW_TYPE = 'transcriptLag.report';
export const REPLAY_VIEW_TYPE = 'transcriptLag.replay';
export const CONFIG_SECTION = 'transcriptLag';

/** Command ids the tooltip may link to: the MarkdownString trusts exactly these. */
export const TOOLTIP_COMMANDS: readonly string[] = [COMMANDS.openHeldLine, COMMANDS.showReport, COMMANDS.showLog, COMMANDS.installHook];
