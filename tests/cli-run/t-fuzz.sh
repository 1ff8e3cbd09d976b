#!/bin/sh
# A bounded libFuzzer run of the pcprof.data reader and of what reads its
# profiles: the model, every view, the writers (tests/cli-run/fuzz-data.c,
# under address and undefined-behaviour sanitizers).  Its custom mutator
# makes counts at their bounds, stacks thousands of frames deep and tables
# of thousands of entries besides libFuzzer's byte mutations (issue 19).
# FUZZ_RUNS inputs (default 2000) within FUZZ_SECONDS (default 120: a loaded
# machine runs fewer, and at least 500 must have run).  The seeds are data
# files written by pcprof run, so the mutations start from well-formed
# input.  SKIPs when clang or its fuzzer runtime is missing.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The fuzzer is a sanitizer build of its own, run by make check.
[ -z "${SANITIZE:-}" ] || { echo "SKIP: the fuzz target has its own sanitizer build (make check runs it)"; exit 77; }
command -v clang >/dev/null 2>&1 || { echo "SKIP: clang is not installed"; exit 77; }
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$tmp/probe.c"
if ! clang -fsanitize=fuzzer "$tmp/probe.c" -o "$tmp/probe" 2>"$tmp/probe.err"; then
	echo "SKIP: clang's libFuzzer runtime is missing (libclang-rt-14-dev): $(head -n1 "$tmp/probe.err")"
	exit 77
fi
# (built with the tests when the runtime is there: this is then nothing)
make -s build/fuzz/fuzz-data || { echo "cannot build build/fuzz/fuzz-data"; exit 1; }

mkdir "$tmp/corpus"
build/pcprof run -q -o "$tmp/corpus/true.data" -- true ||
	{ echo "pcprof run -- true failed"; exit 1; }
build/pcprof run -q -o "$tmp/corpus/threads.data" -- build/tests/targets/hot threads 0.05 ||
	{ echo "pcprof run -- hot threads failed"; exit 1; }

# -max_len: room for a stack of 4096 frames
build/fuzz/fuzz-data -runs="${FUZZ_RUNS:-2000}" -max_total_time="${FUZZ_SECONDS:-120}" \
	-max_len=65536 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$tmp/" \
	-print_final_stats=1 "$tmp/corpus" >"$tmp/log" 2>&1
rc=$?
if [ $rc != 0 ]; then
	grep -v '^warning: ' "$tmp/log" | tail -n 40
	for f in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-*; do
		[ -e "$f" ] && echo "reproducer (base64): $(base64 -w0 "$f")"
	done
	exit 1
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log")
[ "${runs:-0}" -ge 500 ] || { echo "only ${runs:-0} inputs ran"; tail -n 20 "$tmp/log"; exit 1; }
