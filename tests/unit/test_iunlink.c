/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unlinked-inode processing on a fresh in-memory filesystem: inodes are
 * made by hand (inobt/finobt bits, AGI counts, extents allocated with the
 * allocator, the core written directly), hung on AGI buckets, and then
 * finished by xfsj_iunlink_process.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ino_fixture.h"
#include "suites.h"
#include "fs/alloc.h"
#include "fs/btree.h"
#include "core/crc32c.h"
#include "fs/defer.h"
#include "fs/ialloc.h"
#include "fs/iunlink.h"

#define MB (1ULL << 20)

struct text {
	uint64_t off;
	uint64_t fsb;
	uint32_t len;
	bool unwritten;
};

static const struct xfsj_sb *SB(struct fs_fixture *fx)
{
	return xfsj_fs_sb(fx->fs);
}

static uint32_t root_chunk(struct fs_fixture *fx)
{
	return xfsj_ino_agino(&fx->sb, fx->sb.rootino);
}

static void rec_put(uint8_t *p, const struct text *e)
{
	xfsj_put_be64(p, (uint64_t)e->unwritten << 63 | e->off << 9 |
			 e->fsb >> 43);
	xfsj_put_be64(p + 8, e->fsb << 21 | e->len);
}

/* Allocate @n extents of @len blocks for @ino at file offsets 0, 2*len.. */
static void alloc_extents(struct fs_fixture *fx, uint64_t ino, uint32_t agno,
			  uint32_t near, bool attr, struct text *e, int n,
			  uint32_t len)
{
	for (int i = 0; i < n; i++) {
		struct xfsj_owner oi = { .owner = ino,
					 .offset = (uint64_t)i * 2 * len,
					 .attr_fork = attr };
		uint32_t agbno;

		ck_assert_int_eq(xfsj_alloc_extent(fx->fs, agno, near, len,
						   &oi, &agbno, &fx->f), 0);
		e[i].off = oi.offset;
		e[i].fsb = xfsj_agb_to_fsb(SB(fx), agno, agbno);
		e[i].len = len;
		e[i].unwritten = false;
	}
}

/* Write a regular-file inode with the given extent lists. */
static void write_file(struct fs_fixture *fx, uint64_t ino, uint32_t nlink,
		       uint32_t next, const struct text *de, int nd,
		       const struct text *ae, int na, uint64_t flags2)
{
	const struct xfsj_sb *sb = SB(fx);
	struct xfsj_buf *bp;
	uint8_t *p = ino_ptr(fx, ino, &bp);
	struct xfsj_dinode di;
	uint64_t nblocks = 0;

	dinode_base(fx, ino, &di);
	di.mode = S_IFREG | 0644;
	di.nlink = nlink;
	di.next_unlinked = next;
	di.flags2 |= flags2;
	di.size = 123456;
	for (int i = 0; i < nd; i++) {
		rec_put(p + XFSJ_DINODE_CORE_SIZE + 16 * i, &de[i]);
		nblocks += de[i].len;
	}
	if (di.flags2 & XFSJ_DIFLAG2_NREXT64)
		di.big_nextents = (uint64_t)nd;
	else
		di.nextents = (uint32_t)nd;
	if (ae) {
		di.forkoff = (uint8_t)((sb->inodesize - XFSJ_DINODE_CORE_SIZE) /
				       16);	/* half the literal area, in 8s */
		for (int i = 0; i < na; i++) {
			rec_put(p + XFSJ_DINODE_CORE_SIZE + di.forkoff * 8 +
				16 * i, &ae[i]);
			nblocks += ae[i].len;
		}
		if (di.flags2 & XFSJ_DIFLAG2_NREXT64)
			di.nextents = (uint32_t)na;
		else
			di.anextents = (uint16_t)na;
	}
	di.nblocks = nblocks;
	xfsj_dinode_encode(&di, p);
	xfsj_dinode_finish(p, sb->inodesize);
	xfsj_buf_dirty(bp);
}

static int count_owner_fn(struct xfsj_btree_cur *cur,
			  const union xfsj_btree_irec *rec, void *arg)
{
	uint64_t *a = arg;

	(void)cur;
	if (rec->r.owner == a[0])
		a[1]++;
	return 0;
}

/* Reverse mappings owned by @owner in AG @agno. */
static uint64_t rmaps_of(struct fs_fixture *fx, uint32_t agno, uint64_t owner)
{
	struct xfsj_btree_cur *cur;
	uint64_t a[2] = { owner, 0 };

	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_RMAP, agno, NULL,
					    &fx->f, &cur), 0);
	ck_assert_int_eq(xfsj_btree_query_all(cur, count_owner_fn, a), 0);
	xfsj_btree_cur_free(cur);
	return a[1];
}

static void check_trees(struct fs_fixture *fx, uint32_t agno)
{
	static const enum xfsj_btnum bts[] = {
		XFSJ_BT_BNO, XFSJ_BT_CNT, XFSJ_BT_INO, XFSJ_BT_FINO,
		XFSJ_BT_RMAP, XFSJ_BT_REFC,
	};

	for (size_t i = 0; i < sizeof(bts) / sizeof(bts[0]); i++) {
		struct xfsj_btree_cur *cur;

		if (bts[i] == XFSJ_BT_RMAP &&
		    !xfsj_fs_has(fx->fs, XFSJ_RO_COMPAT_RMAPBT))
			continue;
		if (bts[i] == XFSJ_BT_REFC &&
		    !xfsj_fs_has(fx->fs, XFSJ_RO_COMPAT_REFLINK))
			continue;
		ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, bts[i], agno, NULL,
						    &fx->f, &cur), 0);
		ck_assert_msg(xfsj_btree_check(cur) == 0, "tree %d: %s %s",
			      (int)bts[i], fx->f.structure, fx->f.field);
		xfsj_btree_cur_free(cur);
	}
}

