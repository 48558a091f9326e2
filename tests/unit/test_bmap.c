/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inode fork mappings on a fresh in-memory filesystem: a regular file is
 * made from a free inode of the first chunk, then mapped and unmapped at
 * random against a model (file offset -> block), checking after every
 * step that the fork holds exactly the model's maximal runs, with the
 * right counts, format, block count, reverse mappings and free space.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs_fixture.h"
#include "suites.h"
#include "fs/alloc.h"
#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/btree.h"
#include "core/crc32c.h"
#include "fs/refcount.h"

#define MB		(1ULL << 20)
#define FILE_BLOCKS	320	/* the model's file range */
#define POOL		(2 * FILE_BLOCKS)

static const struct xfsj_sb *SB(struct fs_fixture *fx)
{
	return xfsj_fs_sb(fx->fs);
}

/* Turn a free inode of the root's chunk into an empty regular file. */
static uint64_t make_file(struct fs_fixture *fx, unsigned int slot,
			  uint64_t flags2, uint8_t forkoff)
{
	struct xfsj_iref ip;

	if (SB(fx)->features_incompat & XFSJ_INCOMPAT_NREXT64)
		flags2 |= XFSJ_DIFLAG2_NREXT64;
	return fs_fixture_make_file(fx, slot, 3, flags2, forkoff, &ip);
}

/* A run of blocks allocated with no owner: the test's block pool. */
static uint64_t pool_alloc(struct fs_fixture *fx, uint32_t len)
{
	uint32_t agbno;

	ck_assert_int_eq(xfsj_alloc_extent(fx->fs, 0, 0, len, NULL, &agbno,
					   &fx->f), 0);
	return xfsj_agb_to_fsb(SB(fx), 0, agbno);
}

/* ---- the model ---- */

struct model {
	uint64_t fsb[FILE_BLOCKS];	/* 0: hole */
	bool unw[FILE_BLOCKS];
};

static size_t model_runs(const struct model *m, struct xfsj_bmbt_irec *v)
{
	size_t n = 0;

	for (uint64_t o = 0; o < FILE_BLOCKS; o++) {
		struct xfsj_bmbt_irec *p = n ? &v[n - 1] : NULL;

		if (!m->fsb[o])
			continue;
		if (p && p->startoff + p->blockcount == o &&
		    p->startblock + p->blockcount == m->fsb[o] &&
		    p->unwritten == m->unw[o]) {
			p->blockcount++;
			continue;
		}
		v[n++] = (struct xfsj_bmbt_irec){ o, m->fsb[o], 1, m->unw[o] };
	}
	return n;
}

static size_t nruns(const struct model *m)
{
	static struct xfsj_bmbt_irec v[FILE_BLOCKS];

	return model_runs(m, v);
}

static uint64_t model_blocks(const struct model *m)
{
	uint64_t b = 0;

	for (uint64_t o = 0; o < FILE_BLOCKS; o++)
		b += m->fsb[o] != 0;
	return b;
}

struct rmaps {
	uint64_t ino;
	struct xfsj_rmap_rec v[FILE_BLOCKS];
	size_t n, bmbt;
};

static int rmap_fn(struct xfsj_btree_cur *cur,
		   const union xfsj_btree_irec *rec, void *arg)
{
	struct rmaps *r = arg;

	(void)cur;
	if (rec->r.owner != r->ino)
		return 0;
	if (rec->r.offset & XFSJ_RMAP_OFF_BMBT_BLOCK) {
		r->bmbt += rec->r.blockcount;	/* neighbours merge */
		return 0;
	}
	ck_assert_uint_lt(r->n, FILE_BLOCKS);
	r->v[r->n++] = rec->r;
	return 0;
}

static void rmaps_get(struct fs_fixture *fx, uint64_t ino, struct rmaps *r)
{
	struct xfsj_btree_cur *cur;

	memset(r, 0, sizeof(*r));
	r->ino = ino;
	for (uint32_t agno = 0; agno < SB(fx)->agcount; agno++) {
		ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_RMAP, agno,
						    NULL, &fx->f, &cur), 0);
		ck_assert_int_eq(xfsj_btree_query_all(cur, rmap_fn, r), 0);
		xfsj_btree_cur_free(cur);
	}
}

static int rmap_cmp_off(const void *a, const void *b)
{
	uint64_t x = ((const struct xfsj_rmap_rec *)a)->offset &
		     ~XFSJ_RMAP_OFF_UNWRITTEN;
	uint64_t y = ((const struct xfsj_rmap_rec *)b)->offset &
		     ~XFSJ_RMAP_OFF_UNWRITTEN;

	return x < y ? -1 : x > y;
}

static uint32_t maxext(struct fs_fixture *fx)
{
	return (SB(fx)->inodesize - XFSJ_DINODE_CORE_SIZE) / 16;
}

struct walk {
	struct fs_fixture *fx;
	uint64_t ino;
	unsigned int maxr, blocks;
};

