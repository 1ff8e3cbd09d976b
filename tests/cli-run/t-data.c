/*
 * t-data - the pcprof.data codec (cli/data.c): a profile survives
 * pp_write + pp_read field for field; every truncation and every single-bit
 * flip of a file is refused with a one-line message (CRC-32 detects all
 * single-bit errors); foreign, newer, empty, missing and directory inputs
 * are refused; pp_write leaves no temporary file behind; pp_find_module
 * honours segments, bias and epochs.  Frames (version 2) survive too, a
 * version 1 file still reads (without frames), and frames that break the
 * rules of profile.h are refused by the writer and the reader.  Version 3
 * records end with a stop and the gaps by cause (appended): a record that
 * ends before either reads without it, a bad stop is refused.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "data.h"
#include "record-format.h"
#include "test.h"

static char dir[] = "/tmp/t-data.XXXXXX";

static void fill(struct pp_profile *p)
{
	memset(p, 0, sizeof *p);
	p->command = strdup("prog --arg 'two words'");
	p->start_ns = 1700000000000000000ull;
	p->end_ns = p->start_ns + 123456789;
	p->nprocs = 2;
	p->procs = calloc(2, sizeof *p->procs);
	for (int i = 0; i < 2; i++) {
		struct pp_process *pr = &p->procs[i];
		pr->pid = 1000 + i;
		pr->ppid = i ? 1000 : 999;
		pr->seq = (uint32_t)i;
		pr->exe = strdup(i ? "/usr/bin/child" : "/tmp/prog");
		pr->cmdline = strdup(i ? "child" : "");
		pr->hz = 997;
		snprintf(pr->engine, sizeof pr->engine, "thread-timer");
		pr->why = strdup("default: per-thread CPU timers");
		pr->start_ns = 5, pr->end_ns = 6, pr->cpu_ns = 7;
		pr->signals = 8, pr->ticks = 9, pr->lost = 10;
		pr->end = i ? PP_END_SIGNAL : PP_END_EXEC;
		pr->exit_status = i ? 11 : -1;
		pr->mem_bytes = 1 << 20;
		pr->nmodules = 2;
		pr->modules = calloc(2, sizeof *pr->modules);
		pr->modules[0].path = strdup(pr->exe);
		pr->modules[0].build_id_len = 20;
		for (int k = 0; k < 20; k++)
			pr->modules[0].build_id[k] = (uint8_t)(k * 7 + i);
		pr->modules[0].bias = 0x555555554000ull;
		pr->modules[0].nsegs = 2;
		pr->modules[0].seg[0] = (struct pp_segment){ 0, 0x1000, 0, 4 };
		pr->modules[0].seg[1] = (struct pp_segment){ 0x1000, 0x2000, 0x1000, 5 };
		pr->modules[1].path = strdup("/lib/plugin.so");
		pr->modules[1].bias = 0x7f0000000000ull;
		pr->modules[1].epoch_loaded = 1;
		pr->modules[1].epoch_unloaded = 2;
		pr->modules[1].nsegs = 1;
		pr->modules[1].seg[0] = (struct pp_segment){ 0x1000, 0x100, 0x1000, 5 };
		pr->nthreads = 2;
		pr->threads = calloc(2, sizeof *pr->threads);
		pr->threads[0] = (struct pp_thread){ 1000 + i, "main", 5 };
		pr->threads[1] = (struct pp_thread){ 2000 + i, "worker-thread-1", 4 };
		/* main -> leaf at 0x...5100; [truncated] -> the plugin */
		pr->nframes = 4;
		pr->frames = calloc(4, sizeof *pr->frames);
		pr->frames[0] = (struct pp_frame){ 0x555555555050ull, 0, PP_NO_FRAME };
		pr->frames[1] = (struct pp_frame){ 0x555555555100ull, 0, 0 };
		pr->frames[2] =
			(struct pp_frame){ PCPROF_FRAME_TRUNCATED, PP_NO_MODULE, PP_NO_FRAME };
		pr->frames[3] = (struct pp_frame){ 0x7f0000001010ull, 1, 2 };
		/* deliberately not in (module, pc, thread, frame) order: the reader sorts */
		pr->nsamples = 5;
		pr->samples = calloc(5, sizeof *pr->samples);
		pr->samples[0] = (struct pp_sample){ 0x7f0000001010ull, 1, 1, 3, 3, PP_NO_TIME };
		pr->samples[1] = (struct pp_sample){ 0x555555555100ull, 0, 0, 4, PP_NO_FRAME, PP_NO_TIME };
		pr->samples[2] = (struct pp_sample){ 0x10, PP_NO_MODULE, 1, 1, PP_NO_FRAME, PP_NO_TIME };
		pr->samples[3] = (struct pp_sample){ 0x555555555100ull, 0, 1, 1, 1, PP_NO_TIME };
		pr->samples[4] = (struct pp_sample){ 0x555555555100ull, 0, 0, 2, 1, PP_NO_TIME };
		/* CPU time without samples: the first cause, one in the middle
		 * with a count of threads, the last */
		pr->gap[PP_GAP_UNSAMPLED] = (struct pp_gap_part){ 12345 + (uint64_t)i, 3 };
		pr->gap[PP_GAP_IOURING] = (struct pp_gap_part){ 500000000, 2 };
		pr->gap[PP_GAP_UNKNOWN] = (struct pp_gap_part){ UINT64_MAX - 1, 0 };
		/* the second image's recording stopped (a seccomp filter) */
		if (i) {
			pr->stop = PP_STOP_SECCOMP;
			pr->stop_ns = 5;
		}
	}
}

