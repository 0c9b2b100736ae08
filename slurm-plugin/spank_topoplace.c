/*
 * spank_topoplace.c: the user flags of topoplace, as a SPANK plugin.
 *
 * Enabled in plugstack.conf:
 *   optional /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_topoplace.so
 *
 *   --placement=auto|leaf|shared|pack|spread|off   --comm-profile=NAME
 *   --comm-record[=NAME]   --rank-remap=auto|off   --io-servers=N
 *   --io-throttle=auto|off|<window>
 *
 * Each flag is checked where the user typed it (sbatch, salloc, srun) by
 * tp_slurm_options.c, so a bad value is refused at submission with one line
 * of ours (Slurm's SPANK code then adds its generic "Invalid --FLAG
 * argument: VALUE") instead of surfacing as a silent fallback in
 * slurmctld.  Slurm then
 * carries the value to slurmctld (job_ptr->spank_job_env, read by the
 * select plugin) and to slurmstepd, in the job's SPANK environment (see
 * spank_env.h).
 *
 * In Slurm 22.05 sbatch/salloc ignore a static spank_options table, so the
 * options are registered with spank_option_register() in slurm_spank_init.
 *
 * In slurmstepd (remote context) Slurm hands each option to our callback
 * and then removes it from the step's environment (plugstack.c,
 * spank_stack_post_opt); slurm_spank_init_post_opt, which runs right after,
 * puts the checked values back as TOPOPLACE_<FLAG> variables.  That is
 * before task_p_pre_setuid, so task/topoplace finds them there, and steps
 * started inside a batch script inherit them.
 *
 * Interactive jobs (srun, local context).  Batch jobs get their rank files
 * from task/topoplace in slurmd; salloc and srun never pass there, so srun
 * maps the profile itself, as the user, with the same code
 * (tp_slurm_core.c: tp_sc_remap, tp_sc_remap_write):
 *
 *   - srun inside an allocation (salloc, or a batch job whose script has
 *     no SLURM_HOSTFILE): Slurm 22.05 runs the option callbacks while srun
 *     parses its options (salloc's flags arrive through the environment,
 *     SLURM_SPANK__SLURM_SPANK_OPTION_topoplace_*), and only afterwards
 *     reads SLURM_HOSTFILE (srun/libsrun/opt.c, _opt_verify), which turns
 *     on the arbitrary distribution by itself.  The --comm-profile callback
 *     maps the profile onto SLURM_JOB_NODELIST, writes the files into a
 *     directory of this srun's own and sets SLURM_HOSTFILE,
 *     TOPOPLACE_RANKFILE and TOPOPLACE_MACHINEFILE: the step runs by the
 *     mapping and its tasks see the files.  A SLURM_HOSTFILE already set
 *     (by the user, or by task/topoplace for a batch job) is kept;
 *     --rank-remap=off opts out.
 *   - srun that makes its own allocation: no hook runs between the
 *     allocation and the step's creation (slurm_spank_init_post_opt runs
 *     before the request, slurm_spank_local_user_init after the step and
 *     its layout exist), so its tasks keep Slurm's layout.
 *     slurm_spank_local_user_init still writes the files for the nodes
 *     granted and exports TOPOPLACE_RANKFILE/TOPOPLACE_MACHINEFILE to the
 *     tasks, and srun says so in one line.
 *   - salloc itself: no hook runs after the allocation is granted either
 *     (22.05's salloc calls slurm_spank_init and init_post_opt before the
 *     request, slurm_spank_exit after the command), so the shell's own
 *     environment cannot get the paths; the sruns inside it do the mapping
 *     (above).
 *
 * srun runs as the user, so it cannot use task/topoplace's root-owned
 * <TmpFS>/topoplace: its directory is <TmpFS>/topoplace.<jobid>.XXXXXX,
 * made by mkdtemp (a name no one can claim in advance, mode 0700), one
 * per srun, removed by srun's slurm_spank_exit when the step is over.
 *
 * Any failure (bad profile, no fabric, ...) is one line on srun's stderr
 * and the step runs with Slurm's layout.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spank_env.h"
#include "tp_slurm_core.h"
#include "tp_slurm_options.h"

/*
 * Slurm's configuration, loaded by srun and salloc before any plugin (and
 * by every daemon that loads SPANK plugins): TmpFS, AuthInfo, and where
 * slurm.conf (and so topoplace.conf) is.
 */
