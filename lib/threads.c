/*
 * threads.c - which threads exist, and arming per-thread engines on them.
 *
 * Per-thread engines must cover the threads that exist when profiling starts
 * and every thread created later, and must leave nothing behind (no timer,
 * no fd) when a thread exits.  Two sources of truth:
 *
 *   - TRACKED threads were created through our pthread_create(), which wraps
 *     the start routine: the new thread registers itself (and is armed if
 *     profiling is on) before running the caller's code, and a pthread key
 *     destructor disarms and frees its slot when it exits.
 *   - FOREIGN threads existed before the library was loaded, or were made
 *     without pthread_create.  start() finds them in /proc/self/task (read
 *     with raw getdents64, no allocation).
 *
 * A thread that ends without its exit handlers (a raw SYS_exit, a thread
 * made with raw clone) never frees its slot, nor the timer or descriptor
 * armed for it.  So dead slots are swept: every max(16, slots in use / 2)
 * slot allocations (amortised: at most two liveness checks per
 * allocation, and fewer than that many dead slots at any time), when an
 * attach is refused for lack of resources, at every engine start and
 * stop, and when owed ticks are paid.  A thread is dead when
 * tgkill(pid, tid, 0) says ESRCH.
 *
 * What the engine does not sample is counted (profil_stats(), pcprof run's
 * summary, libprofil(7)): threads not attached because of a resource limit
 * (reserve.c) or another error, threads whose timer or event the program
 * closed or deleted, and threads that ended without exit handlers, whose
 * CPU time after their last sample cannot be read once they are gone.
 *
 * A thread created while a start runs could be missed by both, or, with an
 * engine whose kernel object is inherited at clone (perf), be covered twice.
 * So creation and engine changes exclude each other with a small handshake
 * (creating / changing, below), and the start sequence number recorded at
 * creation tells the new thread whether its creator's coverage applies.
 *
 * Every armed thread has a tick schedule on its own CPU clock (engine.h):
 * the ticks it is due by any CPU time are an unbiased estimate of that time
 * x rate, and each is accounted exactly once, by the thread's next
 * profiling signal (the signal only says "now"), or, if none comes, "owed"
 * when the thread ends, profiling stops, the image execs or the program
 * exits: a thread shorter than a period, the CPU time before the engine
 * could signal (the exec, the dynamic loader, for the main thread of a
 * recorded image), the last partial period.  So the counts do not depend
 * on how the kernel delivers signals: expiries folded into one, perf
 * overflows dropped while a SIGTRAP is pending, a process-wide signal
 * landing in any thread, a signal still in flight when a stop pays.
 *
 * The signal path's part (finding the calling thread's slot, claiming the
 * ticks due) is lib/sig/tslot.c, which holds the slot list this file
 * fills.  Everything here except the pthread_create wrapper and
 * profil__threads_image_start runs with the
 * control lock held (profil__lock) and uses only syscalls and our own mmap'd
 * slots, so it is safe on pcsample()'s async-signal-safe path.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "record.h"
#include "reserve.h"
#include "ctl.h"
#include "threads.h"
#include "unwind-build.h"
#include "sig/sigown.h"
#include "sig/tslot.h"

enum { THREAD_FREE = 0, THREAD_TRACKED = 1, THREAD_FOREIGN = 2 };

static pthread_key_t exit_key;
static bool key_ok;
static uint64_t period_ns; /* of the running engine */

/* Creation/engine-change handshake (Dekker style, sequentially consistent). */
static _Atomic int creating, changing;

unsigned long long profil__thread_attaches;

/* Threads the engine does not sample, wholly or in part, since it started. */
enum { LIMIT_FD = 1, LIMIT_SIGQ = 2, LIMIT_MEM = 4 };
static struct {
	unsigned long long limited; /* not attached: a resource limit */
	unsigned long long failed;  /* not attached: any other error */
	unsigned long long taken;   /* the program closed or deleted their object */
	unsigned long long unseen;  /* ended without exit handlers */
	unsigned long long nosig;   /* no signal left to sample them with */
	unsigned limits;            /* LIMIT_*: which limits refused */
} loss;

/* What the schedules covered of the image's CPU time, for the recording
 * (threads.h, profil__threads_span): folded in as each schedule ends. */
static struct {
	uint64_t covered; /* schedules that ended: origin to last payment */
	uint64_t before;  /* threads' CPU time while no schedule ran on them */
	uint64_t ended;   /* threads that ended through thread_end */
} span;

static unsigned used_slots;  /* slots with a thread */
static unsigned since_sweep; /* slot allocations since the last sweep */

/* ---- slots ---- */

static void set_tid(struct profil_thread *t, pid_t tid)
{
	__atomic_store_n(&t->tid, tid, __ATOMIC_RELEASE);
}

static bool limit_error(int r)
{
	return r == -EMFILE || r == -ENFILE || r == -EAGAIN || r == -ENOMEM;
}

/* A thread the engine could not attach (r from attach), or whose object the
 * program took away (-EBADF from detach). */
static void count_loss(int r)
{
	if (r == -EBADF)
		loss.taken++;
	else if (!limit_error(r))
		loss.failed++;
	else {
		loss.limited++;
		loss.limits |= r == -EAGAIN ? LIMIT_SIGQ : r == -ENOMEM ? LIMIT_MEM : LIMIT_FD;
	}
	profil__record_thread_loss(false);
}

