/*
 * record.c - the whole-process recorder behind `pcprof run`.
 *
 * Not implemented yet: profil__rec stays NULL, so the library behaves
 * exactly as without pcprof.  (Issue 4 fills this in.)
 */
#include "record.h"

struct profil_rec *_Atomic profil__rec;

void profil__record(struct profil_rec *r, uintptr_t pc, unsigned long weight)
{
	(void)r, (void)pc, (void)weight;
}

unsigned int profil__record_hz(void)
{
	return 0;
}

void profil__record_init(void)
{
}

void profil__record_fork_child(void)
{
}

void profil__record_exec(void)
{
}

void profil__record_exec_failed(void)
{
}
