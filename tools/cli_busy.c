/*
 * cli_busy.c: the occupancy file of `topoplace place --busy` and
 * `topoplace report explain --busy` (one reader, one format; see
 * topoplace-place(1)).
 */
#include "tp_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cli.h"
#include "jobclass.h"
#include "topo.h"

static tp_status parse_job_id(const char *path, unsigned lineno,
                              const char *text, uint32_t *job, tp_error *err)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end || text[0] == '-' || v > UINT32_MAX)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s:%u: job id '%s' is not a number", path,
		                    lineno, text);
	if (v == TP_ALLOC_SITE_JOB)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s:%u: job id 0 is not a job (a site-wide "
		                    "I/O server is 'host ioserver')",
		                    path, lineno);
	*job = (uint32_t)v;
	return TP_OK;
}

/* One line's state after the host (@tok[0]) into @u: "jobid class" |
 * "down" | "notready" | "reserved jobid class" | "ioserver [jobid]". */
static tp_status parse_use(const char *path, unsigned lineno, char **tok,
                           int n, tp_host_use *u, tp_error *err)
{
	int at;

	if (n == 2 && !strcmp(tok[1], "down")) {
		u->state = TP_HOST_DOWN;
		return TP_OK;
	}
	if (n == 2 && !strcmp(tok[1], "notready")) {
		u->state = TP_HOST_NOT_READY;
		return TP_OK;
	}
	if (n >= 2 && !strcmp(tok[1], "ioserver")) {
		if (n > 3)
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s:%u: expected 'host ioserver' "
			                    "(site-wide) or 'host ioserver "
			                    "jobid'",
			                    path, lineno);
		u->state = TP_HOST_IOSERVER;
		u->job_id = TP_ALLOC_SITE_JOB;
		return n == 3 ? parse_job_id(path, lineno, tok[2], &u->job_id,
		                             err)
		              : TP_OK;
	}
	at = n >= 2 && !strcmp(tok[1], "reserved") ? 2 : 1;
	if (n != at + 2)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s:%u: expected 'host jobid class', 'host "
		                    "down', 'host notready', 'host reserved "
		                    "jobid class' or 'host ioserver [jobid]'",
		                    path, lineno);
	if (parse_job_id(path, lineno, tok[at], &u->job_id, err) != TP_OK)
		return err->code;
	if (tp_jobclass_parse(tok[at + 1], &u->job_class, err) != TP_OK)
		return tp_error_prefix(err, "%s:%u", path, lineno);
	u->state = at == 2 ? TP_HOST_RESERVED : TP_HOST_BUSY;
	return TP_OK;
}

tp_status tp_cli_read_busy(const char *path, const tp_topo *topo,
                           tp_host_use *use, tp_error *err)
{
	FILE *f = fopen(path, "r");
	char line[512];
	unsigned lineno = 0, *seen_on;
	tp_status rc = TP_OK;

	if (!f)
		return tp_error_set(err, TP_ERR_IO, "--busy %s: %s", path,
		                    strerror(errno));
	seen_on = calloc(tp_topo_host_count(topo) + 1, sizeof(*seen_on));
	if (!seen_on) {
		fclose(f);
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "--busy %s: no memory for %u hosts", path,
		                    tp_topo_host_count(topo));
	}
	while (rc == TP_OK && fgets(line, sizeof(line), f)) {
		char *tok[5], *save = NULL, *s = line, *hash;
		int n = 0;
		uint32_t host;
		tp_host_use u = {0};

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s:%u: longer than %zu bytes", path,
			                  lineno, sizeof(line) - 2);
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		while (n < 5 && (tok[n] = strtok_r(s, " \t\r\n", &save))) {
			s = NULL;
			n++;
		}
		if (n == 0)
			continue;
		host = tp_topo_find_host(topo, tok[0]);
		if (host == TP_TOPO_NONE) {
			rc = tp_error_set(err, TP_ERR_NOTFOUND,
			                  "%s:%u: unknown host '%s' (not in the "
			                  "fabric)",
			                  path, lineno, tok[0]);
			break;
		}
		/* Two states for one host: which was meant cannot be
		 * guessed. */
		if (seen_on[host]) {
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s:%u: host '%s' is already listed on "
			                  "line %u",
			                  path, lineno, tok[0], seen_on[host]);
			break;
		}
		seen_on[host] = lineno;
		rc = parse_use(path, lineno, tok, n, &u, err);
		if (rc == TP_OK)
			use[host] = u;
	}
	if (rc == TP_OK && ferror(f))
		rc = tp_error_set(err, TP_ERR_IO, "--busy %s: read error", path);
	free(seen_on);
	fclose(f);
	return rc;
}