/* t's schedule ends: what it covered is counted. */
static void fold(struct profil_thread *t)
{
	if (atomic_load(&t->scheduled) && t->paid_ns > t->origin_ns)
		span.covered += t->paid_ns - t->origin_ns;
}

static void release(struct profil_thread *t, const struct profil_engine *e)
{
	fold(t);
	if (t->attached && e && e->detach) {
		int r = e->detach(t);
		if (r < 0)
			count_loss(r);
	}
	t->attached = false;
	atomic_store(&t->scheduled, false);
	t->kind = THREAD_FREE;
	if (t->tid)
		used_slots--;
	set_tid(t, 0);
}

static bool alive(pid_t tid)
{
	return syscall(SYS_tgkill, getpid(), tid, 0) == 0 || errno != ESRCH;
}

/* t's thread ended without thread_end.  Its timer or event is freed; what
 * it was owed since its last sample cannot be paid (its CPU clock is gone
 * with it), so it is counted instead. */
static void drop_dead(struct profil_thread *t, const struct profil_engine *e)
{
	if (t->attached) {
		loss.unseen++;
		profil__record_thread_loss(true);
	}
	release(t, e);
}

static void sweep(const struct profil_engine *e)
{
	pid_t me = profil__gettid();
	for (struct profil_tslot_chunk *c = atomic_load(&profil__tslot_chunks); c; c = c->next)
		for (int i = 0; i < PROFIL_TSLOT_CHUNK; i++) {
			struct profil_thread *t = &c->slot[i];
			if (t->tid && t->tid != me && !alive(t->tid))
				drop_dead(t, e);
		}
	since_sweep = 0;
}

static struct profil_thread *alloc_slot(pid_t tid, int kind, const struct profil_engine *e)
{
	if (++since_sweep >= (used_slots / 2 > 16 ? used_slots / 2 : 16))
		sweep(e);
	struct profil_thread *t = profil__tslot_find(0);
	if (!t) {
		struct profil_tslot_chunk *c = profil__alloc(sizeof *c);
		if (!c)
			return NULL;
		for (int i = 0; i < PROFIL_TSLOT_CHUNK; i++)
			c->slot[i].walk = &c->walk[i];
		c->next = atomic_load(&profil__tslot_chunks);
		atomic_store_explicit(&profil__tslot_chunks, c, memory_order_release);
		t = &c->slot[0];
	}
	t->kind = (uint8_t)kind;
	t->attached = false;
	t->seen_seq = 0;
	t->handle = -1;
	/* The main thread began at the program's entry point; where another
	 * thread we did not create began is unknown. */
	t->entry_pc = tid == getpid() ? (uintptr_t)getauxval(AT_ENTRY) : 0;
	t->start_origin = PROFIL_ORIGIN_NOW;
	t->paid_ns = 0;
	t->blocked = false;
	atomic_store(&t->scheduled, false);
	t->unsampled = false;
	used_slots++;
	set_tid(t, tid);
	return t;
}

/* ---- the tick schedule (owed ticks) ---- */

/* The schedule's arithmetic and the signal's claim are in sig/tslot.c;
 * profil__tslot_user_time says that schedules run on user time only (an
 * engine that cannot see the kernel). */

/* Thread tid's user time from /proc, in whole clock ticks (1/USER_HZ):
 * another thread's is not available more finely.  0 if it is gone. */
static uint64_t proc_user_ns(pid_t tid)
{
	char path[48] = "/proc/self/task/";
	pid_t ptid = profil__proc_tid(tid); /* /proc's view of it (internal.h) */
	if (!ptid)
		return 0;
	profil__strlcat_u(path, sizeof path, (unsigned long)ptid);
	profil__strlcat(path, sizeof path, "/stat");
	char buf[512];
	if (profil__read_small(path, buf, sizeof buf) <= 0)
		return 0;
	/* After "tid (comm) ": state is field 3, utime field 14. */
	const char *p = strrchr(buf, ')');
	for (int field = 2; p && field < 14; field++)
		p = strchr(p + 1, ' ');
	unsigned long hz = getauxval(AT_CLKTCK), ticks = 0;
	if (!p || !hz)
		return 0;
	for (p++; *p >= '0' && *p <= '9'; p++)
		ticks = ticks * 10 + (unsigned long)(*p - '0');
	return (uint64_t)ticks * (1000000000u / hz);
}

/* A thread's CPU time (or user time) now, 0 if it is gone.  AS-safe. */
static uint64_t cpu_of(pid_t tid)
{
	if (!profil__tslot_user_time)
		return profil__clock_ns(profil_thread_clock(tid));
	return tid == profil__gettid() ? profil__tslot_cpu_self() : proc_user_ns(tid);
}

/* Ticks owed at once from which a thread's mask is looked at: a signal
 * leaves up to a scheduler tick's worth waiting (sig/tslot.c), and a
 * thread that ends with a few more costs one read of /proc. */
#define BLOCKED_MIN 4

/* Does thread tid block a sampling signal in the kernel?  The library
 * never really blocks one for the program's mask calls (sig/sigown.h), so
 * only a raw rt_sigprocmask (or code that makes its own, as glibc's timer
 * threads do) has: its signals stay pending, and its ticks would be paid
 * at a pc where it no longer runs.  The caller's mask is the one from
 * before the control lock. */
