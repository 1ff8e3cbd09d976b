/*
 * t-unwind-known - the walker (profil__unwind) finds the frames we know are
 * there, called from this program's own SIGUSR1 handler with the context
 * the kernel gave it, the way the profiling handler calls it.  Built with
 * -O2 -fomit-frame-pointer: every frame is found from .eh_frame.
 *   - main -> a -> b -> leaf -> raise: leaf, b, a, main in a row, and the
 *     walk ends normally (at _start), with no marker; with max = 1 .. its
 *     length, the same frames and [truncated] in the last slot (the pc
 *     alone for 1), and nothing for max = 0;
 *   - 300 frames of recursion: all 256 slots, the last [truncated];
 *   - a signal in a lazy PLT entry (a made-up context), before and after
 *     its push: the PLT rule finds the caller;
 *   - a signal in the signal trampoline (a made-up context): the walk goes
 *     on from the saved context, exactly;
 *   - through libstk.so (main -> via_lib -> stk_call -> cb);
 *   - through a dlopen()ed plugin, before the tables know it (the direct
 *     path) and after a refresh (its table); once it is closed, its table
 *     is no longer used, before a refresh and after;
 *   - a qsort comparator under qsort under its caller;
 *   - a thread's start routine: the walk ends normally in the thread's
 *     first frame;
 *   - a signal handler's frame: the program's SIGUSR2 handler, then the
 *     frame the signal interrupted, whose pc is exact (the instruction after
 *     the system call in raise, not a return address minus one).
 * Names come from dladdr (-rdynamic), outside the handler.
 */
#include <pthread.h>
#include <stdlib.h>

#include "sig/unwind-tables.h"
#include "unwind-build.h"
#include "stacks.h"

NOINL int leaf(int x)
{
	walk_here();
	sink = x;
	return x + 1;
}
NOINL int b(int x)
{
	int r = leaf(x + 1);
	__asm__ volatile("" ::: "memory");
	return r * 3;
}
NOINL int a(int x)
{
	int r = b(x + 1);
	__asm__ volatile("" ::: "memory");
	return r * 5;
}

NOINL int cb(int x)
{
	walk_here();
	return x + 7;
}
NOINL int via_lib(int x)
{
	int r = stk_call(cb, x);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}
typedef int plugin_fn(stk_cb *, int);
NOINL int via_plugin(plugin_fn *fn, int x)
{
	int r = fn(cb, x);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}

static int compared;
NOINL int cmp(const void *x, const void *y)
{
	if (compared++ == 3)
		walk_here();
	return *(const int *)x - *(const int *)y;
}
NOINL void sort_them(void)
{
	int v[64];
	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	qsort(v, 64, sizeof v[0], cmp);
	__asm__ volatile("" ::: "memory");
}

static struct walk thread_walk;
NOINL void *start_routine(void *arg)
{
	int r = leaf(1);
	thread_walk = w;
	__asm__ volatile("" ::: "memory");
	return (void *)(intptr_t)(r + (arg != NULL));
}

static struct walk handler_walk;
NOINL void on_usr2(int sig)
{
	(void)sig;
	walk_here();
	handler_walk = w;
}
NOINL int interrupted(int x)
{
	raise(SIGUSR2);
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

NOINL int deep(int d)
{
	if (d == 0) {
		walk_here();
		return 0;
	}
	int r = deep(d - 1);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}

int main(void);

/* A return address inside ra_target, for a made-up stack. */
NOINL uintptr_t get_ra(void)
{
	return (uintptr_t)__builtin_return_address(0);
}
NOINL uintptr_t ra_target(void)
{
	uintptr_t ra = get_ra();
	__asm__ volatile("" ::: "memory");
	return ra;
}

/* A signal in a lazy PLT entry of this program, before and after its push:
 * made-up contexts (pc in the entry, the stack holding what the entry's
 * caller and the push left), walked through the PLT rule to the caller. */
static void plt_frame(void)
{
	struct profil_uwalk uw;
	struct profil_urow row = { 0 };
	Dl_info di;
	T_OK(dladdr((void *)main, &di) != 0);
	uintptr_t pc = (uintptr_t)di.dli_fbase, end = pc + (16 << 20);
	profil__unwind_enter(&uw);
	while (pc < end && !(profil__unwind_row(&uw, pc, &row) != PROFIL_UFOUND_NONE &&
			     row.rule == PROFIL_CFA_PLT))
		pc++;
	profil__unwind_leave(&uw);
	if (pc == end)
		return; /* linked without a lazy PLT (-z now, -fno-plt): nothing to walk */
	uintptr_t entry = pc & ~(uintptr_t)15, ra = ra_target();
	for (int pushed = 0; pushed < 2; pushed++) {
		uintptr_t stack[64] = { 0 };
		stack[pushed] = ra; /* under the pushed relocation index, if pushed */
		ucontext_t uc;
		memset(&uc, 0, sizeof uc);
		uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(entry + (pushed ? 11 : 0));
		uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)stack;
		w.n = profil__unwind(&uc, w.pcs, WALK_MAX);
		st_note(&w);
		T_NOTE("entry %#lx pushed %d", (unsigned long)entry, pushed);
		T_OK(w.n >= 2);
		T_EQ(w.pcs[1], ra - 1);
		T_OK(strcmp(st_name(w.pcs[1]), "ra_target") == 0);
#ifdef ST_VERBOSE
		fprintf(stderr, "%s\n", t_note_buf);
#endif
	}
}

