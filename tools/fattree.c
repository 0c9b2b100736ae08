/*
 * fattree.c - fat-tree fixture generator (ibsim net files, Slurm topology.conf)
 *
 * Cabling (port numbers are 1-based; every index below is 0-based):
 *
 *   hosts   host h of a leaf has ports 1..N (N = host_ports), all cabled to
 *           its leaf: host port p <-> leaf port h*N + p.
 *   2-level leaf l, link k (0..K-1, K = uplinks) to spine s:
 *             leaf port  H*N + s*K + k + 1  <->  spine port  l*K + k + 1
 *           so each leaf reaches every spine, hosts first then uplinks.
 *   3-level the usual k-ary layout: leaves are split into pods of Lp leaves;
 *           each pod has S aggregation switches (agg j of pod q is
 *           agg number q*S + j + 1) and every leaf of the pod is cabled to
 *           every agg of the pod, exactly like a 2-level tree:
 *             leaf port  H*N + j*K + k + 1   <->  agg port  li*K + k + 1
 *           (li = leaf index inside its pod). The C cores are split into S
 *           groups of Cg = C/S; agg j of EVERY pod connects to each core of
 *           group j (cores j*Cg .. j*Cg+Cg-1), K cables each:
 *             agg port  Lp*K + c*K + k + 1   <->  core port  q*K + k + 1
 *           (c = core index inside the group, q = pod).
 *
 * Every switch is written with max(36, ports used) ports; unused ports are
 * left down. Blocks are written hosts first, then leaves, spines/aggs and
 * cores: ibsim attaches a client that does not set SIM_HOST to the first port
 * of the file, so diagnostics and OpenSM run from n0001 port 1, like on a
 * real cluster.
 */
#include "tp_config.h"

#include "fattree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ibsim's built-in limits (ibsim -N -S -P -L raise them). */
#define IBSIM_DEFAULT_NODES     2048ul
#define IBSIM_DEFAULT_SWITCHES  256ul
#define IBSIM_DEFAULT_PORTS     13312ul
#define IBSIM_DEFAULT_LINEARCAP 30720ul
/* Highest unicast LID is 0xbfff. */
#define IB_MAX_UNICAST_LIDS 49151ul

#define SWITCH_GUID_BASE UINT64_C(0x0002c90301000000)
#define CA_GUID_BASE     UINT64_C(0x0002c90400000000)

/* Text after each link so ibsim parses a remote LID and link type. */
#define LINK_TAIL "lid 0 4xQDR"

static void set_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void tp_fattree_spec_init(struct tp_fattree_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->pods = 1;
	spec->uplinks = 1;
	spec->host_ports = 1;
}

uint64_t tp_fattree_switch_guid(enum tp_fattree_kind kind, unsigned index)
{
	return SWITCH_GUID_BASE | ((uint64_t)(kind & 0xffu) << 16) |
	       (uint64_t)(index & 0xffffu);
}

uint64_t tp_fattree_ca_guid(unsigned host)
{
	return CA_GUID_BASE | ((uint64_t)(host & 0xfffffu) << 4);
}

int tp_fattree_format_parse(const char *name, enum tp_fattree_format *format)
{
	if (name != NULL && strcmp(name, "ibsim") == 0) {
		*format = TP_FATTREE_FORMAT_IBSIM;
		return 0;
	}
	if (name != NULL && strcmp(name, "slurm") == 0) {
		*format = TP_FATTREE_FORMAT_SLURM;
		return 0;
	}
	return -EINVAL;
}

/* Range check of one option; returns false with a message naming it. */
static bool in_range(const char *option, unsigned value, unsigned min,
                     unsigned max, char *err, size_t errlen)
{
	if (value >= min && value <= max)
		return true;
	set_error(err, errlen, "%s %u: must be between %u and %u", option,
	          value, min, max);
	return false;
}

