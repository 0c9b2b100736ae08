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
#include "tp_json.h"

#define WHAT "config"

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: topoplace config check [--quiet | --json] "
	        "[--partition NAME]\n"
	        "                              [--slurm-conf PATH] [FILE]\n"
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

/*
 * The errors and warnings of one check: printed on stderr as they come,
 * or, for --json, kept for the document (the first MAX_KEPT of each).
 */
#define MAX_KEPT 256
struct findings {
	bool keep;
	unsigned errors, warnings;
	char *error[MAX_KEPT], *warning[MAX_KEPT];
};

static void note(struct findings *f, bool is_error, const char *text)
{
	unsigned *count = is_error ? &f->errors : &f->warnings;
	char **kept = is_error ? f->error : f->warning;

	if (!f->keep)
		fprintf(stderr, "topoplace %s: %s%s\n", WHAT,
		        is_error ? "" : "warning: ", text);
	else if (*count < MAX_KEPT)
		kept[*count] = strdup(text); /* NULL prints as null */
	(*count)++;
}

static void findings_free(struct findings *f)
{
	for (unsigned i = 0; i < f->errors && i < MAX_KEPT; i++)
		free(f->error[i]);
	for (unsigned i = 0; i < f->warnings && i < MAX_KEPT; i++)
		free(f->warning[i]);
}

