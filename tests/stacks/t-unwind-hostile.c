/*
 * t-unwind-hostile - stacks the walker must not trust: the program lives,
 * every walk is well formed (each entry but a final marker is a pc in a
 * loaded object: never a guess), and where it cannot go on it says
 * [unknown].
 *   - a return address overwritten with garbage (unmapped, a stack
 *     address): the frames up to it, then [unknown];
 *   - a frame whose CFI says CFA = rbp + 16 with rbp pointing at an
 *     unmapped page just above the thread's stack: the read faults under the
 *     guard, [unknown];
 *   - JIT-like code in an mmap'd page without unwind information: a signal
 *     in it gives exactly [its pc, unknown]; a C function it called is
 *     found, then [unknown];
 *   - a sigaltstack handler: the handler, then the interrupted frame on the
 *     thread's stack, exactly, down to main;
 *   - a coroutine that unmapped the top of its own stack: [unknown] where
 *     the stack is gone;
 *   - all of these first without tables (the direct path), then with;
 *   - storms: another thread sends SIGUSR1 as fast as it can while this one
 *     loops through setjmp/longjmp, or swapcontext between coroutines, or
 *     while a third one walks and this one replaces the tables again and
 *     again (dlopen, refresh, dlclose, refresh: sets retired and unmapped
 *     under the walks); every walk is checked afterwards.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "sig/unwind-tables.h"
#include "unwind-build.h"
#include "stacks.h"

/* Storms keep every walk here (ring off: only w). */
#define RING 600
static struct walk ring[RING];
static _Atomic int ring_n;
static _Atomic bool ring_on;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	if (atomic_load(&ring_on)) {
		int i = atomic_load(&ring_n);
		if (i < RING) {
			ring[i].n = profil__unwind(uc, ring[i].pcs, WALK_MAX);
			atomic_store(&ring_n, i + 1);
		}
		return;
	}
	st_on_usr1(sig, si, uc);
}

NOINL int cfun(int x)
{
	walk_here();
	return x + 1;
}

static void expect_end_unknown(const char *last_known)
{
	st_note(&w);
	T_EQ(w.pcs[w.n - 1], PCPROF_FRAME_UNKNOWN);
	if (last_known)
		T_OK(st_find(&w, 0, last_known) >= 0);
	T_OK(st_find(&w, 0, "main") < 0);
}

/* ---- a return address overwritten: smash(fn, garbage) calls fn(0) with
 * its own return address slot holding garbage, then puts it back ---- */
__asm__(".text\n"
	".globl smash\n"
	".type smash, @function\n"
	"smash:\n"
	".cfi_startproc\n"
	"pushq %rbx\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbx, -16\n"
	"movq 8(%rsp), %rbx\n"
	"movq %rsi, 8(%rsp)\n"
	"xorl %eax, %eax\n"
	"movq %rdi, %rax\n"
	"xorl %edi, %edi\n"
	"call *%rax\n"
	"movq %rbx, 8(%rsp)\n"
	"popq %rbx\n"
	".cfi_def_cfa_offset 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size smash, .-smash\n"
	/* bad_fp(fn, garbage): a frame-pointer frame whose rbp is garbage
	 * while it calls fn(0) */
	".globl bad_fp\n"
	".type bad_fp, @function\n"
	"bad_fp:\n"
	".cfi_startproc\n"
	"pushq %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"movq %rsp, %rbp\n"
	".cfi_def_cfa_register %rbp\n"
	"pushq %rbx\n"
	"pushq %rbx\n"
	"movq %rbp, %rbx\n"
	"movq %rsi, %rbp\n"
	"movq %rdi, %rax\n"
	"xorl %edi, %edi\n"
	"call *%rax\n"
	"movq %rbx, %rbp\n"
	"popq %rbx\n"
	"popq %rbx\n"
	"popq %rbp\n"
	".cfi_def_cfa %rsp, 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size bad_fp, .-bad_fp\n");
int smash(int (*fn)(int), uintptr_t garbage);
int bad_fp(int (*fn)(int), uintptr_t garbage);

static void *bad_fp_thread(void *hole)
{
	sink = bad_fp(cfun, (uintptr_t)hole);
	return NULL;
}

