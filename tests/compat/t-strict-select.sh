#!/bin/sh
# Strict mode selection: one source, compiled three ways.  With
# -D_PROFIL_STRICT or -D_HPUX_SOURCE its sprofil call is bound to
# __sprofil_strict (nm) and unsorted regions are rejected with EINVAL (HP-UX);
# compiled plainly it calls the lenient sprofil, which accepts them.
. "$(dirname "$0")/compat.sh"

src='#include <errno.h>
#include <stdio.h>
#include <sys/profil.h>
#include <profil_ext.h>

int main(void)
{
	static unsigned short a[32], b[32];
	struct prof p[2] = {
		{ .pr_base = b, .pr_size = sizeof b, .pr_offset = 0x40000, .pr_scale = 0x10000 },
		{ .pr_base = a, .pr_size = sizeof a, .pr_offset = 0x10000, .pr_scale = 0x10000 },
	};
	profil_set_engine("manual");
	int r = sprofil(p, 2, NULL, PROF_USHORT);
	printf("%d %s\n", r, r == 0 ? "0" : errno == EINVAL ? "EINVAL" : "other");
	return 0;
}'
for mode in default _PROFIL_STRICT _HPUX_SOURCE; do
	flags=
	[ $mode = default ] || flags=-D$mode
	# shellcheck disable=SC2086
	printf "%s\n" "$src" | cc_ok "$mode" $flags
	undef=$(nm -u "$tmp/$mode" | awk '{print $2}' | grep -e '^sprofil' -e '^__sprofil_strict' || true)
	out=$(run "$mode")
	case $mode in
	default) want_sym=sprofil want_out="0 0" ;;
	*) want_sym=__sprofil_strict want_out="-1 EINVAL" ;;
	esac
	[ "$undef" = "$want_sym" ] || { echo "$mode: calls '$undef', want $want_sym"; exit 1; }
	[ "$out" = "$want_out" ] || { echo "$mode: sprofil gave '$out', want '$want_out'"; exit 1; }
done

# The same redirection from C++ (glibc's __THROW is noexcept there).
if command -v c++ >/dev/null; then
	printf '#include <sys/profil.h>\nint main() { return sprofil(0, 0, 0, 0); }\n' >"$tmp/cxx.cc"
	for mode in default _PROFIL_STRICT _HPUX_SOURCE; do
		flags=
		[ $mode = default ] || flags=-D$mode
		# shellcheck disable=SC2086
		c++ -Wall -Wextra -Werror -I"$inc" $flags -c -o "$tmp/cxx.o" "$tmp/cxx.cc" || exit 1
		undef=$(nm -u "$tmp/cxx.o" | awk '{print $2}' | grep -e '^sprofil' -e '^__sprofil_strict' || true)
		want=__sprofil_strict
		[ $mode = default ] && want=sprofil
		[ "$undef" = "$want" ] || { echo "C++ $mode: calls '$undef', want $want"; exit 1; }
	done
fi
