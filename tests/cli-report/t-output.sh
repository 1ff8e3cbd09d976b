#!/bin/sh
# Where -o (and standard output) can lead, for report, every export format
# and the data file of `pcprof run -o`, all written by cli/file.c:
# - a symbolic link planted at the name pcprof used to write first
#   (FILE.tmpPID) is never followed: another user's file stays as it was;
#   the temporary file is created O_EXCL|O_NOFOLLOW (strace, if installed);
# - FILE itself a link: ours is followed and written in place; one planted
#   by another user in a sticky world-writable directory is refused;
# - a device or FIFO is written, never replaced: /dev/full fails with a
#   message and a non-zero exit, as does standard output on /dev/full;
#   /dev/stdout (a pipe, a file) and a FIFO receive the data intact;
# - a replaced file keeps its permissions, a new one gets 0666 & ~umask,
#   and a write that fails leaves the old file and no temporary file.
. "$(dirname "$0")/lib.sh"
formats="pprof folded speedscope html"
HOT=$ROOT/${B:-build}/tests/targets/hot
[ -x "$HOT" ] || fail "$HOT not built"

# run_ok CMD...: CMD exits 0
run_ok() {
	"$@" >"$T/o" 2>"$T/e" || fail "$*: exit $?: $(cat "$T/e")"
}

# the reference output of each format, to a plain new file
for fmt in $formats; do
	run_ok "$PCPROF" export -f $fmt -o "$T/ref.$fmt" "$T/fx.data"
done

# ---- a link planted where the old writer put its temporary file ----------
# The victim: a file of root's, mode 0600, that the link points at.  The
# exec keeps the shell's pid, so FILE.tmp$$ is the name pcprof used to open
# with fopen (following the link).
printf 'secret\n' >"$T/victim"
chmod 600 "$T/victim"
for fmt in $formats; do
	rm -f "$T/out.$fmt"*
	sh -c 'ln -s "$1" "$2.tmp$$" && exec "$3" export -f "$4" -o "$2" "$5"' sh \
		"$T/victim" "$T/out.$fmt" "$PCPROF" $fmt "$T/fx.data" 2>"$T/e" ||
		fail "export $fmt beside a planted link: exit $?: $(cat "$T/e")"
	[ "$(cat "$T/victim")" = secret ] || fail "export $fmt wrote through $T/out.$fmt.tmpPID"
	cmp -s "$T/out.$fmt" "$T/ref.$fmt" || fail "export $fmt beside a planted link: wrong data"
	[ -L "$T/out.$fmt" ] && fail "export $fmt: the output is a link"
done
sh -c 'ln -s "$1" "$2.tmp$$" && exec "$3" run -q -o "$2" "$4" main 0.05' sh \
	"$T/victim" "$T/run.data" "$PCPROF" "$HOT" 2>"$T/e" || fail "run beside a planted link: $(cat "$T/e")"
[ "$(cat "$T/victim")" = secret ] || fail "pcprof run wrote through $T/run.data.tmpPID"
run_ok "$PCPROF" report "$T/run.data"
[ "$(stat -c %a "$T/victim")" = 600 ] || fail "victim's mode changed"

# every file pcprof creates for its output is created O_EXCL and O_NOFOLLOW
if command -v strace >/dev/null; then
	strace -f -e trace=openat -o "$T/trace" "$PCPROF" export -f html -o "$T/st.html" \
		"$T/fx.data" 2>/dev/null || fail "export under strace"
	grep 'O_CREAT' "$T/trace" >"$T/creat" || fail "no O_CREAT open in: $(cat "$T/trace")"
	bad=$(grep -v 'O_EXCL' "$T/creat" | grep -v 'O_NOFOLLOW' || true)
	grep -q 'O_EXCL.*O_NOFOLLOW\|O_NOFOLLOW.*O_EXCL' "$T/creat" ||
		fail "temporary file not opened O_EXCL|O_NOFOLLOW: $(cat "$T/creat")"
	[ -z "$bad" ] || fail "a file created without O_EXCL: $bad"
else
	echo "# strace not installed: the open flags are not checked, the links above are"
fi

# ---- FILE itself a link -----------------------------------------------------
# Ours: followed, the file it leads to written in place, the link kept.
for fmt in $formats; do
	: >"$T/target.$fmt"
	ln -sf "$T/target.$fmt" "$T/link.$fmt"
	run_ok "$PCPROF" export -f $fmt -o "$T/link.$fmt" "$T/fx.data"
	[ -L "$T/link.$fmt" ] || fail "export $fmt replaced its own link"
	cmp -s "$T/target.$fmt" "$T/ref.$fmt" || fail "export $fmt through a link: wrong data"
done
# Planted by someone else (nobody) in a sticky world-writable directory,
# like /tmp: refused, whatever fs.protected_symlinks says.
if [ "$(id -u)" = 0 ]; then
	mkdir "$T/sticky"
	chmod 1777 "$T/sticky"
	ln -s "$T/victim" "$T/sticky/pcprof.html"
	chown -h 65534:65534 "$T/sticky/pcprof.html"
	try 1 "pcprof.html: a symbolic link of another user in a world-writable directory" \
		"$PCPROF" export -f html -o "$T/sticky/pcprof.html" "$T/fx.data"
	[ "$(cat "$T/victim")" = secret ] || fail "export followed a planted link"
	try 125 "pcprof.html: a symbolic link of another user" \
		"$PCPROF" run -q -o "$T/sticky/pcprof.html" "$HOT" main 0.01
	[ "$(cat "$T/victim")" = secret ] || fail "run followed a planted link"
	# the directory's owner's link is followed (as the kernel would)
	ln -s "$T/target.html" "$T/sticky/own.html"
	run_ok "$PCPROF" export -f html -o "$T/sticky/own.html" "$T/fx.data"
	cmp -s "$T/target.html" "$T/ref.html" || fail "link of the directory's owner not followed"