extern slurm_conf_t slurm_conf;

SPANK_PLUGIN(topoplace, 1);

/* In slurmstepd: the checked values of this step ("" given without one). */
static char step_value[TP_OPT_COUNT][TP_OPT_VALUE_MAX];
static int step_given[TP_OPT_COUNT];

/* In srun (local context): the values given and what was done with them. */
static char local_value[TP_OPT_COUNT][TP_OPT_VALUE_MAX];
static int local_given[TP_OPT_COUNT];
static int local_in_alloc;         /* srun started inside an allocation */
static int local_own_layout;       /* its command line names nodes or tasks */
static int local_hostfile_set;     /* SLURM_HOSTFILE is ours */
static char local_owned_dir[1024]; /* this srun's directory, if made */

/*
 * srun inside an allocation remaps while it parses its options, before it
 * applies -v, so slurm_verbose would drop the lines of that moment: they
 * are kept here and printed by slurm_spank_local_user_init, once srun's log
 * level is set.  Bounded: LOCAL_VERBOSE_LINES lines of at most
 * LOCAL_VERBOSE_LINE bytes (8 KiB); the count of lines past that is said.
 */
#define LOCAL_VERBOSE_LINES 16
#define LOCAL_VERBOSE_LINE  512
static char local_verbose[LOCAL_VERBOSE_LINES][LOCAL_VERBOSE_LINE];
static unsigned local_verbose_count, local_verbose_dropped;
static int local_log_ready; /* slurm_spank_local_user_init has begun */

