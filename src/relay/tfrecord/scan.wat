;; TFRecord framing + masked CRC-32C (Castagnoli) over a whole buffer in one call.
;; Compiled by scripts/gen-relay-wasm.mjs into scan-wasm.ts (base64), so the reader needs no
;; native code and verifies both CRCs of every record at ~1 GB/s on one core.
;;
;; A TFRecord is: u64 length (LE) | u32 masked_crc32c(length bytes) | data | u32 masked_crc32c(data).
;; masked(c) = rotr(c, 15) + 0xa282ead8.
;;
;; Memory layout (owned by scan.ts): [0, 8192) slicing-by-8 tables built by init();
;; [8192, 10240) the header CRC memo (256 x {length, masked CRC});
;; the caller places its input and output arrays above TABLE_END.
(module
  (memory (export "memory") 1)
  (global $stop (mut i32) (i32.const 0))

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

  ;; Scans records in [p, end). For each, writes 3 i32 at out: offset of the record from base,
  ;; a length, and a status:
  ;;   0 = ok (length = data length; data at offset+12)
  ;;   1 = data CRC mismatch (record skipped; length = data length)
  ;;   2 = bad header (length CRC mismatch or absurd length): length = bytes skipped while
  ;;       re-synchronising on the next valid header
  ;; Stops at the first incomplete record (writer still appending), after maxRecs entries, or
  ;; at end; stopPos() then tells where the next scan must start. Returns the entry count.
  (func (export "scan") (param $base i32) (param $p i32) (param $end i32) (param $out i32)
                        (param $maxRecs i32) (param $maxLen i32) (result i32)
    (local $n i32) (local $len i32) (local $q i32) (local $next i32)
    (block $exit
      (loop $rec
        (br_if $exit (i32.ge_u (local.get $n) (local.get $maxRecs)))
        (br_if $exit (i32.gt_u (i32.add (local.get $p) (i32.const 12)) (local.get $end)))
        (if (i32.eqz (call $header_ok (local.get $p) (local.get $maxLen)))
          (then
            ;; re-synchronise: the next offset whose 12 bytes form a valid header
            (local.set $q (i32.add (local.get $p) (i32.const 1)))
            (block $found
              (loop $seek
                (br_if $found (i32.gt_u (i32.add (local.get $q) (i32.const 12)) (local.get $end)))
                (br_if $found (call $header_ok (local.get $q) (local.get $maxLen)))
                (local.set $q (i32.add (local.get $q) (i32.const 1)))
                (br $seek)))
            (i32.store (local.get $out) (i32.sub (local.get $p) (local.get $base)))
            (i32.store offset=4 (local.get $out) (i32.sub (local.get $q) (local.get $p)))
            (i32.store offset=8 (local.get $out) (i32.const 2))
            (local.set $out (i32.add (local.get $out) (i32.const 12)))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))
            (local.set $p (local.get $q))
            (br $rec)))
        (local.set $len (i32.load (local.get $p)))
        (local.set $next (i32.add (i32.add (local.get $p) (i32.const 16)) (local.get $len)))
        ;; incomplete data or footer: wait for more bytes
        (br_if $exit (i32.gt_u (local.get $next) (local.get $end)))
        (br_if $exit (i32.lt_u (local.get $next) (local.get $p)))
        (i32.store (local.get $out) (i32.sub (local.get $p) (local.get $base)))
        (i32.store offset=4 (local.get $out) (local.get $len))
        (i32.store offset=8 (local.get $out)
          (i32.ne (call $masked (i32.add (local.get $p) (i32.const 12)) (local.get $len))
                  (i32.load (i32.sub (local.get $next) (i32.const 4)))))
        (local.set $out (i32.add (local.get $out) (i32.const 12)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (local.set $p (local.get $next))
        (br $rec)))
    (global.set $stop (local.get $p))
    (local.get $n))
)
