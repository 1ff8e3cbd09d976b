#include "engine.h"
static int probe(const struct profil_run *run, char *why, size_t len) { (void)run; profil__strlcat(why, len, "not built"); return -ENOSYS; }
static int sig(const struct profil_run *r) { (void)r; return 0; }
static int start(const struct profil_run *r) { (void)r; return -ENOSYS; }
static void stop(void) {}
static bool classify(int s, const siginfo_t *si, unsigned long *w) { (void)s; (void)si; (void)w; return false; }
const struct profil_engine profil__engine_perf = { .name = "perf", .subtick = true, .probe = probe, .signal = sig, .start = start, .stop = stop, .fork_child = stop, .classify = classify };