static bool signal_blocked(pid_t tid)
{
	uint64_t res = profil__sig_reserved(), blk = 0;
	if (!res)
		return false;
	if (tid == profil__gettid()) {
		sigset_t *s = profil__lock_saved();
		return s && (profil__kmask(s) & res);
	}
	/* The line alone, not the file: this runs on the program's stack
	 * (tests/abi/t-frames.sh). */
	char path[48] = "/proc/self/task/", buf[64];
	pid_t ptid = profil__proc_tid(tid);
	profil__strlcat_u(path, sizeof path, (unsigned long)ptid);
	profil__strlcat(path, sizeof path, "/status");
	if (!ptid || profil__status_text(path, "SigBlk", buf, sizeof buf) <= 0)
		return false;
	for (const char *p = buf;; p++) {
		unsigned d = *p >= '0' && *p <= '9'   ? (unsigned)(*p - '0')
			     : *p >= 'a' && *p <= 'f' ? (unsigned)(*p - 'a' + 10)
						      : 16;
		if (d == 16)
			break;
		blk = blk << 4 | d;
	}
	return (blk & res) != 0;
}

/* Account what t is due now and nobody took: at the pc of its last signal,
 * or where it began if it never had one; into cfg (a configuration being
 * retired) or, if NULL, the current one.  A thread the engine could not
 * attach has no pc at all: its ticks are counted as lost; so are those of
 * a thread that blocks the sampling signal (signal_blocked), which no
 * signal could bring: that pc is not where they were spent. */
static void pay(struct profil_thread *t, struct profil_cfg *cfg)
{
	if (!atomic_load(&t->scheduled))
		return;
	uint64_t now = cpu_of(t->tid);
	if (now > t->paid_ns)
		t->paid_ns = now;
	uint64_t d = profil__tslot_claim(t, now);
	if (!d)
		return;
	uintptr_t pc = atomic_load(&t->last_pc);
	if (!pc)
		pc = t->entry_pc;
	if (t->unsampled || !pc) {
		profil__sample_unsampled((unsigned long)d);
	} else if (d >= BLOCKED_MIN && signal_blocked(t->tid)) {
		profil__sample_blocked((unsigned long)d, !t->blocked);
		t->blocked = true;
	} else {
		profil__sample_owed(cfg, t->tid, pc, NULL, 0, (unsigned long)d);
	}
}

/* How attach() treats a refusal for lack of resources (limit_error). */
enum {
	ATTACH_RETRY = 1, /* sweep dead threads' slots, which may hold them, and
			     try once more */
	ATTACH_WHOLE = 2, /* another engine will be tried: leave no trace (no
			     schedule, nothing paid, the origin kept for it) */
};

/*
 * Start t's schedule and arm the engine for it.  The schedule starts at
 * t->start_origin when the library knows where t's CPU time began to be
 * ours (a thread born while profiling runs: 0; the main thread of a new
 * image: its CPU time at the exec; a fork child: 0), else now; whatever it
 * is due already (the time before the engine could signal) is paid at once
 * at t->entry_pc.  A thread the engine refuses keeps its schedule so that
 * its ticks are counted as unsampled.
 */
static int attach(const struct profil_engine *e, struct profil_thread *t, bool inherited,
		  unsigned how)
{
	uint64_t now = cpu_of(t->tid), origin = t->start_origin;
	/* A CPU time handed over by an exec is no user time: from now. */
	if (profil__tslot_user_time && origin != 0)
		origin = PROFIL_ORIGIN_NOW;
	t->origin_ns = origin < now ? origin : now;
	/* What the thread used while no schedule ran on it (before the
	 * engine found it, since the last one stopped). */
	if (t->origin_ns > t->paid_ns)
		span.before += t->origin_ns - t->paid_ns;
	t->paid_ns = t->origin_ns;
	t->period_ns = period_ns;
	t->first_ns = 1 + profil__random_below(period_ns);
	t->arm_ns = t->origin_ns + t->first_ns + profil__tslot_due_by(t, now) * period_ns - now;
	/* Signals this thread took before it had a slot are its own ticks. */
	bool mine = t->tid == profil__gettid();
	unsigned long before = mine ? atomic_exchange(&profil__tslot_early, 0) : 0;
	atomic_fetch_sub(&profil__tslot_unslotted, before); /* the schedule's now */
	atomic_store(&t->taken, before);
	atomic_store(&t->last_pc, 0);
	int r = e->attach(t, inherited);
	if (limit_error(r) && (how & ATTACH_RETRY)) {
		sweep(e);
		r = e->attach(t, inherited);
	}
	if (limit_error(r) && (how & ATTACH_WHOLE)) {
		if (mine) {
			atomic_fetch_add(&profil__tslot_early, before);
			atomic_fetch_add(&profil__tslot_unslotted, before);
		}
		return r;
	}
	t->start_origin = PROFIL_ORIGIN_NOW;
	t->attached = r == 0;
	t->unsampled = r < 0;
	atomic_store(&t->scheduled, true);
	if (r == 0)
		profil__thread_attaches++;
	pay(t, NULL);
	return r;
}

