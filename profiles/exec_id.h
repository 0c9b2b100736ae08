/*
 * exec_id.h: what a run ran, as an identity that survives job names: the
 * executable (its path, size and SHA-256 content hash) and the rank layout
 * (how many ranks on how many nodes).
 *
 * The profiler fills one for rank 0 of every recorded run (profile.h
 * stores it, summary.h prints it); slurmstepd computes the executable part
 * for a step about to start and looks for runs of the same program
 * (app_identity.h).  Two runs are of the same program when both hashes are
 * known, made the same way, over the same size: the path is shown, never
 * compared (a copy or a new install path is the same program, a rebuilt
 * binary at the same path is not).
 *
 * Hashing is bounded (TP_EXEC_HASH_FULL_MAX_BYTES): an executable up to
 * 16 MiB is hashed whole (equal to `sha256sum`); a larger one is hashed
 * "sampled": its size, first and last MiB (rank 0 hashes at MPI_Finalize,
 * on its critical path: 16 MiB whole took 0.10-0.12 s on the test
 * machine, 64 MiB 0.30-0.33 s, sampled 200 MiB 8-13 ms; bench/RESULTS.md).  An ELF file keeps what changes
 * with every build in those parts (the ELF and program headers and the GNU
 * build-id note at the start, the section headers and symbol tables at the
 * end), so two builds differ there, while the hashing time stays under
 * about 10 ms whatever the size.  A sampled hash never equals a full one
 * (a prefix and the method are hashed in).
 *
 * The layout is the sorted per-node rank counts, run-length coded as
 * "<nodes>x<ranks per node>" terms joined by '+', largest ranks per node
 * first: "4x16" (4 nodes of 16 ranks), "2x16+1x8"; "" = unknown.
 *
 * Plain data, no allocation, no Slurm.
 */
#ifndef TP_EXEC_ID_H
#define TP_EXEC_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sha256.h"
#include "tp_error.h"

#define TP_EXEC_PATH_MAX            1023 /* bytes of the executable path */
#define TP_EXEC_LAYOUT_MAX          255  /* bytes of the layout text */
#define TP_EXEC_HASH_FULL_MAX_BYTES ((uint64_t)16 << 20)
#define TP_EXEC_HASH_SAMPLE_BYTES   ((uint64_t)1 << 20)

typedef enum tp_exec_hash_method {
	TP_EXEC_HASH_NONE = 0,    /* not hashed: size and sha256 are 0 */
	TP_EXEC_HASH_FULL = 1,    /* sha256 of the whole file */
	TP_EXEC_HASH_SAMPLED = 2, /* sha256 of prefix, size, first, last MiB */
} tp_exec_hash_method;

#define TP_EXEC_HASH_METHOD_LAST TP_EXEC_HASH_SAMPLED

typedef struct tp_exec_id {
	char path[TP_EXEC_PATH_MAX + 1]; /* absolute, printable; "" unknown */
	uint32_t hash_method;            /* tp_exec_hash_method */
	uint64_t size_bytes;             /* the file's size when hashed */
	uint8_t sha256[TP_SHA256_BYTES];
	char layout[TP_EXEC_LAYOUT_MAX + 1]; /* "4x16"; "" unknown */
} tp_exec_id;

/*
 * Hash the regular file open at @fd into @id's hash_method, size_bytes
 * and sha256 (path and layout untouched); @label names it in errors.
 * Reads at most 16 MiB (full) or 2 MiB (sampled).  TP_ERR_IO (not a
 * regular file, read error, file changed size while read).
 */
tp_status tp_exec_hash_fd(int fd, const char *label, tp_exec_id *id,
                          tp_error *err);

/*
 * Set @id->path to @path (absolute, printable, <= TP_EXEC_PATH_MAX, else
 * TP_ERR_INVALID) and hash the file it names (symlinks followed: the path
 * is what exec would run).  TP_ERR_NOTFOUND, TP_ERR_IO.
 */
tp_status tp_exec_hash_path(const char *path, tp_exec_id *id, tp_error *err);

/* The search path execvp(3) uses when PATH is unset (glibc's _CS_PATH). */
#define TP_EXEC_DEFAULT_PATH "/bin:/usr/bin"

/*
 * The file a step's command @argv0 runs, found as execvp(3) finds it,
 * into @out (@size bytes): @argv0 itself when it holds a '/' (relative to
 * @cwd, which must then be absolute), else the first "<dir>/<argv0>" of
 * @path_env (NULL: TP_EXEC_DEFAULT_PATH; an empty or relative dir is
 * taken from @cwd) that is a regular file the caller may execute
 * (access(X_OK): the caller runs as the step's user).  Symlinks are left
 * as they are (the file hashed is the same).  TP_ERR_NOTFOUND naming
 * @argv0 and what was searched; TP_ERR_IO when the only candidates are
 * not executable by the caller (execvp's EACCES); TP_ERR_INVALID for an
 * empty command or a path longer than TP_EXEC_PATH_MAX.
 */
tp_status tp_exec_resolve(const char *argv0, const char *path_env,
                          const char *cwd, char *out, size_t size,
                          tp_error *err);

/*
 * Whether @path (a resolved command) is an interpreter or a launcher whose
 * file says nothing about the program it runs: python*, pypy*, perl*,
 * ruby*, R, Rscript, julia*, java, node*, lua*, octave*, php*, tclsh*,
 * the shells (sh, bash, dash, zsh, ksh, csh, tcsh), env, and MPI's own
 * launchers (mpirun, mpiexec*, orterun, prterun).  Judged by the file
 * name only (a renamed copy is not caught); a step of one of them has no
 * executable key: `python a.py` and `python b.py` would otherwise be one
 * application.
 */
bool tp_exec_is_interpreter(const char *path);

/*
 * The layout text of @nodes per-node rank counts (0 counts skipped;
 * @node_ranks is sorted in place, largest first) into @out (@size bytes).
 * Returns 0, or -1 (out = "") when it does not fit TP_EXEC_LAYOUT_MAX or
 * @size, or no count is positive.
 */
int tp_exec_layout_format(uint32_t *node_ranks, size_t nodes, char *out,
                          size_t size);

/*
 * Check @layout: "" or the grammar above, terms with strictly decreasing
 * ranks per node, counts >= 1, summing to @ranks.  TP_ERR_INVALID naming
 * the term.
 */
tp_status tp_exec_layout_check(const char *layout, uint32_t ranks,
                               tp_error *err);

/* The method's name: "none", "full", "sampled" ("?" otherwise). */
const char *tp_exec_hash_method_name(uint32_t method);

/* The method named @name, or -1. */
int tp_exec_hash_method_parse(const char *name);

/* True when @a and @b are hashed, the same way, to the same content. */
int tp_exec_id_same_program(const tp_exec_id *a, const tp_exec_id *b);

#endif /* TP_EXEC_ID_H */
