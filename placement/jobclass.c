/*
 * jobclass.c: classify a job as io_heavy, comm_sensitive or quiet.
 */
#include "tp_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jobclass.h"

/*
 * Default thresholds, and why (figures from BACKGROUND.md, section 1):
 *
 * io_client_bytes_per_s_min = 1 GiB/s at io_reference_clients = 612.  The
 *   I/O-congestion threshold was measured with jobs of 612 nodes: 512 KB
 *   requests congest the network below an interval between 100 and 500 us,
 *   4 MB requests below one between 1 and 5 ms.  A request of S bytes every
 *   S / (1 GiB/s) is 488 us at 512 KiB and 3.9 ms at 4 MiB: the long end of
 *   both ranges, so a job at or above this rate is at or past the threshold
 *   (conservative: the interfering side should be caught early).  The
 *   threshold grows with job size, so a job of N > 612 clients is io_heavy
 *   at 612/N of that rate per client.
 * io_bytes_min = 1 GiB: below this the I/O is a burst (a restart read, a log)
 *   too short to back up the links for long; a site knob.
 * comm_small_message_bytes_max = 64 KiB: on a 12.5 GB/s link such a message
 *   takes 5 us or less, so its time is dominated by latency and queueing,
 *   which is what I/O interference inflates (a flow-level simulation without
 *   queues showed only ~2% slowdown; the packet-level one 10x-35x).
 * comm_messages_per_s_per_rank_min = 1000: the measured victim sent one 4 KB
 *   message every 500 us per rank (2,000/s) and slowed down 10.6x to 35x on
 *   random nodes; half that rate keeps a margin.
 * comm_bytes_per_s_per_rank_min = 250 MB/s: bandwidth-bound MPI also queues
 *   behind I/O; at 16 ranks per node this is a third of a 12.5 GB/s link.
 *   The papers give no figure for it: a site knob.
 */
void tp_jobclass_defaults(tp_jobclass_thresholds *thresholds)
{
	thresholds->io_bytes_min = 1ull << 30;
	thresholds->io_client_bytes_per_s_min = 1073741824.0;
	thresholds->io_reference_clients = 612;
	thresholds->comm_small_message_bytes_max = 64 * 1024;
	thresholds->comm_messages_per_s_per_rank_min = 1000.0;
	thresholds->comm_bytes_per_s_per_rank_min = 250e6;
}

/* "2.1 GB/s" (decimal: link rates are quoted that way). */
static void format_rate(char *buf, size_t size, double bytes_per_s)
{
	if (bytes_per_s >= 1e9)
		snprintf(buf, size, "%.1f GB/s", bytes_per_s / 1e9);
	else if (bytes_per_s >= 1e6)
		snprintf(buf, size, "%.1f MB/s", bytes_per_s / 1e6);
	else if (bytes_per_s >= 1e3)
		snprintf(buf, size, "%.1f kB/s", bytes_per_s / 1e3);
	else
		snprintf(buf, size, "%.0f B/s", bytes_per_s);
}

/* "12 KiB" (binary: request and message sizes are powers of two). */
static void format_size(char *buf, size_t size, double bytes)
{
	if (bytes >= 1024.0 * 1024 * 1024)
		snprintf(buf, size, "%.3g GiB", bytes / (1024.0 * 1024 * 1024));
	else if (bytes >= 1024.0 * 1024)
		snprintf(buf, size, "%.3g MiB", bytes / (1024.0 * 1024));
	else if (bytes >= 1024.0)
		snprintf(buf, size, "%.3g KiB", bytes / 1024.0);
	else
		snprintf(buf, size, "%.0f B", bytes);
}

static bool bad_rate(double value)
{
	return !isfinite(value) || value < 0;
}

static tp_status check_input(const tp_job_summary *s,
                             const tp_jobclass_thresholds *t, tp_error *err)
{
	if (bad_rate(s->io_requests_per_s))
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "job summary: io_requests_per_s %g is not a rate >= 0",
		    s->io_requests_per_s);
	if (bad_rate(s->net_bytes_per_s))
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "job summary: net_bytes_per_s %g is not a rate >= 0",
		    s->net_bytes_per_s);
	if (s->ranks == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "job summary: ranks is 0");
	if (bad_rate(t->io_client_bytes_per_s_min) ||
	    t->io_client_bytes_per_s_min == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "job class thresholds: "
		                    "io_client_bytes_per_s_min %g is not > 0",
		                    t->io_client_bytes_per_s_min);
	if (t->io_reference_clients == 0)
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "job class thresholds: io_reference_clients is 0");
	if (bad_rate(t->comm_messages_per_s_per_rank_min) ||
	    t->comm_messages_per_s_per_rank_min == 0)
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "job class thresholds: comm_messages_per_s_per_rank_min %g "
		    "is not > 0",
		    t->comm_messages_per_s_per_rank_min);
	if (bad_rate(t->comm_bytes_per_s_per_rank_min) ||
	    t->comm_bytes_per_s_per_rank_min == 0)
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "job class thresholds: comm_bytes_per_s_per_rank_min %g is "
		    "not > 0",
		    t->comm_bytes_per_s_per_rank_min);
	return TP_OK;
}

