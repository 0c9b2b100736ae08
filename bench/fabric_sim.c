/*
 * fabric_sim.c: a packet-level model of a two-level fat tree with
 * credit-based flow control, to check throttle windows (issue 19, goal 3)
 * where there is no InfiniBand: I/O clients started together, paced by the
 * pacing library's window and phase rule, and MPI-like victims whose
 * messages cross the links the I/O congests.  Writes a topoplace-sweep(5)
 * v2 file for `topoplace throttle thresholds` and `throttle window`.
 *
 *   bench/fabric_sim [options] > sweep.csv      (--help lists them)
 *
 * The fabric (every parameter an option, defaults in brackets):
 *   --leaves [8] leaf switches of --hosts [8] hosts each, --spines [4]
 *   spine switches, every leaf cabled once to every spine; every link
 *   --link-gbps [100] in each direction, --hop-ns [100] of wire and switch
 *   latency per hop; packets of --packet-bytes [4096].
 *   Each switch input port has --buffer-bytes [32768] of buffer.  A packet
 *   leaves for the next hop only when that hop's input buffer has room
 *   for it (credits), and an input buffer is a FIFO whose head blocks the
 *   packets behind it: a full server port backs up into the leaf, the
 *   spines and the clients' leaves (tree saturation), as on InfiniBand,
 *   where TCP would drop instead.  Outputs serve their inputs round robin.
 *   Hosts send from an unbounded queue and always accept what arrives.
 *   Routing --routing [static]: destination-based D-mod-K (a leaf sends a
 *   packet for host d up to spine d mod spines; the spine has one way
 *   down); adaptive: each packet leaves on the up-link whose next buffer
 *   has the most room among those free to send now.
 * The workload (host h is leaf h / hosts, index h % hosts):
 *   I/O servers: the first --servers [4] hosts of leaf 0, or the hosts
 *   of --server-hosts (a list of host indices: dedicated leaves, one per
 *   leaf, staggered ports, ...).  I/O clients:
 *   the first --clients-per-leaf [6] hosts of leaves 1 .. --client-leaves
 *   [4] (24 clients), or the hosts of --client-hosts; each writes
 *   requests of
 *   --request-bytes [4194304] (as packets) to one server (a seeded
 *   permutation, balanced), one request at a time: a request starts when
 *   the previous one has arrived whole and the pacing rule allows it.
 *   All clients have their first request at t = 0 (synchronized).
 *   Pacing (throttle/pacing.c's rule): with window W a request starts no
 *   earlier than W after the previous start; with --phase [on] a client
 *   that has been idle 4 windows (or has not started yet) waits for its
 *   phase, tp_pacing_phase_ns(job, rank = client, W) with the job id
 *   1000 + seed, on a clock whose zero is the run's start.  W = 0: back
 *   to back, the unthrottled point.
 *   Victims: every other host (not a server, not a client; 36 by
 *   default) sends one --victim-bytes [4096] message every
 *   --victim-every-us [500] to its peer, the victim half the list away
 *   (hosts in order), the first at a seeded offset within the period.
 *   --jobs puts victims only on the hosts it lists, as MPI jobs ('/'
 *   between jobs: e.g. whole leaves, as topoplace's `leaf` decisions
 *   give), each pairing within itself half its list away.
 *   Some pairs cross what the I/O fills (spares on the clients' leaves
 *   share the spines' input buffers with the I/O packets waiting for the
 *   links down to leaf 0, the leaf 0 hosts' traffic shares those links),
 *   some do not: as an MPI job placed beside I/O clients.  A message's
 *   latency: send to the arrival of its last packet sent (under adaptive
 *   routing an earlier packet of a longer message may arrive after it).
 *   --duration-ms [100] simulated per run; --seed [1]; --windows [0]: a
 *   comma list of windows in us, one run each; --alone: first a run
 *   without I/O (the victims' baseline).
 * Output: "# topoplace-sweep v2" and its header, then an alone row per
 * victim message of the --alone run, and per window an io row per request
 * that completed within the run (start, start to last packet in) and a
 * victim row per message delivered.  Lines of figures per run go to
 * stderr: the I/O bytes delivered to the servers within the run (and
 * GB/s over --duration-ms), and per job its messages' mean and p99
 * latency and, after an --alone run, their ratios to it.
 *
 * What the model leaves out: virtual lanes and service levels, credit
 * return latency (credits come back when a packet leaves a buffer), link
 * level retries, adaptive routing's real port choice (here it sees the
 * next buffer's room), the servers' storage (a server takes packets at
 * link rate), the replies and acknowledgements, and the MPI library's
 * software overhead.
 */
#include "tp_config.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phase.h"

#define IDLE_WINDOWS 4 /* as throttle/pacing.c */
#define UNBOUNDED    INT64_MAX
#define MAX_WINDOWS  64

struct params {
	int leaves, hosts, spines, servers, client_leaves, clients_per_leaf;
	int link_gbps, hop_ns, packet_bytes, buffer_bytes;
	long long request_bytes, victim_bytes, victim_every_us, duration_ms;
	int phase, adaptive, alone, nwindows;
	long long seed;
	long long windows_us[MAX_WINDOWS];
	const char *server_hosts; /* --server-hosts, NULL: first of leaf 0 */
	const char *jobs;         /* --jobs, NULL: every other host one set */
	const char *client_hosts; /* --client-hosts, NULL: leaves 1.. */
};

