/*
 * tp_quiet.c: stdout pointed at /dev/null around a call (see tp_quiet.h).
 */
#include "tp_config.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "tp_quiet.h"

void tp_quiet_stdout_begin(tp_quiet *q)
{
	int null_fd;

	/* What the caller printed goes out first, where it belongs. */
	fflush(stdout);
	/* Close-on-exec: never inherited by what the caller runs. */
	q->saved_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (q->saved_fd < 0)
		return;
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null_fd < 0 || dup2(null_fd, STDOUT_FILENO) < 0) {
		if (null_fd >= 0)
			close(null_fd);
		close(q->saved_fd);
		q->saved_fd = -1;
		return;
	}
	close(null_fd);
}

void tp_quiet_stdout_end(tp_quiet *q)
{
	if (q->saved_fd < 0)
		return;
	fflush(stdout);
	dup2(q->saved_fd, STDOUT_FILENO);
	close(q->saved_fd);
	q->saved_fd = -1;
}
