/*
 * profile_cli_main.c: `topoplace profile` as a stand-alone check program,
 * so tests/integration/profile_store_munge.sh runs the real subcommand
 * code (tools/cli_profile.c) whether or not the topoplace binary lists it.
 */
#include "tp_config.h"

#include "cli.h"

int main(int argc, char **argv)
{
	argv[0] = "topoplace profile";
	return tp_cli_profile(argc, argv);
}
