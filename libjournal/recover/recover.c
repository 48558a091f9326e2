/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay passes of log recovery (see shared/reference/xfs-log.md §9).
 *
 * Pass 1 only builds the buffer cancellation table: a buffer freed by a
 * later transaction must not be overwritten by an earlier copy, because
 * the block may since have been reused for something else.
 *
 * Pass 2 replays each committed transaction in log order, its items
 * reordered the way the kernel does (buffers first, inode buffers and
 * cancellations last), with the v5 rule that metadata already stamped with
 * an LSN at or beyond the transaction's is left alone.
 *
 * Log item format structures are in the byte order of the host that wrote
 * the log; Linux on x86 and arm64 writes little-endian, which is all we
 * accept (the caller checks h_fmt).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/crc32c.h"
#include "xfsj/fs.h"
#include "core/layout.h"
#include "ondisk/meta.h"
#include "xfsj/ondisk.h"
#include "xfsj/recover.h"

struct cancel {
	uint64_t blkno;
	uint32_t len;
	uint32_t refs;
};

struct intent {
	uint16_t type;
	uint64_t id;
	uint64_t lsn;
	uint8_t *fmt;		/* a copy of all the item's regions */
	uint32_t len;		/* of region 0, the format */
	struct xfsj_region *regs;
	uint16_t nreg;
};

struct xfsj_recover {
	struct xfsj_overlay *ov;
	struct xfsj_sb sb;
	uint8_t *buf;			/* scratch for one buffer */
	size_t bufsize;
	struct cancel *cancels;
	size_t ncancel, capcancel;
	struct intent *intents;
	size_t nintent, capintent;
	struct xfsj_recover_stats st;
	/*
	 * The buffers replayed by transactions of the current start LSN.
	 * The kernel stamps a replayed buffer with the transaction's LSN only
	 * when it writes it, and writes the buffers of one start LSN only
	 * once the commit record of a later start LSN comes: several
	 * checkpoints can start in one log record, and each must replay its
	 * buffers over what the previous one replayed.  We stamp at once, so
	 * an LSN equal to the transaction's on a buffer of this set is ours
	 * and no reason to skip.
	 */
	uint64_t group_lsn;
	uint64_t *group;		/* open addressing; 0 is empty */
	size_t ngroup, capgroup;
};

static size_t group_slot(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 17) & (cap - 1);
}

/* Keys are daddr + 1, so that daddr 0 is a key too. */
static bool group_has(const struct xfsj_recover *rc, uint64_t daddr)
{
	if (!rc->capgroup)
		return false;
	for (size_t i = group_slot(daddr + 1, rc->capgroup);;
	     i = (i + 1) & (rc->capgroup - 1)) {
		if (rc->group[i] == daddr + 1)
			return true;
		if (!rc->group[i])
			return false;
	}
}

static int group_add(struct xfsj_recover *rc, uint64_t daddr)
{
	if ((rc->ngroup + 1) * 2 > rc->capgroup) {
		size_t cap = rc->capgroup ? rc->capgroup * 2 : 256;
		uint64_t *old = rc->group, *nv = calloc(cap, sizeof(*nv));
		size_t ocap = rc->capgroup;

		if (!nv)
			return -XFSJ_E_NOMEM;
		rc->group = nv;
		rc->capgroup = cap;
		rc->ngroup = 0;
		for (size_t i = 0; i < ocap; i++)
			if (old[i])
				group_add(rc, old[i] - 1);
		free(old);
	}
	if (group_has(rc, daddr))
		return 0;
	for (size_t i = group_slot(daddr + 1, rc->capgroup);;
	     i = (i + 1) & (rc->capgroup - 1)) {
		if (!rc->group[i]) {
			rc->group[i] = daddr + 1;
			rc->ngroup++;
			return 0;
		}
	}
}

static void group_start(struct xfsj_recover *rc, uint64_t lsn)
{
	if (rc->group_lsn == lsn)
		return;
	rc->group_lsn = lsn;
	/* Clearing costs what the group used, not the largest group seen. */
	if (rc->capgroup > 1024 && rc->ngroup * 8 < rc->capgroup) {
		free(rc->group);
		rc->group = NULL;
		rc->capgroup = 0;
	} else if (rc->ngroup) {
		memset(rc->group, 0, rc->capgroup * sizeof(*rc->group));
	}
	rc->ngroup = 0;
}

static int corrupt(struct xfsj_fault *f, const char *structure,
		   const char *field, uint64_t off, uint64_t val)
{
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, structure, field, off, val);
}

int xfsj_recover_create(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
			struct xfsj_recover **out)
{
	struct xfsj_recover *rc = calloc(1, sizeof(*rc));

	if (!rc)
		return -XFSJ_E_NOMEM;
	rc->ov = ov;
	rc->sb = *sb;
	*out = rc;
	return 0;
}

void xfsj_recover_free(struct xfsj_recover *rc)
{
	if (!rc)
		return;
	free(rc->buf);
	free(rc->cancels);
	for (size_t i = 0; i < rc->nintent; i++) {
		free(rc->intents[i].fmt);
		free(rc->intents[i].regs);
	}
	free(rc->intents);
	free(rc->group);
	free(rc);
}

const struct xfsj_recover_stats *xfsj_recover_stats(const struct xfsj_recover *rc)
{
	return &rc->st;
}

static int scratch(struct xfsj_recover *rc, size_t len)
{
	if (len <= rc->bufsize)
		return 0;
	uint8_t *n = realloc(rc->buf, len);

	if (!n)
		return -XFSJ_E_NOMEM;
	rc->buf = n;
	rc->bufsize = len;
	return 0;
}

/* ---- buffer cancellation table ---- */

static struct cancel *cancel_find(struct xfsj_recover *rc, uint64_t blkno,
				  uint32_t len)
{
	for (size_t i = 0; i < rc->ncancel; i++)
		if (rc->cancels[i].blkno == blkno && rc->cancels[i].len == len)
			return &rc->cancels[i];
	return NULL;
}

