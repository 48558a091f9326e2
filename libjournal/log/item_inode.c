/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inode log items (shared/reference/xfs-log.md §8): the inode log format
 * (56 bytes, or 52 from writers that pack it), the log dinode (the inode
 * core in the writer's byte order, timestamps as the bigtime flag says)
 * and which regions hold the data and attribute forks.
 */
#include <string.h>

#include "log/item_priv.h"

/* The log dinode as printing shows it. */
static void dinode_decode(const uint8_t *p, uint32_t len,
			  struct xfsj_log_dinode *d)
{
	struct xfsj_dinode di;
	bool big;

	xfsj_log_dinode_decode(p, len, &di);
	memset(d, 0, sizeof(*d));
	d->magic = di.magic;
	d->mode = di.mode;
	d->version = di.version;
	d->format = di.format;
	d->metatype = di.onlink;	/* metadir files reuse the old count */
	d->uid = di.uid;
	d->gid = di.gid;
	d->nlink = di.nlink;
	d->projid = (uint32_t)di.projid_hi << 16 | di.projid_lo;
	d->v3 = len >= XFSJ_DINODE_CORE_SIZE;
	if (d->v3)
		d->flags2 = di.flags2;
	else		/* v2: di_flushiter in the last pad word */
		d->flushiter = (uint16_t)(di.big_nextents >> 48);
	big = d->flags2 & XFSJ_DIFLAG2_BIGTIME;
	xfsj_time_decode(di.atime, big, &d->atime_sec, &d->atime_nsec);
	xfsj_time_decode(di.mtime, big, &d->mtime_sec, &d->mtime_nsec);
	xfsj_time_decode(di.ctime, big, &d->ctime_sec, &d->ctime_nsec);
	d->size = di.size;
	d->nblocks = di.nblocks;
	d->extsize = di.extsize;
	if (d->flags2 & XFSJ_DIFLAG2_NREXT64) {
		d->nextents = di.big_nextents;
		d->anextents = di.nextents;
	} else {
		d->nextents = di.nextents;
		d->anextents = di.anextents;
	}
	d->forkoff = di.forkoff;
	d->aformat = di.aformat;
	d->dmevmask = di.dmevmask;
	d->dmstate = di.dmstate;
	d->flags = di.flags;
	d->gen = di.gen;
	if (len >= XFSJ_DI_OFF(next_unlinked) + 4)
		d->next_unlinked = di.next_unlinked;
	if (d->v3) {
		d->changecount = di.changecount;
		d->lsn = di.lsn;
		d->cowextsize = di.cowextsize;
		xfsj_time_decode(di.crtime, big, &d->crtime_sec,
				 &d->crtime_nsec);
		d->ino = di.ino;
		memcpy(d->uuid, di.uuid, 16);
	}
}

static int dec_inode(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	const uint8_t *p = it->reg[0].p;
	uint32_t len = it->reg[0].len;
	int idx = 2;

	in->u.ino.dfork_reg = in->u.ino.afork_reg = -1;
	if (len == XFSJ_INODE_LOGFMT_SIZE) {
		in->u.ino.ino = xlog_le64(p + XFSJ_ILF_OFF(ino));
		in->u.ino.rdev = xlog_le32(p + XFSJ_ILF_OFF(rdev));
		in->u.ino.blkno = xlog_le64(p + XFSJ_ILF_OFF(blkno));
		in->u.ino.len = xlog_le32(p + XFSJ_ILF_OFF(len));
		in->u.ino.boffset = xlog_le32(p + XFSJ_ILF_OFF(boffset));
	} else if (len == XFSJ_INODE_LOGFMT32_SIZE) {
		/* The packed layout of 32-bit writers: no pad before ino. */
		in->u.ino.packed32 = true;
		in->u.ino.ino = xlog_le64(p + XFSJ_ILF32_OFF(ino));
		in->u.ino.rdev = xlog_le32(p + XFSJ_ILF32_OFF(rdev));
		in->u.ino.blkno = xlog_le64(p + XFSJ_ILF32_OFF(blkno));
		in->u.ino.len = xlog_le32(p + XFSJ_ILF32_OFF(len));
		in->u.ino.boffset = xlog_le32(p + XFSJ_ILF32_OFF(boffset));
	} else {
		return ITEM_BAD(in, "INODE item", "ilf_size", 0, len);
	}
	in->fmt_ok = true;
	/* The fields before the inode number are where both put them. */
	in->u.ino.fields = xlog_le32(p + XFSJ_ILF_OFF(fields));
	in->u.ino.asize = xlog_le16(p + XFSJ_ILF_OFF(asize));
	in->u.ino.dsize = xlog_le16(p + XFSJ_ILF_OFF(dsize));
	if (it->nreg < 2)
		return ITEM_BAD(in, "INODE item", "regions", 2, it->nreg);
	if (it->reg[1].len < XFSJ_LOG_DINODE_V2_SIZE)
		return ITEM_BAD_R(in, 1, "log dinode", "length", 0,
				  it->reg[1].len);
	if (in->brief) {	/* the replay copies the log dinode itself */
		in->u.ino.core.magic = xlog_le16(it->reg[1].p +
						 XFSJ_DI_OFF(magic));
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
