#!/bin/sh
# What a run costs in memory (issue 8, item 15), with the figures printed on
# failure:
#   1. pcprof's own peak RSS (GNU time's %M) over a shell loop that execs
#      200 programs, less its peak for one program, per process image: at
#      most 32 KiB (it held 256 KiB each: a thread array the size of the
#      recorder's thread table).
#   2. the target's memory for its recording at 100 Hz: python3 running a
#      varied workload for 3 s of CPU reads the Rss of its mappings of the
#      recording from its own /proc/self/smaps: at most 512 KiB (one sparse
#      table touched a page per distinct pc: 936 KiB after 5 s, 2.3 MiB
#      after 30 s).
. "$(dirname "$0")/lib.sh"
TIME=/usr/bin/time
"$TIME" -f %M true >/dev/null 2>&1 || { echo "SKIP: GNU time (/usr/bin/time) not installed"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || { echo "SKIP: python3 not installed"; exit 77; }

# 1. pcprof per process
"$TIME" -o "$T/one" -f %M "$PCPROF" run -q -o "$T/p.data" -- /bin/true || fail "one"
"$TIME" -o "$T/many" -f %M "$PCPROF" run -q -o "$T/p.data" -- \
	sh -c 'i=0; while [ $i -lt 200 ]; do /bin/true; i=$((i + 1)); done' || fail "200 execs"
dump "$T/p.data"
n=$(procs | wc -l)
one=$(tail -1 "$T/one")
many=$(tail -1 "$T/many")
[ "$n" -ge 200 ] || fail "$n process images recorded, want at least 200"
per=$(((many - one) * 1024 / n))
echo "pcprof peak RSS: $one KiB for 1 image, $many KiB for $n: $per bytes per image"
# A sanitizer's allocator keeps freed memory in quarantine, with redzones.
[ -n "${SANITIZE:-}" ] || [ $per -le $((32 * 1024)) ] || fail "pcprof holds $per bytes per process image, want <= 32 KiB"

# 2. the target at 100 Hz
cat >"$T/work.py" <<'EOF'
import json, re, random, sys, time, zlib, hashlib, decimal, fractions, collections
random.seed(1)
while time.process_time() < float(sys.argv[1]):
    d = {str(k): [random.random() for _ in range(20)] for k in range(200)}
    s = json.dumps(d)
    json.loads(s)
    re.findall(r"[0-9]+\.[0-9]{3}", s)
    zlib.compress(s.encode())
    hashlib.sha256(s.encode()).hexdigest()
    sorted(d.items(), key=lambda kv: kv[1][0])
    decimal.Decimal(len(s)) / decimal.Decimal(7)
    fractions.Fraction(len(s), 7) + fractions.Fraction(1, 3)
    collections.Counter(s)
rss, raw = 0, False
for line in open("/proc/self/smaps"):
    f = line.split()
    if "-" in f[0] and not f[0].endswith(":"):
        raw = len(f) > 5 and f[5].endswith(".raw")
    elif f[0] == "Rss:" and raw:
        rss += int(f[1])
status = dict(l.split(":", 1) for l in open("/proc/self/status"))
print(rss, status["VmRSS"].split()[0])
EOF
"$PY" "$T/work.py" 0.5 >"$T/plain" || fail "python3 without pcprof"
"$PCPROF" run -o "$T/p.data" --hz 100 -- "$PY" "$T/work.py" 3 >"$T/out" 2>"$T/err" ||
	fail "python3: $(cat "$T/err")"
read -r raw vmrss <"$T/out" || fail "python3 printed '$(cat "$T/out")'"
dump "$T/p.data"
id=$(procs)
echo "python3, 3 s at 100 Hz: $(field "$id" ticks) samples, $(field "$id" samples) distinct;" \
	"recording Rss $raw KiB; VmRSS $vmrss KiB (unprofiled, 0.5 s: $(cut -d' ' -f2 "$T/plain") KiB)"
[ "$(field "$id" ticks)" -ge 150 ] || fail "only $(field "$id" ticks) samples: $(cat "$T/err")"
[ "$raw" -le 512 ] || fail "the recording takes $raw KiB of python3's memory at 100 Hz, want <= 512"
exit 0
