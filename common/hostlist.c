/*
 * hostlist.c: Slurm hostlist expressions (see hostlist.h).
 *
 * The expander recurses once per [..] group of an item, writing the name
 * into one fixed buffer as it goes, so a name costs no allocation and the
 * depth is bounded by the groups in one item.  The compressor sorts, so its
 * output does not depend on the order of its input.
 */
#include "tp_config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "tp_strbuf.h"

/* ---- expanding --------------------------------------------------------- */

struct expander {
	size_t max_names, produced;
	tp_hostlist_fn fn;
	void *ctx;
	char buf[TP_HOSTLIST_NAME_MAX + 1];
};

/* Expand item @s (length @n: literal text and [..] groups) after prefix
 * of length @plen already in e->buf. */
static tp_status expand_item(struct expander *e, const char *s, size_t n,
                             size_t plen, tp_error *err)
{
	const char *open = memchr(s, '[', n), *close;
	size_t lit = open != NULL ? (size_t)(open - s) : n;
	tp_status rc;

	if (memchr(s, ']', lit) != NULL)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "']' without '[' in \"%.*s\"", (int)n, s);
	if (plen + lit >= sizeof(e->buf))
		return tp_error_set(err, TP_ERR_LIMIT, "name longer than %zu",
		                    sizeof(e->buf) - 1);
	memcpy(e->buf + plen, s, lit);
	if (open == NULL) {
		e->buf[plen + lit] = '\0';
		if (plen + lit == 0)
			return tp_error_set(err, TP_ERR_PARSE, "empty name");
		if (++e->produced > e->max_names)
			return tp_error_set(err, TP_ERR_LIMIT,
			                    "more than %zu names",
			                    e->max_names);
		return e->fn(e->ctx, e->buf, err);
	}
	close = memchr(open, ']', n - lit);
	if (close == NULL)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "'[' without ']' in \"%.*s\"", (int)n, s);
	if (close == open + 1)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "empty range [] in \"%.*s\"", (int)n, s);
	/* each comma-separated part: N or N-M */
	for (const char *p = open + 1; p < close;) {
		const char *end = p, *dash = NULL;
		unsigned long long lo = 0, hi;
		size_t width, ldig = 0, hdig = 0;

		while (end < close && *end != ',')
			end++;
		for (const char *q = p; q < end; q++) {
			if (*q == '-' && dash == NULL && q > p) {
				dash = q;
			} else if (*q < '0' || *q > '9') {
				return tp_error_set(
				    err, TP_ERR_PARSE,
				    "'%c' in range [%.*s]: only digits, "
				    "',' and '-'",
				    *q, (int)(close - open - 1), open + 1);
			} else if (dash == NULL) {
				if (++ldig > 18)
					goto too_big;
				lo = lo * 10 + (unsigned long long)(*q - '0');
			}
		}
		if (end == p || (dash != NULL && dash + 1 == end))
			return tp_error_set(err, TP_ERR_PARSE,
			                    "empty number in range [%.*s]",
			                    (int)(close - open - 1), open + 1);
		hi = lo;
		if (dash != NULL) {
			hi = 0;
			for (const char *q = dash + 1; q < end; q++) {
				if (++hdig > 18)
					goto too_big;
				hi = hi * 10 + (unsigned long long)(*q - '0');
			}
			if (hi < lo)
				return tp_error_set(err, TP_ERR_PARSE,
				                    "range %.*s goes backwards",
				                    (int)(end - p), p);
		}
		width = ldig;
		if (hi - lo >= e->max_names)
			return tp_error_set(
			    err, TP_ERR_LIMIT,
			    "range %.*s has more than %zu names",
			    (int)(end - p), p, e->max_names);
		for (unsigned long long v = lo; v <= hi; v++) {
			int w = snprintf(e->buf + plen + lit,
			                 sizeof(e->buf) - plen - lit, "%0*llu",
			                 (int)width, v);

			if (w < 0 || (size_t)w >= sizeof(e->buf) - plen - lit)
				return tp_error_set(err, TP_ERR_LIMIT,
				                    "name too long");
			rc = expand_item(e, close + 1,
			                 n - (size_t)(close + 1 - s),
			                 plen + lit + (size_t)w, err);
			if (rc != TP_OK)
				return rc;
		}
		p = end < close ? end + 1 : end;
		if (end < close && p == close)
			return tp_error_set(err, TP_ERR_PARSE,
			                    "empty number in range [%.*s]",
			                    (int)(close - open - 1), open + 1);
	}
	return TP_OK;
too_big:
	return tp_error_set(err, TP_ERR_PARSE, "number too large in [%.*s]",
	                    (int)(close - open - 1), open + 1);
}

