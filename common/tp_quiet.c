/*
 * tp_quiet.c: METIS's prints and SIGTERM trap kept from the caller (see
 * tp_quiet.h).
 */
#include "tp_config.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "tp_quiet.h"

static void stdout_to_null(tp_quiet *q)
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

void tp_quiet_begin(tp_quiet *q)
{
	sigset_t term;

	stdout_to_null(q);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	/* Blocked before METIS can touch the action, saved after. */
	q->masked = pthread_sigmask(SIG_BLOCK, &term, &q->old_mask) == 0;
	q->term_saved = sigaction(SIGTERM, NULL, &q->old_term) == 0;
	q->abrt_saved = sigaction(SIGABRT, NULL, &q->old_abrt) == 0;
}

void tp_quiet_end(tp_quiet *q)
{
	if (q->saved_fd >= 0) {
		fflush(stdout);
		dup2(q->saved_fd, STDOUT_FILENO);
		close(q->saved_fd);
		q->saved_fd = -1;
	}
	/* METIS put them back with signal(): flags and mask lost. */
	if (q->abrt_saved)
		sigaction(SIGABRT, &q->old_abrt, NULL);
	if (q->term_saved)
		sigaction(SIGTERM, &q->old_term, NULL);
	q->term_saved = q->abrt_saved = false;
	/* Last: a pending SIGTERM may end the process right here. */
	if (q->masked) {
		pthread_sigmask(SIG_SETMASK, &q->old_mask, NULL);
		q->masked = false;
	}
}
