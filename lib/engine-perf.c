/*
 * engine-perf.c - "perf": a perf_event software cpu-clock event per thread,
 * whose overflow is signalled to the thread that consumed the CPU time.
 *
 * Why: cpu-clock is an hrtimer, not the scheduler tick, so it delivers rates
 * above CONFIG_HZ as distinct samples (a thread timer folds them into its
 * overrun count).  It costs more per sample (about 13-15 us of the sampled
 * thread's CPU on the survey's VM) and needs perf permission, so session.c
 * puts it first only when the rate asks for it.
 *
 * Two variants, chosen by probe():
 *
 *   sigtrap  (Linux >= 5.13; used from 6.1, see below)  attr.sigtrap with
 *            inherit + inherit_thread + remove_on_exec: one event on each
 *            thread that exists at start, and every thread created later
 *            inherits its creator's event inside the kernel, with no fd and
 *            nothing to do at pthread_create.  The kernel sends SIGTRAP
 *            (si_code TRAP_PERF, si_perf_data = our cookie) to the thread
 *            itself.  Measured in the survey at 1.17x wall at 10 kHz versus
 *            1.31x for fasync, and it needs no fd per thread.  Inherited
 *            only where the kernel keeps each copy with its thread (6.12,
 *            see fill_attr); before that, one event per thread, opened as
 *            each registers (then threads made without pthread_create
 *            while it runs are not sampled, as with fasync).
 *   fasync   one fd per thread with O_ASYNC, F_SETOWN_EX(F_OWNER_TID) and
 *            F_SETSIG to the profiling signal (si_code POLL_IN, si_fd ours).
 *            Works on older kernels and never raises SIGTRAP.
 *
 * SIGTRAP and debuggers: a debugger stops the program at every SIGTRAP,
 * which would make profiling under gdb unusable, and a program may use
 * SIGTRAP itself.  So sigtrap is only chosen when no tracer is attached
 * (TracerPid in /proc/self/status), SIGTRAP has no handler but ours, and the
 * kernel is at least 6.1: older kernels force-kill a thread that has SIGTRAP
 * blocked instead of queueing the signal (TRAP_PERF_FLAG_ASYNC came later).
 * Otherwise fasync is used; PROFIL_PERF_MODE=sigtrap|fasync forces one.  A
 * debugger attached after profiling started will stop on our SIGTRAPs, and
 * "handle SIGTRAP nostop noprint" is not an option, since breakpoints use
 * SIGTRAP too (libprofil(7) CAVEATS: start with PROFIL_PERF_MODE=fasync,
 * whose real-time signal gdb can be told to pass, "handle SIG64 nostop").
 *
 * Kernel time: exclude_kernel is left clear when permitted, so CPU spent in
 * system calls is sampled and charged to the user pc where the kernel
 * returns, like the timer engines (the overflow's signal is delivered on
 * the way back to user mode; overflows the kernel folded while a SIGTRAP
 * was pending are due at the same signal, threads.c).  With
 * perf_event_paranoid >= 2 an unprivileged process must exclude the
 * kernel: overflows in the kernel are then dropped, so system time cannot
 * be placed at all, and the tick schedules run on user time only
 * (user_only; the "why" text says so): system time is not profiled rather
 * than charged to whatever user pc comes next.  fasync always excludes the
 * kernel, so that its signal never interrupts a system call (try_mode).
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#include "engine.h"
#include "reserve.h"
#include "sig/sample.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
#ifndef F_SETSIG
#define F_SETSIG 10
#endif
#ifndef F_SETOWN_EX
#define F_SETOWN_EX 15
#define F_OWNER_TID 0
struct f_owner_ex {
	int type;
	pid_t pid;
};
#endif

enum mode { MODE_SIGTRAP, MODE_FASYNC };

static enum mode mode;
static bool exclude_kernel;
/* sigtrap: new threads inherit their creator's event.  Only where the
 * kernel keeps an inherited event with its thread (see fill_attr); else
 * each thread gets its own event, opened when it registers. */
