/*
 * traffic.c: the job's sparse communication matrix, its text reader and
 * its CSR views.
 */
#include "tp_config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "traffic.h"
#include "tp_file.h"

tp_traffic_limits tp_traffic_default_limits(void)
{
	tp_traffic_limits limits = {
	    .max_ranks = TP_TRAFFIC_DEFAULT_MAX_RANKS,
	    .max_entries = TP_TRAFFIC_DEFAULT_MAX_ENTRIES,
	    .max_file_bytes = TP_TRAFFIC_DEFAULT_MAX_FILE_BYTES,
	};

	return limits;
}

tp_status tp_traffic_new(tp_traffic **traffic, uint32_t ranks, tp_error *err)
{
	tp_traffic *t;

	*traffic = NULL;
	if (ranks == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "traffic matrix: 0 ranks");
	t = calloc(1, sizeof(*t));
	if (!t)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "traffic matrix: out of memory");
	t->ranks = ranks;
	*traffic = t;
	return TP_OK;
}

void tp_traffic_free(tp_traffic *traffic)
{
	if (!traffic)
		return;
	free(traffic->entries);
	free(traffic);
}

static tp_status grow(tp_traffic *t, tp_error *err)
{
	size_t cap = t->capacity ? t->capacity * 2 : 64;
	tp_traffic_entry *e;

	if (cap > SIZE_MAX / sizeof(*e))
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "traffic matrix: too many entries");
	e = realloc(t->entries, cap * sizeof(*e));
	if (!e)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "traffic matrix: out of memory at %zu "
		                    "entries",
		                    t->count);
	t->entries = e;
	t->capacity = cap;
	return TP_OK;
}

tp_status tp_traffic_add(tp_traffic *traffic, uint32_t src, uint32_t dst,
                         uint64_t bytes, uint64_t msgs, tp_error *err)
{
	tp_status rc;

	if (src >= traffic->ranks || dst >= traffic->ranks)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "traffic matrix: pair %u -> %u outside "
		                    "ranks 0..%u",
		                    src, dst, traffic->ranks - 1);
	if (traffic->count == traffic->capacity) {
		rc = grow(traffic, err);
		if (rc != TP_OK)
			return rc;
	}
	traffic->entries[traffic->count++] =
	    (tp_traffic_entry){src, dst, bytes, msgs};
	return TP_OK;
}

static int entry_cmp(const void *a, const void *b)
{
	const tp_traffic_entry *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void tp_traffic_normalize(tp_traffic *traffic)
{
	size_t out = 0;

	if (traffic->count > 1)
		qsort(traffic->entries, traffic->count,
		      sizeof(*traffic->entries), entry_cmp);
	for (size_t i = 0; i < traffic->count; i++) {
		tp_traffic_entry *e = &traffic->entries[i];

		if (out > 0 && !entry_cmp(&traffic->entries[out - 1], e)) {
			tp_traffic_entry *prev = &traffic->entries[out - 1];

			prev->bytes = sat_add(prev->bytes, e->bytes);
			prev->msgs = sat_add(prev->msgs, e->msgs);
			continue;
		}
		traffic->entries[out++] = *e;
	}
	traffic->count = out;
	/* Entries that say nothing would only cost time downstream. */
	out = 0;
	for (size_t i = 0; i < traffic->count; i++)
		if (traffic->entries[i].bytes || traffic->entries[i].msgs)
			traffic->entries[out++] = traffic->entries[i];
	traffic->count = out;
}

uint64_t tp_traffic_total_bytes(const tp_traffic *traffic)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < traffic->count; i++)
		sum = sat_add(sum, traffic->entries[i].bytes);
	return sum;
}

/* ---- text reader ---------------------------------------------------- */

struct reader {
	const char *name;
	const char *p;   /* cursor in the current line */
	const char *end; /* end of the current line */
	size_t line;
};

static void skip_blanks(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t'))
		r->p++;
}

/*
 * A decimal field: digits only (no sign, no exponent), overflow refused.
 * Returns 1 on success, 0 at end of line, -1 on garbage or overflow.
 */
static int read_u64(struct reader *r, uint64_t *value)
{
	uint64_t v = 0;
	const char *start;

	skip_blanks(r);
	if (r->p == r->end)
		return 0;
	start = r->p;
	while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
		unsigned d = (unsigned)(*r->p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
		r->p++;
	}
	if (r->p == start)
		return -1;
	if (r->p < r->end && *r->p != ' ' && *r->p != '\t')
		return -1;
	*value = v;
	return 1;
}

