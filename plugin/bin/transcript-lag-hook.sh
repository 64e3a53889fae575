#!/bin/sh
# The transcript-lag plugin's hook: runs hook.js (the committed build of src/hook/) with a Node
# runtime. Claude Code is a native binary and brings none, so this looks, in order, for:
#   1. $TRANSCRIPT_LAG_NODE, an absolute path you set (e.g. in settings.json "env");
#   2. `node` on PATH;
#   3. where macOS installs put it, since hooks run without the login shell's PATH: Homebrew's
#      /opt/homebrew/bin (Apple silicon) and /usr/local/bin (Intel, and the nodejs.org installer),
#      then the newest nvm, volta and fnm installs (newest installed first: the last one `nvm
#      install`ed, not the alias you chose);
#   4. the Node that VS Code Server ships (Remote SSH, WSL, Dev Containers), newest first.
# It always exits 0, whatever the runtime found does: a hook must never stand in a tool call's way.
# With none it reports nothing. Announce mode only; stdin (the hook JSON) passes through to Node, and
# so do this script's arguments (the SessionStart entry's --install-message-tool).
hook="$(dirname "$0")/hook.js"

# A regular executable file: a folder is "executable" too, and running one fails with 126.
runnable() {
  [ -n "$1" ] && [ -f "$1" ] && [ -x "$1" ]
}

for n in "$TRANSCRIPT_LAG_NODE" "$(command -v node 2>/dev/null)"; do
  if runnable "$n"; then
    "$n" "$hook" --plugin "$@"
    exit 0
  fi
done

# Newest first, one path a line: split on newlines only and never globbed again, so a HOME
# with spaces (or glob characters) in it stays one path. A glob that matches nothing stays a
# pattern, which ls drops (2>/dev/null) and runnable refuses.
managers=$(ls -td "${NVM_DIR:-$HOME/.nvm}"/versions/node/*/bin/node \
  "${VOLTA_HOME:-$HOME/.volta}"/tools/image/node/*/bin/node \
  "${FNM_DIR:-$HOME/.local/share/fnm}"/node-versions/*/installation/bin/node \
  "$HOME/Library/Application Support/fnm"/node-versions/*/installation/bin/node 2>/dev/null)
servers=$(ls -td "$HOME"/.vscode-server/cli/servers/*/server/node "$HOME"/.vscode-server/bin/*/node 2>/dev/null)
IFS='
'
set -f
for n in /opt/homebrew/bin/node /usr/local/bin/node $managers $servers; do
  if runnable "$n"; then
    "$n" "$hook" --plugin "$@"
    exit 0
  fi
done
exit 0
