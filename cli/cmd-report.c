/* cmd-report.c - placeholder until the subcommand lands (issue 4). */
#include <stdio.h>

#include "cmd.h"

int cmd_report(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "pcprof report: not implemented yet\n");
	return 2;
}
