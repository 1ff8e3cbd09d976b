/*
 * session.c - the control path: which configuration is installed, which
 * engine runs it, and which signal dispositions we own.
 *
 * Locking.  One control lock (ctl) serialises every change.  It is taken
 * only after blocking every asynchronous signal in the calling thread
 * (profil__lock), so no signal handler can run in the thread that holds it:
 * pcsample() may be called from a signal handler, and our own profiling
 * handler never takes it.  Order: ctl, then the thread-creation handshake of
 * threads.c (taken inside ctl by engine start/stop; pthread_create never
 * waits for ctl in the creating thread).  The handler takes no lock besides
 * the misaligned-counter spin lock, which nothing else takes.
 *
 * Publication protocol (what makes "the old buffer is never written after
 * the call returns" true):
 *   1. build the new configuration completely (config.c);
 *   2. start the engine if needed, with our handler installed first;
 *   3. swap profil__cur atomically;
 *   4. wait until profil__inflight is 0: every handler that may have loaded
 *      the old pointer incremented it before loading, so once it was seen at
 *      0 after the swap none of them is still running;
 *   5. stop the engine if nothing needs it, restore dispositions, free the
 *      old configuration.
 *
 * Signals (sigown.c).  The sampling signal is one the program does not use
 * (the highest free real-time signal) unless PROFIL_SIGNAL names one.  While
 * we hold a signal, the disposition in place and every later one the
 * program sets through libc become the program's action, to which
 * deliveries that are not ours (kill, the program's own timers) are passed.
 * On stop the program's action goes back, after a moment at SIG_IGN, which
 * discards any of our signals still pending in any thread: otherwise a late
 * sample could hit a restored SIG_DFL and kill the program.  The control
 * lock is taken before sigown.c's lock, never after.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>

#include "../include/profil_ext.h"
#include "config.h"
#include "rawfile.h"
#include "record.h"
#include "session.h"
#include "threads.h"
#include "sig/accept.h"
#include "sig/filters.h"
#include "sig/sigown.h"

/* Preference order.  Which of the first two leads depends on the rate (see
 * order_for); manual is only ever chosen by name. */
static const struct profil_engine *const engines[] = {
	&profil__engine_thread_timer,
	&profil__engine_perf,
	&profil__engine_process_timer,
	&profil__engine_manual,
};
#define NENGINES (sizeof engines / sizeof engines[0])
_Static_assert(NENGINES <= PROFIL_ACCEPT_MAX, "every classifier fits sig/accept.c's table");

/* The handler asks every engine, not only the running one, whether a
 * delivery is ours, so that late signals of a stopped run are still
 * recognised: their classifiers are published to its table (sig/accept.h),
 * in preference order, before it is first installed for a sampling
 * signal. */
static void publish_classifiers(void)
{
	for (size_t i = 0; i < NENGINES; i++)
		profil__accept_add(engines[i]->classify);
}

/* Errors after which the next engine is tried (libuv's explicit-list
 * style): permission, missing kernel support, resource limits. */
static bool fallback_error(int r)
{
	switch (-r) {
	case EACCES:
	case EPERM:
	case ENOSYS:
	case ENOENT:
	case ENODEV:
	case EMFILE:
	case ENFILE:
	case EAGAIN:
	case EOPNOTSUPP:
	case EINVAL:
	case E2BIG:
	case EBUSY:
	case ENOMEM:
		return true;
	}
	return false;
}

struct profil_env profil__env;
uint64_t profil__pcs_last_count;

static struct {
	struct profil_cfg *cfg;           /* installed, owned */
	const struct profil_engine *last; /* last that ran */
	/* By name, or NULL: PROFIL_ENGINE or profil_set_engine, for the
	 * program's own profiling; and for a recording, what pcprof run was
	 * asked for (PCPROF_ENGINE), which a PROFIL_ENGINE the program set
	 * for its children does not change. */
	const struct profil_engine *forced, *rec_forced;
	struct profil_run run; /* of the running engine */
	int sig;               /* handled for the engine */
	int last_sig;          /* the last run's */
	bool guard;            /* SIGSEGV/SIGBUS hook in */
	_Atomic int policy;
	_Atomic unsigned int base_hz;
	char why[256];
	char moved[96];                /* the last move of the sampling signal */
	struct profil_cfg *exec_saved; /* stopped for an exec */
	sigset_t fork_mask;
	/* The program's calls that install a seccomp filter under way
	 * (seccomp.c), whether one of them did, and what profiling was on
	 * before the first, for when none did. */
	_Atomic int installing;
	_Atomic bool filter_in;
	struct profil_cfg *seal_saved;
} S = {
	/* Usable before our constructor runs (another library's constructor
	 * may call profil first): USER_HZ, saturate. */
	.base_hz = 100,
	.policy = PROFIL_OVF_SATURATE,
};

/* ---- small queries ---- */

int profil__policy(void)
{
	return atomic_load(&S.policy);
}

unsigned int profil__base_hz(void)
{
	return atomic_load(&S.base_hz);
}