static int cancel_add(struct xfsj_recover *rc, uint64_t blkno, uint32_t len)
{
	struct cancel *c = cancel_find(rc, blkno, len);

	if (c) {
		c->refs++;
		return 0;
	}
	if (rc->ncancel == rc->capcancel) {
		size_t ncap = rc->capcancel ? rc->capcancel * 2 : 64;
		struct cancel *n = realloc(rc->cancels, ncap * sizeof(*n));

		if (!n)
			return -XFSJ_E_NOMEM;
		rc->cancels = n;
		rc->capcancel = ncap;
	}
	rc->cancels[rc->ncancel++] = (struct cancel){ blkno, len, 1 };
	return 0;
}

/* ---- buffer items ---- */

struct buf_fmt {
	uint16_t flags;
	uint16_t len;		/* BBs */
	uint64_t blkno;
	uint32_t map_size;	/* words */
	const uint8_t *map;
};

static int buf_fmt_decode(const struct xfsj_ritem *it, struct buf_fmt *b,
			  struct xfsj_fault *f)
{
	const struct xfsj_region *r = &it->reg[0];

	if (r->len < 20)
		return corrupt(f, "buf log item", "size", 0, r->len);
	b->flags = xfsj_get_le16(r->p + 4);
	b->len = xfsj_get_le16(r->p + 6);
	b->blkno = xfsj_get_le64(r->p + 8);
	b->map_size = xfsj_get_le32(r->p + 16);
	b->map = r->p + 20;
	if (b->map_size > 17 || 20 + 4ULL * b->map_size > r->len)
		return corrupt(f, "buf log item", "blf_map_size", 16,
			       b->map_size);
	/* The largest metadata buffer is a 64 KiB directory block. */
	if (b->len == 0 || b->len > 128)
		return corrupt(f, "buf log item", "blf_len", 6, b->len);
	return 0;
}

static bool map_bit(const struct buf_fmt *b, unsigned int bit)
{
	if (bit / 32 >= b->map_size)
		return false;
	return xfsj_get_le32(b->map + 4 * (bit / 32)) >> (bit % 32) & 1;
}

/*
 * Walk the dirty map: each run of set bits is covered by the next data
 * region(s); the copy of a region is limited to its own length.
 */
typedef void (*run_fn)(void *arg, uint32_t off, const uint8_t *data,
		       uint32_t len);

static int walk_regions(const struct xfsj_ritem *it, const struct buf_fmt *b,
			uint32_t buflen, run_fn fn, void *arg,
			struct xfsj_fault *f)
{
	unsigned int nbits = b->map_size * 32;
	unsigned int bit = 0;
	unsigned int reg = 1;

	while (bit < nbits) {
		unsigned int n = 0;
		uint32_t off, len;

		if (!map_bit(b, bit)) {
			bit++;
			continue;
		}
		while (bit + n < nbits && map_bit(b, bit + n))
			n++;
		if (reg >= it->nreg)
			return corrupt(f, "buf log item", "region count",
				       b->blkno << 9, it->nreg);
		len = n * XFSJ_BLF_CHUNK;
		if (it->reg[reg].len < len)
			len = it->reg[reg].len / XFSJ_BLF_CHUNK * XFSJ_BLF_CHUNK;
		if (!len)
			return corrupt(f, "buf log item", "region length",
				       b->blkno << 9, it->reg[reg].len);
		off = bit * XFSJ_BLF_CHUNK;
		if (off >= buflen)
			return corrupt(f, "buf log item", "dirty map",
				       b->blkno << 9, bit);
		if (len > buflen - off)
			len = buflen - off;
		fn(arg, off, it->reg[reg].p, len);
		bit += len / XFSJ_BLF_CHUNK;
		reg++;
	}
	return 0;
}

static void copy_run(void *arg, uint32_t off, const uint8_t *data,
		     uint32_t len)
{
	memcpy((uint8_t *)arg + off, data, len);
}

struct iunlink_ctx {
	uint8_t *buf;
	uint32_t isize;
	uint32_t ninodes;
	bool bad;
};

/* Inode buffers: only di_next_unlinked of each inode is replayed. */
static void iunlink_run(void *arg, uint32_t off, const uint8_t *data,
			uint32_t len)
{
	struct iunlink_ctx *c = arg;

	for (uint32_t i = 0; i < c->ninodes; i++) {
		uint32_t field = i * c->isize + 96;
		uint32_t v;

		if (field < off || field + 4 > off + len)
			continue;
		memcpy(&v, data + (field - off), 4);
		if (v == 0) {
			c->bad = true;
			continue;
		}
		memcpy(c->buf + field, &v, 4);
		xfsj_cksum_update(c->buf + i * c->isize, c->isize,
				  XFSJ_DINODE_CRC_OFF);
	}
}

static bool quota_on(const struct xfsj_recover *rc)
{
	/* user, group or project accounting */
	return rc->sb.qflags & (0x0001 | 0x0040 | 0x0010);
}

/*
 * Is [daddr, daddr + len) (512-byte units) a place no metadata can be:
 * past the end of the filesystem (dblocks, as last replayed), or inside
 * the internal log?  Only a damaged log names such a place.  The kernel
 * refuses the first; it would replay the second, writing over the log it
 * is replaying; we refuse both.
 */
static bool daddr_bad(const struct xfsj_recover *rc, uint64_t daddr,
		      uint64_t len)
{
	const struct xfsj_sb *sb = &rc->sb;
	uint64_t end = sb->dblocks << (sb->blocklog - 9);

	if (daddr >= end || len > end - daddr)
		return true;
	if (sb->logstart) {
		uint64_t agno = sb->logstart >> sb->agblklog;
		uint64_t agbno = sb->logstart & ((1ULL << sb->agblklog) - 1);
		uint64_t ls = (agno * sb->agblocks + agbno) << (sb->blocklog - 9);
		uint64_t le = ls + ((uint64_t)sb->logblocks << (sb->blocklog - 9));

		if (daddr < le && daddr + len > ls)
			return true;
	}
	return false;
}

/*
 * The primary superblock was just replayed: from here on its geometry is
 * the recovery's, as the kernel takes it at once (later transactions of a
 * growfs allocate in the new AGs, and the work finished after the replay
 * and the summary counters cover them).  A growfs changes agcount and
 * dblocks only: anything else of the geometry changing, AGs going away,
 * or a size that its AGs or the device cannot hold is corruption.
 */
