/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every fixable row of the problem table, proven on a fixture: tables of
 * cases (the first here, grouped by structure; then row_cases.c's groups)
 * make each row's problem on a small filesystem, the check finds the
 * row, the repair runs its handler, and the check after finds nothing.
 * The rows no case makes are in one table beside them, each with the
 * reason; the count of rows proven has a floor, so that it cannot shrink
 * unseen.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "row_cases.h"
#include "row_fixture.h"
#include "ino_fixture.h"
#include "suites.h"
#include "xfsj/check.h"
#include "xfsj/repair.h"
#include "xfsj/geometry.h"
#include "core/layout.h"
#include "fs/bmbt.h"
#include "ondisk/format.h"
#include "ondisk/attr_layout.h"
#include "ondisk/dir_block.h"
#include "core/crc32c.h"
#include "fs/iget.h"
#include "fs/dir_write.h"
#include "fs/bmap.h"
#include "fs/attr.h"
#include "fs/defer.h"

#define MB	(1ULL << 20)

/* One field of one structure set (row_fixture.c's poke_at). */
static void poked(struct fs_fixture *fx, const struct row_case *c)
{
	if (c->field2 || c->off2)
		poke_at(fx, c->at, c->field2, c->off2, c->v2, c->keep_crc);
	poke_at(fx, c->at, c->field, c->off, c->v, c->keep_crc);
}

/* The primary's incompat features with @c->v added (and @c->field2). */
static void sb_incompat(struct fs_fixture *fx, const struct row_case *c)
{
	if (c->field2)
		poke_at(fx, AT_SB0, c->field2, 0, c->v2, false);
	poke_at(fx, AT_SB0, "features_incompat",
		0, fx->sb.features_incompat | c->v, false);
}

/* AGFL slot flfirst + @c->off of AG 1 set to @c->v (~0: to the first's). */
static void agfl_slot(struct fs_fixture *fx, const struct row_case *c)
{
	uint8_t hdr[512];
	uint32_t first, v = (uint32_t)c->v;
	uint64_t at = (uint64_t)fx->sb.agblocks * fx->sb.blocksize;

	ck_assert_int_eq(xfsj_overlay_read(fx->ov, hdr, sizeof(hdr),
					   at + fx->sb.sectsize), 0);
	first = xfsj_get_be32(hdr + XFSJ_AGF_OFF(flfirst));
	ck_assert_uint_ge(xfsj_get_be32(hdr + XFSJ_AGF_OFF(flcount)), 2);
	if (c->v == ~0ULL) {
		ck_assert_int_eq(xfsj_overlay_read(fx->ov, hdr, sizeof(hdr),
						   at + 3 * fx->sb.sectsize),
				 0);
		v = xfsj_get_be32(hdr + XFSJ_AGFL_HDR_SIZE + 4 * first);
	}
	poke_at(fx, AT_AGFL1, NULL, XFSJ_AGFL_HDR_SIZE + 4 * (first + c->off),
		v, false);
}

/*
 * A file made behind the inode btree's back, named by no directory: the
 * inobt is rebuilt, the file goes to lost+found; with a field of its
 * core set (@c->field not NULL), that row's handler too.
 */
static void loose_file(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_iref ip;

	fs_fixture_make_file(fx, 10, 5,
			     (fx->sb.features_incompat &
			      XFSJ_INCOMPAT_NREXT64) ?
			     XFSJ_DIFLAG2_NREXT64 : 0, 0, &ip);
	if (c->field) {
		ck_assert_int_eq(xfsj_layout_put(&xfsj_dinode_layout, ip.dip,
						 c->field, c->v), 0);
		core_changed(fx, &ip);
	}
}

/*
 * Mapping record @c->off of the named file's data fork (of two: offsets
 * 0 and 10, two blocks each) made wrong: @c->v indexes fork_recs.
 */
static const struct xfsj_bmbt_irec fork_recs[] = {
	{ 0, ~0ULL, 0, false },			/* length 0 */
	{ XFSJ_MAX_FILEOFF, ~0ULL, 2, false },	/* past the last offset */
	{ 1, ~0ULL, 2, false },			/* before the record before */
	{ 10, 7ULL << 40, 2, false },		/* past the last block */
};

static void fork_rec(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_bmbt_irec m = fork_recs[c->v], old;
	struct xfsj_iref ip;
	uint64_t ino[2];
	uint8_t *rec;

	two_named_files(fx, ino);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino[0], true, &ip, &fx->f), 0);
	ck_assert_uint_eq(xfsj_dinode_nextents(&ip.di), 2);
	rec = ip.dip + XFSJ_DINODE_CORE_SIZE + c->off * XFSJ_BMBT_REC_SIZE;
	xfsj_bmbt_rec_decode(rec, &old);
	if (m.startblock == ~0ULL)
		m.startblock = old.startblock;

	xfsj_bmbt_rec_encode(&m, rec);
	core_changed(fx, &ip);
}

/* Byte @c->off of the root's local fork @whichfork set to @c->v (and
 * @c->off2 to @c->v2). */
static void local_fork_bytes(struct fs_fixture *fx, int whichfork,
			     const struct row_case *c)
{
	struct xfsj_iref ip;
	uint32_t size;
	uint8_t *p;

	ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, &ip, &fx->f),
			 0);
	ck_assert_uint_eq(whichfork == XFSJ_ATTR_FORK ? ip.di.aformat
						      : ip.di.format,
			  XFSJ_DINODE_FMT_LOCAL);
	p = xfsj_ifork(fx->fs, &ip, whichfork, &size);
	ck_assert_uint_gt(size, c->off);
	p[c->off] = (uint8_t)c->v;
	if (c->off2)
		p[c->off2] = (uint8_t)c->v2;
	core_changed(fx, &ip);
}

/*
 * Four short-form attributes on the root (entries of 19 bytes from byte
 * 4: namelen, valuelen, flags, "attr_NNN", 8 bytes of value); byte @c->off
 * set to @c->v (and @c->off2 to @c->v2).
 */
static void attr_sf(struct fs_fixture *fx, const struct row_case *c)
{
	root_attrs(fx, 4, 8);
	local_fork_bytes(fx, XFSJ_ATTR_FORK, c);
}

/* Three short-form attributes on the root (61 bytes with the header);
 * byte @c->off set to @c->v. */
