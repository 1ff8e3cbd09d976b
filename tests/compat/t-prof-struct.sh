#!/bin/sh
# T61: struct prof from our <sys/profil.h> serves HP-UX (pr_offset) and
# IRIX/glibc (pr_off) sources: both spellings compile and name the same
# member, and the layout is glibc's exactly (32 bytes, members at 0, 8, 16,
# 24), compared with what glibc's own header gives.  Also in strict C99/C11
# and as C++.
. "$(dirname "$0")/compat.sh"

layout='#include <stddef.h>
#include <stdio.h>
#include <sys/profil.h>
int main(void)
{
	printf("%zu %zu %zu %zu %zu\n", sizeof(struct prof), offsetof(struct prof, pr_base),
	       offsetof(struct prof, pr_size), offsetof(struct prof, pr_off),
	       offsetof(struct prof, pr_scale));
	return 0;
}'
printf "%s\n" "$layout" | cc_ok ours
ours=$(run ours)
# glibc's header: no -I, nothing of ours.
printf "%s\n" "$layout" >"$tmp/glibc.c"
$CC -Wall -Werror -o "$tmp/glibc" "$tmp/glibc.c"
glibc=$("$tmp/glibc")
[ "$ours" = "32 0 8 16 24" ] || { echo "our layout: $ours"; exit 1; }
[ "$ours" = "$glibc" ] || { echo "ours '$ours' != glibc's '$glibc'"; exit 1; }

# Both spellings, one member.
same='#include <stddef.h>
#include <sys/profil.h>
_Static_assert(sizeof(struct prof) == 32, "glibc size");
_Static_assert(offsetof(struct prof, pr_offset) == offsetof(struct prof, pr_off), "one member");
int main(void)
{
	unsigned short buf[4];
	struct prof hp = { .pr_base = buf, .pr_size = sizeof buf, .pr_offset = 0x1234, .pr_scale = 0x10000 };
	struct prof ir = { .pr_base = buf, .pr_size = sizeof buf, .pr_off = 0x1234, .pr_scale = 0x10000 };
	hp.pr_offset += 2;
	ir.pr_off += 2;
	return hp.pr_off == 0x1236 && ir.pr_offset == 0x1236 ? 0 : 1;
}'
for std in -std=gnu11 -std=c11 -std=c99 "-std=c11 -pedantic"; do
	# shellcheck disable=SC2086
	printf "%s\n" "$same" | cc_ok same $std
	run same || { echo "pr_offset and pr_off differ ($std)"; exit 1; }
done

# glibc-style positional initialisation compiles and fills the members in
# glibc's order.  Not under -Werror: the anonymous union that gives the
# member its two names (spec 3.3) draws -Wmissing-braces from gcc's -Wall
# at such an initialiser, where glibc's header draws none.
cat >"$tmp/pos.c" <<'C'
#include <sys/profil.h>
static unsigned short buf[4];
static struct prof p = { buf, sizeof buf, 0x1234, 0x10000 };
int main(void)
{
	return p.pr_base == buf && p.pr_size == 8 && p.pr_offset == 0x1234 &&
		       p.pr_scale == 0x10000 ? 0 : 1;
}
C
$CC -Wall -I"$inc" -o "$tmp/pos" "$tmp/pos.c" 2>"$tmp/pos.err" || {
	cat "$tmp/pos.err"
	exit 1
}
"$tmp/pos" || { echo "positional initialiser: members out of glibc's order"; exit 1; }

# C++ (anonymous union in a struct is standard there).
cat >"$tmp/same.cc" <<'CXX'
#include <cstddef>
#include <sys/profil.h>
static_assert(sizeof(prof) == 32, "glibc size");
static_assert(offsetof(prof, pr_offset) == 16 && offsetof(prof, pr_off) == 16, "offset member");
int main()
{
	prof p = {};
	p.pr_offset = 7;
	return p.pr_off == 7 ? 0 : 1;
}
CXX
if command -v c++ >/dev/null; then
	c++ -Wall -Wextra -Werror -I"$inc" -o "$tmp/samecc" "$tmp/same.cc" || exit 1
	"$tmp/samecc" || { echo "C++: pr_offset and pr_off differ"; exit 1; }
fi
exit 0