static int follow_sb(struct xfsj_recover *rc, struct xfsj_fault *f)
{
	const struct xfsj_sb *o = &rc->sb;
	uint64_t dev = xfsj_overlay_dev_size(rc->ov);
	struct xfsj_sb sb;
	int err;

	err = xfsj_overlay_read(rc->ov, rc->buf, XFSJ_BBSIZE, 0);
	if (err)
		return xfsj_fault_set(f, err, "superblock", "read", 0, 0);
	xfsj_sb_decode(rc->buf, &sb);
	if (sb.magicnum != XFSJ_SB_MAGIC)
		return corrupt(f, "superblock", "magicnum", 0, sb.magicnum);
#define SAME(field, off)						\
	do {								\
		if (sb.field != o->field)				\
			return corrupt(f, "superblock", #field, off,	\
				       sb.field);			\
	} while (0)
	SAME(blocksize, 4);
	SAME(logstart, 48);
	SAME(agblocks, 84);
	SAME(logblocks, 96);
	SAME(sectsize, 102);
	SAME(inodesize, 104);
	SAME(agblklog, 124);
#undef SAME
	if (memcmp(sb.uuid, o->uuid, sizeof(sb.uuid)))
		return corrupt(f, "superblock", "uuid", 32, 0);
	/* The kernel refuses to take AGs away during recovery. */
	if (sb.agcount < o->agcount)
		return corrupt(f, "superblock", "agcount", 88, sb.agcount);
	/* Every AG but the last whole, the last one not empty. */
	if (!sb.agcount ||
	    sb.dblocks > (uint64_t)sb.agcount * sb.agblocks ||
	    sb.dblocks <= (uint64_t)(sb.agcount - 1) * sb.agblocks)
		return corrupt(f, "superblock", "dblocks", 8, sb.dblocks);
	if (sb.dblocks > dev >> sb.blocklog)
		return xfsj_fault_set(f, XFSJ_E_TOOSMALL, "superblock",
				      "dblocks", 8, sb.dblocks);
	rc->sb = sb;
	return 0;
}

static int replay_buf(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		      uint64_t lsn, struct xfsj_fault *f)
{
	struct buf_fmt b = { 0 };
	struct cancel *c;
	uint32_t buflen;
	uint64_t off;
	int err;

	err = buf_fmt_decode(it, &b, f);
	if (err)
		return err;
	if (b.flags & XFSJ_BLF_CANCEL) {
		c = cancel_find(rc, b.blkno, b.len);
		if (c && --c->refs == 0)
			*c = rc->cancels[--rc->ncancel];
		return 0;
	}
	if (cancel_find(rc, b.blkno, b.len)) {
		rc->st.bufs_cancelled++;
		return 0;
	}
	if ((b.flags & XFSJ_BLF_DQUOT_MASK) && !quota_on(rc)) {
		rc->st.dquots_skipped++;
		return 0;
	}
	if (daddr_bad(rc, b.blkno, b.len))
		return xfsj_fault_set(f, XFSJ_E_RANGE, "buf log item",
				      "blf_blkno", 8, b.blkno);
	buflen = (uint32_t)b.len << 9;
	off = b.blkno << 9;
	err = scratch(rc, buflen);
	if (!err)
		err = xfsj_overlay_read(rc->ov, rc->buf, buflen, off);
	if (err)
		return xfsj_fault_set(f, err, "buffer", "blf_blkno", off,
				      b.blkno);

	if (b.flags & XFSJ_BLF_INODE_BUF) {
		struct iunlink_ctx ic = {
			rc->buf, rc->sb.inodesize, buflen / rc->sb.inodesize,
			false,
		};

		err = walk_regions(it, &b, buflen, iunlink_run, &ic, f);
		if (err)
			return err;
		if (ic.bad)
			return corrupt(f, "inode buffer", "di_next_unlinked",
				       off, 0);
	} else {
		/* The v5 rule: the disk already holds this change or later. */
		uint64_t disk = xfsj_meta_lsn(rc->buf, buflen,
					      xfsj_meta_fs_uuid(&rc->sb));

		if (disk && disk != UINT64_MAX &&
		    (disk > lsn || (disk == lsn && !group_has(rc, b.blkno)))) {
			rc->st.bufs_skipped_lsn++;
			return 0;
		}
		err = walk_regions(it, &b, buflen, copy_run, rc->buf, f);
		if (!err)
			err = group_add(rc, b.blkno);
		if (err)
			return err;
		xfsj_meta_stamp(rc->buf, buflen, lsn, rc->sb.sectsize,
				rc->sb.blocksize, rc->sb.inodesize);
	}
	rc->st.bufs_replayed++;
	err = xfsj_overlay_write(rc->ov, rc->buf, buflen, off);
	if (!err && b.blkno == 0 && b.flags >> XFSJ_BLFT_SHIFT == XFSJ_BLFT_SB)
		err = follow_sb(rc, f);
	return err;
}

/* ---- inode items ---- */

/*
 * An inode item with DOWNER (AOWNER) set comes from an extent swap
 * (XFS_IOC_SWAPEXT without rmapbt) that moved a btree-format fork from
 * one inode to the other.  The transaction did not log the fork's btree
 * blocks: it wrote their new owner through ordered buffers, which may not
 * have reached the disk.  So recovery, like the kernel's, sets the owner
 * of every block of the fork's bmbt to the inode, each block's checksum
 * recomputed and its LSN left as it is (these blocks carry no log item);
 * blocks that already name the inode are left alone.
 *
 * Unlike the kernel, which walks each level along the sibling pointers
 * and gives up recovery at the first block its verifier rejects, we go
 * down the child pointers as of this transaction and pass over what the
 * disk holds in a later version (an LSN beyond the transaction's: the
 * block was logged again since, owner included) or no longer holds at
 * all (not a bmbt block of the expected level: freed and reused, maybe
 * as file data, which has no LSN).  Such a block's subtree is left to
 * the later transactions that rewrote it.
 */
