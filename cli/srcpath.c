/*
 * srcpath.c - where the source file that DWARF names is (srcpath.h).
 */
#include "srcpath.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

struct srcpath {
	uint32_t mod;
	char *name; /* as the model has it */
	char *path; /* where it is, or a copy of name */
	struct srcpath *next;
};

static struct srcpath *paths;

/*
 * A relative name from the line table is relative to its unit's
 * compilation directory (DW_AT_comp_dir), which libdw does not always
 * prepend.  Each module's DWARF (its file's, else its separate debug
 * file's) is opened once, and its distinct compilation directories listed
 * once: decompressing a large library's DWARF for every file name took
 * minutes for a profile of a thousand libc functions.
 */
struct srcmod {
	uint32_t mod;
	int fd;
	Dwarf *dw;
	char **dirs; /* the distinct DW_AT_comp_dir of its units */
	size_t ndirs;
	struct srcmod *next;
};

static struct srcmod *srcmods;

static const char *unit_dir(Dwarf_Die *cu)
{
	Dwarf_Attribute at;
	return dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
}

static struct srcmod *srcmod_get(const struct model *f, uint32_t mod)
{
	for (struct srcmod *m = srcmods; m; m = m->next)
		if (m->mod == mod)
			return m;
	struct srcmod *m = xcalloc(1, sizeof *m);
	m->mod = mod;
	m->fd = -1;
	m->next = srcmods;
	srcmods = m;
	const char *files[2] = { f->mods[mod].path, f->mods[mod].symfile };
	for (int i = 0; i < 2 && !m->dw; i++) {
		if (!files[i] || (m->fd = open(files[i], O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		if (!(m->dw = dwarf_begin(m->fd, DWARF_C_READ))) {
			close(m->fd);
			m->fd = -1;
		}
	}
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu;
	while (m->dw && dwarf_nextcu(m->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		const char *dir = dwarf_offdie(m->dw, off + hsize, &cu) ? unit_dir(&cu) : NULL;
		size_t k = 0;
		while (dir && k < m->ndirs && strcmp(m->dirs[k], dir) != 0)
			k++;
		if (dir && k == m->ndirs && m->ndirs < 256) {
			m->dirs = xrealloc(m->dirs, (m->ndirs + 1) * sizeof *m->dirs);
			m->dirs[m->ndirs++] = xstrdup(dir);
		}
		off = next;
	}
	return m;
}

/* dir/name if that file can be read (a new string), else NULL. */
static char *in_dir(const char *dir, const char *name)
{
	char *p;
	if (!dir || asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	if (access(p, R_OK) == 0)
		return p;
	free(p);
	return NULL;
}

/* The unit that holds addr first, then every directory of the module. */
static char *comp_path(struct srcmod *m, uint64_t addr, const char *name)
{
	Dwarf_Die cu;
	char *p = m->dw && dwarf_addrdie(m->dw, addr, &cu) ? in_dir(unit_dir(&cu), name) : NULL;
	for (size_t i = 0; !p && i < m->ndirs; i++)
		p = in_dir(m->dirs[i], name);
	return p;
}

const char *srcpath_find(const struct model *f, uint32_t mod, uint64_t addr, const char *name)
{
	if (!name || name[0] == '/' || mod == MODEL_NO_MOD)
		return name;
	for (struct srcpath *p = paths; p; p = p->next)
		if (p->mod == mod && strcmp(p->name, name) == 0)
			return p->path;
	struct srcpath *p = xcalloc(1, sizeof *p);
	p->mod = mod;
	p->name = xstrdup(name);
	p->path = comp_path(srcmod_get(f, mod), addr, name);
	if (!p->path)
		p->path = xstrdup(name);
	p->next = paths;
	paths = p;
	return p->path;
}

void srcpath_free(void)
{
	while (paths) {
		struct srcpath *p = paths;
		paths = p->next;
		free(p->name);
		free(p->path);
		free(p);
	}
	while (srcmods) {
		struct srcmod *m = srcmods;
		srcmods = m->next;
		if (m->dw)
			dwarf_end(m->dw);
		if (m->fd >= 0)
			close(m->fd);
		for (size_t i = 0; i < m->ndirs; i++)
			free(m->dirs[i]);
		free(m->dirs);
		free(m);
	}
}
