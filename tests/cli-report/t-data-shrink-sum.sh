#!/bin/sh
# A data file that shrinks while its checksum is summed on the other thread
# (a body of 1 MiB or more; cli/data.c, crc_job_run) gives a short read, and
# pcprof says so, "changed size while being read", whatever is left of the
# file, without reading the mapping again.  The shim (tests/helpers/
# datashim.c) holds the checksum thread's first read until the parse is
# over and the main thread joins it, and truncates the file then, to:
#   - 16 bytes, half the header: before a7ece61 the header's checksum was
#     checked first, on the mapping, and the message was "corrupted: header
#     checksum mismatch";
#   - nothing: before, that check raised SIGBUS (the shim sees it);
#   - 100000 bytes, the header whole and the body cut.
# What the parse had built is freed: less than 64 KiB left of its 3.2 MB.
. "$(dirname "$0")/lib.sh"
. tests/helpers/datashim.sh

for cut in 16 0 100000; do
	shim_cut $cut sum
	[ "$fault" = -1 ] || fail "cut $cut: a SIGBUS after the short read (the mapping was read again)"
done
exit 0
