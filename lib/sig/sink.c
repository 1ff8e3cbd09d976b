/*
 * sig/sink.c - the recorder's hot half (layer L1, the AS-safe zone; the
 * rules are in lib/sig/README): every profiling signal of a recorded
 * process adds its weight to a (pc, thread, module epoch, stack) slot of an
 * open-addressing table in the MAP_SHARED raw file, and its stack to the
 * trie of callers, so that nothing is buffered in the process.  The file,
 * its growing tables and the trie are described in lib/record.c (the
 * control half, which maps the file and publishes profil__rec) and
 * lib/record-format.h.
 *
 * AS-safe: atomics and raw system calls, no locks, no allocation; at most
 * 64 probes per level for each table entry, at most PROFIL_STACK_MAX nodes,
 * and when a level opens, one mremap (its mapping), one madvise (its
 * reservation) and, under RLIMIT_AS, a read of /proc/self/statm.  Includes only lib/internal.h,
 * lib/record-format.h and lib/sig/ (tests/abi/t-layers.sh).
 */
#include "sink.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>

#include "tslot.h"
#include "unwind.h"

#define MAX_PROBE 64 /* entries looked at per level */

struct profil_rec *_Atomic profil__rec;
_Atomic uint64_t profil__record_test_ns;

#define A64(p)  ((_Atomic uint64_t *)(p))
#define A32(p)  ((_Atomic uint32_t *)(p))
#define AI32(p) ((_Atomic int32_t *)(p))

/* Thread tid's name as the kernel has it now, into name (16 bytes, the
 * rest of it zero): false if tid is not a thread of this process. */
static bool read_comm(pid_t tid, char name[16])
{
	char path[48] = "/proc/self/task/";
	/* /proc may name threads by another pid namespace's ids (internal.h). */
	pid_t ptid = tid == profil__gettid() ? profil__proc_tid_self() : profil__proc_tid(tid);
	if (!ptid)
		return false;
	profil__strlcat_u(path, sizeof path, (unsigned long)ptid);
	profil__strlcat(path, sizeof path, "/comm");
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char buf[16];
	long n = syscall(SYS_read, fd, buf, sizeof buf);
	syscall(SYS_close, fd);
	if (n < 0)
		return false;
	long i = 0;
	for (; i < n && i < 15 && buf[i] != '\n'; i++)
		name[i] = buf[i];
	for (; i < 16; i++)
		name[i] = 0;
	return true;
}

static uint32_t open_levels(const struct profil_levels *t)
{
	uint32_t n = atomic_load_explicit(A32(&t->l->open), memory_order_acquire);
	return n == 0 ? 1 : n > t->max ? t->max : n;
}

/* Level k's first entry in this process (k below open_levels). */
static char *level_at(const struct profil_levels *t, uint32_t k)
{
	return atomic_load_explicit(&t->at[k], memory_order_acquire);
}

/* Entry i of level k for hash value `hash` and probe number `probe`: its
 * index counted from level 0's first entry, and (*e) where it is mapped. */
static uint64_t level_index(const struct profil_levels *t, uint32_t k, uint64_t hash,
			    uint32_t probe, char *at, char **e)
{
	uint64_t size = (uint64_t)t->base << k, i = (hash + probe) & (size - 1);
	*e = at + i * t->entry;
	return size - t->base + i;
}

/* Entry `index` (counted from level 0's first entry) of a level that is
 * open. */
static char *entry_at(const struct profil_levels *t, uint64_t index)
{
	uint64_t q = index / t->base + 1; /* in [2^k, 2^(k + 1)) for level k */
	uint32_t k = 63 - (uint32_t)__builtin_clzll(q);
	return level_at(t, k) + (index - (((uint64_t)t->base << k) - t->base)) * t->entry;
}

