;; TFRecord framing + masked CRC-32C (Castagnoli) over a whole buffer in one call.
;; Compiled by scripts/gen-relay-wasm.mjs into scan-wasm.ts (base64), so the reader needs no
;; native code and verifies both CRCs of every record at ~1.5 GB/s on one core. It also matches
;; each record to the learned event shapes (event-shapes.ts) of the reader, 16 bytes at a time.
;;
;; A TFRecord is: u64 length (LE) | u32 masked_crc32c(length bytes) | data | u32 masked_crc32c(data).
;; masked(c) = rotr(c, 15) + 0xa282ead8.
;;
;; Memory layout (owned by scan.ts): [0, 8192) slicing-by-8 tables built by init();
;; [8192, 10240) the header CRC memo (256 x {length, masked CRC});
;; the caller places the shape table, its prediction array, input and output above 10240.
;;
;; Shape table (packed by event-shapes.ts, i32 words from its base $tab):
;;   [0] n; [1 + (len & 255)] first shape of that length bucket, or -1;
;;   [257 + 2i] byte offset of shape i from $tab; [258 + 2i] next shape in its bucket, or -1.
;;   shape: len, nChunks, wallPos (-1: none), value (2 * pos + 1 if a double, 2 * pos if a
;;   float; -1 unless the shape has exactly one value), stepPos (-1: none), step varint
;;   length, 2 unused i32, then nChunks x 48 bytes (offset, 3 unused i32, a v128 mask, a v128
;;   value): the 16 bytes at offset, masked, must equal the value. Shapes are at least 16
;;   bytes long.
(module
  (memory (export "memory") 1) ;; the tables and the memo; scan.ts grows it for the rest
  (global $stop (mut i32) (i32.const 0))
  ;; The shape the previous record had (-1: none); $next[prev] predicts the next one.
  (global $prev (mut i32) (i32.const -1))

  ;; Forget the prediction (a new shape table was loaded).
  (func (export "reset") (global.set $prev (i32.const -1)))

  (func (export "stopPos") (result i32) (global.get $stop))

  ;; Builds the 8 slicing tables at 0..8192 (table s at s*1024).
  (func (export "init")
    (local $n i32) (local $c i32) (local $k i32) (local $s i32)
    (loop $byte
      (local.set $c (local.get $n))
      (local.set $k (i32.const 0))
      (loop $bit
        (local.set $c
          (select
            (i32.xor (i32.const 0x82f63b78) (i32.shr_u (local.get $c) (i32.const 1)))
            (i32.shr_u (local.get $c) (i32.const 1))
            (i32.and (local.get $c) (i32.const 1))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br_if $bit (i32.lt_u (local.get $k) (i32.const 8))))
      (i32.store (i32.shl (local.get $n) (i32.const 2)) (local.get $c))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br_if $byte (i32.lt_u (local.get $n) (i32.const 256))))
    (local.set $s (i32.const 1))
    (loop $slice
      (local.set $n (i32.const 0))
      (loop $entry
        (local.set $c
          (i32.load (i32.add (i32.shl (i32.sub (local.get $s) (i32.const 1)) (i32.const 10))
                             (i32.shl (local.get $n) (i32.const 2)))))
        (local.set $c
          (i32.xor (i32.load (i32.shl (i32.and (local.get $c) (i32.const 255)) (i32.const 2)))
                   (i32.shr_u (local.get $c) (i32.const 8))))
        (i32.store (i32.add (i32.shl (local.get $s) (i32.const 10)) (i32.shl (local.get $n) (i32.const 2)))
                   (local.get $c))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br_if $entry (i32.lt_u (local.get $n) (i32.const 256))))
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (br_if $slice (i32.lt_u (local.get $s) (i32.const 8))))
    ;; the header memo: every slot empty (a length above any maxLen)
    (local.set $n (i32.const 8192))
    (loop $memo
      (i32.store (local.get $n) (i32.const -1))
      (local.set $n (i32.add (local.get $n) (i32.const 8)))
      (br_if $memo (i32.lt_u (local.get $n) (i32.const 10240)))))

  ;; Plain CRC-32C of [p, p+len) (slicing-by-8).
  (func $crc (export "crc") (param $p i32) (param $len i32) (result i32)
    (local $c i32) (local $end i32) (local $hi i32)
    (local.set $c (i32.const -1))
    (local.set $end (i32.add (local.get $p) (local.get $len)))
    (block $done8
      (loop $eight
        (br_if $done8 (i32.gt_u (i32.add (local.get $p) (i32.const 8)) (local.get $end)))
        (local.set $c (i32.xor (local.get $c) (i32.load (local.get $p))))
        (local.set $hi (i32.load offset=4 (local.get $p)))
        (local.set $c
          (i32.xor
            (i32.xor
              (i32.xor
                (i32.load offset=7168 (i32.shl (i32.and (local.get $c) (i32.const 255)) (i32.const 2)))
                (i32.load offset=6144 (i32.shl (i32.and (i32.shr_u (local.get $c) (i32.const 8)) (i32.const 255)) (i32.const 2))))
              (i32.xor
                (i32.load offset=5120 (i32.shl (i32.and (i32.shr_u (local.get $c) (i32.const 16)) (i32.const 255)) (i32.const 2)))
                (i32.load offset=4096 (i32.shl (i32.shr_u (local.get $c) (i32.const 24)) (i32.const 2)))))
            (i32.xor
              (i32.xor
                (i32.load offset=3072 (i32.shl (i32.and (local.get $hi) (i32.const 255)) (i32.const 2)))
                (i32.load offset=2048 (i32.shl (i32.and (i32.shr_u (local.get $hi) (i32.const 8)) (i32.const 255)) (i32.const 2))))
              (i32.xor
                (i32.load offset=1024 (i32.shl (i32.and (i32.shr_u (local.get $hi) (i32.const 16)) (i32.const 255)) (i32.const 2)))
                (i32.load (i32.shl (i32.shr_u (local.get $hi) (i32.const 24)) (i32.const 2)))))))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $eight)))
    ;; one 4-byte step before the single bytes (event records are short: the tail matters)
    (if (i32.le_u (i32.add (local.get $p) (i32.const 4)) (local.get $end))
      (then
        (local.set $c (i32.xor (local.get $c) (i32.load (local.get $p))))
        (local.set $c
          (i32.xor
            (i32.xor
              (i32.load offset=3072 (i32.shl (i32.and (local.get $c) (i32.const 255)) (i32.const 2)))
              (i32.load offset=2048 (i32.shl (i32.and (i32.shr_u (local.get $c) (i32.const 8)) (i32.const 255)) (i32.const 2))))
            (i32.xor
              (i32.load offset=1024 (i32.shl (i32.and (i32.shr_u (local.get $c) (i32.const 16)) (i32.const 255)) (i32.const 2)))
              (i32.load (i32.shl (i32.shr_u (local.get $c) (i32.const 24)) (i32.const 2))))))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))))
    (block $done1
      (loop $one
        (br_if $done1 (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $c
          (i32.xor
            (i32.load (i32.shl (i32.and (i32.xor (local.get $c) (i32.load8_u (local.get $p))) (i32.const 255)) (i32.const 2)))
            (i32.shr_u (local.get $c) (i32.const 8))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $one)))
    (i32.xor (local.get $c) (i32.const -1)))

  (func $masked (param $p i32) (param $len i32) (result i32)
    (i32.add (i32.rotr (call $crc (local.get $p) (local.get $len)) (i32.const 15)) (i32.const 0xa282ead8)))

  ;; True when [p, p+12) is a record header whose length is sane and whose length CRC matches.
  ;; The masked CRC of each length is memoised (direct-mapped on its low byte, at MEMO): event
  ;; records repeat a few lengths, and the CRC of the same 8 bytes is the same.
  (func $header_ok (param $p i32) (param $maxLen i32) (result i32)
    (local $len i32) (local $slot i32)
    (local.set $len (i32.load (local.get $p)))
    (if (i32.or (i32.load offset=4 (local.get $p)) (i32.gt_u (local.get $len) (local.get $maxLen)))
      (then (return (i32.const 0))))
    (local.set $slot (i32.add (i32.const 8192) (i32.shl (i32.and (local.get $len) (i32.const 255)) (i32.const 3))))
    (if (i32.ne (i32.load (local.get $slot)) (local.get $len))
      (then
        (i32.store offset=4 (local.get $slot) (call $masked (local.get $p) (i32.const 8)))
        (i32.store (local.get $slot) (local.get $len))))
    (i32.eq (i32.load offset=4 (local.get $slot)) (i32.load offset=8 (local.get $p))))

  ;; The first offset after $p whose 12 bytes form a valid header (or where too few bytes are
  ;; left before $end to tell: the next scan goes on from there).
  (func $resync (param $p i32) (param $end i32) (param $maxLen i32) (result i32)
    (local $q i32)
    (local.set $q (i32.add (local.get $p) (i32.const 1)))
    (block $found
      (loop $seek
        (br_if $found (i32.gt_u (i32.add (local.get $q) (i32.const 12)) (local.get $end)))
        (br_if $found (call $header_ok (local.get $q) (local.get $maxLen)))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $seek)))
    (local.get $q))

  ;; Address of shape i of the table at $tab.
  (func $shape (param $tab i32) (param $i i32) (result i32)
    (i32.add (local.get $tab)
             (i32.load offset=1028 (i32.add (local.get $tab) (i32.shl (local.get $i) (i32.const 3))))))

  ;; True when the data at $d has every constant byte of shape $s (the caller checked the length).
  (func $matches (param $d i32) (param $s i32) (result i32)
    (local $c i32) (local $end i32)
    (local.set $c (i32.add (local.get $s) (i32.const 32)))
    (local.set $end (i32.add (local.get $c) (i32.mul (i32.load offset=4 (local.get $s)) (i32.const 48))))
    (block $no
      (loop $chunk
        (if (i32.ge_u (local.get $c) (local.get $end)) (then (return (i32.const 1))))
        (br_if $no
          (v128.any_true
            (v128.xor
              (v128.and (v128.load (i32.add (local.get $d) (i32.load (local.get $c))))
                        (v128.load offset=16 (local.get $c)))
              (v128.load offset=32 (local.get $c)))))
        (local.set $c (i32.add (local.get $c) (i32.const 48)))
        (br $chunk)))
    (i32.const 0))

  ;; The shape of the $len bytes at $d: the predicted one, else the first match in its length
  ;; bucket; -1 when none.
  (func $find (param $d i32) (param $len i32) (param $tab i32) (param $next i32) (result i32)
    (local $i i32) (local $s i32)
    (if (i32.ge_s (global.get $prev) (i32.const 0))
      (then
        (local.set $i (i32.load (i32.add (local.get $next) (i32.shl (global.get $prev) (i32.const 2)))))
        (if (i32.ge_s (local.get $i) (i32.const 0))
          (then
            (local.set $s (call $shape (local.get $tab) (local.get $i)))
            (if (i32.eq (i32.load (local.get $s)) (local.get $len))
              (then (if (call $matches (local.get $d) (local.get $s)) (then (return (local.get $i))))))))))
    (local.set $i
      (i32.load offset=4 (i32.add (local.get $tab) (i32.shl (i32.and (local.get $len) (i32.const 255)) (i32.const 2)))))
    (block $none
      (loop $chain
        (br_if $none (i32.lt_s (local.get $i) (i32.const 0)))
        (local.set $s (call $shape (local.get $tab) (local.get $i)))
        (if (i32.eq (i32.load (local.get $s)) (local.get $len))
          (then (if (call $matches (local.get $d) (local.get $s)) (then (return (local.get $i))))))
        (local.set $i
          (i32.load offset=1032 (i32.add (local.get $tab) (i32.shl (local.get $i) (i32.const 3)))))
        (br $chain)))
    (i32.const -1))

  ;; The shape of the record data [d, d+len) in the table at $tab: the one predicted after the
  ;; previous record's shape, tried inline (the common case: writers repeat their tags in order),
  ;; else $find's; -1 when none.
  (func $match_one (param $d i32) (param $len i32) (param $tab i32) (param $nextTab i32) (result i32)
    (local $id i32) (local $s i32) (local $ck i32) (local $ckend i32)
    (if (i32.ge_s (global.get $prev) (i32.const 0))
      (then
        (local.set $id (i32.load (i32.add (local.get $nextTab) (i32.shl (global.get $prev) (i32.const 2)))))
        (if (i32.ge_s (local.get $id) (i32.const 0))
          (then
            (local.set $s (call $shape (local.get $tab) (local.get $id)))
            (if (i32.eq (i32.load (local.get $s)) (local.get $len))
              (then
                (local.set $ck (i32.add (local.get $s) (i32.const 32)))
                (local.set $ckend (i32.add (local.get $ck) (i32.mul (i32.load offset=4 (local.get $s)) (i32.const 48))))
                (block $mismatch
                  (loop $chunk
                    (if (i32.ge_u (local.get $ck) (local.get $ckend)) (then (return (local.get $id))))
                    (br_if $mismatch
                      (v128.any_true
                        (v128.xor
                          (v128.and (v128.load (i32.add (local.get $d) (i32.load (local.get $ck))))
                                    (v128.load offset=16 (local.get $ck)))
                          (v128.load offset=32 (local.get $ck)))))
                    (local.set $ck (i32.add (local.get $ck) (i32.const 48)))
                    (br $chunk)))))))))
    (call $find (local.get $d) (local.get $len) (local.get $tab) (local.get $nextTab)))

  ;; A record whose CRC matched had shape $id (-1: none): the shape after the previous record's
  ;; is this one (learned for the prediction), and this one is the previous for the next.
  (func $follow (param $id i32) (param $nextTab i32)
    (if (i32.and (i32.ge_s (local.get $id) (i32.const 0)) (i32.ge_s (global.get $prev) (i32.const 0)))
      (then (i32.store (i32.add (local.get $nextTab) (i32.shl (global.get $prev) (i32.const 2))) (local.get $id))))
    (global.set $prev (local.get $id)))

  ;; Writes 3 f64 at $q for the record data at $d of the one-value shape at $s: wall_time and
  ;; value, read at the shape's holes as IEEE little-endian, as protobuf's double/float are, and
  ;; the step varint's raw bytes (bytes + 2^32 * length; -1: no step; NaN: over 4 bytes). Equal
  ;; raw bytes are an equal step, so the decoder can reuse the step it decoded last time.
  (func $extract (param $d i32) (param $s i32) (param $q i32)
    (local $v i32) (local $pos i32) (local $n i32)
    (local.set $v (i32.load offset=12 (local.get $s)))
    (local.set $pos (i32.load offset=16 (local.get $s)))
    (local.set $n (i32.load offset=20 (local.get $s)))
    (f64.store offset=16 (local.get $q)
      (if (result f64) (i32.lt_s (local.get $pos) (i32.const 0))
        (then (f64.const -1))
        (else
          (if (result f64) (i32.gt_u (local.get $n) (i32.const 4))
            (then (f64.const nan))
            (else
              (f64.convert_i64_u
                (i64.or
                  (i64.and
                    (i64.extend_i32_u (i32.load (i32.add (local.get $d) (local.get $pos))))
                    (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.shl (local.get $n) (i32.const 3)))) (i64.const 1)))
                  (i64.shl (i64.extend_i32_u (local.get $n)) (i64.const 32)))))))))
    (f64.store (local.get $q)
      (if (result f64) (i32.ge_s (i32.load offset=8 (local.get $s)) (i32.const 0))
        (then (f64.load (i32.add (local.get $d) (i32.load offset=8 (local.get $s)))))
        (else (f64.const 0))))
    (f64.store offset=8 (local.get $q)
      (if (result f64) (i32.and (local.get $v) (i32.const 1))
        (then (f64.load (i32.add (local.get $d) (i32.shr_u (local.get $v) (i32.const 1)))))
        (else (f64.promote_f32 (f32.load (i32.add (local.get $d) (i32.shr_u (local.get $v) (i32.const 1)))))))))

