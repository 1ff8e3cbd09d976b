/*
 * t-raw - reading raw recordings (cli/raw.c) built by hand to the layout of
 * lib/record-format.h, so every rule is checked exactly:
 *   - a pc in two slots (a writer moved past a busy slot) is summed;
 *   - (pc, epoch) picks the module loaded at that epoch when two modules
 *     used the same addresses one after the other (dlclose, dlopen);
 *   - a pc that matches no module by epoch falls back to the most recently
 *     loaded module that holds it (exit-time closes), else no module;
 *   - thread UINT32_MAX (thread table full) becomes "[other]";
 *   - a slot still marked busy counts as lost;
 *   - CPU time is the image's own (cpu_ns - cpu_start_ns);
 *   - only the levels a table opened are read, and only the module entries
 *     that were reserved (what lies beyond was never the image's to write);
 *   - .lost markers become unrecorded images, with their pid and errno, and
 *     each an entry of its own (unsampled) with its CPU time: what its
 *     marker says less the end of the image before it (its recording's,
 *     or its marker's), and the program the image before it exec'd;
 *   - broken files (empty, zero header, bad magic, tables outside the file
 *     or overlapping, bad level sizes, file size not the header's) are
 *     refused with a message;
 *   - stacks: a slot's callers become frames, root first, parents before
 *     children; one node becomes frames of different modules at different
 *     epochs; two nodes with the same (parent, pc) become one frame; a cut
 *     stack gets [truncated] between the leaf and its callers; a marker has
 *     no module; a loop, a parent outside the table or a free node end the
 *     stack with [unknown]; a slot without a stack has no frame;
 *   - counts a program wrote over its recording that pass the bound of a
 *     data file (2^53, cli/data.h), alone or summed, are refused, and
 *     a directory leaves out the recording whose counts would take the
 *     sum past it;
 *   - a version 2 recording (1904-byte header, 24-byte slots) reads as it
 *     did, without frames;
 *   - time: a slot's bucket becomes its sample's time (1 + bucket), moved
 *     by the whole buckets between its image's origin and the run's
 *     earliest, and so is the mark of a partial timeline; an image without
 *     a timeline, or a version 3 one (32-byte slots), keeps no times;
 *   - CPU time without samples (version 6, raw_gaps): what the schedules
 *     did not cover, split into the parts the recording measured (io_uring
 *     workers, threads no schedule knew, threads before an engine) and
 *     those it saw (workers or threads gone by the end, threads after
 *     their exit handlers, at most 100 us each), the rest "unknown" only
 *     beyond 2 ms + 2%; samples of threads without a slot count as
 *     covered; what was covered but not sampled (unsampled, blocked) by
 *     ticks; an image without an engine all of it; a version 5 recording,
 *     a killed image and one that sampled user time only have no gaps
 *     beyond the counted ones; the CPU time after a recording stopped
 *     (stop_ns) is never a gap.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data.h"
#include "raw.h"
#include "record-format.h"
#include "test.h"

#define NMOD  4
#define NTHR  8  /* one level */
#define SBASE 32 /* pc table: levels of 32 and 64 slots, and a third unopened */
#define NSLOT (SBASE * 7)
#define NBASE 8 /* node table: levels of 8 and 16 */
#define NNODE (NBASE * 3)

struct file {
	struct pcprof_raw_header h;
	struct pcprof_raw_module mod[NMOD];
	struct pcprof_raw_thread thr[NTHR];
	struct pcprof_raw_slot slot[NSLOT];
	struct pcprof_raw_node node[NNODE];
};

static char dir[] = "/tmp/t-raw.XXXXXX";

static void put_module(struct file *f, int i, const char *path, uint64_t bias, uint32_t from,
		       uint32_t to)
{
	struct pcprof_raw_module *m = &f->mod[i];
	snprintf(m->path, sizeof m->path, "%s", path);
	m->bias = bias;
	m->epoch_loaded = from;
	m->epoch_unloaded = to;
	m->nsegs = 1;
	m->seg[0].vaddr = 0x1000;
	m->seg[0].memsz = 0x1000;
	m->seg[0].flags = 5;
	m->build_id_len = 3;
	memcpy(m->build_id, "\x01\x02\x03", 3);
	f->h.mod_count = (uint32_t)i + 1;
}

static void put_slot(struct file *f, int i, uint64_t pc, uint32_t thread, uint32_t epoch,
		     uint64_t count)
{
	f->slot[i] = (struct pcprof_raw_slot){ pc, thread, epoch, count, PCPROF_RAW_NO_STACK, 0,
					       PCPROF_RAW_NO_BUCKET, 0 };
}

static void put_stack(struct file *f, int i, uint64_t pc, uint32_t epoch, uint32_t node,
		      uint32_t flags, uint64_t count)
{
	f->slot[i] = (struct pcprof_raw_slot){ pc, 3, epoch, count, node, flags,
					       PCPROF_RAW_NO_BUCKET, 0 };
}

