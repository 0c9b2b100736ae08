/*
 * cli_config.c: `topoplace config check [FILE]`: validate topoplace.conf
 * the way slurmctld reads it and print the effective settings of the site
 * and of every partition the file names.  See topoplace-config(1).
 */
#include "tp_config.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "topoplace_conf.h"

#define WHAT "config"

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: topoplace config check [--quiet] [--partition NAME] "
	        "[--slurm-conf PATH] [FILE]\n"
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

/* Each error of the file, as the parser finds it. */
static void print_error(void *ctx, const tp_error *error)
{
	unsigned *count = ctx;

	(*count)++;
	fprintf(stderr, "topoplace %s: %s\n", WHAT, error->message);
}

/* slurm.conf's partitions, as slurmctld names them. */
struct slurm_parts {
	size_t count;
	char names[TP_CONFIG_MAX_PARTITIONS][TP_CONFIG_PARTITION_NAME_MAX + 1];
};

/*
 * The PartitionName= lines of @path (keys case-insensitive, as Slurm reads
 * them; Include lines are not followed).  False when it cannot be read.
 */
static bool read_slurm_parts(const char *path, struct slurm_parts *parts)
{
	char line[4096];
	FILE *f = fopen(path, "r");

	parts->count = 0;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		const char *s = line;
		size_t len;

		while (*s == ' ' || *s == '\t')
			s++;
		if (strncasecmp(s, "PartitionName=", 14))
			continue;
		s += 14;
		len = strcspn(s, " \t\r\n#");
		if (!len || len > TP_CONFIG_PARTITION_NAME_MAX ||
		    (len == 7 && !strncasecmp(s, "DEFAULT", 7)) ||
		    parts->count == TP_CONFIG_MAX_PARTITIONS)
			continue;
		memcpy(parts->names[parts->count], s, len);
		parts->names[parts->count++][len] = '\0';
	}
	fclose(f);
	return true;
}

/*
 * Slurm 22.05 matches partition names case-sensitively (xstrcmp in
 * list_find_part), and so does topoplace: a PartitionName line for a
 * partition slurm.conf does not define applies to no job.  Say so, with
 * the name Slurm has when only the case differs.  Returns the warnings.
 */
static unsigned warn_unknown_partitions(const tp_config *cfg, const char *path,
                                        const char *slurm_conf, bool named)
{
	static struct slurm_parts parts;
	unsigned warnings = 0;

	if (!read_slurm_parts(slurm_conf, &parts)) {
		/* Only a file the admin named is worth a word: without a
		 * slurm.conf at hand there is nothing to compare with. */
		if (named && tp_config_partition_count(cfg))
			fprintf(stderr,
			        "topoplace %s: warning: %s: cannot read: "
			        "partition names not checked\n",
			        WHAT, slurm_conf);
		return named ? 1 : 0;
	}
	for (size_t i = 0; i < tp_config_partition_count(cfg); i++) {
		const char *name = tp_config_partition_name(cfg, i);
		const char *alike = NULL;
		bool found = false;

		for (size_t k = 0; k < parts.count && !found; k++) {
			found = !strcmp(parts.names[k], name);
			if (!strcasecmp(parts.names[k], name))
				alike = parts.names[k];
		}
		if (found)
			continue;
		warnings++;
		fprintf(stderr,
		        "topoplace %s: warning: %s: line %u: PartitionName=%s: "
		        "no such partition in %s%s%s%s; its settings apply to "
		        "no job\n",
		        WHAT, path, tp_config_partition_line(cfg, i), name,
		        slurm_conf,
		        alike ? " (Slurm matches partition names "
		                "case-sensitively: did you mean '"
		              : "",
		        alike ? alike : "", alike ? "'?)" : "");
	}
	return warnings;
}

/* slurm.conf: --slurm-conf, else $SLURM_CONF, else beside @path. */
static const char *slurm_conf_path(const char *given, const char *path,
                                   char *buf, size_t size)
{
	const char *env = getenv("SLURM_CONF");
	const char *slash = strrchr(path, '/');

	if (given)
		return given;
	if (env && *env)
		return env;
	if (slash)
		snprintf(buf, size, "%.*s/slurm.conf", (int)(slash - path),
		         path);
	else
		snprintf(buf, size, "slurm.conf");
	return buf;
}

static int check(int argc, char **argv)
{
	static const struct option options[] = {
	    {"quiet", no_argument, NULL, 'q'},
	    {"partition", required_argument, NULL, 'p'},
	    {"slurm-conf", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *partition = NULL, *path, *slurm_conf_given = NULL;
	char buf[4096], slurm_buf[4096];
	unsigned errors = 0;
	tp_config *cfg = NULL;
	tp_error err = {0};
	bool quiet = false;
	size_t parts;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "qp:s:h", options, NULL)) != -1) {
		switch (opt) {
		case 'q':
			quiet = true;
			break;
		case 'p':
			partition = optarg;
			break;
		case 's':
			slurm_conf_given = optarg;
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
	if (tp_config_load_each(path, print_error, &errors, &cfg, &err) !=
	    TP_OK) {
		/* Errors before parsing (unreadable file) were not printed. */
		if (!errors)
			return tp_cli_fail(WHAT, &err);
		if (errors > 1)
			fprintf(stderr, "topoplace %s: %s: %u errors\n", WHAT,
			        path, errors);
		return TP_EXIT_FAILURE;
	}
	if (tp_config_check_files(cfg, &err) != TP_OK) {
		tp_config_free(cfg);
		return tp_cli_fail(WHAT, &err);
	}
	warn_unknown_partitions(cfg, path,
	                        slurm_conf_path(slurm_conf_given, path,
	                                        slurm_buf, sizeof(slurm_buf)),
	                        slurm_conf_given != NULL);
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
