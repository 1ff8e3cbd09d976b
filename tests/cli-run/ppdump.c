/*
 * ppdump - print a pcprof.data file as lines for the shell tests of
 * tests/cli-run, through the same reader as pcprof (cli/data.c).  Functions
 * come from `nm -S --defined-only` on each module as it is on disk: no
 * debug information, no addr2line, nothing of pcprof's own symbolizer (so
 * these tests do not depend on it).
 *
 *   ppdump FILE
 *
 * prints, for each process image, in file order:
 *   proc PID.SEQ ppid=N end=E status=N ticks=N signals=N lost=N hz=N
 *        engine=NAME cpu_ms=N mem=N threads=N modules=N samples=N stop=N
 *        stop_ms=N exe=PATH    (stop: enum pp_stop; stop_ms: CPU after it)
 *   why PID.SEQ TEXT                              (the library's engine choice)
 *   module PID.SEQ INDEX PATH bias=HEX epochs=LOADED-UNLOADED buildid=HEX
 *   gap PID.SEQ CAUSE MS THREADS                  (CPU time without samples,
 *                                                 by cause: profile.h, enum
 *                                                 pp_gap, in lower case)
 *   thread PID.SEQ TID NAME TICKS
 *   fn PID.SEQ FUNCTION MODULE-BASENAME TICKS     (most ticks first)
 *   stack PID.SEQ TICKS ROOT;...;LEAF             (most ticks first)
 *   time PID.SEQ BUCKET FUNCTION TICKS            (per sample with a time:
 *                                                 its bucket, 0 first)
 * and first a line "profile NPROCS command=...".  A stack line sums the
 * samples whose recorded stacks give the same functions; a frame is
 * FUNCTION, [unknown] or [truncated] (the markers), or 0xPC outside every
 * symbol.  Samples without a stack have no stack line.  On a read error it prints
 * pcprof's message and exits 1.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "data.h"
#include "record-format.h"

struct sym {
	uint64_t addr, size;
	char *name;
};

struct symtab {
	struct sym *v;
	size_t n;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Text symbols of an ELF file from nm, sorted by address. */