static void make(struct file *f)
{
	memset(f, 0, sizeof *f);
	struct pcprof_raw_header *h = &f->h;
	memcpy(h->magic, PCPROF_RAW_MAGIC, sizeof h->magic);
	h->version = PCPROF_RAW_VERSION;
	h->header_size = sizeof *h;
	h->file_size = sizeof *f;
	h->pid = 4242;
	h->ppid = 4241;
	h->seq = 1;
	h->hz = 250;
	snprintf(h->engine, sizeof h->engine, "perf");
	snprintf(h->why, sizeof h->why, "asked for 250 Hz");
	snprintf(h->exe, sizeof h->exe, "/bin/prog");
	snprintf(h->cmdline, sizeof h->cmdline, "prog -x");
	h->start_ns = 100;
	h->end_ns = 200;
	h->cpu_start_ns = 1000000;
	h->cpu_ns = 3000000;
	h->end = PCPROF_END_EXIT;
	h->signals = 40;
	h->ticks = 41;
	h->lost = 5;
	h->lost_threads = 2;
	h->flags = PCPROF_RAW_F_AUDIT | PCPROF_RAW_F_SAMPLER;
	h->mod_off = offsetof(struct file, mod);
	h->mod_cap = NMOD;
	h->mod_reserved = NMOD;
	h->thr = (struct pcprof_raw_levels){ .off = offsetof(struct file, thr), .base = NTHR,
					     .max = 1, .open = 1 };
	h->slot = (struct pcprof_raw_levels){ .off = offsetof(struct file, slot), .base = SBASE,
					      .max = 3, .open = 2 };

	put_module(f, 0, "/bin/prog", 0x400000, 0, 0);
	put_module(f, 1, "/lib/a.so", 0x7000000, 0, 1); /* closed at epoch 1 */
	put_module(f, 2, "/lib/b.so", 0x7000000, 1, 2); /* same place, epoch 1 only */
	f->thr[3] = (struct pcprof_raw_thread){ .tid = 4242, .name = "prog", .ticks = 30 };
	f->thr[5] = (struct pcprof_raw_thread){ .tid = 4243, .name = "worker", .ticks = 9 };

	put_slot(f, 0, 0x401010, 3, 0, 10);        /* prog, main thread */
	put_slot(f, 9, 0x401010, 3, 0, 5);         /* same key again: summed */
	put_slot(f, 10, 0x401010, 3, 4, 1);        /* same pc, other epoch: summed too */
	put_slot(f, 11, 0x401010, 5, 0, 2);        /* same pc, other thread */
	put_slot(f, 20, 0x7001100, 3, 0, 4);       /* a.so */
	put_slot(f, 21, 0x7001100, 5, 1, 3);       /* b.so */
	put_slot(f, 22, 0x7001200, 3, 2, 6);       /* both unloaded: latest, b.so */
	put_slot(f, 30, 0x10, UINT32_MAX, 0, 2);   /* no module; thread table full */
	put_slot(f, 31, PCPROF_RAW_SLOT_BUSY, 3, 0, 7); /* died while filling */
	put_slot(f, 32, 0x401020, 99, 0, 1);       /* thread index out of range */
	put_slot(f, 95, 0x401010, 3, 0, 100);      /* last slot of level 1 */
	put_slot(f, 96, 0x401010, 3, 0, 1000);     /* level 2, never opened: ignored */
}

static void save(const char *name, const void *buf, size_t len, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	T_OK(fd >= 0);
	T_EQ(write(fd, buf, len), (long long)len);
	close(fd);
}

static const struct pp_sample *find(const struct pp_process *pr, uint64_t pc, const char *mod,
				    int tid)
{
	for (size_t i = 0; i < pr->nsamples; i++) {
		const struct pp_sample *s = &pr->samples[i];
		const char *m = s->module == PP_NO_MODULE ? "-" : pr->modules[s->module].path;
		if (s->pc == pc && strcmp(m, mod) == 0 && pr->threads[s->thread].tid == tid)
			return s;
	}
	T_FAIL("no sample at %#llx in %s, thread %d", (unsigned long long)pc, mod, tid);
}

static void refused(const void *buf, size_t len, const char *expect)
{
	char path[256], err[256] = "";
	struct pp_process pr;
	struct raw_info in;
	save("bad.raw", buf, len, path, sizeof path);
	T_EQ(raw_read(path, &pr, &in, err, sizeof err), -1);
	if (!strstr(err, expect))
		T_FAIL("message '%s' does not say '%s'", err, expect);
}

/* A sample's stack, root first: "pc@module;...", markers by name. */
static void stack_text(const struct pp_process *pr, uint32_t f, char *buf, size_t len)
{
	uint32_t path[300];
	int n = 0;
	for (; f != PP_NO_FRAME; f = pr->frames[f].parent) {
		T_OK(f < pr->nframes && n < 300);
		/* parents first: a frame's parent has a smaller index */
		T_OK(pr->frames[f].parent == PP_NO_FRAME || pr->frames[f].parent < f);
		path[n++] = f;
	}
	size_t used = 0;
	buf[0] = 0;
	while (n-- > 0) {
		const struct pp_frame *fr = &pr->frames[path[n]];
		const char *mod = fr->module == PP_NO_MODULE ? "-" : pr->modules[fr->module].path;
		if (fr->pc == PCPROF_FRAME_UNKNOWN || fr->pc == PCPROF_FRAME_TRUNCATED) {
			T_EQ(fr->module, PP_NO_MODULE);
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ";" : "",
						 fr->pc == PCPROF_FRAME_UNKNOWN ? "[unknown]"
										: "[truncated]");
		} else {
			used += (size_t)snprintf(buf + used, len - used, "%s%llx@%s",
						 used ? ";" : "", (unsigned long long)fr->pc,
						 strrchr(mod, '/') ? strrchr(mod, '/') + 1 : mod);
		}
		T_OK(used < len);
	}
}

