import * as vscode from 'vscode';
import { REPLAY_VIEW_TYPE, REPORT_VIEW_TYPE } from '../presentation/commandIds';
import type { ReplayPanel } from './replayPanel';
import type { SessionReport } from './sessionReport';

/**
 * The report and replay tabs come back after a reload: VS Code keeps an open webview tab whose type
 * has a serializer and hands it back with the state its page kept (package.json activates the
 * extension for it: `onWebviewPanel:<type>`). The report draws again from the engine; a replay's tab
 * shows what that replay said.
 */
export function registerPanelRestore(report: SessionReport, replay: ReplayPanel): vscode.Disposable[] {
  return [
    vscode.window.registerWebviewPanelSerializer(REPORT_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, state) => report.restore(panel, state),
    }),
    vscode.window.registerWebviewPanelSerializer(REPLAY_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, state) => replay.restore(panel, state),
    }),
  ];
}
