#!/bin/sh
# A full file system never kills the program and never loses a run (issue 8,
# item 5), on real small file systems: tmpfs mounts of a few pages (root;
# SKIP otherwise), always unmounted.
#   1. TMPDIR with 3 free pages (a recording reserves 7 at first): python3
#      and hot run as without pcprof (output, exit status: no SIGBUS), and
#      the summary says that 1 image was not recorded, why, its pid and its
#      CPU time; the data file has it, unsampled, with that CPU time.
#   2. TMPDIR with room for 3 recordings under a shell that starts 12
#      programs: each image is recorded or named unrecorded, as many in all
#      as a run with room records; so with 8 programs that burn 50 ms of CPU
#      each, the images not recorded have each its CPU time in the data file,
#      in the summary and in pcprof report's "unsampled" line (issue 19,
#      item 9: they said "CPU time 0.00 s, lost 0" for 0.44 s), and the
#      fork children of a shell that could not record are counted too.
#   3. TMPDIR with room for a first reservation only, python3 at 1000 Hz:
#      its pc table cannot grow; it runs as always and the samples lost for
#      want of room are counted and said.
#   4. -o on a full file system: pcprof exits 125, keeps the recordings and
#      says where and how to finish; pcprof run --from writes the data file,
#      with the program's exit status, and removes them; without the run's
#      own file it still does, saying what is unknown.
#   5. --from leaves alone what pcprof did not make.
# A ThreadSanitizer-built pcprof gets room for its runtime's own file in
# TMPDIR (own, below); the sizes above are what the targets meet.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || { echo "SKIP: python3 not installed"; exit 77; }

MNTS=
cleanup()
{
	for m in $MNTS; do umount "$m" 2>/dev/null || umount -l "$m"; done
	rm -rf "$T"
}
trap cleanup EXIT

# fs SIZE: mount a new tmpfs of SIZE; its path in $FS
fs()
{
	FS=$(mktemp -d "$T/fs.XXXXXX")
	if ! mount -t tmpfs -o "size=$1" pcprof-test "$FS" 2>"$T/mount.err"; then
		echo "SKIP: cannot mount a tmpfs: $(cat "$T/mount.err")"
		exit 77
	fi
	MNTS="$MNTS $FS"
}

# own KB: KB plus what pcprof itself takes from its TMPDIR, for a file
# system that is pcprof's TMPDIR.  A ThreadSanitizer-built pcprof takes
# 512 KiB there before main: the runtime writes its .rodata shadow marker
# to $TMPDIR/tsan.rodata.PID (512 KiB, or as much as fits), unlinks it and
# keeps it mapped until pcprof exits.  Without this room the runtime fills
# the tiny file system and not one recording fits; with it, the targets
# (never instrumented) meet the same room as under a plain pcprof.
own()
{
	case "${SANITIZE:-}" in
	*thread*) echo "$(($1 + 512))k" ;;
	*) echo "${1}k" ;;
	esac
}

# unrecorded FILE: the N of "N process image(s) not recorded" in FILE, or 0
unrecorded()
{
	n=$(sed -n 's/.*[:,] \([0-9]*\) process images\{0,1\} not recorded.*/\1/p' "$1")
	echo "${n:-0}"
}

# sampled: the ids of the last dump's images that have a recording (a rate);
# unsampled: those that have none, only a marker (pcprof's entry for it)
sampled()
{
	awk '$1 == "proc" && $9 != "hz=0" { print $2 }' "$T/dump"
}
unsampled()
{
	awk '$1 == "proc" && $9 == "hz=0" { print $2 }' "$T/dump"
}

cat >"$T/work.py" <<'EOF'
import json, re, random, sys, time, zlib, hashlib, decimal, fractions, collections
random.seed(1)
while time.process_time() < float(sys.argv[1]):
    d = {str(k): [random.random() for _ in range(20)] for k in range(100)}
    s = json.dumps(d)
    json.loads(s)
    re.findall(r"[0-9]+\.[0-9]{3}", s)
    zlib.compress(s.encode())
    hashlib.sha256(s.encode()).hexdigest()
    sorted(d.items(), key=lambda kv: kv[1][0])
    decimal.Decimal(len(s)) / decimal.Decimal(7)
    fractions.Fraction(len(s), 7) + fractions.Fraction(1, 3)
    collections.Counter(s)
print("done")
EOF

