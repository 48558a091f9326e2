/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "suites.h"
#include "xfsj/crc32c.h"

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
	suite_add_tcase(s, tc);
	return s;
}
