/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The repair of forks (repair/fix_fork.c, fix_bmbt.c) on the fixture
 * filesystem:
 * - the fork writer: mappings written as an extents fork and as a bmbt
 *   of one and of two levels, read back by the fs layer's bmbt reader
 *   (which checks every block);
 * - a bmbt two levels below the root with a node pointer damaged: every
 *   mapping comes back (siblings' links), with and without an rmapbt;
 * - a mapping's start block moved into free space or onto an AG btree
 *   block: the inode is blamed and its fork mended, not the free space;
 * - a regular file named by the root, its extents damaged (a length
 *   running over the next mapping; a mapping pointed at another file's
 *   blocks) and repaired: with an rmapbt every mapping comes back from
 *   it, without one the damaged mapping alone is dropped; the other file
 *   keeps its blocks; the filesystem then checks clean;
 * - the clone of blocks two files claim without an rmapbt (fix_clone.c):
 *   the other file gets a copy of the blocks' bytes in fresh blocks, the
 *   keeper whichever no problem named, the fix record saying why (the
 *   evidence model's "clone", by "sound" or by nothing); with the free
 *   space taken, the range is left and counted as short.
 * The evidence model itself: test_repair_evidence.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "fs_fixture.h"
#include "ino_fixture.h"
#include "core/layout.h"
#include "fs/alloc.h"
#include "fs/attr.h"
#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/iget.h"
#include "fs/refcount.h"
#include "fs/defer.h"
#include "ondisk/attr_layout.h"
#include "ondisk/dir_block.h"
#include "xfsj/check.h"
#include "xfsj/repair.h"
#include "repair/repair_priv.h"

#define MB	(1ULL << 20)

/* The data fork of @ino as the fs layer reads it (caller frees). */
static size_t read_fork(struct fs_fixture *fx, uint64_t ino,
			struct xfsj_bmbt_irec **ext, uint8_t *format)
{
	struct xfsj_iref ip;
	size_t n = 0;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ck_assert_int_eq(xfsj_bmap_read(fx->fs, &ip, XFSJ_DATA_FORK, ext, &n,
					&fx->f), 0);
	if (format)
		*format = ip.di.format;
	return n;
}

/*
 * @n one-block mappings written through the fork writer into a fork
 * given @nb blocks; read back and compared.  Returns the blocks used.
 */
static size_t fork_write_case(size_t n, size_t nb, uint32_t blocksize,
			      uint8_t want_format)
{
	struct fs_fixture fx;
	struct xfsj_bmbt_irec *m = calloc(n, sizeof(*m)), *back;
	uint64_t *blocks = calloc(nb, sizeof(*blocks));
	struct xfsj_iref ip;
	uint64_t data, ino;
	size_t used = 0, i;
	uint8_t fmt;

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(blocks);
	fs_fixture_make(&fx, 64 * MB, blocksize, 2, false, false);
	struct xrp rp = { .fs = fx.fs, .sb = xfsj_fs_sb(fx.fs) };

	ino = fs_fixture_make_file(&fx, 5, 1, 0, 0, &ip);
	data = fs_fixture_alloc(&fx, 0, (uint32_t)n);
	for (i = 0; i < nb; i++)
		blocks[i] = fs_fixture_alloc(&fx, 0, 1);
	/* One block every other file block: no two merge. */
	for (i = 0; i < n; i++)
		m[i] = (struct xfsj_bmbt_irec){ 2 * i, data + i, 1, false };
	ck_assert_int_eq(xrp_fork_write(&rp, &ip, XFSJ_DATA_FORK, m, n,
					blocks, nb, &used), 0);
	ip.di.nblocks = n + used;
	xfsj_iput(fx.fs, &ip, false);
	fs_fixture_reopen(&fx);
	ck_assert_uint_eq(read_fork(&fx, ino, &back, &fmt), n);
	ck_assert_uint_eq(fmt, want_format);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(back[i].startoff, m[i].startoff);
		ck_assert_uint_eq(back[i].startblock, m[i].startblock);
		ck_assert_uint_eq(back[i].blockcount, 1);
	}
	free(back);
	free(blocks);
	free(m);
	fs_fixture_free(&fx);
	return used;
}

START_TEST(write_extents)
{
	ck_assert_uint_eq(fork_write_case(5, 2, 4096,
					  XFSJ_DINODE_FMT_EXTENTS), 0);
}
END_TEST

START_TEST(write_bmbt)
{
	/* A leaf of a 4k block holds 251 records. */
	ck_assert_uint_eq(fork_write_case(30, 2, 4096,
					  XFSJ_DINODE_FMT_BTREE), 1);
	ck_assert_uint_eq(fork_write_case(300, 2, 4096,
					  XFSJ_DINODE_FMT_BTREE), 2);
}
END_TEST

/*
 * 1k blocks: a leaf holds 59 records and the inode root of a 512-byte
 * inode at most 9 pointers (fewer with the fixture's fork offset), so
 * 2,000 records need leaves under nodes under the root.
 */
START_TEST(write_bmbt_levels)
{
	size_t used = fork_write_case(2000, 64, 1024, XFSJ_DINODE_FMT_BTREE);

	/* 34 leaves, then one node over them. */
	ck_assert_uint_eq(used, 35);
}
END_TEST

/* More leaves than the root can point at: nothing is written. */
START_TEST(write_too_tall)
{
	struct fs_fixture fx;
	struct xfsj_bmbt_irec *m = calloc(6000, sizeof(*m));
	struct xfsj_iref ip;
	uint64_t blocks[1] = { 0 };
	size_t used = 5;

	ck_assert_ptr_nonnull(m);
	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	struct xrp rp = { .fs = fx.fs, .sb = xfsj_fs_sb(fx.fs) };

	fs_fixture_make_file(&fx, 5, 1, 0, 0, &ip);
	for (size_t i = 0; i < 6000; i++)
		m[i] = (struct xfsj_bmbt_irec){ 2 * i, 1000 + i, 1, false };
	ck_assert_int_eq(xrp_fork_write(&rp, &ip, XFSJ_DATA_FORK, m, 6000,
					blocks, 1, &used), 1);
	ck_assert_uint_eq(used, 0);
	ck_assert_uint_eq(ip.di.format, XFSJ_DINODE_FMT_EXTENTS);
	free(m);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A regular file named "a" by the root with @n one-block mappings at
 * every other file block, from *@data on (blocks in a row), settled by a
 * repair so that the check finds nothing.
 */
static uint64_t spread_file(struct fs_fixture *fx, size_t n, uint64_t *data)
{
	struct xfsj_dirent de = { "a", 1, XFSJ_FT_REG, 0 };
	struct xfsj_repair_result res;
	struct xfsj_iref ip;
	uint64_t ino;

	ino = fs_fixture_make_file(fx, 5, 1, 0, 0, &ip);
	ip.di.nlink = 1;
	ip.di.size = 2 * n * fx->sb.blocksize;
	xfsj_iput(fx->fs, &ip, true);
	ino_take(fx, 0, xfsj_ino_agino(&fx->sb, ino));
	*data = fs_fixture_alloc(fx, 0, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		fs_fixture_map(fx, ino, XFSJ_DATA_FORK, 2 * i, *data + i, 1,
			       false);
	de.ino = ino;
	ck_assert_int_eq(xfsj_dir_write(fx->fs, fx->sb.rootino, fx->sb.rootino,
				       &de, 1, false, &fx->f), 0);
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_repair(fx->fs, NULL, NULL, &res), 0);
	ck_assert_uint_eq(fs_fixture_problems(fx), 0);
	return ino;
}

/* ---- repairs ---- */

struct files {
	uint64_t a, b;			/* the damaged file, the other */
	uint64_t afsb[3], bfsb;		/* their extents' first blocks */
};

/*
 * Two regular files named by the root: a with three 4-block extents at
 * offsets 0, 8, 16 (apart on disk), b with one of 4 blocks.
 */
static void make_files(struct fs_fixture *fx, struct files *fl)
{
	struct xfsj_dirent de[2] = {
		{ "a", 1, XFSJ_FT_REG, 0 }, { "b", 1, XFSJ_FT_REG, 0 },
	};
	struct xfsj_repair_result res;
	struct xfsj_iref ip;
	int i;

	fl->a = fs_fixture_make_file(fx, 5, 1, 0, 0, &ip);
	ip.di.nlink = 1;
	ip.di.size = 20 * 4096;
	xfsj_iput(fx->fs, &ip, true);
	fl->b = fs_fixture_make_file(fx, 6, 1, 0, 0, &ip);
	ip.di.nlink = 1;
	ip.di.size = 4 * 4096;
	xfsj_iput(fx->fs, &ip, true);
	ino_take(fx, 0, xfsj_ino_agino(&fx->sb, fl->a));
	ino_take(fx, 0, xfsj_ino_agino(&fx->sb, fl->b));
	for (i = 0; i < 3; i++) {
		fl->afsb[i] = fs_fixture_alloc(fx, 0, 4);
		fs_fixture_map(fx, fl->a, XFSJ_DATA_FORK, 8 * i, fl->afsb[i],
			       4, false);
	}
	fl->bfsb = fs_fixture_alloc(fx, 0, 4);
	fs_fixture_map(fx, fl->b, XFSJ_DATA_FORK, 0, fl->bfsb, 4, false);
	de[0].ino = fl->a;
	de[1].ino = fl->b;
	ck_assert_int_eq(xfsj_dir_write(fx->fs, fx->sb.rootino, fx->sb.rootino,
				       de, 2, false, &fx->f), 0);
	/* The fixture's allocations leave the summary counters behind. */
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_repair(fx->fs, NULL, NULL, &res), 0);
	ck_assert_uint_eq(res.inodes_cleared, 0);
	ck_assert_uint_eq(fs_fixture_problems(fx), 0);
}

/* Record @k of the extents fork of @ino given a new start or length
 * (0: as it was), or flagged unwritten. */
static void edit_rec(struct fs_fixture *fx, uint64_t ino, unsigned int k,
		     uint64_t startblock, uint64_t blockcount, bool unwritten)
{
	struct xfsj_iref ip;
	struct xfsj_bmbt_irec r;
	uint32_t size;
	uint8_t *f;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, true, &ip, &fx->f), 0);
	f = xfsj_ifork(fx->fs, &ip, XFSJ_DATA_FORK, &size);
	xfsj_bmbt_rec_decode(f + k * XFSJ_BMBT_REC_SIZE, &r);
	if (startblock)
		r.startblock = startblock;
	if (blockcount)
		r.blockcount = blockcount;
	if (unwritten)
		r.unwritten = true;
	xfsj_bmbt_rec_encode(&r, f + k * XFSJ_BMBT_REC_SIZE);
	xfsj_iput(fx->fs, &ip, false);
	fs_fixture_reopen(fx);
}