/* Deeper than any bmbt: 2^64 extents need fewer levels at 1 KiB blocks. */
#define OWNER_MAXLEVELS	12

struct owner_walk {
	struct xfsj_recover *rc;
	uint64_t ino, lsn, budget;
	uint8_t *b[OWNER_MAXLEVELS];
};

static int owner_node(struct owner_walk *w, uint64_t fsb, uint32_t level,
		      struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = &w->rc->sb;
	uint32_t bs = sb->blocksize, n, m;
	uint64_t daddr, blsn;
	uint8_t *b = w->b[level];
	int err;

	if (!w->budget--)
		return corrupt(f, "bmap btree", "size (a loop?)", 0, w->ino);
	if (xfsj_fsb_agno(sb, fsb) >= sb->agcount ||
	    xfsj_fsb_agbno(sb, fsb) >= sb->agblocks) {
		w->rc->st.owners_passed++;
		return 0;
	}
	daddr = xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
				  xfsj_fsb_agbno(sb, fsb));
	err = xfsj_overlay_read(w->rc->ov, b, bs, daddr << 9);
	if (err)
		return xfsj_fault_set(f, err, "bmap btree block", "read",
				      daddr << 9, fsb);
	blsn = xfsj_get_be64(b + 32);
	n = xfsj_get_be16(b + 6);
	m = (bs - XFSJ_LBLOCK_HDR_SIZE) / 16;
	if (xfsj_get_be32(b) != XFSJ_BMAP_MAGIC ||
	    xfsj_get_be16(b + 4) != level || n > m ||
	    (blsn != UINT64_MAX && blsn > w->lsn)) {
		w->rc->st.owners_passed++;
		return 0;
	}
	if (xfsj_get_be64(b + 56) != w->ino) {
		xfsj_put_be64(b + 56, w->ino);
		xfsj_cksum_update(b, bs, XFSJ_LBLOCK_CRC_OFF);
		err = xfsj_overlay_write(w->rc->ov, b, bs, daddr << 9);
		if (err)
			return xfsj_fault_set(f, err, "bmap btree block",
					      "write", daddr << 9, fsb);
		w->rc->st.owners_changed++;
	}
	/* b is this level's: read each child pointer before going down. */
	for (uint32_t i = 0; level && i < n; i++) {
		uint64_t child = xfsj_get_be64(w->b[level] +
					       XFSJ_LBLOCK_HDR_SIZE + (m + i) * 8);

		err = owner_node(w, child, level - 1, f);
		if (err)
			return err;
	}
	return 0;
}

static int change_owner(struct xfsj_recover *rc, uint64_t ino,
			const uint8_t *root, uint32_t rootsize, uint64_t lsn,
			struct xfsj_fault *f)
{
	struct owner_walk w = { .rc = rc, .ino = ino, .lsn = lsn,
				.budget = rc->sb.dblocks };
	uint32_t level, nrecs, maxrecs;
	int err = 0;

	if (rootsize < 4 + 16)
		return corrupt(f, "log dinode", "bmdr root size", 0, rootsize);
	level = xfsj_get_be16(root);
	nrecs = xfsj_get_be16(root + 2);
	maxrecs = (rootsize - 4) / 16;
	if (!level || level > OWNER_MAXLEVELS || nrecs > maxrecs)
		return corrupt(f, "log dinode", "bmdr root", 0, level);
	for (uint32_t l = 0; l < level; l++) {
		w.b[l] = malloc(rc->sb.blocksize);
		if (!w.b[l])
			err = xfsj_fault_set(f, XFSJ_E_NOMEM, "owner change",
					     "block", 0, rc->sb.blocksize);
	}
	for (uint32_t i = 0; !err && i < nrecs; i++)
		err = owner_node(&w, xfsj_get_be64(root + 4 + (maxrecs + i) * 8),
				 level - 1, f);
	for (uint32_t l = 0; l < level; l++)
		free(w.b[l]);
	return err;
}

struct ino_fmt {
	uint32_t fields;
	uint16_t asize, dsize;
	uint64_t ino;
	uint32_t rdev;
	uint64_t blkno;
	uint32_t len;
	uint32_t boffset;
};

static int ino_fmt_decode(const struct xfsj_region *r, struct ino_fmt *fi,
			  struct xfsj_fault *f)
{
	const uint8_t *p = r->p;
	/* 56 bytes normally; 52 from writers that pack the structure. */
	unsigned int shift = r->len == 52 ? 4 : 0;

	if (r->len != 56 && r->len != 52)
		return corrupt(f, "inode log item", "size", 0, r->len);
	fi->fields = xfsj_get_le32(p + 4);
	fi->asize = xfsj_get_le16(p + 8);
	fi->dsize = xfsj_get_le16(p + 10);
	fi->ino = xfsj_get_le64(p + 16 - shift);
	fi->rdev = xfsj_get_le32(p + 24 - shift);
	fi->blkno = xfsj_get_le64(p + 40 - shift);
	fi->len = xfsj_get_le32(p + 48 - shift);
	fi->boffset = xfsj_get_le32(p + 52 - shift);
	return 0;
}

/*
 * The owner changes an inode item records, from the inode @dip as of
 * @as_of (replayed, or as the disk holds it when the disk is newer),
 * unless the inode has since been freed (mode 0), as the kernel does.
 */
static int owner_changes(struct xfsj_recover *rc, const struct ino_fmt *fi,
			 const uint8_t *dip, uint32_t isize, uint64_t as_of,
			 struct xfsj_fault *f)
{
	uint32_t forkoff = dip[82], dsize, asize;
	int err = 0;

