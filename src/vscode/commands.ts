import * as vscode from 'vscode';
import type { SessionSnapshot } from '../core/snapshot';
import { focusCall, revealTargetFor, statusClickTarget, type RevealTarget } from '../presentation/callChoice';
import { COMMANDS } from '../presentation/commandIds';
import type { LagSample } from '../presentation/lagSamples';
import { sessionPickItems } from '../presentation/sessionLabel';
import type { TreeNodeView } from '../presentation/treeModel';
import { exportLagSamples } from './export';
import { installHookCommand, uninstallHookCommand, wrapHooksCommand, type HookCommandDeps } from './hookCommands';
import type { Revealer } from './reveal';
import type { SessionReport } from './sessionReport';

export interface CommandDeps {
  sessions(): SessionSnapshot[];
  session(id: string): SessionSnapshot | undefined;
  samples(): LagSample[];
  now(): number;
  revealer: Revealer;
  report: SessionReport;
  log: vscode.LogOutputChannel;
  hook: HookCommandDeps;
}

/** A session to act on: the given one, the only one, or the user's pick. */
async function chooseSession(deps: CommandDeps, sessionId?: string): Promise<SessionSnapshot | undefined> {
  if (sessionId) return deps.session(sessionId);
  const sessions = deps.sessions();
  if (sessions.length <= 1) return sessions[0];
  const pick = await vscode.window.showQuickPick(sessionPickItems(sessions, deps.now()), {
    title: 'Transcript Lag: choose a session',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return pick ? deps.session(pick.session_id) : undefined;
}

function noSession(): undefined {
  void vscode.window.showInformationMessage('Transcript Lag: no active Claude Code session in this workspace yet.');
  return undefined;
}

/** Tree items pass their node; the status bar and the palette pass nothing; tests may pass a RevealTarget. */
function targetOf(arg: unknown, deps: CommandDeps): RevealTarget | undefined {
  if (arg && typeof arg === 'object' && 'transcript_path' in arg) return arg as RevealTarget;
  if (arg && typeof arg === 'object' && 'target' in arg) return (arg as TreeNodeView).target;
  return statusClickTarget(deps.sessions());
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const reg = (id: string, fn: (...args: any[]) => unknown) => vscode.commands.registerCommand(id, fn);
  return [
    reg(COMMANDS.openHeldLine, async (arg?: unknown) => {
      const target = targetOf(arg, deps);
      return target ? deps.revealer.reveal(target) : noSession();
    }),
    reg(COMMANDS.openCall, async (target: RevealTarget) => deps.revealer.reveal(target)),
    reg(COMMANDS.openTranscript, async (node?: TreeNodeView) => {
      const s = await chooseSession(deps, node?.session_id);
      if (!s) return noSession();
      const target = node?.target ?? (focusCall(s) ? revealTargetFor(s, focusCall(s)!) : undefined);
      if (target) return deps.revealer.reveal(target);
      await vscode.window.showTextDocument(vscode.Uri.file(s.transcript_path), { preview: true });
      return undefined;
    }),
    reg(COMMANDS.copyToolUseId, async (node?: TreeNodeView) => {
      if (!node?.tool_use_id) return;
      await vscode.env.clipboard.writeText(node.tool_use_id);
      vscode.window.setStatusBarMessage(`Copied ${node.tool_use_id}`, 2000);
    }),
    reg(COMMANDS.showReport, async (arg?: string | TreeNodeView) => {
      const sessionId = typeof arg === 'string' ? arg : arg?.session_id;
      const s = await chooseSession(deps, sessionId);
      if (!s) return noSession();
      deps.report.show(s.session_id);
      return s.session_id;
    }),
    reg(COMMANDS.exportSamples, async (target?: vscode.Uri | string) => exportLagSamples(deps.samples(), deps.now(), deps.log, target)),
    reg(COMMANDS.showLog, () => deps.log.show(true)),
    reg(COMMANDS.installHook, () => installHookCommand(deps.hook, false)),
    reg(COMMANDS.installHookProbe, () => installHookCommand(deps.hook, true)),
    reg(COMMANDS.uninstallHook, () => uninstallHookCommand(deps.hook)),
    reg(COMMANDS.wrapHooks, () => wrapHooksCommand(deps.hook, true)),
    reg(COMMANDS.unwrapHooks, () => wrapHooksCommand(deps.hook, false)),
  ];
}