# 1. no room at all
fs "$(own 12)"
want=$("$PY" -c 'print(sum(i * i for i in range(300000)))')
TMPDIR=$FS "$PCPROF" run -o "$T/p.data" -- "$PY" -c 'print(sum(i * i for i in range(300000)))' \
	>"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] || fail "python3 with a full TMPDIR: exit $rc: $(cat "$T/err")"
[ "$(cat "$T/out")" = "$want" ] || fail "python3 printed '$(cat "$T/out")', want '$want'"
grep -q "lost: 1 process image not recorded (no room for its recording in $FS: No space left on device; pid [0-9]*; [0-9.]* s CPU)" \
	"$T/err" || fail "summary: $(cat "$T/err")"
grep -q "statically linked" "$T/err" && fail "blames static linking: $(cat "$T/err")"
dump "$T/p.data"
[ -z "$(sampled)" ] || fail "recorded processes with no room: $(sampled)"
id=$(unsampled)
[ "$(echo "$id" | wc -w)" = 1 ] && [ "$(field "$id" ticks)" = 0 ] &&
	[ "$(field "$id" cpu_ms)" -ge 1 ] || fail "the image not recorded: $(grep '^proc' "$T/dump")"
TMPDIR=$FS "$PCPROF" run -q -o "$T/p.data" -- "$HOT" exit 0.05 2>"$T/err"
rc=$?
[ $rc = 7 ] || fail "hot exit with a full TMPDIR: exit $rc, want 7: $(cat "$T/err")"
[ -z "$(ls -A "$FS")" ] || fail "left in TMPDIR: $(ls -A "$FS")"

# 2. room for some
cmd='for i in 1 2 3 4 5 6 7 8 9 10 11 12; do /bin/true; done'
"$PCPROF" run -o "$T/all.data" -- sh -c "$cmd" 2>"$T/err" || fail "with room: $(cat "$T/err")"
dump "$T/all.data"
images=$(procs | wc -l)
[ "$(unrecorded "$T/err")" = 0 ] || fail "with room, unrecorded images: $(cat "$T/err")"
fs "$(own 60)"
TMPDIR=$FS "$PCPROF" run -o "$T/p.data" -- sh -c "$cmd" 2>"$T/err" || fail "60k: $(cat "$T/err")"
dump "$T/p.data"
recorded=$(sampled | wc -l)
lost=$(unrecorded "$T/err")
[ "$recorded" -ge 1 ] && [ "$lost" -ge 1 ] && [ $((recorded + lost)) = "$images" ] &&
	[ "$(unsampled | wc -l)" = "$lost" ] ||
	fail "60k: $recorded recorded + $lost unrecorded ($(unsampled | wc -l) in the data file), want $images in all: $(cat "$T/err")"

# their CPU time, in the data file, the summary and the report: 8 programs
# of 50 ms each, one of them in a subshell (a fork child of a shell that
# may have no recording of its own: counted too)
cmd="for i in 1 2 3 4 5 6 7; do $HOT main 0.05; done; ($HOT main 0.05 & wait)"
"$PCPROF" run -o "$T/all.data" -- sh -c "$cmd" 2>"$T/err" || fail "with room: $(cat "$T/err")"
dump "$T/all.data"
images=$(procs | wc -l)
fs "$(own 60)"
TMPDIR=$FS "$PCPROF" run -o "$T/p.data" -- sh -c "$cmd" 2>"$T/err" ||
	fail "60k, 8 programs: $(cat "$T/err")"
dump "$T/p.data"
lost=$(unrecorded "$T/err")
ms=0
for id in $(unsampled); do
	ms=$((ms + $(field "$id" cpu_ms)))
done
# Each program's own CPU time is at least what it burned.
hot=$(awk -v hot="exe=$HOT" '$1 == "proc" && $9 != "hz=0" && $NF == hot' "$T/dump" | wc -l)
[ "$lost" -ge 2 ] && [ "$(unsampled | wc -l)" = "$lost" ] &&
	[ "$(procs | wc -l)" = "$images" ] && [ $ms -ge $(((8 - hot) * 50)) ] ||
	fail "8 programs of 50 ms, $hot recorded: $lost images not recorded with $ms ms of CPU in the data file (want at least $(((8 - hot) * 50))), $(procs | wc -l) images in all (want $images): $(grep '^proc' "$T/dump") $(cat "$T/err")"
