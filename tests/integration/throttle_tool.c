/*
 * throttle_tool.c: `topoplace throttle` as a program of its own, for the
 * integration tests while the subcommand cannot yet be linked into
 * tools/topoplace (see throttle/local.mk).  Same arguments and exit codes:
 *   throttle_tool <action> [options]
 */
#include "tp_config.h"

#include "cli.h"

int main(int argc, char **argv)
{
	static char label[] = "topoplace throttle";

	argv[0] = label;
	return tp_cli_throttle(argc, argv);
}
