/*
 * env.c - the PROFIL_* environment (libprofil(7), ENVIRONMENT), read once
 * by the constructor into profil__env.  A secure-execution process reads
 * none of it.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "../include/profil_ext.h"
#include "session-int.h"

static void env_bad(const char *name)
{
	if (profil__env.bad[0])
		profil__strlcat(profil__env.bad, sizeof profil__env.bad, ", ");
	profil__strlcat(profil__env.bad, sizeof profil__env.bad, name);
}

static int parse_signal(const char *s)
{
	unsigned long v;
	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	if (strcmp(s, "PROF") == 0)
		return SIGPROF;
	if (strcmp(s, "VTALRM") == 0)
		return SIGVTALRM;
	if (strcmp(s, "USR1") == 0)
		return SIGUSR1;
	if (strcmp(s, "USR2") == 0)
		return SIGUSR2;
	if (strncmp(s, "RTMIN+", 6) == 0 && profil__parse_uint(s + 6, 64, &v) == 0 &&
	    SIGRTMIN + (int)v <= SIGRTMAX)
		return SIGRTMIN + (int)v;
	if (strcmp(s, "RTMIN") == 0)
		return SIGRTMIN;
	if (strncmp(s, "RTMAX-", 6) == 0 && profil__parse_uint(s + 6, 64, &v) == 0 &&
	    SIGRTMAX - (int)v >= SIGRTMIN)
		return SIGRTMAX - (int)v;
	if (strcmp(s, "RTMAX") == 0)
		return SIGRTMAX;
	if (profil__parse_uint(s, 64, &v) == 0 &&
	    (v == SIGPROF || v == SIGVTALRM || v == SIGUSR1 || v == SIGUSR2 ||
	     ((int)v >= SIGRTMIN && (int)v <= SIGRTMAX)))
		return (int)v;
	return 0;
}

void profil__env_read(void)
{
	const char *s;
	unsigned long v;

	profil__env.overflow = -1;
	/* A set-user-ID, set-group-ID or capable program takes no settings
	 * from the environment of whoever runs it (rawfile.c: nor PCPROF_*). */
	if (getauxval(AT_SECURE))
		return;
	if ((s = getenv("PROFIL_HZ"))) {
		if (profil__parse_uint(s, 10000, &v) == 0 && v >= 1)
			profil__env.hz = v;
		else
			env_bad("PROFIL_HZ");
	}
	if ((s = getenv("PROFIL_OVERFLOW"))) {
		if (strcmp(s, "saturate") == 0)
			profil__env.overflow = PROFIL_OVF_SATURATE;
		else if (strcmp(s, "wrap") == 0)
			profil__env.overflow = PROFIL_OVF_WRAP;
		else if (strcmp(s, "stop") == 0)
			profil__env.overflow = PROFIL_OVF_STOP;
		else
			env_bad("PROFIL_OVERFLOW");
	}
	if ((s = getenv("PROFIL_ENGINE"))) {
		if (strcmp(s, "auto") == 0 || profil__engine_by_name(s))
			profil__strlcat(profil__env.engine, sizeof profil__env.engine, s);
		else
			env_bad("PROFIL_ENGINE");
	}
	/* What pcprof run was asked for: the engine of a recording, whatever
	 * the program then sets in PROFIL_ENGINE for its children. */
	if ((s = getenv("PCPROF_ENGINE")) && (strcmp(s, "auto") == 0 || profil__engine_by_name(s)))
		profil__strlcat(profil__env.rec_engine, sizeof profil__env.rec_engine, s);
	if ((s = getenv("PROFIL_SIGNAL"))) {
		if (!(profil__env.signo = parse_signal(s)))
			env_bad("PROFIL_SIGNAL");
	}
	if ((s = getenv("PROFIL_PERF_MODE"))) {
		if (strcmp(s, "sigtrap") == 0 || strcmp(s, "fasync") == 0)
			profil__strlcat(profil__env.perf_mode, sizeof profil__env.perf_mode, s);
		else
			env_bad("PROFIL_PERF_MODE");
	}
}