static void same(const struct pp_profile *a, const struct pp_profile *b)
{
	T_OK(strcmp(a->command, b->command) == 0);
	T_EQ(a->start_ns, b->start_ns);
	T_EQ(a->end_ns, b->end_ns);
	T_EQ(a->nprocs, b->nprocs);
	for (size_t i = 0; i < a->nprocs; i++) {
		const struct pp_process *x = &a->procs[i], *y = &b->procs[i];
		T_EQ(x->pid, y->pid);
		T_EQ(x->ppid, y->ppid);
		T_EQ(x->seq, y->seq);
		T_OK(strcmp(x->exe, y->exe) == 0);
		T_OK(strcmp(x->cmdline, y->cmdline) == 0);
		T_OK(strcmp(x->why, y->why) == 0);
		T_OK(strcmp(x->engine, y->engine) == 0);
		T_EQ(x->hz, y->hz);
		T_EQ(x->start_ns, y->start_ns);
		T_EQ(x->end_ns, y->end_ns);
		T_EQ(x->cpu_ns, y->cpu_ns);
		T_EQ(x->signals, y->signals);
		T_EQ(x->ticks, y->ticks);
		T_EQ(x->lost, y->lost);
		T_EQ(x->end, y->end);
		T_EQ(x->exit_status, y->exit_status);
		T_EQ(x->mem_bytes, y->mem_bytes);
		for (int g = 0; g < PP_GAP_N; g++) {
			T_EQ(x->gap[g].ns, y->gap[g].ns);
			T_EQ(x->gap[g].threads, y->gap[g].threads);
		}
		T_EQ(x->stop, y->stop);
		T_EQ(x->stop_ns, y->stop_ns);
		T_EQ(x->nmodules, y->nmodules);
		for (size_t k = 0; k < x->nmodules; k++) {
			const struct pp_module *m = &x->modules[k], *n = &y->modules[k];
			T_OK(strcmp(m->path, n->path) == 0);
			T_EQ(m->build_id_len, n->build_id_len);
			T_OK(memcmp(m->build_id, n->build_id, m->build_id_len) == 0);
			T_EQ(m->bias, n->bias);
			T_EQ(m->epoch_loaded, n->epoch_loaded);
			T_EQ(m->epoch_unloaded, n->epoch_unloaded);
			T_EQ(m->nsegs, n->nsegs);
			for (uint32_t s = 0; s < m->nsegs; s++) {
				T_EQ(m->seg[s].vaddr, n->seg[s].vaddr);
				T_EQ(m->seg[s].memsz, n->seg[s].memsz);
				T_EQ(m->seg[s].offset, n->seg[s].offset);
				T_EQ(m->seg[s].flags, n->seg[s].flags);
			}
		}
		T_EQ(x->nthreads, y->nthreads);
		for (size_t k = 0; k < x->nthreads; k++) {
			T_EQ(x->threads[k].tid, y->threads[k].tid);
			T_OK(strcmp(x->threads[k].name, y->threads[k].name) == 0);
			T_EQ(x->threads[k].ticks, y->threads[k].ticks);
		}
		T_EQ(x->nsamples, y->nsamples);
		T_EQ(x->nframes, y->nframes);
		for (size_t k = 0; k < x->nframes; k++) {
			T_EQ(x->frames[k].pc, y->frames[k].pc);
			T_EQ(x->frames[k].module, y->frames[k].module);
			T_EQ(x->frames[k].parent, y->frames[k].parent);
		}
	}
}

