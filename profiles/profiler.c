/*
 * profiler.c: libtopoplace_profiler.so, the PMPI preload library that
 * records who talks to whom and how the job does I/O, and writes one
 * profile (topoplace-profile(5)) at MPI_Finalize.  See topoplace-profiler(7).
 *
 *   mpirun -x LD_PRELOAD=.../libtopoplace_profiler.so \
 *          -x TOPOPLACE_PROFILE_DIR=/tmp ./app
 *
 * Per rank the library keeps: the bytes and messages sent to each
 * MPI_COMM_WORLD rank (a flat row indexed by it in jobs of up to
 * ROW_FLAT_MAX_RANKS ranks, 64 KiB at most; in larger ones the same row
 * cut in 4 KiB pages, a page allocated at the first message to one of its
 * ranks), per-collective totals, the I/O counters of
 * profiler_io.c, a translation table per communicator used (dropped on
 * MPI_Comm_free, since handles are reused) and a map of live persistent
 * send requests (dropped on MPI_Request_free).  At MPI_Finalize each rank
 * sends its sparse row to rank 0 with MPI_Gatherv; only rank 0 ever holds
 * the whole matrix, builds the profile with the profile.h writer API and
 * writes it: to the munge-signed store (store.h) when
 * TOPOPLACE_PROFILE_STORE is set, otherwise atomically to a file.  Nothing is
 * written before that, so a job that dies earlier leaves no file at all.
 *
 * This is a preload module, not core library code: its state is global
 * (one process, one MPI library) and it reports problems on stderr, its
 * only channel, prefixed "topoplace-profiler:".  A failure to record or to
 * write never changes what the application's MPI calls do or return.
 *
 * Threads: with MPI_THREAD_MULTIPLE the row's pages and the maps are
 * guarded by a mutex; at lower levels no lock is taken.
 *
 * The cost of a recorded call (bench/RESULTS.md, "The profiler's cost per
 * call"): a communication-only program makes an MPI call every
 * microsecond or so, and each recorded call's work is a share of its run.
 * So the common send is recorded inline in its wrapper, with no call and
 * no lock (send_fast): the size of a predefined datatype, the translation
 * of a communicator and the row are read from caches that the first call
 * of each fills (send_slow, which records everything the same way).
 */
#include "tp_config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "munge_auth.h"
#include "profile.h"
#include "profiler_internal.h"
#include "store.h"

__thread int tp_prof_depth TP_PRELOAD_TLS;

_Static_assert(sizeof(((struct tp_prof_io_local *)0)->hist) ==
                   TP_PROFILE_IO_BUCKETS * sizeof(uint64_t),
               "I/O histogram sizes differ");

static const char *const coll_names[TP_COLL_COUNT] = {
    [TP_COLL_ALLGATHER] = "Allgather",
    [TP_COLL_ALLGATHERV] = "Allgatherv",
    [TP_COLL_ALLREDUCE] = "Allreduce",
    [TP_COLL_ALLTOALL] = "Alltoall",
    [TP_COLL_ALLTOALLV] = "Alltoallv",
    [TP_COLL_ALLTOALLW] = "Alltoallw",
    [TP_COLL_BARRIER] = "Barrier",
    [TP_COLL_BCAST] = "Bcast",
    [TP_COLL_EXSCAN] = "Exscan",
    [TP_COLL_GATHER] = "Gather",
    [TP_COLL_GATHERV] = "Gatherv",
    [TP_COLL_IALLGATHER] = "Iallgather",
    [TP_COLL_IALLREDUCE] = "Iallreduce",
    [TP_COLL_IALLTOALL] = "Ialltoall",
    [TP_COLL_IBARRIER] = "Ibarrier",
    [TP_COLL_IBCAST] = "Ibcast",
    [TP_COLL_IREDUCE] = "Ireduce",
    [TP_COLL_REDUCE] = "Reduce",
    [TP_COLL_REDUCE_SCATTER] = "Reduce_scatter",
    [TP_COLL_REDUCE_SCATTER_BLOCK] = "Reduce_scatter_block",
    [TP_COLL_SCAN] = "Scan",
    [TP_COLL_SCATTER] = "Scatter",
    [TP_COLL_SCATTERV] = "Scatterv",
};

/* ---- maps ------------------------------------------------------------ */

/*
 * A map from an MPI handle (its bits: a pointer in Open MPI, an int in
 * MPICH) to two words, with deletion (backward shift), for the
 * communicator cache and the persistent requests.
 */
struct handle_slot {
	uint64_t key;
	int used;
	uint64_t a, b;
};

struct handle_map {
	size_t capacity;
	size_t count;
	struct handle_slot *slots;
};

/* How the ranks of one communicator map to MPI_COMM_WORLD. */
struct comm_info {
	int size;      /* of the (remote) group sends address */
	int *to_world; /* -1: not in MPI_COMM_WORLD; NULL: identity */
};

/*
 * The flat row: bytes and messages to each MPI_COMM_WORLD rank, indexed by
 * it: a message costs an add, not a hash and a probe.  Only in jobs of up
 * to ROW_FLAT_MAX_RANKS ranks: at 16 B a rank it is 64 KiB at most, less
 * than the translation tables of a few communicators (4 B a rank each).
 *
 * Larger jobs, and jobs under MPI_THREAD_MULTIPLE, use the paged row: the
 * same row cut in pages of ROW_PAGE_RANKS ranks (4 KiB), behind a
 * directory of one pointer a page (8 B per 256 ranks: 32 KiB at a
 * million ranks); a page is allocated at the first message to one of its
 * ranks.  A message costs one more load than in the flat row, where the
 * hash map it replaced cost a hash and a probe (174-211 instructions a
 * recorded send against 42-84: bench/RESULTS.md).  Its memory follows the
 * ranks sent to, at most the flat row's 16 B a rank plus the directory: a
 * rank of a 100,000-rank stencil sending to 6 neighbours holds at most 6
 * pages (24 KiB); one sending to every rank holds 1.6 MB, as the flat row
 * would (the hash map held 2-4x that).  The tests build the library with
 * -DTP_PROF_ROW_FLAT_MAX_RANKS=0 too, to check that the paged row records
 * the same matrix.
 */
#ifdef TP_PROF_ROW_FLAT_MAX_RANKS
#define ROW_FLAT_MAX_RANKS TP_PROF_ROW_FLAT_MAX_RANKS
#else
#define ROW_FLAT_MAX_RANKS 4096
#endif

struct peer_count {
	uint64_t bytes;
	uint64_t msgs;
};

/* The tests build with pages of 2 ranks too, so that a few ranks span
 * several pages, some never touched. */
#ifdef TP_PROF_ROW_PAGE_LOG2
#define ROW_PAGE_LOG2 TP_PROF_ROW_PAGE_LOG2
#else
#define ROW_PAGE_LOG2 8
#endif
#define ROW_PAGE_RANKS (1u << ROW_PAGE_LOG2)

/*
 * The sizes of predefined datatypes met, by handle: asking MPI
 * (PMPI_Type_size, a call through the PLT and its argument checks) was
 * ~30 of the ~200 instructions of a recorded call.  Only predefined types
 * (combiner MPI_COMBINER_NAMED) are kept: they are never freed, so a
 * handle has one size for the whole run.  A derived type's handle can be
 * freed and reused for another type; MPI is asked every time.
 * Direct-mapped: a type whose slot another holds asks MPI and takes the
 * slot.  An empty slot holds MPI_DATATYPE_NULL with size 0, the bytes of
 * that type.
 */
#define TYPE_SLOTS_LOG2 4

struct type_slot {
	MPI_Datatype type;
	uint64_t size;
};

/*
 * The translations of the communicators last used, in front of the comms
 * map (a hash, a probe and a pointer to follow each call otherwise).  A
 * slot copies a comms entry while that entry lives: filled when the entry
 * is found or made, cleared when MPI_Comm_free drops it.  An empty slot
 * holds MPI_COMM_NULL with size 0, which no destination is below.
 */
#define COMM_SLOTS_LOG2 3

struct comm_slot {
	MPI_Comm comm;
	int size;
	const int *to_world; /* as comm_info's */
};