static void attr_sf3(struct fs_fixture *fx, const struct row_case *c)
{
	root_attrs(fx, 3, 8);
	local_fork_bytes(fx, XFSJ_ATTR_FORK, c);
}

/*
 * Forty attributes on the root (one leaf block: entries of 8 bytes from
 * byte 80); @c->v2 bytes (0: 4) at @c->off set to @c->v, the block's CRC
 * restamped; or, with @c->keep_crc, the CRC made wrong.
 */
static void attr_leaf(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_buf *bp;
	uint8_t *b;

	root_attrs(fx, 40, 30);
	b = root_attr_leaf(fx, &bp);
	if (c->keep_crc) {
		overlay_xor(fx, bp->daddr * 512 + XFSJ_DA3_OFF_CRC, 0x01);
		return;
	}
	row_put_be(b + c->off, (unsigned int)c->v2, c->v);
	xfsj_cksum_update(b, fx->sb.blocksize, XFSJ_DA3_OFF_CRC);
	xfsj_buf_dirty(bp);
}

/* The root's agino, and the AG 0 agino @c->v past it. */
static uint32_t root_agino(struct fs_fixture *fx)
{
	return xfsj_ino_agino(&fx->sb, fx->sb.rootino);
}

/*
 * AG 0's unlinked bucket of the inode @c->v past the root (or, with
 * @c->off, the bucket after) holding it; with @c->field2 the inode is
 * made an in-use file of no links first ("in use"), or marked in use
 * in the inobt only ("inobt").
 */
static void on_list(struct fs_fixture *fx, const struct row_case *c)
{
	uint32_t agino = root_agino(fx) + (uint32_t)c->v;
	uint64_t ino = xfsj_agino_to_ino(&fx->sb, 0, agino);

	if (c->field2)
		ino_take(fx, 0, agino);
	if (c->field2 && !strcmp(c->field2, "in use")) {
		struct xfsj_dinode di;
		struct xfsj_buf *bp;
		uint8_t *p = ino_ptr(fx, ino, &bp);

		dinode_base(fx, ino, &di);
		di.mode = S_IFREG | 0644;
		xfsj_dinode_encode(&di, p);
		xfsj_dinode_finish(p, fx->sb.inodesize);
		xfsj_buf_dirty(bp);
	}
	if (c->v2)
		set_bucket(fx, 0, (agino + (uint32_t)c->off) % 64, agino);
}

/*
 * The root directory rewritten naming the inode @c->v past the root
 * under "file" (an invalid number with @c->off: AG 5's).
 */
static void root_names(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_dirent d = { "file", 4, XFSJ_FT_REG,
		c->off ? xfsj_agino_to_ino(&fx->sb, 5, 200)
		       : fx->sb.rootino + c->v };

	ck_assert_int_eq(xfsj_dir_write(fx->fs, fx->sb.rootino,
					fx->sb.rootino, &d, 1, false, &fx->f),
			 0);
}

/*
 * The named file's data fork given one more mapping at offset 20: @c->v
 * blocks at AG 1 block @c->off (free space), or, with @c->off 0, the
 * blocks of its own mapping at offset 0.
 */
static void extra_map(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_bmbt_irec m;
	struct xfsj_iref ip;
	uint64_t ino[2], fsb;

	two_named_files(fx, ino);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino[0], true, &ip, &fx->f), 0);
	xfsj_bmbt_rec_decode(ip.dip + XFSJ_DINODE_CORE_SIZE, &m);
	fsb = c->off ? xfsj_agb_to_fsb(&fx->sb, 1, (uint32_t)c->off)
		     : m.startblock;
	fs_fixture_map(fx, ino[0], XFSJ_DATA_FORK, 20, fsb, c->v, false);
}

/* @c->v blocks of AG 1 taken out of free space, owned by no one. */
static void leak(struct fs_fixture *fx, const struct row_case *c)
{
	fs_fixture_alloc(fx, 1, (uint32_t)c->v);
}

/*
 * A loose symlink (see loose_file) of a local target: "a?c" with byte
 * 1 @c->v, its size @c->off.  (symlink.local_size cannot be made so: a
 * size past the fork reads as inode.format first.)
 */
static void loose_symlink(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_iref ip;
	uint32_t size;
	uint8_t *p;

	fs_fixture_make_file(fx, 10, 5, 0, 0, &ip);
	ip.di.mode = S_IFLNK | 0777;
	ip.di.format = XFSJ_DINODE_FMT_LOCAL;
	ip.di.size = c->off;
	p = xfsj_ifork(fx->fs, &ip, XFSJ_DATA_FORK, &size);
	ck_assert_uint_ge(size, 3);
	memcpy(p, "abc", 3);
	p[1] = (uint8_t)c->v;
	xfsj_iput(fx->fs, &ip, false);
}

/*
 * The root a block directory of 30 files (root_block_dir: "." at byte
 * 64, ".." at 80, the files from 96; the leaf entries and the tail at
 * the end); @c->v2 bytes (0: 4) at @c->off set to @c->v, the CRC
 * restamped (with @c->keep_crc: the CRC made wrong); or, with
 * @c->field, the root's core.
 */
static void block_dir(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_buf *bp = root_block_dir(fx);
	size_t off = c->from_end ? fx->sb.blocksize - c->off : c->off;

	if (c->field) {
		poke_root(fx, c->field, c->v);
		return;
	}
	if (c->keep_crc) {
		overlay_xor(fx, bp->daddr * 512 + XFSJ_DIR3_OFF_CRC, 0x01);
		return;
	}
	row_put_be(bp->data + off, (unsigned int)c->v2, c->v);
	xfsj_cksum_update(bp->data, fx->sb.blocksize, XFSJ_DIR3_OFF_CRC);
	xfsj_buf_dirty(bp);
}

/*
 * The root a short-form directory naming two new files "f0" and "f1"
 * (header 6 bytes, entries of 10: namelen, offset, name, ftype, inode);
 * byte @c->off of the fork set to @c->v (and @c->off2 to @c->v2), or,
 * with @c->field, the root's core.
 */
