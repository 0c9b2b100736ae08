/*
 * tp_log.c: formatting front end for the caller-installed log sink.
 */
#include "tp_config.h"

#include <stdarg.h>
#include <stdio.h>

#include "tp_log.h"

void tp_log(const tp_logger *logger, tp_log_level level, const char *fmt, ...)
{
	char message[1024];
	va_list ap;

	if (!logger || !logger->sink || level > logger->max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	logger->sink(logger->sink_data, level, message);
}

const char *tp_log_level_name(tp_log_level level)
{
	switch (level) {
	case TP_LOG_ERROR:
		return "error";
	case TP_LOG_WARNING:
		return "warning";
	case TP_LOG_INFO:
		return "info";
	case TP_LOG_DEBUG:
		return "debug";
	}
	return "unknown";
}