static struct {
	int initialised;
	int finalised;
	int io_on;
	int locking;
	/*
	 * Recording, and without the lock: the caches below are used and
	 * filled, and collectives are counted inline.
	 */
	int fast;
	int failed; /* an allocation failed: the counts are not exact */
	int world_rank;
	int world_size;
	int64_t start_us;
	uint64_t start_ns;
	MPI_Group world_group;
	pthread_mutex_t lock;
	/*
	 * The flat row, or NULL: the paged row.  Only while fast (set at
	 * MPI_Init, taken at MPI_Finalize), so it is send_fast's first test.
	 */
	struct peer_count *flat;
	/*
	 * The paged row's directory (row_pages entries; NULL when the flat
	 * row is used, or when it could not be allocated: then nothing is
	 * counted and the profile is marked inexact), and the same pointer
	 * only while fast, for send_fast.
	 */
	struct peer_count **pages;
	struct peer_count *const *fast_pages;
	size_t row_pages;
	struct handle_map comms;    /* value a: struct comm_info * */
	struct handle_map requests; /* a: world dst, b: bytes */
	uint64_t coll_calls[TP_COLL_COUNT];
	uint64_t coll_bytes[TP_COLL_COUNT];
	struct type_slot types[1 << TYPE_SLOTS_LOG2];
	struct comm_slot comm_cache[1 << COMM_SLOTS_LOG2];
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void lock(void)
{
	if (S.locking)
		pthread_mutex_lock(&S.lock);
}

static void unlock(void)
{
	if (S.locking)
		pthread_mutex_unlock(&S.lock);
}

static size_t hash64(uint64_t k, size_t capacity)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (capacity - 1);
}

/*
 * A cache slot of @key (a handle's bits): the top @log2 bits of its
 * product with 2^64 / phi.  Open MPI's predefined handles are addresses
 * 512 B apart, MPICH's are ints differing in their low byte; the top bits
 * of the product depend on all of them.
 */
static inline size_t slot_of(uint64_t key, unsigned log2)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - log2));
}

/*
 * The paged row's entry of rank @w, its page allocated when it has none
 * (lock held); NULL when there is no memory for it.
 */
static struct peer_count *row_page_entry(uint32_t w)
{
	size_t p = (size_t)w >> ROW_PAGE_LOG2;

	if (!S.pages || p >= S.row_pages)
		return NULL;
	if (!S.pages[p] &&
	    !(S.pages[p] = calloc(ROW_PAGE_RANKS, sizeof(*S.pages[p]))))
		return NULL;
	return &S.pages[p][w & (ROW_PAGE_RANKS - 1)];
}

/* One message of @bytes to MPI_COMM_WORLD rank @w (lock held). */
static void peer_count(uint32_t w, uint64_t bytes)
{
	struct peer_count *pc = S.flat ? &S.flat[w] : row_page_entry(w);

	if (!pc) {
		S.failed = 1;
		return;
	}
	pc->bytes += bytes;
	pc->msgs++;
}

static struct handle_slot *handle_find(struct handle_map *m, uint64_t key)
{
	size_t i;

	if (!m->count)
		return NULL;
	for (i = hash64(key, m->capacity); m->slots[i].used;
	     i = (i + 1) & (m->capacity - 1))
		if (m->slots[i].key == key)
			return &m->slots[i];
	return NULL;
}

