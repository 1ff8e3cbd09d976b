#!/bin/sh
# Debug info that follows the binary (cli/debuginfo.h), on programs built
# and recorded here:
# - rebuilt after recording (another build id), recorded preloaded, from
#   outside and by attaching (rebuilt while it ran): the report and every export name none of the new
#   binary's functions, show the samples as prog+0xADDRESS and say once why
#   (build id mismatch: recorded X, file has Y);
# - stripped, its debug file found by build id in a --debug-dir, in
#   DIR/PATH, under PCPROF_DEBUG_ROOT's /usr/lib/debug, and from a
#   debuginfod server (python3's http.server in debuginfod's layout): the
#   hot function's name and line, and without them the note "no debug file
#   for build id X";
# - gone altogether: its executable and debug file from debuginfod.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbg.sh"

# ---- rebuilt after recording ----------------------------------------------------
prog old "$T/prog"
old_id=$(build_id "$T/prog")
record "$T/prog" "$T/p.data"
"$PCPROF" report "$T/p.data" >"$T/before" 2>&1 || fail "report: $(cat "$T/before")"
grep -q ' old_spin ' "$T/before" || fail "no old_spin before the rebuild: $(cat "$T/before")"
prog new "$T/prog" -O2
new_id=$(build_id "$T/prog")
[ "$old_id" != "$new_id" ] || fail "the rebuild kept build id $old_id"
"$PCPROF" report -l "$T/p.data" >"$T/after" 2>&1 || fail "report: $(cat "$T/after")"
! grep -Eq 'old_spin|new_spin|main +prog|prog\.c:' "$T/after" ||
	fail "names or lines from the rebuilt program: $(cat "$T/after")"
grep -Eq ' prog\+0x[0-9a-f]+ +prog$' "$T/after" || fail "no prog+0x row: $(cat "$T/after")"
n=$(grep -c "^warning: $T/prog lost its symbols: build id mismatch: recorded $old_id, file has $new_id; " "$T/after")
[ "$n" = 1 ] || fail "want the mismatch warning once, got $n: $(cat "$T/after")"
for fmt in folded pprof speedscope html gmon; do
	"$PCPROF" export -f $fmt -o "$T/x.$fmt" "$T/p.data" >"$T/xo" 2>&1 ||
		fail "export $fmt: $(cat "$T/xo")"
	n=$(grep -c "^warning: $T/prog lost its symbols: build id mismatch: recorded $old_id" "$T/xo")
	[ "$n" = 1 ] || fail "export $fmt: want the mismatch warning once, got $n: $(cat "$T/xo")"
	if [ -f "$T/x.$fmt" ]; then
		! grep -aq 'new_spin' "$T/x.$fmt" || fail "export $fmt names new_spin"
		# pprof is gzip'd: look inside
		[ $fmt != pprof ] || ! gzip -dc "$T/x.$fmt" | grep -aq 'new_spin' ||
			fail "export pprof names new_spin"
	fi
done
grep -q 'prog+0x' "$T/x.folded" || fail "folded has no prog+0x frame: $(head -c 2000 "$T/x.folded")"
# the same when pcprof samples from outside (--mode external): the build id
# is recorded there too (pcprof attach takes the same path, cli/sampler.c)
prog ext "$T/eprog"
ext_id=$(build_id "$T/eprog")
if PROFIL_HZ=1000 "$PCPROF" run -q --mode external -o "$T/e.data" "$T/eprog" >"$T/runout" 2>&1; then
	prog ext2 "$T/eprog" -O2
	"$PCPROF" report "$T/e.data" >"$T/e" 2>&1 || fail "report: $(cat "$T/e")"
	grep -q "^warning: $T/eprog lost its symbols: build id mismatch: recorded $ext_id, " "$T/e" ||
		fail "external mode: no mismatch warning: $(cat "$T/e")"
	! grep -q 'ext2_spin' "$T/e" || fail "external mode: names of the rebuilt program"
elif ! grep -q 'perf' "$T/runout"; then
	fail "pcprof run --mode external: $(cat "$T/runout")"
