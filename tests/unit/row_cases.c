/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The groups of row cases after test_repair_rows.c's first table (see
 * row_cases.h): each group's fixture maker, its damages, its table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <check.h>

#include "row_cases.h"
#include "xfsj/geometry.h"
#include "core/crc32c.h"
#include "fs/attr.h"
#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/defer.h"
#include "fs/dir_write.h"
#include "fs/iget.h"
#include "fs/refcount.h"
#include "ondisk/attr_layout.h"
#include "ondisk/bmdr.h"
#include "ondisk/dir_block.h"
#include "ondisk/format.h"
#include "populate/pop_priv.h"

/* ---- remote symlinks (issue 23): their own table ---- */

#define LONG_TARGET_LEN	1000	/* past the literal area, one block */

/* The root rewritten naming @ino alone, as @name; then settled. */
static void named_by_root(struct fs_fixture *fx, const char *name,
			  uint8_t ftype, uint64_t ino)
{
	struct xfsj_dirent d = { name, (uint8_t)strlen(name), ftype, ino };

	ck_assert_int_eq(xfsj_dir_write(fx->fs, fx->sb.rootino,
					fx->sb.rootino, &d, 1, false, &fx->f),
			 0);
	settled(fx);
}

/*
 * A symlink of a LONG_TARGET_LEN-byte target (one remote block, written
 * by populate's symlink writer) named "link" by the root, settled: its
 * number; its block's buffer in *@bp.
 */
static uint64_t remote_symlink(struct fs_fixture *fx, struct xfsj_buf **bp)
{
	static char target[LONG_TARGET_LEN + 1];
	struct pop p = { .fs = fx->fs, .sb = &fx->sb, .f = &fx->f };
	struct xfsj_bmbt_irec *map;
	struct xfsj_iref ip;
	uint64_t ino;
	size_t n;

	memset(target, 't', LONG_TARGET_LEN);
	ino = fs_fixture_make_file(fx, 10, 1, 0, 0, &ip);
	ip.di.mode = S_IFLNK | 0777;
	ck_assert_int_eq(xfsj_pop_symlink(&p, &ip, target), 0);
	ck_assert_uint_eq(ip.di.format, XFSJ_DINODE_FMT_EXTENTS);
	xfsj_iput(fx->fs, &ip, true);
	ck_assert_int_eq(xfsj_defer_finish(fx->fs, &fx->f), 0);
	named_by_root(fx, "link", XFSJ_FT_SYMLINK, ino);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino, true, &ip, &fx->f), 0);
	ck_assert_int_eq(xfsj_bmap_read(fx->fs, &ip, XFSJ_DATA_FORK, &map, &n,
					&fx->f), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(xfsj_buf_read(fx->fs, xfsj_fsb_daddr(&fx->sb,
						map[0].startblock),
				       fx->sb.blocksize, bp), 0);
	free(map);
	ck_assert_uint_eq(xfsj_get_be32((*bp)->data), XFSJ_SYMLINK_MAGIC);
	return ino;
}

/* The remote symlink's header: its target offset made 5. */
static void symlink_header(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_buf *bp;

	(void)c;
	remote_symlink(fx, &bp);
	xfsj_put_be32(bp->data + XFSJ_RMT_OFF(offset), 5);
	xfsj_cksum_update(bp->data, fx->sb.blocksize, XFSJ_RMT_OFF(crc));
	xfsj_buf_dirty(bp);
}

/* The remote symlink's block CRC made wrong. */
static void symlink_crc(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_buf *bp;

	(void)c;
	remote_symlink(fx, &bp);
	overlay_xor(fx, bp->daddr * 512 + XFSJ_RMT_OFF(crc), 0x01);
}

/* The remote symlink's one mapping gone: its fork maps no block. */
static void symlink_hole(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_iref ip;
	struct xfsj_buf *bp;
	uint64_t ino = remote_symlink(fx, &bp);

	(void)c;
	ck_assert_int_eq(xfsj_iget(fx->fs, ino, true, &ip, &fx->f), 0);
	xfsj_dinode_set_nextents(&ip.di, false, 0);
	xfsj_iput(fx->fs, &ip, false);
}

/* A second block mapped to the remote symlink, past its target. */
static void symlink_mapping(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_buf *bp;
	uint64_t ino = remote_symlink(fx, &bp);

	(void)c;
	fs_fixture_map(fx, ino, XFSJ_DATA_FORK, 1, fs_fixture_alloc(fx, 1, 1),
		       1, false);
}

static const struct row_case rows_symlink[] = {
	{ .code = "symlink.header", .make = symlink_header },
	{ .code = "symlink.crc", .make = symlink_crc },
	{ .code = "symlink.hole", .make = symlink_hole },
	{ .code = "symlink.mapping", .make = symlink_mapping },
};

