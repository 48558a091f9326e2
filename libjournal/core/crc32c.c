/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CRC32c (Castagnoli), the checksum of every v5 XFS metadata object and of
 * log records.  On x86-64 with SSE4.2 the crc32 instruction, in three
 * interleaved streams (some 30 GB/s from the caches); from 1 KiB up, where
 * the CPU has AVX-512 and VPCLMULQDQ, carry-less folding (some 60 GB/s);
 * elsewhere slice-by-4 tables.  Log scanning checksums every record, so
 * this is on logprint's and repair's hot path.
 */
#include <stdint.h>
#include <string.h>

#include "core/crc32c.h"
#include "core/crc32c_tab.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

static uint32_t crc_sw(uint32_t crc, const unsigned char *p, size_t len)
{
	while (len && ((uintptr_t)p & 3)) {
		crc = crc_tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
		len--;
	}
	while (len >= 4) {
		uint32_t w;

		memcpy(&w, p, 4);
		/* The tables assume the bytes in memory order, little-endian. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w = __builtin_bswap32(w);
#endif
		crc ^= w;
		crc = crc_tab[3][crc & 0xff] ^ crc_tab[2][(crc >> 8) & 0xff] ^
		      crc_tab[1][(crc >> 16) & 0xff] ^ crc_tab[0][crc >> 24];
		p += 4;
		len -= 4;
	}
	while (len--)
		crc = crc_tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC_LONG	8192
#define CRC_SHORT	256

/* Advance a raw CRC register over @tab's number of zero bytes. */
static inline uint32_t crc_shift(const uint32_t tab[4][256], uint32_t c)
{
	return tab[0][c & 0xff] ^ tab[1][(c >> 8) & 0xff] ^
	       tab[2][(c >> 16) & 0xff] ^ tab[3][c >> 24];
}

/*
 * Three independent streams over consecutive blocks of @blk bytes: the
 * crc32 instruction has a latency of three cycles but issues every cycle,
 * so one stream leaves two thirds of it idle.  The CRC of a concatenation
 * is the first part's CRC shifted over the second part's length, xor the
 * second part's CRC from zero; the shift is a table lookup.
 */
__attribute__((target("sse4.2")))
static inline uint64_t crc_hw3(uint64_t c, const unsigned char **pp,
			       size_t *lenp, size_t blk,
			       const uint32_t tab[4][256])
{
	const unsigned char *p = *pp;
	size_t len = *lenp;

	while (len >= 3 * blk) {
		uint64_t c1 = 0, c2 = 0;
		const unsigned char *end = p + blk;

		do {
			uint64_t a, b, d;

			memcpy(&a, p, 8);
			memcpy(&b, p + blk, 8);
			memcpy(&d, p + 2 * blk, 8);
			c = __builtin_ia32_crc32di(c, a);
			c1 = __builtin_ia32_crc32di(c1, b);
			c2 = __builtin_ia32_crc32di(c2, d);
			p += 8;
		} while (p < end);
		c = crc_shift(tab, (uint32_t)c) ^ (uint32_t)c1;
		c = crc_shift(tab, (uint32_t)c) ^ (uint32_t)c2;
		p += 2 * blk;
		len -= 3 * blk;
	}
	*pp = p;
	*lenp = len;
	return c;
}

/* One stream, for the 256 bytes left by the fold. */
__attribute__((target("sse4.2")))
static uint32_t crc_hw_small(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc;

	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}

/*
 * With AVX-512 and its carry-less multiply: sixteen 16-byte lanes folded
 * forward 256 bytes at a time.  A lane holding the polynomial
 * H x^64 + L (its first 8 bytes are H, the high terms, as the CRC is
 * bit-reflected) moves 256 bytes on as H x^2111 + L x^2047 mod P: two
 * carry-less products with constants (the product of reflected operands
 * carries one extra factor x, hence the exponents one below 2048 + 64
 * and 2048).  What is left at the end is 256 bytes with the same CRC
 * from zero as everything folded so far (the starting CRC enters as an
 * xor over the first four bytes), finished with the crc32 instruction.
 */
#define FOLD_K1	0xe9a5d8be00000000ULL	/* x^2111 mod P, reflected */
#define FOLD_K2	0x1426a81500000000ULL	/* x^2047 mod P, reflected */

__attribute__((target("avx512f,vpclmulqdq")))
static uint32_t crc_fold(uint32_t crc, const unsigned char **pp, size_t *lenp)
{
	const unsigned char *p = *pp;
	size_t len = *lenp;
	const __m512i k = _mm512_set_epi64((long long)FOLD_K2, (long long)FOLD_K1,
					   (long long)FOLD_K2, (long long)FOLD_K1,
					   (long long)FOLD_K2, (long long)FOLD_K1,
					   (long long)FOLD_K2, (long long)FOLD_K1);
	__m512i x0, x1, x2, x3;
	unsigned char tail[256] __attribute__((aligned(64)));

	x0 = _mm512_xor_si512(_mm512_loadu_si512(p),
			      _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					       0, 0, 0, 0, 0, (int)crc));
	x1 = _mm512_loadu_si512(p + 64);
	x2 = _mm512_loadu_si512(p + 128);
	x3 = _mm512_loadu_si512(p + 192);
	p += 256;
	len -= 256;
	while (len >= 256) {
		x0 = _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x0, k, 0x00),
					       _mm512_clmulepi64_epi128(x0, k, 0x11),
					       _mm512_loadu_si512(p), 0x96);
		x1 = _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x1, k, 0x00),
					       _mm512_clmulepi64_epi128(x1, k, 0x11),
					       _mm512_loadu_si512(p + 64), 0x96);
		x2 = _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x2, k, 0x00),
					       _mm512_clmulepi64_epi128(x2, k, 0x11),
					       _mm512_loadu_si512(p + 128), 0x96);
		x3 = _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x3, k, 0x00),
					       _mm512_clmulepi64_epi128(x3, k, 0x11),
					       _mm512_loadu_si512(p + 192), 0x96);
		p += 256;
		len -= 256;
	}
	_mm512_store_si512(tail, x0);
	_mm512_store_si512(tail + 64, x1);
	_mm512_store_si512(tail + 128, x2);
	_mm512_store_si512(tail + 192, x3);
	*pp = p;
	*lenp = len;
	return crc_hw_small(0, tail, sizeof(tail));
}