static void damage(struct fs_fixture *fx, uint64_t ino, unsigned int k,
		   uint64_t startblock, uint64_t blockcount)
{
	edit_rec(fx, ino, k, startblock, blockcount, false);
}

static void repair_clean(struct fs_fixture *fx)
{
	struct xfsj_repair_result res;

	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_repair(fx->fs, NULL, NULL, &res), 0);
	ck_assert_uint_eq(res.left, 0);
	ck_assert_uint_ge(res.actions, 1);
	ck_assert_uint_eq(res.inodes_cleared, 0);
	ck_assert_uint_eq(fs_fixture_problems(fx), 0);
}

/* a's extents after the repair: @n of them, the originals but @gone. */
static void expect_a(struct fs_fixture *fx, const struct files *fl,
		     int gone)
{
	struct xfsj_bmbt_irec *e;
	size_t n = read_fork(fx, fl->a, &e, NULL), k = 0;

	ck_assert_uint_eq(n, gone < 0 ? 3 : 2);
	for (int i = 0; i < 3; i++) {
		if (i == gone)
			continue;
		ck_assert_uint_eq(e[k].startoff, 8 * (uint64_t)i);
		ck_assert_uint_eq(e[k].startblock, fl->afsb[i]);
		ck_assert_uint_eq(e[k].blockcount, 4);
		k++;
	}
	free(e);
	n = read_fork(fx, fl->b, &e, NULL);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(e[0].startblock, fl->bfsb);
	free(e);
}

/* Extent 1's length runs over extent 2 (fork.ext_order). */
START_TEST(overlap)
{
	bool rmapbt = _i;
	struct fs_fixture fx;
	struct files fl;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, rmapbt, false);
	make_files(&fx, &fl);
	damage(&fx, fl.a, 1, 0, 12);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	repair_clean(&fx);
	expect_a(&fx, &fl, rmapbt ? -1 : 1);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * Extent 2 of a pointed at extent 1's blocks: one inode claims the same
 * blocks twice (space.multiply_claimed with one owner).  No other owner
 * to give way to, nothing to clone: the later mapping is trimmed (without
 * an rmapbt) or a's mappings come back from the rmapbt; the inode stays.
 */
