#!/usr/bin/env python3
"""The field check of `transcript-lag complete` (issue 39 §5): an unchanged once-reading PreToolUse hook put
behind the wrapper. At its start it reads, once, the file that holds its call's record (the transcript it
is given, or for a subagent's call that subagent's own file beside it, as a hook that knows them does) and
blocks (exit 2) when its own tool_use is not there. It appends what it saw to argv[1], one JSON line:
{hook, id, start, read_at, found, bytes, transcript_path, complete ($TRANSCRIPT_LAG_COMPLETE),
records_with_id (lines that hold its call: one, or the copy wrote it twice), held (the records marked
"transcriptLag":"held", whole), twice (the uuids of held records that another line holds too)}."""
import json, os, sys, time

start = time.time() * 1000
hook = json.loads(sys.stdin.read())
path, tid = hook["transcript_path"], hook["tool_use_id"]
if hook.get("agent_id"):
    path = os.path.join(os.path.dirname(path), hook["session_id"], "subagents", "agent-%s.jsonl" % hook["agent_id"])
try:
    with open(path, "rb") as f:
        data = f.read()
except OSError:
    data = b""
needle = ('"id":"%s"' % tid).encode()
lines = data.split(b"\n")
found = needle in data
read_at = time.time() * 1000
held = []
for line in lines:
    if b'"transcriptLag":"held"' in line:
        try:
            held.append(json.loads(line))
        except ValueError:
            held.append({"unparsed": line[:200].decode("utf-8", "replace")})
twice = [h["uuid"] for h in held if isinstance(h.get("uuid"), str) and sum(1 for l in lines if ('"uuid":"%s"' % h["uuid"]).encode() in l) > 1]
with open(sys.argv[1], "a") as log:
    log.write(json.dumps({
        "hook": "heldSeen.py", "id": tid, "start": round(start), "read_at": round(read_at), "found": found, "bytes": len(data),
        "transcript_path": hook["transcript_path"], "agent_id": hook.get("agent_id"), "complete": os.environ.get("TRANSCRIPT_LAG_COMPLETE"),
        "records_with_id": sum(1 for l in lines if needle in l), "held": held, "twice": twice,
    }) + "\n")
if not found:
    print("my call %s is not in the transcript" % tid, file=sys.stderr)
    sys.exit(2)
