/*
 * hostlist.h: Slurm hostlist expressions ("n[0001-0004,0007],io[1,5]"),
 * expanded and compressed in one place, so topology.conf, the scheduler
 * state, the remapper and the CLI read and write the same syntax.
 *
 * Syntax: names separated by ',' outside brackets; each name is literal text
 * with any number of [..] groups, a group being ranges N or N-M separated by
 * ','.  A range keeps the width of its first number ("n[08-10]": n08 n09
 * n10).  Bounded: at most the caller's max_names names, each at most
 * TP_HOSTLIST_NAME_MAX bytes; numbers of at most 18 digits.
 */
#ifndef TP_HOSTLIST_H
#define TP_HOSTLIST_H

#include <stddef.h>

#include "tp_error.h"

/* Longest name an expression may expand to, in bytes. */
#define TP_HOSTLIST_NAME_MAX 1023

/* Called with each name in order; the string is valid during the call. */
typedef tp_status (*tp_hostlist_fn)(void *ctx, const char *name,
                                    tp_error *err);

/*
 * Expand @expr, calling @fn for each name in order.  Stops at the first
 * non-TP_OK return of @fn and returns it.  Syntax errors are TP_ERR_PARSE
 * with a message naming the part that is wrong ("range 5-2 goes
 * backwards", "'[' without ']' in \"n[1\"") but not the input's origin:
 * callers prefix that.  More than @max_names names, or a longer name, is
 * TP_ERR_LIMIT.
 */
tp_status tp_hostlist_expand(const char *expr, size_t max_names,
                             tp_hostlist_fn fn, void *ctx, tp_error *err);

/*
 * Compress @names (@count, any order, duplicates dropped) into one
 * expression in a malloc'ed string stored in @out: names sorted by prefix,
 * width and number, runs of one prefix and width joined in brackets
 * ("n[0001-0004,0007],login1").  Expanding the result gives the sorted
 * names back.  "" for no names.  Only TP_ERR_NOMEM.
 */
tp_status tp_hostlist_compress(const char *const *names, size_t count,
                               char **out, tp_error *err);

#endif /* TP_HOSTLIST_H */
