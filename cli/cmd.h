/* cmd.h - the subcommands; each returns the process exit status. */
#ifndef PCPROF_CMD_H
#define PCPROF_CMD_H

/* The rate pcprof run and attach sample at unless told (--hz, PROFIL_HZ):
 * 500 Hz.  100 Hz, the library's own default (profil(3) keeps it), gave
 * too few samples for a run of a second or two; 500 samples per CPU second
 * give a 50% share within +-2.2 points (one standard deviation) after one
 * second.  Its cost, from docs/benchmarks.md: the perf engine (chosen above
 * the 250 Hz kernel tick) spends 2.5-5 us per sample and a stack walk 0.2
 * us, 0.1-0.3% of CPU time at 500 Hz, half the cost of 1 kHz, whose ratios
 * on the loaded machine were 1.01-1.04. */
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
