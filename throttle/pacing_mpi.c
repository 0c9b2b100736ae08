/*
 * pacing_mpi.c: the MPI-IO part of the pacing preload library, built only
 * where mpi.h is available, into libtopoplace_pacing_mpi.so (pacing.c plus
 * this file), which a job preloads instead of libtopoplace_pacing.so.
 *
 * PMPI style: MPI_File_write* (and MPI_File_read* when reads are paced)
 * are defined here and call their PMPI_ twins, after pacing the request
 * start.  The POSIX writes the MPI library then makes on the job's behalf
 * are not paced again (see tp_pacing_mpi_enter).  The status and return
 * code are the MPI library's.
 */
#include "tp_config.h"

#include <mpi.h>

#include "pacing.h"

#define PACED(is_read, call)                                                   \
	do {                                                                   \
		int rc;                                                        \
		tp_pacing_mpi_enter(is_read);                                  \
		rc = call;                                                     \
		tp_pacing_mpi_leave();                                         \
		return rc;                                                     \
	} while (0)

int MPI_File_write(MPI_File fh, const void *buf, int count,
                   MPI_Datatype datatype, MPI_Status *status)
{
	PACED(0, PMPI_File_write(fh, buf, count, datatype, status));
}

int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf,
                      int count, MPI_Datatype datatype, MPI_Status *status)
{
	PACED(0, PMPI_File_write_at(fh, offset, buf, count, datatype, status));
}

int MPI_File_write_all(MPI_File fh, const void *buf, int count,
                       MPI_Datatype datatype, MPI_Status *status)
{
	PACED(0, PMPI_File_write_all(fh, buf, count, datatype, status));
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf,
                          int count, MPI_Datatype datatype, MPI_Status *status)
{
	PACED(0,
	      PMPI_File_write_at_all(fh, offset, buf, count, datatype, status));
}

int MPI_File_write_shared(MPI_File fh, const void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status)
{
	PACED(0, PMPI_File_write_shared(fh, buf, count, datatype, status));
}

int MPI_File_write_ordered(MPI_File fh, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Status *status)
{
	PACED(0, PMPI_File_write_ordered(fh, buf, count, datatype, status));
}

int MPI_File_iwrite(MPI_File fh, const void *buf, int count,
                    MPI_Datatype datatype, MPI_Request *request)
{
	PACED(0, PMPI_File_iwrite(fh, buf, count, datatype, request));
}

int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf,
                       int count, MPI_Datatype datatype, MPI_Request *request)
{
	PACED(0,
	      PMPI_File_iwrite_at(fh, offset, buf, count, datatype, request));
}

int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                  MPI_Status *status)
{
	PACED(1, PMPI_File_read(fh, buf, count, datatype, status));
}

int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                     MPI_Datatype datatype, MPI_Status *status)
{
	PACED(1, PMPI_File_read_at(fh, offset, buf, count, datatype, status));
}

int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status)
{
	PACED(1, PMPI_File_read_all(fh, buf, count, datatype, status));
}

int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                         MPI_Datatype datatype, MPI_Status *status)
{
	PACED(1,
	      PMPI_File_read_at_all(fh, offset, buf, count, datatype, status));
}
