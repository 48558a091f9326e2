/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CRC32c (Castagnoli), the checksum of every v5 XFS metadata object and of
 * log records.  On x86-64 with SSE4.2 the crc32 instruction does 8 bytes a
 * cycle or so; elsewhere slice-by-4 tables are used.  Log scanning checksums
 * every record, so this is on logprint's and repair's hot path.
 */
#include <stdint.h>
#include <string.h>

#include "xfsj/crc32c.h"
#include "crc32c_tab.h"

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
__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc;

	while (len && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
		len--;
	}
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