static void assert_freed_inode(struct fs_fixture *fx, uint64_t ino,
			       uint32_t gen)
{
	struct xfsj_vctx c;
	struct xfsj_dinode di;
	uint8_t *p = ino_ptr(fx, ino, NULL);
	uint32_t agno = xfsj_ino_agno(SB(fx), ino);

	xfsj_fs_vctx(fx->fs, agno, &c);
	ck_assert_int_eq(xfsj_dinode_verify(p, &c, ino, 0, &fx->f), 0);
	xfsj_dinode_decode(p, &di);
	ck_assert_uint_eq(di.mode, 0);
	ck_assert_uint_eq(di.gen, gen + 1);
	ck_assert_uint_eq(di.next_unlinked, XFSJ_NULLAGINO);
	ck_assert_uint_eq(di.nblocks, 0);
	ck_assert_uint_eq(di.size, 0);
	ck_assert_uint_eq(di.forkoff, 0);
	ck_assert_uint_eq(di.format, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_uint_eq(di.aformat, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_uint_eq(xfsj_dinode_nextents(&di), 0);
	ck_assert_uint_eq(xfsj_dinode_anextents(&di), 0);
	ck_assert_uint_eq(di.flags2 & XFSJ_DIFLAG2_REFLINK, 0);
}

static void run(struct fs_fixture *fx, struct xfsj_iunlink_stats *st)
{
	int err = xfsj_iunlink_process(fx->fs, st, &fx->f);

	ck_assert_msg(err == 0, "process: %s: %s %s @%llu (%llu)",
		      xfsj_strerror(err), fx->f.structure, fx->f.field,
		      (unsigned long long)fx->f.offset,
		      (unsigned long long)fx->f.value);
}

/* One regular file with data and attribute extents in the root chunk. */
static void one_file(bool rmapbt)
{
	struct fs_fixture fx;
	struct xfsj_iunlink_stats st;
	struct xfsj_inobt_rec before, ir;
	struct xfsj_agi agi0, agi;
	struct text de[3], ae[1];
	uint32_t agino;
	uint64_t ino;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, rmapbt, false);
	agino = root_chunk(&fx) + 5;
	ino = xfsj_agino_to_ino(SB(&fx), 0, agino);
	agi_get(&fx, 0, &agi0);
	ck_assert(ibt_rec(&fx, XFSJ_BT_INO, 0, agino, &before));
	ino_take(&fx, 0, agino);
	alloc_extents(&fx, ino, 0, 200, false, de, 3, 4);
	alloc_extents(&fx, ino, 0, 300, true, ae, 1, 1);
	write_file(&fx, ino, 0, XFSJ_NULLAGINO, de, 3, ae, 1, 0);
	set_bucket(&fx, 0, agino % 64, agino);
	fs_fixture_reopen(&fx);
	if (rmapbt)
		ck_assert_uint_eq(rmaps_of(&fx, 0, ino), 4);

	run(&fx, &st);
	ck_assert_uint_eq(st.inodes, 1);
	ck_assert_uint_eq(st.freed, 1);
	ck_assert_uint_eq(st.blocks, 13);
	ck_assert_uint_eq(st.chunks, 0);
	fs_fixture_reopen(&fx);
	for (int i = 0; i < 3; i++)
		ck_assert(fs_fixture_is_free(&fx, de[i].fsb, de[i].len));
	ck_assert(fs_fixture_is_free(&fx, ae[0].fsb, 1));
	if (rmapbt)
		ck_assert_uint_eq(rmaps_of(&fx, 0, ino), 0);
	ck_assert_uint_eq(get_bucket(&fx, 0, agino % 64), XFSJ_NULLAGINO);
	ck_assert(ibt_rec(&fx, XFSJ_BT_INO, 0, agino, &ir));
	ck_assert_uint_eq(ir.free, before.free);
	ck_assert_uint_eq(ir.freecount, before.freecount);
	ck_assert(ibt_rec(&fx, XFSJ_BT_FINO, 0, agino, &ir));
	ck_assert_uint_eq(ir.free, before.free);
	agi_get(&fx, 0, &agi);
	ck_assert_uint_eq(agi.count, agi0.count);
	ck_assert_uint_eq(agi.freecount, agi0.freecount);
	assert_freed_inode(&fx, ino, 7);
	check_trees(&fx, 0);
	fs_fixture_free(&fx);
}

START_TEST(test_one_file_rmap)
{
	one_file(true);
}
END_TEST

START_TEST(test_one_file_normap)
{
	one_file(false);
}
END_TEST

/*
 * Three inodes in one bucket: the root chunk's, one in a chunk that keeps
 * another inode in use, one alone in its chunk (which is freed).
 */
START_TEST(test_chain_and_chunk)
{
	struct fs_fixture fx;
	struct xfsj_iunlink_stats st;
	struct xfsj_agi agi0, agi;
	struct xfsj_inobt_rec ir;
	struct text e[3][2];
	uint32_t ag[3], c1, c2;
	uint64_t ino[3];
	const unsigned int slot = 9;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	agi_get(&fx, 0, &agi0);
	c1 = make_chunk(&fx, 0, 1024);
	c2 = make_chunk(&fx, 0, 1032);
	ag[0] = root_chunk(&fx) + slot;
	ag[1] = c1 + slot;
	ag[2] = c2 + slot;
	ck_assert_uint_eq(ag[0] % 64, ag[1] % 64);
	ck_assert_uint_eq(ag[0] % 64, ag[2] % 64);
	for (int i = 0; i < 3; i++) {
		ino[i] = xfsj_agino_to_ino(SB(&fx), 0, ag[i]);
		ino_take(&fx, 0, ag[i]);
		alloc_extents(&fx, ino[i], 0, 2000 + 100 * i, false, e[i], 2, 3);
	}
	/* Keeps chunk 1 alive. */
	ino_take(&fx, 0, c1 + 10);
	for (int i = 0; i < 3; i++)
		write_file(&fx, ino[i], 0, i < 2 ? ag[i + 1] : XFSJ_NULLAGINO,
			   e[i], 2, NULL, 0, 0);
	set_bucket(&fx, 0, ag[0] % 64, ag[0]);
	fs_fixture_reopen(&fx);

	run(&fx, &st);
	ck_assert_uint_eq(st.inodes, 3);
	ck_assert_uint_eq(st.freed, 3);
	ck_assert_uint_eq(st.blocks, 18);
	ck_assert_uint_eq(st.chunks, 1);
	fs_fixture_reopen(&fx);
	ck_assert_uint_eq(get_bucket(&fx, 0, ag[0] % 64), XFSJ_NULLAGINO);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++)
			ck_assert(fs_fixture_is_free(&fx, e[i][j].fsb, e[i][j].len));
	ck_assert(fs_fixture_is_free(&fx, xfsj_agb_to_fsb(SB(&fx), 0,
					     c2 >> SB(&fx)->inopblog), 8));
	ck_assert(!fs_fixture_is_free(&fx, xfsj_agb_to_fsb(SB(&fx), 0,
					      c1 >> SB(&fx)->inopblog), 1));
	ck_assert(!ibt_rec(&fx, XFSJ_BT_INO, 0, c2, &ir) ||
		  ir.startino != c2);
	ck_assert(!ibt_rec(&fx, XFSJ_BT_FINO, 0, c2, &ir) ||
		  ir.startino != c2);
	ck_assert(ibt_rec(&fx, XFSJ_BT_INO, 0, c1, &ir));
	ck_assert_uint_eq(ir.freecount, 63);
	ck_assert_uint_eq(ir.free, ~(1ULL << 10));
	agi_get(&fx, 0, &agi);
	/* Chunk 1 stays (64 inodes, one in use); chunk 2 is gone. */
	ck_assert_uint_eq(agi.count, agi0.count + 64);
	ck_assert_uint_eq(agi.freecount, agi0.freecount + 63);
	ck_assert_uint_eq(rmaps_of(&fx, 0, ino[0]), 0);
	ck_assert_uint_eq(rmaps_of(&fx, 0, ino[2]), 0);
	assert_freed_inode(&fx, ino[0], 7);
	assert_freed_inode(&fx, ino[1], 7);
	check_trees(&fx, 0);
	fs_fixture_free(&fx);
}
END_TEST

