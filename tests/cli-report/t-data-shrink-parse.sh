#!/bin/sh
# A data file that shrinks after pcprof has mapped it: parsing meets the
# lost pages (SIGBUS), and pp_read says "changed size while being read"
# and frees what it had built (cli/data.c, parse_fd), never a crash.  The
# shim (tests/helpers/datashim.c) truncates the file when the reader
# installs its SIGBUS handler, mapped and not yet parsed, so the fault comes
# at a known place rather than in a race:
#   - cuts 64 KiB and 1.5 MiB into the file, inside the samples of its
#     one process: at the fault the process's parts are allocated (3.2 MB,
#     the shim measures over 1 MB), and after pp_read less than 64 KiB is
#     left.  Before a7ece61 the process was counted only once parsed, so
#     pp_free did not free a process the fault stopped: 3.2 MB leaked.
#     The cuts are whole pages (of 4 to 64 KiB): the rest of a page cut
#     inside reads as zeros, which may end the parse before any fault.
#   - a cut to nothing: the fault comes before anything is built.
. "$(dirname "$0")/lib.sh"
. tests/helpers/datashim.sh

for cut in 65536 1572864 0; do
	shim_cut $cut map
	[ "$fault" != -1 ] || fail "cut $cut: no SIGBUS: $(cat "$T/log")"
	[ $cut = 0 ] || [ "$fault" -gt 2500000 ] ||
		fail "cut $cut: $fault bytes allocated at the SIGBUS, want the samples (3.2 MB)"
done
exit 0
