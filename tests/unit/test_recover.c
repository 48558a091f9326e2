/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replay of inode log items with DOWNER/AOWNER: what an extent swap
 * without rmapbt leaves in the log.  A file whose fork is a bmap btree is
 * made on the in-memory filesystem, the owner of every block of that
 * btree is set to another inode (the state on disk when the swap's
 * ordered buffers did not get there), and an inode item built by hand,
 * as Linux on x86 logs it, is replayed through the public recovery API.
 */
#include <stdlib.h>
#include <string.h>

#include "fs_fixture.h"
#include "suites.h"
#include "fs/alloc.h"
#include "fs/bmap.h"
#include "core/crc32c.h"
#include "fs/defer.h"
#include "core/layout.h"
#include "xfsj/recover.h"
#include "recover/recover_priv.h"

#define MB		(1ULL << 20)
#define BS		1024
#define LSN0		(1ULL << 32)	/* what the fixture's handle stamps */
#define TRANS_LSN	(LSN0 + 100)
#define OTHER_SLOT	9		/* the inode the swap took it from */
#define MAX_BLOCKS	128		/* bmbt blocks a test tree may have */
#define BROOT_MAX	(XFSJ_LBLOCK_HDR_SIZE + 32 * 16)

struct tree {
	struct fs_fixture fx;
	uint64_t ino, other;
	uint64_t ioff;			/* byte offset of the inode */
	int whichfork;
	uint32_t fork_off, fork_size;	/* of the fork in the inode */
	unsigned int level;		/* of the root in the inode */
	unsigned int nblocks, nleaves;
	uint64_t daddr[MAX_BLOCKS];
	uint8_t *saved;			/* nblocks blocks, as before replay */
};

/* What the hand-made inode item holds. */
struct ino_item {
	uint8_t fmt[56];
	uint8_t core[XFSJ_DINODE_CORE_SIZE];
	uint8_t broot[BROOT_MAX];
	struct xfsj_region reg[3];
	struct xfsj_ritem it;
	struct xfsj_rtrans t;
};

static void ov_read(struct tree *tr, void *buf, size_t len, uint64_t off)
{
	ck_assert_int_eq(xfsj_overlay_read(tr->fx.ov, buf, len, off), 0);
}

static void ov_write(struct tree *tr, const void *buf, size_t len,
		     uint64_t off)
{
	ck_assert_int_eq(xfsj_overlay_write(tr->fx.ov, buf, len, off), 0);
}

static uint64_t fsb_daddr(const struct xfsj_sb *sb, uint64_t fsb)
{
	ck_assert_uint_lt(xfsj_fsb_agno(sb, fsb), sb->agcount);
	ck_assert_uint_lt(xfsj_fsb_agbno(sb, fsb), sb->agblocks);
	return xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
				 xfsj_fsb_agbno(sb, fsb));
}

/* Every block under @fsb (at @level), in the overlay, into tr->daddr. */
static void collect(struct tree *tr, uint64_t fsb, unsigned int level)
{
	const struct xfsj_sb *sb = &tr->fx.sb;
	uint32_t m = (sb->blocksize - XFSJ_LBLOCK_HDR_SIZE) / 16;
	uint8_t *b = malloc(sb->blocksize);
	uint64_t daddr = fsb_daddr(sb, fsb);
	unsigned int n;

	ck_assert_ptr_nonnull(b);
	ov_read(tr, b, sb->blocksize, daddr << 9);
	ck_assert_uint_eq(xfsj_get_be32(b), XFSJ_BMAP_MAGIC);
	ck_assert_uint_eq(xfsj_get_be16(b + 4), level);
	ck_assert_uint_eq(xfsj_get_be64(b + 56), tr->ino);
	ck_assert(xfsj_cksum_ok(b, sb->blocksize, XFSJ_LBLOCK_CRC_OFF));
	ck_assert_uint_lt(tr->nblocks, MAX_BLOCKS);
	tr->daddr[tr->nblocks++] = daddr;
	n = xfsj_get_be16(b + 6);
	ck_assert_uint_ge(n, 1);
	ck_assert_uint_le(n, m);
	if (!level)
		tr->nleaves++;
	for (unsigned int i = 0; level && i < n; i++) {
		const uint8_t *ptr = b + XFSJ_LBLOCK_HDR_SIZE + (m + i) * 8;

		collect(tr, xfsj_get_be64(ptr), level - 1);
	}
	free(b);
}

/*
 * A filesystem with a regular file whose fork @whichfork holds @next
 * single-block extents at every other offset and block: a bmap btree.
 * @forkoff is the file's attribute fork offset (0: none).  Everything is
 * flushed into the overlay and the btree's blocks listed.
 */
