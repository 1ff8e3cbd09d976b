/*
 * timeline.c - time in the profile (timeline.h): the period a report or an
 * export is restricted to, and the samples' time buckets as seconds.
 */
#include "timeline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* A number of seconds: digits with an optional fraction, nothing else
 * (no sign, exponent, "inf" or "nan", which strtod would take). */
static bool seconds(const char *s, size_t n, double *out)
{
	char buf[64];
	if (n == 0 || n >= sizeof buf || strspn(s, "0123456789.") < n)
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	errno = 0;
	*out = strtod(buf, &end);
	return *end == 0 && errno == 0 && buf[0] != '.' && isfinite(*out);
}

int tl_parse(const char *s, struct tl_range *r, char *err, size_t errlen)
{
	const char *dash = strchr(s, '-');
	if (!dash || strchr(dash + 1, '-') || (dash == s && !dash[1])) {
		snprintf(err, errlen,
			 "bad period '%s': give FROM-TO, FROM- or -TO in seconds since the run "
			 "started (e.g. 1.5-3)",
			 s);
		return -1;
	}
	r->from = 0;
	r->to = INFINITY;
	if ((dash > s && !seconds(s, (size_t)(dash - s), &r->from)) ||
	    (dash[1] && !seconds(dash + 1, strlen(dash + 1), &r->to))) {
		snprintf(err, errlen, "bad period '%s': FROM and TO are seconds, like 2 or 0.25",
			 s);
		return -1;
	}
	if (r->from >= r->to) {
		snprintf(err, errlen, "bad period '%s': it ends before it starts", s);
		return -1;
	}
	return 0;
}

const struct tl_range *tl_parse_arg(const char *s, struct tl_range *r)
{
	char err[256];
	if (tl_parse(s, r, err, sizeof err) < 0)
		die(2, "--time: %s", err);
	return r;
}

double tl_seconds(const struct pp_profile *p, uint32_t time)
{
	return ((double)time - 0.5) * (double)p->bucket_ns / 1e9;
}

uint32_t tl_span(const struct pp_profile *p)
{
	uint32_t span = 0;
	for (size_t i = 0; i < p->nprocs; i++)
		for (size_t k = 0; k < p->procs[i].nsamples; k++) {
			const struct pp_sample *s = &p->procs[i].samples[k];
			if (s->count && s->time > span)
				span = s->time;
		}
	return span;
}

int tl_restrict(struct pp_profile *p, const struct tl_range *r, struct tl_kept *kept, char *err,
		size_t errlen)
{
	memset(kept, 0, sizeof *kept);
	kept->partial = -1;
	if (!p->bucket_ns) {
		if (p->version && p->version < 3)
			snprintf(err, errlen,
				 "no timeline: data file version %u was written before pcprof "
				 "recorded time (version 3); --time needs a new recording",
				 p->version);
		else
			snprintf(err, errlen, "no timeline: recorded with --no-timeline");
		return -1;
	}
	uint32_t span = tl_span(p);
	kept->end = (double)span * (double)p->bucket_ns / 1e9;
	for (size_t i = 0; i < p->nprocs; i++) {
		struct pp_process *pr = &p->procs[i];
		if (pr->tl_partial) {
			double at = (double)(pr->tl_partial - 1) * (double)p->bucket_ns / 1e9;
			if (kept->partial < 0 || at < kept->partial)
				kept->partial = at;
		}
		for (size_t k = 0; k < pr->nsamples; k++) {
			struct pp_sample *s = &pr->samples[k];
			kept->total += s->count;
			double t = tl_seconds(p, s->time);
			if (s->time == PP_NO_TIME) {
				kept->untimed += s->count;
				s->count = 0;
			} else if (t >= r->from && t < r->to)
				kept->kept += s->count;
			else
				s->count = 0;
		}
	}
	return 0;
}
