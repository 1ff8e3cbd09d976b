/*
 * cmd-archive.c - `pcprof archive [-o FILE] [DATA]`: the recording packed
 * with every module file and separate debug file its samples and stacks
 * need (cli/archive.h), found as report finds them (cli/debuginfo.h), so
 * that `pcprof report FILE` and every export give the recording's own
 * names on another machine, or after the program was rebuilt.
 *
 * Modules without samples are left out: nothing would be looked up in
 * them.  A module whose matching file cannot be found is left out with
 * its note (why it lost its symbols), and the archive is still written:
 * its samples show as addresses, as they would in a report here.  The
 * vDSO has no file: its image is packed from memory when this kernel's is
 * the one recorded.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "archive.h"
#include "cmd.h"
#include "debuginfo.h"
#include "file.h"
#include "symtab.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: pcprof archive [-o FILE] [OPTIONS] [DATA]\n"
		   "\n"
		   "Pack the recording DATA (default pcprof.data) with the module files and\n"
		   "debug files its samples need, each checked by build id, into one file\n"
		   "(default DATA.archive) that pcprof report and export read on any machine.\n"
		   "\n"
		   "Options:\n"
		   "  -o, --output FILE    the archive ('-': standard output)\n" DEBUGINFO_USAGE
		   "  -h, --help           this text\n"
		   "\n"
		   "See pcprof-archive(1) and docs/formats.md.\n");
}

/* What is packed already: (kind, build id or path). */
struct packed {
	enum ar_kind kind;
	uint8_t id[40];
	uint32_t idlen;
	const char *path;
};

static bool already(const struct packed *v, size_t n, enum ar_kind kind, const struct pp_module *m)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].kind == kind && v[i].idlen == m->build_id_len &&
		    (m->build_id_len ? memcmp(v[i].id, m->build_id, m->build_id_len) == 0
				     : strcmp(v[i].path, m->path) == 0))
			return true;
	return false;
}

struct job {
	struct ar_writer *w;
	struct ofile *o;
	const char *out;
	struct packed *v;
	size_t n;
	size_t modules, debugs;
	uint64_t bytes; /* the files' own sizes */
};

/* Pack the file at path file, or the one open at fd (file NULL). */
static void pack(struct job *j, enum ar_kind kind, const struct pp_module *m, const char *file,
		 int fd)
{
	if ((!file && fd < 0) || already(j->v, j->n, kind, m)) {
		if (!file && fd >= 0)
			close(fd);
		return;
	}
	if (file)
		fd = open(file, O_RDONLY | O_CLOEXEC);
	char err[1024];
	if (fd < 0) {
		ofile_discard(j->o);
		die(1, "%s: %s", file, strerror(errno));
	}
	off_t size = lseek(fd, 0, SEEK_END);
	if (ar_writer_add(j->w, kind, m->path, m->build_id, m->build_id_len, fd, err, sizeof err) !=
	    0) {
		close(fd);
		ofile_discard(j->o);
		die(1, "%s", err);
	}
	close(fd);
	j->v = xrealloc(j->v, (j->n + 1) * sizeof *j->v);
	struct packed *p = &j->v[j->n++];
	p->kind = kind;
	p->idlen = m->build_id_len;
	memcpy(p->id, m->build_id, m->build_id_len);
	p->path = m->path;
	if (kind == AR_MODULE)
		j->modules++;
	else
		j->debugs++;
	j->bytes += size > 0 ? (uint64_t)size : 0;
}

/* The vDSO's image, which matched the recorded build id, in an anonymous
 * file; -1 if it did not match (another kernel's). */
