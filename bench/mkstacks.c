/*
 * mkstacks.c - a large stacked data file for bench/report-stacks: N sample
 * records (default 10 million, one tick each) in one process, with call
 * stacks of depth 14 to 20 over libc's code, so that the report reads real
 * symbols (a few thousand functions) and the stacks are many and distinct.
 *
 *   mkstacks FILE [N]
 *
 * The stacks form a binary tree of depth 20 (about a million frames): the
 * frame at depth d of a stack is one of 2^d, so stacks share their callers
 * as real ones do.  Every frame at depth 14 to 20 is the leaf of one stack
 * (about a million stacks), and record i takes stack i mod that in thread
 * i / that, so no two records are the same (pc, thread, stack).  The
 * function of a frame is a hash of its position: one of F slots spread
 * evenly over libc's code (F = 4096).
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data.h"
#include "profile.h"

#define DEPTH   20
#define FIRST   13 /* the shallowest leaf level (depth 14) */
#define NFUNC   4096
#define NFRAMES ((1u << DEPTH) - 1)

static struct pp_module libc;
static int found;

static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uint64_t pc = (uint64_t)(uintptr_t)arg;
	const ElfW(Phdr) *text = NULL;
	struct pp_module m = { 0 };
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && m.nsegs < 8)
			m.seg[m.nsegs++] = (struct pp_segment){ ph->p_vaddr, ph->p_memsz,
								ph->p_offset, ph->p_flags };
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    pc >= info->dlpi_addr + ph->p_vaddr &&
		    pc < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
			text = ph;
		if (ph->p_type == PT_NOTE) {
			/* the GNU build-id note, so that the report trusts the file */
			const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
			const char *end = p + ph->p_memsz;
			while (p + sizeof(ElfW(Nhdr)) <= end) {
				const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
				const char *desc = p + sizeof *n + ((n->n_namesz + 3) & ~3u);
				if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
				    memcmp(p + sizeof *n, "GNU", 4) == 0 &&
				    n->n_descsz <= sizeof m.build_id) {
					memcpy(m.build_id, desc, n->n_descsz);
					m.build_id_len = n->n_descsz;
				}
				p = desc + ((n->n_descsz + 3) & ~3u);
			}
		}
	}
	if (!text)
		return 0;
	char path[4096];
	m.path = strdup(realpath(info->dlpi_name, path) ? path : info->dlpi_name);
	m.bias = info->dlpi_addr;
	libc = m;
	found = 1;
	return 1;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	x ^= x >> 29;
	return x;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: mkstacks FILE [N]\n");
		return 2;
	}
	size_t n = argc == 3 ? strtoull(argv[2], NULL, 10) : 10000000;
	dl_iterate_phdr(find_libc, (void *)(uintptr_t)getppid);
	if (!found) {
		fprintf(stderr, "mkstacks: libc's code not found\n");
		return 1;
	}
	const struct pp_segment *text = NULL;
	for (uint32_t i = 0; i < libc.nsegs; i++)
		if (libc.seg[i].flags & PF_X)
			text = &libc.seg[i];
	uint64_t slot = text->memsz / NFUNC;

	struct pp_profile prof = { 0 };
	prof.command = strdup("mkstacks");
	prof.start_ns = 1700000000000000000ull;
	prof.end_ns = prof.start_ns + 2000000000ull;
	prof.nprocs = 1;
	prof.procs = calloc(1, sizeof *prof.procs);
	struct pp_process *p = prof.procs;
	p->pid = 4242;
	p->ppid = 4241;
	p->exe = strdup("/usr/bin/mkstacks");
	p->cmdline = strdup("mkstacks");
	p->hz = 1000;
	strcpy(p->engine, "perf");
	p->why = strdup("bench");
	p->start_ns = prof.start_ns;
	p->end_ns = prof.end_ns;
	p->end = PP_END_EXIT;
	p->modules = calloc(1, sizeof *p->modules);
	p->modules[0] = libc;
	p->nmodules = 1;

	/* frame id(d, k) = 2^d - 1 + k, k < 2^d; its parent is id(d-1, k/2) */
	p->frames = calloc(NFRAMES, sizeof *p->frames);
	p->nframes = NFRAMES;
	for (uint32_t d = 0; d < DEPTH; d++)
		for (uint32_t k = 0; k < (1u << d); k++) {
			uint32_t id = (1u << d) - 1 + k;
			uint64_t h = mix(id + 1);
			uint64_t pc =
				libc.bias + text->vaddr + (h % NFUNC) * slot + 8 + (h >> 32) % 16;
			p->frames[id] =
				(struct pp_frame){ pc, 0,
						   d ? (1u << (d - 1)) - 1 + k / 2 : PP_NO_FRAME };
		}
	uint32_t first = (1u << FIRST) - 1, nstacks = NFRAMES - first;
	size_t nthreads = (n + nstacks - 1) / nstacks;
	p->threads = calloc(nthreads, sizeof *p->threads);
	p->nthreads = nthreads;
	for (size_t t = 0; t < nthreads; t++) {
		p->threads[t].tid = 4242 + (int)t;
		snprintf(p->threads[t].name, sizeof p->threads[t].name, "worker-%u",
			 (unsigned)(t % 100000));
	}
	p->samples = calloc(n, sizeof *p->samples);
	p->nsamples = n;
	for (size_t i = 0; i < n; i++) {
		uint32_t leaf = first + (uint32_t)(i % nstacks);
		uint32_t t = (uint32_t)(i / nstacks);
		p->samples[i] = (struct pp_sample){ .pc = p->frames[leaf].pc, .module = 0, .thread = t, .count = 1, .frame = leaf };
		p->threads[t].ticks++;
	}
	p->ticks = p->signals = n;
	p->cpu_ns = n * 1000000ull;
	pp_sort_samples(p);
	char err[256];
	if (pp_write(argv[1], &prof, err, sizeof err) != 0) {
		fprintf(stderr, "mkstacks: %s: %s\n", argv[1], err);
		return 1;
	}
	pp_free(&prof);
	return 0;
}