/* The ticks of the samples at pc whose stack reads `want`. */
static uint64_t stack_ticks(const struct pp_process *pr, uint64_t pc, const char *want)
{
	uint64_t sum = 0;
	char text[8192];
	for (size_t i = 0; i < pr->nsamples; i++) {
		const struct pp_sample *s = &pr->samples[i];
		if (s->pc != pc)
			continue;
		if (s->frame == PP_NO_FRAME) {
			snprintf(text, sizeof text, "none");
		} else {
			const struct pp_frame *leaf = &pr->frames[s->frame];
			T_EQ(leaf->pc, s->pc);
			T_EQ(leaf->module, s->module);
			stack_text(pr, s->frame, text, sizeof text);
		}
		if (strcmp(text, want) == 0)
			sum += s->count;
	}
	if (!sum)
		T_FAIL("no sample at %#llx with the stack %s", (unsigned long long)pc, want);
	return sum;
}

static void stacks(void)
{
	static struct file f;
	make(&f);
	memset(f.slot, 0, sizeof f.slot);
	f.h.flags |= PCPROF_RAW_F_STACKS;
	f.h.node = (struct pcprof_raw_levels){
		.off = offsetof(struct file, node), .base = NBASE, .max = 2, .open = 2
	};
	const uint32_t root = PCPROF_RAW_ROOT;
	f.node[0] = (struct pcprof_raw_node){ 0x401100, root, 0 };  /* main */
	f.node[1] = (struct pcprof_raw_node){ 0x401200, 0, 0 };     /* b, under main */
	f.node[2] = (struct pcprof_raw_node){ 0x7001150, 1, 0 };    /* a.so or b.so */
	f.node[9] = (struct pcprof_raw_node){ 0x401200, 0, 0 };     /* node 1 again */
	f.node[3] = (struct pcprof_raw_node){ PCPROF_FRAME_UNKNOWN, root, 0 };
	f.node[4] = (struct pcprof_raw_node){ 0x401300, 3, 0 };
	f.node[5] = (struct pcprof_raw_node){ 0x401400, 6, 0 };     /* a loop */
	f.node[6] = (struct pcprof_raw_node){ 0x401500, 5, 0 };
	f.node[7] = (struct pcprof_raw_node){ 0x401600, 1000, 0 };  /* parent outside */
	f.node[8] = (struct pcprof_raw_node){ PCPROF_RAW_NODE_BUSY, root, 0 };
	put_stack(&f, 0, 0x401010, 0, 2, 0, 10);
	put_stack(&f, 1, 0x401010, 1, 2, 0, 1);
	put_stack(&f, 2, 0x401020, 0, 9, 0, 2);
	put_stack(&f, 3, 0x401030, 0, root, 0, 3);
	put_stack(&f, 4, 0x401040, 0, PCPROF_RAW_NO_STACK, 0, 4);
	put_stack(&f, 5, 0x401050, 0, 4, 0, 5);
	put_stack(&f, 6, 0x401060, 0, 5, 0, 6);
	put_stack(&f, 7, 0x401070, 0, 7, 0, 7);
	put_stack(&f, 8, 0x401080, 0, 1, PCPROF_RAW_SLOT_CUT, 8);
	put_stack(&f, 9, 0x401090, 0, 20, 0, 9); /* a free node */
	put_stack(&f, 10, 0x4010a0, 0, 8, 0, 1); /* a node being filled */
	put_stack(&f, 11, 0x401020, 0, 1, 0, 3); /* the same as slot 2 */
	f.h.stack_cut = 8;

	char path[256], err[256];
	save("4242.1.raw", &f, sizeof f, path, sizeof path);
	struct pp_process pr;
	struct raw_info in;
	if (raw_read(path, &pr, &in, err, sizeof err) < 0)
		T_FAIL("a recording with stacks: %s", err);
	T_EQ(in.stack_cut, 8);
	/* what the data file's writer and reader demand of frames */
	if (pp_check_stacks(&pr, err, sizeof err) < 0)
		T_FAIL("frames break the model's rules: %s", err);
	T_EQ(stack_ticks(&pr, 0x401010, "401100@prog;401200@prog;7001150@a.so;401010@prog"), 10);
	T_EQ(stack_ticks(&pr, 0x401010, "401100@prog;401200@prog;7001150@b.so;401010@prog"), 1);
	T_EQ(stack_ticks(&pr, 0x401020, "401100@prog;401200@prog;401020@prog"), 5);
	T_EQ(stack_ticks(&pr, 0x401030, "401030@prog"), 3);
	T_EQ(stack_ticks(&pr, 0x401040, "none"), 4);
	T_EQ(stack_ticks(&pr, 0x401050, "[unknown];401300@prog;401050@prog"), 5);
	T_EQ(stack_ticks(&pr, 0x401070, "[unknown];401600@prog;401070@prog"), 7);
	T_EQ(stack_ticks(&pr, 0x401080, "401100@prog;401200@prog;[truncated];401080@prog"), 8);
	T_EQ(stack_ticks(&pr, 0x401090, "[unknown];401090@prog"), 9);
	T_EQ(stack_ticks(&pr, 0x4010a0, "[unknown];4010a0@prog"), 1);
	/* the loop: cut off at the longest stack, then [unknown] */
	size_t loop = 0;
	for (size_t i = 0; i < pr.nsamples; i++) {
		if (pr.samples[i].pc != 0x401060)
			continue;
		loop++;
		uint32_t fr = pr.samples[i].frame, depth = 0;
		while (pr.frames[fr].parent != PP_NO_FRAME) {
			fr = pr.frames[fr].parent;
			depth++;
		}
		T_EQ(pr.frames[fr].pc, PCPROF_FRAME_UNKNOWN);
		T_OK(depth <= 257);
	}
	T_EQ(loop, 1);
	/* one frame per (pc, module, parent) */
	for (size_t i = 0; i < pr.nframes; i++)
		for (size_t j = i + 1; j < pr.nframes; j++)
			T_OK(pr.frames[i].pc != pr.frames[j].pc ||
			     pr.frames[i].module != pr.frames[j].module ||
			     pr.frames[i].parent != pr.frames[j].parent);
	pp_process_free(&pr);
}