int profil__sink_map_level(struct profil_rec *r, struct profil_levels *t, uint32_t k)
{
	uint64_t ps, pl, ns, nl;
	profil__level_span(t, r->page, k - 1, &ps, &pl);
	profil__level_span(t, r->page, k, &ns, &nl);
	if (!profil__sink_room(atomic_load(&r->mapped), nl, r->page))
		return -ENOMEM;
	/* Level k - 1's mapping starts at ps; its last page is ns. */
	char *prev = level_at(t, k - 1) - (profil__level_off(t, k - 1) - ps);
	int saved = errno;
	long p = syscall(SYS_mremap, prev + (ns - ps), 0, nl, MREMAP_MAYMOVE);
	if (p == -1) {
		int e = errno;
		errno = saved;
		return -e;
	}
	uint64_t first = profil__level_off(t, k);
	int e = profil__sink_populate((void *)p, nl, r->page, first - ns,
				      ((uint64_t)t->base << k) * t->entry);
	if (e < 0) {
		syscall(SYS_munmap, p, nl);
		errno = saved;
		return e;
	}
	atomic_fetch_add(&r->mapped, nl);
	atomic_store_explicit(&t->at[k], (char *)p + (first - ns), memory_order_release);
	errno = saved;
	return 0;
}

/* Level `top` is half full, or had no room: map, reserve and open the next
 * one.  One writer at a time; a failed mapping or reservation is not tried
 * again (its errno tells pcprof why samples were lost). */
static void grow(struct profil_rec *r, struct profil_levels *t, uint32_t top)
{
	uint32_t idle = 0;
	if (top + 1 >= t->max || !atomic_compare_exchange_strong(A32(&t->l->growing), &idle, 1))
		return;
	if (open_levels(t) == top + 1) {
		int e = profil__sink_map_level(r, t, top + 1);
		if (e < 0) {
			atomic_store(AI32(&t->l->error), -e);
			return;
		}
		atomic_store_explicit(A32(&t->l->open), top + 2, memory_order_release);
	}
	atomic_store(A32(&t->l->growing), 0);
}

static void taken(struct profil_rec *r, struct profil_levels *t, uint32_t k)
{
	uint64_t n = atomic_fetch_add_explicit(A64(&t->l->used[k]), 1, memory_order_relaxed) + 1;
	if (2 * n >= (uint64_t)t->base << k)
		grow(r, t, k);
}

/* Claim for tid the first free entry of its probes in level k (below the
 * top): its index, or UINT32_MAX if the probes met none. */
static uint32_t thread_below(struct profil_rec *r, pid_t tid, uint64_t hash, uint32_t k)
{
	struct profil_levels *t = &r->thr;
	char *at = level_at(t, k), *p;
	for (uint32_t probe = 0; probe < MAX_PROBE && probe < (uint64_t)t->base << k; probe++) {
		uint64_t i = level_index(t, k, hash, probe, at, &p);
		struct pcprof_raw_thread *e = (struct pcprof_raw_thread *)p;
		int32_t cur = 0;
		if (atomic_compare_exchange_strong(AI32(&e->tid), &cur, tid)) {
			read_comm(tid, e->name);
			atomic_fetch_add_explicit(A64(&t->l->used[k]), 1, memory_order_relaxed);
			return (uint32_t)i;
		}
		if (cur == tid)
			return (uint32_t)i;
	}
	return UINT32_MAX;
}

/* Thread tid's index in the thread table; with add, a new entry if it has
 * none; UINT32_MAX if it has none (or, with add, there is no room).
 * Threads never leave, so a probe that meets a free entry in a lower level
 * knows the thread is not in that level.  New threads go to the top level,
 * which opens the next at half full, so that probes stay short; once no
 * level can open (the last is open, or the next could not be had), a new
 * thread takes the first free entry of its probes in a level below, from
 * the top down, so that the table holds as many threads as it has entries
 * (16352) and not only half of each level below the last (12272, issue
 * 19).  An entry found free there, by a search or by this, was the first
 * free one of that level's probes; so is the one taken. */