static void sf_dir(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_dirent d[2];
	struct xfsj_iref ip;

	for (unsigned int i = 0; i < 2; i++)
		d[i] = (struct xfsj_dirent){ i ? "f1" : "f0", 2, XFSJ_FT_REG,
			fs_fixture_make_file(fx, 10 + i, 1, 0, 0, &ip) };
	ck_assert_int_eq(xfsj_dir_write(fx->fs, fx->sb.rootino,
					fx->sb.rootino, d, 2, false, &fx->f),
			 0);
	if (c->field) {
		poke_root(fx, c->field, c->v);
		return;
	}
	local_fork_bytes(fx, XFSJ_DATA_FORK, c);
}

/*
 * AG 0's inobt (@c->v 0) or finobt (1) record 0 rewritten: its first
 * four inodes a hole (the count made 60, the free mask kept), or no
 * inode free (mask and count 0).
 */
static void ibt_rec0(struct fs_fixture *fx, const struct row_case *c)
{
	enum poke_where at = c->v ? AT_FINO0 : AT_INO0;
	struct xfsj_inobt_rec r;
	size_t o = XFSJ_SBLOCK_HDR_SIZE;

	ck_assert(ibt_rec(fx, c->v ? XFSJ_BT_FINO : XFSJ_BT_INO, 0,
			  root_agino(fx), &r));
	if (!c->v) {
		poke_at(fx, at, NULL, o + 4,
			0x0001U << 16 | 60U << 8 | r.freecount, false);
		return;
	}
	poke_at(fx, at, NULL, o + 4, (uint32_t)r.holemask << 16 |
		(uint32_t)r.count << 8, false);
	poke_at(fx, at, NULL, o + 8, 0, false);
	poke_at(fx, at, NULL, o + 12, 0, false);
}

/* AG 0's finobt record 0 moved to the chunk after the root's. */
static void finobt_moved(struct fs_fixture *fx, const struct row_case *c)
{
	(void)c;
	poke_at(fx, AT_FINO0, NULL, XFSJ_SBLOCK_HDR_SIZE,
		root_agino(fx) + 64, false);
}

/* The root's data fork mapping (a block directory's) made unwritten. */
static void dir_unwritten(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_iref ip;

	(void)c;
	root_block_dir(fx);
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, &ip, &fx->f),
			 0);
	ip.dip[XFSJ_DINODE_CORE_SIZE] |= 0x80;
	core_changed(fx, &ip);
}

/*
 * Forty attributes on the root (attr_leaf), then byte @c->off2 of the
 * name structure of leaf entry @c->off set to @c->v.
 */
static void attr_leaf_name(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_buf *bp;
	uint8_t *b;
	uint32_t nameidx;

	root_attrs(fx, 40, 30);
	b = root_attr_leaf(fx, &bp);
	nameidx = xfsj_get_be16(b + XFSJ_ATTR3_LEAF_HDR_SIZE +
				c->off * XFSJ_ATTR_LEAF_ENTRY_SIZE + 4);
	ck_assert_uint_lt(nameidx + c->off2, fx->sb.blocksize);
	b[nameidx + c->off2] = (uint8_t)c->v;
	xfsj_cksum_update(b, fx->sb.blocksize, XFSJ_DA3_OFF_CRC);
	xfsj_buf_dirty(bp);
}

/*
 * One user attribute on the root with a 4000-byte value in a remote
 * block; the 32 bits at byte @c->off of its remote name structure in
 * the leaf (valueblk 0, valuelen 4) set to @c->v, or, with
 * @c->keep_crc, a byte of the remote block's magic flipped.
 */
static void attr_remote(struct fs_fixture *fx, const struct row_case *c)
{
	static uint8_t v[4000];
	struct xfsj_attr_arg a = { .name = (const uint8_t *)"big",
				   .namelen = 3, .value = v,
				   .valuelen = sizeof(v) };
	struct xfsj_iref ip;
	struct xfsj_buf *bp;
	uint64_t fsb;
	uint8_t *b, *rmt;

	ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, &ip, &fx->f),
			 0);
	ck_assert_int_eq(xfsj_attr_set(fx->fs, &ip, &a, XFSJ_ATTR_CREATE,
				       &fx->f), 0);
	xfsj_iput(fx->fs, &ip, true);
	ck_assert_int_eq(xfsj_defer_finish(fx->fs, &fx->f), 0);
	settled(fx);
	b = root_attr_leaf(fx, &bp);
	rmt = b + xfsj_get_be16(b + XFSJ_ATTR3_LEAF_HDR_SIZE + 4);
	if (c->keep_crc) {
		ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, &ip,
					   &fx->f), 0);
		ck_assert_int_eq(xfsj_attr_bmap(fx->fs, &ip,
						xfsj_get_be32(rmt), &fsb,
						&fx->f), 0);
		overlay_xor(fx, xfsj_fsb_daddr(&fx->sb, fsb) * 512, 0x01);
		return;
	}
	xfsj_put_be32(rmt + c->off, (uint32_t)c->v);
	xfsj_cksum_update(b, fx->sb.blocksize, XFSJ_DA3_OFF_CRC);
	xfsj_buf_dirty(bp);
}

/* The root a block directory; entry 7's file type byte made @c->v. */
static void dir_ftype(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_buf *bp = root_block_dir(fx);

	*root_dir_ftype7(fx, bp) = (uint8_t)c->v;
	xfsj_cksum_update(bp->data, fx->sb.blocksize, XFSJ_DIR3_OFF_CRC);
	xfsj_buf_dirty(bp);
}

/* A new empty directory (inode slot @slot) whose ".." is @parent. */
static uint64_t new_dir(struct fs_fixture *fx, unsigned int slot,
			uint64_t parent)
{
	struct xfsj_iref ip;
	uint64_t ino = fs_fixture_make_file(fx, slot, 1, 0, 0, &ip);

	ip.di.mode = S_IFDIR | 0755;
	ip.di.nlink = 2;
	xfsj_iput(fx->fs, &ip, false);
	ck_assert_int_eq(xfsj_dir_write(fx->fs, ino, parent, NULL, 0, false,
					&fx->f), 0);
	return ino;
}

/*
 * Two new directories A and B, in two shapes (@c->v): 0, the root names
 * A twice ("a" and "b"); 1, the root names both but B's ".." is A.
 * (A and B naming each other, the root neither, is dir.loop: see
 * dir_loop.)
 */
