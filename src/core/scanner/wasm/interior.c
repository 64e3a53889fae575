/* Skips JSON string interiors with wasm SIMD. ../scannerKernel.ts loads the
 * module; ../wasmInteriorSkipper.ts holds the contract and the JS that calls it. */
#include <wasm_simd128.h>
#include "interior.h"

/* The class of each byte after a backslash: 1 for one of "\/bfnrt, 2 for a hex digit. */
static const unsigned char ESCAPE_CLASS[256] = {
    ['"'] = 1, ['\\'] = 1, ['/'] = 1, ['b'] = 3, ['f'] = 3, ['n'] = 1, ['r'] = 1, ['t'] = 1,
    ['0'] = 2, ['1'] = 2, ['2'] = 2, ['3'] = 2, ['4'] = 2, ['5'] = 2, ['6'] = 2, ['7'] = 2, ['8'] = 2, ['9'] = 2,
    ['a'] = 2, ['c'] = 2, ['d'] = 2, ['e'] = 2, ['A'] = 2, ['B'] = 2, ['C'] = 2, ['D'] = 2, ['E'] = 2, ['F'] = 2,
};

/* The length of the valid escape at `at` (2, or 6 for \uXXXX) wholly before end; 0 if none. */
static unsigned escape_length(const unsigned char *at, const unsigned char *end) {
  if (at + 1 >= end) return 0;
  if (ESCAPE_CLASS[at[1]] & 1) return 2;
  if (at[1] != 'u' || at + 5 >= end) return 0;
  return (ESCAPE_CLASS[at[2]] & ESCAPE_CLASS[at[3]] & ESCAPE_CLASS[at[4]] & ESCAPE_CLASS[at[5]] & 2) ? 6 : 0;
}

const unsigned char *skip_interior(const unsigned char *p, const unsigned char *end) {
  const v128_t quote = wasm_i8x16_splat('"'), backslash = wasm_i8x16_splat('\\'), space = wasm_i8x16_splat(0x20);
  while (p < end) {
    v128_t v = wasm_v128_load(p);
    unsigned bits = wasm_i8x16_bitmask(
        wasm_v128_or(wasm_v128_or(wasm_i8x16_eq(v, quote), wasm_i8x16_eq(v, backslash)), wasm_u8x16_lt(v, space)));
    if (end - p < 16) bits &= (1u << (end - p)) - 1;
    unsigned next = 16;
    while (bits) {
      const unsigned char *at = p + __builtin_ctz(bits);
      if (*at != '\\') return at;
      unsigned len = escape_length(at, end);
      if (!len) return at;
      next = (unsigned)(at + len - p);
      if (next >= 16) break;
      bits &= ~0u << next;
      next = 16;
    }
    p += next;
  }
  return end;
}

__attribute__((export_name("skipInterior")))
const unsigned char *export_skip_interior(const unsigned char *p, const unsigned char *end) {
  return skip_interior(p, end);
}

extern unsigned char __heap_base;

/* The first byte no C data or stack uses: where JS puts its input. */
__attribute__((export_name("heapBase")))
unsigned char *heap_base(void) {
  return &__heap_base;
}
