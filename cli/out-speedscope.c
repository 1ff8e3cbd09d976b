/*
 * out-speedscope.c - speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json), "sampled" profiles:
 * every sample is a two-frame stack, module then function, weighted by its
 * CPU seconds.  The first profile holds every selected process; when there
 * are several, one profile per process follows (docs/formats.md).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "out.h"
#include "util.h"

static void profile(FILE *s, const struct flat *f, uint32_t proc, const uint32_t *modframe,
		    const uint32_t *fnframe)
{
	fputs("{\"type\":\"sampled\",\"name\":\"", s);
	if (proc == UINT32_MAX) {
		out_json_str(s, f->prof->command);
	} else {
		const struct pp_process *p = f->procs[proc].p;
		fprintf(s, "pid %d: ", (int)p->pid);
		out_json_str(s, p->cmdline[0] ? p->cmdline : p->exe);
	}
	double total = 0;
	fputs("\",\"unit\":\"seconds\",\"startValue\":0,\"samples\":[", s);
	/* one stack per function (the hits of a function are summed) */
	size_t n;
	uint32_t *ix = flat_sorted_fns(f, FLAT_SORT_SAMPLES, &n);
	double *w = xcalloc(f->nfns, sizeof *w);
	for (size_t i = 0; i < f->nhits; i++) {
		const struct flat_hit *h = &f->hits[i];
		if (proc != UINT32_MAX && h->proc != proc)
			continue;
		unsigned hz = f->procs[h->proc].p->hz;
		w[f->pcs[h->pc].fn] += hz ? (double)h->count / hz : 0;
	}
	const char *sep = "";
	for (size_t i = 0; i < n; i++) {
		if (w[ix[i]] <= 0)
			continue;
		const struct flat_fn *fn = &f->fns[ix[i]];
		fprintf(s, "%s[%" PRIu32 ",%" PRIu32 "]", sep,
			modframe[fn->mod == FLAT_NO_MOD ? f->nmods : fn->mod], fnframe[ix[i]]);
		sep = ",";
	}
	fputs("],\"weights\":[", s);
	sep = "";
	for (size_t i = 0; i < n; i++) {
		if (w[ix[i]] <= 0)
			continue;
		fprintf(s, "%s%.9g", sep, w[ix[i]]);
		total += w[ix[i]];
		sep = ",";
	}
	fprintf(s, "],\"endValue\":%.9g}", total);
	free(w);
	free(ix);
}

static int write_speedscope(const struct flat *f, const char *out, char *err, size_t errlen)
{
	struct out_file *o = out_open(out, err, errlen);
	if (!o)
		return -1;
	FILE *s = out_stream(o);
	uint32_t *modframe = xcalloc(f->nmods + 1, sizeof *modframe);
	uint32_t *fnframe = xcalloc(f->nfns, sizeof *fnframe);
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", s);
	fputs("\"name\":\"", s);
	out_json_str(s, f->prof->command);
	fprintf(s, "\",\"exporter\":\"pcprof %s\",\"activeProfileIndex\":0,\n", PCPROF_VERSION);
	fputs("\"shared\":{\"frames\":[\n", s);
	uint32_t k = 0;
	for (uint32_t m = 0; m <= f->nmods; m++) {
		if (m < f->nmods && !f->mods[m].samples)
			continue;
		modframe[m] = k++;
		fputs(k > 1 ? ",\n{\"name\":\"" : "{\"name\":\"", s);
		out_json_str(s, m < f->nmods ? f->mods[m].name : "[unknown]");
		if (m < f->nmods) {
			fputs("\",\"file\":\"", s);
			out_json_str(s, f->mods[m].path);
		}
		fputs("\"}", s);
	}
	for (uint32_t i = 0; i < f->nfns; i++) {
		const struct flat_fn *fn = &f->fns[i];
		if (!fn->samples)
			continue;
		fnframe[i] = k++;
		fputs(k > 1 ? ",\n{\"name\":\"" : "{\"name\":\"", s);
		out_json_str(s, fn->label);
		fputc('"', s);
		if (fn->file) {
			fputs(",\"file\":\"", s);
			out_json_str(s, fn->file);
			fprintf(s, "\",\"line\":%d", fn->line);
		}
		fputc('}', s);
	}
	fputs("]},\n\"profiles\":[\n", s);
	profile(s, f, UINT32_MAX, modframe, fnframe);
	for (uint32_t p = 0; f->nprocs > 1 && p < f->nprocs; p++) {
		fputs(",\n", s);
		profile(s, f, p, modframe, fnframe);
	}
	fputs("]}\n", s);
	free(modframe);
	free(fnframe);
	return out_close(o, err, errlen);
}

const struct out_format out_speedscope = {
	.name = "speedscope",
	.help = "speedscope JSON (https://www.speedscope.app)",
	.default_out = "pcprof.speedscope.json",
	.write = write_speedscope,
};
