// Preloaded (`node -r bench/maxRss.cjs …`) into a contender of the cold-index
// benchmark: writes the process's peak RSS (KiB) to $BENCH_RSS_FILE at exit, so
// memory is measured without /usr/bin/time (which a fresh machine may lack).
// VmHWM from /proc/self/status where there is one: getrusage's maxRSS survives
// exec, so a child forked from a large benchmark process reports the parent's
// size (seen: 105 MiB once, for a run whose own peak was 64 MiB).
const fs = require('node:fs');
process.on('exit', () => {
  const file = process.env.BENCH_RSS_FILE;
  if (!file) return;
  let kib = process.resourceUsage().maxRSS;
  try {
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (hwm) kib = Number(hwm[1]);
  } catch {
    // no /proc: keep getrusage's figure
  }
  fs.writeFileSync(file, String(kib));
});