static bool inherit;
static int signo;
static uint64_t period_ns;
static char variant_text[96];

/*
 * Descriptors.  The program may close ours (closefrom, close_range, a loop
 * of close) and get the numbers back from its next open, so a number is
 * never proof: before closing one, the engine checks that it still names
 * the event it opened there, by inode (every perf event shares one
 * anonymous inode; this keeps our ioctl away from the program's devices)
 * and by the event's id, unique for the boot (PERF_EVENT_IOC_ID).  A
 * number that fails the check belongs to the program now: the event died
 * when the program closed it, so its thread was no longer sampled.
 *
 * ever_ours classifies fasync signals by si_fd.  Its bits are never cleared
 * while the process lives: a signal already queued when its event went
 * away must still be recognised and dropped, because the program's own
 * disposition for the profiling signal may be SIG_DFL.  The price is that a
 * program arming O_ASYNC with F_SETSIG to the profiling signal itself, on
 * a number that was once ours, would have those deliveries taken as ours;
 * a program does not do that with a signal it does not know.
 */
#define MAX_FD 65536
static _Atomic uint64_t ever_ours[MAX_FD / 64];
static _Atomic uint64_t open_now[MAX_FD / 64]; /* we hold this number */
static uint64_t event_id[MAX_FD];              /* at the numbers in open_now */
static dev_t event_dev;
static ino_t event_ino;
static int top_fd = -1; /* highest number ever in open_now */

/* sigtrap: the program closed a descriptor of this run's events, and with
 * it the copies the kernel had made in the threads created since. */
static bool root_lost;

static void mark(_Atomic uint64_t *set, int fd, bool on)
{
	uint64_t bit = UINT64_C(1) << (fd % 64);
	if (on)
		atomic_fetch_or(&set[fd / 64], bit);
	else
		atomic_fetch_and(&set[fd / 64], ~bit);
}

static bool marked(_Atomic uint64_t *set, int fd)
{
	return fd >= 0 && fd < MAX_FD &&
	       (atomic_load_explicit(&set[fd / 64], memory_order_relaxed) >> (fd % 64)) & 1;
}

/* Does fd still name the event we opened at that number? */
static bool ours(int fd)
{
	struct stat st;
	uint64_t id;
	return marked(open_now, fd) && fstat(fd, &st) == 0 && st.st_dev == event_dev &&
	       st.st_ino == event_ino && ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0 &&
	       id == event_id[fd];
}

/* fd is not ours any more: stop counting it as held.  -EBADF. */
static int forget(int fd)
{
	uint64_t bit = UINT64_C(1) << (fd % 64);
	if (atomic_fetch_and(&open_now[fd / 64], ~bit) & bit)
		profil__reserve_give(PROFIL_RES_FD);
	return -EBADF;
}

/* Close fd if it is still our event.  0, or -EBADF if it was not. */
static int close_ours(int fd)
{
	if (!ours(fd))
		return forget(fd);
	syscall(SYS_close, fd);
	mark(open_now, fd, false);
	profil__reserve_give(PROFIL_RES_FD);
	return 0;
}

/* Apply fn to every number in open_now. */
static void each_open(int (*fn)(int fd))
{
	for (int w = 0; w <= top_fd / 64; w++) {
		uint64_t bits = atomic_load(&open_now[w]);
		while (bits) {
			int b = __builtin_ctzll(bits);
			bits &= bits - 1;
			fn(w * 64 + b);
		}
	}
}

static int check_root(int fd)
{
	if (!ours(fd)) {
		forget(fd);
		root_lost = true;
	}
	return 0;
}

