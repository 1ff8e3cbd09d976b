#!/bin/sh
# pcprof report on the fixture (tests/cli-report/mkfixture.c): the header,
# exact counts and shares per function with their modules (executable,
# shared library with static functions, stripped library, stripped library
# with its symbols in a debug file found by .gnu_debuglink, libc, libz,
# outside every module), one process's pcs merged with another's mapped
# elsewhere, every view and filter, and the notes about missing symbols.
. "$(dirname "$0")/lib.sh"

"$PCPROF" report "$T/fx.data" >"$T/out" 2>"$T/err" || fail "report exit $?: $(cat "$T/err")"
[ ! -s "$T/err" ] || fail "report wrote to stderr: $(cat "$T/err")"
total=$(expect total)

# header
grep -q '^command  *mkfixture spin 100$' "$T/out" || fail "no command line"
grep -q '^processes  *2: ' "$T/out" || fail "no process count"
grep -q '^engine  *thread-timer$' "$T/out" || fail "no engine"
grep -q '^rate  *1000 Hz$' "$T/out" || fail "no rate"
secs=$(awk -v n="$total" 'BEGIN { printf "%.2f", n / 1000 }')
grep -q "^samples  *$total ($secs s); CPU time $secs s; achieved 1000.0 Hz; lost 6\$" "$T/out" ||
	fail "bad samples line: $(grep '^samples' "$T/out")"

# the hot function is the first row, with its exact count and share
first=$(awk '/^ self%/ { getline; print; exit }' "$T/out")
set -- $first
[ "$5" = fix_hot ] && [ "$6" = mkfixture ] || fail "first row is not fix_hot: $first"
[ "$3" = "$(expect fix_hot)" ] || fail "fix_hot count $3"
want=$(awk -v n="$(expect fix_hot)" -v t="$total" 'BEGIN { printf "%.2f", 100 * n / t }')
[ "$1" = "$want" ] || fail "fix_hot share $1, want $want"

# every function: count, seconds (at 1000 Hz) and module
check() { # function module count
	r=$(row "$T/out" "$1")
	[ -n "$r" ] || fail "no row for $1"
	set -- "$1" "$2" "$3" $r
	[ "$6" = "$3" ] || fail "$1: $6 samples, want $3"
	[ "$9" = "$2" ] || fail "$1: module $9, want $2"
	s=$(awk -v n="$3" 'BEGIN { printf "%.2f", n / 1000 }')
	[ "$7" = "$s" ] || fail "$1: $7 seconds, want $s"
}
check fix_hot mkfixture "$(expect fix_hot)"
check fix_warm mkfixture "$(expect fix_warm)"         # both processes
check fix_cold mkfixture "$(expect fix_cold)"         # static
check hot_lib_spin libhot.so "$(expect hot_lib_spin)" # both processes, two biases
check hot_lib_inner libhot.so "$(expect hot_lib_inner)" # static, .symtab only
check cold_lib_spin libcold.so "$(expect cold_lib_spin)" # stripped: .dynsym
check "$(expect cold_inner_label)" libcold.so "$(expect cold_inner)" # unnamed, 2 pcs
check dbg_lib_inner libdbg.so "$(expect dbg_lib_inner)" # static, in the debuglink file
check getppid libc.so.6 "$(expect getppid)"
if [ "$(expect __vdso_clock_gettime)" != 0 ]; then # from this kernel's vDSO
	check __vdso_clock_gettime '[vdso]' "$(expect __vdso_clock_gettime)"
fi
check 0x1234 '[unknown]' "$(expect unknown)"
r=$(awk '$5 == "crc32"' "$T/out")
case "$r" in *" libz.so"*) ;; *) fail "crc32 row: $r" ;; esac
rows=$(awk '/^ self%/ { on = 1; next } on && NF == 6' "$T/out" | wc -l)
[ "$rows" = "$(expect functions)" ] || fail "$rows function rows, want $(expect functions)"
sum=$(awk '/^ self%/ { on = 1; next } on && NF == 6 { s += $3 } END { print s }' "$T/out")
[ "$sum" = "$total" ] || fail "rows add up to $sum, not $total"

