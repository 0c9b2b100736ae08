/*
 * topoplace.c: the `topoplace` command: inspect fabrics, profiles,
 * placements and predicted costs offline.
 *
 *   topoplace <command> [options]     topoplace help
 */
#include "tp_config.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"

struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

/* One line per subcommand; keep in step with doc/topoplace.1. */
static const struct command commands[] = {
	{ "profile", "show, verify, import, export, store profiles",
	  tp_cli_profile },
	{ "place", "hosts and I/O servers for a job request", tp_cli_place },
	{ "remap", "map ranks onto hosts, write rankfiles", tp_cli_remap },
	{ "cost", "compare mappings: hop-bytes, loads, time", tp_cli_cost },
	{ "fabric", "discover, show, route the InfiniBand fabric", tp_cli_fabric },
	{ "config", "validate topoplace.conf, show settings", tp_cli_config },
	{ "report", "pictures and explanations of placements", tp_cli_report },
	{ "throttle", "I/O thresholds, windows, TBF rules", tp_cli_throttle },
	{ "version", "print the version", tp_cli_version },
};

#define COMMAND_COUNT (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: topoplace <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out, "  %-10s %s\n", "help", "this list");
	fprintf(out, "\n'topoplace <command> --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	char label[64];

	if (argc < 2) {
		usage(stderr);
		return TP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return TP_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version"))
		return tp_cli_version(argc - 1, argv + 1);
	for (size_t i = 0; i < COMMAND_COUNT; i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		snprintf(label, sizeof(label), "topoplace %s",
			 commands[i].name);
		argv[1] = label;
		return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr,
		"topoplace: unknown command '%s' (try 'topoplace help')\n",
		argv[1]);
	return TP_EXIT_USAGE;
}