/* A linked inode on a list stays there; the one after it is freed. */
START_TEST(test_linked_stays)
{
	struct fs_fixture fx;
	struct xfsj_iunlink_stats st;
	struct xfsj_dinode di;
	struct text e[1];
	uint32_t c1, a, b;
	uint64_t ia, ib;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	c1 = make_chunk(&fx, 0, 1024);
	a = root_chunk(&fx) + 20;
	b = c1 + 20;
	ia = xfsj_agino_to_ino(SB(&fx), 0, a);
	ib = xfsj_agino_to_ino(SB(&fx), 0, b);
	ino_take(&fx, 0, a);
	ino_take(&fx, 0, b);
	alloc_extents(&fx, ib, 0, 3000, false, e, 1, 2);
	write_file(&fx, ia, 1, b, NULL, 0, NULL, 0, 0);
	write_file(&fx, ib, 0, XFSJ_NULLAGINO, e, 1, NULL, 0, 0);
	set_bucket(&fx, 0, a % 64, a);
	fs_fixture_reopen(&fx);

	run(&fx, &st);
	ck_assert_uint_eq(st.inodes, 1);
	ck_assert_uint_eq(st.chunks, 1);
	fs_fixture_reopen(&fx);
	ck_assert_uint_eq(get_bucket(&fx, 0, a % 64), a);
	ino_get(&fx, ia, &di);
	ck_assert_uint_eq(di.next_unlinked, XFSJ_NULLAGINO);
	ck_assert_uint_eq(di.mode, S_IFREG | 0644);
	ck_assert(fs_fixture_is_free(&fx, e[0].fsb, 2));
	ck_assert(fs_fixture_is_free(&fx, xfsj_agb_to_fsb(SB(&fx), 0,
					     c1 >> SB(&fx)->inopblog), 8));
	check_trees(&fx, 0);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A -> B -> A: A and B are finished, then A turns up again (free now):
 * the walk stops there and the bucket is emptied, as the kernel does.
 */
START_TEST(test_loop_refused)
{
	struct fs_fixture fx;
	struct xfsj_iunlink_stats st;
	struct xfsj_dinode di;
	uint32_t c1, a, b;
	uint64_t ia, ib;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	c1 = make_chunk(&fx, 0, 1024);
	a = root_chunk(&fx) + 7;
	b = c1 + 7;
	ia = xfsj_agino_to_ino(SB(&fx), 0, a);
	ib = xfsj_agino_to_ino(SB(&fx), 0, b);
	ino_take(&fx, 0, a);
	ino_take(&fx, 0, b);
	write_file(&fx, ia, 0, b, NULL, 0, NULL, 0, 0);
	write_file(&fx, ib, 0, a, NULL, 0, NULL, 0, 0);
	set_bucket(&fx, 0, a % 64, a);
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_iunlink_process(fx.fs, &st, &fx.f), 0);
	ck_assert_uint_eq(st.buckets_cleared, 1);
	ck_assert_uint_eq(st.freed, 2);
	ck_assert_ptr_nonnull(st.bad.structure);
	fs_fixture_reopen(&fx);
	ino_get(&fx, ia, &di);
	ck_assert_uint_eq(di.mode, 0);
	ck_assert_uint_eq(get_bucket(&fx, 0, a % 64), XFSJ_NULLAGINO);
	fs_fixture_free(&fx);
}
END_TEST