START_TEST(self_overlap)
{
	bool rmapbt = _i;
	struct fs_fixture fx;
	struct files fl;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, rmapbt, false);
	make_files(&fx, &fl);
	damage(&fx, fl.a, 2, fl.afsb[1], 0);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	repair_clean(&fx);
	expect_a(&fx, &fl, rmapbt ? -1 : 2);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * The same in a bmbt (30 one-block mappings at every other file block,
 * one leaf): record 20 pointed at record 19's block.  Without an rmapbt
 * record 20 goes; with one every mapping comes back.
 */
START_TEST(self_overlap_bmbt)
{
	bool rmapbt = _i;
	const size_t n = 30, bad = 20;
	struct xfsj_bmbt_irec *e, r;
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xfsj_buf *bp;
	uint64_t ino, data, leaf;
	uint32_t size;
	uint8_t *f, fmt;
	size_t k = 0;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, rmapbt, false);
	ino = spread_file(&fx, n, &data);

	/* The root (level 1) names the one leaf. */
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	ck_assert_uint_eq(ip.di.format, XFSJ_DINODE_FMT_BTREE);
	f = xfsj_ifork(fx.fs, &ip, XFSJ_DATA_FORK, &size);
	ck_assert_uint_eq(xfsj_get_be16(f), 1);
	ck_assert_uint_eq(xfsj_get_be16(f + 2), 1);
	leaf = xfsj_get_be64(f + XFSJ_BMDR_HDR_SIZE +
			     (size - XFSJ_BMDR_HDR_SIZE) / 16 * 8);
	ck_assert_int_eq(xfsj_buf_read_ref(fx.fs, xfsj_fsb_daddr(&fx.sb, leaf),
					   4096, &bp), 0);
	ck_assert_uint_eq(xfsj_get_be16((uint8_t *)bp->data + 6), n);
	f = (uint8_t *)bp->data + XFSJ_LBLOCK_HDR_SIZE;
	xfsj_bmbt_rec_decode(f + bad * XFSJ_BMBT_REC_SIZE, &r);
	ck_assert_uint_eq(r.startblock, data + bad);
	r.startblock = data + bad - 1;
	xfsj_bmbt_rec_encode(&r, f + bad * XFSJ_BMBT_REC_SIZE);
	xfsj_buf_dirty(bp);
	xfsj_buf_rele(fx.fs, bp);
	fs_fixture_reopen(&fx);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);

	repair_clean(&fx);
	ck_assert_uint_eq(read_fork(&fx, ino, &e, &fmt), rmapbt ? n : n - 1);
	for (size_t i = 0; i < n; i++) {
		if (i == bad && !rmapbt)
			continue;
		ck_assert_uint_eq(e[k].startoff, 2 * i);
		ck_assert_uint_eq(e[k].startblock, data + i);
		k++;
	}
	free(e);
	fs_fixture_free(&fx);
}
END_TEST

/* The last ownership decision a repair reported (its why). */
struct why_seen {
	unsigned int n;
	struct xfsj_repair_why why;
};

static void on_why(void *arg, const struct xfsj_repair_action *a)
{
	struct why_seen *w = arg;

	if (!a->why)
		return;
	w->n++;
	w->why = *a->why;
}

/* Does @w name exactly the rows @names (@n of them)? */
static void expect_why(const struct why_seen *w, const char *outcome,
		       const char *const *names, unsigned int n)
{
	ck_assert_uint_ge(w->n, 1);
	ck_assert_str_eq(w->why.outcome, outcome);
	ck_assert_uint_eq(w->why.nrows, n);
	for (unsigned int i = 0; i < n; i++)
		ck_assert_str_eq(w->why.rows[i], names[i]);
}

/*
 * Extent 0 of a pointed at b's blocks: claimed twice.  The rmapbt names
 * b: a loses only those blocks and gets its own back from the rmapbt.
 */
START_TEST(cross_link)
{
	struct fs_fixture fx;
	struct files fl;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	make_files(&fx, &fl);
	damage(&fx, fl.a, 0, fl.bfsb, 0);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	{
		/* the model: b keeps, the rmapbt backs b and names b only */
		static const char *const rows[] = { "rmapbt",
						    "rmapbt_other" };
		struct why_seen w = { 0 };
		struct xfsj_repair_cb cb = { .arg = &w, .action = on_why };
		struct xfsj_repair_result res;

		fs_fixture_reopen(&fx);
		ck_assert_int_eq(xfsj_repair(fx.fs, NULL, &cb, &res), 0);
		ck_assert_uint_eq(fs_fixture_problems(&fx), 0);
		expect_why(&w, "keep", rows, 2);
		ck_assert_int_eq(w.why.kept, 8);
		ck_assert_int_eq(w.why.gave_way, -8);
	}
	expect_a(&fx, &fl, -1);
	fs_fixture_free(&fx);
}
END_TEST

/* Fill b's 4 blocks with bytes 0xb0, 0xb1, ... (or check they hold them). */
static void b_bytes(struct fs_fixture *fx, const struct files *fl, bool fill)
{
	for (uint64_t i = 0; i < 4; i++) {
		struct xfsj_buf *bp;
		const uint8_t *d;

		ck_assert_int_eq(xfsj_buf_read_ref(fx->fs,
			xfsj_fsb_daddr(&fx->sb, fl->bfsb + i), 4096, &bp), 0);
		if (fill) {
			memset(bp->data, 0xb0 + (int)i, 4096);
			xfsj_buf_dirty(bp);
		}
		d = bp->data;
		for (size_t k = 0; k < 4096; k++)
			ck_assert_msg(d[k] == 0xb0 + i,
				      "b's block %llu byte %zu is %#x",
				      (unsigned long long)i, k, d[k]);
		xfsj_buf_rele(fx->fs, bp);
	}
	if (fill)
		fs_fixture_reopen(fx);
}

/*
 * a's attribute fork (a leaf of 40 names and one remote value of 4
 * blocks) has its remote value's mapping pointed at b's 4 data blocks,
 * without an rmapbt (the fuzz corpus's 1k-normap bmbt.attr
 * recs[5].startblock, seed 112).  The value fails its check, so the
 * fork is written again from what survives; its old blocks are not
 * freed: b keeps its blocks and their bytes, nothing else is lost.
 */
