/* cmd-run.c - placeholder until the subcommand lands (issue 4). */
#include <stdio.h>

#include "cmd.h"

int cmd_run(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "pcprof run: not implemented yet\n");
	return 2;
}