static void fill_attr(struct perf_event_attr *a, enum mode m, bool excl, bool live)
{
	memset(a, 0, sizeof *a);
	/* A probe event is opened disabled: it never counts, so it cannot
	 * overflow and raise a signal before our handler is installed. */
	a->disabled = !live;
	a->size = sizeof *a;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = period_ns ? period_ns : 10000000;
	a->exclude_kernel = excl;
	a->exclude_hv = 1;
	if (m == MODE_SIGTRAP) {
		/* Threads whose events are inherited copies of one event have
		 * "equivalent" contexts, and the scheduler then swaps the
		 * contexts instead of switching events when it goes from one
		 * such thread to another on a CPU: the running period moves to
		 * the next thread.  A thread that creates short threads hands
		 * its partial period to each child and gets the child's fresh
		 * one back, so it is never signalled, and its children are
		 * signalled for its time.  An event that also asks for
		 * PERF_SAMPLE_READ (with PERF_SAMPLE_TID) is switched the slow
		 * way, one event per thread (Linux 6.12); older kernels refuse
		 * it with inherit, and then nothing is inherited. */
		a->inherit = inherit;
		a->inherit_thread = inherit;
		if (inherit)
			a->sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_TID;
		a->remove_on_exec = 1;
		a->sigtrap = 1;
		a->sig_data = (uint64_t)(uintptr_t)profil__cookie;
	} else {
		a->wakeup_events = 1;
	}
}

static int open_event(pid_t tid, enum mode m, bool excl, bool live)
{
	struct perf_event_attr a;
	fill_attr(&a, m, excl, live);
	int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fd >= MAX_FD) {
		syscall(SYS_close, fd);
		return -EMFILE;
	}
	return fd;
}

/* Route a fasync event's overflow signal to thread tid. */
static int route(int fd, pid_t tid)
{
	struct f_owner_ex own = { F_OWNER_TID, tid };
	if (syscall(SYS_fcntl, fd, F_SETOWN_EX, &own) < 0 ||
	    syscall(SYS_fcntl, fd, F_SETSIG, signo) < 0)
		return -errno;
	long fl = syscall(SYS_fcntl, fd, F_GETFL);
	if (fl < 0 || syscall(SYS_fcntl, fd, F_SETFL, fl | O_ASYNC) < 0)
		return -errno;
	return 0;
}

static bool traced(void)
{
	return profil__status_number("TracerPid") > 0;
}

static bool kernel_at_least(unsigned maj, unsigned min)
{
	struct utsname u;
	if (uname(&u) < 0)
		return false;
	unsigned long a = 0, b = 0;
	const char *s = u.release;
	while (*s >= '0' && *s <= '9')
		a = a * 10 + (unsigned long)(*s++ - '0');
	if (*s++ != '.')
		return false;
	while (*s >= '0' && *s <= '9')
		b = b * 10 + (unsigned long)(*s++ - '0');
	return a > maj || (a == maj && b >= min);
}

static bool sigtrap_in_use(void)
{
	struct sigaction sa;
	if (sigaction(SIGTRAP, NULL, &sa) < 0)
		return true;
	if (sa.sa_flags & SA_SIGINFO)
		return sa.sa_sigaction != profil__on_signal;
	return sa.sa_handler != SIG_DFL;
}

/* Try to open a disabled event on ourselves in mode m, with the kernel
 * included if allowed.  Returns 0 and sets exclude_kernel, or -errno.
 *
 * fasync always excludes the kernel.  Its signal is sent from the timer
 * interrupt at the overflow, so an overflow while the thread runs in a
 * system call that is about to sleep (nanosleep, poll, a futex wait) makes
 * the call fail with EINTR: 29 of 100000 nanosleep(1 us) calls at 1 kHz,
 * as root.  With the kernel excluded, overflows in kernel mode are dropped
 * and every signal interrupts user code.  sigtrap's signal is sent by task
 * work on the way back to user mode, after the call, so it keeps the
 * kernel's time. */
static int try_mode(enum mode m)
{
	bool excl = m == MODE_FASYNC;
	int fd = open_event(0, m, excl, false);
	if (!excl && (fd == -EACCES || fd == -EPERM)) {
		excl = true;
		fd = open_event(0, m, true, false);
	}
	if (fd < 0)
		return fd;
	exclude_kernel = excl;
	syscall(SYS_close, fd);
	return 0;
}

