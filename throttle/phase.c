/*
 * phase.c: the per-client phase (see phase.h).  The arithmetic is the one
 * libtopoplace_pacing.so has used since the phase was added (issue 19), so
 * a client keeps its phase across this move.
 */
#include "tp_config.h"

#include "phase.h"

/* FNV-1a of @text into @hash (a missing text hashes as empty). */
static unsigned long long hash_text(unsigned long long hash, const char *text)
{
	for (const char *p = text ? text : ""; *p; p++) {
		hash ^= (unsigned char)*p;
		hash *= 1099511628211ULL;
	}
	return hash ^ 0xff; /* a field separator */
}

/* The fraction of a window in [0, 1) given by the top 53 bits of @bits. */
static double bits_fraction(unsigned long long bits)
{
	return (double)(bits >> 11) / 9007199254740992.0;
}

/* A hash of job, host and process id, for a client without a rank. */
static unsigned long long client_hash(unsigned long long job, const char *host,
                                      unsigned long long pid)
{
	char digits[24], *p = digits + sizeof(digits);
	unsigned long long h;

	*--p = 0;
	do
		*--p = (char)('0' + pid % 10);
	while (pid /= 10);
	h = hash_text(hash_text(job, host), p);
	h ^= h >> 29; /* FNV's low bits mix poorly: fold them */
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return h;
}

long long tp_pacing_phase_ns(const char *job_id, long long rank,
                             const char *host, unsigned long long pid,
                             long long window_ns)
{
	unsigned long long job = hash_text(14695981039346656037ULL, job_id);
	double fraction;

	if (window_ns <= 0)
		return 0;
	if (rank >= 0)
		/* Golden-ratio steps spread any run of consecutive ranks. */
		fraction =
		    bits_fraction(job) + (double)rank * 0.6180339887498949;
	else
		fraction = bits_fraction(client_hash(job, host, pid));
	fraction -= (double)(long long)fraction;
	return (long long)(fraction * (double)window_ns);
}
