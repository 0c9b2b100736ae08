/*
 * rankfile.h: tell the MPI launcher where each rank goes.
 *
 * Three formats of one mapping (rank -> host, slot):
 *   Open MPI rankfile   `rank N=host slot=S`, one line per rank
 *   MPICH/Hydra         `host:count`, runs of consecutive ranks on one host
 *                       in rank order (Hydra places ranks in file order)
 *   SLURM_HOSTFILE      one host per task in rank order (srun -m arbitrary)
 *
 * Files are written atomically: a temporary file in the same directory,
 * fsync, rename over the path; a reader never sees half a file.
 */
#ifndef TP_RANKFILE_H
#define TP_RANKFILE_H

#include <stddef.h>
#include <stdint.h>

#include "topo.h"
#include "tp_error.h"

typedef enum tp_rankfile_format {
	TP_RANKFILE_OPENMPI,
	TP_RANKFILE_HYDRA,
	TP_RANKFILE_SLURM,
} tp_rankfile_format;

/*
 * The text of @format for @ranks ranks placed at @rank_host (tp_topo host
 * indices) / @rank_slot (needed by TP_RANKFILE_OPENMPI only; may be NULL
 * otherwise).  *text is malloc'd, NUL-terminated, caller frees; its length
 * goes to @len if not NULL.  Errors (TP_ERR_INVALID): 0 ranks, a host
 * index outside @topo (naming the rank), missing slots for Open MPI.
 */
tp_status tp_rankfile_format_text(const tp_topo *topo,
                                  tp_rankfile_format format, uint32_t ranks,
                                  const uint32_t *rank_host,
                                  const uint32_t *rank_slot, char **text,
                                  size_t *len, tp_error *err);

/*
 * Write that text to @path atomically (see above).  Errors name the path:
 * TP_ERR_IO when the directory is not writable, the disk fills, the rename
 * fails; the temporary file is removed on failure.
 */
tp_status tp_rankfile_write(const char *path, const tp_topo *topo,
                            tp_rankfile_format format, uint32_t ranks,
                            const uint32_t *rank_host,
                            const uint32_t *rank_slot, tp_error *err);

#endif /* TP_RANKFILE_H */