unsigned int profil__kernel_hz(void)
{
	/* The coarse clocks advance once per tick, so their resolution is the
	 * tick length: 4 ms with CONFIG_HZ=250.  (sysconf(_SC_CLK_TCK) is
	 * USER_HZ, always 100 on x86-64, and says nothing about the tick.) */
	static unsigned int hz;
	if (!hz) {
		struct timespec res;
		if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0 && res.tv_sec == 0 &&
		    res.tv_nsec > 0)
			hz = (unsigned int)((1000000000L + res.tv_nsec / 2) / res.tv_nsec);
	}
	return hz;
}

/* ---- signals ---- */

static int set_guard(bool on)
{
	if (on == S.guard)
		return 0;
	if (on) {
		int r = profil__sig_take(SIGSEGV, profil__on_fault);
		if (r == 0 && (r = profil__sig_take(SIGBUS, profil__on_fault)) < 0)
			profil__sig_release(SIGSEGV, false);
		if (r < 0)
			return r;
		profil__walks_open();
	} else {
		profil__walks_close();
		profil__sig_release(SIGBUS, false);
		profil__sig_release(SIGSEGV, false);
	}
	S.guard = on;
	return 0;
}

/* ---- engines ---- */

static void why_add(const char *name, const char *text)
{
	if (S.why[0])
		profil__strlcat(S.why, sizeof S.why, "; ");
	profil__strlcat(S.why, sizeof S.why, name);
	profil__strlcat(S.why, sizeof S.why, ": ");
	profil__strlcat(S.why, sizeof S.why, text);
}

/* Per-thread CPU timers cannot fire more often than the kernel tick, so a
 * rate above it puts perf first; otherwise the cheaper, permission-free
 * thread timer leads.  Perf's price is not only per sample: every context
 * switch of a sampled thread stops and restarts its event's timer, which
 * at rates above the tick is nearly always the CPU's next one, so the
 * hardware timer is reprogrammed twice per switch (docs/engines.md). */
static bool want_subtick(const struct profil_run *run, unsigned int khz)
{
	return khz && run->hz > khz;
}

/* Append "SIGRTMAX", "SIGRTMAX-2", "SIGPROF"...: the names PROFIL_SIGNAL
 * accepts. */
static void signal_name(char *buf, size_t len, int sig)
{
	const char *abbrev = sig < SIGRTMIN ? sigabbrev_np(sig) : NULL;
	profil__strlcat(buf, len, "SIG");
	if (abbrev) {
		profil__strlcat(buf, len, abbrev);
		return;
	}
	profil__strlcat(buf, len, "RTMAX");
	if (sig < SIGRTMAX) {
		profil__strlcat(buf, len, "-");
		profil__strlcat_u(buf, len, (unsigned long)(SIGRTMAX - sig));
	}
}

/*
 * The engines tried for run, in order, when the kernel tick is khz Hz: list
 * order, except that above the tick the engines that can deliver the rate
 * come first (two passes keep list order within each group).  Engines
 * marked by_name are left out.  The process timer is one: its signal is
 * process-directed, and the kernel gives it to any thread that does not
 * block it when the thread that ran blocks it (glibc's SIGEV_THREAD threads
 * block every signal; before Linux 6.4, to any thread at all), so it
 * interrupts threads asleep in nanosleep, poll or a futex wait, whose calls
 * then fail with EINTR: a SIGEV_THREAD timer program's usleep returned
 * early 133 times in 200 (issue 19).  The per-thread engines signal a
 * thread only for its own CPU time, on its way back to user mode.
 */
size_t profil__engine_order(const struct profil_run *run, unsigned int khz,
			    const struct profil_engine **out)
{
	size_t n = 0;
	bool sub = want_subtick(run, khz);
	for (int pass = sub ? 0 : 1; pass < 2; pass++)
		for (size_t i = 0; i < NENGINES; i++)
			if (!engines[i]->by_name &&
			    (pass == 1 ? !(sub && engines[i]->subtick) : engines[i]->subtick))
				out[n++] = engines[i];
	return n;
}

static size_t order_for(const struct profil_run *run, const struct profil_engine **out)
{
	if (run->forced) {
		out[0] = run->forced;
		return 1;
	}
	return profil__engine_order(run, profil__kernel_hz(), out);
}

static void reset_counters(void)
{
	atomic_store(&profil__ctr.signals, 0);
	atomic_store(&profil__ctr.ticks, 0);
	atomic_store(&profil__ctr.counted, 0);
	atomic_store(&profil__ctr.outside, 0);
	atomic_store(&profil__ctr.lost, 0);
	atomic_store(&profil__ctr.owed, 0);
	atomic_store(&profil__ctr.unsampled, 0);
}