/* Every block below the root at least half full, but for an only child. */
static void walk_block(struct walk *w, uint64_t fsb, unsigned int level,
		       bool only)
{
	const struct xfsj_sb *sb = SB(w->fx);
	struct xfsj_buf *bp;
	unsigned int n;

	ck_assert_int_eq(xfsj_buf_read(w->fx->fs,
				       xfsj_agb_to_daddr(sb,
							 xfsj_fsb_agno(sb, fsb),
							 xfsj_fsb_agbno(sb, fsb)),
				       sb->blocksize, &bp), 0);
	ck_assert_uint_eq(xfsj_get_be32(bp->data), XFSJ_BMAP_MAGIC);
	ck_assert_uint_eq(xfsj_get_be16(bp->data + 4), level);
	n = xfsj_get_be16(bp->data + 6);
	ck_assert_uint_le(n, w->maxr);
	if (!only)
		ck_assert_uint_ge(n, w->maxr / 2);
	w->blocks++;
	if (level == 0)
		return;
	for (unsigned int i = 0; i < n; i++)
		walk_block(w, xfsj_get_be64(bp->data + 72 + 8 * w->maxr + 8 * i),
			   level - 1, n == 1 && only);
}

/* The tree's height; its blocks counted in *blocks. */
static unsigned int walk_tree(struct fs_fixture *fx, uint64_t ino,
			      unsigned int *blocks)
{
	const struct xfsj_sb *sb = SB(fx);
	struct walk w = { fx, ino, (sb->blocksize - 72) / 16, 0 };
	struct xfsj_iref ip;
	unsigned int dmaxr, level, n;
	uint8_t *root;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	*blocks = 0;
	if (ip.di.format != XFSJ_DINODE_FMT_BTREE)
		return 0;
	root = ip.dip + XFSJ_DINODE_CORE_SIZE;
	dmaxr = (sb->inodesize - XFSJ_DINODE_CORE_SIZE - 4) / 16;
	level = xfsj_get_be16(root);
	n = xfsj_get_be16(root + 2);
	ck_assert_uint_ge(n, 1);
	ck_assert_uint_le(n, dmaxr);
	for (unsigned int i = 0; i < n; i++)
		walk_block(&w, xfsj_get_be64(root + 4 + 8 * dmaxr + 8 * i),
			   level - 1, n == 1);
	*blocks = w.blocks;
	return level;
}

/*
 * The fork, counts, format, nblocks and rmaps match the model; a btree
 * fork has at least @extra_blocks bmbt blocks besides its first.
 */
static void check(struct fs_fixture *fx, uint64_t ino, const struct model *m,
		  uint64_t extra_blocks)
{
	static struct xfsj_bmbt_irec want[FILE_BLOCKS];
	struct xfsj_bmbt_irec *got;
	struct xfsj_iref ip;
	size_t n, nw = model_runs(m, want);
	bool btree = nw > maxext(fx);
	unsigned int blocks;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ck_assert_int_eq(xfsj_bmap_read(fx->fs, &ip, XFSJ_DATA_FORK, &got, &n,
					&fx->f), 0);
	ck_assert_uint_eq(n, nw);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(got[i].startoff, want[i].startoff);
		ck_assert_uint_eq(got[i].startblock, want[i].startblock);
		ck_assert_uint_eq(got[i].blockcount, want[i].blockcount);
		ck_assert_int_eq(got[i].unwritten, want[i].unwritten);
	}
	free(got);
	ck_assert_uint_eq(xfsj_dinode_nextents(&ip.di), nw);
	ck_assert_int_eq(ip.di.format, btree ? XFSJ_DINODE_FMT_BTREE :
					       XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_uint_eq(walk_tree(fx, ino, &blocks) > 0, btree);
	ck_assert_uint_eq(ip.di.nblocks, model_blocks(m) + blocks);
	ck_assert_uint_ge(blocks, btree + extra_blocks);
	if (xfsj_fs_has(fx->fs, XFSJ_RO_COMPAT_RMAPBT)) {
		static struct rmaps r;

		rmaps_get(fx, ino, &r);
		qsort(r.v, r.n, sizeof(r.v[0]), rmap_cmp_off);
		ck_assert_uint_eq(r.bmbt, blocks);
		ck_assert_uint_eq(r.n, nw);
		for (size_t i = 0; i < n; i++) {
			const struct xfsj_sb *sb = SB(fx);

			ck_assert_uint_eq(r.v[i].startblock,
					  xfsj_fsb_agbno(sb, want[i].startblock));
			ck_assert_uint_eq(r.v[i].blockcount, want[i].blockcount);
			ck_assert_uint_eq(r.v[i].offset &
					  ~XFSJ_RMAP_OFF_UNWRITTEN,
					  want[i].startoff);
			ck_assert_int_eq(!!(r.v[i].offset &
					    XFSJ_RMAP_OFF_UNWRITTEN),
					 want[i].unwritten);
		}
	}
}

static void do_map(struct fs_fixture *fx, uint64_t ino, struct model *m,
		   uint64_t off, uint64_t fsb, uint32_t len, bool unw)
{
	struct xfsj_bmbt_irec rec = { off, fsb, len, unw };
	struct xfsj_iref ip;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ck_assert_msg(xfsj_bmap_map(fx->fs, &ip, XFSJ_DATA_FORK, &rec,
				    &fx->f) == 0, "map: %s %s",
		      fx->f.structure, fx->f.field);
	xfsj_iput(fx->fs, &ip, true);
	ck_assert_int_eq(xfsj_defer_finish(fx->fs, &fx->f), 0);
	for (uint32_t i = 0; i < len; i++) {
		m->fsb[off + i] = fsb + i;
		m->unw[off + i] = unw;
	}
}

