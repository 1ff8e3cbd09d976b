#!/bin/sh
# pcprof-attach(1) passes mandoc's lint with no warning, and every option
# `pcprof attach --help` lists is documented in it.
set -u
cd "$(dirname "$0")/../.." || exit 1
command -v mandoc >/dev/null || { echo "SKIP: mandoc not installed"; exit 77; }
out=$(mandoc -T lint -W warning man/pcprof-attach.1 2>&1) || true
[ -z "$out" ] || { echo "$out"; exit 1; }
page=$(mandoc -T markdown man/pcprof-attach.1)
opts=$(${B:-build}/pcprof attach --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
[ -n "$opts" ] || { echo "no options in pcprof attach --help"; exit 1; }
for o in $opts; do
	echo "$page" | grep -q -- "$o" || { echo "pcprof-attach(1) does not document $o"; exit 1; }
done
${B:-build}/pcprof --help | grep -q '^  attach ' || { echo "pcprof --help does not list attach"; exit 1; }
