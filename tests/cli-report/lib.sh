# lib.sh - sourced by the t-*.sh tests of pcprof report and export.
# Sets PCPROF, FIX (mkfixture), JSONCHECK, a temporary directory T (removed
# on exit), writes the fixture profile $T/fx.data, and defines:
#   fail MSG     print "FAIL: MSG" and exit 1
#   skip MSG     print "SKIP: MSG" and exit 77
#   expect NAME  the fixture's expected count for NAME (mkfixture counts)
#   row FILE FUNCTION   the report row whose function column (5th) is FUNCTION
#   table FILE HEADER   the rows of FILE's table whose column header line
#                starts with HEADER, up to the blank line that ends it
#   try STATUS PATTERN CMD...   CMD exits STATUS, with one message on stderr
#                (besides symbolization notes and warnings) matching PATTERN
#                (grep -E); its output in $T/o, $T/e
set -eu
cd "$(dirname "$0")/../.."
ROOT=$PWD
PCPROF=$ROOT/${B:-build}/pcprof
FIX=$ROOT/${B:-build}/tests/cli-report/mkfixture
JSONCHECK=$ROOT/${B:-build}/tests/cli-report/jsoncheck
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
unset DEBUGINFOD_URLS

fail() {
	echo "FAIL: $*"
	exit 1
}
skip() {
	echo "SKIP: $*"
	exit 77
}
for f in "$PCPROF" "$FIX" "$JSONCHECK"; do
	[ -x "$f" ] || fail "$f not built (make all)"
done
"$FIX" counts >"$T/counts" || fail "mkfixture counts"
expect() {
	awk -v k="$1" '$1 == k { print $2 }' "$T/counts"
}
try() {
	want=$1 pat=$2
	shift 2
	rc=0
	"$@" >"$T/o" 2>"$T/e" || rc=$?
	[ "$rc" = "$want" ] || fail "$*: exit $rc, want $want; stderr: $(cat "$T/e")"
	# pcprof run keeps its recordings when the data file cannot be written
	# (pcprof-run(1)) and says so on a line of its own: remove them.
	kept=$(sed -n 's/^pcprof run: the recordings are kept in \(.*\): pcprof run --from .*/\1/p' "$T/e")
	[ -z "$kept" ] || rm -rf "$kept"
	grep -Ev '^(note|warning): |^pcprof run: the recordings are kept in ' "$T/e" >"$T/msg" || true
	[ "$(wc -l <"$T/msg")" = 1 ] || fail "$*: not one message: $(cat "$T/e")"
	grep -Eq -e "$pat" "$T/msg" || fail "$*: stderr '$(cat "$T/e")' does not match '$pat'"
}
row() {
	awk -v f="$2" '$5 == f' "$1"
}
table() {
	awk -v h="$2" 'index($0, h) == 1 { on = 1; next }
		on && NF == 0 { exit }
		on { print }' "$1"
}
"$FIX" write "$T/fx.data" || fail "mkfixture write"
