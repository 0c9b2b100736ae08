/*
 * convert.c: importers and exporters of profiles (see convert.h).
 *
 * Text parsing here is line-based and strict: a line is split into
 * whitespace-separated tokens, numbers are plain decimal with overflow
 * checks, and anything unexpected stops the import with the file, line and
 * token in the message: a half-understood profile would silently mislead
 * placement.
 */
#include "tp_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert.h"
#include "tp_strbuf.h"

#define LINE_MAX_BYTES (64 * 1024)
#define COLL_FILE_MAX  ((size_t)16 << 20)

tp_status tp_profile_from_traffic(const tp_traffic *traffic,
                                  const tp_profile_header *header,
                                  tp_profile **profile, tp_error *err)
{
	tp_profile_header h = *header;
	tp_profile *p;
	tp_status st;

	*profile = NULL;
	h.ranks = traffic->ranks;
	if (h.ranks_per_node > h.ranks)
		h.ranks_per_node = 0;
	st = tp_profile_new(&h, &p, err);
	if (st != TP_OK)
		return st;
	p->pairs =
	    malloc((traffic->count ? traffic->count : 1) * sizeof(*p->pairs));
	if (!p->pairs) {
		tp_profile_free(p);
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "profile %s: out of memory", h.app);
	}
	p->pair_capacity = traffic->count ? traffic->count : 1;
	for (size_t i = 0; i < traffic->count; i++) {
		const tp_traffic_entry *e = &traffic->entries[i];

		p->pairs[i].src = e->src;
		p->pairs[i].dst = e->dst;
		p->pairs[i].bytes = e->bytes;
		p->pairs[i].msgs = e->msgs;
	}
	p->pair_count = traffic->count;
	st = tp_profile_finish(p, err);
	if (st != TP_OK) {
		tp_profile_free(p);
		return st;
	}
	*profile = p;
	return TP_OK;
}

tp_status tp_profile_to_traffic(const tp_profile *profile, tp_traffic **traffic,
                                tp_error *err)
{
	tp_traffic *t;
	tp_status st;

	*traffic = NULL;
	st = tp_traffic_new(&t, profile->header.ranks, err);
	if (st != TP_OK)
		return st;
	for (size_t i = 0; i < profile->pair_count; i++) {
		const tp_profile_pair *e = &profile->pairs[i];

		st = tp_traffic_add(t, e->src, e->dst, e->bytes, e->msgs, err);
		if (st != TP_OK) {
			tp_traffic_free(t);
			return st;
		}
	}
	tp_traffic_normalize(t);
	*traffic = t;
	return TP_OK;
}

/* ---- line tokenizer ---------------------------------------------------- */

struct lines {
	const char *label;
	const char *text;
	size_t len;
	size_t pos;
	size_t line_no;
	const char *line; /* current line, not NUL-terminated */
	size_t line_len;
	size_t tok; /* cursor in the current line */
};

/* Next line into l->line; 0 at the end, -1 when a line is too long. */
static int next_line(struct lines *l)
{
	const char *nl;
	size_t rest;

	if (l->pos >= l->len)
		return 0;
	rest = l->len - l->pos;
	nl = memchr(l->text + l->pos, '\n', rest);
	l->line = l->text + l->pos;
	l->line_len = nl ? (size_t)(nl - l->line) : rest;
	l->pos += l->line_len + (nl ? 1 : 0);
	l->line_no++;
	l->tok = 0;
	if (l->line_len && l->line[l->line_len - 1] == '\r')
		l->line_len--;
	return l->line_len > LINE_MAX_BYTES ? -1 : 1;
}

/* Next token of the current line: *start, returns its length (0: none). */
static size_t next_token(struct lines *l, const char **start)
{
	size_t b;

	while (l->tok < l->line_len &&
	       (l->line[l->tok] == ' ' || l->line[l->tok] == '\t'))
		l->tok++;
	b = l->tok;
	while (l->tok < l->line_len && l->line[l->tok] != ' ' &&
	       l->line[l->tok] != '\t')
		l->tok++;
	*start = l->line + b;
	return l->tok - b;
}

static int token_is(const char *tok, size_t n, const char *word)
{
	return n == strlen(word) && !memcmp(tok, word, n);
}

