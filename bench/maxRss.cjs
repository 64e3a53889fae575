// Preloaded (`node -r bench/maxRss.cjs …`) into a contender of the cold-index
// benchmark: writes the process's peak RSS (KiB) to $BENCH_RSS_FILE at exit, so
// memory is measured without /usr/bin/time (which a fresh machine may lack).
const fs = require('node:fs');
process.on('exit', () => {
  const file = process.env.BENCH_RSS_FILE;
  if (file) fs.writeFileSync(file, String(process.resourceUsage().maxRSS));
});
