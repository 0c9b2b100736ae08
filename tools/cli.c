/*
 * cli.c: logging and error printing shared by the topoplace subcommands.
 */
#include "tp_config.h"

#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

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
