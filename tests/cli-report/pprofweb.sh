# pprofweb.sh - sourced (not run) by the tests that check go tool pprof's
# web UI (-http) on our pprof files: t-pprof-http.sh and
# tests/cli-run/t-run-pprof-go.sh.  Needs $T, fail and go on PATH; uses
# only 127.0.0.1.  Defines:
#   web_start FILE     serve FILE with pprof -http on a free port of
#                      127.0.0.1, wait until it answers; the base URL in $WEB
#   web_get PAGE OUT   fetch $WEB/ui/PAGE into OUT (HTTP errors fail)
#   web_stop           end the server (web_start puts it in the EXIT trap)
#   web_flame          the flame graph's page name for this go: flamegraph
#                      (Go's pprof before the new one replaced it), or
#                      flamegraph2 where both exist
#   web_graph OUT NAME...  the graph page (/ui/) names each NAME when
#                      Graphviz's dot is installed; without it, pprof's
#                      own error page says so, and that is checked instead
# go tool pprof runs the pprof binary of $(go env GOTOOLDIR): we start that
# binary ourselves, so that the pid we end is the server's.

WEB_PID=
PPROF_BIN=$(go env GOTOOLDIR)/pprof
[ -x "$PPROF_BIN" ] || fail "no pprof in $(go env GOTOOLDIR)"
command -v curl >/dev/null || fail "curl is needed to fetch go tool pprof -http pages"

web_stop()
{
	if [ -n "$WEB_PID" ]; then
		kill "$WEB_PID" 2>/dev/null || true
		wait "$WEB_PID" 2>/dev/null || true
		WEB_PID=
	fi
	return 0
}
# the server goes with the test however it ends (lib.sh's trap removes $T)
trap 'web_stop; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP

# a port of 127.0.0.1 that was free a moment ago
free_port()
{
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

web_start()
{
	web_stop
	# another program may take the port between free_port and pprof's
	# bind: then pprof exits, and we try another
	for try in 1 2 3; do
		port=$(free_port) || fail "no free port on 127.0.0.1"
		WEB=http://127.0.0.1:$port
		nice "$PPROF_BIN" -http="127.0.0.1:$port" -no_browser "$1" >"$T/web.log" 2>&1 &
		WEB_PID=$!
		# a hang guard, not a measurement: pprof reads the profile and
		# listens within a second or two; 600 polls of 0.2 s at least
		i=0
		while [ $i -lt 600 ]; do
			curl -s --noproxy '*' --max-time 30 -o /dev/null "$WEB/ui/top" && return 0
			kill -0 "$WEB_PID" 2>/dev/null || break
			sleep 0.2
			i=$((i + 1))
		done
		wait "$WEB_PID" 2>/dev/null || true
		WEB_PID=
	done
	fail "go tool pprof -http $1 never answered: $(cat "$T/web.log")"
}

web_get()
{
	curl -sS -f --noproxy '*' --max-time 60 -o "$2" "$WEB/ui/$1" 2>"$T/curl.err" ||
		fail "GET $WEB/ui/$1: $(cat "$T/curl.err") $(cat "$2" 2>/dev/null | head -c 300)"
}

web_flame()
{
	# the page list of this pprof: its binary holds the paths it serves
	if grep -q '/flamegraph2' "$PPROF_BIN"; then echo flamegraph2; else echo flamegraph; fi
}

web_graph()
{
	out=$1
	shift
	if command -v dot >/dev/null; then
		web_get "" "$out"
		for n in "$@"; do
			grep -qF "$n" "$out" || fail "graph page (/ui/) has no $n"
		done
	else
		# pprof answers 500 with why; the page works once dot is there
		curl -s --noproxy '*' --max-time 60 -o "$out" "$WEB/ui/" || fail "GET $WEB/ui/"
		grep -qi 'graphviz' "$out" || fail "graph page without dot: $(head -c 300 "$out")"
		echo "# Graphviz (dot) is not installed: the graph page (/ui/) is not checked"
	fi
}
