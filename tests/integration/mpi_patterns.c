/*
 * mpi_patterns.c: MPI programs with known communication and I/O patterns,
 * for profiler_*.sh (which computes the exact expected profile itself).
 *
 *   mpi_patterns ring ITERS BYTES        ring to rank+1 with every send kind
 *   mpi_patterns stencil ITERS NX NY NZ  3-D periodic halo exchange (doubles)
 *   mpi_patterns alltoall ITERS INTS     MPI_Alltoall + the same by Isend
 *   mpi_patterns persistent ITERS B1 B2  persistent sends (Start, Startall)
 *   mpi_patterns subcomm ITERS BYTES     rings in split communicators, then
 *                                        an inter-communicator exchange
 *   mpi_patterns threads ITERS BYTES     MPI_THREAD_MULTIPLE: 4 threads each
 *                                        send ITERS messages to rank+1
 *   mpi_patterns io DIR K BYTES GAP_US   MPI-IO and POSIX requests
 *   mpi_patterns caches ITERS            handles the profiler caches, in
 *                                        more kinds than its slots, freed
 *                                        and made again (3+ ranks)
 *   mpi_patterns abort ITERS BYTES       ring, then rank 1 calls MPI_Abort
 *
 * Rank 0 prints facts the scripts need on stdout ("dims X Y Z").
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static int rank, size;

static void *xcalloc(size_t n, size_t s)
{
	void *p = calloc(n ? n : 1, s ? s : 1);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return p;
}

/* One message of @ints ints to the right neighbour, by send kind @kind. */
static void ring_step(int kind, int ints, int *sbuf, int *rbuf)
{
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	MPI_Request rq, sq;

	if (kind == 8) {
		MPI_Sendrecv(sbuf, ints, MPI_INT, right, 8, rbuf, ints, MPI_INT,
		             left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		return;
	}
	if (kind == 9) {
		MPI_Sendrecv_replace(sbuf, ints, MPI_INT, right, 9, left, 9,
		                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		return;
	}
	MPI_Irecv(rbuf, ints, MPI_INT, left, kind, MPI_COMM_WORLD, &rq);
	switch (kind) {
	case 0:
		MPI_Send(sbuf, ints, MPI_INT, right, kind, MPI_COMM_WORLD);
		break;
	case 1:
		MPI_Isend(sbuf, ints, MPI_INT, right, kind, MPI_COMM_WORLD,
		          &sq);
		MPI_Wait(&sq, MPI_STATUS_IGNORE);
		break;
	case 2:
		MPI_Ssend(sbuf, ints, MPI_INT, right, kind, MPI_COMM_WORLD);
		break;
	case 3:
		MPI_Issend(sbuf, ints, MPI_INT, right, kind, MPI_COMM_WORLD,
		           &sq);
		MPI_Wait(&sq, MPI_STATUS_IGNORE);
		break;
	case 4: /* ready send: the receive is posted before the barrier */
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Rsend(sbuf, ints, MPI_INT, right, kind, MPI_COMM_WORLD);
		break;
	case 5:
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Irsend(sbuf, ints, MPI_INT, right, kind, MPI_COMM_WORLD,
		           &sq);
		MPI_Wait(&sq, MPI_STATUS_IGNORE);
		break;
	case 6:
		MPI_Bsend(sbuf, ints, MPI_INT, right, kind, MPI_COMM_WORLD);
		break;
	case 7:
		MPI_Ibsend(sbuf, ints, MPI_INT, right, kind, MPI_COMM_WORLD,
		           &sq);
		MPI_Wait(&sq, MPI_STATUS_IGNORE);
		break;
	}
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

static void ring(int iters, int bytes)
{
	int ints = bytes / 4, bsize, i;
	int *sbuf = xcalloc((size_t)ints, sizeof(int));
	int *rbuf = xcalloc((size_t)ints, sizeof(int));
	void *battach;

	MPI_Pack_size(ints, MPI_INT, MPI_COMM_WORLD, &bsize);
	bsize += MPI_BSEND_OVERHEAD;
	battach = xcalloc(1, (size_t)bsize);
	MPI_Buffer_attach(battach, bsize);
	for (i = 0; i < iters; i++) {
		ring_step(i % 10, ints, sbuf, rbuf);
		/* Never counted: nobody is there. */
		MPI_Send(sbuf, ints, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
	}
	MPI_Buffer_detach(&battach, &bsize);
	free(battach);
	free(sbuf);
	free(rbuf);
}

static void stencil(int iters, int nx, int ny, int nz)
{
	int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, n[3] = {nx, ny, nz};
	int d, i, face, lo, hi;
	double *sbuf, *rbuf;
	MPI_Comm cart;

	MPI_Dims_create(size, 3, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
	if (rank == 0)
		printf("dims %d %d %d\n", dims[0], dims[1], dims[2]);
	sbuf = xcalloc((size_t)(nx * ny + ny * nz + nx * nz), sizeof(double));
	rbuf = xcalloc((size_t)(nx * ny + ny * nz + nx * nz), sizeof(double));
	for (i = 0; i < iters; i++) {
		for (d = 0; d < 3; d++) {
			face = n[0] * n[1] * n[2] / n[d];
			MPI_Cart_shift(cart, d, 1, &lo, &hi);
			MPI_Sendrecv(sbuf, face, MPI_DOUBLE, hi, d, rbuf, face,
			             MPI_DOUBLE, lo, d, cart,
			             MPI_STATUS_IGNORE);
			MPI_Sendrecv(sbuf, face, MPI_DOUBLE, lo, d, rbuf, face,
			             MPI_DOUBLE, hi, d, cart,
			             MPI_STATUS_IGNORE);
		}
		MPI_Allreduce(MPI_IN_PLACE, sbuf, 1, MPI_DOUBLE, MPI_SUM, cart);
	}
	MPI_Comm_free(&cart);
	free(sbuf);
	free(rbuf);
}

static void alltoall(int iters, int ints)
{
	int *s = xcalloc((size_t)ints * (size_t)size, sizeof(int));
	int *r = xcalloc((size_t)ints * (size_t)size, sizeof(int));
	MPI_Request *rq = xcalloc(2 * (size_t)size, sizeof(MPI_Request));
	int i, p, k;

	for (i = 0; i < iters; i++) {
		MPI_Alltoall(s, ints, MPI_INT, r, ints, MPI_INT,
		             MPI_COMM_WORLD);
		for (p = 0, k = 0; p < size; p++) {
			if (p == rank)
				continue;
			MPI_Irecv(r + p * ints, ints, MPI_INT, p, 1,
			          MPI_COMM_WORLD, &rq[k++]);
			MPI_Isend(s + p * ints, ints, MPI_INT, p, 1,
			          MPI_COMM_WORLD, &rq[k++]);
		}
		MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
	}
	free(s);
	free(r);
	free(rq);
}

static void persistent(int iters, int b1, int b2)
{
	int right = (rank + 1) % size, left = (rank + size - 1) % size, i;
	char *s = xcalloc((size_t)(b1 > b2 ? b1 : b2), 1);
	char *r = xcalloc((size_t)(b1 > b2 ? b1 : b2), 1);
	MPI_Request rq[3];

	/* Round 1: to the right with Send_init, Start one by one. */
	MPI_Recv_init(r, b1, MPI_BYTE, left, 1, MPI_COMM_WORLD, &rq[0]);
	MPI_Send_init(s, b1, MPI_BYTE, right, 1, MPI_COMM_WORLD, &rq[1]);
	MPI_Send_init(s, b1, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD,
	              &rq[2]);
	for (i = 0; i < iters; i++) {
		MPI_Start(&rq[0]);
		MPI_Start(&rq[1]);
		MPI_Start(&rq[2]);
		MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
	}
	for (i = 0; i < 3; i++)
		MPI_Request_free(&rq[i]);
	/*
	 * Round 2: new requests (their handles may be the freed ones) to the
	 * left with Ssend_init and Startall; then one more Startall after
	 * freeing the sends must not count old ones.
	 */
	MPI_Recv_init(r, b2, MPI_BYTE, right, 2, MPI_COMM_WORLD, &rq[0]);
	MPI_Ssend_init(s, b2, MPI_BYTE, left, 2, MPI_COMM_WORLD, &rq[1]);
	for (i = 0; i < iters; i++) {
		MPI_Startall(2, rq);
		MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	}
	MPI_Request_free(&rq[0]);
	MPI_Request_free(&rq[1]);
	/* A plain Isend reusing a freed handle is one message, not two. */
	MPI_Irecv(r, b2, MPI_BYTE, right, 3, MPI_COMM_WORLD, &rq[0]);
	MPI_Isend(s, b2, MPI_BYTE, left, 3, MPI_COMM_WORLD, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	free(s);
	free(r);
}

/* A ring of @bytes messages in @comm by sub-communicator rank. */
static void sub_ring(MPI_Comm comm, int iters, int bytes)
{
	int sr, sn, i;
	char *s = xcalloc((size_t)bytes, 1), *r = xcalloc((size_t)bytes, 1);

	MPI_Comm_rank(comm, &sr);
	MPI_Comm_size(comm, &sn);
	for (i = 0; i < iters; i++)
		MPI_Sendrecv(s, bytes, MPI_BYTE, (sr + 1) % sn, 0, r, bytes,
		             MPI_BYTE, (sr + sn - 1) % sn, 0, comm,
		             MPI_STATUS_IGNORE);
	free(s);
	free(r);
}

static void subcomm(int iters, int bytes)
{
	MPI_Comm a, b;

	/* Split by parity, ordered by descending world rank. */
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &a);
	sub_ring(a, iters, bytes);
	MPI_Comm_free(&a);
	/* One communicator, ranks permuted by key (5 r) mod size. */
	MPI_Comm_split(MPI_COMM_WORLD, 0, (5 * rank) % size, &b);
	sub_ring(b, iters, 2 * bytes);
	MPI_Comm_free(&b);
	/* A duplicate of the world: identity. */
	MPI_Comm_dup(MPI_COMM_WORLD, &a);
	sub_ring(a, iters, 3 * bytes);
	MPI_Comm_free(&a);
	/*
	 * Even and odd ranks as the two groups of an inter-communicator:
	 * local rank k exchanges 4 x bytes with remote rank k (world r with
	 * r xor 1).  Ranks address the remote group.
	 */
	if (size % 2 == 0) {
		MPI_Comm ic;
		char *s = xcalloc(4 * (size_t)bytes, 1);
		char *r = xcalloc(4 * (size_t)bytes, 1);
		int lr, i;

		MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &a);
		MPI_Intercomm_create(a, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7,
		                     &ic);
		MPI_Comm_rank(a, &lr);
		for (i = 0; i < iters; i++)
			MPI_Sendrecv(s, 4 * bytes, MPI_BYTE, lr, 0, r,
			             4 * bytes, MPI_BYTE, lr, 0, ic,
			             MPI_STATUS_IGNORE);
		MPI_Comm_free(&ic);
		MPI_Comm_free(&a);
		free(s);
		free(r);
	}
}

/* One Sendrecv of @count @type to rank+1 of @comm, from rank-1. */
static void to_next(MPI_Comm comm, int count, MPI_Datatype type, void *s,
                    void *r)
{
	int cr, cn;

	MPI_Comm_rank(comm, &cr);
	MPI_Comm_size(comm, &cn);
	MPI_Sendrecv(s, count, type, (cr + 1) % cn, 0, r, count, type,
	             (cr + cn - 1) % cn, 0, comm, MPI_STATUS_IGNORE);
}

/*
 * What libtopoplace_profiler caches by handle (profiler.c: the sizes of
 * predefined datatypes in 16 slots, the translations of communicators in
 * 8), in more kinds than it has slots, in turn, and handles freed and
 * made again.  Per iteration, to world rank+1: 2 elements of each of 20
 * predefined types (134 B), 1 of a derived type of 3 doubles, freed, then
 * 1 of one of 5 ints (the handle may come back: 44 B), 0 ints; in 12
 * communicators alive at once, k + 1 bytes in communicator k, which is
 * ordered as the world for even k (to world rank+1) and reversed for odd
 * k (to world rank-1).  Collectives: Bcast of 2 doubles from world rank
 * 1, Alltoall of 3 ints in communicator 1 (its translation cached) and of
 * 1 int in a duplicate of the world used for nothing else, Scatter of 2
 * ints from world rank 0, Allreduce of 4 shorts in communicator 2.
 */
static void caches(int iters)
{
	MPI_Datatype types[] = {
	    MPI_CHAR,           MPI_SHORT,       MPI_INT,
	    MPI_LONG_LONG,      MPI_FLOAT,       MPI_DOUBLE,
	    MPI_BYTE,           MPI_UNSIGNED,    MPI_INT8_T,
	    MPI_INT16_T,        MPI_INT32_T,     MPI_INT64_T,
	    MPI_UINT8_T,        MPI_UINT16_T,    MPI_UINT32_T,
	    MPI_UINT64_T,       MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR,
	    MPI_UNSIGNED_SHORT, MPI_C_BOOL,
	};
	enum { NTYPES = sizeof(types) / sizeof(types[0]), NCOMMS = 12 };
	double s[64] = {0}, r[64 * 16];
	MPI_Comm comms[NCOMMS], dup;
	MPI_Datatype derived;
	int i, k;

	for (k = 0; k < NCOMMS; k++)
		MPI_Comm_split(MPI_COMM_WORLD, 0, k % 2 ? -rank : rank,
		               &comms[k]);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	for (i = 0; i < iters; i++) {
		for (k = 0; k < NTYPES; k++)
			to_next(MPI_COMM_WORLD, 2, types[k], s, r);
		MPI_Type_contiguous(3, MPI_DOUBLE, &derived);
		MPI_Type_commit(&derived);
		to_next(MPI_COMM_WORLD, 1, derived, s, r);
		MPI_Type_free(&derived);
		MPI_Type_contiguous(5, MPI_INT, &derived);
		MPI_Type_commit(&derived);
		to_next(MPI_COMM_WORLD, 1, derived, s, r);
		MPI_Type_free(&derived);
		to_next(MPI_COMM_WORLD, 0, MPI_INT, s, r);
		for (k = 0; k < NCOMMS; k++)
			to_next(comms[k], k + 1, MPI_BYTE, s, r);
		MPI_Bcast(s, 2, MPI_DOUBLE, 1, MPI_COMM_WORLD);
		MPI_Alltoall(s, 3, MPI_INT, r, 3, MPI_INT, comms[1]);
		MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, dup);
		MPI_Scatter(s, 2, MPI_INT, r, 2, MPI_INT, 0, MPI_COMM_WORLD);
		MPI_Allreduce(MPI_IN_PLACE, s, 4, MPI_SHORT, MPI_MAX, comms[2]);
	}
	for (k = 0; k < NCOMMS; k++)
		MPI_Comm_free(&comms[k]);
	MPI_Comm_free(&dup);
}

struct thread_arg {
	int tag, iters, bytes;
};

static void *thread_main(void *p)
{
	const struct thread_arg *t = p;
	char *s = xcalloc((size_t)t->bytes, 1),
	     *r = xcalloc((size_t)t->bytes, 1);
	MPI_Request rq;
	int i;

	for (i = 0; i < t->iters; i++) {
		MPI_Irecv(r, t->bytes, MPI_BYTE, (rank + size - 1) % size,
		          t->tag, MPI_COMM_WORLD, &rq);
		MPI_Send(s, t->bytes, MPI_BYTE, (rank + 1) % size, t->tag,
		         MPI_COMM_WORLD);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
	}
	free(s);
	free(r);
	return NULL;
}

/* Four threads sending at once: the profiler's maps under a lock. */
static void threads(int iters, int bytes)
{
	struct thread_arg args[4];
	pthread_t tid[4];
	int i;

	for (i = 0; i < 4; i++) {
		args[i] = (struct thread_arg){i, iters, bytes};
		if (pthread_create(&tid[i], NULL, thread_main, &args[i]))
			MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (i = 0; i < 4; i++)
		pthread_join(tid[i], NULL);
}

static void io(const char *dir, int k, int bytes, int gap_us)
{
	char path[4096], *buf = xcalloc((size_t)bytes, 1);
	MPI_File fh;
	MPI_Offset off;
	int fd, i;

	snprintf(path, sizeof(path), "%s/shared.dat", dir);
	MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
	              MPI_INFO_NULL, &fh);
	for (i = 0; i < k; i++) {
		off = ((MPI_Offset)i * size + rank) * bytes;
		MPI_File_write_at(fh, off, buf, bytes, MPI_BYTE,
		                  MPI_STATUS_IGNORE);
	}
	MPI_File_sync(fh);
	MPI_Barrier(MPI_COMM_WORLD);
	for (i = 0; i < k; i++) {
		off = ((MPI_Offset)i * size + rank) * bytes;
		MPI_File_read_at(fh, off, buf, bytes / 4, MPI_INT,
		                 MPI_STATUS_IGNORE);
	}
	MPI_File_close(&fh);

	/* POSIX: k pwrites of 2 x bytes, gap_us apart, then k preads. */
	snprintf(path, sizeof(path), "%s/rank%d.dat", dir, rank);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	free(buf);
	buf = xcalloc(2 * (size_t)bytes, 1);
	for (i = 0; i < k; i++) {
		if (pwrite(fd, buf, 2 * (size_t)bytes, (off_t)i * 2 * bytes) !=
		    2 * bytes)
			MPI_Abort(MPI_COMM_WORLD, 2);
		usleep((useconds_t)gap_us);
	}
	for (i = 0; i < k; i++)
		if (pread(fd, buf, 2 * (size_t)bytes, (off_t)i * 2 * bytes) !=
		    2 * bytes)
			MPI_Abort(MPI_COMM_WORLD, 2);
	/* write + read of 1 byte: the smallest bucket. */
	if (write(fd, buf, 1) != 1 || lseek(fd, 0, SEEK_SET) != 0 ||
	    read(fd, buf, 1) != 1)
		MPI_Abort(MPI_COMM_WORLD, 2);
	close(fd);
	free(buf);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int a = argc > 2 ? atoi(argv[2]) : 0;
	int b = argc > 3 ? atoi(argv[3]) : 0;
	int c = argc > 4 ? atoi(argv[4]) : 0;
	int d = argc > 5 ? atoi(argv[5]) : 0;

	int provided = MPI_THREAD_SINGLE;

	if (!strcmp(mode, "threads"))
		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	else
		MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (!strcmp(mode, "ring")) {
		ring(a, b);
	} else if (!strcmp(mode, "stencil")) {
		stencil(a, b, c, d);
	} else if (!strcmp(mode, "alltoall")) {
		alltoall(a, b);
	} else if (!strcmp(mode, "persistent")) {
		persistent(a, b, c);
	} else if (!strcmp(mode, "subcomm")) {
		subcomm(a, b);
	} else if (!strcmp(mode, "threads")) {
		if (provided == MPI_THREAD_MULTIPLE)
			threads(a, b);
		else if (rank == 0)
			printf("no MPI_THREAD_MULTIPLE\n");
	} else if (!strcmp(mode, "io")) {
		io(argv[2], b, c, d);
	} else if (!strcmp(mode, "caches")) {
		caches(a);
	} else if (!strcmp(mode, "abort")) {
		ring(a, b);
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 1)
			MPI_Abort(MPI_COMM_WORLD, 3);
		/* The others wait to be killed; they never finalize. */
		for (;;)
			sleep(1);
	} else {
		if (rank == 0)
			fprintf(stderr, "usage: mpi_patterns MODE ARGS...\n");
		MPI_Finalize();
		return 2;
	}
	MPI_Finalize();
	return 0;
}