void profil__threads_pay_owed(struct profil_cfg *cfg)
{
	const struct profil_engine *e = profil__running_engine();
	for (struct profil_tslot_chunk *c = atomic_load(&profil__tslot_chunks); c; c = c->next)
		for (int i = 0; i < PROFIL_TSLOT_CHUNK; i++) {
			struct profil_thread *t = &c->slot[i];
			if (t->tid && t->attached && !alive(t->tid))
				drop_dead(t, e); /* cannot be paid: its clock is gone */
			else if (t->tid)
				pay(t, cfg); /* an unattached thread: its unsampled ticks */
		}
}

void profil__threads_image_start(uint64_t main_origin)
{
	pid_t tid = profil__gettid();
	if (tid != getpid())
		return; /* not the main thread (a late dlopen): its past is unknown */
	sigset_t saved;
	if (!profil__lock(&saved))
		return;
	struct profil_thread *t = profil__tslot_find(tid);
	if (!t)
		t = alloc_slot(tid, THREAD_FOREIGN, profil__running_engine());
	if (t) {
		t->start_origin = main_origin;
		/* What came before is earlier images' (or, from an unknown
		 * origin, not this image's to count). */
		t->paid_ns = main_origin != PROFIL_ORIGIN_NOW ? main_origin : cpu_of(tid);
	}
	profil__unlock(&saved);
}

void profil__threads_set_period(uint64_t ns)
{
	period_ns = ns;
}

void profil__threads_user_time(bool on)
{
	profil__tslot_user_time = on;
}

/* ---- engine start/stop (control lock held) ---- */

void profil__threads_block_creation(void)
{
	atomic_store(&changing, 1);
	/* A creating thread that a seccomp filter killed in its clone never
	 * leaves: whoever installed that filter sealed the library, or will
	 * be found to have. */
	for (unsigned n = 1; atomic_load(&creating); n++) {
		if (n % 4096 == 0 && profil__filter_check(false))
			return;
		sched_yield();
	}
}

void profil__threads_unblock_creation(void)
{
	atomic_store(&changing, 0);
}

struct task_walk {
	int (*fn)(pid_t tid, pid_t proc_tid, void *ctx);
	void *ctx;
	bool listed; /* the directory could be read */
};

static int task_entry(const char *name, void *p)
{
	struct task_walk *w = p;
	unsigned long tid;
	w->listed = true;
	if (profil__parse_uint(name, 0x7fffffff, &tid) < 0 || !tid)
		return 0;
	/* /proc may list another pid namespace's ids: the engines take the
	 * process's own (a timer on a thread id of another namespace is
	 * EINVAL). */
	pid_t own = profil__tid_from_proc((pid_t)tid);
	return own ? w->fn(own, (pid_t)tid, w->ctx) : 0;
}

/* Apply fn to every thread in /proc/self/task, with its own id and the
 * one /proc names it by (internal.h, pid namespaces).  Returns 0, -ENOSYS
 * if the list cannot be read, or the first error fn returns. */
static int for_each_task(int (*fn)(pid_t tid, pid_t proc_tid, void *ctx), void *ctx)
{
	struct task_walk w = { fn, ctx, false };
	int r = profil__each_dirent("/proc/self/task", task_entry, &w);
	return r < 0 && !w.listed ? -ENOSYS : r;
}

/* Is the thread /proc names proc_tid one of io_uring's workers
 * ("iou-wrk-N", "iou-sqp-N")?  They belong to the process, run only in
 * the kernel and never take a signal: no engine can sample them. */
static bool io_worker(pid_t proc_tid)
{
	char path[48] = "/proc/self/task/", comm[32];
	profil__strlcat_u(path, sizeof path, (unsigned long)proc_tid);
	profil__strlcat(path, sizeof path, "/comm");
	return profil__read_small(path, comm, sizeof comm) > 0 && strncmp(comm, "iou-", 4) == 0 &&
	       (strncmp(comm + 4, "wrk-", 4) == 0 || strncmp(comm + 4, "sqp-", 4) == 0);
}

static int fixup_task(pid_t tid, pid_t proc_tid, void *p)
{
	(void)proc_tid;
	int sig = *(int *)p;
	if (tid == profil__gettid())
		return 0;
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = sig;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_ptr = (void *)profil__fixup_cookie;
	/* Failing (a thread just gone, the pending-signal limit): that
	 * thread catches up at its next mask call instead. */
	syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, sig, &si);
	return 0;
}

void profil__threads_fixup(int sig)
{
	for_each_task(fixup_task, &sig);
}

struct attach_ctx {
	const struct profil_engine *e;
	uint32_t seq;
	bool whole; /* every thread must be covered: a limit fails the start */
};

static int attach_task(pid_t tid, pid_t proc_tid, void *p)
{
	struct attach_ctx *ctx = p;
	struct profil_thread *t = profil__tslot_find(tid);
	if (!t && proc_tid && io_worker(proc_tid)) {
		/* Nothing to arm: its time is measured at the end
		 * (profil__threads_span). */
		profil__record_gap_flag(PCPROF_RAW_G_IOURING);
		return 0;
	}
	if (!t && !(t = alloc_slot(tid, THREAD_FOREIGN, ctx->e)))
		return -ENOMEM;
	t->seen_seq = ctx->seq;
	if (t->attached)
		return 0;
	int r = attach(ctx->e, t, false, ctx->whole ? ATTACH_WHOLE : 0);
	/* A thread that exited since we listed it cannot be armed; that is
	 * not an engine failure. */
	if (r == -ESRCH || (r == -EINVAL && !alive(tid)))
		return 0;
	if (r < 0 && limit_error(r) && ctx->whole)
		return r; /* another engine may cover every thread */
	if (r < 0)
		count_loss(r);
	return limit_error(r) ? 0 : r;
}