/* The file of make() as version 2 wrote it: 1904-byte header, 24-byte
 * slots (the tables where they were, which version 2 allows). */
static void version2(void)
{
	static struct file f;
	make(&f);
	f.h.version = 2;
	f.h.header_size = PCPROF_RAW_V2_HEADER_SIZE;
	size_t size = offsetof(struct file, slot) + NSLOT * PCPROF_RAW_V2_SLOT_SIZE;
	f.h.file_size = size;
	static char buf[sizeof f];
	memset(buf, 0x77, sizeof buf); /* what version 3 fields would read */
	memcpy(buf, &f.h, PCPROF_RAW_V2_HEADER_SIZE);
	memcpy(buf + offsetof(struct file, mod), f.mod, sizeof f.mod + sizeof f.thr);
	for (int i = 0; i < NSLOT; i++)
		memcpy(buf + offsetof(struct file, slot) + (size_t)i * PCPROF_RAW_V2_SLOT_SIZE,
		       &f.slot[i], PCPROF_RAW_V2_SLOT_SIZE);
	char path[256], err[256];
	save("4242.1.raw", buf, size, path, sizeof path);
	struct pp_process pr;
	struct raw_info in;
	if (raw_read(path, &pr, &in, err, sizeof err) < 0)
		T_FAIL("a version 2 recording: %s", err);
	T_EQ(pr.ticks, 41);
	T_EQ(in.lost_busy, 7);
	T_EQ(in.stack_cut, 0);
	T_EQ(pr.nframes, 0);
	T_EQ(find(&pr, 0x401010, "/bin/prog", 4242)->count, 116);
	T_EQ(find(&pr, 0x7001200, "/lib/b.so", 4242)->count, 6);
	T_EQ(find(&pr, 0x401020, "/bin/prog", 0)->count, 1);
	T_EQ(pr.nsamples, 7);
	for (size_t i = 0; i < pr.nsamples; i++)
		T_EQ(pr.samples[i].frame, PP_NO_FRAME);
	pp_process_free(&pr);

	/* stacks cannot be in a version 2 file */
	((struct pcprof_raw_header *)buf)->flags |= PCPROF_RAW_F_STACKS;
	save("bad.raw", buf, size, path, sizeof path);
	T_EQ(raw_read(path, &pr, &in, err, sizeof err), -1);
}

/* Three images of one run in their own directory: A at the run's origin,
 * B 25 ms later (2 whole buckets), C without a timeline; every slot in
 * bucket 3.  And the file of make() as version 3 wrote it. */
