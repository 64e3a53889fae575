/* The kept keys, as JS writes them into each instance at load (../../../scanner/keyTable.ts, from the one field table
 * ../../../scanner/fieldTable.ts): so a field is one line of that table, and no C is compiled for it. Included by
 * jsonSkip.h after enum Level; static inline because the module's C files are compiled without LTO and this runs once
 * per key of every object the capture reads. Keep the layout in step with keyTable.ts. */
#ifndef CAPTURE_KEY_TABLE_H
#define CAPTURE_KEY_TABLE_H

#include <wasm_simd128.h>

#define KEY_TABLE_LEVELS 3
/* The longest key the table holds, in bytes; a longer key is no kept key. */
#define KEY_TABLE_MAX_KEY 64
#define KEY_TABLE_ENTRIES 255

/* A key no line keeps. */
#define DROP (-1)

/* What field_of() gives for a kept key: its code (the entries' field), whether its value is read into, and how. */
#define WORD_CODE(w) ((unsigned)(w) & 0xff)
#define WORD_DESCEND(w) (((unsigned)(w) >> 8) & 3)
#define DESCEND_NONE 0
#define DESCEND_OBJECT 1 /* an object value is read into, its keys at level WORD_LEVEL */
#define DESCEND_ARRAY 2  /* an array value is read into: each object element is one at level WORD_LEVEL, listed as WORD_ELEMENT */
#define WORD_LEVEL(w) ((enum Level)(((unsigned)(w) >> 10) & 3))
#define WORD_ELEMENT(w) (((unsigned)(w) >> 16) & 0xff)

typedef struct {
  u8 key[KEY_TABLE_MAX_KEY]; /* zero past its length */
  unsigned word;
  unsigned pad[3];
} KeyEntry;

typedef struct {
  KeyEntry entries[KEY_TABLE_ENTRIES];
  /* By level and key length: the first entry of that length (low byte) and how many there are (high byte). */
  unsigned short range[KEY_TABLE_LEVELS][KEY_TABLE_MAX_KEY + 1];
} KeyTable;

/* All zero until JS writes it (capture.c exports its address): no key is kept. One per instance, as capture.c alone
 * includes this. */
static KeyTable key_table __attribute__((aligned(16)));

/* The n bytes at k are the entry's key (which is zero past n). Reads up to 15 bytes past k + n: a key lies in a line,
 * which has SCANNER_READ_PAST_END after it. */
static inline int key_equals(const u8 *k, unsigned n, const u8 *key) {
  for (unsigned i = 0; i < n; i += 16) {
    unsigned differ = 0xFFFFu & ~(unsigned)wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(k + i), wasm_v128_load(key + i)));
    if (n - i < 16) differ &= (1u << (n - i)) - 1;
    if (differ) return 0;
  }
  return 1;
}

/* What a key of an object at `level` is: its word, or DROP. By length first: most keys of a line are dropped, and a
 * length no kept key has costs one load. */
static inline int field_of(enum Level level, const u8 *k, unsigned n) {
  if (n > KEY_TABLE_MAX_KEY) return DROP;
  unsigned range = key_table.range[level][n];
  for (unsigned i = range & 0xff, end = i + (range >> 8); i < end; i++) {
    if (key_equals(k, n, key_table.entries[i].key)) return (int)key_table.entries[i].word;
  }
  return DROP;
}

#endif
