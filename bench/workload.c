/*
 * workload.c - the program every profiler in bench/run is measured on.
 *
 *   workload MODE THREADS ROUNDS
 *   workload hz 1 1        prints CONFIG_HZ (1 / resolution of the coarse clock)
 *
 * THREADS workers each run ROUNDS rounds of three functions, hot5, hot3 and
 * hot2, whose loops are identical and whose iteration counts are in the
 * ratio 5:3:2.  Every call is timed with the thread's own CPU clock, so the
 * true CPU share of each function is measured rather than assumed.
 *
 * MODE chooses the profiler that runs inside the process:
 *   none       nothing (the baseline; also used under perf record and under
 *              gperftools, which profile from outside or from a preload)
 *   libprofil  profil() from libprofil over the whole executable text, one
 *              16-bit counter per 4 bytes (scale 0x8000); the rate comes from
 *              PROFIL_HZ and the engine from PROFIL_ENGINE, as for any program
 *   glibc      glibc's own profil() over the same text; glibc fixes its rate
 *              at 100 Hz, so for any other RATE (environment) ITIMER_PROF is
 *              re-armed with 1/RATE right after the call
 * The libprofil mode exists only in the binary built with -DWITH_LIBPROFIL
 * (workload-lp); the glibc mode only in the one built without it, so that
 * glibc's profil is the one linked.
 *
 * Output: one line on stdout,
 *   RESULT mode= engine= threads= rate= rounds= wall= cpu= samples= signals=
 *          outside= sat= n5= n3= n2= t5= t3= t2= why=
 * wall: seconds from the creation of the first worker to the join of the last
 * (the profiler is already running; start-up of external tools is excluded).
 * cpu: sum of the workers' thread CPU seconds.  samples: ticks in the
 * histogram (for libprofil weighted by overruns); signals: distinct samples
 * (profiling signals taken).  n*: samples in each function; t*: its measured
 * CPU share.  Values a mode cannot know are -1.  A mode that cannot run
 * prints "SKIP reason" and exits 77.
 *
 * Build with -fno-ipa-icf (identical functions must stay apart), and
 * -rdynamic (symbol sizes through dladdr1, and symbols for pprof).
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#ifdef WITH_LIBPROFIL
#include <profil_ext.h>
#endif

/* Iterations of the shared loop per unit of the 5:3:2 ratio.  One round is
 * 10 units: about 0.5 ms here, so a 1 s run has some 2000 rounds and each
 * call is long compared with the clock reads around it. */
#define UNIT 40000UL

/* Linker-provided bounds of the executable's text. */
extern const char __executable_start[], etext[];

#define HOT(name)                                                                  \
	__attribute__((noipa, noinline)) uint64_t name(uint64_t n, uint64_t x)     \
	{                                                                          \
		for (uint64_t i = 0; i < n; i++) {                                 \
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;   \
			__asm__ volatile("" : "+r"(x));                            \
		}                                                                  \
		return x;                                                          \
	}

HOT(hot5)
HOT(hot3)
HOT(hot2)

typedef uint64_t (*hot_fn)(uint64_t, uint64_t);
static const hot_fn fns[3] = { hot5, hot3, hot2 };
static const unsigned weights[3] = { 5, 3, 2 };

struct worker {
	pthread_t id;
	unsigned long rounds;
	uint64_t ns[3];  /* CPU ns spent in each function */
	uint64_t cpu;    /* CPU ns of the whole thread body */
	uint64_t sink;
};

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t x = (uint64_t)(uintptr_t)w, start = now_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t prev = start;
	for (unsigned long r = 0; r < w->rounds; r++) {
		for (int f = 0; f < 3; f++) {
			x = fns[f](weights[f] * UNIT, x);
			uint64_t t = now_ns(CLOCK_THREAD_CPUTIME_ID);
			w->ns[f] += t - prev;
			prev = t;
		}
	}
	w->cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - start;
	w->sink = x;
	return NULL;
}

/* [lo, hi) of a function from its dynamic symbol (needs -rdynamic). */
static void fn_range(hot_fn f, uintptr_t *lo, uintptr_t *hi)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	if (!dladdr1((void *)f, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || !sym->st_size) {
		fprintf(stderr, "workload: no symbol size for a hot function (build with -rdynamic)\n");
		exit(2);
	}
	*lo = (uintptr_t)f;
	*hi = *lo + sym->st_size;
}

static void skip(const char *why)
{
	printf("SKIP %s\n", why);
	exit(77);
}

/* Replace blanks so the reason stays one field of the RESULT line. */
static void squash(char *s)
{
	for (; *s; s++)
		if (*s == ' ' || *s == '\t' || *s == '\n')
			*s = '_';
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: workload none|libprofil|glibc THREADS ROUNDS\n");
		return 2;
	}
	const char *mode = argv[1];
	if (strcmp(mode, "hz") == 0) {
		/* The coarse clocks advance once per tick: their resolution is
		 * 1/CONFIG_HZ. */
		struct timespec res;
		if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0 || res.tv_sec || !res.tv_nsec)
			return 1;
		printf("%ld\n", 1000000000L / res.tv_nsec);
		return 0;
	}
	int nthreads = atoi(argv[2]);
	unsigned long rounds = strtoul(argv[3], NULL, 10);
	if (nthreads < 1 || nthreads > 64 || rounds < 1) {
		fprintf(stderr, "workload: bad THREADS or ROUNDS\n");
		return 2;
	}
	const char *rate_env = getenv("RATE");
	long rate = rate_env ? atol(rate_env) : 100;
	bool in_lp = strcmp(mode, "libprofil") == 0, in_glibc = strcmp(mode, "glibc") == 0;
	if (!in_lp && !in_glibc && strcmp(mode, "none") != 0) {
		fprintf(stderr, "workload: unknown mode %s\n", mode);
		return 2;
	}