START_TEST(attr_cross_link)
{
	static uint8_t big[16000];
	struct xfsj_bmbt_irec *e, r;
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct files fl;
	uint32_t size;
	size_t n = 0, k;
	uint8_t *f;
	char name[16];

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	make_files(&fx, &fl);
	b_bytes(&fx, &fl, true);
	memset(big, 'v', sizeof(big));
	ck_assert_int_eq(xfsj_iget(fx.fs, fl.a, true, &ip, &fx.f), 0);
	for (unsigned int i = 0; i <= 40; i++) {
		snprintf(name, sizeof(name), "attr_%03u", i);
		ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip,
			&(struct xfsj_attr_arg){ .name = (uint8_t *)name,
				.namelen = (uint32_t)strlen(name),
				.value = big,
				.valuelen = i == 40 ? sizeof(big) : 30 },
			XFSJ_ATTR_CREATE, &fx.f), 0);
	}
	xfsj_iput(fx.fs, &ip, true);
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	fs_fixture_reopen(&fx);
	{
		struct xfsj_repair_result res;

		ck_assert_int_eq(xfsj_repair(fx.fs, NULL, NULL, &res), 0);
		ck_assert_uint_eq(fs_fixture_problems(&fx), 0);
	}

	/* The remote value's mapping: the extent past the leaf. */
	ck_assert_int_eq(xfsj_iget(fx.fs, fl.a, true, &ip, &fx.f), 0);
	ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_int_eq(xfsj_bmap_read(fx.fs, &ip, XFSJ_ATTR_FORK, &e, &n,
					&fx.f), 0);
	for (k = 0; k < n && e[k].blockcount != 4; k++)
		;
	ck_assert_uint_lt(k, n);
	free(e);
	f = xfsj_ifork(fx.fs, &ip, XFSJ_ATTR_FORK, &size);
	xfsj_bmbt_rec_decode(f + k * XFSJ_BMBT_REC_SIZE, &r);
	r.startblock = fl.bfsb;
	xfsj_bmbt_rec_encode(&r, f + k * XFSJ_BMBT_REC_SIZE);
	xfsj_iput(fx.fs, &ip, false);
	fs_fixture_reopen(&fx);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);

	repair_clean(&fx);
	expect_a(&fx, &fl, -1);
	b_bytes(&fx, &fl, false);
	/* The 40 small attributes are all still there. */
	ck_assert_int_eq(xfsj_iget(fx.fs, fl.a, false, &ip, &fx.f), 0);
	for (unsigned int i = 0; i < 40; i++) {
		uint8_t v[64];
		uint32_t vlen = sizeof(v);
		bool found = false;

		snprintf(name, sizeof(name), "attr_%03u", i);
		ck_assert_int_eq(xfsj_attr_get(fx.fs, &ip,
			&(struct xfsj_attr_arg){ .name = (uint8_t *)name,
				.namelen = (uint32_t)strlen(name) },
			v, &vlen, &found, &fx.f), 0);
		ck_assert_msg(found, "%s lost", name);
		ck_assert_uint_eq(vlen, 30);
	}
	fs_fixture_free(&fx);
}
END_TEST

/*
 * Extent 2 of a pointed at extent 0's blocks, without an rmapbt (the
 * fuzz corpus's 4k-normap inode.extfile u3.bmx[2].startblock): one
 * fork maps the blocks twice, written or unwritten (_i = 1): the
 * lower file offset keeps them.  Only extent 2 loses the range; its own
 * blocks go back to free space.
 */
START_TEST(self_overlap_fuzz)
{
	bool unwritten = _i;
	struct fs_fixture fx;
	struct files fl;
	struct xfsj_iref ip;
	struct xfsj_bmbt_irec r;
	uint32_t size;
	uint8_t *f;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	make_files(&fx, &fl);
	ck_assert_int_eq(xfsj_iget(fx.fs, fl.a, true, &ip, &fx.f), 0);
	f = xfsj_ifork(fx.fs, &ip, XFSJ_DATA_FORK, &size);
	xfsj_bmbt_rec_decode(f + 2 * XFSJ_BMBT_REC_SIZE, &r);
	r.startblock = fl.afsb[0];
	r.unwritten = unwritten;
	xfsj_bmbt_rec_encode(&r, f + 2 * XFSJ_BMBT_REC_SIZE);
	xfsj_iput(fx.fs, &ip, false);
	fs_fixture_reopen(&fx);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	{
		struct xfsj_repair_result res;

		fs_fixture_reopen(&fx);
		ck_assert_int_eq(xfsj_repair(fx.fs, NULL, NULL, &res), 0);
		ck_assert_uint_eq(res.left, 0);
		ck_assert_uint_eq(res.inodes_cleared, 0);
		ck_assert_uint_eq(fs_fixture_problems(&fx), 0);
	}
	expect_a(&fx, &fl, 2);
	ck_assert(fs_fixture_is_free(&fx, fl.afsb[2], 4));
	fs_fixture_free(&fx);
}
END_TEST

