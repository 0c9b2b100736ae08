/*
 * csv.c: strict line and field scanning for the throttle file formats.
 */
#include "tp_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "tp_file.h"

void tp_csv_init(tp_csv *csv, const char *name, const char *text, size_t len)
{
	memset(csv, 0, sizeof(*csv));
	csv->name = name ? name : "(input)";
	csv->text = text;
	csv->len = text ? len : 0;
}

tp_status tp_csv_next_line(tp_csv *csv, int *have, tp_error *err)
{
	size_t n = 0;

	*have = 0;
	csv->field_count = 0;
	if (csv->pos >= csv->len)
		return TP_OK;
	csv->line_no++;
	while (csv->pos < csv->len && csv->text[csv->pos] != '\n') {
		unsigned char c = (unsigned char)csv->text[csv->pos];

		if (n >= TP_CSV_MAX_LINE)
			return tp_error_set(
			    err, TP_ERR_PARSE,
			    "%s: line %lu: longer than %d bytes", csv->name,
			    csv->line_no, TP_CSV_MAX_LINE);
		/* Control bytes (NUL included) never belong in these files;
		 * a trailing CR (CRLF files) is dropped below. */
		if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: line %lu: column %zu: control "
			                    "byte 0x%02x",
			                    csv->name, csv->line_no, n + 1, c);
		csv->line[n++] = (char)c;
		csv->pos++;
	}
	if (csv->pos < csv->len)
		csv->pos++; /* the newline */
	if (n > 0 && csv->line[n - 1] == '\r')
		n--;
	csv->line[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (csv->line[i] == '\r')
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: line %lu: column %zu: stray "
			                    "carriage return",
			                    csv->name, csv->line_no, i + 1);
	*have = 1;
	return TP_OK;
}

tp_status tp_csv_next_row(tp_csv *csv, const char *magic, const char *header,
                          const char *kind, int *have, tp_error *err)
{
	tp_status st;

	for (;;) {
		if ((st = tp_csv_next_line(csv, have, err)) != TP_OK)
			return st;
		if (!*have)
			break;
		if (!csv->magic_seen) {
			size_t m = strlen(magic);

			if (strncmp(csv->line, magic, m) ||
			    (csv->line[m] && csv->line[m] != ' '))
				return tp_error_set(err, TP_ERR_PARSE,
				                    "%s: line %lu: column 1: "
				                    "not a topoplace %s "
				                    "(first line must be '%s')",
				                    csv->name, csv->line_no,
				                    kind, magic);
			csv->magic_seen = 1;
			continue;
		}
		if (csv->line[0] == '#' || csv->line[0] == '\0')
			continue;
		if (!csv->header_seen) {
			if (strcmp(csv->line, header))
				return tp_error_set(err, TP_ERR_PARSE,
				                    "%s: line %lu: column 1: "
				                    "expected the column "
				                    "header '%s'",
				                    csv->name, csv->line_no,
				                    header);
			csv->header_seen = 1;
			continue;
		}
		return TP_OK;
	}
	if (!csv->magic_seen)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %lu: '%s' line missing",
		                    csv->name, csv->line_no + 1, magic);
	if (!csv->header_seen)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %lu: column header missing",
		                    csv->name, csv->line_no + 1);
	return TP_OK;
}

tp_status tp_csv_split(tp_csv *csv, size_t expected, tp_error *err)
{
	char *p = csv->line;
	size_t count = 0;

	for (;;) {
		char *comma = strchr(p, ',');

		if (count == TP_CSV_MAX_FIELDS || count == expected)
			return tp_error_set(
			    err, TP_ERR_PARSE,
			    "%s: line %lu: column %zu: more than %zu fields",
			    csv->name, csv->line_no,
			    (size_t)(p - csv->line) + 1, expected);
		csv->fields[count] = p;
		csv->columns[count] = (unsigned)(p - csv->line) + 1;
		count++;
		if (!comma)
			break;
		*comma = '\0';
		p = comma + 1;
	}
	csv->field_count = count;
	if (count != expected)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %lu: %zu fields, expected %zu",
		                    csv->name, csv->line_no, count, expected);
	return TP_OK;
}

static tp_status field_error(tp_csv *csv, size_t i, const char *what,
                             const char *why, tp_error *err)
{
	return tp_error_set(err, TP_ERR_PARSE,
	                    "%s: line %lu: column %u: %s '%.40s': %s",
	                    csv->name, csv->line_no, csv->columns[i], what,
	                    csv->fields[i], why);
}

tp_status tp_csv_uint(tp_csv *csv, size_t i, const char *what, uint64_t min,
                      uint64_t max, uint64_t *value, tp_error *err)
{
	const char *p = csv->fields[i];
	uint64_t v = 0;

	if (!*p)
		return field_error(csv, i, what, "empty field", err);
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return field_error(csv, i, what,
			                   "not a whole number (digits only)",
			                   err);
		if (v > (UINT64_MAX - 9) / 10)
			return field_error(csv, i, what, "out of range", err);
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v < min || v > max)
		return field_error(csv, i, what, "out of range", err);
	*value = v;
	return TP_OK;
}

tp_status tp_csv_decimal(tp_csv *csv, size_t i, const char *what, double min,
                         double max, double *value, tp_error *err)
{
	const char *p = csv->fields[i];
	size_t digits = 0;
	double v;

	if (!*p)
		return field_error(csv, i, what, "empty field", err);
	/* Validate the shape first so strtod never sees signs, exponents,
	 * hex, inf or nan, and bound the length so it stays finite. */
	for (; *p >= '0' && *p <= '9'; p++)
		digits++;
	if (digits == 0)
		return field_error(csv, i, what, "not a plain decimal number",
		                   err);
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return field_error(csv, i, what,
			                   "not a plain decimal number", err);
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p)
		return field_error(csv, i, what, "not a plain decimal number",
		                   err);
	if (digits > 15)
		return field_error(csv, i, what, "out of range", err);
	/* By hand, not strtod: the decimal point must not follow the
	 * process locale (a daemon may run with LC_NUMERIC set). */
	v = 0;
	for (p = csv->fields[i]; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (*p - '0');
	if (*p == '.') {
		/* Fraction as an integer over a power of ten: one rounding,
		 * so "99.125" reads back exactly what %.3f wrote. */
		double frac = 0, scale = 1;

		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale < 1e15) {
				frac = frac * 10 + (*p - '0');
				scale *= 10;
			}
		v += frac / scale;
	}
	if (!(v >= min && v <= max))
		return field_error(csv, i, what, "out of range", err);
	*value = v;
	return TP_OK;
}

tp_status tp_csv_read_file(const char *path, size_t max_bytes, char **text,
                           size_t *len, tp_error *err)
{
	return tp_file_read(path, NULL, max_bytes, text, len, err);
}
