#!/usr/bin/env python3
"""review.py: a PreToolUse hook that reviews a call by the message that makes it, which the transcript
does not hold yet while the hook runs. It reads the message the transcript-lag mod holds for the call
by its file contract (docs/HELD-MESSAGE.md), so it needs no Node for that; else it asks transcript-lag's
message tool (the transcript, once the call's record is on disk; whether the mod runs). It blocks the
call (exit 2: stderr goes back to Claude) when the message gives no reason for it, or when the message
cannot be known: no held message and no answer from the tool (no node, a timeout) included."""
import json, os, re, stat, subprocess, sys, time

INSTALL = ("This call needs a review of its message, and the transcript-lag mod is not running in this session to hand it over: "
           "install the transcript-lag plugin (claude plugin install transcript-lag@transcript-lag; its mod hands a hook the message on Claude Code 2.1.286+) and start a new session.")


def block(reason):
    print(reason, file=sys.stderr)
    sys.exit(2)


def held_message(hook, claude_dir):
    """The text blocks the mod holds for this call, or None (docs/HELD-MESSAGE.md, "Reading it")."""
    sid, tid = hook.get("session_id", ""), hook.get("tool_use_id", "")
    if not (re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}", sid) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{0,199}", tid)):
        return None
    path = os.path.join(claude_dir, "transcript-lag", "held", sid, tid + ".json")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None  # no file (or a symlink): nothing held
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return None
        data = f.read(4 * 1024 * 1024 + 1)
    try:
        m = json.loads(data)
    except ValueError:
        return None  # half written, or emptied
    if not isinstance(m, dict) or m.get("v") != 1 or m.get("tool_use_id") != tid:
        return None
    at, blocks = m.get("at"), m.get("text_blocks")
    if not isinstance(at, (int, float)) or abs(time.time() * 1000 - at) >= 600_000:
        return None
    if not isinstance(blocks, list) or not all(isinstance(b, str) for b in blocks):
        return None
    return blocks


def ask_tool(raw, claude_dir):
    """transcript-lag message --json's answer, or None when it cannot run or does not answer in time."""
    tool = os.path.join(claude_dir, "transcript-lag", "bin", "transcript-lag-message.js")
    try:
        run = subprocess.run(["node", tool, "--json"], input=raw, capture_output=True, timeout=5)
        msg = json.loads(run.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    return msg if isinstance(msg, dict) else None


raw = sys.stdin.buffer.read()
try:
    hook = json.loads(raw)
    # <claude dir>/projects/<project>/<session>.jsonl: three levels up.
    claude_dir = os.path.dirname(os.path.dirname(os.path.dirname(hook["transcript_path"])))
except (ValueError, KeyError, TypeError, AttributeError):
    block("This call needs a review, and the hook's input is not Claude Code's PreToolUse JSON.")
blocks = held_message(hook, claude_dir)
if blocks is None:
    msg = ask_tool(raw, claude_dir)
    if msg is None:
        block("This call needs a review, and its message is neither held nor given by transcript-lag's message tool "
              "(is node on PATH? has a session with the transcript-lag plugin started?).")
    if msg.get("source") is None:
        block(f"This call needs a review, and its message is not known: {msg.get('reason')}." if msg.get("mod") is True else INSTALL)
    blocks = msg.get("text_blocks") or []
if not blocks:
    block("Say what this call is for before you make it.")
