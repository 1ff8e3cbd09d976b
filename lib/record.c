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
 * profil__record is on the signal path (AS-safe: atomics, raw syscalls, no
 * locks; at most 64 probes per level for each table entry, at most
 * PROFIL_STACK_MAX nodes, and one madvise when a level opens).  Everything
 * else runs in normal context.
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
#include "sig/unwind.h"

#define MAX_PROBE 64 /* entries looked at per level */

/* A growing table (record-format.h) as checked at attach: where its levels
 * are in our mapping and how many there may be; only `open` and the counts
 * are read from the shared header, and bounded by these. */
struct levels {
	struct pcprof_raw_levels *l;
	char *at; /* level 0 */
	uint32_t base, max;
	size_t entry;
};

struct profil_rec {
	struct pcprof_raw_header *h;
	const struct raw_map *map;
	struct levels thr, slot;
	struct levels node; /* max 0: no stacks */
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

static uint32_t open_levels(const struct levels *t)
{
	uint32_t n = atomic_load_explicit(A32(&t->l->open), memory_order_acquire);
	return n == 0 ? 1 : n > t->max ? t->max : n;
}

/* Entry i of level k for hash value `hash` and probe number `probe`. */
static uint64_t level_index(const struct levels *t, uint32_t k, uint64_t hash, uint32_t probe)
{
	uint64_t size = (uint64_t)t->base << k;
	return size - t->base + ((hash + probe) & (size - 1));
}

/* Level `top` is half full, or had no room: reserve and open the next one.
 * One writer at a time; a failed reservation is not tried again (its errno
 * tells pcprof why samples were lost). */
static void grow(struct profil_rec *r, struct levels *t, uint32_t top)
{
	uint32_t idle = 0;
	if (top + 1 >= t->max || !atomic_compare_exchange_strong(A32(&t->l->growing), &idle, 1))
		return;
	if (open_levels(t) == top + 1) {
		uint64_t size = (uint64_t)t->base << (top + 1);
		uint64_t off = (uint64_t)(t->at - (char *)r->h) + (size - t->base) * t->entry;
		int e = profil__raw_reserve(r->map, off, size * t->entry);
		if (e < 0) {
			atomic_store(AI32(&t->l->error), -e);
			return;
		}
		atomic_store_explicit(A32(&t->l->open), top + 2, memory_order_release);
	}
	atomic_store(A32(&t->l->growing), 0);
}

static void taken(struct profil_rec *r, struct levels *t, uint32_t k)
{
	uint64_t n = atomic_fetch_add_explicit(A64(&t->l->used[k]), 1, memory_order_relaxed) + 1;
	if (2 * n >= (uint64_t)t->base << k)
		grow(r, t, k);
}

/* Thread tid's index in the thread table, or UINT32_MAX if there is no
 * room.  Threads never leave, so a probe that meets a free entry in a lower
 * level knows the thread is not in that level. */
static uint32_t thread_index(struct profil_rec *r, pid_t tid)
{
	struct levels *t = &r->thr;
	struct pcprof_raw_thread *thr = (struct pcprof_raw_thread *)t->at;
	uint64_t hash = profil__mix64((uint64_t)tid);
	uint32_t levels = open_levels(t);
	for (uint32_t k = 0; k < levels; k++) {
		for (uint32_t probe = 0; probe < MAX_PROBE && probe < (uint64_t)t->base << k;
		     probe++) {
			uint64_t i = level_index(t, k, hash, probe);
			struct pcprof_raw_thread *e = &thr[i];
			int32_t cur = atomic_load_explicit(AI32(&e->tid), memory_order_acquire);
			if (cur == tid)
				return (uint32_t)i;
			if (cur != 0)
				continue;
			if (k + 1 < levels)
				break;
			if (atomic_compare_exchange_strong(AI32(&e->tid), &cur, tid)) {
				read_comm(tid, e->name);
				taken(r, t, k);
				return (uint32_t)i;
			}
			if (cur == tid)
				return (uint32_t)i;
		}
	}
	grow(r, t, levels - 1);
	return UINT32_MAX;
}

/* The node of (parent, pc): the first one found in any level, or a new one
 * in the top level; UINT32_MAX if there is no room.  Like threads, nodes
 * never leave, so a probe that meets a free node in a lower level knows the
 * key is not in that level.  A node being filled by another thread is
 * passed over: at worst (parent, pc) gets a second node, which readers
 * merge. */
static uint32_t node_index(struct profil_rec *r, uint32_t parent, uint64_t pc)
{
	struct levels *t = &r->node;
	struct pcprof_raw_node *nodes = (struct pcprof_raw_node *)t->at;
	uint64_t hash = profil__mix64(pc ^ ((uint64_t)parent * UINT64_C(0x9e3779b97f4a7c15)));
	uint32_t levels = open_levels(t);
	for (uint32_t k = 0; k < levels; k++) {
		for (uint32_t probe = 0; probe < MAX_PROBE && probe < (uint64_t)t->base << k;
		     probe++) {
			uint64_t i = level_index(t, k, hash, probe);
			struct pcprof_raw_node *n = &nodes[i];
			uint64_t cur = atomic_load_explicit(A64(&n->pc), memory_order_acquire);
			if (cur == 0) {
				if (k + 1 < levels)
					break;
				if (atomic_compare_exchange_strong(A64(&n->pc), &cur,
								   PCPROF_RAW_NODE_BUSY)) {
					n->parent = parent;
					atomic_store_explicit(A64(&n->pc), pc,
							      memory_order_release);
					taken(r, t, k);
					return (uint32_t)i;
				}
			}
			if (cur == pc && n->parent == parent)
				return (uint32_t)i;
		}
	}
	grow(r, t, levels - 1);
	return UINT32_MAX;
}

/*
 * The node of a stack's callers, stack[1 .. depth - 1] (stack[0] is the
 * sampled pc, which the slot holds): PCPROF_RAW_ROOT if it has none.
 * Inserted outermost first, so that a full trie keeps the outer callers,
 * which most stacks share; then *flags gets PCPROF_RAW_SLOT_CUT.  A caller
 * that cannot be an address (0, or the busy mark, which only an injected
 * stack could hold) ends the stack as "[unknown]".
 */
static uint32_t stack_node(struct profil_rec *r, const uintptr_t *stack, int depth, uint32_t *flags)
{
	uint64_t last = 0;
	for (int i = 1; i < depth; i++) {
		if (stack[i] == 0 || stack[i] == PCPROF_RAW_NODE_BUSY) {
			depth = i + 1;
			last = PCPROF_FRAME_UNKNOWN;
			break;
		}
	}
	uint32_t node = PCPROF_RAW_ROOT;
	for (int i = depth - 1; i >= 1; i--) {
		uint32_t next = node_index(r, node, last && i == depth - 1 ? last : stack[i]);
		if (next == UINT32_MAX) {
			*flags |= PCPROF_RAW_SLOT_CUT;
			break;
		}
		node = next;
	}
	return node;
}

/* Add weight to the slot of (pc, ti, epoch, node, flags): the first one
 * found in any level, or a new one in the top level. */
static bool store(struct profil_rec *r, uint64_t pc, uint32_t ti, uint32_t epoch, uint32_t node,
		  uint32_t flags, unsigned long weight)
{
	struct levels *t = &r->slot;
	struct pcprof_raw_slot *slots = (struct pcprof_raw_slot *)t->at;
	uint64_t hash = profil__mix64(pc ^ ((uint64_t)ti << 40) ^ ((uint64_t)epoch << 20) ^
				      ((uint64_t)node * UINT64_C(0x9e3779b97f4a7c15)) ^ flags);
	uint32_t levels = open_levels(t);
	for (uint32_t k = 0; k < levels; k++) {
		for (uint32_t probe = 0; probe < MAX_PROBE && probe < (uint64_t)t->base << k;
		     probe++) {
			struct pcprof_raw_slot *s = &slots[level_index(t, k, hash, probe)];
			uint64_t key = atomic_load_explicit(A64(&s->key), memory_order_acquire);
			if (key == 0) {
				if (k + 1 < levels)
					break;
				if (atomic_compare_exchange_strong(A64(&s->key), &key,
								   PCPROF_RAW_SLOT_BUSY)) {
					s->thread = ti;
					s->epoch = epoch;
					s->node = node;
					s->flags = flags;
					atomic_store_explicit(A64(&s->count), weight,
							      memory_order_relaxed);
					atomic_store_explicit(A64(&s->key), pc,
							      memory_order_release);
					taken(r, t, k);
					return true;
				}
				/* someone else took it: compare with theirs */
			}
			if (key == pc && s->thread == ti && s->epoch == epoch && s->node == node &&
			    s->flags == flags) {
				atomic_fetch_add_explicit(A64(&s->count), weight,
							  memory_order_relaxed);
				return true;
			}
			/* BUSY (being filled by another thread) or another key: move on. */
		}
	}
	grow(r, t, levels - 1);
	return false;
}

void profil__record(struct profil_rec *r, pid_t tid, uintptr_t pc, const uintptr_t *stack,
		    int depth, unsigned long weight, bool signal)
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
		atomic_fetch_add_explicit(A64(&((struct pcprof_raw_thread *)r->thr.at)[ti].ticks),
					  weight, memory_order_relaxed);
	uint32_t epoch = atomic_load_explicit(A32(&h->epoch), memory_order_acquire);
	uint32_t node = PCPROF_RAW_NO_STACK, flags = 0;
	if (r->node.max && stack && depth > 0)
		node = stack_node(r, stack, depth < PROFIL_STACK_MAX ? depth : PROFIL_STACK_MAX,
				  &flags);
	if (!store(r, pc, ti, epoch, node, flags, weight))
		atomic_fetch_add_explicit(A64(&h->lost), weight, memory_order_relaxed);
	else if (flags & PCPROF_RAW_SLOT_CUT)
		atomic_fetch_add_explicit(A64(&h->stack_cut), weight, memory_order_relaxed);
}

