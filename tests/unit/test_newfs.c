/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Format filesystems on the memory backend and check every structure the
 * writer produced with the library's own verifiers, plus the cross-checks
 * xfs_repair makes: counters add up, the two free-space trees agree, the
 * rmap covers every used block exactly once, the root inode is where it
 * must be.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "core/crc32c.h"
#include "xfsj/io.h"
#include "ondisk/log.h"
#include "xfsj/newfs.h"
#include "xfsj/ondisk.h"

/* @logdev_size: an external log device of that size; 0: internal log. */
static void check_fs_log(uint64_t size, struct xfsj_mkfs_req *r,
			 uint64_t logdev_size)
{
	struct xfsj_topology t = { .size = size, .lsectsize = 512,
				   .psectsize = 512, .is_file = true,
				   .logdev_size = logdev_size,
				   .logdev_lsectsize = 512 };
	struct xfsj_io *logio = NULL;
	struct xfsj_newfs_opts o = { .now_sec = 1700000000, .gen = 42 };
	struct xfsj_fault f = { 0 };
	struct xfsj_geometry g;
	struct xfsj_io *io;
	struct xfsj_sb sb;
	struct xfsj_vctx c;
	uint8_t *img;
	uint64_t fdblocks = 0;
	char msg[256];

	r->logdev = logdev_size != 0;
	ck_assert_int_eq(xfsj_geometry_compute(r, &t, &g, msg, sizeof(msg)), 0);
	ck_assert_int_eq(xfsj_io_open_mem(size, &io), 0);
	if (logdev_size) {
		ck_assert_int_eq(xfsj_io_open_mem(logdev_size, &logio), 0);
		memset(xfsj_io_mem_buffer(logio), 0xee, logdev_size);
		o.logio = logio;
	}
	memset(o.uuid, 0xa5, 16);
	strcpy(o.label, "unit");
	ck_assert_int_eq(xfsj_newfs_write(io, &g, &o, &f), 0);
	img = xfsj_io_mem_buffer(io);

	ck_assert_int_eq(xfsj_sb_verify(img, g.sectsize, 0, &f), 0);
	xfsj_sb_decode(img, &sb);
	ck_assert_uint_eq(sb.rootino, g.rootino);
	ck_assert_uint_eq(sb.rbmino, g.rootino + 1);
	ck_assert_uint_eq(sb.inprogress, 0);
	ck_assert_uint_eq(sb.icount, g.chunk_inodes);
	ck_assert_int_eq(memcmp(sb.fname, "unit", 4), 0);
	ck_assert_uint_eq(sb.logblocks, g.logblocks);
	if (logdev_size)
		ck_assert_uint_eq(sb.logstart, 0);

	memset(&c, 0, sizeof(c));
	memcpy(c.uuid, o.uuid, 16);
	c.sectsize = g.sectsize;
	c.blocksize = g.blocksize;
	c.inodesize = g.inodesize;
	c.features_ro_compat = g.ro_compat;
	c.features_incompat = g.incompat;
	for (uint32_t a = 0; a < g.agcount; a++) {
		uint64_t base = ((uint64_t)a * g.agblocks) << g.blocklog;
		uint8_t *ag = img + base;
		uint8_t *used;
		struct xfsj_agf agf;
		struct xfsj_sblock h;
		uint32_t len = xfsj_geom_ag_blocks(&g, a);
		uint32_t sum = 0;

		c.agno = a;
		c.agblocks = len;
		if (a) {
			/* Secondaries: geometry like the primary, flagged. */
			struct xfsj_sb s2;

			xfsj_sb_decode(ag, &s2);
			ck_assert_uint_eq(s2.magicnum, XFSJ_SB_MAGIC);
			ck_assert_uint_eq(s2.agblocks, sb.agblocks);
			ck_assert_uint_eq(s2.dblocks, sb.dblocks);
			ck_assert(xfsj_cksum_ok(ag, g.sectsize, XFSJ_SB_CRC_OFF));
		}
		ck_assert_int_eq(xfsj_agf_verify(ag + g.sectsize, &c,
						 base + g.sectsize, &f), 0);
		ck_assert_int_eq(xfsj_agi_verify(ag + 2 * g.sectsize, &c,
						 base + 2 * g.sectsize, &f), 0);
		ck_assert_int_eq(xfsj_agfl_verify(ag + 3 * g.sectsize, &c,
						  base + 3 * g.sectsize, &f), 0);
		xfsj_agf_decode(ag + g.sectsize, &agf);
		fdblocks += agf.freeblks + agf.flcount + agf.btreeblks;

		/* bnobt and cntbt: same extents, free blocks add up */
		uint8_t *bno = ag + ((size_t)agf.bno_root << g.blocklog);
		uint8_t *cnt = ag + ((size_t)agf.cnt_root << g.blocklog);

		ck_assert_int_eq(xfsj_sblock_verify(bno, XFSJ_BT_BNO, &c,
				(base >> 9) + ((uint64_t)agf.bno_root << (g.blocklog - 9)), &f), 0);
		ck_assert_int_eq(xfsj_sblock_verify(cnt, XFSJ_BT_CNT, &c,
				(base >> 9) + ((uint64_t)agf.cnt_root << (g.blocklog - 9)), &f), 0);
		xfsj_sblock_decode(bno, &h);
		used = calloc(len, 1);
		for (unsigned int i = 0; i < h.numrecs; i++) {
			struct xfsj_alloc_rec e, e2;
			bool found = false;

			xfsj_alloc_rec_get(bno, i, &e);
			sum += e.blockcount;
			for (unsigned int j = 0; j < h.numrecs; j++) {
				xfsj_alloc_rec_get(cnt, j, &e2);
				found |= e2.startblock == e.startblock &&
					 e2.blockcount == e.blockcount;
			}
			ck_assert(found);
			for (uint32_t b = e.startblock; b < e.startblock + e.blockcount; b++)
				used[b]++;
		}
		ck_assert_uint_eq(sum, agf.freeblks);

		/* rmap: every block not free is owned exactly once */
		if (g.feat.rmapbt) {
			uint8_t *rm = ag + ((size_t)agf.rmap_root << g.blocklog);

			ck_assert_int_eq(xfsj_sblock_verify(rm, XFSJ_BT_RMAP, &c,
				(base >> 9) + ((uint64_t)agf.rmap_root << (g.blocklog - 9)), &f), 0);
			xfsj_sblock_decode(rm, &h);
			for (unsigned int i = 0; i < h.numrecs; i++) {
				struct xfsj_rmap_rec rr;

				xfsj_rmap_rec_get(rm, i, &rr);
				for (uint32_t b = rr.startblock;
				     b < rr.startblock + rr.blockcount; b++)
					used[b]++;
			}
			for (uint32_t b = 0; b < len; b++)
				ck_assert_msg(used[b] == 1, "AG %u block %u covered %d times",
					      a, b, used[b]);
		}
		free(used);
	}
	ck_assert_uint_eq(fdblocks, sb.fdblocks);

	/* The root chunk: every inode verifies; the root is an empty dir. */
	for (uint32_t i = 0; i < g.chunk_inodes; i++) {
		uint64_t ino = g.rootino + i;
		uint64_t off = ino << g.inodelog;	/* AG 0 */

		ck_assert_int_eq(xfsj_dinode_verify(img + off, &c, ino, off, &f), 0);
	}
	uint64_t parent = 0;
	uint8_t *root = img + (g.rootino << g.inodelog);

	ck_assert_int_eq(xfsj_dir_sf_walk(root + XFSJ_DINODE_CORE_SIZE, 6, true,
					  &parent, NULL, NULL, &f), 0);
	ck_assert_uint_eq(parent, g.rootino);

	/* The log: one unmount record at its start, the rest zero. */
	uint64_t logoff = (((g.logstart >> g.agblklog) * g.agblocks) +
			   (g.logstart & ((1ULL << g.agblklog) - 1))) << g.blocklog;
	struct xfsj_logrec lr;

	uint8_t *log = img + logoff;

	if (logdev_size) {
		/* At the start of the log device, zeroed past the record. */
		log = xfsj_io_mem_buffer(logio);
		ck_assert_uint_eq(log[((uint64_t)g.logblocks << g.blocklog) - 1], 0);
	}
	xfsj_logrec_decode(log, &lr);
	ck_assert_uint_eq(lr.magicno, XFSJ_LOG_MAGIC);
	ck_assert_uint_eq(lr.cycle, 1);
	ck_assert_uint_eq(lr.num_logops, 1);
	ck_assert_int_eq(memcmp(lr.fs_uuid, o.uuid, 16), 0);
	xfsj_io_close(logio);
	xfsj_io_close(io);
}