static void two_dirs(struct fs_fixture *fx, const struct row_case *c)
{
	uint64_t root = fx->sb.rootino, a, b;
	struct xfsj_dirent d[2];

	a = new_dir(fx, 10, root);
	b = new_dir(fx, 11, c->v ? a : root);
	d[0] = (struct xfsj_dirent){ "a", 1, XFSJ_FT_DIR, a };
	d[1] = (struct xfsj_dirent){ "b", 1, XFSJ_FT_DIR, c->v ? b : a };
	ck_assert_int_eq(xfsj_dir_write(fx->fs, root, root, d, 2, false,
					&fx->f), 0);
}

/* The root a block directory; its largest free region's length (the
 * first bestfree's offset names it) made 6. */
static void dir_unused(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_buf *bp = root_block_dir(fx);
	uint32_t off = xfsj_get_be16(bp->data + 48);

	(void)c;
	ck_assert_uint_lt(off + 4, fx->sb.blocksize);
	xfsj_put_be16(bp->data + off + 2, 6);
	xfsj_cksum_update(bp->data, fx->sb.blocksize, XFSJ_DIR3_OFF_CRC);
	xfsj_buf_dirty(bp);
}

/* The root turned into an empty regular file: no directory is left. */
static void root_not_dir(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_iref ip;

	(void)c;
	ck_assert_int_eq(xfsj_iget(fx->fs, fx->sb.rootino, true, &ip, &fx->f),
			 0);
	ip.di.mode = 0100644;
	ip.di.format = XFSJ_DINODE_FMT_EXTENTS;
	ip.di.size = 0;
	xfsj_iput(fx->fs, &ip, false);
}

/* (designated: what a case leaves out is 0) */
#define AT(c, w, f, val, rl)	{ .code = c, .make = poked, .at = w, \
				  .field = f, .v = val, .reflink = rl }
#define RAW(c, w, o, val, rl)	{ .code = c, .make = poked, .at = w, \
				  .off = o, .v = val, .reflink = rl }
#define NOCRC(c, w, f, val, rl)	{ .code = c, .make = poked, .at = w, \
				  .field = f, .v = val, .keep_crc = true, \
				  .reflink = rl }
#define ROOT(c, f, val)		AT(c, AT_ROOTINO, f, val, false)
#define AGF(c, f, val)		AT(c, AT_AGF1, f, val, true)
#define AGI(c, f, val)		AT(c, AT_AGI1, f, val, true)
#define FILE_ROW(c, f, val)	{ .code = c, .make = loose_file, .field = f, \
				  .v = val }
#define ATTR_SF(c, o, val)	{ .code = c, .make = attr_sf, .off = o, \
				  .v = val }
#define ATTR_LEAF(c, o, w, val)	{ .code = c, .make = attr_leaf, .off = o, \
				  .v2 = w, .v = val }
#define DIR_BLK(c, o, w, val)	{ .code = c, .make = block_dir, .off = o, \
				  .v2 = w, .v = val }
#define DIR_TAIL(c, o, w, val)	{ .code = c, .make = block_dir, .off = o, \
				  .v2 = w, .v = val, .from_end = true }
#define FORK_REC(c, rec, k)	{ .code = c, .make = fork_rec, .off = rec, \
				  .v = k }

/* Makers defined below the table (loops, fork self-claims, parent
 * pointers). */
static void dir_loop(struct fs_fixture *fx, const struct row_case *c);
static void self_claim(struct fs_fixture *fx, const struct row_case *c);
static void pptr_step(struct fs_fixture *fx, const struct row_case *c);

#define PPTR_ROW(c, k)	{ .code = c, .make = pptr_step, .v = k }

