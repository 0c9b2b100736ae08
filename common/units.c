/*
 * units.c: strict duration and byte-count parsing (see units.h).
 */
#include "tp_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

/*
 * Read "digits[.digits]" at @text as a value scaled by 10^6 (micro-units),
 * exactly, so "1.5" becomes 1500000 with no floating point.  Stops at the
 * first character that is not part of the number; *end points there.
 * Returns 0 on success, -1 if there is no number or it overflows.
 */
static int scan_micro(const char *text, uint64_t *micro, const char **end,
                      int *fraction_digits_past_micro)
{
	const char *p = text;
	uint64_t whole = 0, frac = 0;
	int frac_digits = 0;

	*fraction_digits_past_micro = 0;
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX / 1000000ULL - 9) / 10)
			return -1;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (frac_digits < 6) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				frac_digits++;
			} else if (*p != '0') {
				*fraction_digits_past_micro = 1;
			}
		}
	}
	for (int i = frac_digits; i < 6; i++)
		frac *= 10;
	*micro = whole * 1000000ULL + frac;
	*end = p;
	return 0;
}

tp_status tp_units_parse_duration_us(const char *what, const char *text,
                                     uint64_t min_us, uint64_t *duration_us,
                                     tp_error *err)
{
	static const struct {
		const char *name;
		uint64_t us_per_unit;
	} units[] = {{"us", 1}, {"ms", 1000}, {"s", 1000000}};
	const char *end;
	uint64_t micro, us;
	int sub_micro;

	if (!text || !*text)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: empty duration (give e.g. 800us, "
		                    "2ms, 1.5s)",
		                    what);
	if (scan_micro(text, &micro, &end, &sub_micro) != 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s '%s': not a duration (a plain "
		                    "non-negative number with unit us, ms or "
		                    "s, e.g. 2ms)",
		                    what, text);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].name))
			continue;
		/* micro is value * 10^6; us = value * us_per_unit. */
		if (micro / 1000000ULL >
		    TP_UNITS_MAX_DURATION_US / units[i].us_per_unit)
			return tp_error_set(
			    err, TP_ERR_INVALID,
			    "%s '%s': longer than the maximum "
			    "of %llu s",
			    what, text, TP_UNITS_MAX_DURATION_US / 1000000ULL);
		if (sub_micro ||
		    (micro * units[i].us_per_unit) % 1000000ULL != 0)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s '%s': not a whole number of "
			                    "microseconds",
			                    what, text);
		us = micro * units[i].us_per_unit / 1000000ULL;
		if (us > TP_UNITS_MAX_DURATION_US)
			return tp_error_set(
			    err, TP_ERR_INVALID,
			    "%s '%s': longer than the maximum "
			    "of %llu s",
			    what, text, TP_UNITS_MAX_DURATION_US / 1000000ULL);
		if (us < min_us)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s '%s': below the minimum of "
			                    "%llu us",
			                    what, text,
			                    (unsigned long long)min_us);
		*duration_us = us;
		return TP_OK;
	}
	if (!*end)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s '%s': missing unit (us, ms or s)", what,
		                    text);
	return tp_error_set(err, TP_ERR_INVALID,
	                    "%s '%s': unknown unit '%s' (use us, ms or s)",
	                    what, text, end);
}

tp_status tp_units_parse_bytes(const char *what, const char *text,
                               uint64_t *bytes, tp_error *err)
{
	static const struct {
		const char *name;
		unsigned shift;
	} units[] = {{"", 0},     {"K", 10},   {"M", 20},  {"G", 30},
	             {"KiB", 10}, {"MiB", 20}, {"GiB", 30}};
	const char *p = text;
	uint64_t value = 0;

	if (!text || *text < '0' || *text > '9')
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s '%s': not a byte count (digits with "
		                    "an optional K, M or G, e.g. 4M)",
		                    what, text ? text : "");
	for (; *p >= '0' && *p <= '9'; p++) {
		if (value > (TP_UNITS_MAX_BYTES - 9) / 10)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s '%s': larger than 1 TiB", what,
			                    text);
		value = value * 10 + (uint64_t)(*p - '0');
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].name))
			continue;
		if (value == 0)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s '%s': must be at least 1 byte",
			                    what, text);
		if (value > TP_UNITS_MAX_BYTES >> units[i].shift)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s '%s': larger than 1 TiB", what,
			                    text);
		*bytes = value << units[i].shift;
		return TP_OK;
	}
	return tp_error_set(err, TP_ERR_INVALID,
	                    "%s '%s': unknown suffix '%s' (use K, M or G)",
	                    what, text, p);
}

tp_status tp_units_parse_count(const char *what, const char *text, uint64_t min,
                               uint64_t max, uint64_t *count, tp_error *err)
{
	const char *p = text;
	uint64_t value = 0;

	if (!text || *text < '0' || *text > '9')
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s '%s': not a whole number", what,
		                    text ? text : "");
	for (; *p >= '0' && *p <= '9'; p++) {
		if (value > (UINT64_MAX - 9) / 10)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s '%s': out of range %llu..%llu",
			                    what, text, (unsigned long long)min,
			                    (unsigned long long)max);
		value = value * 10 + (uint64_t)(*p - '0');
	}
	if (*p)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s '%s': not a whole number", what, text);
	if (value < min || value > max)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s '%s': out of range %llu..%llu", what,
		                    text, (unsigned long long)min,
		                    (unsigned long long)max);
	*count = value;
	return TP_OK;
}

void tp_units_format_us(double us, char *buf, size_t size)
{
	static const char *const unit[] = {"us", "ms", "s"};
	double v = fabs(us);
	unsigned u = 0;
	int decimals;
	char *end;

	if (!isfinite(us)) {
		snprintf(buf, size, "? us");
		return;
	}
	/* Three significant digits in fixed point ("%.3g" printed 999.7 us
	 * as "1e+03 us"); the unit chosen on the value as printed, so
	 * 999.7 us reads "1 ms". */
	while (u < 2 && v >= 1000)
		v /= 1000, u++;
	decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
	if (u < 2 && v >= 999.5) {
		v /= 1000, u++;
		decimals = 2;
	}
	snprintf(buf, size, "%s%.*f", us < 0 ? "-" : "", decimals, v);
	/* Ticks at 1, 2, 5 x 10^k read "2 ms", not "2.00 ms". */
	if (strchr(buf, '.') != NULL) {
		end = buf + strlen(buf) - 1;
		while (*end == '0')
			*end-- = '\0';
		if (*end == '.')
			*end = '\0';
	}
	snprintf(buf + strlen(buf), size - strlen(buf), " %s", unit[u]);
}