static uint32_t thread_index(struct profil_rec *r, pid_t tid, bool add)
{
	struct profil_levels *t = &r->thr;
	uint64_t hash = profil__mix64((uint64_t)tid);
	uint32_t levels = open_levels(t);
	for (uint32_t k = 0; k < levels; k++) {
		char *at = level_at(t, k), *p;
		for (uint32_t probe = 0; probe < MAX_PROBE && probe < (uint64_t)t->base << k;
		     probe++) {
			uint64_t i = level_index(t, k, hash, probe, at, &p);
			struct pcprof_raw_thread *e = (struct pcprof_raw_thread *)p;
			int32_t cur = atomic_load_explicit(AI32(&e->tid), memory_order_acquire);
			if (cur == tid)
				return (uint32_t)i;
			if (cur != 0)
				continue;
			if (k + 1 < levels)
				break;
			if (!add)
				return UINT32_MAX;
			if (atomic_compare_exchange_strong(AI32(&e->tid), &cur, tid)) {
				read_comm(tid, e->name);
				taken(r, t, k);
				return (uint32_t)i;
			}
			if (cur == tid)
				return (uint32_t)i;
		}
	}
	if (!add)
		return UINT32_MAX;
	grow(r, t, levels - 1);
	if (open_levels(t) != levels)
		return UINT32_MAX; /* a level opened: the next sample goes there */
	for (uint32_t k = levels - 1; k-- > 0;) {
		uint32_t i = thread_below(r, tid, hash, k);
		if (i != UINT32_MAX)
			return i;
	}
	return UINT32_MAX;
}

/* Read entry e's name again from the kernel, if its thread is still one
 * of this process: a thread's name is read at its first sample, and a
 * thread that names itself later (a pool worker, python's prctl) would keep
 * the name it was born with. */
static void rename_entry(struct pcprof_raw_thread *e)
{
	int32_t tid = atomic_load_explicit(AI32(&e->tid), memory_order_acquire);
	char name[16];
	if (tid && read_comm(tid, name))
		memcpy(e->name, name, sizeof name);
}

/* Called by the control half where the process ends or execs
 * (lib/record.c); not on the signal path, though AS-safe. */
void profil__sink_rename_all(struct profil_rec *r)
{
	uint32_t levels = open_levels(&r->thr);
	for (uint32_t k = 0; k < levels; k++) {
		struct pcprof_raw_thread *thr = (struct pcprof_raw_thread *)level_at(&r->thr, k);
		for (uint64_t i = 0; i < (uint64_t)r->thr.base << k; i++)
			rename_entry(&thr[i]);
	}
}

/* Claim entry n of level k for (parent, pc).  false if another thread
 * took it first. */
static bool node_claim(struct profil_rec *r, struct pcprof_raw_node *n, uint32_t k, uint32_t parent,
		       uint64_t pc, uint64_t *cur)
{
	if (!atomic_compare_exchange_strong(A64(&n->pc), cur, PCPROF_RAW_NODE_BUSY))
		return false;
	n->parent = parent;
	atomic_store_explicit(A64(&n->pc), pc, memory_order_release);
	taken(r, &r->node, k);
	return true;
}

/*
 * The node of (parent, pc): one found in any level, or a new one in the
 * top level; UINT32_MAX if there is no room.  *made: a new one.  Like
 * threads, nodes never leave, so a probe that meets a free node in a lower
 * level knows the key is not in that level.  A node being filled by
 * another thread is passed over: at worst (parent, pc) gets a second node,
 * which readers merge.
 *
 * The top level first, then down: the levels double, so a node is most
 * likely in the largest, where a search from level 0 up read every level
 * first (nine, one cache line or more each, in cc1plus's recording).  And
 * a parent made in this same stack (fresh) has no child anywhere yet but
 * where another thread may have just put one, the top level: a stack that
 * leaves the known paths costs one search, not one per frame.
 */
