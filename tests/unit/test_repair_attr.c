/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_SALVAGE_ATTR (repair/fix_attr*.c) on the fixture filesystem: the
 * root's attribute fork, written by the fs layer in short form or leaf
 * format, damaged in memory one way at a time (a header's count, an
 * entry left incomplete, a repeated name, a fork format no one knows);
 * the repair keeps every good attribute, drops the bad ones, and the
 * filesystem then checks clean.
 */
#include <stdio.h>
#include <string.h>

#include "row_fixture.h"
#include "suites.h"
#include "xfsj/check.h"
#include "xfsj/repair.h"
#include "core/crc32c.h"
#include "core/layout.h"
#include "fs/attr.h"
#include "fs/bmbt.h"
#include "fs/defer.h"
#include "check/check_priv.h"
#include "repair/repair_priv.h"

#define MB	(1ULL << 20)

static void on_left(void *arg, const struct xfsj_problem *p)
{
	xfsj_problem_format(p, arg, 160);
}

/* Repair: it must fix something and leave nothing; then a second finds
 * nothing to do. */
static void repair(struct fs_fixture *fx)
{
	char last[160] = "";
	struct xfsj_repair_cb cb = { .arg = last, .left = on_left };
	struct xfsj_repair_result res;

	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_repair(fx->fs, NULL, &cb, &res), 0);
	ck_assert_msg(res.left == 0, "%llu problems left (%s)",
		      (unsigned long long)res.left, last);
	ck_assert_uint_ge(res.actions, 1);
	ck_assert_uint_eq(fs_fixture_problems(fx), 0);
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_repair(fx->fs, NULL, &cb, &res), 0);
	ck_assert_uint_eq(res.actions, 0);
}

static int count_one(void *arg, const struct xfsj_attr_arg *a)
{
	unsigned int *n = arg;

	(void)a;
	(*n)++;
	return 0;
}

static unsigned int count_attrs(struct fs_fixture *fx)
{
	struct xfsj_iref ip;
	unsigned int n = 0;

	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, &ip, &fx->f),
			 0);
	if (ip.di.forkoff)
		ck_assert_int_eq(xfsj_attr_list(fx->fs, &ip, count_one, &n,
						&fx->f), 0);
	return n;
}

/* The root's short-form attribute fork, to change in place. */
static uint8_t *sf_fork(struct fs_fixture *fx, struct xfsj_iref *ip)
{
	uint32_t size;
	uint8_t *p;

	ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, ip, &fx->f),
			 0);
	ck_assert_uint_eq(ip->di.aformat, XFSJ_DINODE_FMT_LOCAL);
	p = xfsj_ifork(fx->fs, ip, XFSJ_ATTR_FORK, &size);
	ck_assert_uint_ge(size, XFSJ_ATTR_SF_HDR_SIZE);
	return p;
}

/* Byte offset of short-form entry @i. */
static uint32_t sf_entry(const uint8_t *p, unsigned int i)
{
	uint32_t off = XFSJ_ATTR_SF_HDR_SIZE;

	while (i--)
		off += XFSJ_ATTR_SF_ENTRY_HDR + p[off] + p[off + 1];
	return off;
}

/* ---- short form: damage(fork) and the attributes that must be left ---- */

static void sf_count(uint8_t *p)
{
	p[XFSJ_ATTR_SF_OFF_COUNT] = 255;
}

static void sf_totsize(uint8_t *p)
{
	xfsj_put_be16(p, 0xffff);
}

/* A total size below the header's: the entries are read by the count. */
static void sf_small(uint8_t *p)
{
	xfsj_put_be16(p, 2);
}

/* An incomplete entry and one in two namespaces are dropped. */
static void sf_bad_flags(uint8_t *p)
{
	p[sf_entry(p, 1) + 2] = XFSJ_ATTR_FLAG_INCOMPLETE;
	p[sf_entry(p, 3) + 2] = XFSJ_ATTR_NS_ROOT | XFSJ_ATTR_NS_SECURE;
}

/* Two entries of one name: the first is kept. */
static void sf_duplicate(uint8_t *p)
{
	uint32_t a = sf_entry(p, 0), b = sf_entry(p, 2);

	memcpy(p + b + XFSJ_ATTR_SF_ENTRY_HDR, p + a + XFSJ_ATTR_SF_ENTRY_HDR,
	       p[a]);
}

/* The first entry's name empty: nothing after it can be found; the fork
 * is rewritten empty, and so removed. */
static void sf_lost(uint8_t *p)
{
	p[sf_entry(p, 0)] = 0;
}

static const struct {
	void (*damage)(uint8_t *p);
	unsigned int left;
} sf_cases[] = {
	{ sf_count, 4 },
	{ sf_totsize, 4 },
	{ sf_small, 4 },
	{ sf_bad_flags, 2 },
	{ sf_duplicate, 3 },
	{ sf_lost, 0 },
};

START_TEST(sf_damage)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	root_attrs(&fx, 4, 8);
	sf_cases[_i].damage(sf_fork(&fx, &ip));
	xfsj_dinode_finish(ip.dip, fx.sb.inodesize);
	xfsj_buf_dirty(ip.bp);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	repair(&fx);
	ck_assert_uint_eq(count_attrs(&fx), sf_cases[_i].left);
	ck_assert_int_eq(xfsj_iget(fx.fs, fx.sb.rootino, true, &ip, &fx.f), 0);
	if (!sf_cases[_i].left)
		ck_assert_uint_eq(ip.di.forkoff, 0);
	fs_fixture_free(&fx);
}
END_TEST

