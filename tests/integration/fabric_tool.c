/*
 * fabric_tool: `topoplace fabric` as a program of its own, so the fabric
 * integration tests run whether or not the subcommand is linked into
 * tools/topoplace yet.  Usage as topoplace-fabric(1) without "fabric".
 */
#include "tp_config.h"

#include "cli.h"

int main(int argc, char **argv)
{
	char label[] = "topoplace fabric";

	argv[0] = label;
	return tp_cli_fabric(argc, argv);
}
