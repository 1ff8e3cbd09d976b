/* cmd.h - the subcommands; each returns the process exit status. */
#ifndef PCPROF_CMD_H
#define PCPROF_CMD_H

/* The rate pcprof attach samples at unless told (--hz, PROFIL_HZ), and the
 * most pcprof run takes unless told: 500 Hz.  100 Hz, the library's own
 * default (profil(3) keeps it), gave too few samples for a run of a second
 * or two; 500 samples per CPU second give a 50% share within +-2.2 points
 * (one standard deviation) after one second.
 *
 * pcprof run takes the kernel tick instead where it is lower
 * (run_default_hz, util.h: 250 Hz on a 250 Hz kernel).  Above the tick the
 * library puts its perf engine first, because only perf gives distinct
 * samples there, and perf costs every context switch of the program, not
 * only every sample: each switch stops and restarts its timer, and at 500 Hz
 * that timer is nearly always the CPU's next one, so the hardware timer is
 * reprogrammed twice per switch.  A pipe ping-pong ran 4-5 times slower at
 * 500 Hz; the thread timer, which the tick drives, costs nothing per switch
 * and gives a distinct sample per tick (docs/benchmarks.md, "Context
 * switches").  pcprof attach keeps 500 Hz: it samples with perf events
 * from outside, which cost every switch whatever the rate. */
#define PCPROF_DEFAULT_HZ 500

int cmd_run(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_archive(int argc, char **argv);

#endif
