/*
 * engine-choice.c - which engine runs a configuration: the preference
 * order, each engine's probe and start, the fallback from one to the next,
 * and the text that says why (profil_stats' `why`).  Control lock held
 * throughout (session.c calls it).
 */
#include <string.h>

#include "../include/profil_ext.h"
#include "session-int.h"
#include "threads.h"
#include "sig/accept.h"
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
void profil__signal_name(char *buf, size_t len, int sig)
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
int profil__engine_try(const struct profil_engine *e, const struct profil_run *run, bool whole)
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
		profil__signal_name(text, sizeof text, S.sig);
	}
	why_add(e->name, text);
	S.last = e;
}

int profil__engine_start(const struct profil_run *run)
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
		if (r == 0 && (r = profil__engine_try(e, run, n > 1)) < 0) {
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
		if (short_of[i] && profil__engine_try(order[i], run, false) == 0) {
			why_chosen(order[i], run, true);
			return 0;
		}
	return err;
}

void profil__engine_stop(void)
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

const struct profil_engine *profil__engine_by_name(const char *name)
{
	for (size_t i = 0; i < NENGINES; i++)
		if (strcmp(engines[i]->name, name) == 0)
			return engines[i];
	return NULL;
}