/* ranks=N from a commprof header line; 0 if absent. */
static tp_status header_ranks(struct reader *r, const tp_traffic_limits *lim,
                              uint32_t *ranks, tp_error *err)
{
	static const char key[] = "ranks=";
	const char *q = r->p;

	*ranks = 0;
	while (q < r->end) {
		uint64_t v = 0;
		const char *digits;

		/* Match "ranks=" only at the start of a token. */
		if ((size_t)(r->end - q) >= sizeof(key) - 1 &&
		    !memcmp(q, key, sizeof(key) - 1) &&
		    (q == r->p || q[-1] == ' ' || q[-1] == '\t')) {
			digits = q + sizeof(key) - 1;
			q = digits;
			while (q < r->end && *q >= '0' && *q <= '9') {
				v = v * 10 + (uint64_t)(*q - '0');
				if (v > lim->max_ranks)
					return tp_error_set(
					    err, TP_ERR_LIMIT,
					    "%s: line %zu: header ranks "
					    "above the limit %u",
					    r->name, r->line, lim->max_ranks);
				q++;
			}
			if (q == digits ||
			    (q < r->end && *q != ' ' && *q != '\t'))
				return tp_error_set(err, TP_ERR_PARSE,
				                    "%s: line %zu: header "
				                    "ranks= is not a number",
				                    r->name, r->line);
			if (v == 0)
				return tp_error_set(err, TP_ERR_PARSE,
				                    "%s: line %zu: header "
				                    "ranks=0",
				                    r->name, r->line);
			*ranks = (uint32_t)v;
			return TP_OK;
		}
		q++;
	}
	return TP_OK;
}

static tp_status parse_line(struct reader *r, const tp_traffic_limits *lim,
                            tp_traffic *t, uint32_t header_ranks,
                            uint32_t *max_index, tp_error *err)
{
	uint64_t f[4] = {0, 0, 0, 0};
	static const char *const what[] = {"src", "dst", "bytes", "msgs"};
	int n, rc;

	for (n = 0; n < 4; n++) {
		rc = read_u64(r, &f[n]);
		if (rc == 0)
			break;
		if (rc < 0)
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: line %zu: %s is not a "
			                    "decimal number",
			                    r->name, r->line, what[n]);
	}
	skip_blanks(r);
	if (r->p != r->end)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %zu: more than 4 fields", r->name,
		                    r->line);
	if (n < 3)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %zu: expected 'src dst bytes "
		                    "[msgs]', got %d field%s",
		                    r->name, r->line, n, n == 1 ? "" : "s");
	for (int i = 0; i < 2; i++) {
		if (header_ranks && f[i] >= header_ranks)
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: line %zu: %s %llu >= ranks "
			                    "%u",
			                    r->name, r->line, what[i],
			                    (unsigned long long)f[i],
			                    header_ranks);
		if (f[i] >= lim->max_ranks)
			return tp_error_set(err, TP_ERR_LIMIT,
			                    "%s: line %zu: %s %llu above the "
			                    "limit of %u ranks",
			                    r->name, r->line, what[i],
			                    (unsigned long long)f[i],
			                    lim->max_ranks);
		if (f[i] > *max_index)
			*max_index = (uint32_t)f[i];
	}
	if (t->count >= lim->max_entries)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "%s: line %zu: more than %zu entries",
		                    r->name, r->line, lim->max_entries);
	/* ranks is fixed at the end; stage with the widest bound. */
	return tp_traffic_add(t, (uint32_t)f[0], (uint32_t)f[1], f[2], f[3],
	                      err);
}

tp_status tp_traffic_parse(const char *name, const char *text, size_t len,
                           const tp_traffic_limits *limits,
                           tp_traffic **traffic, tp_error *err)
{
	tp_traffic_limits lim = limits ? *limits : tp_traffic_default_limits();
	struct reader r = {.name = name ? name : "traffic matrix"};
	const char *cur = text, *stop = text + len;
	uint32_t hdr_ranks = 0, max_index = 0;
	int seen_data = 0;
	tp_traffic *t;
	tp_status rc;

	*traffic = NULL;
	if (len > lim.max_file_bytes)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "%s: %zu bytes, above the limit of %zu",
		                    r.name, len, lim.max_file_bytes);
	if (lim.max_ranks == 0)
		lim.max_ranks = 1;
	/* Stage entries under the largest rank count; fixed below. */
	rc = tp_traffic_new(&t, lim.max_ranks, err);
	if (rc != TP_OK)
		return rc;
	while (cur < stop) {
		const char *nl = memchr(cur, '\n', (size_t)(stop - cur));
		size_t line_len = (size_t)((nl ? nl : stop) - cur);

		if (line_len > 0 && cur[line_len - 1] == '\r')
			line_len--;
		r.line++;
		r.p = cur;
		r.end = cur + line_len;
		cur = nl ? nl + 1 : stop;
		if (memchr(r.p, '\0', line_len)) {
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s: line %zu: NUL byte", r.name,
			                  r.line);
			goto fail;
		}
		skip_blanks(&r);
		if (r.p == r.end)
			continue;
		if (*r.p == '#') {
			static const char magic[] = "# commprof-v1";

			/* Only a header before the data sets ranks. */
			if (!seen_data && !hdr_ranks &&
			    (size_t)(r.end - r.p) >= sizeof(magic) - 1 &&
			    !memcmp(r.p, magic, sizeof(magic) - 1)) {
				rc = header_ranks(&r, &lim, &hdr_ranks, err);
				if (rc != TP_OK)
					goto fail;
			}
			continue;
		}
		seen_data = 1;
		rc = parse_line(&r, &lim, t, hdr_ranks, &max_index, err);
		if (rc != TP_OK)
			goto fail;
	}
	if (hdr_ranks) {
		t->ranks = hdr_ranks;
	} else if (t->count) {
		t->ranks = max_index + 1;
	} else {
		rc = tp_error_set(err, TP_ERR_PARSE,
		                  "%s: no data lines and no '# commprof-v1 "
		                  "ranks=N' header",
		                  r.name);
		goto fail;
	}
	tp_traffic_normalize(t);
	*traffic = t;
	return TP_OK;
