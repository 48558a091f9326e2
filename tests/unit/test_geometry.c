/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The geometry policy: AG sizing, the 2022 log rule, alignment, refusals. */
#include <string.h>

#include "suites.h"
#include "xfsj/errors.h"
#include "xfsj/geometry.h"

static int compute(uint64_t size, struct xfsj_mkfs_req *r,
		   struct xfsj_geometry *g)
{
	struct xfsj_topology t = {
		.size = size, .lsectsize = 512, .psectsize = 512, .is_file = true,
	};
	char msg[256];

	return xfsj_geometry_compute(r, &t, g, msg, sizeof(msg));
}

static struct xfsj_geometry geo(uint64_t size)
{
	struct xfsj_mkfs_req r;
	struct xfsj_geometry g;

	xfsj_mkfs_req_init(&r);
	ck_assert_int_eq(compute(size, &r, &g), 0);
	return g;
}

#define GiB (1ULL << 30)
#define TiB (1ULL << 40)

START_TEST(log_rule_2022)
{
	/* 4 KiB blocks: 64 MiB floor, then 2048:1, capped at 2038 MiB. */
	static const struct { uint64_t size; uint32_t logblocks; } rows[] = {
		{ 300ULL << 20, 16384 }, { 1 * GiB, 16384 }, { 16 * GiB, 16384 },
		{ 64 * GiB, 16384 }, { 128 * GiB, 16384 }, { 256 * GiB, 32768 },
		{ 512 * GiB, 65536 }, { 1 * TiB, 131072 }, { 2 * TiB, 262144 },
		{ 4 * TiB, 521728 }, { 16 * TiB, 521728 }, { 64 * TiB, 521728 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct xfsj_geometry g = geo(rows[i].size);

		ck_assert_msg(g.logblocks == rows[i].logblocks,
			      "size %llu: log %u, expected %u",
			      (unsigned long long)rows[i].size, g.logblocks,
			      rows[i].logblocks);
	}
	/* 2038 MiB is the cap: 2 GiB - 10 MiB. */
	ck_assert_uint_eq(521728ULL * 4096, (2ULL << 30) - (10ULL << 20));
}
END_TEST

START_TEST(ag_geometry)
{
	struct xfsj_geometry g;

	g = geo(1 * GiB);
	ck_assert_uint_eq(g.agcount, 4);
	ck_assert_uint_eq(g.agblocks, 65536);
	ck_assert_uint_eq(g.logagno, 2);
	ck_assert_uint_eq(g.logstart, (2ULL << 16) | 7);	/* agblklog 16 */
	ck_assert_uint_eq(g.rootino, 128);
	ck_assert_uint_eq(g.min_freelist, 6);
	ck_assert_uint_eq(g.imaxpct, 25);
	g = geo(1 * TiB);
	ck_assert_uint_eq(g.agcount, 4);
	ck_assert_uint_eq(g.agblocks, 67108864);
	ck_assert_uint_eq(g.imaxpct, 5);
	g = geo(4 * TiB);
	ck_assert_uint_eq(g.agblocks, 268435455);
	ck_assert_uint_eq(g.agcount, 4);	/* the 4-block tail AG is dropped */
	g = geo(8 * TiB);
	ck_assert_uint_eq(g.agcount, 8);
	g = geo(64 * TiB);
	ck_assert_uint_eq(g.agcount, 64);
	ck_assert_uint_eq(g.imaxpct, 1);
}
END_TEST

START_TEST(stripe_alignment)
{
	struct xfsj_mkfs_req r;
	struct xfsj_geometry g;

	xfsj_mkfs_req_init(&r);
	r.dsu_set = true;
	r.dsu = 64 * 1024;
	r.dsw = 4;
	ck_assert_int_eq(compute(2 * GiB, &r, &g), 0);
	/* 65536 is a multiple of the width: one stripe unit comes off. */
	ck_assert_uint_eq(g.agcount, 8);
	ck_assert_uint_eq(g.agblocks, 65520);
	ck_assert_uint_eq(g.dsunit, 16);
	ck_assert_uint_eq(g.dswidth, 64);
	ck_assert_uint_eq(g.lsunit, 16);
	ck_assert_uint_eq(g.logstart % 16, 0);
	ck_assert_uint_eq(g.logblocks % 16, 0);
	ck_assert_uint_eq(g.versionnum & 0x0100, 0x0100);

	xfsj_mkfs_req_init(&r);
	r.lsu_set = true;
	r.lsu = 1024 * 1024;	/* too large: falls back to 32 KiB */
	ck_assert_int_eq(compute(2 * GiB, &r, &g), 0);
	ck_assert_uint_eq(g.lsunit, 8);
	ck_assert_ptr_nonnull(strstr(g.warning, "too large"));
}
END_TEST

START_TEST(features_and_words)
{
	struct xfsj_geometry g = geo(1 * GiB);

	/* 6.19 defaults: versionnum 0xB4B5, ro_compat 0xF, incompat 0xEB. */
	ck_assert_uint_eq(g.versionnum, 0xB4B5);
	ck_assert_uint_eq(g.ro_compat, 0xF);
	ck_assert_uint_eq(g.incompat, 0xEB);
	ck_assert_uint_eq(g.features2, 0x18A);
	ck_assert_uint_eq(g.inoalignmt, 8);
	ck_assert_uint_eq(g.spino_align, 4);

	struct xfsj_mkfs_req r;

	xfsj_mkfs_req_init(&r);
	r.feat.rmapbt = r.feat.nrext64 = r.feat.exchange = r.feat.parent = false;
	ck_assert_int_eq(compute(1 * GiB, &r, &g), 0);
	ck_assert_uint_eq(g.versionnum, 0xB4A5);
	ck_assert_uint_eq(g.ro_compat, 0xD);
	ck_assert_uint_eq(g.incompat, 0x0B);
	ck_assert_uint_eq(g.min_freelist, 4);
	ck_assert_uint_eq(g.prealloc_blocks, 6);
}
END_TEST

START_TEST(refusals)
{
	struct xfsj_mkfs_req r;
	struct xfsj_geometry g;

	xfsj_mkfs_req_init(&r);
	ck_assert_int_eq(compute(200ULL << 20, &r, &g), -XFSJ_E_TOOSMALL);
	r.blocksize = 3000;
	ck_assert_int_eq(compute(1 * GiB, &r, &g), -XFSJ_E_RANGE);
	xfsj_mkfs_req_init(&r);
	r.feat.finobt = false;	/* inobtcount still on */
	ck_assert_int_eq(compute(1 * GiB, &r, &g), -XFSJ_E_CONFLICT);
	xfsj_mkfs_req_init(&r);
	r.agsize = 8ULL << 20;
	ck_assert_int_eq(compute(1 * GiB, &r, &g), -XFSJ_E_TOOSMALL);
	xfsj_mkfs_req_init(&r);
	r.logsize = 600ULL << 20;
	ck_assert_int_eq(compute(1 * GiB, &r, &g), -XFSJ_E_RANGE);
}
END_TEST

START_TEST(small_filesystems)
{
	struct xfsj_mkfs_req r;
	struct xfsj_geometry g;

	/* Below 300 MB only with the explicit option, with the minimum log. */
	xfsj_mkfs_req_init(&r);
	r.small = true;
	ck_assert_int_eq(compute(64ULL << 20, &r, &g), 0);
	ck_assert_uint_eq(g.logblocks, g.min_logblocks);
	ck_assert_uint_ge(g.logblocks, 512);
	ck_assert_uint_lt((uint64_t)g.logblocks * 4096, 64ULL << 20);
	ck_assert_int_eq(compute(200ULL << 20, &r, &g), 0);
	ck_assert_uint_eq(g.logblocks, g.min_logblocks);
	/* At 300 MiB and above the 64 MiB floor is back. */
	ck_assert_int_eq(compute(300ULL << 20, &r, &g), 0);
	ck_assert_uint_eq(g.logblocks, 16384);
}
END_TEST

/* An external log device of @logdev bytes under a 1 GiB data device. */
static int compute_ext(struct xfsj_mkfs_req *r, uint64_t logdev,
		       struct xfsj_geometry *g)
{
	struct xfsj_topology t = {
		.size = 1 * GiB, .lsectsize = 512, .psectsize = 512,
		.is_file = true, .logdev_size = logdev,
		.logdev_lsectsize = 512,
	};
	char msg[256];

	r->logdev = true;
	return xfsj_geometry_compute(r, &t, g, msg, sizeof(msg));
}

START_TEST(external_log)
{
	struct xfsj_geometry in = geo(1 * GiB), g;
	struct xfsj_mkfs_req r;

	/* All of the device; logstart 0; the data as without a log. */
	xfsj_mkfs_req_init(&r);
	ck_assert_int_eq(compute_ext(&r, 96ULL << 20, &g), 0);
	ck_assert(g.logexternal);
	ck_assert_uint_eq(g.logblocks, 24576);
	ck_assert_uint_eq(g.logstart, 0);
	ck_assert_uint_eq(g.agcount, in.agcount);
	ck_assert_uint_eq(g.agblocks, in.agblocks);
	/* The root inode no longer comes after a log in AG 0. */
	ck_assert_uint_le(g.rootino, in.rootino);
	/* size= of it; more than the device is refused. */
	xfsj_mkfs_req_init(&r);
	r.logsize = 80ULL << 20;
	ck_assert_int_eq(compute_ext(&r, 96ULL << 20, &g), 0);
	ck_assert_uint_eq(g.logblocks, 20480);
	r.logsize = 200ULL << 20;
	ck_assert_int_ne(compute_ext(&r, 96ULL << 20, &g), 0);
	/* A device past the largest log: refused, as by mkfs.xfs. */
	xfsj_mkfs_req_init(&r);
	ck_assert_int_ne(compute_ext(&r, 3 * GiB, &g), 0);
	/* Below the minimum, and below 64 MiB without --small. */
	ck_assert_int_ne(compute_ext(&r, 12ULL << 20, &g), 0);
	ck_assert_int_ne(compute_ext(&r, 50ULL << 20, &g), 0);
	/* A log stripe unit: an odd device trimmed to a multiple. */
	xfsj_mkfs_req_init(&r);
	r.lsu_set = true;
	r.lsu = 32768;
	ck_assert_int_eq(compute_ext(&r, (70ULL << 20) + 4096, &g), 0);
	ck_assert_uint_eq(g.lsunit, 8);
	ck_assert_uint_eq(g.logblocks, 17920);
	/* A data stripe is not the external log's stripe. */
	xfsj_mkfs_req_init(&r);
	r.dsu_set = true;
	r.dsu = 65536;
	r.dsw = 4;
	ck_assert_int_eq(compute_ext(&r, 96ULL << 20, &g), 0);
	ck_assert_uint_eq(g.lsunit, 0);
	ck_assert_uint_eq(g.dsunit, 16);
}
END_TEST

Suite *geometry_suite(void)
{
	Suite *s = suite_create("geometry");
	TCase *tc = tcase_create("policy");

	tcase_add_test(tc, log_rule_2022);
	tcase_add_test(tc, ag_geometry);
	tcase_add_test(tc, stripe_alignment);
	tcase_add_test(tc, features_and_words);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, small_filesystems);
	tcase_add_test(tc, external_log);
	suite_add_tcase(s, tc);
	return s;
}
