#!/bin/sh
# libprofil-audit.so.1 is one self-contained object where lib/audit/nolibc.c
# has system calls (x86_64, aarch64): no DT_NEEDED, so that the loader loads
# no second libc into the module's namespace in every process image; no
# undefined symbol, no TLS, no text relocation; and it exports exactly the
# four audit entry points.
set -eu
cd "$(dirname "$0")/../.."
so=${B:-build}/libprofil-audit.so.1
case $(${CC:-cc} -dumpmachine) in
x86_64-* | aarch64-*) ;;
*) echo "SKIP: the audit module uses libc on $(${CC:-cc} -dumpmachine)"; exit 77 ;;
esac
fail() { echo "FAIL: $*"; exit 1; }
[ -f "$so" ] || fail "missing $so (make all)"
needed=$(readelf -d "$so" | grep -E '\((NEEDED|TEXTREL)\)' || true)
[ -z "$needed" ] || fail "dynamic section: $needed"
readelf -lW "$so" | grep -q '^ *TLS ' && fail "the module has a TLS segment"
undef=$(nm -D --undefined-only "$so")
[ -z "$undef" ] || fail "undefined symbols: $undef"
exports=$(nm -D --defined-only "$so" | awk '{print $3}' | sort | tr '\n' ' ')
[ "$exports" = "la_objclose la_objopen la_preinit la_version " ] || fail "exports: $exports"
exit 0
