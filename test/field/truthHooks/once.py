#!/usr/bin/env python3
"""A PreToolUse hook that reads the transcript once, as soon as Python has started, and blocks its call
(exit 2) when its own tool_use is not there: the slow hook of the hook lab's field check (issue 38),
~100-250 ms to start. It appends what it saw to argv[1]: {hook, id, start, read_at, found, bytes}."""
import json, sys, time

start = time.time() * 1000
hook = json.loads(sys.stdin.read())
path, tid = hook["transcript_path"], hook["tool_use_id"]
try:
    with open(path, "rb") as f:
        data = f.read()
except OSError:
    data = b""
found = ('"id":"%s"' % tid).encode() in data
read_at = time.time() * 1000
with open(sys.argv[1], "a") as log:
    log.write(json.dumps({"hook": "once.py", "id": tid, "start": round(start), "read_at": round(read_at), "found": found, "bytes": len(data)}) + "\n")
if not found:
    print("my call %s is not in the transcript" % tid, file=sys.stderr)
    sys.exit(2)