/* A length of 0 (fork.ext_len): the record goes, the rest stays. */
START_TEST(zero_length)
{
	struct fs_fixture fx;
	struct files fl;
	struct xfsj_iref ip;
	uint64_t nb;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	make_files(&fx, &fl);
	ck_assert_int_eq(xfsj_iget(fx.fs, fl.a, true, &ip, &fx.f), 0);
	nb = ip.di.nblocks;
	{
		uint32_t size;
		uint8_t *f = xfsj_ifork(fx.fs, &ip, XFSJ_DATA_FORK, &size);
		struct xfsj_bmbt_irec r;

		xfsj_bmbt_rec_decode(f + 2 * XFSJ_BMBT_REC_SIZE, &r);
		r.blockcount = 0;
		xfsj_bmbt_rec_encode(&r, f + 2 * XFSJ_BMBT_REC_SIZE);
		xfsj_iput(fx.fs, &ip, false);
	}
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	repair_clean(&fx);
	expect_a(&fx, &fl, 2);
	ck_assert_int_eq(xfsj_iget(fx.fs, fl.a, true, &ip, &fx.f), 0);
	ck_assert_uint_eq(ip.di.nblocks, nb - 4);
	ck_assert_uint_eq(ip.di.size, 20 * 4096);	/* the size stays */
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A bmbt two levels below the root (1k blocks: 1,500 one-block mappings
 * at every other file block), one pointer of its node damaged: the leaf
 * it named is found again through its siblings' links, so every mapping
 * comes back, with or without an rmapbt, in a tree of the right height.
 */
START_TEST(deep_tree)
{
	bool rmapbt = _i;
	const size_t n = 1500;
	struct fs_fixture fx;
	struct xfsj_bmbt_irec *e;
	struct xfsj_iref ip;
	struct xfsj_buf *bp;
	uint64_t ino, data, node;
	uint32_t size, maxr;
	uint8_t *f, fmt;

	fs_fixture_make(&fx, 64 * MB, 1024, 2, rmapbt, false);
	ino = spread_file(&fx, n, &data);

	/* The root names one node or more: damage its second pointer. */
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	f = xfsj_ifork(fx.fs, &ip, XFSJ_DATA_FORK, &size);
	ck_assert_uint_eq(xfsj_get_be16(f), 2);
	node = xfsj_get_be64(f + XFSJ_BMDR_HDR_SIZE +
			     (size - XFSJ_BMDR_HDR_SIZE) / 16 * 8);
	maxr = xfsj_btree_maxrecs(XFSJ_BT_BMAP, 1024, false);
	ck_assert_int_eq(xfsj_buf_read_ref(fx.fs, xfsj_fsb_daddr(&fx.sb, node),
					   1024, &bp), 0);
	ck_assert_uint_ge(xfsj_get_be16((uint8_t *)bp->data + 6), 3);
	xfsj_put_be64((uint8_t *)bp->data + XFSJ_LBLOCK_HDR_SIZE +
		      (size_t)(maxr + 1) * 8, 5);
	xfsj_buf_dirty(bp);
	xfsj_buf_rele(fx.fs, bp);
	fs_fixture_reopen(&fx);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);

	repair_clean(&fx);
	ck_assert_uint_eq(read_fork(&fx, ino, &e, &fmt), n);
	ck_assert_uint_eq(fmt, XFSJ_DINODE_FMT_BTREE);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(e[i].startoff, 2 * i);
		ck_assert_uint_eq(e[i].startblock, data + i);
	}
	free(e);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	f = xfsj_ifork(fx.fs, &ip, XFSJ_DATA_FORK, &size);
	ck_assert_uint_eq(xfsj_get_be16(f), 2);
	fs_fixture_free(&fx);
}
END_TEST

/* ---- a start block gone wrong ---- */

struct codes {
	const char *want;
	unsigned int n;
};

static void count_code(void *arg, const struct xfsj_problem *p)
{
	struct codes *c = arg;

	c->n += !strcmp(p->def->code, c->want);
}

/* How many problems of @code the check finds. */
static unsigned int code_count(struct fs_fixture *fx, const char *code)
{
	struct codes c = { code, 0 };
	const struct xfsj_check_cb cb = { .arg = &c, .problem = count_code };
	struct xfsj_check_result res;

	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_check(fx->fs, NULL, &cb, &res), 0);
	return c.n;
}

/*
 * Extent 0 of a pointed into free space: the check blames the inode
 * (fork.ext_free, both free space btrees and the rmapbt agree), and the
 * repair mends the fork: with an rmapbt the mapping comes back whole,
 * without one it goes (its blocks were the wrong ones); the free space
 * stays free.
 */
START_TEST(start_in_free_space)
{
	bool rmapbt = _i;
	struct fs_fixture fx;
	struct files fl;
	uint64_t wrong;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, rmapbt, false);
	make_files(&fx, &fl);
	wrong = fl.bfsb + 100;
	ck_assert(fs_fixture_is_free(&fx, wrong, 4));
	damage(&fx, fl.a, 0, wrong, 0);
	ck_assert_uint_eq(code_count(&fx, "fork.ext_free"), 1);
	repair_clean(&fx);
	expect_a(&fx, &fl, rmapbt ? -1 : 0);
	ck_assert(fs_fixture_is_free(&fx, wrong, 4));
	if (rmapbt)
		ck_assert(!fs_fixture_is_free(&fx, fl.afsb[0], 4));
	fs_fixture_free(&fx);
}
END_TEST

/*
 * Extent 0 of a pointed at the bnobt's root block: the rmapbt and the
 * scan both give it to the free space btrees (fork.ext_meta); the fork
 * comes back from the rmapbt and the bnobt is left alone.
 */
START_TEST(start_in_metadata)
{
	struct fs_fixture fx;
	struct files fl;
	struct xfsj_buf *bp;
	struct xfsj_agf agf;
	uint32_t root;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	make_files(&fx, &fl);
	ck_assert_int_eq(xfsj_agf_read(fx.fs, 0, &bp, &fx.f), 0);
	xfsj_agf_decode(bp->data, &agf);
	xfsj_buf_rele(fx.fs, bp);
	root = agf.bno_root;
	damage(&fx, fl.a, 0, xfsj_agb_to_fsb(&fx.sb, 0, root), 1);
	ck_assert_uint_eq(code_count(&fx, "fork.ext_meta"), 1);
	repair_clean(&fx);
	ck_assert_int_eq(xfsj_agf_read(fx.fs, 0, &bp, &fx.f), 0);
	xfsj_agf_decode(bp->data, &agf);
	xfsj_buf_rele(fx.fs, bp);
	ck_assert_uint_eq(agf.bno_root, root);
	expect_a(&fx, &fl, -1);
	fs_fixture_free(&fx);
}
END_TEST

/* ---- clones ---- */

/* Fill block @fsb with bytes of @seed (past the cache: data). */
static void fill_block(struct fs_fixture *fx, uint64_t fsb, unsigned int seed)
{
	uint8_t buf[4096];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(seed * 31 + i % 251);
	ck_assert_int_eq(xfsj_overlay_write(fx->ov, buf, sizeof(buf),
					    xfsj_fsb_daddr(&fx->sb, fsb) << 9),
			 0);
}

/* Does block @fsb hold the bytes fill_block(@seed) wrote? */
static bool block_holds(struct fs_fixture *fx, uint64_t fsb,
			unsigned int seed)
{
	struct xfsj_buf *bp;
	bool same = true;

	ck_assert_int_eq(xfsj_buf_read_ref(fx->fs, xfsj_fsb_daddr(&fx->sb, fsb),
					   4096, &bp), 0);
	for (size_t i = 0; i < 4096 && same; i++)
		same = bp->data[i] == (uint8_t)(seed * 31 + i % 251);
	xfsj_buf_rele(fx->fs, bp);
	return same;
}

/*
 * Without an rmapbt, extent 0 of a pointed at b's blocks (each block of
 * both files filled with bytes of its own).  @suspect_a: a's block count
 * is wrong too (another problem names a), so b keeps the blocks and a
 * gets the copy; else a, the lower inode, keeps them and b gets it.
 * Both files keep every mapping; the copy holds what the blocks held.
 */
