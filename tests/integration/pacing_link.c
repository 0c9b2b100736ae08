/*
 * pacing_link.c: the traffic of the shared-link experiment
 * (bench/pacing_link_bench.sh, tests/integration/pacing_link.sh): I/O
 * clients that write large messages to a sink over TCP and a victim that
 * ping-pongs small messages, both across one rate-limited link.
 *
 *   pacing_link sink ADDR PORT BYTES
 *       accept connections; on each, read messages of BYTES and answer
 *       each with one byte (the "request done" of a storage write).
 *   pacing_link echo ADDR PORT BYTES
 *       accept connections; on each, read BYTES and send them back.
 *   pacing_link writer ADDR PORT BYTES RATE_BYTES_PER_S AT_REALTIME_NS
 *                      DURATION_US
 *       one I/O client: connect, cap the socket's sending rate at RATE
 *       (SO_MAX_PACING_RATE: the client's own link, slower than the
 *       shared one), sleep until CLOCK_REALTIME reads AT, then requests
 *       back to back for DURATION_US (at least one): write(BYTES) (the
 *       call the pacing library holds back), then read the sink's byte.
 *       Prints "t0_ns=T" (CLOCK_MONOTONIC at AT) and one "done_ns=N" per
 *       request: the start of each request is the library's to record
 *       (TOPOPLACE_IO_PACING_STATS), since it alone knows when it let the
 *       call go.
 *   pacing_link ping ADDR PORT BYTES INTERVAL_US AT_REALTIME_NS DURATION_US
 *       the victim: from AT on, every INTERVAL_US send BYTES to an echo
 *       server and wait for them back; prints one "START_US LATENCY_US"
 *       line per message (start from AT, latency = round trip).
 *
 * Results go out through stdio, which the pacing library does not pace.
 * Exit status 0, or 1 with one line on stderr naming the failing call.
 */
#include "tp_config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_RECORDS 1000000