/* The samples as read: sorted by (module, pc, thread, frame), nothing
 * lost; a version 1 file has no frames. */
static void check_sorted(const struct pp_process *pr, bool frames)
{
	static const struct pp_sample want[5] = {
		{ 0x555555555100ull, 0, 0, 2, 1, PP_NO_TIME },
		{ 0x555555555100ull, 0, 0, 4, PP_NO_FRAME, PP_NO_TIME },
		{ 0x555555555100ull, 0, 1, 1, 1, PP_NO_TIME },
		{ 0x7f0000001010ull, 1, 1, 3, 3, PP_NO_TIME },
		{ 0x10, PP_NO_MODULE, 1, 1, PP_NO_FRAME, PP_NO_TIME },
	};
	T_EQ(pr->nsamples, 5);
	T_EQ(pr->nframes, frames ? 4 : 0);
	uint64_t sum = 0;
	for (int i = 0; i < 5; i++) {
		T_EQ(pr->samples[i].pc, want[i].pc);
		T_EQ(pr->samples[i].module, want[i].module);
		T_EQ(pr->samples[i].thread, want[i].thread);
		sum += pr->samples[i].count;
		if (frames) {
			T_EQ(pr->samples[i].count, want[i].count);
			T_EQ(pr->samples[i].frame, want[i].frame);
		} else {
			T_EQ(pr->samples[i].frame, PP_NO_FRAME);
		}
	}
	T_EQ(sum, 11);
}

/* Set both checksums of an encoded file after patching it. */
static void reseal(uint8_t *buf, size_t len)
{
	uint32_t c = (uint32_t)crc32(0, buf + PP_HEADER_SIZE, (uInt)(len - PP_HEADER_SIZE));
	memcpy(buf + 24, &c, 4); /* little-endian host */
	c = (uint32_t)crc32(0, buf, 28);
	memcpy(buf + 28, &c, 4);
}

/* A copy of encoded file buf (n bytes, one PROC record or more) whose
 * first PROC record ends `cut` bytes earlier (the file `cut` shorter, its
 * lengths and checksum made right): a record as an older pcprof wrote it. */
static uint8_t *shorter(const uint8_t *buf, size_t n, size_t cut)
{
	size_t m = n - cut;
	uint8_t *old = malloc(n);
	memcpy(old, buf, n);
	/* the PROC record's length (after its tag) and the body length */
	size_t at = PP_HEADER_SIZE;
	uint64_t len;
	for (;;) {
		len = 0;
		for (int k = 7; k >= 0; k--)
			len = len << 8 | old[at + 4 + k];
		if (memcmp(old + at, "PROC", 4) == 0)
			break;
		at += 12 + (size_t)len;
	}
	T_OK(at + 12 + len == n);
	len -= cut;
	for (int k = 0; k < 8; k++)
		old[at + 4 + k] = (uint8_t)(len >> (8 * k));
	uint64_t body = m - 32;
	for (int k = 0; k < 8; k++)
		old[16 + k] = (uint8_t)(body >> (8 * k));
	reseal(old, m);
	return old;
}

/* Frames that break profile.h's rules: pp_encode refuses to write them, and
 * the reader refuses a file that holds them (patched into a good file). */