START_TEST(cross_link_clone)
{
	bool suspect_a = _i;
	static const char *const sound[] = { "sound" };
	struct why_seen w = { 0 };
	struct xfsj_repair_cb cb = { .arg = &w, .action = on_why };
	struct fs_fixture fx;
	struct files fl;
	struct xfsj_repair_result res;
	struct xfsj_bmbt_irec *e;
	uint64_t copy, kept;
	size_t n;
	unsigned int k;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	make_files(&fx, &fl);
	for (k = 0; k < 4; k++) {
		fill_block(&fx, fl.afsb[0] + k, 10 + k);
		fill_block(&fx, fl.bfsb + k, 20 + k);
	}
	fs_fixture_reopen(&fx);
	damage(&fx, fl.a, 0, fl.bfsb, 0);
	if (suspect_a) {
		struct xfsj_iref ip;

		ck_assert_int_eq(xfsj_iget(fx.fs, fl.a, true, &ip, &fx.f), 0);
		ip.di.nblocks += 3;
		xfsj_iput(fx.fs, &ip, false);
	}
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_repair(fx.fs, NULL, &cb, &res), 0);
	/* a tie: cloned, b keeping it as the sound one, or a as the lower */
	expect_why(&w, "clone", sound, suspect_a ? 1 : 0);
	ck_assert_uint_eq(res.left, 0);
	ck_assert_uint_eq(res.inodes_cleared, 0);
	ck_assert_uint_eq(res.blocks_cloned, 4);
	ck_assert_uint_eq(res.clones_short, 0);
	ck_assert_uint_eq(fs_fixture_problems(&fx), 0);
	/* The copy: the file that gave way maps fresh blocks. */
	n = read_fork(&fx, suspect_a ? fl.a : fl.b, &e, NULL);
	ck_assert_uint_eq(n, suspect_a ? 3 : 1);
	ck_assert_uint_eq(e[0].startoff, 0);
	ck_assert_uint_eq(e[0].blockcount, 4);
	copy = e[0].startblock;
	free(e);
	n = read_fork(&fx, suspect_a ? fl.b : fl.a, &e, NULL);
	ck_assert_uint_eq(n, suspect_a ? 1 : 3);
	kept = e[0].startblock;
	free(e);
	ck_assert_uint_eq(kept, fl.bfsb);
	ck_assert_uint_ne(copy, fl.bfsb);
	ck_assert_uint_ne(copy, fl.afsb[0]);
	for (k = 0; k < 4; k++) {
		ck_assert(block_holds(&fx, copy + k, 20 + k));
		ck_assert(block_holds(&fx, kept + k, 20 + k));
	}
	fs_fixture_free(&fx);
}
END_TEST

/* Extent @k of @ino's data fork flagged unwritten. */
static void set_unwritten(struct fs_fixture *fx, uint64_t ino, unsigned int k)
{
	edit_rec(fx, ino, k, 0, 0, true);
}

/*
 * Without an rmapbt, extent 0 of a pointed at b's blocks, both mapped
 * unwritten (what a salvaged log can leave: two preallocations of one
 * range): a tie nothing else settles, but both read as zeroes, as holes
 * do, so both give the range up (the zeroes row) and the repair ends
 * clean with nothing cleared; a keeps its other two extents.
 */
START_TEST(cross_link_unwritten)
{
	static const char *const zeroes[] = { "zeroes" };
	struct why_seen w = { 0 };
	struct xfsj_repair_cb cb = { .arg = &w, .action = on_why };
	struct fs_fixture fx;
	struct files fl;
	struct xfsj_repair_result res;
	struct xfsj_bmbt_irec *e;
	size_t n;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	make_files(&fx, &fl);
	set_unwritten(&fx, fl.a, 0);
	set_unwritten(&fx, fl.b, 0);
	ck_assert_uint_eq(fs_fixture_problems(&fx), 0);
	damage(&fx, fl.a, 0, fl.bfsb, 0);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_repair(fx.fs, NULL, &cb, &res), 0);
	expect_why(&w, "none", zeroes, 1);
	ck_assert_uint_eq(res.left, 0);
	ck_assert_uint_eq(res.inodes_cleared, 0);
	ck_assert_uint_eq(res.blocks_cloned, 0);
	ck_assert_uint_eq(fs_fixture_problems(&fx), 0);
	n = read_fork(&fx, fl.a, &e, NULL);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(e[0].startoff, 8);
	ck_assert_uint_eq(e[1].startoff, 16);
	free(e);
	n = read_fork(&fx, fl.b, &e, NULL);
	ck_assert_uint_eq(n, 0);
	free(e);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A block 20 files share through the refcountbt (a reflink workload's
 * clones), crossed by a 21st file's unwritten extent (what a salvaged
 * log can leave): 21 claims over the range, more than the 16 the model
 * used to weigh, so the range was left and the repair ended unfinished.
 * Now the written data keeps it (all 20 files still map the block) and
 * the unwritten extent gives way.
 */
START_TEST(crosslink_many_sharers)
{
	enum { SHARERS = 20 };
	static char names[SHARERS + 1][4];
	struct xfsj_dirent d[SHARERS + 1];
	struct fs_fixture fx;
	struct xfsj_repair_result res;
	struct xfsj_bmbt_irec *e;
	struct xfsj_iref ip;
	uint64_t fsb, ino[SHARERS + 1];
	size_t n;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, true);
	fsb = fs_fixture_alloc(&fx, 1, 1);
	for (unsigned int i = 0; i <= SHARERS; i++) {
		bool x = i == SHARERS;

		ino[i] = fs_fixture_make_file(&fx, 10 + i, 1,
					      x ? 0 : XFSJ_DIFLAG2_REFLINK, 0,
					      &ip);
		ip.di.nlink = 1;
		ip.di.size = 4096;
		xfsj_iput(fx.fs, &ip, true);
		ino_take(&fx, 0, xfsj_ino_agino(&fx.sb, ino[i]));
		if (!x)
			fs_fixture_map(&fx, ino[i], XFSJ_DATA_FORK, 0, fsb, 1,
				       false);
		snprintf(names[i], sizeof(names[i]), "f%u", i);
		d[i] = (struct xfsj_dirent){ names[i],
			(uint8_t)strlen(names[i]), XFSJ_FT_REG, ino[i] };
	}
	for (unsigned int i = 1; i < SHARERS; i++)
		ck_assert_int_eq(xfsj_refcount_increase_extent(fx.fs, fsb, 1),
				 0);
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	ck_assert_int_eq(xfsj_dir_write(fx.fs, fx.sb.rootino, fx.sb.rootino,
					d, SHARERS + 1, false, &fx.f), 0);
	fs_fixture_reopen(&fx);
	repair_clean(&fx);	/* the fixture's counters */
	/* The 21st file maps the shared block unwritten. */
	fs_fixture_map(&fx, ino[SHARERS], XFSJ_DATA_FORK, 0, fsb, 1, true);
	ck_assert_uint_gt(fs_fixture_problems(&fx), 0);
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_repair(fx.fs, NULL, NULL, &res), 0);
	ck_assert_uint_eq(res.left, 0);
	ck_assert_uint_eq(res.inodes_cleared, 0);
	ck_assert_uint_eq(fs_fixture_problems(&fx), 0);
	n = read_fork(&fx, ino[SHARERS], &e, NULL);
	ck_assert_uint_eq(n, 0);
	free(e);
	for (unsigned int i = 0; i < SHARERS; i++) {
		n = read_fork(&fx, ino[i], &e, NULL);
		ck_assert_uint_eq(n, 1);
		ck_assert_uint_eq(e[0].startblock, fsb);
		free(e);
	}
	fs_fixture_free(&fx);
}
END_TEST