# notes: the stripped library always; libz and libc when no debug file
# exists; one line names them all, -v gives each its own (t-polish-notes.sh)
"$PCPROF" report -v "$T/fx.data" >"$T/long" || fail "report -v"
nosyms=$(grep '^note: no debug symbols for ' "$T/out") || fail "no note on modules without symbols"
case "$nosyms" in *" libcold.so"[,:]*) ;; *) fail "libcold.so not named: $nosyms" ;; esac
grep -q '^note: libcold.so has only its exported symbols' "$T/long" || fail "no -v note for libcold.so"
case "$nosyms" in *libdbg*) fail "libdbg.so named although its debug file is there: $nosyms" ;; esac
! grep -q '^note: libdbg' "$T/long" || fail "-v note for libdbg.so although its debug file is there"
debug_file() { # the build-id debug file of a library, if installed
	id=$(readelf -n "$1" 2>/dev/null | awk '/Build ID/ { print $3 }')
	[ -n "$id" ] && [ -e "/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" ]
}
libz=$(ldd "$FIX" | awk '/libz.so/ { print $3 }')
if [ -n "$libz" ] && ! debug_file "$libz"; then
	case "$nosyms" in *" libz.so"*"(zlib1g-dbgsym)"*) ;; *) fail "zlib1g not named: $nosyms" ;; esac
	grep -q '^note: libz.*zlib1g' "$T/long" || fail "no -v note naming zlib1g"
fi
libc=$(ldd "$FIX" | awk '/libc.so.6/ { print $3 }')
if debug_file "$libc"; then
	case "$nosyms" in *libc.so*) fail "libc named although its debug file is installed: $nosyms" ;; esac
else
	case "$nosyms" in *" libc.so.6 (libc6-dbg)"*) ;; *) fail "libc6-dbg not named: $nosyms" ;; esac
	grep -q '^note: libc.so.6 .*libc6-dbg' "$T/long" || fail "no -v note naming libc6-dbg"
fi

# --lines: file:line rows
"$PCPROF" report --lines "$T/fx.data" >"$T/lines" || fail "report --lines"
grep -Eq '^ *[0-9.]+ +[0-9.]+ +70000 +70.00 +tests/cli-report/mkfixture\.c:[0-9]+ +fix_hot +mkfixture$' "$T/lines" ||
	fail "no mkfixture.c line for fix_hot: $(grep fix_hot "$T/lines")"
grep -Eq ' tests/cli-report/hotlib\.c:[0-9]+ +hot_lib_spin ' "$T/lines" || fail "no hotlib.c line"
grep -Eq ' tests/cli-report/dbglib\.c:[0-9]+ +dbg_lib_inner ' "$T/lines" || fail "no dbglib.c line (debug file)"
# paths: relative to the compilation directory (above: the fixture is built
# in the source tree), to --source-root, else in full; --full-paths
"$PCPROF" report --lines --source-root "$ROOT/tests/cli-report" "$T/fx.data" >"$T/lines" ||
	fail "report --lines --source-root"
grep -Eq '70000 +70.00 +mkfixture\.c:[0-9]+ +fix_hot ' "$T/lines" || fail "--source-root: $(grep fix_hot "$T/lines")"
"$PCPROF" report --lines --source-root /nonexistent "$T/fx.data" >"$T/lines" ||
	fail "report --lines --source-root /nonexistent"
grep -Eq "70000 +70.00 +$ROOT/tests/cli-report/mkfixture\.c:[0-9]+ +fix_hot " "$T/lines" ||
	fail "--source-root elsewhere: $(grep fix_hot "$T/lines")"
