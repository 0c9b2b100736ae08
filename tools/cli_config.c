/*
 * cli_config.c: `topoplace config check [FILE]`: validate topoplace.conf
 * the way slurmctld reads it and print the effective settings of the site
 * and of every partition the file names.  See topoplace-config(1).
 */
#include "tp_config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "topoplace_conf.h"

#define WHAT "config"

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: topoplace config check [--quiet] [--partition NAME] "
	        "[FILE]\n"
	        "FILE defaults to $TOPOPLACE_CONF, else topoplace.conf beside "
	        "$SLURM_CONF,\n"
	        "else " TP_CONFIG_DEFAULT_CONF_DIR "/topoplace.conf.\n");
}

/* Where slurmctld would look: beside slurm.conf. */
static const char *default_path(char *buf, size_t size)
{
	const char *env = getenv("TOPOPLACE_CONF");
	const char *slurm_conf = getenv("SLURM_CONF");
	const char *slash;

	if (env && *env)
		return env;
	if (slurm_conf && (slash = strrchr(slurm_conf, '/')) &&
	    (size_t)(slash - slurm_conf) + sizeof("/topoplace.conf") <= size) {
		snprintf(buf, size, "%.*s/topoplace.conf",
		         (int)(slash - slurm_conf), slurm_conf);
		return buf;
	}
	return TP_CONFIG_DEFAULT_CONF_DIR "/topoplace.conf";
}

static int check(int argc, char **argv)
{
	static const struct option options[] = {
	    {"quiet", no_argument, NULL, 'q'},
	    {"partition", required_argument, NULL, 'p'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *partition = NULL, *path;
	char buf[4096];
	tp_config *cfg = NULL;
	tp_error err = {0};
	bool quiet = false;
	size_t parts;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "qp:h", options, NULL)) != -1) {
		switch (opt) {
		case 'q':
			quiet = true;
			break;
		case 'p':
			partition = optarg;
			break;
		case 'h':
			usage(stdout);
			return TP_EXIT_OK;
		default:
			usage(stderr);
			return TP_EXIT_USAGE;
		}
	}
	if (argc - optind > 1)
		return tp_cli_usage_error(WHAT,
		                          "check: one FILE at most, got "
		                          "'%s' and '%s'",
		                          argv[optind], argv[optind + 1]);
	path = optind < argc ? argv[optind] : default_path(buf, sizeof(buf));
	if (tp_config_load(path, &cfg, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	if (tp_config_check_files(cfg, &err) != TP_OK) {
		tp_config_free(cfg);
		return tp_cli_fail(WHAT, &err);
	}
	parts = tp_config_partition_count(cfg);
	if (quiet) {
		tp_config_free(cfg);
		return TP_EXIT_OK;
	}
	printf("# %s: valid, %zu partition override%s\n", path, parts,
	       parts == 1 ? "" : "s");
	if (partition) {
		if (tp_config_write_settings(cfg, partition, stdout, &err) !=
		    TP_OK) {
			tp_config_free(cfg);
			return tp_cli_fail(WHAT, &err);
		}
		tp_config_free(cfg);
		return TP_EXIT_OK;
	}
	printf("# site-wide (partitions not named below use these)\n");
	if (tp_config_write_settings(cfg, NULL, stdout, &err) != TP_OK) {
		tp_config_free(cfg);
		return tp_cli_fail(WHAT, &err);
	}
	for (size_t i = 0; i < parts; i++) {
		printf("\n");
		if (tp_config_write_settings(cfg,
		                             tp_config_partition_name(cfg, i),
		                             stdout, &err) != TP_OK) {
			tp_config_free(cfg);
			return tp_cli_fail(WHAT, &err);
		}
	}
	tp_config_free(cfg);
	if (fflush(stdout) != 0) {
		tp_error_set(&err, TP_ERR_IO, "writing to stdout failed");
		return tp_cli_fail(WHAT, &err);
	}
	return TP_EXIT_OK;
}

int tp_cli_config(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? TP_EXIT_USAGE : TP_EXIT_OK;
	}
	if (!strcmp(argv[1], "check"))
		return check(argc - 1, argv + 1);
	return tp_cli_usage_error(WHAT, "unknown action '%s' (expected check)",
	                          argv[1]);
}
