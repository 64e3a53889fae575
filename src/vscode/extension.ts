import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EngineEvent } from '../core/engineEvents';
import { nodeFileAccess } from '../platform/nodeFileAccess';
import { systemClock } from '../platform/systemClock';
import { createCoalescer, DEFAULT_REFRESH_INTERVAL_MS } from '../presentation/coalesce';
import { COMMANDS } from '../presentation/commandIds';
import { LagSampleStore } from '../presentation/lagSamples';
import { registerCommands } from './commands';
import { EngineHost } from './engineHost';
import { HeldCallsTree } from './heldCallsTree';
import { hookInstallerPort } from './hookInstallerPort';
import { createLog, logEvent } from './log';
import { SessionReport } from './sessionReport';
import { ReplayHookCommand } from './replayCommand';
import { ReplayPanel } from './replayPanel';
import { registerPanelRestore } from './panelRestore';
import { Revealer } from './reveal';
import { onSettingsChanged, readSettings, claudeDirOfSetting, workspaceFolderPaths } from './settings';
import { HttpHookReceiver } from './httpHookReceiver';
import { MetricsEndpoint } from './metricsEndpoint';
import { StatusBar } from './statusBar';
import type * as EngineModule from './engineModule';
import type { TranscriptLagApi } from './testApi';

/**
 * The engine, zod and chokidar live in their own bundle next to this one
 * (dist/engine.js, from engineModule.ts), required only once there is a Claude
 * dir: with none, activation never parses them. The path is computed so the
 * bundler leaves this require alone.
 */
