/* The string-interior kernel, shared by the C files of the scanner's one wasm
 * module (scripts/gen-scanner-wasm.mjs compiles every .c file of this folder). */
#ifndef SCANNER_INTERIOR_H
#define SCANNER_INTERIOR_H

/* Bytes past `end` that a kernel of this module may load (whole SIMD blocks);
 * callers leave that much memory after their input. Bytes there are ignored. */
#define SCANNER_READ_PAST_END 64

/* From p, skips plain bytes and complete valid escapes up to end. Returns the
 * first byte the caller must look at (the closing quote, a control byte, or
 * the backslash of an escape that is invalid or cut by end), or end. */
const unsigned char *skip_interior(const unsigned char *p, const unsigned char *end);

/* Zero that no other file sees the value of (defined in interior.c): vector constants made from it are computed
 * once before a loop and kept, where V8 builds a v128.const anew at every use. */
extern unsigned char interior_opaque_zero;

#endif
