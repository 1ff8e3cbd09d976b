#!/bin/sh
# A program linked with -static against libprofil.a that calls every
# signal function the library interposes (tests/helpers/sig-static.c) still
# links -- our strong definitions replace libc.a's weak ones, and no
# object of libc.a that would define one of them again is pulled in -- and
# runs: it resets every signal to SIG_DFL while profil() runs, and its
# ticks follow its CPU time.
set -eu
cd "$(dirname "$0")/../.."
b=$PWD/${B:-build}
# as tests/static: a sanitizer's runtimes are shared libraries
[ -z "${SANITIZE:-}" ] || { echo "SKIP: a sanitizer build cannot link static programs"; exit 77; }
[ -e "$b/libprofil.a" ] || { echo "build/libprofil.a missing: run make"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! echo 'int main(void) { return 0; }' | cc -static -x c -o "$tmp/probe" - 2>/dev/null; then
	echo "SKIP: no static libc to link with"
	exit 77
fi
cc -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -I"$b/include/libprofil" -static \
	-o "$tmp/prog" tests/helpers/sig-static.c "$b/libprofil.a" -lpthread 2>"$tmp/ld.err" || {
	cat "$tmp/ld.err"
	echo "the static link failed"
	exit 1
}
for sym in sigaction signal sigprocmask pthread_sigmask sigset signalfd; do
	nm "$tmp/prog" | grep -q " T $sym\$" || { echo "$sym is not libprofil's strong one"; exit 1; }
done
unset PROFIL_ENGINE PROFIL_SIGNAL
"$tmp/prog" || { echo "the static program failed"; exit 1; }