bool profil__record_stacks(void)
{
	struct profil_rec *r = atomic_load(&profil__rec);
	return r && r->node.max;
}

void profil__record_thread_loss(bool unseen)
{
	struct profil_rec *r = atomic_load(&profil__rec);
	if (r)
		atomic_fetch_add(A64(unseen ? &r->h->threads_unseen : &r->h->threads_unsampled), 1);
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

static void use_levels(struct levels *t, struct pcprof_raw_levels *l, const struct raw_table *c,
		       size_t entry)
{
	*t = (struct levels){ l, (char *)map.h + c->off, c->base, c->max, entry };
}

static void use_map(void)
{
	rec.h = map.h;
	rec.map = &map;
	use_levels(&rec.thr, &map.h->thr, &map.thr, sizeof(struct pcprof_raw_thread));
	use_levels(&rec.slot, &map.h->slot, &map.slot, sizeof(struct pcprof_raw_slot));
	if (map.node.max)
		use_levels(&rec.node, &map.h->node, &map.node, sizeof(struct pcprof_raw_node));
	else
		rec.node = (struct levels){ 0 };
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
	pid_t pid = getpid();
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
	struct pcprof_raw_header p;
	if (profil__raw_read_header(env.dir, h->pid, (int)h->seq - 1, &p) == 0) {
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
	struct pcprof_raw_header *p = parent.h;
	uint32_t n = atomic_load(A32(&p->mod_count)), reserved = atomic_load(A32(&p->mod_reserved));
	n = n < reserved ? n : reserved;
	n = n < parent.mod_cap ? n : parent.mod_cap;
	if (env.follow && profil__raw_create(&env, getpid(), n, &map) == 0) {
		struct pcprof_raw_header *c = map.h;
		memcpy(c->engine, p->engine, sizeof c->engine);
		memcpy(c->why, p->why, sizeof c->why);
		memcpy(c->cmdline, p->cmdline, sizeof c->cmdline);
		c->hz = p->hz;
		c->cpu_start_ns = 0; /* a new process: its CPU clock started at the fork */
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