	if (!(fi->fields & (XFSJ_ILOG_DOWNER | XFSJ_ILOG_AOWNER)) ||
	    !xfsj_get_be16(dip + 2))
		return 0;
	rc->st.owner_items++;
	if (forkoff * 8U >= isize - XFSJ_DINODE_CORE_SIZE)
		return 0;
	dsize = forkoff ? forkoff * 8U : isize - XFSJ_DINODE_CORE_SIZE;
	asize = isize - XFSJ_DINODE_CORE_SIZE - forkoff * 8U;
	if ((fi->fields & XFSJ_ILOG_DOWNER) && dip[5] == XFSJ_DINODE_FMT_BTREE)
		err = change_owner(rc, fi->ino, dip + XFSJ_DINODE_CORE_SIZE,
				   dsize, as_of, f);
	if (!err && (fi->fields & XFSJ_ILOG_AOWNER) && forkoff &&
	    dip[83] == XFSJ_DINODE_FMT_BTREE)
		err = change_owner(rc, fi->ino, dip + XFSJ_DINODE_CORE_SIZE +
				   forkoff * 8U, asize, as_of, f);
	return err;
}

/* Log dinode (host order) to on-disk dinode (big-endian). */
static void log_dinode_to_disk(const uint8_t *ld, uint8_t *dip, uint64_t lsn)
{
	static const int ts_offs[] = { 32, 40, 48, 144 };
	struct xfsj_dinode di;
	uint32_t next_unlinked = xfsj_get_be32(dip + 96);

	xfsj_layout_decode_le(&xfsj_dinode_layout, ld, &di);
	if (!(di.flags2 & XFSJ_DIFLAG2_BIGTIME)) {
		/* Legacy timestamps: two host-order 32-bit words each. */
		for (int i = 0; i < 4; i++) {
			uint64_t v = (uint64_t)xfsj_get_le32(ld + ts_offs[i]) << 32 |
				     xfsj_get_le32(ld + ts_offs[i] + 4);

			switch (i) {
			case 0: di.atime = v; break;
			case 1: di.mtime = v; break;
			case 2: di.ctime = v; break;
			case 3: di.crtime = v; break;
			}
		}
	}
	di.next_unlinked = next_unlinked;	/* comes from inode buffers */
	di.lsn = lsn;
	xfsj_dinode_encode(&di, dip);
}

/* In-memory bmbt root (long block header) to the on-disk bmdr root. */
static int broot_to_disk(const struct xfsj_region *r, uint8_t *fork,
			 uint32_t forksize, struct xfsj_fault *f)
{
	uint32_t maxrecs, dmaxrecs, level, numrecs;

	if (r->len < XFSJ_LBLOCK_HDR_SIZE || forksize < 4)
		return corrupt(f, "inode log item", "broot", 0, r->len);
	level = xfsj_get_be16(r->p + 4);
	numrecs = xfsj_get_be16(r->p + 6);
	maxrecs = (r->len - XFSJ_LBLOCK_HDR_SIZE) / 16;
	dmaxrecs = (forksize - 4) / 16;
	if (numrecs > maxrecs || numrecs > dmaxrecs || level == 0)
		return corrupt(f, "inode log item", "broot numrecs", 0, numrecs);
	memset(fork, 0, forksize);
	xfsj_put_be16(fork, (uint16_t)level);
	xfsj_put_be16(fork + 2, (uint16_t)numrecs);
	memcpy(fork + 4, r->p + XFSJ_LBLOCK_HDR_SIZE, numrecs * 8);
	memcpy(fork + 4 + dmaxrecs * 8,
	       r->p + XFSJ_LBLOCK_HDR_SIZE + maxrecs * 8, numrecs * 8);
	return 0;
}

static int replay_inode(struct xfsj_recover *rc, const struct xfsj_ritem *it,
			uint64_t lsn, struct xfsj_fault *f)
{
	const uint32_t isize = rc->sb.inodesize;
	struct ino_fmt fi = { 0 };
	uint32_t buflen, dsize, asize, forkoff;
	uint64_t off, disk_lsn;
	uint8_t *dip;
	const uint8_t *ld;
	unsigned int next;
	int err;

	if (it->nreg < 2)
		return corrupt(f, "inode log item", "regions", 0, it->nreg);
	err = ino_fmt_decode(&it->reg[0], &fi, f);
	if (err)
		return err;
	if (cancel_find(rc, fi.blkno, fi.len)) {
		rc->st.inodes_cancelled++;
		return 0;
	}
	if (!fi.len || fi.len > 256)
		return corrupt(f, "inode log item", "ilf_len", 0, fi.len);
	if (daddr_bad(rc, fi.blkno, fi.len))
		return xfsj_fault_set(f, XFSJ_E_RANGE, "inode log item",
				      "ilf_blkno", 0, fi.blkno);
	buflen = fi.len << 9;
	off = fi.blkno << 9;
	if (fi.boffset > buflen || isize > buflen - fi.boffset)
		return corrupt(f, "inode log item", "ilf_boffset", off,
			       fi.boffset);
	err = scratch(rc, buflen);
	if (!err)
		err = xfsj_overlay_read(rc->ov, rc->buf, buflen, off);
	if (err)
		return xfsj_fault_set(f, err, "inode cluster", "ilf_blkno",
				      off, fi.blkno);
	dip = rc->buf + fi.boffset;
	ld = it->reg[1].p;
	if (xfsj_get_be16(dip) != XFSJ_DINODE_MAGIC)
		return corrupt(f, "inode", "di_magic", off + fi.boffset,
			       xfsj_get_be16(dip));
	if (it->reg[1].len < XFSJ_DINODE_CORE_SIZE || xfsj_get_le16(ld) != XFSJ_DINODE_MAGIC)
		return corrupt(f, "log dinode", "di_magic", 0, xfsj_get_le16(ld));

	disk_lsn = xfsj_get_be64(dip + 112);
	if (disk_lsn && disk_lsn != UINT64_MAX && disk_lsn > lsn) {
		rc->st.inodes_skipped_lsn++;
		/*
		 * The inode reached the disk after this change, but the
		 * blocks whose owner the change set need not have: the
		 * kernel replays the owner change anyway, from the inode as
		 * the disk holds it.
		 */
		return owner_changes(rc, &fi, dip, isize, disk_lsn, f);
	}
	log_dinode_to_disk(ld, dip, lsn);

	forkoff = dip[82];
	if (forkoff * 8U >= isize - XFSJ_DINODE_CORE_SIZE)
		return corrupt(f, "log dinode", "di_forkoff", off + fi.boffset + 82,
			       forkoff);
	dsize = forkoff ? forkoff * 8U : isize - XFSJ_DINODE_CORE_SIZE;
	asize = isize - XFSJ_DINODE_CORE_SIZE - forkoff * 8U;
	next = 2;
	if (fi.fields & XFSJ_ILOG_DFORK) {
		const struct xfsj_region *r;

		if (next >= it->nreg)
			return corrupt(f, "inode log item", "regions", 0, it->nreg);
		r = &it->reg[next++];
		if (fi.fields & XFSJ_ILOG_DBROOT) {
			err = broot_to_disk(r, dip + XFSJ_DINODE_CORE_SIZE, dsize, f);
			if (err)
				return err;
		} else {
			uint32_t n = r->len < dsize ? r->len : dsize;

			memcpy(dip + XFSJ_DINODE_CORE_SIZE, r->p, n);
		}
	} else if (fi.fields & XFSJ_ILOG_DEV) {
		xfsj_put_be32(dip + XFSJ_DINODE_CORE_SIZE, fi.rdev);
	}
	if ((fi.fields & XFSJ_ILOG_AFORK) && forkoff) {
		const struct xfsj_region *r;
		uint8_t *afork = dip + XFSJ_DINODE_CORE_SIZE + forkoff * 8U;

		if (next >= it->nreg)
			return corrupt(f, "inode log item", "regions", 0, it->nreg);
		r = &it->reg[next++];
		if (fi.fields & XFSJ_ILOG_ABROOT) {
			err = broot_to_disk(r, afork, asize, f);
			if (err)
				return err;
		} else {
			uint32_t n = r->len < asize ? r->len : asize;

			memcpy(afork, r->p, n);
		}
	}
	xfsj_dinode_finish(dip, isize);
	rc->st.inodes_replayed++;
	err = xfsj_overlay_write(rc->ov, rc->buf, buflen, off);
	if (err)
		return err;
	/* dip stays valid: nothing below takes the scratch buffer. */
	return owner_changes(rc, &fi, dip, isize, lsn, f);
}

