/*
 * sig/accept.h - which deliveries of a signal are ours (layer L1, the
 * AS-safe zone).  The engines (L2) know how to recognise their own signals;
 * the handler must not call up into the code that lists them, so the
 * control code publishes their classifiers here, and the handler asks this
 * table.  A classifier is never removed, so that a late signal of a stopped
 * run is still recognised (and dropped) rather than given to the program.
 * May include: lib/internal.h, lib/sig/ (tests/abi/t-layers.sh).
 */
#ifndef PROFIL_SIG_ACCEPT_H
#define PROFIL_SIG_ACCEPT_H

#include "../internal.h"

#include <stdbool.h>

/* Room in the table: more than there are engines. */
#define PROFIL_ACCEPT_MAX 8

/* Is this delivery of sig one of ours?  If so, *weight = ticks it stands
 * for.  AS-safe. */
typedef bool profil_classify_fn(int sig, const siginfo_t *si, unsigned long *weight);

/* The value our timers carry in si_value, and perf in sig_data: what the
 * classifiers look for. */
PROFIL_HIDDEN extern const char profil__cookie[1];

/* Add fn to the table (once; the order of first additions is the order in
 * which they are asked).  Normal context, control lock held, before the
 * handler is installed for the engine's signal.  0, or -ENOSPC if the
 * table is full (PROFIL_ACCEPT_MAX). */
PROFIL_HIDDEN int profil__accept_add(profil_classify_fn *fn);

/* Asks every classifier added so far, in order; false if none claims the
 * delivery.  AS-safe. */
PROFIL_HIDDEN bool profil__accept(int sig, const siginfo_t *si, unsigned long *weight);

#endif