static int handle_grow(struct handle_map *m)
{
	size_t cap = m->capacity ? m->capacity * 2 : 16, i, j;
	struct handle_slot *s = calloc(cap, sizeof(*s));

	if (!s)
		return -1;
	for (i = 0; i < m->capacity; i++) {
		if (!m->slots[i].used)
			continue;
		j = hash64(m->slots[i].key, cap);
		while (s[j].used)
			j = (j + 1) & (cap - 1);
		s[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = s;
	m->capacity = cap;
	return 0;
}

/* Insert or overwrite; -1 when out of memory. */
static int handle_put(struct handle_map *m, uint64_t key, uint64_t a,
                      uint64_t b)
{
	struct handle_slot *s = handle_find(m, key);
	size_t i;

	if (!s) {
		if ((m->count + 1) * 2 > m->capacity && handle_grow(m))
			return -1;
		i = hash64(key, m->capacity);
		while (m->slots[i].used)
			i = (i + 1) & (m->capacity - 1);
		s = &m->slots[i];
		s->used = 1;
		s->key = key;
		m->count++;
	}
	s->a = a;
	s->b = b;
	return 0;
}

/* Remove @s (a slot of @m), keeping every probe chain unbroken. */
static void handle_del(struct handle_map *m, struct handle_slot *s)
{
	size_t mask = m->capacity - 1, i = (size_t)(s - m->slots), j = i, k;

	m->slots[i].used = 0;
	m->count--;
	for (;;) {
		j = (j + 1) & mask;
		if (!m->slots[j].used)
			return;
		k = hash64(m->slots[j].key, m->capacity);
		/* Move j back to i unless its home k lies cyclically in (i, j].
		 */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->slots[i] = m->slots[j];
		m->slots[j].used = 0;
		i = j;
	}
}

#define HANDLE_KEY(h) handle_key(&(h), sizeof(h))

static uint64_t handle_key(const void *h, size_t n)
{
	uint64_t k = 0;

	memcpy(&k, h, n < sizeof(k) ? n : sizeof(k));
	return k;
}

/* ---- recording --------------------------------------------------------- */

uint64_t tp_prof_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Keep @type's @size if it is predefined (see struct type_slot). */
static void type_cache_fill(MPI_Datatype type, int size)
{
	struct type_slot *t =
	    &S.types[slot_of(HANDLE_KEY(type), TYPE_SLOTS_LOG2)];
	int ints, addrs, types, combiner;

	if (PMPI_Type_get_envelope(type, &ints, &addrs, &types, &combiner) !=
	        MPI_SUCCESS ||
	    combiner != MPI_COMBINER_NAMED)
		return;
	t->type = type;
	t->size = (uint64_t)size;
}

static uint64_t type_bytes_slow(int count, MPI_Datatype type)
{
	int size = 0;

	if (PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
		return 0;
	if (S.fast)
		type_cache_fill(type, size);
	return (uint64_t)count * (uint64_t)size;
}

static inline uint64_t type_bytes(int count, MPI_Datatype type)
{
	const struct type_slot *t;

	if (count <= 0 || type == MPI_DATATYPE_NULL)
		return 0;
	if (S.fast) {
		t = &S.types[slot_of(HANDLE_KEY(type), TYPE_SLOTS_LOG2)];
		if (t->type == type)
			return (uint64_t)count * t->size;
	}
	return type_bytes_slow(count, type);
}

uint64_t tp_prof_type_bytes(int count, MPI_Datatype type)
{
	return type_bytes(count, type);
}

/* @comm's cache slot, if it holds @comm (NULL otherwise). */
static inline const struct comm_slot *comm_cached(MPI_Comm comm)
{
	const struct comm_slot *c =
	    &S.comm_cache[slot_of(HANDLE_KEY(comm), COMM_SLOTS_LOG2)];

	return c->comm == comm && c->size > 0 ? c : NULL;
}

int tp_prof_comm_rank(MPI_Comm comm)
{
	int r = -1;

	if (S.fast && comm == MPI_COMM_WORLD)
		return S.world_rank;
	PMPI_Comm_rank(comm, &r);
	return r;
}

int tp_prof_comm_peers(MPI_Comm comm)
{
	const struct comm_slot *c;
	int inter = 0, n = 0;

	if (S.fast) {
		if (comm == MPI_COMM_WORLD)
			return S.world_size;
		/* A cached slot's size is this count: see comm_info(). */
		if ((c = comm_cached(comm)))
			return c->size;
	}
	PMPI_Comm_test_inter(comm, &inter);
	if (inter)
		PMPI_Comm_remote_size(comm, &n);
	else
		PMPI_Comm_size(comm, &n);
	return n;
}

/* The translation of @comm, built on first use (lock held). */
static struct comm_info *comm_info(MPI_Comm comm)
{
	uint64_t key = HANDLE_KEY(comm);
	struct handle_slot *s = handle_find(&S.comms, key);
	struct comm_info *ci;
	MPI_Group group;
	int inter = 0, i, *ranks, identity, w;

	if (s)
		return (struct comm_info *)(uintptr_t)s->a;
	ci = calloc(1, sizeof(*ci));
	if (!ci)
		return NULL;
	PMPI_Comm_test_inter(comm, &inter);
	if ((inter ? PMPI_Comm_remote_group(comm, &group)
	           : PMPI_Comm_group(comm, &group)) != MPI_SUCCESS) {
		free(ci);
		return NULL;
	}
	PMPI_Group_size(group, &ci->size);
	ranks = malloc(2 * (size_t)(ci->size > 0 ? ci->size : 1) * sizeof(int));
	if (!ranks) {
		PMPI_Group_free(&group);
		free(ci);
		return NULL;
	}
	for (i = 0; i < ci->size; i++)
		ranks[i] = i;
	PMPI_Group_translate_ranks(group, ci->size, ranks, S.world_group,
	                           ranks + ci->size);
	PMPI_Group_free(&group);
	identity = ci->size == S.world_size;
	for (i = 0; i < ci->size && identity; i++)
		identity = ranks[ci->size + i] == i;
	if (identity) {
		/* Duplicates of MPI_COMM_WORLD cost no table. */
		free(ranks);
	} else {
		/*
		 * MPI_UNDEFINED (a rank of another job's group) and anything
		 * else no world rank is -1: the row is indexed by these.
		 */
		for (i = 0; i < ci->size; i++) {
			w = ranks[ci->size + i];
			ranks[i] = w >= 0 && w < S.world_size ? w : -1;
		}
		ci->to_world = ranks;
	}
	if (handle_put(&S.comms, key, (uint64_t)(uintptr_t)ci, 0)) {
		free(ci->to_world);
		free(ci);
		return NULL;
	}
	return ci;
}

/* World rank of @dest in @comm, -1 for MPI_PROC_NULL or unknown. */
static int to_world(MPI_Comm comm, int dest)
{
	const struct comm_slot *cached;
	struct comm_info *ci;
	struct comm_slot *c;

	if (dest == MPI_PROC_NULL || dest < 0)
		return -1;
	if (comm == MPI_COMM_WORLD)
		return dest < S.world_size ? dest : -1;
	/* Jobs without the flat row come here for every send. */
	if (S.fast && (cached = comm_cached(comm))) {
		if (dest >= cached->size)
			return -1;
		return cached->to_world ? cached->to_world[dest] : dest;
	}
	ci = comm_info(comm);
	if (!ci) {
		S.failed = 1;
		return -1;
	}
	if (S.fast) {
		c = &S.comm_cache[slot_of(HANDLE_KEY(comm), COMM_SLOTS_LOG2)];
		c->comm = comm;
		c->size = ci->size;
		c->to_world = ci->to_world;
	}
	if (dest >= ci->size)
		return -1;
	return ci->to_world ? ci->to_world[dest] : dest;
}

/*
 * One send, recorded inline when all it needs is cached: the flat row
 * (so recording, and without the lock), @type's size, and @comm's
 * translation (MPI_COMM_WORLD needs none).  0 when it was not: the caller
 * then calls send_slow, which records it the same way and fills the
 * caches for the next call.  No call here, so a wrapper need not save its
 * arguments around it.
 */
/*
 * send_fast's lookups: the MPI_COMM_WORLD rank of @dest in @comm and the
 * size of @type from the caches, or -1 when one is not cached.
 */
static inline __attribute__((always_inline)) int
fast_world_dst(MPI_Comm comm, int dest, MPI_Datatype type, uint64_t *size)
{
	const struct type_slot *t;
	const struct comm_slot *c;
	int w;

	if (dest < 0)
		return -1;
	t = &S.types[slot_of(HANDLE_KEY(type), TYPE_SLOTS_LOG2)];
	if (t->type != type)
		return -1;
	*size = t->size;
	if (comm == MPI_COMM_WORLD)
		return dest < S.world_size ? dest : -1;
	c = &S.comm_cache[slot_of(HANDLE_KEY(comm), COMM_SLOTS_LOG2)];
	if (c->comm != comm || dest >= c->size)
		return -1;
	w = c->to_world ? c->to_world[dest] : dest;
	return w;
}

/*
 * Always inlined: GCC 12 made it a function of its own once it held both
 * rows' paths, and each recorded send paid for the call (69 -> 100
 * instructions).
 */
static inline __attribute__((always_inline)) int
send_fast(MPI_Comm comm, int dest, int count, MPI_Datatype type)
{
	struct peer_count *row = S.flat, *pc;
	uint64_t size;
	int w;

	/*
	 * The flat row's path first and on its own: a test of the paged
	 * row in it cost the common send 5-6 instructions (bench/RESULTS.md).
	 */
	if (__builtin_expect(row != NULL, 1)) {
		if ((w = fast_world_dst(comm, dest, type, &size)) < 0)
			return 0;
		pc = &row[w];
	} else {
		struct peer_count *const *pages = S.fast_pages;

		/* A page not allocated yet: send_slow allocates it. */
		if (!pages ||
		    (w = fast_world_dst(comm, dest, type, &size)) < 0 ||
		    !(pc = pages[(uint32_t)w >> ROW_PAGE_LOG2]))
			return 0;
		pc += (uint32_t)w & (ROW_PAGE_RANKS - 1);
	}
	pc->bytes += count > 0 ? (uint64_t)count * size : 0;
	pc->msgs++;
	return 1;
}

static void send_slow(MPI_Comm comm, int dest, int count, MPI_Datatype type)
{
	uint64_t bytes;
	int w;

	if (!S.initialised || S.finalised || dest == MPI_PROC_NULL)
		return;
	bytes = type_bytes(count, type);
	lock();
	w = to_world(comm, dest);
	if (w >= 0)
		peer_count((uint32_t)w, bytes);
	unlock();
}

void tp_prof_send(MPI_Comm comm, int dest, int count, MPI_Datatype type)
{
	if (!send_fast(comm, dest, count, type))
		send_slow(comm, dest, count, type);
}

void tp_prof_persistent_add(MPI_Request req, MPI_Comm comm, int dest, int count,
                            MPI_Datatype type)
{
	uint64_t bytes;
	int w;

	if (!S.initialised || S.finalised || dest == MPI_PROC_NULL)
		return;
	bytes = type_bytes(count, type);
	lock();
	/*
	 * Translated now: the communicator may be freed while the request
	 * lives on.
	 */
	w = to_world(comm, dest);
	if (w >= 0 &&
	    handle_put(&S.requests, HANDLE_KEY(req), (uint64_t)w, bytes))
		S.failed = 1;
	unlock();
}

void tp_prof_start(MPI_Request req)
{
	struct handle_slot *s;

	if (!S.initialised || S.finalised)
		return;
	lock();
	s = handle_find(&S.requests, HANDLE_KEY(req));
	if (s)
		peer_count((uint32_t)s->a, s->b);
	unlock();
}

void tp_prof_request_free(MPI_Request req)
{
	struct handle_slot *s;

	if (!S.initialised)
		return;
	lock();
	s = handle_find(&S.requests, HANDLE_KEY(req));
	if (s)
		handle_del(&S.requests, s);
	unlock();
}

void tp_prof_comm_free(MPI_Comm comm)
{
	struct handle_slot *s;
	struct comm_slot *c;
	struct comm_info *ci;

	if (!S.initialised)
		return;
	lock();
	s = handle_find(&S.comms, HANDLE_KEY(comm));
	if (s) {
		ci = (struct comm_info *)(uintptr_t)s->a;
		free(ci->to_world);
		free(ci);
		handle_del(&S.comms, s);
	}
	/* The handle may come back as another communicator. */
	c = &S.comm_cache[slot_of(HANDLE_KEY(comm), COMM_SLOTS_LOG2)];
	if (c->comm == comm)
		*c = (struct comm_slot){MPI_COMM_NULL, 0, NULL};
	unlock();
}

static void coll_locked(enum tp_prof_coll coll, uint64_t bytes)
{
	if (!S.initialised || S.finalised)
		return;
	lock();
	S.coll_calls[coll]++;
	S.coll_bytes[coll] += bytes;
	unlock();
}

static inline void coll_record(enum tp_prof_coll coll, uint64_t bytes)
{
	if (S.fast) {
		S.coll_calls[coll]++;
		S.coll_bytes[coll] += bytes;
	} else {
		coll_locked(coll, bytes);
	}
}

void tp_prof_coll(enum tp_prof_coll coll, uint64_t bytes)
{
	coll_record(coll, bytes);
}

/* No cached handle or translation: at MPI_Init and after MPI_Finalize. */
static void caches_clear(void)
{
	size_t i;

	for (i = 0; i < sizeof(S.types) / sizeof(S.types[0]); i++)
		S.types[i] = (struct type_slot){MPI_DATATYPE_NULL, 0};
	for (i = 0; i < sizeof(S.comm_cache) / sizeof(S.comm_cache[0]); i++)
		S.comm_cache[i] = (struct comm_slot){MPI_COMM_NULL, 0, NULL};
}

int tp_prof_io_on(void)
{
	return S.io_on;
}

/*
 * Whether this run stands aside: task/topoplace found the program
 * recorded before (TOPOPLACE_PROFILE_SKIP, its reason, on each node that
 * found it; topoplace-profiler(7)).  Every node decides for itself, and
 * nodes may disagree (a run stored in between, a file one node cannot
 * read), but the gather at MPI_Finalize needs every rank or none: rank
 * 0's word is broadcast and holds for all.  One broadcast of an int,
 * once per run.
 */
static int skip_recording(void)
{
	const char *why = getenv("TOPOPLACE_PROFILE_SKIP");
	int skip = why && why[0];

	PMPI_Bcast(&skip, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (skip && S.world_rank == 0 && getenv("TOPOPLACE_PROFILE_VERBOSE"))
		fprintf(stderr, "topoplace-profiler: not recorded: %s\n",
		        why && why[0] ? why : "rank 0 said so");
	return skip;
}

void tp_prof_on_init(int thread_level)
{
	struct timespec ts;

	if (S.initialised)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	S.start_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	S.start_ns = tp_prof_now_ns();
	PMPI_Comm_rank(MPI_COMM_WORLD, &S.world_rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &S.world_size);
	PMPI_Comm_group(MPI_COMM_WORLD, &S.world_group);
	S.locking = thread_level == MPI_THREAD_MULTIPLE;
	S.initialised = 1;
	if (skip_recording()) {
		PMPI_Group_free(&S.world_group);
		S.finalised = 1; /* every wrapper passes straight through */
		return;
	}
	caches_clear();
	/*
	 * With MPI_THREAD_MULTIPLE every call takes the lock, and the paged
	 * row.  Without memory for the flat row, the paged row records the
	 * same.
	 */
	if (!S.locking && S.world_size > 0 &&
	    S.world_size <= ROW_FLAT_MAX_RANKS)
		S.flat = calloc((size_t)S.world_size, sizeof(*S.flat));
	if (!S.flat && S.world_size > 0) {
		S.row_pages = ((size_t)S.world_size + ROW_PAGE_RANKS - 1) >>
		              ROW_PAGE_LOG2;
		S.pages = calloc(S.row_pages, sizeof(*S.pages));
		if (!S.pages)
			S.failed = 1;
	}
	S.fast = !S.locking;
	S.fast_pages = S.fast ? S.pages : NULL;
	S.io_on = 1;
}

/* ---- finalize: gather and write ---------------------------------------- */

struct row_entry {
	uint64_t dst, bytes, msgs;
};

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "topoplace-profiler: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* The profile name: $TOPOPLACE_PROFILE_NAME or the program's, made safe. */
static void profile_name(char *out, size_t size)
{
	const char *env = getenv("TOPOPLACE_PROFILE_NAME");
	char exe[PATH_MAX];
	const char *base = "mpi-app";
	ssize_t n;
	size_t i;

	if (env && env[0]) {
		base = env;
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = '\0';
			base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
		}
	}
	n = (ssize_t)strnlen(base, size - 1);
	memcpy(out, base, (size_t)n);
	out[n] = '\0';
	/* A store name: [A-Za-z0-9_][A-Za-z0-9_.+-]*; anything else -> _ */
	for (i = 0; out[i]; i++) {
		char c = out[i];
		int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		         (c >= '0' && c <= '9') || c == '_' ||
		         (i && (c == '.' || c == '+' || c == '-'));
		if (!ok)
			out[i] = '_';
	}
	if (!out[0])
		snprintf(out, size, "mpi-app");
}

/*
 * The same run under the batch script's key as well
 * ($TOPOPLACE_PROFILE_SCRIPT_KEY, set by task/topoplace; identity.h), so
 * a job of the same script under another job name finds it.  The
 * credential is made anew for that name.
 */
static void store_by_script(const tp_store_options *opt, const char *ns,
                            const char *name, tp_profile *p, int verbose)
{
	const char *key = getenv("TOPOPLACE_PROFILE_SCRIPT_KEY");
	char stored[TP_STORE_FILE_MAX + 1];
	tp_error err;

	if (!key || !key[0] || !strcmp(key, name))
		return;
	if (!tp_store_valid_name(key)) {
		warn("TOPOPLACE_PROFILE_SCRIPT_KEY '%.80s': not a profile "
		     "name; stored under %s only",
		     key, name);
		return;
	}
	if (tp_store_put(opt, ns, key, p, stored, &err) != TP_OK)
		warn("%s; stored under %s only", err.message, name);
	else if (verbose)
		fprintf(stderr, "topoplace-profiler: stored %s/%s/%s\n", ns,
		        key, stored);
}

static int write_profile(tp_profile *p, const char *name)
{
	const char *store = getenv("TOPOPLACE_PROFILE_STORE");
	const char *file = getenv("TOPOPLACE_PROFILE_FILE");
	const char *dir = getenv("TOPOPLACE_PROFILE_DIR");
	const char *keep = getenv("TOPOPLACE_PROFILE_KEEP");
	const char *max_age = getenv("TOPOPLACE_PROFILE_MAX_AGE");
	int verbose = getenv("TOPOPLACE_PROFILE_VERBOSE") != NULL;
	char path[PATH_MAX], stored[TP_STORE_FILE_MAX + 1];
	tp_error err;

	tp_error_clear(&err);
	if (store && store[0]) {
		tp_munge_config mc = {getenv("TOPOPLACE_MUNGE_SOCKET"), 0};
		tp_store_options opt = tp_store_default_options();
		tp_store_auth auth;
		struct passwd *pw = getpwuid(getuid());
		char ns[TP_STORE_NAME_MAX + 1];

		if (!pw || !tp_store_valid_name(pw->pw_name)) {
			warn("store %s: the running user has no valid "
			     "namespace name; profile not written",
			     store);
			return -1;
		}
		snprintf(ns, sizeof(ns), "%s", pw->pw_name);
		tp_munge_auth_init(&auth, &mc);
		opt.root = store;
		opt.auth = &auth;
		if (keep && keep[0]) {
			char *end;
			unsigned long k = strtoul(keep, &end, 10);

			if (*end || k == 0 || k > 100000 || keep[0] == '-')
				warn("TOPOPLACE_PROFILE_KEEP '%s': not a count "
				     "1..100000; keeping %u",
				     keep, opt.keep);
			else
				opt.keep = (unsigned)k;
		}
		if (max_age && max_age[0]) {
			char *end;
			unsigned long long age = strtoull(max_age, &end, 10);

			/* topoplace.conf's bound on ProfileMaxAge: 3650d. */
			if (*end || max_age[0] == '-' ||
			    age > 3650ull * 24 * 3600)
				warn("TOPOPLACE_PROFILE_MAX_AGE '%s': not "
				     "seconds 0..315360000; pruning runs "
				     "older than %lld s",
				     max_age, (long long)opt.max_age_s);
			else
				opt.max_age_s = (int64_t)age;
		}
		if (tp_store_put(&opt, ns, name, p, stored, &err) != TP_OK) {
			warn("%s; profile not written", err.message);
			return -1;
		}
		if (verbose)
			fprintf(stderr, "topoplace-profiler: stored %s/%s/%s\n",
			        ns, name, stored);
		store_by_script(&opt, ns, name, p, verbose);
		return 0;
	}
	if (file && file[0]) {
		snprintf(path, sizeof(path), "%s", file);
	} else {
		snprintf(path, sizeof(path), "%s/%s.%llu.%lld.tpp",
		         dir && dir[0] ? dir : ".", name,
		         (unsigned long long)p->header.job_id,
		         (long long)p->header.start_us);
	}
	if (tp_profile_write_file(path, p, &err) != TP_OK) {
		warn("%s; profile not written", err.message);
		return -1;
	}
	if (verbose)
		fprintf(stderr, "topoplace-profiler: wrote %s\n", path);
	return 0;
}

/*
 * Rank 0: what the run ran (exec_id.h): this process's executable, its
 * arguments (argv[1..], from /proc/self/cmdline, bounded) and
 * the layout from @node_sizes (one per rank: the node's rank count at
 * the node's first rank, 0 elsewhere; sorted in place).  What cannot be
 * known is left unknown, with a warning, and the run is still recorded.
 */
static void fill_exec(tp_exec_id *exec, uint32_t *node_sizes)
{
	char path[TP_EXEC_PATH_MAX + 2];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	tp_error err;
	int fd;

	memset(exec, 0, sizeof(*exec));
	if (n > 0 && (size_t)n <= TP_EXEC_PATH_MAX) {
		path[n] = '\0';
		/* Only a printable absolute path is stored (exec_id.h). */
		if (tp_exec_hash_path(path, exec, &err) != TP_OK)
			exec->path[0] = '\0';
	}
	if (!exec->path[0]) {
		fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
		if (fd < 0 ||
		    tp_exec_hash_fd(fd, "/proc/self/exe", exec, &err) != TP_OK)
			warn("%s", fd < 0 ? "/proc/self/exe: cannot open; "
			                    "executable not recorded"
			                  : err.message);
		if (fd >= 0)
			close(fd);
	}
	/* The arguments tell one program's applications apart (exec_id.h);
	 * an unreadable command line leaves them unknown, which matches no
	 * step by command. */
	if (tp_exec_args_read("/proc/self/cmdline", exec, &err) != TP_OK)
		warn("%s; arguments not recorded", err.message);
	if (node_sizes &&
	    (tp_exec_layout_format(node_sizes, (size_t)S.world_size,
	                           exec->layout, sizeof(exec->layout)) ||
	     tp_exec_layout_check(exec->layout, (uint32_t)S.world_size, NULL) !=
	         TP_OK))
		exec->layout[0] = '\0';
}

/* Rank 0: the profile from the gathered parts. */
static void build_and_write(const struct row_entry *rows, const int *counts,
                            const uint64_t *coll, const uint64_t *io_sum,
                            const uint64_t *clients, int rpn,
                            uint32_t *node_sizes)
{
	tp_profile_header h;
	tp_profile *p = NULL;
	tp_error err;
	char name[TP_STORE_NAME_MAX + 1];
	const char *job = getenv("SLURM_JOB_ID");
	size_t k = 0;
	int r, i;

	memset(&h, 0, sizeof(h));
	profile_name(name, sizeof(name));
	snprintf(h.app, sizeof(h.app), "%s", name);
	h.owner_uid = (uint32_t)getuid();
	h.ranks = (uint32_t)S.world_size;
	h.ranks_per_node = rpn > 0 ? (uint32_t)rpn : 0;
	h.job_id = job ? strtoull(job, NULL, 10) : 0;
	h.start_us = S.start_us;
	h.duration_us = (tp_prof_now_ns() - S.start_ns) / 1000;
	if (tp_profile_new(&h, &p, &err) != TP_OK)
		goto fail;
	for (r = 0; r < S.world_size; r++)
		for (i = 0; i < counts[r]; i++, k++)
			if (tp_profile_add_pair(
			        p, (uint32_t)r, (uint32_t)rows[k].dst,
			        rows[k].bytes, rows[k].msgs, &err) != TP_OK)
				goto fail;
	for (i = 0; i < TP_COLL_COUNT; i++)
		if (coll[i] && tp_profile_add_collective(
		                   p, coll_names[i], coll[i],
		                   coll[TP_COLL_COUNT + i], &err) != TP_OK)
			goto fail;
	p->io.requests = io_sum[0];
	p->io.read_bytes = io_sum[1];
	p->io.write_bytes = io_sum[2];
	p->io.time_us = io_sum[3];
	memcpy(p->io.size_hist, io_sum + 4, sizeof(p->io.size_hist));
	for (r = 0; r < S.world_size; r++) {
		const uint64_t *c = clients + (size_t)r * 6;
		tp_profile_io_client cl = {(uint32_t)r, c[0], c[1], c[2],
		                           c[3],        c[4], c[5]};
		if (c[0] && tp_profile_add_io_client(p, &cl, &err) != TP_OK)
			goto fail;
	}
	fill_exec(&p->exec, node_sizes);
	if (tp_profile_finish(p, &err) != TP_OK)
		goto fail;
	write_profile(p, name);
	tp_profile_free(p);
	return;
fail:
	warn("%s; profile not written", err.message);
	tp_profile_free(p);
}

/* Nothing is recorded after MPI_Finalize: give the memory back. */
static void release_state(void)
{
	size_t i;

	lock();
	for (i = 0; i < S.comms.capacity; i++)
		if (S.comms.slots[i].used) {
			struct comm_info *ci =
			    (struct comm_info *)(uintptr_t)S.comms.slots[i].a;
			free(ci->to_world);
			free(ci);
		}
	caches_clear();
	free(S.comms.slots);
	free(S.requests.slots);
	memset(&S.comms, 0, sizeof(S.comms));
	memset(&S.requests, 0, sizeof(S.requests));
	PMPI_Group_free(&S.world_group);
	unlock();
}

/* Rank @r's counts in the flat row or the paged row taken at finalize. */
static const struct peer_count *
finalize_row_entry(const struct peer_count *flat,
                   struct peer_count *const *pages, int r)
{
	const struct peer_count *page;

	if (flat)
		return &flat[r];
	if (!pages || !(page = pages[(uint32_t)r >> ROW_PAGE_LOG2]))
		return NULL;
	return &page[(uint32_t)r & (ROW_PAGE_RANKS - 1)];
}

void tp_prof_on_finalize(void)
{
	struct tp_prof_io_local io;
	struct row_entry *row = NULL, *rows = NULL;
	struct peer_count *flat, **pages;
	size_t peers = 0, row_pages;
	int n = 0, *counts = NULL, *displs = NULL, r, ok = 1;
	uint64_t local[2 * TP_COLL_COUNT], coll[2 * TP_COLL_COUNT];
	uint64_t io_local[4 + TP_PROFILE_IO_BUCKETS];
	uint64_t io_sum[4 + TP_PROFILE_IO_BUCKETS], client[6];
	uint64_t *clients = NULL;
	int flags[3], flags_max[3], node_rank = 0, node_lead_size;
	uint32_t *node_sizes = NULL;
	MPI_Datatype entry_type;
	MPI_Comm node;
	size_t i;

	if (!S.initialised || S.finalised)
		return;
	lock();
	S.io_on = 0;
	S.finalised = 1;
	S.fast = 0;
	flat = S.flat;
	S.flat = NULL;
	pages = S.pages;
	row_pages = S.row_pages;
	S.pages = NULL;
	S.fast_pages = NULL;
	S.row_pages = 0;
	unlock();
	tp_prof_io_summary(&io);

	/* This rank's sparse row: the destinations sent to, in rank order. */
	for (r = 0; r < S.world_size; r++) {
		const struct peer_count *pc = finalize_row_entry(flat, pages, r);

		peers += pc && pc->msgs > 0;
	}
	row = malloc((peers ? peers : 1) * sizeof(*row));
	if (!row)
		S.failed = 1;
	else
		for (r = 0; r < S.world_size; r++) {
			const struct peer_count *pc =
			    finalize_row_entry(flat, pages, r);

			if (!pc || !pc->msgs)
				continue;
			row[n].dst = (uint64_t)r;
			row[n].bytes = pc->bytes;
			row[n].msgs = pc->msgs;
			n++;
		}
	free(flat);
	if (pages)
		for (i = 0; i < row_pages; i++)
			free(pages[i]);
	free(pages);

	/* Node size and failures: one MAX reduction. */
	node = MPI_COMM_NULL;
	flags[0] = 0;
	if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
	                         MPI_INFO_NULL, &node) == MPI_SUCCESS) {
		PMPI_Comm_size(node, &flags[0]);
		PMPI_Comm_rank(node, &node_rank);
		PMPI_Comm_free(&node);
	}
	/* Each node's size once, at its first rank: the run's layout. */
	node_lead_size = node_rank == 0 ? flags[0] : 0;
	flags[1] = -flags[0];
	flags[2] = S.failed;
	PMPI_Reduce(flags, flags_max, 3, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);

	for (i = 0; i < TP_COLL_COUNT; i++) {
		local[i] = S.coll_calls[i];
		local[TP_COLL_COUNT + i] = S.coll_bytes[i];
	}
	PMPI_Reduce(local, coll, 2 * TP_COLL_COUNT, MPI_UINT64_T, MPI_SUM, 0,
	            MPI_COMM_WORLD);
	io_local[0] = io.requests;
	io_local[1] = io.read_bytes;
	io_local[2] = io.write_bytes;
	io_local[3] = io.time_us;
	memcpy(io_local + 4, io.hist, sizeof(io.hist));
	PMPI_Reduce(io_local, io_sum, 4 + TP_PROFILE_IO_BUCKETS, MPI_UINT64_T,
	            MPI_SUM, 0, MPI_COMM_WORLD);
	client[0] = io.requests;
	client[1] = io.read_bytes + io.write_bytes;
	client[2] = io.p10_us;
	client[3] = io.p50_us;
	client[4] = io.p90_us;
	client[5] = io.p99_us;

	if (S.world_rank == 0) {
		counts = malloc((size_t)S.world_size * sizeof(int));
		displs = malloc((size_t)S.world_size * sizeof(int));
		clients = malloc((size_t)S.world_size * sizeof(client));
		node_sizes = malloc((size_t)S.world_size * sizeof(*node_sizes));
		ok = counts && displs && clients && node_sizes;
	}
	/*
	 * Every rank takes part in every call even when rank 0 is out of
	 * memory (it then receives nothing and writes nothing): no rank may
	 * be left waiting in MPI_Finalize.
	 */
	PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!ok) {
		if (S.world_rank == 0)
			warn("%s", "out of memory at MPI_Finalize; profile not "
			           "written");
		goto out;
	}
	PMPI_Gather(client, 6, MPI_UINT64_T, clients, 6, MPI_UINT64_T, 0,
	            MPI_COMM_WORLD);
	PMPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	PMPI_Gather(&node_lead_size, 1, MPI_INT, node_sizes, 1, MPI_INT, 0,
	            MPI_COMM_WORLD);
	if (S.world_rank == 0) {
		size_t total = 0;
		for (r = 0; r < S.world_size; r++) {
			/* Displacements count entries, not bytes: int suffices.
			 */
			displs[r] = (int)total;
			total += (size_t)counts[r];
		}
		if (total > INT_MAX)
			ok = 0;
		else if (!(rows = malloc((total ? total : 1) * sizeof(*rows))))
			ok = 0;
	}
	PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!ok) {
		if (S.world_rank == 0)
			warn("%s", "matrix too large at MPI_Finalize; profile "
			           "not written");
		goto out;
	}
	PMPI_Type_contiguous((int)sizeof(struct row_entry), MPI_BYTE,
	                     &entry_type);
	PMPI_Type_commit(&entry_type);
	PMPI_Gatherv(row, n, entry_type, rows, counts, displs, entry_type, 0,
	             MPI_COMM_WORLD);
	PMPI_Type_free(&entry_type);
	if (S.world_rank == 0) {
		if (flags_max[2])
			warn("%s", "out of memory while recording; profile not "
			           "written");
		else
			build_and_write(
			    rows, counts, coll, io_sum, clients,
			    flags_max[0] == -flags_max[1] ? flags_max[0] : 0,
			    node_sizes);
	}