static const struct row_case rows[] = {
	/* ---- the primary superblock ---- */
	AT("sb.primary.magic", AT_SB0, "magicnum", 0x12345678, false),
	NOCRC("sb.primary.crc", AT_SB0, "lsn", 99, false),
	RAW("sb.primary.garbage", AT_SB0, 400, 0x01010101, false),
	AT("sb.primary.invalid", AT_SB0, "imax_pct", 200, false),
	AT("sb.primary.mismatch", AT_SB0, "inopblock", 9, false),
	AT("sb.primary.dblocks", AT_SB0, "dblocks", 20000, false),
	{ .code = "sb.primary.devsize", .make = poked, .at = AT_SB0,
	  .field = "dblocks", .v = 3 * 8192, .field2 = "agcount", .v2 = 3 },
	{ .code = "sb.primary.differs", .make = poked, .at = AT_SB0,
	  .field = "logsunit", .v = 4096, .agcount = 4 },
	{ .code = "sb.primary.uuid", .make = poked, .at = AT_SB0,
	  .off = XFSJ_SB_OFF(uuid), .v = 0xdeadbeef, .agcount = 4 },
	{ .code = "sb.primary.quotino", .make = poked, .at = AT_SB0,
	  .field = "uquotino", .v = 200, .field2 = "qflags",
	  .v2 = XFSJ_QFLAG_UQUOTA_ACCT },
	{ .code = "sb.primary.needsrepair", .make = sb_incompat,
	  .v = XFSJ_INCOMPAT_NEEDSREPAIR },
	{ .code = "sb.primary.mkfs_unfinished", .make = sb_incompat,
	  .v = XFSJ_INCOMPAT_NEEDSREPAIR, .field2 = "inprogress", .v2 = 1 },
	AT("sb.counter", AT_SB0, "fdblocks", 100, false),
	/* ---- AG 1's superblock ---- */
	AT("sb.secondary.magic", AT_SB1, "magicnum", 0x12345678, false),
	NOCRC("sb.secondary.crc", AT_SB1, "lsn", 99, false),
	RAW("sb.secondary.garbage", AT_SB1, 400, 0x01010101, false),
	AT("sb.secondary.invalid", AT_SB1, "imax_pct", 200, false),
	AT("sb.secondary.mismatch", AT_SB1, "inopblock", 9, false),
	AT("sb.secondary.dblocks", AT_SB1, "dblocks", 20000, false),
	{ .code = "sb.secondary.differs", .make = poked, .at = AT_SB1,
	  .field = "logsunit", .v = 4096, .agcount = 4 },
	/* ---- AGF and AGI of AG 1 ---- */
	AGF("agf.counter", "freeblks", 3),
	AGF("agf.root", "cnt_root", 0),
	AGF("agf.magic", "magicnum", 0x12345678),
	AGF("agf.field", "seqno", 7),
	AGF("agf.level", "bno_level", 0),
	AGF("agf.flist", "flcount", 200),
	AGF("agf.bound", "longest", 0x7fffffff),
	RAW("agf.uuid", AT_AGF1, XFSJ_AGF_OFF(uuid), 0xdeadbeef, true),
	NOCRC("agf.crc", AT_AGF1, "freeblks", 3, true),
	AGF("agf.flcount", "flcount", 1),
	NOCRC("agi.crc", AT_AGI1, "freecount", 3, true),
	AT("agfl.magic", AT_AGFL1, "magicnum", 0x12345678, true),
	NOCRC("agfl.crc", AT_AGFL1, "lsn", 99, true),
	RAW("agfl.uuid", AT_AGFL1, 8, 0xdeadbeef, true),
	AT("agfl.field", AT_AGFL1, "seqno", 7, true),
	RAW("agfl.slot", AT_AGFL1, XFSJ_AGFL_HDR_SIZE, 0x7ffffff0, true),
	{ .code = "agfl.entry", .make = agfl_slot, .v = 0x7ffffff0,
	  .reflink = true },
	{ .code = "agfl.dup", .make = agfl_slot, .v = ~0ULL, .off = 1,
	  .reflink = true },
	AGI("agi.counter", "freecount", 40),
	AGI("agi.field", "seqno", 7),
	RAW("agi.unlinked", AT_AGI1, XFSJ_AGI_OFF(unlinked) + 12, 5, true),
	AGI("agi.magic", "magicnum", 0x12345678),
	AGI("agi.level", "level", 0),
	AGI("agi.root", "root", 0),
	RAW("agi.uuid", AT_AGI1, XFSJ_AGI_OFF(uuid), 0xdeadbeef, true),
	AGI("agi.bound", "count", 0x7fffffc0),
	/* ---- AG btree blocks: the root of one tree ---- */
	AT("btree.magic", AT_BNO1, "magic", 0x12345678, true),
	NOCRC("btree.crc", AT_CNT1, "lsn", 99, true),
	RAW("btree.uuid", AT_RMAP1, 32, 0xdeadbeef, true),
	AT("btree.blkno", AT_BNO1, "blkno", 12345, true),
	AT("btree.owner", AT_CNT1, "owner", 7, true),
	AT("btree.level", AT_BNO1, "level", 3, true),
	AT("btree.numrecs_max", AT_CNT1, "numrecs", 4000, true),
	AT("btree.leftsib", AT_BNO1, "leftsib", 5, true),
	AT("btree.rightsib", AT_RMAP1, "rightsib", 5, true),
	RAW("btree.rec_len", AT_BNO1, XFSJ_SBLOCK_HDR_SIZE + 4, 0, true),
	RAW("btree.rec_start", AT_BNO1, XFSJ_SBLOCK_HDR_SIZE, 0, true),
	RAW("inobt.align", AT_INO0, XFSJ_SBLOCK_HDR_SIZE, 1, true),
	RAW("inobt.count", AT_INO0, XFSJ_SBLOCK_HDR_SIZE + 4, 0x0000201f,
	    true),
	RAW("inobt.freecount", AT_INO0, XFSJ_SBLOCK_HDR_SIZE + 4, 0x00004001,
	    true),
	RAW("finobt.differs", AT_FINO0, XFSJ_SBLOCK_HDR_SIZE + 4, 0x0000403f,
	    true),
	RAW("rmapbt.meta", AT_RMAP1, XFSJ_SBLOCK_HDR_SIZE + 20, 5, true),
	RAW("rmapbt.flags", AT_RMAP1, XFSJ_SBLOCK_HDR_SIZE + 40, 0x08000000,
	    true),
	RAW("btree.rec_order", AT_RMAP1, XFSJ_SBLOCK_HDR_SIZE + 48, 1, true),
	{ .code = "inobt.holes", .make = ibt_rec0, .v = 0 },
	{ .code = "finobt.nofree", .make = ibt_rec0, .v = 1 },
	RAW("inobt.range", AT_INO0, XFSJ_SBLOCK_HDR_SIZE, 0x7fffffc0, true),
	AT("inobt.missing", AT_INO0, "numrecs", 0, true),
	AT("finobt.missing", AT_FINO0, "numrecs", 0, true),
	{ .code = "finobt.unknown", .make = finobt_moved, .reflink = true },
	/* (record 1's owner made record 0's: the two should merge) */
	RAW("rmapbt.merge", AT_RMAP1, XFSJ_SBLOCK_HDR_SIZE + 24 + 12,
	    0xfffffffa, true),
	RAW("space.one_free_tree", AT_CNT1, XFSJ_SBLOCK_HDR_SIZE + 4, 1,
	    true),
	RAW("rmapbt.owner", AT_RMAP1, XFSJ_SBLOCK_HDR_SIZE + 32, 0x80000000,
	    true),
	/* ---- the root directory's inode core ---- */
	NOCRC("inode.crc", AT_ROOTINO, "gen", 12345, false),
	{ .code = "inode.big_nextents", .make = poked, .at = AT_ROOTINO,
	  .field = "big_nextents", .v = 5, .old_format = true },
	{ .code = "inode.nsec", .make = poked, .at = AT_ROOTINO,
	  .field = "atime", .v = 1ULL << 32 | 2000000000,
	  .old_format = true },
	{ .code = "fork.ext_unwritten", .make = dir_unwritten },
	RAW("inode.uuid", AT_ROOTINO, XFSJ_DI_OFF(uuid), 0xdeadbeef, false),
	ROOT("inode.ino", "ino", 99),
	ROOT("inode.onlink", "onlink", 3),
	ROOT("inode.flags", "flags", 0x8000),
	ROOT("inode.extsize", "extsize", 16),
	ROOT("inode.cowextsize", "cowextsize", 16),
	ROOT("inode.nlink", "nlink", 7),
	ROOT("fork.nextents", "big_nextents", 5),
	ROOT("fork.nblocks", "nblocks", 3),
	ROOT("inode.magic", "magic", 0x4e4f),
	ROOT("inode.version", "version", 2),
	ROOT("inode.next_orphan", "next_unlinked", 1),
	ROOT("inode.next_unlinked", "next_unlinked", 0x0fffffc0),
	ROOT("inode.size", "size", 0),
	ROOT("inode.flags2", "flags2", 0x0a),
	ROOT("inode.nlink_zero", "nlink", 0),
	ROOT("inode.aformat", "aformat", 7),
	/* ---- a file no directory names, the inobt unaware of it ---- */
	FILE_ROW("inode.free_in_use", NULL, 0),
	FILE_ROW("inode.disconnected", NULL, 0),
	FILE_ROW("inode.mode", "mode", 0170644),
	FILE_ROW("inode.format", "format", 0),
	FILE_ROW("inode.forkoff", "forkoff", 250),
	/* ---- one mapping record of a named file's data fork ---- */
	FORK_REC("fork.ext_len", 0, 0),
	FORK_REC("fork.ext_offset", 1, 1),
	FORK_REC("fork.ext_order", 1, 2),
	FORK_REC("fork.ext_block", 1, 3),
	/* ---- the root's attributes: short form ---- */
	ATTR_SF("attr.sf.count", 2, 255),
	{ .code = "attr.sf.totsize_big", .make = attr_sf, .off = 0,
	  .v = 0xff, .off2 = 1, .v2 = 0xff },
	{ .code = "attr.sf.small", .make = attr_sf, .off = 0, .v = 0,
	  .off2 = 1, .v2 = 2 },
	ATTR_SF("attr.sf.namelen", 4, 0),
	ATTR_SF("attr.sf.past_end", 4 + 57 + 1, 200),
	ATTR_SF("attr.incomplete", 4 + 19 + 2, XFSJ_ATTR_FLAG_INCOMPLETE),
	ATTR_SF("attr.namespace", 4 + 57 + 2,
		XFSJ_ATTR_NS_ROOT | XFSJ_ATTR_NS_SECURE),
	ATTR_SF("attr.flags", 4 + 38 + 2, 0x10),
	ATTR_SF("attr.name", 4 + 19 + 3 + 2, 0),
	/* (totsize 62: past the entries' 61 bytes, within the fork) */
	{ .code = "attr.sf.totsize", .make = attr_sf3, .off = 1, .v = 62 },
	/* ("attr_002" made "attr_000") */
	ATTR_SF("attr.duplicate", 4 + 38 + 3 + 7, '0'),
	/* ---- the root's attributes: one leaf block ---- */
	{ .code = "attr.blk.crc", .make = attr_leaf, .keep_crc = true },
	ATTR_LEAF("attr.blk.magic", 8, 2, 0x1234),
	ATTR_LEAF("attr.blk.uuid", 32, 4, 0xdeadbeef),
	ATTR_LEAF("attr.blk.owner", 48, 8, 99),
	ATTR_LEAF("attr.blk.blkno", 16, 8, 12345),
	ATTR_LEAF("attr.blk.sibling", 0, 4, 5),
	ATTR_LEAF("attr.blk.pad", 10, 2, 1),
	ATTR_LEAF("attr.leaf.count", XFSJ_ALEAF_OFF_COUNT, 2, 0xffff),
	ATTR_LEAF("attr.leaf.usedbytes", 58, 2, 7),
	ATTR_LEAF("attr.leaf.firstused", 60, 2, 100),
	ATTR_LEAF("attr.leaf.freemap", 64, 2, 4097),
	ATTR_LEAF("attr.leaf.freemap_used", 64, 2, 80),
	ATTR_LEAF("attr.leaf.nameidx", 80 + 24 + 4, 2, 10),
	ATTR_LEAF("attr.leaf.hashval", 80 + 39 * 8, 4, 0xffffffff),
	/* (the last entry's name at 4090: past the block's end) */
	ATTR_LEAF("attr.leaf.name_past", 80 + 39 * 8 + 4, 2, 4090),
	/* ---- unlinked lists of AG 0 ---- */
	{ .code = "inode.unlinked_nlink", .make = on_list, .v2 = 1 },
	{ .code = "agi.unlinked_pending", .make = on_list, .v = 9,
	  .field2 = "in use", .v2 = 1 },
	{ .code = "agi.unlinked_list", .make = on_list, .v = 20, .v2 = 1 },
	{ .code = "agi.unlinked_hash", .make = on_list, .v = 9,
	  .field2 = "in use", .off = 1, .v2 = 1 },
	{ .code = "inode.used_free", .make = on_list, .v = 11,
	  .field2 = "inobt" },
	/* ---- space ---- */
	{ .code = "space.leaked", .make = leak, .v = 4 },
	{ .code = "space.free_and_used", .make = extra_map, .off = 1000,
	  .v = 2 },
	/* ---- symlinks ---- */
	{ .code = "symlink.nul", .make = loose_symlink, .v = 0, .off = 3 },
	/* ---- directory entries ---- */
	{ .code = "dirent.target", .make = root_names, .v = 20 },
	{ .code = "dir.entry.ino", .make = root_names, .off = 1 },
	/* ---- the root's attributes: a name in the leaf block ---- */
	{ .code = "attr.namelen", .make = attr_leaf_name, .off = 3,
	  .off2 = 2, .v = 0 },
	{ .code = "attr.leaf.overlap", .make = attr_leaf_name, .off = 3,
	  .off2 = 2, .v = 255 },
	/* ---- the root's attributes: a remote value ---- */
	{ .code = "attr.rmt.valueblk", .make = attr_remote, .off = 0,
	  .v = 0 },
	{ .code = "attr.rmt.missing", .make = attr_remote, .off = 0,
	  .v = 50 },
	{ .code = "attr.rmt.valuelen", .make = attr_remote, .off = 4,
	  .v = 0x7fffffff },
	{ .code = "attr.rmt.header", .make = attr_remote, .keep_crc = true },
	/* ---- the root, a block directory ---- */
	DIR_BLK("dir.magic", 0, 4, 0x12345678),
	{ .code = "dir.crc", .make = block_dir, .keep_crc = true },
	DIR_BLK("dir.header", 8, 8, 12345),
	DIR_BLK("dir.uuid", XFSJ_DIR3_OFF_UUID, 4, 0xdeadbeef),
	DIR_BLK("dir.bestfree", 48, 2, 0x100),
	DIR_BLK("dir.dot", 64, 8, 12345),
	DIR_BLK("dir.entry", 96 + 8, 1, 0),
	DIR_TAIL("dir.leaf.header", 4, 4, 7),
	DIR_TAIL("dir.leaf.order", 8 + 32 * 8, 4, 0xffffffff),
	DIR_TAIL("dir.leaf.dangling", 8 + 32 * 8 - 4, 4, 3),
	{ .code = "dir.size", .make = block_dir, .field = "size",
	  .v = 8192 },
	{ .code = "dirent.ftype", .make = dir_ftype, .v = 9 },
	{ .code = "dir.unused", .make = dir_unused },
	DIR_TAIL("dir.leaf.missing", 12, 4, 0),
	/* (the file type of ".." (inode 80, namelen 88, name): a file's) */
	DIR_BLK("dir.dotdot", 91, 1, XFSJ_FT_REG),
	/* ---- the root, a short-form directory ---- */
	{ .code = "dir.sf", .make = sf_dir, .off = 0, .v = 9 },
	/* (the last entry at 4080: the entries no longer fit a block) */
	{ .code = "dir.sf.offset", .make = sf_dir, .off = 17, .v = 0x0f,
	  .off2 = 18, .v2 = 0xf0 },
	{ .code = "dir.sf.size", .make = sf_dir, .field = "size", .v = 4 },
	/* ---- directories ---- */
	{ .code = "dir.root", .make = root_not_dir },
	{ .code = "dir.parents", .make = two_dirs, .v = 0 },
	{ .code = "names.dotdot", .make = two_dirs, .v = 1 },
	{ .code = "dir.loop", .make = dir_loop },
	/* ---- a fork claiming its own blocks twice (no reflink) ---- */
	{ .code = "space.multiply_claimed", .make = self_claim },
	/* ---- parent pointers ---- */
	PPTR_ROW("pptr.missing", 0),
	PPTR_ROW("pptr.extra", 1),
	PPTR_ROW("pptr.gen", 2),
	PPTR_ROW("attr.pptr.parent", 3),
};