enum kind { IO, VICTIM };

struct packet {
	int dst, owner, next; /* owner: client or victim index; next: FIFO */
	int last;             /* a victim message's last packet */
	enum kind kind;
	long long sent_ps; /* the message's send time (victims) */
};

/* A FIFO input buffer; its room is counted in bytes. */
struct buffer {
	int head, tail;
	long long used, reserved, capacity;
	int feeder; /* the link that fills it, -1 for a host's send queue */
};

struct link {
	int from, to; /* node ids */
	int into;     /* the buffer at its far end */
	int busy, round_robin;
};

enum event_type { ARRIVE, LINK_FREE, CLIENT_READY, VICTIM_SEND };

struct event {
	long long at_ps, seq;
	enum event_type type;
	int a, b;
};

struct client {
	int host, server, remaining; /* packets of the request in flight */
	long long phase_ns, last_start_ps, request_start_ps;
	int started;
};

struct victim {
	int host, peer, job;
};

/* A growing list of one job's message latencies in a run (ps). */
struct samples {
	long long *v;
	int n, cap;
};

/* One MPI job's latency figures of a run. */
struct job_figures {
	double mean_us, p99_us;
	int messages;
};

enum role { R_NONE, R_SERVER, R_CLIENT, R_VICTIM };

struct sim {
	const struct params *p;
	int nhosts, nbuffers, nlinks;
	long long window_ps, end_ps, packet_ps, seq;
	struct buffer *buffers;
	struct link *links;
	struct packet *packets;
	int npackets, free_packet;
	struct event *heap;
	int nheap, heap_cap;
	struct client *clients;
	int nclients;
	struct victim *victims;
	int nvictims;
	int *server_hosts; /* host of each I/O server */
	int nservers;
	int njobs;                 /* MPI jobs (victim sets), >= 1 */
	struct samples *latency;   /* per job, this run */
	struct job_figures *alone; /* per job, the --alone run */
	long long window_us, rows, events;
	long long io_bytes; /* I/O delivered to the servers in this run */
	int with_io;        /* 0: the victims' baseline run */
};

static void *checked(void *p)
{
	if (!p) {
		fprintf(stderr, "fabric_sim: out of memory\n");
		exit(1);
	}
	return p;
}

/* A seeded draw in [0, @below): POSIX nrand48, the same sequence
 * everywhere for one seed. */
static long long draw(unsigned short rng[3], long long below)
{
	return nrand48(rng) % below;
}

/* Node ids: hosts, then leaves, then spines. */
static int leaf_node(const struct sim *s, int leaf)
{
	return s->nhosts + leaf;
}
static int spine_node(const struct sim *s, int spine)
{
	return s->nhosts + s->p->leaves + spine;
}
static int leaf_of(const struct sim *s, int host)
{
	return host / s->p->hosts;
}

/* Link ids: host up, leaf down to host, leaf up to spine, spine down. */
static int host_up(const struct sim *s, int h)
{
	(void)s;
	return h;
}
static int host_down(const struct sim *s, int h)
{
	return s->nhosts + h;
}
static int leaf_up(const struct sim *s, int leaf, int spine)
{
	return 2 * s->nhosts + leaf * s->p->spines + spine;
}
static int spine_down(const struct sim *s, int spine, int leaf)
{
	return 2 * s->nhosts + s->p->leaves * s->p->spines +
	       spine * s->p->leaves + leaf;
}

/* Buffer ids: a host's send queue and receive side, a leaf's input from a
 * host or a spine, a spine's input from a leaf. */
static int send_queue(const struct sim *s, int h)
{
	(void)s;
	return h;
}
static int leaf_in_host(const struct sim *s, int h)
{
	return s->nhosts + h;
}
static int host_in(const struct sim *s, int h)
{
	return 2 * s->nhosts + h;
}
static int leaf_in_spine(const struct sim *s, int leaf, int spine)
{
	return 3 * s->nhosts + leaf * s->p->spines + spine;
}
static int spine_in_leaf(const struct sim *s, int spine, int leaf)
{
	return 3 * s->nhosts + s->p->leaves * s->p->spines +
	       spine * s->p->leaves + leaf;
}

/* The input buffers of a node, @k-th of @count. */
static int node_inputs(const struct sim *s, int node, int k, int *count)
{
	const struct params *p = s->p;

	if (node < s->nhosts) {
		*count = 1;
		return send_queue(s, node);
	}
	if (node < s->nhosts + p->leaves) {
		int leaf = node - s->nhosts;

		*count = p->hosts + p->spines;
		return k < p->hosts ? leaf_in_host(s, leaf * p->hosts + k)
		                    : leaf_in_spine(s, leaf, k - p->hosts);
	}
	*count = p->leaves;
	return spine_in_leaf(s, node - s->nhosts - p->leaves, k);
}

static long long room(const struct sim *s, int buffer)
{
	const struct buffer *b = &s->buffers[buffer];

	return b->capacity - b->used - b->reserved;
}

/* Whether the packet at the head of a buffer at @node may leave on @link. */
static int routes_over(const struct sim *s, int node, const struct packet *pkt,
                       int link)
{
	const struct params *p = s->p;
	int leaf = node - s->nhosts, up;

	if (node < s->nhosts)
		return link == host_up(s, node);
	if (node >= s->nhosts + p->leaves)
		return link == spine_down(s, node - s->nhosts - p->leaves,
		                          leaf_of(s, pkt->dst));
	if (leaf_of(s, pkt->dst) == leaf)
		return link == host_down(s, pkt->dst);
	up = link - leaf_up(s, leaf, 0);
	if (up < 0 || up >= p->spines)
		return 0;
	return p->adaptive || up == pkt->dst % p->spines;
}

