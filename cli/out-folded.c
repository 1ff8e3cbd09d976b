/*
 * out-folded.c - folded stacks (FlameGraph's stackcollapse format), which
 * flamegraph.pl, inferno and speedscope read: one line per function,
 * "module;function count", root first.  PC sampling has no call stacks, so
 * the module is the root and the function the leaf (docs/formats.md).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "out.h"
#include "util.h"

/* Readers split lines, then frames on ';' and the count off at the last
 * space: a name is escaped as for a terminal (no line breaks or control
 * characters; util.h) and its ';' become '_'. */
static void frame(FILE *f, const char *s)
{
	char *t = text_dup(s);
	for (const char *c = t; *c; c++)
		fputc(*c == ';' ? '_' : *c, f);
	free(t);
}

static int write_folded(const struct model *f, const char *out, char *err, size_t errlen)
{
	struct ofile *o = ofile_open(out, err, errlen);
	if (!o)
		return -1;
	FILE *s = ofile_stream(o);
	size_t n;
	uint32_t *ix = model_sorted_fns(f, MODEL_SORT_SAMPLES, &n);
	for (size_t i = 0; i < n; i++) {
		const struct model_fn *fn = &f->fns[ix[i]];
		frame(s, model_mod_name(f, fn->mod));
		fputc(';', s);
		frame(s, fn->label);
		fprintf(s, " %" PRIu64 "\n", fn->samples);
	}
	free(ix);
	return ofile_close(o, err, errlen);
}

const struct out_format out_folded = {
	.name = "folded",
	.help = "folded stacks, \"module;function count\" (flamegraph.pl, speedscope)",
	.default_out = "pcprof.folded",
	.write = write_folded,
};