out:
	free(row);
	free(rows);
	free(counts);
	free(displs);
	free(clients);
	free(node_sizes);
	release_state();
}

/* ---- C wrappers: init, finalize, lifetime ------------------------------ */

TP_EXPORT int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv);

	if (rc == MPI_SUCCESS)
		tp_prof_on_init(MPI_THREAD_SINGLE);
	return rc;
}

TP_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required,
                              int *provided)
{
	int rc = PMPI_Init_thread(argc, argv, required, provided);

	if (rc == MPI_SUCCESS)
		tp_prof_on_init(*provided);
	return rc;
}

TP_EXPORT int MPI_Finalize(void)
{
	tp_prof_on_finalize();
	return PMPI_Finalize();
}

TP_EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
	if (comm)
		tp_prof_comm_free(*comm);
	return PMPI_Comm_free(comm);
}

TP_EXPORT int MPI_Comm_disconnect(MPI_Comm *comm)
{
	if (comm)
		tp_prof_comm_free(*comm);
	return PMPI_Comm_disconnect(comm);
}

TP_EXPORT int MPI_Request_free(MPI_Request *req)
{
	if (req)
		tp_prof_request_free(*req);
	return PMPI_Request_free(req);
}

/* ---- C wrappers: point-to-point ---------------------------------------- */