/* whole: every thread must be covered (see profil__threads_attach_all). */
static int try_engine(const struct profil_engine *e, const struct profil_run *run, bool whole)
{
	int sig = e->signal(run), r = 0;
	publish_classifiers();
	if (sig && (r = profil__sig_take(sig, profil__on_signal)) < 0)
		return r;
	if (sig)
		profil__sig_reserve(sig, profil__lock_saved());
	profil__threads_block_creation();
	if (profil__sealed()) { /* found waiting: a creator died in its clone */
		profil__threads_unblock_creation();
		return -EAGAIN;
	}
	uint32_t seq = atomic_fetch_add(&profil__start_seq, 1) + 1;
	profil__threads_set_period(1000000000u / run->hz);
	profil__threads_user_time(e->user_only && e->user_only());
	profil__threads_reset_counts();
	r = e->start(run);
	if (r == 0 && e->attach && (r = profil__threads_attach_all(e, seq, whole)) < 0) {
		profil__threads_detach_all(e);
		e->stop();
	}
	if (r == 0)
		profil__set_running_engine(e);
	profil__threads_unblock_creation();
	if (r < 0) {
		if (sig)
			profil__sig_release(sig, true);
		return r;
	}
	S.sig = sig;
	S.last_sig = sig;
	S.run = *run;
	return 0;
}

static bool limit_refusal(int r)
{
	return r == -EMFILE || r == -ENFILE || r == -EAGAIN || r == -ENOMEM;
}

static void why_chosen(const struct profil_engine *e, const struct profil_run *run, bool partial)
{
	char text[200] = "chosen";
	if (run->forced) {
		profil__strlcat(text, sizeof text, " by name");
	} else {
		unsigned int khz = profil__kernel_hz();
		profil__strlcat(text, sizeof text, ", ");
		profil__strlcat_u(text, sizeof text, run->hz);
		profil__strlcat(text, sizeof text,
				want_subtick(run, khz) ? " Hz is above the "
						       : " Hz is within the ");
		profil__strlcat_u(text, sizeof text, khz);
		profil__strlcat(text, sizeof text, " Hz kernel tick");
		if (partial)
			profil__strlcat(text, sizeof text, ", though not for every thread");
	}
	if (e->variant) {
		profil__strlcat(text, sizeof text, " (");
		profil__strlcat(text, sizeof text, e->variant());
		profil__strlcat(text, sizeof text, ")");
	}
	if (S.sig) {
		profil__strlcat(text, sizeof text, ", signal ");
		signal_name(text, sizeof text, S.sig);
	}
	why_add(e->name, text);
	S.last = e;
}

static int start_engine(const struct profil_run *run)
{
	const struct profil_engine *order[NENGINES];
	size_t n = order_for(run, order);
	bool short_of[NENGINES] = { false };
	int err = -ENOSYS;

	S.why[0] = '\0';
	reset_counters();
	for (size_t i = 0; i < n; i++) {
		const struct profil_engine *e = order[i];
		char reason[128] = "";
		int r = e->probe(run, reason, sizeof reason);
		/* First every engine must cover every thread; an engine named
		 * alone leaves those beyond a resource limit's reserve
		 * unsampled (and counted). */
		if (r == 0 && (r = try_engine(e, run, n > 1)) < 0) {
			short_of[i] = limit_refusal(r);
			if (!reason[0]) {
				profil__strlcat(reason, sizeof reason, "start failed: ");
				profil__strlcat(reason, sizeof reason, profil__errname(-r));
			}
		}
		if (r == 0) {
			why_chosen(e, run, false);
			for (size_t j = i + 1; j < n; j++)
				why_add(order[j]->name, "not tried");
			return 0;
		}
		why_add(e->name, reason);
		err = r;
		if (!fallback_error(r))
			return err;
	}
	/* None covers every thread within the limits: the first that was
	 * refused only for lack of resources samples the threads it can. */
	for (size_t i = 0; i < n; i++)
		if (short_of[i] && try_engine(order[i], run, false) == 0) {
			why_chosen(order[i], run, true);
			return 0;
		}
	return err;
}

static void stop_engine(void)
{
	const struct profil_engine *e = profil__running_engine();
	if (!e)
		return;
	profil__threads_block_creation();
	profil__set_running_engine(NULL);
	if (profil__sealed()) { /* as in try_engine: nothing more */
		profil__threads_unblock_creation();
		return;
	}
	if (e->attach)
		profil__threads_detach_all(e);
	e->stop();
	profil__threads_unblock_creation();
	/* An engine whose signals can outlive it keeps our handler in place
	 * for good: it drops our late signals and passes every other
	 * delivery to the saved disposition, as if it were still there. */
	if (S.sig && !(e->lingers && e->lingers()))
		profil__sig_release(S.sig, true);
	S.sig = 0;
}

/* ---- the program claims the sampling signal ---- */

/*
 * The program wants the sampling signal (or the spare) for itself: it gave
 * it a handler, blocked it by name, or waits for it (siginterpose.c).
 * Holding it would break the program: its own sends would meet a signal
 * that is never really blocked, at its SIG_DFL.  So the library moves to
 * the spare and gives this one back, with the program's signal calls
 * still ahead of this call (the caller then does what the program asked,
 * on a signal no longer held or reserved):
 *   1. the spare is held with our handler (it is reserved already, so no
 *      thread that blocked everything since blocks it in the kernel);
 *   2. every timer or event is re-aimed at it (threads' timers in place,
 *      each keeping its phase; perf's F_SETSIG), with thread creation
 *      held off;
 *   3. the old signal is no longer reserved: the caller's real mask takes
 *      its view at unlock, and every other thread is sent a fix-up on the
 *      new signal, handled before any later signal the program sends (a
 *      thread-directed signal is dequeued before a process-wide one), so
 *      a thread whose view blocks it blocks it in the kernel before the
 *      program's own can reach it;
 *   4. the old signal's action goes back to the kernel after a moment at
 *      SIG_IGN, which drops any tick of ours still pending (the schedules
 *      of threads.c pay it as owed); ticks delivered before that were
 *      ours to classify.
 * No spare (the program claimed every real-time signal it left alone):
 * threads are detached and their CPU time counted as unsampled, and the
 * program keeps its signal.  perf's sigtrap variant samples with SIGTRAP
 * and moves nothing but the choice.
 */