/* ---- a data fork in bmbt format (issue 23): its own table ---- */

/*
 * A file "file" named by the root, of @n one-block mappings in AG @agno
 * at every other offset, settled: its number.
 */
static uint64_t sparse_file(struct fs_fixture *fx, uint32_t agno,
			    unsigned int n)
{
	struct xfsj_iref ip;
	uint64_t ino = fs_fixture_make_file(fx, 10, 1, 0, 0, &ip);

	for (unsigned int i = 0; i < n; i++)
		fs_fixture_map(fx, ino, XFSJ_DATA_FORK, 2 * i,
			       fs_fixture_alloc(fx, agno, 1), 1, false);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino, true, &ip, &fx->f), 0);
	ip.di.size = 2ULL * n * fx->sb.blocksize;
	xfsj_iput(fx->fs, &ip, false);
	named_by_root(fx, "file", XFSJ_FT_REG, ino);
	return ino;
}

#define BMBT_EXTENTS	25	/* past the 21 an inode's fork holds */

/*
 * A sparse_file of BMBT_EXTENTS mappings in AG 0 (its data fork a bmbt
 * of one leaf under the inode root); read whole into @bf (the leaf:
 * bf->lv[0][0]).
 */
static uint64_t bmbt_file(struct fs_fixture *fx, struct xfsj_bmbt_fork *bf)
{
	uint64_t ino = sparse_file(fx, 0, BMBT_EXTENTS);
	struct xfsj_iref ip;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, true, &ip, &fx->f), 0);
	ck_assert_uint_eq(ip.di.format, XFSJ_DINODE_FMT_BTREE);
	memset(bf, 0, sizeof(*bf));
	ck_assert_int_eq(xfsj_bmbt_fork_read(fx->fs, &ip, XFSJ_DATA_FORK, bf,
					     &fx->f), 0);
	ck_assert_uint_eq(bf->height, 1);
	ck_assert_uint_eq(bf->nlv[0], 1);
	return ino;
}

/*
 * @c->v2 bytes (0: 4) at byte @c->off of the bmbt file's leaf set to
 * @c->v, the CRC restamped; with @c->keep_crc, the CRC made wrong.
 */
static void bmbt_leaf(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_bmbt_fork bf;
	struct xfsj_buf *bp;

	bmbt_file(fx, &bf);
	bp = bf.lv[0][0].bp;
	if (c->keep_crc) {
		uint64_t at = bp->daddr * 512 + XFSJ_LBLOCK_CRC_OFF;

		xfsj_bmbt_fork_free(&bf);
		overlay_xor(fx, at, 0x01);
		return;
	}
	row_put_be(bp->data + c->off, (unsigned int)c->v2, c->v);
	xfsj_cksum_update(bp->data, fx->sb.blocksize, XFSJ_LBLOCK_CRC_OFF);
	xfsj_buf_dirty(bp);
	xfsj_bmbt_fork_free(&bf);
}

/*
 * The bmbt file's inode root (level and count, keys from byte 4, the
 * pointers after as many keys as the fork has room for): @c->v2 bytes
 * (0: 4) at byte @c->off set to @c->v (~0: a block of AG 5, past the
 * last AG), or (@c->from_end) byte @c->off of the pointers; with
 * @c->field2, a second pointer to the same leaf.
 */
static void bmbt_root(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_bmbt_fork bf;
	struct xfsj_iref ip;
	uint64_t ino = bmbt_file(fx, &bf);
	uint32_t size, ptrs;
	uint8_t *root;

	xfsj_bmbt_fork_free(&bf);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino, true, &ip, &fx->f), 0);
	root = xfsj_ifork(fx->fs, &ip, XFSJ_DATA_FORK, &size);
	ptrs = XFSJ_BMDR_HDR_SIZE + 8 * xfsj_bmdr_room(size);
	ck_assert_uint_le(ptrs + 16, size);
	if (c->field2) {
		/* (numrecs 2: key 1 past the leaf's offsets, pointer 1 the
		 * leaf again) */
		xfsj_put_be16(root + 2, 2);
		xfsj_put_be64(root + XFSJ_BMDR_HDR_SIZE + 8, 1000);
		memcpy(root + ptrs + 8, root + ptrs, 8);
	} else {
		row_put_be(root + (c->from_end ? ptrs : 0) + c->off,
		       (unsigned int)c->v2, c->v == ~0ULL ?
		       xfsj_agb_to_fsb(&fx->sb, 5, 1) : c->v);
	}
	core_changed(fx, &ip);
}