static void tree_make(struct tree *tr, int whichfork, uint8_t forkoff,
		      unsigned int next)
{
	struct fs_fixture *fx = &tr->fx;
	const struct xfsj_sb *sb;
	struct xfsj_iref ip;
	uint64_t flags2 = 0, p;
	uint32_t agbno, maxrecs;
	uint8_t dip[4096];
	const uint8_t *root;

	memset(tr, 0, sizeof(*tr));
	fs_fixture_make(fx, 64 * MB, BS, 2, false, false);
	sb = &fx->sb;
	if (sb->features_incompat & XFSJ_INCOMPAT_NREXT64)
		flags2 |= XFSJ_DIFLAG2_NREXT64;
	tr->whichfork = whichfork;
	tr->ino = fs_fixture_make_file(fx, 5, 3, flags2, forkoff, &ip);
	tr->other = fs_fixture_make_file(fx, OTHER_SLOT, 4, flags2, forkoff,
					 &ip);
	ck_assert_int_eq(xfsj_alloc_extent(fx->fs, 0, 0, 2 * next, NULL,
					   &agbno, &fx->f), 0);
	p = xfsj_agb_to_fsb(sb, 0, agbno);
	for (unsigned int i = 0; i < next; i++) {
		struct xfsj_bmbt_irec rec = { 2 * i, p + 2 * i, 1, false };

		ck_assert_int_eq(xfsj_iget(fx->fs, tr->ino, false, &ip,
					   &fx->f), 0);
		ck_assert_msg(xfsj_bmap_map(fx->fs, &ip, whichfork, &rec,
					    &fx->f) == 0, "map %u: %s %s", i,
			      fx->f.structure, fx->f.field);
		xfsj_iput(fx->fs, &ip, true);
		ck_assert_int_eq(xfsj_defer_finish(fx->fs, &fx->f), 0);
	}
	ck_assert_int_eq(xfsj_iget(fx->fs, tr->ino, false, &ip, &fx->f), 0);
	tr->ioff = ip.byte_off;
	fs_fixture_reopen(fx);

	/* The fork, as the overlay has it: a btree root of level >= 1. */
	ck_assert_uint_le(sb->inodesize, sizeof(dip));
	ov_read(tr, dip, sb->inodesize, tr->ioff);
	ck_assert_uint_eq(xfsj_get_be64(dip + 112), LSN0);
	tr->fork_off = XFSJ_DINODE_CORE_SIZE;
	tr->fork_size = sb->inodesize - XFSJ_DINODE_CORE_SIZE;
	if (forkoff) {
		ck_assert_uint_eq(dip[82], forkoff);
		if (whichfork == XFSJ_ATTR_FORK) {
			tr->fork_off += forkoff * 8U;
			tr->fork_size -= forkoff * 8U;
		} else {
			tr->fork_size = forkoff * 8U;
		}
	}
	ck_assert_int_eq(dip[whichfork == XFSJ_ATTR_FORK ? 83 : 5],
			 XFSJ_DINODE_FMT_BTREE);
	root = dip + tr->fork_off;
	maxrecs = (tr->fork_size - 4) / 16;
	tr->level = xfsj_get_be16(root);
	ck_assert_uint_ge(tr->level, 1);
	ck_assert_uint_ge(xfsj_get_be16(root + 2), 1);
	ck_assert_uint_le(xfsj_get_be16(root + 2), maxrecs);
	for (unsigned int i = 0; i < xfsj_get_be16(root + 2); i++)
		collect(tr, xfsj_get_be64(root + 4 + (maxrecs + i) * 8),
			tr->level - 1);
	ck_assert_uint_ge(tr->nleaves, 2);
	tr->saved = malloc((size_t)tr->nblocks * sb->blocksize);
	ck_assert_ptr_nonnull(tr->saved);
}

static void tree_free(struct tree *tr)
{
	free(tr->saved);
	fs_fixture_free(&tr->fx);
}

/*
 * Give every block of the btree @owner, CRC recomputed and LSN kept: the
 * swap's ordered buffers never reached the disk.
 */
static void set_owners(struct tree *tr, uint64_t owner)
{
	uint32_t bs = tr->fx.sb.blocksize;
	uint8_t *b = malloc(bs);

	ck_assert_ptr_nonnull(b);
	for (unsigned int i = 0; i < tr->nblocks; i++) {
		ov_read(tr, b, bs, tr->daddr[i] << 9);
		xfsj_put_be64(b + 56, owner);
		xfsj_cksum_update(b, bs, XFSJ_LBLOCK_CRC_OFF);
		ov_write(tr, b, bs, tr->daddr[i] << 9);
	}
	free(b);
}

/* Keep the btree's blocks as they are now, for the checks. */
static void save_blocks(struct tree *tr)
{
	uint32_t bs = tr->fx.sb.blocksize;

	for (unsigned int i = 0; i < tr->nblocks; i++)
		ov_read(tr, tr->saved + (size_t)i * bs, bs, tr->daddr[i] << 9);
}

/*
 * Every block of the btree names @owner, has a good CRC, and is what was
 * saved but for owner and CRC (its LSN in particular is untouched); with
 * @same, byte for byte what was saved.
 */
static void check_blocks(struct tree *tr, uint64_t owner, bool same)
{
	uint32_t bs = tr->fx.sb.blocksize;
	uint8_t *b = malloc(bs);

	ck_assert_ptr_nonnull(b);
	for (unsigned int i = 0; i < tr->nblocks; i++) {
		const uint8_t *old = tr->saved + (size_t)i * bs;

		ov_read(tr, b, bs, tr->daddr[i] << 9);
		ck_assert_uint_eq(xfsj_get_be64(b + 56), owner);
		ck_assert(xfsj_cksum_ok(b, bs, XFSJ_LBLOCK_CRC_OFF));
		ck_assert_uint_eq(xfsj_get_be64(b + 32),
				  xfsj_get_be64(old + 32));
		ck_assert_uint_eq(xfsj_get_be64(b + 32), LSN0);
		if (same) {
			ck_assert(memcmp(b, old, bs) == 0);
			continue;
		}
		ck_assert(memcmp(b, old, 56) == 0);
		ck_assert(memcmp(b + 68, old + 68, bs - 68) == 0);
	}
	free(b);
}

/*
 * The log dinode of the on-disk core @dip as Linux on x86 logs it: every
 * integer in host (little-endian) order, legacy timestamps as two host
 * order 32-bit words (seconds first).
 */
static void log_dinode(const uint8_t *dip, uint8_t *ld)
{
	static const unsigned int ts_offs[] = { 32, 40, 48, 144 };
	const struct xfsj_layout *l = &xfsj_dinode_layout;

	memcpy(ld, dip, XFSJ_DINODE_CORE_SIZE);
	for (unsigned int i = 0; i < l->nfields; i++) {
		const struct xfsj_field *fl = &l->fields[i];
		unsigned int sz;

		switch (fl->kind) {
		case XFSJ_K_U16: sz = 2; break;
		case XFSJ_K_U32: sz = 4; break;
		case XFSJ_K_U64: sz = 8; break;
		default: continue;
		}
		for (unsigned int j = 0; j < sz; j++)
			ld[fl->disk_off + j] = dip[fl->disk_off + sz - 1 - j];
	}
	if (xfsj_get_be64(dip + 120) & XFSJ_DIFLAG2_BIGTIME)
		return;
	for (unsigned int i = 0; i < 4; i++) {
		const uint8_t *s = dip + ts_offs[i];

		xfsj_put_le32(ld + ts_offs[i], xfsj_get_be32(s));
		xfsj_put_le32(ld + ts_offs[i] + 4, xfsj_get_be32(s + 4));
	}
}

/*
 * The in-memory form of the on-disk bmdr root @root of a fork of @size
 * bytes: a long btree block header, then the keys, then the pointers,
 * as many slots of each as there are records.  Returns its length.
 */
