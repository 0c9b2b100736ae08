/*
 * mpi_bench.c: workloads for bench/profiler_bench.sh (profiler overhead).
 *
 *   mpi_bench pingpong BYTES ITERS   ranks 0 and 1 bounce a message
 *   mpi_bench self BYTES ITERS       each rank MPI_Sendrecv to itself: the
 *                                    per-call cost without a second process
 *                                    to wait for (least noise)
 *   mpi_bench alltoall INTS ITERS    MPI_Alltoall of INTS ints per peer
 *   mpi_bench stencil N ITERS        Jacobi sweeps on an N^3 block per rank
 *                                    with a 6-face halo exchange (3-D
 *                                    periodic Cartesian grid) and a residual
 *                                    Allreduce every iteration
 *
 * Rank 0 prints "seconds S" (the timed loop, after a warm-up barrier) and
 * then "finalize_seconds F": how long its MPI_Finalize took, which under
 * the profiler includes the gather and the profile write (a clock of its
 * own: MPI_Wtime may not be called after MPI_Finalize).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#define IDX(i, j, k)                                                           \
	(((size_t)(i) * (n + 2) + (size_t)(j)) * (n + 2) + (size_t)(k))

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double stencil(int n, int iters)
{
	int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, it, d, i, j, k, lo, hi;
	size_t cells = (size_t)(n + 2) * (n + 2) * (n + 2),
	       face = (size_t)n * n;
	double *u = calloc(cells, sizeof(double)),
	       *v = calloc(cells, sizeof(double));
	double *sb = malloc(face * sizeof(double)),
	       *rb = malloc(face * sizeof(double));
	double res = 0, t0;
	int size;
	MPI_Comm cart;

	if (!u || !v || !sb || !rb)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Dims_create(size, 3, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &cart);
	for (i = 0; i < (int)cells; i++)
		u[i] = (double)(i % 17);
	MPI_Barrier(cart);
	t0 = MPI_Wtime();
	for (it = 0; it < iters; it++) {
		for (d = 0; d < 3; d++) {
			MPI_Cart_shift(cart, d, 1, &lo, &hi);
			/* Faces are packed for real: the copy is part of the
			 * app. */
			for (i = 0; i < n; i++)
				for (j = 0; j < n; j++)
					sb[(size_t)i * n + j] =
					    d == 0   ? u[IDX(n, i + 1, j + 1)]
					    : d == 1 ? u[IDX(i + 1, n, j + 1)]
					             : u[IDX(i + 1, j + 1, n)];
			MPI_Sendrecv(sb, (int)face, MPI_DOUBLE, hi, d, rb,
			             (int)face, MPI_DOUBLE, lo, d, cart,
			             MPI_STATUS_IGNORE);
			MPI_Sendrecv(rb, (int)face, MPI_DOUBLE, lo, d + 3, sb,
			             (int)face, MPI_DOUBLE, hi, d + 3, cart,
			             MPI_STATUS_IGNORE);
		}
		res = 0;
		for (i = 1; i <= n; i++)
			for (j = 1; j <= n; j++)
				for (k = 1; k <= n; k++) {
					v[IDX(i, j, k)] =
					    (u[IDX(i - 1, j, k)] +
					     u[IDX(i + 1, j, k)] +
					     u[IDX(i, j - 1, k)] +
					     u[IDX(i, j + 1, k)] +
					     u[IDX(i, j, k - 1)] +
					     u[IDX(i, j, k + 1)]) /
					    6.0;
					res +=
					    v[IDX(i, j, k)] - u[IDX(i, j, k)];
				}
		memcpy(u, v, cells * sizeof(double));
		MPI_Allreduce(MPI_IN_PLACE, &res, 1, MPI_DOUBLE, MPI_SUM, cart);
	}
	t0 = MPI_Wtime() - t0;
	MPI_Comm_free(&cart);
	free(u);
	free(v);
	free(sb);
	free(rb);
	return res > 1e300 ? -1 : t0; /* keep res alive */
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int a = argc > 2 ? atoi(argv[2]) : 0,
	    iters = argc > 3 ? atoi(argv[3]) : 0;
	int rank, size, i;
	double t0, t = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (!strcmp(mode, "pingpong")) {
		char *buf = calloc((size_t)a + 1, 1);
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (i = 0; i < iters && rank < 2; i++) {
			if (rank == 0) {
				MPI_Send(buf, a, MPI_BYTE, 1, 0,
				         MPI_COMM_WORLD);
				MPI_Recv(buf, a, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
				         MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(buf, a, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
				         MPI_STATUS_IGNORE);
				MPI_Send(buf, a, MPI_BYTE, 0, 0,
				         MPI_COMM_WORLD);
			}
		}
		t = MPI_Wtime() - t0;
		free(buf);
	} else if (!strcmp(mode, "self")) {
		char *s = calloc((size_t)a + 1, 1),
		     *r = calloc((size_t)a + 1, 1);
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (i = 0; i < iters; i++)
			MPI_Sendrecv(s, a, MPI_BYTE, rank, 0, r, a, MPI_BYTE,
			             rank, 0, MPI_COMM_WORLD,
			             MPI_STATUS_IGNORE);
		t = MPI_Wtime() - t0;
		free(s);
		free(r);
	} else if (!strcmp(mode, "alltoall")) {
		int *s = calloc((size_t)a * size, sizeof(int));
		int *r = calloc((size_t)a * size, sizeof(int));
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (i = 0; i < iters; i++)
			MPI_Alltoall(s, a, MPI_INT, r, a, MPI_INT,
			             MPI_COMM_WORLD);
		t = MPI_Wtime() - t0;
		free(s);
		free(r);
	} else if (!strcmp(mode, "stencil")) {
		t = stencil(a, iters);
	} else {
		if (rank == 0)
			fprintf(stderr, "usage: mpi_bench "
			                "pingpong|alltoall|stencil A ITERS\n");
		MPI_Finalize();
		return 2;
	}
	if (rank == 0) {
		printf("seconds %.6f\n", t);
		fflush(stdout);
	}
	t0 = now_s();
	MPI_Finalize();
	if (rank == 0)
		printf("finalize_seconds %.6f\n", now_s() - t0);
	return 0;
}