static uint32_t node_index(struct profil_rec *r, uint32_t parent, uint64_t pc, bool fresh,
			   bool *made)
{
	struct profil_levels *t = &r->node;
	uint64_t hash = profil__mix64(pc ^ ((uint64_t)parent * UINT64_C(0x9e3779b97f4a7c15)));
	uint32_t levels = open_levels(t), top = levels - 1, free_probe = UINT32_MAX;
	*made = false;
	for (uint32_t k = top + 1; k-- > (fresh ? top : 0);) {
		char *at = level_at(t, k), *p;
		for (uint32_t probe = 0; probe < MAX_PROBE && probe < (uint64_t)t->base << k;
		     probe++) {
			level_index(t, k, hash, probe, at, &p);
			struct pcprof_raw_node *n = (struct pcprof_raw_node *)p;
			uint64_t cur = atomic_load_explicit(A64(&n->pc), memory_order_acquire);
			if (cur == 0) {
				if (k == top)
					free_probe = probe; /* taken if no level has it */
				break;
			}
			if (cur == pc && n->parent == parent)
				return (uint32_t)level_index(t, k, hash, probe, at, &p);
		}
	}
	/* In no level: the top level's first free entry, or the next one
	 * free if another thread took it (which may have been this key). */
	char *at = level_at(t, top), *p;
	for (uint32_t probe = free_probe; probe < MAX_PROBE && probe < (uint64_t)t->base << top;
	     probe++) {
		uint64_t i = level_index(t, top, hash, probe, at, &p);
		struct pcprof_raw_node *n = (struct pcprof_raw_node *)p;
		uint64_t cur = atomic_load_explicit(A64(&n->pc), memory_order_acquire);
		if (cur == 0 && node_claim(r, n, top, parent, pc, &cur)) {
			*made = true;
			return (uint32_t)i;
		}
		if (cur == pc && n->parent == parent)
			return (uint32_t)i;
	}
	grow(r, t, top);
	return UINT32_MAX;
}

/*
 * The node of a stack's callers, stack[1 .. depth - 1] (stack[0] is the
 * sampled pc, which the slot holds): PCPROF_RAW_ROOT if it has none.
 * Inserted outermost first, so that a full trie keeps the outer callers,
 * which most stacks share; then *flags gets PCPROF_RAW_SLOT_CUT.  A caller
 * that cannot be an address (0, or the busy mark, which only an injected
 * stack could hold) ends the stack as "[unknown]".  With memo (the
 * thread's, sig/unwind.h), the outer callers this stack shares with the
 * thread's last one take their nodes from it.
 */
static uint32_t stack_node(struct profil_rec *r, const uintptr_t *stack, int depth, uint32_t *flags,
			   struct profil_stack_memo *memo, bool *made)
{
	uint64_t last = 0;
	for (int i = 1; i < depth; i++) {
		if (stack[i] == 0 || stack[i] == PCPROF_RAW_NODE_BUSY) {
			depth = i + 1;
			last = PCPROF_FRAME_UNKNOWN;
			break;
		}
	}
	uint32_t node = PCPROF_RAW_ROOT, n = (uint32_t)depth - 1, j = 0;
	if (memo) {
		uint64_t token = r->h->token;
		if (memo->token != token) {
			memo->token = token;
			memo->n = 0;
		}
		for (; j < n && j < memo->n; j++) {
			uint64_t key = last && j == 0 ? last : stack[depth - 1 - j];
			if (memo->key[j] != key)
				break;
			node = memo->node[j];
		}
		memo->n = j;
	}
	bool fresh = false;
	*made = false;
	for (; j < n; j++) {
		uint64_t key = last && j == 0 ? last : stack[depth - 1 - j];
		uint32_t next = node_index(r, node, key, fresh, &fresh);
		if (next == UINT32_MAX) {
			*flags |= PCPROF_RAW_SLOT_CUT;
			break;
		}
		node = next;
		*made = fresh;
		if (memo) {
			memo->key[j] = key;
			memo->node[j] = node;
			memo->n = j + 1;
		}
	}
	return node;
}

/*
 * The time bucket of a sample taken now: one read of CLOCK_MONOTONIC
 * (clock_gettime is async-signal-safe, and the vDSO makes it a few tens of
 * nanoseconds), or PCPROF_RAW_NO_BUCKET without a timeline.  A bucket is a
 * slot's key like its pc, so the timeline costs no table of its own: a pc
 * sampled in n buckets takes n slots.
 */
static uint32_t time_bucket(const struct profil_rec *r)
{
	if (!r->tl_bucket)
		return PCPROF_RAW_NO_BUCKET;
	uint64_t t = atomic_load_explicit(&profil__record_test_ns, memory_order_relaxed), since;
	if (t)
		since = t - 1;
	else {
		/* It cannot fail, but the owed ticks of an exiting thread are
		 * recorded where the program's errno must survive. */
		int saved = errno;
		uint64_t now = profil__clock_ns(CLOCK_MONOTONIC);
		errno = saved;
		since = now > r->tl_origin ? now - r->tl_origin : 0;
	}
	uint64_t b = since / r->tl_bucket;
	return b < PCPROF_RAW_NO_BUCKET ? (uint32_t)b : PCPROF_RAW_NO_BUCKET;
}