static void push_event(struct sim *s, long long at_ps, enum event_type type,
                       int a, int b)
{
	int i = s->nheap++;

	if (s->nheap > s->heap_cap) {
		s->heap_cap = s->heap_cap ? 2 * s->heap_cap : 1024;
		s->heap = checked(
		    realloc(s->heap, (size_t)s->heap_cap * sizeof(*s->heap)));
	}
	/* Ties go in the order pushed: runs are deterministic. */
	struct event e = {at_ps, s->seq++, type, a, b};
	while (i > 0) {
		struct event *up = &s->heap[(i - 1) / 2];
		if (up->at_ps < e.at_ps ||
		    (up->at_ps == e.at_ps && up->seq < e.seq))
			break;
		s->heap[i] = *up;
		i = (i - 1) / 2;
	}
	s->heap[i] = e;
}

static struct event pop_event(struct sim *s)
{
	struct event top = s->heap[0], last = s->heap[--s->nheap];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;
		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap &&
		    (s->heap[c + 1].at_ps < s->heap[c].at_ps ||
		     (s->heap[c + 1].at_ps == s->heap[c].at_ps &&
		      s->heap[c + 1].seq < s->heap[c].seq)))
			c++;
		if (last.at_ps < s->heap[c].at_ps ||
		    (last.at_ps == s->heap[c].at_ps &&
		     last.seq < s->heap[c].seq))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

static int new_packet(struct sim *s, int dst, enum kind kind, int owner,
                      long long sent_ps)
{
	int id = s->free_packet;

	if (id < 0) {
		int grown = s->npackets ? 2 * s->npackets : 4096;
		s->packets = checked(
		    realloc(s->packets, (size_t)grown * sizeof(*s->packets)));
		for (int i = grown - 1; i >= s->npackets; i--)
			s->packets[i].next = i == grown - 1 ? -1 : i + 1;
		id = s->npackets;
		s->npackets = grown;
	}
	s->free_packet = s->packets[id].next;
	s->packets[id] = (struct packet){dst, owner, -1, 0, kind, sent_ps};
	return id;
}

static void enqueue(struct sim *s, int buffer, int pkt)
{
	struct buffer *b = &s->buffers[buffer];

	s->packets[pkt].next = -1;
	if (b->tail >= 0)
		s->packets[b->tail].next = pkt;
	else
		b->head = pkt;
	b->tail = pkt;
	b->used += s->p->packet_bytes;
}

static void try_link(struct sim *s, long long now, int link);

/* Offer the head of @buffer (at @node) the link it leaves on; under
 * adaptive routing, of the free up-links the one whose next buffer has the
 * most room. */
static void try_head(struct sim *s, long long now, int node, int buffer)
{
	const struct params *p = s->p;
	const struct packet *pkt;
	int leaf = node - s->nhosts, best = -1;

	if (s->buffers[buffer].head < 0)
		return;
	pkt = &s->packets[s->buffers[buffer].head];
	if (node < s->nhosts) {
		try_link(s, now, host_up(s, node));
	} else if (leaf >= p->leaves) {
		try_link(s, now,
		         spine_down(s, leaf - p->leaves, leaf_of(s, pkt->dst)));
	} else if (leaf_of(s, pkt->dst) == leaf) {
		try_link(s, now, host_down(s, pkt->dst));
	} else if (!p->adaptive) {
		try_link(s, now, leaf_up(s, leaf, pkt->dst % p->spines));
	} else {
		for (int up = 0; up < p->spines; up++) {
			int l = leaf_up(s, leaf, up);
			if (!s->links[l].busy &&
			    (best < 0 || room(s, s->links[l].into) >
			                     room(s, s->links[best].into)))
				best = l;
		}
		if (best >= 0)
			try_link(s, now, best);
	}
}

/* If @link is idle, send the first head packet (round robin over the
 * inputs of its node) routed over it, when the next buffer has room. */
static void try_link(struct sim *s, long long now, int link)
{
	struct link *ln = &s->links[link];
	int count, buffer = -1, pkt = -1;

	if (ln->busy || room(s, ln->into) < s->p->packet_bytes)
		return;
	node_inputs(s, ln->from, 0, &count);
	for (int k = 1; k <= count; k++) {
		int idx = (ln->round_robin + k) % count;
		int b = node_inputs(s, ln->from, idx, &count);
		int head = s->buffers[b].head;

		if (head >= 0 &&
		    routes_over(s, ln->from, &s->packets[head], link)) {
			ln->round_robin = idx;
			buffer = b;
			pkt = head;
			break;
		}
	}
	if (pkt < 0)
		return;
	struct buffer *b = &s->buffers[buffer];
	b->head = s->packets[pkt].next;
	if (b->head < 0)
		b->tail = -1;
	b->used -= s->p->packet_bytes;
	s->buffers[ln->into].reserved += s->p->packet_bytes;
	ln->busy = 1;
	push_event(s, now + s->packet_ps, LINK_FREE, link, 0);
	push_event(s, now + s->packet_ps + (long long)s->p->hop_ns * 1000,
	           ARRIVE, pkt, link);
	/* The freed room is a credit for the link that fills this buffer;
	 * the new head may leave on another link. */
	if (b->feeder >= 0)
		try_link(s, now, b->feeder);
	try_head(s, now, ln->from, buffer);
}

