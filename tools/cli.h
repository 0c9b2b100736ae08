/*
 * cli.h: shared pieces of the `topoplace` command-line tool.
 *
 * Each subcommand lives in its own tools/cli_<name>.c and is listed in the
 * table in tools/topoplace.c.  A subcommand gets argv with argv[0] set to
 * "topoplace <name>" and returns the process exit status:
 *   0  success
 *   1  the work failed (one clear line on stderr says why)
 *   2  bad usage (unknown option, bad value: one line naming it)
 */
#ifndef TP_CLI_H
#define TP_CLI_H

#include "tp_error.h"
#include "tp_log.h"

enum { TP_EXIT_OK = 0, TP_EXIT_FAILURE = 1, TP_EXIT_USAGE = 2 };

/* A logger that writes "topoplace: <level>: <message>" lines to stderr. */
tp_logger tp_cli_logger(tp_log_level max_level);

/* Print "topoplace <what>: <err->message>" on stderr; return TP_EXIT_FAILURE. */
int tp_cli_fail(const char *what, const tp_error *err);

/* Print "topoplace <what>: <message>" on stderr; return TP_EXIT_USAGE. */
int tp_cli_usage_error(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Subcommands (one per tools/cli_<name>.c). */
int tp_cli_version(int argc, char **argv);
int tp_cli_throttle(int argc, char **argv);
int tp_cli_fabric(int argc, char **argv);
int tp_cli_profile(int argc, char **argv);

#endif /* TP_CLI_H */
