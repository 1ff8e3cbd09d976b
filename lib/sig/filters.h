/*
 * filters.h - the seccomp filters in force for the calling thread, and
 * which of them are the program's (docs/design.md, "Seccomp filters").
 * Shared by the library and the audit module, which has no libc (its
 * lib/audit/nolibc.c gives prctl, open, pread and close).  Layer L1 (the
 * handler asks too), and includes nothing of lib/.
 *
 * A filter is inherited by every thread its thread creates, every fork
 * child and every exec'd image, and cannot be removed.  Those in force
 * when the library loads (a container's: Docker, systemd, Flatpak) were
 * there when the program started, and the library samples under them as
 * it always did; one the program installs itself may refuse any of the
 * library's calls fatally (SECCOMP_RET_KILL_*, SECCOMP_RET_TRAP), so
 * after it the library makes no system call of its own.
 */
#ifndef PROFIL_SIG_FILTERS_H
#define PROFIL_SIG_FILTERS_H

#include <stdbool.h>

/* PROFIL_FILTERS_SOME: a filter is in force, how many is not known (the
 * "Seccomp_filters" line of /proc/PID/status came with Linux 5.9). */
#define PROFIL_FILTERS_SOME (-1)

/*
 * The filters in force for the calling thread: 0 if none (one
 * prctl(PR_GET_SECCOMP)).  If there is one: with `count`, how many (read
 * from /proc/thread-self/status), or PROFIL_FILTERS_SOME; without, 1
 * however many there are.  errno is kept.  AS-safe.
 */
int profil__filters(bool count);

/*
 * Is the calling thread under more filters than `base` (a number from
 * profil__filters(true), the ones that are not the program's)?  With
 * base 0 one prctl tells; else only `thorough` looks (one prctl and the
 * status file; without, no system call), and a count that cannot be read
 * says no.  AS-safe.
 */
bool profil__filters_beyond(int base, bool thorough);

#endif
