/*
 * tp_strbuf.h: one growing string for texts built piece by piece
 * (hostlists, fabric findings, rankfiles), with an optional bound.
 *
 * Appends never fail loudly: the first failure (out of memory, or the text
 * would pass the bound) makes the buffer "failed" and every later append a
 * no-op, so a writer appends freely and checks once at the end
 * (tp_strbuf_failed, or tp_strbuf_take returning NULL).  The text is always
 * NUL-terminated once anything was appended.
 */
#ifndef TP_STRBUF_H
#define TP_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tp_strbuf {
	char *s;        /* the text, malloc'ed; NULL until the first append */
	size_t len;     /* bytes of text, without the NUL */
	size_t cap;     /* bytes allocated */
	size_t max_len; /* longest text allowed; 0: no bound but memory */
	bool failed;    /* an append failed: the text is incomplete */
	bool too_long;  /* ... because it would have passed max_len */
} tp_strbuf;

/* An empty buffer; @max_len bounds its text (0: unbounded). */
#define TP_STRBUF_INIT(max_len) {NULL, 0, 0, (max_len), false, false}

/* Append printf-style text.  Returns false if the buffer is failed. */
bool tp_strbuf_printf(tp_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append @len bytes of @s (no NUL needed).  Returns false if failed. */
bool tp_strbuf_append(tp_strbuf *b, const char *s, size_t len);

/* True once an append failed (see tp_strbuf.too_long for why). */
bool tp_strbuf_failed(const tp_strbuf *b);

/*
 * The text, handed to the caller (free() it): "" if nothing was appended,
 * NULL if the buffer failed or the empty string could not be allocated.
 * The buffer is empty and not failed afterwards, whatever the result.
 */
char *tp_strbuf_take(tp_strbuf *b);

/* Free the text and empty the buffer (NULL-safe). */
void tp_strbuf_free(tp_strbuf *b);

#endif /* TP_STRBUF_H */
