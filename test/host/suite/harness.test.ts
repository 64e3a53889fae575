// The harness itself: we really are inside a VS Code extension host, with our
// extension under development loaded from the repo.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { EXTENSION_ID } from './hostEnv';

describe('host harness', () => {
  it('runs inside a VS Code extension host of a supported version', () => {
    const [major, minor] = vscode.version.split('.').map(Number);
    assert.equal(major, 1);
    // package.json engines.vscode is ^1.90.0
    assert.ok(minor >= 90, `VS Code ${vscode.version} is older than the supported 1.90`);
  });

  it('has our extension loaded from the development path', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} not found among ${vscode.extensions.all.length} extensions`);
    assert.equal(ext.packageJSON.name, 'transcript-lag');
  });

  it('opened the test workspace folder', () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.equal(folders.length, 1);
    assert.equal(folders[0].uri.scheme, 'file');
  });
});