/* One sweep row; times in us from the run's start. */
static void print_row(struct sim *s, const char *kind, int who,
                      long long start_ps, long long latency_ps)
{
	printf("%lld,%d,%lld,%d,%.3f,%.3f,%s\n", s->p->request_bytes,
	       s->nclients, s->window_us, who, start_ps / 1e6, latency_ps / 1e6,
	       kind);
	s->rows++;
}

/* A client asks to start its next request at @now: the pacing rule. */
static long long request_slot(const struct sim *s, const struct client *c,
                              long long now)
{
	long long w = s->window_ps, slot = now, phase_ps;

	if (w == 0)
		return now;
	if (c->started && c->last_start_ps + w > slot)
		slot = c->last_start_ps + w;
	if (s->p->phase &&
	    (!c->started || now - c->last_start_ps >= IDLE_WINDOWS * w)) {
		phase_ps = c->phase_ns * 1000;
		slot = now + ((phase_ps - now % w) % w + w) % w;
	}
	return slot;
}

static void start_request(struct sim *s, long long now, int client)
{
	struct client *c = &s->clients[client];
	long long packets =
	    (s->p->request_bytes + s->p->packet_bytes - 1) / s->p->packet_bytes;

	c->started = 1;
	c->last_start_ps = c->request_start_ps = now;
	c->remaining = (int)packets;
	for (long long i = 0; i < packets; i++)
		enqueue(s, send_queue(s, c->host),
		        new_packet(s, c->server, IO, client, now));
	try_head(s, now, c->host, send_queue(s, c->host));
}

static void add_sample(struct samples *x, long long v)
{
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 256;
		x->v = checked(realloc(x->v, (size_t)x->cap * sizeof(*x->v)));
	}
	x->v[x->n++] = v;
}

/* A packet reached its host: a victim message is in (one packet each
 * by default; a longer one is counted from its last packet), an I/O
 * request when its last packet is. */
static void deliver(struct sim *s, long long now, int pkt)
{
	struct packet *p = &s->packets[pkt];

	if (p->kind == VICTIM) {
		if (p->last) {
			print_row(s, s->with_io ? "victim" : "alone", p->owner,
			          p->sent_ps, now - p->sent_ps);
			add_sample(&s->latency[s->victims[p->owner].job],
			           now - p->sent_ps);
		}
	} else {
		struct client *c = &s->clients[p->owner];

		s->io_bytes += s->p->packet_bytes;
		if (--c->remaining == 0) {
			print_row(s, "io", p->owner, c->request_start_ps,
			          now - c->request_start_ps);
			push_event(s, request_slot(s, c, now), CLIENT_READY,
			           p->owner, 0);
		}
	}
	p->next = s->free_packet;
	s->free_packet = pkt;
}