static void timeline(void)
{
	char sub[300], path[400], err[256];
	snprintf(sub, sizeof sub, "%s/tl", dir);
	T_EQ(mkdir(sub, 0700), 0);
	static struct file f;
	const uint64_t t0 = 1000000000, w = PCPROF_RAW_BUCKET_NS;
	for (int img = 0; img < 3; img++) {
		make(&f);
		f.h.pid = 5000 + img;
		f.h.seq = 0;
		f.h.tl_origin_ns = t0 + (img == 1 ? 25000000 : 0);
		f.h.tl_bucket_ns = img == 2 ? 0 : w;
		f.h.tl_lost_from = img == 0 ? 5 : img == 1 ? 1 : 0;
		for (int i = 0; i < NSLOT; i++)
			f.slot[i].bucket = 3;
		snprintf(path, sizeof path, "%s/%d.0.raw", sub, 5000 + img);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		T_OK(fd >= 0);
		T_EQ(write(fd, &f, sizeof f), (long long)sizeof f);
		close(fd);
	}
	struct raw_set set;
	T_EQ(raw_collect(sub, &set, err, sizeof err), 0);
	T_EQ(set.n, 3);
	T_EQ(set.bucket_ns, w);
	for (size_t i = 0; i < set.n; i++) {
		const struct pp_process *pr = &set.procs[i];
		uint32_t want = pr->pid == 5000 ? 4 : pr->pid == 5001 ? 6 : PP_NO_TIME;
		T_OK(pr->nsamples > 0);
		for (size_t k = 0; k < pr->nsamples; k++)
			T_EQ(pr->samples[k].time, want);
		T_EQ(pr->tl_partial, pr->pid == 5000 ? 5 : pr->pid == 5001 ? 3 : 0);
	}
	for (size_t i = 0; i < set.n; i++)
		pp_process_free(&set.procs[i]);
	free(set.procs);
	raw_set_free(&set);

	/* version 3: 2104-byte header, 32-byte slots, buckets unknown */
	make(&f);
	f.h.version = 3;
	f.h.header_size = PCPROF_RAW_V3_HEADER_SIZE;
	size_t size = offsetof(struct file, slot) + NSLOT * PCPROF_RAW_V3_SLOT_SIZE;
	f.h.file_size = size;
	static char buf[sizeof f];
	memset(buf, 0x66, sizeof buf); /* what version 4 fields would read */
	memcpy(buf, &f.h, PCPROF_RAW_V3_HEADER_SIZE);
	memcpy(buf + offsetof(struct file, mod), f.mod, sizeof f.mod + sizeof f.thr);
	for (int i = 0; i < NSLOT; i++)
		memcpy(buf + offsetof(struct file, slot) + (size_t)i * PCPROF_RAW_V3_SLOT_SIZE,
		       &f.slot[i], PCPROF_RAW_V3_SLOT_SIZE);
	save("4242.3.raw", buf, size, path, sizeof path);
	struct pp_process pr;
	struct raw_info in;
	if (raw_read(path, &pr, &in, err, sizeof err) < 0)
		T_FAIL("a version 3 recording: %s", err);
	T_EQ(find(&pr, 0x401010, "/bin/prog", 4242)->count, 116);
	T_EQ(in.tl_bucket_ns, 0);
	for (size_t i = 0; i < pr.nsamples; i++)
		T_EQ(pr.samples[i].time, PP_NO_TIME);
	pp_process_free(&pr);
}

/* raw_gaps on one image of cpu_ms of CPU time at 500 Hz, from in. */
static struct pp_process gaps_of(uint64_t cpu_ms, struct raw_info *in)
{
	struct pp_process pr = { 0 };
	pr.cpu_ns = cpu_ms * 1000000;
	pr.hz = 500;
	snprintf(pr.engine, sizeof pr.engine, "thread-timer");
	in->flags |= PCPROF_RAW_F_SAMPLER;
	raw_gaps(&pr, in);
	return pr;
}

#define MS 1000000ull