static uint64_t do_unmap(struct fs_fixture *fx, uint64_t ino,
			 struct model *m, uint64_t off, uint32_t len,
			 bool keep)
{
	struct xfsj_iref ip;
	uint64_t done, want = 0;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ck_assert_msg(xfsj_bmap_unmap(fx->fs, &ip, XFSJ_DATA_FORK, off, len,
				      keep, &done, &fx->f) == 0,
		      "unmap: %s %s", fx->f.structure, fx->f.field);
	xfsj_iput(fx->fs, &ip, true);
	ck_assert_int_eq(xfsj_defer_finish(fx->fs, &fx->f), 0);
	for (uint32_t i = 0; i < len && off + i < FILE_BLOCKS; i++) {
		want += m->fsb[off + i] != 0;
		m->fsb[off + i] = 0;
	}
	ck_assert_uint_eq(done, want);
	return done;
}

/* ---- tests ---- */

START_TEST(merge_cases)
{
	struct fs_fixture fx;
	static struct model m;
	uint64_t ino, p;

	memset(&m, 0, sizeof(m));
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = make_file(&fx, 3, 0, 0);
	p = pool_alloc(&fx, POOL);
	do_map(&fx, ino, &m, 10, p + 10, 5, false);
	do_map(&fx, ino, &m, 20, p + 20, 5, false);
	check(&fx, ino, &m, 0);
	do_map(&fx, ino, &m, 15, p + 15, 5, false);	/* both neighbours */
	check(&fx, ino, &m, 0);
	do_map(&fx, ino, &m, 25, p + 25, 2, false);	/* left */
	do_map(&fx, ino, &m, 8, p + 8, 2, false);	/* right */
	do_map(&fx, ino, &m, 27, p + 27, 2, true);	/* other state */
	do_map(&fx, ino, &m, 6, p + 100, 2, false);	/* not physical */
	check(&fx, ino, &m, 0);
	do_unmap(&fx, ino, &m, 12, 3, false);		/* middle */
	do_unmap(&fx, ino, &m, 8, 2, false);		/* front */
	do_unmap(&fx, ino, &m, 26, 2, false);		/* back, then front */
	check(&fx, ino, &m, 0);
	fs_fixture_reopen(&fx);
	check(&fx, ino, &m, 0);
	ck_assert(fs_fixture_is_free(&fx, p + 12, 3));
	ck_assert(fs_fixture_is_free(&fx, p + 8, 2));
	ck_assert(fs_fixture_is_free(&fx, p + 26, 2));
	ck_assert(!fs_fixture_is_free(&fx, p + 25, 1));
	ck_assert(!fs_fixture_is_free(&fx, p + 28, 1));
	fs_fixture_free(&fx);
}
END_TEST

