/*
 * exekind.h - whether preloading a library can reach a program, read from
 * its file before it runs: pcprof run's choice between preloading
 * libprofil and sampling from outside (sampler.h).
 */
#ifndef PCPROF_EXEKIND_H
#define PCPROF_EXEKIND_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Find PROGRAM as execvp would (a name without '/' along PATH) and say
 * why LD_PRELOAD would not reach it: NULL if it would (or the file is not
 * an ELF executable pcprof can read, such as a script: the exec decides),
 * else a short reason written into why ("statically linked (no
 * PT_INTERP)", "a Go binary (.go.buildinfo)", "set-user-ID").
 */
const char *preload_obstacle(const char *program, char *why, size_t len);

/*
 * Whether PROGRAM (found as above) links ThreadSanitizer's runtime, whose
 * initial-exec TLS (about 0.8 MB) does not fit in the static TLS that the
 * dynamic loader has left once an LD_AUDIT module has a namespace of its
 * own: such a program then fails to start ("cannot allocate memory in
 * static TLS block") unless the loader is told to keep more.
 */
bool links_big_static_tls(const char *program);

#endif
