/*
 * record.c - the whole-process recorder behind `pcprof run`.
 *
 * When the PCPROF_* environment is present (lib/record-format.h), the
 * library constructor attaches to this image's raw file (made by the audit
 * module, or makes it), starts the engine for every thread, and from then on
 * every profiling signal adds its weight to a (pc, thread, module epoch)
 * slot of an open-addressing table in that MAP_SHARED file.  Nothing is
 * buffered in the process: whatever way it ends, the counts are already in
 * the page cache for pcprof to read.
 *
 * The thread and pc tables grow by levels (record-format.h), so that the
 * memory they take follows the distinct pcs the program actually runs, not
 * the most it could: each level is dense (a program that samples 1000
 * distinct pcs touches about 100 KiB, where one sparse table of the largest
 * size touched a page per pc), and it is reserved before the first store
 * into it, so a full file system costs samples, never a SIGBUS.  Each level
 * is also mapped only when it opens (lib/sig/sink.h), so the address space
 * follows the same: a process mapped its whole file, 60 MiB, which
 * RLIMIT_AS counts; and under that limit a table stops growing while the
 * program would still need the room (profil__sink_room): fewer samples
 * recorded, never a failed mmap, malloc or pthread_create in the program.
 *
 * Stacks (PCPROF_STACKS=1) go into a third growing table, a trie of
 * (caller's node, pc) nodes: a stack is stored as the node of its
 * innermost caller, inserted outermost first, so that the many stacks that
 * share their outer callers (main, the thread start, a dispatch loop) share
 * those nodes and a sample costs one slot plus the nodes no earlier stack
 * had.  When the trie has no more room, the outermost callers that fit are
 * kept and the slot is marked cut: pcprof shows a "[truncated]" frame
 * between the pc and them, rather than a stack that looks whole.
 *
 * Time (PCPROF_TIMELINE, on unless 0): each slot's key also holds the
 * sample's time bucket, 10 ms of CLOCK_MONOTONIC counted from the run's
 * first image (forked children and exec'd images take over their parent's
 * or predecessor's origin), so pcprof can restrict a profile to a period.
 * Timed slots stop when the pc table opens its last level, which is left
 * to untimed ones: the profile stays whole and the header says from which
 * bucket on the timeline is partial (tl_lost_from).
 *
 * This is the control half (layer L4: start, exit, fork, exec, in normal
 * context): it maps the file and publishes profil__rec.  What the signal
 * handler calls to store a sample and its stack is the hot half,
 * lib/sig/sink.c, which includes nothing of this file.
 */
#include "record.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>

#include "../include/profil_ext.h"
#include "rawfile.h"
#include "ctl.h"
#include "threads.h"

#define A64(p) ((_Atomic uint64_t *)(p))
#define A32(p) ((_Atomic uint32_t *)(p))

static struct profil_rec rec;
static struct raw_map map;
static struct raw_env env;

/* ---- set-up (normal context) ---- */

/* The recording's tables are mapped into rec by rawfile.c; the rest of
 * what the handler reads. */
static void use_map(void)
{
	rec.tl_origin = map.h->tl_origin_ns;
	rec.tl_bucket = map.h->tl_bucket_ns;
}

static int add_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size, (void)arg;
	char exe[PCPROF_RAW_PATH];
	const char *path = info->dlpi_name;
	const void *mem = NULL;
	if (!path || !path[0]) {
		profil__raw_exe_path(exe, sizeof exe);
		path = exe;
	} else if (strcmp(path, "linux-vdso.so.1") == 0) {
		mem = (const void *)getauxval(AT_SYSINFO_EHDR);
		path = "[vdso]";
		if (!mem)
			return 0;
	}
	profil__raw_add_module(&map, path, info->dlpi_addr, mem);
	return 0;
}

/* Without the audit module, list what is loaded now (start, exit, exec). */
static void snapshot_modules(void)
{
	if (map.h && !(map.h->flags & PCPROF_RAW_F_AUDIT))
		dl_iterate_phdr(add_loaded, NULL);
}

