/*
 * out.c - what the export writers share: safe output files and escaping.
 */
#include "out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

struct out_file {
	FILE *f;
	char *path, *tmp; /* NULL for stdout */
};

struct out_file *out_open(const char *path, char *err, size_t errlen)
{
	struct out_file *o = xcalloc(1, sizeof *o);
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return o;
	}
	o->path = xstrdup(path);
	o->tmp = xmalloc(strlen(path) + 32);
	sprintf(o->tmp, "%s.tmp%ld", path, (long)getpid());
	o->f = fopen(o->tmp, "w");
	if (!o->f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(o->path);
		free(o->tmp);
		free(o);
		return NULL;
	}
	return o;
}

FILE *out_stream(struct out_file *o)
{
	return o->f;
}

int out_close(struct out_file *o, char *err, size_t errlen)
{
	int rc = 0;
	const char *what = o->path ? o->path : "standard output";
	if (fflush(o->f) != 0 || ferror(o->f)) {
		snprintf(err, errlen, "%s: %s", what, strerror(errno ? errno : EIO));
		rc = -1;
	}
	if (o->path) {
		if (fclose(o->f) != 0 && rc == 0) {
			snprintf(err, errlen, "%s: %s", what, strerror(errno));
			rc = -1;
		}
		if (rc == 0 && rename(o->tmp, o->path) != 0) {
			snprintf(err, errlen, "%s: %s", what, strerror(errno));
			rc = -1;
		}
		if (rc != 0)
			unlink(o->tmp);
	}
	free(o->path);
	free(o->tmp);
	free(o);
	return rc;
}

void out_json_str(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
}

void out_html_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
			break;
		}
	}
}

uint32_t out_main_module(const struct flat *f)
{
	uint32_t best = FLAT_NO_MOD;
	for (uint32_t i = 0; i < f->nmods; i++) {
		if (strcmp(f->mods[i].path, f->procs[0].p->exe) == 0)
			return i;
		if (f->mods[i].samples &&
		    (best == FLAT_NO_MOD || f->mods[i].samples > f->mods[best].samples))
			best = i;
	}
	return best;
}