/* Strict unsigned decimal: 1..20 digits, no sign, no overflow. */
static int parse_u64(const char *tok, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(tok[i] - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static tp_status line_error(const struct lines *l, tp_status code,
                            tp_error *err, const char *what, const char *tok,
                            size_t n)
{
	return tp_error_set(err, code, "%s: line %zu: %s%s%.*s%s", l->label,
	                    l->line_no, what, tok ? " '" : "",
	                    (int)(n > 40 ? 40 : n), tok ? tok : "",
	                    tok ? "'" : "");
}

/* Next token as a number; on failure an error naming @field. */
static tp_status expect_u64(struct lines *l, const char *field, uint64_t *v,
                            tp_error *err)
{
	const char *tok;
	size_t n = next_token(l, &tok);
	char what[80];

	if (n && !parse_u64(tok, n, v))
		return TP_OK;
	snprintf(what, sizeof(what), "%s: expected a decimal number, got",
	         field);
	return line_error(l, TP_ERR_PARSE, err, n ? what : field,
	                  n ? tok : NULL, n);
}

static tp_status expect_word(struct lines *l, const char *word, tp_error *err)
{
	const char *tok;
	size_t n = next_token(l, &tok);
	char what[80];

	if (token_is(tok, n, word))
		return TP_OK;
	snprintf(what, sizeof(what), "expected '%s', got", word);
	return line_error(l, TP_ERR_PARSE, err, what, tok, n);
}

/* ---- .coll companion ---------------------------------------------------- */

tp_status tp_profile_parse_collectives(tp_profile *profile, const char *label,
                                       const char *text, size_t len,
                                       tp_error *err)
{
	struct lines l = {label, text, len, 0, 0, NULL, 0, 0};
	tp_status st;
	int r;

	while ((r = next_line(&l)) > 0) {
		uint64_t calls, calls_max, bytes;
		const char *name;
		size_t n = next_token(&l, &name);
		char cname[TP_PROFILE_COLL_NAME_MAX + 1];

		if (n == 0 || name[0] == '#')
			continue;
		if (n > TP_PROFILE_COLL_NAME_MAX)
			return line_error(&l, TP_ERR_PARSE, err,
			                  "collective name too long:", name, n);
		memcpy(cname, name, n);
		cname[n] = '\0';
		if ((st = expect_u64(&l, "calls_sum", &calls, err)) ||
		    (st = expect_u64(&l, "calls_max", &calls_max, err)) ||
		    (st = expect_u64(&l, "bytes_sum", &bytes, err)))
			return st;
		n = next_token(&l, &name);
		if (n)
			return line_error(&l, TP_ERR_PARSE, err,
			                  "unexpected extra field", name, n);
		if (calls_max > calls)
			return line_error(&l, TP_ERR_PARSE, err,
			                  "calls_max > calls_sum", NULL, 0);
		st = tp_profile_add_collective(profile, cname, calls, bytes,
		                               err);
		if (st != TP_OK)
			return tp_error_prefix(err, "%s: line %zu", label,
			                       l.line_no);
	}
	if (r < 0)
		return line_error(&l, TP_ERR_LIMIT, err,
		                  "line longer than 64 KiB", NULL, 0);
	return TP_OK;
}

/* Read the whole file @path (at most @max bytes, NUL appended). */
static tp_status read_text(const char *path, size_t max, char **text,
                           size_t *len, tp_error *err)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	uint8_t *buf;
	tp_status st;

	*text = NULL;
	if (fd < 0)
		return tp_error_set(
		    err, errno == ENOENT ? TP_ERR_NOTFOUND : TP_ERR_IO,
		    "%s: open: %s", path,
		    errno == ELOOP ? "is a symbolic link" : strerror(errno));
	st = tp_profile_slurp_fd(fd, path, max, &buf, len, err);
	close(fd);
	if (st != TP_OK)
		return st;
	/* slurp allocates one spare byte: room for the terminator. */
	buf[*len] = '\0';
	*text = (char *)buf;
	return TP_OK;
}

/* Copy the value of `key=` from the header line @line into @out. */
static int header_value(const char *line, const char *key, char *out,
                        size_t size)
{
	const char *p = line;
	size_t klen = strlen(key);

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, " \t\n");

			if (n == 0 || n >= size)
				return 0;
			memcpy(out, p + klen + 1, n);
			out[n] = '\0';
			return 1;
		}
		p += klen;
	}
	return 0;
}

