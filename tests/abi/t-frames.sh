#!/bin/sh
# The library's and the audit module's stack frames stay small: they run on
# other people's stacks, before main on whatever RLIMIT_STACK leaves
# (`ulimit -s 16`), in exec wrappers and API calls on a coroutine's, in the
# signal handler below the kernel's frame (docs/signal-safety.md, "The
# handler's stack budget").  gcc's -fstack-usage (the Makefile adds it
# where the compiler has it) writes each function's frame to a .su file
# beside its object; this test reads them all:
#
#   - no frame above LIMIT bytes;
#   - no frame of dynamic size (a variable-length array) except those
#     listed below, each sized by its caller's own data, as glibc's.
#
# Before issue 19 the largest were the audit module's profil__raw_create
# (8576 bytes: a PATH_MAX file name and its .lost twin), the PATH search
# of the exec wrappers (4640, 4480), open_checked (4432), check_maps and
# profil__status_number (4176, 4128: a page for a /proc file), the
# unwinder's constructor (4144: the environment's directory), and the
# Tru64 range copy (2672); check_elf's program header array was dynamic,
# up to 14 KiB for a file with 256 of them.
#
# A sanitizer build's frames carry redzones several times their size: there
# only the audit module, which is never instrumented, is checked.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${B:-build}
LIMIT=1024
# Dynamic frames allowed, "function: why".
ALLOWED='execl: the call'"'"'s own argument vector, as in glibc
execle: the same
execlp: the same
exec_shell: the caller'"'"'s argument vector and one more
exec_search: a PATH entry and the file name (path_buf_size), as glibc'"'"'s execvpe
profil__spawn_note: the same'

if [ -n "${SANITIZE:-}" ]; then
	files=$(find "$B/audit" -name '*.su' 2>/dev/null)
	echo "# sanitizer build: the audit module only"
else
	files=$(find "$B/lib" "$B/audit" -name '*.su' 2>/dev/null)
fi
[ -n "$files" ] || {
	echo "SKIP: no .su files in $B (a compiler without -fstack-usage, or objects built before the Makefile asked for them: rebuild lib)"
	exit 77
}

# shellcheck disable=SC2086
awk -F'\t' -v limit=$LIMIT -v allowed="$ALLOWED" '
BEGIN {
	n = split(allowed, a, "\n")
	for (i = 1; i <= n; i++) { split(a[i], f, ":"); ok[f[1]] = 1 }
}
{
	name = $1; sub(/.*:/, "", name)
	base = name; sub(/\..*/, "", base)   # exec_search.constprop.0 -> exec_search
	frames++
	if ($2 + 0 > limit) { printf "not ok: %s: %d bytes, more than %d\n", $1, $2, limit; bad = 1 }
	if ($3 ~ /^dynamic/ && $3 !~ /bounded/ && !(base in ok)) {
		printf "not ok: %s: a frame of dynamic size (%s), not listed\n", $1, $3; bad = 1
	}
	if ($2 + 0 > most) { most = $2 + 0; where = $1 }
}
END {
	if (frames < 50) { printf "only %d frames read: wrong build directory?\n", frames; exit 1 }
	printf "# %d frames, the largest %d bytes (%s)\n", frames, most, where
	exit bad
}' $files || exit 1
