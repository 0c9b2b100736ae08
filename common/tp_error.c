/*
 * tp_error.c: error objects with context for the topoplace core.
 */
#include "tp_config.h"

#include <stdio.h>
#include <string.h>

#include "tp_error.h"

tp_status tp_error_set(tp_error *err, tp_status code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return code;
}

tp_status tp_error_prefix(tp_error *err, const char *fmt, ...)
{
	char joined[TP_ERROR_MESSAGE_MAX];
	size_t used, rest;
	va_list ap;
	int n;

	if (!err)
		return TP_OK;
	va_start(ap, fmt);
	n = vsnprintf(joined, sizeof(joined), fmt, ap);
	va_end(ap);
	used = n < 0 ? 0 : (size_t)n;
	/* Truncate from the end: a cut message still names the outer context. */
	if (used > sizeof(joined) - 1)
		used = sizeof(joined) - 1;
	rest = sizeof(joined) - 1 - used;
	if (rest >= 2) {
		memcpy(joined + used, ": ", 2);
		used += 2;
		rest -= 2;
		n = (int)strnlen(err->message, rest);
		memcpy(joined + used, err->message, (size_t)n);
		used += (size_t)n;
	}
	joined[used] = '\0';
	memcpy(err->message, joined, used + 1);
	return err->code;
}

void tp_error_clear(tp_error *err)
{
	if (!err)
		return;
	err->code = TP_OK;
	err->message[0] = '\0';
}

const char *tp_status_name(tp_status code)
{
	switch (code) {
	case TP_OK:
		return "success";
	case TP_ERR_INVALID:
		return "invalid argument";
	case TP_ERR_PARSE:
		return "parse error";
	case TP_ERR_IO:
		return "I/O error";
	case TP_ERR_NOMEM:
		return "out of memory";
	case TP_ERR_LIMIT:
		return "limit exceeded";
	case TP_ERR_NOTFOUND:
		return "not found";
	case TP_ERR_AUTH:
		return "authentication refused";
	case TP_ERR_BUDGET:
		return "time budget exceeded";
	case TP_ERR_UNSUPPORTED:
		return "unsupported";
	case TP_ERR_INTERNAL:
		return "internal error";
	}
	return "unknown error";
}