/* Timed slots stop when the pc table opens its last level: that level,
 * half the table, is left to the untimed profile, so that a long run
 * loses the timeline's end, never samples. */
static bool timeline_room(const struct profil_rec *r)
{
	return open_levels(&r->slot) < r->slot.max;
}

/* Fill free entry s of level k with a slot (its key last).  false if
 * another thread took it first. */
static bool slot_claim(struct profil_rec *r, struct pcprof_raw_slot *s, uint32_t k, uint64_t pc,
		       uint32_t ti, uint32_t epoch, uint32_t node, uint32_t flags, uint32_t bucket,
		       unsigned long weight, uint64_t *key)
{
	if (!atomic_compare_exchange_strong(A64(&s->key), key, PCPROF_RAW_SLOT_BUSY))
		return false;
	s->thread = ti;
	s->epoch = epoch;
	s->node = node;
	s->flags = flags;
	s->bucket = bucket;
	atomic_store_explicit(A64(&s->count), weight, memory_order_relaxed);
	atomic_store_explicit(A64(&s->key), pc, memory_order_release);
	taken(r, &r->slot, k);
	if (bucket != PCPROF_RAW_NO_BUCKET) {
		uint32_t was = atomic_load_explicit(&r->slot_bucket[k], memory_order_relaxed);
		while (bucket > was && !atomic_compare_exchange_weak_explicit(
					       &r->slot_bucket[k], &was, bucket,
					       memory_order_relaxed, memory_order_relaxed))
			;
	}
	return true;
}

/*
 * Add weight to the slot of (pc, ti, epoch, node, flags, bucket): one found
 * in any level, or a new one in the top level.  The top level first, then
 * down, as for nodes; and a level below the top is searched only if the
 * slot could be there: not for a node made for this sample (fresh), nor
 * for a time bucket later than any slot that level was given (the timeline
 * makes most samples' slots new, and a search from level 0 up read every
 * level for each).  A slot another thread adds meanwhile may so get a
 * second entry, which readers add up.
 */