/* Each error of the file, as the parser finds it. */
static void print_error(void *ctx, const tp_error *error)
{
	note(ctx, true, error->message);
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
static void warn_unknown_partitions(const tp_config *cfg, const char *path,
                                    const char *slurm_conf, bool named,
                                    struct findings *findings)
{
	static struct slurm_parts parts;
	char text[2 * 4096 + 512];

	if (!read_slurm_parts(slurm_conf, &parts)) {
		/* Only a file the admin named is worth a word: without a
		 * slurm.conf at hand there is nothing to compare with. */
		if (named && tp_config_partition_count(cfg)) {
			snprintf(text, sizeof(text),
			         "%s: cannot read: partition names not "
			         "checked",
			         slurm_conf);
			note(findings, false, text);
		}
		return;
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
		snprintf(text, sizeof(text),
		         "%s: line %u: PartitionName=%s: no such partition in "
		         "%s%s%s%s; its settings apply to no job",
		         path, tp_config_partition_line(cfg, i), name,
		         slurm_conf,
		         alike ? " (Slurm matches partition names "
		                 "case-sensitively: did you mean '"
		               : "",
		         alike ? alike : "", alike ? "'?)" : "");
		note(findings, false, text);
	}
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

static bool names_partition(const tp_config *cfg, const char *partition)
{
	for (size_t i = 0; i < tp_config_partition_count(cfg); i++)
		if (!strcmp(tp_config_partition_name(cfg, i), partition))
			return true;
	return false;
}

/* tp_config_each_setting's callback for the JSON form. */
static void json_setting(void *ctx, const char *key, const char *value,
                         tp_config_setting_origin origin, unsigned line)
{
	tp_json *j = ctx;

	tp_json_begin_object(j, NULL);
	tp_json_string(j, "key", key);
	tp_json_string(j, "value", value);
	tp_json_string(j, "from", tp_config_setting_origin_name(origin));
	if (line)
		tp_json_uint(j, "line", line);
	else
		tp_json_null(j, "line");
	tp_json_end_object(j);
}

static void json_settings(tp_json *j, const tp_config *cfg,
                          const char *partition)
{
	tp_json_begin_array(j, "settings");
	/* the partition exists: the caller took it from @cfg or checked it */
	tp_config_each_setting(cfg, partition, json_setting, j, NULL);
	tp_json_end_array(j);
}

static void json_messages(tp_json *j, const char *key, char *const *kept,
                          unsigned count)
{
	tp_json_begin_array(j, key);
	for (unsigned i = 0; i < count && i < MAX_KEPT; i++)
		tp_json_string(j, NULL, kept[i]);
	tp_json_end_array(j);
}

/*
 * The schema topoplace.config version 1 (topoplace-json(7)): whether the
 * file is valid, its errors and warnings, and, when valid, the effective
 * settings site-wide and of each partition (or of @partition only).
 * @cfg is NULL for an invalid file.
 */
static tp_status print_json(const char *path, const tp_config *cfg,
                            const char *partition,
                            const struct findings *findings, tp_error *err)
{
	tp_json j;

	tp_json_init(&j, stdout);
	tp_json_begin_document(&j, "config", 1);
	tp_json_string(&j, "file", path);
	tp_json_bool(&j, "valid", cfg != NULL);
	tp_json_uint(&j, "error_count", findings->errors);
	json_messages(&j, "errors", findings->error, findings->errors);
	json_messages(&j, "warnings", findings->warning, findings->warnings);
	if (cfg && !partition) {
		tp_json_begin_object(&j, "site");
		json_settings(&j, cfg, NULL);
		tp_json_end_object(&j);
	}
	if (cfg) {
		tp_json_begin_array(&j, "partitions");
		for (size_t i = 0; i < tp_config_partition_count(cfg); i++) {
			const char *name = tp_config_partition_name(cfg, i);

			if (partition && strcmp(partition, name))
				continue;
			tp_json_begin_object(&j, NULL);
			tp_json_string(&j, "name", name);
			tp_json_uint(&j, "line",
			             tp_config_partition_line(cfg, i));
			json_settings(&j, cfg, name);
			tp_json_end_object(&j);
		}
		tp_json_end_array(&j);
	}
	tp_json_end_document(&j);
	return tp_json_finish(&j, err);
}

/* The text form: the effective settings as topoplace.conf lines. */
static tp_status print_text(const char *path, const tp_config *cfg,
                            const char *partition, tp_error *err)
{
	size_t parts = tp_config_partition_count(cfg);
	tp_status st;

	printf("# %s: valid, %zu partition override%s\n", path, parts,
	       parts == 1 ? "" : "s");
	if (partition)
		return tp_config_write_settings(cfg, partition, stdout, err);
	printf("# site-wide (partitions not named below use these)\n");
	st = tp_config_write_settings(cfg, NULL, stdout, err);
	for (size_t i = 0; st == TP_OK && i < parts; i++) {
		printf("\n");
		st = tp_config_write_settings(
		    cfg, tp_config_partition_name(cfg, i), stdout, err);
	}
	if (st == TP_OK && fflush(stdout) != 0)
		st = tp_error_set(err, TP_ERR_IO, "writing to stdout failed");
	return st;
}

static int check(int argc, char **argv)
{
	static const struct option options[] = {
	    {"quiet", no_argument, NULL, 'q'},
	    {"json", no_argument, NULL, 'j'},
	    {"partition", required_argument, NULL, 'p'},
	    {"slurm-conf", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *partition = NULL, *path, *slurm_conf_given = NULL;
	char buf[4096], slurm_buf[4096];
	struct findings findings = {0};
	tp_config *cfg = NULL;
	tp_error err = {0};
	bool quiet = false, json = false;
	int opt, rc = TP_EXIT_OK;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "qp:s:h", options, NULL)) != -1) {
		switch (opt) {
		case 'q':
			quiet = true;
			break;
		case 'j':
			json = true;
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
	if (quiet && json)
		return tp_cli_usage_error(WHAT, "check: --quiet and --json "
		                                "exclude each other");
	findings.keep = json;
	path = optind < argc ? argv[optind] : default_path(buf, sizeof(buf));
	if (tp_config_load_each(path, print_error, &findings, &cfg, &err) !=
	    TP_OK) {
		/* Errors before parsing (unreadable file) were not reported. */
		if (!findings.errors)
			note(&findings, true, err.message);
		else if (findings.errors > 1 && !json)
			fprintf(stderr, "topoplace %s: %s: %u errors\n", WHAT,
			        path, findings.errors);
		rc = TP_EXIT_FAILURE;
	} else if (tp_config_check_files(cfg, &err) != TP_OK) {
		note(&findings, true, err.message);
		tp_config_free(cfg);
		cfg = NULL;
		rc = TP_EXIT_FAILURE;
	} else {
		warn_unknown_partitions(cfg, path,
		                        slurm_conf_path(slurm_conf_given, path,
		                                        slurm_buf,
		                                        sizeof(slurm_buf)),
		                        slurm_conf_given != NULL, &findings);
		if (partition && !names_partition(cfg, partition)) {
			tp_error_set(&err, TP_ERR_NOTFOUND,
			             "%s: no PartitionName=%s", path,
			             partition);
			note(&findings, true, err.message);
			rc = TP_EXIT_FAILURE;
		}
	}
	if (json && print_json(path, cfg, partition, &findings, &err) != TP_OK)
		rc = tp_cli_fail(WHAT, &err);
	else if (!json && rc == TP_EXIT_OK && !quiet &&
	         print_text(path, cfg, partition, &err) != TP_OK)
		rc = tp_cli_fail(WHAT, &err);
	tp_config_free(cfg);
	findings_free(&findings);
	return rc;
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
