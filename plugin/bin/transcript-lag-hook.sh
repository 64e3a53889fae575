#!/bin/sh
# The transcript-lag plugin's hook: runs hook.js (the committed build of src/hook/) with a Node
# runtime. Claude Code is a native binary and brings none, so this looks, in order, for:
#   1. $TRANSCRIPT_LAG_NODE, an absolute path you set (e.g. in settings.json "env");
#   2. `node` on PATH;
#   3. the Node that VS Code Server ships (Remote SSH, WSL, Dev Containers), newest first.
# With none of them it exits 0 and reports nothing: a hook must never stand in a tool call's way.
# Announce mode only; stdin (the hook JSON) passes straight through `exec`.
hook="$(dirname "$0")/hook.js"
for n in "$TRANSCRIPT_LAG_NODE" "$(command -v node 2>/dev/null)"; do
  if [ -n "$n" ] && [ -x "$n" ]; then exec "$n" "$hook" --plugin; fi
done
for n in $(ls -t "$HOME"/.vscode-server/cli/servers/*/server/node "$HOME"/.vscode-server/bin/*/node 2>/dev/null); do
  if [ -x "$n" ]; then exec "$n" "$hook" --plugin; fi
done
exit 0
