import * as vscode from 'vscode';
import { samplesToCsv, samplesToJson } from '../presentation/exportRows';
import type { LagSample } from '../presentation/lagSamples';

/**
 * Export Lag Samples: every call seen since the extension started, as CSV or
 * JSON, chosen by the file name in the save dialog. A test (or a keybinding)
 * may pass the target instead: a Uri or a path.
 */
export async function exportLagSamples(
  samples: LagSample[],
  now: number,
  log: vscode.LogOutputChannel,
  target?: vscode.Uri | string,
): Promise<vscode.Uri | undefined> {
  let uri = typeof target === 'string' ? vscode.Uri.file(target) : target;
  if (!uri) {
    if (samples.length === 0) {
      void vscode.window.showInformationMessage('Transcript Lag: no calls seen yet, nothing to export.');
      return undefined;
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const stamp = new Date(now).toISOString().slice(0, 19).replace(/[:T]/g, '-');
    const name = `transcript-lag-samples-${stamp}.csv`;
    uri = await vscode.window.showSaveDialog({
      title: 'Export Lag Samples',
      defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
      filters: { CSV: ['csv'], JSON: ['json'] },
      saveLabel: 'Export',
    });
    if (!uri) return undefined;
  }
  const asJson = uri.path.toLowerCase().endsWith('.json');
  const text = asJson ? samplesToJson(samples, now) : samplesToCsv(samples);
  await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
  log.info(`Exported ${samples.length} lag samples to ${uri.fsPath} (${asJson ? 'JSON' : 'CSV'})`);
  if (!target) {
    const open = 'Open';
    void vscode.window.showInformationMessage(`Exported ${samples.length} lag samples.`, open).then((pick) => {
      if (pick === open) void vscode.window.showTextDocument(uri as vscode.Uri);
    });
  }
  return uri;
}