/* Case @c made on its fixture, and its row answered. */
static void prove_row(const struct row_case *c)
{
	struct xfsj_features feat;
	struct fs_fixture fx;

	xfsj_features_default(&feat);
	feat.rmapbt = true;
	feat.reflink = c->reflink;
	if (c->old_format) {
		feat.bigtime = false;
		feat.nrext64 = false;
	}
	feat.parent = feat.parent && !c->no_parent;
	fs_fixture_make_feat(&fx, 64 * MB, 4096, c->agcount ? c->agcount : 2,
			     &feat);
	c->make(&fx, c);
	fs_fixture_reopen(&fx);
	answered(&fx, c->code);
	fs_fixture_free(&fx);
}

/* (every table's cases in turn: below, with the tables) */
static const struct row_case *case_nth(size_t i);

START_TEST(row_answered)
{
	prove_row(case_nth((size_t)_i));
}
END_TEST

/* ---- the rows of the repair defects (issue 23): their own table ---- */

/*
 * Directories A and B (new, in use) naming each other, each ".." the
 * other, the root naming neither: dir.loop.
 */
static void dir_loop(struct fs_fixture *fx, const struct row_case *c)
{
	uint64_t a = fx->sb.rootino + 10, b = fx->sb.rootino + 11;
	struct xfsj_dirent da = { "b", 1, XFSJ_FT_DIR, b };
	struct xfsj_dirent db = { "a", 1, XFSJ_FT_DIR, a };
	struct xfsj_iref ip;

	(void)c;
	ck_assert_uint_eq(new_dir(fx, 10, b), a);
	ck_assert_uint_eq(new_dir(fx, 11, a), b);
	ck_assert_int_eq(xfsj_dir_write(fx->fs, a, b, &da, 1, false, &fx->f),
			 0);
	ck_assert_int_eq(xfsj_dir_write(fx->fs, b, a, &db, 1, false, &fx->f),
			 0);
	for (uint64_t d = a; d <= b; d++) {
		ck_assert_int_eq(xfsj_iget(fx->fs, d, true, &ip, &fx->f), 0);
		ip.di.nlink = 3;
		xfsj_iput(fx->fs, &ip, false);
	}
}

