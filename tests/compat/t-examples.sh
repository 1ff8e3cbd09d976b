#!/bin/sh
# The programs in examples/ build UNCHANGED against an installed libprofil:
# `make install DESTDIR=<stage> PREFIX=/usr`, then each example is compiled
# with nothing but `pkg-config --cflags --libs libprofil` pointed at the
# staged .pc (PKG_CONFIG_SYSROOT_DIR + PKG_CONFIG_PATH) and run against the
# staged library.
#
# Each example profiles its own hot function on the real timer and prints
# tables of "name count" lines, each ending with a "total N" line and a
# "from S signals" line (profil_stats(): the distinct samples).  Every
# table it judges (below) must hold at least 20 ticks.  Each example burns 0.1 s of CPU in a
# second function, then 0.6 s in the hot one (asking clock() only every
# 16 calls): at 100 Hz about 70 ticks, and the hot function's share of
# the work is p = 6/7.
#
# Where the ticks land is a sample of S signals, not of the ticks: the
# kernel checks a thread's CPU timer only at a scheduler tick that finds it
# running, so beside CPU-bound programs one signal can stand for many
# ticks (measured: 1-36 signals for 75 ticks beside two nice 0 busy loops;
# docs/reliability.md), all charged where it lands.  The hot function must
# have more than half of a table's ticks whenever S is large enough for
# that to hold at 5 standard deviations of the binomial over signals,
# p - 5 sqrt(p (1 - p) / S) > 1/2, i.e. S >= 25; a table from fewer
# signals cannot tell, and the test says so (and skips if no table could).
# Late signals move ticks forward in time, never back, and the hot
# function runs last, so lateness only favours it.
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
	if ! awk -v hot="$hot" -v want="$tables" -v name="$name" -v notes="$stage/notes" -v unjudged="$stage/unjudged" '
		NF == 2 && $2 ~ /^[0-9]+$/ {
			if ($1 == hot) h = $2
			if ($1 == "total") { n++; t = $2; open_ = 1 }
		}
		$1 == "from" && $3 == "signals" && NF == 3 {
			if (!open_) { printf "a signals line without its table\n"; bad = 1 }
			open_ = 0
			judged++
			s = $2; p = 6 / 7
			if (s > 0 && p - 5 * sqrt(p * (1 - p) / s) > 0.5) {
				print name >>notes
				if (t < 20) {
					printf "table %d: total %d ticks from %d signals, want >= 20\n", n, t, s
					bad = 1
				} else if (2 * h <= t) {
					printf "table %d: %s has %d of %d ticks from %d signals; want more than %d\n", n, hot, h, t, s, t / 2
					bad = 1
				}
			} else {
				printf "%s table %d: %d ticks from %d signals\n", name, n, t, s >>unjudged
			}
			h = 0
		}
		END {
			if (n != want || judged != want) {
				printf "%d tables and %d signals lines, want %d\n", n, judged, want
				bad = 1
			}
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

# Where no table had signals enough, nothing said where the time went.
if [ ! -s "$stage/notes" ]; then
	echo "SKIP: no table came from 25 signals or more, too few to judge placement (a busy machine): $(paste -sd';' "$stage/unjudged")"
	exit 77
fi
