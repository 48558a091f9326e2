/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay of buffer items: pass 1 counts their cancellations (cancel.c),
 * pass 2 writes the logged chunks over the buffer (the v5 LSN rule
 * first), or, for an inode buffer, only the unlinked pointers it logged;
 * a replayed primary superblock becomes the recovery's geometry (a growfs
 * in the log).  The item is decoded once, by the log layer
 * (log/item_buf.c), which also places its data regions.
 */
#include <stdlib.h>
#include <string.h>

#include "core/crc32c.h"
#include "ondisk/meta.h"
#include "xfsj/ondisk.h"
#include "recover/recover_priv.h"

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

void xrec_group_start(struct xfsj_recover *rc, uint64_t lsn)
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

void xrec_group_free(struct xfsj_recover *rc)
{
	free(rc->group);
	rc->group = NULL;
	rc->capgroup = rc->ngroup = 0;
}

/*
 * The decoded format, and what the replay asks more: the largest
 * metadata buffer is a 64 KiB directory block.
 */
static int buf_format_ok(const struct xfsj_item_info *in, struct xfsj_fault *f)
{
	if (in->err)
		return xrec_item_fault(f, in, "buf log item");
	if (in->u.buf.len == 0 || in->u.buf.len > 128)
		return xrec_corrupt(f, "buf log item", "blf_len", 6,
				    in->u.buf.len);
	return 0;
}

int xrec_buf_pass1(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		   const struct xfsj_item_info *in, struct xfsj_fault *f)
{
	int err = buf_format_ok(in, f);

	(void)it;
	if (err)
		return err;
	if (in->u.buf.flags & XFSJ_BLF_CANCEL)
		return xrec_cancel_add(rc, in->u.buf.blkno, in->u.buf.len);
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
		return xrec_corrupt(f, "superblock", "magicnum", 0, sb.magicnum);
#define SAME(field, off)						\
	do {								\
		if (sb.field != o->field)				\
			return xrec_corrupt(f, "superblock", #field, off,	\
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
		return xrec_corrupt(f, "superblock", "uuid", 32, 0);
	/* The kernel refuses to take AGs away during recovery. */
	if (sb.agcount < o->agcount)
		return xrec_corrupt(f, "superblock", "agcount", 88, sb.agcount);
	/* Every AG but the last whole, the last one not empty. */
	if (!sb.agcount ||
	    sb.dblocks > (uint64_t)sb.agcount * sb.agblocks ||
	    sb.dblocks <= (uint64_t)(sb.agcount - 1) * sb.agblocks)
		return xrec_corrupt(f, "superblock", "dblocks", 8, sb.dblocks);
	if (sb.dblocks > dev >> sb.blocklog)
		return xfsj_fault_set(f, XFSJ_E_TOOSMALL, "superblock",
				      "dblocks", 8, sb.dblocks);
	rc->sb = sb;
	return 0;
}

int xrec_buf_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		   const struct xfsj_item_info *in, uint64_t lsn,
		   struct xfsj_fault *f)
{
	uint64_t blkno = in->u.buf.blkno;
	uint16_t flags = in->u.buf.flags;
	uint32_t buflen;
	uint64_t off;
	int err;

	err = buf_format_ok(in, f);
	if (err)
		return err;
	if (flags & XFSJ_BLF_CANCEL) {
		xrec_cancel_drop(rc, blkno, in->u.buf.len);
		return 0;
	}
	if (xrec_cancel_find(rc, blkno, in->u.buf.len)) {
		rc->st.bufs_cancelled++;
		return 0;
	}
	if ((flags & XFSJ_BLF_DQUOT_MASK) && !xrec_quota_on(rc)) {
		rc->st.dquots_skipped++;
		return 0;
	}
	if (xrec_daddr_bad(rc, blkno, in->u.buf.len))
		return xfsj_fault_set(f, XFSJ_E_RANGE, "buf log item",
				      "blf_blkno", 8, blkno);
	buflen = (uint32_t)in->u.buf.len << 9;
	off = blkno << 9;
	err = xrec_scratch(rc, buflen);
	if (!err)
		err = xfsj_overlay_read(rc->ov, rc->buf, buflen, off);
	if (err)
		return xfsj_fault_set(f, err, "buffer", "blf_blkno", off,
				      blkno);

	if (flags & XFSJ_BLF_INODE_BUF) {
		struct iunlink_ctx ic = {
			rc->buf, rc->sb.inodesize, buflen / rc->sb.inodesize,
			false,
		};

		err = xfsj_buf_item_runs(it, in, buflen, iunlink_run, &ic, f);
		if (err)
			return err;
		if (ic.bad)
			return xrec_corrupt(f, "inode buffer", "di_next_unlinked",
				       off, 0);
	} else {
		/* The v5 rule: the disk already holds this change or later. */
		uint64_t disk = xfsj_meta_lsn(rc->buf, buflen,
					     xfsj_meta_fs_uuid(&rc->sb));

		if (disk && disk != UINT64_MAX &&
		    (disk > lsn || (disk == lsn && !group_has(rc, blkno)))) {
			rc->st.bufs_skipped_lsn++;
			return 0;
		}
		err = xfsj_buf_item_runs(it, in, buflen, copy_run, rc->buf, f);
		if (!err)
			err = group_add(rc, blkno);
		if (err)
			return err;
		xfsj_meta_stamp(rc->buf, buflen, lsn, rc->sb.sectsize,
				rc->sb.blocksize, rc->sb.inodesize);
	}
	rc->st.bufs_replayed++;
	err = xfsj_overlay_write(rc->ov, rc->buf, buflen, off);
	if (!err && blkno == 0 && flags >> XFSJ_BLFT_SHIFT == XFSJ_BLFT_SB)
		err = follow_sb(rc, f);
	return err;
}

