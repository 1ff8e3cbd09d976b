/*
 * pcprof-demo - the program `make demo` profiles with `pcprof run`.  It is
 * built like any program, without libprofil, and has hot spots in three
 * kinds of code:
 *
 *   render_mandelbrot   in the executable, in the thread "render";
 *   work_checksum       in libdemowork.so, a shared library of its own,
 *                       in the thread "checksum";
 *   plugin_blur         in demo-plugin.so, which the main thread loads
 *                       with dlopen(), runs and closes again before the
 *                       end (so only pcprof's module tracking can name it).
 *
 * The render thread works about twice as long as the checksum thread, and
 * the plugin about half as long again: the profile should show roughly
 * 50%, 25% and 15% (the rest is the main thread summing up).
 *
 *   pcprof-demo [SECONDS]    total CPU seconds, default 2
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demo.h"

static double budget = 2.0;

/* Escape-time iterations over the Mandelbrot set, frame after frame. */
__attribute__((noinline)) static unsigned long render_mandelbrot(double seconds)
{
	unsigned long inside = 0;
	double t0 = demo_thread_cpu();
	do {
		for (int y = 0; y < 64; y++) {
			for (int x = 0; x < 96; x++) {
				double cr = -2.0 + 3.0 * x / 96, ci = -1.2 + 2.4 * y / 64;
				double zr = 0, zi = 0;
				int n = 0;
				while (n < 200 && zr * zr + zi * zi < 4.0) {
					double t = zr * zr - zi * zi + cr;
					zi = 2 * zr * zi + ci;
					zr = t;
					n++;
				}
				inside += n == 200;
			}
		}
	} while (demo_thread_cpu() - t0 < seconds);
	return inside;
}

/* A little bookkeeping on the main thread, in the executable too. */
__attribute__((noinline)) static double summarize(double seconds)
{
	double acc = 0, t0 = demo_thread_cpu();
	do {
		for (int i = 1; i < 20000; i++)
			acc += 1.0 / ((double)i * i);
	} while (demo_thread_cpu() - t0 < seconds);
	return acc;
}

static void *render_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "render");
	unsigned long n = render_mandelbrot(budget * 0.5);
	printf("render:   %lu points inside the set\n", n);
	return NULL;
}

static void *checksum_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "checksum");
	printf("checksum: %08x\n", (unsigned)work_checksum(budget * 0.25));
	return NULL;
}

/* The plugin sits next to the executable. */
static void run_plugin(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
	char *slash = n > 0 ? memrchr(path, '/', (size_t)n) : NULL;
	if (!slash) {
		fprintf(stderr, "pcprof-demo: cannot find my own directory\n");
		exit(1);
	}
	strcpy(slash + 1, "demo-plugin.so");
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	plugin_blur_fn *blur = h ? (plugin_blur_fn *)dlsym(h, PLUGIN_ENTRY) : NULL;
	if (!blur) {
		fprintf(stderr, "pcprof-demo: %s\n", dlerror());
		exit(1);
	}
	printf("plugin:   blurred to %.3f\n", blur(budget * 0.15));
	dlclose(h);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		budget = atof(argv[1]);
	if (!(budget > 0 && budget <= 600)) {
		fprintf(stderr, "usage: pcprof-demo [SECONDS]   (0 < SECONDS <= 600)\n");
		return 2;
	}
	pthread_t r, c;
	if (pthread_create(&r, NULL, render_thread, NULL) != 0 ||
	    pthread_create(&c, NULL, checksum_thread, NULL) != 0) {
		perror("pthread_create");
		return 1;
	}
	run_plugin();
	pthread_join(r, NULL);
	pthread_join(c, NULL);
	printf("summary:  %.6f\n", summarize(budget * 0.1));
	return 0;
}
