#!/bin/sh
# A PreToolUse hook that reads the transcript once, as soon as it starts, and blocks its call (exit 2)
# when its own tool_use is not there: the fast shell hook of the hook lab's field check (issue 38).
# It appends what it saw to $1, one JSON line: {hook, id, start, read_at, found, bytes} (ms since epoch).
start=$(date +%s%3N)
in=$(cat)
tp=$(printf '%s' "$in" | sed -n 's/.*"transcript_path" *: *"\([^"]*\)".*/\1/p' | head -n 1)
id=$(printf '%s' "$in" | sed -n 's/.*"tool_use_id" *: *"\([^"]*\)".*/\1/p' | head -n 1)
bytes=$(wc -c < "$tp" 2>/dev/null || echo 0)
if grep -q "\"id\":\"$id\"" "$tp" 2>/dev/null; then found=true; else found=false; fi
read_at=$(date +%s%3N)
printf '{"hook":"once.sh","id":"%s","start":%s,"read_at":%s,"found":%s,"bytes":%s}\n' "$id" "$start" "$read_at" "$found" "$bytes" >> "$1"
if [ "$found" = true ]; then exit 0; fi
echo "my call $id is not in the transcript" >&2
exit 2
