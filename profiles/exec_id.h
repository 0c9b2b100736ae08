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
 * The arguments (argv[1..]; argv[0] is not one: `./app` and `/abs/app`
 * run the same program) are a second digest beside the program's: SHA-256
 * over each argument as an 8-byte little-endian length, then its bytes,
 * so ("a b") and ("a", "b") differ, and so does () from ("").  Two steps
 * run the same command when they run the same program with the same
 * arguments (tp_exec_id_same_command): one site-installed solver run by
 * many scripts with different inputs is many applications, not one.
 * Bounded (TP_EXEC_ARGS_MAX_BYTES): arguments of more than 1 MiB in all
 * (each counted with its terminating NUL, as the kernel and
 * /proc/<pid>/cmdline hold them) are not hashed: their digest is
 * unknown, and an unknown digest is the same command as nothing.
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

/* The most argument bytes hashed (arguments after argv[0], each with its
 * NUL): past it the digest is unknown.  Linux itself allows about 2 MiB
 * of arguments and environment together. */
#define TP_EXEC_ARGS_MAX_BYTES ((uint64_t)1 << 20)
/* The longest argv[0] Linux execs (MAX_ARG_STRLEN, 32 pages), NUL
 * included: what /proc/self/cmdline may hold before the arguments. */
#define TP_EXEC_ARG0_MAX_BYTES ((uint64_t)128 << 10)

typedef enum tp_exec_args_method {
	TP_EXEC_ARGS_NONE = 0, /* unknown: not recorded, or over the bound */
	TP_EXEC_ARGS_FULL = 1, /* sha256 of every argument, length-prefixed */
} tp_exec_args_method;

#define TP_EXEC_ARGS_METHOD_LAST TP_EXEC_ARGS_FULL

typedef struct tp_exec_id {
	char path[TP_EXEC_PATH_MAX + 1]; /* absolute, printable; "" unknown */
	uint32_t hash_method;            /* tp_exec_hash_method */
	uint64_t size_bytes;             /* the file's size when hashed */
	uint8_t sha256[TP_SHA256_BYTES];
	char layout[TP_EXEC_LAYOUT_MAX + 1]; /* "4x16"; "" unknown */
	/* The arguments, argv[1..]: NONE leaves count and sha256 0. */
	uint32_t args_method; /* tp_exec_args_method */
	uint32_t args_count;  /* how many arguments were hashed */
	uint8_t args_sha256[TP_SHA256_BYTES];
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

/*
 * The digest of the @argc arguments @args (a step's argv + 1; entries
 * must not be NULL) into @id's args_method, args_count and args_sha256
 * (nothing else touched): TP_EXEC_ARGS_FULL, or TP_EXEC_ARGS_NONE (count
 * and digest 0) when they exceed TP_EXEC_ARGS_MAX_BYTES.  No allocation,
 * no error: an argument list too long to hash is an unknown one.
 */
void tp_exec_args_digest(const char *const *args, size_t argc, tp_exec_id *id);

/*
 * The same digest from a process's command line as /proc/<pid>/cmdline
 * holds it: @len bytes of NUL-terminated strings, argv[0] first and
 * skipped.  Unknown (TP_EXEC_ARGS_NONE) when @len is 0, the last byte is
 * not a NUL (a process that rewrote its command line) or the arguments
 * exceed the bound.
 */
void tp_exec_args_from_cmdline(const char *buf, size_t len, tp_exec_id *id);

/*
 * Read @path (the caller's "/proc/self/cmdline"), at most
 * TP_EXEC_ARG0_MAX_BYTES + TP_EXEC_ARGS_MAX_BYTES + 1 bytes, and digest
 * its arguments (tp_exec_args_from_cmdline): a longer file is over the
 * bound (unknown).  TP_ERR_IO (open or read failed, naming @path; the
 * digest is then unknown), TP_ERR_NOMEM.
 */
tp_status tp_exec_args_read(const char *path, tp_exec_id *id, tp_error *err);

/* The arguments method's name: "none", "full" ("?" otherwise). */
const char *tp_exec_args_method_name(uint32_t method);

/* The arguments method named @name, or -1. */
int tp_exec_args_method_parse(const char *name);

/* The method's name: "none", "full", "sampled" ("?" otherwise). */
const char *tp_exec_hash_method_name(uint32_t method);

/* The method named @name, or -1. */
int tp_exec_hash_method_parse(const char *name);

/* True when @a and @b are hashed, the same way, to the same content. */
int tp_exec_id_same_program(const tp_exec_id *a, const tp_exec_id *b);

/*
 * True when @a and @b are the same program (tp_exec_id_same_program) run
 * with the same arguments: both digests known, of as many arguments, and
 * equal.  An unknown digest on either side is never the same command (a
 * run recorded before arguments were, or over the bound): the caller
 * that wants the program alone asks tp_exec_id_same_program.
 */
int tp_exec_id_same_command(const tp_exec_id *a, const tp_exec_id *b);

#endif /* TP_EXEC_ID_H */
