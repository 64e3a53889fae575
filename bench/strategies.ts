/**
 * The ways to notice a transcript write, compared side by side: the engine as
 * the extension runs it, and the two strategies other tools use: a 500 ms stat
 * poll, and chokidar with default options, each feeding the same FileTail and
 * record scanner the engine uses, so only the change detection differs.
 */
import * as fs from 'node:fs';
import { watch, type FSWatcher } from 'chokidar';
import { FileTail } from '../src/core/tail';
import { createRecordScanner } from '../src/core/scanner';
import type { ScanResult } from '../src/core/records';
import { nodeFileAccess } from '../src/platform/nodeFileAccess';
import { systemClock } from '../src/platform/systemClock';
import type { TranscriptSite, WatchStrategy } from './lib/writerPhase';

const clock = systemClock;

/** Reads the tail one read at a time (a change event during a read asks for one more). */
function tailFeeder(site: TranscriptSite, seen: (id: string) => void) {
  const tail = new FileTail<ScanResult>({ path: site.file, files: nodeFileAccess, clock, scanner: createRecordScanner() });
  let reading: Promise<void> | undefined;
  let again = false;
  const readNow = (): void => {
    if (reading) {
      again = true;
      return;
    }
    reading = (async () => {
      do {
        again = false;
        const r = await tail.read();
        for (const l of r.lines) if (l.scan.kind === 'record') for (const t of l.scan.toolUses) seen(t.id);
      } while (again);
    })().finally(() => (reading = undefined));
  };
  return { tail, readNow, idle: async () => reading };
}

export function statPollStrategy(intervalMs = 500): WatchStrategy {
  let timer: NodeJS.Timeout | undefined;
  let feeder: ReturnType<typeof tailFeeder> | undefined;
  return {
    name: `stat poll ${intervalMs} ms`,
    async start(site, seen) {
      feeder = tailFeeder(site, seen);
      await feeder.tail.read();
      let last = '';
      const f = feeder;
      timer = setInterval(() => {
        fs.stat(site.file, (err, st) => {
          if (err) return;
          const key = `${st.size}:${st.mtimeMs}`;
          if (key !== last) {
            last = key;
            f.readNow();
          }
        });
      }, intervalMs);
    },
    async stop() {
      clearInterval(timer);
      await feeder?.idle();
      await feeder?.tail.close();
    },
  };
}

export function chokidarStrategy(): WatchStrategy {
  let watcher: FSWatcher | undefined;
  let feeder: ReturnType<typeof tailFeeder> | undefined;
  return {
    name: 'chokidar (defaults)',
    async start(site, seen) {
      feeder = tailFeeder(site, seen);
      await feeder.tail.read();
      const f = feeder;
      watcher = watch(site.file);
      watcher.on('change', () => f.readNow());
      await new Promise<void>((resolve) => watcher?.once('ready', () => resolve()));
    },
    async stop() {
      await watcher?.close();
      await feeder?.idle();
      await feeder?.tail.close();
    },
  };
}