static void gaps(void)
{
	struct raw_info in;
	struct pp_process pr;

	/* all covered, or within 2 ms + 2%: nothing */
	in = (struct raw_info){ .spanned = true, .covered_ns = 980 * MS, .threads_ended = 5 };
	pr = gaps_of(1000, &in);
	for (int g = 0; g < PP_GAP_N; g++)
		T_EQ(pr.gap[g].ns, 0);

	/* io_uring workers measured: 500 ms of 600 uncovered; the other 100
	 * go to them too (some ended before the image) */
	in = (struct raw_info){ .spanned = true, .covered_ns = 400 * MS, .iou_ns = 500 * MS,
				.iou_threads = 2, .gap_flags = PCPROF_RAW_G_IOURING };
	pr = gaps_of(1000, &in);
	T_EQ(pr.gap[PP_GAP_IOURING].ns, 600 * MS);
	T_EQ(pr.gap[PP_GAP_IOURING].threads, 2);
	T_EQ(pr.gap[PP_GAP_UNKNOWN].ns, 0);

	/* threads after their exit handlers, at most 100 us each; beyond,
	 * unknown; samples of threads without a slot (250 ticks of 2 ms)
	 * count as covered */
	in = (struct raw_info){ .spanned = true, .covered_ns = 300 * MS, .unslotted = 250,
				.threads_ended = 1000 };
	pr = gaps_of(1000, &in);
	T_EQ(pr.gap[PP_GAP_TEARDOWN].ns, 100 * MS);
	T_EQ(pr.gap[PP_GAP_TEARDOWN].threads, 1000);
	T_EQ(pr.gap[PP_GAP_UNKNOWN].ns, 100 * MS);

	/* measured parts take what is left in order, never more */
	in = (struct raw_info){ .spanned = true, .covered_ns = 900 * MS, .foreign_ns = 70 * MS,
				.foreign_threads = 1, .before_ns = 50 * MS };
	pr = gaps_of(1000, &in);
	T_EQ(pr.gap[PP_GAP_FOREIGN].ns, 70 * MS);
	T_EQ(pr.gap[PP_GAP_BEFORE].ns, 30 * MS);

	/* counted, not measured: ticks of 2 ms, whatever the rest */
	in = (struct raw_info){ .spanned = false, .unsampled = 10, .threads_unsampled = 1,
				.blocked = 250, .blocked_threads = 1 };
	pr = gaps_of(1000, &in);
	T_EQ(pr.gap[PP_GAP_UNSAMPLED].ns, 20 * MS);
	T_EQ(pr.gap[PP_GAP_BLOCKED].ns, 500 * MS);
	T_EQ(pr.gap[PP_GAP_BLOCKED].threads, 1);
	T_EQ(pr.gap[PP_GAP_UNKNOWN].ns, 0); /* not spanned: killed, or older */

	/* threads that ended without exit handlers take the rest */
	in = (struct raw_info){ .spanned = true, .covered_ns = 500 * MS, .threads_unseen = 3 };
	pr = gaps_of(1000, &in);
	T_EQ(pr.gap[PP_GAP_NOEXIT].ns, 500 * MS);
	T_EQ(pr.gap[PP_GAP_NOEXIT].threads, 3);

	/* user time only: the rest is system time, said elsewhere */
	in = (struct raw_info){ .spanned = true, .covered_ns = 500 * MS,
				.flags = PCPROF_RAW_F_USER_TIME };
	pr = gaps_of(1000, &in);
	T_EQ(pr.gap[PP_GAP_UNKNOWN].ns, 0);

	/* no engine: all of it */
	in = (struct raw_info){ .spanned = false };
	pr = (struct pp_process){ .cpu_ns = 300 * MS, .hz = 500 };
	in.flags = PCPROF_RAW_F_SAMPLER;
	raw_gaps(&pr, &in);
	T_EQ(pr.gap[PP_GAP_NOENGINE].ns, 300 * MS);

	/* a recording that stopped (a seccomp filter, the program's manual
	 * engine): what the image used after the stop is the stop's
	 * (stop_ns), never a gap; the rest is weighed as before */
	in = (struct raw_info){ .spanned = true, .covered_ns = 590 * MS,
				.flags = PCPROF_RAW_F_SAMPLER };
	pr = (struct pp_process){ .cpu_ns = 1000 * MS, .hz = 500, .stop = PP_STOP_SECCOMP,
				  .stop_ns = 400 * MS };
	snprintf(pr.engine, sizeof pr.engine, "thread-timer");
	raw_gaps(&pr, &in);
	for (int g = 0; g < PP_GAP_N; g++)
		T_EQ(pr.gap[g].ns, 0);
	in.covered_ns = 300 * MS;
	raw_gaps(&pr, &in);
	T_EQ(pr.gap[PP_GAP_UNKNOWN].ns, 300 * MS);
	in = (struct raw_info){ .flags = PCPROF_RAW_F_SAMPLER };
	pr = (struct pp_process){ .cpu_ns = 300 * MS, .hz = 500, .stop = PP_STOP_MANUAL,
				  .stop_ns = 100 * MS };
	raw_gaps(&pr, &in);
	T_EQ(pr.gap[PP_GAP_NOENGINE].ns, 200 * MS);

	/* a version 5 recording: 2928-byte header, whatever follows it */
	static struct file f;
	make(&f);
	f.h.version = 5;
	f.h.header_size = PCPROF_RAW_V5_HEADER_SIZE;
	static char buf[sizeof f];
	memcpy(buf, &f, sizeof f);
	memset(buf + PCPROF_RAW_V5_HEADER_SIZE, 0x55,
	       sizeof f.h - PCPROF_RAW_V5_HEADER_SIZE); /* what version 6 fields would read */
	char path[256], err[256];
	save("4242.5.raw", buf, sizeof f, path, sizeof path);
	struct raw_info ri;
	if (raw_read(path, &pr, &ri, err, sizeof err) < 0)
		T_FAIL("a version 5 recording: %s", err);
	T_OK(!ri.spanned);
	T_EQ(ri.covered_ns, 0);
	T_EQ(ri.blocked, 0);
	raw_gaps(&pr, &ri);
	for (int g = 0; g < PP_GAP_N; g++)
		T_EQ(pr.gap[g].ns, 0);
	pp_process_free(&pr);
}

