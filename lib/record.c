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
 * profil__record is on the signal path (AS-safe: atomics, raw syscalls, no
 * locks; bounded probing).  Everything else runs in normal context.
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
#include "session.h"

#define MAX_PROBE 64 /* slots looked at before a tick counts as lost */

struct profil_rec {
	struct pcprof_raw_header *h;
	struct pcprof_raw_thread *thr;
	struct pcprof_raw_slot *slot;
	uint64_t slot_mask;
	uint32_t thr_mask;
};

struct profil_rec *_Atomic profil__rec;

static struct profil_rec rec;
static struct raw_map map;
static struct raw_env env;

/* ---- the signal path ---- */

#define A64(p)  ((_Atomic uint64_t *)(p))
#define A32(p)  ((_Atomic uint32_t *)(p))
#define AI32(p) ((_Atomic int32_t *)(p))

static void read_comm(pid_t tid, char name[16])
{
	char path[48] = "/proc/self/task/";
	profil__strlcat_u(path, sizeof path, (unsigned long)tid);
	profil__strlcat(path, sizeof path, "/comm");
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[16];
	long n = syscall(SYS_read, fd, buf, sizeof buf);
	syscall(SYS_close, fd);
	for (long i = 0; i < n && i < 15 && buf[i] != '\n'; i++)
		name[i] = buf[i];
}

/* Thread tid's index in the thread table, or UINT32_MAX if full. */
static uint32_t thread_index(struct profil_rec *r, pid_t tid)
{
	uint32_t i = (uint32_t)profil__mix64((uint64_t)tid) & r->thr_mask;
	for (uint32_t probe = 0; probe <= r->thr_mask; probe++, i = (i + 1) & r->thr_mask) {
		struct pcprof_raw_thread *t = &r->thr[i];
		int32_t cur = atomic_load_explicit(AI32(&t->tid), memory_order_acquire);
		if (cur == tid)
			return i;
		if (cur == 0) {
			int32_t zero = 0;
			if (atomic_compare_exchange_strong(AI32(&t->tid), &zero, tid)) {
				atomic_fetch_add(A32(&r->h->thr_used), 1);
				read_comm(tid, t->name);
				return i;
			}
			if (zero == tid)
				return i;
		}
	}
	return UINT32_MAX;
}