/* The 21-bit length limit stops a merge. */
START_TEST(maxextlen)
{
	struct fs_fixture fx;
	struct xfsj_bmbt_irec *got;
	struct xfsj_bmbt_irec rec;
	struct xfsj_iref ip;
	uint64_t ino;
	size_t n;

	fs_fixture_make(&fx, 6144 * MB, 1024, 2, false, false);
	ino = make_file(&fx, 20, 0, 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	/* Blocks never touched by the allocator: only the fork matters. */
	rec = (struct xfsj_bmbt_irec){ 0, 1000, (1U << 21) - 10, false };
	ck_assert_int_eq(xfsj_bmap_map(fx.fs, &ip, 0, &rec, &fx.f), 0);
	rec = (struct xfsj_bmbt_irec){ (1U << 21) - 10, 1000 + (1U << 21) - 10,
				       20, false };
	ck_assert_int_eq(xfsj_bmap_map(fx.fs, &ip, 0, &rec, &fx.f), 0);
	ck_assert_int_eq(xfsj_bmap_read(fx.fs, &ip, 0, &got, &n, &fx.f), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(got[0].blockcount, (1U << 21) - 10);
	free(got);
	/* Overlapping an extent is refused. */
	rec = (struct xfsj_bmbt_irec){ 5, 5000000, 2, false };
	ck_assert_int_eq(xfsj_bmap_map(fx.fs, &ip, 0, &rec, &fx.f),
			 -XFSJ_E_CORRUPT);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * Random maps and unmaps: pool blocks are mapped once each; an unmap
 * either keeps the blocks (they go back to the pool) or frees them.
 */
static void random_run(bool rmapbt, unsigned int seed, int steps)
{
	struct fs_fixture fx;
	static struct model m;
	static uint8_t state[POOL];	/* 0 pool, 1 mapped, 2 freed */
	uint64_t ino, p;
	bool was_btree = false, went_back = false;

	srand(seed);
	memset(&m, 0, sizeof(m));
	memset(state, 0, sizeof(state));
	fs_fixture_make(&fx, 64 * MB, 4096, 2, rmapbt, false);
	ino = make_file(&fx, 4, 0, 0);
	p = pool_alloc(&fx, POOL);
	for (int s = 0; s < steps; s++) {
		uint64_t off = (uint64_t)rand() % FILE_BLOCKS;
		uint32_t len = 1 + (uint32_t)rand() % 6;

		if (off + len > FILE_BLOCKS)
			len = FILE_BLOCKS - (uint32_t)off;
		/* Mostly maps for the first half, mostly unmaps after. */
		if (rand() % 6 < (s < steps / 2 ? 4 : 1)) {
			/* Map the first hole at or after off, pool permitting. */
			uint64_t half = rand() % 4 ? 0 : FILE_BLOCKS;
			uint32_t l = 0;

			while (off < FILE_BLOCKS && m.fsb[off])
				off++;
			while (off + l < FILE_BLOCKS && l < len &&
			       !m.fsb[off + l] && !state[half + off + l])
				l++;
			if (!l)
				continue;
			do_map(&fx, ino, &m, off, p + half + off, l, rand() % 5 == 0);
			for (uint32_t i = 0; i < l; i++)
				state[half + off + i] = 1;
		} else {
			bool keep = rand() % 2;

			for (uint32_t i = 0; i < len; i++) {
				uint64_t b = m.fsb[off + i];

				if (b)
					state[b - p] = keep ? 0 : 2;
			}
			do_unmap(&fx, ino, &m, off, len, keep);
		}
		check(&fx, ino, &m, 0);
		if (nruns(&m) > maxext(&fx))
			was_btree = true;
		else if (was_btree)
			went_back = true;
		if (s % 50 == 49)
			fs_fixture_reopen(&fx);
	}
	/* Then everything, a piece at a time, back to extents format. */
	for (uint64_t off = 0; off < FILE_BLOCKS; off += 7) {
		uint32_t len = off + 7 > FILE_BLOCKS ? FILE_BLOCKS - off : 7;

		for (uint32_t i = 0; i < len; i++)
			if (m.fsb[off + i])
				state[m.fsb[off + i] - p] = 2;
		do_unmap(&fx, ino, &m, off, len, false);
		check(&fx, ino, &m, 0);
		if (was_btree && nruns(&m) <= maxext(&fx))
			went_back = true;
	}
	ck_assert(was_btree);
	ck_assert(went_back);
	fs_fixture_reopen(&fx);
	for (uint32_t i = 0; i < POOL; i++)
		ck_assert_int_eq(fs_fixture_is_free(&fx, p + i, 1), state[i] == 2);
	fs_fixture_free(&fx);
}

START_TEST(random_rmap)
{
	random_run(true, 1234 + (unsigned int)_i, 400);
}
END_TEST

START_TEST(random_plain)
{
	random_run(false, 99, 400);
}
END_TEST

/* A long unmap in btree format: back to extents, the bmbt block freed. */
START_TEST(btree_and_back)
{
	struct fs_fixture fx;
	static struct model m;
	struct rmaps *r = calloc(1, sizeof(*r));
	uint64_t ino, p, bmbt;
	struct xfsj_iref ip;

	memset(&m, 0, sizeof(m));
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = make_file(&fx, 5, 0, 0);
	p = pool_alloc(&fx, POOL);
	for (uint64_t o = 0; o < 2 * maxext(&fx); o++)
		do_map(&fx, ino, &m, 2 * o, p + 2 * o + (o & 1), 1, false);
	check(&fx, ino, &m, 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	ck_assert_int_eq(ip.di.format, XFSJ_DINODE_FMT_BTREE);
	bmbt = xfsj_get_be64(ip.dip + XFSJ_DINODE_CORE_SIZE + 4 +
			     8 * ((SB(&fx)->inodesize -
				   XFSJ_DINODE_CORE_SIZE - 4) / 16));
	ck_assert(!fs_fixture_is_free(&fx, bmbt, 1));
	rmaps_get(&fx, ino, r);
	ck_assert_uint_eq(r->bmbt, 1);
	fs_fixture_reopen(&fx);
	check(&fx, ino, &m, 0);
	do_unmap(&fx, ino, &m, 20, 200, false);
	check(&fx, ino, &m, 0);
	ck_assert(fs_fixture_is_free(&fx, bmbt, 1));
	rmaps_get(&fx, ino, r);
	ck_assert_uint_eq(r->bmbt, 0);
	free(r);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(alloc_and_first_unused)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xfsj_bmbt_irec *got;
	uint64_t ino, fsb, fsb2, off;
	size_t n;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = make_file(&fx, 6, 0, 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	ck_assert_int_eq(xfsj_bmap_first_unused(fx.fs, &ip, 0, 4, 0, &off,
						&fx.f), 0);
	ck_assert_uint_eq(off, 0);
	ck_assert_int_eq(xfsj_bmap_alloc(fx.fs, &ip, 0, 0, 4, &fsb, &fx.f), 0);
	ck_assert_int_eq(xfsj_bmap_alloc(fx.fs, &ip, 0, 4, 2, &fsb2, &fx.f), 0);
	ck_assert_int_eq(xfsj_bmap_alloc(fx.fs, &ip, 0, 10, 1, &fsb2, &fx.f),
			 0);
	xfsj_iput(fx.fs, &ip, true);
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	ck_assert_uint_eq(ip.di.nblocks, 7);
	ck_assert_int_eq(xfsj_bmap_read(fx.fs, &ip, 0, &got, &n, &fx.f), 0);
	/* Allocated next to the previous extent: one merged mapping. */
	ck_assert_uint_ge(n, 2);
	ck_assert_uint_eq(got[0].startblock, fsb);
	ck_assert_uint_eq(got[0].blockcount, n == 2 ? 6 : 4);
	free(got);
	ck_assert(!fs_fixture_is_free(&fx, fsb, 4));
	ck_assert_int_eq(xfsj_bmap_first_unused(fx.fs, &ip, 0, 4, 0, &off,
						&fx.f), 0);
	ck_assert_uint_eq(off, 6);
	ck_assert_int_eq(xfsj_bmap_first_unused(fx.fs, &ip, 0, 5, 0, &off,
						&fx.f), 0);
	ck_assert_uint_eq(off, 11);
	ck_assert_int_eq(xfsj_bmap_first_unused(fx.fs, &ip, 0, 1, 10, &off,
						&fx.f), 0);
	ck_assert_uint_eq(off, 11);
	fs_fixture_free(&fx);
}
END_TEST

/* The attribute fork: its own counts and rmap flag. */
START_TEST(attr_fork)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xfsj_bmbt_irec *got;
	struct rmaps *r = calloc(1, sizeof(*r));
	uint64_t ino, fsb, done;
	size_t n;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = make_file(&fx, 7, 0, 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	ck_assert_int_eq(xfsj_bmap_alloc(fx.fs, &ip, XFSJ_ATTR_FORK, 0, 1,
					 &fsb, &fx.f), -XFSJ_E_CORRUPT);
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	ino = make_file(&fx, 8, 0, 20);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	ck_assert_int_eq(xfsj_bmap_alloc(fx.fs, &ip, XFSJ_ATTR_FORK, 0, 1,
					 &fsb, &fx.f), 0);
	xfsj_iput(fx.fs, &ip, true);
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	ck_assert_uint_eq(xfsj_dinode_anextents(&ip.di), 1);
	ck_assert_uint_eq(xfsj_dinode_nextents(&ip.di), 0);
	ck_assert_int_eq(xfsj_bmap_read(fx.fs, &ip, XFSJ_ATTR_FORK, &got, &n,
					&fx.f), 0);
	ck_assert_uint_eq(n, 1);
	free(got);
	rmaps_get(&fx, ino, r);
	ck_assert_uint_eq(r->n, 1);
	ck_assert(r->v[0].offset & XFSJ_RMAP_OFF_ATTR_FORK);
	ck_assert_int_eq(xfsj_bmap_unmap(fx.fs, &ip, XFSJ_ATTR_FORK, 0, 1,
					 false, &done, &fx.f), 0);
	ck_assert_uint_eq(done, 1);
	xfsj_iput(fx.fs, &ip, true);
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	ck_assert(fs_fixture_is_free(&fx, fsb, 1));
	rmaps_get(&fx, ino, r);
	ck_assert_uint_eq(r->n, 0);
	free(r);
	fs_fixture_free(&fx);
}
END_TEST

struct refcs {
	struct xfsj_refc_rec v[16];
	size_t n;
};

static int refc_fn(struct xfsj_btree_cur *cur,
		   const union xfsj_btree_irec *rec, void *arg)
{
	struct refcs *r = arg;

	(void)cur;
	ck_assert_uint_lt(r->n, 16);
	r->v[r->n++] = rec->c;
	return 0;
}

static void refcs_get(struct fs_fixture *fx, struct refcs *r)
{
	struct xfsj_btree_cur *cur;

	r->n = 0;
	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_REFC, 0, NULL,
					    &fx->f, &cur), 0);
	ck_assert_int_eq(xfsj_btree_query_all(cur, refc_fn, r), 0);
	xfsj_btree_cur_free(cur);
}

/* A reflink file: unmapping drops a reference instead of freeing. */
START_TEST(reflink_unmap)
{
	struct fs_fixture fx;
	static struct model m;
	struct refcs rc;
	struct rmaps *r = calloc(1, sizeof(*r));
	uint64_t ino, p;
	const struct xfsj_sb *sb;

	memset(&m, 0, sizeof(m));
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, true);
	sb = SB(&fx);
	ino = make_file(&fx, 9, XFSJ_DIFLAG2_REFLINK, 0);
	p = pool_alloc(&fx, 64);
	/* Blocks [p, p + 16) shared once more (count 2). */
	ck_assert_int_eq(xfsj_refcount_increase_extent(fx.fs, p, 16), 0);
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	do_map(&fx, ino, &m, 0, p, 32, false);
	rmaps_get(&fx, ino, r);
	ck_assert_uint_eq(r->n, 1);
	do_unmap(&fx, ino, &m, 4, 4, false);	/* shared: 2 -> 1 */
	do_unmap(&fx, ino, &m, 20, 4, false);	/* not shared: freed */
	check(&fx, ino, &m, 0);
	refcs_get(&fx, &rc);
	ck_assert_uint_eq(rc.n, 2);
	ck_assert_uint_eq(rc.v[0].startblock, xfsj_fsb_agbno(sb, p));
	ck_assert_uint_eq(rc.v[0].blockcount, 4);
	ck_assert_uint_eq(rc.v[0].refcount, 2);
	ck_assert_uint_eq(rc.v[1].startblock, xfsj_fsb_agbno(sb, p) + 8);
	ck_assert_uint_eq(rc.v[1].blockcount, 8);
	ck_assert(!fs_fixture_is_free(&fx, p + 4, 4));
	ck_assert(fs_fixture_is_free(&fx, p + 20, 4));
	free(r);
	fs_fixture_free(&fx);
}
END_TEST

static int bui_fork(struct fs_fixture *fx, enum xfsj_bmap_op op, uint64_t ino,
		    uint64_t off, uint64_t fsb, uint32_t len, bool unw,
		    bool attr)
{
	struct xfsj_work w;
	int err;

	memset(&w, 0, sizeof(w));
	w.bmap.attr_fork = attr;
	w.kind = XFSJ_W_BMAP;
	w.fsbno = fsb;
	w.len = len;
	w.bmap.op = op;
	w.bmap.ino = ino;
	w.bmap.startoff = off;
	w.bmap.unwritten = unw;
	err = xfsj_defer_add(fx->fs, &w);
	if (err)
		return err;
	return xfsj_defer_finish(fx->fs, &fx->f);
}

static int bui(struct fs_fixture *fx, enum xfsj_bmap_op op, uint64_t ino,
	       uint64_t off, uint64_t fsb, uint32_t len, bool unw)
{
	return bui_fork(fx, op, ino, off, fsb, len, unw, false);
}

/* BUI work: map queues the rmap; unmap keeps the blocks (a remap). */
START_TEST(bui_finish)
{
	struct fs_fixture fx;
	static struct model m;
	uint64_t ino, p;

	memset(&m, 0, sizeof(m));
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = make_file(&fx, 10, 0, 0);
	p = pool_alloc(&fx, 64);
	ck_assert_int_eq(bui(&fx, XFSJ_BMAP_MAP, ino, 0, p, 4, false), 0);
	ck_assert_int_eq(bui(&fx, XFSJ_BMAP_MAP, ino, 10, p + 10, 4, true), 0);
	ck_assert_int_eq(bui(&fx, XFSJ_BMAP_MAP, ino, 20, p + 30, 4, false), 0);
	for (int i = 0; i < 4; i++) {
		m.fsb[i] = p + i;
		m.fsb[10 + i] = p + 10 + i;
		m.unw[10 + i] = true;
		m.fsb[20 + i] = p + 30 + i;
	}
	check(&fx, ino, &m, 0);
	/* One intent over three extents: finished one extent at a time. */
	ck_assert_int_eq(bui(&fx, XFSJ_BMAP_UNMAP, ino, 2, p + 2, 20, false),
			 0);
	for (int i = 2; i < 22; i++)
		m.fsb[i] = 0;
	check(&fx, ino, &m, 0);
	ck_assert(!fs_fixture_is_free(&fx, p + 2, 2));
	ck_assert(!fs_fixture_is_free(&fx, p + 10, 4));
	/* Mapping over a mapping, a bad op, a free inode: refused. */
	ck_assert_int_eq(bui(&fx, XFSJ_BMAP_MAP, ino, 0, p + 40, 4, false),
			 -XFSJ_E_CORRUPT);
	fs_fixture_free(&fx);
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = make_file(&fx, 10, 0, 0);
	ck_assert_int_eq(bui(&fx, 7, ino, 0, 100, 4, false), -XFSJ_E_CORRUPT);
	fs_fixture_free(&fx);
	/* The attribute fork, with the rmap's attr flag; none: refused. */
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = make_file(&fx, 15, 0, 20);
	p = pool_alloc(&fx, 8);
	ck_assert_int_eq(bui_fork(&fx, XFSJ_BMAP_MAP, ino, 3, p, 2, false,
				  true), 0);
	{
		struct rmaps *r = calloc(1, sizeof(*r));
		struct xfsj_iref ip;

		ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
		ck_assert_uint_eq(xfsj_dinode_anextents(&ip.di), 1);
		ck_assert_uint_eq(ip.di.nblocks, 2);
		rmaps_get(&fx, ino, r);
		ck_assert_uint_eq(r->n, 1);
		ck_assert(r->v[0].offset & XFSJ_RMAP_OFF_ATTR_FORK);
		ck_assert_int_eq(bui_fork(&fx, XFSJ_BMAP_UNMAP, ino, 0, p, 8,
					  false, true), 0);
		rmaps_get(&fx, ino, r);
		ck_assert_uint_eq(r->n, 0);
		ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
		ck_assert_uint_eq(xfsj_dinode_anextents(&ip.di), 0);
		ck_assert_uint_eq(ip.di.nblocks, 0);
		free(r);
	}
	ino = make_file(&fx, 16, 0, 0);
	ck_assert_int_eq(bui_fork(&fx, XFSJ_BMAP_MAP, ino, 3, p, 2, false,
				  true), -XFSJ_E_CORRUPT);
	fs_fixture_free(&fx);
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ck_assert_int_eq(bui(&fx, XFSJ_BMAP_MAP, fx.sb.rootino + 11, 0, 100, 4,
			     false), -XFSJ_E_CORRUPT);
	fs_fixture_free(&fx);
}
END_TEST

/* A hostile fork: a bmbt pointer outside the filesystem. */
START_TEST(hostile_root)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xfsj_bmbt_irec *got;
	size_t n;
	uint64_t ino;
	uint32_t dmaxr;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	ino = make_file(&fx, 12, 0, 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	dmaxr = (SB(&fx)->inodesize - XFSJ_DINODE_CORE_SIZE - 4) / 16;
	ip.di.format = XFSJ_DINODE_FMT_BTREE;
	ip.di.nblocks = 100;
	/* Too few extents for a btree fork. */
	ck_assert_int_eq(xfsj_bmap_read(fx.fs, &ip, 0, &got, &n, &fx.f),
			 -XFSJ_E_CORRUPT);
	ck_assert_str_eq(fx.f.field, "nextents");
	if (ip.di.flags2 & XFSJ_DIFLAG2_NREXT64)
		ip.di.big_nextents = 30;
	else
		ip.di.nextents = 30;
	xfsj_put_be16(ip.dip + XFSJ_DINODE_CORE_SIZE, 1);
	xfsj_put_be16(ip.dip + XFSJ_DINODE_CORE_SIZE + 2, 1);
	xfsj_put_be64(ip.dip + XFSJ_DINODE_CORE_SIZE + 4 + 8 * dmaxr,
		      1ULL << 60);
	ck_assert_int_eq(xfsj_bmap_read(fx.fs, &ip, 0, &got, &n, &fx.f),
			 -XFSJ_E_CORRUPT);
	ck_assert_str_eq(fx.f.field, "ptr");
	xfsj_put_be16(ip.dip + XFSJ_DINODE_CORE_SIZE + 2, 0);
	ck_assert_int_eq(xfsj_bmap_read(fx.fs, &ip, 0, &got, &n, &fx.f),
			 -XFSJ_E_CORRUPT);
	ck_assert_str_eq(fx.f.field, "numrecs");
	fs_fixture_free(&fx);
}
END_TEST

/* ---- big trees: splits, shifts, new roots, joins, borrows ---- */

#define DEEP_N		1200	/* extents, at even offsets */

static void deep_check(struct fs_fixture *fx, uint64_t ino,
		       const uint8_t *mapped, uint64_t p, unsigned int *height)
{
	struct xfsj_bmbt_irec *got;
	struct xfsj_iref ip;
	size_t n, k = 0;
	unsigned int blocks;

	*height = walk_tree(fx, ino, &blocks);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ck_assert_msg(xfsj_bmap_read(fx->fs, &ip, 0, &got, &n, &fx->f) == 0,
		      "read: %s %s", fx->f.structure, fx->f.field);
	for (unsigned int i = 0; i < DEEP_N; i++) {
		if (!mapped[i])
			continue;
		ck_assert_uint_lt(k, n);
		ck_assert_uint_eq(got[k].startoff, 2 * i);
		ck_assert_uint_eq(got[k].startblock, p + 2 * i);
		ck_assert_uint_eq(got[k].blockcount, 1);
		k++;
	}
	ck_assert_uint_eq(k, n);
	free(got);
	ck_assert_uint_eq(xfsj_dinode_nextents(&ip.di), n);
	ck_assert_uint_eq(ip.di.nblocks, n + blocks);
	ck_assert_int_eq(ip.di.format, n > maxext(fx) ? XFSJ_DINODE_FMT_BTREE :
							XFSJ_DINODE_FMT_EXTENTS);
	/* The reverse-mapping tree stays well formed throughout. */
	for (uint32_t agno = 0; agno < SB(fx)->agcount; agno++) {
		struct xfsj_btree_cur *cur;

		ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_RMAP, agno,
						    NULL, &fx->f, &cur), 0);
		ck_assert_int_eq(xfsj_btree_check(cur), 0);
		xfsj_btree_cur_free(cur);
	}
}

