/*
 * units.h: strict parsing of the quantities throttling deals in: durations
 * ("800us", "2ms", "1.5s") and byte counts ("4194304", "512K", "4M").
 *
 * Strict means: digits with an optional fraction, then a unit, nothing else.
 * No sign, no exponent, no spaces, no hex.  "-3ms", "2 parsecs" and "1e999s"
 * are each refused with one message naming the text and what is accepted.
 */
#ifndef TP_UNITS_H
#define TP_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "tp_error.h"

/* The largest duration accepted anywhere: one hour, in microseconds. */
#define TP_UNITS_MAX_DURATION_US 3600000000ULL
/* The largest byte count accepted: 1 TiB. */
#define TP_UNITS_MAX_BYTES (1ULL << 40)

/*
 * Parse a duration "<number><unit>", unit one of us, ms, s, into whole
 * microseconds.  @what names the value in the message ("window").  Values
 * below @min_us, above TP_UNITS_MAX_DURATION_US or not a whole number of
 * microseconds are refused with TP_ERR_INVALID.  *duration_us is written
 * only on success.
 */
tp_status tp_units_parse_duration_us(const char *what, const char *text,
                                     uint64_t min_us, uint64_t *duration_us,
                                     tp_error *err);

/*
 * Parse a byte count: digits with an optional binary suffix K, M, G (also
 * KiB, MiB, GiB).  Zero and values above TP_UNITS_MAX_BYTES are refused.
 */
tp_status tp_units_parse_bytes(const char *what, const char *text,
                               uint64_t *bytes, tp_error *err);

/*
 * Parse a positive decimal integer (no sign, no suffix) in [@min, @max].
 */
tp_status tp_units_parse_count(const char *what, const char *text, uint64_t min,
                               uint64_t max, uint64_t *count, tp_error *err);

/*
 * @us microseconds as people read a time: "800 us", "1.63 ms", "2 s" (three
 * significant digits in fixed point, trailing zeros dropped, the unit picked
 * on the rounded value, so 999.7 us reads "1 ms"; never an exponent;
 * "? us" for NaN or infinity), into @buf of @size bytes.  Every reason and
 * chart that gives a time uses it, so one line never mixes two styles.
 */
void tp_units_format_us(double us, char *buf, size_t size);

#endif /* TP_UNITS_H */
