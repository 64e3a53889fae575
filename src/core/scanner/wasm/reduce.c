/* Validates one transcript line as JSON and writes a reduced copy of it: the
 * root object with only the keys the engine reads (../fields.ts), so that
 * JSON.parse of the reduced text gives the same fields as JSON.parse of the
 * whole line, without building the tool results, tool inputs and attachments
 * that hold most of a line's bytes. ../lineReducer.ts calls it; the property
 * tests in test/unit/scanner.reducer.test.ts hold the two to the same results. */
#include <wasm_simd128.h>
#include "jsonSkip.h"

typedef struct {
  Line line;
  u8 *out;
  u8 *out_end;
  int status;
  /* The OR of every copied byte: its top bit says whether the output holds a byte >= 0x80. */
  v128_t copied_or;
} Ctx;

/* Of the last reduceLine(); read back by reducedHasNonAscii(). */
static int output_has_non_ascii;

static const u8 *fail(Ctx *c, int status) {
  c->status = status;
  return 0;
}

/* Copies n bytes 16 at a time: may write 15 bytes past dst + n (the output
 * has that slack) and read 15 past src + n (the line has SCANNER_READ_PAST_END);
 * ORs the n bytes (not those past them) into c->copied_or. */
static void copy_bytes(Ctx *c, u8 *dst, const u8 *src, unsigned n) {
  const v128_t lane = wasm_i8x16_make(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  v128_t acc = c->copied_or;
  for (unsigned i = 0; i < n; i += 16) {
    v128_t v = wasm_v128_load(src + i);
    wasm_v128_store(dst + i, v);
    if (n - i < 16) v = wasm_v128_and(v, wasm_i8x16_lt(lane, wasm_i8x16_splat((signed char)(n - i))));
    acc = wasm_v128_or(acc, v);
  }
  c->copied_or = acc;
}

static int emit(Ctx *c, const u8 *src, unsigned n) {
  if ((unsigned)(c->out_end - c->out) < n + 16) return 0;
  copy_bytes(c, c->out, src, n);
  c->out += n;
  return 1;
}

static int emit_byte(Ctx *c, u8 b) {
  if (c->out >= c->out_end) return 0;
  *c->out++ = b;
  return 1;
}

/* A kept value the engine does not look into: a container only by its kind
 * (fields.ts asks of these only "is it a string / number / boolean / null"). */
static int emit_value(Ctx *c, const u8 *v, const u8 *after) {
  if (*v == '{') return emit_byte(c, '{') && emit_byte(c, '}');
  if (*v == '[') return emit_byte(c, '[') && emit_byte(c, ']');
  return emit(c, v, (unsigned)(after - v));
}

static const u8 *reduce_array(const u8 *p, Ctx *c);

/* p at '{' of an object at `level`; writes it reduced, returns the byte after it. */
static const u8 *reduce_object(const u8 *p, Ctx *c, enum Level level) {
  if (!emit_byte(c, '{')) return fail(c, REDUCE_FULL);
  int first = 1;
  p = skip_ws(p + 1);
  if (*p == '}') return emit_byte(c, '}') ? p + 1 : fail(c, REDUCE_FULL);
  for (;;) {
    if (*p != '"') return fail(c, REDUCE_INVALID);
    const u8 *key = p + 1, *q = scan_key(p, &c->line, &c->status);
    if (!q) return 0;
    unsigned key_length = (unsigned)(q - key);
    enum Field field = field_of(level, key, key_length);
    p = skip_ws(q + 1);
    if (*p != ':') return fail(c, REDUCE_INVALID);
    const u8 *v = skip_ws(p + 1);
    if (field == DROP) {
      if (!(p = skip_value(v, &c->line))) return fail(c, REDUCE_INVALID);
    } else {
      if ((!first && !emit_byte(c, ',')) || !emit(c, key - 1, key_length + 2) || !emit_byte(c, ':'))
        return fail(c, REDUCE_FULL);
      first = 0;
      if (field == F_MESSAGE && *v == '{') {
        if (!(p = reduce_object(v, c, MESSAGE))) return 0;
      } else if (field == F_CONTENT && *v == '[') {
        if (!(p = reduce_array(v, c))) return 0;
      } else {
        if (!(p = skip_value(v, &c->line))) return fail(c, REDUCE_INVALID);
        if (!emit_value(c, v, p)) return fail(c, REDUCE_FULL);
      }
    }
    p = skip_ws(p);
    if (*p == ',') {
      p = skip_ws(p + 1);
      continue;
    }
    if (*p != '}') return fail(c, REDUCE_INVALID);
    return emit_byte(c, '}') ? p + 1 : fail(c, REDUCE_FULL);
  }
}

/* p at '[' of message.content: every element kept, object elements reduced as blocks. */
static const u8 *reduce_array(const u8 *p, Ctx *c) {
  if (!emit_byte(c, '[')) return fail(c, REDUCE_FULL);
  p = skip_ws(p + 1);
  if (*p == ']') return emit_byte(c, ']') ? p + 1 : fail(c, REDUCE_FULL);
  for (;;) {
    if (*p == '{') {
      if (!(p = reduce_object(p, c, BLOCK))) return 0;
    } else {
      const u8 *v = p;
      if (!(p = skip_value(v, &c->line))) return fail(c, REDUCE_INVALID);
      if (!emit_value(c, v, p)) return fail(c, REDUCE_FULL);
    }
    p = skip_ws(p);
    if (*p == ',') {
      if (!emit_byte(c, ',')) return fail(c, REDUCE_FULL);
      p = skip_ws(p + 1);
      continue;
    }
    if (*p != ']') return fail(c, REDUCE_INVALID);
    return emit_byte(c, ']') ? p + 1 : fail(c, REDUCE_FULL);
  }
}

/* The line is [line, line + length), followed by SCANNER_READ_PAST_END bytes
 * this function may write; out has out_capacity bytes; stack has
 * length / 8 + 1 bytes. Returns the reduced text's length at out, or
 * REDUCE_INVALID / REDUCE_FULL. */
__attribute__((export_name("reduceLine")))
int reduce_line(u8 *line, unsigned length, u8 *out, unsigned out_capacity, u8 *stack) {
  Ctx c = {line_of(line + length, stack), out, out + out_capacity, 0, wasm_i64x2_splat(0)};
  line[length] = 0;
  const u8 *p = skip_ws(line);
  if (*p != '{') return REDUCE_FULL;
  if (!(p = reduce_object(p, &c, ROOT))) return c.status;
  if (skip_ws(p) != c.line.end) return REDUCE_INVALID;
  output_has_non_ascii = wasm_i8x16_bitmask(c.copied_or) != 0;
  return (int)(c.out - out);
}

/* Whether the last reduced text holds a byte >= 0x80 (if not, its Latin-1 and
 * UTF-8 decodings are the same text, and the caller decodes nothing again). */
__attribute__((export_name("reducedHasNonAscii")))
int reduced_has_non_ascii(void) {
  return output_has_non_ascii;
}