fi # else perf events are denied here: t-run-external.sh says so
# pcprof attach to a program rebuilt while it runs: the build id recorded
# is that of the file it maps (read through /proc/PID/map_files where we
# may, as root), not of the file now at its path
cat >"$T/long.c" <<'END'
static volatile unsigned long sink;
__attribute__((noinline)) void long_spin(void)
{
	for (;;)
		sink++;
}
int main(void)
{
	long_spin();
	return 0;
}
END
cc -O1 -g -o "$T/long" "$T/long.c" 2>"$T/err" || fail "cc: $(cat "$T/err")"
long_id=$(build_id "$T/long")
"$T/long" &
lp=$!
sed 's/long_spin/later_spin/' "$T/long.c" >"$T/later.c"
cc -O2 -g -o "$T/long" "$T/later.c" 2>"$T/err" || fail "cc: $(cat "$T/err")"
rc=0
"$PCPROF" attach --duration 0.5 -o "$T/a.data" $lp >"$T/aout" 2>&1 || rc=$?
kill $lp
wait $lp 2>/dev/null || true
if [ $rc = 0 ]; then
	"$PCPROF" report "$T/a.data" >"$T/a" 2>&1 || fail "report: $(cat "$T/a")"
	! grep -q 'later_spin' "$T/a" || fail "attach: names of the rebuilt program: $(cat "$T/a")"
	[ "$(id -u)" != 0 ] || grep -q "^warning: $T/long.* lost its symbols: .*build id $long_id" "$T/a" ||
		fail "attach: not the mapped file's build id ($long_id): $(cat "$T/a")"
elif ! grep -q -e perf_event_paranoid -e 'no software cpu-clock' "$T/aout"; then
	fail "pcprof attach: $(cat "$T/aout")"
fi

# ---- stripped, with a separate debug file ----------------------------------------
prog str "$T/sprog"
id=$(build_id "$T/sprog")
hot=$(grep -n 'hot line' "$T/sprog.c" | cut -d: -f1)
cp "$T/sprog" "$T/sprog.full"
objcopy --only-keep-debug "$T/sprog" "$T/sprog.dbg" || fail "objcopy --only-keep-debug"
objcopy --strip-all "$T/sprog" || fail "objcopy --strip-all" # no debuglink: found by build id
[ "$(build_id "$T/sprog")" = "$id" ] || fail "strip changed the build id"
record "$T/sprog" "$T/s.data"
"$PCPROF" report -l -v "$T/s.data" >"$T/s0" 2>&1 || fail "report: $(cat "$T/s0")"
! grep -q 'str_spin' "$T/s0" || fail "a stripped program named without its debug file: $(cat "$T/s0")"
grep -q "^note: sprog .*no debug file for build id $id .*install the -dbgsym package or pass --debug-dir" "$T/s0" ||
	fail "no note about the missing debug file: $(cat "$T/s0")"

named() { # FILE: the hot function and its line are there
	grep -Eq ' str_spin +sprog$' "$1" || fail "$2: no str_spin row: $(cat "$1")"
	grep -Eq "[ /]sprog\.c:$hot +str_spin " "$1" || fail "$2: no line sprog.c:$hot: $(cat "$1")"
	! grep -Eq '^note: (no debug symbols for .*)?sprog' "$1" || fail "$2: a note although the debug file was found: $(cat "$1")"
}
# DIR/.build-id/xx/rest.debug
mkdir -p "$T/dd/$(dirname "$(id_path "$id")")"
cp "$T/sprog.dbg" "$T/dd/$(id_path "$id")"
"$PCPROF" report -F -l --debug-dir "$T/nothing-here-$$" "$T/s.data" >"$T/o" 2>&1 &&
	fail "--debug-dir of a missing directory accepted"
mkdir "$T/empty"
"$PCPROF" report -F -l --debug-dir "$T/empty" --debug-dir "$T/dd" "$T/s.data" >"$T/s1" 2>&1 ||
	fail "report --debug-dir: $(cat "$T/s1")"