static int probe(const struct profil_run *run, char *why, size_t len)
{
	period_ns = 1000000000u / run->hz;
	const char *reason = NULL;
	int r;

	variant_text[0] = '\0';
	if (strcmp(run->perf_mode, "fasync") == 0) {
		mode = MODE_FASYNC;
		reason = "fasync, forced by PROFIL_PERF_MODE";
	} else if (strcmp(run->perf_mode, "sigtrap") == 0) {
		mode = MODE_SIGTRAP;
		reason = "sigtrap, forced by PROFIL_PERF_MODE";
	} else if (traced()) {
		mode = MODE_FASYNC;
		reason = "fasync: a debugger is attached and would stop on SIGTRAP";
	} else if (sigtrap_in_use()) {
		mode = MODE_FASYNC;
		reason = "fasync: the program handles SIGTRAP itself";
	} else if (!kernel_at_least(6, 1)) {
		mode = MODE_FASYNC;
		reason = "fasync: kernel older than 6.1 kills threads that block SIGTRAP";
	} else {
		mode = MODE_SIGTRAP;
		reason = "sigtrap, inherited by new threads";
	}
	inherit = true;
	r = try_mode(mode);
	if (r == -EINVAL && mode == MODE_SIGTRAP) {
		inherit = false;
		r = try_mode(mode);
		if (r == 0 && !run->perf_mode[0])
			reason = "sigtrap, an event per thread (this kernel would move "
				 "inherited events between threads)";
	}
	if (r < 0 && mode == MODE_SIGTRAP && !run->perf_mode[0]) {
		/* A kernel before 5.13 rejects the sigtrap attributes. */
		mode = MODE_FASYNC;
		reason = "fasync: the kernel rejects sigtrap events";
		r = try_mode(mode);
	}
	if (r < 0) {
		profil__strlcat(why, len, "perf_event_open: ");
		profil__strlcat(why, len, profil__errname(-r));
		return r;
	}
	profil__strlcat(variant_text, sizeof variant_text, reason);
	if (exclude_kernel)
		profil__strlcat(variant_text, sizeof variant_text,
				mode == MODE_FASYNC ? "; user time only"
						    : "; user time only (paranoid)");
	return 0;
}

static int signal_of(const struct profil_run *run)
{
	return mode == MODE_SIGTRAP ? SIGTRAP : run->signo;
}

static int start(const struct profil_run *run)
{
	period_ns = 1000000000u / run->hz;
	signo = run->signo;
	return 0;
}

static int attach(struct profil_thread *t, bool inherited)
{
	t->handle = -1;
	if (mode == MODE_SIGTRAP && inherit && inherited)
		return 0; /* the kernel gave it a copy of its creator's event */
	if (mode == MODE_FASYNC && !signo)
		return -EINVAL; /* no signal left (F_SETSIG 0 would mean SIGIO) */
	int r = profil__reserve_take(PROFIL_RES_FD);
	if (r < 0)
		return r;
	int fd = open_event(t->tid, mode, exclude_kernel, true);
	if (fd < 0) {
		profil__reserve_give(PROFIL_RES_FD);
		return fd;
	}
	struct stat st;
	uint64_t id;
	if (fstat(fd, &st) < 0 || ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
		r = -errno;
		goto fail;
	}
	event_dev = st.st_dev;
	event_ino = st.st_ino;
	event_id[fd] = id;
	if (mode == MODE_FASYNC) {
		mark(ever_ours, fd, true); /* before a signal can name it */
		if ((r = route(fd, t->tid)) < 0)
			goto fail;
	}
	mark(open_now, fd, true);
	if (fd > top_fd)
		top_fd = fd;
	t->handle = fd;
	return 0;
fail:
	syscall(SYS_close, fd);
	profil__reserve_give(PROFIL_RES_FD);
	return r;
}

