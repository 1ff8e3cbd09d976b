/*
 * unwind-shim.c - an LD_PRELOAD library for bench/unwind-coverage: samples
 * its host at 1 kHz of each thread's CPU time (a SIGPROF timer per thread,
 * pthread_create interposed to start one in each new thread), walks every sample with
 * profil__unwind (libprofil.a linked in) and, at exit, prints how the walks
 * ended to $UNWIND_SHIM_OUT: normally, [unknown] or [truncated], and the
 * functions the unknown ones stopped in.  Not for use beside pcprof or
 * libprofil.so (it owns SIGPROF and profiling on the manual engine, which
 * installs the fault guard).
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "profil_ext.h"
#include "sig/unwind-tables.h"
#include "unwind-build.h"
#include "sig/unwind.h"

#define LAST 4096
static _Atomic unsigned long walks, complete, unknown, truncated, frames;
static uintptr_t stopped_at[LAST]; /* the last real frame of unknown walks */
static _Atomic unsigned nstopped;
static _Atomic bool stopped; /* reporting: no more walks */
static uintptr_t ended_at[LAST]; /* the last frame of complete walks */
static _Atomic unsigned nended;

/* A few whole stacks, printed with UNWIND_SHIM_STACKS set. */
#define KEEP 4
static uintptr_t kept[KEEP][PROFIL_STACK_MAX];
static int kept_n[KEEP];
static _Atomic unsigned nkept;

static void on_prof(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si;
	if (atomic_load(&stopped))
		return;
	uintptr_t pcs[PROFIL_STACK_MAX];
	int n = profil__unwind(uc, pcs, PROFIL_STACK_MAX);
	unsigned k = atomic_load(&walks) % 97 == 0 ? atomic_fetch_add(&nkept, 1) : KEEP;
	if (k < KEEP) {
		memcpy(kept[k], pcs, (size_t)n * sizeof pcs[0]);
		kept_n[k] = n;
	}
	atomic_fetch_add(&walks, 1);
	atomic_fetch_add(&frames, (unsigned long)n);
	if (pcs[n - 1] == PCPROF_FRAME_UNKNOWN) {
		atomic_fetch_add(&unknown, 1);
		unsigned i = atomic_fetch_add(&nstopped, 1);
		if (i < LAST && n >= 2)
			stopped_at[i] = pcs[n - 2];
	} else if (pcs[n - 1] == PCPROF_FRAME_TRUNCATED) {
		atomic_fetch_add(&truncated, 1);
	} else {
		atomic_fetch_add(&complete, 1);
		unsigned i = atomic_fetch_add(&nended, 1);
		if (i < LAST)
			ended_at[i] = pcs[n - 1];
	}
}

static void say(FILE *f, const char *what, uintptr_t pc)
{
	Dl_info di;
	const char *name = "?", *obj = "?";
	if (dladdr((void *)pc, &di)) {
		name = di.dli_sname ? di.dli_sname : "?";
		if (di.dli_fname)
			obj = strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1
							 : di.dli_fname;
	}
	fprintf(f, "%s %s %s\n", what, obj, name);
}

/* A SIGPROF every millisecond of this thread's CPU time. */
static void thread_timer(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGPROF };
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	timer_t t;
	struct itimerspec it = { { 0, 1000000 }, { 0, 1000000 } };
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &t) == 0)
		timer_settime(t, 0, &it, NULL);
	else if (getenv("UNWIND_SHIM_DEBUG"))
		perror("unwind-shim: timer_create");
}

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *started(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	thread_timer();
	return s.fn(s.arg);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	if (!real)
		real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				void *))dlsym(RTLD_NEXT, "pthread_create");
	struct start *s = malloc(sizeof *s);
	if (!s)
		return real(t, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	return real(t, attr, started, s);
}

static void report(void)
{
	atomic_store(&stopped, true);
	const char *path = getenv("UNWIND_SHIM_OUT");
	FILE *f = path ? fopen(path, "a") : stderr;
	if (!f)
		return;
	unsigned long w = walks;
	fprintf(f, "walks %lu complete %lu unknown %lu truncated %lu mean-frames %.1f\n", w,
		complete, unknown, truncated, w ? (double)frames / w : 0.0);
	unsigned n = nstopped < LAST ? nstopped : LAST;
	for (unsigned i = 0; i < n; i++)
		say(f, "stopped-in", stopped_at[i]);
	n = nended < LAST ? nended : LAST;
	for (unsigned i = 0; i < n; i++)
		say(f, "ended-in", ended_at[i]);
	for (unsigned k = 0; getenv("UNWIND_SHIM_STACKS") && k < KEEP && k < nkept; k++) {
		fprintf(f, "stack:");
		for (int i = 0; i < kept_n[k]; i++)
			say(f, "", kept[k][i]);
	}
	if (f != stderr)
		fclose(f);
}

__attribute__((constructor)) static void start(void)
{
	static unsigned short buf[16];
	if (profil_set_engine("manual") != 0 || profil(buf, sizeof buf, 0, 0x10000) != 0)
		return;
	profil__unwind_refresh();
	struct sigaction sa = { .sa_sigaction = on_prof, .sa_flags = SA_SIGINFO | SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	thread_timer();
	atexit(report);
}