/* ---- icreate ---- */

static int replay_icreate(struct xfsj_recover *rc, const struct xfsj_ritem *it,
			  struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = &rc->sb;
	const uint8_t *p = it->reg[0].p;
	uint32_t agno, agbno, count, isize, length, gen;
	uint32_t cluster_bytes, blks_per_cluster;
	uint64_t base;
	int err;

	if (it->reg[0].len < 28)
		return corrupt(f, "icreate log item", "size", 0, it->reg[0].len);
	agno = xfsj_get_be32(p + 4);
	agbno = xfsj_get_be32(p + 8);
	count = xfsj_get_be32(p + 12);
	isize = xfsj_get_be32(p + 16);
	length = xfsj_get_be32(p + 20);
	gen = xfsj_get_be32(p + 24);
	if (agno >= sb->agcount || !agbno || agbno >= sb->agblocks ||
	    isize != sb->inodesize || !count || !length ||
	    length >= sb->agblocks || agbno + length > sb->agblocks ||
	    (count >> sb->inopblog) != length)
		return corrupt(f, "icreate log item", "geometry", 0, agbno);
	if (daddr_bad(rc, ((uint64_t)agno * sb->agblocks + agbno) <<
			  (sb->blocklog - 9),
		      (uint64_t)length << (sb->blocklog - 9)))
		return xfsj_fault_set(f, XFSJ_E_RANGE, "icreate log item",
				      "icl_agbno", 8, agbno);

	cluster_bytes = 8192 * (isize / 256);
	blks_per_cluster = cluster_bytes >> sb->blocklog;
	if (!blks_per_cluster)
		blks_per_cluster = 1;
	base = ((uint64_t)agno * sb->agblocks + agbno) << sb->blocklog;
	/* A cancelled cluster means the chunk was freed later: skip it all. */
	for (uint32_t b = 0; b < length; b += blks_per_cluster) {
		uint64_t daddr = (base >> 9) + ((uint64_t)b << (sb->blocklog - 9));

		if (cancel_find(rc, daddr, blks_per_cluster << (sb->blocklog - 9)))
			return 0;
	}
	err = scratch(rc, sb->inodesize);
	if (err)
		return err;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t ino = ((uint64_t)agno << (sb->agblklog + sb->inopblog)) |
			       ((uint64_t)agbno << sb->inopblog) | i;
		struct xfsj_dinode di;

		memset(rc->buf, 0, sb->inodesize);
		memset(&di, 0, sizeof(di));
		di.magic = XFSJ_DINODE_MAGIC;
		di.version = 3;
		di.gen = gen;
		di.next_unlinked = XFSJ_NULLAGINO;
		di.ino = ino;
		memcpy(di.uuid, xfsj_meta_fs_uuid(sb), 16);
		xfsj_dinode_encode(&di, rc->buf);
		xfsj_dinode_finish(rc->buf, sb->inodesize);
		err = xfsj_overlay_write(rc->ov, rc->buf, sb->inodesize,
					 base + (uint64_t)i * sb->inodesize);
		if (err)
			return err;
	}
	rc->st.icreates++;
	return 0;
}

/* ---- intents ---- */

static bool is_intent(uint16_t t)
{
	switch (t) {
	case XFSJ_LI_EFI: case XFSJ_LI_RUI: case XFSJ_LI_CUI:
	case XFSJ_LI_BUI: case XFSJ_LI_ATTRI: case XFSJ_LI_XMI:
	case XFSJ_LI_EFI_RT: case XFSJ_LI_RUI_RT: case XFSJ_LI_CUI_RT:
		return true;
	}
	return false;
}

static bool is_done(uint16_t t)
{
	return t != XFSJ_LI_IUNLINK && is_intent((uint16_t)(t - 1));
}

