/*
 * sha256.h: SHA-256 (FIPS 180-4), the integrity digest of a profile file.
 *
 * A digest detects corruption and, inside a munge credential, binds the
 * credential to exactly these bytes; on its own it authenticates nothing.
 * Kept in the tree (about 150 lines) so the core needs no crypto library.
 */
#ifndef TP_SHA256_H
#define TP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define TP_SHA256_BYTES 32

typedef struct tp_sha256 {
	uint32_t state[8];
	uint64_t total_bytes;
	uint8_t block[64];
	size_t block_used;
} tp_sha256_ctx;

/* Start a digest in @ctx (caller-owned storage). */
void tp_sha256_init(tp_sha256_ctx *ctx);

/* Feed @len bytes of @data (any length, any alignment). */
void tp_sha256_update(tp_sha256_ctx *ctx, const void *data, size_t len);

/* Finish and write the 32-byte digest to @digest; @ctx is then spent. */
void tp_sha256_final(tp_sha256_ctx *ctx, uint8_t digest[TP_SHA256_BYTES]);

/* One-shot digest of @len bytes at @data. */
void tp_sha256(const void *data, size_t len, uint8_t digest[TP_SHA256_BYTES]);

/* Lower-case hex of @digest into @hex (65 bytes with the NUL). */
void tp_sha256_hex(const uint8_t digest[TP_SHA256_BYTES], char hex[65]);

#endif /* TP_SHA256_H */