static void read_cmdline(char *buf, size_t len)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n > 0 ? n : 0] = '\0';
	if (n > 0 && buf[n - 1] == ' ')
		buf[n - 1] = '\0';
}

/* ---- an image that could not record ----
 *
 * When this image's recording could not be made (a full file system, the
 * address-space limit), the marker that says so (rawfile.h) is all pcprof
 * has of it, and a run that filled TMPDIR reported such images with no CPU
 * time at all ("CPU time 0.00 s, lost 0" for 0.44 s; issue 19, item 9).
 * So where the image ends (exit, _exit, exec) the marker is renamed to
 * carry the process CPU time then, "<pid>.<seq>.<errno>.<token>.<ns>.lost":
 * a rename needs no room on the file system.  Its fork children leave a
 * marker of their own (not a recording: there was no room for this one),
 * so that each image is counted.
 */
static struct {
	pid_t pid; /* 0: this image records, or is not to */
	int seq, err;
	uint64_t token;
	char path[4200]; /* the marker's name now */
	/* The new name, built here and not on the stack: lost_end runs on the
	 * stack of whatever called exit or _exit, a coroutine's maybe (issue
	 * 19, item 2).  `ending` lets one caller at a time use it. */
	char to[4200];
	atomic_flag ending;
} lost;

/* "<dir>/<pid>.<seq>.<err>.<token>[.<cpu>].lost"; AS-safe. */
static void lost_name(char *buf, size_t len, uint64_t cpu, bool with_cpu)
{
	static const char hex[] = "0123456789abcdef";
	char tok[17];
	for (int i = 0; i < 16; i++)
		tok[i] = hex[(lost.token >> (60 - 4 * i)) & 15];
	tok[16] = 0;
	buf[0] = 0;
	profil__strlcat(buf, len, env.dir);
	profil__strlcat(buf, len, "/");
	profil__strlcat_u(buf, len, (unsigned long)lost.pid);
	profil__strlcat(buf, len, ".");
	profil__strlcat_u(buf, len, (unsigned long)lost.seq);
	profil__strlcat(buf, len, ".");
	profil__strlcat_u(buf, len, (unsigned long)lost.err);
	profil__strlcat(buf, len, ".");
	profil__strlcat(buf, len, tok);
	if (with_cpu) {
		profil__strlcat(buf, len, ".");
		profil__strlcat_u(buf, len, (unsigned long)cpu);
	}
	profil__strlcat(buf, len, ".lost");
}

static void lost_set(pid_t pid, int seq, int err, uint64_t token)
{
	lost.pid = pid;
	lost.seq = seq;
	lost.err = err;
	lost.token = token;
	lost_name(lost.path, sizeof lost.path, 0, false);
}

/* This image was to record and its marker is the newest file of its pid:
 * remember it (false if it is not). */
static bool lost_found(pid_t pid, uint64_t token)
{
	struct raw_latest last;
	profil__raw_latest(env.dir, pid, &last);
	if (last.seq < 0 || !last.lost || last.token != token)
		return false;
	lost_set(pid, last.seq, last.err, token);
	return true;
}

/* The image ends: its process CPU time into its marker's name.  errno is
 * kept.  AS-safe (raw system calls): _exit may come from a handler. */
static void lost_end(void)
{
	profil__record_lost_end();
}

void profil__record_lost_end(void)
{
	/* Under a seccomp filter the library makes no system call (seal.h). */
	/* lost.pid is /proc's view (rawfile.h, profil__raw_pid), as the
	 * marker's name: in a pid namespace of its own getpid() is another. */
	if (profil__sealed() || !lost.pid || lost.pid != profil__raw_pid())
		return;
	if (atomic_flag_test_and_set(&lost.ending))
		return; /* another thread is ending the image this moment */
	int saved = errno;
	lost_name(lost.to, sizeof lost.to, profil__clock_ns(CLOCK_PROCESS_CPUTIME_ID), true);
	if (syscall(SYS_renameat, AT_FDCWD, lost.path, AT_FDCWD, lost.to) == 0)
		memcpy(lost.path, lost.to, sizeof lost.to);
	errno = saved;
	atomic_flag_clear(&lost.ending);
}