int profil__threads_attach_all(const struct profil_engine *e, uint32_t seq, bool whole)
{
	struct attach_ctx ctx = { e, seq, whole };
	sweep(e); /* dead threads' slots would hold resources */
	int r = for_each_task(attach_task, &ctx);
	if (r == -ENOSYS) {
		/* No /proc: cover at least the caller and tracked threads. */
		r = attach_task(profil__gettid(), 0, &ctx);
		for (struct profil_tslot_chunk *c = atomic_load(&profil__tslot_chunks); c && r == 0;
		     c = c->next)
			for (int i = 0; i < PROFIL_TSLOT_CHUNK && r == 0; i++)
				if (c->slot[i].kind == THREAD_TRACKED && !c->slot[i].attached)
					r = attach_task(c->slot[i].tid, 0, &ctx);
		return r;
	}
	if (r < 0)
		return r;
	/* Foreign slots that were not listed belong to dead threads. */
	for (struct profil_tslot_chunk *c = atomic_load(&profil__tslot_chunks); c; c = c->next)
		for (int i = 0; i < PROFIL_TSLOT_CHUNK; i++)
			if (c->slot[i].kind == THREAD_FOREIGN && c->slot[i].seen_seq != seq)
				release(&c->slot[i], e);
	return 0;
}

/* False if t is a dead thread's slot, which is then freed (me: the
 * caller, alive whatever its slot says). */
static bool kept(struct profil_thread *t, const struct profil_engine *e, pid_t me)
{
	if (t->tid && t->tid != me && !alive(t->tid)) {
		drop_dead(t, e);
		return false;
	}
	return true;
}

void profil__threads_resignal(const struct profil_engine *e, int sig)
{
	pid_t me = profil__gettid();
	for (struct profil_tslot_chunk *c = atomic_load(&profil__tslot_chunks); c; c = c->next)
		for (int i = 0; i < PROFIL_TSLOT_CHUNK; i++) {
			struct profil_thread *t = &c->slot[i];
			if (!kept(t, e, me))
				continue;
			if (!t->attached)
				continue;
			int r = sig ? e->resignal(t, sig) : e->detach(t);
			if (sig && r == 0)
				continue;
			/* Its schedule stays: its ticks are counted as
			 * unsampled from now on. */
			t->attached = false;
			t->unsampled = true;
			if (sig) {
				count_loss(r);
			} else {
				loss.nosig++;
				profil__record_thread_loss(false);
			}
		}
}

void profil__threads_detach_all(const struct profil_engine *e)
{
	/* A live thread's slot stays (its cached `self` must stay valid); a
	 * dead thread's is freed. */
	pid_t me = profil__gettid();
	for (struct profil_tslot_chunk *c = atomic_load(&profil__tslot_chunks); c; c = c->next)
		for (int i = 0; i < PROFIL_TSLOT_CHUNK; i++) {
			struct profil_thread *t = &c->slot[i];
			if (!kept(t, e, me))
				continue;
			if (t->attached && e->detach) {
				int r = e->detach(t);
				if (r < 0)
					count_loss(r);
			}
			t->attached = false;
			fold(t);
			atomic_store(&t->scheduled, false);
		}
}

static int census_task(pid_t tid, pid_t proc_tid, void *p)
{
	struct profil_span *s = p;
	if (profil__tslot_find(tid))
		return 0;
	uint64_t cpu = profil__clock_ns(profil_thread_clock(tid));
	if (io_worker(proc_tid)) {
		s->iou++;
		s->iou_ns += cpu;
	} else {
		s->foreign++;
		s->foreign_ns += cpu;
	}
	return 0;
}

static int count_entry(const char *name, void *p)
{
	(void)name;
	++*(size_t *)p;
	return 0;
}

void profil__threads_span(struct profil_span *s)
{
	memset(s, 0, sizeof *s);
	s->covered = span.covered;
	s->before = span.before;
	s->ended = span.ended;
	s->unslotted = atomic_load(&profil__tslot_unslotted);
	size_t slots = 0, tasks = 0;
	for (struct profil_tslot_chunk *c = atomic_load(&profil__tslot_chunks); c; c = c->next)
		for (int i = 0; i < PROFIL_TSLOT_CHUNK; i++) {
			const struct profil_thread *t = &c->slot[i];
			slots += t->tid != 0;
			if (t->tid && atomic_load(&t->scheduled) && t->paid_ns > t->origin_ns)
				s->covered += t->paid_ns - t->origin_ns;
		}
	/* Each thread is looked up among the slots only when there are more
	 * threads than slots: a lookup walks them all, and a program of
	 * 16,000 threads would pay that 16,000 times at its exit. */
	if (profil__each_dirent("/proc/self/task", count_entry, &tasks) == 0 && tasks > slots)
		for_each_task(census_task, s);
}

unsigned long long profil__threads_unsampled(void)
{
	return loss.limited + loss.failed + loss.taken + loss.nosig;
}

