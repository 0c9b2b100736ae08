/*
 * fabric_name_map.c: the GUID -> name map (see fabric.h) that names hosts
 * and switches when the fabric itself does not, as a sorted array so
 * lookups during discovery are binary searches.  Split from fabric.c: the
 * map is read before a fabric exists and knows nothing of one.
 */
#include "tp_config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"
#include "tp_file.h"

struct name_entry {
	uint64_t guid;
	char *name;
};

struct tp_fabric_name_map {
	struct name_entry *entries; /* sorted by guid */
	size_t count, cap;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct name_entry *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

void tp_fabric_name_map_free(tp_fabric_name_map *map)
{
	if (map == NULL)
		return;
	for (size_t i = 0; i < map->count; i++)
		free(map->entries[i].name);
	free(map->entries);
	free(map);
}

tp_status tp_fabric_name_map_parse(const char *text, size_t len,
                                   const char *origin, tp_fabric_name_map **out,
                                   tp_error *err)
{
	tp_fabric_name_map *map;
	size_t pos = 0;
	unsigned line = 0;

	*out = NULL;
	map = calloc(1, sizeof(*map));
	if (map == NULL)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "fabric: out of memory (name map)");
	while (pos < len) {
		size_t end = pos, i;
		const char *s;
		uint64_t guid = 0;
		size_t ndig = 0, nstart, nlen;

		while (end < len && text[end] != '\n')
			end++;
		line++;
		s = text + pos;
		i = 0;
		while (pos + i < end && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (pos + i == end || s[i] == '#' || s[i] == '\r')
			goto next;
		if (end - pos - i < 3 || s[i] != '0' ||
		    (s[i + 1] != 'x' && s[i + 1] != 'X'))
			goto bad_guid;
		i += 2;
		while (pos + i < end) {
			char c = s[i];
			unsigned v;

			if (c >= '0' && c <= '9')
				v = (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f')
				v = (unsigned)(c - 'a' + 10);
			else if (c >= 'A' && c <= 'F')
				v = (unsigned)(c - 'A' + 10);
			else
				break;
			if (++ndig > 16)
				goto bad_guid;
			guid = guid << 4 | v;
			i++;
		}
		if (ndig == 0 || (pos + i < end && s[i] != ' ' && s[i] != '\t'))
			goto bad_guid;
		while (pos + i < end && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (pos + i < end && s[i] == '"') {
			i++;
			nstart = i;
			while (pos + i < end && s[i] != '"')
				i++;
			if (pos + i == end) {
				tp_fabric_name_map_free(map);
				return tp_error_set(err, TP_ERR_PARSE,
				                    "%s: line %u: unterminated "
				                    "quoted name",
				                    origin, line);
			}
			nlen = i - nstart;
		} else {
			nstart = i;
			while (pos + i < end && s[i] != ' ' && s[i] != '\t' &&
			       s[i] != '\r' && s[i] != '#')
				i++;
			nlen = i - nstart;
		}
		if (nlen == 0 || memchr(s + nstart, '\0', nlen) != NULL) {
			tp_fabric_name_map_free(map);
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: line %u: GUID without a name",
			                    origin, line);
		}
		if (map->count == map->cap) {
			size_t ncap = map->cap ? map->cap * 2 : 16;
			struct name_entry *p =
			    realloc(map->entries, ncap * sizeof(*p));

			if (p == NULL) {
				tp_fabric_name_map_free(map);
				return tp_error_set(
				    err, TP_ERR_NOMEM,
				    "fabric: out of memory (name map)");
			}
			map->entries = p;
			map->cap = ncap;
		}
		map->entries[map->count].guid = guid;
		map->entries[map->count].name = strndup(s + nstart, nlen);
		if (map->entries[map->count].name == NULL) {
			tp_fabric_name_map_free(map);
			return tp_error_set(err, TP_ERR_NOMEM,
			                    "fabric: out of memory (name map)");
		}
		map->count++;
	next:
		pos = end + 1;
		continue;
	bad_guid:
		tp_fabric_name_map_free(map);
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %u: expected a GUID such as "
		                    "0x0002c90300000001 at the start",
		                    origin, line);
	}
	if (map->count > 1)
		qsort(map->entries, map->count, sizeof(*map->entries),
		      cmp_entry);
	for (size_t i = 1; i < map->count; i++) {
		if (map->entries[i].guid == map->entries[i - 1].guid) {
			uint64_t g = map->entries[i].guid;

			tp_fabric_name_map_free(map);
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: GUID 0x%016" PRIx64
			                    " is mapped twice",
			                    origin, g);
		}
	}
	*out = map;
	return TP_OK;
}

tp_status tp_fabric_name_map_load(const char *path, tp_fabric_name_map **map,
                                  tp_error *err)
{
	char *data;
	size_t len;
	tp_status rc;

	*map = NULL;
	if ((rc = tp_file_read(path, NULL, 64u << 20, &data, &len, err)) !=
	    TP_OK)
		return rc;
	rc = tp_fabric_name_map_parse(data, len, path, map, err);
	free(data);
	return rc;
}

const char *tp_fabric_name_map_lookup(const tp_fabric_name_map *map,
                                      uint64_t guid)
{
	struct name_entry key = {guid, NULL}, *hit;

	if (map == NULL || map->count == 0)
		return NULL;
	hit = bsearch(&key, map->entries, map->count, sizeof(key), cmp_entry);
	return hit != NULL ? hit->name : NULL;
}