static const struct row_case rows_bmbt[] = {
	{ .code = "fork.bmbt_magic", .make = bmbt_leaf,
	  .off = XFSJ_LB_OFF(magic), .v = 0x12345678 },
	{ .code = "fork.bmbt_crc", .make = bmbt_leaf, .keep_crc = true },
	{ .code = "fork.bmbt_header", .make = bmbt_leaf,
	  .off = XFSJ_LB_OFF(owner), .v2 = 8, .v = 99 },
	{ .code = "fork.bmbt_sibling", .make = bmbt_leaf,
	  .off = XFSJ_LB_OFF(leftsib), .v2 = 8, .v = 5 },
	/* (the leaf holding 3 records: the btree could be extents) */
	{ .code = "fork.btree_too_few", .make = bmbt_leaf,
	  .off = XFSJ_LB_OFF(numrecs), .v2 = 2, .v = 3 },
	/* (the root's count past what the fork holds) */
	{ .code = "fork.bmbt_root", .make = bmbt_root, .off = 2, .v2 = 2,
	  .v = 200 },
	/* (the root's key: offset 1, the leaf's first is 0) */
	{ .code = "fork.bmbt_key", .make = bmbt_root,
	  .off = XFSJ_BMDR_HDR_SIZE, .v2 = 8, .v = 1 },
	/* (the root's pointer past the last AG) */
	{ .code = "fork.bmbt_ptr", .make = bmbt_root, .from_end = true,
	  .v2 = 8, .v = ~0ULL },
	{ .code = "fork.bmbt_dup", .make = bmbt_root, .field2 = "twice" },
};

/* ---- the root's attributes: a leaf block, then a node (issue 23) ---- */

/* Leaf entries @c->off and @c->off + 1 of the forty-attribute leaf
 * swapped: each hash still its name's, their order broken. */
static void attr_leaf_swap(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_buf *bp;
	uint8_t *b, *e, t[XFSJ_ATTR_LEAF_ENTRY_SIZE];

	root_attrs(fx, 40, 30);
	b = root_attr_leaf(fx, &bp);
	e = b + XFSJ_ATTR3_LEAF_HDR_SIZE + c->off * XFSJ_ATTR_LEAF_ENTRY_SIZE;
	memcpy(t, e, sizeof(t));
	memmove(e, e + sizeof(t), sizeof(t));
	memcpy(e + sizeof(t), t, sizeof(t));
	xfsj_cksum_update(b, fx->sb.blocksize, XFSJ_DA3_OFF_CRC);
	xfsj_buf_dirty(bp);
}

#define NODE_ATTRS	200	/* three leaves under a node */

/*
 * NODE_ATTRS attributes on the root (block 0 a node: header of 64
 * bytes, then entries of hash and child block): @c->v2 bytes (0: 4) at
 * byte @c->off of the node set to @c->v; with @c->field2, entry 1's
 * child made entry 0's first ("same child"), or a block the fork does
 * not map ("unmapped", its hash then made 0 too with @c->v).
 */
static void attr_node(struct fs_fixture *fx, const struct row_case *c)
{
	enum { E0 = XFSJ_DA3_NODE_HDR_SIZE, E1 = E0 + 8 };
	struct xfsj_buf *bp;
	uint8_t *b;

	root_attrs(fx, NODE_ATTRS, 30);
	b = root_attr_block(fx, 0, &bp);
	ck_assert_uint_eq(xfsj_get_be16(b + XFSJ_DA3_OFF_MAGIC),
			  XFSJ_DA3_NODE_MAGIC);
	ck_assert_uint_ge(xfsj_get_be16(b + XFSJ_DA3_NODE_OFF_COUNT), 2);
	if (c->field2 && !strcmp(c->field2, "same child")) {
		memcpy(b + E1 + 4, b + E0 + 4, 4);
	} else if (c->field2) {
		xfsj_put_be32(b + E1 + 4, 999);
		if (c->v)
			xfsj_put_be32(b + E1, 0);
	} else {
		row_put_be(b + c->off, (unsigned int)c->v2, c->v);
	}
	xfsj_cksum_update(b, fx->sb.blocksize, XFSJ_DA3_OFF_CRC);
	xfsj_buf_dirty(bp);
}

#define ATTR_NODE(c, o, w, val)	{ .code = c, .make = attr_node, .off = o, \
				  .v2 = w, .v = val }

static const struct row_case rows_attr[] = {
	{ .code = "attr.leaf.hashorder", .make = attr_leaf_swap, .off = 5 },
	{ .code = "attr.blk.missing", .make = attr_node,
	  .field2 = "unmapped" },
	{ .code = "attr.blk.shared", .make = attr_node,
	  .field2 = "same child" },
	ATTR_NODE("attr.node.count", XFSJ_DA3_NODE_OFF_COUNT, 2, 0),
	ATTR_NODE("attr.node.level", XFSJ_DA3_NODE_OFF_LEVEL, 2, 0),
	/* (entry 1's child unmapped: its hash, 0, is then weighed by the
	 * order alone) */
	{ .code = "attr.node.hashorder", .make = attr_node,
	  .field2 = "unmapped", .v = 1 },
	ATTR_NODE("attr.node.hashval", XFSJ_DA3_NODE_HDR_SIZE, 4, 1),
	ATTR_NODE("attr.node.before", XFSJ_DA3_NODE_HDR_SIZE + 4, 4, 0),
};