/* The image's file: the one the audit module made for this image (same
 * token), or a new one.  If the audit module could not reserve one, it left
 * a marker with the reason: this image runs unrecorded. */
static bool attach_or_create(void)
{
	pid_t pid = profil__raw_pid(); /* pcprof's view of it (rawfile.h) */
	uint64_t token = profil__raw_token(pid);
	struct raw_latest last;
	profil__raw_latest(env.dir, pid, &last);
	if (last.seq >= 0 && last.lost && last.token == token) {
		lost_set(pid, last.seq, last.err, token);
		return false;
	}
	if (last.seq >= 0 && !last.lost &&
	    profil__raw_attach(env.dir, pid, last.seq, token, &rec, &map) == 0) {
		if ((map.h->flags & PCPROF_RAW_F_AUDIT) && map.h->end == PCPROF_END_RUNNING &&
		    !(map.h->flags & PCPROF_RAW_F_SAMPLER))
			return true;
		profil__raw_unmap(&map);
	}
	if (!profil__raw_wanted(&env, pid, (uint32_t)(last.seq + 1)))
		return false;
	if (profil__raw_create(&env, pid, 0, &rec, &map) == 0)
		return true;
	lost_found(pid, token);
	return false;
}

void profil__record_note_engine(const char *engine, const char *why, bool user_time)
{
	if (!atomic_load(&profil__rec))
		return;
	if (engine) {
		snprintf(map.h->engine, sizeof map.h->engine, "%s", engine);
		snprintf(map.h->why, sizeof map.h->why, "%s", why);
	}
	if (user_time)
		map.h->flags |= PCPROF_RAW_F_USER_TIME;
}

static void record_exit(void);

/*
 * Where this image began, in CPU time: its process CPU time (the image's
 * own is what came after) and, returned, the main thread's CPU time at
 * the exec, from which its ticks count.  The previous image of this pid,
 * if it was recorded and ended by exec, left both.  A first image (seq 0)
 * is a new process: all of its CPU time is ours.  Anything else (the
 * previous image was replaced without our exec wrapper, or died and the
 * pid was reused) cannot be told apart: counting starts now.
 */
static uint64_t image_origin(struct pcprof_raw_header *h)
{
	uint64_t now = profil__clock_ns(CLOCK_THREAD_CPUTIME_ID);
	h->cpu_start_ns = profil__clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (h->seq == 0) {
		h->cpu_start_ns = 0;
		return 0;
	}
	uint64_t origin = PROFIL_ORIGIN_NOW;
	/* Static, not on the stack (2.9 KiB, in the constructor: a small
	 * RLIMIT_STACK has no room for it, issue 19); called once, by
	 * profil__record_init. */
	static struct pcprof_raw_header p;
	if (profil__raw_read_header(env.dir, h->pid, (int)h->seq - 1, &p) == 0) {
		/* Buckets count from the run's first image (version 4). */
		if (p.tl_origin_ns && p.tl_origin_ns < h->tl_origin_ns)
			h->tl_origin_ns = p.tl_origin_ns;
		/* Another image's file: its values bound nothing but this
		 * origin, which is never past the thread's CPU time now. */
		if (p.end == PCPROF_END_EXEC && p.exec_cpu_ns <= now &&
		    p.cpu_ns <= h->cpu_start_ns) {
			origin = p.exec_cpu_ns;
			h->cpu_start_ns = p.cpu_ns;
		} else if (p.end == PCPROF_END_EXIT) {
			origin = 0; /* that process is gone: a new one has its pid */
			h->cpu_start_ns = 0;
		}
	}
	return origin;
}

/* An image in a pid namespace of its own is named by /proc's pid
 * (rawfile.h); its own, which its thread ids go with, is kept beside. */
static void note_own_pid(struct pcprof_raw_header *h)
{
	pid_t own = getpid();
	h->own_pid = own != h->pid ? own : 0;
}

