/*
 * view-timeline.c - `pcprof report --timeline`: each thread's CPU use over
 * the run as one row of characters, a column per slice of time, from ' '
 * (no sample) to '@' (the thread ran the whole slice: samples at the
 * process's rate).  Names go through text_put/text_pad (util.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view.h"

#define COLUMNS 64

static const char levels[] = " .:-=+*#%@"; /* 0, then tenths of a CPU */

static char level(double share)
{
	if (!(share > 0))
		return levels[0];
	if (share >= 1)
		return levels[9];
	return levels[1 + (int)(share * 8.999)];
}

void view_timeline(const struct model *f, const struct view_opts *o)
{
	const struct pp_profile *p = f->prof;
	printf("\nTimeline:\n\n");
	if (!p->bucket_ns) {
		printf("no timeline: %s\n", p->version && p->version < 3
						    ? "the data file predates them (version < 3)"
						    : "recorded with --no-timeline");
		return;
	}
	/* The buckets shown: the period asked for, within the samples. */
	uint64_t first = 1, last = tl_span(p);
	const struct tl_range *r = f->opts.time;
	double w = (double)p->bucket_ns / 1e9;
	if (r) {
		double b = floor(r->from / w);
		first = b < (double)UINT32_MAX ? 1 + (uint64_t)b : (uint64_t)UINT32_MAX + 1;
		if (isfinite(r->to) && r->to / w < (double)last)
			last = (uint64_t)ceil(r->to / w);
	}
	if (last < first) {
		printf("no samples with a time in this period\n");
		return;
	}
	uint64_t nb = last - first + 1;
	uint64_t per = (nb + COLUMNS - 1) / COLUMNS, cols = (nb + per - 1) / per;
	printf("%.2f s to %.2f s, %u columns of %.2f s; ' ' no sample, '%c' a whole CPU\n\n",
	       (double)(first - 1) * w, (double)last * w, (unsigned)cols, (double)per * w,
	       levels[9]);
	printf("    pid      tid  thread           samples  |%*s|\n", (int)cols, "");
	size_t shown = 0;
	for (size_t i = 0; i < f->nprocs; i++) {
		const struct pp_process *pr = f->procs[i].p;
		/* each thread's columns, then its samples, in one pass */
		uint64_t *row = xcalloc((pr->nthreads + 1) * (cols + 1), sizeof *row);
		for (size_t k = 0; k < pr->nsamples; k++) {
			const struct pp_sample *s = &pr->samples[k];
			if (s->thread >= pr->nthreads || !s->count || s->time < first ||
			    s->time > last)
				continue;
			uint64_t *t = row + s->thread * (cols + 1);
			t[(s->time - first) / per] += s->count;
			t[cols] += s->count;
		}
		for (size_t t = 0; t < pr->nthreads; t++) {
			const uint64_t *c = row + t * (cols + 1);
			if (!c[cols] || (o->limit && shown >= o->limit))
				continue;
			shown++;
			printf("%7d  %7d  ", (int)pr->pid, (int)pr->threads[t].tid);
			text_pad(stdout, pr->threads[t].name, 15);
			printf("  %7" PRIu64 "  |", c[cols]);
			/* a column's ticks if the thread ran all of it */
			double full = pr->hz * (double)per * w;
			for (uint64_t k = 0; k < cols; k++)
				putchar(level(full > 0 ? (double)c[k] / full : 0));
			printf("|\n");
		}
		free(row);
	}
	uint64_t lost = 0;
	for (size_t i = 0; i < f->nprocs; i++)
		for (size_t k = 0; k < f->procs[i].p->nsamples; k++)
			if (f->procs[i].p->samples[k].time == PP_NO_TIME)
				lost += f->procs[i].p->samples[k].count;
	if (lost)
		printf("\n%" PRIu64 " samples have no time and are not shown\n", lost);
}

void view_time_header(const struct model *f)
{
	const struct tl_range *r = f->opts.time;
	const struct tl_kept *k = &f->time_kept;
	printf("%-10s %.2f-", "time", r->from);
	if (isfinite(r->to))
		printf("%.2f", r->to);
	printf(" s of 0-%.2f s: %" PRIu64 " of %" PRIu64 " samples (%.1f%%)\n", k->end, k->kept,
	       k->total, k->total ? 100.0 * (double)k->kept / (double)k->total : 0.0);
	if (k->untimed) {
		printf("%-10s %" PRIu64 " samples have no time and are left out", "", k->untimed);
		if (k->partial >= 0)
			printf(" (the timeline is partial from %.2f s: the recording's table was "
			       "full; a larger --slots keeps more)",
			       k->partial);
		putchar('\n');
	}
	if (r->from >= k->end)
		printf("%-10s the period starts after the last sample (%.2f s)\n", "", k->end);
}