/* ---- leaf: damage(block) and the attributes that must be left ---- */

static uint8_t *leaf_slot(uint8_t *b, unsigned int i)
{
	return b + XFSJ_ATTR3_LEAF_HDR_SIZE + i * XFSJ_ATTR_LEAF_ENTRY_SIZE;
}

static void leaf_incomplete(uint8_t *b)
{
	leaf_slot(b, 3)[6] |= XFSJ_ATTR_FLAG_INCOMPLETE;
}

/* A count past the table: every entry is still found. */
static void leaf_count(uint8_t *b)
{
	xfsj_put_be16(b + XFSJ_ALEAF_OFF_COUNT, 0xffff);
}

/* A name changed under its hash: that entry only is dropped. */
static void leaf_name(uint8_t *b)
{
	/* A local name structure: valuelen (2), namelen, the name. */
	b[xfsj_get_be16(leaf_slot(b, 7) + 4) + 3] ^= 0x01;
}

static const struct {
	void (*damage)(uint8_t *b);
	unsigned int left;
} leaf_cases[] = {
	{ leaf_incomplete, 39 },
	{ leaf_count, 40 },
	{ leaf_name, 39 },
};

START_TEST(leaf_damage)
{
	struct fs_fixture fx;
	struct xfsj_buf *bp;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	root_attrs(&fx, 40, 30);
	leaf_cases[_i].damage(root_attr_leaf(&fx, &bp));
	xfsj_cksum_update(bp->data, fx.sb.blocksize, XFSJ_DA3_OFF_CRC);
	xfsj_buf_dirty(bp);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	repair(&fx);
	ck_assert_uint_eq(count_attrs(&fx), leaf_cases[_i].left);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A rewrite that cannot finish leaves the fork as it was: the root's leaf
 * fork of 40 attributes rewritten (FIX_SALVAGE_ATTR's handler, called on
 * its own) while AG 0's bnobt and cntbt roots fail verification, so the
 * new leaf block cannot be had.  The old fork is put back: all 40 read,
 * nothing reported done.  (Before, the old blocks left first and the
 * attributes were dropped.)  Without the damage, the same call rewrites
 * the fork and the filesystem checks clean; with every free block taken,
 * it rewrites it in place.
 */
START_TEST(failed_rewrite_keeps_old)
{
	/* 1: damaged; 0: sound; -1: every free block taken (no room beside
	 * the old block: rewritten in place, as before) */
	for (int damaged = 1; damaged >= -1; damaged--) {
		struct xfsj_repair_result res = { 0 };
		struct xfsj_repair_cb cb = { 0 };
		struct fs_fixture fx;
		struct xfsj_buf *bp;
		struct xfsj_check_result ckres;
		struct xrp_prob pr = { 0 };
		struct xck *ck = NULL;
		struct xrp rp;
		uint32_t bno, cnt, bs;

		fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
		root_attrs(&fx, 40, 30);
		bs = fx.sb.blocksize;
		if (damaged < 0)
			fs_fixture_fill(&fx);
		if (damaged > 0) {
			ck_assert_int_eq(xfsj_agf_read(fx.fs, 0, &bp, &fx.f),
					 0);
			bno = xfsj_get_be32(bp->data + 16);
			cnt = xfsj_get_be32(bp->data + 20);
			overlay_xor(&fx, (uint64_t)bno * bs, 0x40);
			overlay_xor(&fx, (uint64_t)cnt * bs, 0x40);
		}
		fs_fixture_reopen(&fx);
		/* The check's tables: whether AG 0's free space is trusted. */
		ck_assert_int_eq(xck_run(fx.fs, &(struct xfsj_check_opts){
			.threads = 1 }, &(struct xfsj_check_cb){ 0 }, &ckres,
			&ck), 0);
		rp = (struct xrp){ .fs = fx.fs, .sb = xfsj_fs_sb(fx.fs),
				   .res = &res, .cb = &cb, .ck = ck };
		pr.p.has = XFSJ_PF_INO;
		pr.p.ino = fx.sb.rootino;
		pr.p.def = xfsj_problem_by_code("attr.leaf.count");
		ck_assert_ptr_nonnull(pr.p.def);
		ck_assert_int_eq(xrp_field_attr(&rp, &pr), 0);
		ck_assert_uint_eq(res.actions, (damaged > 0 ? 0U : 1U));
		ck_assert_uint_eq(count_attrs(&fx), 40);
		xrp_claims_ix_free(&rp);
		xck_free(ck);
		if (damaged == 0)
			ck_assert_uint_eq(fs_fixture_problems(&fx), 0);
		fs_fixture_free(&fx);
	}
}
END_TEST

Suite *repair_attr_suite(void)
{
	Suite *s = suite_create("repair_attr");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, sf_damage, 0,
			    sizeof(sf_cases) / sizeof(sf_cases[0]));
	tcase_add_loop_test(tc, leaf_damage, 0,
			    sizeof(leaf_cases) / sizeof(leaf_cases[0]));
	tcase_add_test(tc, failed_rewrite_keeps_old);
	suite_add_tcase(s, tc);
	return s;
}