void profil__record(struct profil_rec *r, pid_t tid, uintptr_t pc, unsigned long weight,
		    bool signal)
{
	struct pcprof_raw_header *h = r->h;
	uint64_t n =
		signal ? atomic_fetch_add_explicit(A64(&h->signals), 1, memory_order_relaxed) : 1;
	atomic_fetch_add_explicit(A64(&h->ticks), weight, memory_order_relaxed);
	if (!signal)
		atomic_fetch_add_explicit(A64(&h->owed), weight, memory_order_relaxed);
	if ((n & 7) == 0) {
		/* CPU time for the achieved rate, even if the process is killed. */
		uint64_t cpu = profil__clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		if (cpu)
			atomic_store_explicit(A64(&h->cpu_ns), cpu, memory_order_relaxed);
	}

	uint32_t ti = thread_index(r, tid);
	if (ti == UINT32_MAX)
		atomic_fetch_add_explicit(A64(&h->lost_threads), weight, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(A64(&r->thr[ti].ticks), weight, memory_order_relaxed);
	uint32_t epoch = atomic_load_explicit(A32(&h->epoch), memory_order_acquire);

	uint64_t i = profil__mix64(pc ^ ((uint64_t)ti << 40) ^ ((uint64_t)epoch << 20));
	for (int probe = 0; probe < MAX_PROBE; probe++, i++) {
		struct pcprof_raw_slot *s = &r->slot[i & r->slot_mask];
		uint64_t key = atomic_load_explicit(A64(&s->key), memory_order_acquire);
		if (key == 0) {
			if (!atomic_compare_exchange_strong(A64(&s->key), &key,
							    PCPROF_RAW_SLOT_BUSY)) {
				if (key == PCPROF_RAW_SLOT_BUSY)
					continue;
				/* someone else filled it: fall through and compare */
			} else {
				s->thread = ti;
				s->epoch = epoch;
				atomic_store_explicit(A64(&s->count), weight, memory_order_relaxed);
				atomic_store_explicit(A64(&s->key), pc, memory_order_release);
				atomic_fetch_add_explicit(A64(&h->slot_used), 1,
							  memory_order_relaxed);
				return;
			}
		}
		if (key == pc && s->thread == ti && s->epoch == epoch) {
			atomic_fetch_add_explicit(A64(&s->count), weight, memory_order_relaxed);
			return;
		}
		/* BUSY (being filled by another thread) or another key: move on. */
	}
	atomic_fetch_add_explicit(A64(&h->lost), weight, memory_order_relaxed);
}

void profil__record_unsampled(struct profil_rec *r, unsigned long weight)
{
	atomic_fetch_add_explicit(A64(&r->h->unsampled), weight, memory_order_relaxed);
}

unsigned int profil__record_hz(void)
{
	struct profil_rec *r = atomic_load(&profil__rec);
	return r ? r->h->hz : 0;
}

/* ---- set-up (normal context) ---- */

static void use_map(void)
{
	struct pcprof_raw_header *h = map.h;
	rec.h = h;
	rec.thr = (struct pcprof_raw_thread *)((char *)h + h->thr_off);
	rec.slot = (struct pcprof_raw_slot *)((char *)h + h->slot_off);
	rec.slot_mask = h->slot_cap - 1;
	rec.thr_mask = h->thr_cap - 1;
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
	profil__raw_add_module(map.h, path, info->dlpi_addr, mem);
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

/* The image's file: the one the audit module made for this image, or a new
 * one.  A file whose image already ended (end != RUNNING) or that a sampler
 * already claimed belongs to a previous image of this pid. */
static bool attach_or_create(void)
{
	pid_t pid = getpid();
	int seq = profil__raw_last_seq(env.dir, pid);
	if (seq >= 0 && profil__raw_attach(env.dir, pid, seq, &map) == 0) {
		if ((map.h->flags & PCPROF_RAW_F_AUDIT) && map.h->end == PCPROF_END_RUNNING &&
		    !(map.h->flags & PCPROF_RAW_F_SAMPLER))
			return true;
		profil__raw_unmap(&map);
	}
	if (!profil__raw_wanted(&env, pid, (uint32_t)(seq + 1)))
		return false;
	return profil__raw_create(&env, pid, &map) == 0;
}

static void note_engine(void)
{
	struct profil_stats st;
	if (profil_stats(&st) == 0) {
		snprintf(map.h->engine, sizeof map.h->engine, "%s", st.engine);
		snprintf(map.h->why, sizeof map.h->why, "%s", st.why);
	}
	if (profil__user_time_only())
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
	struct raw_map prev = { 0 };
	if (profil__raw_attach(env.dir, h->pid, (int)h->seq - 1, &prev) == 0) {
		struct pcprof_raw_header *p = prev.h;
		uint32_t end = atomic_load(A32(&p->end));
		uint64_t cpu = atomic_load(A64(&p->cpu_ns));
		if (p->pid == h->pid && end == PCPROF_END_EXEC && p->exec_cpu_ns <= now &&
		    cpu <= h->cpu_start_ns) {
			origin = p->exec_cpu_ns;
			h->cpu_start_ns = cpu;
		} else if (p->pid == h->pid && end == PCPROF_END_EXIT) {
			origin = 0; /* that process is gone: a new one has its pid */
			h->cpu_start_ns = 0;
		}
		profil__raw_unmap(&prev);
	}
	return origin;
}

void profil__record_init(void)
{
	if (!profil__raw_env(&env) || !attach_or_create())
		return;
	struct pcprof_raw_header *h = map.h;
	h->flags |= PCPROF_RAW_F_SAMPLER;
	h->hz = profil__base_hz();
	profil__threads_image_start(image_origin(h));
	read_cmdline(h->cmdline, sizeof h->cmdline);
	snapshot_modules();
	use_map();
	atomic_store(&profil__rec, &rec);
	atexit(record_exit);
	profil__record_changed();
	note_engine();
}

static void finish(uint32_t end)
{
	struct pcprof_raw_header *h = map.h;
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
	snapshot_modules();
	finish(PCPROF_END_EXIT);
}

/* Control lock held, after the exec stop paid this image's ticks up to the
 * calling thread's CPU time `thread_cpu`: the next image counts from there
 * (image_origin). */
void profil__record_exec(uint64_t thread_cpu)
{
	if (atomic_load(&profil__rec)) {
		snapshot_modules();
		map.h->exec_cpu_ns = thread_cpu;
		finish(PCPROF_END_EXEC);
	}
}

void profil__record_exec_failed(void)
{
	if (atomic_load(&profil__rec)) {
		atomic_store(A64(&map.h->end_ns), 0);
		atomic_store(A32(&map.h->end), PCPROF_END_RUNNING);
	}
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
	if (env.follow && profil__raw_create(&env, getpid(), &map) == 0) {
		struct pcprof_raw_header *p = parent.h, *c = map.h;
		memcpy(c->engine, p->engine, sizeof c->engine);
		memcpy(c->why, p->why, sizeof c->why);
		memcpy(c->cmdline, p->cmdline, sizeof c->cmdline);
		c->hz = p->hz;
		c->cpu_start_ns = 0; /* a new process: its CPU clock started at the fork */
		c->flags = p->flags;
		c->epoch = p->epoch;
		uint32_t n = p->mod_count < c->mod_cap ? p->mod_count : c->mod_cap;
		memcpy(profil__raw_modules(c), profil__raw_modules(p),
		       n * sizeof(struct pcprof_raw_module));
		atomic_store(A32(&c->mod_count), n);
		use_map();
		atomic_store(&profil__rec, &rec);
	}
	profil__raw_unmap(&parent);
}