void profil__threads_reset_counts(void)
{
	profil__thread_attaches = 0;
	memset(&loss, 0, sizeof loss);
}

static void loss_item(char *buf, size_t len, bool *first, unsigned long long n, const char *what)
{
	if (!n)
		return;
	profil__strlcat(buf, len, *first ? "; not sampled: " : ", ");
	profil__strlcat_u(buf, len, (unsigned long)n);
	profil__strlcat(buf, len, n == 1 ? " thread " : " threads ");
	profil__strlcat(buf, len, what);
	*first = false;
}

void profil__threads_loss_text(char *buf, size_t len)
{
	bool first = true;
	char why[96] = "(resource limit: ";
	const char *names[] = { "RLIMIT_NOFILE", "RLIMIT_SIGPENDING", "memory" };
	for (int i = 0, n = 0; i < 3; i++)
		if (loss.limits & (1u << i)) {
			profil__strlcat(why, sizeof why, n++ ? ", " : "");
			profil__strlcat(why, sizeof why, names[i]);
		}
	profil__strlcat(why, sizeof why, ")");
	loss_item(buf, len, &first, loss.limited, why);
	loss_item(buf, len, &first, loss.failed, "(attach failed)");
	loss_item(buf, len, &first, loss.taken, "(timer or event closed by the program)");
	loss_item(buf, len, &first, loss.nosig,
		  "(the program claimed the sampling signal and no free real-time signal was "
		  "left)");
	if (loss.unseen) {
		profil__strlcat(buf, len, "; ");
		profil__strlcat_u(buf, len, (unsigned long)loss.unseen);
		profil__strlcat(buf, len, loss.unseen == 1 ? " thread" : " threads");
		profil__strlcat(
			buf, len,
			" ended without exit handlers (CPU after the last sample not counted)");
	}
}

/* The thread that forks, in the parent: in the child it has another id. */
static pid_t forking_tid;

void profil__threads_fork_prepare(void)
{
	forking_tid = profil__gettid();
}

/* In the child after fork (control lock re-initialised, one thread). */
static _Atomic uint64_t start_used; /* start_pool's slots in use (below) */
static void start_pool_fork_child(void);

void profil__threads_fork_child(void)
{
	start_pool_fork_child();
	struct profil_thread *me = key_ok ? pthread_getspecific(exit_key) : NULL;
	if (!me)
		me = profil__tslot_self;
	/* A thread we did not create (the main one) that took no signal yet
	 * has neither: its slot is the forking thread's.  Without it the
	 * child's thread got a slot of its own when the engine started, its
	 * CPU time counted from then (what the fork handlers used before,
	 * 3 ms each for pool workers under load, went unsampled), its ticks
	 * before its first signal charged to the program's entry point. */
	if (!me && forking_tid)
		me = profil__tslot_find(forking_tid);
	for (struct profil_tslot_chunk *c = atomic_load(&profil__tslot_chunks); c; c = c->next)
		for (int i = 0; i < PROFIL_TSLOT_CHUNK; i++) {
			struct profil_thread *t = &c->slot[i];
			t->attached = false; /* the parent's timers/fds are not ours */
			atomic_store(&t->scheduled, false);
			if (t != me)
				release(t, NULL);
		}
	if (me) {
		set_tid(me, profil__gettid());
		/* A new process: its CPU clock started at the fork, and all of
		 * it is profiled; until its first signal it was in fork. */
		me->start_origin = 0;
		me->paid_ns = 0;
		me->blocked = false;
		me->entry_pc = (uintptr_t)fork;
	}
	memset(&span, 0, sizeof span); /* the parent's */
	profil__tslot_self = me;
	atomic_store(&profil__tslot_early, 0);
	atomic_store(&profil__tslot_unslotted, 0);
	since_sweep = 0;
	profil__reserve_fork_child();
	atomic_store(&creating, 0);
	atomic_store(&changing, 0);
}

/* ---- thread birth and death ---- */

struct start_arg {
	void *(*fn)(void *);
	void *arg;
	uint32_t seq;
	bool running;
	sigset_t mask;                  /* the creator's mask as the program sees it */
	size_t stack_size, stack_guard; /* from the creator's attr (stack_bounds_created) */
	uintptr_t stack_lo;             /* a stack the program gave, else 0 */
	pid_t taker;                    /* the process that claimed the slot */
};

/* Start arguments go from the creator to the new thread in one of these,
 * not in malloc'd memory: a thread that frees what another thread
 * malloc'd gets a malloc arena of its own, 64 MiB of address space that
 * RLIMIT_AS counts and a thread that never calls malloc does not have
 * alone (a profiled program with 4 such threads went from 35 MB to 290 MB;
 * issue 19).  Slots are claimed with a bit each; past 64 creations under
 * way at once, the library's own mmap'd memory. */
#define START_POOL 64
static struct start_arg start_pool[START_POOL];

static struct start_arg *start_arg_get(void)
{
	uint64_t used = atomic_load(&start_used);
	while (~used) {
		uint64_t bit = ~used & -~used; /* the lowest free slot */
		if (atomic_compare_exchange_weak(&start_used, &used, used | bit)) {
			struct start_arg *a = &start_pool[__builtin_ctzll(bit)];
			a->taker = (pid_t)syscall(SYS_getpid);
			return a;
		}
	}
	return profil__alloc(sizeof(struct start_arg));
}