void profil__sig_give_back(int sig)
{
	if (profil__env.signo)
		return; /* PROFIL_SIGNAL: the user's choice stays */
	sigset_t saved;
	if (!profil__lock(&saved))
		return; /* sealed: the signal stays held, the program's action kept */
	if (!(profil__sig_movable() & PROFIL_SIGBIT(sig))) {
		profil__unlock(&saved); /* another thread moved it already */
		return;
	}
	int to = profil__sig_move(sig, profil__lock_saved());
	const struct profil_engine *e = profil__running_engine();
	bool handled = e && S.sig == sig;
	if (e && S.run.signo == sig)
		S.run.signo = to;
	if (handled && to && profil__sig_take(to, profil__on_signal) < 0)
		to = 0;
	if (handled) {
		profil__threads_block_creation();
		if (profil__sealed()) {
			profil__threads_unblock_creation();
			profil__unlock(&saved);
			return;
		}
		if (e->resignal && e->resignal(NULL, to) < 0 && to) {
			profil__sig_release(to, false);
			to = 0;
			e->resignal(NULL, 0);
		}
		profil__threads_resignal(e, to);
		if (!to)
			e->stop();
		profil__threads_unblock_creation();
		S.sig = to;
		if (to)
			S.last_sig = to;
	}
	profil__sig_unreserve(sig, profil__lock_saved());
	/* The fix-ups go on a signal our handler has: the new one, or
	 * SIGTRAP for perf's sigtrap variant. */
	if (e && S.sig)
		profil__threads_fixup(S.sig);
	if (handled)
		profil__sig_release(sig, true);
	/* The last move, for profil_stats() (replaced by the next one). */
	S.moved[0] = '\0';
	profil__strlcat(S.moved, sizeof S.moved, "; signal: ");
	signal_name(S.moved, sizeof S.moved, sig);
	profil__strlcat(S.moved, sizeof S.moved, " claimed by the program, now ");
	if (to)
		signal_name(S.moved, sizeof S.moved, to);
	else
		profil__strlcat(S.moved, sizeof S.moved, "no free real-time signal");
	if (!to && handled)
		profil__strlcat(S.moved, sizeof S.moved, ": not sampled from then on");
	profil__unlock(&saved);
}

/* ---- install ---- */

static void quiesce(void)
{
	while (atomic_load(&profil__inflight))
		sched_yield();
}

static bool same_run(const struct profil_run *a, const struct profil_run *b)
{
	return a->hz == b->hz && a->distinct == b->distinct && a->signo == b->signo &&
	       a->forced == b->forced;
}

/* The program's own choice for its own profiling; a recording alone runs
 * on what pcprof run asked for. */
static const struct profil_engine *forced_for(const struct profil_cfg *cfg)
{
	if (!atomic_load(&profil__rec) || (cfg && S.forced))
		return S.forced;
	return S.rec_forced;
}

static void make_run(const struct profil_cfg *cfg, struct profil_run *run)
{
	memset(run, 0, sizeof *run);
	run->forced = forced_for(cfg);
	run->hz = cfg ? cfg->hz : profil__record_hz();
	if (!run->hz)
		run->hz = profil__base_hz();
	run->signo =
		profil__env.signo ? profil__env.signo : profil__sig_choose(profil__lock_saved());
	run->distinct = cfg && cfg->kind == PROFIL_PCSAMPLE;
	memcpy(run->perf_mode, profil__env.perf_mode, sizeof run->perf_mode);
}

static uint64_t pcs_count(const struct profil_cfg *c)
{
	uint64_t n = atomic_load(&c->next), f = atomic_load(&c->fault_at);
	if (n > c->cap)
		n = c->cap;
	return n < f ? n : f;
}

