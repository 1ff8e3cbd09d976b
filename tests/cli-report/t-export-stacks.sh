#!/bin/sh
# The exports of the stacked fixture (mkfixture stacks) carry its stacks:
# folded lines root first with exact counts (a one-frame stack keeps its
# module); speedscope samples that, mapped through its frames, give the
# same stacks and weights (jsoncheck: strict JSON); pprof with one location
# per frame, read by `go tool pprof` (-top -cum: self and inclusive per
# function; -peek: callers; -traces: whole stacks), where go is installed.
. "$(dirname "$0")/lib.sh"
"$FIX" stacks "$T/st.data" || fail "mkfixture stacks"
cat >"$T/stacks" <<'END'
main;fix_warm;fix_hot 400
main;fix_hot 200
main;hot_lib_spin 150
[truncated];fix_warm 100
mkfixture;fix_hot 80
main;fix_cold;fix_warm;fix_cold 50
main;0x1234 20
END

# folded: exactly those lines, in that order
"$PCPROF" export --format folded -o "$T/f.folded" "$T/st.data" 2>"$T/err" ||
	fail "folded: $(cat "$T/err")"
diff "$T/stacks" "$T/f.folded" >"$T/diff" || fail "folded: $(cat "$T/diff")"

# speedscope: valid JSON; each sample's frames, by name, root first, with
# its weight in samples (seconds at 1000 Hz)
"$PCPROF" export --format speedscope -o "$T/s.json" "$T/st.data" 2>"$T/err" ||
	fail "speedscope: $(cat "$T/err")"
"$JSONCHECK" "$T/s.json" samples weights >"$T/j" || fail "speedscope: not JSON"
grep -qx 'samples 7' "$T/j" && grep -qx 'weights 7' "$T/j" || fail "speedscope: $(cat "$T/j")"
awk '
	/^\{"name":"/ { split($0, a, "\""); name[n++] = a[4] }
	/"samples":\[\[/ {
		s = $0; sub(/.*"samples":\[\[/, "", s); sub(/\]\],"weights".*/, "", s)
		w = $0; sub(/.*"weights":\[/, "", w); sub(/\].*/, "", w)
		ns = split(s, st, /\],\[/); split(w, wt, ",")
		for (i = 1; i <= ns; i++) {
			k = split(st[i], fr, ","); line = ""
			for (j = 1; j <= k; j++)
				line = line (j > 1 ? ";" : "") name[fr[j]]
			printf "%s %d\n", line, wt[i] * 1000 + 0.5
		}
		exit
	}' "$T/s.json" | sort >"$T/got"
sort "$T/stacks" >"$T/want"
diff "$T/want" "$T/got" >"$T/diff" || fail "speedscope stacks: $(cat "$T/diff")"

# pprof
"$PCPROF" export --format pprof -o "$T/p.pb.gz" "$T/st.data" 2>"$T/err" ||
	fail "pprof: $(cat "$T/err")"
[ "$(od -An -tx1 -N2 "$T/p.pb.gz" | tr -d ' ')" = 1f8b ] || fail "pprof: not gzip"
if ! command -v go >/dev/null; then
	echo "SKIP part: go not installed (golang-go), so go tool pprof cannot read the export"
	echo "ok: folded and speedscope stacks"
	exit 0
fi
export HOME="$T" GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS= GOPROXY=off GOTOOLCHAIN=local
export PPROF_BINARY_PATH="$T/none" PPROF_TMPDIR="$T"
go tool pprof -top -cum -nodefraction=0 "$T/p.pb.gz" >"$T/top" 2>"$T/perr" ||
	fail "pprof -top -cum: $(cat "$T/perr")"
# flat cum name, in ms (1 sample = 1 ms at 1000 Hz)
awk '$2 ~ /%$/ && $5 ~ /%$/ && $1 != "flat" { print $1, $4, $6 }' "$T/top" >"$T/got"
cat >"$T/want" <<'END'
0 820ms main
680ms 680ms fix_hot
100ms 550ms fix_warm
150ms 150ms hot_lib_spin
0 100ms [truncated]
50ms 50ms fix_cold
20ms 20ms 0x1234
END
diff "$T/want" "$T/got" >"$T/diff" || fail "pprof -top -cum: $(cat "$T/diff")"
go tool pprof -peek 'fix_hot$' "$T/p.pb.gz" >"$T/peek" 2>"$T/perr" || fail "pprof -peek"
grep -Eq '^ +400ms +58\.82% \| +fix_warm$' "$T/peek" || fail "pprof -peek: $(cat "$T/peek")"
grep -Eq '^ +200ms +29\.41% \| +main$' "$T/peek" || fail "pprof -peek main: $(cat "$T/peek")"
# -traces: each sample's stack, leaf first
go tool pprof -traces "$T/p.pb.gz" >"$T/traces" 2>"$T/perr" || fail "pprof -traces"
awk '/^-+\+/ { if (line != "") print line; line = ""; next }
	NF >= 2 && $1 ~ /ms$/ { line = $2; next }
	NF == 1 && line != "" { line = line ";" $1 }
	END { if (line != "") print line }' "$T/traces" | sort >"$T/got"
printf '%s\n' 'fix_hot' 'fix_hot;fix_warm;main' 'fix_hot;main' 'fix_warm;[truncated]' \
	'fix_cold;fix_warm;fix_cold;main' 'hot_lib_spin;main' '0x1234;main' | sort >"$T/want"
diff "$T/want" "$T/got" >"$T/diff" || fail "pprof -traces: $(cat "$T/diff"; cat "$T/traces")"
echo "ok: folded, speedscope and pprof carry the stacks"