static void start_arg_put(struct start_arg *a)
{
	if (a >= start_pool && a < start_pool + START_POOL)
		atomic_fetch_and(&start_used, ~((uint64_t)1 << (a - start_pool)));
	else
		profil__free(a, sizeof *a);
}

static void start_pool_fork_child(void)
{
	/* Creations under way in threads the child does not have hold slots
	 * that nobody will give back.  Not every slot held is theirs: another
	 * library's child handler, run before this one, may have started a
	 * thread whose start_thread has not yet copied its slot
	 * (ThreadSanitizer's runtime starts its background thread so).  Freed
	 * with the rest, that slot went to the program's next pthread_create,
	 * and two threads ran one start routine with one argument: TSan's
	 * thread-start handshake hung, or read a dead frame and aborted
	 * (t-fd-reuse under TSan, about 1 run in 40 under load). */
	pid_t me = (pid_t)syscall(SYS_getpid);
	uint64_t used = atomic_load(&start_used);
	for (uint64_t u = used; u; u &= u - 1) {
		int k = __builtin_ctzll(u);
		if (start_pool[k].taker != me)
			atomic_fetch_and(&start_used, ~((uint64_t)1 << k));
	}
}

static void set_stack_bounds(uintptr_t lo, uintptr_t hi)
{
	profil__tslot_stack_hi = 0; /* never a range half set */
	profil__tslot_stack_lo = lo;
	profil__tslot_stack_hi = lo < hi ? hi : 0;
}

/* The calling thread's stack bounds, for the handler's bounded walk
 * (sig/tslot.h), for the thread that loads the library (usually the main
 * one, whose stack glibc finds in /proc/self/maps, as far down as
 * RLIMIT_STACK lets it grow).  pthread_getattr_np may allocate: normal
 * context, a thread that is set up.  Unknown: 0, 0, and the handler then
 * records no stack where it has no room for a fault. */
static void stack_bounds_self(void)
{
	pthread_attr_t a;
	void *lo;
	size_t size;
	uintptr_t l = 0, h = 0;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		if (pthread_attr_getstack(&a, &lo, &size) == 0 && size) {
			l = (uintptr_t)lo;
			h = l + size;
		}
		pthread_attr_destroy(&a);
	}
	set_stack_bounds(l, h);
}

/* The creator's side of a created thread's bounds: its attr's stack (or
 * the default one's) size and guard, or the stack the program gave it.
 * The new thread may not allocate before its start routine runs (a
 * sanitizer's runtime sets the thread up only then: pthread_getattr_np's
 * malloc crashed under TSan), so it is measured here. */
static void stack_geometry(const pthread_attr_t *attr, struct start_arg *a)
{
	pthread_attr_t def;
	const pthread_attr_t *at = attr;
	a->stack_size = a->stack_guard = 0;
	a->stack_lo = 0;
	if (!at) {
		if (pthread_getattr_default_np(&def) != 0)
			return;
		at = &def;
	}
	void *addr = NULL;
	size_t size = 0, guard = 0, given = 0;
	/* Whether the program gave a stack: glibc's pthread_attr_getstack
	 * answers (NULL - size) when it did not, so addr + size wraps to 0. */
	bool user = pthread_attr_getstack(at, &addr, &given) == 0 && addr &&
		    (uintptr_t)addr + given != 0;
	if (pthread_attr_getstacksize(at, &size) == 0 &&
	    pthread_attr_getguardsize(at, &guard) == 0) {
		a->stack_size = size;
		a->stack_guard = user ? 0 : guard;
		if (user)
			a->stack_lo = (uintptr_t)addr;
	}
	if (at == &def)
		pthread_attr_destroy(&def);
}

/* In the new thread, from stack_geometry's figures, without allocating.
 * glibc keeps a thread's descriptor (pthread_self) at the top of its
 * stack's mapping, TLS just below, the stack below that: everything from
 * the thread's stack pointer up to pthread_self is mapped.  The stack's
 * lowest usable address is the mapping's start plus its guard, at least
 * hi - size + guard; a program-given stack is [stack_lo, stack_lo + size). */
static void stack_bounds_created(const struct start_arg *a)
{
	uintptr_t hi = (uintptr_t)pthread_self(), lo;
	if (a->stack_lo)
		lo = a->stack_lo;
	else if (a->stack_size > a->stack_guard && hi > a->stack_size)
		lo = hi - a->stack_size + a->stack_guard;
	else
		lo = hi; /* unknown: no bounded walk */
	char here;
	if ((uintptr_t)&here < lo || (uintptr_t)&here >= hi)
		lo = hi; /* not where we thought: better no stack than a guess */
	set_stack_bounds(lo, hi);
}

/* Runs in every thread we created, before the caller's start routine, and
 * in a thread adopted later (profil__thread_adopt: created_seq is then the
 * start in force, and a start that found it is that one or a later one). */