bool profil__record_init(unsigned int hz)
{
	if (!profil__raw_env(&env))
		return false;
	if (!attach_or_create()) {
		if (lost.pid)
			atexit(record_exit);
		return false;
	}
	struct pcprof_raw_header *h = map.h;
	h->flags |= PCPROF_RAW_F_SAMPLER;
	h->hz = hz;
	note_own_pid(h);
	profil__threads_image_start(image_origin(h));
	read_cmdline(h->cmdline, sizeof h->cmdline);
	snapshot_modules();
	use_map();
	atomic_store(&profil__rec, &rec);
	atexit(record_exit);
	return true;
}

/* The resident set now, which the kernel frees after the image's last
 * word (TEARDOWN_NS_PER_KIB in cli/cmd-run.c): the second field of
 * /proc/self/statm, in pages.  Not getrusage's ru_maxrss: a fork child
 * starts with its parent's peak, and an exec'd image keeps it, so every
 * command a big parent spawns would claim the parent's memory (a 512 MiB
 * parent's /bin/true: 525616 KiB) and the allowance would hide real
 * unsampled time.  profil__read_small makes raw system calls: _exit may
 * come from a signal handler.  AS-safe. */
static void store_rss(struct pcprof_raw_header *h)
{
	char buf[128];
	const char *p;
	if (profil__read_small("/proc/self/statm", buf, sizeof buf) <= 0 ||
	    !(p = strchr(buf, ' '))) /* past the total size */
		return;
	uint64_t pages = 0;
	for (p++; *p >= '0' && *p <= '9' && pages < (UINT64_C(1) << 40); p++)
		pages = pages * 10 + (uint64_t)(*p - '0');
	unsigned long psz = getauxval(AT_PAGESZ);
	h->exit_rss_kib = pages * (psz ? psz : 4096) / 1024;
}

/* What the schedules covered of the image's CPU time and what ran beside
 * them (record-format.h, version 6), after the owed ticks were paid.
 * AS-safe (_exit). */
static void store_span(struct pcprof_raw_header *h)
{
	const struct profil_engine *e = profil__running_engine();
	if (!e || !e->attach)
		return; /* no schedules (none runs, or the manual engine) */
	struct profil_span s;
	profil__threads_span(&s);
	h->covered_ns = s.covered;
	h->before_ns = s.before;
	h->threads_ended = s.ended;
	h->iou_ns = s.iou_ns;
	h->iou_threads = s.iou;
	h->foreign_ns = s.foreign_ns;
	h->foreign_threads = s.foreign;
	h->unslotted = s.unslotted;
	if (s.iou)
		atomic_fetch_or(A32(&h->gap_flags), PCPROF_RAW_G_IOURING);
	if (s.unslotted || s.foreign)
		atomic_fetch_or(A32(&h->gap_flags), PCPROF_RAW_G_UNKNOWN_THREADS);
	atomic_fetch_or(A32(&h->gap_flags), PCPROF_RAW_G_SPAN);
}

static void finish(uint32_t end)
{
	struct pcprof_raw_header *h = map.h;
	if (end == PCPROF_END_EXIT)
		store_rss(h);
	store_span(h);
	atomic_store(A64(&h->cpu_ns), profil__clock_ns(CLOCK_PROCESS_CPUTIME_ID));
	atomic_store(A64(&h->end_ns), profil__clock_ns(CLOCK_REALTIME));
	atomic_store(A32(&h->end), end);
}

/* Registered with atexit() at start: exit() runs it before the loader's
 * _dl_fini (registered first, so run last), i.e. before the audit module
 * sees the exit-time closes, which must not count as unloads. */
static void record_exit(void)
{
	lost_end();
	if (!map.h)
		return;
	sigset_t saved;
	if (profil__lock_thorough(&saved)) {
		profil__threads_pay_owed(NULL); /* what the kernel did not signal yet */
		profil__unlock(&saved);
	}
	if (profil__sealed()) {
		/* No system call: the CPU time stays the filter's (whoever
		 * reaps the process knows the rest). */
		atomic_store(A32(&map.h->end), PCPROF_END_EXIT);
		return;
	}
	profil__sink_rename_all(&rec); /* threads that named themselves after their first sample */
	snapshot_modules();
	finish(PCPROF_END_EXIT);
}

