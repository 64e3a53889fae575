;; Skips a JSON string interior 16 bytes at a time (wasm SIMD). Compiled to
;; ./stringInteriorWasm.ts by scripts/gen-string-interior-wasm.mjs; see
;; ./wasmInteriorSkipper.ts for the contract and the JS that calls it.
(module
  (memory (export "memory") 1)
  ;; Bytes 0-255: the class of each byte after a backslash (1: one of "\/bfnrt,
  ;; 2: a hex digit); bytes >= 0x80 stay 0. The chunk is copied from BYTE 256 on.
  (data (i32.const 0) "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\00\01\02\02\02\02\02\02\02\02\02\02\00\00\00\00\00\00\00\02\02\02\02\02\02\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\01\00\00\00\00\02\03\02\02\02\03\00\00\00\00\00\00\00\01\00\00\00\01\00\01\00\00\00\00\00\00\00\00\00\00\00")

  ;; From $p, skips plain bytes and complete valid escapes up to $end. Returns
  ;; the address of the first byte the caller must look at (the closing quote,
  ;; a control byte, or a backslash whose escape is invalid or cut by $end), or
  ;; $end. Reads up to 15 bytes past $end (the caller leaves room); those
  ;; bytes are masked off.
  (func (export "skipInterior") (param $p i32) (param $end i32) (result i32)
    (local $bits i32) (local $at i32) (local $kind i32) (local $len i32) (local $next i32) (local $v v128)
    (block $done
      (loop $block
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $v (v128.load (local.get $p)))
        (local.set $bits (i8x16.bitmask
          (v128.or
            (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x22)))
                     (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c))))
            (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 0x20))))))
        (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 16))
          (then (local.set $bits (i32.and (local.get $bits)
            (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $end) (local.get $p))) (i32.const 1))))))
        ;; Each flagged byte of the block in turn: escapes are skipped in place,
        ;; so escape-dense text (code, logs) stays in this loop.
        (loop $flagged
          (if (i32.eqz (local.get $bits))
            (then
              (local.set $p (i32.add (local.get $p) (i32.const 16)))
              (br $block)))
          (local.set $at (i32.add (local.get $p) (i32.ctz (local.get $bits))))
          (if (i32.ne (i32.load8_u (local.get $at)) (i32.const 0x5c))
            (then (return (local.get $at))))
          ;; The escape at $at: `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t` (2 bytes) or `\u` and
          ;; four hex digits (6), wholly before $end; else the caller decides.
          (if (i32.ge_u (i32.add (local.get $at) (i32.const 1)) (local.get $end))
            (then (return (local.get $at))))
          (local.set $kind (i32.load8_u (i32.load8_u offset=1 (local.get $at))))
          (if (i32.and (local.get $kind) (i32.const 1))
            (then (local.set $len (i32.const 2)))
            (else
              (if (i32.or
                    (i32.ne (i32.load8_u offset=1 (local.get $at)) (i32.const 0x75))
                    (i32.ge_u (i32.add (local.get $at) (i32.const 5)) (local.get $end)))
                (then (return (local.get $at))))
              ;; All four hex: the AND of their classes has bit 2.
              (if (i32.eqz (i32.and
                    (i32.and
                      (i32.and (i32.load8_u (i32.load8_u offset=2 (local.get $at)))
                               (i32.load8_u (i32.load8_u offset=3 (local.get $at))))
                      (i32.and (i32.load8_u (i32.load8_u offset=4 (local.get $at)))
                               (i32.load8_u (i32.load8_u offset=5 (local.get $at)))))
                    (i32.const 2)))
                (then (return (local.get $at))))
              (local.set $len (i32.const 6))))
          (local.set $next (i32.sub (i32.add (local.get $at) (local.get $len)) (local.get $p)))
          (if (i32.ge_u (local.get $next) (i32.const 16))
            (then
              (local.set $p (i32.add (local.get $p) (local.get $next)))
              (br $block)))
          (local.set $bits (i32.and (local.get $bits) (i32.shl (i32.const -1) (local.get $next))))
          (br $flagged))))
    (local.get $end))
)
