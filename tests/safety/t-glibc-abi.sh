#!/bin/sh
# T85: a program compiled against glibc's own headers only (no libprofil
# include directory) gets libprofil's profil(): T01's exact mapping, T09's
# "scale 0 is off", the 100 Hz rate and T32's exec survival
# (tests/helpers/glibc-abi.c), in two set-ups:
#   1. linked with -lprofil (the library comes before libc);
#   2. linked with glibc only, run with LD_PRELOAD=libprofil.so.1.
# The second binary is also run without the preload, where glibc's profil
# must fail T09 (this shows the checks tell the two apart).
set -eu
cd "$(dirname "$0")/../.."
b=$PWD/${B:-build}
[ -e "$b/libprofil.so.1" ] || { echo "$b/libprofil.so.1 missing: run make"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=tests/helpers/glibc-abi.c
cflags="-std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Itests"

# In a sanitizer build the library is instrumented: the binary linked with
# it is built with the same flags, the preloaded one gets the runtime first.
cc $cflags ${SAN_CFLAGS:-} -o "$tmp/linked" $src -L"$b" -Wl,-rpath,"$b" -lprofil -ldl -lm
cc $cflags -o "$tmp/plain" $src -ldl -lm

if ! readelf -d "$tmp/linked" | grep -q 'libprofil.so.1'; then
	echo "linked binary does not need libprofil.so.1"; exit 1
fi
if readelf -d "$tmp/plain" | grep -q 'libprofil'; then
	echo "plain binary needs libprofil"; exit 1
fi

unset PROFIL_ENGINE PROFIL_HZ PROFIL_SIGNAL PROFIL_OVERFLOW
"$tmp/linked" || { echo "linked with -lprofil: failed"; exit 1; }
LD_PRELOAD="${SAN_PRELOAD:-} $b/libprofil.so.1" "$tmp/plain" || { echo "with LD_PRELOAD: failed"; exit 1; }
if "$tmp/plain" no-ext >"$tmp/out" 2>&1 || ! grep -q 'buf\[0\] == 0' "$tmp/out"; then
	echo "glibc's own profil did not fail T09 as expected:"
	cat "$tmp/out"
	exit 1
fi
