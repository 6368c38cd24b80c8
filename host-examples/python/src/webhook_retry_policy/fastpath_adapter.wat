;; The fast path's caller-side canonical-ABI adapter (see fastpath.py).
;;
;; It does, inside wasm and in ONE host->guest call, what a component-model
;; caller does when it calls the core export
;; `webhook:retry-policy/policy@0.1.0#decide-with` of the policy's main core
;; module (whose params, > 16 flat values, travel as one pointer to a record):
;;
;;   1. allocate the 200-byte params record with the module's `cabi_realloc`
;;      and copy the host-written image of it from the scratch block `s`;
;;   2. allocate + copy each owned string (event-id, endpoint-id, and the
;;      transport-error kind), rewriting the pointers: the guest frees the
;;      params record and the strings itself, so they are fresh every call;
;;   3. call decide-with, copy its 72-byte result out of the guest's return
;;      area into `s`, and copy the result's strings (dead-letter ids or the
;;      policy-error field/message) into the out area of `s`;
;;   4. call `cabi_post_...#decide-with`, which frees the result's strings.
;;
;; Returns 0 when the result (and its strings) are in `s`. If the strings do
;; not fit the out area it skips step 4 and returns the return-area pointer;
;; the host then reads the result there and calls post-return itself.
;;
;; Scratch block `s` (allocated once per instance with cabi_realloc):
;;   s+0    params image (200 bytes; string fields hold absolute addresses
;;          of bytes the host wrote inside `s`)
;;   s+200  u32 out-area capacity      s+204  u32 out-area address
;;   s+208  result copy (72 bytes)
;; No policy logic lives here: only the ABI's layout and ownership rules.
(module
  (import "policy" "memory" (memory 0))
  (import "policy" "cabi_realloc" (func $realloc (param i32 i32 i32 i32) (result i32)))
  (import "policy" "decide-with" (func $decide_with (param i32) (result i32)))
  (import "policy" "post-decide-with" (func $post (param i32)))

  ;; Replace the (ptr, len) string at `slot` by a fresh guest-owned copy.
  (func $own_string (param $slot i32)
    (local $len i32) (local $q i32)
    (local.set $len (i32.load offset=4 (local.get $slot)))
    (local.set $q (call $realloc (i32.const 0) (i32.const 0) (i32.const 1) (local.get $len)))
    (memory.copy (local.get $q) (i32.load (local.get $slot)) (local.get $len))
    (i32.store (local.get $slot) (local.get $q)))

  ;; Copy the string at `slot` to `out` if it fits before `end`, point the
  ;; slot at the copy; return the next free byte, or 0 if it did not fit.
  (func $copy_out (param $slot i32) (param $out i32) (param $end i32) (result i32)
    (local $len i32)
    (if (i32.eqz (local.get $out)) (then (return (i32.const 0))))
    (local.set $len (i32.load offset=4 (local.get $slot)))
    (if (i32.gt_u (local.get $len) (i32.sub (local.get $end) (local.get $out)))
      (then (return (i32.const 0))))
    (memory.copy (local.get $out) (i32.load (local.get $slot)) (local.get $len))
    (i32.store (local.get $slot) (local.get $out))
    (i32.add (local.get $out) (local.get $len)))

  (func (export "decide") (param $s i32) (result i32)
    (local $p i32) (local $r i32) (local $out i32) (local $end i32)
    ;; 1-2: the params record and its strings, owned by the callee
    (local.set $p (call $realloc (i32.const 0) (i32.const 0) (i32.const 8) (i32.const 200)))
    (memory.copy (local.get $p) (local.get $s) (i32.const 200))
    (call $own_string (i32.add (local.get $p) (i32.const 80)))   ;; state.event-id
    (call $own_string (i32.add (local.get $p) (i32.const 88)))   ;; state.endpoint-id
    (if (i32.eq (i32.load8_u offset=120 (local.get $p)) (i32.const 1))
      (then (call $own_string (i32.add (local.get $p) (i32.const 128)))))  ;; transport-error kind
    ;; 3: call, copy the result out
    (local.set $r (call $decide_with (local.get $p)))
    (memory.copy (i32.add (local.get $s) (i32.const 208)) (local.get $r) (i32.const 72))
    (local.set $out (i32.load offset=204 (local.get $s)))
    (local.set $end (i32.add (local.get $out) (i32.load offset=200 (local.get $s))))
    (if (i32.eqz (i32.load8_u offset=208 (local.get $s)))
      (then
        ;; ok(decision): stop(...) with some(dead-letter) carries two strings
        (if (i32.and (i32.eq (i32.load8_u offset=216 (local.get $s)) (i32.const 1))
                     (i32.eq (i32.load8_u offset=232 (local.get $s)) (i32.const 1)))
          (then
            (local.set $out (call $copy_out (i32.add (local.get $s) (i32.const 240)) (local.get $out) (local.get $end)))
            (local.set $out (call $copy_out (i32.add (local.get $s) (i32.const 248)) (local.get $out) (local.get $end))))))
      (else
        ;; err(policy-error): field and message
        (local.set $out (call $copy_out (i32.add (local.get $s) (i32.const 220)) (local.get $out) (local.get $end)))
        (local.set $out (call $copy_out (i32.add (local.get $s) (i32.const 228)) (local.get $out) (local.get $end)))))
    (if (i32.eqz (local.get $out)) (then (return (local.get $r))))
    ;; 4: free the result's strings
    (call $post (local.get $r))
    (i32.const 0))
)