/* ---- the root, a node directory; its data fork gone (issue 23) ---- */

#define NODE_DIR_NAMES	700	/* ten data blocks, two leaves, a node */

/*
 * The root rewritten as a node directory of NODE_DIR_NAMES names of
 * one new file (its link count as many), settled: the root's first
 * block at or past directory byte @from (XFSJ_DIR2_LEAF_OFFSET: the
 * node; XFSJ_DIR2_FREE_OFFSET: the free index), in *@bp; its file
 * offset in *@fileoff.
 */
static void root_node_dir(struct fs_fixture *fx, uint64_t from,
			  struct xfsj_buf **bp, uint64_t *fileoff)
{
	static char names[NODE_DIR_NAMES][48];
	static struct xfsj_dirent d[NODE_DIR_NAMES];
	uint64_t want = from >> fx->sb.blocklog, ino;
	struct xfsj_bmbt_irec *map;
	struct xfsj_iref ip;
	size_t n, i;

	ino = fs_fixture_make_file(fx, 10, 1, 0, 0, &ip);
	ip.di.nlink = NODE_DIR_NAMES;
	xfsj_iput(fx->fs, &ip, false);
	for (i = 0; i < NODE_DIR_NAMES; i++) {
		snprintf(names[i], sizeof(names[i]),
			 "a-name-long-enough-for-a-node-directory-%04zu", i);
		d[i] = (struct xfsj_dirent){ names[i],
			(uint8_t)strlen(names[i]), XFSJ_FT_REG, ino };
	}
	ck_assert_int_eq(xfsj_dir_write(fx->fs, fx->sb.rootino, fx->sb.rootino,
					d, NODE_DIR_NAMES, false, &fx->f), 0);
	settled(fx);
	ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, &ip, &fx->f),
			 0);
	ck_assert_int_eq(xfsj_bmap_read(fx->fs, &ip, XFSJ_DATA_FORK, &map, &n,
					&fx->f), 0);
	for (i = 0; i < n && map[i].startoff + map[i].blockcount <= want; i++)
		;
	ck_assert_uint_lt(i, n);
	*fileoff = map[i].startoff > want ? map[i].startoff : want;
	ck_assert_int_eq(xfsj_buf_read(fx->fs, xfsj_fsb_daddr(&fx->sb,
			map[i].startblock + (*fileoff - map[i].startoff)),
				       fx->sb.blocksize, bp), 0);
	free(map);
}

/*
 * The node directory's node (@c->off2 0) or free index block (1):
 * @c->v2 bytes (0: 4) at byte @c->off set to @c->v, the CRC restamped.
 */
static void node_dir(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_buf *bp;
	uint64_t fileoff;
	size_t crc;

	if (c->off2) {
		root_node_dir(fx, XFSJ_DIR2_FREE_OFFSET, &bp, &fileoff);
		ck_assert_uint_eq(xfsj_get_be32(bp->data),
				  XFSJ_DIR3_FREE_MAGIC);
		crc = XFSJ_DIR3_OFF_CRC;
	} else {
		root_node_dir(fx, XFSJ_DIR2_LEAF_OFFSET, &bp, &fileoff);
		ck_assert_uint_eq(xfsj_get_be16(bp->data + XFSJ_DA3_OFF_MAGIC),
				  XFSJ_DA3_NODE_MAGIC);
		crc = XFSJ_DA3_OFF_CRC;
	}
	row_put_be(bp->data + c->off, (unsigned int)c->v2, c->v);
	xfsj_cksum_update(bp->data, fx->sb.blocksize, crc);
	xfsj_buf_dirty(bp);
}

/* A block of free space mapped into the node directory's leaf space,
 * past its node and leaves: no tree reaches it. */
static void node_dir_stray(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_buf *bp;
	uint64_t fileoff;

	(void)c;
	root_node_dir(fx, XFSJ_DIR2_LEAF_OFFSET, &bp, &fileoff);
	fs_fixture_map(fx, fx->sb.rootino, XFSJ_DATA_FORK, fileoff + 100,
		       fs_fixture_alloc(fx, 1, 1), 1, false);
}

/* The root a block directory whose fork then maps nothing. */
static void dir_no_blocks(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_iref ip;

	(void)c;
	root_block_dir(fx);
	ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, &ip, &fx->f),
			 0);
	xfsj_dinode_set_nextents(&ip.di, false, 0);
	xfsj_iput(fx->fs, &ip, false);
}

