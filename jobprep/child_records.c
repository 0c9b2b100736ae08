/*
 * child_records.c: the one-line records of a daemon's bounded child
 * (child_records.h).
 */
#include "tp_config.h"

#include "child_records.h"

#include <string.h>

/* A name the environment can hold and one line can carry. */
static bool valid_name(const char *name)
{
	return name && name[0] && !strpbrk(name, "=\n");
}

static tp_status add_note(tp_strbuf *out, const char *text, tp_error *err)
{
	tp_strbuf_append(out, "N ", 2);
	for (const char *p = text ? text : ""; *p;) {
		size_t run = strcspn(p, "\n");

		tp_strbuf_append(out, p, run);
		p += run;
		if (*p) {
			tp_strbuf_append(out, " ", 1);
			p++;
		}
	}
	tp_strbuf_append(out, "\n", 1);
	if (tp_strbuf_failed(out))
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "child record: out of memory");
	return TP_OK;
}

tp_status tp_child_record_add(tp_strbuf *out, tp_child_record_kind kind,
                              const char *name, const char *value,
                              tp_error *err)
{
	if (kind == TP_CHILD_RECORD_NOTE)
		return add_note(out, value, err);
	if (!valid_name(name))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "environment variable name \"%.64s\": "
		                    "empty or holding '=' or a newline: not "
		                    "handed back",
		                    name ? name : "");
	if (kind == TP_CHILD_RECORD_UNSET)
		tp_strbuf_printf(out, "U %s\n", name);
	else if (kind == TP_CHILD_RECORD_SET) {
		if (!value || strchr(value, '\n'))
			return tp_error_set(err, TP_ERR_INVALID,
			                    "environment variable %.64s: its "
			                    "value holds a newline: not handed "
			                    "back",
			                    name);
		tp_strbuf_printf(out, "E %s=%s\n", name, value);
	} else
		return tp_error_set(err, TP_ERR_INVALID,
		                    "child record kind %d: unknown", (int)kind);
	if (tp_strbuf_failed(out))
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "child record: out of memory");
	return TP_OK;
}

/* Pass one line on; false when it is no record. */
static bool each_line(char *line, tp_child_record_fn fn, void *ctx)
{
	char *eq;

	if (!strcmp(line, "D"))
		return true;
	if (line[0] == '\0' || line[1] != ' ')
		return false;
	switch (line[0]) {
	case TP_CHILD_RECORD_NOTE:
		fn(TP_CHILD_RECORD_NOTE, NULL, line + 2, ctx);
		return true;
	case TP_CHILD_RECORD_UNSET:
		if (!valid_name(line + 2))
			return false;
		fn(TP_CHILD_RECORD_UNSET, line + 2, NULL, ctx);
		return true;
	case TP_CHILD_RECORD_SET:
		eq = strchr(line + 2, '=');
		if (!eq || eq == line + 2)
			return false;
		*eq = '\0';
		fn(TP_CHILD_RECORD_SET, line + 2, eq + 1, ctx);
		return true;
	default:
		return false;
	}
}

size_t tp_child_records_each(char *records, tp_child_record_fn fn, void *ctx)
{
	size_t skipped = 0;

	for (char *line = records; line && *line;) {
		char *end = strchr(line, '\n');

		if (end)
			*end = '\0';
		/* An empty line is no record, but no error either. */
		if (*line && !each_line(line, fn, ctx))
			skipped++;
		line = end ? end + 1 : NULL;
	}
	return skipped;
}

bool tp_child_records_done(const char *records, size_t len)
{
	size_t n = strlen(TP_CHILD_RECORD_DONE);

	return len >= n && !memcmp(records + len - n, TP_CHILD_RECORD_DONE, n) &&
	       (len == n || records[len - n - 1] == '\n');
}
