/*
 * sprofil's tvp (spec 3.2): T26 one tick at the base rate, {0, 10000} with
 * profil_hz() == 100 (sysconf(_SC_CLK_TCK) on Linux); T28 tvp may be NULL,
 * and is written even when the call turns profiling off; PROF_FAST gives
 * the tenfold rate's period.
 */
#include <sys/profil.h>

#include "family.h"

static uint16_t a[8];

static void t26(void)
{
	struct prof p = { .pr_base = a, .pr_size = sizeof a, .pr_off = 0x1000, .pr_scale = 0x10000 };
	struct timeval tv = { 99, 99 };
	if (getenv("PROFIL_HZ"))
		T_SKIP("PROFIL_HZ is set in the environment");
	fam_manual();
	T_EQ(profil_hz(), 100);
	T_EQ(sprofil(&p, 1, &tv, PROF_USHORT), 0);
	T_EQ(tv.tv_sec, 0);
	T_EQ(tv.tv_usec, 10000);
	tv = (struct timeval){ 99, 99 };
	T_EQ(sprofil(&p, 1, &tv, PROF_UINT | PROF_FAST), 0);
	T_EQ(tv.tv_sec, 0);
	T_EQ(tv.tv_usec, 1000);
}

static void t28(void)
{
	struct prof p = { .pr_base = a, .pr_size = sizeof a, .pr_off = 0x1000, .pr_scale = 0x10000 };
	struct timeval tv = { 99, 99 };
	fam_manual();
	T_EQ(sprofil(&p, 1, NULL, PROF_USHORT), 0);
	T_EQ(profil_state(), PROFIL_REGIONS);
	T_EQ(sprofil(NULL, 0, &tv, PROF_USHORT), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(tv.tv_sec, 0);
	T_EQ(tv.tv_usec, 1000000 / profil_hz());
	tv = (struct timeval){ 99, 99 };
	T_EQ(sprofil(NULL, 0, &tv, PROF_USHORT), 0); /* already off */
	T_EQ(tv.tv_usec, 1000000 / profil_hz());
	/* Every entry ignored: off, tvp written. */
	p.pr_scale = 1;
	tv = (struct timeval){ 99, 99 };
	T_EQ(sprofil(&p, 1, &tv, PROF_USHORT), 0);
	T_EQ(tv.tv_sec, 0);
	T_EQ(tv.tv_usec, 1000000 / profil_hz());
}

int main(void)
{
	fam_case("T26 tvp default", t26);
	fam_case("T28 tvp NULL, tvp when off", t28);
	return fam_status();
}