static void bad_stacks(struct pp_profile *a)
{
	struct pp_process *pr = &a->procs[0];
	struct {
		size_t frame;
		struct pp_frame f;
		const char *says;
	} bad[] = {
		{ 0, { 0x555555555050ull, 0, 0 }, "parents come first" },
		{ 1, { 0x555555555100ull, 0, 2 }, "parents come first" },
		{ 0, { 0x555555555050ull, 2, PP_NO_FRAME }, "module 2 out of range" },
		{ 2, { PCPROF_FRAME_TRUNCATED, 0, PP_NO_FRAME }, "marker" },
		{ 1, { 0x555555555108ull, 0, 0 }, "not at the sample's pc" },
		{ 3, { 0x7f0000001010ull, 0, 2 }, "not at the sample's pc" },
	};
	char err[256];
	uint8_t *buf, *none = NULL;
	size_t len, n;
	T_EQ(pp_encode(a, &buf, &len, err, sizeof err), 0);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct pp_frame keep = pr->frames[bad[i].frame];
		pr->frames[bad[i].frame] = bad[i].f;
		T_EQ(pp_encode(a, &none, &n, err, sizeof err), -1);
		if (!strstr(err, bad[i].says))
			T_FAIL("case %zu: writer says '%s', not '%s'", i, err, bad[i].says);
		pr->frames[bad[i].frame] = keep;

		/* the same frame in the file: find the good one's 16 bytes */
		uint8_t good[16], evil[16];
		uint32_t v[2] = { keep.module, keep.parent };
		memcpy(good, &keep.pc, 8), memcpy(good + 8, v, 8);
		uint32_t w[2] = { bad[i].f.module, bad[i].f.parent };
		memcpy(evil, &bad[i].f.pc, 8), memcpy(evil + 8, w, 8);
		uint8_t *at = memmem(buf, len, good, 16);
		T_OK(at != NULL);
		memcpy(at, evil, 16);
		reseal(buf, len);
		struct pp_profile p;
		T_EQ(pp_parse(buf, len, 0, &p, err, sizeof err), -1);
		if (!strstr(err, bad[i].says) || !strstr(err, "corrupted"))
			T_FAIL("case %zu: reader says '%s', not '%s'", i, err, bad[i].says);
		memcpy(at, good, 16);
		reseal(buf, len);
		T_EQ(pp_parse(buf, len, 0, &p, err, sizeof err), 0);
		pp_free(&p);
	}
	/* a sample's frame out of range */
	pr->samples[2].frame = 4;
	T_EQ(pp_encode(a, &none, &n, err, sizeof err), -1);
	T_OK(strstr(err, "frame 4 out of range") != NULL);
	pr->samples[2].frame = PP_NO_FRAME;
	free(buf);
}

/* pp_parse must refuse buf with a one-line message. */
static void refused(const uint8_t *buf, size_t len, const char *why)
{
	struct pp_profile p;
	char err[256] = "";
	if (pp_parse(buf, len, 0, &p, err, sizeof err) == 0)
		T_FAIL("%s: accepted", why);
	T_OK(err[0] != 0);
	T_OK(strchr(err, '\n') == NULL);
	T_EQ(p.nprocs, 0);
	T_OK(p.procs == NULL && p.command == NULL);
}

static void write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	T_OK(fd >= 0);
	T_EQ(write(fd, buf, len), (long long)len);
	close(fd);
}

static void read_fails(const char *path, const char *expect)
{
	struct pp_profile p;
	char err[256] = "";
	T_EQ(pp_read(path, &p, err, sizeof err), -1);
	if (!strstr(err, expect))
		T_FAIL("%s: message '%s' does not say '%s'", path, err, expect);
	T_OK(strchr(err, '\n') == NULL);
}

