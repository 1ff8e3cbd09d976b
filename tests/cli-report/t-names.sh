#!/bin/sh
# Names a program chose (thread names, command lines) or a file holds
# (module paths, the engine name) never reach a terminal raw: report's
# tables and notes, messages quoting a name, gmon's instructions and the
# text formats show control characters, bidi overrides and bytes that are
# not UTF-8 as escapes (\x1b, \a, \n, \u202e, \xff); JSON escapes them its
# own way and stays valid UTF-8; pprof's strings are valid UTF-8.  On the
# fixture's hostile names (mkfixture --hostile) and on python3 naming its
# thread "\033[2J\a" with a newline in its command line.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed (the checker of every output)"

# safe FILE...: valid UTF-8 without C0 controls (but newline), DEL, C1
# controls, or bidi and line-separator controls
safe() {
	python3 - "$@" <<'EOF' || fail "unsafe text in $*"
import sys
bad = set(range(0x20)) - {0x0a} | {0x7f} | set(range(0x80, 0xa0)) | {
    0x061c, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
    0x2066, 0x2067, 0x2068, 0x2069}
ok = True
for path in sys.argv[1:]:
    data = open(path, 'rb').read()
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as e:
        print(f"{path}: not UTF-8: {e}")
        ok = False
        continue
    for n, line in enumerate(text.split('\n'), 1):
        for c in line:
            if ord(c) in bad:
                print(f"{path}:{n}: U+{ord(c):04X} in {line!r}")
                ok = False
sys.exit(0 if ok else 1)
EOF
}
# has FILE TEXT: the escaped TEXT appears literally
has() {
	grep -qF -- "$2" "$1" || fail "$1 does not show '$2': $(head -c 3000 "$1")"
}

"$FIX" write "$T/h.data" --hostile || fail "mkfixture --hostile"

# ---- report ----------------------------------------------------------------------
"$PCPROF" report -F -l -M -P -T "$T/h.data" >"$T/r" 2>"$T/e" || fail "report: $(cat "$T/e")"
safe "$T/r" "$T/e"
has "$T/r" 'command    mkfixture \x1b[31mred\nline'
has "$T/r" 'engine     thread\x1b[5m\x9b (1), thread-timer (1)'
has "$T/r" 'lib\x1b[2J\n.so+0x1100  lib\x1b[2J\n.so'          # functions, lines
has "$T/r" 'lib\x1b[2J\n.so  /nonexistent/lib\x1b[2J\n.so'    # modules
has "$T/r" 'thread\x1b[5m\x9b     3  exit 0     mkfixture\nspin\x1b]0;pwned\a'
has "$T/r" 'exit 0     child \u202e evil'
has "$T/r" '  \x1b[2J\a          '                              # threads, padded
has "$T/r" '  bad\xff\xfe\xc3    '
has "$T/r" 'warning: /nonexistent/lib\x1b[2J\n.so lost its symbols: file missing'
has "$T/r" 'its functions show as lib\x1b[2J\n.so+0xADDRESS'
# no name added a line: 2 processes, 3 threads
n=$(awk '/^Processes:/ { on = 1; next } /^Threads:/ { on = 0 } on && /^ +[0-9]+ +[0-9]+ /' "$T/r" | wc -l)
[ "$n" = 2 ] || fail "$n process rows, want 2"
n=$(awk '/^Threads:/ { on = 1; next } on && /^ +[0-9]+ +[0-9]+ /' "$T/r" | wc -l)
[ "$n" = 3 ] || fail "$n thread rows, want 3"
# --module/--function patterns are echoed escaped
"$PCPROF" report -m "$(printf 'lib\033*')" "$T/h.data" >"$T/r2" 2>&1 || fail "report -m"
safe "$T/r2"
has "$T/r2" "--module 'lib\\x1b*'"

# messages that quote a name: the file name, an unknown format, a bad pid
bad=$(printf '%s/no\033[2J\nsuch\a' "$T")
"$PCPROF" report "$bad" >/dev/null 2>"$T/e" && fail "report on a missing file succeeded"
safe "$T/e"
[ "$(wc -l <"$T/e")" = 1 ] || fail "message on more than one line: $(cat "$T/e")"
has "$T/e" 'no\x1b[2J\nsuch\a: No such file or directory'
"$PCPROF" export -f "$(printf 'x\033[2J')" "$T/h.data" 2>"$T/e" && fail "bad format accepted"
safe "$T/e"
has "$T/e" "unknown format 'x\\x1b[2J'"
"$PCPROF" "$(printf 'cmd\033[2J')" 2>"$T/e" && fail "bad command accepted"
safe "$T/e"
has "$T/e" "unknown command 'cmd\\x1b[2J'"