/* The records xrp_recs_over gave, by their index in the table. */
struct over_seen {
	const struct xfsj_rmap_rec *base;
	size_t n, at[64];
};

static int over_hear(void *arg, const struct xfsj_rmap_rec *r)
{
	struct over_seen *o = arg;

	if (o->n == 64)
		return 7;
	o->at[o->n++] = (size_t)(r - o->base);
	return 0;
}

/*
 * claims_over.c: the records over a range, scanned (the first questions
 * of a round) or by the running ends (the rest), are those a scan of
 * the whole table finds, in table order; a table out of start order is
 * scanned every time and answers the same; a callback's value stops the
 * walk and comes back.
 */
START_TEST(recs_over_equals_scan)
{
	enum { N = 3000, Q = 400 };
	static struct xfsj_rmap_rec rec[N];
	struct xck_ag ag[1];
	struct xck ck;
	struct xrp rp;
	uint32_t r = 777;
	bool sorted = _i == 0;

	for (size_t i = 0; i < N; i++) {
		r = r * 1103515245U + 12345U;
		rec[i] = (struct xfsj_rmap_rec){
			.startblock = sorted ? (uint32_t)(i * 8 + (r >> 29)) :
					       (r >> 12) % 22000,
			/* mostly short, some long enough to span many */
			.blockcount = (r >> 8) % 16 == 0 ? 200 + (r >> 20) % 900 :
				      1 + (r >> 4) % 9,
			.owner = 100 + (r >> 16) % 30 };
	}
	memset(&ck, 0, sizeof(ck));
	memset(ag, 0, sizeof(ag));
	ag[0].claims.v = rec;
	ag[0].claims.n = N;
	ag[0].claims.esz = sizeof(*rec);
	ck.ags = ag;
	ck.agcount = 1;
	rp = (struct xrp){ .ck = &ck };
	for (size_t q = 0; q < Q; q++) {
		struct over_seen got = { .base = rec };
		uint64_t s, e;
		size_t want = 0;
		int rc;

		r = r * 1103515245U + 12345U;
		s = (r >> 8) % 22000;
		e = s + 1 + (r >> 3) % 12;
		rc = xrp_recs_over(&rp, &ag[0], XRP_TAB_CLAIMS, s, e,
				   &(struct xrp_claims_cb){ over_hear, &got });
		for (size_t i = 0; i < N; i++) {
			if (!xrp_claim_over(&rec[i], s, e))
				continue;
			if (want == 64) {
				ck_assert_int_eq(rc, 7);
				break;
			}
			ck_assert_uint_lt(want, got.n);
			ck_assert_uint_eq(got.at[want], i);
			want++;
		}
		if (want < 64) {
			ck_assert_int_eq(rc, 0);
			ck_assert_uint_eq(got.n, want);
		}
	}
	/* Past the first scans the sorted table got its running ends. */
	ck_assert_ptr_nonnull(rp.claims_ix);
	ck_assert(rp.claims_ix[XRP_TAB_CLAIMS].built);
	if (sorted)
		ck_assert_ptr_nonnull(rp.claims_ix[XRP_TAB_CLAIMS].maxend);
	else
		ck_assert_ptr_null(rp.claims_ix[XRP_TAB_CLAIMS].maxend);
	xrp_claims_ix_free(&rp);
	ck_assert_ptr_null(rp.claims_ix);
}
END_TEST

struct of_seen {
	size_t n;
	uint64_t at[256];	/* agno << 32 | index */
	const struct xck_ag *ags;
};

static int of_hear(void *arg, uint32_t agno, const struct xfsj_rmap_rec *r)
{
	struct of_seen *o = arg;
	const struct xfsj_rmap_rec *base = o->ags[agno].claims.v;

	ck_assert_uint_lt(o->n, 256);
	o->at[o->n++] = (uint64_t)agno << 32 | (uint64_t)(r - base);
	return 0;
}

/* The records of one owner, scanned or from the copy by owner: the same,
 * by AG then in table order. */
START_TEST(recs_of_equals_scan)
{
	enum { N = 1500, OWNERS = 60 };
	static struct xfsj_rmap_rec rec[2][N];
	struct xck_ag ag[2];
	struct xck ck;
	struct xrp rp;
	uint32_t r = 4242;

	memset(ag, 0, sizeof(ag));
	for (int a = 0; a < 2; a++) {
		for (size_t i = 0; i < N; i++) {
			r = r * 1103515245U + 12345U;
			rec[a][i] = (struct xfsj_rmap_rec){
				.startblock = (uint32_t)i, .blockcount = 1,
				.owner = 100 + (r >> 16) % OWNERS };
		}
		ag[a].agno = (uint32_t)a;
		ag[a].claims.v = rec[a];
		ag[a].claims.n = N;
		ag[a].claims.esz = sizeof(rec[a][0]);
	}
	memset(&ck, 0, sizeof(ck));
	ck.ags = ag;
	ck.agcount = 2;
	rp = (struct xrp){ .ck = &ck };
	for (size_t q = 0; q < OWNERS + 2; q++) {
		struct of_seen got = { .ags = ag };
		uint64_t owner = 99 + q;
		size_t want = 0;

		ck_assert_int_eq(xrp_recs_of(&rp, XRP_TAB_CLAIMS, owner,
			&(struct xrp_owned_cb){ of_hear, &got }), 0);
		for (int a = 0; a < 2; a++)
			for (size_t i = 0; i < N; i++)
				if (rec[a][i].owner == owner) {
					ck_assert_uint_lt(want, got.n);
					ck_assert_uint_eq(got.at[want],
						(uint64_t)a << 32 | i);
					want++;
				}
		ck_assert_uint_eq(got.n, want);
	}
	ck_assert(rp.by_owner[XRP_TAB_CLAIMS].built);
	ck_assert_ptr_nonnull(rp.by_owner[XRP_TAB_CLAIMS].v);
	xrp_claims_ix_free(&rp);
	ck_assert_ptr_null(rp.by_owner[XRP_TAB_CLAIMS].v);
}
END_TEST

