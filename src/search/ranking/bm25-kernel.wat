;; The hot loops of keyword ranking from posting lists (issue 42), in WebAssembly: a one-shot search runs them before
;; JavaScriptCore's JIT has warmed up (~100 ns a posting in JavaScript), while a WebAssembly module is compiled to machine
;; code when it is instantiated. bm25-kernel.ts drives it; scripts/generate/bm25-kernel.ts compiles this text with wabt
;; into bm25-kernel-wasm.ts. Pointers are byte offsets into the exported memory, laid out by the caller: the
;; accumulators (f64 by document id) and phrase counts (u8 by id), zero where no phrase added to them, then scratch.
;;
;; A posting list (index/postings/posting-list.ts) holds per document three unsigned LEB128 varints: the id's gap, the
;; frequency f and the length |D|. Its bytes are damaged (-1) when a varint is cut short or over 31 bits, a gap after the
;; first is 0, an id is above `limit` (the list's last id as its segment row states it: the accumulators hold that many),
;; or bytes are left over. Ids in the ascending list `stale` are skipped.
;;
;; live: the documents of a list that are not stale, or -1.
;; score: adds each live document's part, the operations of sqlite ext/fts5/fts5_aux.c fts5Bm25Function in its order
;;     idf * ((f * (k1 + 1)) / (f + k1 * ((1 - b) + (b * |D|) / avgdl))),
;;   so the double is the C code's, to its accumulator, and counts the phrase for it. Returns 0, or -1.
;; add: the same for a phrase FTS5 ranked: adds `factor` * rank (factor -1: the negated rank, exactly) per document.
;; best: where the best `window` scores are among the entries with at least `wanted` phrases (window -1: all of them),
;;   with every entry tied with the window's last score, in input order; the k-th largest score is the root of a
;;   min-heap of the `window` best met so far (J. W. J. Williams, "Algorithm 232: Heapsort", CACM 7(6), 1964) in
;;   `scratch` (8 bytes a window place): one pass over the scores, which a copy of them for a selection in place would
;;   have written again, page by page of memory touched for the first time; the entries that reached the heap's root
;;   when they came are noted in `out` on the way (4 bytes each, at most one per entry) and filtered by the final root.
;;   Returns the count of indexes written to `out`. Run over the accumulators and counts themselves, the indexes are
;;   the document ids.
;; mask: ANDs the `n` phrase counts at `counts` with the `n` mask bytes at `mask` (255 keeps a count, 0 drops it), into
;;   the mask's bytes, 8 at a time (the JavaScript loop it replaces ran cold: 126k documents at 20k sessions).
(module
  (memory (export "memory") 1)
  (global $at (mut i32) (i32.const 0))
  (global $end (mut i32) (i32.const 0))
  (global $bad (mut i32) (i32.const 0))
  ;; The varint at $at (advanced past it); sets $bad when it is cut short or over 31 bits.
  (func $varint (result i32)
    (local $value i32) (local $shift i32) (local $byte i32)
    (loop $next
      (if (i32.ge_u (global.get $at) (global.get $end))
        (then (global.set $bad (i32.const 1)) (return (i32.const 0))))
      (local.set $byte (i32.load8_u (global.get $at)))
      (global.set $at (i32.add (global.get $at) (i32.const 1)))
      (if (i32.and (i32.eq (local.get $shift) (i32.const 28)) (i32.gt_u (local.get $byte) (i32.const 7)))
        (then (global.set $bad (i32.const 1)) (return (i32.const 0))))
      (local.set $value
        (i32.or (local.get $value) (i32.shl (i32.and (local.get $byte) (i32.const 0x7f)) (local.get $shift))))
      (if (i32.ge_u (local.get $byte) (i32.const 0x80))
        (then
          (local.set $shift (i32.add (local.get $shift) (i32.const 7)))
          (br $next))))
    (local.get $value))
  ;; The first of the ascending ids from $stale to $staleEnd that is at or above $position ($staleEnd when none).
  (func $skipStale (param $stale i32) (param $staleEnd i32) (param $position i32) (result i32)
    (block $found
      (loop $advance
        (br_if $found (i32.ge_u (local.get $stale) (local.get $staleEnd)))
        (br_if $found (i32.ge_s (i32.load (local.get $stale)) (local.get $position)))
        (local.set $stale (i32.add (local.get $stale) (i32.const 4)))
        (br $advance)))
    (local.get $stale))
  ;; Whether the id at $stale (from $skipStale) is $position.
  (func $isStale (param $stale i32) (param $staleEnd i32) (param $position i32) (result i32)
    (if (result i32) (i32.ge_u (local.get $stale) (local.get $staleEnd))
      (then (i32.const 0))
      (else (i32.eq (i32.load (local.get $stale)) (local.get $position)))))
  (func (export "live")
    (param $source i32) (param $end i32) (param $count i32) (param $stale i32) (param $staleEnd i32) (param $limit i32)
    (result i32)
    (local $i i32) (local $position i32) (local $gap i32) (local $live i32)
    (global.set $at (local.get $source))
    (global.set $end (local.get $end))
    (global.set $bad (i32.const 0))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $gap (call $varint))
        (drop (call $varint))
        (drop (call $varint))
        (if (global.get $bad) (then (return (i32.const -1))))
        (if (i32.and (i32.ne (local.get $i) (i32.const 0)) (i32.eqz (local.get $gap))) (then (return (i32.const -1))))
        (local.set $position (i32.add (local.get $position) (local.get $gap)))
        (if (i32.gt_u (local.get $position) (local.get $limit)) (then (return (i32.const -1))))
        (local.set $stale (call $skipStale (local.get $stale) (local.get $staleEnd) (local.get $position)))
        (if (i32.eqz (call $isStale (local.get $stale) (local.get $staleEnd) (local.get $position)))
          (then (local.set $live (i32.add (local.get $live) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (if (i32.ne (global.get $at) (local.get $end)) (then (return (i32.const -1))))
    (local.get $live))
  ;; Adds $part to document $id's accumulator and counts the phrase for it.
  (func $add (param $id i32) (param $part f64) (param $accumulators i32) (param $counts i32)
    (local $slot i32)
    (local.set $slot (i32.add (local.get $accumulators) (i32.shl (local.get $id) (i32.const 3))))
    (f64.store (local.get $slot) (f64.add (f64.load (local.get $slot)) (local.get $part)))
    (local.set $slot (i32.add (local.get $counts) (local.get $id)))
    (i32.store8 (local.get $slot) (i32.add (i32.load8_u (local.get $slot)) (i32.const 1))))
;; score's loop reads a one-byte varint (every frequency below 128, short gaps and lengths) in place and adds to the
;; accumulator in place: JavaScriptCore runs a one-shot search's module in its baseline tier (BBQ), which does not inline
;; calls, and the calls per posting ($varint three times, $skipStale, $isStale, $add) were most of the loop's time.
  (func (export "score")
    (param $source i32) (param $end i32) (param $count i32) (param $stale i32) (param $staleEnd i32) (param $limit i32)
    (param $idf f64) (param $k1PlusOne f64) (param $k1 f64) (param $oneMinusB f64) (param $b f64)
    (param $averageLength f64)
    (param $accumulators i32) (param $counts i32)
    (result i32)
    (local $i i32) (local $position i32) (local $gap i32) (local $frequency f64) (local $length f64)
    (local $p i32) (local $byte i32) (local $value i32) (local $slot i32)
    (local.set $p (local.get $source))
    (global.set $end (local.get $end))
    (global.set $bad (i32.const 0))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        ;; the gap: one byte here, a longer varint by $varint
        (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
        (local.set $byte (i32.load8_u (local.get $p)))
        (if (i32.lt_u (local.get $byte) (i32.const 0x80))
          (then
            (local.set $gap (local.get $byte))
            (local.set $p (i32.add (local.get $p) (i32.const 1))))
          (else
            (global.set $at (local.get $p))
            (local.set $gap (call $varint))
            (if (global.get $bad) (then (return (i32.const -1))))
            (local.set $p (global.get $at))))
        ;; the frequency: one byte here, a longer varint by $varint
        (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
        (local.set $byte (i32.load8_u (local.get $p)))
        (if (i32.lt_u (local.get $byte) (i32.const 0x80))
          (then
            (local.set $value (local.get $byte))
            (local.set $p (i32.add (local.get $p) (i32.const 1))))
          (else
            (global.set $at (local.get $p))
            (local.set $value (call $varint))
            (if (global.get $bad) (then (return (i32.const -1))))
            (local.set $p (global.get $at))))
        (local.set $frequency (f64.convert_i32_u (local.get $value)))
        ;; the length: one byte here, a longer varint by $varint
        (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
        (local.set $byte (i32.load8_u (local.get $p)))
        (if (i32.lt_u (local.get $byte) (i32.const 0x80))
          (then
            (local.set $value (local.get $byte))
            (local.set $p (i32.add (local.get $p) (i32.const 1))))
          (else
            (global.set $at (local.get $p))
            (local.set $value (call $varint))
            (if (global.get $bad) (then (return (i32.const -1))))
            (local.set $p (global.get $at))))
        (local.set $length (f64.convert_i32_u (local.get $value)))
        (if (i32.and (i32.ne (local.get $i) (i32.const 0)) (i32.eqz (local.get $gap))) (then (return (i32.const -1))))
        (local.set $position (i32.add (local.get $position) (local.get $gap)))
        (if (i32.gt_u (local.get $position) (local.get $limit)) (then (return (i32.const -1))))
        (block $next
          (if (i32.lt_u (local.get $stale) (local.get $staleEnd))
            (then
              (local.set $stale (call $skipStale (local.get $stale) (local.get $staleEnd) (local.get $position)))
              (br_if $next (call $isStale (local.get $stale) (local.get $staleEnd) (local.get $position)))))
          ;; $add in place
          (local.set $slot (i32.add (local.get $accumulators) (i32.shl (local.get $position) (i32.const 3))))
          (f64.store (local.get $slot)
            (f64.add (f64.load (local.get $slot))
              (f64.mul (local.get $idf)
                (f64.div
                  (f64.mul (local.get $frequency) (local.get $k1PlusOne))
                  (f64.add (local.get $frequency)
                    (f64.mul (local.get $k1)
                      (f64.add (local.get $oneMinusB)
                        (f64.div (f64.mul (local.get $b) (local.get $length)) (local.get $averageLength)))))))))
          (local.set $slot (i32.add (local.get $counts) (local.get $position)))
          (i32.store8 (local.get $slot) (i32.add (i32.load8_u (local.get $slot)) (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (if (i32.ne (local.get $p) (local.get $end)) (then (return (i32.const -1))))
    (i32.const 0))
  (func (export "add")
    (param $ids i32) (param $ranks i32) (param $n i32) (param $factor f64) (param $accumulators i32) (param $counts i32)
    (local $i i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $add
          (i32.load (i32.add (local.get $ids) (i32.shl (local.get $i) (i32.const 2))))
          (f64.mul (local.get $factor) (f64.load (i32.add (local.get $ranks) (i32.shl (local.get $i) (i32.const 3)))))
          (local.get $accumulators) (local.get $counts))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each))))
  ;; The window's best scores so far as a min-heap of f64 at $heap ($size of them): its root is the smallest of them.
  ;; Adds $value to a heap of $size values (room for one more).
  (func $heapPush (param $heap i32) (param $size i32) (param $value f64)
    (local $i i32) (local $parent i32) (local $above f64)
    (local.set $i (local.get $size))
    (block $placed
      (loop $up
        (br_if $placed (i32.eqz (local.get $i)))
        (local.set $parent (i32.shr_u (i32.sub (local.get $i) (i32.const 1)) (i32.const 1)))
        (local.set $above (f64.load (i32.add (local.get $heap) (i32.shl (local.get $parent) (i32.const 3)))))
        (br_if $placed (f64.le (local.get $above) (local.get $value)))
        (f64.store (i32.add (local.get $heap) (i32.shl (local.get $i) (i32.const 3))) (local.get $above))
        (local.set $i (local.get $parent))
        (br $up)))
    (f64.store (i32.add (local.get $heap) (i32.shl (local.get $i) (i32.const 3))) (local.get $value)))
  ;; Replaces the root of a heap of $size values by $value.
  (func $heapReplaceRoot (param $heap i32) (param $size i32) (param $value f64)
    (local $i i32) (local $child i32) (local $below f64) (local $right f64)
    (block $placed
      (loop $down
        (local.set $child (i32.add (i32.shl (local.get $i) (i32.const 1)) (i32.const 1)))
        (br_if $placed (i32.ge_u (local.get $child) (local.get $size)))
        (local.set $below (f64.load (i32.add (local.get $heap) (i32.shl (local.get $child) (i32.const 3)))))
        (if (i32.lt_u (i32.add (local.get $child) (i32.const 1)) (local.get $size))
          (then
            (local.set $right
              (f64.load (i32.add (local.get $heap) (i32.shl (i32.add (local.get $child) (i32.const 1)) (i32.const 3)))))
            (if (f64.lt (local.get $right) (local.get $below))
              (then
                (local.set $child (i32.add (local.get $child) (i32.const 1)))
                (local.set $below (local.get $right))))))
        (br_if $placed (f64.ge (local.get $below) (local.get $value)))
        (f64.store (i32.add (local.get $heap) (i32.shl (local.get $i) (i32.const 3))) (local.get $below))
        (local.set $i (local.get $child))
        (br $down)))
    (f64.store (i32.add (local.get $heap) (i32.shl (local.get $i) (i32.const 3))) (local.get $value)))
  (func (export "best")
    (param $scores i32) (param $matched i32) (param $n i32) (param $wanted i32) (param $window i32)
    (param $scratch i32) (param $out i32)
    (result i32)
    (local $i i32) (local $accepted i32) (local $threshold f64) (local $score f64) (local $written i32)
    (local $kept i32) (local $id i32)
    ;; One pass: the window's best scores in a heap at $scratch, and to $out every entry (with enough phrases) that
    ;; scored at least the heap's root when it came. The root only rises, up to the final threshold, so $out then holds
    ;; every entry at or above that threshold, in input order, and a few that fell below it since.
    (block $scanned
      (loop $scan
        (br_if $scanned (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.ge_u (i32.load8_u (i32.add (local.get $matched) (local.get $i))) (local.get $wanted))
          (then
            (local.set $score (f64.load (i32.add (local.get $scores) (i32.shl (local.get $i) (i32.const 3)))))
            (if (i32.lt_s (local.get $accepted) (local.get $window))
              (then
                (call $heapPush (local.get $scratch) (local.get $accepted) (local.get $score))
                (i32.store (i32.add (local.get $out) (i32.shl (local.get $written) (i32.const 2))) (local.get $i))
                (local.set $written (i32.add (local.get $written) (i32.const 1))))
              (else
                (if (i32.lt_s (local.get $window) (i32.const 1))
                  (then ;; window -1: every entry
                    (i32.store (i32.add (local.get $out) (i32.shl (local.get $written) (i32.const 2))) (local.get $i))
                    (local.set $written (i32.add (local.get $written) (i32.const 1))))
                  (else
                    (if (f64.ge (local.get $score) (f64.load (local.get $scratch)))
                      (then
                        (if (f64.gt (local.get $score) (f64.load (local.get $scratch)))
                          (then (call $heapReplaceRoot (local.get $scratch) (local.get $window) (local.get $score))))
                        (i32.store (i32.add (local.get $out) (i32.shl (local.get $written) (i32.const 2)))
                          (local.get $i))
                        (local.set $written (i32.add (local.get $written) (i32.const 1)))))))))
            (local.set $accepted (i32.add (local.get $accepted) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $scan)))
    ;; no more entries than the window (or window -1): $out holds them all
    (if (i32.or (i32.lt_s (local.get $window) (i32.const 1)) (i32.le_s (local.get $accepted) (local.get $window)))
      (then (return (local.get $written))))
    ;; the threshold is the window's smallest score, the heap's root (the k-th largest): keep what reaches it
    (local.set $threshold (f64.load (local.get $scratch)))
    (local.set $i (i32.const 0))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $written)))
        (local.set $id (i32.load (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))))
        (if (f64.ge (f64.load (i32.add (local.get $scores) (i32.shl (local.get $id) (i32.const 3))))
              (local.get $threshold))
          (then
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $kept) (i32.const 2))) (local.get $id))
            (local.set $kept (i32.add (local.get $kept) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $kept))
  (func (export "mask") (param $counts i32) (param $mask i32) (param $n i32)
    (local $i i32) (local $whole i32)
    (local.set $whole (i32.and (local.get $n) (i32.const -8)))
    (block $wordsDone
      (loop $words
        (br_if $wordsDone (i32.ge_u (local.get $i) (local.get $whole)))
        (i64.store (i32.add (local.get $mask) (local.get $i))
          (i64.and
            (i64.load (i32.add (local.get $counts) (local.get $i)))
            (i64.load (i32.add (local.get $mask) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $words)))
    (block $bytesDone
      (loop $bytes
        (br_if $bytesDone (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store8 (i32.add (local.get $mask) (local.get $i))
          (i32.and
            (i32.load8_u (i32.add (local.get $counts) (local.get $i)))
            (i32.load8_u (i32.add (local.get $mask) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $bytes))))
)
