/* Recently seen strings by their bytes, for ../lineReducer.ts: most kept strings repeat the lines before (types,
 * session id, cwd, tool name, a message id across its blocks). JS keeps each slot's decoded string; this keeps the
 * bytes and compares them 16 at a time, far cheaper than a JS byte loop. The table is the instance's, so the
 * strings JS keeps are one array per instance too (ScannerKernel.recalled in ../../../scanner/scannerKernel.ts). */
#include <wasm_simd128.h>
#include "interior.h"

#define RECALL_SLOTS 64
#define RECALL_MAX_BYTES 128

static unsigned char rows[RECALL_SLOTS][RECALL_MAX_BYTES] __attribute__((aligned(16)));
/* Length + 1 of the bytes in each row; 0: empty. */
static unsigned stored[RECALL_SLOTS];

/* The slot of the n bytes at p (n <= RECALL_MAX_BYTES; up to 15 bytes past
 * p + n may be read, which the line's SCANNER_READ_PAST_END covers): >= 0 when
 * the slot already held these bytes, else -1 - slot, and the slot now holds
 * them (the caller decodes them and keeps the string for that slot). */
__attribute__((export_name("recall")))
int recall(const unsigned char *p, unsigned n) {
  unsigned slot = n == 0 ? 0 : (n * 31 + p[0] * 7 + p[n - 1] * 3 + p[n >> 1]) & (RECALL_SLOTS - 1);
  unsigned char *row = rows[slot];
  if (stored[slot] == n + 1) {
    unsigned i = 0;
    for (; i < n; i += 16) {
      unsigned differ = 0xFFFFu & ~(unsigned)wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(row + i), wasm_v128_load(p + i)));
      if (n - i < 16) differ &= (1u << (n - i)) - 1;
      if (differ) break;
    }
    if (i >= n) return (int)slot;
  }
  for (unsigned i = 0; i < n; i += 16) wasm_v128_store(row + i, wasm_v128_load(p + i));
  stored[slot] = n + 1;
  return -1 - (int)slot;
}
