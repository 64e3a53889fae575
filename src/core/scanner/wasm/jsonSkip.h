/* JSON grammar checks shared by reduce.c and capture.c. Static inline in a
 * header because the module's C files are compiled without LTO: these run
 * once per token, and a call across files each time costs more than the token. */
#ifndef SCANNER_JSON_SKIP_H
#define SCANNER_JSON_SKIP_H

#include "interior.h"

typedef unsigned char u8;

/* The line is not JSON: the caller's full path says why. */
#define REDUCE_INVALID (-1)
/* Valid or not, this line is not handled exactly here (root no object, an
 * escaped key where keys are matched, no room): the caller parses it whole. */
#define REDUCE_FULL (-2)

/* Both walkers see the line through this: only its bytes are scanned, and
 * JSON.parse accepts no NUL byte anywhere, so one NUL written after the line
 * stops every loop below without an end check of its own; the string kernel
 * is given the end. `stack`: one bit per open container (1: object) of a
 * skipped value, so any depth costs depth/8 bytes. */
typedef struct {
  const u8 *end;
  u8 *stack;
} Line;

enum Level { ROOT, MESSAGE, BLOCK };

static inline const u8 *skip_ws(const u8 *p) {
  while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
  return p;
}

static inline int is_digit(u8 b) { return (u8)(b - '0') < 10; }

/* p at the opening quote; returns the byte after the closing quote, or 0. */
static inline const u8 *skip_string(const u8 *p, const Line *l) {
  const u8 *q = skip_interior(p + 1, l->end);
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

/* p at the opening quote of a key. Keys are short: a byte loop, which also
 * sees whether one holds an escape (JSON.parse reads "typ\u0065" as "type"):
 * returns its closing quote, or 0 with *status set. */
static inline const u8 *scan_key(const u8 *p, int *status) {
  const u8 *q = p + 1;
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

static inline int key_is(const u8 *k, unsigned n, const char *name) {
  for (unsigned i = 0; i < n; i++)
    if (k[i] != (u8)name[i]) return 0;
  return name[n] == 0;
}

/* The values the engine reads (../fields.ts), by where their key sits. capture.c
 * hands these numbers to ../lineReducer.ts (KeptField there): keep both in step. */
enum Field {
  DROP = -1,
  F_TYPE, F_UUID, F_TIMESTAMP, F_SESSION_ID, F_CWD, F_AGENT_ID, F_IS_SIDECHAIN, F_IS_META,
  F_API_BLOCK_INDEX, F_AI_TITLE, F_CUSTOM_TITLE, F_LAST_PROMPT, F_MESSAGE,
  F_MESSAGE_ID, F_STOP_REASON, F_CONTENT,
  F_BLOCK_TYPE, F_BLOCK_ID, F_BLOCK_NAME, F_TOOL_USE_ID, F_BLOCK_TEXT,
  /* An object element of message.content (no key: it starts a block). */
  F_BLOCK,
};

/* What a key of an object at `level` is. */
static inline enum Field field_of(enum Level level, const u8 *k, unsigned n) {
  switch (level) {
    case ROOT:
      if (key_is(k, n, "type")) return F_TYPE;
      if (key_is(k, n, "uuid")) return F_UUID;
      if (key_is(k, n, "timestamp")) return F_TIMESTAMP;
      if (key_is(k, n, "sessionId")) return F_SESSION_ID;
      if (key_is(k, n, "cwd")) return F_CWD;
      if (key_is(k, n, "agentId")) return F_AGENT_ID;
      if (key_is(k, n, "isSidechain")) return F_IS_SIDECHAIN;
      if (key_is(k, n, "isMeta")) return F_IS_META;
      if (key_is(k, n, "apiBlockIndex")) return F_API_BLOCK_INDEX;
      if (key_is(k, n, "aiTitle")) return F_AI_TITLE;
      if (key_is(k, n, "customTitle")) return F_CUSTOM_TITLE;
      if (key_is(k, n, "lastPrompt")) return F_LAST_PROMPT;
      if (key_is(k, n, "message")) return F_MESSAGE;
      return DROP;
    case MESSAGE:
      if (key_is(k, n, "id")) return F_MESSAGE_ID;
      if (key_is(k, n, "stop_reason")) return F_STOP_REASON;
      if (key_is(k, n, "content")) return F_CONTENT;
      return DROP;
    case BLOCK:
      if (key_is(k, n, "type")) return F_BLOCK_TYPE;
      if (key_is(k, n, "id")) return F_BLOCK_ID;
      if (key_is(k, n, "name")) return F_BLOCK_NAME;
      if (key_is(k, n, "tool_use_id")) return F_TOOL_USE_ID;
      if (key_is(k, n, "text")) return F_BLOCK_TEXT;
      return DROP;
  }
  return DROP;
}

#endif