static void check_fs(uint64_t size, struct xfsj_mkfs_req *r)
{
	check_fs_log(size, r, 0);
}

START_TEST(external_log)
{
	struct xfsj_mkfs_req r;

	/* The whole log device; the data device keeps every block. */
	xfsj_mkfs_req_init(&r);
	r.small = true;
	check_fs_log(64ULL << 20, &r, 12ULL << 20);
	/* size= of a larger device, 1 KiB blocks. */
	xfsj_mkfs_req_init(&r);
	r.small = true;
	r.blocksize = 1024;
	r.logsize = 10ULL << 20;
	check_fs_log(48ULL << 20, &r, 16ULL << 20);
}
END_TEST

START_TEST(default_small)
{
	struct xfsj_mkfs_req r;

	xfsj_mkfs_req_init(&r);
	r.small = true;
	check_fs(64ULL << 20, &r);
}
END_TEST

START_TEST(variants)
{
	struct xfsj_mkfs_req r;

	xfsj_mkfs_req_init(&r);
	r.small = true;
	r.blocksize = 1024;
	check_fs(48ULL << 20, &r);

	xfsj_mkfs_req_init(&r);
	r.small = true;
	r.feat.rmapbt = false;
	r.feat.finobt = false;
	r.feat.inobtcount = false;
	check_fs(40ULL << 20, &r);

	xfsj_mkfs_req_init(&r);
	r.small = true;
	r.sectsize = 4096;
	r.inodesize = 1024;
	check_fs(80ULL << 20, &r);

	xfsj_mkfs_req_init(&r);
	r.small = true;
	r.blocksize = 65536;
	r.agcount = 2;		/* AGs big enough for the minimum log */
	check_fs(256ULL << 20, &r);

	xfsj_mkfs_req_init(&r);
	r.small = true;
	r.agcount = 1;
	r.logagno = 0;
	check_fs(64ULL << 20, &r);
}
END_TEST

START_TEST(striped)
{
	struct xfsj_mkfs_req r;

	xfsj_mkfs_req_init(&r);
	r.small = true;
	r.dsu_set = true;
	r.dsu = 64 * 1024;
	r.dsw = 4;
	check_fs(128ULL << 20, &r);
}
END_TEST

Suite *newfs_suite(void)
{
	Suite *s = suite_create("newfs");
	TCase *tc = tcase_create("memory");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, default_small);
	tcase_add_test(tc, variants);
	tcase_add_test(tc, striped);
	tcase_add_test(tc, external_log);
	suite_add_tcase(s, tc);
	return s;
}
