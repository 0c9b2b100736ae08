/*
 * tp_log.h: the core's only way to say something.
 *
 * The core never prints.  Callers install a sink: the CLI writes to stderr,
 * the Slurm plugins forward to Slurm's error()/info()/debug().  A NULL logger
 * or a logger with no sink drops messages.
 */
#ifndef TP_LOG_H
#define TP_LOG_H

typedef enum tp_log_level {
	TP_LOG_ERROR = 0,
	TP_LOG_WARNING,
	TP_LOG_INFO,
	TP_LOG_DEBUG,
} tp_log_level;

typedef void (*tp_log_sink)(void *sink_data, tp_log_level level,
			    const char *message);

typedef struct tp_logger {
	tp_log_sink sink;
	void *sink_data;
	tp_log_level max_level; /* messages above this level are dropped */
} tp_logger;

/* Format a message and hand it to @logger's sink (NULL-safe). */
void tp_log(const tp_logger *logger, tp_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "error", "warning", "info", "debug". */
const char *tp_log_level_name(tp_log_level level);

#endif /* TP_LOG_H */
