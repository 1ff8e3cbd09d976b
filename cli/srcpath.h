/*
 * srcpath.h - where a source file named by a module's DWARF line table is,
 * for pcprof annotate's listing and for pprof's -list (cli/out-pprof.c).
 *
 * libdw gives a line's file name as the line table has it, which is
 * relative to its unit's compilation directory (DW_AT_comp_dir) when the
 * compiler was given a relative path: "tests/x.c" is found only from the
 * directory of the build.  Not thread-safe; allocation failure is fatal.
 */
#ifndef PCPROF_SRCPATH_H
#define PCPROF_SRCPATH_H

#include <stdint.h>

#include "model.h"

/* Where file name (from module mod's line table at link-time addr) is:
 * name itself if absolute (or NULL, or mod MODEL_NO_MOD); else joined to
 * the compilation directory of the unit that holds addr, or else of any
 * unit of the module, if the file is there; else name.  The string stays
 * valid until srcpath_free. */
const char *srcpath_find(const struct model *f, uint32_t mod, uint64_t addr, const char *name);

/* Free what srcpath_find found and the modules' DWARF it opened. */
void srcpath_free(void);

#endif
