/*
 * topoplace-fattree - write an ibsim net file or Slurm topology.conf for a
 * 2- or 3-level fat tree (test fixtures; see topoplace-fattree(1)).
 *
 * Exit status: 0 success, 1 output could not be written, 2 usage error
 * (bad, missing or impossible option values). Errors are one line on stderr.
 */
#include "tp_config.h"

#include "fattree.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG "topoplace-fattree"

enum exit_code {
	EXIT_OK = 0,
	EXIT_IO = 1,
	EXIT_USAGE = 2,
};

enum option_id {
	OPT_LEAVES = 256,
	OPT_HOSTS_PER_LEAF,
	OPT_SPINES,
	OPT_PODS,
	OPT_CORES,
	OPT_UPLINKS,
	OPT_HOST_PORTS,
	OPT_FORMAT,
	OPT_HELP,
	OPT_VERSION,
};

static const struct option long_options[] = {
    {"leaves", required_argument, NULL, OPT_LEAVES},
    {"hosts-per-leaf", required_argument, NULL, OPT_HOSTS_PER_LEAF},
    {"spines", required_argument, NULL, OPT_SPINES},
    {"pods", required_argument, NULL, OPT_PODS},
    {"cores", required_argument, NULL, OPT_CORES},
    {"uplinks", required_argument, NULL, OPT_UPLINKS},
    {"host-ports", required_argument, NULL, OPT_HOST_PORTS},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: " PROG
	    " --leaves L --hosts-per-leaf H --spines S [options]\n"
	    "Write a fat-tree fabric as an ibsim net file (default) or as the\n"
	    "matching Slurm topology.conf.\n"
	    "\n"
	    "  --leaves L          leaf switches in total (1..999)\n"
	    "  --hosts-per-leaf H  hosts on each leaf (at most 9999 hosts in "
	    "all)\n"
	    "  --spines S          2-level: spine switches;\n"
	    "                      3-level: aggregation switches per pod\n"
	    "  --pods P            P >= 2 builds a 3-level tree; L must be "
	    "divisible by P\n"
	    "                      (default 1: 2-level)\n"
	    "  --cores C           3-level core switches; C must be divisible "
	    "by S\n"
	    "  --uplinks K         parallel cables between connected switches "
	    "(default 1)\n"
	    "  --host-ports N      ports per host, all cabled to its leaf "
	    "(default 1, max 8)\n"
	    "  --format F          ibsim (default) or slurm\n"
	    "  -o, --output FILE   write FILE atomically instead of standard "
	    "output\n"
	    "  --help              show this help\n"
	    "  --version           show the version\n"
	    "\n"
	    "Names: hosts n0001.. (leaf by leaf), leaves leaf001.., spines "
	    "spine001..,\n"
	    "aggregation switches agg001.., cores core001...\n"
	    "Exit status: 0 ok, 1 output not written, 2 bad usage.\n");
}

/* The option's name as the user sees it, for messages. */
static const char *option_name(int id)
{
	if (id == 'o')
		return "-o";
	for (const struct option *o = long_options; o->name != NULL; o++)
		if (o->val == id)
			return o->name;
	return "?";
}

/* Strict decimal: digits only, no sign, no spaces, fits unsigned. */
static bool parse_count(const char *text, unsigned *value)
{
	unsigned long v;
	char *end;

	if (text == NULL || text[0] < '0' || text[0] > '9')
		return false;
	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno != 0 || *end != '\0' || v > UINT_MAX)
		return false;
	*value = (unsigned)v;
	return true;
}

/*
 * Whether -o @path exists and is not a regular file (/dev/null, a FIFO, a
 * symbolic link): renaming over it would replace the device node or link
 * itself (as root, /dev/null for the whole machine), so it is written in
 * place.  (tp_file_write_in_place's rule; this program is self-contained.)
 */