/* One run: the fabric empty at t = 0, @with_io clients or none. */
static void run(struct sim *s, long long window_us, int with_io)
{
	const struct params *p = s->p;
	unsigned short rng[3] = {0x330e, (unsigned short)p->seed,
	                         (unsigned short)(p->seed >> 16)};
	char job[32];

	s->window_us = window_us;
	s->window_ps = window_us * 1000000;
	s->with_io = with_io;
	for (int b = 0; b < s->nbuffers; b++)
		s->buffers[b] =
		    (struct buffer){-1, -1, 0, 0, p->buffer_bytes, -1};
	for (int h = 0; h < s->nhosts; h++) {
		s->buffers[send_queue(s, h)].capacity = UNBOUNDED;
		s->buffers[host_in(s, h)].capacity = UNBOUNDED;
	}
	for (int l = 0; l < s->nlinks; l++) {
		s->links[l].busy = 0;
		s->links[l].round_robin = 0;
		if (s->links[l].to >= s->nhosts)
			s->buffers[s->links[l].into].feeder = l;
	}
	s->nheap = 0;
	s->seq = 0;
	s->io_bytes = 0;
	for (int j = 0; j < s->njobs; j++)
		s->latency[j].n = 0;
	snprintf(job, sizeof(job), "%lld", 1000 + p->seed);
	/* Clients to servers: a seeded permutation, then round robin. */
	for (int c = 0; c < s->nclients; c++)
		s->clients[c].server = s->server_hosts[c % s->nservers];
	for (int c = s->nclients - 1; c > 0; c--) {
		int j = (int)draw(rng, c + 1);
		int t = s->clients[c].server;
		s->clients[c].server = s->clients[j].server;
		s->clients[j].server = t;
	}
	for (int c = 0; with_io && c < s->nclients; c++) {
		struct client *cl = &s->clients[c];

		cl->started = 0;
		cl->phase_ns =
		    tp_pacing_phase_ns(job, c, NULL, 0, window_us * 1000);
		push_event(s, request_slot(s, cl, 0), CLIENT_READY, c, 0);
	}
	for (int v = 0; v < s->nvictims; v++)
		push_event(s, draw(rng, p->victim_every_us * 1000) * 1000,
		           VICTIM_SEND, v, 0);

	while (s->nheap && s->heap[0].at_ps < s->end_ps) {
		struct event e = pop_event(s);

		s->events++;
		switch (e.type) {
		case ARRIVE: { /* a: the packet, b: the link it came over */
			const struct link *ln = &s->links[e.b];
			s->buffers[ln->into].reserved -= p->packet_bytes;
			if (ln->to < s->nhosts) {
				deliver(s, e.at_ps, e.a);
				break;
			}
			enqueue(s, ln->into, e.a);
			if (s->buffers[ln->into].head == e.a)
				try_head(s, e.at_ps, ln->to, ln->into);
			break;
		}
		case LINK_FREE:
			s->links[e.a].busy = 0;
			try_link(s, e.at_ps, e.a);
			break;
		case CLIENT_READY:
			start_request(s, e.at_ps, e.a);
			break;
		case VICTIM_SEND: {
			const struct victim *v = &s->victims[e.a];
			long long n = (p->victim_bytes + p->packet_bytes - 1) /
			              p->packet_bytes;
			for (long long i = 0; i < n; i++) {
				int pkt = new_packet(s, v->peer, VICTIM, e.a,
				                     e.at_ps);
				s->packets[pkt].last = i == n - 1;
				enqueue(s, send_queue(s, v->host), pkt);
			}
			try_head(s, e.at_ps, v->host, send_queue(s, v->host));
			push_event(s, e.at_ps + p->victim_every_us * 1000000,
			           VICTIM_SEND, e.a, 0);
			break;
		}
		}
	}
	/* Packets still in buffers go back to the pool. */
	s->free_packet = -1;
	for (int i = s->npackets - 1; i >= 0; i--) {
		s->packets[i].next = s->free_packet;
		s->free_packet = i;
	}
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: fabric_sim [options] > sweep.csv\n"
	    "  a packet-level two-level fat tree with credit flow control;\n"
	    "  writes a topoplace-sweep(5) v2 file (see the top of "
	    "bench/fabric_sim.c)\n"
	    "  --leaves N [8]  --hosts N [8] per leaf  --spines N [4]\n"
	    "  --link-gbps N [100]  --hop-ns N [100]  --packet-bytes N "
	    "[4096]\n"
	    "  --buffer-bytes N [32768] per switch input port (credits)\n"
	    "  --routing static|adaptive [static] (static: D-mod-K)\n"
	    "  --servers N [4] first hosts of leaf 0\n"
	    "  --server-hosts LIST  the I/O servers on these hosts instead "
	    "(host h is\n"
	    "      leaf h / hosts, port h %% hosts; LIST: A-B,C,...; not "
	    "clients)\n"
	    "  --client-hosts LIST  the I/O clients on these hosts instead\n"
	    "  --jobs LIST/LIST/...  MPI jobs (victims) on these hosts only, "
	    "pairs\n"
	    "      half each job's list apart (default: every host without "
	    "a role,\n"
	    "      one set); per job mean and p99 latency on stderr\n"
	    "  --client-leaves N [4]  --clients-per-leaf N [6] clients: the "
	    "first hosts of\n      leaves 1..N\n"
	    "  --request-bytes N [4194304]  one request at a time each\n"
	    "  --victim-bytes N [4096]  --victim-every-us N [500] from "
	    "every other\n"
	    "      host to its peer, the victim half the list away\n"
	    "  --windows W,W,... [0] in us, one run each (0: unthrottled)\n"
	    "  --phase on|off [on] the pacing library's per-client phase\n"
	    "  --alone  first a run without I/O (alone rows)\n"
	    "  --duration-ms N [100] simulated per run  --seed N [1]\n"
	    "limits: hosts <= leaves x hosts (512 x 512), each run at most "
	    "--duration-ms\n"
	    "  (100 s) simulated; memory grows with packets in flight and "
	    "messages per\n"
	    "  run (8 bytes a message)\n");
}

