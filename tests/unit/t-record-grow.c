/*
 * t-record-grow - the recorder's growing tables (lib/record.c), fed
 * exactly through the injection engine: this program runs itself with the
 * PCPROF_* environment and PROFIL_ENGINE=manual, the copy injects N distinct
 * pcs from T threads (__profil_inject: the path a signal takes), and the
 * recording is read back here.
 *   - Room: every tick is in a slot (no loss), every key once, every thread
 *     in the thread table; each level below the top holds exactly half its
 *     slots (one thread: the level opens at half), and the memory reserved
 *     is at most 4 slots per key plus the first reservation (one sparse
 *     table of the old layout touched a page per key: 20000 keys, 6 MiB).
 *   - RLIMIT_FSIZE of 6 MiB: a smaller table; what does not fit is counted
 *     as lost (stored + lost = ticks), no SIGXFSZ.
 *   - The thread table holds as many threads as it has entries, 16352 (it
 *     held 12272: the levels below the last were used only to half; issue
 *     19): 20000 threads one after another inject a tick each; the first
 *     16352 distinct thread ids have an entry, the others' ticks are in
 *     lost_threads.
 *   - RLIMIT_AS of 64 MiB (not under ASan or TSan, whose shadow needs terabytes of
 *     address space): 200000 distinct pcs make the tables grow until the
 *     recording maps 1/32 of the limit (2 MiB); what does not fit is lost
 *     (stored + lost = ticks), the table says ENOMEM, the copy exits
 *     normally.  (The whole file was mapped: 45 MiB of the 64.)
 *   - A tmpfs with room for the first level only (root; SKIP otherwise):
 *     the next level cannot be reserved, the copy exits normally (no SIGBUS),
 *     the table says ENOSPC and stored + lost = ticks.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profil_ext.h"
#include "record-format.h"
#include "helpers/scratch.h"
#include "helpers/tprof.h"
#include "test.h"


/* ---- the copy that records ---- */

/* The threads start one at a time and then inject one key each per round:
 * a level opens (the injecting call reserves it before it returns) within
 * the round that fills its predecessor to half, so no burst can fill a
 * level while the next one is being reserved.  (Bursts of new keys faster
 * than the kernel reserves pages lose ticks, counted as lost; signals come
 * far too slowly for that.) */
static unsigned long per_thread;
static pthread_barrier_t round_start;
static sem_t registered;

static void inject(unsigned id, unsigned long i)
{
	if (__profil_inject(0x400000 + ((uintptr_t)id << 24) + 16 * i, 1) < 0)
		_exit(3);
}

static void rounds(unsigned id)
{
	for (unsigned long i = 1; i < per_thread; i++) {
		pthread_barrier_wait(&round_start);
		inject(id, i);
	}
}

static void *one_tick(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	inject(0, 0);
	return NULL;
}

static void *worker(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	inject(id, 0);
	sem_post(&registered);
	rounds(id);
	return NULL;
}

static int injector(unsigned long n, unsigned threads)
{
	per_thread = n / threads;
	pthread_t t[64];
	if (threads > 64 || pthread_barrier_init(&round_start, NULL, threads) != 0 ||
	    sem_init(&registered, 0, 0) != 0)
		return 4;
	inject(0, 0);
	for (unsigned i = 1; i < threads; i++) {
		if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i) != 0)
			return 4;
		sem_wait(&registered);
	}
	rounds(0);
	for (unsigned i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* n threads one after another, each injecting one tick; then the number
 * of distinct thread ids among them into `out` (ids are reused only after
 * pid_max allocations, but other processes allocate too). */
static int thread_crowd(unsigned long n, const char *out)
{
	pid_t *tids = malloc(n * sizeof *tids);
	if (!tids)
		return 4;
	for (unsigned long i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, one_tick, &tids[i]) != 0 || pthread_join(t, NULL) != 0)
			return 4;
	}
	qsort(tids, n, sizeof *tids, cmp_tid);
	unsigned long distinct = 0;
	for (unsigned long i = 0; i < n; i++)
		distinct += i == 0 || tids[i] != tids[i - 1];
	free(tids);
	FILE *f = fopen(out, "w");
	if (!f || fprintf(f, "%lu\n", distinct) < 0 || fclose(f) != 0)
		return 4;
	return 0;
}