/* Control lock held, after the exec stop paid this image's ticks up to the
 * calling thread's CPU time `thread_cpu`: the next image counts from there
 * (image_origin). */
void profil__record_exec(uint64_t thread_cpu)
{
	lost_end();
	if (map.h) {
		profil__sink_rename_all(&rec);
		snapshot_modules();
		map.h->exec_cpu_ns = thread_cpu;
		if (env.follow)
			map.h->flags |= PCPROF_RAW_F_FOLLOWED;
		finish(PCPROF_END_EXEC);
	}
}

/* A worker pool's children, Python's multiprocessing among them, end with
 * _exit: their CPU time lagged by up to 8 signals (sink.c stores it every
 * 8th), and pcprof run called 3 workers' 0.04 s "not sampled". */
void profil__record_quick_exit(void)
{
	lost_end();
	if (profil__sealed() || !map.h || map.h->pid != (int32_t)profil__raw_pid())
		return;
	/* The ticks the kernel did not signal yet, as at exit (each worker
	 * of a pool otherwise loses its last partial period: 437 samples for
	 * 1.02 s at 500 Hz); not if this thread already holds the lock (a
	 * handler that interrupted it called _exit). */
	sigset_t saved;
	if (profil__trylock(&saved)) {
		profil__threads_pay_owed(NULL);
		profil__unlock(&saved);
	}
	if (profil__sealed())
		return;
	store_rss(map.h);
	store_span(map.h);
	atomic_store(A64(&map.h->cpu_ns), profil__clock_ns(CLOCK_PROCESS_CPUTIME_ID));
}

void profil__record_exec_failed(void)
{
	if (map.h) {
		atomic_store(A64(&map.h->end_ns), 0);
		atomic_store(A32(&map.h->end), PCPROF_END_RUNNING);
		profil__record_exec_target(PCPROF_UNF_NONE, "", NULL);
		map.h->flags &= ~PCPROF_RAW_F_FOLLOWED;
	}
}

const char *profil__record_follow_dir(void)
{
	return map.h && env.follow && !profil__sealed() ? env.dir : NULL;
}

/* Written before pcprof can read it (the exec is still to come), so plain
 * stores do; argv as in read_cmdline. */
void profil__record_exec_target(uint32_t why, const char *path, char *const argv[])
{
	if (!map.h)
		return;
	struct pcprof_raw_header *h = map.h;
	h->exec_unfollowed = why;
	h->exec_path[0] = h->exec_cmdline[0] = '\0';
	profil__strlcat(h->exec_path, sizeof h->exec_path, path);
	for (size_t i = 0; argv && argv[i]; i++) {
		if (i)
			profil__strlcat(h->exec_cmdline, sizeof h->exec_cmdline, " ");
		profil__strlcat(h->exec_cmdline, sizeof h->exec_cmdline, argv[i]);
	}
}

/*
 * The vfork child writes into the parent's header (the mapping is the
 * parent's): a count, and the first child's reason and file, claimed with
 * spawn_state so that two children (of two threads) never mix theirs.
 * Returns 0: not counted, 1: counted, 2: counted and named.
 */
int profil__record_spawn_target(uint32_t why, const char *path)
{
	if (!map.h || why == PCPROF_UNF_NONE)
		return 0;
	struct pcprof_raw_header *h = map.h;
	atomic_fetch_add(A32(&h->spawn_unfollowed), 1);
	uint32_t free_state = 0;
	if (!atomic_compare_exchange_strong(A32(&h->spawn_state), &free_state, 1))
		return 1;
	h->spawn_why = why;
	h->spawn_path[0] = '\0';
	profil__strlcat(h->spawn_path, sizeof h->spawn_path, path);
	atomic_store(A32(&h->spawn_state), 2);
	return 2;
}