static int parse_count(const char *name, const char *text, long long min,
                       long long max, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max) {
		fprintf(stderr,
		        "fabric_sim: --%s '%s': not a whole number in %lld .. "
		        "%lld\n",
		        name, text, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_windows(const char *text, struct params *p)
{
	char copy[1024], *save = NULL;

	if (strlen(text) >= sizeof(copy)) {
		fprintf(stderr, "fabric_sim: --windows: list too long\n");
		return -1;
	}
	strcpy(copy, text);
	p->nwindows = 0;
	for (char *w = strtok_r(copy, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		if (p->nwindows == MAX_WINDOWS) {
			fprintf(stderr, "fabric_sim: --windows: more than %d\n",
			        MAX_WINDOWS);
			return -1;
		}
		if (parse_count("windows", w, 0, 3600000000LL,
		                &p->windows_us[p->nwindows++]))
			return -1;
	}
	if (p->nwindows == 0) {
		fprintf(stderr, "fabric_sim: --windows '%s': no window\n",
		        text);
		return -1;
	}
	return 0;
}

/* Whether @text is @a or @b; sets *is_b. */
static int parse_choice(const char *name, const char *text, const char *a,
                        const char *b, int *is_b)
{
	if (strcmp(text, a) && strcmp(text, b)) {
		fprintf(stderr, "fabric_sim: --%s '%s': %s or %s\n", name, text,
		        a, b);
		return -1;
	}
	*is_b = !strcmp(text, b);
	return 0;
}

static int parse_params(int argc, char **argv, struct params *p)
{
	/* The numeric options: getopt value 256 + their index here. */
	const struct {
		const char *name;
		long long min, max;
		int *as_int; /* the field, one of the two */
		long long *as_long;
	} numbers[] = {
	    {"leaves", 2, 512, &p->leaves, NULL},
	    {"hosts", 2, 512, &p->hosts, NULL},
	    {"spines", 1, 512, &p->spines, NULL},
	    {"link-gbps", 1, 10000, &p->link_gbps, NULL},
	    {"hop-ns", 0, 1000000, &p->hop_ns, NULL},
	    {"packet-bytes", 64, 1 << 20, &p->packet_bytes, NULL},
	    {"buffer-bytes", 64, 1 << 30, &p->buffer_bytes, NULL},
	    {"servers", 1, 512, &p->servers, NULL},
	    {"client-leaves", 1, 512, &p->client_leaves, NULL},
	    {"clients-per-leaf", 1, 512, &p->clients_per_leaf, NULL},
	    {"request-bytes", 1, 1LL << 34, NULL, &p->request_bytes},
	    {"victim-bytes", 1, 1LL << 24, NULL, &p->victim_bytes},
	    {"victim-every-us", 1, 1000000, NULL, &p->victim_every_us},
	    {"duration-ms", 1, 100000, NULL, &p->duration_ms},
	    {"seed", 0, 4294967295LL, NULL, &p->seed},
	};
	enum { N_NUMBERS = sizeof(numbers) / sizeof(numbers[0]) };
	struct option options[N_NUMBERS + 9] = {
	    {"windows", 1, 0, 'w'}, {"routing", 1, 0, 'r'},
	    {"phase", 1, 0, 'P'},   {"alone", 0, 0, 'a'},
	    {"help", 0, 0, 'h'},    {"server-hosts", 1, 0, 'S'},
	    {"jobs", 1, 0, 'J'},    {"client-hosts", 1, 0, 'C'}};
	int opt, rc = 0;

	*p = (struct params){.leaves = 8,
	                     .hosts = 8,
	                     .spines = 4,
	                     .servers = 4,
	                     .client_leaves = 4,
	                     .clients_per_leaf = 6,
	                     .link_gbps = 100,
	                     .hop_ns = 100,
	                     .packet_bytes = 4096,
	                     .buffer_bytes = 32768,
	                     .request_bytes = 4194304,
	                     .victim_bytes = 4096,
	                     .victim_every_us = 500,
	                     .duration_ms = 100,
	                     .phase = 1,
	                     .seed = 1,
	                     .nwindows = 1};
	for (int i = 0; i < N_NUMBERS; i++)
		options[8 + i] =
		    (struct option){numbers[i].name, 1, 0, 256 + i};
	while (rc == 0 &&
	       (opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt >= 256) {
			long long v;
			int i = opt - 256;
			rc = parse_count(numbers[i].name, optarg,
			                 numbers[i].min, numbers[i].max, &v);
			if (numbers[i].as_int)
				*numbers[i].as_int = (int)v;
			else
				*numbers[i].as_long = v;
			continue;
		}
		switch (opt) {
		case 'w':
			rc = parse_windows(optarg, p);
			break;
		case 'r':
			rc = parse_choice("routing", optarg, "static",
			                  "adaptive", &p->adaptive);
			break;
		case 'P': {
			int off;
			rc = parse_choice("phase", optarg, "on", "off", &off);
			p->phase = !off;
			break;
		}
		case 'a':
			p->alone = 1;
			break;
		case 'S':
			p->server_hosts = optarg;
			break;
		case 'J':
			p->jobs = optarg;
			break;
		case 'C':
			p->client_hosts = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			rc = -1;
		}
	}
	if (rc == 0 && optind < argc) {
		fprintf(stderr, "fabric_sim: unexpected argument '%s'\n",
		        argv[optind]);
		rc = -1;
	}
	if (rc == 0 && ((!p->client_hosts && p->client_leaves >= p->leaves) ||
	                (!p->server_hosts && p->servers >= p->hosts) ||
	                p->clients_per_leaf > p->hosts ||
	                p->buffer_bytes < p->packet_bytes ||
	                (!p->jobs && !p->server_hosts &&
	                 p->leaves * p->hosts - p->servers -
	                         p->client_leaves * p->clients_per_leaf <
	                     2))) {
		fprintf(stderr, "fabric_sim: needs client-leaves < leaves, "
		                "servers < hosts, clients-per-leaf <= hosts, "
		                "buffer-bytes >= packet-bytes and 2 hosts left "
		                "for victims\n");
		rc = -1;
	}
	return rc;
}

/* Cable the fabric (ids as in the helpers above) and place the roles. */
static void build(struct sim *s, const struct params *p)
{

	*s = (struct sim){.p = p, .free_packet = -1};
	s->nhosts = p->leaves * p->hosts;
	s->nbuffers = 3 * s->nhosts + 2 * p->leaves * p->spines;
	s->nlinks = 2 * s->nhosts + 2 * p->leaves * p->spines;
	s->buffers = checked(calloc((size_t)s->nbuffers, sizeof(*s->buffers)));
	s->links = checked(calloc((size_t)s->nlinks, sizeof(*s->links)));
	for (int h = 0; h < s->nhosts; h++) {
		int leaf = leaf_node(s, leaf_of(s, h));
		s->links[host_up(s, h)] =
		    (struct link){h, leaf, leaf_in_host(s, h), 0, 0};
		s->links[host_down(s, h)] =
		    (struct link){leaf, h, host_in(s, h), 0, 0};
	}
	for (int l = 0; l < p->leaves; l++)
		for (int sp = 0; sp < p->spines; sp++) {
			s->links[leaf_up(s, l, sp)] =
			    (struct link){leaf_node(s, l), spine_node(s, sp),
			                  spine_in_leaf(s, sp, l), 0, 0};
			s->links[spine_down(s, sp, l)] =
			    (struct link){spine_node(s, sp), leaf_node(s, l),
			                  leaf_in_spine(s, l, sp), 0, 0};
		}
	s->clients = checked(calloc((size_t)s->nhosts, sizeof(*s->clients)));
	s->victims = checked(calloc((size_t)s->nhosts, sizeof(*s->victims)));
	s->server_hosts =
	    checked(calloc((size_t)s->nhosts, sizeof(*s->server_hosts)));
	s->packet_ps = (long long)p->packet_bytes * 8 * 1000 / p->link_gbps;
	s->end_ps = p->duration_ms * 1000000000LL;
}

/* Parse @text, host indices and ranges "A-B,C,..." below @nhosts, into
 * @out (room for @nhosts); the count into *count. */
static int parse_hosts(const char *name, const char *text, int nhosts, int *out,
                       int *count)
{
	const char *at = text;

	*count = 0;
	while (*at) {
		char *end;
		long a, b;

		errno = 0;
		a = b = strtol(at, &end, 10);
		if (end != at && *end == '-')
			b = strtol(end + 1, &end, 10);
		if (errno || end == at || (*end && *end != ',') || a < 0 ||
		    b < a || b >= nhosts || *count + (b - a) >= nhosts) {
			fprintf(stderr,
			        "fabric_sim: --%s '%s': not host indices or "
			        "ranges A-B in 0 .. %d, each host once\n",
			        name, text, nhosts - 1);
			return -1;
		}
		for (long h = a; h <= b; h++)
			out[(*count)++] = (int)h;
		at = *end ? end + 1 : end;
	}
	if (*count == 0) {
		fprintf(stderr, "fabric_sim: --%s '%s': no host\n", name, text);
		return -1;
	}
	return 0;
}

/* Give @count hosts of @list @role; each must have none yet. */
static int claim(const char *name, int *roles, const int *list, int count,
                 enum role role)
{
	static const char *const what[] = {"", "an I/O server", "an I/O client",
	                                   "already in a job"};

	for (int i = 0; i < count; i++) {
		if (roles[list[i]] != R_NONE) {
			fprintf(stderr, "fabric_sim: --%s: host %d is %s\n",
			        name, list[i], what[roles[list[i]]]);
			return -1;
		}
		roles[list[i]] = role;
	}
	return 0;
}

/* One MPI job of @count hosts: pairs half its list apart. */
static void add_job(struct sim *s, const int *hosts, int count)
{
	int first = s->nvictims;

	for (int k = 0; k < count; k++)
		s->victims[first + k] = (struct victim){
		    hosts[k], hosts[(k + count / 2) % count], s->njobs};
	s->nvictims += count;
	s->njobs++;
}

/* The MPI jobs of --jobs, '/' between jobs; or one set of every host
 * without a role, in host order: pairs half the list apart, so that on a
 * fabric shared by several jobs some paths cross the links and buffers
 * the I/O fills and some do not, as with the random placement. */
static int place_jobs(struct sim *s, int *roles, int *list)
{
	char copy[4096], *save = NULL;
	int count = 0;

	if (!s->p->jobs) {
		for (int h = 0; h < s->nhosts; h++)
			if (roles[h] == R_NONE)
				list[count++] = h;
		if (count < 2) {
			fprintf(stderr, "fabric_sim: needs 2 hosts left for "
			                "victims\n");
			return -1;
		}
		add_job(s, list, count);
		return 0;
	}
	if (strlen(s->p->jobs) >= sizeof(copy)) {
		fprintf(stderr, "fabric_sim: --jobs: list too long\n");
		return -1;
	}
	strcpy(copy, s->p->jobs);
	for (char *job = strtok_r(copy, "/", &save); job;
	     job = strtok_r(NULL, "/", &save)) {
		if (parse_hosts("jobs", job, s->nhosts, list, &count) ||
		    claim("jobs", roles, list, count, R_VICTIM))
			return -1;
		if (count < 2) {
			fprintf(stderr,
			        "fabric_sim: --jobs '%s': a job of "
			        "one host sends nothing on the "
			        "fabric\n",
			        job);
			return -1;
		}
		add_job(s, list, count);
	}
	if (s->njobs == 0) {
		fprintf(stderr, "fabric_sim: --jobs: no job\n");
		return -1;
	}
	return 0;
}

/* Clients: the first clients_per_leaf hosts of leaves 1..client_leaves;
 * servers: --server-hosts or the first --servers hosts of leaf 0; victims:
 * place_jobs.  Fails with one line naming the conflict. */
static int place_roles(struct sim *s)
{
	const struct params *p = s->p;
	int *roles = checked(calloc((size_t)s->nhosts, sizeof(*roles)));
	int *list = checked(calloc((size_t)s->nhosts, sizeof(*list)));
	int rc = 0;

	if (p->client_hosts) {
		int count;

		rc = parse_hosts("client-hosts", p->client_hosts, s->nhosts,
		                 list, &count);
		if (rc == 0)
			rc =
			    claim("client-hosts", roles, list, count, R_CLIENT);
		for (int c = 0; rc == 0 && c < count; c++)
			s->clients[s->nclients++].host = list[c];
	}
	for (int h = 0; !p->client_hosts && h < s->nhosts; h++) {
		int leaf = leaf_of(s, h);
		if (leaf >= 1 && leaf <= p->client_leaves &&
		    h % p->hosts < p->clients_per_leaf) {
			s->clients[s->nclients++].host = h;
			roles[h] = R_CLIENT;
		}
	}
	if (rc == 0 && p->server_hosts) {
		rc = parse_hosts("server-hosts", p->server_hosts, s->nhosts,
		                 s->server_hosts, &s->nservers);
		if (rc == 0)
			rc = claim("server-hosts", roles, s->server_hosts,
			           s->nservers, R_SERVER);
	} else if (rc == 0) {
		for (s->nservers = 0; s->nservers < p->servers; s->nservers++)
			s->server_hosts[s->nservers] = s->nservers;
		rc = claim("servers", roles, s->server_hosts, s->nservers,
		           R_SERVER);
	}
	if (rc == 0)
		rc = place_jobs(s, roles, list);
	if (rc == 0) {
		s->latency =
		    checked(calloc((size_t)s->njobs, sizeof(*s->latency)));
		s->alone = checked(calloc((size_t)s->njobs, sizeof(*s->alone)));
	}
	free(roles);
	free(list);
	return rc;
}

static int by_value(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* Mean and 99th percentile (nearest rank) of a run's samples, in us. */
static struct job_figures figures_of(struct samples *x)
{
	struct job_figures f = {0, 0, x->n};
	double sum = 0;

	if (x->n == 0)
		return f;
	qsort(x->v, (size_t)x->n, sizeof(*x->v), by_value);
	for (int i = 0; i < x->n; i++)
		sum += (double)x->v[i];
	f.mean_us = sum / x->n / 1e6;
	f.p99_us = (double)x->v[(99LL * x->n + 99) / 100 - 1] / 1e6;
	return f;
}

/* A run's figures to stderr: the I/O delivered to the servers, then per
 * job its latency and, after an --alone run, the ratios to it. */
static void print_figures(struct sim *s, int with_io)
{
	const char *run = with_io ? "io" : "alone";
	double seconds = s->p->duration_ms / 1e3;

	fprintf(stderr,
	        "fabric_sim: %s window %lld us: io_bytes=%lld "
	        "io_GBps=%.3f servers=%d clients=%d\n",
	        run, s->window_us, s->io_bytes, s->io_bytes / seconds / 1e9,
	        s->nservers, s->nclients);
	for (int j = 0; j < s->njobs; j++) {
		struct job_figures f = figures_of(&s->latency[j]);
		const struct job_figures *a = &s->alone[j];
		int hosts = 0;

		for (int v = 0; v < s->nvictims; v++)
			hosts += s->victims[v].job == j;
		if (!with_io)
			s->alone[j] = f;
		fprintf(stderr,
		        "fabric_sim: %s window %lld us: job=%d hosts=%d "
		        "messages=%d mean_us=%.4f p99_us=%.4f",
		        run, s->window_us, j, hosts, f.messages, f.mean_us,
		        f.p99_us);
		if (with_io && s->p->alone && a->messages && f.messages)
			fprintf(stderr, " mean_x=%.4f p99_x=%.4f",
			        f.mean_us / a->mean_us, f.p99_us / a->p99_us);
		fprintf(stderr, "\n");
	}
}

int main(int argc, char **argv)
{
	struct params p;
	struct sim s;

	if (parse_params(argc, argv, &p)) {
		usage(stderr);
		return 2;
	}
	build(&s, &p);
	if (place_roles(&s)) {
		usage(stderr);
		return 2;
	}
	printf("# topoplace-sweep v2 fabric_sim leaves=%d hosts=%d spines=%d "
	       "link_gbps=%d buffer_bytes=%d routing=%s phase=%s seed=%lld "
	       "duration_ms=%lld\n"
	       "request_bytes,clients,interval_us,client,start_us,latency_us,"
	       "kind\n",
	       p.leaves, p.hosts, p.spines, p.link_gbps, p.buffer_bytes,
	       p.adaptive ? "adaptive" : "static", p.phase ? "on" : "off",
	       p.seed, p.duration_ms);
	for (int w = -1; w < p.nwindows; w++) {
		if (w < 0 && !p.alone)
			continue;
		s.rows = s.events = 0;
		run(&s, w < 0 ? 0 : p.windows_us[w], w >= 0);
		fprintf(
		    stderr,
		    "fabric_sim: %s window %lld us: %lld events, %lld rows\n",
		    w < 0 ? "alone" : "io", w < 0 ? 0 : p.windows_us[w],
		    s.events, s.rows);
		print_figures(&s, w >= 0);
	}
	for (int j = 0; j < s.njobs; j++)
		free(s.latency[j].v);
	free(s.latency);
	free(s.alone);
	free(s.server_hosts);
	free(s.buffers);
	free(s.links);
	free(s.packets);
	free(s.heap);
	free(s.clients);
	free(s.victims);
	return fflush(stdout) == 0 ? 0 : 1;
}
