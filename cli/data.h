/*
 * data.h - the pcprof.data codec below pp_read/pp_write (profile.h), in
 * memory, for the tests and the fuzzer.  The format is described field by
 * field in docs/formats.md ("pcprof.data").
 */
#ifndef PCPROF_DATA_H
#define PCPROF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#define PP_MAGIC       "\x89PCPROF\n" /* 8 bytes */
#define PP_VERSION     3 /* 2: frames (call stacks); 3: time buckets; 1 and 2 are still read */
#define PP_HEADER_SIZE 32
#define PP_STR_MAX     (1u << 20) /* longest string a file may hold */

/* pp_parse flags */
#define PP_PARSE_NO_CRC                                                                            \
	1u /* do not verify checksums (fuzzing the parser; pp_read verifies                        \
	      them apart, on another thread) */

/*
 * Parse a whole data file held in buf[0..len).  Returns 0 and fills *out
 * (free with pp_free), or -1 with a one-line message in err and *out empty.
 * Never reads outside buf, whatever its contents.  Not thread-safe only in
 * that *out belongs to the caller.
 */
int pp_parse(const void *buf, size_t len, unsigned flags, struct pp_profile *out, char *err,
	     size_t errlen);

/*
 * The checks of a data file of size bytes that need only its first
 * min(size, PP_HEADER_SIZE) bytes p: what it is, its version, its header
 * checksum, and that the header's body size is size's.  pp_read makes them
 * before it reads more, and so does an archive's reader before it unpacks
 * more of a recording.  0, or -1 with a one-line message in err.
 */
int pp_check_header(const uint8_t *p, uint64_t size, char *err, size_t errlen);

/*
 * Encode p as a data file in a malloc'd buffer (*buf, *len; the caller
 * frees it).  Returns 0, or -1 with err set (out of memory, or a profile
 * that breaks the model's rules: an index out of range, a count too large).
 */
int pp_encode(const struct pp_profile *p, uint8_t **buf, size_t *len, char *err, size_t errlen);

/* pp_encode in an older format version (the tests write version 1 files,
 * which drop the frames). */
int pp_encode_version(const struct pp_profile *p, uint32_t version, uint8_t **buf, size_t *len,
		      char *err, size_t errlen);

/*
 * The rules of profile.h's frames that the reader enforces and the writer
 * keeps: a frame's parent comes before it, its module is in range, a
 * marker pc has no module, a sample's leaf frame is at the sample's pc and
 * module.  Returns 0, or -1 with err set.
 */
int pp_check_stacks(const struct pp_process *pr, char *err, size_t errlen);

/*
 * Counts.  Every view sums sample counts (by function, thread, node of
 * the call tree, time slot, ...), each sample at most once per sum, and the
 * model sums the processes' ticks, signals, lost ticks and CPU times; a
 * file whose counts add up beyond these bounds is refused by the reader
 * and never written, so that no sum of one file's counts can wrap
 * (2^53 ticks: 285 years of one CPU at 1 MHz; 2^62 ns: 146 years of CPU
 * time).  Below 2^53 a count is also exact as a double.
 */
#define PP_TICKS_MAX (UINT64_C(1) << 53)
#define PP_NS_MAX    (UINT64_C(1) << 62)

/* The running sums of a profile's counts that the bounds apply to. */
struct pp_sums {
	uint64_t samples; /* every sample's count */
	uint64_t threads; /* every thread's ticks */
	uint64_t ticks, signals, lost, tl_lost;
	uint64_t cpu_ns;
};

/* Add pr's counts to *sum; 0, or -1 with err set ("... add up to more
 * than ...") if a sum would pass its bound (then *sum is unchanged). */
int pp_sums_add(struct pp_sums *sum, const struct pp_process *pr, char *err, size_t errlen);

/* pp_sums_add over every process of p from zero: what the reader and the
 * writer check. */
int pp_check_counts(const struct pp_profile *p, char *err, size_t errlen);

/* Free one process's parts (pp_free does this for every process). */
void pp_process_free(struct pp_process *pr);

/* Does one of m's segments hold runtime address pc? */
bool pp_module_holds(const struct pp_module *m, uint64_t pc);

/* Sort samples by (module, pc, thread, frame, time), the order profile.h
 * promises. */
void pp_sort_samples(struct pp_process *pr);

#endif