#define NODE_DIR(c, o, w, val)	{ .code = c, .make = node_dir, .off = o, \
				  .v2 = w, .v = val }
#define FREE_IDX(c, o, w, val)	{ .code = c, .make = node_dir, .off = o, \
				  .v2 = w, .v = val, .off2 = 1 }

static const struct row_case rows_dir[] = {
	{ .code = "dir.noblocks", .make = dir_no_blocks },
	{ .code = "dir.stray", .make = node_dir_stray },
	/* (the node's count 0) */
	NODE_DIR("dir.node", XFSJ_DA3_NODE_OFF_COUNT, 2, 0),
	/* (the node's first child a leaf-space block not mapped; 4 KiB
	 * blocks) */
	NODE_DIR("dir.unmapped", XFSJ_DA3_NODE_HDR_SIZE + 4, 4,
		 (XFSJ_DIR2_LEAF_OFFSET >> 12) + 100),
	/* (nused; data block 0's best) */
	FREE_IDX("dir.free.header", 56, 4, 99),
	FREE_IDX("dir.bests", XFSJ_DIR3_HDR_SIZE, 2, 0x10),
};

/* ---- the root, a block directory: a name's bytes (issue 23) ---- */

/*
 * The root a block directory of 30 files (root_block_dir); byte @c->off
 * of file @c->v2's name set to @c->v, the CRC restamped (the leaf's
 * hash left as it was).
 */
static void dir_name_byte(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_buf *bp = root_block_dir(fx);
	char name[48];
	uint8_t *at;

	snprintf(name, sizeof(name), ROOT_DIR_NAME_FMT, (int)c->v2);
	at = memmem(bp->data, fx->sb.blocksize, name, strlen(name));
	ck_assert_ptr_nonnull(at);
	ck_assert_uint_lt(c->off, strlen(name));
	at[c->off] = (uint8_t)c->v;
	xfsj_cksum_update(bp->data, fx->sb.blocksize, XFSJ_DIR3_OFF_CRC);
	xfsj_buf_dirty(bp);
}

static const struct row_case rows_dirent[] = {
	/* (file 7's name starting with a '/') */
	{ .code = "dir.entry.name", .make = dir_name_byte, .v2 = 7, .off = 0,
	  .v = '/' },
	/* (file 8's name made file 7's: "...-08" to "...-07") */
	{ .code = "dir.entry.dup", .make = dir_name_byte, .v2 = 8,
	  .off = sizeof(ROOT_DIR_NAME7) - 2, .v = '7' },
};

/* ---- parent pointers of a wrong shape (issue 23) ---- */

/*
 * The named file (two_named_files) given a parent pointer naming the
 * root as "file" with a @c->v-byte value (the parent's number and
 * generation first, then 'x's): 12 is the right length, more than fit
 * a leaf entry goes to a remote block.  On a fixture without parent
 * pointers with @c->no_parent.
 */
static void pptr_shape(struct fs_fixture *fx, const struct row_case *c)
{
	static uint8_t val[4000];
	struct xfsj_iref ip, rip;
	uint64_t ino[2];

	ck_assert_uint_le(c->v, sizeof(val));
	two_named_files(fx, ino);
	ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, &rip, &fx->f),
			 0);
	memset(val, 'x', sizeof(val));
	xfsj_put_be64(val, fx->sb.rootino);
	xfsj_put_be32(val + 8, rip.di.gen);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino[0], true, &ip, &fx->f), 0);
	ck_assert_int_eq(xfsj_attr_set(fx->fs, &ip, &(struct xfsj_attr_arg){
		.ns = XFSJ_ATTR_NS_PARENT, .name = (const uint8_t *)"file",
		.namelen = 4, .value = val, .valuelen = (uint32_t)c->v },
		XFSJ_ATTR_UPSERT, &fx->f), 0);
	xfsj_iput(fx->fs, &ip, true);
	ck_assert_int_eq(xfsj_defer_finish(fx->fs, &fx->f), 0);
}

static const struct row_case rows_pptr[] = {
	{ .code = "attr.pptr.value", .make = pptr_shape, .v = 8 },
	{ .code = "attr.pptr.remote", .make = pptr_shape, .v = 4000 },
	{ .code = "attr.pptr.nofeature", .make = pptr_shape,
	  .v = XFSJ_ATTR_PPTR_VALUE_LEN, .no_parent = true },
};

/* ---- a mapping into metadata or free space (issue 23) ---- */

/*
 * The named file's data fork given a third mapping by hand (behind the
 * rmapbt's back): one block at offset 20, AG 1's block @c->off (0: block
 * 1, a btree root).
 */
