#!/bin/sh
# lib/sig/ is the bottom layer of the library (the AS-safe zone, see
# lib/sig/README and docs/design.md): its files may include only system
# headers, lib/sig/, lib/arch/, lib/internal.h, lib/record-format.h and the
# public include/profil_ext.h (constants), never the control code above.
# Lists every #include "..." of lib/sig/*.[ch] and fails on any other; then
# checks the same of the symbols their objects link to, and that every
# other symbol they need is an async-signal-safe function named in
# tests/abi/as-safe.list; and that the control files above it (lib/*.c)
# call one another without a circle.
set -eu
cd "$(dirname "$0")/../.."
top=$(pwd -P)
n=0 bad=0
for f in lib/sig/*.c lib/sig/*.h; do
	n=$((n + 1))
	dir=$(dirname "$f")
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		path=$(realpath -m "$dir/$inc")
		path=${path#"$top"/}
		echo "# $f: $inc ($path)"
		case "$path" in
		lib/sig/* | lib/arch/* | lib/internal.h | lib/record-format.h | include/profil_ext.h)
			continue ;;
		esac
		echo "not ok: $f includes $path, above the signal layer"
		bad=1
	done
done
[ "$n" -gt 3 ] || { echo "only $n files in lib/sig/: wrong directory?"; exit 1; }

# The same at link level, where a declaration in a lower header could hide
# a definition above: every profil__ symbol a lib/sig/ object needs must be
# defined in lib/sig/, lib/arch/ or lib/util.c (L0 helpers).
b=${B:-build}/lib
lower=$(for f in lib/sig/*.c lib/arch/*.c lib/arch/*.S lib/util.c; do
	o=$b/${f#lib/}
	o=${o%.*}.o
	[ -e "$o" ] && nm --defined-only "$o" | awk '{print $3}'
done | sort -u)
[ -n "$lower" ] || { echo "no objects in $b: build first"; exit 1; }
for f in lib/sig/*.c; do
	o=$b/${f#lib/}
	o=${o%.c}.o
	for s in $(nm -u "$o" | awk '$2 ~ /^profil__/ {print $2}'); do
		printf '%s\n' "$lower" | grep -qx "$s" && continue
		echo "not ok: $f needs $s, defined above the signal layer"
		bad=1
	done
done

# Every other symbol a lib/sig/ object needs is a function of libc that
# is async-signal-safe (tests/abi/as-safe.list says where that is
# written): the object may run in a handler, so anything it links to may
# be called there.  Not functions: the linker's _GLOBAL_OFFSET_TABLE_ and,
# in a sanitizer build, the instrumentation's own entry points.
safe=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' tests/abi/as-safe.list | awk '{print $1}')
[ -n "$safe" ] || { echo "tests/abi/as-safe.list is empty"; exit 1; }
for f in lib/sig/*.c lib/arch/*.c lib/arch/*.S; do
	o=$b/${f#lib/}
	o=${o%.*}.o
	[ -e "$o" ] || continue
	for s in $(nm -u "$o" | awk '$2 !~ /^profil__/ {print $2}'); do
		case "$s" in
		_GLOBAL_OFFSET_TABLE_ | __asan_* | __ubsan_* | __tsan_* | __sanitizer_*) continue ;;
		esac
		printf '%s\n' "$safe" | grep -qx "$s" && continue
		echo "not ok: $f needs $s, which tests/abi/as-safe.list does not name async-signal-safe"
		bad=1
	done
done

# Above the signal layer, the control files call one another one way
# only: no circle of calls among lib/*.o (docs/design.md, "Layers";
# ctl.c is the lock and engine state every control file reads, so that
# threads.c, record.c and exec.c need nothing of session.c).  Edges: a
# profil__ symbol or a public function one object needs and another
# defines.
for o in "$b"/*.o; do
	# an object left by an older layout (its source moved) is not the library
	[ -e "lib/$(basename "$o" .o).c" ] || continue
	# a public function of ours called through the PLT (engine-perf.c's
	# sigaction reached our own interposer) is an edge like any other
	nm --defined-only "$o" | awk -v f="$(basename "$o" .o)" '$3 ~ /^profil__/ || $2 ~ /^[TDBRW]$/ { print "D", f, $3 }'
	nm -u "$o" | awk -v f="$(basename "$o" .o)" '{ print "U", f, $2 }'
done | awk '
	$1 == "D" { def[$3] = $2; next }
	{ need[++n] = $2 " " $3 }
	END {
		for (i = 1; i <= n; i++) {
			split(need[i], a, " ")
			if ((a[2] in def) && def[a[2]] != a[1] && !((a[1], def[a[2]]) in e)) {
				e[a[1], def[a[2]]] = 1
				out[a[1]] = out[a[1]] " " def[a[2]]
				nodes[a[1]] = nodes[def[a[2]]] = 1
			}
		}
		# a circle is an edge a -> b with b reaching a
		for (x in nodes) {
			delete seen; top = 0
			k = split(out[x], nx, " ")
			for (j = 1; j <= k; j++) stack[++top] = nx[j]
			while (top > 0) {
				y = stack[top--]
				if (y == x) { print "not ok: a circle of calls through lib/" x ".c"; bad = 1; break }
				if (y in seen) continue
				seen[y] = 1
				k2 = split(out[y], ny, " ")
				for (j = 1; j <= k2; j++) stack[++top] = ny[j]
			}
		}
		exit bad
	}' || bad=1

exit $bad