static int count_rmap_fn(struct xfsj_btree_cur *cur,
			 const union xfsj_btree_irec *rec, void *arg)
{
	uint64_t *a = arg;

	(void)cur;
	if (rec->r.owner != a[0])
		return 0;
	if (rec->r.offset & XFSJ_RMAP_OFF_BMBT_BLOCK)
		a[2] += rec->r.blockcount;	/* neighbours merge */
	else
		a[1]++;
	return 0;
}

static void rmap_counts(struct fs_fixture *fx, uint64_t ino, uint64_t *maps,
			uint64_t *bmbt)
{
	uint64_t a[3] = { ino, 0, 0 };

	for (uint32_t agno = 0; agno < SB(fx)->agcount; agno++) {
		struct xfsj_btree_cur *cur;

		ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_RMAP, agno,
						    NULL, &fx->f, &cur), 0);
		ck_assert_int_eq(xfsj_btree_query_all(cur, count_rmap_fn, a),
				 0);
		xfsj_btree_cur_free(cur);
	}
	*maps = a[1];
	*bmbt = a[2];
}

/* ---- the recovery walk over what the device holds ---- */

struct disk_count {
	unsigned int blocks, passed, level;
	bool skip_first, order_ok;
};

static int disk_count_fn(void *arg, const struct xfsj_bmbt_disk_blk *b,
			 struct xfsj_fault *f)
{
	struct disk_count *c = arg;