"$PCPROF" report --lines --full-paths "$T/fx.data" >"$T/lines" || fail "report --lines --full-paths"
grep -Eq " 21000 +21.00 +$ROOT/tests/cli-report/hotlib\.c:[0-9]+ +hot_lib_spin " "$T/lines" ||
	fail "--full-paths: $(grep hot_lib_spin "$T/lines")"

# --modules: per-module totals
"$PCPROF" report --modules "$T/fx.data" >"$T/mods" || fail "report --modules"
m=$(($(expect fix_hot) + $(expect fix_warm) + $(expect fix_cold)))
grep -Eq "^ *[0-9.]+ +[0-9.]+ +$m +[0-9.]+ +mkfixture +/" "$T/mods" || fail "mkfixture total, want $m"
m=$(($(expect hot_lib_spin) + $(expect hot_lib_inner)))
grep -Eq "^ *[0-9.]+ +[0-9.]+ +$m +[0-9.]+ +libhot.so +/" "$T/mods" || fail "libhot.so total, want $m"
grep -Eq "^ *[0-9.]+ +- +$(expect unknown) +[0-9.]+ +\[unknown\]" "$T/mods" || fail "no [unknown] total"
grep -q '^Flat profile' "$T/mods" && fail "--modules alone also printed functions"

# --processes and --threads
"$PCPROF" report --processes --threads "$T/fx.data" >"$T/pt" || fail "report -P -T"
child=$(awk '/^Processes:/ { on = 1 } on && $NF == "child" { print $1; exit }' "$T/pt")
[ -n "$child" ] || fail "no child process row"
awk '/^Processes:/ { on = 1 } on && $NF == "child"' "$T/pt" | grep -q ' 3000 ' ||
	fail "child process samples"
grep -Eq '^ *[0-9]+ +[0-9]+ +worker +[0-9.]+ +14000 +14.00 +hot_lib_spin \(libhot.so, 43%\)$' "$T/pt" ||
	fail "worker thread row: $(grep worker "$T/pt")"

# --pid: the child alone
"$PCPROF" report --pid "$child" "$T/fx.data" >"$T/pid" || fail "report --pid"
grep -q '^samples  *3000 ' "$T/pid" || fail "--pid total: $(grep '^samples' "$T/pid")"
[ "$(row "$T/pid" fix_warm | awk '{ print $3 }')" = 2000 ] || fail "--pid fix_warm"
row "$T/pid" fix_hot | grep -q . && fail "--pid kept the parent's fix_hot"

# --module / --function filters (fnmatch), shares still of all samples
"$PCPROF" report --module 'libhot*' "$T/fx.data" >"$T/mf" || fail "report --module"
grep -q "^shown  *26000 samples" "$T/mf" || fail "--module shown line: $(grep '^shown' "$T/mf")"
n=$(awk '/^ self%/ { on = 1; next } on && NF == 6' "$T/mf" | wc -l)
[ "$n" = 2 ] || fail "--module libhot*: $n rows"
"$PCPROF" report --function 'fix_*' "$T/fx.data" >"$T/ff" || fail "report --function"
n=$(awk '/^ self%/ { on = 1; next } on && NF == 6 && $5 ~ /^fix_/' "$T/ff" | wc -l)
m=$(awk '/^ self%/ { on = 1; next } on && NF == 6' "$T/ff" | wc -l)
[ "$n" = 3 ] && [ "$m" = 3 ] || fail "--function fix_*: $n of $m rows"
row "$T/ff" fix_hot | grep -q "^ *$want " || fail "--function changed the share"