static uint32_t broot_of(const struct tree *tr, const uint8_t *root,
			 uint32_t size, uint8_t *out)
{
	uint32_t n = xfsj_get_be16(root + 2), dmax = (size - 4) / 16;
	uint32_t len = XFSJ_LBLOCK_HDR_SIZE + n * 16;

	ck_assert_uint_le(len, BROOT_MAX);
	memset(out, 0, len);
	xfsj_put_be32(out, XFSJ_BMAP_MAGIC);
	xfsj_put_be16(out + 4, xfsj_get_be16(root));
	xfsj_put_be16(out + 6, (uint16_t)n);
	xfsj_put_be64(out + 8, XFSJ_NULLFSBLOCK);
	xfsj_put_be64(out + 16, XFSJ_NULLFSBLOCK);
	xfsj_put_be64(out + 24, UINT64_MAX);
	memcpy(out + 40, tr->fx.sb.uuid, 16);
	xfsj_put_be64(out + 56, tr->ino);
	memcpy(out + XFSJ_LBLOCK_HDR_SIZE, root + 4, n * 8);
	memcpy(out + XFSJ_LBLOCK_HDR_SIZE + n * 8, root + 4 + dmax * 8, n * 8);
	return len;
}

/*
 * One transaction at @lsn holding one inode item for the file: its core
 * and the btree root of the tree's fork (from the overlay), @flags on
 * top of CORE and the fork's BROOT flag.  The buffer it names is the
 * filesystem block holding the inode.
 */
static void item_make(struct tree *tr, struct ino_item *x, uint32_t flags,
		      uint64_t lsn)
{
	const struct xfsj_sb *sb = &tr->fx.sb;
	bool attr = tr->whichfork == XFSJ_ATTR_FORK;
	uint32_t fields = XFSJ_ILOG_CORE | flags;
	uint64_t blk = tr->ioff & ~(uint64_t)(sb->blocksize - 1);
	uint8_t dip[4096];
	uint32_t blen;

	memset(x, 0, sizeof(*x));
	ov_read(tr, dip, sb->inodesize, tr->ioff);
	log_dinode(dip, x->core);
	blen = broot_of(tr, dip + tr->fork_off, tr->fork_size, x->broot);
	fields |= attr ? XFSJ_ILOG_ABROOT : XFSJ_ILOG_DBROOT;

	xfsj_put_le16(x->fmt, XFSJ_LI_INODE);
	xfsj_put_le16(x->fmt + 2, 3);			/* regions */
	xfsj_put_le32(x->fmt + 4, fields);
	xfsj_put_le16(x->fmt + 8, attr ? (uint16_t)blen : 0);	/* asize */
	xfsj_put_le16(x->fmt + 10, attr ? 0 : (uint16_t)blen);	/* dsize */
	xfsj_put_le64(x->fmt + 16, tr->ino);
	xfsj_put_le64(x->fmt + 40, blk >> 9);		/* blkno (daddr) */
	xfsj_put_le32(x->fmt + 48, sb->blocksize >> 9);	/* len */
	xfsj_put_le32(x->fmt + 52, (uint32_t)(tr->ioff - blk)); /* boffset */

	x->reg[0] = (struct xfsj_region){ x->fmt, sizeof(x->fmt) };
	x->reg[1] = (struct xfsj_region){ x->core, sizeof(x->core) };
	x->reg[2] = (struct xfsj_region){ x->broot, blen };
	x->it = (struct xfsj_ritem){ XFSJ_LI_INODE, 3, x->reg };
	x->t = (struct xfsj_rtrans){ .lsn = lsn, .tid = 0x77,
				     .nitems = 1, .items = &x->it };
}

/* Replay @x (pass 1 then pass 2) and copy out the stats. */
static void replay(struct tree *tr, const struct ino_item *x,
		   struct xfsj_recover_stats *st)
{
	struct xfsj_recover *rc;
	struct xfsj_fault f = { 0 };

	ck_assert_int_eq(xfsj_recover_create(tr->fx.ov, &tr->fx.sb, &rc), 0);
	ck_assert_int_eq(xfsj_recover_pass1(rc, &x->t, &f), 0);
	ck_assert_msg(xfsj_recover_pass2(rc, &x->t, &f) == 0,
		      "pass 2: %s %s", f.structure ? f.structure : "",
		      f.field ? f.field : "");
	*st = *xfsj_recover_stats(rc);
	xfsj_recover_free(rc);
}

/*
 * The inode after a replay that was not skipped: its core and the used
 * part of the fork root as before, the transaction's LSN, a good CRC.
 */
static void check_inode_replayed(struct tree *tr, const uint8_t *before,
				 uint64_t lsn)
{
	uint32_t isize = tr->fx.sb.inodesize;
	uint32_t n = xfsj_get_be16(before + tr->fork_off + 2);
	uint32_t dmax = (tr->fork_size - 4) / 16;
	uint8_t dip[4096];
	const uint8_t *r0 = before + tr->fork_off, *r1 = dip + tr->fork_off;

	ov_read(tr, dip, isize, tr->ioff);
	ck_assert(xfsj_cksum_ok(dip, isize, XFSJ_DINODE_CRC_OFF));
	ck_assert_uint_eq(xfsj_get_be64(dip + 112), lsn);
	ck_assert(memcmp(dip, before, XFSJ_DINODE_CRC_OFF) == 0);
	ck_assert(memcmp(dip + 104, before + 104, 8) == 0);
	ck_assert(memcmp(dip + 120, before + 120,
			 XFSJ_DINODE_CORE_SIZE - 120) == 0);
	ck_assert(memcmp(r1, r0, 4 + n * 8) == 0);
	ck_assert(memcmp(r1 + 4 + dmax * 8, r0 + 4 + dmax * 8, n * 8) == 0);
}

/* ---- tests ---- */

/*
 * DOWNER: every block of the data fork's btree, left naming the other
 * inode, names the file again; LSNs kept.  _i 0: a root of level 1,
 * _i 1: level 2 or more (the walk goes down through interior blocks).
 */
START_TEST(downer_sets_owner)
{
	static struct tree tr;
	struct ino_item x;
	struct xfsj_recover_stats st;
	uint8_t before[4096];

	tree_make(&tr, XFSJ_DATA_FORK, 0, _i ? 1500 : 150);
	ck_assert_uint_ge(tr.level, (_i ? 2U : 1U));
	set_owners(&tr, tr.other);
	save_blocks(&tr);
	ov_read(&tr, before, tr.fx.sb.inodesize, tr.ioff);
	item_make(&tr, &x, XFSJ_ILOG_DOWNER, TRANS_LSN);
	replay(&tr, &x, &st);
	ck_assert_uint_eq(st.inodes_replayed, 1);
	ck_assert_uint_eq(st.inodes_skipped_lsn, 0);
	ck_assert_uint_eq(st.owner_items, 1);
	ck_assert_uint_eq(st.owners_changed, tr.nblocks);
	ck_assert_uint_eq(st.owners_passed, 0);
	check_blocks(&tr, tr.ino, false);
	check_inode_replayed(&tr, before, TRANS_LSN);
	tree_free(&tr);
}
END_TEST

