/*
 * fewsignals.h - whether a profile's placement of samples rests on far
 * fewer profiling signals than its sample count says: the note that pcprof
 * run's summary and pcprof report's header add (the rule is in
 * fewsignals.c).
 */
#ifndef PCPROF_FEWSIGNALS_H
#define PCPROF_FEWSIGNALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* What the processes of a profile add up to; zero it, then add each. */
struct fewsignals {
	uint64_t ticks, signals; /* of the processes a timer engine sampled */
	double explained;        /* the most ticks their signals account for */
};

void fewsignals_add(struct fewsignals *c, const struct pp_process *p);

/*
 * The note, without punctuation around it ("placement rests on 9 signals
 * for 75 samples (...)"), into buf; false (and buf untouched) if the
 * signals are enough.  run is how the reader names pcprof run's option:
 * "" in its own summary, "pcprof run " elsewhere.
 */
bool fewsignals_note(const struct fewsignals *c, const char *run, char *buf, size_t len);

#endif