/* The bytes of the recording this process maps (its *.raw lines of
 * /proc/self/maps) into `out`. */
static int report_mapped(const char *out)
{
	FILE *m = fopen("/proc/self/maps", "r"), *f = fopen(out, "w");
	if (!m || !f)
		return 4;
	char line[512];
	unsigned long long mapped = 0, lo, hi;
	while (fgets(line, sizeof line, m)) {
		size_t len = strlen(line);
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && len > 5 &&
		    strcmp(line + len - 5, ".raw\n") == 0)
			mapped += hi - lo;
	}
	fclose(m);
	return fprintf(f, "%llu\n", mapped) < 0 || fclose(f) != 0 ? 4 : 0;
}

/* ---- reading it back ---- */

struct result {
	struct pcprof_raw_header h;
	uint64_t stored, keys, threads, blocks;
};

static void read_at(int fd, void *buf, size_t n, uint64_t off)
{
	T_EQ(pread(fd, buf, n, (off_t)off), (long long)n);
}

static void read_recording(const char *where, pid_t pid, struct result *r)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%d.0.raw", where, (int)pid);
	int fd = open(path, O_RDONLY);
	T_OK(fd >= 0);
	struct stat st;
	T_OK(fstat(fd, &st) == 0);
	memset(r, 0, sizeof *r);
	r->blocks = (uint64_t)st.st_blocks * 512;
	read_at(fd, &r->h, sizeof r->h, 0);
	const char *bad = pcprof_raw_header_error(&r->h, (uint64_t)st.st_size);
	if (bad)
		T_FAIL("%s: %s", path, bad);
	uint64_t n = pcprof_raw_level_first(&r->h.slot, r->h.slot.open);
	struct pcprof_raw_slot *s = malloc(n * sizeof *s);
	T_OK(s != NULL);
	read_at(fd, s, n * sizeof *s, r->h.slot.off);
	for (uint64_t i = 0; i < n; i++)
		if (s[i].key) {
			r->keys++;
			r->stored += s[i].count;
		}
	free(s);
	n = pcprof_raw_level_first(&r->h.thr, r->h.thr.open);
	struct pcprof_raw_thread *t = malloc(n * sizeof *t);
	T_OK(t != NULL);
	read_at(fd, t, n * sizeof *t, r->h.thr.off);
	for (uint64_t i = 0; i < n; i++)
		r->threads += t[i].tid != 0;
	free(t);
	close(fd);
}

/* Run the injecting copy with its recording in `where`; returns its pid.
 * mode: "inject" (n pcs from `threads` threads), "inject-as" (as inject,
 * under RLIMIT_AS = `as`, then the bytes of the recording it maps into
 * the file `out`), "crowd" (n threads of a tick each, then the number of
 * distinct thread ids among them into `out`). */
