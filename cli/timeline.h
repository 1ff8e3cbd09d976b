/*
 * timeline.h - time in the profile: the period option (--time FROM-TO) of
 * report and export, and the per-thread samples over time that report
 * --timeline and the HTML page show.
 *
 * Time is the samples' time buckets (profile.h: pp_sample.time, of
 * pp_profile.bucket_ns each), counted from the start of the run's first
 * recorded process image.  A bucket belongs to a period when its middle
 * does.  Not thread-safe; allocation failure is fatal (util.h).
 */
#ifndef PCPROF_TIMELINE_H
#define PCPROF_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

/* A period in seconds since the run started; to is INFINITY when open. */
struct tl_range {
	double from, to;
};

/* Parse "FROM-TO", "FROM-" or "-TO" (seconds, decimals allowed).  Returns
 * 0, or -1 with a message in err. */
int tl_parse(const char *s, struct tl_range *r, char *err, size_t errlen);

/* The argument of --time into *r, returned; exit 2 with a message if bad. */
const struct tl_range *tl_parse_arg(const char *s, struct tl_range *r);

/* What restricting a profile kept. */
struct tl_kept {
	uint64_t kept, total; /* samples (weighted ticks) in the period, in all */
	uint64_t untimed;     /* samples with no time, left out */
	double end;           /* seconds: the end of the last bucket with samples */
	double partial;       /* seconds from which some process's timeline is
				 partial (no room left), or -1 */
};

/*
 * Keep only the samples of p in period r: the others get count 0 (the
 * model skips them), samples without a time too.  Returns 0, or -1 with
 * a message in err if p has no timeline (the data file's version or
 * --no-timeline says why).
 */
int tl_restrict(struct pp_profile *p, const struct tl_range *r, struct tl_kept *kept, char *err,
		size_t errlen);

/* The bucket of a sample time (1 + bucket), as seconds of its middle. */
double tl_seconds(const struct pp_profile *p, uint32_t time);

/* Buckets the profile's samples span: 1 + the last bucket with samples
 * (counts above 0), 0 if none has a time. */
uint32_t tl_span(const struct pp_profile *p);

#endif
