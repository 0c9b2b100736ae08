/*
 * tp_json.c: a streaming JSON writer (see tp_json.h).
 */
#include "tp_config.h"

#include "tp_json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void tp_json_init(tp_json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

__attribute__((format(printf, 2, 3))) static void misuse(tp_json *j,
                                                         const char *fmt, ...)
{
	va_list ap;

	if (j->status != TP_OK)
		return;
	j->status = TP_ERR_INTERNAL;
	va_start(ap, fmt);
	vsnprintf(j->problem, sizeof(j->problem), fmt, ap);
	va_end(ap);
}

static void indent(tp_json *j)
{
	fputc('\n', j->out);
	for (uint32_t i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/*
 * One UTF-8 sequence starting at @s (at most @left bytes): its length if it
 * is well formed (shortest form, no surrogates, at most U+10FFFF), else 0.
 */
static size_t utf8_length(const unsigned char *s, size_t left)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > left)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void write_string(FILE *out, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t left = strlen(text);

	fputc('"', out);
	while (left) {
		size_t len = utf8_length(s, left);

		if (len == 0) {
			fputs("\\ufffd", out);
			len = 1;
		} else if (*s == '"' || *s == '\\') {
			fputc('\\', out);
			fputc(*s, out);
		} else if (*s == '\n') {
			fputs("\\n", out);
		} else if (*s == '\t') {
			fputs("\\t", out);
		} else if (*s == '\r') {
			fputs("\\r", out);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(out, "\\u%04x", *s);
		} else {
			fwrite(s, 1, len, out);
		}
		s += len;
		left -= len;
	}
	fputc('"', out);
}

/*
 * Start a value: the comma and indentation it needs, and its key where the
 * container is an object.  False when the value must not be written.
 */
static bool begin_value(tp_json *j, const char *key)
{
	if (j->status != TP_OK)
		return false;
	if (j->depth == 0) {
		if (key || j->has_member[0]) {
			misuse(j, "a value outside the document (key '%s')",
			       key ? key : "(none)");
			return false;
		}
		j->has_member[0] = true;
		return true;
	}
	if (j->is_array[j->depth - 1] != !key) {
		misuse(j,
		       key ? "key '%s' inside an array"
		           : "a value without a key inside an object%s",
		       key ? key : "");
		return false;
	}
	if (j->has_member[j->depth - 1])
		fputc(',', j->out);
	j->has_member[j->depth - 1] = true;
	indent(j);
	if (key) {
		write_string(j->out, key);
		fputs(": ", j->out);
	}
	return true;
}

static void open_container(tp_json *j, const char *key, bool array)
{
	if (j->depth + 1 >= TP_JSON_MAX_DEPTH) {
		misuse(j, "nesting deeper than %d levels", TP_JSON_MAX_DEPTH);
		return;
	}
	if (!begin_value(j, key))
		return;
	fputc(array ? '[' : '{', j->out);
	j->depth++;
	j->is_array[j->depth - 1] = array;
	j->has_member[j->depth - 1] = false;
}

static void close_container(tp_json *j, bool array)
{
	bool had_members;

	if (j->status != TP_OK)
		return;
	if (j->depth == 0 || j->is_array[j->depth - 1] != array) {
		misuse(j, "an end of %s with no %s open",
		       array ? "array" : "object", array ? "array" : "object");
		return;
	}
	had_members = j->has_member[j->depth - 1];
	j->depth--;
	if (had_members)
		indent(j);
	fputc(array ? ']' : '}', j->out);
	if (j->depth == 0)
		fputc('\n', j->out);
}

void tp_json_begin_document(tp_json *j, const char *name, unsigned version)
{
	char schema[96];

	snprintf(schema, sizeof(schema), "topoplace.%s", name);
	open_container(j, NULL, false);
	tp_json_string(j, "schema", schema);
	tp_json_uint(j, "version", version);
}

void tp_json_end_document(tp_json *j)
{
	close_container(j, false);
}

void tp_json_begin_object(tp_json *j, const char *key)
{
	open_container(j, key, false);
}

void tp_json_end_object(tp_json *j)
{
	close_container(j, false);
}

void tp_json_begin_array(tp_json *j, const char *key)
{
	open_container(j, key, true);
}

void tp_json_end_array(tp_json *j)
{
	close_container(j, true);
}

void tp_json_string(tp_json *j, const char *key, const char *value)
{
	if (!begin_value(j, key))
		return;
	if (value)
		write_string(j->out, value);
	else
		fputs("null", j->out);
}

void tp_json_uint(tp_json *j, const char *key, uint64_t value)
{
	if (begin_value(j, key))
		fprintf(j->out, "%" PRIu64, value);
}

void tp_json_int(tp_json *j, const char *key, int64_t value)
{
	if (begin_value(j, key))
		fprintf(j->out, "%" PRId64, value);
}

void tp_json_double(tp_json *j, const char *key, double value)
{
	if (!begin_value(j, key))
		return;
	char text[32];

	/* JSON has no inf or nan. */
	if (!isfinite(value)) {
		fputs("null", j->out);
		return;
	}
	/*
	 * The shortest of %.15g and %.17g that reads back as @value: 0.1
	 * stays 0.1, and every double still round-trips.
	 */
	snprintf(text, sizeof(text), "%.15g", value);
	if (strtod(text, NULL) != value)
		snprintf(text, sizeof(text), "%.17g", value);
	fputs(text, j->out);
}

void tp_json_bool(tp_json *j, const char *key, bool value)
{
	if (begin_value(j, key))
		fputs(value ? "true" : "false", j->out);
}

void tp_json_null(tp_json *j, const char *key)
{
	if (begin_value(j, key))
		fputs("null", j->out);
}

tp_status tp_json_finish(tp_json *j, tp_error *err)
{
	if (j->status != TP_OK)
		return tp_error_set(err, j->status, "JSON output: %s",
		                    j->problem);
	if (j->depth)
		return tp_error_set(err, TP_ERR_INTERNAL,
		                    "JSON output: %u container(s) left open",
		                    j->depth);
	if (!j->has_member[0])
		return tp_error_set(err, TP_ERR_INTERNAL,
		                    "JSON output: no document written");
	if (fflush(j->out) != 0 || ferror(j->out))
		return tp_error_set(err, TP_ERR_IO, "JSON output: write error");
	return TP_OK;
}
