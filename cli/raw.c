/*
 * raw.c - from the raw recordings of lib/record-format.h to the profile
 * model.
 *
 * A recording is shared memory that a process wrote until it died, however
 * it died, so nothing in it is trusted: every offset and count is checked
 * against the file's size before it is used, strings are bounded by their
 * arrays, and an index that points nowhere is attributed to "no module" or
 * to a catch-all thread rather than dropped.  Reading uses pread into our
 * own buffers, never a mapping, so a file that shrank cannot fault us.
 *
 * The slot table may hold one pc in several slots (a writer that met a slot
 * being filled moved on), and one pc under several module generations;
 * samples are keyed by (module, pc, thread, leaf frame) and summed.
 *
 * Stacks.  A slot names the trie node of its innermost caller; the trie
 * knows pcs only, and a pc's module depends on the slot's module generation
 * (an address reused after dlclose), so frames are made per (node, epoch)
 * and merged on (pc, module, parent frame): one frame tree per process,
 * parents first, whatever nodes and epochs it came from.
 */
#include "raw.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data.h"
#include "frames.h"
#include "record-format.h"
#include "util.h"

#define SLOT_CHUNK 65536 /* slots read at a time */
#define MAX_CHAIN  256   /* frames of a stack (lib/sig/unwind.h PROFIL_STACK_MAX) */

