/*
 * frames.h - building a process's frame tree (profile.h, struct pp_frame):
 * frames are merged on (pc, module, parent), so each distinct call path is
 * one leaf index.  Used by the readers of preloaded recordings (raw.c) and
 * of the external sampler (sampler.c).
 */
#ifndef PCPROF_FRAMES_H
#define PCPROF_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* The frames of one process made so far, by (pc, module, parent). */
struct frame_index {
	uint32_t *index;  /* open addressing on frame indices */
	size_t index_cap; /* a power of two, at least twice the frames */
	size_t frames_cap;
};

/* The frame (pc, module, parent) of pr, appended to pr->frames if new. */
uint32_t frame_intern(struct frame_index *fi, struct pp_process *pr, uint64_t pc, uint32_t module,
		      uint32_t parent);

/* Free the index and trim pr->frames to its size (pr keeps its frames). */
void frame_index_free(struct frame_index *fi, struct pp_process *pr);

#endif