static void thread_begin(uint32_t created_seq, bool created_running, uintptr_t entry, bool adopted)
{
	sigset_t saved;
	if (!profil__lock(&saved))
		return; /* sealed: no slot, nothing armed, no system call */
	pid_t tid = profil__gettid();
	struct profil_thread *t = profil__tslot_find(tid);
	const struct profil_engine *e = profil__running_engine();
	if (t && t->kind == THREAD_FOREIGN &&
	    (t->seen_seq > created_seq || (adopted && t->seen_seq == created_seq))) {
		/* A start after our creation already found and armed us. */
		t->kind = THREAD_TRACKED;
		t->entry_pc = entry;
	} else {
		if (t) /* the slot of a dead thread that had our tid */
			drop_dead(t, e);
		t = alloc_slot(tid, THREAD_TRACKED, e);
		if (t)
			t->entry_pc = entry;
		if (t && e && e->attach) {
			t->start_origin = 0; /* born while profiling: all its CPU counts */
			bool inherited =
				created_running && created_seq == atomic_load(&profil__start_seq);
			int r = attach(e, t, inherited, ATTACH_RETRY);
			if (r < 0)
				count_loss(r);
		}
	}
	profil__unlock(&saved);
	profil__tslot_self = t;
	/* attach() took what `early` held; a slot made by an engine start
	 * found this thread later, and the start began its schedule then. */
	atomic_store(&profil__tslot_early, 0);
	/* Even without a slot: a thread that ended with a raw SYS_exit left
	 * its value in glibc's descriptor, which this thread may reuse. */
	if (key_ok)
		pthread_setspecific(exit_key, t);
}

static void thread_end(void *p)
{
	struct profil_thread *t = p;
	sigset_t saved;
	profil__tslot_self = NULL; /* a late signal must not credit a slot being freed */
	if (!profil__lock(&saved))
		return;                     /* sealed: its slot stays, nothing is disarmed */
	profil__record_thread_end();        /* the name it has now, not at its first sample */
	if (t->tid == profil__gettid()) {   /* not swept and reused meanwhile */
		profil__tslot_ended = true; /* nor count a tick its last payment already did */
		const struct profil_engine *e = profil__running_engine();
		if (e && e->attach)
			pay(t, NULL);
		release(t, e);
		span.ended++;
	}
	profil__unlock(&saved);
}

static void *start_thread(void *p)
{
	struct start_arg a = *(struct start_arg *)p;
	start_arg_put(p);
	stack_bounds_created(&a);
	thread_begin(a.seq, a.running, (uintptr_t)a.fn, false);
	profil__sig_program_mask(SIG_SETMASK, &a.mask, NULL);
	return a.fn(a.arg);
}

void profil__thread_adopt(uintptr_t entry)
{
	if (profil__tslot_self)
		return; /* registered already */
	/* Where its stack is, glibc's thread does not tell without
	 * allocating: no bounded walks (sig/tslot.h), full ones still. */
	set_stack_bounds(0, 0);
	uint32_t seq = atomic_load(&profil__start_seq);
	thread_begin(seq, profil__running_engine() != NULL, entry, true);
}

/* The body of pthread_create; pthread-create.c holds the entry points
 * and finds `real`, libc's function. */
int profil__thread_create(profil__create_fn *real, pthread_t *thr, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
	/* Sealed: libc's call alone, the new thread untouched.  (A filter
	 * installed without libc is looked for by the new thread, which has
	 * it too, before it arms anything: thread_begin.) */
	if (profil__sealed())
		return real(thr, attr, fn, arg);
	/* Normal context the library sees while the program runs: unwind
	 * the module set for code dlopen()ed since it was made (unwind-build.h;
	 * it looks for a filter before it rebuilds). */
	profil__unwind_refresh_if_stale();
	struct start_arg *a = start_arg_get();
	if (!a)
		return real(thr, attr, fn, arg); /* untracked; found as foreign */
	a->fn = fn;
	a->arg = arg;
	stack_geometry(attr, a);

	/* Creation excludes engine start/stop (see the top of this file).
	 * While this thread holds `creating`, a signal handler running here
	 * that starts or stops profiling (pcsample is async-signal-safe) would
	 * wait for it forever, so asynchronous signals stay blocked until the
	 * real pthread_create returned; the new thread starts with them
	 * blocked too and restores the caller's mask in start_thread. */
	profil__block_async(&a->mask);
	for (;;) {
		atomic_fetch_add(&creating, 1);
		if (!atomic_load(&changing))
			break;
		atomic_fetch_sub(&creating, 1);
		while (atomic_load(&changing))
			sched_yield();
	}
	a->seq = atomic_load(&profil__start_seq);
	a->running = profil__running_engine() != NULL;
	sigset_t mask = a->mask;         /* a belongs to the new thread once it runs */
	profil__sig_view_mask(&a->mask); /* the creator's mask as the program set it */
	int rc = real(thr, attr, start_thread, a);
	atomic_fetch_sub(&creating, 1);
	profil__real_sigmask(SIG_SETMASK, &mask, NULL);
	if (rc)
		start_arg_put(a);
	return rc;
}

#ifdef PROFIL_STATIC_ARCHIVE
/* Defined only when the program was linked with --wrap=pthread_create and
 * pulled pthread-create.o in (see that file): a weak reference does not
 * pull it. */
extern profil__create_fn __wrap_pthread_create __attribute__((weak));

bool profil__threads_creation_seen(void)
{
	return __wrap_pthread_create != NULL;
}
#else
bool profil__threads_creation_seen(void)
{
	return true;
}
#endif

void profil__threads_init(void)
{
	key_ok = pthread_key_create(&exit_key, thread_end) == 0;
	stack_bounds_self(); /* the thread that loads us: usually the main one */
	profil__handler_init();
}
