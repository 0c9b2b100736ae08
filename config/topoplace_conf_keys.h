/*
 * topoplace_conf_keys.h: topoplace.conf's key table, row by row, for its
 * unit test (tests/unit/test_config.c walks every row) and tools that list
 * the keys.  The plugins and the CLI use topoplace_conf.h.
 *
 * A row's value lives at @offset in tp_config_settings (keys a partition
 * may set) or tp_config_site (site-wide keys), over @size bytes: the field,
 * or the adjacent fields the key sets together (IoServerPolicy sets the
 * policy and whether it is auto).  A row's parser writes nothing outside
 * them, its printer writes the value as the file spells it, and the
 * default is the value an empty file gives.
 */
#ifndef TP_TOPOPLACE_CONF_KEYS_H
#define TP_TOPOPLACE_CONF_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "topoplace_conf.h"

typedef struct tp_config_key_info {
	const char *name;   /* as the file spells it */
	bool per_partition; /* in tp_config_settings, else tp_config_site */
	size_t offset, size;
	bool has_parser, has_printer;
	/* The default is unset (a NULL path or host list, printed "none"):
	 * no line of the file can say it, only leave the key out. */
	bool unset_by_default;
} tp_config_key_info;

/* The number of keys, and row @i's description (false past the end). */
size_t tp_config_key_count(void);
bool tp_config_key_describe(size_t i, tp_config_key_info *info);

/*
 * Row @i's parts, on the struct @base (a tp_config_site or a
 * tp_config_settings as the row says): write its default; parse @text into
 * it (strings are copied into @config, which owns them; errors start with
 * the key's name, as in the file's messages); print it into @buf of @size
 * bytes.
 */
void tp_config_key_default(size_t i, void *base);
tp_status tp_config_key_parse(tp_config *config, size_t i, const char *text,
                              void *base, tp_error *err);
void tp_config_key_print(size_t i, const void *base, char *buf, size_t size);

#endif /* TP_TOPOPLACE_CONF_KEYS_H */
