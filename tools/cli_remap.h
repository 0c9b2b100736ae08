/*
 * cli_remap.h: option parsing shared by `topoplace remap` and
 * `topoplace cost` (tools/cli_remap.c).
 */
#ifndef TP_CLI_REMAP_H
#define TP_CLI_REMAP_H

#include <stdint.h>

/*
 * "2x4x4" -> pods, leaves per pod, hosts per leaf (each 1..9999).  On a
 * bad value prints one usage line for subcommand @what and returns -1.
 */
int tp_cli_remap_parse_fabric(const char *what, const char *s,
                              uint32_t dims[3]);

/* A decimal 0..@max for option @opt; -1 after printing a usage line. */
int tp_cli_remap_parse_u64(const char *what, const char *opt, const char *s,
                           uint64_t max, uint64_t *value);

#endif /* TP_CLI_REMAP_H */
