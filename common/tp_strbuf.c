/*
 * tp_strbuf.c: the growing string (see tp_strbuf.h).  Capacity doubles from
 * 64 bytes, so appending n bytes in pieces costs O(n) copies.
 */
#include "tp_config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_strbuf.h"

/* Room for @more bytes and a NUL; false (and failed) if there is none. */
static bool reserve(tp_strbuf *b, size_t more)
{
	size_t need, ncap;
	char *p;

	if (b->failed)
		return false;
	if (more > SIZE_MAX - b->len - 1 ||
	    (b->max_len && b->len + more > b->max_len)) {
		b->failed = b->too_long = true;
		return false;
	}
	need = b->len + more + 1;
	if (need <= b->cap)
		return true;
	ncap = b->cap ? b->cap : 64;
	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
	p = realloc(b->s, ncap);
	if (p == NULL) {
		b->failed = true;
		return false;
	}
	b->s = p;
	b->cap = ncap;
	return true;
}

bool tp_strbuf_printf(tp_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return false;
	}
	if (!reserve(b, (size_t)n))
		return false;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return true;
}

bool tp_strbuf_append(tp_strbuf *b, const char *s, size_t len)
{
	if (!reserve(b, len))
		return false;
	memcpy(b->s + b->len, s, len);
	b->len += len;
	b->s[b->len] = '\0';
	return true;
}

bool tp_strbuf_failed(const tp_strbuf *b)
{
	return b->failed;
}

char *tp_strbuf_take(tp_strbuf *b)
{
	char *text = b->failed ? NULL : b->s;

	if (b->failed)
		free(b->s);
	else if (text == NULL)
		text = strdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	b->failed = b->too_long = false;
	return text;
}

void tp_strbuf_free(tp_strbuf *b)
{
	if (b == NULL)
		return;
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->failed = b->too_long = false;
}