/* The named file's second mapping pointed at its first one's blocks: it
 * claims them twice (space.multiply_claimed with one owner). */
static void self_claim(struct fs_fixture *fx, const struct row_case *c)
{
	struct xfsj_bmbt_irec m0, m1;
	struct xfsj_iref ip;
	uint64_t ino[2];
	uint8_t *rec;

	(void)c;
	two_named_files(fx, ino);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino[0], true, &ip, &fx->f), 0);
	rec = ip.dip + XFSJ_DINODE_CORE_SIZE;
	xfsj_bmbt_rec_decode(rec, &m0);
	xfsj_bmbt_rec_decode(rec + XFSJ_BMBT_REC_SIZE, &m1);
	m1.startblock = m0.startblock;
	xfsj_bmbt_rec_encode(&m1, rec + XFSJ_BMBT_REC_SIZE);
	core_changed(fx, &ip);
}

/* Parent pointer (@parent, @name, generation @gen) added to @ino. */
static void pptr_add(struct fs_fixture *fx, uint64_t ino, uint64_t parent,
		     const char *name, uint32_t gen)
{
	struct xfsj_iref ip;
	uint8_t val[XFSJ_ATTR_PPTR_VALUE_LEN];

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, true, &ip, &fx->f), 0);
	xfsj_put_be64(val, parent);
	xfsj_put_be32(val + 8, gen);
	ck_assert_int_eq(xfsj_attr_set(fx->fs, &ip, &(struct xfsj_attr_arg){
		.ns = XFSJ_ATTR_NS_PARENT, .name = (const uint8_t *)name,
		.namelen = (uint32_t)strlen(name), .value = val,
		.valuelen = sizeof(val) }, XFSJ_ATTR_UPSERT, &fx->f), 0);
	xfsj_iput(fx->fs, &ip, true);
}

/*
 * Parent pointers out of step with the entries "file" and "dev" of the
 * root (none at all is read as attributes not read, so one is made):
 * @c->v 0, the device's alone (the file's missing); 1, one the root has
 * no entry for; 2, the file's with another generation; 3, one naming
 * inode 0 as the parent.
 */
