#!/bin/sh
# The stacked fixture (mkfixture stacks) survives the data file: written by
# pp_write as format 3, read back by pp_read (through ppdump, which names
# frames with nm alone), every stack is there with its exact count, root
# first, markers and addresses outside every module included, and the
# samples without a stack keep their self time.  pcprof report reads it.
. "$(dirname "$0")/lib.sh"
PPDUMP=$ROOT/${B:-build}/tests/cli-run/ppdump
[ -x "$PPDUMP" ] || fail "$PPDUMP not built (make all)"

"$FIX" stacks "$T/st.data" || fail "mkfixture stacks"
[ "$(od -An -tu4 -j8 -N4 "$T/st.data" | tr -d ' ')" = 3 ] || fail "not a format 3 file"
"$PPDUMP" "$T/st.data" >"$T/dump" || fail "ppdump: $(cat "$T/dump")"
grep '^stack ' "$T/dump" >"$T/got" || true
cat >"$T/want" <<'END'
stack 4242.0 400 main;fix_warm;fix_hot
stack 4242.0 200 main;fix_hot
stack 4242.0 150 main;hot_lib_spin
stack 4242.0 100 [truncated];fix_warm
stack 4242.0 50 main;fix_cold;fix_warm;fix_cold
stack 4242.0 20 main;0x1234
END
diff "$T/want" "$T/got" >"$T/diff" || fail "stacks differ: $(cat "$T/diff")"
# self time per function, the stackless 80 samples of fix_hot included
grep -q '^fn 4242.0 fix_hot mkfixture 680$' "$T/dump" || fail "fix_hot: $(grep fix_hot "$T/dump")"
grep -q '^fn 4242.0 fix_warm mkfixture 100$' "$T/dump" || fail "fix_warm self"
grep -q '^proc 4242.0 .* ticks=1000 .* samples=7 ' "$T/dump" || fail "$(grep ^proc "$T/dump")"

"$PCPROF" report "$T/st.data" >"$T/report" 2>"$T/err" || fail "report: $(cat "$T/err")"
grep -q 'fix_hot' "$T/report" || fail "report has no fix_hot: $(cat "$T/report")"
echo "ok: 6 stacks and their counts survive the data file"