static void fork_into_meta(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_bmbt_irec m = { 20, 0, 1, false };
	struct xfsj_iref ip;
	uint64_t ino[2];

	two_named_files(fx, ino);
	m.startblock = xfsj_agb_to_fsb(&fx->sb, 1,
				       c->off ? (uint32_t)c->off : 1);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino[0], true, &ip, &fx->f), 0);
	ck_assert_uint_eq(xfsj_dinode_nextents(&ip.di), 2);
	xfsj_bmbt_rec_encode(&m, ip.dip + XFSJ_DINODE_CORE_SIZE +
			     2 * XFSJ_BMBT_REC_SIZE);
	xfsj_dinode_set_nextents(&ip.di, false, 3);
	ip.di.nblocks++;
	xfsj_dinode_encode(&ip.di, ip.dip);
	core_changed(fx, &ip);
}

static const struct row_case rows_space[] = {
	{ .code = "fork.ext_meta", .make = fork_into_meta },
	/* (AG 1's block 1000: free space) */
	{ .code = "fork.ext_free", .make = fork_into_meta, .off = 1000 },
};

/* ---- AG 1's rmapbt of two levels (issue 23) ---- */

#define RMAP_FILE_EXTENTS	200	/* past one rmapbt leaf's 168 */

/*
 * A sparse_file of RMAP_FILE_EXTENTS mappings in AG 1: AG 1's rmapbt a
 * node over two leaves.  Then the 32 bits at byte @c->off of that node (or, at
 * @c->at AT_RMAP1_CHILD0, of its first leaf; with @c->from_end, bytes
 * counted from the node's pointers) set to @c->v, plus the 32 bits at
 * byte @c->off2 (counted the same way) with @c->field2.
 */
static void rmap_node(struct fs_fixture *fx, const struct row_case *c)
{
	size_t ptrs = XFSJ_SBLOCK_HDR_SIZE + RMAP_NODE_KEY *
		      xfsj_btree_maxrecs(XFSJ_BT_RMAP, fx->sb.blocksize,
					 false);
	size_t base = c->from_end ? ptrs : 0;
	uint32_t v = (uint32_t)c->v;

	sparse_file(fx, 1, RMAP_FILE_EXTENTS);
	ck_assert_uint_eq(peek_at(fx, AT_RMAP1, 4) >> 16, 1);	/* level */
	if (c->field2)
		v += peek_at(fx, c->at, base + c->off2);
	poke_at(fx, c->at, NULL, base + c->off, v, false);
}

/* Byte offsets in the node: key @i's low and high start block, and
 * (from the pointers) pointer @i. */
#define RKEY(i)		(XFSJ_SBLOCK_HDR_SIZE + (i) * RMAP_NODE_KEY)
#define RHKEY(i)	(RKEY(i) + RMAP_NODE_KEY / 2)
#define RPTR(i)		((i) * 4)

static const struct row_case rows_btree2[] = {
	{ .code = "btree.ptr", .make = rmap_node, .at = AT_RMAP1,
	  .from_end = true, .off = RPTR(0), .v = 0x7ffffff0 },
	{ .code = "btree.twice", .make = rmap_node, .at = AT_RMAP1,
	  .from_end = true, .off = RPTR(1), .field2 = "+", .off2 = RPTR(0) },
	{ .code = "btree.key", .make = rmap_node, .at = AT_RMAP1,
	  .off = RKEY(1), .field2 = "+", .off2 = RKEY(1), .v = 1 },
	{ .code = "btree.high_key", .make = rmap_node, .at = AT_RMAP1,
	  .off = RHKEY(0), .field2 = "+", .off2 = RHKEY(0), .v = 1 },
	{ .code = "btree.key_order", .make = rmap_node, .at = AT_RMAP1,
	  .off = RKEY(1), .v = 0 },
	/* (level 0, numrecs 10: the leaf's bytes at 4) */
	{ .code = "btree.numrecs_min", .make = rmap_node,
	  .at = AT_RMAP1_CHILD0, .off = 4, .v = 10 },
};

/* ---- a file's rmapbt record (issue 23) ---- */

#define RMAP_REC	24	/* start, length, owner, offset and flags */

/*
 * A file of one two-block mapping in AG 1, named by the root, settled;
 * its record in AG 1's rmapbt (one leaf) given the offset word pair
 * (@c->v: the high 32 bits, the flags at the top; @c->v2: the low) and,
 * with @c->field2, the root directory as its owner.
 */