tp_status tp_hostlist_expand(const char *expr, size_t max_names,
                             tp_hostlist_fn fn, void *ctx, tp_error *err)
{
	struct expander e;
	const char *p = expr;
	tp_status rc;

	e.max_names = max_names;
	e.produced = 0;
	e.fn = fn;
	e.ctx = ctx;
	if (*p == '\0')
		return tp_error_set(err, TP_ERR_PARSE, "empty host list");
	while (*p != '\0') {
		const char *end = p;
		int depth = 0;

		/* An item ends at a comma outside brackets. */
		while (*end != '\0' && (*end != ',' || depth > 0)) {
			if (*end == '[')
				depth++;
			else if (*end == ']' && depth > 0)
				depth--;
			end++;
		}
		if (end == p)
			return tp_error_set(err, TP_ERR_PARSE,
			                    "empty name in list \"%s\"", expr);
		if ((rc = expand_item(&e, p, (size_t)(end - p), 0, err)) !=
		    TP_OK)
			return rc;
		p = *end == ',' ? end + 1 : end;
		if (*end == ',' && *p == '\0')
			return tp_error_set(err, TP_ERR_PARSE,
			                    "list \"%s\" ends with ','", expr);
	}
	return TP_OK;
}

/* ---- compressing ------------------------------------------------------- */

struct hl_name {
	const char *name;
	size_t prefix_len; /* up to the trailing digits */
	size_t digits;
	unsigned long long number;
};

static int cmp_hl(const void *a, const void *b)
{
	const struct hl_name *x = a, *y = b;
	size_t n =
	    x->prefix_len < y->prefix_len ? x->prefix_len : y->prefix_len;
	int c = memcmp(x->name, y->name, n);

	if (c != 0)
		return c;
	if (x->prefix_len != y->prefix_len)
		return x->prefix_len < y->prefix_len ? -1 : 1;
	if (x->digits != y->digits)
		return x->digits < y->digits ? -1 : 1;
	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	return 0;
}

/* Sorted, without duplicates; returns how many are left. */
static size_t sort_unique(struct hl_name *v, size_t count)
{
	size_t kept = 0;

	qsort(v, count, sizeof(*v), cmp_hl);
	for (size_t i = 0; i < count; i++)
		if (kept == 0 || cmp_hl(&v[kept - 1], &v[i]) != 0)
			v[kept++] = v[i];
	return kept;
}

/* Names v[i..j) share prefix and width: "p[1-4,7]". */
static void write_bracket(tp_strbuf *b, const struct hl_name *v, size_t i,
                          size_t j)
{
	tp_strbuf_printf(b, "%.*s[", (int)v[i].prefix_len, v[i].name);
	for (size_t k = i; k < j;) {
		size_t e = k;

		while (e + 1 < j && v[e + 1].number == v[e].number + 1)
			e++;
		if (k > i)
			tp_strbuf_printf(b, ",");
		if (e == k)
			tp_strbuf_printf(b, "%s", v[k].name + v[k].prefix_len);
		else
			tp_strbuf_printf(b, "%s-%s",
			                 v[k].name + v[k].prefix_len,
			                 v[e].name + v[e].prefix_len);
		k = e + 1;
	}
	tp_strbuf_printf(b, "]");
}

tp_status tp_hostlist_compress(const char *const *names, size_t count,
                               char **out, tp_error *err)
{
	struct hl_name *v;
	tp_strbuf b = TP_STRBUF_INIT(0);

	*out = NULL;
	v = calloc(count + 1, sizeof(*v));
	if (v == NULL)
		return tp_error_set(err, TP_ERR_NOMEM, "hostlist: out of memory");
	for (size_t i = 0; i < count; i++) {
		size_t len = strlen(names[i]), d = 0;

		while (d < len && d < 18 && names[i][len - 1 - d] >= '0' &&
		       names[i][len - 1 - d] <= '9')
			d++;
		v[i].name = names[i];
		v[i].prefix_len = len - d;
		v[i].digits = d;
		v[i].number = d ? strtoull(names[i] + len - d, NULL, 10) : 0;
	}
	count = sort_unique(v, count);
	for (size_t i = 0; i < count;) {
		size_t j = i + 1;

		if (i > 0)
			tp_strbuf_printf(&b, ",");
		while (v[i].digits > 0 && j < count &&
		       v[j].prefix_len == v[i].prefix_len &&
		       v[j].digits == v[i].digits &&
		       memcmp(v[j].name, v[i].name, v[i].prefix_len) == 0)
			j++;
		if (j == i + 1)
			tp_strbuf_printf(&b, "%s", v[i].name);
		else
			write_bracket(&b, v, i, j);
		i = j;
	}
	free(v);
	*out = tp_strbuf_take(&b);
	if (*out == NULL)
		return tp_error_set(err, TP_ERR_NOMEM, "hostlist: out of memory");
	return TP_OK;
}
