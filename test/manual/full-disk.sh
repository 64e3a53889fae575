#!/bin/sh
# By hand, as root (mount): install-hook on a nearly full 64 KB tmpfs must fail
# without costing the previous backup or settings.json. The unit test
# (test/unit/settingsFile.test.ts, "a full disk ...") injects the failing write
# instead; this checks the same on a real file system. Run after `npm run build`.
set -eu
cli="$(cd "$(dirname "$0")/../.." && pwd)/dist/cli.js"
dir="$(mktemp -d)"
keep="$(mktemp -d)"
mount -t tmpfs -o size=64k tmpfs "$dir"
trap 'umount "$dir"; rmdir "$dir"; rm -rf "$keep"' EXIT
claude="$dir/claude"
mkdir -p "$claude/transcript-lag/bin"
# The hook copy is in place already: replacing it frees what its new copy takes.
cp "$(dirname "$cli")/hook.js" "$claude/transcript-lag/bin/transcript-lag-hook.js"
printf '{\n  "model": "opus",\n  "note": "%s"\n}\n' "$(head -c 14000 /dev/zero | tr '\0' x)" > "$claude/settings.json"
printf '{"previous": "backup", "pad": "%s"}\n' "$(head -c 12000 /dev/zero | tr '\0' y)" > "$claude/settings.json.transcript-lag.bak"
cp "$claude/settings.json" "$claude/settings.json.transcript-lag.bak" "$keep/"
# Leave 3 blocks: room for the hook's temp copy (8 KB), not for the new backup's temp file (14 KB).
head -c "$(( $(stat -f -c '%a*%S' "$dir") - 3 * 4096 ))" /dev/zero > "$dir/filler"
if node "$cli" install-hook --claude-dir "$claude" 2>"$keep/err"; then echo "FAIL: install-hook succeeded on a full disk"; exit 1; fi
grep -q 'could not write the backup.*ENOSPC' "$keep/err" || { echo "FAIL: not the backup write that failed:"; cat "$keep/err"; exit 1; }
echo "ok: the new backup could not be written: $(cat "$keep/err")"
cmp "$claude/settings.json.transcript-lag.bak" "$keep/settings.json.transcript-lag.bak" && echo "ok: previous backup intact"
cmp "$claude/settings.json" "$keep/settings.json" && echo "ok: settings.json intact"
leftover="$(ls -A "$claude" | grep '\.tmp$' || true)"
if [ -n "$leftover" ]; then echo "FAIL: left $leftover"; exit 1; fi
echo "ok: no temp file left"
