import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { resolveClaudeDir } from '../core/discovery';
import { CONFIG_SECTION } from '../presentation/commandIds';

/** The `transcriptLag.*` settings, read fresh on each change (applied without reload). */
export interface ExtensionSettings {
  /** As the user wrote it; '' when unset. */
  claudeDir: string;
  sessions: 'workspace' | 'all';
  warnAfterMs: number;
  probePolls: number;
  probePollMs: number;
  recentCalls: number;
  /** Days a session's channel file is kept after its last event; 0 keeps them forever. */
  channelRetentionDays: number;
  /** Port of the Prometheus endpoint; 0: off. */
  metricsPort: number;
  metricsHost: string;
}

function nonNegative(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback;
}

export function readSettings(): ExtensionSettings {
  const c = vscode.workspace.getConfiguration(CONFIG_SECTION);
  const sessions = c.get<string>('sessions');
  return {
    claudeDir: (c.get<string>('claudeDir') ?? '').trim(),
    sessions: sessions === 'all' ? 'all' : 'workspace',
    warnAfterMs: nonNegative(c.get('warnAfterMs'), 2000),
    probePolls: Math.max(1, Math.round(nonNegative(c.get('probe.polls'), 50))),
    probePollMs: Math.max(10, Math.round(nonNegative(c.get('probe.pollMs'), 100))),
    recentCalls: Math.max(1, Math.round(nonNegative(c.get('recentCalls'), 20))),
    channelRetentionDays: nonNegative(c.get('channelRetentionDays'), 7),
    metricsPort: Math.min(65_535, Math.round(nonNegative(c.get('metrics.port'), 0))),
    metricsHost: (c.get<string>('metrics.host') ?? '').trim() || '127.0.0.1',
  };
}

/**
 * The Claude dir: the setting, else `$CLAUDE_CONFIG_DIR`, else `~/.claude`
 * (the same order Claude Code and the CLI use). `~` in the setting is expanded
 * because users copy paths from shell docs.
 */
export function claudeDirOfSetting(setting: string, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  if (!setting) return resolveClaudeDir(env, home);
  const expanded = setting === '~' ? home : setting.startsWith('~/') || setting.startsWith('~\\') ? path.join(home, setting.slice(2)) : setting;
  return path.resolve(expanded);
}

/** Calls back with the new settings whenever a `transcriptLag.*` setting changes. */
export function onSettingsChanged(listener: (next: ExtensionSettings) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(CONFIG_SECTION)) listener(readSettings());
  });
}

export function workspaceFolderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}