#ifdef WITH_LIBPROFIL
	if (in_glibc)
		skip("this binary is linked with libprofil; use workload-glibc");
#else
	if (in_lp)
		skip("this binary is not linked with libprofil; use workload-lp");
#endif

	/* One 16-bit counter per 4 bytes of text: scale 0x8000 halves the
	 * classic one-counter-per-2-bytes scale 0x10000. */
	uintptr_t text = (uintptr_t)__executable_start;
	size_t ncounters = ((uintptr_t)etext - text) / 4 + 1;
	unsigned short *buf = calloc(ncounters, sizeof *buf);
	if (!buf)
		return 2;
	char why[300] = "-";
	const char *engine = "-";

	if (in_lp || in_glibc) {
		if (profil(buf, ncounters * sizeof *buf, text, 0x8000) != 0) {
			snprintf(why, sizeof why, "profil: %s", strerror(errno));
#ifdef WITH_LIBPROFIL
			struct profil_stats st;
			if (profil_stats(&st) == 0 && st.why[0])
				snprintf(why, sizeof why, "profil: %s: %s", strerror(errno), st.why);
#endif
			skip(why);
		}
	}
	if (in_glibc) {
		engine = "itimer";
		if (rate != 100) {
			/* glibc armed 10 ms; re-arm the same ITIMER_PROF at RATE. */
			struct itimerval it = { { 0, 1000000 / rate }, { 0, 1000000 / rate } };
			if (setitimer(ITIMER_PROF, &it, NULL) != 0)
				skip("setitimer failed");
		}
	}
#ifdef WITH_LIBPROFIL
	if (in_lp) {
		engine = profil_engine_name();
		rate = profil_hz();
	}
#endif

	struct worker *w = calloc((size_t)nthreads, sizeof *w);
	if (!w)
		return 2;
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < nthreads; i++) {
		w[i].rounds = rounds;
		if (pthread_create(&w[i].id, NULL, work, &w[i]) != 0) {
			fprintf(stderr, "workload: pthread_create failed\n");
			return 2;
		}
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].id, NULL);
	uint64_t t1 = now_ns(CLOCK_MONOTONIC);

	long long signals = -1, outside = -1;
	if (in_lp || in_glibc) {
		/* glibc stops only on a NULL buffer (its header says nonnull,
		 * so hide the constant from the compiler). */
		unsigned short *volatile off = NULL;
		profil(off, 0, 0, 0);
#ifdef WITH_LIBPROFIL
		struct profil_stats st;
		if (profil_stats(&st) == 0) {
			signals = (long long)st.signals;
			outside = (long long)st.outside;
			snprintf(why, sizeof why, "%s", st.why[0] ? st.why : "-");
		}
#endif
	}

	uint64_t cpu = 0, ns[3] = { 0, 0, 0 };
	for (int i = 0; i < nthreads; i++) {
		cpu += w[i].cpu;
		for (int f = 0; f < 3; f++)
			ns[f] += w[i].ns[f];
	}
	long long n[3] = { -1, -1, -1 }, samples = -1;
	int saturated = 0;
	if (in_lp || in_glibc) {
		samples = 0;
		for (size_t i = 0; i < ncounters; i++) {
			samples += buf[i];
			saturated |= buf[i] == 0xFFFF;
		}
		for (int f = 0; f < 3; f++) {
			uintptr_t lo, hi;
			fn_range(fns[f], &lo, &hi);
			n[f] = 0;
			/* Functions are 16-byte aligned, so no counter straddles two. */
			for (uintptr_t i = (lo - text) / 4; i < (hi - text + 3) / 4; i++)
				n[f] += buf[i];
		}
		if (in_glibc)
			signals = samples; /* glibc adds one per signal, no weighting */
	}
	double tot = (double)(ns[0] + ns[1] + ns[2]);
	squash(why);
	printf("RESULT mode=%s engine=%s threads=%d rate=%ld rounds=%lu wall=%.6f cpu=%.6f "
	       "samples=%lld signals=%lld outside=%lld sat=%d n5=%lld n3=%lld n2=%lld "
	       "t5=%.5f t3=%.5f t2=%.5f why=%s\n",
	       mode, engine, nthreads, rate, rounds, (double)(t1 - t0) / 1e9, (double)cpu / 1e9,
	       samples, signals, outside, saturated, n[0], n[1], n[2], (double)ns[0] / tot,
	       (double)ns[1] / tot, (double)ns[2] / tot, why);
	free(w);
	free(buf);
	return 0;
}
