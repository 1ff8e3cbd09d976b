/*
 * gzpar.c - see gzpar.h.  The main thread queues chunks; workers take
 * them in order, each compressing one into a gzip member of its own; the
 * main thread writes members in queue order as they finish.  Indices only
 * grow (slot = index % QUEUE): head <= next <= tail, and a slot is reused
 * only after its member was written.
 */
#include "gzpar.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "util.h"

#define MAX_WORKERS 4
#define QUEUE       (2 * MAX_WORKERS)

enum { J_QUEUED, J_RUNNING, J_DONE };

struct job {
	uint8_t *in, *out;
	size_t n, outn;
	int state;
	bool failed;
};

struct gzpar {
	FILE *f;
	int level;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct job q[QUEUE];
	size_t head; /* the oldest member not written yet */
	size_t next; /* the next chunk a worker takes */
	size_t tail; /* chunks queued so far */
	bool quit, failed;
	pthread_t th[MAX_WORKERS];
	unsigned nth;
};

/* One chunk into one gzip member (windowBits 15 + 16: the gzip wrapper). */
static void compress_job(struct job *j, int level)
{
	z_stream z = { 0 };
	j->failed = true;
	if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return;
	size_t bound = deflateBound(&z, (uLong)j->n);
	j->out = xmalloc(bound);
	z.next_in = j->in;
	z.avail_in = (uInt)j->n;
	z.next_out = j->out;
	z.avail_out = (uInt)bound;
	if (deflate(&z, Z_FINISH) == Z_STREAM_END) {
		j->outn = bound - z.avail_out;
		j->failed = false;
	}
	deflateEnd(&z);
	free(j->in);
	j->in = NULL;
}

static void *worker(void *arg)
{
	struct gzpar *g = arg;
	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (!g->quit && g->next == g->tail)
			pthread_cond_wait(&g->work, &g->mu);
		if (g->next == g->tail)
			break; /* quit, and nothing left */
		struct job *j = &g->q[g->next++ % QUEUE];
		j->state = J_RUNNING;
		pthread_mutex_unlock(&g->mu);
		compress_job(j, g->level);
		pthread_mutex_lock(&g->mu);
		j->state = J_DONE;
		pthread_cond_broadcast(&g->done);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

struct gzpar *gzpar_open(FILE *f, int level, unsigned threads)
{
	struct gzpar *g = xcalloc(1, sizeof *g);
	g->f = f;
	g->level = level;
	if (!threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		threads = n > 1 ? (unsigned)n : 1;
	}
	if (threads > MAX_WORKERS)
		threads = MAX_WORKERS;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->work, NULL);
	pthread_cond_init(&g->done, NULL);
	/* One processor: no worker, each chunk is compressed as it comes. */
	for (unsigned i = 0; threads > 1 && i < threads; i++)
		if (pthread_create(&g->th[g->nth], NULL, worker, g) == 0)
			g->nth++;
	return g;
}

/* Write the oldest member once it is done (called with the lock held;
 * the lock is dropped while writing). */
static void write_oldest(struct gzpar *g)
{
	struct job *j = &g->q[g->head % QUEUE];
	while (j->state != J_DONE)
		pthread_cond_wait(&g->done, &g->mu);
	pthread_mutex_unlock(&g->mu);
	if (j->failed)
		g->failed = true;
	else
		fwrite(j->out, 1, j->outn, g->f);
	free(j->out);
	j->out = NULL;
	pthread_mutex_lock(&g->mu);
	g->head++;
}

void gzpar_put(struct gzpar *g, uint8_t *buf, size_t n)
{
	if (!n) {
		free(buf);
		return;
	}
	if (!g->nth) {
		struct job j = { .in = buf, .n = n };
		compress_job(&j, g->level);
		if (j.failed)
			g->failed = true;
		else
			fwrite(j.out, 1, j.outn, g->f);
		free(j.out);
		return;
	}
	pthread_mutex_lock(&g->mu);
	while (g->tail - g->head == QUEUE)
		write_oldest(g);
	g->q[g->tail % QUEUE] = (struct job){ .in = buf, .n = n, .state = J_QUEUED };
	g->tail++;
	pthread_cond_signal(&g->work);
	/* members already done go out now, so the file grows as it should */
	while (g->head < g->tail && g->q[g->head % QUEUE].state == J_DONE)
		write_oldest(g);
	pthread_mutex_unlock(&g->mu);
}

int gzpar_close(struct gzpar *g)
{
	pthread_mutex_lock(&g->mu);
	while (g->head < g->tail)
		write_oldest(g);
	g->quit = true;
	pthread_cond_broadcast(&g->work);
	pthread_mutex_unlock(&g->mu);
	for (unsigned i = 0; i < g->nth; i++)
		pthread_join(g->th[i], NULL);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->work);
	pthread_cond_destroy(&g->done);
	int r = g->failed ? -1 : 0;
	free(g);
	return r;
}
