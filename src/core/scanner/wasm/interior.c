/* Skips JSON string interiors with wasm SIMD, 64 bytes at a time (contract and caller: ../interiorSkipper.ts).
 * Escape-dense text (code, logs) must not cost a loop turn per escape, so each block is classified with bit
 * arithmetic: masks of `\` and of `"`-or-control bytes, the escaped bytes from the backslash runs (simdjson's
 * trick), and a vector test that each escaped byte is one of "\/fnt; only the rare `\b`, `\r`, `\u` go byte by byte.
 * Shaped for V8's x64 code generator, where a signed byte compare is one instruction and an unsigned one four. */
#include <stdint.h>
#include <wasm_simd128.h>
#include "interior.h"

#define ODD_BITS 0xAAAAAAAAAAAAAAAAull

/* A byte is one of "\/fnt when it equals SIMPLE_ESCAPE[b & 15]; other entries hold a byte of another low nibble.
 * b and r share nibble 2 with `"`: testing them here slowed every block with an escape, so drop_good_escapes
 * accepts them one by one (they are rare). */
#define SIMPLE_ESCAPE wasm_u8x16_make(0xFF, 0xFF, '"', 0xFF, 't', 0xFF, 'f', 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, '\\', 0xFF, 'n', '/')

/* See interior.h. */
unsigned char interior_opaque_zero = 0;

typedef struct {
  v128_t backslash, flip, below, nibble, simple;
} Consts;

static inline Consts consts(void) {
  v128_t z = wasm_i8x16_splat((char)interior_opaque_zero);
  Consts k = {
    wasm_v128_or(z, wasm_i8x16_splat('\\')),
    wasm_v128_or(z, wasm_i8x16_splat((char)0x82)),
    wasm_v128_or(z, wasm_i8x16_splat(-95)),
    wasm_v128_or(z, wasm_i8x16_splat(0x0F)),
    wasm_v128_or(z, SIMPLE_ESCAPE),
  };
  return k;
}

static inline int is_hex(unsigned char c) {
  return (unsigned char)(c - '0') < 10 || (unsigned char)((c | 0x20) - 'a') < 6;
}

static inline uint64_t mask16(v128_t lanes, int shift) {
  return (uint64_t)(uint16_t)wasm_i8x16_bitmask(lanes) << shift;
}

/* 0xFF for `"` and control bytes: v ^ 0x82 maps exactly those to -128..-96. */
static inline v128_t quote_or_control(v128_t v, const Consts *k) {
  return wasm_i8x16_lt(wasm_v128_xor(v, k->flip), k->below);
}

/* 0xFF for the bytes that are one of "\/fnt. */
static inline v128_t simple_escape(v128_t v, const Consts *k) {
  return wasm_i8x16_eq(wasm_i8x16_swizzle(k->simple, wasm_v128_and(v, k->nibble)), v);
}

/* The 64 bytes at p that are NOT one of "\/fnt, as bits. */
static inline uint64_t not_simple_escapes(const unsigned char *p, const Consts *k) {
  uint64_t simple = 0;
  for (int i = 0; i < 64; i += 16) simple |= mask16(simple_escape(wasm_v128_load(p + i), k), i);
  return ~simple;
}

/* The bytes escaped by a backslash (simdjson's json_escape_scanner): a run of backslashes escapes every other byte
 * from its second, so the byte after an odd-length run is escaped. *carry is 1 when the previous block's last
 * backslash escapes byte 0; it is updated for the next block. */
static inline uint64_t escaped_bytes(uint64_t backslash, uint64_t *carry) {
  uint64_t escaped_in = *carry;
  uint64_t potential_escape = backslash & ~escaped_in; /* an escaped `\` escapes nothing */
  uint64_t escape_and_terminal = ((potential_escape << 1 | ODD_BITS) - potential_escape) ^ ODD_BITS;
  *carry = (escape_and_terminal & backslash) >> 63;
  return escape_and_terminal ^ (backslash | escaped_in);
}

/* Of the escaped bytes that are not "\/fnt, drops from the low end each b, r,
 * and \u whose four hex digits come before end: the lowest bit left is a bad escape. */
static inline uint64_t drop_good_escapes(uint64_t bad, const unsigned char *p, const unsigned char *end) {
  while (bad) {
    const unsigned char *at = p + __builtin_ctzll(bad); /* the escaped byte; its `\` is at - 1 */
    if (*at != 'b' && *at != 'r' && (*at != 'u' || at + 4 >= end || !is_hex(at[1]) || !is_hex(at[2]) || !is_hex(at[3]) || !is_hex(at[4]))) break;
    bad &= bad - 1;
  }
  return bad;
}

/* The first byte of the block at p to stop at, or null. `bad` marks escaped bytes whose escape is bad or cut: the
 * stop is their `\`, one byte before (for bit 0, the last byte of the previous block). */
static inline const unsigned char *first_stop(const unsigned char *p, uint64_t stoppers, uint64_t escaped, uint64_t bad) {
  if (bad & 1) return p - 1;
  uint64_t stops = (stoppers & ~escaped) | bad >> 1;
  return stops ? p + __builtin_ctzll(stops) : 0;
}

const unsigned char *skip_interior(const unsigned char *p, const unsigned char *end) {
  const Consts k = consts();
  uint64_t carry = 0; /* the byte at p is never escaped: p starts the interior or follows a whole escape */
  uint64_t backslash, stoppers, escaped;
  const unsigned char *stop;
#define CLASSIFY_BLOCK()                                                      \
  backslash = stoppers = 0;                                                   \
  for (int i = 0; i < 64; i += 16) {                                          \
    v128_t v = wasm_v128_load(p + i);                                         \
    backslash |= mask16(wasm_i8x16_eq(v, k.backslash), i);                    \
    stoppers |= mask16(quote_or_control(v, &k), i);                           \
  }
  for (; end - p >= 64; p += 64) {
    CLASSIFY_BLOCK();
    if (!(carry | backslash | stoppers)) continue;
    escaped = escaped_bytes(backslash, &carry);
    uint64_t bad = escaped ? drop_good_escapes(escaped & not_simple_escapes(p, &k), p, end) : 0;
    if ((stop = first_stop(p, stoppers, escaped, bad))) return stop;
  }
  /* The last, partial block: bytes from end on are not the string's. */
  if (p == end) return carry ? end - 1 : end; /* a `\` just before end: its escape is cut */
  CLASSIFY_BLOCK();
  unsigned len = (unsigned)(end - p);
  uint64_t in_range = (1ull << len) - 1;
  escaped = escaped_bytes(backslash, &carry);
  uint64_t bad = drop_good_escapes(escaped & in_range & not_simple_escapes(p, &k), p, end);
  bad |= escaped & (1ull << len); /* the escape of a `\` just before end is cut */
  stop = first_stop(p, stoppers & in_range, escaped, bad);
  return stop ? stop : end;
#undef CLASSIFY_BLOCK
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