static void _verbose(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
static void _verbose(const char *format, ...)
{
	char line[LOCAL_VERBOSE_LINE];
	va_list ap;

	va_start(ap, format);
	vsnprintf(line, sizeof(line), format, ap);
	va_end(ap);
	if (local_log_ready)
		slurm_verbose("%s", line);
	else if (local_verbose_count < LOCAL_VERBOSE_LINES)
		memcpy(local_verbose[local_verbose_count++], line,
		       sizeof(line));
	else
		local_verbose_dropped++;
}

/* srun's log level is set: the kept lines, in order. */
static void _verbose_flush(void)
{
	local_log_ready = 1;
	for (unsigned i = 0; i < local_verbose_count; i++)
		slurm_verbose("%s", local_verbose[i]);
	if (local_verbose_dropped)
		slurm_verbose("topoplace: %u more lines not kept",
		              local_verbose_dropped);
	local_verbose_count = local_verbose_dropped = 0;
}

/*
 * The remapper's own lines in srun: warnings (a candidate that failed, the
 * step mapped all the same) where the user sees them, the rest at -v.
 */
static void _log_sink(void *data, tp_log_level level, const char *message)
{
	(void)data;
	if (level <= TP_LOG_WARNING)
		slurm_info("topoplace: %s", message);
	else
		_verbose("topoplace: %s", message);
}

static const tp_logger _srun_log = {.sink = _log_sink,
                                    .max_level = TP_LOG_INFO};

static int _remap_off(void)
{
	return local_given[TP_OPT_RANK_REMAP] &&
	       !strcmp(local_value[TP_OPT_RANK_REMAP], "off");
}

/* The CPUs of the allocation: SLURM_JOB_CPUS_PER_NODE ("4(x2),2"). */
static unsigned long _alloc_cpus(const char *text)
{
	unsigned long total = 0;

	while (text && *text) {
		char *end;
		unsigned long cpus = strtoul(text, &end, 10), reps = 1;

		if (end == text)
			break;
		if (!strncmp(end, "(x", 2)) {
			reps = strtoul(end + 2, &end, 10);
			if (*end == ')')
				end++;
		}
		total += cpus * reps;
		text = *end == ',' ? end + 1 : end;
	}
	return total;
}

/*
 * Whether the allocation's task count (SLURM_NTASKS) and CPUs are exactly
 * @ranks, checked before anything is sized by the profile: the job's own
 * task count wins.  Else TP_ERR_UNSUPPORTED saying why.
 */
static tp_status _ranks_fit(uint32_t ranks, tp_error *err)
{
	const char *ntasks = getenv("SLURM_NTASKS");
	const char *cpus = getenv("SLURM_JOB_CPUS_PER_NODE");

	if (ntasks && strtoul(ntasks, NULL, 10) != ranks)
		return tp_error_set(err, TP_ERR_UNSUPPORTED,
		                    "%u ranks, but the allocation has "
		                    "SLURM_NTASKS=%s",
		                    ranks, ntasks);
	if (cpus && _alloc_cpus(cpus) < ranks)
		return tp_error_set(err, TP_ERR_UNSUPPORTED,
		                    "%u ranks, but the allocation has %lu CPUs",
		                    ranks, _alloc_cpus(cpus));
	return TP_OK;
}

/*
 * Whether srun can run the mapping as its step in the allocation: the
 * ranks on every node of it (srun keeps the allocation's node count).
 * Else TP_ERR_UNSUPPORTED saying why: srun would refuse the hostfile or
 * run a part of the ranks.
 */
static tp_status _step_fits(const tp_remap_mapping *map, tp_error *err)
{
	const char *nnodes = getenv("SLURM_JOB_NUM_NODES");
	unsigned long want_nodes = nnodes ? strtoul(nnodes, NULL, 10) : 0;
	unsigned long used = 0;

	for (uint32_t r = 0; r < map->ranks; r++) {
		uint32_t k = 0;

		while (k < r && map->rank_host[k] != map->rank_host[r])
			k++;
		used += k == r;
	}
	if (want_nodes && used < want_nodes)
		return tp_error_set(err, TP_ERR_UNSUPPORTED,
		                    "%u ranks on %lu of the allocation's %lu "
		                    "nodes",
		                    map->ranks, used, want_nodes);
	return TP_OK;
}

/* This srun's private directory for its files, made on first use. */
static tp_status _local_dir(unsigned long job_id, char *dir, size_t size,
                            tp_error *err)
{
	tp_status rc;

	if (!local_owned_dir[0]) {
		rc = tp_sc_private_dir_create(slurm_conf.tmp_fs, job_id,
		                              local_owned_dir,
		                              sizeof(local_owned_dir), err);
		if (rc != TP_OK) {
			local_owned_dir[0] = '\0';
			return rc;
		}
	}
	if ((size_t)snprintf(dir, size, "%s", local_owned_dir) >= size)
		return tp_error_set(err, TP_ERR_LIMIT, "%s: path too long",
		                    local_owned_dir);
	return TP_OK;
}

/*
 * Map the --comm-profile onto @nodes of job @job_id for srun: write the
 * rank files into this srun's own directory (as the user srun runs as)
 * and put their paths into srun's environment, which srun hands to the
 * tasks; SLURM_HOSTFILE too when @hostfile.  Returns 0, or -1 after one
 * line.
 */
static int _local_remap(unsigned long job_id, const char *nodes, int hostfile,
                        char *dir, size_t dir_size)
{
	char conf_path[1024], socket[256], path[1100], pwbuf[4096];
	const char *name = local_value[TP_OPT_COMM_PROFILE];
	struct passwd pw, *pwp = NULL;
	tp_config *config = NULL;
	const tp_config_settings *settings;
	tp_profile_summary *totals = NULL;
	tp_profile *profile = NULL;
	tp_sc_profile_run run;
	const char *ntasks;
	bool from_summary = false;
	uint64_t cap;
	tp_topo *topo = NULL;
	tp_remap_mapping map = {0};
	tp_remap_stats stats;
	tp_error err;
	int missing, rc = -1;

	if (getpwuid_r(geteuid(), &pw, pwbuf, sizeof(pwbuf), &pwp) || !pwp) {
		slurm_error("topoplace: JobId=%lu: no user name for uid %u: "
		            "srun keeps Slurm's task layout",
		            job_id, (unsigned)geteuid());
		return -1;
	}
	tp_sc_conf_path(slurm_conf.slurm_conf, conf_path, sizeof(conf_path));
	tp_sc_munge_socket(slurm_conf.authinfo, socket, sizeof(socket));
	if (tp_sc_load_config(conf_path, &config, &missing, &err) != TP_OK)
		goto fail;
	settings = tp_config_for_partition(config, getenv("SLURM_JOB_PARTITION"));
	if (settings->rank_remap != TP_RANK_REMAP_AUTO) {
		rc = 0; /* the site turned remapping off: nothing to say */
		dir[0] = '\0';
		goto out;
	}
	if (!tp_store_valid_name(pw.pw_name)) {
		tp_error_set(&err, TP_ERR_INVALID,
		             "user name %s: not a profile store name",
		             pw.pw_name);
		goto fail;
	}
	/*
	 * The ranks first, from the summary beside the run when there is
	 * one: a profile that cannot fit the step is refused without reading
	 * its matrix.  Then the run, bounded as a step's (RemapMemory/3, at
	 * most 64 MiB; refused from its size before a byte is read).
	 */
	cap = tp_sc_step_profile_max_bytes(settings->remap_memory_bytes);
	if (!(totals = malloc(sizeof(*totals)))) {
		tp_error_set(&err, TP_ERR_NOMEM, "out of memory");
		goto fail;
	}
	/* Of several runs, the one of the allocation's task count. */
	ntasks = getenv("SLURM_NTASKS");
	if (tp_sc_profile_totals(config, socket, pw.pw_name, name,
	                         ntasks ? (uint32_t)strtoul(ntasks, NULL, 10)
	                                : 0,
	                         cap, totals, &from_summary, &run, NULL,
	                         &err) != TP_OK ||
	    (hostfile && _ranks_fit(totals->ranks, &err) != TP_OK) ||
	    tp_sc_read_profile_bounded(config, socket, pw.pw_name, name,
	                               run.file, cap, &profile,
	                               &err) != TP_OK) {
		if (err.code == TP_ERR_LIMIT)
			tp_error_prefix(&err,
			                "over srun's profile limit of %llu MiB "
			                "(RemapMemory/3, at most %u MiB)",
			                (unsigned long long)(cap >> 20),
			                TP_LOOKUP_PROFILE_MAX_BYTES >> 20);
		tp_error_prefix(&err, "--comm-profile=%s", name);
		goto fail;
	}
	if (tp_sc_load_topo(config, &topo, &err) != TP_OK ||
	    tp_sc_remap(topo, profile, nodes, job_id, settings->remap_search,
	                &_srun_log, &map, &stats, &err) != TP_OK)
		goto fail;
	if (hostfile && _step_fits(&map, &err) != TP_OK) {
		tp_error_prefix(&err, "--comm-profile=%s", name);
		goto fail;
	}
	if (_local_dir(job_id, dir, dir_size, &err) != TP_OK ||
	    tp_sc_remap_write(dir, topo, &map, &err) != TP_OK)
		goto fail;
	snprintf(path, sizeof(path), "%s/" TP_SC_RANKFILE, dir);
	setenv("TOPOPLACE_RANKFILE", path, 1);
	snprintf(path, sizeof(path), "%s/" TP_SC_MACHINEFILE, dir);
	setenv("TOPOPLACE_MACHINEFILE", path, 1);
	snprintf(path, sizeof(path), "%u", map.ranks);
	setenv("TOPOPLACE_RANKS", path, 1);
	if (hostfile) {
		snprintf(path, sizeof(path), "%s/" TP_SC_HOSTFILE, dir);
		setenv("SLURM_HOSTFILE", path, 1);
	}
	/* The search as in slurmd's DebugFlags=Remap line: which one the
	 * partition's RemapSearch chose, and what it tried. */
	_verbose("topoplace: JobId=%lu: profile %s/%s: %u ranks on %s "
	         "remapped (%s): hop-bytes %llu (block order: %llu) -> %s; "
	         "search %s, %u partitions",
	         job_id, pw.pw_name, name, map.ranks, nodes, stats.chosen,
	         (unsigned long long)stats.hop_bytes,
	         (unsigned long long)stats.block_hop_bytes, dir,
	         tp_remap_search_name(settings->remap_search),
	         stats.partitions);
	rc = 0;
	goto out;
fail:
	slurm_error("topoplace: JobId=%lu: %s: srun keeps Slurm's task layout",
	            job_id, err.message);
	dir[0] = '\0';
out:
	tp_remap_mapping_free(&map);
	tp_topo_free(topo);
	tp_profile_free(profile);
	free(totals);
	tp_config_free(config);
	return rc;
}

/* Undo what _local_remap exported (a later --rank-remap=off). */
static void _local_unexport(void)
{
	unsetenv("SLURM_HOSTFILE");
	unsetenv("TOPOPLACE_RANKFILE");
	unsetenv("TOPOPLACE_MACHINEFILE");
	unsetenv("TOPOPLACE_RANKS");
	local_hostfile_set = 0;
}

/*
 * srun parsing its options inside an allocation (see the top): the
 * mapping must be in SLURM_HOSTFILE before srun reads it, right after the
 * last option.  Done on --comm-profile, undone on a later --rank-remap=off.
 */
static void _local_option(int val)
{
	const char *job = getenv("SLURM_JOB_ID");
	const char *nodes = getenv("SLURM_JOB_NODELIST");
	char dir[1024];

	if (!local_in_alloc || !job || !nodes)
		return; /* srun's own allocation: slurm_spank_local_user_init */
	if (val == TP_OPT_RANK_REMAP && _remap_off() && local_hostfile_set) {
		_local_unexport();
		return;
	}
	if (val != TP_OPT_COMM_PROFILE || _remap_off() || local_own_layout)
		return;
	/* The user's own hostfile, or the batch job's mapping: kept. */
	if (getenv("SLURM_HOSTFILE") && !local_hostfile_set)
		return;
	if (!_local_remap(strtoul(job, NULL, 10), nodes, 1, dir, sizeof(dir)) &&
	    dir[0])
		local_hostfile_set = 1;
	else if (local_hostfile_set)
		_local_unexport(); /* a second, bad --comm-profile */
}

/*
 * Whether this srun's own command line (/proc/self/cmdline, at most its
 * first 64 KiB) sets the step's nodes or tasks: -N/--nodes, -n/--ntasks,
 * -w/--nodelist, -m/--distribution, --ntasks-per-node.  Then the step's own
 * layout wins over a profile's mapping: the tasks are the user's, and Slurm
 * 24.11's srun refuses -N together with a SLURM_HOSTFILE ("--nodes is
 * incompatible with --distribution=arbitrary").  srun's options and the
 * command are not told apart, so such a word inside the command counts
 * too: that only keeps Slurm's layout.  @flag gets the word found, @ntasks
 * the task count when the word is -n/--ntasks with a number (else 0).
 */
static bool _srun_names_layout(char *flag, size_t flag_size,
                               unsigned long *ntasks)
{
	static const char *const shorts[] = {"-N", "-n", "-w", "-m"};
	static const char *const longs[] = {"--nodes", "--ntasks",
	                                    "--nodelist", "--distribution",
	                                    "--ntasks-per-node"};
	char buf[65536];
	ssize_t len = 0, n;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	/* argv[0] is srun itself. */
	for (char *arg = buf + strlen(buf) + 1; arg < buf + len;
	     arg += strlen(arg) + 1) {
		for (size_t i = 0; i < sizeof(shorts) / sizeof(*shorts); i++)
			if (!strncmp(arg, shorts[i], 2) &&
			    (!arg[2] || isdigit((unsigned char)arg[2]) ||
			     shorts[i][1] == 'w' || shorts[i][1] == 'm'))
				goto found;
		for (size_t i = 0; i < sizeof(longs) / sizeof(*longs); i++) {
			size_t l = strlen(longs[i]);

			if (!strncmp(arg, longs[i], l) &&
			    (!arg[l] || arg[l] == '='))
				goto found;
		}
		continue;
	found:
		snprintf(flag, flag_size, "%s", arg);
		*ntasks = 0;
		if (!strncmp(arg, "-n", 2) || !strncmp(arg, "--ntasks", 8)) {
			const char *v = arg[1] == 'n'   ? arg + 2
			                : strchr(arg, '=') ? strchr(arg, '=') + 1
			                                   : "";
			char *end;

			if (!*v && arg + strlen(arg) + 1 < buf + len)
				v = arg + strlen(arg) + 1;
			*ntasks = strtoul(v, &end, 10);
			if (*end || !strncmp(arg, "--ntasks-", 9))
				*ntasks = 0; /* --ntasks-per-node, or no number */
		}
		return true;
	}
	return false;
}

/*
 * srun inside a batch job that task/topoplace remapped: SLURM_HOSTFILE and
 * SLURM_DISTRIBUTION=arbitrary are the job's mapping (its hostfile sits
 * beside TOPOPLACE_RANKFILE).  A step that names its own nodes or tasks
 * runs by Slurm's layout instead: both are dropped from this srun, before
 * it reads them, and it says so; but -n with the mapping's own task count
 * (TOPOPLACE_RANKS) keeps it.  A hostfile of the user's is left alone.
 */
static void _drop_job_mapping(const char *flag, unsigned long ntasks)
{
	const char *hostfile = getenv("SLURM_HOSTFILE");
	const char *rankfile = getenv("TOPOPLACE_RANKFILE");
	const char *slash = rankfile ? strrchr(rankfile, '/') : NULL;
	const char *dist = getenv("SLURM_DISTRIBUTION");
	const char *ranks = getenv("TOPOPLACE_RANKS");

	if (ntasks && ranks && strtoul(ranks, NULL, 10) == ntasks)
		return;
	if (!hostfile || !slash ||
	    strncmp(hostfile, rankfile, (size_t)(slash - rankfile + 1)) ||
	    strchr(hostfile + (slash - rankfile + 1), '/'))
		return;
	unsetenv("SLURM_HOSTFILE");
	if (dist && !strcmp(dist, "arbitrary"))
		unsetenv("SLURM_DISTRIBUTION");
	slurm_info("topoplace: this srun sets its own layout (%s): its tasks "
	           "run in Slurm's order, not by the job's rank mapping "
	           "(TOPOPLACE_RANKFILE still names it)",
	           flag);
}

static int _check_option(int val, const char *optarg, int remote)
{
	char canon[TP_OPT_VALUE_MAX];
	tp_error err;

	if (val < 0 || val >= TP_OPT_COUNT)
		return -1;
	if (tp_opt_check((tp_opt_id)val, optarg, canon, &err) != TP_OK) {
		/* Remote: the value was checked at submission; say it anyway.
		 */
		slurm_error("topoplace: %s%s", err.message,
		            remote ? " (in slurmstepd)" : "");
		return -1;
	}
	if (remote) {
		memcpy(step_value[val], canon, sizeof(canon));
		step_given[val] = 1;
	} else if (spank_context() == S_CTX_LOCAL) {
		memcpy(local_value[val], canon, sizeof(canon));
		local_given[val] = 1;
		_local_option(val);
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t context = spank_context();

	(void)ac;
	(void)av;
	/* slurmd and prolog/epilog contexts have no user options. */
	if (context != S_CTX_LOCAL && context != S_CTX_ALLOCATOR &&
	    context != S_CTX_REMOTE)
		return 0;
	/* Before srun asks for an allocation of its own, if it does. */
	if (context == S_CTX_LOCAL) {
		char flag[64];
		unsigned long ntasks;

		local_in_alloc = getenv("SLURM_JOB_ID") != NULL;
		if (local_in_alloc &&
		    _srun_names_layout(flag, sizeof(flag), &ntasks)) {
			local_own_layout = 1;
			_drop_job_mapping(flag, ntasks);
		}
	}
	for (int i = 0; i < TP_OPT_COUNT; i++) {
		const tp_opt_info *info = tp_opt_info_get((tp_opt_id)i);
		/* SPANK keeps the pointer: the table must outlive the call. */
		static struct spank_option opts[TP_OPT_COUNT];

		opts[i].name = (char *)info->name;
		opts[i].arginfo = (char *)info->arginfo;
		opts[i].usage = (char *)info->usage;
		opts[i].has_arg = info->has_arg;
		opts[i].val = i;
		opts[i].cb = _check_option;
		if (spank_option_register(sp, &opts[i]) != ESPANK_SUCCESS) {
			slurm_error("topoplace: cannot register --%s",
			            info->name);
			return -1;
		}
	}
	return 0;
}

/* slurmstepd, options processed: hand the values to task/topoplace. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (!spank_remote(sp))
		return 0;
	for (int i = 0; i < TP_OPT_COUNT; i++) {
		const tp_opt_info *info = tp_opt_info_get((tp_opt_id)i);

		if (!step_given[i])
			continue;
		if (spank_setenv(sp, info->env, step_value[i], 1) !=
		    ESPANK_SUCCESS) {
			slurm_error("topoplace: cannot set %s", info->env);
			return -1;
		}
	}
	return 0;
}

/*
 * srun with an allocation of its own, step created (see the top): the
 * layout is Slurm's; the tasks still get the mapping's files for mpirun or
 * steps they start, and the user one line saying so.
 */
int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	resource_allocation_response_msg_t *alloc = NULL;
	uint32_t job_id = 0;
	char dir[1024];
	int rc;

	(void)ac;
	(void)av;
	if (spank_context() == S_CTX_LOCAL)
		_verbose_flush();
	if (spank_context() != S_CTX_LOCAL || local_in_alloc ||
	    !local_given[TP_OPT_COMM_PROFILE] || _remap_off() ||
	    spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS)
		return 0;
	/* srun keeps the granted nodes to itself: ask slurmctld. */
	if (slurm_allocation_lookup(job_id, &alloc) != SLURM_SUCCESS ||
	    !alloc || !alloc->node_list) {
		slurm_error("topoplace: JobId=%u: cannot look up its nodes: "
		            "no rank files",
		            job_id);
		slurm_free_resource_allocation_response_msg(alloc);
		return 0;
	}
	rc = _local_remap(job_id, alloc->node_list, 0, dir, sizeof(dir));
	slurm_free_resource_allocation_response_msg(alloc);
	if (rc || !dir[0])
		return 0;
	slurm_info("topoplace: JobId=%u: srun made its own allocation, so its "
	           "tasks keep Slurm's layout; the mapping is in "
	           "$TOPOPLACE_RANKFILE (to run by it: salloc "
	           "--comm-profile=%s, then srun)",
	           job_id, local_value[TP_OPT_COMM_PROFILE]);
	return 0;
}

/*
 * The end of the job on each of its nodes (slurmd's epilog, as root, also
 * when the launch failed and no slurmstepd ever ran): remove what topoplace
 * made for the job in TmpFS.  A job whose batch step ended normally has no
 * directory left by now (task_p_post_step); this is for the rest: a Prolog
 * failure or a batch launch slurmd could not confirm (the directory is made
 * before either), an srun killed before its exit callback.  Never fails the
 * epilog (that would drain the node): a directory that stays is logged.
 */
int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	const char *area = slurm_conf.tmp_fs ? slurm_conf.tmp_fs : "/tmp";
	uint32_t job_id = 0;
	unsigned removed = 0;
	bool scanned_all = true;

	(void)ac;
	(void)av;
	if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS || !job_id)
		return 0;
	if (tp_sc_job_dirs_sweep(slurm_conf.tmp_fs, job_id,
	                         TP_SC_SWEEP_ENTRIES_MAX, &removed,
	                         &scanned_all))
		slurm_error("topoplace: JobId=%u: job epilog: a job directory "
		            "in %s stays: %s",
		            job_id, area, strerror(errno));
	else if (removed)
		slurm_info("topoplace: JobId=%u: job epilog: removed %u job "
		           "director%s left in %s",
		           job_id, removed, removed == 1 ? "y" : "ies", area);
	if (!scanned_all)
		slurm_info("topoplace: JobId=%u: job epilog: read the first %d "
		           "entries of %s only (the bound); a directory srun "
		           "left beyond them stays for the site's TmpFS cleanup",
		           job_id, TP_SC_SWEEP_ENTRIES_MAX, area);
	return 0;
}

/*
 * The end of a step (slurmstepd) or of srun: srun removes the directory it
 * made for its step's files (see the top).  Batch jobs' directories are
 * task/topoplace's.
 */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	(void)sp;
	memset(step_given, 0, sizeof(step_given));
	if (spank_context() == S_CTX_LOCAL && local_owned_dir[0] &&
	    tp_sc_job_dir_remove(local_owned_dir))
		slurm_debug("topoplace: %s left: %s", local_owned_dir,
		            strerror(errno));
	return 0;
}