/* A signal while the signal trampoline itself runs (at its start, or at
 * its syscall): a made-up context whose stack holds the ucontext the
 * kernel would have saved; the walk goes on from that context's exact pc. */
static void in_trampoline(void)
{
	struct sigaction sa;
	T_OK(sigaction(SIGUSR1, NULL, &sa) == 0);
	if (!(sa.sa_flags & SA_RESTORER) || !sa.sa_restorer)
		return; /* a libc that lets the kernel choose the trampoline */
	uintptr_t tramp = (uintptr_t)sa.sa_restorer, ra = ra_target();
	static ucontext_t saved; /* the kernel's ucontext on the made-up stack */
	memset(&saved, 0, sizeof saved);
	saved.uc_mcontext.gregs[REG_RIP] = (greg_t)ra; /* an exact pc */
	static uintptr_t stack[64];
	saved.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)stack;
	for (int at = 0; at <= 7; at += 7) {
		ucontext_t uc;
		memset(&uc, 0, sizeof uc);
		uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(tramp + at);
		uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)&saved;
		w.n = profil__unwind(&uc, w.pcs, WALK_MAX);
		st_note(&w);
		T_NOTE("trampoline %#lx + %d", (unsigned long)tramp, at);
		T_OK(w.n >= 2);
		T_EQ(w.pcs[0], tramp + at);
		T_EQ(w.pcs[1], ra);
	}
}

static void expect(const char *const *names, int n, int gap)
{
	st_expect(&w, names, n, gap);
	T_OK(st_complete(&w));
}