static void load_syms(const char *path, struct symtab *st)
{
	struct stat sb;
	if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode))
		return;
	int fd[2];
	if (pipe(fd) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		freopen("/dev/null", "w", stderr);
		execlp("nm", "nm", "-S", "--defined-only", path, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	FILE *f = fdopen(fd[0], "r");
	char line[4096];
	size_t cap = 0;
	while (f && fgets(line, sizeof line, f)) {
		char a[32], b[32], c[32], name[4000];
		unsigned long long addr, size = 0;
		char type;
		int k = sscanf(line, "%31s %31s %31s %3999s", a, b, c, name);
		if (k == 4) {
			addr = strtoull(a, NULL, 16);
			size = strtoull(b, NULL, 16);
			type = c[0];
		} else if (k == 3) {
			addr = strtoull(a, NULL, 16);
			type = b[0];
			snprintf(name, sizeof name, "%s", c);
		} else {
			continue;
		}
		if (!strchr("tTwWi", type))
			continue;
		if (st->n == cap) {
			cap = cap ? 2 * cap : 256;
			st->v = realloc(st->v, cap * sizeof *st->v);
			if (!st->v) {
				perror("ppdump");
				exit(1);
			}
		}
		st->v[st->n++] = (struct sym){ addr, size, strdup(name) };
	}
	if (f)
		fclose(f);
	waitpid(pid, NULL, 0);
	if (st->n) /* a module without symbols leaves v NULL: no qsort(NULL) */
		qsort(st->v, st->n, sizeof *st->v, cmp_sym);
}

/* The function holding link-time address a: the last symbol at or below it,
 * if a is inside its size (or before the next symbol when it has none). */
static const char *lookup(const struct symtab *st, uint64_t a)
{
	size_t lo = 0, hi = st->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (st->v[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct sym *s = &st->v[lo - 1];
	uint64_t end = s->size ? s->addr + s->size : lo < st->n ? st->v[lo].addr : s->addr + 1;
	return a < end ? s->name : NULL;
}

struct fn {
	const char *name, *module;
	uint64_t ticks;
};

static int cmp_fn(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	if (x->ticks != y->ticks)
		return x->ticks > y->ticks ? -1 : 1;
	return strcmp(x->name, y->name);
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static const char *end_name(uint32_t e)
{
	static const char *const n[] = { "unknown", "exit", "exec", "signal" };
	return e < 4 ? n[e] : "?";
}

struct stk {
	char *names;
	uint64_t ticks;
};

static int cmp_stk(const void *a, const void *b)
{
	const struct stk *x = a, *y = b;
	if (x->ticks != y->ticks)
		return x->ticks > y->ticks ? -1 : 1;
	return strcmp(x->names, y->names);
}

static void frame_name(const struct pp_process *pr, const struct symtab *st,
		       const struct pp_frame *f, char *buf, size_t len)
{
	const char *name = NULL;
	if (f->pc == PCPROF_FRAME_UNKNOWN)
		name = "[unknown]";
	else if (f->pc == PCPROF_FRAME_TRUNCATED)
		name = "[truncated]";
	else if (f->module != PP_NO_MODULE)
		name = lookup(&st[f->module], f->pc - pr->modules[f->module].bias);
	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%#llx", (unsigned long long)f->pc);
}

/* The stack lines: samples with a stack, grouped by their functions. */
static void dump_stacks(const struct pp_process *pr, const struct symtab *st, const char *id)
{
	struct stk *v = calloc(pr->nsamples + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < pr->nsamples; i++) {
		const struct pp_sample *s = &pr->samples[i];
		if (s->frame == PP_NO_FRAME)
			continue;
		size_t depth = 0, len = 1;
		for (uint32_t f = s->frame; f != PP_NO_FRAME; f = pr->frames[f].parent)
			depth++;
		char(*names)[512] = calloc(depth, sizeof *names);
		size_t d = depth;
		for (uint32_t f = s->frame; f != PP_NO_FRAME; f = pr->frames[f].parent) {
			frame_name(pr, st, &pr->frames[f], names[--d], sizeof names[0]);
			len += strlen(names[d]) + 1;
		}
		char *line = calloc(len, 1);
		for (d = 0; d < depth; d++) {
			if (d)
				strcat(line, ";");
			strcat(line, names[d]);
		}
		free(names);
		size_t k = 0;
		while (k < n && strcmp(v[k].names, line) != 0)
			k++;
		if (k == n)
			v[n++] = (struct stk){ line, 0 };
		else
			free(line);
		v[k].ticks += s->count;
	}
	if (n)
		qsort(v, n, sizeof *v, cmp_stk);
	for (size_t i = 0; i < n; i++) {
		printf("stack %s %llu %s\n", id, (unsigned long long)v[i].ticks, v[i].names);
		free(v[i].names);
	}
	free(v);
}

static void dump_proc(const struct pp_process *pr)
{
	char id[32];
	snprintf(id, sizeof id, "%d.%u", pr->pid, pr->seq);
	printf("proc %s ppid=%d end=%s status=%d ticks=%llu signals=%llu lost=%llu hz=%u "
	       "engine=%s cpu_ms=%llu mem=%llu threads=%zu modules=%zu samples=%zu stop=%u "
	       "stop_ms=%llu exe=%s\n",
	       id, pr->ppid, end_name(pr->end), pr->exit_status, (unsigned long long)pr->ticks,
	       (unsigned long long)pr->signals, (unsigned long long)pr->lost, pr->hz, pr->engine,
	       (unsigned long long)(pr->cpu_ns / 1000000), (unsigned long long)pr->mem_bytes,
	       pr->nthreads, pr->nmodules, pr->nsamples, pr->stop,
	       (unsigned long long)(pr->stop_ns / 1000000), pr->exe);
	if (pr->why)
		printf("why %s %s\n", id, pr->why);
	static const char *const gap_name[PP_GAP_N] = { "unsampled", "blocked",  "iouring",
							"foreign",   "before",   "teardown",
							"noexit",    "noengine", "unknown" };
	for (int g = 0; g < PP_GAP_N; g++)
		if (pr->gap[g].ns)
			printf("gap %s %s %llu %u\n", id, gap_name[g],
			       (unsigned long long)(pr->gap[g].ns / 1000000), pr->gap[g].threads);

	struct symtab *st = calloc(pr->nmodules + 1, sizeof *st);
	for (size_t i = 0; i < pr->nmodules; i++) {
		const struct pp_module *m = &pr->modules[i];
		printf("module %s %zu %s bias=%#llx epochs=%u-%u buildid=", id, i, m->path,
		       (unsigned long long)m->bias, m->epoch_loaded, m->epoch_unloaded);
		for (uint32_t k = 0; k < m->build_id_len; k++)
			printf("%02x", m->build_id[k]);
		putchar('\n');
		load_syms(m->path, &st[i]);
	}
	for (size_t i = 0; i < pr->nthreads; i++)
		printf("thread %s %d %s %llu\n", id, pr->threads[i].tid, pr->threads[i].name,
		       (unsigned long long)pr->threads[i].ticks);

	/* Functions: samples are sorted by module then pc, so equal functions
	 * are adjacent within a module. */
	struct fn *fns = calloc(pr->nsamples + 1, sizeof *fns);
	size_t nf = 0;
	for (size_t i = 0; i < pr->nsamples; i++) {
		const struct pp_sample *s = &pr->samples[i];
		const char *name = NULL, *mod = "-";
		if (s->module != PP_NO_MODULE) {
			const struct pp_module *m = &pr->modules[s->module];
			name = lookup(&st[s->module], s->pc - m->bias);
			mod = base(m->path);
		}
		if (!name)
			name = "[unknown]";
		size_t k = 0;
		while (k < nf &&
		       !(strcmp(fns[k].name, name) == 0 && strcmp(fns[k].module, mod) == 0))
			k++;
		if (k == nf)
			fns[nf++] = (struct fn){ name, mod, 0 };
		fns[k].ticks += s->count;
	}
	qsort(fns, nf, sizeof *fns, cmp_fn);
	for (size_t i = 0; i < nf; i++)
		printf("fn %s %s %s %llu\n", id, fns[i].name, fns[i].module,
		       (unsigned long long)fns[i].ticks);
	for (size_t i = 0; i < pr->nsamples; i++) {
		const struct pp_sample *s = &pr->samples[i];
		const char *name = NULL;
		if (s->time == PP_NO_TIME)
			continue;
		if (s->module != PP_NO_MODULE)
			name = lookup(&st[s->module], s->pc - pr->modules[s->module].bias);
		printf("time %s %u %s %llu\n", id, s->time - 1, name ? name : "[unknown]",
		       (unsigned long long)s->count);
	}
	free(fns);
	dump_stacks(pr, st, id);
	for (size_t i = 0; i < pr->nmodules; i++) {
		for (size_t k = 0; k < st[i].n; k++)
			free(st[i].v[k].name);
		free(st[i].v);
	}
	free(st);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ppdump FILE\n");
		return 2;
	}
	struct pp_profile p;
	char err[256];
	if (pp_read(argv[1], &p, err, sizeof err) < 0) {
		printf("error %s: %s\n", argv[1], err);
		return 1;
	}
	printf("profile %zu command=%s\n", p.nprocs, p.command);
	for (size_t i = 0; i < p.nprocs; i++)
		dump_proc(&p.procs[i]);
	pp_free(&p);
	return 0;
}
