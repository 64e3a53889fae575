#!/bin/sh
# A PreToolUse hook that polls the transcript for its own tool_use every 50 ms, up to 30 times (1.5 s),
# and blocks its call (exit 2) when it never finds it: the polling hook of the hook lab's field check
# (issue 38). It appends what it saw to $1: {hook, id, start, read_at (the look that decided), found, bytes, polls}.
start=$(date +%s%3N)
in=$(cat)
tp=$(printf '%s' "$in" | sed -n 's/.*"transcript_path" *: *"\([^"]*\)".*/\1/p' | head -n 1)
id=$(printf '%s' "$in" | sed -n 's/.*"tool_use_id" *: *"\([^"]*\)".*/\1/p' | head -n 1)
found=false
polls=0
while [ "$polls" -lt 30 ]; do
  polls=$((polls + 1))
  if grep -q "\"id\":\"$id\"" "$tp" 2>/dev/null; then found=true; break; fi
  [ "$polls" -lt 30 ] && sleep 0.05
done
read_at=$(date +%s%3N)
bytes=$(wc -c < "$tp" 2>/dev/null || echo 0)
printf '{"hook":"poll.sh","id":"%s","start":%s,"read_at":%s,"found":%s,"bytes":%s,"polls":%s}\n' "$id" "$start" "$read_at" "$found" "$bytes" "$polls" >> "$1"
if [ "$found" = true ]; then exit 0; fi
echo "my call $id is not in the transcript after $polls looks" >&2
exit 2
