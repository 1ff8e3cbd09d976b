#!/bin/sh
# A stack walk under pcprof run reads wherever a program's frames point, so
# it needs the fault guard (SIGSEGV and SIGBUS held by libprofil, the
# program's own actions kept and chained).  Before 2026-11-26 only a
# profil() buffer took the guard: a recording's walk that met a bad return
# address killed the program with SIGSEGV on every engine (found by the
# execcache helper; this target: exit 139 three times of three).
#   - badframe spin: code whose unwind information lies, so the walk takes
#     a PROT_NONE page, an unmapped hole and a non-canonical address for a
#     return address: the program lives, prints what it prints unprofiled,
#     and its samples are kept, with the walk ended at [unknown];
#   - badframe rawspin: the same after a raw rt_sigaction of its own for
#     SIGSEGV (a runtime that bypasses libc): the walk must see that the
#     guard is not the kernel's handler any more and keep the samples flat
#     (before: "runtime: unexpected fault", exit 99);
#   - badframe ownsegv: the program's own SIGSEGV handler still gets every
#     fault of its own (it counts them against its writes);
#   - badframe crash: a program that dies of SIGSEGV still does, and
#     pcprof run's status says so (128 + 11), as unprofiled.
. "$(dirname "$0")/lib.sh"
BAD=$PWD/${B:-build}/tests/targets/badframe
[ -x "$BAD" ] || fail "missing $BAD (make all)"
case $(uname -m) in x86_64) ;; *) echo "SKIP: the bad frames are x86-64 code"; exit 77 ;; esac

ran=0
for e in thread-timer perf process-timer; do
	PROFIL_ENGINE=$e "$PCPROF" run --hz 500 -o "$T/$e.data" -- "$BAD" spin 0.5 >"$T/out" 2>"$T/err" ||
		fail "$e: exit $?: $(cat "$T/out" "$T/err")"
	if ! grep -q "Hz of [0-9]* ($e[,)]" "$T/err"; then
		echo "# $e cannot run here: $(cat "$T/err")"
		continue
	fi
	ran=$((ran + 1))
	[ "$(cat "$T/out")" = ok ] || fail "$e: output $(cat "$T/out")"
	grep -q "; lost: none" "$T/err" || fail "$e: summary: $(cat "$T/err")"
	"$PCPROF" export --format folded -o "$T/$e.folded" "$T/$e.data" 2>"$T/xerr" ||
		fail "$e: export: $(cat "$T/xerr")"
	# 0.5 s at 500 Hz: about 250 samples, nearly all in bf_loop; a third
	# of them is far above any chance shortfall (5 sd of 250 is 79)
	awk -v e="$e" '{ n = $NF; all += n; if ($1 == "[unknown];bf_loop") bad += n }
		END { printf "# %s: %d of %d samples in [unknown];bf_loop\n", e, bad, all
		      if (all < 100 || 3 * bad < all) { print "FAIL: " e ": want most samples there, of at least 100"; exit 1 } }' \
		"$T/$e.folded" || { cat "$T/$e.folded"; exit 1; }
done
[ $ran -gt 0 ] || fail "no engine could run"

for e in thread-timer perf; do
	PROFIL_ENGINE=$e "$PCPROF" run -q -o "$T/raw.data" -- "$BAD" rawspin 0.3 >"$T/out" 2>"$T/err" ||
		fail "rawspin $e: exit $?: $(cat "$T/out" "$T/err")"
	[ "$(cat "$T/out")" = ok ] || fail "rawspin $e: output $(cat "$T/out")"
done

"$PCPROF" run -q -o "$T/own.data" -- "$BAD" ownsegv 0.3 >"$T/out" 2>"$T/err" ||
	fail "ownsegv: exit $?: $(cat "$T/out" "$T/err")"
grep -Eq '^faults ([1-9][0-9]*) of \1$' "$T/out" || fail "ownsegv: $(cat "$T/out")"

"$BAD" crash 2>/dev/null
want=$?
"$PCPROF" run -q -o "$T/crash.data" -- "$BAD" crash >"$T/out" 2>"$T/err"
rc=$?
[ $want = 139 ] && [ $rc = 139 ] || fail "crash: exit $rc under pcprof, $want plain, want 139: $(cat "$T/err")"
exit 0