static int track_intent(struct xfsj_recover *rc, const struct xfsj_ritem *it,
			uint64_t lsn, struct xfsj_fault *f)
{
	if (it->reg[0].len < 16)
		return corrupt(f, "intent log item", "size", 0, it->reg[0].len);
	if (rc->nintent == rc->capintent) {
		size_t ncap = rc->capintent ? rc->capintent * 2 : 64;
		struct intent *n = realloc(rc->intents, ncap * sizeof(*n));

		if (!n)
			return -XFSJ_E_NOMEM;
		rc->intents = n;
		rc->capintent = ncap;
	}
	/*
	 * Recovery needs the regions after the transaction is gone (an
	 * ATTRI's name and values follow its format region).
	 */
	size_t total = 0;

	for (uint16_t r = 0; r < it->nreg; r++)
		total += it->reg[r].len;
	uint8_t *fmt = malloc(total ? total : 1);
	struct xfsj_region *regs = malloc(it->nreg * sizeof(*regs));

	if (!fmt || !regs) {
		free(fmt);
		free(regs);
		return -XFSJ_E_NOMEM;
	}
	total = 0;
	for (uint16_t r = 0; r < it->nreg; r++) {
		memcpy(fmt + total, it->reg[r].p, it->reg[r].len);
		regs[r].p = fmt + total;
		regs[r].len = it->reg[r].len;
		total += it->reg[r].len;
	}
	rc->intents[rc->nintent++] = (struct intent){
		it->type, xfsj_get_le64(it->reg[0].p + 8), lsn, fmt, it->reg[0].len,
		regs, it->nreg,
	};
	rc->st.intents++;
	return 0;
}

static int track_done(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		      struct xfsj_fault *f)
{
	uint16_t itype = (uint16_t)(it->type - 1);
	uint64_t id;
	size_t w = 0;

	if (it->reg[0].len < 16)
		return corrupt(f, "done log item", "size", 0, it->reg[0].len);
	id = xfsj_get_le64(it->reg[0].p + 8);
	/* Every pending intent of that type and id is finished. */
	for (size_t i = 0; i < rc->nintent; i++) {
		if (rc->intents[i].type == itype && rc->intents[i].id == id) {
			free(rc->intents[i].fmt);
			free(rc->intents[i].regs);
			continue;
		}
		rc->intents[w++] = rc->intents[i];
	}
	rc->nintent = w;
	rc->st.intents_done++;
	return 0;
}

/* ---- passes ---- */