/*
 * Sends that record one message to @dest, then run the real call.  Both
 * ways out of the wrapper are tail calls with its own arguments: when
 * send_fast records the call, the wrapper calls nothing else and keeps
 * the arguments where they came (a call to send_slow between would have
 * it save them all and put them back: 40-60 instructions, more than
 * send_fast).  The slow way is a function of its own for that reason.
 */
#define SEND_WRAPPER(NAME, PARAMS, ARGS)                                       \
	static __attribute__((noinline)) int slow_##NAME PARAMS                \
	{                                                                      \
		send_slow(comm, dest, count, datatype);                        \
		return PMPI_##NAME ARGS;                                       \
	}                                                                      \
	TP_EXPORT int MPI_##NAME PARAMS                                        \
	{                                                                      \
		if (!tp_prof_depth && !send_fast(comm, dest, count, datatype)) \
			return slow_##NAME ARGS;                               \
		return PMPI_##NAME ARGS;                                       \
	}

#define BLOCKING_PARAMS                                                        \
	(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, \
	 MPI_Comm comm)
#define BLOCKING_ARGS (buf, count, datatype, dest, tag, comm)
#define NONBLOCKING_PARAMS                                                     \
	(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, \
	 MPI_Comm comm, MPI_Request *request)
#define NONBLOCKING_ARGS (buf, count, datatype, dest, tag, comm, request)