tp_status tp_profile_import_matrix(const char *path, const char *app,
                                   const tp_traffic_limits *limits,
                                   tp_profile **profile, tp_error *err)
{
	tp_profile_header h;
	tp_traffic *t = NULL;
	char coll_path[4200], first[1024], value[TP_PROFILE_APP_MAX + 1];
	char *text = NULL;
	size_t len;
	tp_status st;
	FILE *f;

	*profile = NULL;
	memset(&h, 0, sizeof(h));
	snprintf(h.app, sizeof(h.app), "%s", app ? app : "unknown");
	st = tp_traffic_read_file(path, limits, &t, err);
	if (st != TP_OK)
		return st;
	/* Header metadata is optional; a bad value is an error though. */
	f = fopen(path, "re");
	if (f && fgets(first, sizeof(first), f) &&
	    !strncmp(first, "# commprof-v1 ", 14)) {
		if (!app && header_value(first, "app", value, sizeof(value)))
			snprintf(h.app, sizeof(h.app), "%s", value);
		if (header_value(first, "runtime_s", value, sizeof(value))) {
			char *end;
			double s = strtod(value, &end);

			if (*end || !(s >= 0 && s < 1e12)) {
				fclose(f);
				tp_traffic_free(t);
				return tp_error_set(err, TP_ERR_PARSE,
				                    "%s: line 1: runtime_s "
				                    "'%s' is not a duration",
				                    path, value);
			}
			h.duration_us = (uint64_t)(s * 1e6 + 0.5);
		}
	}
	if (f)
		fclose(f);
	st = tp_profile_from_traffic(t, &h, profile, err);
	tp_traffic_free(t);
	if (st != TP_OK)
		return tp_error_prefix(err, "%s", path);
	if (snprintf(coll_path, sizeof(coll_path), "%s.coll", path) >=
	    (int)sizeof(coll_path))
		return TP_OK;
	st = read_text(coll_path, COLL_FILE_MAX, &text, &len, err);
	if (st == TP_ERR_NOTFOUND)
		return TP_OK;
	if (st == TP_OK)
		st = tp_profile_parse_collectives(*profile, coll_path, text,
		                                  len, err);
	free(text);
	if (st == TP_OK)
		st = tp_profile_finish(*profile, err);
	if (st != TP_OK) {
		tp_profile_free(*profile);
		*profile = NULL;
	}
	return st;
}

/* ---- Open MPI monitoring ------------------------------------------------ */

/* `<src> <dst> <N> bytes <M> msgs ...` after an E/I/C/S/R tag. */
static tp_status parse_peer_line(struct lines *l, uint32_t ranks, uint64_t v[4],
                                 tp_error *err)
{
	tp_status st;

	if ((st = expect_u64(l, "source rank", &v[0], err)) ||
	    (st = expect_u64(l, "destination rank", &v[1], err)) ||
	    (st = expect_u64(l, "bytes", &v[2], err)) ||
	    (st = expect_word(l, "bytes", err)) ||
	    (st = expect_u64(l, "messages", &v[3], err)) ||
	    (st = expect_word(l, "msgs", err)))
		return st;
	if (v[0] >= ranks || v[1] >= ranks) {
		char what[96];

		snprintf(what, sizeof(what),
		         "rank %llu -> %llu out of range (ranks %u)",
		         (unsigned long long)v[0], (unsigned long long)v[1],
		         ranks);
		return line_error(l, TP_ERR_PARSE, err, what, NULL, 0);
	}
	return TP_OK;
}

