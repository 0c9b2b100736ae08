/*
 * pacing.h: internal interface between the POSIX part of the pacing
 * preload library (pacing.c) and its MPI-IO part (pacing_mpi.c).  Not part
 * of libtopoplace, not installed.
 */
#ifndef TP_PACING_H
#define TP_PACING_H

#define TP_PACING_HIDDEN __attribute__((visibility("hidden")))

/*
 * Before an MPI-IO request: pace it (if pacing is on and, for reads, reads
 * are paced) and mark this thread as inside MPI-IO so the POSIX calls the
 * MPI library makes for it are not paced a second time.  errno is kept.
 */
TP_PACING_HIDDEN void tp_pacing_mpi_enter(int is_read);

/* After the MPI-IO request returns. */
TP_PACING_HIDDEN void tp_pacing_mpi_leave(void);

#endif /* TP_PACING_H */
