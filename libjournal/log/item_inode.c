/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inode log items (shared/reference/xfs-log.md §8): the inode log format
 * (56 bytes, or 52 from writers that pack it), the log dinode (the inode
 * core in the writer's byte order, timestamps as the bigtime flag says)
 * and which regions hold the data and attribute forks.
 */
#include <string.h>

#include "log/item_priv.h"

static void ts_decode(const uint8_t *p, bool bigtime, int64_t *sec,
		      uint32_t *nsec)
{
	if (bigtime) {
		uint64_t v = xlog_le64(p);

		*sec = (int64_t)(v / 1000000000ULL) - XFSJ_BIGTIME_EPOCH_OFFSET;
		*nsec = (uint32_t)(v % 1000000000ULL);
	} else {
		*sec = (int32_t)xlog_le32(p);
		*nsec = xlog_le32(p + 4);
	}
}

static void dinode_decode(const uint8_t *p, uint32_t len,
			  struct xfsj_log_dinode *d)
{
	bool big, nrext;

	memset(d, 0, sizeof(*d));
	d->magic = xlog_le16(p);
	d->mode = xlog_le16(p + 2);
	d->version = p[4];
	d->format = p[5];
	d->metatype = xlog_le16(p + 6);
	d->uid = xlog_le32(p + 8);
	d->gid = xlog_le32(p + 12);
	d->nlink = xlog_le32(p + 16);
	d->projid = (uint32_t)xlog_le16(p + 22) << 16 | xlog_le16(p + 20);
	d->v3 = len >= XFSJ_DINODE_CORE_SIZE;
	if (d->v3)
		d->flags2 = xlog_le64(p + 120);
	big = d->flags2 & XFSJ_DIFLAG2_BIGTIME;
	nrext = d->flags2 & XFSJ_DIFLAG2_NREXT64;
	if (!d->v3)
		d->flushiter = xlog_le16(p + 30);
	ts_decode(p + 32, big, &d->atime_sec, &d->atime_nsec);
	ts_decode(p + 40, big, &d->mtime_sec, &d->mtime_nsec);
	ts_decode(p + 48, big, &d->ctime_sec, &d->ctime_nsec);
	d->size = xlog_le64(p + 56);
	d->nblocks = xlog_le64(p + 64);
	d->extsize = xlog_le32(p + 72);
	if (nrext) {
		d->nextents = xlog_le64(p + 24);
		d->anextents = xlog_le32(p + 76);
	} else {
		d->nextents = xlog_le32(p + 76);
		d->anextents = xlog_le16(p + 80);
	}
	d->forkoff = p[82];
	d->aformat = p[83];
	d->dmevmask = xlog_le32(p + 84);
	d->dmstate = xlog_le16(p + 88);
	d->flags = xlog_le16(p + 90);
	d->gen = xlog_le32(p + 92);
	if (len >= 100)
		d->next_unlinked = xlog_le32(p + 96);
	if (d->v3) {
		d->changecount = xlog_le64(p + 104);
		d->lsn = xlog_le64(p + 112);
		d->cowextsize = xlog_le32(p + 128);
		ts_decode(p + 144, big, &d->crtime_sec, &d->crtime_nsec);
		d->ino = xlog_le64(p + 152);
		memcpy(d->uuid, p + 160, 16);
	}
}

static int dec_inode(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	const uint8_t *p = it->reg[0].p;
	uint32_t len = it->reg[0].len;
	int idx = 2;

	in->u.ino.dfork_reg = in->u.ino.afork_reg = -1;
	if (len == XFSJ_INODE_LOGFMT_SIZE) {
		in->u.ino.ino = xlog_le64(p + 16);
		in->u.ino.rdev = xlog_le32(p + 24);
		in->u.ino.blkno = xlog_le64(p + 40);
		in->u.ino.len = xlog_le32(p + 48);
		in->u.ino.boffset = xlog_le32(p + 52);
	} else if (len == XFSJ_INODE_LOGFMT32_SIZE) {
		/* The packed layout of 32-bit writers: no pad before ino. */
		in->u.ino.packed32 = true;
		in->u.ino.ino = xlog_le64(p + 12);
		in->u.ino.rdev = xlog_le32(p + 20);
		in->u.ino.blkno = xlog_le64(p + 36);
		in->u.ino.len = xlog_le32(p + 44);
		in->u.ino.boffset = xlog_le32(p + 48);
	} else {
		return ITEM_BAD(in, "INODE item", "ilf_size", 0, len);
	}
	in->fmt_ok = true;
	in->u.ino.fields = xlog_le32(p + 4);
	in->u.ino.asize = xlog_le16(p + 8);
	in->u.ino.dsize = xlog_le16(p + 10);
	if (it->nreg < 2)
		return ITEM_BAD(in, "INODE item", "regions", 2, it->nreg);
	if (it->reg[1].len < 96)
		return ITEM_BAD_R(in, 1, "log dinode", "length", 0,
				  it->reg[1].len);
	if (in->brief) {	/* the replay copies the log dinode itself */
		in->u.ino.core.magic = xlog_le16(it->reg[1].p);
		in->u.ino.core.v3 = it->reg[1].len >= XFSJ_DINODE_CORE_SIZE;
	} else {
		dinode_decode(it->reg[1].p, it->reg[1].len, &in->u.ino.core);
	}
	in->u.ino.have_core = true;
	if (in->u.ino.core.magic != XFSJ_DINODE_MAGIC)
		ITEM_BAD_R(in, 1, "log dinode", "di_magic", 0,
			   in->u.ino.core.magic);
	if (in->u.ino.fields & XFSJ_ILOG_DFORK) {
		if (idx < it->nreg)
			in->u.ino.dfork_reg = idx;
		else
			ITEM_BAD(in, "INODE item", "data fork region", 2,
				 it->nreg);
		idx++;
	}
	if (in->u.ino.fields & XFSJ_ILOG_AFORK) {
		if (idx < it->nreg)
			in->u.ino.afork_reg = idx;
		else
			ITEM_BAD(in, "INODE item", "attr fork region", 2,
				 it->nreg);
	}
	return in->err;
}

static bool inode_touches_ino(const struct xfsj_item_info *in,
			      const struct xfsj_fsgeo *g, uint64_t ino)
{
	(void)g;
	return in->u.ino.ino == ino;
}

static bool inode_touches(const struct xfsj_item_info *in,
			  const struct xfsj_fsgeo *g, uint64_t daddr,
			  int64_t agno)
{
	if (agno >= 0)
		return g->known && xfsj_ino_to_agno(g, in->u.ino.ino) == agno;
	return xlog_in_range(daddr, in->u.ino.blkno, in->u.ino.len);
}

static void inode_each_ino(const struct xfsj_item_info *in,
			   void (*fn)(void *arg, uint64_t ino), void *arg)
{
	fn(arg, in->u.ino.ino);
}

static void inode_each_daddr(const struct xfsj_item_info *in,
			     void (*fn)(void *arg, uint64_t daddr, uint32_t bbs),
			     void *arg)
{
	fn(arg, in->u.ino.blkno, in->u.ino.len);
}

const struct xfsj_item_ops xlog_inode_ops = {
	.decode = dec_inode,
	.touches_ino = inode_touches_ino,
	.touches = inode_touches,
	.each_ino = inode_each_ino,
	.each_daddr = inode_each_daddr,
};