static void rmap_file_rec(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_iref ip;
	uint64_t ino = fs_fixture_make_file(fx, 10, 1, 0, 0, &ip);
	uint32_t n, i;
	size_t rec;

	fs_fixture_map(fx, ino, XFSJ_DATA_FORK, 0, fs_fixture_alloc(fx, 1, 2),
		       2, false);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino, true, &ip, &fx->f), 0);
	ip.di.size = 2ULL * fx->sb.blocksize;
	xfsj_iput(fx->fs, &ip, false);
	named_by_root(fx, "file", XFSJ_FT_REG, ino);
	ck_assert_uint_eq(peek_at(fx, AT_RMAP1, 4) >> 16, 0);	/* a leaf */
	n = peek_at(fx, AT_RMAP1, 4) & 0xffff;
	for (i = 0; i < n; i++) {
		rec = XFSJ_SBLOCK_HDR_SIZE + (size_t)i * RMAP_REC;
		if (peek_at(fx, AT_RMAP1, rec + 12) == (uint32_t)ino &&
		    !peek_at(fx, AT_RMAP1, rec + 8))
			break;
	}
	ck_assert_uint_lt(i, n);
	if (c->field2)
		poke_at(fx, AT_RMAP1, NULL, rec + 12, (uint32_t)fx->sb.rootino,
			false);
	poke_at(fx, AT_RMAP1, NULL, rec + 16, c->v, false);
	poke_at(fx, AT_RMAP1, NULL, rec + 20, c->v2, false);
}

/* AG 1's rmapbt (one leaf) without its last record. */
static void rmap_drop_last(struct fs_fixture *fx, const struct row_case *c)
{
	uint32_t w = peek_at(fx, AT_RMAP1, 4);	/* level, numrecs */

	(void)c;
	ck_assert_uint_eq(w >> 16, 0);
	ck_assert_uint_gt(w & 0xffff, 1);
	poke_at(fx, AT_RMAP1, NULL, 4, w - 1, false);
}

static const struct row_case rows_rmap[] = {
	/* (attribute fork and unwritten) */
	{ .code = "rmapbt.flagmix", .make = rmap_file_rec,
	  .v = 0xa0000000U },
	/* (offset 2^54 - 1: its second block past the largest) */
	{ .code = "rmapbt.fileoff", .make = rmap_file_rec, .v = 0x003fffffU,
	  .v2 = 0xffffffffU },
	{ .code = "rmapbt.missing", .make = rmap_drop_last },
	/* (the file's record given to the root, which maps no block) */
	{ .code = "rmapbt.extra", .make = rmap_file_rec, .field2 = "root" },
};

/* ---- blocks shared through the refcountbt (issue 23) ---- */

#define REFC_REC	12	/* start (CoW domain at the top), length,
				 * count */
#define REFC_COW	0x80000000U

/*
 * Two files "a" and "b" mapping the same two blocks of AG 1 at offset 0
 * (reflink flag on "a", on "b" unless @unflagged), the refcountbt's one
 * record saying 2, named by the root, settled.
 */
static void shared_files(struct fs_fixture *fx, bool unflagged)
{
	uint64_t fsb = fs_fixture_alloc(fx, 1, 2), ino[2];
	struct xfsj_dirent d[2];
	struct xfsj_iref ip;

	for (unsigned int i = 0; i < 2; i++) {
		ino[i] = fs_fixture_make_file(fx, 10 + i, 1,
			i && unflagged ? 0 : XFSJ_DIFLAG2_REFLINK, 0, &ip);
		ip.di.size = 2ULL * fx->sb.blocksize;
		xfsj_iput(fx->fs, &ip, false);
		fs_fixture_map(fx, ino[i], XFSJ_DATA_FORK, 0, fsb, 2, false);
		d[i] = (struct xfsj_dirent){ i ? "b" : "a", 1, XFSJ_FT_REG,
					     ino[i] };
	}
	ck_assert_int_eq(xfsj_refcount_increase_extent(fx->fs, fsb, 2), 0);
	ck_assert_int_eq(xfsj_defer_finish(fx->fs, &fx->f), 0);
	ck_assert_int_eq(xfsj_dir_write(fx->fs, fx->sb.rootino,
					fx->sb.rootino, d, 2, false, &fx->f),
			 0);
	if (!unflagged) {
		settled(fx);
		ck_assert_uint_eq(peek_at(fx, AT_REFC1, 4) & 0xffff, 1);
		ck_assert_uint_eq(peek_at(fx, AT_REFC1,
					  XFSJ_SBLOCK_HDR_SIZE + 8), 2);
	}
}

/*
 * The shared files' refcountbt record: its count made @c->v (with
 * @c->off2 its start put in the CoW domain); or, with @c->off, split
 * in two records of one block each (which should be one).
 */