static int install_locked(struct profil_cfg *cfg, int call)
{
	struct profil_cfg *old = S.cfg;
	bool need = cfg || atomic_load(&profil__rec);
	const struct profil_engine *running = profil__running_engine();
	int r;

	if (need) {
		struct profil_run run;
		make_run(cfg, &run);
		if (!running || !same_run(&run, &S.run)) {
			struct profil_run prev = S.run;
			if (running) {
				profil__threads_pay_owed(NULL); /* still the old run's */
				stop_engine();
			}
			/* The program's manual engine samples nothing: a
			 * recording pcprof run did not ask that of stops here,
			 * saying so, and takes none of the injected ticks. */
			if (run.forced == &profil__engine_manual && atomic_load(&profil__rec) &&
			    S.rec_forced != &profil__engine_manual)
				profil__record_stop(PCPROF_STOP_MANUAL);
			if ((r = start_engine(&run)) < 0) {
				if (running)
					start_engine(&prev);
				return r;
			}
		}
	}
	/* The guard is held whenever anything samples: a profil() buffer's
	 * counters may be unmapped under the handler, and a recording's stack
	 * walk follows frame pointers and return addresses wherever they
	 * point (a program's own odd rbp killed it with SIGSEGV before the
	 * recorder held the guard too).  A recording without the guard keeps
	 * flat samples (sig/handler.c); a profil() call fails. */
	if (need && (r = set_guard(true)) < 0 && cfg) {
		if (!running)
			stop_engine();
		return r;
	}

	atomic_store(&profil__cur, cfg);
	S.cfg = cfg;
	quiesce();
	/* The retired configuration gets the ticks its threads were owed;
	 * handlers no longer see it, so nothing else writes its buffers. */
	if (old && !atomic_load(&old->stopped))
		profil__threads_pay_owed(old);

	if (!need) {
		stop_engine();
		set_guard(false);
	}
	if (old && old->kind == PROFIL_PCSAMPLE)
		profil__pcs_last_count = pcs_count(old);
	if (call == PROFIL_CALL_OTHER)
		profil__pcs_last_count = 0;
	if (old)
		profil__cfg_free(old);
	atomic_store(&profil__stop_pending, false);
	return 0;
}

/* A configuration that stopped itself in the handler is torn down at the
 * next control call (the handler cannot delete timers or restore
 * dispositions). */
static void settle(void)
{
	if (S.cfg && atomic_load(&S.cfg->stopped))
		install_locked(NULL, PROFIL_CALL_SETTLE);
}

int profil__install_locked(struct profil_cfg *cfg, int call)
{
	settle();
	return install_locked(cfg, call);
}

int profil__install(struct profil_cfg *cfg, int call)
{
	sigset_t saved;
	if (!profil__lock_thorough(&saved))
		return cfg ? -EAGAIN : 0; /* sealed: off it is */
	int r = profil__install_locked(cfg, call);
	profil__unlock(&saved);
	return r;
}

struct profil_cfg *profil__current_locked(void)
{
	settle();
	return S.cfg;
}

/* The recorder started: start the engine it needs (as if the
 * configuration had changed). */
static int record_changed(void)
{
	sigset_t saved;
	if (!profil__lock_thorough(&saved))
		return -EAGAIN;
	settle();
	int r = 0;
	bool need = S.cfg || atomic_load(&profil__rec);
	if (need != (profil__running_engine() != NULL))
		r = install_locked(S.cfg, PROFIL_CALL_SETTLE);
	profil__unlock(&saved);
	return r;
}

/* ---- exec (exec.c) ---- */

void profil__exec_prepare(void)
{
	sigset_t saved;
	S.exec_saved = NULL;
	if (!profil__lock_thorough(&saved))
		return; /* sealed: nothing runs, nothing to stop */
	settle();
	struct profil_cfg *cfg = S.cfg;
	atomic_store(&profil__cur, NULL);
	S.cfg = NULL;
	quiesce();
	/* Into the stopped configuration and the recorder; without a
	 * configuration profil__cur is already NULL, so only the recorder. */
	profil__threads_pay_owed(cfg);
	stop_engine();
	set_guard(false);
	/* The new image's main thread counts its ticks from here. */
	profil__record_exec(profil__clock_ns(CLOCK_THREAD_CPUTIME_ID));
	S.exec_saved = cfg;
	profil__unlock(&saved);
}

void profil__exec_failed(void)
{
	sigset_t saved;
	if (!profil__lock(&saved))
		return; /* sealed since (a configuration kept aside stays so) */
	struct profil_cfg *cfg = S.exec_saved;
	S.exec_saved = NULL;
	profil__record_exec_failed();
	if (cfg && install_locked(cfg, PROFIL_CALL_SETTLE) < 0)
		profil__cfg_free(cfg);
	else if (!cfg)
		install_locked(NULL, PROFIL_CALL_SETTLE);
	profil__unlock(&saved);
}

/* ---- seccomp filters (seccomp.c) ---- */

/*
 * The program is about to install a seccomp filter: the last moment the
 * library may make its calls.  Profiling stops as at an exec (the owed
 * ticks paid, the engine and the guard gone, the program's dispositions
 * back), the recording says where, at this CPU time, and the library is
 * sealed before the lock is given back: a thread waiting for it finds it
 * sealed and does nothing.  Called once per such call of the program,
 * each matched by profil__seal_end.
 */
void profil__seal_begin(void)
{
	atomic_fetch_add(&S.installing, 1);
	sigset_t saved;
	if (!profil__lock(&saved))
		return; /* sealed already */
	settle();
	struct profil_cfg *cfg = S.cfg;
	atomic_store(&profil__cur, NULL);
	S.cfg = NULL;
	quiesce();
	if (profil__running_engine())
		profil__threads_pay_owed(cfg);
	stop_engine();
	set_guard(false);
	profil__record_stop(PCPROF_STOP_SECCOMP);
	S.seal_saved = cfg;
	profil__seal(PROFIL_SEALED_CALL);
	profil__unlock(&saved);
}

