#!/bin/sh
# T66: a Tru64-style source - <sys/resource.h>, a struct profil_args array,
# the offset written as literal -1 or (void *)-1, flags 0, the result
# ignored as Tru64's void profil - compiles without warnings (-Wall
# -Wextra -Werror), and the overlay still gives the system's
# <sys/resource.h>.  Running it checks that the call reached the extended
# form.
. "$(dirname "$0")/compat.sh"

cc_ok tru64 <<'C'
#include <stdlib.h>
#include <sys/resource.h>
#include <profil_ext.h>

static unsigned int counts[2][64];

int main(void)
{
	struct profil_args args[2];
	struct rlimit rl;

	if (getrlimit(RLIMIT_CPU, &rl) != 0)
		return 2;
	args[0].buffer = counts[0];
	args[0].highpc = (void *)0x20100;
	args[0].lowpc = (void *)0x20000;
	args[0].offset = (void *)0x20000;
	args[0].scale = 0x10000;
	args[1].buffer = counts[1];
	args[1].highpc = (void *)0x10100;
	args[1].lowpc = (void *)0x10000;
	args[1].offset = (void *)0x10000;
	args[1].scale = 0x10000;
	profil_set_engine("manual");
	profil(args, 2, -1, 0);
	if (profil_state() != PROFIL_TRU64)
		return 3;
	profil(0, 0, 0, 0);
	profil(args, 2, (void *)-1, 0);
	if (profil_state() != PROFIL_TRU64)
		return 4;
	__profil_inject(0x10008, 1);
	profil(0, 0, 0, 0);
	return counts[1][2] == 1 && profil_state() == PROFIL_OFF ? 0 : 5;
}
C
run tru64 || { echo "Tru64 program failed (exit $?)"; exit 1; }

# A classic Tru64 call through the same header: unsigned short buffer,
# void * offset.
cc_ok classic <<'C'
#include <sys/resource.h>

static unsigned short hist[64];

int main(void)
{
	profil(hist, sizeof hist, (void *)main, 0x8000);
	profil(0, 0, 0, 0);
	return 0;
}
C
run classic
