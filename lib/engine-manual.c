/*
 * engine-manual.c - "manual": no timer at all.  Profiling is on in every
 * other respect (state, buffers, fault guard), and only __profil_inject()
 * feeds samples, through the same accounting path a signal takes.  Chosen
 * only by name (PROFIL_ENGINE=manual or profil_set_engine("manual")), never
 * automatically; the exact tests use it so that no real tick can land in
 * their counters.
 */
#include "engine.h"

static int probe(const struct profil_run *run, char *why, size_t len)
{
	(void)run, (void)why, (void)len;
	return 0;
}

static int signal_of(const struct profil_run *run)
{
	(void)run;
	return 0; /* no signal to handle */
}

static int start(const struct profil_run *run)
{
	(void)run;
	return 0;
}

static void stop(void)
{
}

static void fork_child(void)
{
}

static bool classify(int sig, const siginfo_t *si, unsigned long *weight)
{
	(void)sig, (void)si, (void)weight;
	return false;
}

const struct profil_engine profil__engine_manual = {
	.name = "manual",
	.subtick = true,
	.by_name = true,
	.probe = probe,
	.signal = signal_of,
	.start = start,
	.stop = stop,
	.fork_child = fork_child,
	.classify = classify,
};
