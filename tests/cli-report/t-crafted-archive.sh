#!/bin/sh
# Archive bombs (issue 19, item 13): a member is unpacked to at most
# 16 MiB plus 64 times the bytes it is stored in (cli/archive.h), whatever
# its entry declares, and what declares more is refused before a byte of
# it is unpacked; a recording's header is checked on its first 32 bytes,
# before the rest is allocated or unpacked.  Before: a module member of
# 4 GiB of zeros (an archive of 4 MB) was unpacked into a 4 GiB memfd, and
# a recording member of 3.1 GB (3 MB stored) took 3.1 GB of memory before
# its first bytes were found not to be a data file.  Here, smaller:
#   - a module member of 256 MiB from 255 KB: not unpacked, with a warning;
#     the report goes on without the module's symbols (before: unpacked);
#   - a recording member of 200 MiB from 199 KB: refused, in a peak RSS of
#     a few MB (before: 216 MB);
#   - a recording member of 16 MiB of zeros, within the bound: refused by
#     its header (before: 28 MB of peak RSS, 12 MB now).
# And pcprof archive keeps what it writes within the bound: a library with
# 64 MiB of zeros in its data (1000 to 1 at zlib's level 6) is stored with
# Huffman codes past the bound's half, and its symbols come from the
# archive once the library is gone.
. "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || skip "GNU time (/usr/bin/time) not installed: it measures memory"
CRAFT=$ROOT/${B:-build}/tests/cli-report/mkcrafted
[ -x "$CRAFT" ] || fail "$CRAFT not built (make all)"

# peak RSS in KB of the last timed run
rss() {
	awk 'END { print $1 }' "$T/time"
}

"$CRAFT" arbomb "$T/b.ar" 256M || fail "mkcrafted arbomb"
"$PCPROF" report "$T/b.ar" >"$T/o" 2>"$T/e" || fail "report of a module bomb: $(cat "$T/e")"
grep -q "^pcprof report: warning: $T/b\.ar: /nonexistent/bomb\.so declares 268435456 bytes unpacked from [0-9]* stored, more than 16 MiB and 64 times that (a deflate bomb?): not unpacked; " "$T/e" ||
	fail "no warning about the module bomb: $(cat "$T/e")"
grep -Eq '^100\.00 +100\.00 +10 .* bomb\.so\+0x1100 +bomb\.so$' "$T/o" ||
	fail "the report: $(cat "$T/o")"

# refused SIZE MESSAGE: an archive whose recording is SIZE of zeros is
# refused with MESSAGE (after "pcprof report: FILE: "), in a peak RSS below
# 24 MB: nothing of the size was allocated (pcprof's own is 12 MB here)
refused() {
	"$CRAFT" ardata "$T/d.ar" "$1" || fail "mkcrafted ardata"
	rc=0
	/usr/bin/time -f '%M' -o "$T/time" "$PCPROF" report "$T/d.ar" >"$T/o" 2>"$T/e" || rc=$?
	[ $rc = 1 ] || fail "report of a recording of $1 of zeros: exit $rc: $(cat "$T/e")"
	grep -q "^pcprof report: $T/d\.ar: $2\$" "$T/e" || fail "$1 of zeros: $(cat "$T/e")"
	echo "# a recording of $1 of zeros: refused in $(rss) KB of peak RSS"
	[ "$(rss)" -lt 24576 ] || fail "a recording of $1 of zeros refused in $(rss) KB of peak RSS"
}
refused 200M 'bomb\.data declares 209715200 bytes unpacked from [0-9]* stored, more than 16 MiB and 64 times that (a deflate bomb?): not unpacked'
refused 16M 'its recording bomb\.data: not a pcprof data file (bad magic)'

# What pcprof archive writes stays within the bound.
command -v cc >/dev/null || skip "no C compiler (cc) for the library of zeros"
mkdir "$T/big"
cat >"$T/big/big.c" <<'EOF'
char big_data[64 << 20] = { 1 };
__attribute__((noinline)) double big_burn(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + big_data[i & 4095];
	return x;
}
EOF
cat >"$T/big/prog.c" <<'EOF'
#include <stdio.h>
#include <time.h>
double big_burn(long n);
int main(void)
{
	double x = 0;
	while ((double)clock() / CLOCKS_PER_SEC < 0.2)
		x += big_burn(1000000);
	printf("%g\n", x);
	return 0;
}
EOF
(cd "$T/big" && cc -O1 -g -shared -fPIC -o libbig.so big.c &&
	cc -O1 -o prog prog.c -L. -lbig -Wl,-rpath,'$ORIGIN') || fail "cannot build the library"
"$PCPROF" run -q -o "$T/big/p.data" -- "$T/big/prog" >/dev/null 2>"$T/e" || fail "run: $(cat "$T/e")"
"$PCPROF" archive -o "$T/big/p.ar" "$T/big/p.data" 2>"$T/e" || fail "archive: $(cat "$T/e")"
rm "$T/big/libbig.so"
"$PCPROF" report "$T/big/p.ar" >"$T/o" 2>"$T/e" || fail "report of the archive: $(cat "$T/e")"
grep -q 'deflate bomb' "$T/e" && fail "pcprof archive wrote what its reader refuses: $(cat "$T/e")"
grep -Eq ' big_burn +libbig\.so$' "$T/o" ||
	fail "big_burn's symbol is not the archive's: $(cat "$T/o" "$T/e")"
exit 0