function loadEngineModule(): typeof EngineModule {
  const bundle = path.join(__dirname, 'engine.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(bundle) as typeof EngineModule;
}

/** Held ages (status bar, tree, decoration) tick at this rate while anything is held. */
const AGE_TICK_MS = 500;
const REPORT_REFRESH_INTERVAL_MS = 1000;

/**
 * Composition root: builds the engine and the views and wires them together.
 * Nothing else here: each contribution lives in its own file.
 * Returns the test API (see testApi.ts).
 */
export function activate(context: vscode.ExtensionContext): TranscriptLagApi {
  const log = createLog();
  const clock = systemClock;
  const now = clock.now;
  let settings = readSettings();
  const samples = new LagSampleStore();

  // Views render through one coalescer: a burst of engine events costs ~10 renders a second at most.
  const views = createCoalescer(() => render(), DEFAULT_REFRESH_INTERVAL_MS, clock);
  const host = new EngineHost(
    {
      log,
      files: nodeFileAccess,
      clock,
      // removeFile lets the engine prune week-old channel files; spool folds the mod's spooled events into the channel;
      // measured keeps the lags it measures in the channel, so a reload or a new window reads them back.
      createEngine: async (opts) => {
        const engineModule = loadEngineModule();
        return new engineModule.TranscriptLagEngine({
          ...opts,
          removeFile: (p) => fsp.rm(p, { force: true }),
          spool: engineModule.nodeSpoolFolding,
          measured: engineModule.nodeMeasuredKeeping,
        });
      },
      createChangeSource: async (onReady) => loadEngineModule().chokidarChangeSource({ onReady }),
      claudeDirOfSetting: (setting) => claudeDirOfSetting(setting),
      workspaceFolders: workspaceFolderPaths,
      onEvent: (e: EngineEvent) => {
        metrics.observe(e);
        samples.add(e);
        logEvent(log, e);
        views.request();
      },
      onChanged: () => views.request(),
    },
    settings,
  );

  const sessions = () => host.sessions();
  const metrics = new MetricsEndpoint(log, sessions);
  void metrics.apply(settings);
  const httpHooks = new HttpHookReceiver(
    () => host.currentClaudeDir() || claudeDirOfSetting(settings.claudeDir),
    (dir, onStatus) => {
      const mod = loadEngineModule();
      return new mod.HookReceiverService(dir, now, (s) => onStatus(mod.receiverStatusText(s)), { onWarning: onStatus });
    },
    log,
  );
  httpHooks.start();
  const session = (id: string) => host.session(id);
  const statusBar = new StatusBar(sessions, () => settings.warnAfterMs, now);
  const tree = new HeldCallsTree(sessions, now);
  const revealer = new Revealer(session, now, log);
  const report = new SessionReport(context.extensionUri, session, (id) => samples.samples(id), now, async (s, line, transcriptPath) => {
    await revealer.reveal({ session_id: s.session_id, tool_use_id: '', transcript_path: transcriptPath, line, held: false });
  }, sessions, () => host.historyIndexed());

  // Replay Hook on Session…: the CLI's replay, loaded with the engine's bundle when it runs.
  const replayPanel = new ReplayPanel(context.extensionUri);
  const replayHook = new ReplayHookCommand({
    sessions,
    session,
    now,
    claudeDir: () => host.currentClaudeDir() || claudeDirOfSetting(settings.claudeDir),
    replay: loadEngineModule,
    panel: replayPanel,
    log,
    files: nodeFileAccess,
    clock,
  });

  // The report posts its whole table: once a second is live enough and keeps a long session cheap.
  const reportUpdates = createCoalescer(() => report.refresh(), REPORT_REFRESH_INTERVAL_MS, clock);

  let ageTimer: ReturnType<typeof setInterval> | undefined;
  function render(): void {
    for (const s of host.sessions()) samples.absorb(s);
    statusBar.render();
    tree.refresh();
    revealer.refresh();
    if (report.isOpen()) reportUpdates.request();
    const ticking = statusBar.ticking() || revealer.trackingHeld();
    if (ticking && !ageTimer) ageTimer = setInterval(() => views.request(), AGE_TICK_MS);
    if (!ticking && ageTimer) {
      clearInterval(ageTimer);
      ageTimer = undefined;
    }
  }

  context.subscriptions.push(
    log,
    host,
    metrics,
    httpHooks,
    statusBar,
    tree,
    revealer,
    report,
    replayPanel,
    replayHook,
    ...registerPanelRestore(report, replayPanel),
    vscode.commands.registerCommand(COMMANDS.replayHook, (arg?: unknown) => replayHook.run(arg)),
    { dispose: () => views.dispose() },
    { dispose: () => reportUpdates.dispose() },
    { dispose: () => ageTimer && clearInterval(ageTimer) },
    ...registerCommands({
      sessions,
      session,
      samples: () => samples.samples(),
      now,
      revealer,
      report,
      log,
      hook: {
        installer: hookInstallerPort(loadEngineModule),
        // Installing may have just created the Claude dir: follow it now rather than at the next poll.
        afterInstall: () => void host.start(),
        claudeDir: () => claudeDirOfSetting(settings.claudeDir),
        hookSource: context.asAbsolutePath('dist/hook.js'),
        wrapperSource: context.asAbsolutePath('dist/cli-complete.js'),
        probeSettings: () => ({ polls: settings.probePolls, pollMs: settings.probePollMs }),
        log,
      },
    }),
    onSettingsChanged((next) => {
      settings = next;
      log.info('Settings changed; applying');
      void host.applySettings(next);
      void metrics.apply(next);
      void httpHooks.refresh();
      views.request();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void host.workspaceFoldersChanged()),
  );

  // Not awaited: activation returns at once; with no Claude dir this is one stat.
  void host.start();
  stopEngine = () => host.stop();

  return {
    engine: () => host.current(),
    httpHooks: () => httpHooks.state(),
    metricsAddress: () => metrics.address,
    claudeDir: () => host.currentClaudeDir() || claudeDirOfSetting(settings.claudeDir),
    statusBarText: () => statusBar.state()?.text,
    statusBarBackground: () => statusBar.state()?.background,
    statusBarTooltip: () => statusBar.state()?.tooltip,
    statusView: () => statusBar.state(),
    treeItems: () => tree.nodes(),
    treeVisible: () => tree.visible(),
    renderedTreeItems: () => tree.renderedItems(),
    badge: () => tree.badge(),
    badgeTooltip: () => tree.badgeTooltip(),
    statusBarAccessibilityLabel: () => statusBar.accessibilityLabel(),
    lastReveal: () => revealer.lastReveal(),
    samples: () => samples.samples(),
    reportData: () => report.lastData(),
    reportKept: () => report.keptSessionId(),
    replayView: () => replayPanel.lastView(),
    cancelReplay: () => replayHook.cancel(),
    hookPicker: () => {
      const picker = replayHook.openPicker();
      return (
        picker && {
          items: () => picker.items.map((i) => i.label),
          placeholder: () => picker.placeholder ?? '',
          type: (text: string) => {
            picker.value = text;
          },
        }
      );
    },
    refresh: async () => {
      await host.tick();
      render();
      reportUpdates.flush();
    },
  };
}

/** Set by activate: closes the engine's file watchers before the host goes away. */
let stopEngine: (() => Promise<void>) | undefined;

export function deactivate(): Promise<void> | undefined {
  // The views are in context.subscriptions; the engine is awaited here so its watchers close cleanly.
  return stopEngine?.();
}