static void corrupted(void)
{
	int here;
	uintptr_t garbage[] = { 0xdead0000, (uintptr_t)&here, 0x10 };
	for (unsigned i = 0; i < 3; i++) {
		sink = smash(cfun, garbage[i]);
		expect_end_unknown("smash");
		T_EQ(st_find(&w, 0, "smash"), w.n - 2);
	}
	/* a thread whose stack ends just below an unmapped page */
	size_t size = 1 << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	char *stack = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	T_OK(stack != MAP_FAILED);
	T_OK(munmap(stack + size, page) == 0);
	pthread_attr_t at;
	pthread_t t;
	T_OK(pthread_attr_init(&at) == 0);
	T_OK(pthread_attr_setstack(&at, stack, size) == 0);
	T_OK(pthread_create(&t, &at, bad_fp_thread, stack + size) == 0);
	T_OK(pthread_join(t, NULL) == 0);
	expect_end_unknown("bad_fp");
	T_EQ(st_find(&w, 0, "bad_fp"), w.n - 2);
}

/* ---- JIT-like code ---- */

static void jit(void)
{
	/* mov $234 (tgkill), %eax; syscall; ret  -- and: sub $8,%rsp; call
	 * *%rdi; add $8,%rsp; ret */
	static const uint8_t kill_code[] = { 0xb8, 0xea, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3 };
	static const uint8_t call_code[] = { 0x48, 0x83, 0xec, 0x08, 0xff, 0xd7,
					     0x48, 0x83, 0xc4, 0x08, 0xc3 };
	uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	T_OK(page != MAP_FAILED);
	memcpy(page, kill_code, sizeof kill_code);
	memcpy(page + 64, call_code, sizeof call_code);
	T_OK(mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0);

	long (*do_kill)(long, long, long) = (long (*)(long, long, long))(void *)page;
	w.n = 0;
	T_OK(do_kill(getpid(), gettid(), SIGUSR1) == 0);
	st_note(&w);
	T_EQ(w.n, 2);
	T_EQ(w.pcs[0], (uintptr_t)page + 7);
	T_EQ(w.pcs[1], PCPROF_FRAME_UNKNOWN);

	int (*do_call)(int (*)(int)) = (int (*)(int (*)(int)))(void *)(page + 64);
	sink = do_call(cfun);
	expect_end_unknown("cfun");
	T_EQ(st_find(&w, 0, "cfun"), w.n - 2);
	munmap(page, 4096);
}

/* ---- sigaltstack ---- */