static bool store(struct profil_rec *r, uint64_t pc, uint32_t ti, uint32_t epoch, uint32_t node,
		  uint32_t flags, uint32_t bucket, bool fresh, unsigned long weight)
{
	struct profil_levels *t = &r->slot;
	uint64_t hash = profil__mix64(pc ^ ((uint64_t)ti << 40) ^ ((uint64_t)epoch << 20) ^
				      ((uint64_t)node * UINT64_C(0x9e3779b97f4a7c15)) ^ flags ^
				      ((uint64_t)bucket << 44));
	uint32_t levels = open_levels(t), top = levels - 1, free_probe = UINT32_MAX;
	for (uint32_t k = top + 1; k-- > 0;) {
		if (k < top && (fresh || (bucket != PCPROF_RAW_NO_BUCKET &&
					  bucket > atomic_load_explicit(&r->slot_bucket[k],
									memory_order_relaxed))))
			continue;
		char *at = level_at(t, k), *p;
		for (uint32_t probe = 0; probe < MAX_PROBE && probe < (uint64_t)t->base << k;
		     probe++) {
			level_index(t, k, hash, probe, at, &p);
			struct pcprof_raw_slot *s = (struct pcprof_raw_slot *)p;
			uint64_t key = atomic_load_explicit(A64(&s->key), memory_order_acquire);
			if (key == 0) {
				if (k == top)
					free_probe = probe;
				break;
			}
			if (key == pc && s->thread == ti && s->epoch == epoch && s->node == node &&
			    s->flags == flags && s->bucket == bucket) {
				atomic_fetch_add_explicit(A64(&s->count), weight,
							  memory_order_relaxed);
				return true;
			}
			/* BUSY (being filled by another thread) or another key: move on. */
		}
	}
	char *at = level_at(t, top), *p;
	for (uint32_t probe = free_probe; probe < MAX_PROBE && probe < (uint64_t)t->base << top;
	     probe++) {
		level_index(t, top, hash, probe, at, &p);
		struct pcprof_raw_slot *s = (struct pcprof_raw_slot *)p;
		uint64_t key = atomic_load_explicit(A64(&s->key), memory_order_acquire);
		if (key == 0 &&
		    slot_claim(r, s, top, pc, ti, epoch, node, flags, bucket, weight, &key))
			return true;
		/* someone else took it: compare with theirs */
		if (key == pc && s->thread == ti && s->epoch == epoch && s->node == node &&
		    s->flags == flags && s->bucket == bucket) {
			atomic_fetch_add_explicit(A64(&s->count), weight, memory_order_relaxed);
			return true;
		}
	}
	grow(r, t, top);
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

	uint32_t ti = thread_index(r, tid, true);
	if (ti == UINT32_MAX)
		atomic_fetch_add_explicit(A64(&h->lost_threads), weight, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(
			A64(&((struct pcprof_raw_thread *)entry_at(&r->thr, ti))->ticks), weight,
			memory_order_relaxed);
	uint32_t epoch = atomic_load_explicit(A32(&h->epoch), memory_order_acquire);
	uint32_t node = PCPROF_RAW_NO_STACK, flags = 0;
	bool fresh = false; /* node made for this stack: its slots are new */
	if (r->node.max && stack && depth > 0) {
		/* The thread's own walk: its memory of the last stack. */
		struct profil_thread *t = profil__thread_self();
		struct profil_stack_memo *memo =
			t && t->walk && stack == t->walk->pcs ? &t->walk->memo : NULL;
		node = stack_node(r, stack, depth < PROFIL_STACK_MAX ? depth : PROFIL_STACK_MAX,
				  &flags, memo, &fresh);
	}
	uint32_t bucket = time_bucket(r);
	bool stored = false;
	if (bucket != PCPROF_RAW_NO_BUCKET) {
		stored = timeline_room(r) &&
			 store(r, pc, ti, epoch, node, flags, bucket, fresh, weight);
		if (!stored) {
			/* The timeline is partial from this bucket on. */
			uint32_t none = 0;
			atomic_fetch_add_explicit(A64(&h->tl_lost), weight, memory_order_relaxed);
			atomic_compare_exchange_strong(A32(&h->tl_lost_from), &none, bucket + 1);
		}
	}
	if (!stored)
		stored = store(r, pc, ti, epoch, node, flags, PCPROF_RAW_NO_BUCKET, fresh, weight);
	if (!stored)
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

void profil__record_thread_end(void)
{
	struct profil_rec *r = atomic_load(&profil__rec);
	uint32_t ti = r ? thread_index(r, profil__gettid(), false) : UINT32_MAX;
	if (ti != UINT32_MAX)
		rename_entry((struct pcprof_raw_thread *)entry_at(&r->thr, ti));
}

void profil__record_unsampled(struct profil_rec *r, unsigned long weight)
{
	atomic_fetch_add_explicit(A64(&r->h->unsampled), weight, memory_order_relaxed);
}

void profil__sink_stop(uint32_t why, uint64_t cpu_ns)
{
	struct profil_rec *r = atomic_exchange(&profil__rec, NULL);
	if (!r)
		return;
	struct pcprof_raw_header *h = r->h;
	atomic_store(A64(&h->stop_cpu_ns),
		     cpu_ns ? cpu_ns : atomic_load_explicit(A64(&h->cpu_ns), memory_order_relaxed));
	atomic_store(A32(&h->stop_why), why);
}

void profil__record_blocked(struct profil_rec *r, unsigned long weight, bool first)
{
	atomic_fetch_add_explicit(A64(&r->h->blocked), weight, memory_order_relaxed);
	if (first)
		atomic_fetch_add_explicit(A32(&r->h->blocked_threads), 1, memory_order_relaxed);
}

void profil__record_gap_flag(uint32_t flags)
{
	struct profil_rec *r = atomic_load(&profil__rec);
	if (r &&
	    (atomic_load_explicit(A32(&r->h->gap_flags), memory_order_relaxed) & flags) != flags)
		atomic_fetch_or_explicit(A32(&r->h->gap_flags), flags, memory_order_relaxed);
}

unsigned int profil__record_hz(void)
{
	struct profil_rec *r = atomic_load(&profil__rec);
	return r ? r->h->hz : 0;
}
