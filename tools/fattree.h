/*
 * fattree.h - fat-tree fixture generator (ibsim net files, Slurm topology.conf)
 *
 * The generator turns a shape (leaves, hosts per leaf, spines, pods, cores)
 * into the text of an ibsim net file or of the matching Slurm topology.conf.
 * Output is deterministic: the same spec always gives the same bytes.
 *
 * Naming contract (tests and other modules rely on it):
 *   hosts          n0001, n0002, ...   numbered leaf by leaf (leaf001's first)
 *   leaves         leaf001, leaf002, ...
 *   2-level spines spine001, ...
 *   3-level aggs   agg001, ...          numbered globally, pod by pod
 *   3-level cores  core001, ...
 *   host node description "n0001 HCA-1"; switch node description = its name.
 *
 * Nothing here exits, aborts or prints to stderr: errors come back as a
 * negative errno value plus a message in a caller-provided buffer.
 */
#ifndef TOPOPLACE_TOOLS_FATTREE_H
#define TOPOPLACE_TOOLS_FATTREE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Limits. Names have fixed widths (n%04u, leaf%03u, pod%02u); CA GUIDs are
 * spaced 16 apart, so a host has at most 8 ports; IB switch ports are
 * 1..254; every switch is written with at least 36 ports.
 */
#define TP_FATTREE_MAX_HOSTS        9999u
#define TP_FATTREE_MAX_LEAVES       999u
#define TP_FATTREE_MAX_SPINES       999u /* 2-level spines */
#define TP_FATTREE_MAX_AGGS         999u /* 3-level aggregation, all pods */
#define TP_FATTREE_MAX_CORES        999u
#define TP_FATTREE_MAX_PODS         99u
#define TP_FATTREE_MAX_HOST_PORTS   8u
#define TP_FATTREE_MAX_SWITCH_PORTS 254u
#define TP_FATTREE_MIN_SWITCH_PORTS 36u

/* Recommended size of the caller's error buffer. */
#define TP_FATTREE_ERRLEN 256

enum tp_fattree_format {
	TP_FATTREE_FORMAT_IBSIM = 0, /* ibsim / ibnetdiscover-style net file */
	TP_FATTREE_FORMAT_SLURM = 1, /* Slurm topology.conf, one tree */
};

/* Node kinds, as encoded in switch GUIDs (see tp_fattree_switch_guid). */
enum tp_fattree_kind {
	TP_FATTREE_KIND_LEAF = 1,
	TP_FATTREE_KIND_SPINE = 2,
	TP_FATTREE_KIND_AGG = 3,
	TP_FATTREE_KIND_CORE = 4,
};

/*
 * Shape of the fabric. Plain data; tp_fattree_spec_init() sets the defaults.
 *   pods <= 1          2-level: leaves x spines, every leaf to every spine.
 *   pods >= 2          3-level: leaves split evenly into pods; `spines` is the
 *                      number of aggregation switches PER POD; `cores` core
 *                      switches, split into `spines` equal groups.
 *   uplinks            parallel cables between every connected switch pair.
 *   host_ports         ports per host CA, all cabled to the host's leaf.
 */
struct tp_fattree_spec {
	unsigned leaves;         /* total leaf switches (required, >= 1) */
	unsigned hosts_per_leaf; /* required, >= 1 */
	unsigned spines;         /* spines / aggs per pod (required, >= 1) */
	unsigned pods;           /* default 1 (2-level) */
	unsigned cores;          /* 3-level only; 0 in 2-level */
	unsigned uplinks;        /* default 1 */
	unsigned host_ports;     /* default 1 */
};

/* Derived counts and port numbers of a valid spec (filled by _layout). */
struct tp_fattree_layout {
	unsigned levels;           /* 2 or 3 */
	unsigned hosts;            /* total hosts */
	unsigned leaves_per_pod;   /* == leaves in 2-level */
	unsigned aggs;             /* total aggregation switches (3-level) */
	unsigned cores_per_group;  /* cores per agg index (3-level) */
	unsigned switches;         /* all switches */
	unsigned leaf_ports;       /* ports used on each leaf */
	unsigned spine_ports;      /* ports used on each spine (2-level) */
	unsigned agg_ports;        /* ports used on each agg (3-level) */
	unsigned core_ports;       /* ports used on each core (3-level) */
	unsigned long total_ports; /* ibsim port records incl. switch port 0 */
};

/* Fill *spec with defaults: pods 1, uplinks 1, host_ports 1, rest 0. */
void tp_fattree_spec_init(struct tp_fattree_spec *spec);

/*
 * Check a spec and compute its layout. Returns 0, or -EINVAL with a message
 * naming the offending option and value in err (errlen bytes, may be 0).
 * layout may be NULL when only validation is wanted.
 */
int tp_fattree_layout(const struct tp_fattree_spec *spec,
                      struct tp_fattree_layout *layout, char *err,
                      size_t errlen);

/*
 * Write the fabric in the given format to out (not closed; the caller owns
 * it). Returns 0, -EINVAL for a bad spec or format, -EIO if writing failed;
 * err gets a message. Partial output may have been written on -EIO.
 */
int tp_fattree_write(const struct tp_fattree_spec *spec,
                     enum tp_fattree_format format, FILE *out, char *err,
                     size_t errlen);

/*
 * Same, into a newly allocated NUL-terminated buffer: *text is set to it on
 * success (caller frees), left NULL on error. *len (if not NULL) gets strlen.
 * Also returns -ENOMEM when the buffer cannot be allocated.
 */
int tp_fattree_write_buffer(const struct tp_fattree_spec *spec,
                            enum tp_fattree_format format, char **text,
                            size_t *len, char *err, size_t errlen);

/* GUIDs used in the net file, exposed for tests and callers that match them.
 * Switch: 0x0002c90301KKIIII (KK = kind, IIII = 1-based index);
 * CA node: 0x0002c90400000000 | host << 4, port p: node GUID + p. */
uint64_t tp_fattree_switch_guid(enum tp_fattree_kind kind, unsigned index);
uint64_t tp_fattree_ca_guid(unsigned host);

/* Parse a format name ("ibsim", "slurm"); returns 0 or -EINVAL. */
int tp_fattree_format_parse(const char *name, enum tp_fattree_format *format);

#endif /* TOPOPLACE_TOOLS_FATTREE_H */
