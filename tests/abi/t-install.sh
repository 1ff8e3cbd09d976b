#!/bin/sh
# make install DESTDIR=... PREFIX=/usr puts the library, its archive,
# pkg-config file, headers, the audit module, pcprof and every man page
# (man/*.[137], each in its section's directory) where the variables say;
# make uninstall with the same variables removes every file and link of
# those, man pages included, and nothing else (a neighbour's files in the
# same directories stay).
set -u
cd "$(dirname "$0")/../.."
command -v flock >/dev/null || { echo "SKIP: flock not installed"; exit 77; }
. tests/helpers/stage.sh

fail() {
	echo "FAIL: $*"
	exit 1
}
# what install should have put there, one path a line
{
	echo usr/bin/pcprof
	for f in libprofil.so.1 libprofil.so libprofil.a libprofil-audit.so.1 pkgconfig/libprofil.pc; do
		echo "usr/lib/$f"
	done
	(cd include && find . -name '*.h' | sed 's|^\./|usr/include/libprofil/|')
	for m in man/*.[137]; do
		echo "usr/share/man/man${m##*.}/${m##*/}"
	done
} | sort >"$stage/want"
[ "$(grep -c '^usr/share/man/man[137]/' "$stage/want")" -ge 10 ] || fail "few man pages: $(cat "$stage/want")"
(cd "$stage" && find usr \( -type f -o -type l \)) | sort >"$stage/got"
cmp -s "$stage/want" "$stage/got" ||
	fail "make install installed otherwise: $(diff "$stage/want" "$stage/got")"

# a neighbour's files, which uninstall must leave
echo other >"$stage/usr/share/man/man1/other.1"
echo other >"$stage/usr/lib/libother.so"
make -s uninstall DESTDIR="$stage" PREFIX=/usr >"$stage/uninstall.log" 2>&1 ||
	fail "make uninstall: $(cat "$stage/uninstall.log")"
(cd "$stage" && find usr \( -type f -o -type l \)) | sort >"$stage/got"
printf 'usr/lib/libother.so\nusr/share/man/man1/other.1\n' | cmp -s - "$stage/got" ||
	fail "after make uninstall: $(cat "$stage/got")"
exit 0
