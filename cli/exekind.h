/*
 * exekind.h - whether preloading a library can reach a program, read from
 * its file before it runs: pcprof run's choice between preloading
 * libprofil and sampling from outside (sampler.h).
 */
#ifndef PCPROF_EXEKIND_H
#define PCPROF_EXEKIND_H

#include <stddef.h>

/*
 * Find PROGRAM as execvp would (a name without '/' along PATH) and say
 * why LD_PRELOAD would not reach it: NULL if it would (or the file is not
 * an ELF executable pcprof can read, such as a script: the exec decides),
 * else a short reason written into why ("statically linked (no
 * PT_INTERP)", "a Go binary (.go.buildinfo)", "set-user-ID").
 */
const char *preload_obstacle(const char *program, char *why, size_t len);

#endif
