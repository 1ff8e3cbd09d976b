/*
 * out.c - what the export writers share: escaping for each kind of text.
 */
#include "out.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void out_json_str(FILE *f, const char *s)
{
	while (*s) {
		uint32_t c;
		size_t n = utf8_char(s, &c);
		if (n == 0) {
			fputs("\\ufffd", f);
			n = 1;
		} else if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", (int)c);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", (unsigned)c);
		} else {
			fwrite(s, 1, n, f);
		}
		s += n;
	}
}

void out_html_str(FILE *f, const char *s)
{
	char *t = text_dup(s);
	out_html_safe(f, t);
	free(t);
}

void out_html_safe(FILE *f, const char *t)
{
	for (const char *c = t; *c; c++) {
		switch (*c) {
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
			fputc(*c, f);
			break;
		}
	}
}

char *out_utf8(const char *s)
{
	char *t = xmalloc(3 * strlen(s) + 1), *o = t;
	while (*s) {
		uint32_t c;
		size_t n = utf8_char(s, &c);
		if (n == 0) {
			memcpy(o, "\xef\xbf\xbd", 3); /* U+FFFD */
			o += 3;
			s++;
		} else {
			memcpy(o, s, n);
			o += n;
			s += n;
		}
	}
	*o = 0;
	return t;
}

static size_t strtab_home(const struct strtab *t, const char *s)
{
	return hash_bytes(s, strlen(s), HASH_INIT) & (t->nslot - 1);
}

uint64_t strtab_add(struct strtab *t, const char *s, bool *added)
{
	if ((t->n + 1) * 2 > t->nslot) {
		free(t->slot);
		t->nslot = t->nslot ? 2 * t->nslot : 1024;
		t->slot = xcalloc(t->nslot, sizeof *t->slot);
		for (size_t i = 0; i < t->n; i++) {
			size_t j = strtab_home(t, t->s[i]);
			while (t->slot[j])
				j = (j + 1) & (t->nslot - 1);
			t->slot[j] = (uint32_t)i + 1;
		}
	}
	size_t j = strtab_home(t, s);
	for (; t->slot[j]; j = (j + 1) & (t->nslot - 1)) {
		if (strcmp(t->s[t->slot[j] - 1], s) == 0) {
			if (added)
				*added = false;
			return t->slot[j] - 1;
		}
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->s = xrealloc(t->s, t->cap * sizeof *t->s);
	}
	t->s[t->n] = xstrdup(s);
	t->slot[j] = (uint32_t)t->n + 1;
	if (added)
		*added = true;
	return t->n++;
}

void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->slot);
	*t = (struct strtab){ 0 };
}

uint32_t out_main_module(const struct model *f)
{
	uint32_t best = MODEL_NO_MOD;
	for (uint32_t i = 0; i < f->nmods; i++) {
		if (strcmp(f->mods[i].path, f->procs[0].p->exe) == 0)
			return i;
		if (f->mods[i].samples &&
		    (best == MODEL_NO_MOD || f->mods[i].samples > f->mods[best].samples))
			best = i;
	}
	return best;
}
