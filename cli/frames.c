/*
 * frames.c - the frame tree of frames.h.
 */
#include "frames.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static uint64_t frame_hash(uint64_t pc, uint32_t module, uint32_t parent)
{
	uint64_t h = pc * UINT64_C(0x9e3779b97f4a7c15) ^ ((uint64_t)module << 32 | parent);
	h ^= h >> 29;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	return h ^ (h >> 32);
}

static void index_put(struct frame_index *fi, const struct pp_process *pr, uint32_t f)
{
	const struct pp_frame *fr = &pr->frames[f];
	size_t mask = fi->index_cap - 1;
	for (size_t i = frame_hash(fr->pc, fr->module, fr->parent) & mask;; i = (i + 1) & mask) {
		if (fi->index[i] == PP_NO_FRAME) {
			fi->index[i] = f;
			return;
		}
	}
}

uint32_t frame_intern(struct frame_index *fi, struct pp_process *pr, uint64_t pc, uint32_t module,
		      uint32_t parent)
{
	if (2 * (pr->nframes + 1) > fi->index_cap) {
		free(fi->index);
		fi->index_cap = fi->index_cap ? 2 * fi->index_cap : 1024;
		fi->index = xmalloc(fi->index_cap * sizeof *fi->index);
		memset(fi->index, 0xff, fi->index_cap * sizeof *fi->index);
		for (size_t f = 0; f < pr->nframes; f++)
			index_put(fi, pr, (uint32_t)f);
	}
	size_t mask = fi->index_cap - 1;
	size_t i = frame_hash(pc, module, parent) & mask;
	for (; fi->index[i] != PP_NO_FRAME; i = (i + 1) & mask) {
		const struct pp_frame *fr = &pr->frames[fi->index[i]];
		if (fr->pc == pc && fr->module == module && fr->parent == parent)
			return fi->index[i];
	}
	if (pr->nframes == fi->frames_cap) {
		fi->frames_cap = fi->frames_cap ? 2 * fi->frames_cap : 256;
		pr->frames = xrealloc(pr->frames, fi->frames_cap * sizeof *pr->frames);
	}
	uint32_t f = (uint32_t)pr->nframes++;
	pr->frames[f] = (struct pp_frame){ pc, module, parent };
	fi->index[i] = f;
	return f;
}

void frame_index_free(struct frame_index *fi, struct pp_process *pr)
{
	free(fi->index);
	fi->index = NULL;
	/* pcprof holds every process until it writes the data file. */
	if (pr->nframes < fi->frames_cap)
		pr->frames =
			xrealloc(pr->frames, (pr->nframes ? pr->nframes : 1) * sizeof *pr->frames);
	fi->index_cap = fi->frames_cap = 0;
}