named "$T/s1" "--debug-dir (build-id layout)"
# a debug file of another build is not taken, whatever its name
prog other "$T/other"
objcopy --only-keep-debug "$T/other" "$T/dd/$(id_path "$id")"
"$PCPROF" report -F --debug-dir "$T/dd" "$T/s.data" >"$T/s2" 2>&1 || fail "report: $(cat "$T/s2")"
! grep -q 'other_spin' "$T/s2" || fail "a debug file of another build id was used: $(cat "$T/s2")"
rm -r "$T/dd"
# DIR/PATH.debug: the debug file beside the recorded path under DIR
mkdir -p "$T/dp$T"
cp "$T/sprog.dbg" "$T/dp$T/sprog.debug"
"$PCPROF" report -F -l --debug-dir "$T/dp" "$T/s.data" >"$T/s3" 2>&1 || fail "report: $(cat "$T/s3")"
named "$T/s3" "--debug-dir (DIR/PATH.debug)"
# DIR/PATH: the unstripped program at its recorded path under DIR, used
# whole (the recorded path has the stripped one)
mkdir -p "$T/dq$T"
cp "$T/sprog.full" "$T/dq$T/sprog"
"$PCPROF" report -F -l --debug-dir "$T/dq" "$T/s.data" >"$T/s3" 2>&1 || fail "report: $(cat "$T/s3")"
named "$T/s3" "--debug-dir (DIR/PATH)"
# /usr/lib/debug, under a fake root
mkdir -p "$T/root/usr/lib/debug/$(dirname "$(id_path "$id")")"
cp "$T/sprog.dbg" "$T/root/usr/lib/debug/$(id_path "$id")"
PCPROF_DEBUG_ROOT=$T/root "$PCPROF" report -F -l "$T/s.data" >"$T/s4" 2>&1 ||
	fail "report: $(cat "$T/s4")"
named "$T/s4" "/usr/lib/debug"
rm -r "$T/root"
# export too
"$PCPROF" export -f folded -o "$T/s.folded" --debug-dir "$T/dp" "$T/s.data" 2>"$T/xo" ||
	fail "export --debug-dir: $(cat "$T/xo")"
grep -q 'str_spin' "$T/s.folded" || fail "export --debug-dir: no str_spin"

# ---- debuginfod ----------------------------------------------------------------
command -v python3 >/dev/null || skip "python3 not installed: no debuginfod server"
mkdir -p "$T/srv/buildid/$id"
cp "$T/sprog.dbg" "$T/srv/buildid/$id/debuginfo"
cp "$T/sprog" "$T/srv/buildid/$id/executable"
# python3's http.server on a port the kernel picks, named in $T/port
cat >"$T/serve.py" <<'END'
import functools, http.server, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
h.log_message = lambda *a: None
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
open(sys.argv[2] + ".tmp", "w").write(str(s.server_address[1]))
__import__("os").rename(sys.argv[2] + ".tmp", sys.argv[2])
s.serve_forever()
END
python3 "$T/serve.py" "$T/srv" "$T/port" 2>"$T/srv.err" &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$T"' EXIT
i=0
while [ ! -s "$T/port" ]; do # a hang guard, not a timing assumption
	kill -0 $srv 2>/dev/null || fail "the HTTP server ended: $(cat "$T/srv.err")"
	i=$((i + 1))
	[ $i -lt 600 ] || fail "the HTTP server did not start in 60 s"
	sleep 0.1
done
url=http://127.0.0.1:$(cat "$T/port")
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/cache "$PCPROF" report -F -l "$T/s.data" >"$T/s5" 2>&1 ||
	fail "report with debuginfod: $(cat "$T/s5")"
named "$T/s5" "debuginfod"
# the program gone: its executable and its debug file from the server
rm "$T/sprog"
rm -rf "$T/cache"
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/cache "$PCPROF" report -F -l "$T/s.data" >"$T/s6" 2>&1 ||
	fail "report with debuginfod: $(cat "$T/s6")"
named "$T/s6" "debuginfod, program gone"
grep -q "^note: $T/sprog: file missing; using debuginfod:" "$T/s6" ||
	fail "no note on where the missing program came from: $(cat "$T/s6")"
[ -n "$(find "$T/cache" -name executable)" ] || fail "the executable was not fetched"
# without DEBUGINFOD_URLS nothing is asked
rm -rf "$T/cache"
DEBUGINFOD_CACHE_PATH=$T/cache "$PCPROF" report -F "$T/s.data" >"$T/s7" 2>&1 || fail "report"
[ ! -e "$T/cache" ] || fail "debuginfod asked without DEBUGINFOD_URLS"
grep -q "^warning: $T/sprog lost its symbols: file missing; no file with build id $id " "$T/s7" ||
	fail "no warning for the missing program: $(cat "$T/s7")"
exit 0