;; Matches the $count records scanned (without a table) at $out to the table at $tab, as
  ;; scan() does with one: writes each ok record's shape into its entry, and the values of a
  ;; one-value shape at $vals + 24 * entry. Another thread may have scanned them (scan-pipeline.ts).
  ;; The hot path of a large backlog: the predicted shape, the prediction and the extraction
  ;; are inline here ($match_one, $follow and $extract as one loop; V8 does not inline wasm calls).
  (func (export "match") (param $base i32) (param $out i32) (param $count i32) (param $tab i32)
                         (param $nextTab i32) (param $vals i32)
    (local $end i32) (local $d i32) (local $len i32) (local $id i32) (local $s i32) (local $prev i32)
    (local $ck i32) (local $ckend i32) (local $v i32) (local $pos i32) (local $n i32)
    (local.set $prev (global.get $prev))
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 4))))
    (block $done
      (loop $entry
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (if (i32.eqz (i32.load offset=8 (local.get $out)))
          (then
            (local.set $d (i32.add (i32.add (local.get $base) (i32.load (local.get $out))) (i32.const 12)))
            (local.set $len (i32.load offset=4 (local.get $out)))
            (local.set $id (i32.const -1))
            (block $predicted
              (br_if $predicted (i32.lt_s (local.get $prev) (i32.const 0)))
              (local.set $id (i32.load (i32.add (local.get $nextTab) (i32.shl (local.get $prev) (i32.const 2)))))
              (br_if $predicted (i32.lt_s (local.get $id) (i32.const 0)))
              (local.set $s (i32.add (local.get $tab) (i32.load offset=1028 (i32.add (local.get $tab) (i32.shl (local.get $id) (i32.const 3))))))
              (if (i32.ne (i32.load (local.get $s)) (local.get $len))
                (then
                  (local.set $id (i32.const -1))
                  (br $predicted)))
              (local.set $ck (i32.add (local.get $s) (i32.const 32)))
              (local.set $ckend (i32.add (local.get $ck) (i32.mul (i32.load offset=4 (local.get $s)) (i32.const 48))))
              (loop $chunk
                (br_if $predicted (i32.ge_u (local.get $ck) (local.get $ckend)))
                (if (v128.any_true
                      (v128.xor
                        (v128.and (v128.load (i32.add (local.get $d) (i32.load (local.get $ck))))
                                  (v128.load offset=16 (local.get $ck)))
                        (v128.load offset=32 (local.get $ck))))
                  (then
                    (local.set $id (i32.const -1))
                    (br $predicted)))
                (local.set $ck (i32.add (local.get $ck) (i32.const 48)))
                (br $chunk)))
            (if (i32.lt_s (local.get $id) (i32.const 0))
              (then
                (global.set $prev (local.get $prev))
                (local.set $id (call $find (local.get $d) (local.get $len) (local.get $tab) (local.get $nextTab)))
                (if (i32.ge_s (local.get $id) (i32.const 0))
                  (then (local.set $s (call $shape (local.get $tab) (local.get $id)))))))
            ;; the prediction: the shape after the previous record's is this one
            (if (i32.and (i32.ge_s (local.get $id) (i32.const 0)) (i32.ge_s (local.get $prev) (i32.const 0)))
              (then (i32.store (i32.add (local.get $nextTab) (i32.shl (local.get $prev) (i32.const 2))) (local.get $id))))
            (local.set $prev (local.get $id))
            (i32.store offset=12 (local.get $out) (local.get $id))
            ;; the extraction ($extract), for a one-value shape ($s is its address)
            (if (i32.ge_s (local.get $id) (i32.const 0))
              (then
                (local.set $v (i32.load offset=12 (local.get $s)))
                (if (i32.ge_s (local.get $v) (i32.const 0))
                  (then
                    (local.set $pos (i32.load offset=16 (local.get $s)))
                    (local.set $n (i32.load offset=20 (local.get $s)))
                    (f64.store offset=16 (local.get $vals)
                      (if (result f64) (i32.lt_s (local.get $pos) (i32.const 0))
                        (then (f64.const -1))
                        (else
                          (if (result f64) (i32.gt_u (local.get $n) (i32.const 4))
                            (then (f64.const nan))
                            (else
                              (f64.convert_i64_u
                                (i64.or
                                  (i64.and
                                    (i64.extend_i32_u (i32.load (i32.add (local.get $d) (local.get $pos))))
                                    (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.shl (local.get $n) (i32.const 3)))) (i64.const 1)))
                                  (i64.shl (i64.extend_i32_u (local.get $n)) (i64.const 32)))))))))
                    (f64.store (local.get $vals)
                      (if (result f64) (i32.ge_s (i32.load offset=8 (local.get $s)) (i32.const 0))
                        (then (f64.load (i32.add (local.get $d) (i32.load offset=8 (local.get $s)))))
                        (else (f64.const 0))))
                    (f64.store offset=8 (local.get $vals)
                      (if (result f64) (i32.and (local.get $v) (i32.const 1))
                        (then (f64.load (i32.add (local.get $d) (i32.shr_u (local.get $v) (i32.const 1)))))
                        (else (f64.promote_f32 (f32.load (i32.add (local.get $d) (i32.shr_u (local.get $v) (i32.const 1))))))))))))))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (local.set $vals (i32.add (local.get $vals) (i32.const 24)))
        (br $entry)))
    (global.set $prev (local.get $prev)))

  ;; Scans records in [p, end). For each, writes 4 i32 at out: offset of the record from base,
  ;; a length, a status, and the record's shape in the table at $tab (-1: none, or no table);
  ;; for a record of a one-value shape also 3 f64 at $vals + 24 * entry: wall_time and value,
  ;; read at the shape's holes as IEEE little-endian, as protobuf's double/float are, and the
  ;; step varint's raw bytes (bytes + 2^32 * length; -1: no step; NaN: over 4 bytes). Equal raw
  ;; bytes are an equal step, so the decoder can reuse the step it decoded last time.
  ;;   0 = ok (length = data length; data at offset+12)
  ;;   1 = data CRC mismatch: length = bytes skipped up to the next valid header after the record's
  ;;       start (a torn record's length is not to be trusted: what was appended after it is kept)
  ;;   2 = bad header (length CRC mismatch or absurd length): length = bytes skipped while
  ;;       re-synchronising on the next valid header
  ;;   3 = oversized: a valid header claiming more than maxLen bytes; skipped the same way
  ;; Stops at the first incomplete record (writer still appending), after maxRecs entries, or
  ;; at end; stopPos() then tells where the next scan must start. Returns the entry count.
  ;; $tab = 0: no shape table. $nextTab: one i32 per shape, the prediction (-1: none).
  (func (export "scan") (param $base i32) (param $p i32) (param $end i32) (param $out i32)
                        (param $maxRecs i32) (param $maxLen i32) (param $tab i32) (param $nextTab i32)
                        (param $vals i32) (result i32)
    (local $n i32) (local $len i32) (local $q i32) (local $next i32) (local $id i32) (local $s i32)
    (local $status i32)
    (block $exit
      (loop $rec
        (br_if $exit (i32.ge_u (local.get $n) (local.get $maxRecs)))
        (br_if $exit (i32.gt_u (i32.add (local.get $p) (i32.const 12)) (local.get $end)))
        ;; the header: a memo hit inline, else $header_ok (fills the memo, or rejects)
        (local.set $len (i32.load (local.get $p)))
        (local.set $s (i32.add (i32.const 8192) (i32.shl (i32.and (local.get $len) (i32.const 255)) (i32.const 3))))
        (if (i32.and
              ;; (each term a boolean: a non-zero high length word ANDed as it is could be even)
              (i32.or (i32.or (i32.ne (i32.load offset=4 (local.get $p)) (i32.const 0)) (i32.gt_u (local.get $len) (local.get $maxLen)))
                      (i32.or (i32.ne (i32.load (local.get $s)) (local.get $len))
                              (i32.ne (i32.load offset=4 (local.get $s)) (i32.load offset=8 (local.get $p)))))
              (i32.eqz (call $header_ok (local.get $p) (local.get $maxLen))))
          (then
            ;; a length CRC that matches is a real header claiming more than maxLen: oversized
            (local.set $q (call $resync (local.get $p) (local.get $end) (local.get $maxLen)))
            (i32.store (local.get $out) (i32.sub (local.get $p) (local.get $base)))
            (i32.store offset=4 (local.get $out) (i32.sub (local.get $q) (local.get $p)))
            (i32.store offset=8 (local.get $out)
              (select (i32.const 3) (i32.const 2)
                (i32.eq (call $masked (local.get $p) (i32.const 8)) (i32.load offset=8 (local.get $p)))))
            (i32.store offset=12 (local.get $out) (i32.const -1))
            (local.set $out (i32.add (local.get $out) (i32.const 16)))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))
            (local.set $p (local.get $q))
            (br $rec)))
        (local.set $len (i32.load (local.get $p)))
        (local.set $next (i32.add (i32.add (local.get $p) (i32.const 16)) (local.get $len)))
        ;; incomplete data or footer: wait for more bytes
        (br_if $exit (i32.gt_u (local.get $next) (local.get $end)))
        (br_if $exit (i32.lt_u (local.get $next) (local.get $p)))
        (local.set $id (i32.const -1))
        (if (local.get $tab)
          (then (local.set $id (call $match_one (i32.add (local.get $p) (i32.const 12)) (local.get $len) (local.get $tab) (local.get $nextTab)))))
        (local.set $status
          (i32.ne (i32.add (i32.rotr (call $crc (i32.add (local.get $p) (i32.const 12)) (local.get $len)) (i32.const 15))
                           (i32.const 0xa282ead8))
                  (i32.load (i32.sub (local.get $next) (i32.const 4)))))
        (if (local.get $status)
          (then (local.set $id (i32.const -1)))
          (else (if (local.get $tab) (then (call $follow (local.get $id) (local.get $nextTab))))))
        (if (i32.ge_s (local.get $id) (i32.const 0))
          (then
            (local.set $s (call $shape (local.get $tab) (local.get $id)))
            (if (i32.ge_s (i32.load offset=12 (local.get $s)) (i32.const 0))
              (then (call $extract (i32.add (local.get $p) (i32.const 12)) (local.get $s)
                                   (i32.add (local.get $vals) (i32.mul (local.get $n) (i32.const 24))))))))
        ;; a data CRC mismatch may be a record torn by a writer that died, then appended to: its
        ;; length is not to be trusted, so the next record is the next valid header after it
        (if (local.get $status)
          (then
            (local.set $next (call $resync (local.get $p) (local.get $end) (local.get $maxLen)))
            (local.set $len (i32.sub (local.get $next) (local.get $p)))))
        (i32.store (local.get $out) (i32.sub (local.get $p) (local.get $base)))
        (i32.store offset=4 (local.get $out) (local.get $len))
        (i32.store offset=8 (local.get $out) (local.get $status))
        (i32.store offset=12 (local.get $out) (local.get $id))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (local.set $p (local.get $next))
        (br $rec)))
    (global.set $stop (local.get $p))
    (local.get $n))
)