static pid_t run_copy_as(const char *mode, const char *where, unsigned long n, unsigned threads,
			 rlim_t fsize, rlim_t as, const char *out)
{
	pid_t c = fork();
	T_OK(c >= 0);
	if (c == 0) {
		char num[32], nthr[16], root[32];
		snprintf(num, sizeof num, "%lu", n);
		snprintf(nthr, sizeof nthr, "%u", threads);
		snprintf(root, sizeof root, "%d", (int)getpid());
		setenv("PCPROF_DIR", where, 1);
		setenv("PCPROF_ROOT", root, 1);
		setenv("PCPROF_FOLLOW", "1", 1);
		setenv("PROFIL_ENGINE", "manual", 1);
		unsetenv("PCPROF_SLOTS");
		struct rlimit rl = { fsize, fsize }, al = { as, as };
		if (fsize != RLIM_INFINITY && setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(5);
		if (as != RLIM_INFINITY && setrlimit(RLIMIT_AS, &al) < 0)
			_exit(5);
		execl("/proc/self/exe", "t-record-grow", mode, num, nthr, out, (char *)NULL);
		_exit(6);
	}
	int st;
	T_OK(waitpid(c, &st, 0) == c);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("the injecting copy (%s, %lu, %u threads) ended with status %#x%s", mode, n,
		       threads, st, WIFSIGNALED(st) ? " (a signal)" : "");
	return c;
}

static pid_t run_copy(const char *where, unsigned long n, unsigned threads, rlim_t fsize)
{
	return run_copy_as("inject", where, n, threads, fsize, RLIM_INFINITY, "-");
}

/* The number the copy wrote into `path`. */
static unsigned long long read_number(const char *path)
{
	unsigned long long v = 0;
	FILE *f = fopen(path, "r");
	T_OK(f && fscanf(f, "%llu", &v) == 1);
	fclose(f);
	return v;
}

static void room(void)
{
	const unsigned long n = 20000;
	const unsigned threads = 40;
	struct result r;
	read_recording(scratch, run_copy(scratch, n, 1, RLIM_INFINITY), &r);
	const struct pcprof_raw_levels *l = &r.h.slot;
	if (r.h.ticks != n || r.h.lost || r.stored != n || r.keys != n)
		T_FAIL("one thread: ticks %llu, lost %llu, stored %llu in %llu keys; want %lu "
		       "each, "
		       "no loss",
		       (unsigned long long)r.h.ticks, (unsigned long long)r.h.lost,
		       (unsigned long long)r.stored, (unsigned long long)r.keys, n);
	uint64_t sum = 0;
	for (uint32_t k = 0; k < l->open; k++) {
		uint64_t half = ((uint64_t)l->base << k) / 2;
		if (k + 1 < l->open && l->used[k] != half)
			T_FAIL("level %u of %u holds %llu, want %llu (half)", k, l->open,
			       (unsigned long long)l->used[k], (unsigned long long)half);
		sum += l->used[k];
	}
	T_EQ(sum, n);
	T_EQ(l->error, 0);
	uint64_t bound = 4 * n * sizeof(struct pcprof_raw_slot) + (64u << 10);
	if (r.blocks > bound)
		T_FAIL("%lu keys reserve %llu bytes, more than %llu", n,
		       (unsigned long long)r.blocks, (unsigned long long)bound);
	printf("# %lu keys: %u levels, %llu KiB reserved\n", n, l->open,
	       (unsigned long long)r.blocks >> 10);

	read_recording(scratch, run_copy(scratch, n, threads, RLIM_INFINITY), &r);
	if (r.h.ticks != n || r.h.lost || r.stored != n || r.keys != n || r.h.lost_threads ||
	    r.threads != threads)
		T_FAIL("%u threads: ticks %llu, lost %llu, stored %llu in %llu keys, %llu threads "
		       "(%llu ticks without one); want %lu, none lost, %u threads",
		       threads, (unsigned long long)r.h.ticks, (unsigned long long)r.h.lost,
		       (unsigned long long)r.stored, (unsigned long long)r.keys,
		       (unsigned long long)r.threads, (unsigned long long)r.h.lost_threads, n,
		       threads);
	T_OK(r.h.thr.open >= 2);
}

static void file_size_limit(void)
{
	const unsigned long n = 200000;
	struct result r;
	read_recording(scratch, run_copy(scratch, n, 1, 6u << 20), &r);
	if (r.h.file_size > (6u << 20) || r.h.slot.max >= 12 || r.stored + r.h.lost != n ||
	    !r.h.lost || r.h.slot.error)
		T_FAIL("under a 6 MiB file size limit: %llu bytes, %u levels, stored %llu + lost "
		       "%llu of %lu, error %d",
		       (unsigned long long)r.h.file_size, r.h.slot.max,
		       (unsigned long long)r.stored, (unsigned long long)r.h.lost, n,
		       r.h.slot.error);
}

/* The thread table's capacity: every entry of every level. */
static void thread_capacity(void)
{
	const unsigned long n = 20000, capacity = 16352;
	char out[128];
	snprintf(out, sizeof out, "%s/crowd.out", scratch);
	struct result r;
	read_recording(scratch, run_copy_as("crowd", scratch, n, 1, RLIM_INFINITY, RLIM_INFINITY, out),
		       &r);
	unsigned long long distinct = read_number(out);
	if (distinct != n)
		T_SKIP("thread ids were reused (%llu distinct in %lu threads: pid_max went round "
		       "while they ran), so the count of threads cannot be checked (the rest passed)",
		       distinct, n);
	uint64_t entries = pcprof_raw_level_first(&r.h.thr, r.h.thr.max);
	if (entries != capacity || r.threads != capacity || r.h.ticks != n ||
	    r.h.lost_threads != n - capacity || r.stored != n || r.h.lost)
		T_FAIL("%lu threads (%llu distinct ids) of a tick each: %llu in a table of %llu "
		       "entries (%u levels open of %u), %llu ticks beyond it; ticks %llu, stored "
		       "%llu, lost %llu; want %lu in the table, %lu beyond",
		       n, distinct, (unsigned long long)r.threads, (unsigned long long)entries,
		       r.h.thr.open, r.h.thr.max, (unsigned long long)r.h.lost_threads,
		       (unsigned long long)r.h.ticks, (unsigned long long)r.stored,
		       (unsigned long long)r.h.lost, capacity, n - capacity);
}

/* Under an address-space limit the recording maps at most 1/32 of it. */
static void address_space_limit(void)
{
	/* Both sanitizers' runtimes reserve their shadow memory (terabytes of
	 * address space) when the copy starts, before any code of ours runs:
	 * under 64 MiB TSan's allocator fails its CHECK and the copy dies of
	 * SIGSEGV.  The limit itself is what this case measures, so it is
	 * reported as not run, and the other cases go on. */
	if (TP_ASAN || TP_TSAN) {
		printf("# not under %s: its shadow memory needs terabytes of address space\n",
		       TP_ASAN ? "ASan" : "TSan");
		return;
	}
	const unsigned long n = 200000;
	const rlim_t limit = 64u << 20;
	char out[128];
	snprintf(out, sizeof out, "%s/as.out", scratch);
	struct result r;
	read_recording(scratch, run_copy_as("inject-as", scratch, n, 1, RLIM_INFINITY, limit, out),
		       &r);
	unsigned long long mapped = read_number(out);
	if (mapped > limit / 32 || r.h.slot.error != ENOMEM || r.stored + r.h.lost != n ||
	    !r.h.lost)
		T_FAIL("under RLIMIT_AS %llu MiB: the recording maps %llu KiB (at most %llu), pc "
		       "table error %d (want ENOMEM), %u levels open; stored %llu + lost %llu of "
		       "%lu",
		       (unsigned long long)limit >> 20, mapped >> 10,
		       (unsigned long long)limit / 32 >> 10, r.h.slot.error, r.h.slot.open,
		       (unsigned long long)r.stored, (unsigned long long)r.h.lost, n);
	printf("# under RLIMIT_AS %llu MiB: %llu KiB mapped, %u pc levels, %llu of %lu ticks "
	       "stored\n",
	       (unsigned long long)limit >> 20, mapped >> 10, r.h.slot.open,
	       (unsigned long long)r.stored, n);
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "inject") == 0)
		return injector(strtoul(argv[2], NULL, 10), (unsigned)atoi(argv[3]));
	if (argc == 5 && strcmp(argv[1], "inject-as") == 0) {
		int r = injector(strtoul(argv[2], NULL, 10), (unsigned)atoi(argv[3]));
		return r ? r : report_mapped(argv[4]);
	}
	if (argc == 5 && strcmp(argv[1], "crowd") == 0)
		return thread_crowd(strtoul(argv[2], NULL, 10), argv[4]);
	scratch_init("t-record-grow");
	room();
	file_size_limit();
	thread_capacity();
	address_space_limit();

	/* The first reservation (five pages) and one page more: not the three
	 * new pages the second pc level needs. */
	const char *mnt = scratch_tmpfs("24k");
	if (!mnt)
		T_SKIP("cannot mount a tmpfs (%s): the full file system was not tried (the rest "
		       "passed)",
		       strerror(errno));
	const unsigned long n = 2000;
	struct result r;
	read_recording(mnt, run_copy(mnt, n, 1, RLIM_INFINITY), &r);
	if (r.h.slot.error != ENOSPC || r.h.slot.open != 1 || r.stored + r.h.lost != n || !r.h.lost)
		T_FAIL("full tmpfs: error %d, %u levels open, stored %llu + lost %llu of %lu",
		       r.h.slot.error, r.h.slot.open, (unsigned long long)r.stored,
		       (unsigned long long)r.h.lost, n);
	return 0;
}