/* Pointers into the wrong bucket, outside the AG, at a corrupt inode. */
START_TEST(test_bad_lists_refused)
{
	struct fs_fixture fx;
	struct xfsj_iunlink_stats st;
	uint32_t a;
	uint64_t ia;
	uint8_t *p;
	struct xfsj_buf *bp;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	a = root_chunk(&fx) + 11;
	ia = xfsj_agino_to_ino(SB(&fx), 0, a);
	ino_take(&fx, 0, a);
	write_file(&fx, ia, 0, XFSJ_NULLAGINO, NULL, 0, NULL, 0, 0);

	/* Each bad list is emptied, the problem named, the inode kept. */
	set_bucket(&fx, 0, (a + 1) % 64, a);
	ck_assert_int_eq(xfsj_iunlink_process(fx.fs, &st, &fx.f), 0);
	ck_assert_uint_eq(st.buckets_cleared, 1);
	ck_assert_str_eq(st.bad.field, "next_unlinked");
	ck_assert_uint_eq(st.bad_bucket, (a + 1) % 64);
	ck_assert_uint_eq(get_bucket(&fx, 0, (a + 1) % 64), XFSJ_NULLAGINO);

	set_bucket(&fx, 0, 3, 0x7fffff03);
	ck_assert_int_eq(xfsj_iunlink_process(fx.fs, &st, &fx.f), 0);
	ck_assert_uint_eq(st.buckets_cleared, 1);
	ck_assert_uint_eq(get_bucket(&fx, 0, 3), XFSJ_NULLAGINO);

	/* A free inode on a list. */
	set_bucket(&fx, 0, (a + 1) % 64, a + 1);
	ck_assert_int_eq(xfsj_iunlink_process(fx.fs, &st, &fx.f), 0);
	ck_assert_uint_eq(st.buckets_cleared, 1);
	ck_assert_uint_eq(st.freed, 0);

	/* A bad CRC names the inode. */
	p = ino_ptr(&fx, ia, &bp);
	p[200] ^= 1;
	set_bucket(&fx, 0, a % 64, a);
	ck_assert_int_eq(xfsj_iunlink_process(fx.fs, &st, &fx.f), 0);
	ck_assert_uint_eq(st.buckets_cleared, 1);
	ck_assert_int_eq(st.bad.err, XFSJ_E_BADCRC);
	ck_assert_str_eq(st.bad.structure, "inode");
	set_bucket(&fx, 0, a % 64, a);
	p[200] ^= 1;
	run(&fx, &st);
	ck_assert_uint_eq(st.freed, 1);
	fs_fixture_free(&fx);
}
END_TEST

static void put_lblock(struct fs_fixture *fx, uint64_t fsb, uint16_t level,
		       uint16_t numrecs, uint64_t left, uint64_t right,
		       uint64_t ino, uint8_t **body)
{
	const struct xfsj_sb *sb = SB(fx);
	struct xfsj_lblock h;
	struct xfsj_buf *bp;

	ck_assert_int_eq(xfsj_buf_get_zero(fx->fs,
			xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
					  xfsj_fsb_agbno(sb, fsb)),
			sb->blocksize, &bp), 0);
	memset(&h, 0, sizeof(h));
	h.magic = XFSJ_BMAP_MAGIC;
	h.level = level;
	h.numrecs = numrecs;
	h.leftsib = left;
	h.rightsib = right;
	h.blkno = bp->daddr;
	h.owner = ino;
	memcpy(h.uuid, sb->uuid, 16);
	xfsj_lblock_encode(&h, bp->data);
	*body = bp->data;
}

/*
 * A data fork in btree format, 30 one-block extents in two leaves of 15;
 * with @node, a node level between the inode root and the leaves.
 */