	(void)f;
	if (!b->data) {
		c->passed++;
		return XFSJ_BMBT_SKIP;
	}
	/* Level by level from the top. */
	if (b->level > c->level)
		c->order_ok = false;
	c->level = b->level;
	c->blocks++;
	return c->skip_first && c->blocks == 1 ? XFSJ_BMBT_SKIP : 0;
}

static struct disk_count disk_walk(struct fs_fixture *fx, const uint8_t *root,
				   uint32_t size, bool skip_first, int want)
{
	struct disk_count c = { 0, 0, ~0U, skip_first, true };
	int err = xfsj_bmbt_walk_disk(fx->ov, SB(fx), root, size, "inode",
				      disk_count_fn, &c, &fx->f);

	ck_assert_msg(err == want, "walk: %d (%s %s)", err, fx->f.structure,
		      fx->f.field);
	ck_assert(c.order_ok);
	return c;
}

/* The walk meets every block the fork's tree has, top level first. */
static void disk_walk_check(struct fs_fixture *fx, uint64_t ino,
			    unsigned int blocks)
{
	const struct xfsj_sb *sb = SB(fx);
	struct xfsj_iref ip;
	struct disk_count c;
	uint8_t root[512], *fork;
	uint32_t size, dmaxr;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	fork = xfsj_ifork(fx->fs, &ip, XFSJ_DATA_FORK, &size);
	ck_assert_uint_le(size, sizeof(root));
	memcpy(root, fork, size);
	c = disk_walk(fx, root, size, false, 0);
	ck_assert_uint_eq(c.blocks, blocks);
	ck_assert_uint_eq(c.passed, 0);
	/* The first block's subtree left alone: only it of its subtree. */
	c = disk_walk(fx, root, size, true, 0);
	ck_assert_uint_lt(c.blocks, blocks);
	/* A pointer outside the filesystem is reported and passed over. */
	dmaxr = (size - 4) / 16;
	xfsj_put_be64(root + 4 + 8 * dmaxr,
		      (uint64_t)sb->agcount << sb->agblklog);
	c = disk_walk(fx, root, size, false, 0);
	ck_assert_uint_eq(c.passed, 1);
	ck_assert_uint_lt(c.blocks, blocks);
	/* A root of level 0 is refused. */
	xfsj_put_be16(root, 0);
	disk_walk(fx, root, size, false, -XFSJ_E_CORRUPT);
	ck_assert_str_eq(fx->f.field, "bmdr root");
	memset(&fx->f, 0, sizeof(fx->f));
}