tp_status tp_jobclass_classify(const tp_job_summary *summary,
                               const tp_jobclass_thresholds *thresholds,
                               tp_jobclass_result *result, tp_error *err)
{
	tp_jobclass_thresholds defaults;
	const tp_jobclass_thresholds *t = thresholds;
	uint32_t clients;
	double client_rate, io_threshold, msgs_per_rank, bytes_per_rank;
	bool io_heavy, latency_bound, bandwidth_bound;
	char rate[32], size[32], net[32], msg[32], volume[32];
	tp_status rc;

	if (!summary || !result)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "job class: NULL summary or result");
	if (!t) {
		tp_jobclass_defaults(&defaults);
		t = &defaults;
	}
	rc = check_input(summary, t, err);
	if (rc != TP_OK)
		return rc;

	clients = summary->io_clients ? summary->io_clients : summary->ranks;
	client_rate =
	    summary->io_requests_per_s * (double)summary->io_request_bytes;
	io_threshold = t->io_client_bytes_per_s_min;
	if (clients > t->io_reference_clients)
		io_threshold *= (double)t->io_reference_clients / clients;
	io_heavy = summary->io_bytes >= t->io_bytes_min &&
	           client_rate >= io_threshold && client_rate > 0;

	bytes_per_rank = summary->net_bytes_per_s / summary->ranks;
	msgs_per_rank = summary->mean_message_bytes
	                    ? bytes_per_rank / summary->mean_message_bytes
	                    : 0;
	latency_bound =
	    summary->mean_message_bytes > 0 &&
	    summary->mean_message_bytes <= t->comm_small_message_bytes_max &&
	    msgs_per_rank >= t->comm_messages_per_s_per_rank_min;
	bandwidth_bound = bytes_per_rank >= t->comm_bytes_per_s_per_rank_min;

	format_rate(rate, sizeof(rate), client_rate);
	format_size(size, sizeof(size), (double)summary->io_request_bytes);
	format_size(volume, sizeof(volume), (double)summary->io_bytes);
	format_rate(net, sizeof(net), summary->net_bytes_per_s);
	format_size(msg, sizeof(msg), (double)summary->mean_message_bytes);

	if (io_heavy) {
		result->job_class = TP_JOBCLASS_IO_HEAVY;
		snprintf(result->reason, sizeof(result->reason),
		         "io_heavy: %s of I/O, %s per client in %s requests "
		         "(%.0f/s) over %u clients%s",
		         volume, rate, size, summary->io_requests_per_s,
		         clients,
		         latency_bound || bandwidth_bound
		             ? "; also communication-intensive, but its I/O "
		               "must be kept from comm_sensitive neighbours"
		             : "");
	} else if (latency_bound || bandwidth_bound) {
		result->job_class = TP_JOBCLASS_COMM_SENSITIVE;
		snprintf(result->reason, sizeof(result->reason),
		         "comm_sensitive: %s on the network, mean message %s "
		         "(%.0f messages/s per rank%s)",
		         net, msg, msgs_per_rank,
		         latency_bound ? ", latency-bound"
		                       : ", bandwidth-bound");
	} else {
		result->job_class = TP_JOBCLASS_QUIET;
		snprintf(result->reason, sizeof(result->reason),
		         "quiet: %s of I/O at %s per client, %s on the "
		         "network, mean message %s",
		         volume, rate, net, msg);
	}
	return TP_OK;
}

static const char *const class_names[] = {
    [TP_JOBCLASS_QUIET] = "quiet",
    [TP_JOBCLASS_IO_HEAVY] = "io_heavy",
    [TP_JOBCLASS_COMM_SENSITIVE] = "comm_sensitive",
};

#define CLASS_COUNT (sizeof(class_names) / sizeof(class_names[0]))

tp_status tp_jobclass_parse(const char *text, tp_jobclass *job_class,
                            tp_error *err)
{
	if (!text)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "job class: missing (expected %s)",
		                    TP_JOBCLASS_CHOICES);
	for (size_t i = 0; i < CLASS_COUNT; i++) {
		if (!strcmp(text, class_names[i])) {
			*job_class = (tp_jobclass)i;
			return TP_OK;
		}
	}
	return tp_error_set(err, TP_ERR_INVALID, "job class '%s': expected %s",
	                    text, TP_JOBCLASS_CHOICES);
}

const char *tp_jobclass_name(tp_jobclass job_class)
{
	if ((size_t)job_class < CLASS_COUNT)
		return class_names[job_class];
	return "unknown";
}

bool tp_jobclass_compatible(tp_jobclass a, tp_jobclass b)
{
	return !(
	    (a == TP_JOBCLASS_IO_HEAVY && b == TP_JOBCLASS_COMM_SENSITIVE) ||
	    (a == TP_JOBCLASS_COMM_SENSITIVE && b == TP_JOBCLASS_IO_HEAVY));
}

tp_jobclass tp_jobclass_on_fabric(tp_jobclass job_class, uint32_t hosts)
{
	if (job_class == TP_JOBCLASS_COMM_SENSITIVE && hosts == 1)
		return TP_JOBCLASS_QUIET;
	return job_class;
}