SEND_WRAPPER(Send, BLOCKING_PARAMS, BLOCKING_ARGS)
SEND_WRAPPER(Bsend, BLOCKING_PARAMS, BLOCKING_ARGS)
SEND_WRAPPER(Ssend, BLOCKING_PARAMS, BLOCKING_ARGS)
SEND_WRAPPER(Rsend, BLOCKING_PARAMS, BLOCKING_ARGS)
SEND_WRAPPER(Isend, NONBLOCKING_PARAMS, NONBLOCKING_ARGS)
SEND_WRAPPER(Ibsend, NONBLOCKING_PARAMS, NONBLOCKING_ARGS)
SEND_WRAPPER(Issend, NONBLOCKING_PARAMS, NONBLOCKING_ARGS)
SEND_WRAPPER(Irsend, NONBLOCKING_PARAMS, NONBLOCKING_ARGS)

/* As SEND_WRAPPER. */
#define SENDRECV_PARAMS                                                        \
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,  \
	 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,     \
	 int source, int recvtag, MPI_Comm comm, MPI_Status *status)
#define SENDRECV_ARGS                                                          \
	(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,      \
	 recvtype, source, recvtag, comm, status)

static __attribute__((noinline)) int slow_Sendrecv SENDRECV_PARAMS
{
	send_slow(comm, dest, sendcount, sendtype);
	return PMPI_Sendrecv SENDRECV_ARGS;
}

