/*
 * view-procs.c - the tables of `pcprof report` per process (-P) and per
 * thread (-T).  Names go through text_put/text_pad (util.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view.h"

static const struct model_proc *sort_procs; /* qsort has no context argument */

static const char *end_text(const struct pp_process *p, char *buf, size_t n)
{
	switch (p->end) {
	case PP_END_EXIT:
		/* The recording says the image exited, but its status is known
		 * only to whoever waited for it (cli/raw.c): pcprof run knows the
		 * status of the processes it reaps, not of their children, and
		 * -1 would read as 255. */
		if (p->exit_status < 0)
			snprintf(buf, n, "exit ?");
		else
			snprintf(buf, n, "exit %d", (int)p->exit_status);
		break;
	case PP_END_EXEC:
		snprintf(buf, n, "exec");
		break;
	case PP_END_SIGNAL:
		snprintf(buf, n, "signal %d", (int)p->exit_status);
		break;
	default:
		snprintf(buf, n, "?");
		break;
	}
	return buf;
}

/* By samples (most first), then in file order, the order they started. */
static int proc_order(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t sx = sort_procs[x].samples, sy = sort_procs[y].samples;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return x < y ? -1 : x > y;
}

void view_processes(const struct model *f, const struct view_opts *o)
{
	size_t n = f->nprocs;
	uint32_t *ix = xmalloc(n * sizeof *ix);
	for (size_t i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	if (o->sort == MODEL_SORT_SAMPLES || o->sort == MODEL_SORT_TOTAL) {
		sort_procs = f->procs;
		qsort(ix, n, sizeof *ix, proc_order);
	}
	/* An exec-heavy run (a build, a shell script) has hundreds of
	 * processes that ran too briefly for a sample: one line says how many,
	 * unless asked for all (or for a pid: then they are all wanted). */
	size_t idle = 0;
	if (!o->all) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (f->procs[ix[i]].samples)
				ix[k++] = ix[i];
		idle = n - k;
		n = k;
	}
	if (o->limit && n > o->limit)
		n = o->limit;
	printf("\nProcesses:\n\n");
	printf("    pid     ppid  self%%    samples   seconds    cpu s  achieved  engine        "
	       "lost  end        command\n");
	char eb[32];
	for (size_t i = 0; i < n; i++) {
		const struct model_proc *fp = &f->procs[ix[i]];
		const struct pp_process *p = fp->p;
		double cpu = (double)p->cpu_ns / 1e9;
		/* the rate over what was sampled: not after a recording stopped */
		double sampled = (double)(p->cpu_ns - p->stop_ns) / 1e9;
		uint64_t ticks = p->ticks ? p->ticks : fp->samples;
		printf("%7d  %7d  %5.1f  %9" PRIu64 "  %8.2f  %7.2f  %5.0f Hz  ", (int)p->pid,
		       (int)p->ppid, view_pct(f, fp->samples), fp->samples, fp->seconds, cpu,
		       sampled > 0 ? (double)ticks / sampled : 0.0);
		/* "-": no engine sampled the image (the library could not
		 * enter it), and the columns stay where they are */
		text_pad(stdout, p->engine[0] ? p->engine : "-", 12);
		printf("  %4" PRIu64 "  %-9s  ", p->lost, end_text(p, eb, sizeof eb));
		text_put_command(stdout, p->cmdline[0] ? p->cmdline : p->exe);
		putchar('\n');
	}
	if (idle)
		printf("%zu process%s with no samples%s (--all lists %s)\n", idle,
		       idle == 1 ? "" : "es", f->shown < f->total ? " shown" : "",
		       idle == 1 ? "it" : "them");
	free(ix);
}

static int thread_cmp(const void *a, const void *b)
{
	const struct model_thread *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	/* (compared, not subtracted: a data file's tids are any int32) */
	int32_t tx = x->t ? x->t->tid : 0, ty = y->t ? y->t->tid : 0;
	return (tx > ty) - (tx < ty);
}

void view_threads(const struct model *f, const struct view_opts *o)
{
	size_t n = f->nthreads;
	struct model_thread *t = xmalloc((n ? n : 1) * sizeof *t);
	memcpy(t, f->threads, n * sizeof *t);
	if (o->sort == MODEL_SORT_SAMPLES || o->sort == MODEL_SORT_TOTAL)
		qsort(t, n, sizeof *t, thread_cmp);
	if (o->limit && n > o->limit)
		n = o->limit;
	printf("\nThreads:\n\n");
	printf("    pid      tid  name              self%%    samples   seconds  top function\n");
	for (size_t i = 0; i < n; i++) {
		const struct pp_process *p = f->procs[t[i].proc].p;
		const struct model_fn *fn = &f->fns[t[i].top_fn];
		char name[17];
		/* samples of threads beyond the recorder's thread table */
		snprintf(name, sizeof name, "%.16s", t[i].t ? t[i].t->name : "(untracked)");
		printf("%7d  %7d  ", (int)p->pid, t[i].t ? (int)t[i].t->tid : 0);
		text_pad(stdout, name, 16);
		printf("  %5.1f  %9" PRIu64 "  %8.2f  ", view_pct(f, t[i].samples), t[i].samples,
		       t[i].seconds);
		view_fn_put(fn, 0);
		fputs(" (", stdout);
		text_put(stdout, model_mod_name(f, fn->mod));
		printf(", %.0f%%)\n",
		       t[i].samples ? 100.0 * (double)t[i].top_samples / (double)t[i].samples
				    : 0.0);
	}
	free(t);
}
