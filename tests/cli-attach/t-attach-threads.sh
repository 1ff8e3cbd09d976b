#!/bin/sh
# pcprof attach follows what the process does while attached: an exec (the
# new image's modules come from the kernel's mmap records) and threads
# created afterwards (inherited events), each under its own name.
. "$(dirname "$0")/lib.sh"
# The shell execs only once pcprof says sampling is live: it waits in the
# open of a FIFO (no child process, no timer), which the test opens then.
# A fixed sleep before the exec lost the race to a slow attach under load.
mkfifo "$T/go" || fail "mkfifo"
sh -c 'read -r go <"$2"; exec "$1" threads 0.6' sh "$HOT" "$T/go" &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT
attach_live "$PCPROF" attach -o "$T/p.data" --hz 500 "$pid"
echo go >"$T/go"
wait $pp || fail "pcprof attach exited $?: $(cat "$T/err")"
cat "$T/err"
wait "$pid" || fail "the program failed"
grep -q "exec'd 1 time" "$T/err" || fail "the exec was not seen"
dump "$T/p.data"
id=$pid.0
grep -q "^module $id [0-9]* $HOT bias=0x[1-9a-f]" "$T/dump" || { cat "$T/dump"; fail "no module for the exec'd program"; }
for w in a b; do
	n=$(awk -v id="$id" -v w="worker-$w" '$1 == "thread" && $2 == id && $4 == w { print $5 }' "$T/dump")
	[ "${n:-0}" -gt 0 ] || { cat "$T/dump"; fail "no samples for thread worker-$w"; }
done
expect_hot "$id" hot_thread_a 30
expect_hot "$id" hot_thread_b 30
exit 0
