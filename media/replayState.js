// The replay tab's only script, run under a CSP that allows it alone (by nonce). It draws nothing:
// the table is the page's HTML. It keeps what the replay said in the tab's state, so that after a
// reload VS Code hands it back and the tab shows the same table (src/vscode/replayPanel.ts restore).
// @ts-check
(function () {
  const vscode = acquireVsCodeApi();
  window.addEventListener('message', (ev) => {
    const m = ev.data;
    if (m && m.type === 'state' && typeof m.data === 'object' && m.data !== null) {
      vscode.setState(m.data);
      vscode.postMessage({ type: 'kept' });
    }
  });
  vscode.postMessage({ type: 'ready' });
})();