TP_EXPORT int MPI_Sendrecv SENDRECV_PARAMS
{
	if (!tp_prof_depth && !send_fast(comm, dest, sendcount, sendtype))
		return slow_Sendrecv SENDRECV_ARGS;
	return PMPI_Sendrecv SENDRECV_ARGS;
}

#define SENDRECV_REPLACE_PARAMS                                                \
	(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,   \
	 int source, int recvtag, MPI_Comm comm, MPI_Status *status)
#define SENDRECV_REPLACE_ARGS                                                  \
	(buf, count, datatype, dest, sendtag, source, recvtag, comm, status)

static
    __attribute__((noinline)) int slow_Sendrecv_replace SENDRECV_REPLACE_PARAMS
{
	send_slow(comm, dest, count, datatype);
	return PMPI_Sendrecv_replace SENDRECV_REPLACE_ARGS;
}

TP_EXPORT int MPI_Sendrecv_replace SENDRECV_REPLACE_PARAMS
{
	if (!tp_prof_depth && !send_fast(comm, dest, count, datatype))
		return slow_Sendrecv_replace SENDRECV_REPLACE_ARGS;
	return PMPI_Sendrecv_replace SENDRECV_REPLACE_ARGS;
}

/* Persistent sends: remembered here, counted per MPI_Start. */
#define INIT_WRAPPER(NAME)                                                     \
	TP_EXPORT int MPI_##NAME NONBLOCKING_PARAMS                            \
	{                                                                      \
		int rc = PMPI_##NAME NONBLOCKING_ARGS;                         \
		if (rc == MPI_SUCCESS && !tp_prof_depth)                       \
			tp_prof_persistent_add(*request, comm, dest, count,    \
			                       datatype);                      \
		return rc;                                                     \
	}

INIT_WRAPPER(Send_init)
INIT_WRAPPER(Bsend_init)
INIT_WRAPPER(Ssend_init)
INIT_WRAPPER(Rsend_init)

TP_EXPORT int MPI_Start(MPI_Request *request)
{
	/* Before the call: a persistent handle stays, but look it up first. */
	if (!tp_prof_depth && request)
		tp_prof_start(*request);
	return PMPI_Start(request);
}

TP_EXPORT int MPI_Startall(int count, MPI_Request requests[])
{
	int i;

	if (!tp_prof_depth && requests)
		for (i = 0; i < count; i++)
			tp_prof_start(requests[i]);
	return PMPI_Startall(count, requests);
}

/* ---- C wrappers: collectives ------------------------------------------- */

static uint64_t sum_counts(const int *counts, int n, MPI_Datatype type)
{
	uint64_t total = 0;
	int i;

	if (!counts)
		return 0;
	for (i = 0; i < n; i++)
		total += type_bytes(counts[i], type);
	return total;
}

/*
 * One call of collective @coll putting @n x @count @type into it, counted
 * inline (no call: see SEND_WRAPPER) when recording without the lock and
 * @type's size is cached.  @n < 0: not known without asking MPI.  0 when
 * not counted: the wrapper's slow_X counts it, as it always did.
 */
static inline int coll_fast(enum tp_prof_coll coll, int count,
                            MPI_Datatype type, int n)
{
	const struct type_slot *t;
	uint64_t bytes = 0;

	if (!S.fast || n < 0)
		return 0;
	if (count > 0 && type != MPI_DATATYPE_NULL) {
		t = &S.types[slot_of(HANDLE_KEY(type), TYPE_SLOTS_LOG2)];
		if (t->type != type)
			return 0;
		bytes = (uint64_t)count * t->size * (uint64_t)n;
	}
	S.coll_calls[coll]++;
	S.coll_bytes[coll] += bytes;
	return 1;
}

/* tp_prof_comm_peers(@comm) if known without a call, else -1. */
static inline int peers_fast(MPI_Comm comm)
{
	const struct comm_slot *c;

	if (comm == MPI_COMM_WORLD)
		return S.world_size;
	c = comm_cached(comm);
	return c ? c->size : -1;
}

/* Whether this rank is @root of @comm (1, 0), if known without a call. */
static inline int is_root_fast(MPI_Comm comm, int root)
{
	if (root == MPI_ROOT)
		return 1;
	return comm == MPI_COMM_WORLD ? S.world_rank == root : -1;
}

/*
 * A collective's wrapper, made as SEND_WRAPPER: FAST counts the call
 * inline (coll_fast) or is 0; then slow_NAME counts it with SLOW, which
 * may ask MPI (a datatype's size, the communicator's rank or size).
 */
#define COLL_WRAPPER(NAME, PARAMS, ARGS, FAST, SLOW)                           \
	static __attribute__((noinline)) int slow_##NAME PARAMS                \
	{                                                                      \
		SLOW;                                                          \
		return PMPI_##NAME ARGS;                                       \
	}                                                                      \
	TP_EXPORT int MPI_##NAME PARAMS                                        \
	{                                                                      \
		if (!tp_prof_depth && !(FAST))                                 \
			return slow_##NAME ARGS;                               \
		return PMPI_##NAME ARGS;                                       \
	}

COLL_WRAPPER(Barrier, (MPI_Comm comm), (comm),
             coll_fast(TP_COLL_BARRIER, 0, MPI_DATATYPE_NULL, 1),
             coll_record(TP_COLL_BARRIER, 0))

COLL_WRAPPER(Ibarrier, (MPI_Comm comm, MPI_Request *request), (comm, request),
             coll_fast(TP_COLL_IBARRIER, 0, MPI_DATATYPE_NULL, 1),
             coll_record(TP_COLL_IBARRIER, 0))

/* The root's payload: only the root puts data into a broadcast. */
static uint64_t root_bytes(MPI_Comm comm, int root, uint64_t bytes)
{
	return root == MPI_ROOT || tp_prof_comm_rank(comm) == root ? bytes : 0;
}

#define BCAST_PARAMS                                                           \
	(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
#define BCAST_ARGS (buf, count, datatype, root, comm)
#define IBCAST_PARAMS                                                          \
	(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm, \
	 MPI_Request *request)
#define IBCAST_ARGS (buf, count, datatype, root, comm, request)

COLL_WRAPPER(Bcast, BCAST_PARAMS, BCAST_ARGS,
             coll_fast(TP_COLL_BCAST, count, datatype,
                       is_root_fast(comm, root)),
             coll_record(TP_COLL_BCAST,
                         root_bytes(comm, root, type_bytes(count, datatype))))

COLL_WRAPPER(Ibcast, IBCAST_PARAMS, IBCAST_ARGS,
             coll_fast(TP_COLL_IBCAST, count, datatype,
                       is_root_fast(comm, root)),
             coll_record(TP_COLL_IBCAST,
                         root_bytes(comm, root, type_bytes(count, datatype))))

/* Reductions and scans: count of datatype from each rank. */
#define REDUCE_WRAPPER(NAME, ID, PARAMS, ARGS)                                 \
	COLL_WRAPPER(NAME, PARAMS, ARGS, coll_fast(ID, count, datatype, 1),    \
	             coll_record(ID, type_bytes(count, datatype)))

#define REDUCE_PARAMS                                                          \
	(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, \
	 MPI_Op op, int root, MPI_Comm comm)
#define REDUCE_ARGS (sendbuf, recvbuf, count, datatype, op, root, comm)
#define IREDUCE_PARAMS                                                         \
	(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, \
	 MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
#define IREDUCE_ARGS                                                           \
	(sendbuf, recvbuf, count, datatype, op, root, comm, request)
#define ALLREDUCE_PARAMS                                                       \
	(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, \
	 MPI_Op op, MPI_Comm comm)
#define ALLREDUCE_ARGS (sendbuf, recvbuf, count, datatype, op, comm)
#define IALLREDUCE_PARAMS                                                      \
	(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, \
	 MPI_Op op, MPI_Comm comm, MPI_Request *request)
#define IALLREDUCE_ARGS (sendbuf, recvbuf, count, datatype, op, comm, request)

REDUCE_WRAPPER(Reduce, TP_COLL_REDUCE, REDUCE_PARAMS, REDUCE_ARGS)
REDUCE_WRAPPER(Ireduce, TP_COLL_IREDUCE, IREDUCE_PARAMS, IREDUCE_ARGS)
REDUCE_WRAPPER(Allreduce, TP_COLL_ALLREDUCE, ALLREDUCE_PARAMS, ALLREDUCE_ARGS)
REDUCE_WRAPPER(Iallreduce, TP_COLL_IALLREDUCE, IALLREDUCE_PARAMS,
               IALLREDUCE_ARGS)
REDUCE_WRAPPER(Scan, TP_COLL_SCAN, ALLREDUCE_PARAMS, ALLREDUCE_ARGS)
REDUCE_WRAPPER(Exscan, TP_COLL_EXSCAN, ALLREDUCE_PARAMS, ALLREDUCE_ARGS)

TP_EXPORT int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                                 const int recvcounts[], MPI_Datatype datatype,
                                 MPI_Op op, MPI_Comm comm)
{
	if (!tp_prof_depth)
		coll_record(
		    TP_COLL_REDUCE_SCATTER,
		    sum_counts(recvcounts, tp_prof_comm_peers(comm), datatype));
	return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op,
	                           comm);
}