int main(void)
{
	if (TP_TSAN)
		T_SKIP("ThreadSanitizer runs a signal handler later, at an intercepted call, under "
		       "frames of its own: there is no interrupted stack to walk");
	st_guard_on();
	T_EQ(profil__unwind_refresh(), 0);
	st_catch(NULL);

	/* main -> a -> b -> leaf */
	sink = a(1);
	static const char *const chain[] = { "leaf", "b", "a", "main" };
	expect(chain, 4, 0);
	T_OK(st_find(&w, 0, "leaf") <= 3); /* raise, maybe pthread_kill, then leaf */

	/* max: the last slot says truncated when there is more; 1 is the pc */
	struct walk full = w;
	for (st_max = 1; st_max <= full.n; st_max++) {
		sink = a(1);
		T_NOTE("max %d", st_max);
		T_EQ(w.n, st_max);
		for (int i = 0; i < st_max - 1; i++) /* main calls a from elsewhere */
			T_OK(strcmp(st_name(w.pcs[i]), st_name(full.pcs[i])) == 0);
		if (st_max > 1)
			T_EQ(w.pcs[st_max - 1], PCPROF_FRAME_TRUNCATED);
	}
	st_max = 0;
	w.n = -1;
	raise(SIGUSR1);
	T_EQ(w.n, 0);
	st_max = WALK_MAX;

	/* 300 frames deep: the walk fills all 256 slots, [truncated] last */
	sink = deep(300);
	st_note(&w);
	T_EQ(w.n, WALK_MAX);
	T_EQ(w.pcs[WALK_MAX - 1], PCPROF_FRAME_TRUNCATED);
	int first = st_find(&w, 0, "deep");
	T_OK(first >= 0 && first <= 4);
	for (int i = first; i < WALK_MAX - 1; i++)
		T_OK(strcmp(st_name(w.pcs[i]), "deep") == 0);

	plt_frame();
	in_trampoline();

	/* a shared library */
	sink = via_lib(1);
	static const char *const lib[] = { "cb", "stk_call", "via_lib", "main" };
	expect(lib, 4, 0);

	/* a plugin loaded now: direct path, then its table */
	void *h = st_dlopen_plugin(RTLD_NOW);
	if (!h)
		T_FAIL("dlopen: %s", dlerror());
	plugin_fn *fn = (plugin_fn *)dlsym(h, "stk_plugin_call");
	T_OK(fn != NULL);
	static const char *const plug[] = { "cb", "stk_plugin_call", "via_plugin", "main" };
	struct profil_urow row;
	struct profil_uwalk uw;
	profil__unwind_enter(&uw);
	T_EQ(profil__unwind_row(&uw, (uintptr_t)fn, &row), PROFIL_UFOUND_DIRECT);
	profil__unwind_leave(&uw);
	sink = via_plugin(fn, 1);
	expect(plug, 4, 0);
	profil__unwind_refresh_if_stale();
	profil__unwind_enter(&uw);
	T_EQ(profil__unwind_row(&uw, (uintptr_t)fn, &row), PROFIL_UFOUND_TABLE);
	profil__unwind_leave(&uw);
	sink = via_plugin(fn, 1);
	expect(plug, 4, 0);
	/* closed: its table is not used any more, refreshed or not */
	T_OK(dlclose(h) == 0);
	if (st_dlopen_plugin(RTLD_NOW | RTLD_NOLOAD))
		T_SKIP("stkplugin.so stays loaded after dlclose");
	profil__unwind_enter(&uw);
	T_EQ(profil__unwind_row(&uw, (uintptr_t)fn, &row), PROFIL_UFOUND_NONE);
	profil__unwind_leave(&uw);
	T_EQ(profil__unwind_refresh(), 0);
	profil__unwind_enter(&uw);
	T_EQ(profil__unwind_row(&uw, (uintptr_t)fn, &row), PROFIL_UFOUND_NONE);
	profil__unwind_leave(&uw);

	/* qsort's comparator: libc frames between cmp and qsort */
	sort_them();
	static const char *const q[] = { "cmp", "sort_them", "main" };
	st_expect(&w, q, 3, 8);
	/* glibc's qsort tail-calls qsort_r, whose frame is the one left */
	int qs = st_find(&w, 0, "qsort_r") >= 0 ? st_find(&w, 0, "qsort_r") : st_find(&w, 0, "qsort");
	if (!TP_ASAN) /* ASan's qsort interceptor sorts by itself, without libc's */
		T_OK(qs > st_find(&w, 0, "cmp") && qs < st_find(&w, 0, "sort_them"));
	T_OK(st_complete(&w));

	/* a thread: ends in its first frame */
	pthread_t t;
	T_OK(pthread_create(&t, NULL, start_routine, NULL) == 0);
	T_OK(pthread_join(t, NULL) == 0);
	w = thread_walk;
	static const char *const th[] = { "leaf", "start_routine" };
	expect(th, 2, 0);
	T_OK(st_find(&w, 0, "main") < 0);
	T_OK(w.n - st_find(&w, 0, "start_routine") <= 4); /* start_thread, clone3 */

	/* a signal handler's frame, then the interrupted one, exactly */
	signal(SIGUSR2, on_usr2);
	sink = interrupted(1);
	w = handler_walk;
	static const char *const sig[] = { "on_usr2", "interrupted", "main" };
	st_expect(&w, sig, 3, 3);
	T_OK(st_complete(&w));
	int at = st_find(&w, 0, "on_usr2") + 1;
	/* the frame after the handler's is the interrupted pc: it follows a
	 * syscall instruction (0f 05), where a return address minus one
	 * would be inside a call */
	const uint8_t *pc = (const uint8_t *)w.pcs[at];
	T_NOTE("after on_usr2: %s at %p", st_name(w.pcs[at]), (const void *)pc);
	T_OK(pc[-2] == 0x0f && pc[-1] == 0x05);
	return 0;
}
