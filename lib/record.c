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
 * into it, so a full file system costs samples, never a SIGBUS.
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

static void use_levels(struct profil_levels *t, struct pcprof_raw_levels *l,
		       const struct raw_table *c, size_t entry)
{
	*t = (struct profil_levels){ l, (char *)map.h + c->off, c->base, c->max, entry };
}

static void use_map(void)
{
	rec.h = map.h;
	rec.size = map.size;
	rec.page = map.page;
	use_levels(&rec.thr, &map.h->thr, &map.thr, sizeof(struct pcprof_raw_thread));
	use_levels(&rec.slot, &map.h->slot, &map.slot, sizeof(struct pcprof_raw_slot));
	if (map.node.max)
		use_levels(&rec.node, &map.h->node, &map.node, sizeof(struct pcprof_raw_node));
	else
		rec.node = (struct profil_levels){ 0 };
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

/* The image's file: the one the audit module made for this image (same
 * token), or a new one.  If the audit module could not reserve one, it left
 * a marker with the reason: this image runs unrecorded. */
static bool attach_or_create(void)
{
	pid_t pid = profil__raw_pid(); /* pcprof's view of it (rawfile.h) */
	uint64_t token = profil__raw_token(pid);
	struct raw_latest last;
	profil__raw_latest(env.dir, pid, &last);
	if (last.seq >= 0 && last.lost && last.token == token)
		return false;
	if (last.seq >= 0 && !last.lost &&
	    profil__raw_attach(env.dir, pid, last.seq, token, &map) == 0) {
		if ((map.h->flags & PCPROF_RAW_F_AUDIT) && map.h->end == PCPROF_END_RUNNING &&
		    !(map.h->flags & PCPROF_RAW_F_SAMPLER))
			return true;
		profil__raw_unmap(&map);
	}
	if (!profil__raw_wanted(&env, pid, (uint32_t)(last.seq + 1)))
		return false;
	return profil__raw_create(&env, pid, 0, &map) == 0;
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
	struct pcprof_raw_header p;
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
	if (!profil__raw_env(&env) || !attach_or_create())
		return false;
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
	if (!atomic_load(&profil__rec))
		return;
	sigset_t saved;
	profil__lock(&saved);
	profil__threads_pay_owed(NULL); /* what the kernel did not signal yet */
	profil__unlock(&saved);
	profil__sink_rename_all(&rec); /* threads that named themselves after their first sample */
	snapshot_modules();
	finish(PCPROF_END_EXIT);
}

/* Control lock held, after the exec stop paid this image's ticks up to the
 * calling thread's CPU time `thread_cpu`: the next image counts from there
 * (image_origin). */
void profil__record_exec(uint64_t thread_cpu)
{
	if (atomic_load(&profil__rec)) {
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
	if (!atomic_load(&profil__rec) || map.h->pid != (int32_t)profil__raw_pid())
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
	store_rss(map.h);
	store_span(map.h);
	atomic_store(A64(&map.h->cpu_ns), profil__clock_ns(CLOCK_PROCESS_CPUTIME_ID));
}

void profil__record_exec_failed(void)
{
	if (atomic_load(&profil__rec)) {
		atomic_store(A64(&map.h->end_ns), 0);
		atomic_store(A32(&map.h->end), PCPROF_END_RUNNING);
		profil__record_exec_target(PCPROF_UNF_NONE, "", NULL);
		map.h->flags &= ~PCPROF_RAW_F_FOLLOWED;
	}
}

const char *profil__record_follow_dir(void)
{
	return atomic_load(&profil__rec) && env.follow ? env.dir : NULL;
}

/* Written before pcprof can read it (the exec is still to come), so plain
 * stores do; argv as in read_cmdline. */
void profil__record_exec_target(uint32_t why, const char *path, char *const argv[])
{
	if (!atomic_load(&profil__rec))
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
	if (!atomic_load(&profil__rec) || why == PCPROF_UNF_NONE)
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
	if (!counted || !atomic_load(&profil__rec))
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
	if (!atomic_load(&profil__rec))
		return;
	atomic_store(&profil__rec, NULL);
	struct raw_map parent = map;
	map.h = NULL;
	struct pcprof_raw_header *p = parent.h;
	uint32_t n = atomic_load(A32(&p->mod_count)), reserved = atomic_load(A32(&p->mod_reserved));
	n = n < reserved ? n : reserved;
	n = n < parent.mod_cap ? n : parent.mod_cap;
	if (env.follow && profil__raw_create(&env, profil__raw_pid(), n, &map) == 0) {
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
		atomic_store(&profil__rec, &rec);
	}
	profil__raw_unmap(&parent);
}