static int vdso_fd(struct symtab *st, uint32_t m)
{
	Elf *elf = symtab_module_elf(st, m);
	size_t size;
	char *image = elf ? elf_rawfile(elf, &size) : NULL;
	int fd = image ? memfd_create("vdso", MFD_CLOEXEC) : -1;
	if (fd >= 0 && write(fd, image, size) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int cmd_archive(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		DEBUGINFO_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		if (debuginfo_option(c, optarg))
			continue;
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			try_help(2); /* after getopt's message naming the option */
		}
	}
	if (argc - optind > 1)
		usage_error(2, "extra operand '%s': one data file at most", argv[optind + 1]);
	const char *data = optind < argc ? argv[optind] : "pcprof.data";
	char *defout = NULL;
	if (!out) {
		if (asprintf(&defout, "%s.archive", data) < 0)
			die(2, "out of memory");
		out = defout;
	}
	if (archive_is(data))
		die(1, "%s: already an archive (report and export read it as it is)", data);
	struct pp_profile prof;
	char err[1024];
	if (pp_read(data, &prof, err, sizeof err) != 0)
		die(1, "%s: %s", data, err);
	int dfd = open(data, O_RDONLY | O_CLOEXEC);
	if (dfd < 0)
		die(1, "%s: %s", data, strerror(errno));

	struct job j = { .out = out };
	j.o = ofile_open(out, err, sizeof err);
	if (!j.o)
		die(1, "%s", err);
	j.w = ar_writer_begin(ofile_stream(j.o));
	const char *b = strrchr(data, '/');
	if (ar_writer_add(j.w, AR_DATA, b ? b + 1 : data, NULL, 0, dfd, err, sizeof err) != 0) {
		ofile_discard(j.o);
		die(1, "%s", err);
	}
	close(dfd);

	struct symtab **st = xcalloc(prof.nprocs ? prof.nprocs : 1, sizeof *st);
	size_t missing = 0;
	for (size_t i = 0; i < prof.nprocs; i++) {
		const struct pp_process *pr = &prof.procs[i];
		st[i] = symtab_open(pr);
		bool *used = xcalloc(pr->nmodules ? pr->nmodules : 1, sizeof *used);
		for (size_t k = 0; k < pr->nsamples; k++)
			if (pr->samples[k].module < pr->nmodules)
				used[pr->samples[k].module] = true;
		for (size_t k = 0; k < pr->nframes; k++)
			if (pr->frames[k].module < pr->nmodules)
				used[pr->frames[k].module] = true;
		for (uint32_t m = 0; m < pr->nmodules; m++) {
			if (!used[m])
				continue;
			const char *elf, *dbg;
			symtab_module_files(st[i], m, &elf, &dbg);
			if (!elf && !dbg && pr->modules[m].path[0] == '/' &&
			    !already(j.v, j.n, AR_MODULE, &pr->modules[m]) &&
			    !already(j.v, j.n, AR_DEBUG, &pr->modules[m]))
				missing++;
			pack(&j, AR_MODULE, &pr->modules[m], elf, -1);
			pack(&j, AR_DEBUG, &pr->modules[m], dbg, -1);
			if (strcmp(pr->modules[m].path, "[vdso]") == 0)
				pack(&j, AR_MODULE, &pr->modules[m], NULL, vdso_fd(st[i], m));
		}
		free(used);
		symtab_notes(st[i], stderr, NULL);
	}
	uint64_t size;
	ar_writer_end(j.w, &size);
	if (ofile_close(j.o, err, sizeof err) != 0)
		die(1, "%s", err);
	fprintf(stderr,
		"pcprof archive: wrote %s: %" PRIu64 " bytes (%.1f MB): the recording, "
		"%zu module files, %zu debug files (%.1f MB before compression)",
		strcmp(out, "-") == 0 ? "standard output" : out, size, (double)size / 1e6,
		j.modules, j.debugs, (double)j.bytes / 1e6);
	if (missing)
		fprintf(stderr, "; %zu modules with samples not packed (see the notes)", missing);
	fputc('\n', stderr);
	for (size_t i = 0; i < prof.nprocs; i++)
		symtab_close(st[i]);
	free(st);
	free(j.v);
	pp_free(&prof);
	free(defout);
	return 0;
}
