/* Validates one transcript line as JSON and writes a reduced copy of it: the
 * root object with only the keys the engine reads (../fields.ts), so that
 * JSON.parse of the reduced text gives the same fields as JSON.parse of the
 * whole line, without building the tool results, tool inputs and attachments
 * that hold most of a line's bytes. ../lineReducer.ts calls it; the property
 * tests in test/unit/scanner.reducer.test.ts hold the two to the same results. */
#include <wasm_simd128.h>
#include "interior.h"

typedef unsigned char u8;

/* The line is not JSON: the caller's full path says why. */
#define REDUCE_INVALID (-1)
/* Valid or not, this line is not reduced exactly here (root no object, an
 * escaped key where keys are matched, no room): the caller parses it whole. */
#define REDUCE_FULL (-2)

/* Only the line's bytes are scanned, and JSON.parse accepts no NUL byte
 * anywhere, so one NUL written after the line stops every loop below
 * without an end check of its own; the string kernel is given the end. */
typedef struct {
  const u8 *end;
  u8 *out;
  u8 *out_end;
  /* One bit per open container (1: object) of a skipped value: any depth costs depth/8 bytes. */
  u8 *stack;
  int status;
  /* The OR of every copied byte: its top bit says whether the output holds a byte >= 0x80. */
  v128_t copied_or;
} Ctx;

enum Level { ROOT, MESSAGE, BLOCK };
enum { DROP, KEEP, KEEP_MESSAGE, KEEP_CONTENT };

/* Of the last reduceLine(); read back by reducedHasNonAscii(). */
static int output_has_non_ascii;

static const u8 *fail(Ctx *c, int status) {
  c->status = status;
  return 0;
}

static const u8 *skip_ws(const u8 *p) {
  while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
  return p;
}

static int is_digit(u8 b) { return (u8)(b - '0') < 10; }

/* p at the opening quote; returns the byte after the closing quote, or 0. */
static const u8 *skip_string(const u8 *p, const Ctx *c) {
  const u8 *q = skip_interior(p + 1, c->end);
  return *q == '"' && q < c->end ? q + 1 : 0;
}

static const u8 *skip_number(const u8 *p) {
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
static const u8 *skip_value(const u8 *p, Ctx *c) {
  unsigned depth = 0;
  u8 *stack = c->stack;
value:
  switch (*p) {
    case '"':
      if (!(p = skip_string(p, c))) return 0;
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
  if (*p != '"' || !(p = skip_string(p, c))) return 0;
  p = skip_ws(p);
  if (*p != ':') return 0;
  p = skip_ws(p + 1);
  goto value;
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

static int key_is(const u8 *k, unsigned n, const char *name) {
  for (unsigned i = 0; i < n; i++)
    if (k[i] != (u8)name[i]) return 0;
  return name[n] == 0;
}

/* What a key of an object at `level` is: the names of ../fields.ts. */
static int classify(enum Level level, const u8 *k, unsigned n) {
  switch (level) {
    case ROOT:
      if (key_is(k, n, "message")) return KEEP_MESSAGE;
      return key_is(k, n, "type") || key_is(k, n, "uuid") || key_is(k, n, "timestamp") ||
                     key_is(k, n, "sessionId") || key_is(k, n, "cwd") || key_is(k, n, "agentId") ||
                     key_is(k, n, "isSidechain") || key_is(k, n, "isMeta") || key_is(k, n, "apiBlockIndex") ||
                     key_is(k, n, "aiTitle") || key_is(k, n, "customTitle") || key_is(k, n, "lastPrompt")
                 ? KEEP
                 : DROP;
    case MESSAGE:
      if (key_is(k, n, "content")) return KEEP_CONTENT;
      return key_is(k, n, "id") || key_is(k, n, "stop_reason") ? KEEP : DROP;
    case BLOCK:
      return key_is(k, n, "type") || key_is(k, n, "id") || key_is(k, n, "name") || key_is(k, n, "tool_use_id") ||
                     key_is(k, n, "text")
                 ? KEEP
                 : DROP;
  }
  return DROP;
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
    /* Keys are short: a byte loop, which also sees whether one holds an
     * escape (JSON.parse reads "typ\u0065" as "type"). */
    const u8 *key = p + 1, *q = key;
    while (*q != '"') {
      if (*q == '\\') return fail(c, REDUCE_FULL);
      if (*q < 0x20) return fail(c, REDUCE_INVALID);
      q++;
    }
    unsigned key_length = (unsigned)(q - key);
    int kind = classify(level, key, key_length);
    p = skip_ws(q + 1);
    if (*p != ':') return fail(c, REDUCE_INVALID);
    const u8 *v = skip_ws(p + 1);
    if (kind == DROP) {
      if (!(p = skip_value(v, c))) return fail(c, REDUCE_INVALID);
    } else {
      if ((!first && !emit_byte(c, ',')) || !emit(c, key - 1, key_length + 2) || !emit_byte(c, ':'))
        return fail(c, REDUCE_FULL);
      first = 0;
      if (kind == KEEP_MESSAGE && *v == '{') {
        if (!(p = reduce_object(v, c, MESSAGE))) return 0;
      } else if (kind == KEEP_CONTENT && *v == '[') {
        if (!(p = reduce_array(v, c))) return 0;
      } else {
        if (!(p = skip_value(v, c))) return fail(c, REDUCE_INVALID);
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
      if (!(p = skip_value(v, c))) return fail(c, REDUCE_INVALID);
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
  Ctx c = {line + length, out, out + out_capacity, stack, 0, wasm_i64x2_splat(0)};
  line[length] = 0;
  const u8 *p = skip_ws(line);
  if (*p != '{') return REDUCE_FULL;
  if (!(p = reduce_object(p, &c, ROOT))) return c.status;
  if (skip_ws(p) != c.end) return REDUCE_INVALID;
  output_has_non_ascii = wasm_i8x16_bitmask(c.copied_or) != 0;
  return (int)(c.out - out);
}

/* Whether the last reduced text holds a byte >= 0x80 (if not, its Latin-1 and
 * UTF-8 decodings are the same text, and the caller decodes nothing again). */
__attribute__((export_name("reducedHasNonAscii")))
int reduced_has_non_ascii(void) {
  return output_has_non_ascii;
}
