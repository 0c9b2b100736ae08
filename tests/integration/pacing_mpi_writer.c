/*
 * pacing_mpi_writer.c: each MPI rank writes COUNT blocks of BYTES to a
 * shared file with MPI_File_write_at and times every call; rank 0 prints
 * the smallest "previous call to this return" time over all ranks
 * (min_outer_us, an upper bound of the start-to-start interval that must
 * reach the window), the slowest rank's total time and the largest of the
 * ranks' median intervals between call returns; then one line per rank
 * with its process id and the CLOCK_MONOTONIC times (ns) just before its
 * first and just after its last MPI_File_write_at, to match the pacing
 * library's statistics (TOPOPLACE_IO_PACING_STATS) to the write loop.
 *
 *   mpirun -np P pacing_mpi_writer FILE COUNT BYTES
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int rank, size, count, bytes;
	double t0, t1, prev_before = 0, prev_after = 0, min_outer = 1e30;
	double total, all_min, all_total, median, max_median, *gaps;
	long long mine[3], *all = NULL;
	MPI_File fh;
	char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 4) {
		if (rank == 0)
			fprintf(stderr,
			        "usage: pacing_mpi_writer FILE COUNT BYTES\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	count = atoi(argv[2]);
	bytes = atoi(argv[3]);
	buf = malloc((size_t)bytes);
	gaps = calloc((size_t)count, sizeof(double));
	if (!buf || !gaps || count < 2)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(buf, 'A' + rank % 26, (size_t)bytes);
	if (MPI_File_open(MPI_COMM_WORLD, argv[1],
	                  MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
	                  &fh) != MPI_SUCCESS)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	mine[0] = (long long)getpid();
	mine[1] = now_ns();
	t0 = MPI_Wtime();
	for (int i = 0; i < count; i++) {
		MPI_Offset off = ((MPI_Offset)rank * count + i) * bytes;
		double before = MPI_Wtime(), after;

		if (MPI_File_write_at(fh, off, buf, bytes, MPI_CHAR,
		                      MPI_STATUS_IGNORE) != MPI_SUCCESS)
			MPI_Abort(MPI_COMM_WORLD, 1);
		after = MPI_Wtime();
		if (i > 0 && after - prev_before < min_outer)
			min_outer = after - prev_before;
		if (i > 0)
			gaps[i - 1] = after - prev_after;
		prev_before = before;
		prev_after = after;
	}
	t1 = MPI_Wtime();
	mine[2] = now_ns();
	total = t1 - t0;
	MPI_File_close(&fh);
	qsort(gaps, (size_t)count - 1, sizeof(double), cmp_double);
	median = gaps[(count - 1) / 2];
	MPI_Reduce(&median, &max_median, 1, MPI_DOUBLE, MPI_MAX, 0,
	           MPI_COMM_WORLD);
	MPI_Reduce(&min_outer, &all_min, 1, MPI_DOUBLE, MPI_MIN, 0,
	           MPI_COMM_WORLD);
	MPI_Reduce(&total, &all_total, 1, MPI_DOUBLE, MPI_MAX, 0,
	           MPI_COMM_WORLD);
	if (rank == 0 && !(all = calloc((size_t)size * 3, sizeof(*all))))
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Gather(mine, 3, MPI_LONG_LONG, all, 3, MPI_LONG_LONG, 0,
	           MPI_COMM_WORLD);
	if (rank == 0) {
		printf("ranks=%d requests=%d min_outer_us=%.1f total_us=%.1f "
		       "max_median_gap_us=%.1f\n",
		       size, count, all_min * 1e6, all_total * 1e6,
		       max_median * 1e6);
		for (int r = 0; r < size; r++)
			printf("rank=%d pid=%lld loop_start_ns=%lld "
			       "loop_end_ns=%lld\n",
			       r, all[3 * r], all[3 * r + 1], all[3 * r + 2]);
	}
	free(all);
	free(buf);
	free(gaps);
	MPI_Finalize();
	return 0;
}
