/* Validates a transcript line as JSON and lists, in document order, each value of a key the field table keeps
 * (../../../scanner/fieldTable.ts, written into the instance at load: ./keyTable.h): its field, JSON type and span. ../lineReducer.ts applies fields.ts's rules to the list (last one wins, caps,
 * UTF-8), so a line costs no JSON.parse and no object tree; test/unit/core/scanner/scanner.reducer.test.ts holds the
 * result to JSON.parse's. */
#include <wasm_simd128.h>
#include "jsonSkip.h"

typedef unsigned u32;

/* An entry is three words: code (field | type << 8 | string flags), start, end (offsets in the line). A string's
 * span is its interior, a number's its literal; a message, content or block read into is followed by its own entries. */
enum Type { T_STRING, T_NUMBER, T_TRUE, T_FALSE, T_NULL, T_OBJECT, T_ARRAY };
#define TYPE_SHIFT 8
#define HAS_ESCAPE (1u << 16)    /* the string holds a backslash escape */
#define HAS_NON_ASCII (1u << 17) /* the string holds a byte >= 0x80 */

typedef struct {
  Line line;
  const u8 *start;
  u32 *out;
  u32 *out_end;
  int status;
} Ctx;

static const u8 *fail(Ctx *c, int status) {
  c->status = status;
  return 0;
}

static int put(Ctx *c, u32 code, const u8 *from, const u8 *to) {
  if (c->out >= c->out_end) return 0;
  c->out[0] = code;
  c->out[1] = (u32)(from - c->start);
  c->out[2] = (u32)(to - c->start);
  c->out += 3;
  return 1;
}

/* HAS_ESCAPE / HAS_NON_ASCII of the n bytes at s, 16 at a time (reads up to 15
 * bytes past them: the line has SCANNER_READ_PAST_END after it). */
