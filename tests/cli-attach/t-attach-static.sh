#!/bin/sh
# pcprof attach on a statically linked program (which preloading cannot
# reach): the same split, and the program unchanged.
. "$(dirname "$0")/lib.sh"
cc -static -O1 -g -fno-omit-frame-pointer -pthread -o "$T/split-static" \
	tests/targets/split.c 2>"$T/cc" || { echo "SKIP: cannot link static programs: $(head -n1 "$T/cc")"; exit 77; }
readelf -l "$T/split-static" | grep -q INTERP && fail "cc -static made a dynamic program"
attach_case "$T/split-static" 500 0.3
grep -q "^module .* $T/split-static bias=" "$T/dump" || { cat "$T/dump"; fail "no executable module"; }
exit 0