/* Owners already right: nothing is rewritten, not a byte. */
START_TEST(downer_owner_already_right)
{
	static struct tree tr;
	struct ino_item x;
	struct xfsj_recover_stats st;
	uint8_t before[4096];

	tree_make(&tr, XFSJ_DATA_FORK, 0, 150);
	save_blocks(&tr);
	ov_read(&tr, before, tr.fx.sb.inodesize, tr.ioff);
	item_make(&tr, &x, XFSJ_ILOG_DOWNER, TRANS_LSN);
	replay(&tr, &x, &st);
	ck_assert_uint_eq(st.inodes_replayed, 1);
	ck_assert_uint_eq(st.owner_items, 1);
	ck_assert_uint_eq(st.owners_changed, 0);
	check_blocks(&tr, tr.ino, true);
	check_inode_replayed(&tr, before, TRANS_LSN);
	tree_free(&tr);
}
END_TEST

/* The same inode item without DOWNER leaves the wrong owners alone. */
START_TEST(no_downer_no_change)
{
	static struct tree tr;
	struct ino_item x;
	struct xfsj_recover_stats st;
	uint8_t before[4096];

	tree_make(&tr, XFSJ_DATA_FORK, 0, 150);
	set_owners(&tr, tr.other);
	save_blocks(&tr);
	ov_read(&tr, before, tr.fx.sb.inodesize, tr.ioff);
	item_make(&tr, &x, 0, TRANS_LSN);
	replay(&tr, &x, &st);
	ck_assert_uint_eq(st.inodes_replayed, 1);
	ck_assert_uint_eq(st.owner_items, 0);
	ck_assert_uint_eq(st.owners_changed, 0);
	check_blocks(&tr, tr.other, true);
	check_inode_replayed(&tr, before, TRANS_LSN);
	tree_free(&tr);
}
END_TEST

/*
 * The inode on disk is newer than the item (di_lsn beyond the
 * transaction's): the v5 rule skips the inode, which stays byte for byte
 * as it is.  The btree blocks need not be newer, so with DOWNER (_i 0)
 * their owner is still set, as the kernel does; without (_i 1) nothing
 * changes.
 */
START_TEST(lsn_skip)
{
	static struct tree tr;
	struct ino_item x;
	struct xfsj_recover_stats st;
	uint32_t isize;
	uint8_t dip[4096], after[4096];

	tree_make(&tr, XFSJ_DATA_FORK, 0, 150);
	isize = tr.fx.sb.inodesize;
	set_owners(&tr, tr.other);
	save_blocks(&tr);
	item_make(&tr, &x, _i ? 0 : XFSJ_ILOG_DOWNER, TRANS_LSN);
	ov_read(&tr, dip, isize, tr.ioff);
	xfsj_put_be64(dip + 112, TRANS_LSN + 50);
	xfsj_cksum_update(dip, isize, XFSJ_DINODE_CRC_OFF);
	ov_write(&tr, dip, isize, tr.ioff);
	replay(&tr, &x, &st);
	ck_assert_uint_eq(st.inodes_replayed, 0);
	ck_assert_uint_eq(st.inodes_skipped_lsn, 1);
	ck_assert_uint_eq(st.owner_items, (_i ? 0U : 1U));
	ck_assert_uint_eq(st.owners_changed, (_i ? 0U : tr.nblocks));
	check_blocks(&tr, _i ? tr.other : tr.ino, _i);
	ov_read(&tr, after, isize, tr.ioff);
	ck_assert(memcmp(after, dip, isize) == 0);
	tree_free(&tr);
}
END_TEST

/*
 * A leaf the disk holds in a version newer than the transaction (_i 0:
 * an LSN beyond it, the leaf logged again since) or no longer holds as a
 * bmbt block (_i 1: reused for file data) is passed over, not failed on
 * nor rewritten; the other blocks get their owner.
 */
START_TEST(passed_over)
{
	static struct tree tr;
	struct ino_item x;
	struct xfsj_recover_stats st;
	uint32_t bs;
	uint8_t *leaf;
	unsigned int k;

	tree_make(&tr, XFSJ_DATA_FORK, 0, 150);
	bs = tr.fx.sb.blocksize;
	set_owners(&tr, tr.other);
	/* The last block listed is a leaf. */
	k = tr.nblocks - 1;
	leaf = malloc(bs);
	ck_assert_ptr_nonnull(leaf);
	ov_read(&tr, leaf, bs, tr.daddr[k] << 9);
	if (_i) {
		memset(leaf, 0xa5, bs);
	} else {
		xfsj_put_be64(leaf + 32, TRANS_LSN + 7);
		xfsj_cksum_update(leaf, bs, XFSJ_LBLOCK_CRC_OFF);
	}
	ov_write(&tr, leaf, bs, tr.daddr[k] << 9);
	save_blocks(&tr);
	item_make(&tr, &x, XFSJ_ILOG_DOWNER, TRANS_LSN);
	replay(&tr, &x, &st);
	ck_assert_uint_eq(st.inodes_replayed, 1);
	ck_assert_uint_eq(st.owner_items, 1);
	ck_assert_uint_eq(st.owners_changed, tr.nblocks - 1);
	ck_assert_uint_eq(st.owners_passed, 1);
	ov_read(&tr, leaf, bs, tr.daddr[k] << 9);
	ck_assert(memcmp(leaf, tr.saved + (size_t)k * bs, bs) == 0);
	tr.nblocks--;
	check_blocks(&tr, tr.ino, false);
	free(leaf);
	tree_free(&tr);
}
END_TEST

/* AOWNER: the same for an attribute fork in btree format. */
START_TEST(aowner_sets_owner)
{
	static struct tree tr;
	struct ino_item x;
	struct xfsj_recover_stats st;
	uint8_t before[4096];

	tree_make(&tr, XFSJ_ATTR_FORK, 20, 150);
	set_owners(&tr, tr.other);
	save_blocks(&tr);
	ov_read(&tr, before, tr.fx.sb.inodesize, tr.ioff);
	item_make(&tr, &x, XFSJ_ILOG_AOWNER, TRANS_LSN);
	replay(&tr, &x, &st);
	ck_assert_uint_eq(st.inodes_replayed, 1);
	ck_assert_uint_eq(st.owner_items, 1);
	ck_assert_uint_eq(st.owners_changed, tr.nblocks);
	ck_assert_uint_eq(st.owners_passed, 0);
	check_blocks(&tr, tr.ino, false);
	check_inode_replayed(&tr, before, TRANS_LSN);
	tree_free(&tr);
}
END_TEST