void profil__record_spawn_failed(int counted)
{
	if (!counted || !map.h)
		return;
	struct pcprof_raw_header *h = map.h;
	atomic_fetch_sub(A32(&h->spawn_unfollowed), 1);
	if (counted == 2)
		atomic_store(A32(&h->spawn_state), 0);
}

/*
 * In the child after fork (control lock held, one thread, signals blocked):
 * its samples must not land in the parent's file.  Give it its own file
 * with a copy of the parent's module table (same indices, so the audit
 * module's cookies stay valid), or stop recording if children are not
 * followed.
 */
void profil__record_fork_child(void)
{
	if (lost.pid) {
		/* The parent could not record: nor can the child, but it is
		 * counted, with the parent's reason. */
		int err = lost.err, seq;
		pid_t pid = profil__raw_pid(); /* as the recordings' names */
		lost.pid = 0;
		if (env.follow && (seq = profil__raw_mark_lost(&env, pid, err)) >= 0)
			lost_set(pid, seq, err, profil__raw_token(pid));
		return;
	}
	if (!map.h)
		return;
	atomic_store(&profil__rec, NULL);
	/* The parent's mappings, which the child inherited, are unmapped
	 * once their module entries are copied. */
	static struct profil_rec prec;
	memcpy(&prec, &rec, sizeof prec);
	struct raw_map parent = map;
	parent.rec = &prec;
	map.h = NULL;
	struct pcprof_raw_header *p = parent.h;
	uint32_t n = atomic_load(A32(&p->mod_count)), reserved = atomic_load(A32(&p->mod_reserved));
	n = n < reserved ? n : reserved;
	n = n < parent.mod_cap ? n : parent.mod_cap;
	/* The parent's entries up to n, which the audit module may have made
	 * since this image mapped them. */
	if (profil__raw_map_modules(&parent, n) < 0)
		n = parent.mod_mapped;
	if (env.follow && profil__raw_create(&env, profil__raw_pid(), n, &rec, &map) == 0) {
		struct pcprof_raw_header *c = map.h;
		memcpy(c->engine, p->engine, sizeof c->engine);
		memcpy(c->why, p->why, sizeof c->why);
		memcpy(c->cmdline, p->cmdline, sizeof c->cmdline);
		c->hz = p->hz;
		note_own_pid(c);
		c->cpu_start_ns = 0; /* a new process: its CPU clock started at the fork */
		c->tl_origin_ns = p->tl_origin_ns;
		/* The child's own layout says whether it has a node table. */
		c->flags = (p->flags & ~PCPROF_RAW_F_STACKS) | (c->flags & PCPROF_RAW_F_STACKS);
		c->epoch = p->epoch;
		memcpy(profil__raw_modules(&map), profil__raw_modules(&parent),
		       n * sizeof(struct pcprof_raw_module));
		atomic_store(A32(&c->mod_count), n);
		use_map();
		/* A child of an image whose recording stopped (the program's
		 * manual engine) goes on as its parent: not recorded from its
		 * start, which its file says. */
		uint32_t stop = atomic_load(A32(&p->stop_why));
		if (stop)
			c->stop_why = stop;
		else
			atomic_store(&profil__rec, &rec);
	} else if (env.follow) {
		lost_found(profil__raw_pid(), profil__raw_token(profil__raw_pid()));
	}
	profil__raw_unmap(&parent);
}

void profil__record_fork_child_sealed(void)
{
	atomic_store(&profil__rec, NULL);
	map.h = NULL; /* the parent's: never written from here */
}

void profil__record_stop(uint32_t why)
{
	if (!atomic_load(&profil__rec))
		return;
	uint64_t cpu = profil__clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	atomic_store(A64(&map.h->cpu_ns), cpu);
	profil__sink_stop(why, cpu);
}

void profil__record_unstop(void)
{
	if (!map.h || atomic_load(&profil__rec) || !atomic_load(A32(&map.h->stop_why)))
		return;
	atomic_store(A32(&map.h->stop_why), PCPROF_STOP_NONE);
	atomic_store(A64(&map.h->stop_cpu_ns), 0);
	atomic_store(&profil__rec, &rec);
}
