// A throwaway HOME for one real Claude Code run: onboarding done, the stand-in's key approved, the
// work folder trusted, tools allowed, and the hooks of the scenario in ~/.claude/settings.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseJsonc } from 'jsonc-parser';

const here = path.dirname(fileURLToPath(import.meta.url));
export const EVENT_LOG_HOOK = path.join(here, 'eventLogHook.mjs');

// Any key works against the stand-in; the CLI asks to approve a custom key by its last 20 characters.
export const FIELD_API_KEY = 'sk-ant-api03-field-test-0000000000000000000000000000000000';

export function makeSandbox(name) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `tl-field-${name}-`));
  const home = path.join(root, 'home');
  const claudeDir = path.join(home, '.claude');
  const work = path.join(root, 'work');
  fs.mkdirSync(claudeDir, { recursive: true });
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(path.join(work, 'notes.txt'), 'field test file\n');
  fs.writeFileSync(
    path.join(home, '.claude.json'),
    JSON.stringify(
      {
        hasCompletedOnboarding: true,
        lastOnboardingVersion: '2.1.332',
        customApiKeyResponses: { approved: [FIELD_API_KEY.slice(-20)], rejected: [] },
        projects: { [work]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
      },
      null,
      2,
    ),
  );
  return {
    root,
    home,
    claudeDir,
    work,
    apiLog: path.join(root, 'api.log'),
    eventLog: path.join(root, 'events.log'),
    settingsFile: path.join(claudeDir, 'settings.json'),
  };
}

/**
 * Adds the field test's own hooks to whatever settings.json holds (the project's install-hook may
 * have written it first): the ground-truth event logger on PreToolUse/PostToolUse, and, when asked,
 * a slow second PreToolUse hook (a reviewing hook that takes its time). With `slowHookLog`, the slow
 * hook appends its own start and end (ms since epoch, GNU date) and its call's id there, one JSON
 * line per run: `{"id","start","end"}`.
 */
export function addFieldSettings(sb, { slowHookMs = 0, reviewer, slowHookLog }) {
  let settings = {};
  if (fs.existsSync(sb.settingsFile)) settings = parseJsonc(fs.readFileSync(sb.settingsFile, 'utf8')) ?? {};
  settings.permissions = settings.permissions ?? {};
  settings.permissions.allow = [...new Set([...(settings.permissions.allow ?? []), 'Bash', 'Read'])];
  settings.hooks = settings.hooks ?? {};
  const logCmd = `node ${JSON.stringify(EVENT_LOG_HOOK)} ${JSON.stringify(sb.eventLog)}`;
  const pre = [{ type: 'command', command: logCmd }];
  if (reviewer) pre.push({ type: 'command', command: reviewer, timeout: 10 });
  const sleep = `sleep ${(slowHookMs / 1000).toFixed(3)}`;
  const timed = (log) =>
    `s=$(date +%s%3N); id=$(sed -n 's/.*"tool_use_id" *: *"\\([^"]*\\)".*/\\1/p' | head -n 1); ${sleep}; e=$(date +%s%3N); ` +
    `printf '{"id":"%s","start":%s,"end":%s}\\n' "$id" "$s" "$e" >> ${JSON.stringify(slowHookLog)}`;
  if (slowHookMs > 0) pre.push({ type: 'command', command: slowHookLog ? timed(slowHookLog) : sleep, timeout: 30 });
  settings.hooks.PreToolUse = [...(settings.hooks.PreToolUse ?? []), { matcher: '*', hooks: pre }];
  settings.hooks.PostToolUse = [
    ...(settings.hooks.PostToolUse ?? []),
    { matcher: '*', hooks: [{ type: 'command', command: logCmd }] },
  ];
  fs.writeFileSync(sb.settingsFile, JSON.stringify(settings, null, 2));
  return settings;
}

/** The CLI's environment: nothing from ours but PATH and locale, only loopback, no telemetry. */
export function claudeEnv(sb, apiUrl) {
  return {
    PATH: process.env.PATH,
    LANG: process.env.LANG ?? 'C.UTF-8',
    HOME: sb.home,
    TERM: 'xterm-256color',
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: FIELD_API_KEY,
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    NO_PROXY: '127.0.0.1,localhost',
  };
}

export function readJsonl(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}