/*
 * xrp_refc_from (the refcount lookups of the fork fixes and the evidence
 * model): on a sorted table of records apart, with gaps and CoW staging
 * records last, the first record ending past s, for every s, is the one a
 * scan finds.
 */
START_TEST(refc_from_equals_scan)
{
	enum { N = 400 };
	static struct xfsj_refc_rec rec[N];
	struct xck_ag ag;
	uint32_t at = 10, top = 0, r = 99;

	memset(&ag, 0, sizeof(ag));
	for (size_t i = 0; i < N; i++) {
		r = r * 1103515245U + 12345U;
		if (i == N - 20) {
			top = at;
			at = 5;		/* the CoW staging domain */
		}
		rec[i] = (struct xfsj_refc_rec){
			.startblock = at | (i >= N - 20 ? XFSJ_REFC_COWFLAG : 0),
			.blockcount = 1 + (r >> 16) % 7,
			.refcount = 1 + (r >> 20) % 3 };
		at += rec[i].blockcount + (r >> 24) % 3;
	}
	ag.refcs.v = rec;
	ag.refcs.n = N;
	ag.refcs.esz = sizeof(rec[0]);
	for (uint64_t q = 0; q < top + 20; q++) {
		size_t want = 0;

		while (want < N && (uint64_t)rec[want].startblock +
		       rec[want].blockcount <= q)
			want++;
		ck_assert_uint_eq(xrp_refc_from(&ag, q), want);
	}
	ck_assert_uint_eq(xrp_refc_from(&ag, (uint64_t)UINT32_MAX + 9), N);
}
END_TEST

/*
 * The same cross-link with every free block of both AGs (and a's own
 * blocks) given to a third file first: no room for the copy.  The range is left (both files keep
 * their mappings), said in the result; nothing is cleared.
 */
START_TEST(clone_no_space)
{
	struct fs_fixture fx;
	struct files fl;
	struct xfsj_repair_result res;
	struct xfsj_iref ip;
	uint64_t c, off = 0;
	uint32_t agno, len, agbno;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	make_files(&fx, &fl);
	struct xfsj_dirent de[3] = {
		{ "a", 1, XFSJ_FT_REG, fl.a }, { "b", 1, XFSJ_FT_REG, fl.b },
		{ "c", 1, XFSJ_FT_REG, 0 },
	};
	struct xfsj_bmbt_irec *e;

	c = fs_fixture_make_file(&fx, 7, 1, 0, 0, &ip);
	ip.di.nlink = 1;
	xfsj_iput(fx.fs, &ip, true);
	ino_take(&fx, 0, xfsj_ino_agino(&fx.sb, c));
	de[2].ino = c;
	ck_assert_int_eq(xfsj_dir_write(fx.fs, fx.sb.rootino, fx.sb.rootino,
				       de, 3, false, &fx.f), 0);
	for (agno = 0; agno < 2; agno++)
		for (len = 1U << 16; len; len /= 2)
			while (!xfsj_alloc_extent(fx.fs, agno, 0, len, NULL,
						  &agbno, &fx.f)) {
				fs_fixture_map(&fx, c, XFSJ_DATA_FORK, off,
					       xfsj_agb_to_fsb(&fx.sb, agno,
							       agbno), len,
					       false);
				off += len;
			}
	/* a's own blocks, which the damage leaves to nobody, to c too (else
	 * the AG stage gives them back and a later round copies into them). */
	fs_fixture_map(&fx, c, XFSJ_DATA_FORK, off, fl.afsb[0], 4, false);
	fs_fixture_reopen(&fx);
	damage(&fx, fl.a, 0, fl.bfsb, 0);
	ck_assert_int_eq(xfsj_repair(fx.fs, NULL, NULL, &res), 0);
	ck_assert_uint_ge(res.left, 1);
	ck_assert_uint_eq(res.inodes_cleared, 0);
	ck_assert_uint_eq(res.blocks_cloned, 0);
	ck_assert_uint_eq(res.clones_short, 1);
	/* Both keep their mappings. */
	ck_assert_uint_eq(read_fork(&fx, fl.a, &e, NULL), 3);
	ck_assert_uint_eq(e[0].startblock, fl.bfsb);
	free(e);
	ck_assert_uint_eq(read_fork(&fx, fl.b, &e, NULL), 1);
	ck_assert_uint_eq(e[0].startblock, fl.bfsb);
	free(e);
	fs_fixture_free(&fx);
}
END_TEST

Suite *repair_fork_suite(void)
{
	Suite *s = suite_create("repair_fork");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, write_extents);
	tcase_add_test(tc, write_bmbt);
	tcase_add_test(tc, write_bmbt_levels);
	tcase_add_test(tc, write_too_tall);
	tcase_add_loop_test(tc, overlap, 0, 2);
	tcase_add_test(tc, cross_link);
	tcase_add_test(tc, attr_cross_link);
	tcase_add_loop_test(tc, self_overlap, 0, 2);
	tcase_add_loop_test(tc, self_overlap_bmbt, 0, 2);
	tcase_add_test(tc, zero_length);
	tcase_add_loop_test(tc, deep_tree, 0, 2);
	tcase_add_loop_test(tc, start_in_free_space, 0, 2);
	tcase_add_test(tc, start_in_metadata);
	tcase_add_loop_test(tc, cross_link_clone, 0, 2);
	tcase_add_test(tc, cross_link_unwritten);
	tcase_add_test(tc, crosslink_many_sharers);
	tcase_add_loop_test(tc, recs_over_equals_scan, 0, 2);
	tcase_add_test(tc, recs_of_equals_scan);
	tcase_add_test(tc, refc_from_equals_scan);
	tcase_add_test(tc, clone_no_space);
	tcase_add_loop_test(tc, self_overlap_fuzz, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
