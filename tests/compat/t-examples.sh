#!/bin/sh
# The programs in examples/ build UNCHANGED against an installed libprofil:
# `make install DESTDIR=<stage> PREFIX=/usr`, then each example is compiled
# with nothing but `pkg-config --cflags --libs libprofil` pointed at the
# staged .pc (PKG_CONFIG_SYSROOT_DIR + PKG_CONFIG_PATH) and run against the
# staged library.
#
# Each example profiles its own hot function on the real timer and prints
# tables of "name count" lines, each ending with a "total N" line.  Every
# table must hold at least 20 ticks and give the hot function more than
# half of them.  Each example burns 0.15 s of CPU in a second function,
# then 0.6 s in the hot one: at 100 Hz about 75 ticks, of which an idle
# run gives the hot function 45-58 and the second one 10-17 (the rest land
# in libc's clock(), outside the tables).  Ticks are not independent
# samples on a loaded machine: the kernel checks a thread's CPU timer only
# at a scheduler tick that finds it running, so one signal can stand for
# many ticks, all charged where it lands, and what no signal took is paid
# at the last signal's pc when profiling stops.  That moves ticks forward
# in time, never back, so the hot function runs last: a late signal can
# only move the second function's ticks into it.  Failing then takes about
# 36 of the hot function's ticks landing outside the table: 13 sd of the
# idle binomial.
#
# Known to fail on the default engine (thread-timer) when the kernel all
# but stops its signals: beside two nice 0 busy loops on a busy 2-core
# machine, a third of the runs got 0-2 signals for the 75 ticks (perf,
# interleaved with them, 74-75), and the one pc that got them all decides
# the table: _start ("main": no signal at all), clock() (total 0),
# or, with the hot function first, "51 of 58 ticks in make_words".  No
# bound can fix that: it is a library problem (issue 8, item 17).
set -eu
cd "$(dirname "$0")/../.."
. tests/helpers/stage.sh
flags=$(pkg-config --cflags --libs libprofil)
case " $flags " in
*" -I$stage/usr/include/libprofil "*"-L$stage/usr/lib "*) ;;
*)
	echo "pkg-config does not point into the staged /usr: $flags"
	cat "$stage/usr/lib/pkgconfig/libprofil.pc" || true
	exit 1
	;;
esac

# example  hot function  number of tables
while read -r name hot tables; do
	src=examples/$name.c
	bin=$stage/$name
	# shellcheck disable=SC2086
	if ! cc -Wall -Wextra -Werror -O2 -o "$bin" "$src" $flags 2>"$stage/$name.err"; then
		echo "$name: does not build against the installed headers:"
		cat "$stage/$name.err"
		exit 1
	fi
	if ! LD_LIBRARY_PATH=$stage/usr/lib ldd "$bin" | grep -q "libprofil.so.1 => $stage/usr/lib/"; then
		echo "$name: not linked with the staged libprofil"
		exit 1
	fi
	if ! LD_LIBRARY_PATH=$stage/usr/lib "$bin" >"$stage/$name.out" 2>&1; then
		echo "$name: exited with an error:"
		cat "$stage/$name.out"
		exit 1
	fi
	if ! awk -v hot="$hot" -v want="$tables" '
		NF == 2 && $2 ~ /^[0-9]+$/ {
			if ($1 == hot) h = $2
			if ($1 == "total") {
				n++
				if ($2 < 20 || 2 * h <= $2) {
					printf "table %d: %s has %d of %d ticks; want total >= 20 and %s > %d\n", n, hot, h, $2, hot, $2 / 2
					bad = 1
				}
				h = 0
			}
		}
		END {
			if (n != want) { printf "%d tables, want %d\n", n, want; bad = 1 }
			exit bad
		}' "$stage/$name.out"; then
		echo "$name: output:"
		cat "$stage/$name.out"
		exit 1
	fi
done <<'LIST'
hpux-sprofil checksum 1
irix-profil matmul 2
solaris-pcsample sieve 2
tru64-profil crc 1
aix-profil hash_words 1
LIST

# The HP-UX example defines _HPUX_SOURCE: its sprofil is the strict one.
nm -u "$stage/hpux-sprofil" | grep -q ' __sprofil_strict$' || {
	echo "hpux-sprofil does not call __sprofil_strict"
	exit 1
}