fail:
	tp_traffic_free(t);
	return rc;
}

tp_status tp_traffic_read_file(const char *path,
                               const tp_traffic_limits *limits,
                               tp_traffic **traffic, tp_error *err)
{
	tp_traffic_limits lim = limits ? *limits : tp_traffic_default_limits();
	char *buf;
	size_t got;
	tp_status rc;

	*traffic = NULL;
	rc = tp_file_read(path, NULL, lim.max_file_bytes, &buf, &got, err);
	if (rc != TP_OK)
		return rc;
	rc = tp_traffic_parse(path, buf, got, &lim, traffic, err);
	free(buf);
	return rc;
}

/* ---- CSR views ------------------------------------------------------ */

void tp_traffic_csr_free(tp_traffic_csr *csr)
{
	if (!csr)
		return;
	free(csr->row_start);
	free(csr->col);
	free(csr->weight);
	free(csr);
}

struct arc {
	uint32_t col;
	uint64_t weight;
};

static int arc_cmp(const void *a, const void *b)
{
	const struct arc *x = a, *y = b;

	return x->col < y->col ? -1 : x->col > y->col;
}

/* Whether the entries are in (src, dst) order, as normalizing leaves them. */
static bool entries_sorted(const tp_traffic *traffic)
{
	for (size_t i = 1; i < traffic->count; i++)
		if (entry_cmp(&traffic->entries[i - 1], &traffic->entries[i]) >
		    0)
			return false;
	return true;
}

/* Append (col, weight) to the row that starts at c->col[row_begin]. */
static void row_append(tp_traffic_csr *c, size_t row_begin, size_t *out,
                       uint32_t col, uint64_t weight)
{
	if (*out > row_begin && c->col[*out - 1] == col) {
		c->weight[*out - 1] = sat_add(c->weight[*out - 1], weight);
		return;
	}
	c->col[*out] = col;
	c->weight[*out] = weight;
	(*out)++;
}

/*
 * The undirected CSR of entries in (src, dst) order without sorting: row
 * r merges r's own entries (ascending dst) with the entries sent to r,
 * which a counting sort by dst keeps in ascending src.  Same result as
 * sorting each row, with no comparison sort and half the scratch memory
 * (bench/RESULTS.md, remapping time).  c->row_start is allocated.
 */