int xfsj_recover_pass1(struct xfsj_recover *rc, const struct xfsj_rtrans *t,
		       struct xfsj_fault *f)
{
	for (uint32_t i = 0; i < t->nitems; i++) {
		const struct xfsj_ritem *it = &t->items[i];
		struct buf_fmt b = { 0 };
		int err;

		if (it->type != XFSJ_LI_BUF || !it->nreg)
			continue;
		err = buf_fmt_decode(it, &b, f);
		if (err)
			return err;
		if (b.flags & XFSJ_BLF_CANCEL) {
			err = cancel_add(rc, b.blkno, b.len);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The kernel's reorder classes: plain buffers and icreates, the rest,
 * inode buffers, cancellations. */
static int item_class(const struct xfsj_ritem *it)
{
	uint16_t flags;

	if (it->type == XFSJ_LI_ICREATE)
		return 0;
	if (it->type != XFSJ_LI_BUF || it->reg[0].len < 6)
		return 1;
	flags = xfsj_get_le16(it->reg[0].p + 4);
	if (flags & XFSJ_BLF_CANCEL)
		return 3;
	if (flags & XFSJ_BLF_INODE_BUF)
		return 2;
	return 0;
}

int xfsj_recover_pass2(struct xfsj_recover *rc, const struct xfsj_rtrans *t,
		       struct xfsj_fault *f)
{
	rc->st.trans++;
	group_start(rc, t->lsn);
	if (t->lsn > rc->st.max_lsn)
		rc->st.max_lsn = t->lsn;
	for (int cls = 0; cls < 4; cls++) {
		for (uint32_t i = 0; i < t->nitems; i++) {
			const struct xfsj_ritem *it = &t->items[i];
			int err = 0;

			if (!it->nreg || item_class(it) != cls)
				continue;
			if (it->type >= 0x1200 && it->type < 0x1250)
				rc->st.items[it->type - 0x1200]++;
			switch (it->type) {
			case XFSJ_LI_BUF:
				err = replay_buf(rc, it, t->lsn, f);
				break;
			case XFSJ_LI_INODE:
				err = replay_inode(rc, it, t->lsn, f);
				break;
			case XFSJ_LI_ICREATE:
				err = replay_icreate(rc, it, f);
				break;
			case XFSJ_LI_DQUOT:
				/* Quota accounting is rebuilt by quotacheck
				 * when the dquots cannot be trusted; we only
				 * replay filesystems without quota. */
				if (quota_on(rc))
					return xfsj_fault_set(f, XFSJ_E_UNSUPP,
						"dquot log item", "quota", 0, 0);
				rc->st.dquots_skipped++;
				break;
			case XFSJ_LI_QUOTAOFF:
				break;
			default:
				if (is_intent(it->type))
					err = track_intent(rc, it, t->lsn, f);
				else if (is_done(it->type))
					err = track_done(rc, it, f);
				else
					err = xfsj_fault_set(f, XFSJ_E_UNSUPP,
						"log item", "type", 0, it->type);
				break;
			}
			if (err)
				return err;
		}
	}
	return 0;
}

/* ---- after the passes ---- */

/*
 * Does AG @agno's refcount btree hold CoW staging extents?  They live in
 * their own key domain (startblock bit 31), after every shared-extent
 * record, so the last record of the rightmost leaf tells.  The kernel
 * frees them at mount after a crash.
 */
static int cow_leftover(struct xfsj_recover *rc, uint32_t agno,
			uint32_t *first)
{
	const struct xfsj_sb *sb = &rc->sb;
	const uint32_t bs = sb->blocksize;
	uint64_t agbase = (uint64_t)agno * sb->agblocks << sb->blocklog;
	uint32_t bno, level, nodemax = (bs - XFSJ_SBLOCK_HDR_SIZE) / 8;
	struct xfsj_agf agf;
	int err = scratch(rc, bs > sb->sectsize ? bs : sb->sectsize);

	if (err)
		return err;
	err = xfsj_overlay_read(rc->ov, rc->buf, sb->sectsize,
				agbase + sb->sectsize);
	if (err)
		return err;
	xfsj_agf_decode(rc->buf, &agf);
	bno = agf.refcount_root;
	level = agf.refcount_level;
	for (int depth = 0; depth < 16; depth++) {
		struct xfsj_sblock h;

		if (!bno || bno >= sb->agblocks)
			return -XFSJ_E_CORRUPT;
		err = xfsj_overlay_read(rc->ov, rc->buf, bs,
					agbase + ((uint64_t)bno << sb->blocklog));
		if (err)
			return err;
		xfsj_sblock_decode(rc->buf, &h);
		if (h.magic != XFSJ_REFC_MAGIC || h.level + 1 != level)
			return -XFSJ_E_CORRUPT;
		if (!h.numrecs)
			return 0;
		if (h.level == 0) {
			struct xfsj_refc_rec r;

			xfsj_refc_rec_get(rc->buf, h.numrecs - 1u, &r);
			*first = r.startblock & 0x7fffffffU;
			return (r.startblock >> 31) ? 1 : 0;
		}
		if (h.numrecs > nodemax)
			return -XFSJ_E_CORRUPT;
		bno = xfsj_get_be32(rc->buf + XFSJ_SBLOCK_HDR_SIZE + 4 * nodemax +
				    4 * (h.numrecs - 1u));
		level--;
	}
	return -XFSJ_E_CORRUPT;
}

int xfsj_recover_each_intent(struct xfsj_recover *rc, xfsj_intent_fn fn,
			      void *arg)
{
	for (size_t i = 0; i < rc->nintent; i++) {
		const struct intent *in = &rc->intents[i];
		struct xfsj_pending_intent pi = {
			in->type, in->id, in->lsn, in->fmt, in->len,
			in->regs, in->nreg,
		};
		int err = fn(arg, &pi);

		if (err)
			return err;
	}
	return 0;
}

int xfsj_recover_leftovers(struct xfsj_recover *rc, xfsj_leftover_fn fn,
			   void *arg)
{
	const struct xfsj_sb *sb = &rc->sb;
	uint8_t sect[512];
	int n = 0;

	for (size_t i = 0; i < rc->nintent; i++) {
		struct xfsj_leftover l = {
			.kind = XFSJ_LEFT_INTENT, .type = rc->intents[i].type,
			.id = rc->intents[i].id, .lsn = rc->intents[i].lsn,
		};

		if (fn)
			fn(arg, &l);
		n++;
	}
	for (uint32_t a = 0; a < sb->agcount; a++) {
		uint64_t off = ((uint64_t)a * sb->agblocks << sb->blocklog) +
			       2 * sb->sectsize;
		int err = xfsj_overlay_read(rc->ov, sect, sizeof(sect), off);

		if (err)
			return err;
		for (uint32_t b = 0; b < XFSJ_AGI_UNLINKED_BUCKETS; b++) {
			uint32_t agino = xfsj_get_be32(sect + 40 + 4 * b);
			struct xfsj_leftover l = {
				.kind = XFSJ_LEFT_UNLINKED, .agno = a,
				.bucket = b, .agino = agino,
			};

			if (agino == XFSJ_NULLAGINO)
				continue;
			if (fn)
				fn(arg, &l);
			n++;
		}
		if (sb->features_ro_compat & XFSJ_RO_COMPAT_REFLINK) {
			uint32_t first = 0;
			int cow = cow_leftover(rc, a, &first);
			struct xfsj_leftover l = {
				.kind = XFSJ_LEFT_COW, .agno = a, .agino = first,
			};

			if (cow < 0)
				return cow;
			if (cow) {
				if (fn)
					fn(arg, &l);
				n++;
			}
			/* cow_leftover used the scratch buffer; reread. */
			err = xfsj_overlay_read(rc->ov, sect, sizeof(sect), off);
			if (err)
				return err;
		}
	}
	return n;
}

const struct xfsj_sb *xfsj_recover_sb(const struct xfsj_recover *rc)
{
	return &rc->sb;
}

int xfsj_recover_update_sb(struct xfsj_recover *rc, struct xfsj_fault *f)
{
	const uint32_t ss = rc->sb.sectsize;
	uint64_t icount = 0, ifree = 0, fdblocks = 0;
	struct xfsj_sb sb;
	int err;

	err = scratch(rc, ss);
	if (err)
		return err;
	for (uint32_t a = 0; a < rc->sb.agcount; a++) {
		uint64_t base = (uint64_t)a * rc->sb.agblocks << rc->sb.blocklog;
		struct xfsj_agf agf;
		struct xfsj_agi agi;

		err = xfsj_overlay_read(rc->ov, rc->buf, ss, base + ss);
		if (err)
			return err;
		xfsj_agf_decode(rc->buf, &agf);
		if (agf.magicnum != XFSJ_AGF_MAGIC)
			return corrupt(f, "AGF", "magicnum", base + ss, agf.magicnum);
		err = xfsj_overlay_read(rc->ov, rc->buf, ss, base + 2 * ss);
		if (err)
			return err;
		xfsj_agi_decode(rc->buf, &agi);
		if (agi.magicnum != XFSJ_AGI_MAGIC)
			return corrupt(f, "AGI", "magicnum", base + 2 * ss,
				       agi.magicnum);
		fdblocks += (uint64_t)agf.freeblks + agf.flcount + agf.btreeblks;
		icount += agi.count;
		ifree += agi.freecount;
	}
	err = xfsj_overlay_read(rc->ov, rc->buf, ss, 0);
	if (err)
		return err;
	xfsj_sb_decode(rc->buf, &sb);
	sb.icount = icount;
	sb.ifree = ifree;
	sb.fdblocks = fdblocks;
	/* Nothing left in the log needs logged xattrs any more. */
	sb.features_log_incompat = 0;
	/* Keep whatever lies past the fields we know. */
	xfsj_layout_encode(&xfsj_sb_layout, &sb, rc->buf);
	xfsj_cksum_update(rc->buf, ss, XFSJ_SB_CRC_OFF);
	rc->sb = sb;
	return xfsj_overlay_write(rc->ov, rc->buf, ss, 0);
}