/*
 * The v5 LSN rule when checkpoints share a start LSN.  Several
 * checkpoints can start in one log record; the kernel writes (and so
 * stamps) the buffers of one start LSN only once all of them are
 * replayed, so each replays its buffer changes over the previous one's.
 * An LSN equal to the transaction's that the disk already had, on the
 * other hand, means the change is there: skipped.
 */
struct buf_item {
	uint8_t fmt[24];
	uint8_t chunk[128];
	struct xfsj_region reg[2];
	struct xfsj_ritem it;
	struct xfsj_rtrans t;
};

/* One transaction at @lsn logging chunk 1 of the block at @daddr. */
static void buf_make(struct buf_item *x, uint64_t daddr, uint32_t len,
		     uint8_t fill, uint64_t lsn)
{
	memset(x, 0, sizeof(*x));
	xfsj_put_le16(x->fmt, XFSJ_LI_BUF);
	xfsj_put_le16(x->fmt + 2, 2);			/* regions */
	xfsj_put_le16(x->fmt + 6, (uint16_t)(len >> 9));	/* blf_len */
	xfsj_put_le64(x->fmt + 8, daddr);
	xfsj_put_le32(x->fmt + 16, 1);			/* map size */
	xfsj_put_le32(x->fmt + 20, 1U << 1);		/* chunk 1 */
	memset(x->chunk, fill, sizeof(x->chunk));
	x->reg[0] = (struct xfsj_region){ x->fmt, sizeof(x->fmt) };
	x->reg[1] = (struct xfsj_region){ x->chunk, sizeof(x->chunk) };
	x->it = (struct xfsj_ritem){ XFSJ_LI_BUF, 2, x->reg };
	x->t = (struct xfsj_rtrans){ .lsn = lsn, .tid = 0x78, .nitems = 1,
				     .items = &x->it };
}

static void buf_pass2(struct xfsj_recover *rc, const struct buf_item *x)
{
	struct xfsj_fault f = { 0 };

	ck_assert_int_eq(xfsj_recover_pass2(rc, &x->t, &f), 0);
}

START_TEST(shared_start_lsn)
{
	static struct tree tr;
	struct buf_item a, b, c;
	struct xfsj_recover *rc;
	uint8_t blk[BS];
	uint64_t daddr;

	tree_make(&tr, XFSJ_DATA_FORK, 0, 150);
	daddr = tr.daddr[tr.nblocks - 1];	/* a leaf, in 512-byte units */

	/* Two checkpoints of one start LSN: the second replays too. */
	ck_assert_int_eq(xfsj_recover_create(tr.fx.ov, &tr.fx.sb, &rc), 0);
	buf_make(&a, daddr, BS, 0xa1, TRANS_LSN);
	buf_make(&b, daddr, BS, 0xb2, TRANS_LSN);
	buf_pass2(rc, &a);
	buf_pass2(rc, &b);
	ck_assert_uint_eq(xfsj_recover_stats(rc)->bufs_replayed, 2);
	ck_assert_uint_eq(xfsj_recover_stats(rc)->bufs_skipped_lsn, 0);
	/* A later start LSN: the group ends; equal LSNs now mean "done". */
	buf_make(&c, daddr, BS, 0xc3, TRANS_LSN + 8);
	buf_pass2(rc, &c);
	buf_make(&c, daddr, BS, 0xd4, TRANS_LSN);
	buf_pass2(rc, &c);
	ck_assert_uint_eq(xfsj_recover_stats(rc)->bufs_skipped_lsn, 1);
	xfsj_recover_free(rc);
	ov_read(&tr, blk, BS, daddr << 9);
	ck_assert_uint_eq(blk[128], 0xc3);
	ck_assert_uint_eq(blk[255], 0xc3);
	ck_assert_uint_eq(xfsj_get_be64(blk + 32), TRANS_LSN + 8);
	ck_assert(xfsj_cksum_ok(blk, BS, XFSJ_LBLOCK_CRC_OFF));

	/* A new replay: the disk's own LSN equal to the transaction's. */
	ck_assert_int_eq(xfsj_recover_create(tr.fx.ov, &tr.fx.sb, &rc), 0);
	buf_make(&a, daddr, BS, 0xe5, TRANS_LSN + 8);
	buf_pass2(rc, &a);
	ck_assert_uint_eq(xfsj_recover_stats(rc)->bufs_skipped_lsn, 1);
	xfsj_recover_free(rc);
	ov_read(&tr, blk, BS, daddr << 9);
	ck_assert_uint_eq(blk[128], 0xc3);
	tree_free(&tr);
}
END_TEST

/*
 * A growfs in the log: the primary superblock's buffer item, once
 * replayed, gives the recovery its geometry (the kernel's rule since it
 * replays later transactions into the new AGs); AGs going away or a
 * change to what a growfs never changes fails the replay.
 */
struct sb_item {
	uint8_t fmt[24];
	uint8_t data[512];
	struct xfsj_region reg[2];
	struct xfsj_ritem it;
	struct xfsj_rtrans t;
};

/* The whole primary superblock sector @sect, logged at @lsn. */
static void sb_item_make(struct sb_item *x, const uint8_t *sect, uint64_t lsn)
{
	memset(x, 0, sizeof(*x));
	xfsj_put_le16(x->fmt, XFSJ_LI_BUF);
	xfsj_put_le16(x->fmt + 2, 2);
	xfsj_put_le16(x->fmt + 4, XFSJ_BLFT_SB << XFSJ_BLFT_SHIFT);
	xfsj_put_le16(x->fmt + 6, 1);			/* one sector */
	xfsj_put_le64(x->fmt + 8, 0);			/* daddr 0 */
	xfsj_put_le32(x->fmt + 16, 1);
	xfsj_put_le32(x->fmt + 20, 0xf);		/* chunks 0-3 */
	memcpy(x->data, sect, sizeof(x->data));
	x->reg[0] = (struct xfsj_region){ x->fmt, sizeof(x->fmt) };
	x->reg[1] = (struct xfsj_region){ x->data, sizeof(x->data) };
	x->it = (struct xfsj_ritem){ XFSJ_LI_BUF, 2, x->reg };
	x->t = (struct xfsj_rtrans){ .lsn = lsn, .tid = 0x79, .nitems = 1,
				     .items = &x->it };
}