static unsigned max_unsigned(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

/* Every option within its own limits, so the products below cannot wrap. */
static bool options_in_range(const struct tp_fattree_spec *spec, char *err,
                             size_t errlen)
{
	return in_range("--leaves", spec->leaves, 1, TP_FATTREE_MAX_LEAVES, err,
	                errlen) &&
	       in_range("--hosts-per-leaf", spec->hosts_per_leaf, 1,
	                TP_FATTREE_MAX_HOSTS, err, errlen) &&
	       in_range("--spines", spec->spines, 1, TP_FATTREE_MAX_SPINES, err,
	                errlen) &&
	       in_range("--pods", spec->pods, 0, TP_FATTREE_MAX_PODS, err,
	                errlen) &&
	       in_range("--cores", spec->cores, 0, TP_FATTREE_MAX_CORES, err,
	                errlen) &&
	       in_range("--uplinks", spec->uplinks, 1,
	                TP_FATTREE_MAX_SWITCH_PORTS, err, errlen) &&
	       in_range("--host-ports", spec->host_ports, 1,
	                TP_FATTREE_MAX_HOST_PORTS, err, errlen);
}

/* Hosts in all and ports per leaf (hosts, then one cable set per spine). */
static int layout_leaves(const struct tp_fattree_spec *spec,
                         struct tp_fattree_layout *lay, char *err,
                         size_t errlen)
{
	const unsigned long hosts =
	    (unsigned long)spec->leaves * spec->hosts_per_leaf;
	const unsigned long host_ports =
	    (unsigned long)spec->hosts_per_leaf * spec->host_ports;
	const unsigned long up_ports =
	    (unsigned long)spec->spines * spec->uplinks;

	if (hosts > TP_FATTREE_MAX_HOSTS) {
		set_error(err, errlen,
		          "--leaves %u x --hosts-per-leaf %u = %lu hosts: at "
		          "most %u (names are n0001..n9999)",
		          spec->leaves, spec->hosts_per_leaf, hosts,
		          TP_FATTREE_MAX_HOSTS);
		return -EINVAL;
	}
	if (host_ports + up_ports > TP_FATTREE_MAX_SWITCH_PORTS) {
		set_error(err, errlen,
		          "a leaf needs %lu ports (--hosts-per-leaf %u x "
		          "--host-ports %u + --spines %u x --uplinks %u): a "
		          "switch has at most %u",
		          host_ports + up_ports, spec->hosts_per_leaf,
		          spec->host_ports, spec->spines, spec->uplinks,
		          TP_FATTREE_MAX_SWITCH_PORTS);
		return -EINVAL;
	}
	lay->hosts = (unsigned)hosts;
	lay->leaf_ports = (unsigned)(host_ports + up_ports);
	return 0;
}

/* 2-level: every leaf cabled to every spine. */
static int layout_two_level(const struct tp_fattree_spec *spec,
                            struct tp_fattree_layout *lay, char *err,
                            size_t errlen)
{
	const unsigned long spine_ports =
	    (unsigned long)spec->leaves * spec->uplinks;

	if (spec->cores != 0) {
		set_error(err, errlen,
		          "--cores %u: core switches need a 3-level tree "
		          "(--pods >= 2)",
		          spec->cores);
		return -EINVAL;
	}
	if (spine_ports > TP_FATTREE_MAX_SWITCH_PORTS) {
		set_error(err, errlen,
		          "a spine needs %lu ports (--leaves %u x --uplinks "
		          "%u): a switch has at most %u",
		          spine_ports, spec->leaves, spec->uplinks,
		          TP_FATTREE_MAX_SWITCH_PORTS);
		return -EINVAL;
	}
	lay->levels = 2;
	lay->leaves_per_pod = spec->leaves;
	lay->spine_ports = (unsigned)spine_ports;
	lay->switches = spec->leaves + spec->spines;
	return 0;
}

/* 3-level: pods of leaves and aggs, agg j of every pod to core group j. */
static int layout_three_level(const struct tp_fattree_spec *spec,
                              struct tp_fattree_layout *lay, char *err,
                              size_t errlen)
{
	const unsigned long aggs = (unsigned long)spec->spines * spec->pods;
	const unsigned long core_ports =
	    (unsigned long)spec->pods * spec->uplinks;
	unsigned long agg_ports;

	if (spec->leaves % spec->pods != 0) {
		set_error(err, errlen,
		          "--leaves %u is not divisible by --pods %u: every "
		          "pod needs the same number of leaves",
		          spec->leaves, spec->pods);
		return -EINVAL;
	}
	if (spec->cores == 0) {
		set_error(err, errlen,
		          "--cores is required (>= 1) for a 3-level tree "
		          "(--pods %u)",
		          spec->pods);
		return -EINVAL;
	}
	if (aggs > TP_FATTREE_MAX_AGGS) {
		set_error(err, errlen,
		          "--spines %u x --pods %u = %lu aggregation switches: "
		          "at most %u",
		          spec->spines, spec->pods, aggs, TP_FATTREE_MAX_AGGS);
		return -EINVAL;
	}
	if (spec->cores % spec->spines != 0) {
		set_error(
		    err, errlen,
		    "--cores %u is not divisible by --spines %u: agg j of "
		    "every pod connects to core group j, so each agg "
		    "needs the same number of cores",
		    spec->cores, spec->spines);
		return -EINVAL;
	}
	lay->leaves_per_pod = spec->leaves / spec->pods;
	lay->cores_per_group = spec->cores / spec->spines;
	agg_ports =
	    (unsigned long)(lay->leaves_per_pod + lay->cores_per_group) *
	    spec->uplinks;
	if (agg_ports > TP_FATTREE_MAX_SWITCH_PORTS) {
		set_error(err, errlen,
		          "an aggregation switch needs %lu ports ((%u leaves "
		          "per pod + %u cores per group) x --uplinks %u): a "
		          "switch has at most %u",
		          agg_ports, lay->leaves_per_pod, lay->cores_per_group,
		          spec->uplinks, TP_FATTREE_MAX_SWITCH_PORTS);
		return -EINVAL;
	}
	if (core_ports > TP_FATTREE_MAX_SWITCH_PORTS) {
		set_error(
		    err, errlen,
		    "a core switch needs %lu ports (--pods %u x --uplinks "
		    "%u): a switch has at most %u",
		    core_ports, spec->pods, spec->uplinks,
		    TP_FATTREE_MAX_SWITCH_PORTS);
		return -EINVAL;
	}
	lay->levels = 3;
	lay->aggs = (unsigned)aggs;
	lay->agg_ports = (unsigned)agg_ports;
	lay->core_ports = (unsigned)core_ports;
	lay->switches = spec->leaves + lay->aggs + spec->cores;
	return 0;
}

/* ibsim port records of `count` switches using `used` ports (+ port 0). */
static unsigned long switch_port_records(unsigned long count, unsigned used)
{
	return count * (max_unsigned(used, TP_FATTREE_MIN_SWITCH_PORTS) + 1ul);
}

int tp_fattree_layout(const struct tp_fattree_spec *spec,
                      struct tp_fattree_layout *layout, char *err,
                      size_t errlen)
{
	struct tp_fattree_layout lay;
	unsigned long lids;
	int rc;

	memset(&lay, 0, sizeof(lay));
	if (spec == NULL) {
		set_error(err, errlen, "no fat-tree spec given");
		return -EINVAL;
	}
	if (!options_in_range(spec, err, errlen))
		return -EINVAL;
	rc = layout_leaves(spec, &lay, err, errlen);
	if (rc == 0)
		rc = spec->pods <= 1
		         ? layout_two_level(spec, &lay, err, errlen)
		         : layout_three_level(spec, &lay, err, errlen);
	if (rc != 0)
		return rc;

	/* One LID per switch (port 0) and per CA port. */
	lids = (unsigned long)lay.hosts * spec->host_ports + lay.switches;
	if (lids > IB_MAX_UNICAST_LIDS) {
		set_error(err, errlen,
		          "the fabric needs %lu LIDs (%u hosts x --host-ports "
		          "%u + %u switches): InfiniBand has %lu unicast LIDs",
		          lids, lay.hosts, spec->host_ports, lay.switches,
		          IB_MAX_UNICAST_LIDS);
		return -EINVAL;
	}

	lay.total_ports = (unsigned long)lay.hosts * spec->host_ports +
	                  switch_port_records(spec->leaves, lay.leaf_ports);
	if (lay.levels == 2)
		lay.total_ports +=
		    switch_port_records(spec->spines, lay.spine_ports);
	else
		lay.total_ports +=
		    switch_port_records(lay.aggs, lay.agg_ports) +
		    switch_port_records(spec->cores, lay.core_ports);

	if (layout != NULL)
		*layout = lay;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Output helpers: remember the first write failure instead of checking     */
/* every call site.                                                          */

struct emitter {
	FILE *out;
	bool failed;
};

static void emit(struct emitter *em, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void emit(struct emitter *em, const char *fmt, ...)
{
	va_list ap;

	if (em->failed)
		return;
	va_start(ap, fmt);
	if (vfprintf(em->out, fmt, ap) < 0)
		em->failed = true;
	va_end(ap);
}

/* Which switch a name refers to; kind + 0-based index. */
struct sw_ref {
	enum tp_fattree_kind kind;
	unsigned index;
};

static const char *kind_prefix(enum tp_fattree_kind kind)
{
	switch (kind) {
	case TP_FATTREE_KIND_LEAF:
		return "leaf";
	case TP_FATTREE_KIND_SPINE:
		return "spine";
	case TP_FATTREE_KIND_AGG:
		return "agg";
	case TP_FATTREE_KIND_CORE:
		return "core";
	}
	return "switch";
}

/* "leaf001" etc.; buf must hold at least 16 bytes. */
static const char *sw_name(struct sw_ref sw, char *buf, size_t len)
{
	snprintf(buf, len, "%s%03u", kind_prefix(sw.kind), sw.index + 1);
	return buf;
}

/* One switch-to-switch port line: local port, remote switch and port. */
static void emit_sw_link(struct emitter *em, unsigned local_port,
                         struct sw_ref remote, unsigned remote_port)
{
	char name[16];

	sw_name(remote, name, sizeof(name));
	emit(em, "[%u]\t\"%s\"[%u]\t\t# \"%s\" " LINK_TAIL "\n", local_port,
	     name, remote_port, name);
}

static void emit_switch_header(struct emitter *em, struct sw_ref sw,
                               unsigned ports_used)
{
	char name[16];

	sw_name(sw, name, sizeof(name));
	emit(em, "switchguid=0x%016" PRIx64 "\n",
	     tp_fattree_switch_guid(sw.kind, sw.index + 1));
	emit(em, "Switch\t%u \"%s\"\t\t# \"%s\" base port 0 lid 0 lmc 0\n",
	     max_unsigned(ports_used, TP_FATTREE_MIN_SWITCH_PORTS), name, name);
}

static void emit_hosts(struct emitter *em, const struct tp_fattree_spec *spec)
{
	const unsigned n = spec->host_ports;

	for (unsigned leaf = 0; leaf < spec->leaves; leaf++) {
		for (unsigned h = 0; h < spec->hosts_per_leaf; h++) {
			unsigned host = leaf * spec->hosts_per_leaf + h + 1;

			emit(em, "caguid=0x%016" PRIx64 "\n",
			     tp_fattree_ca_guid(host));
			emit(em, "Ca\t%u \"n%04u\"\t\t# \"n%04u HCA-1\"\n", n,
			     host, host);
			for (unsigned p = 1; p <= n; p++)
				emit(em,
				     "[%u]\t\"leaf%03u\"[%u]\t\t# "
				     "\"leaf%03u\" " LINK_TAIL "\n",
				     p, leaf + 1, h * n + p, leaf + 1);
			emit(em, "\n");
		}
	}
}

static void emit_leaves(struct emitter *em, const struct tp_fattree_spec *spec,
                        const struct tp_fattree_layout *lay)
{
	const unsigned n = spec->host_ports, k_max = spec->uplinks;
	const unsigned host_ports = spec->hosts_per_leaf * n;

	for (unsigned leaf = 0; leaf < spec->leaves; leaf++) {
		struct sw_ref self = {TP_FATTREE_KIND_LEAF, leaf};
		unsigned pod = leaf / lay->leaves_per_pod;
		unsigned li = leaf % lay->leaves_per_pod;

		emit_switch_header(em, self, lay->leaf_ports);
		for (unsigned h = 0; h < spec->hosts_per_leaf; h++) {
			unsigned host = leaf * spec->hosts_per_leaf + h + 1;

			for (unsigned p = 1; p <= n; p++)
				emit(em,
				     "[%u]\t\"n%04u\"[%u]\t\t# \"n%04u "
				     "HCA-1\" " LINK_TAIL "\n",
				     h * n + p, host, p, host);
		}
		for (unsigned s = 0; s < spec->spines; s++) {
			struct sw_ref up;

			if (lay->levels == 2)
				up = (struct sw_ref){TP_FATTREE_KIND_SPINE, s};
			else
				up = (struct sw_ref){TP_FATTREE_KIND_AGG,
				                     pod * spec->spines + s};
			for (unsigned k = 0; k < k_max; k++)
				emit_sw_link(em, host_ports + s * k_max + k + 1,
				             up, li * k_max + k + 1);
		}
		emit(em, "\n");
	}
}

static void emit_spines(struct emitter *em, const struct tp_fattree_spec *spec,
                        const struct tp_fattree_layout *lay)
{
	const unsigned k_max = spec->uplinks;
	const unsigned leaf_host_ports =
	    spec->hosts_per_leaf * spec->host_ports;

	for (unsigned s = 0; s < spec->spines; s++) {
		struct sw_ref self = {TP_FATTREE_KIND_SPINE, s};

		emit_switch_header(em, self, lay->spine_ports);
		for (unsigned leaf = 0; leaf < spec->leaves; leaf++) {
			struct sw_ref down = {TP_FATTREE_KIND_LEAF, leaf};

			for (unsigned k = 0; k < k_max; k++)
				emit_sw_link(em, leaf * k_max + k + 1, down,
				             leaf_host_ports + s * k_max + k +
				                 1);
		}
		emit(em, "\n");
	}
}

static void emit_aggs(struct emitter *em, const struct tp_fattree_spec *spec,
                      const struct tp_fattree_layout *lay)
{
	const unsigned k_max = spec->uplinks, lp = lay->leaves_per_pod;
	const unsigned cg = lay->cores_per_group;
	const unsigned leaf_host_ports =
	    spec->hosts_per_leaf * spec->host_ports;

	for (unsigned pod = 0; pod < spec->pods; pod++) {
		for (unsigned j = 0; j < spec->spines; j++) {
			struct sw_ref self = {TP_FATTREE_KIND_AGG,
			                      pod * spec->spines + j};

			emit_switch_header(em, self, lay->agg_ports);
			for (unsigned li = 0; li < lp; li++) {
				struct sw_ref down = {TP_FATTREE_KIND_LEAF,
				                      pod * lp + li};

				for (unsigned k = 0; k < k_max; k++)
					emit_sw_link(em, li * k_max + k + 1,
					             down,
					             leaf_host_ports +
					                 j * k_max + k + 1);
			}
			for (unsigned c = 0; c < cg; c++) {
				struct sw_ref up = {TP_FATTREE_KIND_CORE,
				                    j * cg + c};

				for (unsigned k = 0; k < k_max; k++)
					emit_sw_link(
					    em, lp * k_max + c * k_max + k + 1,
					    up, pod * k_max + k + 1);
			}
			emit(em, "\n");
		}
	}
}

static void emit_cores(struct emitter *em, const struct tp_fattree_spec *spec,
                       const struct tp_fattree_layout *lay)
{
	const unsigned k_max = spec->uplinks, lp = lay->leaves_per_pod;
	const unsigned cg = lay->cores_per_group;

	for (unsigned g = 0; g < spec->cores; g++) {
		struct sw_ref self = {TP_FATTREE_KIND_CORE, g};
		unsigned j = g / cg, c = g % cg;

		emit_switch_header(em, self, lay->core_ports);
		for (unsigned pod = 0; pod < spec->pods; pod++) {
			struct sw_ref down = {TP_FATTREE_KIND_AGG,
			                      pod * spec->spines + j};

			for (unsigned k = 0; k < k_max; k++)
				emit_sw_link(em, pod * k_max + k + 1, down,
				             lp * k_max + c * k_max + k + 1);
		}
		emit(em, "\n");
	}
}

static void emit_shape_comment(struct emitter *em,
                               const struct tp_fattree_spec *spec,
                               const struct tp_fattree_layout *lay)
{
	if (lay->levels == 2)
		emit(
		    em,
		    "# shape: 2-level fat tree, %u leaves x %u hosts (%u "
		    "port%s each), %u spines, %u cable%s per leaf-spine pair\n",
		    spec->leaves, spec->hosts_per_leaf, spec->host_ports,
		    spec->host_ports == 1 ? "" : "s", spec->spines,
		    spec->uplinks, spec->uplinks == 1 ? "" : "s");
	else
		emit(em,
		     "# shape: 3-level fat tree, %u pods x %u leaves x %u "
		     "hosts (%u port%s each), %u aggregation switches per pod, "
		     "%u cores, %u cable%s per switch pair\n",
		     spec->pods, lay->leaves_per_pod, spec->hosts_per_leaf,
		     spec->host_ports, spec->host_ports == 1 ? "" : "s",
		     spec->spines, spec->cores, spec->uplinks,
		     spec->uplinks == 1 ? "" : "s");
}

static unsigned long max_ulong(unsigned long a, unsigned long b)
{
	return a > b ? a : b;
}

static void write_ibsim(struct emitter *em, const struct tp_fattree_spec *spec,
                        const struct tp_fattree_layout *lay)
{
	unsigned long nodes = (unsigned long)lay->hosts + lay->switches;
	unsigned long lids =
	    (unsigned long)lay->hosts * spec->host_ports + lay->switches;

	emit(em, "# ibsim net file generated by topoplace-fattree\n");
	emit_shape_comment(em, spec, lay);
	emit(em,
	     "# %u hosts, %u switches; names: hosts n0001.., leaves "
	     "leaf001..%s\n",
	     lay->hosts, lay->switches,
	     lay->levels == 2
	         ? ", spines spine001.."
	         : ", aggregation agg001.. (pod by pod), cores core001..");
	/* Read by tests/lib/fabric.sh: ibsim needs these when above defaults.
	 */
	emit(em, "# ibsim-limits: -N %lu -S %lu -P %lu -L %lu\n",
	     max_ulong(nodes, IBSIM_DEFAULT_NODES),
	     max_ulong(lay->switches, IBSIM_DEFAULT_SWITCHES),
	     max_ulong(lay->total_ports, IBSIM_DEFAULT_PORTS),
	     max_ulong(lids + 1, IBSIM_DEFAULT_LINEARCAP));
	emit(em, "\n");

	emit_hosts(em, spec);
	emit_leaves(em, spec, lay);
	if (lay->levels == 2) {
		emit_spines(em, spec, lay);
	} else {
		emit_aggs(em, spec, lay);
		emit_cores(em, spec, lay);
	}
}

/* Slurm hostlist for prefix + [first..last] at a fixed width (1-based). */
static void emit_range(struct emitter *em, const char *prefix, int width,
                       unsigned first, unsigned last)
{
	if (first == last)
		emit(em, "%s%0*u", prefix, width, first);
	else
		emit(em, "%s[%0*u-%0*u]", prefix, width, first, width, last);
}

static void write_slurm(struct emitter *em, const struct tp_fattree_spec *spec,
                        const struct tp_fattree_layout *lay)
{
	emit(em, "# topology.conf generated by topoplace-fattree\n");
	emit_shape_comment(em, spec, lay);
	if (lay->levels == 2)
		emit(
		    em,
		    "# Slurm's topology/tree needs ONE tree: the %u spine "
		    "switches are collapsed into the single switch \"root\".\n",
		    spec->spines);
	else
		emit(
		    em,
		    "# Slurm's topology/tree needs ONE tree: each pod's %u "
		    "aggregation switches are collapsed into switch \"podNN\", "
		    "the %u cores into the single switch \"root\".\n",
		    spec->spines, spec->cores);

	for (unsigned leaf = 0; leaf < spec->leaves; leaf++) {
		unsigned first = leaf * spec->hosts_per_leaf + 1;

		emit(em, "SwitchName=leaf%03u Nodes=", leaf + 1);
		emit_range(em, "n", 4, first, first + spec->hosts_per_leaf - 1);
		emit(em, "\n");
	}
	if (lay->levels == 2) {
		emit(em, "SwitchName=root Switches=");
		emit_range(em, "leaf", 3, 1, spec->leaves);
		emit(em, "\n");
		return;
	}
	for (unsigned pod = 0; pod < spec->pods; pod++) {
		unsigned first = pod * lay->leaves_per_pod + 1;

		emit(em, "SwitchName=pod%02u Switches=", pod + 1);
		emit_range(em, "leaf", 3, first,
		           first + lay->leaves_per_pod - 1);
		emit(em, "\n");
	}
	emit(em, "SwitchName=root Switches=");
	emit_range(em, "pod", 2, 1, spec->pods);
	emit(em, "\n");
}

int tp_fattree_write(const struct tp_fattree_spec *spec,
                     enum tp_fattree_format format, FILE *out, char *err,
                     size_t errlen)
{
	struct tp_fattree_layout lay;
	struct emitter em = {out, false};
	int rc;

	if (out == NULL) {
		set_error(err, errlen, "no output stream given");
		return -EINVAL;
	}
	if (format != TP_FATTREE_FORMAT_IBSIM &&
	    format != TP_FATTREE_FORMAT_SLURM) {
		set_error(err, errlen, "unknown output format %d", (int)format);
		return -EINVAL;
	}
	rc = tp_fattree_layout(spec, &lay, err, errlen);
	if (rc != 0)
		return rc;

	errno = 0; /* so a failed write can report its own cause */
	if (format == TP_FATTREE_FORMAT_IBSIM)
		write_ibsim(&em, spec, &lay);
	else
		write_slurm(&em, spec, &lay);

	if (fflush(out) != 0 || ferror(out))
		em.failed = true;
	if (em.failed) {
		set_error(err, errlen, "writing the %s output failed: %s",
		          format == TP_FATTREE_FORMAT_IBSIM ? "ibsim" : "slurm",
		          errno != 0 ? strerror(errno) : "write error");
		return -EIO;
	}
	return 0;
}

int tp_fattree_write_buffer(const struct tp_fattree_spec *spec,
                            enum tp_fattree_format format, char **text,
                            size_t *len, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *mem;
	int rc;

	*text = NULL;
	mem = open_memstream(&buf, &size);
	if (mem == NULL) {
		set_error(err, errlen, "cannot open a memory stream: %s",
		          strerror(errno));
		return -ENOMEM;
	}
	rc = tp_fattree_write(spec, format, mem, err, errlen);
	if (fclose(mem) != 0 && rc == 0) {
		set_error(err, errlen, "cannot finish the memory stream: %s",
		          strerror(errno));
		rc = -ENOMEM;
	}
	if (rc != 0) {
		free(buf);
		return rc;
	}
	*text = buf;
	if (len != NULL)
		*len = size;
	return 0;
}