TP_EXPORT int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                       int recvcount, MPI_Datatype datatype,
                                       MPI_Op op, MPI_Comm comm)
{
	if (!tp_prof_depth)
		coll_record(TP_COLL_REDUCE_SCATTER_BLOCK,
		            type_bytes(recvcount, datatype) *
		                (uint64_t)tp_prof_comm_peers(comm));
	return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype,
	                                 op, comm);
}

/* Alltoall: sendcount to each peer (recvcount when in place). */
static uint64_t alltoall_bytes(const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm)
{
	uint64_t one = sendbuf == MPI_IN_PLACE
	                   ? type_bytes(recvcount, recvtype)
	                   : type_bytes(sendcount, sendtype);
	return one * (uint64_t)tp_prof_comm_peers(comm);
}

/*
 * The parameters of Alltoall, Allgather and their nonblocking forms
 * (GATHER_* adds the root), and what one rank puts in: sendcount
 * sendtype, or recvcount recvtype when in place.
 */
#define ALLTOALL_PARAMS                                                        \
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,            \
	 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
#define ALLTOALL_ARGS                                                          \
	(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)
#define IALLTOALL_PARAMS                                                       \
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,            \
	 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,   \
	 MPI_Request *request)
#define IALLTOALL_ARGS                                                         \
	(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,     \
	 request)
#define GATHER_PARAMS                                                          \
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,            \
	 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,        \
	 MPI_Comm comm)
#define GATHER_ARGS                                                            \
	(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define PUT_COUNT (sendbuf == MPI_IN_PLACE ? recvcount : sendcount)
#define PUT_TYPE  (sendbuf == MPI_IN_PLACE ? recvtype : sendtype)

COLL_WRAPPER(Alltoall, ALLTOALL_PARAMS, ALLTOALL_ARGS,
             coll_fast(TP_COLL_ALLTOALL, PUT_COUNT, PUT_TYPE, peers_fast(comm)),
             coll_record(TP_COLL_ALLTOALL,
                         alltoall_bytes(sendbuf, sendcount, sendtype, recvcount,
                                        recvtype, comm)))

COLL_WRAPPER(Ialltoall, IALLTOALL_PARAMS, IALLTOALL_ARGS,
             coll_fast(TP_COLL_IALLTOALL, PUT_COUNT, PUT_TYPE,
                       peers_fast(comm)),
             coll_record(TP_COLL_IALLTOALL,
                         alltoall_bytes(sendbuf, sendcount, sendtype, recvcount,
                                        recvtype, comm)))

TP_EXPORT int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                            const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm)
{
	if (!tp_prof_depth) {
		int n = tp_prof_comm_peers(comm);
		coll_record(TP_COLL_ALLTOALLV,
		            sendbuf == MPI_IN_PLACE
		                ? sum_counts(recvcounts, n, recvtype)
		                : sum_counts(sendcounts, n, sendtype));
	}
	return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
	                      recvcounts, rdispls, recvtype, comm);
}

TP_EXPORT int MPI_Alltoallw(const void *sendbuf, const int sendcounts[],
                            const int sdispls[], const MPI_Datatype sendtypes[],
                            void *recvbuf, const int recvcounts[],
                            const int rdispls[], const MPI_Datatype recvtypes[],
                            MPI_Comm comm)
{
	if (!tp_prof_depth) {
		int n = tp_prof_comm_peers(comm), i;
		const int *c =
		    sendbuf == MPI_IN_PLACE ? recvcounts : sendcounts;
		const MPI_Datatype *t =
		    sendbuf == MPI_IN_PLACE ? recvtypes : sendtypes;
		uint64_t bytes = 0;
		for (i = 0; c && t && i < n; i++)
			bytes += type_bytes(c[i], t[i]);
		coll_record(TP_COLL_ALLTOALLW, bytes);
	}
	return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
	                      recvcounts, rdispls, recvtypes, comm);
}

COLL_WRAPPER(Allgather, ALLTOALL_PARAMS, ALLTOALL_ARGS,
             coll_fast(TP_COLL_ALLGATHER, PUT_COUNT, PUT_TYPE, 1),
             coll_record(TP_COLL_ALLGATHER, type_bytes(PUT_COUNT, PUT_TYPE)))

COLL_WRAPPER(Iallgather, IALLTOALL_PARAMS, IALLTOALL_ARGS,
             coll_fast(TP_COLL_IALLGATHER, PUT_COUNT, PUT_TYPE, 1),
             coll_record(TP_COLL_IALLGATHER, type_bytes(PUT_COUNT, PUT_TYPE)))

TP_EXPORT int MPI_Allgatherv(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
	if (!tp_prof_depth) {
		uint64_t b = 0;
		if (sendbuf != MPI_IN_PLACE)
			b = type_bytes(sendcount, sendtype);
		else if (recvcounts)
			b = type_bytes(recvcounts[tp_prof_comm_rank(comm)],
			               recvtype);
		coll_record(TP_COLL_ALLGATHERV, b);
	}
	return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf,
	                       recvcounts, displs, recvtype, comm);
}

COLL_WRAPPER(Gather, GATHER_PARAMS, GATHER_ARGS,
             coll_fast(TP_COLL_GATHER, PUT_COUNT, PUT_TYPE, 1),
             coll_record(TP_COLL_GATHER, type_bytes(PUT_COUNT, PUT_TYPE)))

TP_EXPORT int MPI_Gatherv(const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[],
                          MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	if (!tp_prof_depth) {
		uint64_t b = 0;
		if (sendbuf != MPI_IN_PLACE)
			b = type_bytes(sendcount, sendtype);
		else if (recvcounts)
			b = type_bytes(recvcounts[root], recvtype);
		coll_record(TP_COLL_GATHERV, b);
	}
	return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
	                    displs, recvtype, root, comm);
}

/* The root puts sendcount to each peer; the others nothing. */
static inline int scatter_n_fast(MPI_Comm comm, int root)
{
	int is_root = is_root_fast(comm, root);

	return is_root == 1 ? peers_fast(comm) : is_root;
}

COLL_WRAPPER(Scatter, GATHER_PARAMS, GATHER_ARGS,
             coll_fast(TP_COLL_SCATTER, sendcount, sendtype,
                       scatter_n_fast(comm, root)),
             coll_record(TP_COLL_SCATTER,
                         root_bytes(comm, root,
                                    type_bytes(sendcount, sendtype) *
                                        (uint64_t)tp_prof_comm_peers(comm))))

TP_EXPORT int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
                           const int displs[], MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype,
                           int root, MPI_Comm comm)
{
	if (!tp_prof_depth) {
		uint64_t b = 0;
		if (root == MPI_ROOT || tp_prof_comm_rank(comm) == root)
			b = sum_counts(sendcounts, tp_prof_comm_peers(comm),
			               sendtype);
		coll_record(TP_COLL_SCATTERV, b);
	}
	return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
	                     recvcount, recvtype, root, comm);
}