static void btree_fork(bool node)
{
	struct fs_fixture fx;
	struct xfsj_iunlink_stats st;
	const struct xfsj_sb *sb;
	struct text e[30];
	uint64_t blk[3], ino;
	struct xfsj_dinode di;
	struct xfsj_buf *bp;
	uint32_t agino, dmaxr, nmaxr;
	uint8_t *p, *body;
	struct xfsj_vctx c;
	int nblk = node ? 3 : 2;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	sb = &fx.sb;
	agino = root_chunk(&fx) + 12;
	ino = xfsj_agino_to_ino(sb, 0, agino);
	ino_take(&fx, 0, agino);
	alloc_extents(&fx, ino, 0, 4000, false, e, 30, 1);
	for (int l = 0; l < nblk; l++) {
		struct xfsj_owner oi = { .owner = ino, .bmbt_block = true };
		uint32_t agbno;

		ck_assert_int_eq(xfsj_alloc_extent(fx.fs, 0, 5000, 1, &oi,
						   &agbno, &fx.f), 0);
		blk[l] = xfsj_agb_to_fsb(sb, 0, agbno);
	}
	for (int l = 0; l < 2; l++) {
		put_lblock(&fx, blk[l], 0, 15, l ? blk[0] : XFSJ_NULLFSBLOCK,
			   l ? XFSJ_NULLFSBLOCK : blk[1], ino, &body);
		for (int i = 0; i < 15; i++)
			rec_put(body + XFSJ_LBLOCK_HDR_SIZE + 16 * i,
				&e[l * 15 + i]);
		xfsj_btree_block_finish(body, sb->blocksize, true);
	}
	if (node) {
		nmaxr = xfsj_btree_maxrecs(XFSJ_BT_BMAP, sb->blocksize, false);
		put_lblock(&fx, blk[2], 1, 2, XFSJ_NULLFSBLOCK,
			   XFSJ_NULLFSBLOCK, ino, &body);
		for (int l = 0; l < 2; l++) {
			xfsj_put_be64(body + XFSJ_LBLOCK_HDR_SIZE + 8 * l,
				      e[l * 15].off);
			xfsj_put_be64(body + XFSJ_LBLOCK_HDR_SIZE + 8 * nmaxr +
				      8 * l, blk[l]);
		}
		xfsj_btree_block_finish(body, sb->blocksize, true);
	}
	p = ino_ptr(&fx, ino, &bp);
	dinode_base(&fx, ino, &di);
	di.mode = S_IFREG | 0600;
	di.format = XFSJ_DINODE_FMT_BTREE;
	di.size = 1 << 20;
	di.nblocks = 30 + (uint64_t)nblk;
	if (di.flags2 & XFSJ_DIFLAG2_NREXT64)
		di.big_nextents = 30;
	else
		di.nextents = 30;
	dmaxr = (sb->inodesize - XFSJ_DINODE_CORE_SIZE - 4) / 16;
	memset(p + XFSJ_DINODE_CORE_SIZE, 0,
	       sb->inodesize - XFSJ_DINODE_CORE_SIZE);
	if (node) {
		xfsj_put_be16(p + XFSJ_DINODE_CORE_SIZE, 2);
		xfsj_put_be16(p + XFSJ_DINODE_CORE_SIZE + 2, 1);
		xfsj_put_be64(p + XFSJ_DINODE_CORE_SIZE + 4, e[0].off);
		xfsj_put_be64(p + XFSJ_DINODE_CORE_SIZE + 4 + 8 * dmaxr,
			      blk[2]);
	} else {
		xfsj_put_be16(p + XFSJ_DINODE_CORE_SIZE, 1);
		xfsj_put_be16(p + XFSJ_DINODE_CORE_SIZE + 2, 2);
		for (int l = 0; l < 2; l++) {
			xfsj_put_be64(p + XFSJ_DINODE_CORE_SIZE + 4 + 8 * l,
				      e[l * 15].off);
			xfsj_put_be64(p + XFSJ_DINODE_CORE_SIZE + 4 +
				      8 * dmaxr + 8 * l, blk[l]);
		}
	}
	xfsj_dinode_encode(&di, p);
	xfsj_dinode_finish(p, sb->inodesize);
	xfsj_buf_dirty(bp);
	xfsj_fs_vctx(fx.fs, 0, &c);
	ck_assert_int_eq(xfsj_dinode_verify(p, &c, ino, 0, &fx.f), 0);
	set_bucket(&fx, 0, agino % 64, agino);
	fs_fixture_reopen(&fx);
	ck_assert_uint_ge(rmaps_of(&fx, 0, ino), 31);

	run(&fx, &st);
	ck_assert_uint_eq(st.blocks, 30 + (uint64_t)nblk);
	fs_fixture_reopen(&fx);
	for (int i = 0; i < 30; i++)
		ck_assert(fs_fixture_is_free(&fx, e[i].fsb, 1));
	for (int l = 0; l < nblk; l++)
		ck_assert(fs_fixture_is_free(&fx, blk[l], 1));
	ck_assert_uint_eq(rmaps_of(&fx, 0, ino), 0);
	assert_freed_inode(&fx, ino, 7);
	check_trees(&fx, 0);
	fs_fixture_free(&fx);
}

START_TEST(test_btree_fork)
{
	btree_fork(false);
}
END_TEST

START_TEST(test_btree_fork_node)
{
	btree_fork(true);
}
END_TEST