int main(void)
{
	T_OK(mkdtemp(dir));
	static struct file f;
	make(&f);
	char path[256], err[256];
	save("4242.1.raw", &f, sizeof f, path, sizeof path);

	struct pp_process pr;
	struct raw_info in;
	T_EQ(raw_read(path, &pr, &in, err, sizeof err), 0);
	T_EQ(pr.pid, 4242);
	T_EQ(pr.ppid, 4241);
	T_EQ(pr.seq, 1);
	T_EQ(pr.hz, 250);
	T_OK(strcmp(pr.engine, "perf") == 0);
	T_OK(strcmp(pr.exe, "/bin/prog") == 0);
	T_OK(strcmp(pr.cmdline, "prog -x") == 0);
	T_OK(strcmp(pr.why, "asked for 250 Hz") == 0);
	T_EQ(pr.cpu_ns, 2000000);
	T_EQ(pr.end, PP_END_EXIT);
	T_EQ(pr.exit_status, -1);
	T_EQ(pr.signals, 40);
	T_EQ(pr.ticks, 41);
	T_EQ(pr.lost, 5 + 7); /* table full + the busy slot */
	T_EQ(in.lost_table, 5);
	T_EQ(in.lost_threads, 2);
	T_EQ(in.lost_busy, 7);
	T_EQ(in.raw_end, PCPROF_END_EXIT);
	T_EQ(in.mapped, sizeof f);
	T_OK(pr.mem_bytes <= sizeof f);

	T_EQ(pr.nmodules, 3);
	T_OK(strcmp(pr.modules[2].path, "/lib/b.so") == 0);
	T_EQ(pr.modules[2].epoch_loaded, 1);
	T_EQ(pr.modules[2].epoch_unloaded, 2);
	T_EQ(pr.modules[0].build_id_len, 3);
	T_EQ(pr.modules[0].seg[0].vaddr, 0x1000);

	/* threads: the two in the table, then "[other]" on demand */
	T_EQ(pr.nthreads, 3);
	T_EQ(pr.threads[0].tid, 4242);
	T_OK(strcmp(pr.threads[0].name, "prog") == 0);
	T_EQ(pr.threads[0].ticks, 30);
	T_EQ(pr.threads[1].tid, 4243);
	T_OK(strcmp(pr.threads[2].name, "[other]") == 0);

	T_EQ(find(&pr, 0x401010, "/bin/prog", 4242)->count, 116);
	T_EQ(find(&pr, 0x401010, "/bin/prog", 4243)->count, 2);
	T_EQ(find(&pr, 0x7001100, "/lib/a.so", 4242)->count, 4);
	T_EQ(find(&pr, 0x7001100, "/lib/b.so", 4243)->count, 3);
	T_EQ(find(&pr, 0x7001200, "/lib/b.so", 4242)->count, 6);
	T_EQ(find(&pr, 0x10, "-", 0)->count, 2);
	T_EQ(find(&pr, 0x401020, "/bin/prog", 0)->count, 1);
	T_EQ(pr.nsamples, 7);
	for (size_t i = 1; i < pr.nsamples; i++) {
		const struct pp_sample *a = &pr.samples[i - 1], *b = &pr.samples[i];
		T_OK(a->module < b->module || (a->module == b->module && a->pc <= b->pc));
	}
	pp_process_free(&pr);

	/* a directory of recordings, with a bad one among them; 4000 exec'd
	 * an image that could not record, which said its CPU time */
	make(&f);
	f.h.pid = 4000;
	f.h.seq = 0;
	f.h.start_ns = 50; /* earlier: sorted first */
	f.h.cpu_start_ns = 0;
	f.h.cpu_ns = 2000000;
	f.h.end = PCPROF_END_EXEC;
	f.h.flags |= PCPROF_RAW_F_FOLLOWED;
	snprintf(f.h.exec_path, sizeof f.h.exec_path, "/bin/next");
	snprintf(f.h.exec_cmdline, sizeof f.h.exec_cmdline, "next -y");
	save("4000.0.raw", &f, sizeof f, path, sizeof path);
	save("4000.1.28.0123456789abcdef.5000000.lost", "", 0, path, sizeof path);
	save("4001.0.raw", "", 0, path, sizeof path);
	save("notes.txt", "x", 1, path, sizeof path);
	save("4005.1.28.00000000000000ab.lost", "", 0, path, sizeof path);
	save("4005.2.28.00000000000000ac.900000.lost", "", 0, path, sizeof path);
	save("4003.0.12.0123456789abcdef.lost", "", 0, path, sizeof path);
	save("4004.0.28.0123.lost", "", 0, path, sizeof path); /* not ours */
	save("4006.0.28.0123456789abcdef.12x.lost", "", 0, path, sizeof path); /* nor */
	struct raw_set set;
	T_EQ(raw_collect(dir, &set, err, sizeof err), 0);
	T_EQ(set.nbad, 1);
	T_EQ(set.nunrecorded, 4);
	T_EQ(set.unrecorded[0].pid, 4000);
	T_EQ(set.unrecorded[0].seq, 1);
	T_OK(set.unrecorded[0].has_cpu);
	T_EQ(set.unrecorded[0].cpu_ns, 5000000);
	T_EQ(set.unrecorded[1].pid, 4003);
	T_EQ(set.unrecorded[1].err, ENOMEM);
	T_OK(!set.unrecorded[1].has_cpu);
	T_EQ(set.unrecorded[2].pid, 4005);
	T_EQ(set.unrecorded[2].seq, 1);
	T_EQ(set.unrecorded[2].err, ENOSPC);
	T_EQ(set.unrecorded[3].seq, 2);
	T_OK(strstr(set.first_bad, "4001.0.raw") != NULL);
	T_EQ(set.procs[0].pid, 4000);
	T_EQ(set.procs[1].pid, 4242);
	/* each marker is an image of its own, unsampled, with its CPU time:
	 * what its marker says less where it began (the image before it) */
	T_EQ(set.n, 6);
	size_t seen = 0;
	for (size_t i = 2; i < set.n; i++) {
		const struct pp_process *p = &set.procs[i];
		T_OK(set.info[i].unrecorded && !p->hz && !p->engine[0] && !p->nsamples);
		T_OK(strncmp(p->why, PP_WHY_NOT_RECORDED, strlen(PP_WHY_NOT_RECORDED)) == 0);
		if (p->pid == 4000) {
			T_EQ(p->seq, 1);
			T_EQ(p->cpu_ns, 3000000);
			T_OK(strcmp(p->exe, "/bin/next") == 0 && strcmp(p->cmdline, "next -y") == 0);
			T_OK(strstr(p->why, "no room for its recording") != NULL);
		} else if (p->pid == 4003) {
			T_EQ(p->cpu_ns, 0);
			T_OK(strstr(p->why, "address-space limit") != NULL);
		} else {
			T_EQ(p->pid, 4005);
			T_EQ(p->cpu_ns, p->seq == 2 ? 900000 : 0);
		}
		seen |= 1u << (p->pid - 4000 + p->seq);
	}
	T_EQ(seen, (1u << 1) | (1u << 3) | (1u << 6) | (1u << 7));
	for (size_t i = 0; i < set.n; i++)
		pp_process_free(&set.procs[i]);
	free(set.procs);
	raw_set_free(&set);

	/* module entries past the reserved ones were never written */
	make(&f);
	f.h.mod_reserved = 2;
	save("4242.1.raw", &f, sizeof f, path, sizeof path);
	T_EQ(raw_read(path, &pr, &in, err, sizeof err), 0);
	T_EQ(pr.nmodules, 2);
	pp_process_free(&pr);

	/* broken recordings */
	refused("", 0, "empty");
	static struct file z;
	refused(&z, sizeof z, "empty");
	refused(&f, 100, "shorter than a header");
	make(&f);
	f.h.magic[0] = 'X';
	refused(&f, sizeof f, "bad magic");
	make(&f);
	f.h.version = 99;
	refused(&f, sizeof f, "version");
	make(&f);
	f.h.slot.max = 4;
	refused(&f, sizeof f, "pc table out of bounds");
	make(&f);
	f.h.slot.base = 48;
	refused(&f, sizeof f, "pc table out of bounds");
	make(&f);
	f.h.slot.open = 4;
	refused(&f, sizeof f, "pc table out of bounds");
	make(&f);
	f.h.slot.off = 64; /* inside the header */
	refused(&f, sizeof f, "pc table out of bounds");
	make(&f);
	f.h.mod_off = UINT64_MAX - 8;
	refused(&f, sizeof f, "module table out of bounds");
	make(&f);
	f.h.mod_reserved = NMOD + 1;
	refused(&f, sizeof f, "module table out of bounds");
	make(&f);
	f.h.thr.base = 1u << 30;
	refused(&f, sizeof f, "thread table out of bounds");
	make(&f);
	f.h.thr.off = f.h.slot.off;
	refused(&f, sizeof f, "tables overlap");
	make(&f);
	refused(&f, sizeof f - 8, "file size differs");
	make(&f);
	f.h.file_size -= 8;
	refused(&f, sizeof f, "file size differs");

	make(&f);
	f.h.node.base = NBASE; /* a node table without the stacks flag */
	refused(&f, sizeof f, "without the stacks flag");
	make(&f);
	f.h.flags |= PCPROF_RAW_F_STACKS;
	f.h.node = (struct pcprof_raw_levels){
		.off = offsetof(struct file, slot), .base = NBASE, .max = 2, .open = 1
	};
	refused(&f, sizeof f, "tables overlap");
	f.h.node.off = sizeof f - 8;
	refused(&f, sizeof f, "stack node table out of bounds");

	/* counts a program wrote over its own recording: two slots of one
	 * key whose sum wraps, one beyond a data file's bound, busy ticks
	 * beyond it (data.h) */
	make(&f);
	put_slot(&f, 9, 0x401010, 3, 0, UINT64_C(1) << 63);
	put_slot(&f, 40, 0x401010, 3, 0, UINT64_C(1) << 63);
	refused(&f, sizeof f, "counts above 2^53");
	make(&f);
	put_slot(&f, 40, 0x401030, 3, 0, PP_TICKS_MAX + 1);
	refused(&f, sizeof f, "counts above 2^53");
	make(&f);
	put_slot(&f, 40, PCPROF_RAW_SLOT_BUSY, 3, 0, PP_TICKS_MAX);
	refused(&f, sizeof f, "counts above 2^53");
	/* and two recordings each within the bound whose sum is not: the
	 * second one read is left out, not the run */
	char sub[64];
	snprintf(sub, sizeof sub, "%s/sum", dir);
	T_OK(mkdir(sub, 0700) == 0);
	make(&f);
	put_slot(&f, 40, 0x401030, 3, 0, PP_TICKS_MAX / 2 + 1);
	for (int i = 0; i < 2; i++) {
		f.h.pid = 5000 + i;
		snprintf(path, sizeof path, "%.64s/%d.1.raw", sub, 5000 + i);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		T_OK(fd >= 0);
		T_EQ(write(fd, &f, sizeof f), (long long)sizeof f);
		close(fd);
	}
	T_EQ(raw_collect(sub, &set, err, sizeof err), 0);
	T_EQ(set.n, 1);
	T_EQ(set.nbad, 1);
	if (!strstr(set.first_bad, "sample counts add up to more than 2^53"))
		T_FAIL("first bad recording: '%s'", set.first_bad);
	for (size_t i = 0; i < set.n; i++)
		pp_process_free(&set.procs[i]);
	free(set.procs);
	raw_set_free(&set);

	stacks();
	version2();
	timeline();
	gaps();

	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	T_EQ(system(cmd), 0);
	return 0;
}