static void refc_rec(struct fs_fixture *fx, const struct row_case *c)
{
	size_t r0 = XFSJ_SBLOCK_HDR_SIZE, r1 = r0 + REFC_REC;
	uint32_t start;

	shared_files(fx, false);
	start = peek_at(fx, AT_REFC1, r0);
	if (c->off) {
		poke_at(fx, AT_REFC1, NULL, r1, start + 1, false);
		poke_at(fx, AT_REFC1, NULL, r1 + 4, 1, false);
		poke_at(fx, AT_REFC1, NULL, r1 + 8, 2, false);
		poke_at(fx, AT_REFC1, NULL, r0 + 4, 1, false);
		poke_at(fx, AT_REFC1, NULL, 4,
			peek_at(fx, AT_REFC1, 4) + 1, false);
		return;
	}
	if (c->off2)
		poke_at(fx, AT_REFC1, NULL, r0, start | REFC_COW, false);
	poke_at(fx, AT_REFC1, NULL, r0 + 8, c->v, false);
}

/* The shared files, "b" without the reflink flag. */
static void shared_unflagged(struct fs_fixture *fx, const struct row_case *c)
{
	(void)c;
	shared_files(fx, true);
}

/* Two blocks of AG 1 left as a CoW staging extent (as after a crash). */
static void cow_left(struct fs_fixture *fx, const struct row_case *c)
{
	(void)c;
	ck_assert_int_eq(xfsj_refcount_alloc_cow_extent(fx->fs,
				fs_fixture_alloc(fx, 1, 2), 2), 0);
	ck_assert_int_eq(xfsj_defer_finish(fx->fs, &fx->f), 0);
}

static const struct row_case rows_shared[] = {
	{ .code = "refcount.shared", .make = refc_rec, .v = 3,
	  .reflink = true },
	{ .code = "refcountbt.count", .make = refc_rec, .v = 1,
	  .reflink = true },
	{ .code = "refcountbt.cow", .make = refc_rec, .v = 2, .off2 = 1,
	  .reflink = true },
	{ .code = "refcountbt.merge", .make = refc_rec, .off = 1,
	  .reflink = true },
	{ .code = "fork.reflink_flag", .make = shared_unflagged,
	  .reflink = true },
	{ .code = "refcountbt.cow_leftover", .make = cow_left,
	  .reflink = true },
};

/* ---- free space counted twice (issue 23) ---- */

/*
 * AG 1's cntbt (one leaf) given a new first record inside its first
 * (smallest) one: one block later, one shorter, so that the length
 * order holds and the two overlap.  The bnobt's magic broken too: the
 * free space is then read from the cntbt (whose order is by length, so
 * that only the fold finds the overlap).
 */
static void cnt_overlap(struct fs_fixture *fx, const struct row_case *c)
{
	uint32_t w = peek_at(fx, AT_CNT1, 4), n = w & 0xffff;
	size_t at = XFSJ_SBLOCK_HDR_SIZE;
	uint32_t start = peek_at(fx, AT_CNT1, at);
	uint32_t len = peek_at(fx, AT_CNT1, at + 4);

	(void)c;
	ck_assert_uint_eq(w >> 16, 0);
	ck_assert_uint_gt(len, 2);
	for (uint32_t i = n; i-- > 0;)
		for (size_t k = 0; k < 8; k += 4)
			poke_at(fx, AT_CNT1, NULL, at + 8 * (i + 1) + k,
				peek_at(fx, AT_CNT1, at + 8 * i + k), false);
	poke_at(fx, AT_CNT1, NULL, at, start + 1, false);
	poke_at(fx, AT_CNT1, NULL, at + 4, len - 1, false);
	poke_at(fx, AT_CNT1, NULL, 4, w + 1, false);
	poke_at(fx, AT_BNO1, "magic", 0, 0x12345678, false);
}

static const struct row_case rows_free[] = {
	{ .code = "space.free_twice", .make = cnt_overlap },
};

/* ---- a metadata inode of the wrong type (issue 23) ---- */

/* The realtime bitmap's inode (the superblock names it) made a
 * @c->v-mode inode. */
static void meta_mode(struct fs_fixture *fx, const struct row_case *c)
{
	ck_assert_uint_ne(fx->sb.rbmino, 0);
	poke_ino(fx, fx->sb.rbmino, "mode", c->v);
}

static const struct row_case rows_meta[] = {
	{ .code = "inode.meta", .make = meta_mode, .v = S_IFDIR | 0755 },
};

#define GROUP(t)	{ t, sizeof(t) / sizeof(t[0]) }

const struct row_table row_groups[] = {
	GROUP(rows_symlink),
	GROUP(rows_bmbt),
	GROUP(rows_attr),
	GROUP(rows_dir),
	GROUP(rows_dirent),
	GROUP(rows_pptr),
	GROUP(rows_space),
	GROUP(rows_btree2),
	GROUP(rows_rmap),
	GROUP(rows_shared),
	GROUP(rows_free),
	GROUP(rows_meta),
};
const size_t row_ngroups = sizeof(row_groups) / sizeof(row_groups[0]);