START_TEST(deep_tree)
{
	struct fs_fixture fx;
	static uint8_t mapped[DEEP_N];
	static unsigned int order[DEEP_N];
	unsigned int height = 0, maxh = 0, blocks;
	uint64_t ino, p, maps, bmbt;
	srand(7);
	memset(mapped, 0, sizeof(mapped));
	fs_fixture_make(&fx, 64 * MB, 1024, 2, true, false);
	ino = make_file(&fx, 13, 0, 0);
	p = pool_alloc(&fx, 2 * DEEP_N);
	for (unsigned int i = 0; i < DEEP_N; i++)
		order[i] = i;
	for (unsigned int i = DEEP_N - 1; i > 0; i--) {
		unsigned int j = (unsigned int)rand() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	/* In random order: splits anywhere, shifts, a new inode root. */
	for (unsigned int s = 0; s < DEEP_N; s++) {
		unsigned int i = order[s];
		struct xfsj_bmbt_irec rec = { 2 * i, p + 2 * i, 1, false };
		struct xfsj_iref ip;

		ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
		ck_assert_msg(xfsj_bmap_map(fx.fs, &ip, 0, &rec, &fx.f) == 0,
			      "map %u: %s %s", s, fx.f.structure, fx.f.field);
		xfsj_iput(fx.fs, &ip, true);
		ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
		mapped[i] = 1;
		if (s % 40 == 39 || s == DEEP_N - 1) {
			deep_check(&fx, ino, mapped, p, &height);
			maxh = height > maxh ? height : maxh;
		}
	}
	ck_assert_uint_ge(maxh, 2);
	rmap_counts(&fx, ino, &maps, &bmbt);
	walk_tree(&fx, ino, &blocks);
	ck_assert_uint_eq(maps, DEEP_N);
	ck_assert_uint_eq(bmbt, blocks);
	fs_fixture_reopen(&fx);
	deep_check(&fx, ino, mapped, p, &height);
	disk_walk_check(&fx, ino, blocks);
	/* Then unmapped in another random order: borrows, joins, back. */
	for (unsigned int s = 0; s < DEEP_N; s++) {
		unsigned int i = order[(s * 7 + 3) % DEEP_N];
		struct xfsj_iref ip;
		uint64_t done;

		ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
		ck_assert_msg(xfsj_bmap_unmap(fx.fs, &ip, 0, 2 * i, 1,
					      s % 2, &done, &fx.f) == 0,
			      "unmap %u: %s %s", s, fx.f.structure,
			      fx.f.field);
		ck_assert_uint_eq(done, 1);
		xfsj_iput(fx.fs, &ip, true);
		ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
		mapped[i] = 0;
		if (s % 40 == 39 || s > DEEP_N - 30)
			deep_check(&fx, ino, mapped, p, &height);
		if (s % 300 == 299)
			fs_fixture_reopen(&fx);
	}
	ck_assert_uint_eq(height, 0);
	rmap_counts(&fx, ino, &maps, &bmbt);
	ck_assert_uint_eq(maps, 0);
	ck_assert_uint_eq(bmbt, 0);
	fs_fixture_free(&fx);
}
END_TEST

/* A middle split of an extent in a full leaf goes through the split. */
START_TEST(split_in_middle)
{
	struct fs_fixture fx;
	static struct model m;
	uint64_t ino, p;

	memset(&m, 0, sizeof(m));
	fs_fixture_make(&fx, 64 * MB, 1024, 2, true, false);
	ino = make_file(&fx, 14, 0, 0);
	p = pool_alloc(&fx, POOL);
	/* 59 records fill a 1 KiB leaf; punch holes into each of them. */
	for (uint64_t o = 0; o + 4 <= FILE_BLOCKS && o / 5 < 60; o += 5)
		do_map(&fx, ino, &m, o, p + o + (o / 5 % 2) * FILE_BLOCKS / 2,
		       4, false);
	check(&fx, ino, &m, 0);
	for (uint64_t o = 1; o < FILE_BLOCKS; o += 10)
		do_unmap(&fx, ino, &m, o, 1, false);
	check(&fx, ino, &m, 1);
	fs_fixture_free(&fx);
}
END_TEST

Suite *bmap_suite(void)
{
	Suite *s = suite_create("bmap");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, merge_cases);
	tcase_add_test(tc, maxextlen);
	tcase_add_loop_test(tc, random_rmap, 0, 2);
	tcase_add_test(tc, random_plain);
	tcase_add_test(tc, btree_and_back);
	tcase_add_test(tc, alloc_and_first_unused);
	tcase_add_test(tc, attr_fork);
	tcase_add_test(tc, reflink_unmap);
	tcase_add_test(tc, bui_finish);
	tcase_add_test(tc, hostile_root);
	tcase_add_test(tc, deep_tree);
	tcase_add_test(tc, split_in_middle);
	suite_add_tcase(s, tc);
	return s;
}