/* The call returned; installed: a filter is in force.  When the last call
 * under way is over and none installed one (a bad program, no
 * no_new_privs, libseccomp probing flags with a NULL filter, a thread
 * that could not be synchronised), profiling goes on as it was. */
void profil__seal_end(bool installed)
{
	if (installed)
		atomic_store(&S.filter_in, true);
	if (atomic_fetch_sub(&S.installing, 1) != 1 || atomic_load(&S.filter_in) ||
	    atomic_load(&profil__sealed_why) != PROFIL_SEALED_CALL)
		return;
	int why = PROFIL_SEALED_CALL;
	if (!atomic_compare_exchange_strong(&profil__sealed_why, &why, PROFIL_SEALED_NO))
		return;
	sigset_t saved;
	if (!profil__lock(&saved))
		return;
	struct profil_cfg *cfg = S.seal_saved;
	S.seal_saved = NULL;
	profil__record_unstop();
	if (install_locked(cfg, PROFIL_CALL_SETTLE) < 0)
		profil__cfg_free(cfg);
	profil__unlock(&saved);
}

/* ---- fork ---- */

/* Sealed, fork takes nothing: the child, under the same filter, neither
 * samples nor records, and must not write the parent's recording.  Whether
 * prepare took the lock is the forking thread's to know (another thread
 * may be forking too, and be refused). */
static __thread bool fork_locked __attribute__((tls_model("initial-exec")));

static void fork_prepare(void)
{
	fork_locked = profil__lock_thorough(&S.fork_mask);
	if (fork_locked) {
		profil__threads_fork_prepare();
		profil__sig_fork_prepare();
	}
}

static void fork_parent(void)
{
	if (!fork_locked)
		return;
	profil__sig_fork_parent();
	profil__unlock(&S.fork_mask);
}

/* Profiling continues in the child (every seed system does this; glibc does
 * not).  The child has one thread, inherited dispositions and memory (so it
 * counts into its own copy-on-write buffers), but none of the parent's
 * timers; perf fds it inherited belong to the parent's events. */
static void fork_child(void)
{
	profil__self_tid_forget();
	if (!fork_locked) {
		profil__record_fork_child_sealed();
		return;
	}
	profil__sig_fork_child();
	profil__random_seed(); /* the child's phases must not repeat the parent's */
	profil__lock_fork_child();
	atomic_store(&profil__inflight, 0);
	profil__walks_fork_child();
	profil__threads_fork_child();
	profil__record_fork_child();
	const struct profil_engine *e = profil__running_engine();
	if (e) {
		e->fork_child();
		profil__set_running_engine(NULL);
		struct profil_run run = S.run;
		if (!S.cfg && !atomic_load(&profil__rec)) {
			/* Only a recorder that does not follow children needed it. */
			if (S.sig)
				profil__sig_release(S.sig, true);
			S.sig = 0;
			set_guard(false);
		} else if (try_engine(e, &run, false) < 0 && start_engine(&run) < 0) {
			/* The parent's engine first; if it cannot run here, the
			 * usual order; if nothing can, the state is off, and the
			 * recording (the parent's engine and reasons, copied)
			 * says none runs, and why. */
			atomic_store(&profil__cur, NULL);
			S.cfg = NULL;
			profil__record_note_engine("", S.why, false);
		}
	}
	profil__unlock(&S.fork_mask);
}

/* ---- public extensions ---- */

static const struct profil_engine *engine_by_name(const char *name)
{
	for (size_t i = 0; i < NENGINES; i++)
		if (strcmp(engines[i]->name, name) == 0)
			return engines[i];
	return NULL;
}

PROFIL_API int profil_set_engine(const char *name)
{
	const struct profil_engine *e = NULL;
	if (name && strcmp(name, "auto") != 0 && !(e = engine_by_name(name)))
		return profil__ret(-EINVAL);
	sigset_t saved;
	bool locked = profil__lock(&saved);
	S.forced = e; /* sealed: a choice for nothing */
	if (locked)
		profil__unlock(&saved);
	return 0;
}

PROFIL_API const char *profil_engine_name(void)
{
	const struct profil_engine *e = profil__running_engine();
	if (!e)
		e = S.last;
	return e ? e->name : NULL;
}

PROFIL_API int profil_state(void)
{
	struct profil_cfg *c = atomic_load(&profil__cur);
	/* Sealed, a configuration may still be published (a filter found in
	 * force: nothing was torn down), but nothing counts into it. */
	if (!c || atomic_load(&c->stopped) || profil__sealed())
		return PROFIL_OFF;
	return c->kind;
}

PROFIL_API unsigned int profil_hz(void)
{
	return profil__base_hz();
}

PROFIL_API int profil_set_hz(unsigned int hz)
{
	if (hz < 1 || hz > 10000)
		return profil__ret(-EINVAL);
	return (int)atomic_exchange(&S.base_hz, hz);
}

PROFIL_API int profil_overflow_policy(int policy)
{
	if (policy == PROFIL_OVF_QUERY)
		return atomic_load(&S.policy);
	if (policy != PROFIL_OVF_SATURATE && policy != PROFIL_OVF_WRAP && policy != PROFIL_OVF_STOP)
		return profil__ret(-EINVAL);
	return atomic_exchange(&S.policy, policy);
}

