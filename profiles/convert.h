/*
 * convert.h: profiles from and to other tools' formats.
 *
 * Importers (hostile input: bounded, every number checked, errors name the
 * file and line):
 *   - the plain matrix text `src dst bytes [msgs]` of tests/data/matrices
 *     (parsed by placement/traffic.c) plus its optional `.coll` companion
 *     (`name calls_sum calls_max bytes_sum`);
 *   - Open MPI's pml/coll monitoring output (`--mca pml_monitoring_enable 2
 *     --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename F`
 *     writes F.<rank>.prof per rank).
 * Exporters: the traffic matrix (tp_traffic), a dense matrix (TreeMatch's
 * input) and a Scotch source graph (.grf).
 */
#ifndef TP_CONVERT_H
#define TP_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "traffic.h"
#include "tp_error.h"

/*
 * A new finished profile holding @traffic's entries; header fields come
 * from @header except ranks (traffic->ranks).  @traffic must be normalized.
 */
tp_status tp_profile_from_traffic(const tp_traffic *traffic,
                                  const tp_profile_header *header,
                                  tp_profile **profile, tp_error *err);

/* A new normalized tp_traffic with @profile's matrix (free: tp_traffic_free).
 */
tp_status tp_profile_to_traffic(const tp_profile *profile, tp_traffic **traffic,
                                tp_error *err);

/*
 * Parse a `.coll` text (@len bytes at @text, @label names it in errors)
 * into @profile's collectives: `name calls_sum calls_max bytes_sum` per
 * line, `#` lines and blank lines skipped.
 */
tp_status tp_profile_parse_collectives(tp_profile *profile, const char *label,
                                       const char *text, size_t len,
                                       tp_error *err);

/*
 * Import the matrix file @path (and @path.coll when it exists) as a new
 * finished profile.  The application name and duration come from the
 * `# commprof-v1 app=... runtime_s=...` header when present, else @app
 * (may be NULL: "unknown").  @limits bounds the text reader (NULL:
 * defaults).
 */
tp_status tp_profile_import_matrix(const char *path, const char *app,
                                   const tp_traffic_limits *limits,
                                   tp_profile **profile, tp_error *err);

/*
 * Parse the Open MPI monitoring texts @texts[i] (@lens[i] bytes, named
 * @labels[i]) into @profile (created with @header, whose ranks must cover
 * every rank seen).  `E` lines (the application's point-to-point sends)
 * make the matrix; `I` (internal), `C` (collective traffic per peer), and
 * OSC lines are checked and not counted in it; the per-communicator
 * one-to-all / all-to-one / all-to-all lines become collectives
 * `ompi_one_to_all`, `ompi_all_to_one`, `ompi_all_to_all` (calls = the
 * message counts Open MPI reports).  At most @max_lines lines per text.
 */
tp_status tp_profile_parse_ompi_monitoring(tp_profile *profile,
                                           const char *const *labels,
                                           const char *const *texts,
                                           const size_t *lens, size_t count,
                                           size_t max_lines, tp_error *err);

/*
 * Import the Open MPI monitoring files @paths (each at most
 * @max_file_bytes) as a new finished profile named @app, ranks = highest
 * rank seen + 1 (or @ranks when non-zero).
 */
tp_status tp_profile_import_ompi_monitoring(
    const char *const *paths, size_t count, const char *app, uint32_t ranks,
    size_t max_file_bytes, tp_profile **profile, tp_error *err);

/*
 * A dense ranks x ranks text matrix of bytes (row = sender, one line per
 * rank, values separated by one space), TreeMatch's input; with
 * @symmetric, cell (i,j) = bytes i->j + bytes j->i.  At most @max_ranks
 * ranks (TP_ERR_LIMIT: a dense matrix is quadratic).  *@text is malloc'd.
 */
tp_status tp_profile_export_dense(const tp_profile *profile, int symmetric,
                                  uint32_t max_ranks, char **text, size_t *len,
                                  tp_error *err);

/*
 * A Scotch source graph (.grf, version 0, base 0, edge weights): one
 * vertex per rank, undirected edge weight = bytes i->j + bytes j->i,
 * diagonal dropped.  Weights are scaled down (rounding up, so no edge
 * vanishes) when the largest exceeds 2^31 - 1, so 32-bit Scotch builds
 * read them.  *@text is malloc'd.
 */
tp_status tp_profile_export_scotch(const tp_profile *profile, char **text,
                                   size_t *len, tp_error *err);

#endif /* TP_CONVERT_H */
