/*
 * fuzz-data - libFuzzer target for the pcprof.data reader (cli/data.c),
 * built by `make build/fuzz/fuzz-data` with clang's -fsanitize=fuzzer and
 * run by t-fuzz.sh.
 *
 * Each input is parsed twice: as it is (the checksums reject nearly every
 * mutation, which is the point of them) and with checksum verification off,
 * so the mutations reach the record parser behind them.  Whatever parses
 * must be usable: every string terminated, every index in range, and
 * encoding it again must give a file that parses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

static void use(const struct pp_profile *p)
{
	size_t n = strlen(p->command);
	for (size_t i = 0; i < p->nprocs; i++) {
		const struct pp_process *pr = &p->procs[i];
		n += strlen(pr->exe) + strlen(pr->cmdline) + strlen(pr->why) + strlen(pr->engine);
		for (size_t k = 0; k < pr->nmodules; k++)
			n += strlen(pr->modules[k].path);
		for (size_t k = 0; k < pr->nthreads; k++)
			n += strlen(pr->threads[k].name);
		for (size_t k = 0; k < pr->nsamples; k++) {
			const struct pp_sample *s = &pr->samples[k];
			if (s->thread >= pr->nthreads ||
			    (s->module != PP_NO_MODULE && s->module >= pr->nmodules))
				abort();
			n += pp_find_module(pr, s->pc, 0) == PP_NO_MODULE;
			/* a stack ends, at a root, within nframes steps */
			size_t depth = 0;
			for (uint32_t f = s->frame; f != PP_NO_FRAME; f = pr->frames[f].parent)
				if (f >= pr->nframes || ++depth > pr->nframes)
					abort();
		}
	}
	/* keep the loop from being optimised away */
	__asm__ volatile("" : : "r"(n));
}

static void one(const uint8_t *data, size_t size, unsigned flags)
{
	struct pp_profile p;
	char err[256];
	if (pp_parse(data, size, flags, &p, err, sizeof err) < 0) {
		if (!err[0] || strchr(err, '\n') || p.procs || p.command)
			abort();
		return;
	}
	use(&p);
	uint8_t *buf;
	size_t len;
	if (pp_encode(&p, &buf, &len, err, sizeof err) < 0)
		abort();
	struct pp_profile q;
	if (pp_parse(buf, len, 0, &q, err, sizeof err) < 0 || q.nprocs != p.nprocs)
		abort();
	free(buf);
	pp_free(&q);
	pp_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size, 0);
	one(data, size, PP_PARSE_NO_CRC);
	return 0;
}