tp_status tp_profile_parse_ompi_monitoring(tp_profile *profile,
                                           const char *const *labels,
                                           const char *const *texts,
                                           const size_t *lens, size_t count,
                                           size_t max_lines, tp_error *err)
{
	uint32_t ranks = profile->header.ranks;
	tp_status st;

	for (size_t f = 0; f < count; f++) {
		struct lines l = {labels[f], texts[f], lens[f], 0,
		                  0,         NULL,     0,       0};
		int r;

		while ((r = next_line(&l)) > 0) {
			const char *tok, *coll = NULL;
			size_t n;
			uint64_t v[4];

			if (l.line_no > max_lines)
				return line_error(&l, TP_ERR_LIMIT, err,
				                  "more lines than the limit",
				                  NULL, 0);
			n = next_token(&l, &tok);
			if (n == 0 || tok[0] == '#')
				continue;
			if (token_is(tok, n, "E") || token_is(tok, n, "I") ||
			    token_is(tok, n, "C") || token_is(tok, n, "S") ||
			    token_is(tok, n, "R")) {
				int user = tok[0] == 'E';

				st = parse_peer_line(&l, ranks, v, err);
				if (st != TP_OK)
					return st;
				/* Internal and collective traffic is the
				 * collectives' own; one-sided is not p2p. */
				if (user && (v[2] || v[3])) {
					st = tp_profile_add_pair(
					    profile, (uint32_t)v[0],
					    (uint32_t)v[1], v[2], v[3], err);
					if (st != TP_OK)
						return st;
				}
				continue;
			}
			if (token_is(tok, n, "D"))
				continue; /* communicator name and members */
			if (token_is(tok, n, "O2A"))
				coll = "ompi_one_to_all";
			else if (token_is(tok, n, "A2O"))
				coll = "ompi_all_to_one";
			else if (token_is(tok, n, "A2A"))
				coll = "ompi_all_to_all";
			if (!coll)
				return line_error(&l, TP_ERR_PARSE, err,
				                  "unknown record type", tok,
				                  n);
			if ((st = expect_u64(&l, "rank", &v[0], err)) ||
			    (st = expect_u64(&l, "bytes", &v[2], err)) ||
			    (st = expect_word(&l, "bytes", err)) ||
			    (st = expect_u64(&l, "messages", &v[3], err)) ||
			    (st = expect_word(&l, "msgs", err)))
				return st;
			if (v[0] >= ranks)
				return line_error(&l, TP_ERR_PARSE, err,
				                  "rank out of range", NULL, 0);
			if ((v[2] || v[3]) &&
			    (st = tp_profile_add_collective(profile, coll, v[3],
			                                    v[2], err)))
				return st;
		}
		if (r < 0)
			return line_error(&l, TP_ERR_LIMIT, err,
			                  "line longer than 64 KiB", NULL, 0);
	}
	return TP_OK;
}

/* Highest rank named on E/I/C lines, for when the caller gives no count. */
static uint32_t ompi_max_rank(const char *text, size_t len)
{
	struct lines l = {"", text, len, 0, 0, NULL, 0, 0};
	uint32_t max = 0;

	while (next_line(&l) > 0) {
		const char *tok;
		size_t n = next_token(&l, &tok);
		uint64_t v;

		if (!(token_is(tok, n, "E") || token_is(tok, n, "I") ||
		      token_is(tok, n, "C")))
			continue;
		for (int k = 0; k < 2; k++) {
			n = next_token(&l, &tok);
			if (!parse_u64(tok, n, &v) && v < UINT32_MAX && v > max)
				max = (uint32_t)v;
		}
	}
	return max;
}

tp_status tp_profile_import_ompi_monitoring(const char *const *paths,
                                            size_t count, const char *app,
                                            uint32_t ranks,
                                            size_t max_file_bytes,
                                            tp_profile **profile, tp_error *err)
{
	char **texts = calloc(count ? count : 1, sizeof(*texts));
	size_t *lens = calloc(count ? count : 1, sizeof(*lens));
	tp_profile_header h;
	tp_status st = TP_OK;
	uint32_t max_rank = 0;

	*profile = NULL;
	if (!texts || !lens) {
		free(texts);
		free(lens);
		return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; st == TP_OK && i < count; i++) {
		st = read_text(paths[i], max_file_bytes, &texts[i], &lens[i],
		               err);
		if (st == TP_OK) {
			uint32_t m = ompi_max_rank(texts[i], lens[i]);

			max_rank = m > max_rank ? m : max_rank;
		}
	}
	memset(&h, 0, sizeof(h));
	snprintf(h.app, sizeof(h.app), "%s", app ? app : "unknown");
	h.ranks = ranks ? ranks : max_rank + 1;
	if (st == TP_OK && h.ranks > TP_PROFILE_DEFAULT_MAX_RANKS)
		st = tp_error_set(err, TP_ERR_LIMIT,
		                  "Open MPI monitoring: %u ranks > limit %u",
		                  h.ranks, TP_PROFILE_DEFAULT_MAX_RANKS);
	if (st == TP_OK)
		st = tp_profile_new(&h, profile, err);
	if (st == TP_OK)
		st = tp_profile_parse_ompi_monitoring(
		    *profile, paths, (const char *const *)texts, lens, count,
		    (size_t)1 << 24, err);
	if (st == TP_OK)
		st = tp_profile_finish(*profile, err);
	for (size_t i = 0; i < count; i++)
		free(texts[i]);
	free(texts);
	free(lens);
	if (st != TP_OK) {
		tp_profile_free(*profile);
		*profile = NULL;
	}
	return st;
}

/* ---- exporters ---------------------------------------------------------- */