int main(void)
{
	T_OK(mkdtemp(dir));
	char path[256], err[256];
	snprintf(path, sizeof path, "%s/pcprof.data", dir);

	struct pp_profile a, b;
	fill(&a);
	T_EQ(pp_write(path, &a, err, sizeof err), 0);
	T_EQ(pp_read(path, &b, err, sizeof err), 0);
	same(&a, &b);
	check_sorted(&b.procs[0], true);
	check_sorted(&b.procs[1], true);
	bad_stacks(&a);

	/* a version 1 file: the same, without frames */
	{
		uint8_t *v1;
		size_t n1;
		struct pp_profile c;
		T_EQ(pp_encode_version(&a, 1, &v1, &n1, err, sizeof err), 0);
		T_EQ(v1[8], 1);
		T_EQ(pp_parse(v1, n1, 0, &c, err, sizeof err), 0);
		check_sorted(&c.procs[0], false);
		check_sorted(&c.procs[1], false);
		/* gaps came with version 3's record: none in a version 1 file */
		for (int g = 0; g < PP_GAP_N; g++)
			T_EQ(c.procs[0].gap[g].ns, 0);
		pp_free(&c);
		free(v1);
	}

	/* Version 3 records end, since 2026-11-29, with the stop (u32, u64)
	 * then the gaps (a count, 16 bytes each).  A record as written
	 * before (it ends after the timeline) reads, with no stop and no
	 * gaps; one that ends after the stop, with its stop and no gaps; and
	 * a cause this pcprof does not know (from a newer one) reads as
	 * unknown. */
	{
		struct pp_profile one = { 0 }, c;
		one.command = a.command;
		one.nprocs = 1;
		one.procs = calloc(1, sizeof *one.procs);
		struct pp_process *pr = &one.procs[0];
		pr->exe = pr->cmdline = pr->why = (char *)"x";
		pr->cpu_ns = 9;
		pr->stop = PP_STOP_MANUAL;
		pr->stop_ns = 4;
		pr->gap[PP_GAP_BLOCKED] = (struct pp_gap_part){ 7, 1 };
		uint8_t *buf;
		size_t n;
		T_EQ(pp_encode(&one, &buf, &n, err, sizeof err), 0);
		/* the record's end: 4 (stop) + 8 (stop_ns) + 4 (count) + 16
		 * (one gap) bytes */
		T_EQ(buf[n - 32], PP_STOP_MANUAL);
		T_EQ(buf[n - 28], 4);
		T_EQ(buf[n - 20], 1);
		T_EQ(buf[n - 16], PP_GAP_BLOCKED);
		buf[n - 16] = 99; /* an unknown cause */
		reseal(buf, n);
		T_EQ(pp_parse(buf, n, 0, &c, err, sizeof err), 0);
		T_EQ(c.procs[0].stop, PP_STOP_MANUAL);
		T_EQ(c.procs[0].stop_ns, 4);
		T_EQ(c.procs[0].gap[PP_GAP_BLOCKED].ns, 0);
		T_EQ(c.procs[0].gap[PP_GAP_UNKNOWN].ns, 7);
		T_EQ(c.procs[0].gap[PP_GAP_UNKNOWN].threads, 1);
		pp_free(&c);
		/* the gaps cut off, then the stop too */
		for (size_t cut = 20; cut <= 32; cut += 12) {
			uint8_t *old = shorter(buf, n, cut);
			T_EQ(pp_parse(old, n - cut, 0, &c, err, sizeof err), 0);
			T_EQ(c.procs[0].stop, cut == 20 ? PP_STOP_MANUAL : PP_STOP_NONE);
			T_EQ(c.procs[0].stop_ns, cut == 20 ? 4 : 0);
			for (int g = 0; g < PP_GAP_N; g++)
				T_EQ(c.procs[0].gap[g].ns, 0);
			pp_free(&c);
			free(old);
		}
		/* a stop this pcprof does not know, or more than the CPU time:
		 * corrupted */
		for (int bad = 0; bad < 2; bad++) {
			buf[n - (bad ? 28 : 32)] = bad ? 10 : PP_STOP_MAX + 1;
			reseal(buf, n);
			if (pp_parse(buf, n, 0, &c, err, sizeof err) == 0)
				T_FAIL("a record with a bad stop (%d) was read", bad);
			T_OK(strstr(err, "stop") != NULL);
			buf[n - 32] = PP_STOP_MANUAL;
			buf[n - 28] = 4;
		}
		free(buf);
		free(one.procs);
	}

	/* the same file again replaces it, and leaves nothing else */
	T_EQ(pp_write(path, &b, err, sizeof err), 0);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "test \"$(ls -A %s)\" = pcprof.data", dir);
	T_EQ(system(cmd), 0);
	struct stat st;
	T_OK(stat(path, &st) == 0);
	mode_t mask = umask(0);
	umask(mask);
	T_EQ(st.st_mode & 0777, 0666 & ~mask);

	/* pp_find_module: segments, bias, epochs */
	const struct pp_process *pr = &b.procs[0];
	T_EQ(pp_find_module(pr, 0x555555554000ull, 0), 0);
	T_EQ(pp_find_module(pr, 0x555555556fffull, 0), 0);
	T_EQ(pp_find_module(pr, 0x555555557000ull, 0), PP_NO_MODULE);
	T_EQ(pp_find_module(pr, 0x7f0000001010ull, 1), 1);
	T_EQ(pp_find_module(pr, 0x7f0000001010ull, 0), PP_NO_MODULE); /* not loaded yet */
	T_EQ(pp_find_module(pr, 0x7f0000001010ull, 2), PP_NO_MODULE); /* unloaded */
	T_EQ(pp_find_module(pr, 0x555555555000ull, 7), 0);            /* never unloaded */

	/* a profile that breaks the model's rules is not written */
	a.procs[1].samples[0].thread = 2;
	T_EQ(pp_write(path, &a, err, sizeof err), -1);
	T_OK(strstr(err, "out of range") != NULL);
	a.procs[1].samples[0].thread = 1;

	uint8_t *buf;
	size_t len;
	T_EQ(pp_encode(&a, &buf, &len, err, sizeof err), 0);

	/* every proper prefix: truncated */
	for (size_t n = 0; n < len; n++)
		refused(buf, n, "prefix");
	/* trailing bytes */
	uint8_t *big = malloc(len + 1);
	memcpy(big, buf, len);
	big[len] = 0;
	refused(big, len + 1, "trailing byte");
	free(big);
	/* every single-bit flip */
	for (size_t i = 0; i < len; i++) {
		for (int bit = 0; bit < 8; bit++) {
			buf[i] ^= (uint8_t)(1 << bit);
			refused(buf, len, "bit flip");
			buf[i] ^= (uint8_t)(1 << bit);
		}
	}
	/* a newer version, with correct checksums: the message says so */
	buf[8] = PP_VERSION + 1;
	uint32_t c = (uint32_t)crc32(0, buf, 28);
	memcpy(buf + 28, &c, 4); /* little-endian host */
	struct pp_profile p;
	T_EQ(pp_parse(buf, len, 0, &p, err, sizeof err), -1);
	T_OK(strstr(err, "newer") != NULL);
	buf[8] = PP_VERSION;
	c = (uint32_t)crc32(0, buf, 28);
	memcpy(buf + 28, &c, 4);
	T_EQ(pp_parse(buf, len, 0, &p, err, sizeof err), 0);
	pp_free(&p);

	/* files that are not data files */
	snprintf(path, sizeof path, "%s/empty", dir);
	write_file(path, "", 0);
	read_fails(path, "empty");
	snprintf(path, sizeof path, "%s/text", dir);
	write_file(path, "hello, world\n", 13);
	read_fails(path, "not a pcprof data file");
	snprintf(path, sizeof path, "%s/short", dir);
	write_file(path, buf, 20);
	read_fails(path, "truncated");
	snprintf(path, sizeof path, "%s/cut", dir);
	write_file(path, buf, len - 1);
	read_fails(path, "truncated");
	read_fails(dir, "directory");
	snprintf(path, sizeof path, "%s/missing", dir);
	read_fails(path, "No such file");
	snprintf(path, sizeof path, "%s/fifo", dir);
	T_OK(mkfifo(path, 0600) == 0);
	read_fails(path, "not a regular file");

	/* pp_write into a missing directory fails cleanly */
	snprintf(path, sizeof path, "%s/no/such/dir/pcprof.data", dir);
	T_EQ(pp_write(path, &a, err, sizeof err), -1);
	T_OK(strchr(err, '\n') == NULL);

	free(buf);
	pp_free(&a);
	pp_free(&b);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	T_EQ(system(cmd), 0);
	return 0;
}