static void pptr_step(struct fs_fixture *fx, const struct row_case *c)
{
	uint64_t root = fx->sb.rootino, ino[2];
	struct xfsj_iref rip;

	ck_assert(fx->sb.features_incompat & XFSJ_INCOMPAT_PARENT);
	two_named_files(fx, ino);
	ck_assert_int_eq(xfsj_iget(fx->fs, root, true, &rip, &fx->f), 0);
	if (c->v == 0)
		pptr_add(fx, ino[1], root, "dev", rip.di.gen);
	if (c->v == 1)
		pptr_add(fx, ino[0], root, "ghost", rip.di.gen);
	if (c->v == 2)
		pptr_add(fx, ino[0], root, "file", rip.di.gen + 1);
	if (c->v == 3)
		pptr_add(fx, ino[0], 0, "nowhere", 1);
}


/*
 * The fixable rows no case above makes, each with the reason (what its
 * fixture needs).  A row leaves this table when a case makes it.
 */
enum why_not {
	R_FIRST_ROW,
	R_SB_MOVED,
	R_SHORT_DEV,
	R_NO_CHECK,
	R_CHUNK_RANGE,
	R_INFO,
};

/* what the fixture would need */
static const char *const reasons[] = {
	[R_FIRST_ROW] =
		"what makes it is reported first under another row",
	[R_SB_MOVED] =
		"secondaries where a changed AG size puts them: no helper",
	[R_SHORT_DEV] =
		"a device shorter than the filesystem: the fixture is its size",
	[R_NO_CHECK] =
		"no check reports it",
	[R_CHUNK_RANGE] =
		"an inobt record past the AG end, reported first as such",
	[R_INFO] =
		"an INFO row (the kernel allows it): the repair acts on none",
};

static const struct {
	const char *code;
	enum why_not why;
} not_covered[] = {
	{ "attr.leaf.empty", R_INFO },
	/* (any other format is inode.aformat, the core's rule, first) */
	{ "attr.format", R_FIRST_ROW },
	/* (its four cases are the btree walk's finobt.differs, .nofree,
	 * .unknown and .missing, proven above, which come first: a finobt
	 * record made to differ was finobt.differs) */
	{ "finobt.mismatch", R_FIRST_ROW },
	{ "symlink.local_size", R_FIRST_ROW },
	{ "sb.primary.elsewhere", R_SB_MOVED },
	{ "sb.secondary.pastend", R_SHORT_DEV },
	/* (nanoseconds past 1e9 are inode.nsec, proven) */
	{ "inode.time", R_NO_CHECK },
	{ "btree.unreadable", R_NO_CHECK },
	/* (a root or height out of range: agf.root, agf.level, agi.root,
	 * agi.level, the header's rows, first) */
	{ "btree.root", R_FIRST_ROW },
	{ "btree.height", R_FIRST_ROW },
	{ "inode.chunk_range", R_CHUNK_RANGE },
};

#define NNOT	(sizeof(not_covered) / sizeof(not_covered[0]))

/* The cases of this file; then row_cases.c's groups, a table each. */
static const struct row_table here = {
	rows, sizeof(rows) / sizeof(rows[0])
};

/* Case @i counted through every table in turn (NULL past the last). */
static const struct row_case *case_nth(size_t i)
{
	const struct row_table *t = &here;

	for (size_t g = 0; t; t = g < row_ngroups ? &row_groups[g++] : NULL) {
		if (i < t->n)
			return &t->c[i];
		i -= t->n;
	}
	return NULL;
}

static size_t ncases(void)
{
	size_t n = here.n;

	for (size_t g = 0; g < row_ngroups; g++)
		n += row_groups[g].n;
	return n;
}

/* Rows proven on a fixture: it may grow, never shrink. */
#define ROWS_FLOOR	224

static bool in_rows(const char *code)
{
	for (size_t i = 0; case_nth(i); i++)
		if (!strcmp(case_nth(i)->code, code))
			return true;
	return false;
}

static const char *reason_of(const char *code)
{
	for (size_t i = 0; i < NNOT; i++)
		if (!strcmp(not_covered[i].code, code))
			return reasons[not_covered[i].why];
	return NULL;
}

START_TEST(every_fixable_row_accounted)
{
	size_t i, n = xfsj_problem_count(), fixable = 0, covered = 0;

	for (i = 0; case_nth(i); i++) {
		const char *code = case_nth(i)->code;
		const struct xfsj_problem_def *d = xfsj_problem_by_code(code);

		ck_assert_msg(d && d->fix != XFSJ_FIX_NONE, "%s: not a fixable "
			      "row", code);
		for (size_t k = 0; k < i; k++)
			ck_assert_str_ne(case_nth(k)->code, code);
	}
	for (i = 0; i < NNOT; i++) {
		const struct xfsj_problem_def *d =
			xfsj_problem_by_code(not_covered[i].code);

		ck_assert_msg(d && d->fix != XFSJ_FIX_NONE, "%s: not a fixable "
			      "row", not_covered[i].code);
		ck_assert_msg(!in_rows(not_covered[i].code),
			      "%s: proven, yet listed as not",
			      not_covered[i].code);
		ck_assert(reasons[not_covered[i].why]);
		for (size_t k = 0; k < i; k++)
			ck_assert_str_ne(not_covered[k].code,
					 not_covered[i].code);
	}
	for (i = 0; i < n; i++) {
		const struct xfsj_problem_def *d = xfsj_problem_nth(i);

		if (d->fix == XFSJ_FIX_NONE)
			continue;
		fixable++;
		if (in_rows(d->code))
			covered++;
		else
			ck_assert_msg(reason_of(d->code),
				      "%s: fixable, neither proven nor said "
				      "why not", d->code);
	}
	printf("repair_rows: %zu of %zu fixable rows proven on a fixture\n",
	       covered, fixable);
	ck_assert_uint_ge(covered, ROWS_FLOOR);
}
END_TEST

Suite *repair_rows_suite(void)
{
	Suite *s = suite_create("repair_rows");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_fixable_row_accounted);
	tcase_add_loop_test(tc, row_answered, 0, (int)ncases());
	suite_add_tcase(s, tc);
	return s;
}