/* A bmbt block owned by another inode is refused. */
START_TEST(test_btree_bad_owner)
{
	struct fs_fixture fx;
	struct xfsj_iunlink_stats st;
	const struct xfsj_sb *sb;
	struct xfsj_dinode di;
	struct xfsj_buf *bp;
	struct text e[1];
	uint64_t ino, leaf;
	uint32_t agino, agbno, dmaxr;
	uint8_t *p, *body;
	struct xfsj_owner oi = { .owner = 1234, .bmbt_block = true };

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	sb = &fx.sb;
	agino = root_chunk(&fx) + 13;
	ino = xfsj_agino_to_ino(sb, 0, agino);
	ino_take(&fx, 0, agino);
	alloc_extents(&fx, ino, 0, 4000, false, e, 1, 1);
	ck_assert_int_eq(xfsj_alloc_extent(fx.fs, 0, 5000, 1, &oi, &agbno,
					   &fx.f), 0);
	leaf = xfsj_agb_to_fsb(sb, 0, agbno);
	put_lblock(&fx, leaf, 0, 1, XFSJ_NULLFSBLOCK, XFSJ_NULLFSBLOCK,
		   ino + 1, &body);
	rec_put(body + XFSJ_LBLOCK_HDR_SIZE, &e[0]);
	xfsj_btree_block_finish(body, sb->blocksize, true);
	p = ino_ptr(&fx, ino, &bp);
	dinode_base(&fx, ino, &di);
	di.mode = S_IFREG | 0600;
	di.format = XFSJ_DINODE_FMT_BTREE;
	di.nblocks = 2;
	if (di.flags2 & XFSJ_DIFLAG2_NREXT64)
		di.big_nextents = 1;
	else
		di.nextents = 1;
	dmaxr = (sb->inodesize - XFSJ_DINODE_CORE_SIZE - 4) / 16;
	xfsj_put_be16(p + XFSJ_DINODE_CORE_SIZE, 1);
	xfsj_put_be16(p + XFSJ_DINODE_CORE_SIZE + 2, 1);
	xfsj_put_be64(p + XFSJ_DINODE_CORE_SIZE + 4, 0);
	xfsj_put_be64(p + XFSJ_DINODE_CORE_SIZE + 4 + 8 * dmaxr, leaf);
	xfsj_dinode_encode(&di, p);
	xfsj_dinode_finish(p, sb->inodesize);
	xfsj_buf_dirty(bp);
	set_bucket(&fx, 0, agino % 64, agino);
	fs_fixture_reopen(&fx);
	/* The fork is read whole first: the inode is left as it was. */
	ck_assert_int_eq(xfsj_iunlink_process(fx.fs, &st, &fx.f), 0);
	ck_assert_uint_eq(st.buckets_cleared, 1);
	ck_assert_str_eq(st.bad.field, "owner");
	ck_assert_uint_eq(st.freed, 0);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * Reflink: the unlinked inode shares its extent with a linked one; the
 * shared extent loses a reference and stays allocated, the unshared one
 * is freed through the refcount path.
 */
START_TEST(test_reflink)
{
	struct fs_fixture fx;
	struct xfsj_iunlink_stats st;
	const struct xfsj_sb *sb;
	struct text e[2];
	struct xfsj_work w;
	uint32_t a, b;
	uint64_t ia, ib;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, true);
	sb = &fx.sb;
	a = root_chunk(&fx) + 30;
	b = root_chunk(&fx) + 31;
	ia = xfsj_agino_to_ino(sb, 0, a);
	ib = xfsj_agino_to_ino(sb, 0, b);
	ino_take(&fx, 0, a);
	ino_take(&fx, 0, b);
	alloc_extents(&fx, ia, 0, 6000, false, e, 2, 4);
	/* b maps e[0] too: a second reference and its own rmap. */
	memset(&w, 0, sizeof(w));
	w.kind = XFSJ_W_REFC;
	w.fsbno = e[0].fsb;
	w.len = e[0].len;
	w.refc.op = XFSJ_REFC_INCREASE;
	ck_assert_int_eq(xfsj_defer_add(fx.fs, &w), 0);
	memset(&w, 0, sizeof(w));
	w.kind = XFSJ_W_RMAP;
	w.fsbno = e[0].fsb;
	w.len = e[0].len;
	w.rmap.op = XFSJ_RMAP_MAP_SHARED;
	w.rmap.owner = ib;
	ck_assert_int_eq(xfsj_defer_add(fx.fs, &w), 0);
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	write_file(&fx, ia, 0, XFSJ_NULLAGINO, e, 2, NULL, 0,
		   XFSJ_DIFLAG2_REFLINK);
	write_file(&fx, ib, 1, XFSJ_NULLAGINO, e, 1, NULL, 0,
		   XFSJ_DIFLAG2_REFLINK);
	set_bucket(&fx, 0, a % 64, a);
	fs_fixture_reopen(&fx);

	run(&fx, &st);
	ck_assert_uint_eq(st.freed, 1);
	fs_fixture_reopen(&fx);
	ck_assert(!fs_fixture_is_free(&fx, e[0].fsb, 1));
	ck_assert(fs_fixture_is_free(&fx, e[1].fsb, e[1].len));
	ck_assert_uint_eq(rmaps_of(&fx, 0, ia), 0);
	ck_assert_uint_eq(rmaps_of(&fx, 0, ib), 1);
	assert_freed_inode(&fx, ia, 7);
	check_trees(&fx, 0);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A sparse chunk (its upper half a hole) whose only inode in use is an
 * inline directory: the chunk's allocated half is freed, nothing else.
 */
START_TEST(test_sparse_chunk_dir)
{
	struct fs_fixture fx;
	struct xfsj_iunlink_stats st;
	struct xfsj_agi agi0, agi;
	struct xfsj_inobt_rec ir;
	const struct xfsj_sb *sb;
	struct xfsj_dinode di;
	struct xfsj_buf *bp;
	uint32_t c, agino;
	uint64_t ino;
	uint8_t *p;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	sb = &fx.sb;
	if (!(sb->features_incompat & XFSJ_INCOMPAT_SPINODES)) {
		fs_fixture_free(&fx);
		return;
	}
	agi_get(&fx, 0, &agi0);
	c = make_chunk_sparse(&fx, 0, 1024, 0xff00);
	agino = c + 3;
	ino = xfsj_agino_to_ino(sb, 0, agino);
	ino_take(&fx, 0, agino);
	p = ino_ptr(&fx, ino, &bp);
	dinode_base(&fx, ino, &di);
	di.mode = S_IFDIR | 0755;
	di.format = XFSJ_DINODE_FMT_LOCAL;
	di.size = 6;
	memset(p + XFSJ_DINODE_CORE_SIZE, 0, 6);
	p[XFSJ_DINODE_CORE_SIZE + 5] = 0x80;
	xfsj_dinode_encode(&di, p);
	xfsj_dinode_finish(p, sb->inodesize);
	xfsj_buf_dirty(bp);
	set_bucket(&fx, 0, agino % 64, agino);
	fs_fixture_reopen(&fx);
	ck_assert(ibt_rec(&fx, XFSJ_BT_INO, 0, agino, &ir));
	ck_assert_uint_eq(ir.holemask, 0xff00);
	ck_assert_uint_eq(ir.freecount, 31);

	run(&fx, &st);
	ck_assert_uint_eq(st.chunks, 1);
	ck_assert_uint_eq(st.blocks, 0);
	fs_fixture_reopen(&fx);
	ck_assert(fs_fixture_is_free(&fx, xfsj_agb_to_fsb(sb, 0, c >> sb->inopblog),
			  32 * sb->inodesize / sb->blocksize));
	ck_assert(!ibt_rec(&fx, XFSJ_BT_INO, 0, agino, &ir) ||
		  ir.startino != c);
	agi_get(&fx, 0, &agi);
	ck_assert_uint_eq(agi.count, agi0.count);
	ck_assert_uint_eq(agi.freecount, agi0.freecount);
	ck_assert_uint_eq(rmaps_of(&fx, 0, XFSJ_RMAP_OWN_INODES), 1);
	check_trees(&fx, 0);
	fs_fixture_free(&fx);
}
END_TEST

/* An inline directory keeps its size; the inode is cleared. */
START_TEST(test_inline_dir_keeps_size)
{
	struct fs_fixture fx;
	struct xfsj_iunlink_stats st;
	const struct xfsj_sb *sb;
	struct xfsj_dinode di;
	struct xfsj_buf *bp;
	uint32_t agino;
	uint64_t ino;
	uint8_t *p;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	sb = &fx.sb;
	agino = root_chunk(&fx) + 40;
	ino = xfsj_agino_to_ino(sb, 0, agino);
	ino_take(&fx, 0, agino);
	p = ino_ptr(&fx, ino, &bp);
	dinode_base(&fx, ino, &di);
	di.mode = S_IFDIR | 0755;
	di.format = XFSJ_DINODE_FMT_LOCAL;
	di.size = 6;
	di.forkoff = 15;
	di.aformat = XFSJ_DINODE_FMT_LOCAL;
	xfsj_dinode_encode(&di, p);
	xfsj_dinode_finish(p, sb->inodesize);
	xfsj_buf_dirty(bp);
	set_bucket(&fx, 0, agino % 64, agino);
	run(&fx, &st);
	ck_assert_uint_eq(st.freed, 1);
	ino_get(&fx, ino, &di);
	ck_assert_uint_eq(di.mode, 0);
	ck_assert_uint_eq(di.size, 6);
	ck_assert_uint_eq(di.forkoff, 0);
	ck_assert_uint_eq(di.format, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_uint_eq(di.aformat, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_uint_eq(di.gen, 8);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * An inode written before bigtime: freeing it gives it the filesystem's
 * new-inode flags, so its times are rewritten in the bigtime encoding.
 */
START_TEST(test_clear_converts_times)
{
	struct fs_fixture fx;
	struct xfsj_iunlink_stats st;
	const struct xfsj_sb *sb;
	struct xfsj_dinode di;
	struct xfsj_buf *bp;
	uint32_t agino;
	uint64_t ino;
	uint8_t *p;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	sb = &fx.sb;
	if (!(sb->features_incompat & XFSJ_INCOMPAT_BIGTIME)) {
		fs_fixture_free(&fx);
		return;
	}
	agino = root_chunk(&fx) + 41;
	ino = xfsj_agino_to_ino(sb, 0, agino);
	ino_take(&fx, 0, agino);
	p = ino_ptr(&fx, ino, &bp);
	dinode_base(&fx, ino, &di);
	di.flags2 = 0;
	di.mode = S_IFIFO | 0600;
	di.format = XFSJ_DINODE_FMT_DEV;
	di.mtime = xfsj_time_encode(1600000000, 5, false);
	di.atime = di.ctime = di.crtime = xfsj_time_encode(-100, 0, false);
	xfsj_dinode_encode(&di, p);
	xfsj_dinode_finish(p, sb->inodesize);
	xfsj_buf_dirty(bp);
	set_bucket(&fx, 0, agino % 64, agino);
	run(&fx, &st);
	ino_get(&fx, ino, &di);
	ck_assert(di.flags2 & XFSJ_DIFLAG2_BIGTIME);
	ck_assert_uint_eq(di.mtime, xfsj_time_encode(1600000000, 5, true));
	ck_assert_uint_eq(di.atime, xfsj_time_encode(-100, 0, true));
	ck_assert_uint_eq(di.format, XFSJ_DINODE_FMT_EXTENTS);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A symlink kept in a block: truncation sets its size to zero (which the
 * verifier refuses for a live symlink) before the inode is freed.
 */
START_TEST(test_remote_symlink)
{
	struct fs_fixture fx;
	struct xfsj_iunlink_stats st;
	const struct xfsj_sb *sb;
	struct xfsj_dinode di;
	struct xfsj_buf *bp;
	struct text e[1];
	uint32_t agino;
	uint64_t ino;
	uint8_t *p;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	sb = &fx.sb;
	agino = root_chunk(&fx) + 42;
	ino = xfsj_agino_to_ino(sb, 0, agino);
	ino_take(&fx, 0, agino);
	alloc_extents(&fx, ino, 0, 3000, false, e, 1, 1);
	p = ino_ptr(&fx, ino, &bp);
	dinode_base(&fx, ino, &di);
	di.mode = S_IFLNK | 0777;
	di.size = 1000;
	di.nblocks = 1;
	if (di.flags2 & XFSJ_DIFLAG2_NREXT64)
		di.big_nextents = 1;
	else
		di.nextents = 1;
	rec_put(p + XFSJ_DINODE_CORE_SIZE, &e[0]);
	xfsj_dinode_encode(&di, p);
	xfsj_dinode_finish(p, sb->inodesize);
	xfsj_buf_dirty(bp);
	set_bucket(&fx, 0, agino % 64, agino);
	fs_fixture_reopen(&fx);
	run(&fx, &st);
	ck_assert_uint_eq(st.freed, 1);
	ck_assert_uint_eq(st.blocks, 1);
	fs_fixture_reopen(&fx);
	ck_assert(fs_fixture_is_free(&fx, e[0].fsb, 1));
	ck_assert_uint_eq(rmaps_of(&fx, 0, ino), 0);
	assert_freed_inode(&fx, ino, 7);
	fs_fixture_free(&fx);
}
END_TEST

/* An inode of the second AG, alone in its chunk, with blocks in both. */
START_TEST(test_second_ag)
{
	struct fs_fixture fx;
	struct xfsj_iunlink_stats st;
	struct xfsj_agi agi0, agi;
	const struct xfsj_sb *sb;
	struct text e[2];
	uint32_t c, agino;
	uint64_t ino;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	sb = &fx.sb;
	agi_get(&fx, 1, &agi0);
	c = make_chunk(&fx, 1, 64);
	agino = c + 3;
	ino = xfsj_agino_to_ino(sb, 1, agino);
	ck_assert_uint_eq(xfsj_ino_agno(sb, ino), 1);
	ino_take(&fx, 1, agino);
	alloc_extents(&fx, ino, 1, 500, false, &e[0], 1, 5);
	{
		struct xfsj_owner oi = { .owner = ino, .offset = 100 };
		uint32_t agbno;

		ck_assert_int_eq(xfsj_alloc_extent(fx.fs, 0, 500, 7, &oi,
						   &agbno, &fx.f), 0);
		e[1] = (struct text){ 100, xfsj_agb_to_fsb(sb, 0, agbno), 7,
				      false };
	}
	write_file(&fx, ino, 0, XFSJ_NULLAGINO, e, 2, NULL, 0, 0);
	set_bucket(&fx, 1, agino % 64, agino);
	fs_fixture_reopen(&fx);
	run(&fx, &st);
	ck_assert_uint_eq(st.freed, 1);
	ck_assert_uint_eq(st.chunks, 1);
	ck_assert_uint_eq(st.blocks, 12);
	fs_fixture_reopen(&fx);
	ck_assert(fs_fixture_is_free(&fx, e[0].fsb, 5));
	ck_assert(fs_fixture_is_free(&fx, e[1].fsb, 7));
	ck_assert(fs_fixture_is_free(&fx, xfsj_agb_to_fsb(sb, 1, c >> sb->inopblog), 8));
	agi_get(&fx, 1, &agi);
	ck_assert_uint_eq(agi.count, agi0.count);
	ck_assert_uint_eq(agi.freecount, agi0.freecount);
	ck_assert_uint_eq(agi.unlinked[agino % 64], XFSJ_NULLAGINO);
	ck_assert_uint_eq(rmaps_of(&fx, 1, ino), 0);
	ck_assert_uint_eq(rmaps_of(&fx, 0, ino), 0);
	check_trees(&fx, 0);
	check_trees(&fx, 1);
	fs_fixture_free(&fx);
}
END_TEST

Suite *iunlink_suite(void)
{
	Suite *s = suite_create("iunlink");
	TCase *tc = tcase_create("iunlink");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_one_file_rmap);
	tcase_add_test(tc, test_one_file_normap);
	tcase_add_test(tc, test_chain_and_chunk);
	tcase_add_test(tc, test_linked_stays);
	tcase_add_test(tc, test_loop_refused);
	tcase_add_test(tc, test_bad_lists_refused);
	tcase_add_test(tc, test_btree_fork);
	tcase_add_test(tc, test_btree_fork_node);
	tcase_add_test(tc, test_btree_bad_owner);
	tcase_add_test(tc, test_reflink);
	tcase_add_test(tc, test_sparse_chunk_dir);
	tcase_add_test(tc, test_inline_dir_keeps_size);
	tcase_add_test(tc, test_clear_converts_times);
	tcase_add_test(tc, test_remote_symlink);
	tcase_add_test(tc, test_second_ag);
	suite_add_tcase(s, tc);
	return s;
}
