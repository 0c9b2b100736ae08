/*
 * tp_error.h: how the topoplace core reports failure.
 *
 * Every core function that can fail returns a tp_status and, when the caller
 * passes a tp_error, fills it with one line that names the input and the
 * place ("profile alice/lulesh: line 12: rank 80 >= ranks 64").  The core
 * never prints, never exits and never aborts: the caller decides what to do
 * (the CLI prints the message, a Slurm plugin logs it and falls back).
 */
#ifndef TP_ERROR_H
#define TP_ERROR_H

#include <stdarg.h>
#include <stddef.h>

typedef enum tp_status {
	TP_OK = 0,
	TP_ERR_INVALID,     /* bad argument or value given by the caller */
	TP_ERR_PARSE,       /* malformed input file or text */
	TP_ERR_IO,          /* a file or device could not be read or written */
	TP_ERR_NOMEM,       /* an allocation failed */
	TP_ERR_LIMIT,       /* input larger than a configured bound */
	TP_ERR_NOTFOUND,    /* a named thing does not exist */
	TP_ERR_AUTH,        /* a credential was refused */
	TP_ERR_BUDGET,      /* the time budget ran out: no opinion */
	TP_ERR_UNSUPPORTED, /* valid request the core cannot serve */
	TP_ERR_INTERNAL,    /* a broken invariant: a bug */
} tp_status;

#define TP_ERROR_MESSAGE_MAX 512

typedef struct tp_error {
	tp_status code;
	char message[TP_ERROR_MESSAGE_MAX];
} tp_error;

/*
 * Record an error in @err (which may be NULL) and return @code, so a failing
 * path reads `return tp_error_set(err, TP_ERR_PARSE, "%s: line %d: ...")`.
 * Messages longer than TP_ERROR_MESSAGE_MAX - 1 bytes are truncated.
 */
tp_status tp_error_set(tp_error *err, tp_status code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Put context in front of an error already recorded in @err, giving
 * "<context>: <previous message>".  Returns err->code (TP_OK if err is NULL).
 */
tp_status tp_error_prefix(tp_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Reset @err to "no error". */
void tp_error_clear(tp_error *err);

/* A short, stable name for @code ("parse error", "out of memory", ...). */
const char *tp_status_name(tp_status code);

#endif /* TP_ERROR_H */