# ---- exports ---------------------------------------------------------------------
"$PCPROF" export -f folded -o "$T/h.folded" "$T/h.data" 2>"$T/e" || fail "folded: $(cat "$T/e")"
safe "$T/h.folded" "$T/e"
bad=$(grep -Ev '^[^;]+;[^;]+ [0-9]+$' "$T/h.folded" || true)
[ -z "$bad" ] || fail "malformed folded lines: $bad"
has "$T/h.folded" 'lib\x1b[2J\n.so;lib\x1b[2J\n.so+0x1100 10'

"$PCPROF" export -f html -o "$T/h.html" "$T/h.data" 2>"$T/e" || fail "html: $(cat "$T/e")"
safe "$T/h.html" "$T/e"
has "$T/h.html" 'mkfixture \x1b[31mred\nline'
has "$T/h.html" 'lib\x1b[2J\n.so+0x1100'

rm -rf "$T/gm"
"$PCPROF" export -f gmon -o "$T/gm" "$T/h.data" >"$T/g" 2>"$T/e" || fail "gmon: $(cat "$T/e")"
safe "$T/g" "$T/e" "$T"/gm/*.syms
has "$T/g" 'gmon.lib_[2J_.so.out: no ELF file to read it with (/nonexistent/lib\x1b[2J\n.so is gone'
bad=$(cat "$T"/gm/*.syms | awk 'NF != 3' || true)
[ -z "$bad" ] || fail "gprof symbol lines that are not 'address type name': $bad"

# JSON: the names exactly (JSON's own escapes), U+FFFD for bytes not UTF-8
"$PCPROF" export -f speedscope -o "$T/h.json" "$T/h.data" 2>"$T/e" || fail "speedscope"
"$JSONCHECK" "$T/h.json" >/dev/null || fail "speedscope: not JSON"
python3 - "$T/h.json" <<'EOF' || fail "speedscope names"
import json, sys
d = json.loads(open(sys.argv[1], 'rb').read().decode('utf-8'))  # strict UTF-8
names = [p['name'] for p in d['profiles']]
want = ['mkfixture \x1b[31mred\nline', 'pid ', 'child \u202e evil']
assert names[0] == want[0], names
assert any(n.endswith(': mkfixture\nspin\x1b]0;pwned\x07') for n in names), names
assert any(n.endswith(': ' + want[2]) for n in names), names
frames = [f['name'] for f in d['shared']['frames']]
assert 'lib\x1b[2J\n.so+0x1100' in frames, frames
EOF

# pprof: every string of the string table valid UTF-8, names kept
"$PCPROF" export -f pprof -o "$T/h.pb.gz" "$T/h.data" 2>"$T/e" || fail "pprof: $(cat "$T/e")"
python3 - "$T/h.pb.gz" <<'EOF' || fail "pprof strings"
import gzip, sys
b = gzip.open(sys.argv[1]).read()
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i
strings, i = [], 0
while i < len(b):
    key, i = varint(b, i)
    if key & 7 == 0:
        _, i = varint(b, i)
    elif key & 7 == 2:
        n, i = varint(b, i)
        if key >> 3 == 6:
            strings.append(b[i:i + n].decode('utf-8'))  # strict: raises if not UTF-8
        i += n
    else:
        sys.exit(f"unexpected wire type {key & 7}")
for s in ['\x1b[2J\x07', 'bad\ufffd\ufffd\ufffd', 'lib\x1b[2J\n.so+0x1100',
          'mkfixture \x1b[31mred\nline']:
    assert s in strings, (s, strings)
EOF

# ---- a real program: python3 names its worker thread "\033[2J\a" ---------------
# after 0.2 s of its CPU time, so after its first samples: the report shows
# the name the thread ended with (the library reads it again at its end).
py=$(command -v python3)
[ -x /usr/bin/python3 ] && py=/usr/bin/python3 # not a version manager's shell shim
"$PCPROF" run -q -o "$T/py.data" "$py" -c '
import ctypes, threading, time
def spin(s):
    end = time.thread_time() + s
    while time.thread_time() < end:
        pass
def work():
    spin(0.2)   # sampled (100 samples at 500 Hz) under the name it was born with
    ctypes.CDLL(None).prctl(15, b"\x1b[2J\x07", 0, 0, 0)   # PR_SET_NAME
    spin(0.3)
t = threading.Thread(target=work)
t.start()
t.join()' "$(printf 'arg\nwith\033[2Jescape')" >"$T/o" 2>&1 || fail "pcprof run python3: $(cat "$T/o")"
"$PCPROF" report -P -T "$T/py.data" >"$T/pr" 2>&1 || fail "report: $(cat "$T/pr")"
safe "$T/pr"
has "$T/pr" '\x1b[2J\a'
has "$T/pr" ' arg\nwith\x1b[2Jescape'
exit 0