static int have_fold(void)
{
	return __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("vpclmulqdq");
}

__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc;

	if (len >= 1024 && have_fold())
		c = crc_fold(crc, &p, &len);
	while (len && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
		len--;
	}
	c = crc_hw3(c, &p, &len, CRC_LONG, crc_shift_long);
	c = crc_hw3(c, &p, &len, CRC_SHORT, crc_shift_short);
	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}

static int have_hw(void)
{
	/* Cheap after the first call: the compiler caches cpu features. */
	return __builtin_cpu_supports("sse4.2");
}
#else
static uint32_t crc_hw(uint32_t crc, const unsigned char *p, size_t len)
{
	return crc_sw(crc, p, len);
}

static int have_hw(void)
{
	return 0;
}
#endif

uint32_t xfsj_crc32c_update(uint32_t crc, const void *buf, size_t len)
{
	if (have_hw())
		return crc_hw(crc, buf, len);
	return crc_sw(crc, buf, len);
}

uint32_t xfsj_crc32c(const void *buf, size_t len)
{
	return ~xfsj_crc32c_update(~0U, buf, len);
}

uint32_t xfsj_cksum(const void *buf, size_t len, size_t crc_off)
{
	static const unsigned char zero[4];
	const unsigned char *p = buf;
	uint32_t crc;

	if (crc_off + 4 > len)
		return xfsj_crc32c(buf, len);
	crc = xfsj_crc32c_update(~0U, p, crc_off);
	crc = xfsj_crc32c_update(crc, zero, 4);
	crc = xfsj_crc32c_update(crc, p + crc_off + 4, len - crc_off - 4);
	return ~crc;
}

void xfsj_cksum_update(void *buf, size_t len, size_t crc_off)
{
	uint32_t crc = xfsj_cksum(buf, len, crc_off);
	unsigned char *p = (unsigned char *)buf + crc_off;

	/* The one little-endian field of XFS metadata. */
	p[0] = crc & 0xff;
	p[1] = (crc >> 8) & 0xff;
	p[2] = (crc >> 16) & 0xff;
	p[3] = crc >> 24;
}

int xfsj_cksum_ok(const void *buf, size_t len, size_t crc_off)
{
	const unsigned char *p = (const unsigned char *)buf + crc_off;
	uint32_t stored;

	if (crc_off + 4 > len)
		return 0;
	stored = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		 (uint32_t)p[3] << 24;
	return stored == xfsj_cksum(buf, len, crc_off);
}
