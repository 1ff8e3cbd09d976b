# datashim.sh - sourced by tests/cli-report/t-data-*.sh after lib.sh: runs
# pcprof with tests/helpers/datashim.c preloaded (see there for what it
# does), which changes the data file at an exact point of its reading.
#   $T/big.data  one process of 100000 samples, 3.2 MB: a body of 1 MiB or
#                more, whose checksum is summed on a thread of its own
#                while the file is parsed (cli/data.c, parse_fd)
#   shim STATUS PATTERN FILE VAR=VALUE...   pcprof report FILE with the shim
#                acting on FILE as the DATASHIM_* variables say: as lib.sh's
#                try (exit STATUS, one message matching PATTERN; output in
#                $T/o, $T/e); what the shim did in $T/log
#   shim_mem     from the shim's log: left, the bytes the reader left
#                allocated; fault, those allocated at the SIGBUS (-1: none)
#   shim_cut N WHEN   report on a copy of big.data that the shim truncates
#                to N bytes at WHEN (map, sum): exit 1, "changed size while
#                being read", and what the reader had built freed (less
#                than 64 KiB left allocated); sets left and fault
SHIM=$ROOT/${B:-build}/tests/helpers/datashim.so
[ -f "$SHIM" ] || fail "$SHIM not built (make all)"
"$FIX" samples "$T/big.data" 100000 || fail "mkfixture samples"
[ "$(wc -c <"$T/big.data")" -gt 2000000 ] ||
	fail "big.data: $(wc -c <"$T/big.data") bytes, too small for the threaded checksum"

shim() {
	status=$1 pattern=$2 file=$3
	shift 3
	rm -f "$T/log"
	# an instrumented pcprof needs its sanitizer's runtime first
	try "$status" "$pattern" env DATASHIM_FILE="$file" DATASHIM_LOG="$T/log" "$@" \
		LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$SHIM" "$PCPROF" report "$file"
}
shim_mem() {
	# shellcheck disable=SC2046
	set -- $(sed -n 's/^allocated \(-*[0-9]*\) fault \(-*[0-9]*\)$/\1 \2/p' "$T/log")
	[ $# = 2 ] || fail "the reader did not restore its SIGBUS handler: $(cat "$T/log")"
	left=$1 fault=$2
}
shim_cut() {
	cp "$T/big.data" "$T/c.data"
	shim 1 ': changed size while being read$' "$T/c.data" DATASHIM_CUT="$1@$2"
	grep -qx "cut $1 at $2" "$T/log" || fail "cut $1 at $2: the shim did not cut: $(cat "$T/log")"
	shim_mem
	echo "# cut $1 at $2: $left bytes left allocated after pp_read, $fault at the SIGBUS (-1: none)"
	[ "$left" -lt 65536 ] ||
		fail "cut $1 at $2: pp_read left $left bytes allocated on error, want under 64 KiB (what it had built is not freed)"
}
