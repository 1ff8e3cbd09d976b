/*
 * out-folded.c - folded stacks (FlameGraph's stackcollapse format), which
 * flamegraph.pl, inferno and speedscope read: one line per function,
 * "module;function count", root first.  PC sampling has no call stacks, so
 * the module is the root and the function the leaf (docs/formats.md).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "out.h"

/* Readers split frames on ';' and the count off at the last space: keep
 * ';' and line breaks out of names. */
static void frame(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' || *s == '\n' || *s == '\r' ? '_' : *s, f);
}

static int write_folded(const struct flat *f, const char *out, char *err, size_t errlen)
{
	struct out_file *o = out_open(out, err, errlen);
	if (!o)
		return -1;
	FILE *s = out_stream(o);
	size_t n;
	uint32_t *ix = flat_sorted_fns(f, FLAT_SORT_SAMPLES, &n);
	for (size_t i = 0; i < n; i++) {
		const struct flat_fn *fn = &f->fns[ix[i]];
		frame(s, flat_mod_name(f, fn->mod));
		fputc(';', s);
		frame(s, fn->label);
		fprintf(s, " %" PRIu64 "\n", fn->samples);
	}
	free(ix);
	return out_close(o, err, errlen);
}

const struct out_format out_folded = {
	.name = "folded",
	.help = "folded stacks, \"module;function count\" (flamegraph.pl, speedscope)",
	.default_out = "pcprof.folded",
	.write = write_folded,
};