# --sort and --limit
"$PCPROF" report --sort name "$T/fx.data" >"$T/sn" || fail "report --sort name"
awk '/^ self%/ { on = 1; next } on && NF == 6 { print $5 }' "$T/sn" >"$T/names"
LC_ALL=C sort -c "$T/names" || fail "--sort name not sorted: $(tr '\n' ' ' <"$T/names")"
"$PCPROF" report --sort module "$T/fx.data" >"$T/sm" || fail "report --sort module"
awk '/^ self%/ { on = 1; next } on && NF == 6 { print $6 }' "$T/sm" >"$T/mods2"
LC_ALL=C sort -c "$T/mods2" || fail "--sort module not sorted"
"$PCPROF" report --sort address -n 3 "$T/fx.data" >"$T/sa" || fail "report --sort address"
n=$(awk '/^ self%/ { on = 1; next } on && NF == 6' "$T/sa" | wc -l)
[ "$n" = 3 ] || fail "--limit 3 printed $n rows"

# a rebuilt library (build-id differs) and a vanished one: warnings, and
# their pcs kept as module+0xOFFSET
"$FIX" write "$T/changed.data" --changed --missing || fail "mkfixture --changed"
"$PCPROF" report "$T/changed.data" >"$T/ch" 2>&1 || fail "report on changed binaries"
grep -Eq '^warning: .*/libhot.so lost its symbols: build id mismatch: recorded [0-9a-f]+, file has [0-9a-f]+; ' "$T/ch" ||
	fail "no build-id warning"
grep -q '^warning: /nonexistent/libgone.so lost its symbols: file missing' "$T/ch" || fail "no missing-file warning"
row "$T/ch" hot_lib_spin | grep -q . && fail "symbolized a changed libhot.so"
grep -Eq ' libhot\.so\+0x[0-9a-f]+ +libhot\.so$' "$T/ch" || fail "no libhot.so+0x row"
grep -Eq ' 50 +0\.05 +libgone\.so\+0x1100 +libgone\.so$' "$T/ch" || fail "no libgone.so+0x1100 row"
# libc recorded under a path that is gone: named from its debug file when
# libc6-dbg is installed (found by build-id), else kept as an address
if debug_file "$libc"; then
	grep -Eq ' 40 +0\.04 +getppid +libc\.so\.6$' "$T/ch" || fail "vanished libc not named by its debug file"
	grep -q '^note: /nonexistent/libc.so.6: file missing; its symbols come from the debug file /usr/lib/debug/' \
		"$T/ch" || fail "no note about the vanished libc"
else
	grep -Eq ' 40 +0\.04 +libc\.so\.6\+0x[0-9a-f]+ +libc\.so\.6$' "$T/ch" || fail "vanished libc row"
	grep -q '^warning: /nonexistent/libc.so.6 lost its symbols: file missing; ' "$T/ch" || fail "no warning for vanished libc"
fi

# debuginfod configured but unreachable (a closed local port): asked for
# the stripped library's debug file, in vain, and the report is the same
DEBUGINFOD_URLS=http://127.0.0.1:9 DEBUGINFOD_CACHE_PATH="$T/dcache" \
	"$PCPROF" report -v "$T/fx.data" >"$T/dfx" 2>&1 || fail "report with DEBUGINFOD_URLS"
"$PCPROF" report -v "$T/fx.data" >"$T/ndfx" 2>&1 || fail "report"
grep -Ev '^(note|warning): ' "$T/dfx" >"$T/dfx.rows"
grep -Ev '^(note|warning): ' "$T/ndfx" >"$T/ndfx.rows"
cmp -s "$T/dfx.rows" "$T/ndfx.rows" || fail "an unreachable debuginfod changed the report: $(cat "$T/dfx")"
grep -q '^note: libcold.so .*debuginfod (http://127.0.0.1:9)' "$T/dfx" ||
	fail "the note does not say debuginfod was asked: $(cat "$T/dfx")"

# the default file is ./pcprof.data
cp "$T/fx.data" "$T/pcprof.data"
(cd "$T" && "$PCPROF" report >"$T/default") || fail "report without FILE"
grep -q '^file  *pcprof.data$' "$T/default" || fail "default file"
exit 0
