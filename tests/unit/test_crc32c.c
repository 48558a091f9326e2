/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "core/crc32c.h"

START_TEST(known_vectors)
{
	/* The standard check value of CRC-32C. */
	ck_assert_uint_eq(xfsj_crc32c("123456789", 9), 0xe3069283U);
	ck_assert_uint_eq(xfsj_crc32c("", 0), 0);
	static const unsigned char zeros[32];
	ck_assert_uint_eq(xfsj_crc32c(zeros, 32), 0x8a9136aaU);
}
END_TEST

START_TEST(unaligned_and_chained)
{
	unsigned char buf[4099];
	uint32_t whole, part;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	for (size_t start = 0; start < 9; start++) {
		whole = xfsj_crc32c(buf + start, sizeof(buf) - start);
		part = xfsj_crc32c_update(~0U, buf + start, 1000);
		part = ~xfsj_crc32c_update(part, buf + start + 1000,
					   sizeof(buf) - start - 1000);
		ck_assert_uint_eq(whole, part);
	}
}
END_TEST

/* Bit at a time: the definition, against every path of the fast code. */
static uint32_t crc_bitwise(uint32_t crc, const unsigned char *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78U & (0U - (crc & 1)));
	}
	return crc;
}

START_TEST(interleaved_lengths)
{
	/*
	 * Around the blocks of the three-stream path (3 x 256, 3 x 8192)
	 * and of the AVX-512 fold (from 1024 bytes, 256 at a time).
	 */
	static const size_t lens[] = {
		0, 1, 7, 8, 255, 767, 768, 769, 1000, 1023, 1024, 1025, 1279,
		1280, 1535, 1543, 4096, 24575, 24576, 24577, 25344, 49152,
		49159, 60000, 131072,
	};
	size_t max = 131072 + 16;
	unsigned char *buf = malloc(max);

	ck_assert_ptr_nonnull(buf);
	for (size_t i = 0; i < max; i++)
		buf[i] = (unsigned char)(i * 131 + (i >> 9) + 7);
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (size_t start = 0; start < 9; start++)
			ck_assert_uint_eq(xfsj_crc32c_update(0x5eed1234U,
							     buf + start, lens[l]),
					  crc_bitwise(0x5eed1234U, buf + start,
						      lens[l]));
	free(buf);
}
END_TEST

START_TEST(metadata_rule)
{
	unsigned char blk[512];

	memset(blk, 0x5a, sizeof(blk));
	xfsj_cksum_update(blk, sizeof(blk), 224);
	ck_assert(xfsj_cksum_ok(blk, sizeof(blk), 224));
	/* The stored value does not take part in its own computation. */
	ck_assert_uint_eq(xfsj_cksum(blk, sizeof(blk), 224),
			  (uint32_t)blk[224] | (uint32_t)blk[225] << 8 |
			  (uint32_t)blk[226] << 16 | (uint32_t)blk[227] << 24);
	blk[10] ^= 1;
	ck_assert(!xfsj_cksum_ok(blk, sizeof(blk), 224));
	/* A CRC field past the end is never "ok". */
	ck_assert(!xfsj_cksum_ok(blk, 100, 224));
}
END_TEST

Suite *crc32c_suite(void)
{
	Suite *s = suite_create("crc32c");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, known_vectors);
	tcase_add_test(tc, unaligned_and_chained);
	tcase_add_test(tc, metadata_rule);
	tcase_add_test(tc, interleaved_lengths);
	suite_add_tcase(s, tc);
	return s;
}
