/* cmd.h - the subcommands; each returns the process exit status. */
#ifndef PCPROF_CMD_H
#define PCPROF_CMD_H

int cmd_run(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_archive(int argc, char **argv);

#endif
