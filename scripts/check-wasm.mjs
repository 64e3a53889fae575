#!/usr/bin/env node
// Checks that src/core/scanner/scannerWasm.ts is exactly what scripts/gen-scanner-wasm.mjs writes
// from its C sources today: the committed wasm is the C, compiled. Needs clang and
// wasm-ld (Debian: clang lld), so it runs as its own step (`npm run check:wasm`, in .ci/run)
// rather than in the unit suite, which runs without a C toolchain.
//
//   node scripts/check-wasm.mjs        exit 0: identical; exit 1: differs, or a tool is missing
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileScannerWasm, outPath, scannerWasmSource } from './gen-scanner-wasm.mjs';
import { failAndExit } from './lib/missingTool.mjs';

const committedFile = path.relative(process.cwd(), outPath);

try {
  const bytes = compileScannerWasm();
  const fresh = scannerWasmSource(bytes);
  const committed = readFileSync(outPath, 'utf8');
  if (committed !== fresh) {
    console.error(
      `${committedFile} is not a fresh compile of its C sources (${bytes.length} bytes of wasm now): ` +
        'run node scripts/gen-scanner-wasm.mjs and commit the result',
    );
    process.exit(1);
  }
  console.log(`${committedFile}: the committed wasm is a fresh compile of its C sources (${bytes.length} bytes)`);
} catch (err) {
  failAndExit('check-wasm: ', err);
}