START_TEST(growfs_followed)
{
	static struct fs_fixture fx;
	struct xfsj_recover *rc;
	struct xfsj_fault f = { 0 };
	struct xfsj_sb before, sb;
	struct sb_item x;
	uint8_t sect[512], grown[512];

	/* Three AGs on disk; the recovery starts from a two-AG view. */
	fs_fixture_make(&fx, 96 * MB, BS, 3, false, false);
	ck_assert_int_eq(xfsj_overlay_read(fx.ov, grown, sizeof(grown), 0), 0);
	before = fx.sb;
	before.agcount = 2;
	before.dblocks = 2ULL * before.agblocks;
	ck_assert_int_eq(xfsj_recover_create(fx.ov, &before, &rc), 0);
	ck_assert_uint_eq(xfsj_recover_sb(rc)->agcount, 2);
	sb_item_make(&x, grown, TRANS_LSN);
	ck_assert_int_eq(xfsj_recover_pass2(rc, &x.t, &f), 0);
	ck_assert_uint_eq(xfsj_recover_sb(rc)->agcount, 3);
	ck_assert_uint_eq(xfsj_recover_sb(rc)->dblocks, fx.sb.dblocks);

	/* Then a superblock with fewer AGs again: refused. */
	xfsj_sb_decode(grown, &sb);
	sb.agcount = 2;
	sb.dblocks = 2ULL * sb.agblocks;
	memcpy(sect, grown, sizeof(sect));
	xfsj_layout_encode(&xfsj_sb_layout, &sb, sect);
	sb_item_make(&x, sect, TRANS_LSN + 8);
	ck_assert_int_ne(xfsj_recover_pass2(rc, &x.t, &f), 0);
	ck_assert_str_eq(f.field, "agcount");
	xfsj_recover_free(rc);

	/* A growfs never changes the AG size. */
	ck_assert_int_eq(xfsj_recover_create(fx.ov, &before, &rc), 0);
	xfsj_sb_decode(grown, &sb);
	sb.agblocks /= 2;
	memcpy(sect, grown, sizeof(sect));
	xfsj_layout_encode(&xfsj_sb_layout, &sb, sect);
	sb_item_make(&x, sect, TRANS_LSN + 16);
	memset(&f, 0, sizeof(f));
	ck_assert_int_ne(xfsj_recover_pass2(rc, &x.t, &f), 0);
	ck_assert_str_eq(f.field, "agblocks");
	ck_assert_uint_eq(xfsj_recover_sb(rc)->agcount, 2);
	xfsj_recover_free(rc);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A buffer the log names inside the internal log, or past the end of the
 * filesystem, comes only from a damaged log: refused, nothing written
 * (found by repair-corrupt: a flipped bit of blf_blkno landed in the log,
 * whose replay then overwrote the log it was replaying).
 */
START_TEST(buffer_in_log_refused)
{
	static struct fs_fixture fx;
	struct xfsj_recover *rc;
	struct xfsj_fault f = { 0 };
	struct buf_item x;
	const struct xfsj_sb *sb;
	uint64_t logd, endd;

	fs_fixture_make(&fx, 64 * MB, BS, 2, false, false);
	sb = &fx.sb;
	ck_assert_uint_ne(sb->logstart, 0);
	logd = ((sb->logstart >> sb->agblklog) * sb->agblocks +
		(sb->logstart & ((1ULL << sb->agblklog) - 1))) <<
	       (sb->blocklog - 9);
	endd = sb->dblocks << (sb->blocklog - 9);
	ck_assert_int_eq(xfsj_recover_create(fx.ov, sb, &rc), 0);
	/* The middle of the log, its last sector, and past the end. */
	buf_make(&x, logd + ((uint64_t)sb->logblocks << (sb->blocklog - 9)) / 2,
		 BS, 0x5a, TRANS_LSN);
	ck_assert_int_ne(xfsj_recover_pass2(rc, &x.t, &f), 0);
	ck_assert_str_eq(f.field, "blf_blkno");
	buf_make(&x, logd + ((uint64_t)sb->logblocks << (sb->blocklog - 9)) - 1,
		 BS, 0x5a, TRANS_LSN);
	ck_assert_int_ne(xfsj_recover_pass2(rc, &x.t, &f), 0);
	buf_make(&x, endd - 1, BS, 0x5a, TRANS_LSN);
	ck_assert_int_ne(xfsj_recover_pass2(rc, &x.t, &f), 0);
	ck_assert_uint_eq(xfsj_recover_stats(rc)->bufs_replayed, 0);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(fx.ov), 0);
	xfsj_recover_free(rc);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A filesystem whose UUID was changed (META_UUID): its metadata carries
 * sb_meta_uuid (the UUID mkfs gave it), its superblock a new sb_uuid.
 */
static void meta_uuid_fixture(struct fs_fixture *fx)
{
	uint8_t sect[512];

	fs_fixture_make(fx, 64 * MB, BS, 2, false, false);
	memcpy(fx->sb.meta_uuid, fx->sb.uuid, 16);
	memset(fx->sb.uuid, 0xee, 16);
	fx->sb.features_incompat |= XFSJ_INCOMPAT_META_UUID;
	xfsj_sb_encode(&fx->sb, sect, sizeof(sect));
	ck_assert_int_eq(xfsj_overlay_write(fx->ov, sect, 512, 0), 0);
}

/*
 * A filesystem whose UUID was changed (META_UUID): its metadata carries
 * sb_meta_uuid, and the v5 LSN rule compares with that, as the kernel
 * does.  A block newer than the transaction is skipped (it used to be
 * replayed over: the rule was off on such filesystems).
 */
START_TEST(meta_uuid_lsn_skip)
{
	static struct fs_fixture fx;
	struct xfsj_recover *rc;
	struct buf_item x;
	uint8_t sect[512], before[512];

	meta_uuid_fixture(&fx);
	/* The AGF of AG 0 (sector 1), newer on disk than the item. */
	ck_assert_int_eq(xfsj_overlay_read(fx.ov, sect, 512, 512), 0);
	ck_assert_uint_eq(xfsj_get_be32(sect), XFSJ_AGF_MAGIC);
	xfsj_put_be64(sect + 208, TRANS_LSN + 50);
	xfsj_cksum_update(sect, 512, 216);
	ck_assert_int_eq(xfsj_overlay_write(fx.ov, sect, 512, 512), 0);
	memcpy(before, sect, sizeof(before));

	ck_assert_int_eq(xfsj_recover_create(fx.ov, &fx.sb, &rc), 0);
	buf_make(&x, 1, 512, 0x5c, TRANS_LSN);
	buf_pass2(rc, &x);
	ck_assert_uint_eq(xfsj_recover_stats(rc)->bufs_skipped_lsn, 1);
	ck_assert_uint_eq(xfsj_recover_stats(rc)->bufs_replayed, 0);
	xfsj_recover_free(rc);
	ck_assert_int_eq(xfsj_overlay_read(fx.ov, sect, 512, 512), 0);
	ck_assert(memcmp(sect, before, sizeof(sect)) == 0);
	fs_fixture_free(&fx);
}
END_TEST

/* The ICREATE of the root's chunk (64 inodes, generation 9) at
 * TRANS_LSN, through both passes of @rc. */
static void icreate_root_chunk(struct fs_fixture *fx, struct xfsj_recover *rc)
{
	struct xfsj_fault f = { 0 };
	struct xfsj_region reg;
	struct xfsj_ritem it;
	struct xfsj_rtrans t;
	uint8_t icl[28];
	uint32_t agbno;

	agbno = xfsj_ino_agino(&fx->sb, fx->sb.rootino) >> fx->sb.inopblog;
	memset(icl, 0, sizeof(icl));
	xfsj_put_le16(icl, XFSJ_LI_ICREATE);
	xfsj_put_le16(icl + 2, 1);
	xfsj_put_be32(icl + 8, agbno);
	xfsj_put_be32(icl + 12, 64);
	xfsj_put_be32(icl + 16, fx->sb.inodesize);
	xfsj_put_be32(icl + 20, 64 >> fx->sb.inopblog);
	xfsj_put_be32(icl + 24, 9);
	reg = (struct xfsj_region){ icl, sizeof(icl) };
	it = (struct xfsj_ritem){ XFSJ_LI_ICREATE, 1, &reg };
	t = (struct xfsj_rtrans){ .lsn = TRANS_LSN, .tid = 0x7a, .nitems = 1,
				  .items = &it };
	ck_assert_int_eq(xfsj_recover_pass1(rc, &t, &f), 0);
	ck_assert_int_eq(xfsj_recover_pass2(rc, &t, &f), 0);
	ck_assert_uint_eq(xfsj_recover_stats(rc)->icreates, 1);
}

/* Where the root's chunk's inode @k is on the device (bytes). */
static uint64_t chunk_ino_off(const struct fs_fixture *fx, unsigned int k)
{
	uint32_t agbno = xfsj_ino_agino(&fx->sb, fx->sb.rootino) >>
			 fx->sb.inopblog;

	return (xfsj_agb_to_daddr(&fx->sb, 0, agbno) << 9) +
	       (uint64_t)k * fx->sb.inodesize;
}

/*
 * An inode chunk created in the log (ICREATE) on such a filesystem: the
 * new inodes carry sb_meta_uuid, as the kernel initialises them (they
 * used to get sb_uuid, and then failed verification).
 */
START_TEST(meta_uuid_icreate)
{
	static struct fs_fixture fx;
	struct xfsj_recover *rc;
	uint8_t dip[512];

	meta_uuid_fixture(&fx);
	ck_assert_int_eq(xfsj_recover_create(fx.ov, &fx.sb, &rc), 0);
	icreate_root_chunk(&fx, rc);
	xfsj_recover_free(rc);
	ck_assert_uint_le(fx.sb.inodesize, sizeof(dip));
	ck_assert_int_eq(xfsj_overlay_read(fx.ov, dip, fx.sb.inodesize,
					   chunk_ino_off(&fx, 1)), 0);
	ck_assert_uint_eq(xfsj_get_be16(dip), 0x494e);	/* "IN" */
	ck_assert_uint_eq(xfsj_get_be32(dip + 92), 9);	/* di_gen */
	ck_assert(memcmp(dip + 160, fx.sb.meta_uuid, 16) == 0);
	ck_assert(xfsj_cksum_ok(dip, fx.sb.inodesize, XFSJ_DINODE_CRC_OFF));
	fs_fixture_free(&fx);
}
END_TEST

/*
 * Salvage: an ICREATE replayed over a chunk whose inode the disk holds
 * intact with a later LSN (written back after the chunk was made; the
 * items logging it since may be lost to the damage) keeps that inode;
 * an older one is initialised as the kernel does, and so is every inode
 * without salvage.
 */
START_TEST(salvage_icreate_keeps_newer)
{
	static struct fs_fixture fx;
	struct xfsj_recover *rc;
	uint8_t dip[512];

	for (int salvage = 0; salvage < 2; salvage++) {
		fs_fixture_make(&fx, 64 * MB, BS, 2, false, false);
		ck_assert_uint_le(fx.sb.inodesize, sizeof(dip));
		/* The root (inode 0 of the chunk) newer, inode 1 older. */
		for (unsigned int k = 0; k < 2; k++) {
			uint64_t off = chunk_ino_off(&fx, k);

			ck_assert_int_eq(xfsj_overlay_read(fx.ov, dip,
					 fx.sb.inodesize, off), 0);
			ck_assert_uint_eq(xfsj_get_be16(dip), 0x494e);
			xfsj_put_be16(dip + 2, k ? 0100644 : 040755);
			xfsj_put_be64(dip + XFSJ_DI_OFF(lsn),
				      k ? TRANS_LSN - 1 : TRANS_LSN + 50);
			xfsj_cksum_update(dip, fx.sb.inodesize,
					  XFSJ_DINODE_CRC_OFF);
			ck_assert_int_eq(xfsj_overlay_write(fx.ov, dip,
					 fx.sb.inodesize, off), 0);
		}
		ck_assert_int_eq(xfsj_recover_create(fx.ov, &fx.sb, &rc), 0);
		xfsj_recover_salvage(rc, salvage);
		icreate_root_chunk(&fx, rc);
		ck_assert_uint_eq(xfsj_recover_stats(rc)->salvage_inodes_kept,
				  salvage ? 1 : 0);
		xfsj_recover_free(rc);
		ck_assert_int_eq(xfsj_overlay_read(fx.ov, dip, fx.sb.inodesize,
						   chunk_ino_off(&fx, 0)), 0);
		ck_assert_uint_eq(xfsj_get_be16(dip + 2),
				  salvage ? 040755 : 0);
		ck_assert_uint_eq(xfsj_get_be32(dip + 92) == 9, !salvage);
		ck_assert_int_eq(xfsj_overlay_read(fx.ov, dip, fx.sb.inodesize,
						   chunk_ino_off(&fx, 1)), 0);
		ck_assert_uint_eq(xfsj_get_be16(dip + 2), 0);
		ck_assert_uint_eq(xfsj_get_be32(dip + 92), 9);
		fs_fixture_free(&fx);
	}
}
END_TEST

/*
 * Intents and done items too short to name an id are refused in pass 2,
 * whatever else their decoder could not make of them; an intent ended by
 * its done item leaves nothing, one without it is left over.
 */
static int count_intent(void *arg, const struct xfsj_pending_intent *pi)
{
	(void)pi;
	(*(int *)arg)++;
	return 0;
}

START_TEST(short_intents_refused)
{
	static struct fs_fixture fx;
	static const uint16_t types[] = { XFSJ_LI_EFI, XFSJ_LI_EFD,
					  XFSJ_LI_RUD, XFSJ_LI_ATTRI };
	uint8_t fmt[2][32];
	struct xfsj_region reg[2];
	struct xfsj_ritem items[2];
	struct xfsj_rtrans t = { TRANS_LSN, 1, 1, items };
	struct xfsj_recover *rc;
	struct xfsj_fault f = { 0 };
	int n = 0;

	fs_fixture_make(&fx, 64 * MB, BS, 2, false, false);
	ck_assert_int_eq(xfsj_recover_create(fx.ov, &fx.sb, &rc), 0);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		for (uint32_t len = 0; len < 16; len += 2) {
			memset(fmt[0], 0, sizeof(fmt[0]));
			xfsj_put_le16(fmt[0], types[i]);
			reg[0] = (struct xfsj_region){ fmt[0], len };
			items[0] = (struct xfsj_ritem){ types[i], 1, reg };
			memset(&f, 0, sizeof(f));
			ck_assert_int_eq(xfsj_recover_pass2(rc, &t, &f),
					 -XFSJ_E_CORRUPT);
			ck_assert_str_eq(f.field, "size");
		}
	}
	/* An EFI of one extent, then its EFD in a later transaction. */
	memset(fmt, 0, sizeof(fmt));
	xfsj_put_le16(fmt[0], XFSJ_LI_EFI);
	xfsj_put_le32(fmt[0] + 4, 1);
	xfsj_put_le64(fmt[0] + 8, 0x1234);
	reg[0] = (struct xfsj_region){ fmt[0], 32 };
	items[0] = (struct xfsj_ritem){ XFSJ_LI_EFI, 1, &reg[0] };
	ck_assert_int_eq(xfsj_recover_pass2(rc, &t, &f), 0);
	ck_assert_int_eq(xfsj_recover_each_intent(rc, count_intent, &n), 0);
	ck_assert_int_eq(n, 1);
	xfsj_put_le16(fmt[1], XFSJ_LI_EFD);
	xfsj_put_le32(fmt[1] + 4, 1);
	xfsj_put_le64(fmt[1] + 8, 0x1234);
	reg[1] = (struct xfsj_region){ fmt[1], 32 };
	items[0] = (struct xfsj_ritem){ XFSJ_LI_EFD, 1, &reg[1] };
	ck_assert_int_eq(xfsj_recover_pass2(rc, &t, &f), 0);
	n = 0;
	ck_assert_int_eq(xfsj_recover_each_intent(rc, count_intent, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(xfsj_recover_stats(rc)->intents, 1);
	ck_assert_uint_eq(xfsj_recover_stats(rc)->intents_done, 1);
	xfsj_recover_free(rc);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * The replay table has a row for every type of the log layer's table:
 * a pass 2 for every type that can be on disk, a pass 1 for buffers
 * only, a finish column for the intents this version finishes.
 */
START_TEST(replay_rows)
{
	static const uint16_t finished[] = {
		XFSJ_LI_EFI, XFSJ_LI_RUI, XFSJ_LI_CUI, XFSJ_LI_BUI,
		XFSJ_LI_ATTRI, XFSJ_LI_XMI,
	};
	unsigned int nt, nfin = 0;
	const struct xfsj_item_type *types = xfsj_item_types(&nt);

	for (unsigned int t = 0; t < nt; t++) {
		const struct xrec_ops *ops = xrec_ops(types[t].type);
		bool fin = false;

		ck_assert_ptr_nonnull(ops);
		ck_assert_int_eq(ops->type, types[t].type);
		ck_assert_int_eq(ops->pass2 == NULL,
				 types[t].type == XFSJ_LI_IUNLINK);
		ck_assert_int_eq(ops->pass1 != NULL,
				 types[t].type == XFSJ_LI_BUF);
		for (size_t i = 0; i < sizeof(finished) / sizeof(finished[0]);
		     i++)
			fin |= finished[i] == types[t].type;
		ck_assert_int_eq(ops->finish != NULL, fin);
		nfin += fin;
		if (ops->finish)
			ck_assert_int_eq(types[t].role, XFSJ_ROLE_INTENT);
	}
	ck_assert_uint_eq(nfin, 6);
	ck_assert_ptr_null(xrec_ops(0x1239));
}
END_TEST

Suite *recover_suite(void)
{
	Suite *s = suite_create("recover");
	TCase *tc = tcase_create("owner");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, downer_sets_owner, 0, 2);
	tcase_add_test(tc, downer_owner_already_right);
	tcase_add_test(tc, no_downer_no_change);
	tcase_add_loop_test(tc, lsn_skip, 0, 2);
	tcase_add_loop_test(tc, passed_over, 0, 2);
	tcase_add_test(tc, aowner_sets_owner);
	tcase_add_test(tc, shared_start_lsn);
	tcase_add_test(tc, growfs_followed);
	tcase_add_test(tc, buffer_in_log_refused);
	tcase_add_test(tc, meta_uuid_lsn_skip);
	tcase_add_test(tc, meta_uuid_icreate);
	tcase_add_test(tc, salvage_icreate_keeps_newer);
	tcase_add_test(tc, replay_rows);
	tcase_add_test(tc, short_intents_refused);
	suite_add_tcase(s, tc);
	return s;
}
