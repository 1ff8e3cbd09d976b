# compat.sh - sourced by the tests/compat/t-*.sh scripts: compile C
# snippets exactly as a user's program is compiled against the installed
# header layout (cc -Wall -Werror -I ${B:-build}/include/libprofil).
#   cc_ok NAME [FLAGS...] < snippet     must compile and link; binary at $tmp/NAME
#   cc_fail NAME [FLAGS...] < snippet   must fail; diagnostics at $tmp/NAME.err
#   run NAME [ARGS...]                  run $tmp/NAME with the built library
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
inc=${B:-build}/include/libprofil
[ -f "$inc/sys/profil.h" ] || { echo "headers not built: run make first"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CC=${CC:-cc}

cc_ok() {
	name=$1
	shift
	cat >"$tmp/$name.c"
	if ! $CC -Wall -Wextra -Werror -I"$inc" "$@" -o "$tmp/$name" "$tmp/$name.c" \
		-L"$root/build" -Wl,-rpath,"$root/build" -lprofil 2>"$tmp/$name.err"; then
		echo "$name: does not compile ($*):"
		cat "$tmp/$name.err"
		exit 1
	fi
}

cc_fail() {
	name=$1
	shift
	cat >"$tmp/$name.c"
	if $CC -Wall -Wextra -Werror -I"$inc" "$@" -c -o "$tmp/$name.o" "$tmp/$name.c" \
		2>"$tmp/$name.err"; then
		echo "$name: compiled, but must not ($*)"
		exit 1
	fi
}

run() {
	name=$1
	shift
	"$tmp/$name" "$@"
}
