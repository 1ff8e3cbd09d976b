/*
 * session.c - the control path: which configuration is installed, which
 * engine runs it (chosen by engine-choice.c), and which signal
 * dispositions we own; exec, fork and seccomp filters.  Its state and what
 * its files share are in session-int.h.
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
#include <time.h>

#include "../include/profil_ext.h"
#include "config.h"
#include "rawfile.h"
#include "record.h"
#include "session-int.h"
#include "threads.h"
#include "sig/filters.h"
#include "sig/sigown.h"

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
	profil__signal_name(S.moved, sizeof S.moved, sig);
	profil__strlcat(S.moved, sizeof S.moved, " claimed by the program, now ");
	if (to)
		profil__signal_name(S.moved, sizeof S.moved, to);
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
				profil__engine_stop();
			}
			/* The program's manual engine samples nothing: a
			 * recording pcprof run did not ask that of stops here,
			 * saying so, and takes none of the injected ticks. */
			if (run.forced == &profil__engine_manual && atomic_load(&profil__rec) &&
			    S.rec_forced != &profil__engine_manual)
				profil__record_stop(PCPROF_STOP_MANUAL);
			if ((r = profil__engine_start(&run)) < 0) {
				if (running)
					profil__engine_start(&prev);
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
			profil__engine_stop();
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
		profil__engine_stop();
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
	profil__engine_stop();
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
	profil__engine_stop();
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
		atomic_store(&profil__fork_tid, profil__gettid());
	}
}

static void fork_parent(void)
{
	if (!fork_locked)
		return;
	atomic_store(&profil__fork_tid, 0);
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
		} else if (profil__engine_try(e, &run, false) < 0 && profil__engine_start(&run) < 0) {
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
	atomic_store(&profil__fork_tid, 0);
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
	profil__env_read();
	long tck = sysconf(_SC_CLK_TCK);
	atomic_store(&S.base_hz, profil__env.hz            ? (unsigned int)profil__env.hz
				 : tck > 0 && tck <= 10000 ? (unsigned int)tck
							   : 100);
	atomic_store(&S.policy,
		     profil__env.overflow >= 0 ? profil__env.overflow : PROFIL_OVF_SATURATE);
	if (profil__env.engine[0] && strcmp(profil__env.engine, "auto") != 0)
		S.forced = profil__engine_by_name(profil__env.engine);
	S.rec_forced =
		profil__env.rec_engine[0] ? profil__engine_by_name(profil__env.rec_engine) : S.forced;
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