static tp_status csr_undirected_sorted(const tp_traffic *traffic,
                                       tp_traffic_csr *c)
{
	uint32_t n = traffic->ranks;
	uint64_t *in_start = calloc((size_t)n + 2, sizeof(*in_start));
	struct arc *in = NULL;
	size_t arcs_n = 0, out = 0, i = 0;

	if (!in_start)
		return TP_ERR_NOMEM;
	for (size_t k = 0; k < traffic->count; k++) {
		const tp_traffic_entry *e = &traffic->entries[k];

		if (e->src == e->dst || e->bytes == 0)
			continue;
		in_start[e->dst + 2]++;
		arcs_n += 2;
	}
	for (uint32_t r = 0; r < n; r++)
		in_start[r + 2] += in_start[r + 1];
	in = malloc((arcs_n ? arcs_n / 2 : 1) * sizeof(*in));
	c->col = malloc((arcs_n ? arcs_n : 1) * sizeof(*c->col));
	c->weight = malloc((arcs_n ? arcs_n : 1) * sizeof(*c->weight));
	if (!in || !c->col || !c->weight) {
		free(in);
		free(in_start);
		return TP_ERR_NOMEM;
	}
	/* in_start[r + 1] counts up to the end of r's list: the fill. */
	for (size_t k = 0; k < traffic->count; k++) {
		const tp_traffic_entry *e = &traffic->entries[k];

		if (e->src == e->dst || e->bytes == 0)
			continue;
		in[in_start[e->dst + 1]++] = (struct arc){e->src, e->bytes};
	}
	for (uint32_t r = 0; r < n; r++) {
		size_t j = in_start[r], j_end = in_start[r + 1];

		c->row_start[r] = out;
		for (;;) {
			const tp_traffic_entry *e = NULL;

			/* the next usable own entry of r */
			while (i < traffic->count &&
			       traffic->entries[i].src == r &&
			       (traffic->entries[i].dst == r ||
			        traffic->entries[i].bytes == 0))
				i++;
			if (i < traffic->count && traffic->entries[i].src == r)
				e = &traffic->entries[i];
			if (!e && j == j_end)
				break;
			if (e && (j == j_end || e->dst <= in[j].col)) {
				row_append(c, c->row_start[r], &out, e->dst,
				           e->bytes);
				i++;
			} else {
				row_append(c, c->row_start[r], &out, in[j].col,
				           in[j].weight);
				j++;
			}
		}
	}
	c->row_start[n] = out;
	free(in);
	free(in_start);
	return TP_OK;
}

tp_status tp_traffic_csr_build(const tp_traffic *traffic,
                               tp_traffic_csr_kind kind, tp_traffic_csr **csr,
                               tp_error *err)
{
	uint32_t n = traffic->ranks;
	int undirected = kind == TP_TRAFFIC_CSR_UNDIRECTED;
	tp_traffic_csr *c;
	struct arc *arcs = NULL;
	uint64_t *fill = NULL;
	size_t arcs_n = 0, out = 0;

	*csr = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto nomem;
	c->ranks = n;
	c->row_start = calloc((size_t)n + 1, sizeof(*c->row_start));
	if (!c->row_start)
		goto nomem;
	if (undirected && entries_sorted(traffic)) {
		if (csr_undirected_sorted(traffic, c) != TP_OK)
			goto nomem;
		*csr = c;
		return TP_OK;
	}
	fill = calloc((size_t)n + 1, sizeof(*fill));
	if (!fill)
		goto nomem;
	for (size_t i = 0; i < traffic->count; i++) {
		const tp_traffic_entry *e = &traffic->entries[i];

		if (undirected && (e->src == e->dst || e->bytes == 0))
			continue;
		fill[e->src + 1]++;
		if (undirected)
			fill[e->dst + 1]++;
	}
	for (uint32_t r = 0; r < n; r++)
		fill[r + 1] += fill[r];
	arcs_n = fill[n];
	arcs = malloc((arcs_n ? arcs_n : 1) * sizeof(*arcs));
	if (!arcs)
		goto nomem;
	for (size_t i = 0; i < traffic->count; i++) {
		const tp_traffic_entry *e = &traffic->entries[i];

		if (undirected && (e->src == e->dst || e->bytes == 0))
			continue;
		arcs[fill[e->src]++] = (struct arc){e->dst, e->bytes};
		if (undirected)
			arcs[fill[e->dst]++] = (struct arc){e->src, e->bytes};
	}
	c->col = malloc((arcs_n ? arcs_n : 1) * sizeof(*c->col));
	c->weight = malloc((arcs_n ? arcs_n : 1) * sizeof(*c->weight));
	if (!c->col || !c->weight)
		goto nomem;
	/* fill[r] is now the end of row r; rows begin at fill[r - 1]. */
	for (uint32_t r = 0; r < n; r++) {
		size_t begin = r ? fill[r - 1] : 0, end = fill[r];

		c->row_start[r] = out;
		if (end - begin > 1)
			qsort(arcs + begin, end - begin, sizeof(*arcs),
			      arc_cmp);
		for (size_t k = begin; k < end; k++) {
			if (out > c->row_start[r] &&
			    c->col[out - 1] == arcs[k].col) {
				c->weight[out - 1] =
				    sat_add(c->weight[out - 1], arcs[k].weight);
				continue;
			}
			c->col[out] = arcs[k].col;
			c->weight[out] = arcs[k].weight;
			out++;
		}
	}
	c->row_start[n] = out;
	free(arcs);
	free(fill);
	*csr = c;
	return TP_OK;
nomem:
	free(arcs);
	free(fill);
	tp_traffic_csr_free(c);
	return tp_error_set(err, TP_ERR_NOMEM,
	                    "traffic matrix: out of memory building CSR of "
	                    "%u ranks",
	                    n);
}