static u32 string_flags(const u8 *s, unsigned n) {
  const v128_t lane = wasm_i8x16_make(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  v128_t ored = wasm_i64x2_splat(0), backslash = ored;
  for (unsigned i = 0; i < n; i += 16) {
    v128_t v = wasm_v128_load(s + i);
    if (n - i < 16) v = wasm_v128_and(v, wasm_i8x16_lt(lane, wasm_i8x16_splat((signed char)(n - i))));
    ored = wasm_v128_or(ored, v);
    backslash = wasm_v128_or(backslash, wasm_i8x16_eq(v, wasm_i8x16_splat('\\')));
  }
  return (wasm_v128_any_true(backslash) ? HAS_ESCAPE : 0) | (wasm_i8x16_bitmask(ored) ? HAS_NON_ASCII : 0);
}

/* Where JS writes the key table (./keyTable.h) at load. */
__attribute__((export_name("keyTable")))
KeyTable *key_table_address(void) {
  return &key_table;
}

/* The entry of a value the engine does not look into, [v, after). */
static int put_value(Ctx *c, u32 field, const u8 *v, const u8 *after) {
  switch (*v) {
    case '"': {
      unsigned n = (unsigned)(after - v - 2);
      return put(c, field | T_STRING << TYPE_SHIFT | string_flags(v + 1, n), v + 1, after - 1);
    }
    case '{': return put(c, field | T_OBJECT << TYPE_SHIFT, v, after);
    case '[': return put(c, field | T_ARRAY << TYPE_SHIFT, v, after);
    case 't': return put(c, field | T_TRUE << TYPE_SHIFT, v, after);
    case 'f': return put(c, field | T_FALSE << TYPE_SHIFT, v, after);
    case 'n': return put(c, field | T_NULL << TYPE_SHIFT, v, after);
    default: return put(c, field | T_NUMBER << TYPE_SHIFT, v, after);
  }
}

static const u8 *capture_array(const u8 *p, Ctx *c, enum Level level, u32 element);

/* p at '{' of an object at `level`; returns the byte after it. */
static const u8 *capture_object(const u8 *p, Ctx *c, enum Level level) {
  p = skip_ws(p + 1);
  if (*p == '}') return p + 1;
  for (;;) {
    if (*p != '"') return fail(c, REDUCE_INVALID);
    const u8 *key = p + 1, *q = scan_key(p, &c->line, &c->status);
    if (!q) return 0;
    int word = field_of(level, key, (unsigned)(q - key));
    p = skip_ws(q + 1);
    if (*p != ':') return fail(c, REDUCE_INVALID);
    const u8 *v = skip_ws(p + 1);
    if (word == DROP) {
      if (!(p = skip_value(v, &c->line))) return fail(c, REDUCE_INVALID);
    } else if (WORD_DESCEND(word) == DESCEND_OBJECT && *v == '{') {
      if (!put(c, WORD_CODE(word) | T_OBJECT << TYPE_SHIFT, v, v)) return fail(c, REDUCE_FULL);
      if (!(p = capture_object(v, c, WORD_LEVEL(word)))) return 0;
    } else if (WORD_DESCEND(word) == DESCEND_ARRAY && *v == '[') {
      if (!put(c, WORD_CODE(word) | T_ARRAY << TYPE_SHIFT, v, v)) return fail(c, REDUCE_FULL);
      if (!(p = capture_array(v, c, WORD_LEVEL(word), WORD_ELEMENT(word)))) return 0;
    } else {
      if (!(p = skip_value(v, &c->line))) return fail(c, REDUCE_INVALID);
      if (!put_value(c, WORD_CODE(word), v, p)) return fail(c, REDUCE_FULL);
    }
    p = skip_ws(p);
    if (*p == ',') {
      p = skip_ws(p + 1);
      continue;
    }
    if (*p != '}') return fail(c, REDUCE_INVALID);
    return p + 1;
  }
}

/* p at '[' of an array read into (message.content): object elements are objects at `level` (blocks), each listed as
 * `element` before its own entries; others are not read. */
static const u8 *capture_array(const u8 *p, Ctx *c, enum Level level, u32 element) {
  p = skip_ws(p + 1);
  if (*p == ']') return p + 1;
  for (;;) {
    if (*p == '{') {
      if (!put(c, element | T_OBJECT << TYPE_SHIFT, p, p)) return fail(c, REDUCE_FULL);
      if (!(p = capture_object(p, c, level))) return 0;
    } else if (!(p = skip_value(p, &c->line))) {
      return fail(c, REDUCE_INVALID);
    }
    p = skip_ws(p);
    if (*p == ',') {
      p = skip_ws(p + 1);
      continue;
    }
    if (*p != ']') return fail(c, REDUCE_INVALID);
    return p + 1;
  }
}

/* The line is [line, line + length), then SCANNER_READ_PAST_END bytes this may write; out has room for out_entries
 * entries, stack length / 8 + 1 bytes. Returns the count of entries written at out, or REDUCE_INVALID / REDUCE_FULL. */
__attribute__((export_name("captureLine")))
int capture_line(u8 *line, unsigned length, u32 *out, unsigned out_entries, u8 *stack) {
  Ctx c = {line_of(line + length, stack), line, out, out + 3 * out_entries, 0};
  line[length] = 0;
  const u8 *p = skip_ws(line);
  if (*p != '{') return REDUCE_FULL;
  if (!(p = capture_object(p, &c, ROOT))) return c.status;
  if (skip_ws(p) != c.line.end) return REDUCE_INVALID;
  return (int)(c.out - out) / 3;
}

/* The offset of the first '\n' in [p, end), or -1; 16 bytes at a time (loads
 * may reach 15 bytes past end: the caller's input has SCANNER_READ_PAST_END). */
static int find_newline(const u8 *p, const u8 *end) {
  const v128_t newline = wasm_i8x16_splat('\n');
  for (const u8 *q = p; q < end; q += 16) {
    unsigned bits = (unsigned)wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(q), newline));
    if (bits) {
      const u8 *at = q + __builtin_ctz(bits);
      return at < end ? (int)(at - p) : -1;
    }
  }
  return -1;
}

/* capture_line of the whole lines at the start of [p, p + length): per line a header of two words, its length (no
 * newline) and capture_line's result, then its entries. Stops after a line capture_line did not take, and before one
 * whose newline is not in the input or not within max_line (searched no further), or whose entries might not fit the
 * out_words at out. stack has max_line / 8 + 1 bytes. Puts back the newlines the end mark overwrites; returns the line count. */
__attribute__((export_name("captureLines")))
int capture_lines(u8 *p, unsigned length, u32 *out, unsigned out_words, u8 *stack, unsigned max_line) {
  const u8 *end = p + length;
  u32 *w = out;
  const u32 *w_end = out + out_words;
  int lines = 0;
  while (p < end) {
    int n = find_newline(p, (unsigned)(end - p) > max_line ? p + max_line + 1 : end);
    if (n < 0 || (unsigned)n > max_line) break;
    unsigned entries = ((unsigned)n >> 1) + 16; /* as many as capture_line may write (see ../lineReducer.ts) */
    if ((unsigned)(w_end - w) < 2 + 3 * entries) break;
    int count = capture_line(p, (unsigned)n, w + 2, entries, stack);
    p[n] = '\n';
    w[0] = (u32)n;
    w[1] = (u32)count;
    w += 2 + (count > 0 ? 3 * (unsigned)count : 0);
    p += n + 1;
    lines++;
    if (count < 0) break;
  }
  return lines;
}