else
	echo "# not root: no link of another user to plant"
fi

# ---- devices and FIFOs --------------------------------------------------------
for fmt in $formats; do
	try 1 "^pcprof export: /dev/full: write failed: No space left on device$" \
		"$PCPROF" export -f $fmt -o /dev/full "$T/fx.data"
	try 1 "^pcprof export: standard output: write failed: No space left on device$" \
		sh -c '"$@" >/dev/full' sh "$PCPROF" export -f $fmt -o - "$T/fx.data"
	[ -c /dev/full ] || fail "export $fmt replaced /dev/full"
done
for v in "" -P -T -M -l; do
	try 1 "^pcprof report: write error on standard output: No space left on device$" \
		sh -c '"$@" >/dev/full' sh "$PCPROF" report $v "$T/fx.data"
done
# gmon prints where its files went and how to read them
try 1 "^pcprof export: write error on standard output: No space left on device$" \
	sh -c '"$@" >/dev/full' sh "$PCPROF" export -f gmon -o "$T/gm" "$T/fx.data"
try 1 "write error on standard output" sh -c '"$@" >&-' sh "$PCPROF" report "$T/fx.data"
try 1 "write error on standard output" sh -c '"$@" >/dev/full' sh "$PCPROF" report --help
try 125 "run.data: write failed: No space left on device|/dev/full: write failed: No space" \
	"$PCPROF" run -q -o /dev/full "$HOT" main 0.01
[ -c /dev/full ] || fail "pcprof run replaced /dev/full"
run_ok "$PCPROF" export -f html -o /dev/null "$T/fx.data"
[ -c /dev/null ] || fail "export replaced /dev/null"

# /dev/stdout: a pipe, then a file; the data intact either way
for fmt in $formats; do
	"$PCPROF" export -f $fmt -o /dev/stdout "$T/fx.data" 2>"$T/e" | cat >"$T/pipe.$fmt" ||
		fail "export $fmt -o /dev/stdout | cat: $(cat "$T/e")"
	cmp -s "$T/pipe.$fmt" "$T/ref.$fmt" || fail "export $fmt -o /dev/stdout to a pipe: wrong data"
	run_ok sh -c '"$@" >"$0"' "$T/file.$fmt" "$PCPROF" export -f $fmt -o /dev/stdout "$T/fx.data"
	cmp -s "$T/file.$fmt" "$T/ref.$fmt" || fail "export $fmt -o /dev/stdout to a file: wrong data"
done
[ -L /dev/stdout ] || fail "/dev/stdout is no longer a link"

# a named pipe: written, with a reader on the other end, and still a FIFO
mkfifo "$T/fifo"
for fmt in pprof html; do
	cat "$T/fifo" >"$T/fromfifo.$fmt" &
	reader=$!
	run_ok "$PCPROF" export -f $fmt -o "$T/fifo" "$T/fx.data"
	wait $reader
	cmp -s "$T/fromfifo.$fmt" "$T/ref.$fmt" || fail "export $fmt to a FIFO: wrong data"
	[ -p "$T/fifo" ] || fail "export $fmt replaced the FIFO"
done
cat "$T/fifo" >"$T/fromfifo.data" &
reader=$!
"$PCPROF" run -q -o "$T/fifo" "$HOT" main 0.05 2>"$T/e" || fail "run -o FIFO: $(cat "$T/e")"
wait $reader
[ -p "$T/fifo" ] || fail "pcprof run replaced the FIFO"
run_ok "$PCPROF" report "$T/fromfifo.data"

# ---- permissions and failed writes -------------------------------------------
umask 027
rm -f "$T/new.html"
run_ok "$PCPROF" export -f html -o "$T/new.html" "$T/fx.data"
[ "$(stat -c %a "$T/new.html")" = 640 ] || fail "new file mode $(stat -c %a "$T/new.html")"
chmod 604 "$T/new.html"
run_ok "$PCPROF" export -f html -o "$T/new.html" "$T/fx.data"
[ "$(stat -c %a "$T/new.html")" = 604 ] || fail "replaced file mode $(stat -c %a "$T/new.html")"
umask 022
# EFBIG (a 4-block file size limit, SIGXFSZ ignored): the message, exit 1,
# the old file as it was, no temporary file left
cp "$T/ref.folded" "$T/old.html"
try 1 "old.html: write failed: File too large" \
	sh -c 'trap "" XFSZ; ulimit -f 4; exec "$@"' sh "$PCPROF" export -f html -o "$T/old.html" "$T/fx.data"
cmp -s "$T/old.html" "$T/ref.folded" || fail "a failed export changed the old file"
left=$(find "$T" -name '.old.html.*')
[ -z "$left" ] || fail "temporary file left behind: $left"
# a directory is not an output file
mkdir "$T/adir"
try 1 "adir: is a directory" "$PCPROF" export -f html -o "$T/adir" "$T/fx.data"
exit 0
