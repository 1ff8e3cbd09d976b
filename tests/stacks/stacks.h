/*
 * stacks.h - shared by the stack-walker tests (tests/stacks): the fault
 * guard on (profiling on the manual engine, which installs it), walks
 * taken in the tests' own signal handlers, and what a walk must look like.
 */
#ifndef TESTS_STACKS_H
#define TESTS_STACKS_H

#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "helpers/tprof.h"
#include "record-format.h"
#include "sig/unwind.h"
#include "test.h"

#define NOINL __attribute__((noinline, noclone))

/* Functions of libstk.so and stkplugin.so. */
typedef int stk_cb(int);
int stk_call(stk_cb *cb, int x);
int stk_plugin_call(stk_cb *cb, int x);

#define WALK_MAX PROFIL_STACK_MAX

struct walk {
	int n;
	uintptr_t pcs[WALK_MAX];
};

/* The fault guard is the library's SIGSEGV/SIGBUS handler, installed while
 * profiling is on: profiling on the manual engine (no timer). */
static inline void st_guard_on(void)
{
	static unsigned short buf[16];
	tp_manual();
	T_OK(profil(buf, sizeof buf, 0, 0x10000) == 0);
}

/* The name of the function a walked pc is in (dladdr), or "?". */
/* dlopen the tests' plugin by its full path, next to the test program:
 * by name alone the loader searches the RUNPATH of dlopen's caller, which
 * under ASan is its interceptor in libasan, not the test. */
static inline void *st_dlopen_plugin(int flags)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
	if (n <= 0)
		return NULL;
	path[n] = '\0';
	char *slash = strrchr(path, '/');
	if (!slash)
		return NULL;
	strcpy(slash + 1, "stkplugin.so");
	return dlopen(path, flags);
}

static inline const char *st_name(uintptr_t pc)
{
	Dl_info di;
	if (pc == PCPROF_FRAME_UNKNOWN)
		return "[unknown]";
	if (pc == PCPROF_FRAME_TRUNCATED)
		return "[truncated]";
	if (dladdr((void *)pc, &di) && di.dli_sname)
		return di.dli_sname;
	return "?";
}

static inline void st_note(const struct walk *w)
{
	char buf[900] = "";
	for (int i = 0; i < w->n && strlen(buf) < sizeof buf - 80; i++) {
		char one[80];
		const char *name = st_name(w->pcs[i]);
		Dl_info di;
		if (strcmp(name, "?") == 0 && dladdr((void *)w->pcs[i], &di) && di.dli_fname)
			snprintf(one, sizeof one, "%s%s+%#lx", i ? " " : "",
				 strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1
							     : di.dli_fname,
				 (unsigned long)(w->pcs[i] - (uintptr_t)di.dli_fbase));
		else if (strcmp(name, "?") == 0)
			snprintf(one, sizeof one, "%s%#lx", i ? " " : "", (unsigned long)w->pcs[i]);
		else
			snprintf(one, sizeof one, "%s%s", i ? " " : "", name);
		strcat(buf, one);
	}
	t_note_buf[0] = '\0'; /* the stack at hand, not the ones before */
	T_NOTE("stack (%d): %s", w->n, buf);
#ifdef ST_VERBOSE
	fprintf(stderr, "%s\n", t_note_buf);
#endif
}

static inline bool st_marker(uintptr_t pc)
{
	return pc == PCPROF_FRAME_UNKNOWN || pc == PCPROF_FRAME_TRUNCATED;
}

/* Index of the first frame from `from` on named name, or -1. */
static inline int st_find(const struct walk *w, int from, const char *name)
{
	for (int i = from; i < w->n; i++)
		if (strcmp(st_name(w->pcs[i]), name) == 0)
			return i;
	return -1;
}

/* The names appear in this order, each right after the one before
 * unless gap (frames of libc in between) is allowed. */
static inline void st_expect(const struct walk *w, const char *const *names, int n, int gap)
{
	st_note(w);
	int at = st_find(w, 0, names[0]);
	if (at < 0)
		T_FAIL("%s not in the stack", names[0]);
	for (int i = 1; i < n; i++) {
		int next = st_find(w, at + 1, names[i]);
		if (next < 0 || next - at > 1 + gap)
			T_FAIL("%s not %s after %s (at %d, found at %d)", names[i],
			       gap ? "soon" : "right", names[i - 1], at, next);
		at = next;
	}
}

/* A walk is well formed: at least the pc; every entry but the last is a
 * real pc in a loaded object (never a guess); a marker only last. */
static inline void st_well_formed(const struct walk *w)
{
	Dl_info di;
	if (w->n < 1 || w->n > WALK_MAX) {
		st_note(w);
		T_FAIL("walk of %d entries", w->n);
	}
	for (int i = 1; i < w->n; i++) {
		if (st_marker(w->pcs[i]) && i != w->n - 1) {
			st_note(w);
			T_FAIL("marker at %d of %d", i, w->n);
		}
		if (!st_marker(w->pcs[i]) && !dladdr((void *)w->pcs[i], &di)) {
			st_note(w);
			T_FAIL("frame %d (%#lx) in no loaded object", i, (unsigned long)w->pcs[i]);
		}
	}
}

/* The walk the SIGUSR1 handler took last; a test may give its own
 * handler (st_catch(NULL): this one) that also fills w. */
static __attribute__((unused)) struct walk w;
static __attribute__((unused)) volatile int sink;
static __attribute__((unused)) int st_max = WALK_MAX; /* the walks' max */

static inline void st_on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si;
	w.n = profil__unwind(uc, w.pcs, st_max);
}

static inline void st_catch(void (*handler)(int, siginfo_t *, void *))
{
	struct sigaction sa = { .sa_sigaction = handler ? handler : st_on_usr1,
				.sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	T_OK(sigaction(SIGUSR1, &sa, NULL) == 0);
}

/* Walk from here: through raise, so the walk starts in libc. */
static NOINL __attribute__((unused)) void walk_here(void)
{
	w.n = 0;
	raise(SIGUSR1);
	T_OK(w.n > 0);
	st_well_formed(&w);
}

/* Ended normally: the last entry is a frame, not a marker. */
static inline bool st_complete(const struct walk *w)
{
	return w->n > 0 && !st_marker(w->pcs[w->n - 1]);
}

#endif
