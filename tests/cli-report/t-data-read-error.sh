#!/bin/sh
# The reads of the checksum thread (a body of 1 MiB or more; cli/data.c,
# crc_job_run), made by the shim (tests/helpers/datashim.c):
#   - failing with EIO: pcprof says so ("Input/output error"), as it does
#     when the file cannot be mapped and is read instead; the file did not
#     change size, and before this test's fix that is what pcprof said;
#   - interrupted once (EINTR), or short (1000 bytes at a time) without the
#     file ending: read again, and the report is the one without the shim.
. "$(dirname "$0")/lib.sh"
. tests/helpers/datashim.sh

"$PCPROF" report "$T/big.data" >"$T/want" 2>"$T/e" || fail "report: $(cat "$T/e")"
shim 1 ': Input/output error$' "$T/big.data" DATASHIM_READ=eio
grep -qx "read eio" "$T/log" || fail "eio: the shim failed no read: $(cat "$T/log")"
shim_mem
[ "$left" -lt 65536 ] || fail "eio: pp_read left $left bytes allocated on error, want under 64 KiB"
for how in eintr short; do
	rm -f "$T/log"
	env DATASHIM_FILE="$T/big.data" DATASHIM_LOG="$T/log" DATASHIM_READ=$how \
		LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$SHIM" "$PCPROF" report "$T/big.data" \
		>"$T/o" 2>"$T/e" || fail "$how: exit $?: $(cat "$T/e")"
	grep -qx "read $how" "$T/log" || fail "$how: the shim did nothing: $(cat "$T/log")"
	cmp -s "$T/want" "$T/o" || fail "$how: the report differs: $(diff "$T/want" "$T/o" | head -5)"
done
exit 0
