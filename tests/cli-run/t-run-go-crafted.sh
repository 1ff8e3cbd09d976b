#!/bin/sh
# Go's function table is searched for in a program with a .go.buildinfo
# section but no table section (cli/symtab-go.c): the search must trust
# nothing it finds.  Two C programs pretend to be Go:
#  - "offsets": a table header whose name offset lies past the end of the
#    function table the moduledata announces (pcprof report once read wild
#    memory and died of SIGSEGV);
#  - "headers": 3000 aligned table headers and 8 MB of writable data (each
#    header once cost a scan of every writable word: about 20 s of CPU).
# Each is profiled; report must exit 0, name the C function burn, and take
# little CPU (a limit of 20 s of CPU turns a runaway into a failure).
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
cat >"$T/offsets.c" <<'C'
#include <stdint.h>
#define NAMEOFF 0x100000u
struct hdr {
	uint32_t magic;
	uint8_t z0, z1, quantum, ptr;
	uint64_t nfunc, nfiles, text, nameoff, cuoff, fileoff, pctab, pcln;
	uint32_t ftab[4], func[12];
	uint8_t pad[NAMEOFF + 4096];
};
__attribute__((section(".rodata.fake"), aligned(64), used)) const struct hdr fake = {
	0xfffffff0u, 0, 0, 1, 8, 1, 0, 0, NAMEOFF, 0, 0, 0, 72,
	{ 0, 16, 0x1000, 0 }, { 0, 0x40000000u }, { 0 } };
__attribute__((section(".go.buildinfo"), used)) char buildinfo[32] = "\xff Go buildinf:";
int burn(int);
uint64_t md[41] = { (uint64_t)&fake, (uint64_t)&fake + NAMEOFF, [13] = (uint64_t)&fake,
		    [14] = 200, [22] = (uint64_t)&burn };
C
cat >"$T/headers.c" <<'C'
#include <stdint.h>
struct hdr {
	uint32_t magic;
	uint8_t z0, z1, quantum, ptr;
	uint64_t nfunc, nfiles, text, nameoff, cuoff, fileoff, pctab, pcln;
};
#define H { 0xfffffff0u, 0, 0, 1, 8, 1, 0, 0, 8, 0, 0, 0, 8 }
#define H10 H, H, H, H, H, H, H, H, H, H
#define H100 H10, H10, H10, H10, H10, H10, H10, H10, H10, H10
#define H1000 H100, H100, H100, H100, H100, H100, H100, H100, H100, H100
__attribute__((used, aligned(8))) const struct hdr fakes[] = { H1000, H1000, H1000 };
__attribute__((section(".go.buildinfo"), used)) char buildinfo[32] = "\xff Go buildinf:";
__attribute__((used)) uint64_t big[1 << 20] = { 1 };
uint64_t md[41];
C
# both burn the same way
cat >"$T/burn.c" <<'C'
#include <stdint.h>
extern uint64_t md[41];
__attribute__((noinline)) int burn(int n)
{
	volatile int s = 0;
	for (int i = 0; i < n; i++)
		s += i;
	return s;
}
int main(void)
{
	for (int k = 0; k < 150; k++)
		burn(1000000);
	return md[3] != 0;
}
C
for p in offsets headers; do
	cc -O1 -no-pie -fno-pie -o "$T/$p" "$T/$p.c" "$T/burn.c" 2>"$T/cc" || fail "$p: cc: $(cat "$T/cc")"
	"$PCPROF" run -q -o "$T/$p.data" "$T/$p" >"$T/out" 2>&1 || fail "$p: run: $(cat "$T/out")"
	rc=0
	(ulimit -t 20 && "$PCPROF" report "$T/$p.data") >"$T/r" 2>"$T/e" || rc=$?
	[ $rc = 0 ] || fail "$p: report exited $rc: $(cat "$T/e")"
	grep -q ' burn  *[^ ]*'"$p"'$' "$T/r" || fail "$p: no burn row: $(cat "$T/r")"
	echo "# $p: $(grep ' burn ' "$T/r")"
done
exit 0
