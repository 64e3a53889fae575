#!/bin/sh
# review.sh: a PreToolUse hook that reviews a call by the message that makes it, which the transcript
# does not hold yet while the hook runs. It asks transcript-lag's message tool (kept by the plugin at
# <claude dir>/transcript-lag/bin/) and blocks the call (exit 2: stderr goes back to Claude) when the
# message gives no reason for it, or when the message cannot be known. Needs node and jq.
tool="${CLAUDE_CONFIG_DIR:-$HOME/.claude}/transcript-lag/bin/transcript-lag-message.js"
msg=$(node "$tool" --json 2>/dev/null)   # reads this hook's stdin, the PreToolUse JSON
from=$(printf '%s' "$msg" | jq -r 'if type == "object" and has("source") then .source // "none" else empty end' 2>/dev/null)
if [ -z "$from" ]; then
  echo "This call needs a review, and transcript-lag's message tool gave no answer ($tool: is node on PATH? has a session with the transcript-lag plugin started?)." >&2
  exit 2
fi
if [ "$from" = none ]; then
  if [ "$(printf '%s' "$msg" | jq -r '.mod')" != true ]; then
    echo "This call needs a review of its message, and the transcript-lag mod is not running in this session to hand it over: install the transcript-lag plugin (claude plugin install transcript-lag@transcript-lag; its mod hands a hook the message on Claude Code 2.1.286+) and start a new session." >&2
  else
    echo "This call needs a review, and its message is not known: $(printf '%s' "$msg" | jq -r '.reason')." >&2
  fi
  exit 2
fi
if [ "$(printf '%s' "$msg" | jq '.text_blocks | length')" = 0 ]; then
  echo "Say what this call is for before you make it." >&2
  exit 2
fi