static bool in_place(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* Write the fabric into the existing @path. Returns an exit code. */
static int write_in_place(const char *path, const struct tp_fattree_spec *spec,
                          enum tp_fattree_format format)
{
	char err[TP_FATTREE_ERRLEN];
	FILE *out = fopen(path, "w");
	int rc;

	if (out == NULL) {
		fprintf(stderr, PROG ": -o %s: %s\n", path, strerror(errno));
		return EXIT_IO;
	}
	rc = tp_fattree_write(spec, format, out, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, PROG ": -o %s: %s\n", path, err);
	if (fclose(out) != 0 && rc == 0) {
		fprintf(stderr, PROG ": -o %s: close: %s\n", path,
		        strerror(errno));
		rc = -EIO;
	}
	return rc == 0 ? EXIT_OK : rc == -EINVAL ? EXIT_USAGE : EXIT_IO;
}

/*
 * Write the fabric to path via a temporary file in the same directory and
 * rename(2), so readers never see a partial file. Returns an exit code.
 */
static int write_atomically(const char *path,
                            const struct tp_fattree_spec *spec,
                            enum tp_fattree_format format)
{
	char err[TP_FATTREE_ERRLEN];
	size_t len = strlen(path);
	char *tmp;
	mode_t mask;
	FILE *out;
	int fd, rc;

	tmp = malloc(len + sizeof(".XXXXXX"));
	if (tmp == NULL) {
		fprintf(stderr, PROG ": -o %s: out of memory\n", path);
		return EXIT_IO;
	}
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".XXXXXX", sizeof(".XXXXXX"));

	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr,
		        PROG ": -o %s: cannot create a temporary file: %s\n",
		        path, strerror(errno));
		free(tmp);
		return EXIT_IO;
	}
	/* mkstemp makes the file 0600; give it the usual 0666 & ~umask. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0) {
		fprintf(stderr, PROG ": -o %s: chmod %s: %s\n", path, tmp,
		        strerror(errno));
		close(fd);
		goto fail;
	}
	out = fdopen(fd, "w");
	if (out == NULL) {
		fprintf(stderr, PROG ": -o %s: %s\n", path, strerror(errno));
		close(fd);
		goto fail;
	}
	rc = tp_fattree_write(spec, format, out, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, PROG ": -o %s: %s\n", path, err);
		fclose(out);
		unlink(tmp);
		free(tmp);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_IO;
	}
	if (fsync(fileno(out)) != 0) {
		fprintf(stderr, PROG ": -o %s: fsync: %s\n", path,
		        strerror(errno));
		fclose(out);
		goto fail;
	}
	if (fclose(out) != 0) {
		fprintf(stderr, PROG ": -o %s: close: %s\n", path,
		        strerror(errno));
		goto fail;
	}
	if (rename(tmp, path) != 0) {
		fprintf(stderr, PROG ": -o %s: rename from %s: %s\n", path, tmp,
		        strerror(errno));
		goto fail;
	}
	free(tmp);
	return EXIT_OK;

fail:
	unlink(tmp);
	free(tmp);
	return EXIT_IO;
}

int main(int argc, char **argv)
{
	struct tp_fattree_spec spec;
	enum tp_fattree_format format = TP_FATTREE_FORMAT_IBSIM;
	const char *output = NULL;
	bool have_leaves = false, have_hosts = false, have_spines = false;
	char err[TP_FATTREE_ERRLEN];
	int opt, rc;

	tp_fattree_spec_init(&spec);
	opterr = 0; /* every error is reported below, on one line */
	while ((opt = getopt_long(argc, argv, ":o:", long_options, NULL)) !=
	       -1) {
		unsigned *target = NULL;

		switch (opt) {
		case OPT_LEAVES:
			target = &spec.leaves;
			have_leaves = true;
			break;
		case OPT_HOSTS_PER_LEAF:
			target = &spec.hosts_per_leaf;
			have_hosts = true;
			break;
		case OPT_SPINES:
			target = &spec.spines;
			have_spines = true;
			break;
		case OPT_PODS:
			target = &spec.pods;
			break;
		case OPT_CORES:
			target = &spec.cores;
			break;
		case OPT_UPLINKS:
			target = &spec.uplinks;
			break;
		case OPT_HOST_PORTS:
			target = &spec.host_ports;
			break;
		case OPT_FORMAT:
			if (tp_fattree_format_parse(optarg, &format) != 0) {
				fprintf(
				    stderr,
				    PROG
				    ": --format '%s': must be ibsim or slurm\n",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		case 'o':
			if (optarg[0] == '\0') {
				fprintf(
				    stderr, PROG
				    ": -o '': the output file name is empty\n");
				return EXIT_USAGE;
			}
			output = optarg;
			break;
		case OPT_HELP:
			usage(stdout);
			return fflush(stdout) == 0 ? EXIT_OK : EXIT_IO;
		case OPT_VERSION:
			printf(PROG " (topoplace) %s\n", PACKAGE_VERSION);
			return fflush(stdout) == 0 ? EXIT_OK : EXIT_IO;
		case ':':
			if (optopt == 'o')
				fprintf(stderr,
				        PROG ": -o needs a file name\n");
			else
				fprintf(stderr, PROG ": --%s needs a value\n",
				        option_name(optopt));
			return EXIT_USAGE;
		default:
			if (optopt != 0 && optopt < 256)
				fprintf(stderr,
				        PROG
				        ": unknown option '-%c' (try --help)\n",
				        optopt);
			else
				fprintf(stderr,
				        PROG
				        ": unknown option '%s' (try --help)\n",
				        argv[optind - 1]);
			return EXIT_USAGE;
		}
		if (target != NULL && !parse_count(optarg, target)) {
			fprintf(
			    stderr,
			    PROG
			    ": --%s '%s': not a non-negative decimal integer\n",
			    option_name(opt), optarg);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
		        PROG ": unexpected argument '%s' (try --help)\n",
		        argv[optind]);
		return EXIT_USAGE;
	}
	if (!have_leaves || !have_hosts || !have_spines) {
		fprintf(stderr, PROG ": missing --%s (try --help)\n",
		        !have_leaves  ? "leaves"
		        : !have_hosts ? "hosts-per-leaf"
		                      : "spines");
		return EXIT_USAGE;
	}
	/* Validate before touching any output file. */
	if (tp_fattree_layout(&spec, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return EXIT_USAGE;
	}

	if (output != NULL && strcmp(output, "-") != 0)
		return in_place(output)
		           ? write_in_place(output, &spec, format)
		           : write_atomically(output, &spec, format);

	rc = tp_fattree_write(&spec, format, stdout, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, PROG ": standard output: %s\n", err);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_IO;
	}
	return EXIT_OK;
}