static long long clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(clockid_t clock, long long t_ns)
{
	struct timespec ts = {(time_t)(t_ns / 1000000000LL),
	                      (long)(t_ns % 1000000000LL)};

	while (clock_nanosleep(clock, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int fail(const char *what)
{
	fprintf(stderr, "pacing_link: %s: %s\n", what, strerror(errno));
	return 1;
}

static int parse_address(const char *addr, const char *port,
                         struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((unsigned short)atoi(port));
	return inet_pton(AF_INET, addr, &sa->sin_addr) == 1 ? 0 : -1;
}

/* Exactly @len bytes, or -1 (0: the peer closed first). */
static ssize_t read_full(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int write_full(int fd, const char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

static int connect_to(const char *addr, const char *port)
{
	struct sockaddr_in sa;
	int fd, one = 1;

	if (parse_address(addr, port, &sa) != 0) {
		fprintf(stderr, "pacing_link: bad address %s\n", addr);
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail("socket"), -1;
	/* Small messages leave at once, as MPI's do. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fail("connect");
		close(fd);
		return -1;
	}
	return fd;
}

struct conn {
	int fd;
	size_t bytes;
	int echo; /* 1: send the message back; 0: answer one byte */
};

static void *serve(void *arg)
{
	struct conn c = *(struct conn *)arg;
	char *buf = malloc(c.bytes);

	free(arg);
	while (buf && read_full(c.fd, buf, c.bytes) > 0)
		if (write_full(c.fd, buf, c.echo ? c.bytes : 1) != 0)
			break;
	free(buf);
	close(c.fd);
	return NULL;
}

/* sink and echo: one thread per connection, until killed. */
static int run_server(const char *addr, const char *port, size_t bytes,
                      int echo)
{
	struct sockaddr_in sa;
	int lfd, one = 1;

	if (parse_address(addr, port, &sa) != 0) {
		fprintf(stderr, "pacing_link: bad address %s\n", addr);
		return 1;
	}
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return fail("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return fail("bind");
	if (listen(lfd, 128) != 0)
		return fail("listen");
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		struct conn *c;
		pthread_t tid;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return fail("accept");
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = malloc(sizeof(*c));
		if (!c)
			return fail("malloc");
		*c = (struct conn){fd, bytes, echo};
		if (pthread_create(&tid, NULL, serve, c) != 0) {
			free(c);
			close(fd);
			continue;
		}
		pthread_detach(tid);
	}
}

static int run_writer(char **argv)
{
	size_t bytes = strtoull(argv[4], NULL, 10);
	unsigned long long rate = strtoull(argv[5], NULL, 10);
	long long at = strtoll(argv[6], NULL, 10);
	long long duration_ns = strtoll(argv[7], NULL, 10) * 1000LL;
	long long *done = malloc(MAX_RECORDS * sizeof(*done));
	char *buf = malloc(bytes), ack;
	long long t0;
	size_t n = 0;
	int fd;

	if (!done || !buf || bytes < 1)
		return fprintf(stderr, "pacing_link: writer: bad size or no "
		                       "memory\n"),
		       1;
	for (size_t i = 0; i < bytes; i++)
		buf[i] = (char)(i * 131 + 7);
	fd = connect_to(argv[2], argv[3]);
	if (fd < 0)
		return 1;
	if (rate && setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate,
	                       sizeof(rate)) != 0)
		return fail("setsockopt SO_MAX_PACING_RATE");
	sleep_until(CLOCK_REALTIME, at);
	t0 = clock_ns(CLOCK_MONOTONIC);
	do {
		if (write_full(fd, buf, bytes) != 0)
			return fail("write");
		if (read_full(fd, &ack, 1) != 1)
			return fail("read of the sink's answer");
		done[n++] = clock_ns(CLOCK_MONOTONIC);
	} while (n < MAX_RECORDS && done[n - 1] - t0 < duration_ns);
	close(fd);
	printf("t0_ns=%lld\n", t0);
	for (size_t i = 0; i < n; i++)
		printf("done_ns=%lld\n", done[i]);
	free(done);
	free(buf);
	return fflush(stdout) == 0 ? 0 : fail("stdout");
}

static int run_ping(char **argv)
{
	size_t bytes = strtoull(argv[4], NULL, 10);
	long long interval_ns = strtoll(argv[5], NULL, 10) * 1000LL;
	long long at = strtoll(argv[6], NULL, 10);
	long long duration_ns = strtoll(argv[7], NULL, 10) * 1000LL;
	double *start_us = malloc(MAX_RECORDS * sizeof(*start_us));
	double *rtt_us = malloc(MAX_RECORDS * sizeof(*rtt_us));
	char *buf = malloc(bytes);
	long long t0;
	size_t n = 0;
	int fd;

	if (!start_us || !rtt_us || !buf || bytes < 1 || interval_ns < 1)
		return fprintf(stderr, "pacing_link: ping: bad arguments or "
		                       "no memory\n"),
		       1;
	memset(buf, 0x5a, bytes);
	fd = connect_to(argv[2], argv[3]);
	if (fd < 0)
		return 1;
	sleep_until(CLOCK_REALTIME, at);
	t0 = clock_ns(CLOCK_MONOTONIC);
	for (long long k = 0; n < MAX_RECORDS; k++) {
		long long sched = t0 + k * interval_ns, start;

		if (sched - t0 >= duration_ns)
			break;
		sleep_until(CLOCK_MONOTONIC, sched);
		start = clock_ns(CLOCK_MONOTONIC);
		if (write_full(fd, buf, bytes) != 0)
			return fail("write");
		if (read_full(fd, buf, bytes) != (ssize_t)bytes)
			return fail("read of the echo");
		start_us[n] = (double)(start - t0) / 1000.0;
		rtt_us[n++] =
		    (double)(clock_ns(CLOCK_MONOTONIC) - start) / 1000.0;
	}
	close(fd);
	for (size_t i = 0; i < n; i++)
		printf("%.3f %.3f\n", start_us[i], rtt_us[i]);
	free(start_us);
	free(rtt_us);
	free(buf);
	return fflush(stdout) == 0 ? 0 : fail("stdout");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if ((!strcmp(mode, "sink") || !strcmp(mode, "echo")) && argc == 5)
		return run_server(argv[2], argv[3], strtoull(argv[4], NULL, 10),
		                  !strcmp(mode, "echo"));
	if (!strcmp(mode, "writer") && argc == 8)
		return run_writer(argv);
	if (!strcmp(mode, "ping") && argc == 8)
		return run_ping(argv);
	fprintf(stderr, "usage: pacing_link sink|echo ADDR PORT BYTES\n"
	                "       pacing_link writer ADDR PORT BYTES RATE AT_NS "
	                "DURATION_US\n"
	                "       pacing_link ping ADDR PORT BYTES INTERVAL_US "
	                "AT_NS DURATION_US\n");
	return 2;
}