static int detach(struct profil_thread *t)
{
	int fd = (int)t->handle;
	t->handle = -1;
	/* An event per thread (fasync, or sigtrap without inheritance) has
	 * no copies: it goes with its thread. */
	if (mode == MODE_FASYNC || !inherit)
		return close_ours(fd);
	/* Inherited sigtrap: every thread this one created since the start
	 * carries a copy of its event, and closing it would free them all; so
	 * it stays open until the engine stops.  A thread without a descriptor of its
	 * own was sampled by such a copy, which the program may have freed by
	 * closing any of them (which one is not known). */
	if (fd >= 0)
		return ours(fd) ? 0 : forget(fd);
	if (!root_lost)
		each_open(check_root);
	return root_lost ? -EBADF : 0;
}

static int enable_ours(int fd)
{
	if (ours(fd))
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	return 0;
}

void profil__perf_resume(void)
{
	each_open(enable_ours);
}

/* fasync: F_SETSIG on the thread's event; sigtrap raises SIGTRAP, which
 * is not moved. */
static int resignal(struct profil_thread *t, int sig)
{
	if (!t) {
		signo = sig;
		return 0;
	}
	int fd = (int)t->handle;
	if (mode != MODE_FASYNC || fd < 0)
		return 0;
	if (!ours(fd)) {
		t->handle = -1;
		return forget(fd);
	}
	if (syscall(SYS_fcntl, fd, F_SETSIG, sig) < 0) {
		int r = -errno;
		t->handle = -1;
		close_ours(fd);
		return r;
	}
	return 0;
}

static void stop(void)
{
	each_open(close_ours);
	root_lost = false;
}

static int close_inherited(int fd)
{
	if (ours(fd))
		syscall(SYS_close, fd);
	mark(open_now, fd, false);
	return 0;
}

/* The child inherited the parent's event fds (not its events: inherit_thread
 * stops them at fork, fasync events are per thread).  Close the ones that
 * are still events, so the parent's events die with the parent; the
 * program's files at reused numbers stay. */
static void fork_child(void)
{
	each_open(close_inherited);
	root_lost = false;
}

/* si_perf_data: glibc 2.36's siginfo_t has no name for it.  In the kernel's
 * layout it is the word right after si_addr (where si_addr_lsb starts), not
 * the si_lower bound, which follows an alignment pad. */
static uintptr_t perf_data(const siginfo_t *si)
{
	uintptr_t v;
	memcpy(&v, (const char *)&si->si_addr + sizeof(void *), sizeof v);
	return v;
}

static bool classify(int sig, const siginfo_t *si, unsigned long *weight)
{
	if (sig == SIGTRAP) {
		if (si->si_code != TRAP_PERF || perf_data(si) != (uintptr_t)profil__cookie)
			return false;
	} else if (!((si->si_code == POLL_IN || si->si_code == POLL_HUP) &&
		     marked(ever_ours, si->si_fd))) {
		return false;
	}
	*weight = 1; /* each overflow is its own signal */
	return true;
}

static const char *variant(void)
{
	return variant_text;
}

/* A sigtrap overflow is turned into a signal by task work when the sampled
 * thread next returns to user mode; if that thread was preempted right at
 * the sample, the SIGTRAP arrives after its event was closed, however late
 * (observed: up to 2 per 200 start/stop cycles at 1 kHz).  Restoring
 * SIG_DFL would let it kill the program, so the handler stays. */
static bool lingers(void)
{
	return mode == MODE_SIGTRAP;
}

static bool user_only(void)
{
	return exclude_kernel;
}

const struct profil_engine profil__engine_perf = {
	.name = "perf",
	.subtick = true,
	.probe = probe,
	.signal = signal_of,
	.start = start,
	.attach = attach,
	.detach = detach,
	.resignal = resignal,
	.stop = stop,
	.fork_child = fork_child,
	.classify = classify,
	.variant = variant,
	.lingers = lingers,
	.user_only = user_only,
};
