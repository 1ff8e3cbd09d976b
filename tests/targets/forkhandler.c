/*
 * forkhandler LIBPROFIL [FORKS]: a program whose fork child handler runs
 * before libprofil's and starts a thread through libprofil's
 * pthread_create, as ThreadSanitizer's runtime starts its background
 * thread in every fork child (its handler is registered first, and it
 * creates threads through the next pthread_create, ours).
 *
 * The handler is registered first because libprofil is dlopen()ed after
 * it (glibc runs child handlers in the order they were registered).  The
 * thread it starts finds the library's control lock held by the forking
 * thread, whose id in the parent is no thread of the child; the handler
 * then waits 100 ms, long enough for that thread to ask whether the holder
 * lives.  Then, in the child: the thread ran its own start routine with its
 * own argument, four more threads created through the same pthread_create
 * get theirs, and half a second of CPU is sampled (profil's buffer counts
 * ticks).  Exit 0 when every child did so, 1 with what went wrong.
 *
 * Before the library kept the lock across its own child handler, the
 * waiting thread took it from the "dead" holder and sealed the library:
 * the child sampled nothing (0 ticks).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int profil_fn(unsigned short *, size_t, size_t, unsigned int);

static create_fn *lib_create;
static pthread_t early;
static int early_ran, early_err;
static int arg_seen[4];
/* 1 MiB of buckets from the start of the executable, one per 2 bytes */
static unsigned short buf[1 << 19];
extern char __executable_start[];

static void *early_thread(void *arg)
{
	*(int *)arg = 1;
	return NULL;
}

static void child_handler(void)
{
	early_err = lib_create(&early, NULL, early_thread, &early_ran);
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

static void *numbered(void *arg)
{
	int *slot = arg;
	*slot = (int)(slot - arg_seen) + 1;
	return NULL;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void __attribute__((noinline)) burn(double seconds)
{
	volatile unsigned long x = 0;
	double end = cpu_now() + seconds;
	while (cpu_now() < end)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
}

static int child(void)
{
	if (early_err) {
		printf("pthread_create in the earlier child handler: %s\n", strerror(early_err));
		return 1;
	}
	pthread_join(early, NULL);
	if (early_ran != 1) {
		printf("the handler's thread did not run its own start routine\n");
		return 1;
	}
	pthread_t t[4];
	for (int i = 0; i < 4; i++) {
		int e = lib_create(&t[i], NULL, numbered, &arg_seen[i]);
		if (e) {
			printf("pthread_create in the child: %s\n", strerror(e));
			return 1;
		}
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		if (arg_seen[i] != i + 1) {
			printf("thread %d saw argument %d\n", i + 1, arg_seen[i]);
			return 1;
		}
	}
	memset(buf, 0, sizeof buf);
	burn(0.5);
	unsigned long ticks = 0;
	for (size_t i = 0; i < sizeof buf / sizeof buf[0]; i++)
		ticks += buf[i];
	if (ticks == 0) {
		printf("the child sampled nothing in 0.5 s of CPU\n");
		return 1;
	}
	printf("child: %lu ticks\n", ticks);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: forkhandler LIBPROFIL [FORKS]\n");
		return 2;
	}
	int forks = argc > 2 ? atoi(argv[2]) : 3;
	setvbuf(stdout, NULL, _IONBF, 0);
	pthread_atfork(NULL, NULL, child_handler);
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	profil_fn *prof = h ? (profil_fn *)dlsym(h, "profil") : NULL;
	lib_create = h ? (create_fn *)dlsym(h, "pthread_create") : NULL;
	if (!prof || !lib_create) {
		fprintf(stderr, "forkhandler: %s\n", dlerror());
		return 2;
	}
	if (prof(buf, sizeof buf, (size_t)(uintptr_t)__executable_start, 0x10000) != 0) {
		perror("forkhandler: profil");
		return 2;
	}
	int bad = 0;
	for (int i = 0; i < forks; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("forkhandler: fork");
			return 2;
		}
		if (pid == 0)
			_exit(child());
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			printf("fork %d: child status 0x%x\n", i + 1, st);
			bad = 1;
		}
	}
	return bad;
}
