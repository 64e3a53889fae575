/* JSON grammar checks of capture.c. Static inline in a header because the module's C files are compiled without
 * LTO: these run once per token, and a call across files each time costs more than the token. */
#ifndef SCANNER_JSON_SKIP_H
#define SCANNER_JSON_SKIP_H

#include <wasm_simd128.h>
#include "interior.h"

typedef unsigned char u8;

/* The line is not JSON: the caller's full path says why. */
#define REDUCE_INVALID (-1)
/* Valid or not, not handled exactly here (root no object, an escaped key where keys are matched, no room): parse it whole. */
#define REDUCE_FULL (-2)

/* The line, for both walkers. JSON.parse accepts no NUL byte anywhere, so one NUL written after the line stops every
 * loop below without an end check of its own; the string kernel is given the end. `stack`: one bit per open
 * container (1: object) of a skipped value, so any depth costs depth/8 bytes. */
typedef struct {
  const u8 *end;
  u8 *stack;
  /* skip_string's vector constants, made once per line (see interior_opaque_zero). */
  v128_t flip, below, backslash;
} Line;

static inline Line line_of(const u8 *end, u8 *stack) {
  v128_t z = wasm_i8x16_splat((char)interior_opaque_zero);
  Line l = {end, stack, wasm_v128_or(z, wasm_i8x16_splat((char)0x82)), wasm_v128_or(z, wasm_i8x16_splat(-95)), wasm_v128_or(z, wasm_i8x16_splat('\\'))};
  return l;
}

enum Level { ROOT, MESSAGE, BLOCK };

static inline const u8 *skip_ws(const u8 *p) {
  /* Transcripts hold no whitespace between tokens: one compare for the byte that is no space. */
  while (*p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  return p;
}

static inline int is_digit(u8 b) { return (u8)(b - '0') < 10; }

/* p at the opening quote; returns the byte after the closing quote, or 0. Most strings are short (ids, names,
 * timestamps): looked at here 16 bytes at a time up to their first quote, backslash or control byte (the NUL after
 * the line is one, so no load starts past its end); only one with an escape, or a long one, goes to the kernel. */
static inline const u8 *skip_string(const u8 *p, const Line *l) {
  const u8 *q = p + 1;
  for (int block = 0; block < 2; block++, q += 16) {
    v128_t v = wasm_v128_load(q);
    /* `"` and control bytes: v ^ 0x82 maps exactly those to -128..-96 (see interior.c). */
    v128_t special = wasm_v128_or(wasm_i8x16_lt(wasm_v128_xor(v, l->flip), l->below), wasm_i8x16_eq(v, l->backslash));
    unsigned bits = (unsigned)wasm_i8x16_bitmask(special);
    if (bits) {
      q += __builtin_ctz(bits);
      if (*q != '"') q = skip_interior(q, l->end);
      return *q == '"' && q < l->end ? q + 1 : 0;
    }
  }
  q = skip_interior(q, l->end);
  return *q == '"' && q < l->end ? q + 1 : 0;
}

static inline const u8 *skip_number(const u8 *p) {
  if (*p == '-') p++;
  if (*p == '0') {
    p++;
  } else if (is_digit(*p)) {
    do p++; while (is_digit(*p));
  } else {
    return 0;
  }
  if (*p == '.') {
    p++;
    if (!is_digit(*p)) return 0;
    do p++; while (is_digit(*p));
  }
  if ((*p | 0x20) == 'e') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!is_digit(*p)) return 0;
    do p++; while (is_digit(*p));
  }
  return p;
}

/* One whole JSON value from p (no leading whitespace); the byte after it, or 0
 * if it is not valid. Iterative: nesting depth is limited by the line alone. */
static inline const u8 *skip_value(const u8 *p, const Line *l) {
  unsigned depth = 0;
  u8 *stack = l->stack;
value:
  switch (*p) {
    case '"':
      if (!(p = skip_string(p, l))) return 0;
      break;
    case '{':
      p = skip_ws(p + 1);
      if (*p == '}') {
        p++;
        break;
      }
      stack[depth >> 3] |= (u8)(1u << (depth & 7));
      depth++;
      goto key;
    case '[':
      p = skip_ws(p + 1);
      if (*p == ']') {
        p++;
        break;
      }
      stack[depth >> 3] &= (u8) ~(1u << (depth & 7));
      depth++;
      goto value;
    case 't':
      if (p[1] != 'r' || p[2] != 'u' || p[3] != 'e') return 0;
      p += 4;
      break;
    case 'f':
      if (p[1] != 'a' || p[2] != 'l' || p[3] != 's' || p[4] != 'e') return 0;
      p += 5;
      break;
    case 'n':
      if (p[1] != 'u' || p[2] != 'l' || p[3] != 'l') return 0;
      p += 4;
      break;
    default:
      if (!(p = skip_number(p))) return 0;
  }
  /* After a value: close containers until one goes on with a comma. */
  for (;;) {
    if (depth == 0) return p;
    p = skip_ws(p);
    unsigned top = depth - 1;
    int in_object = (stack[top >> 3] >> (top & 7)) & 1;
    if (*p == ',') {
      p = skip_ws(p + 1);
      if (in_object) goto key;
      goto value;
    }
    if (*p != (in_object ? '}' : ']')) return 0;
    p++;
    depth--;
  }
key:
  if (*p != '"' || !(p = skip_string(p, l))) return 0;
  p = skip_ws(p);
  if (*p != ':') return 0;
  p = skip_ws(p + 1);
  goto value;
}

/* p at the opening quote of a key; returns its closing quote, or 0 with *status set. One 16-byte look finds where
 * most keys end (as in skip_string); a byte loop goes on from there and sends an escaped key to JSON.parse, which
 * reads "typ\u0065" as "type". */
static inline const u8 *scan_key(const u8 *p, const Line *l, int *status) {
  const u8 *q = p + 1;
  v128_t v = wasm_v128_load(q);
  v128_t special = wasm_v128_or(wasm_i8x16_lt(wasm_v128_xor(v, l->flip), l->below), wasm_i8x16_eq(v, l->backslash));
  unsigned bits = (unsigned)wasm_i8x16_bitmask(special);
  q += bits ? __builtin_ctz(bits) : 16;
  while (*q != '"') {
    if (*q == '\\') {
      *status = REDUCE_FULL;
      return 0;
    }
    if (*q < 0x20) {
      *status = REDUCE_INVALID;
      return 0;
    }
    q++;
  }
  return q;
}

/* The values the engine reads, by where their key sits: field_of() over the table JS writes at load, from
 * src/core/scanner/fieldTable.ts; ../lineReducer.ts reads the codes it gives from the same table. */
#include "keyTable.h"

#endif