static struct walk alt_walk;
NOINL void on_alt(int sig)
{
	(void)sig;
	int here;
	sink = (int)(uintptr_t)&here;
	walk_here();
	alt_walk = w;
}
NOINL int alt_interrupted(int x)
{
	raise(SIGUSR2);
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

static void altstack(void)
{
	static char mem[1 << 16];
	stack_t ss = { .ss_sp = mem, .ss_size = sizeof mem };
	T_OK(sigaltstack(&ss, NULL) == 0);
	struct sigaction sa = { .sa_handler = on_alt, .sa_flags = SA_ONSTACK };
	sigemptyset(&sa.sa_mask);
	T_OK(sigaction(SIGUSR2, &sa, NULL) == 0);
	sink = alt_interrupted(1);
	w = alt_walk;
	static const char *const names[] = { "on_alt", "alt_interrupted", "main" };
	st_expect(&w, names, 3, 3);
	T_OK(st_complete(&w));
}

/* ---- a coroutine that unmaps the top of its own stack ---- */

static ucontext_t main_uc, co_uc;
static char *co_stack;
static size_t co_size = 1 << 16;

NOINL void deep(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	T_OK(munmap(co_stack + co_size - page, page) == 0);
	walk_here();
	swapcontext(&co_uc, &main_uc); /* never resumed */
}
NOINL void co_start(void)
{
	volatile char pad[16384]; /* deep's frame is below the page unmapped */
	pad[0] = 1;
	deep();
	sink = pad[0];
}

static void unmapped_stack(void)
{
	co_stack = mmap(NULL, co_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	T_OK(co_stack != MAP_FAILED);
	T_OK(getcontext(&co_uc) == 0);
	co_uc.uc_stack.ss_sp = co_stack;
	co_uc.uc_stack.ss_size = co_size;
	co_uc.uc_link = NULL;
	makecontext(&co_uc, co_start, 0);
	T_OK(swapcontext(&main_uc, &co_uc) == 0);
	expect_end_unknown("deep");
}

/* ---- storms ---- */

static _Atomic bool storm_stop;
static void *sender(void *target)
{
	pthread_t t = *(pthread_t *)target;
	while (!atomic_load(&storm_stop)) {
		pthread_kill(t, SIGUSR1);
		sched_yield();
	}
	return NULL;
}

static jmp_buf jb;
NOINL void jump_back(int i)
{
	sink = i;
	longjmp(jb, i + 1);
}
NOINL void longjmps(void)
{
	for (volatile int i = 0; i < 2000; i++)
		if (setjmp(jb) == 0)
			jump_back(i);
}

static ucontext_t a_uc, b_uc;
NOINL void coro_work(void)
{
	for (;;) {
		for (volatile int i = 0; i < 200; i++)
			sink = i;
		swapcontext(&b_uc, &a_uc);
	}
}
NOINL void coroutines(void)
{
	for (int i = 0; i < 2000; i++) {
		for (volatile int j = 0; j < 200; j++)
			sink = j;
		swapcontext(&a_uc, &b_uc);
	}
}

static int complete, with_main;

/* Walks of thread `target` while this one runs loop(), until the ring is
 * full; every walk must be well formed and some must be in `name`. */
static void storm_on(pthread_t target, void (*loop)(void), const char *name)
{
	atomic_store(&ring_n, 0);
	atomic_store(&storm_stop, false);
	atomic_store(&ring_on, true);
	pthread_t s;
	T_OK(pthread_create(&s, NULL, sender, &target) == 0);
	double cpu0 = t_cpu(CLOCK_THREAD_CPUTIME_ID);
	while (atomic_load(&ring_n) < RING && t_cpu(CLOCK_THREAD_CPUTIME_ID) - cpu0 < 20)
		loop();
	atomic_store(&storm_stop, true);
	T_OK(pthread_join(s, NULL) == 0);
	atomic_store(&ring_on, false);
	int n = atomic_load(&ring_n);
	T_NOTE("%s: %d walks", name, n);
	T_OK(n >= 50);
	int found = 0;
	complete = with_main = 0;
	for (int i = 0; i < n; i++) {
		st_well_formed(&ring[i]);
		complete += st_complete(&ring[i]);
		with_main += st_find(&ring[i], 0, "main") >= 0;
		found += st_find(&ring[i], 0, name) >= 0;
	}
	T_NOTE("%s: %d walks, %d in it, %d complete, %d to main", name, n, found, complete,
	       with_main);
#ifdef ST_VERBOSE
	fprintf(stderr, "%s\n", t_note_buf);
	for (int i = 0; i < n; i++)
		if (st_find(&ring[i], 0, name) >= 0 || !st_complete(&ring[i]))
			st_note(&ring[i]);
#endif
	T_OK(found > 0);
}

static void storm(void (*loop)(void), const char *name)
{
	storm_on(pthread_self(), loop, name);
}

/* ---- tables replaced and retired while another thread walks ---- */

static _Atomic bool spin_stop;
NOINL int spin_cb(int x)
{
	for (volatile int i = 0; i < 100; i++)
		sink = i;
	return x + 1;
}
static void *spinner(void *arg)
{
	(void)arg;
	for (int i = 0; !atomic_load(&spin_stop); i++)
		sink = stk_call(spin_cb, i);
	return NULL;
}

static int refreshes;
NOINL void churn(void)
{
	void *h = st_dlopen_plugin(RTLD_NOW);
	T_OK(h != NULL);
	T_EQ(profil__unwind_refresh(), 0);
	T_OK(dlclose(h) == 0);
	T_EQ(profil__unwind_refresh(), 0);
	refreshes += 2;
}

static void rebuilds(void)
{
	pthread_t t;
	atomic_store(&spin_stop, false);
	T_OK(pthread_create(&t, NULL, spinner, NULL) == 0);
	storm_on(t, churn, "spin_cb");
	atomic_store(&spin_stop, true);
	T_OK(pthread_join(t, NULL) == 0);
	T_NOTE("%d refreshes", refreshes);
	T_OK(refreshes >= 10);
}

int main(void)
{
	if (TP_TSAN)
		T_SKIP("ThreadSanitizer runs a signal handler later, at an intercepted call, under "
		       "frames of its own: there is no interrupted stack to walk");
	st_guard_on();
	st_catch(on_usr1);

	/* first without tables (every row from the direct path), then with */
	for (int tables = 0; tables < 2; tables++) {
		if (tables)
			T_EQ(profil__unwind_refresh(), 0);
		corrupted();
		jit();
		altstack();
	}
	unmapped_stack();

	storm(longjmps, "jump_back");
	static char b_stack[1 << 16];
	T_OK(getcontext(&b_uc) == 0);
	b_uc.uc_stack.ss_sp = b_stack;
	b_uc.uc_stack.ss_size = sizeof b_stack;
	makecontext(&b_uc, coro_work, 0);
	storm(coroutines, "coro_work");
	rebuilds();
	return 0;
}