static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	uint8_t *p = buf;
	while (n) {
		ssize_t k = pread(fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

static char *bounded_dup(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

/* Levels to read: the ones the image opened, within what the header checked. */
static uint32_t open_levels(const struct pcprof_raw_levels *l)
{
	return l->open < l->max ? l->open : l->max;
}

static void convert_modules(int fd, const struct pcprof_raw_header *h, struct pp_process *pr,
			    struct raw_info *info)
{
	uint32_t n = h->mod_count;
	if (n > h->mod_reserved)
		n = h->mod_reserved; /* beyond: never reserved, never written */
	info->lost_modules = h->lost_modules;
	struct pcprof_raw_module *raw = xcalloc(n ? n : 1, sizeof *raw);
	if (read_at(fd, raw, (size_t)n * sizeof *raw, h->mod_off) < 0)
		n = 0;
	pr->modules = xcalloc(n ? n : 1, sizeof *pr->modules);
	pr->nmodules = n;
	for (uint32_t i = 0; i < n; i++) {
		const struct pcprof_raw_module *r = &raw[i];
		struct pp_module *m = &pr->modules[i];
		m->path = bounded_dup(r->path, sizeof r->path);
		m->build_id_len = r->build_id_len <= sizeof m->build_id ? r->build_id_len : 0;
		memcpy(m->build_id, r->build_id, m->build_id_len);
		m->bias = r->bias;
		m->epoch_loaded = r->epoch_loaded;
		m->epoch_unloaded = r->epoch_unloaded;
		m->nsegs = r->nsegs <= PCPROF_RAW_MAX_SEGS ? r->nsegs : PCPROF_RAW_MAX_SEGS;
		for (uint32_t k = 0; k < m->nsegs; k++) {
			m->seg[k].vaddr = r->seg[k].vaddr;
			m->seg[k].memsz = r->seg[k].memsz;
			m->seg[k].offset = r->seg[k].offset;
			m->seg[k].flags = r->seg[k].flags;
		}
	}
	free(raw);
}

/* Threads in table order; map[i] is the profile index of raw thread i.
 * Samples whose thread is not in the table go to an "[other]" thread made
 * on demand by thread_index. */
struct threads {
	uint32_t *map;
	uint32_t cap;
	uint32_t other;
};

/* The threads, in table order, and only those: the process keeps their
 * entries for as long as pcprof holds the profile. */
static void convert_threads(int fd, const struct pcprof_raw_header *h, struct pp_process *pr,
			    struct threads *t)
{
	uint32_t cap = (uint32_t)pcprof_raw_level_first(&h->thr, open_levels(&h->thr));
	struct pcprof_raw_thread *raw = xcalloc(cap ? cap : 1, sizeof *raw);
	if (read_at(fd, raw, (size_t)cap * sizeof *raw, h->thr.off) < 0)
		cap = 0;
	size_t used = 0;
	for (uint32_t i = 0; i < cap; i++)
		used += raw[i].tid != 0;
	t->map = xmalloc((cap ? cap : 1) * sizeof *t->map);
	t->cap = cap;
	t->other = UINT32_MAX;
	/* one spare entry for "[other]" */
	pr->threads = xcalloc(used + 1, sizeof *pr->threads);
	for (uint32_t i = 0; i < cap; i++) {
		t->map[i] = UINT32_MAX;
		if (raw[i].tid == 0)
			continue;
		struct pp_thread *th = &pr->threads[pr->nthreads];
		th->tid = raw[i].tid;
		memcpy(th->name, raw[i].name, sizeof th->name - 1);
		th->name[strnlen(th->name, sizeof th->name - 1)] = 0;
		th->ticks = raw[i].ticks;
		t->map[i] = (uint32_t)pr->nthreads++;
	}
	free(raw);
}

static uint32_t thread_index(struct pp_process *pr, struct threads *t, uint32_t raw)
{
	if (raw < t->cap && t->map[raw] != UINT32_MAX)
		return t->map[raw];
	if (t->other == UINT32_MAX) {
		struct pp_thread *th = &pr->threads[pr->nthreads];
		th->tid = 0;
		snprintf(th->name, sizeof th->name, "[other]");
		t->other = (uint32_t)pr->nthreads++;
	}
	return t->other;
}

/* The module of (pc, epoch); failing that (the loader reports every object
 * closed while a process exits, so a late sample may match no epoch), the
 * most recently loaded module whose segments hold pc. */
static uint32_t module_of(const struct pp_process *pr, uint64_t pc, uint32_t epoch)
{
	uint32_t m = pp_find_module(pr, pc, epoch);
	for (size_t i = pr->nmodules; m == PP_NO_MODULE && i-- > 0;)
		if (pp_module_holds(&pr->modules[i], pc))
			m = (uint32_t)i;
	return m;
}

/* ---- stacks: from trie nodes to frames ---- */

/* The trie as read, and the frames made from it so far. */
struct stacks {
	struct pcprof_raw_node *node;
	uint64_t nnode; /* 0: no stacks */
	/* per node: the frame it became at epoch cache_epoch - 1 (0: none) */
	uint32_t *cache_frame, *cache_epoch;
	struct frame_index fi;
};

static uint32_t frame_module(const struct pp_process *pr, uint64_t pc, uint32_t epoch)
{
	return PCPROF_FRAME_IS_MARKER(pc) ? PP_NO_MODULE : module_of(pr, pc, epoch);
}

/*
 * The frame of trie node `node` (a slot's innermost caller) at module
 * generation epoch, with all its callers.  Nothing in the trie is trusted:
 * a parent out of the table, a node that is free or was being filled, or a
 * chain longer than any stack (a loop) ends the stack with [unknown].
 */
static uint32_t node_frame(struct stacks *st, struct pp_process *pr, uint32_t node, uint32_t epoch)
{
	uint32_t path[MAX_CHAIN];
	int n = 0;
	uint32_t parent = PP_NO_FRAME;
	for (;;) {
		if (node == PCPROF_RAW_ROOT)
			break;
		bool ok = node < st->nnode && st->node[node].pc != 0 &&
			  st->node[node].pc != PCPROF_RAW_NODE_BUSY && n < MAX_CHAIN;
		if (!ok) {
			parent = frame_intern(&st->fi, pr, PCPROF_FRAME_UNKNOWN, PP_NO_MODULE,
					      PP_NO_FRAME);
			break;
		}
		if (st->cache_epoch[node] == epoch + 1u) {
			parent = st->cache_frame[node];
			break;
		}
		path[n++] = node;
		node = st->node[node].parent;
	}
	/* outermost first: each frame's parent is made before it */
	while (n-- > 0) {
		uint64_t pc = st->node[path[n]].pc;
		parent = frame_intern(&st->fi, pr, pc, frame_module(pr, pc, epoch), parent);
		st->cache_frame[path[n]] = parent;
		st->cache_epoch[path[n]] = epoch + 1u;
	}
	return parent;
}

/* The leaf frame of a slot's sample (module: the sample's), or
 * PP_NO_FRAME if it has no stack. */
static uint32_t slot_frame(struct stacks *st, struct pp_process *pr,
			   const struct pcprof_raw_slot *s, uint32_t module)
{
	if (!st->nnode || s->node == PCPROF_RAW_NO_STACK)
		return PP_NO_FRAME;
	uint32_t parent = node_frame(st, pr, s->node, s->epoch);
	/* The callers kept are the outermost: what is missing is inside. */
	if (s->flags & PCPROF_RAW_SLOT_CUT)
		parent = frame_intern(&st->fi, pr, PCPROF_FRAME_TRUNCATED, PP_NO_MODULE, parent);
	return frame_intern(&st->fi, pr, s->key, module, parent);
}

static void read_stacks(int fd, const struct pcprof_raw_header *h, struct stacks *st)
{
	memset(st, 0, sizeof *st);
	if (!(h->flags & PCPROF_RAW_F_STACKS))
		return;
	uint64_t n = pcprof_raw_level_first(&h->node, open_levels(&h->node));
	st->node = xmalloc((n ? n : 1) * sizeof *st->node);
	if (read_at(fd, st->node, n * sizeof *st->node, h->node.off) < 0) {
		n = 0; /* every stack becomes [unknown] */
		st->node[0] = (struct pcprof_raw_node){ 0 };
	}
	st->nnode = n ? n : 1; /* slots with stacks still get [unknown] */
	st->cache_frame = xcalloc(st->nnode, sizeof *st->cache_frame);
	st->cache_epoch = xcalloc(st->nnode, sizeof *st->cache_epoch);
}

static void free_stacks(struct stacks *st, struct pp_process *pr)
{
	free(st->node);
	free(st->cache_frame);
	free(st->cache_epoch);
	frame_index_free(&st->fi, pr);
}

/* ---- slots ---- */

/* *sum += v within a data file's bound on counts (data.h), else false:
 * the program a recording records can write anything into it. */
static bool add_count(uint64_t *sum, uint64_t v)
{
	if (v > PP_TICKS_MAX || *sum > PP_TICKS_MAX - v)
		return false;
	*sum += v;
	return true;
}

/* The slots of chunk[0..n) as samples; false if a count would pass the
 * bound. */
static bool add_slots(const struct pcprof_raw_slot *chunk, size_t n, struct pp_process *pr,
		      struct threads *t, struct stacks *st, struct raw_info *info, size_t *cap)
{
	for (size_t i = 0; i < n; i++) {
		const struct pcprof_raw_slot *s = &chunk[i];
		if (s->count == 0 || s->key == 0)
			continue;
		if (s->count > PP_TICKS_MAX)
			return false;
		if (s->key == PCPROF_RAW_SLOT_BUSY) {
			if (!add_count(&info->lost_busy, s->count))
				return false;
			continue;
		}
		if (pr->nsamples == *cap) {
			*cap = *cap ? 2 * *cap : 256;
			pr->samples = xrealloc(pr->samples, *cap * sizeof *pr->samples);
		}
		uint32_t module = module_of(pr, s->key, s->epoch);
		pr->samples[pr->nsamples++] = (struct pp_sample){
			.pc = s->key,
			.module = module,
			.thread = thread_index(pr, t, s->thread),
			.count = s->count,
			.frame = slot_frame(st, pr, s, module),
			.time = s->bucket == PCPROF_RAW_NO_BUCKET ? PP_NO_TIME : s->bucket + 1,
		};
	}
	return true;
}

/* Version 2 and 3 slots (24 and 32 bytes) in place as version 4 ones
 * without stacks (2) and without time (2, 3), from the last, which moves
 * furthest, down. */
static void widen_old(struct pcprof_raw_slot *chunk, size_t n, size_t size)
{
	for (size_t i = n; i-- > 0;) {
		struct pcprof_raw_slot s = { 0 };
		memcpy(&s, (const char *)chunk + i * size, size);
		if (size < PCPROF_RAW_V3_SLOT_SIZE)
			s.node = PCPROF_RAW_NO_STACK;
		s.bucket = PCPROF_RAW_NO_BUCKET;
		chunk[i] = s;
	}
}

/* Every slot of the open levels, a chunk at a time; false if the counts
 * pass the bound of a data file. */
static bool convert_slots(int fd, const struct pcprof_raw_header *h, struct pp_process *pr,
			  struct threads *t, struct raw_info *info)
{
	uint64_t total = pcprof_raw_level_first(&h->slot, open_levels(&h->slot));
	size_t size = pcprof_raw_slot_size(h->version);
	struct pcprof_raw_slot *chunk = xmalloc(SLOT_CHUNK * sizeof *chunk);
	struct stacks st;
	read_stacks(fd, h, &st);
	size_t cap = 0;
	bool ok = true;
	for (uint64_t base = 0; ok && base < total;) {
		size_t n = total - base < SLOT_CHUNK ? (size_t)(total - base) : SLOT_CHUNK;
		if (read_at(fd, chunk, n * size, h->slot.off + base * size) < 0)
			break;
		if (size != sizeof *chunk)
			widen_old(chunk, n, size);
		ok = add_slots(chunk, n, pr, t, &st, info, &cap);
		base += n;
	}
	free(chunk);
	free_stacks(&st, pr);

	/* Sum the samples that share (module, pc, thread). */
	pp_sort_samples(pr);
	size_t out = 0;
	for (size_t i = 0; i < pr->nsamples; i++) {
		struct pp_sample *s = &pr->samples[i], *last = out ? &pr->samples[out - 1] : NULL;
		if (last && last->module == s->module && last->pc == s->pc &&
		    last->thread == s->thread && last->frame == s->frame && last->time == s->time)
			ok &= add_count(&last->count, s->count);
		else
			pr->samples[out++] = *s;
	}
	pr->nsamples = out;
	/* pcprof holds every process until it writes the data file. */
	if (out < cap)
		pr->samples = xrealloc(pr->samples, (out ? out : 1) * sizeof *pr->samples);
	return ok;
}

static void raw_info_free(struct raw_info *in)
{
	free(in->exec_path);
	free(in->exec_cmdline);
	free(in->spawn_path);
}

int raw_read(const char *path, struct pp_process *pr, struct raw_info *info, char *err,
	     size_t errlen)
{
	memset(pr, 0, sizeof *pr);
	memset(info, 0, sizeof *info);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	struct stat st;
	struct pcprof_raw_header h;
	const char *bad = NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		bad = "not a regular file";
	else if ((uint64_t)st.st_size < sizeof h)
		bad = st.st_size ? "shorter than a header"
				 : "empty: the process ended before it started recording";
	else if (read_at(fd, &h, sizeof h, 0) < 0)
		bad = strerror(errno);
	if (!bad) {
		pcprof_raw_header_trim(&h); /* versions 2 and 3: the header is shorter */
		bad = pcprof_raw_header_error(&h, (uint64_t)st.st_size);
	}
	if (bad) {
		snprintf(err, errlen, "%s", bad);
		close(fd);
		return -1;
	}

	pr->pid = h.pid;
	pr->ppid = h.ppid;
	pr->seq = h.seq;
	pr->hz = h.hz;
	memcpy(pr->engine, h.engine, sizeof pr->engine - 1);
	pr->engine[strnlen(pr->engine, sizeof pr->engine - 1)] = 0;
	pr->why = bounded_dup(h.why, sizeof h.why);
	pr->exe = bounded_dup(h.exe, sizeof h.exe);
	pr->cmdline = bounded_dup(h.cmdline, sizeof h.cmdline);
	pr->start_ns = h.start_ns;
	pr->end_ns = h.end_ns;
	/* The CPU clock runs on across exec: the image's own share. */
	pr->cpu_ns = h.cpu_ns > h.cpu_start_ns ? h.cpu_ns - h.cpu_start_ns : 0;
	pr->signals = h.signals;
	pr->ticks = h.ticks;
	/* Ticks of threads beyond the thread table are not lost: they are in
	 * the slots under thread UINT32_MAX, which becomes "[other]". */
	pr->lost = h.lost;
	/* What the process image did: exit() and exec are known from the
	 * recording; how a process that never said died is known only to
	 * whoever waited for it (pcprof run, for the processes it reaps). */
	pr->end = h.end == PCPROF_END_EXIT   ? PP_END_EXIT
		  : h.end == PCPROF_END_EXEC ? PP_END_EXEC
					     : PP_END_UNKNOWN;
	pr->exit_status = -1;
	/* The space the recording reserved: only its levels in use are backed. */
	uint64_t used = (uint64_t)st.st_blocks * 512;
	pr->mem_bytes = used < h.file_size ? used : h.file_size;

	info->raw_end = h.end;
	info->flags = h.flags;
	info->lost_table = h.lost;
	info->lost_threads = h.lost_threads;
	info->threads_unsampled = h.threads_unsampled;
	info->threads_unseen = h.threads_unseen;
	info->table_error = h.slot.error ? h.slot.error : h.thr.error;
	info->mod_error = h.mod_error;
	info->node_error = h.node.error;
	info->mapped = h.file_size;
	info->cpu_start_ns = h.cpu_start_ns;
	info->owed = h.owed;
	info->unsampled = h.unsampled;
	info->stack_cut = h.stack_cut;
	/* (From the file: at most 16 TiB, so that the allowance cannot wrap.) */
	info->exit_rss_kib = h.end == PCPROF_END_EXEC               ? 0
			     : h.exit_rss_kib < (UINT64_C(1) << 34) ? h.exit_rss_kib
								    : UINT64_C(1) << 34;
	info->tl_origin_ns = h.tl_origin_ns;
	info->tl_bucket_ns = h.tl_bucket_ns;
	/* Version 6 (0 in older files: pcprof_raw_header_trim).  Written
	 * last at exit, exec and _exit, with cpu_ns: a process killed
	 * before then has none. */
	info->spanned = (h.gap_flags & PCPROF_RAW_G_SPAN) != 0;
	info->covered_ns = h.covered_ns;
	info->before_ns = h.before_ns;
	info->threads_ended = h.threads_ended;
	info->iou_ns = h.iou_ns;
	info->iou_threads = h.iou_threads;
	info->foreign_ns = h.foreign_ns;
	info->foreign_threads = h.foreign_threads;
	info->blocked = h.blocked;
	info->unslotted = h.unslotted;
	info->blocked_threads = h.blocked_threads;
	info->gap_flags = h.gap_flags;
	info->own_pid = h.own_pid;
	info->unfollowed =
		h.exec_unfollowed <= PCPROF_UNF_MAX ? h.exec_unfollowed : PCPROF_UNF_NONE;
	info->spawn_unfollowed = h.spawn_unfollowed;
	if (h.spawn_unfollowed && h.spawn_state == 2) {
		info->spawn_why = h.spawn_why <= PCPROF_UNF_MAX ? h.spawn_why : PCPROF_UNF_NONE;
		info->spawn_path = bounded_dup(h.spawn_path, sizeof h.spawn_path);
	}
	if (h.end == PCPROF_END_EXEC) {
		info->exec_path = bounded_dup(h.exec_path, sizeof h.exec_path);
		info->exec_cmdline = bounded_dup(h.exec_cmdline, sizeof h.exec_cmdline);
	}
	pr->tl_lost = h.tl_lost;
	pr->tl_partial = h.tl_lost_from;
	/* A recording that stopped (version 6): what the image used after it
	 * is not sampled.  After a seccomp filter the library stored no CPU
	 * time since, so this is 0 until pcprof run learns the rest
	 * (cmd-run.c). */
	if (h.stop_why && h.stop_why <= PCPROF_STOP_MAX) {
		pr->stop = h.stop_why;
		info->stop_cpu_ns = h.stop_cpu_ns > h.cpu_start_ns ? h.stop_cpu_ns : h.cpu_start_ns;
		uint64_t at = info->stop_cpu_ns - h.cpu_start_ns;
		pr->stop_ns = pr->cpu_ns > at ? pr->cpu_ns - at : 0;
	}

	struct threads t;
	convert_modules(fd, &h, pr, info);
	convert_threads(fd, &h, pr, &t);
	bool ok = convert_slots(fd, &h, pr, &t, info) && add_count(&pr->lost, info->lost_busy);
	free(t.map);
	close(fd);
	if (!ok) {
		snprintf(err, errlen, "counts above 2^53 (written over?)");
		raw_info_free(info);
		memset(info, 0, sizeof *info);
		pp_process_free(pr);
		return -1;
	}
	return 0;
}

/*
 * What an image's thread teardown may cost after its last payment, per
 * thread that ended: glibc freeing the thread (an madvise of its stack),
 * the exit system call, the engine's timer or event given back.  Measured
 * without profiling: 13 us a thread of 100,000 (threads of 20 us created
 * 64 at a time, tests/targets/gaps threads); the allowance is several
 * times that, for a loaded machine and a sanitizer's runtime.
 */
#define TEARDOWN_NS_PER_THREAD 100000u

/* What CPU time an image may show beyond its schedules without a cause:
 * the exit handlers' order (ours pays, then the others run, then the
 * CPU time is read), threads still running while the exit pays, the
 * library's own start before its first schedule: 2 ms, and 2% of the
 * image's CPU time. */
#define GAP_NOISE_NS(cpu) (2000000u + (cpu) / 50)

static void gap_add(struct pp_process *pr, enum pp_gap g, uint64_t ns, uint64_t threads)
{
	struct pp_gap_part *p = &pr->gap[g];
	p->ns = p->ns > UINT64_MAX - ns ? UINT64_MAX : p->ns + ns;
	p->threads =
		threads > UINT32_MAX - p->threads ? UINT32_MAX : p->threads + (uint32_t)threads;
}

/* ns of a number of ticks at pr's rate (0 if it has none). */
static uint64_t ticks_ns(const struct pp_process *pr, uint64_t ticks)
{
	if (!pr->hz)
		return 0;
	uint64_t per = 1000000000u / pr->hz;
	return ticks > UINT64_MAX / per ? UINT64_MAX : ticks * per;
}

void raw_gaps(struct pp_process *pr, const struct raw_info *in)
{
	memset(pr->gap, 0, sizeof pr->gap);
	/* Covered by a schedule, not sampled: counted, not measured. */
	if (in->unsampled)
		gap_add(pr, PP_GAP_UNSAMPLED, ticks_ns(pr, in->unsampled), in->threads_unsampled);
	if (in->blocked)
		gap_add(pr, PP_GAP_BLOCKED, ticks_ns(pr, in->blocked), in->blocked_threads);
	/* An image where no engine could start (a fork child past a
	 * resource limit: the library records "" as its engine and the
	 * engines' reasons as its why): all of its CPU time. */
	/* The CPU time after a recording stopped (a seccomp filter, the
	 * program's own manual engine) is the stop's, said apart (stop_ns,
	 * which seccomp_gap in cmd-run.c may have grown by the filtered
	 * descendants' time): never a gap of its own. */
	uint64_t cpu = pr->cpu_ns > pr->stop_ns ? pr->cpu_ns - pr->stop_ns : 0;
	if (!pr->engine[0] && (in->flags & PCPROF_RAW_F_SAMPLER) && !in->unentered) {
		gap_add(pr, PP_GAP_NOENGINE, cpu, 0);
		return;
	}
	/* The schedules of a perf engine that sees user time only cover
	 * user time: the rest is system time, which the summary names. */
	if (!in->spanned || in->unentered || (in->flags & PCPROF_RAW_F_USER_TIME) ||
	    !(in->flags & PCPROF_RAW_F_SAMPLER))
		return;
	/* Threads without a slot were sampled outside every schedule (an
	 * inherited perf event, a process-wide timer): their samples stand
	 * for their time. */
	uint64_t seen = ticks_ns(pr, in->unslotted);
	seen = seen > UINT64_MAX - in->covered_ns ? UINT64_MAX : seen + in->covered_ns;
	uint64_t rest = cpu > seen ? cpu - seen : 0;
	uint64_t noise = GAP_NOISE_NS(cpu);
	if (rest <= noise)
		return;
	/* What the library measured, each at most what is left. */
	uint64_t part = in->iou_ns < rest ? in->iou_ns : rest;
	if (part)
		gap_add(pr, PP_GAP_IOURING, part, in->iou_threads);
	rest -= part;
	part = in->foreign_ns < rest ? in->foreign_ns : rest;
	if (part)
		gap_add(pr, PP_GAP_FOREIGN, part, in->foreign_threads);
	rest -= part;
	part = in->before_ns < rest ? in->before_ns : rest;
	if (part)
		gap_add(pr, PP_GAP_BEFORE, part, 0);
	rest -= part;
	if (rest <= noise)
		return;
	/* What it saw but could not measure: workers or threads that ended
	 * before the image did, threads after their exit handlers. */
	if (in->gap_flags & PCPROF_RAW_G_IOURING) {
		gap_add(pr, PP_GAP_IOURING, rest, 0);
		return;
	}
	if (in->gap_flags & (PCPROF_RAW_G_UNKNOWN_THREADS | PCPROF_RAW_G_TIMERS)) {
		gap_add(pr, PP_GAP_FOREIGN, rest, 0);
		return;
	}
	uint64_t most = in->threads_ended > UINT64_MAX / TEARDOWN_NS_PER_THREAD
				? UINT64_MAX
				: in->threads_ended * TEARDOWN_NS_PER_THREAD;
	part = most < rest ? most : rest;
	if (part)
		gap_add(pr, PP_GAP_TEARDOWN, part, in->threads_ended);
	rest -= part;
	if (rest > noise)
		gap_add(pr, in->threads_unseen ? PP_GAP_NOEXIT : PP_GAP_UNKNOWN, rest,
			in->threads_unseen);
}

/*
 * One bucket number for one period across the run: each image's buckets
 * count from its own origin, which is normally the run's first image's
 * (record-format.h) but need not be (an exec'd image that could not read
 * its predecessor's file), so they are moved by the whole buckets between
 * that origin and the earliest.  An image with another bucket length, or
 * none, keeps no times.
 */
static void align_times(struct raw_set *set)
{
	uint64_t width = 0, origin = UINT64_MAX;
	for (size_t i = 0; i < set->n; i++)
		if (set->info[i].tl_bucket_ns && !width)
			width = set->info[i].tl_bucket_ns;
	for (size_t i = 0; i < set->n; i++)
		if (width && set->info[i].tl_bucket_ns == width &&
		    set->info[i].tl_origin_ns < origin)
			origin = set->info[i].tl_origin_ns;
	set->bucket_ns = width;
	for (size_t i = 0; i < set->n; i++) {
		struct pp_process *pr = &set->procs[i];
		const struct raw_info *in = &set->info[i];
		bool timed = width && in->tl_bucket_ns == width;
		uint64_t shift = timed ? (in->tl_origin_ns - origin) / width : 0;
		for (size_t k = 0; k < pr->nsamples; k++) {
			struct pp_sample *s = &pr->samples[k];
			if (!timed || s->time == PP_NO_TIME || s->time + shift > UINT32_MAX)
				s->time = PP_NO_TIME;
			else
				s->time += (uint32_t)shift;
		}
		if (pr->tl_partial && timed && pr->tl_partial + shift <= UINT32_MAX)
			pr->tl_partial += (uint32_t)shift;
		else if (!timed)
			pr->tl_partial = 0;
		/* Samples that lost their time by the move keep their order
		 * only if they were already untimed: sort again. */
		pp_sort_samples(pr);
	}
}

static int cmp_proc(const void *a, const void *b)
{
	const struct pp_process *x = a, *y = b;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

const char *raw_unfollowed_text(uint32_t why)
{
	switch (why) {
	case PCPROF_UNF_STATIC:
		return "statically linked";
	case PCPROF_UNF_PRELOAD:
		return "run with LD_PRELOAD removed from its environment";
	case PCPROF_UNF_DIR:
		return "run with PCPROF_DIR removed from its environment";
	case PCPROF_UNF_SETUID:
		return "set-user-ID: secure execution ignores LD_PRELOAD";
	case PCPROF_UNF_SETGID:
		return "set-group-ID: secure execution ignores LD_PRELOAD";
	case PCPROF_UNF_IDS:
		return "real and effective ids differ: secure execution ignores LD_PRELOAD";
	case PCPROF_UNF_USER:
		return "its user cannot write the recording directory";
	case PCPROF_UNF_CLASS:
		return "another ELF class or machine than libprofil's";
	default:
		return "libprofil did not start in it, reason unknown";
	}
}

/* "<pid>.<seq>.<errno>.<16 hex digits>.lost", or with ".<cpu ns>" before
 * ".lost" once the image ended (lib/record.c). */
static bool parse_marker(const char *name, struct raw_unrecorded *u)
{
	int pid, seq, err, len = 0;
	char token[17];
	if (sscanf(name, "%d.%d.%d.%16[0-9a-f]%n", &pid, &seq, &err, token, &len) != 4 ||
	    strlen(token) != 16 || pid <= 0 || seq < 0 || err <= 0)
		return false;
	*u = (struct raw_unrecorded){ pid, (uint32_t)seq, err, false, 0, 0, 0 };
	const char *rest = name + len;
	if (rest[0] == '.' && rest[1] >= '0' && rest[1] <= '9') {
		char *end;
		errno = 0;
		unsigned long long cpu = strtoull(rest + 1, &end, 10);
		if (errno)
			return false;
		u->has_cpu = true;
		u->cpu_ns = cpu;
		rest = end;
	}
	return strcmp(rest, ".lost") == 0;
}

static int cmp_unrecorded(const void *a, const void *b)
{
	const struct raw_unrecorded *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

_Static_assert((int)PP_STOP_SECCOMP == (int)PCPROF_STOP_SECCOMP &&
		       (int)PP_STOP_MANUAL == (int)PCPROF_STOP_MANUAL &&
		       (int)PP_STOP_MAX == (int)PCPROF_STOP_MAX,
	       "the data file's stop reasons are the recordings'");

static const struct pp_process *by_pid_procs; /* qsort has no context argument */

static int cmp_pid_seq(const void *a, const void *b)
{
	const struct pp_process *x = &by_pid_procs[*(const size_t *)a],
				*y = &by_pid_procs[*(const size_t *)b];
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* An image that ended by exec, whose next image was to be recorded
 * (execs followed), and was followed by nothing: neither the next
 * recording of its pid nor a marker saying why there is none.  Sorted
 * by (pid, seq), not compared pairwise: runs have 40,000 processes. */
static void add_unentered(struct raw_set *set)
{
	size_t n = set->n, *ix = xmalloc((n ? n : 1) * sizeof *ix);
	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	by_pid_procs = set->procs;
	qsort(ix, n, sizeof *ix, cmp_pid_seq);
	size_t add = 0;
	for (size_t k = 0; k < n; k++) {
		const struct pp_process *p = &set->procs[ix[k]];
		const struct pp_process *next = k + 1 < n ? &set->procs[ix[k + 1]] : NULL;
		struct raw_unrecorded key = { .pid = p->pid, .seq = p->seq + 1 };
		if (set->info[ix[k]].raw_end != PCPROF_END_EXEC ||
		    !(set->info[ix[k]].flags & PCPROF_RAW_F_FOLLOWED) ||
		    (next && next->pid == p->pid && next->seq == p->seq + 1) ||
		    (set->nunrecorded &&
		     bsearch(&key, set->unrecorded, set->nunrecorded, sizeof key, cmp_unrecorded)))
			ix[add++] = ix[k];
	}
	/* ix[0..add) are the images followed by something; mark the others. */
	bool *followed = xcalloc(n ? n : 1, sizeof *followed);
	for (size_t k = 0; k < add; k++)
		followed[ix[k]] = true;
	free(ix);
	size_t extra = n - add;
	if (extra) {
		set->procs = xrealloc(set->procs, (n + extra) * sizeof *set->procs);
		set->info = xrealloc(set->info, (n + extra) * sizeof *set->info);
	}
	for (size_t i = 0; i < n; i++) {
		if (followed[i])
			continue;
		const struct pp_process *p = &set->procs[i];
		const struct raw_info *in = &set->info[i];
		/* What the recording of the exec'ing image says of it: v5. */
		struct pp_process *u = &set->procs[set->n];
		struct raw_info *ui = &set->info[set->n];
		set->n++;
		*u = (struct pp_process){ .pid = p->pid,
					  .ppid = p->ppid,
					  .seq = p->seq + 1,
					  .start_ns = p->end_ns,
					  .end = PP_END_UNKNOWN,
					  .exit_status = -1 };
		*ui = (struct raw_info){ .unentered = true,
					 .unfollowed = in->unfollowed,
					 .cpu_start_ns = in->cpu_start_ns + p->cpu_ns };
		u->exe = xstrdup(in->exec_path && in->exec_path[0] ? in->exec_path : "?");
		u->cmdline = xstrdup(in->exec_cmdline && in->exec_cmdline[0] ? in->exec_cmdline
									     : u->exe);
		size_t len = strlen(raw_unfollowed_text(ui->unfollowed)) + 32;
		u->why = xmalloc(len);
		snprintf(u->why, len, PP_WHY_NOT_RECORDED "%s",
			 raw_unfollowed_text(ui->unfollowed));
	}
	free(followed);
}

/* Why an image's recording could not be made, after PP_WHY_NOT_RECORDED. */
static char *marker_why(int err)
{
	const char *room = err == ENOSPC || err == EDQUOT || err == EFBIG
				   ? "no room for its recording: "
			   : err == ENOMEM ? "its recording did not fit its address-space limit: "
					   : "its recording could not be made: ";
	size_t len = sizeof PP_WHY_NOT_RECORDED + strlen(room) + strlen(strerror(err));
	char *why = xmalloc(len);
	snprintf(why, len, PP_WHY_NOT_RECORDED "%s%s", room, strerror(err));
	return why;
}

/*
 * An entry for each image that has a marker instead of a recording, so
 * that it is counted with its CPU time (the data file and pcprof report
 * said "CPU time 0.00 s, lost 0" for the 0.44 s of 13 such images; issue
 * 19, item 9).  Its marker says the process CPU clock at its end; the
 * image's own time is that less where the image began: 0 for a process's
 * first image (a new process), else the end of the image before it in the
 * exec chain (its recording or its marker), else unknown (0: the whole
 * clock, the time of an image nothing else counts).  Its program and
 * arguments are the ones the image before it exec'd, when that image
 * recorded them.
 */
static void add_markers(struct raw_set *set)
{
	size_t n = set->n, m = set->nunrecorded;
	if (!m)
		return;
	size_t *ix = xmalloc((n ? n : 1) * sizeof *ix);
	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	by_pid_procs = set->procs;
	qsort(ix, n, sizeof *ix, cmp_pid_seq);
	set->procs = xrealloc(set->procs, (n + m) * sizeof *set->procs);
	set->info = xrealloc(set->info, (n + m) * sizeof *set->info);
	for (size_t k = 0; k < m; k++) {
		const struct raw_unrecorded *u = &set->unrecorded[k];
		uint64_t start = 0;
		const struct pp_process *prev = NULL;
		const struct raw_info *pin = NULL;
		/* the image before it: a marker (sorted: the one before) or a
		 * recording */
		if (u->seq && k && u[-1].pid == u->pid && u[-1].seq + 1 == u->seq) {
			start = u[-1].has_cpu ? u[-1].cpu_ns : 0;
		} else if (u->seq) {
			size_t lo = 0, hi = n;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				const struct pp_process *p = &set->procs[ix[mid]];
				if (p->pid < u->pid || (p->pid == u->pid && p->seq + 1 < u->seq))
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < n && set->procs[ix[lo]].pid == u->pid &&
			    set->procs[ix[lo]].seq + 1 == u->seq &&
			    set->info[ix[lo]].raw_end == PCPROF_END_EXEC) {
				prev = &set->procs[ix[lo]];
				pin = &set->info[ix[lo]];
				start = pin->cpu_start_ns + prev->cpu_ns;
			}
		}
		struct pp_process *p = &set->procs[set->n];
		struct raw_info *in = &set->info[set->n];
		set->n++;
		*p = (struct pp_process){ .pid = u->pid,
					  .ppid = prev ? prev->ppid : 0,
					  .seq = u->seq,
					  .start_ns = u->start_ns,
					  .end_ns = u->end_ns,
					  .cpu_ns = u->has_cpu && u->cpu_ns > start
							    ? u->cpu_ns - start
							    : 0,
					  .end = PP_END_UNKNOWN,
					  .exit_status = -1 };
		*in = (struct raw_info){ .unrecorded = true, .cpu_start_ns = start };
		const char *exe = pin && pin->exec_path && pin->exec_path[0] ? pin->exec_path : "?";
		p->exe = xstrdup(exe);
		p->cmdline = xstrdup(
			pin && pin->exec_cmdline && pin->exec_cmdline[0] ? pin->exec_cmdline : exe);
		p->why = marker_why(u->err);
	}
	free(ix);
}

int raw_collect(const char *dir, struct raw_set *set, char *err, size_t errlen)
{
	memset(set, 0, sizeof *set);
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	size_t cap = 0, ucap = 0;
	struct pp_sums sums = { 0 };
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct raw_unrecorded u;
		if (len > 5 && strcmp(e->d_name + len - 5, ".lost") == 0 &&
		    parse_marker(e->d_name, &u)) {
			struct stat st;
			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
				u.start_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u +
					     (uint64_t)st.st_mtim.tv_nsec;
				u.end_ns = u.has_cpu ? (uint64_t)st.st_ctim.tv_sec * 1000000000u +
							       (uint64_t)st.st_ctim.tv_nsec
						     : 0;
			}
			if (set->nunrecorded == ucap) {
				ucap = ucap ? 2 * ucap : 16;
				set->unrecorded =
					xrealloc(set->unrecorded, ucap * sizeof *set->unrecorded);
			}
			set->unrecorded[set->nunrecorded++] = u;
			continue;
		}
		if (len < 5 || strcmp(e->d_name + len - 4, ".raw") != 0)
			continue;
		if (set->n == cap) {
			cap = cap ? 2 * cap : 16;
			set->procs = xrealloc(set->procs, cap * sizeof *set->procs);
			set->info = xrealloc(set->info, cap * sizeof *set->info);
		}
		char path[4096], msg[256];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		int r = raw_read(path, &set->procs[set->n], &set->info[set->n], msg, sizeof msg);
		/* A recording is written by the program it records, which can
		 * scribble on it: one whose counts would take the run's sums
		 * past what a data file holds (data.h) is left out, not the
		 * whole run. */
		if (r == 0 && pp_sums_add(&sums, &set->procs[set->n], msg, sizeof msg) < 0) {
			raw_info_free(&set->info[set->n]);
			pp_process_free(&set->procs[set->n]);
			r = -1;
		}
		if (r < 0) {
			if (!set->nbad++)
				snprintf(set->first_bad, sizeof set->first_bad, "%.200s: %s",
					 e->d_name, msg);
			continue;
		}
		set->n++;
	}
	closedir(d);
	if (set->nunrecorded)
		qsort(set->unrecorded, set->nunrecorded, sizeof *set->unrecorded, cmp_unrecorded);
	add_unentered(set);
	add_markers(set);

	/* Sort the processes and their side information together. */
	struct pair {
		struct pp_process p;
		struct raw_info i;
	} *v = xcalloc(set->n ? set->n : 1, sizeof *v);
	for (size_t i = 0; i < set->n; i++)
		v[i] = (struct pair){ set->procs[i], set->info[i] };
	qsort(v, set->n, sizeof *v, cmp_proc);
	for (size_t i = 0; i < set->n; i++) {
		set->procs[i] = v[i].p;
		set->info[i] = v[i].i;
	}
	free(v);
	align_times(set);
	return 0;
}

void raw_set_free(struct raw_set *set)
{
	for (size_t i = 0; set->info && i < set->n; i++)
		raw_info_free(&set->info[i]);
	free(set->info);
	free(set->unrecorded);
	set->info = NULL;
	set->unrecorded = NULL;
}