said=$(sed -n 's/.* not recorded (.*; \([0-9.]*\) s CPU).*/\1/p' "$T/err")
awk -v s="$said" -v ms=$ms 'BEGIN { exit !(s != "" && s * 1000 >= ms - 10) }' ||
	fail "summary says '$said' s CPU for images whose data say $ms ms: $(cat "$T/err")"
"$PCPROF" report "$T/p.data" >"$T/report" 2>/dev/null || fail "pcprof report: $(cat "$T/report")"
grep -q "^unsampled  *[0-9.]* s CPU of $lost images no engine sampled (no room for its recording" \
	"$T/report" || fail "report: $(head -8 "$T/report")"

# 3. room for the first level only (7 pages: with stacks, the stack table's
# first level is one of them; the pc table's 256 slots of 40 bytes take 3)
fs "$(own 28)"
TMPDIR=$FS "$PCPROF" run -o "$T/p.data" --hz 1000 -- "$PY" "$T/work.py" 1 >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] && [ "$(cat "$T/out")" = done ] || fail "tables that cannot grow: exit $rc: $(cat "$T/err")"
grep -q "[1-9][0-9]* samples (the pc table could not grow in $FS: No space left on device)" \
	"$T/err" || fail "no samples lost to a full TMPDIR: $(cat "$T/err")"
# more slots cannot help there: the stack table and the timeline say so too
grep -q "try --slots" "$T/err" && fail "advises --slots for a full TMPDIR: $(cat "$T/err")"
dump "$T/p.data"
id=$(procs)
[ "$(field "$id" lost)" -ge 1 ] || fail "lost=$(field "$id" lost) in the data file"

# 4. the data file cannot be written
fs 4k
dd if=/dev/zero of="$FS/fill" bs=4k count=1 2>/dev/null
"$PCPROF" run -o "$FS/p.data" -- "$HOT" exit 0.3 2>"$T/err"
rc=$?
[ $rc = 125 ] || fail "data file on a full file system: exit $rc, want 125: $(cat "$T/err")"
grep -q "p.data: write failed: No space left on device" "$T/err" || fail "message: $(cat "$T/err")"
kept=$(sed -n 's/.*the recordings are kept in \(.*\): pcprof run --from .* -o FILE writes the data file from them$/\1/p' "$T/err")
[ -d "$kept" ] || fail "no kept directory named: $(cat "$T/err")"
ls "$kept"/*.raw >/dev/null 2>&1 && [ -f "$kept/pcprof-run" ] || fail "kept: $(ls -A "$kept")"
cp -R "$kept" "$T/copy"
cp -R "$kept" "$T/mixed"
"$PCPROF" run --from "$kept" -o "$T/later.data" 2>"$T/err" || fail "--from: $(cat "$T/err")"
[ ! -e "$kept" ] || fail "--from left $kept"
grep -q -- "-> $T/later.data" "$T/err" || fail "--from summary: $(cat "$T/err")"
dump "$T/later.data"
id=$(procs | head -1)
[ "$(field "$id" status)" = 7 ] && [ "$(field "$id" end)" = exit ] ||
	fail "--from lost the exit status: $(grep '^proc' "$T/dump")"
grep -q "^profile 1 command=$HOT exit 0.3$" "$T/dump" || fail "--from: $(head -1 "$T/dump")"
expect_hot "$id" hot_main 70
rm "$T/copy/pcprof-run"
"$PCPROF" run -q --from "$T/copy" -o "$T/later.data" 2>"$T/err" || fail "--from, no run file"
grep -q "the command and exit statuses are unknown" "$T/err" || fail "no warning: $(cat "$T/err")"
dump "$T/later.data"
[ "$(field "$(procs | head -1)" status)" = -1 ] || fail "status without the run file"

# 5. only ours is removed
echo keep >"$T/mixed/notes.txt"
"$PCPROF" run -q --from "$T/mixed" -o "$T/x.data" 2>"$T/err" || fail "--from mixed: $(cat "$T/err")"
[ "$(ls -A "$T/mixed")" = notes.txt ] || fail "--from mixed left: $(ls -A "$T/mixed")"
grep -q "cannot remove $T/mixed" "$T/err" || fail "no word on the directory kept: $(cat "$T/err")"
mkdir "$T/empty"
"$PCPROF" run --from "$T/empty" -o "$T/x.data" 2>"$T/err" && fail "--from an empty directory"
grep -q "no recordings of pcprof run there" "$T/err" || fail "message: $(cat "$T/err")"
exit 0