/* Fields come out of `reserved`: the size is the ABI. */
_Static_assert(sizeof(struct profil_stats) == 408, "struct profil_stats changed size");

PROFIL_API int profil_stats(struct profil_stats *st)
{
	if (!st)
		return profil__ret(-EFAULT);
	memset(st, 0, sizeof *st);
	/* Sealed, nothing changes any more: read without the lock. */
	sigset_t saved;
	bool locked = profil__lock(&saved);
	const struct profil_engine *e = profil__running_engine();
	st->hz = e ? S.run.hz : 0;
	st->base_hz = profil__base_hz();
	st->signals = atomic_load(&profil__ctr.signals);
	st->ticks = atomic_load(&profil__ctr.ticks);
	st->counted = atomic_load(&profil__ctr.counted);
	st->outside = atomic_load(&profil__ctr.outside);
	st->lost = atomic_load(&profil__ctr.lost);
	st->owed = atomic_load(&profil__ctr.owed);
	st->unsampled = atomic_load(&profil__ctr.unsampled);
	st->signo = S.last_sig;
	st->threads = profil__thread_attaches;
	st->thread_errors = profil__threads_unsampled();
	const struct profil_engine *shown = e ? e : S.last;
	if (shown)
		profil__strlcat(st->engine, sizeof st->engine, shown->name);
	profil__strlcat(st->why, sizeof st->why, S.why);
	profil__strlcat(st->why, sizeof st->why, S.moved);
	profil__threads_loss_text(st->why, sizeof st->why);
	if (!profil__threads_creation_seen())
		profil__strlcat(st->why, sizeof st->why,
				"; pthread_create not wrapped (static link without its flags)");
	if (profil__env.bad[0]) {
		profil__strlcat(st->why, sizeof st->why, "; ignored invalid ");
		profil__strlcat(st->why, sizeof st->why, profil__env.bad);
	}
	if (profil__sealed()) {
		profil__strlcat(st->why, sizeof st->why, "; stopped for good: ");
		profil__strlcat(st->why, sizeof st->why, profil__sealed_text());
	}
	if (locked)
		profil__unlock(&saved);
	return 0;
}

static int inject(uintptr_t pc, const uintptr_t *stack, int depth, unsigned long ticks)
{
	if (profil__sealed())
		return -1; /* no system call of ours: nothing counts any more */
	/* Block signals so that a handler calling pcsample() cannot wait for
	 * this very thread to leave the accounting path. */
	sigset_t saved;
	profil__block_async(&saved);
	bool active = profil__sample(pc, stack, depth, ticks, PROFIL_FROM_INJECT);
	profil__real_sigmask(SIG_SETMASK, &saved, NULL);
	return active ? 0 : -1;
}

PROFIL_API int __profil_inject(uintptr_t pc, unsigned long ticks)
{
	return inject(pc, NULL, 0, ticks);
}

PROFIL_API int __profil_inject_stack(const uintptr_t *pcs, int n, unsigned ticks)
{
	if (!pcs || n < 1) {
		errno = EINVAL;
		return -1;
	}
	return inject(pcs[0], pcs, n, ticks);
}

PROFIL_API int __profil_inject_time(long long ns)
{
	atomic_store(&profil__record_test_ns, ns < 0 ? 0 : (uint64_t)ns + 1);
	return atomic_load(&profil__rec) && atomic_load(&profil__rec)->tl_bucket ? 0 : -1;
}

/* ---- initialisation ---- */

/* What the kernel had not signalled when the program exits (the rounding
 * of every thread's last period) is paid like at any other stop. */
static void pay_at_exit(void)
{
	sigset_t saved;
	if (!profil__lock_thorough(&saved))
		return;
	if (profil__running_engine())
		profil__threads_pay_owed(NULL);
	profil__unlock(&saved);
}

static void env_bad(const char *name)
{
	if (profil__env.bad[0])
		profil__strlcat(profil__env.bad, sizeof profil__env.bad, ", ");
	profil__strlcat(profil__env.bad, sizeof profil__env.bad, name);
}

static int parse_signal(const char *s)
{
	unsigned long v;
	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	if (strcmp(s, "PROF") == 0)
		return SIGPROF;
	if (strcmp(s, "VTALRM") == 0)
		return SIGVTALRM;
	if (strcmp(s, "USR1") == 0)
		return SIGUSR1;
	if (strcmp(s, "USR2") == 0)
		return SIGUSR2;
	if (strncmp(s, "RTMIN+", 6) == 0 && profil__parse_uint(s + 6, 64, &v) == 0 &&
	    SIGRTMIN + (int)v <= SIGRTMAX)
		return SIGRTMIN + (int)v;
	if (strcmp(s, "RTMIN") == 0)
		return SIGRTMIN;
	if (strncmp(s, "RTMAX-", 6) == 0 && profil__parse_uint(s + 6, 64, &v) == 0 &&
	    SIGRTMAX - (int)v >= SIGRTMIN)
		return SIGRTMAX - (int)v;
	if (strcmp(s, "RTMAX") == 0)
		return SIGRTMAX;
	if (profil__parse_uint(s, 64, &v) == 0 &&
	    (v == SIGPROF || v == SIGVTALRM || v == SIGUSR1 || v == SIGUSR2 ||
	     ((int)v >= SIGRTMIN && (int)v <= SIGRTMAX)))
		return (int)v;
	return 0;
}

