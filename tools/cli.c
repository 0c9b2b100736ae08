/*
 * cli.c: logging and error printing shared by the topoplace subcommands.
 */
#include "tp_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "discover.h"
#include "fabric.h"
#include "topo.h"

static void stderr_sink(void *sink_data, tp_log_level level,
			const char *message)
{
	(void)sink_data;
	fprintf(stderr, "topoplace: %s: %s\n", tp_log_level_name(level),
		message);
}

tp_logger tp_cli_logger(tp_log_level max_level)
{
	tp_logger logger = { stderr_sink, NULL, max_level };

	return logger;
}

int tp_cli_fail(const char *what, const tp_error *err)
{
	fprintf(stderr, "topoplace %s: %s\n", what,
		err && err->message[0] ? err->message : "failed");
	return TP_EXIT_FAILURE;
}

int tp_cli_usage_error(const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "topoplace %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return TP_EXIT_USAGE;
}

int tp_cli_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("topoplace %s\n", PACKAGE_VERSION);
	return TP_EXIT_OK;
}

int tp_cli_parse_u64(const char *what, const char *opt, const char *text,
		     uint64_t min, uint64_t max, uint64_t *value)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)text[0]))
		goto bad;
	v = strtoull(text, &end, 10);
	if (errno || *end || v < min || v > max)
		goto bad;
	*value = v;
	return TP_EXIT_OK;
bad:
	return tp_cli_usage_error(what,
				  "%s '%s': expected a whole number from "
				  "%llu to %llu",
				  opt, text, (unsigned long long)min,
				  (unsigned long long)max);
}

/* "PxLxH" with three numbers 1..9999, nothing else. */
static int parse_fattree_spec(const char *spec, uint32_t dims[3])
{
	const char *p = spec;

	for (int i = 0; i < 3; i++) {
		unsigned long v;
		char *end;

		if (!isdigit((unsigned char)*p))
			return -1;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || v == 0 || v > 9999)
			return -1;
		dims[i] = (uint32_t)v;
		if (*end != (i < 2 ? 'x' : '\0'))
			return -1;
		p = end + 1;
	}
	return 0;
}

int tp_cli_load_topo(const char *what, const char *spec,
		     struct tp_topo **topo)
{
	tp_fabric *fabric = NULL;
	tp_error err, conf_err;
	uint32_t dims[3];

	*topo = NULL;
	if (parse_fattree_spec(spec, dims) == 0) {
		if (tp_topo_new_fattree(topo, dims[0], dims[1], dims[2],
					&err) != TP_OK)
			return tp_cli_usage_error(what, "--fabric %s: %s", spec,
						  err.message);
		return TP_EXIT_OK;
	}
	if (!strchr(spec, '/') && !strchr(spec, '.') &&
	    spec[strspn(spec, "0123456789x")] == '\0')
		return tp_cli_usage_error(what,
					  "--fabric '%s': expected PODSxLEAVESx"
					  "HOSTS (e.g. 2x18x18) or a file",
					  spec);
	/* A file: an ibnetdiscover cache, else a topology.conf. */
	if (tp_discover_load_cache(spec, NULL, &fabric, &err) != TP_OK) {
		if (err.code == TP_ERR_IO)
			return tp_cli_fail(what, &err);
		if (tp_discover_load_topology_conf(spec, &fabric, &conf_err) !=
		    TP_OK) {
			fprintf(stderr,
				"topoplace %s: --fabric %s: neither an ibnetdiscover "
				"cache (%s) nor a topology.conf (%s)\n",
				what, spec, err.message, conf_err.message);
			return TP_EXIT_FAILURE;
		}
	}
	if (tp_fabric_to_topo(fabric, topo, &err) != TP_OK) {
		tp_fabric_free(fabric);
		return tp_cli_fail(what, &err);
	}
	tp_fabric_free(fabric);
	return TP_EXIT_OK;
}
