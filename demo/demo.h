/*
 * demo.h - what the parts of the pcprof demo share: the CPU clock that
 * bounds each piece of work, and the shared library's and plugin's entry
 * points.
 */
#ifndef PCPROF_DEMO_H
#define PCPROF_DEMO_H

#include <stdint.h>
#include <time.h>

/* Seconds of CPU time the calling thread has used. */
static inline double demo_thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* libdemowork.so: checksum a buffer over and over for `seconds` of CPU. */
uint32_t work_checksum(double seconds);

/* demo-plugin.so, found with dlsym: blur an image for `seconds` of CPU. */
typedef double plugin_blur_fn(double seconds);
#define PLUGIN_ENTRY "plugin_blur"

#endif
