#!/bin/sh
# The symbols libprofil.so exports are exactly those of lib/libprofil.map,
# and the library needs nothing at run time but libc (and the dynamic loader).
set -eu
cd "$(dirname "$0")/../.."
so=${B:-build}/libprofil.so.1
want=$(sed -n '/global:/,/local:/p' lib/libprofil.map | sed 's,/\*.*\*/,,' |
	tr -d ' \t;' | grep -v -e '^global:' -e '^local:' -e '^$' | sort)
have=$(nm -D --defined-only "$so" | awk '{print $3}' | sort)
if [ "$want" != "$have" ]; then
	echo "exports differ from lib/libprofil.map (< map, > nm -D):"
	printf '%s\n' "$want" >/tmp/want.$$
	printf '%s\n' "$have" >/tmp/have.$$
	diff /tmp/want.$$ /tmp/have.$$ || true
	rm -f /tmp/want.$$ /tmp/have.$$
	exit 1
fi
# A sanitizer build (tests/README.md) also needs the sanitizer runtimes.
needed=$(readelf -d "$so" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' |
	if [ -n "${SANITIZE:-}" ]; then grep -v -e '^libasan\.' -e '^libubsan\.' -e '^libtsan\.'; else cat; fi |
	sort | tr '\n' ' ')
case "$needed" in
"libc.so.6 " | "ld-linux-x86-64.so.2 libc.so.6 ") ;;
*) echo "unexpected runtime dependencies: $needed"; exit 1 ;;
esac
soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libprofil.so.1 ] || { echo "soname is '$soname'"; exit 1; }
