/*
 * exekind.c - the program file's traits that decide pcprof run's mode.
 *
 * LD_PRELOAD is honoured by the dynamic loader only: a program with no
 * PT_INTERP has none.  The loader also ignores it in secure-execution mode,
 * which a set-user-ID or set-group-ID file enters when it changes who the
 * process runs as.  Go binaries are listed although a cgo one has a loader:
 * the Go runtime owns the timer signals the preloaded library samples with,
 * so a preloaded profile of one is wrong (every sample in threadentry) or
 * kills it (perf's signal during cgo execution).
 */
#include "exekind.h"

#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file execvp would run, into path; false if none is found. */
static bool locate(const char *program, char *path, size_t len)
{
	if (strchr(program, '/')) {
		snprintf(path, len, "%s", program);
		return true;
	}
	const char *dirs = getenv("PATH");
	if (!dirs)
		dirs = "/bin:/usr/bin";
	for (const char *d = dirs;; d++) {
		const char *end = strchrnul(d, ':');
		snprintf(path, len, "%.*s%s%s", (int)(end - d), d, end == d ? "" : "/", program);
		if (access(path, X_OK) == 0)
			return true;
		if (!*end)
			return false;
		d = end;
	}
}

static bool has_interp(Elf *elf)
{
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return true;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			return true;
	}
	return false;
}

/* ".go.buildinfo" (every Go binary since 1.13), else "runtime.main" in
 * the symbol table (older ones, not stripped); the name found, or NULL. */
static const char *go_mark(Elf *elf)
{
	size_t shstr;
	if (elf_getshdrstrndx(elf, &shstr) != 0)
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(elf, shstr, sh.sh_name);
		if (name && strcmp(name, ".go.buildinfo") == 0)
			return ".go.buildinfo";
		if (sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s = gelf_getsym(d, (int)i, &sym)
						? elf_strptr(elf, sh.sh_link, sym.st_name)
						: NULL;
			if (s && strcmp(s, "runtime.main") == 0)
				return "runtime.main";
		}
	}
	return NULL;
}

/* PROGRAM's file, found as execvp would, opened for libelf: a regular file
 * only (opening a FIFO would block).  NULL, or an Elf (possibly NULL when
 * libelf cannot read it) with its descriptor in *fd; close_program ends it.
 * st gets the file's status. */
static bool open_program(const char *program, struct stat *st, int *fd, Elf **elf)
{
	char path[PATH_MAX];
	if (!locate(program, path, sizeof path) || stat(path, st) < 0 || !S_ISREG(st->st_mode))
		return false;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return false;
	elf_version(EV_CURRENT);
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	return true;
}

static void close_program(int fd, Elf *elf)
{
	if (elf)
		elf_end(elf);
	close(fd);
}

bool links_big_static_tls(const char *program)
{
	struct stat st;
	int fd;
	Elf *elf;
	if (!open_program(program, &st, &fd, &elf))
		return false;
	bool found = false;
	for (Elf_Scn *scn = NULL; elf && !found && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n && !found; i++) {
			GElf_Dyn dyn;
			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
				continue;
			const char *name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			found = name && strncmp(name, "libtsan.so", 10) == 0;
		}
	}
	close_program(fd, elf);
	return found;
}

const char *preload_obstacle(const char *program, char *why, size_t len)
{
	struct stat st;
	int fd;
	Elf *elf;
	if (!open_program(program, &st, &fd, &elf))
		return NULL;
	const char *go = NULL;
	bool dynamic = true;
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		go = go_mark(elf);
		dynamic = has_interp(elf);
	}
	close_program(fd, elf);
	if (go)
		snprintf(why, len, "a Go binary (%s)", go);
	else if (!dynamic)
		snprintf(why, len, "statically linked (no PT_INTERP)");
	else if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
		snprintf(why, len, "set-user-ID");
	else if ((st.st_mode & S_ISGID) && st.st_gid != getegid())
		snprintf(why, len, "set-group-ID");
	else
		return NULL;
	return why;
}