static void read_env(void)
{
	const char *s;
	unsigned long v;

	profil__env.overflow = -1;
	/* A set-user-ID, set-group-ID or capable program takes no settings
	 * from the environment of whoever runs it (rawfile.c: nor PCPROF_*). */
	if (getauxval(AT_SECURE))
		return;
	if ((s = getenv("PROFIL_HZ"))) {
		if (profil__parse_uint(s, 10000, &v) == 0 && v >= 1)
			profil__env.hz = v;
		else
			env_bad("PROFIL_HZ");
	}
	if ((s = getenv("PROFIL_OVERFLOW"))) {
		if (strcmp(s, "saturate") == 0)
			profil__env.overflow = PROFIL_OVF_SATURATE;
		else if (strcmp(s, "wrap") == 0)
			profil__env.overflow = PROFIL_OVF_WRAP;
		else if (strcmp(s, "stop") == 0)
			profil__env.overflow = PROFIL_OVF_STOP;
		else
			env_bad("PROFIL_OVERFLOW");
	}
	if ((s = getenv("PROFIL_ENGINE"))) {
		if (strcmp(s, "auto") == 0 || engine_by_name(s))
			profil__strlcat(profil__env.engine, sizeof profil__env.engine, s);
		else
			env_bad("PROFIL_ENGINE");
	}
	/* What pcprof run was asked for: the engine of a recording, whatever
	 * the program then sets in PROFIL_ENGINE for its children. */
	if ((s = getenv("PCPROF_ENGINE")) && (strcmp(s, "auto") == 0 || engine_by_name(s)))
		profil__strlcat(profil__env.rec_engine, sizeof profil__env.rec_engine, s);
	if ((s = getenv("PROFIL_SIGNAL"))) {
		if (!(profil__env.signo = parse_signal(s)))
			env_bad("PROFIL_SIGNAL");
	}
	if ((s = getenv("PROFIL_PERF_MODE"))) {
		if (strcmp(s, "sigtrap") == 0 || strcmp(s, "fasync") == 0)
			profil__strlcat(profil__env.perf_mode, sizeof profil__env.perf_mode, s);
		else
			env_bad("PROFIL_PERF_MODE");
	}
}

/*
 * Which seccomp filters are not the program's (sig/seal.h): under pcprof run,
 * those pcprof itself runs under (PCPROF_SECCOMP); else those in force
 * now.  An image that begins under more than pcprof's was exec'd in a
 * sandbox the program made, which the filter outlives: it stays out from
 * the start (docs/design.md, "Seccomp filters").
 */
static void filters_init(void)
{
	/* Static: 4 KiB of path is more than a constructor may take of a
	 * small stack (tests/abi/t-frames.sh); constructors run once. */
	static struct raw_env env;
	int base = profil__filters(true);
	if (profil__raw_env(&env) && env.filters != RAW_FILTERS_UNSET) {
		if (profil__filters_beyond(env.filters, true))
			profil__seal(PROFIL_SEALED_INHERITED);
		base = env.filters;
	}
	profil__filter_base(base);
}

__attribute__((constructor(101))) static void session_init(void)
{
	read_env();
	long tck = sysconf(_SC_CLK_TCK);
	atomic_store(&S.base_hz, profil__env.hz            ? (unsigned int)profil__env.hz
				 : tck > 0 && tck <= 10000 ? (unsigned int)tck
							   : 100);
	atomic_store(&S.policy,
		     profil__env.overflow >= 0 ? profil__env.overflow : PROFIL_OVF_SATURATE);
	if (profil__env.engine[0] && strcmp(profil__env.engine, "auto") != 0)
		S.forced = engine_by_name(profil__env.engine);
	S.rec_forced =
		profil__env.rec_engine[0] ? engine_by_name(profil__env.rec_engine) : S.forced;
	filters_init();
	if (profil__sealed())
		return; /* in the program's sandbox: no system call of ours */
	profil__random_seed();
	profil__threads_init();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	if (profil__record_init(profil__base_hz())) {
		record_changed();
		struct profil_stats st;
		bool ok = profil_stats(&st) == 0;
		/* The program's own choice, which the recording does not take. */
		if (ok && S.forced != S.rec_forced && S.forced) {
			char note[64] = "; PROFIL_ENGINE=";
			profil__strlcat(note, sizeof note, S.forced->name);
			profil__strlcat(note, sizeof note, " for the program's own calls");
			size_t room = sizeof st.why - strlen(note) - 1;
			if (strlen(st.why) > room)
				st.why[room] = '\0';
			profil__strlcat(st.why, sizeof st.why, note);
		}
		profil__record_note_engine(ok ? st.engine : NULL, ok ? st.why : NULL,
					   profil__user_time_only());
	}
	/* After the recorder's: exit handlers run in reverse, so the ticks are
	 * paid before the recording is closed. */
	atexit(pay_at_exit);
}
