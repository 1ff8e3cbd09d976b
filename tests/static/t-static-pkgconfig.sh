#!/bin/sh
# A static program linked with the documented line against an installed
# libprofil has its threads profiled (issue 8, item 2):
#   make install DESTDIR=<stage> PREFIX=/usr, then
#   cc -static t-static.c $(pkg-config --static --cflags --libs libprofil)
# against the staged .pc, run as `t-static tracked` (see t-static.c: the
# threads' CPU must be counted on every engine, and pthread_create, exec
# and signals work as in the plain static link).
# Also: libprofil.a calls nothing it would have to find with dlsym (a
# static program has no RTLD_NEXT), the static flags carry the --wrap of
# pthread_create and the dynamic ones do not, and the static flags still
# link a program when -lprofil finds the shared library, whose threads are
# then tracked too.
set -eu
cd "$(dirname "$0")/../.."
case $(cc -print-file-name=libc.a) in
/*) ;;
*)
	echo "SKIP: no static C library (libc.a) to link a static program with"
	exit 77
	;;
esac
. tests/helpers/stage.sh

lib=$stage/usr/lib/libprofil.a
if nm "$lib" | grep -qE ' U __(asan|tsan|ubsan)_'; then
	echo "SKIP: libprofil.a is built with a sanitizer, which cannot link static programs"
	exit 77
fi
if nm -u "$lib" | grep -E ' (dlsym|dlvsym|dlopen)$'; then
	echo "libprofil.a needs the dynamic loader (above)"
	exit 1
fi

static=$(pkg-config --static --cflags --libs libprofil)
dynamic=$(pkg-config --cflags --libs libprofil)
case " $static " in
*" -I$stage/usr/include/libprofil "*"-L$stage/usr/lib "*"-lprofil "*"-Wl,--wrap=pthread_create "*) ;;
*)
	echo "pkg-config --static does not give the documented link line: $static"
	exit 1
	;;
esac
case " $dynamic " in
*--wrap*)
	echo "pkg-config without --static wraps pthread_create: $dynamic"
	exit 1
	;;
esac

bin=$stage/t-static
# shellcheck disable=SC2086
if ! cc -static -std=gnu11 -Wall -Wextra -Werror -O2 -Itests -o "$bin" tests/static/t-static.c \
	$static 2>"$stage/cc.err"; then
	echo "cc -static t-static.c $static: failed:"
	cat "$stage/cc.err"
	exit 1
fi
if readelf -l "$bin" | grep -q INTERP; then
	echo "not a static program: $bin"
	exit 1
fi
nm "$bin" | grep -q ' T __wrap_pthread_create$' || {
	echo "libprofil.a's pthread_create wrapper is not linked in"
	exit 1
}
"$bin" tracked

# The static flags without -static: -lprofil is the shared library, which
# must take the wrapped calls too.  A thread created while the
# thread-timer engine runs is armed only if the library saw its creation.
cat >"$stage/dyn.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <profil_ext.h>

static void *run(void *arg) { return arg; }

int main(void)
{
	static unsigned short buf[4];
	struct profil_stats a, b;
	pthread_t t;

	if (profil_set_engine("thread-timer") || profil(buf, sizeof buf, 0, 2)) {
		perror("profil");
		return 1;
	}
	profil_stats(&a);
	if (pthread_create(&t, NULL, run, NULL) || pthread_join(t, NULL))
		return 1;
	profil_stats(&b);
	if (b.threads != a.threads + 1) {
		printf("thread attaches %llu -> %llu: the new thread was not seen\n",
		       a.threads, b.threads);
		return 1;
	}
	return 0;
}
EOF
# shellcheck disable=SC2086
if ! cc -Wall -Wextra -Werror -o "$stage/dyn" "$stage/dyn.c" $static 2>"$stage/dyn.err"; then
	echo "cc dyn.c $static (shared libprofil): failed:"
	cat "$stage/dyn.err"
	exit 1
fi
LD_LIBRARY_PATH=$stage/usr/lib "$stage/dyn"