/* Hand the exported text over, or say the export ran out of memory. */
static tp_status text_done(tp_strbuf *t, const char *what, char **text,
                           size_t *len, tp_error *err)
{
	size_t text_len = t->len;

	*text = tp_strbuf_take(t);
	if (!*text)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    what);
	*len = text_len;
	return TP_OK;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int cmp_by_dst(const void *a, const void *b)
{
	const tp_profile_pair *x = a, *y = b;

	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return x->src < y->src ? -1 : x->src > y->src;
}

tp_status tp_profile_export_dense(const tp_profile *profile, int symmetric,
                                  uint32_t max_ranks, char **text, size_t *len,
                                  tp_error *err)
{
	uint32_t n = profile->header.ranks;
	tp_strbuf t = TP_STRBUF_INIT(0);
	tp_profile_pair *by_dst = NULL;
	uint64_t *row;
	size_t k = 0, kt = 0;

	*text = NULL;
	*len = 0;
	if (n > max_ranks)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "profile %s: dense export of %u ranks > "
		                    "limit %u (the matrix is ranks^2)",
		                    profile->header.app, n, max_ranks);
	row = calloc(n, sizeof(*row));
	if (symmetric && profile->pair_count) {
		/* The transpose, sorted by (dst, src), gives column i as one
		 * contiguous run too. */
		by_dst = malloc(profile->pair_count * sizeof(*by_dst));
		if (by_dst) {
			memcpy(by_dst, profile->pairs,
			       profile->pair_count * sizeof(*by_dst));
			qsort(by_dst, profile->pair_count, sizeof(*by_dst),
			      cmp_by_dst);
		}
	}
	if (!row || (symmetric && profile->pair_count && !by_dst)) {
		free(row);
		free(by_dst);
		return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < n && !tp_strbuf_failed(&t); i++) {
		memset(row, 0, n * sizeof(*row));
		/* Pairs are sorted by src: row i is one contiguous run. */
		for (; k < profile->pair_count && profile->pairs[k].src == i;
		     k++)
			row[profile->pairs[k].dst] = profile->pairs[k].bytes;
		for (;
		     by_dst && kt < profile->pair_count && by_dst[kt].dst == i;
		     kt++)
			row[by_dst[kt].src] =
			    add_sat(row[by_dst[kt].src], by_dst[kt].bytes);
		for (uint32_t j = 0; j < n; j++)
			tp_strbuf_printf(&t, j ? " %llu" : "%llu",
			            (unsigned long long)row[j]);
		tp_strbuf_printf(&t, "\n");
	}
	free(row);
	free(by_dst);
	return text_done(&t, "dense export", text, len, err);
}

tp_status tp_profile_export_scotch(const tp_profile *profile, char **text,
                                   size_t *len, tp_error *err)
{
	tp_strbuf t = TP_STRBUF_INIT(0);
	tp_traffic_csr *csr = NULL;
	tp_traffic *traffic = NULL;
	uint64_t max_w = 0, scale = 1;
	tp_status st;

	*text = NULL;
	*len = 0;
	st = tp_profile_to_traffic(profile, &traffic, err);
	if (st == TP_OK)
		st = tp_traffic_csr_build(traffic, TP_TRAFFIC_CSR_UNDIRECTED,
		                          &csr, err);
	tp_traffic_free(traffic);
	if (st != TP_OK)
		return tp_error_prefix(err, "scotch export");
	for (uint64_t e = 0; e < csr->row_start[csr->ranks]; e++)
		if (csr->weight[e] > max_w)
			max_w = csr->weight[e];
	if (max_w > INT32_MAX)
		scale = max_w / INT32_MAX + 1;
	/* Version 0; vertices and arcs; base 0, flags 010 = edge loads. */
	tp_strbuf_printf(&t, "0\n%u\t%llu\n0\t010\n", csr->ranks,
	            (unsigned long long)csr->row_start[csr->ranks]);
	for (uint32_t v = 0; v < csr->ranks; v++) {
		tp_strbuf_printf(&t, "%llu",
		            (unsigned long long)(csr->row_start[v + 1] -
		                                 csr->row_start[v]));
		for (uint64_t e = csr->row_start[v]; e < csr->row_start[v + 1];
		     e++)
			tp_strbuf_printf(
			    &t, "\t%llu %u",
			    (unsigned long long)(csr->weight[e] / scale +
			                         (csr->weight[e] % scale != 0)),
			    csr->col[e]);
		tp_strbuf_printf(&t, "\n");
	}
	tp_traffic_csr_free(csr);
	return text_done(&t, "scotch export", text, len, err);
}
