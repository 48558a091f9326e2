/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Log item decoders (shared/reference/xfs-log.md §8): one row per item
 * type in a table, one decoder per row.
 *
 * Item format structures are in the byte order of the host that wrote
 * the log (little-endian for the Linux logs we read); copies of metadata
 * inside them (buffer data, forks, dquots, parent pointer values, the
 * icreate fields) are big-endian as on disk.  Every length is checked
 * against its region before the bytes are read: a decoder never looks past
 * what the log gave it, and a bad item yields a fault, not a crash.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "log/logread_priv.h"

#define ITEM_BAD(info, st, fld, off, val)				\
	item_fault(info, XFSJ_E_CORRUPT, 0, st, fld, off, val)
/* A problem at byte @off of region @reg (ITEM_BAD: of region 0). */
#define ITEM_BAD_R(info, reg, st, fld, off, val)			\
	item_fault(info, XFSJ_E_CORRUPT, reg, st, fld, off, val)

static int item_fault(struct xfsj_item_info *info, int err, unsigned int reg,
		      const char *structure, const char *field, uint64_t off,
		      uint64_t val)
{
	/* Keep the first problem: later ones are usually its consequence. */
	if (info->err)
		return info->err;
	info->err = xfsj_fault_set(&info->fault, err, structure, field, off,
				   val);
	info->fault_reg = (uint16_t)reg;
	return info->err;
}

static uint32_t round4(uint32_t n)
{
	return (n + 3) & ~3U;
}

/* ---- buffer contents by magic ---- */

enum lvkind { LV_NONE, LV_BTREE, LV_DA3, LV_DA2 };

struct bufkind {
	uint32_t magic;
	uint8_t off, size;
	enum lvkind lv;
	const char *name;
};

static const struct bufkind bufkinds[] = {
	{ 0x58465342, 0, 4, LV_NONE,  "superblock" },		/* XFSB */
	{ 0x58414746, 0, 4, LV_NONE,  "AGF" },			/* XAGF */
	{ 0x58414749, 0, 4, LV_NONE,  "AGI" },			/* XAGI */
	{ 0x5841464c, 0, 4, LV_NONE,  "AGFL" },			/* XAFL */
	{ 0x41423342, 0, 4, LV_BTREE, "bnobt" },		/* AB3B */
	{ 0x41425442, 0, 4, LV_BTREE, "bnobt (v4)" },		/* ABTB */
	{ 0x41423343, 0, 4, LV_BTREE, "cntbt" },		/* AB3C */
	{ 0x41425443, 0, 4, LV_BTREE, "cntbt (v4)" },		/* ABTC */
	{ 0x49414233, 0, 4, LV_BTREE, "inobt" },		/* IAB3 */
	{ 0x49414254, 0, 4, LV_BTREE, "inobt (v4)" },		/* IABT */
	{ 0x46494233, 0, 4, LV_BTREE, "finobt" },		/* FIB3 */
	{ 0x46494254, 0, 4, LV_BTREE, "finobt (v4)" },		/* FIBT */
	{ 0x524d4233, 0, 4, LV_BTREE, "rmapbt" },		/* RMB3 */
	{ 0x52334643, 0, 4, LV_BTREE, "refcountbt" },		/* R3FC */
	{ 0x424d4133, 0, 4, LV_BTREE, "bmbt" },			/* BMA3 */
	{ 0x424d4150, 0, 4, LV_BTREE, "bmbt (v4)" },		/* BMAP */
	{ 0x4d524d42, 0, 4, LV_BTREE, "rtrmapbt" },		/* MRMB */
	{ 0x52434e54, 0, 4, LV_BTREE, "rtrefcountbt" },		/* RCNT */
	{ 0x58444233, 0, 4, LV_NONE,  "dir block" },		/* XDB3 */
	{ 0x58443242, 0, 4, LV_NONE,  "dir block (v4)" },	/* XD2B */
	{ 0x58444433, 0, 4, LV_NONE,  "dir data" },		/* XDD3 */
	{ 0x58443244, 0, 4, LV_NONE,  "dir data (v4)" },	/* XD2D */
	{ 0x58444633, 0, 4, LV_NONE,  "dir free" },		/* XDF3 */
	{ 0x58443246, 0, 4, LV_NONE,  "dir free (v4)" },	/* XD2F */
	{ 0x5841524d, 0, 4, LV_NONE,  "attr remote" },		/* XARM */
	{ 0x58534c4d, 0, 4, LV_NONE,  "symlink" },		/* XSLM */
	{ 0x424d505a, 0, 4, LV_NONE,  "rt bitmap" },		/* BMPZ */
	{ 0x53554d59, 0, 4, LV_NONE,  "rt summary" },		/* SUMY */
	{ 0x3df1, 8, 2, LV_NONE, "dir leaf1" },
	{ 0xd2f1, 8, 2, LV_NONE, "dir leaf1 (v4)" },
	{ 0x3dff, 8, 2, LV_NONE, "dir leafn" },
	{ 0xd2ff, 8, 2, LV_NONE, "dir leafn (v4)" },
	{ 0x3ebe, 8, 2, LV_DA3,  "da node" },
	{ 0xfebe, 8, 2, LV_DA2,  "da node (v4)" },
	{ 0x3bee, 8, 2, LV_NONE, "attr leaf" },
	{ 0xfbee, 8, 2, LV_NONE, "attr leaf (v4)" },
	{ 0x494e, 0, 2, LV_NONE, "inode cluster" },		/* IN */
	{ 0x4451, 0, 2, LV_NONE, "dquot" },			/* DQ */
};

void xfsj_buf_identify(const uint8_t *p, uint32_t len, uint64_t blkno,
		       struct xfsj_buf_content *c)
{
	c->name = NULL;
	c->magic = 0;
	c->level = -1;
	for (size_t i = 0; i < sizeof(bufkinds) / sizeof(bufkinds[0]); i++) {
		const struct bufkind *k = &bufkinds[i];
		uint32_t m;

		if ((uint32_t)k->off + k->size > len)
			continue;
		m = k->size == 4 ? xfsj_get_be32(p + k->off) :
				   xfsj_get_be16(p + k->off);
		if (m != k->magic)
			continue;
		c->name = k->name;
		c->magic = m;
		if (k->lv == LV_BTREE && len >= 6)
			c->level = xfsj_get_be16(p + 4);
		else if (k->lv == LV_DA3 && len >= 60)
			c->level = xfsj_get_be16(p + 58);
		else if (k->lv == LV_DA2 && len >= 16)
			c->level = xfsj_get_be16(p + 14);
		if (c->magic == XFSJ_SB_MAGIC && blkno)
			c->name = "superblock (secondary)";
		return;
	}
}

const char *xfsj_blft_name(unsigned int blft)
{
	static const char *const names[] = {
		"unknown", "udquot", "pdquot", "gdquot", "btree", "agf",
		"agfl", "agi", "dinode", "symlink", "dir block", "dir data",
		"dir free", "dir leaf1", "dir leafn", "da node", "attr leaf",
		"attr remote", "superblock", "rt bitmap", "rt summary",
	};

	return blft < sizeof(names) / sizeof(names[0]) ? names[blft] :
							 "unknown";
}

/* ---- decoders ---- */

static int dec_buf(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		   struct xfsj_fault *f)
{
	const uint8_t *p = it->reg[0].p;
	uint32_t len = it->reg[0].len, bits = 0, bytes = 0;

	(void)f;
	if (len < 20)
		return ITEM_BAD(in, "BUF item", "blf_len", 0, len);
	in->u.buf.flags = xlog_le16(p + 4);
	in->u.buf.len = xlog_le16(p + 6);
	in->u.buf.blkno = xlog_le64(p + 8);
	in->u.buf.map_size = xlog_le32(p + 16);
	in->u.buf.blft = in->u.buf.flags >> 11;
	if (in->u.buf.map_size > 17 ||
	    20 + 4 * in->u.buf.map_size > len)
		return ITEM_BAD(in, "BUF item", "blf_map_size", 16,
				in->u.buf.map_size);
	for (uint32_t i = 0; i < in->u.buf.map_size; i++)
		bits += (uint32_t)__builtin_popcount(xlog_le32(p + 20 + 4 * i));
	for (uint32_t i = 1; i < it->nreg; i++)
		bytes += it->reg[i].len;
	in->u.buf.nbits = bits;
	in->u.buf.data_bytes = bytes;
	in->u.buf.map_mismatch = bytes != bits * XFSJ_BLF_CHUNK;
	in->u.buf.content.name = NULL;
	in->u.buf.content.level = -1;
	/* The first region starts at buffer byte 0 only if bit 0 is set. */
	if (it->nreg >= 2 && in->u.buf.map_size && (xlog_le32(p + 20) & 1))
		xfsj_buf_identify(it->reg[1].p, it->reg[1].len,
				  in->u.buf.blkno, &in->u.buf.content);
	return 0;
}

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

static int dec_inode(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		     struct xfsj_fault *f)
{
	const uint8_t *p = it->reg[0].p;
	uint32_t len = it->reg[0].len;
	int idx = 2;

	(void)f;
	in->u.ino.dfork_reg = in->u.ino.afork_reg = -1;
	if (len == 56) {
		in->u.ino.ino = xlog_le64(p + 16);
		in->u.ino.rdev = xlog_le32(p + 24);
		in->u.ino.blkno = xlog_le64(p + 40);
		in->u.ino.len = xlog_le32(p + 48);
		in->u.ino.boffset = xlog_le32(p + 52);
	} else if (len == 52) {
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
	in->u.ino.fields = xlog_le32(p + 4);
	in->u.ino.asize = xlog_le16(p + 8);
	in->u.ino.dsize = xlog_le16(p + 10);
	if (it->nreg < 2)
		return ITEM_BAD(in, "INODE item", "regions", 2, it->nreg);
	if (it->reg[1].len < 96)
		return ITEM_BAD_R(in, 1, "log dinode", "length", 0,
				  it->reg[1].len);
	dinode_decode(it->reg[1].p, it->reg[1].len, &in->u.ino.core);
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

static int dec_dquot(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		     struct xfsj_fault *f)
{
	const uint8_t *p = it->reg[0].p;

	(void)f;
	if (it->reg[0].len < 24)
		return ITEM_BAD(in, "DQUOT item", "qlf_len", 0, it->reg[0].len);
	in->u.dq.id = xlog_le32(p + 4);
	in->u.dq.blkno = xlog_le64(p + 8);
	in->u.dq.len = xlog_le32(p + 16);
	in->u.dq.boffset = xlog_le32(p + 20);
	if (it->nreg < 2)
		return ITEM_BAD(in, "DQUOT item", "regions", 2, it->nreg);
	if (it->reg[1].len < 104)
		return ITEM_BAD_R(in, 1, "dquot", "length", 0, it->reg[1].len);
	p = it->reg[1].p;
	in->u.dq.have_dq = true;
	in->u.dq.dq_magic = xfsj_get_be16(p);
	in->u.dq.dq_version = p[2];
	in->u.dq.dq_type = p[3];
	in->u.dq.blk_hard = xfsj_get_be64(p + 8);
	in->u.dq.blk_soft = xfsj_get_be64(p + 16);
	in->u.dq.ino_hard = xfsj_get_be64(p + 24);
	in->u.dq.ino_soft = xfsj_get_be64(p + 32);
	in->u.dq.bcount = xfsj_get_be64(p + 40);
	in->u.dq.icount = xfsj_get_be64(p + 48);
	in->u.dq.rtbcount = xfsj_get_be64(p + 88);
	if (in->u.dq.dq_magic != 0x4451)
		return ITEM_BAD_R(in, 1, "dquot", "d_magic", 0,
				  in->u.dq.dq_magic);
	return 0;
}

static int dec_qoff(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		    struct xfsj_fault *f)
{
	(void)f;
	if (it->reg[0].len < 8)
		return ITEM_BAD(in, "QUOTAOFF item", "length", 0,
				it->reg[0].len);
	in->u.qoff.flags = xlog_le32(it->reg[0].p + 4);
	return 0;
}

static int dec_icreate(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		       struct xfsj_fault *f)
{
	const uint8_t *p = it->reg[0].p;

	(void)f;
	if (it->reg[0].len < 28)
		return ITEM_BAD(in, "ICREATE item", "length", 0,
				it->reg[0].len);
	in->u.icr.ag = xfsj_get_be32(p + 4);
	in->u.icr.agbno = xfsj_get_be32(p + 8);
	in->u.icr.count = xfsj_get_be32(p + 12);
	in->u.icr.isize = xfsj_get_be32(p + 16);
	in->u.icr.length = xfsj_get_be32(p + 20);
	in->u.icr.gen = xfsj_get_be32(p + 24);
	return 0;
}

/* EFI/EFD and their RT twins: 16- or 12-byte extents, told by length. */
static int dec_efx(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		   struct xfsj_fault *f)
{
	const uint8_t *p = it->reg[0].p;
	uint32_t len = it->reg[0].len, n;
	const char *st = in->kind->role == XFSJ_ROLE_DONE ? "EFD item" :
							    "EFI item";

	(void)f;
	if (len < 16)
		return ITEM_BAD(in, st, "length", 0, len);
	n = xlog_le32(p + 4);
	in->id = xlog_le64(p + 8);
	in->u.ext.ext = p + 16;
	if ((uint64_t)len == 16 + 16ULL * n) {
		in->u.ext.stride = 16;
	} else if ((uint64_t)len == 16 + 12ULL * n) {
		in->u.ext.stride = 12;
	} else {
		in->u.ext.stride = 16;
		in->u.ext.nextents = (len - 16) / 16;
		return ITEM_BAD(in, st, "nextents", 4, n);
	}
	in->u.ext.nextents = n;
	return 0;
}

static int dec_map(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		   uint32_t stride, const char *st, bool one)
{
	const uint8_t *p = it->reg[0].p;
	uint32_t len = it->reg[0].len, n;

	if (len < 16)
		return ITEM_BAD(in, st, "length", 0, len);
	n = xlog_le32(p + 4);
	in->id = xlog_le64(p + 8);
	in->u.ext.ext = p + 16;
	in->u.ext.stride = stride;
	if ((uint64_t)len != 16 + (uint64_t)stride * n) {
		in->u.ext.nextents = (len - 16) / stride;
		return ITEM_BAD(in, st, "nextents", 4, n);
	}
	in->u.ext.nextents = n;
	if (one && n != 1)
		return ITEM_BAD(in, st, "nextents", 4, n);
	return 0;
}

static int dec_rui(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		   struct xfsj_fault *f)
{
	(void)f;
	return dec_map(it, in, 32, "RUI item", false);
}

static int dec_cui(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		   struct xfsj_fault *f)
{
	(void)f;
	return dec_map(it, in, 16, "CUI item", false);
}

static int dec_bui(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		   struct xfsj_fault *f)
{
	(void)f;
	return dec_map(it, in, 32, "BUI item", true);
}

/* RUD, CUD, BUD, ATTRD, XMD: type, size, pad, the intent's id. */
static int dec_done16(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		      struct xfsj_fault *f)
{
	(void)f;
	if (it->reg[0].len != 16)
		return ITEM_BAD(in, "done item", "length", 0, it->reg[0].len);
	in->id = xlog_le64(it->reg[0].p + 8);
	return 0;
}

#define ATTR_OP_SET		1
#define ATTR_OP_REMOVE		2
#define ATTR_OP_REPLACE		3
#define ATTR_OP_PPTR_SET	4
#define ATTR_OP_PPTR_REMOVE	5
#define ATTR_OP_PPTR_REPLACE	6
#define ATTR_FILTER_PARENT	0x08

static const uint8_t *attr_region(const struct xfsj_ritem *it,
				  struct xfsj_item_info *in, int *idx,
				  uint32_t want, const char *what)
{
	const struct xfsj_region *r;

	if (*idx >= it->nreg) {
		ITEM_BAD(in, "ATTRI item", what, 0, it->nreg);
		return NULL;
	}
	r = &it->reg[(*idx)++];
	if (r->len != round4(want)) {
		ITEM_BAD_R(in, (unsigned int)*idx - 1, "ATTRI item", what, 0,
			   r->len);
		return NULL;
	}
	return r->p;
}

static int dec_attri(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		     struct xfsj_fault *f)
{
	const uint8_t *p = it->reg[0].p;
	int idx = 1;

	(void)f;
	if (it->reg[0].len != 40)
		return ITEM_BAD(in, "ATTRI item", "length", 0, it->reg[0].len);
	in->u.attr.igen = xlog_le32(p + 4);
	in->id = xlog_le64(p + 8);
	in->u.attr.ino = xlog_le64(p + 16);
	in->u.attr.op_flags = xlog_le32(p + 24);
	in->u.attr.op = in->u.attr.op_flags & 0xff;
	in->u.attr.value_len = xlog_le32(p + 32);
	in->u.attr.filter = xlog_le32(p + 36);
	if (in->u.attr.op == ATTR_OP_PPTR_REPLACE) {
		in->u.attr.name_len = xlog_le16(p + 28);
		in->u.attr.new_name_len = xlog_le16(p + 30);
	} else {
		in->u.attr.name_len = xlog_le32(p + 28);
	}
	in->u.attr.pptr = in->u.attr.op >= ATTR_OP_PPTR_SET &&
			  in->u.attr.op <= ATTR_OP_PPTR_REPLACE;
	if (!in->u.attr.op || in->u.attr.op > ATTR_OP_PPTR_REPLACE)
		return ITEM_BAD(in, "ATTRI item", "alfi_op_flags", 24,
				in->u.attr.op_flags);
	if (in->u.attr.name_len > 0xffff || in->u.attr.value_len > 0x10000)
		return ITEM_BAD(in, "ATTRI item", "alfi_name_len", 28,
				in->u.attr.name_len);

	in->u.attr.name = attr_region(it, in, &idx, in->u.attr.name_len,
				      "name region");
	if (in->u.attr.op == ATTR_OP_PPTR_REPLACE)
		in->u.attr.new_name = attr_region(it, in, &idx,
						  in->u.attr.new_name_len,
						  "new name region");
	if (in->u.attr.value_len)
		in->u.attr.value = attr_region(it, in, &idx,
					       in->u.attr.value_len,
					       "value region");
	if (in->u.attr.op == ATTR_OP_PPTR_REPLACE && in->u.attr.value_len)
		in->u.attr.new_value = attr_region(it, in, &idx,
						   in->u.attr.value_len,
						   "new value region");
	/* A parent pointer's value is the parent's inode and generation. */
	if ((in->u.attr.filter & ATTR_FILTER_PARENT) &&
	    in->u.attr.value_len == 12) {
		if (in->u.attr.value) {
			in->u.attr.parent_ino = xfsj_get_be64(in->u.attr.value);
			in->u.attr.parent_gen =
				xfsj_get_be32(in->u.attr.value + 8);
		}
		if (in->u.attr.new_value) {
			in->u.attr.new_parent_ino =
				xfsj_get_be64(in->u.attr.new_value);
			in->u.attr.new_parent_gen =
				xfsj_get_be32(in->u.attr.new_value + 8);
		}
	}
	return in->err;
}

static int dec_xmi(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		   struct xfsj_fault *f)
{
	const uint8_t *p = it->reg[0].p;

	(void)f;
	if (it->reg[0].len != 88)
		return ITEM_BAD(in, "XMI item", "length", 0, it->reg[0].len);
	in->id = xlog_le64(p + 8);
	in->u.xmi.ino1 = xlog_le64(p + 16);
	in->u.xmi.ino2 = xlog_le64(p + 24);
	in->u.xmi.igen1 = xlog_le32(p + 32);
	in->u.xmi.igen2 = xlog_le32(p + 36);
	in->u.xmi.startoff1 = xlog_le64(p + 40);
	in->u.xmi.startoff2 = xlog_le64(p + 48);
	in->u.xmi.blockcount = xlog_le64(p + 56);
	in->u.xmi.flags = xlog_le64(p + 64);
	in->u.xmi.isize1 = xlog_le64(p + 72);
	in->u.xmi.isize2 = xlog_le64(p + 80);
	if (xlog_le32(p + 4))
		return ITEM_BAD(in, "XMI item", "xmi_pad", 4, xlog_le32(p + 4));
	return 0;
}

static int dec_never(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		     struct xfsj_fault *f)
{
	(void)it;
	(void)f;
	/* In-memory only: seeing one on disk means the bytes are wrong. */
	return ITEM_BAD(in, "IUNLINK item", "type", 0, in->type);
}

#define I XFSJ_ROLE_INTENT
#define D XFSJ_ROLE_DONE
#define O XFSJ_ROLE_OTHER

static const struct xfsj_item_type item_types[] = {
	{ XFSJ_LI_BUF,      "BUF",      "BUF",   O, 0, false, dec_buf },
	{ XFSJ_LI_INODE,    "INODE",    "INO",   O, 0, false, dec_inode },
	{ XFSJ_LI_DQUOT,    "DQUOT",    "DQ ",   O, 0, false, dec_dquot },
	{ XFSJ_LI_QUOTAOFF, "QUOTAOFF", "QOFF",  O, 0, false, dec_qoff },
	{ XFSJ_LI_ICREATE,  "ICREATE",  "ICR",   O, 0, false, dec_icreate },
	{ XFSJ_LI_EFI,      "EFI",      "EFI",   I, XFSJ_LI_EFD, false, dec_efx },
	{ XFSJ_LI_EFD,      "EFD",      "EFD",   D, XFSJ_LI_EFI, false, dec_efx },
	{ XFSJ_LI_RUI,      "RUI",      "RUI",   I, XFSJ_LI_RUD, false, dec_rui },
	{ XFSJ_LI_RUD,      "RUD",      "RUD",   D, XFSJ_LI_RUI, false, dec_done16 },
	{ XFSJ_LI_CUI,      "CUI",      "CUI",   I, XFSJ_LI_CUD, false, dec_cui },
	{ XFSJ_LI_CUD,      "CUD",      "CUD",   D, XFSJ_LI_CUI, false, dec_done16 },
	{ XFSJ_LI_BUI,      "BUI",      "BUI",   I, XFSJ_LI_BUD, false, dec_bui },
	{ XFSJ_LI_BUD,      "BUD",      "BUD",   D, XFSJ_LI_BUI, false, dec_done16 },
	{ XFSJ_LI_ATTRI,    "ATTRI",    "ATTRI", I, XFSJ_LI_ATTRD, false, dec_attri },
	{ XFSJ_LI_ATTRD,    "ATTRD",    "ATTRD", D, XFSJ_LI_ATTRI, false, dec_done16 },
	{ XFSJ_LI_XMI,      "XMI",      "XMI",   I, XFSJ_LI_XMD, false, dec_xmi },
	{ XFSJ_LI_XMD,      "XMD",      "XMD",   D, XFSJ_LI_XMI, false, dec_done16 },
	{ XFSJ_LI_EFI_RT,   "EFI_RT",   "EFI_RT", I, XFSJ_LI_EFD_RT, true, dec_efx },
	{ XFSJ_LI_EFD_RT,   "EFD_RT",   "EFD_RT", D, XFSJ_LI_EFI_RT, true, dec_efx },
	{ XFSJ_LI_RUI_RT,   "RUI_RT",   "RUI_RT", I, XFSJ_LI_RUD_RT, true, dec_rui },
	{ XFSJ_LI_RUD_RT,   "RUD_RT",   "RUD_RT", D, XFSJ_LI_RUI_RT, true, dec_done16 },
	{ XFSJ_LI_CUI_RT,   "CUI_RT",   "CUI_RT", I, XFSJ_LI_CUD_RT, true, dec_cui },
	{ XFSJ_LI_CUD_RT,   "CUD_RT",   "CUD_RT", D, XFSJ_LI_CUI_RT, true, dec_done16 },
	{ XFSJ_LI_IUNLINK,  "IUNLINK",  "IUL",   O, 0, false, dec_never },
};

#undef I
#undef D
#undef O

#define NTYPES (sizeof(item_types) / sizeof(item_types[0]))

const struct xfsj_item_type *xfsj_item_type_lookup(uint16_t type)
{
	for (size_t i = 0; i < NTYPES; i++)
		if (item_types[i].type == type)
			return &item_types[i];
	return NULL;
}

const struct xfsj_item_type *xfsj_item_type_by_name(const char *name)
{
	for (size_t i = 0; i < NTYPES; i++) {
		const char *lp = item_types[i].lp_name;
		size_t n = strlen(lp);

		/* "DQ " is padded in xfs_logprint's output. */
		while (n && lp[n - 1] == ' ')
			n--;
		if (!strcasecmp(item_types[i].name, name) ||
		    (strlen(name) == n && !strncasecmp(lp, name, n)))
			return &item_types[i];
	}
	return NULL;
}

const struct xfsj_item_type *xfsj_item_types(unsigned int *n)
{
	*n = NTYPES;
	return item_types;
}

int xfsj_item_decode(const struct xfsj_ritem *it, struct xfsj_item_info *info)
{
	memset(info, 0, sizeof(*info));
	info->type = it->type;
	info->nreg = it->nreg;
	if (!it->nreg || !it->reg || it->reg[0].len < 4)
		return item_fault(info, XFSJ_E_CORRUPT, 0, "log item", "length",
				  0, it->nreg ? it->reg[0].len : 0);
	info->kind = xfsj_item_type_lookup(it->type);
	if (!info->kind)
		return item_fault(info, XFSJ_E_UNSUPP, 0, "log item", "type", 0,
				  it->type);
	return info->kind->decode(it, info, &info->fault);
}

int xfsj_item_extent(const struct xfsj_item_info *info, uint32_t i,
		     struct xfsj_item_ext *e)
{
	const uint8_t *p;
	uint16_t t = info->type;

	memset(e, 0, sizeof(*e));
	/* Only the extent-carrying types use u.ext. */
	switch (t) {
	case XFSJ_LI_EFI: case XFSJ_LI_EFD: case XFSJ_LI_EFI_RT:
	case XFSJ_LI_EFD_RT: case XFSJ_LI_RUI: case XFSJ_LI_RUI_RT:
	case XFSJ_LI_BUI: case XFSJ_LI_CUI: case XFSJ_LI_CUI_RT:
		break;
	default:
		return -XFSJ_E_RANGE;
	}
	if (!info->kind || i >= info->u.ext.nextents || !info->u.ext.ext)
		return -XFSJ_E_RANGE;
	p = info->u.ext.ext + (size_t)i * info->u.ext.stride;
	switch (t) {
	case XFSJ_LI_EFI: case XFSJ_LI_EFD:
	case XFSJ_LI_EFI_RT: case XFSJ_LI_EFD_RT:
		e->startblock = xlog_le64(p);
		e->len = xlog_le32(p + 8);
		return 0;
	case XFSJ_LI_RUI: case XFSJ_LI_RUI_RT: case XFSJ_LI_BUI:
		e->owner = xlog_le64(p);
		e->startblock = xlog_le64(p + 8);
		e->offset = xlog_le64(p + 16);
		e->len = xlog_le32(p + 24);
		e->flags = xlog_le32(p + 28);
		return 0;
	case XFSJ_LI_CUI: case XFSJ_LI_CUI_RT:
		e->startblock = xlog_le64(p);
		e->len = xlog_le32(p + 8);
		e->flags = xlog_le32(p + 12);
		return 0;
	}
	return -XFSJ_E_RANGE;
}

/* ---- what an item touches ---- */

void xfsj_fsgeo_from_sb(const struct xfsj_sb *sb, struct xfsj_fsgeo *g)
{
	memset(g, 0, sizeof(*g));
	if (sb->magicnum != XFSJ_SB_MAGIC || sb->blocklog < 9)
		return;
	g->blocksize = sb->blocksize;
	g->blocklog = sb->blocklog;
	g->agblklog = sb->agblklog;
	g->inopblog = sb->inopblog;
	g->agblocks = sb->agblocks;
	g->agcount = sb->agcount;
	g->inodesize = sb->inodesize;
	g->known = sb->agblocks && sb->agblklog < 32 && sb->inopblog < 16;
}

uint64_t xfsj_fsb_to_daddr(const struct xfsj_fsgeo *g, uint64_t fsbno)
{
	uint64_t agno = fsbno >> g->agblklog;
	uint64_t agbno = fsbno & ((1ULL << g->agblklog) - 1);

	return (agno * g->agblocks + agbno) << (g->blocklog - 9);
}

uint32_t xfsj_fsb_to_agno(const struct xfsj_fsgeo *g, uint64_t fsbno)
{
	return (uint32_t)(fsbno >> g->agblklog);
}

uint32_t xfsj_ino_to_agno(const struct xfsj_fsgeo *g, uint64_t ino)
{
	return (uint32_t)(ino >> (g->agblklog + g->inopblog));
}

uint32_t xfsj_daddr_to_agno(const struct xfsj_fsgeo *g, uint64_t daddr)
{
	uint64_t agbb = (uint64_t)g->agblocks << (g->blocklog - 9);

	return agbb ? (uint32_t)(daddr / agbb) : 0;
}

/* Device address (512-byte units) of the inode's cluster block. */
static uint64_t ino_daddr(const struct xfsj_fsgeo *g, uint64_t ino)
{
	uint64_t fsb = ino >> g->inopblog;

	return xfsj_fsb_to_daddr(g, fsb) +
	       (((ino & ((1ULL << g->inopblog) - 1)) * g->inodesize) >> 9);
}

static bool in_range(uint64_t x, uint64_t start, uint64_t len)
{
	return x >= start && x - start < len;
}

static bool is_file_owner(uint64_t owner)
{
	/* Special owners are small negative numbers. */
	return owner < (uint64_t)-16;
}

bool xfsj_item_touches_ino(const struct xfsj_ritem *it,
			   const struct xfsj_item_info *info,
			   const struct xfsj_fsgeo *g, uint64_t ino)
{
	struct xfsj_item_ext e;

	(void)it;
	if (!info->kind)
		return false;
	switch (info->type) {
	case XFSJ_LI_INODE:
		return info->u.ino.ino == ino;
	case XFSJ_LI_ATTRI:
		return info->u.attr.ino == ino ||
		       (info->u.attr.pptr && (info->u.attr.parent_ino == ino ||
					      info->u.attr.new_parent_ino == ino));
	case XFSJ_LI_XMI:
		return info->u.xmi.ino1 == ino || info->u.xmi.ino2 == ino;
	case XFSJ_LI_RUI: case XFSJ_LI_RUI_RT: case XFSJ_LI_BUI:
		for (uint32_t i = 0; i < info->u.ext.nextents; i++)
			if (!xfsj_item_extent(info, i, &e) &&
			    is_file_owner(e.owner) && e.owner == ino)
				return true;
		return false;
	case XFSJ_LI_ICREATE:
		if (!g->known || xfsj_ino_to_agno(g, ino) != info->u.icr.ag)
			return false;
		return in_range((ino >> g->inopblog) &
				((1ULL << g->agblklog) - 1),
				info->u.icr.agbno, info->u.icr.length);
	case XFSJ_LI_BUF:
		/* The cluster buffer that holds the inode. */
		if (!g->known || (info->u.buf.content.magic != XFSJ_DINODE_MAGIC &&
				  !(info->u.buf.flags & XFSJ_BLF_INODE_BUF)))
			return false;
		return in_range(ino_daddr(g, ino), info->u.buf.blkno,
				info->u.buf.len);
	}
	return false;
}

static bool ext_touches(const struct xfsj_item_info *info,
			const struct xfsj_fsgeo *g, uint64_t daddr,
			int64_t agno)
{
	struct xfsj_item_ext e;

	if (info->kind->rt)
		return false;
	for (uint32_t i = 0; i < info->u.ext.nextents; i++) {
		if (xfsj_item_extent(info, i, &e))
			break;
		/* BUI mappings of realtime files are not on this device. */
		if (info->type == XFSJ_LI_BUI && (e.flags & (1U << 29)))
			continue;
		if (agno >= 0) {
			if (xfsj_fsb_to_agno(g, e.startblock) == agno)
				return true;
		} else if (in_range(daddr, xfsj_fsb_to_daddr(g, e.startblock),
				    (uint64_t)e.len << (g->blocklog - 9))) {
			return true;
		}
	}
	return false;
}

static bool touches(const struct xfsj_item_info *info,
		    const struct xfsj_fsgeo *g, uint64_t daddr, int64_t agno)
{
	if (!info->kind)
		return false;
	switch (info->type) {
	case XFSJ_LI_BUF:
		if (agno >= 0)
			return g->known &&
			       xfsj_daddr_to_agno(g, info->u.buf.blkno) == agno;
		return in_range(daddr, info->u.buf.blkno, info->u.buf.len);
	case XFSJ_LI_INODE:
		if (agno >= 0)
			return g->known &&
			       xfsj_ino_to_agno(g, info->u.ino.ino) == agno;
		return in_range(daddr, info->u.ino.blkno, info->u.ino.len);
	case XFSJ_LI_DQUOT:
		if (agno >= 0)
			return g->known &&
			       xfsj_daddr_to_agno(g, info->u.dq.blkno) == agno;
		return in_range(daddr, info->u.dq.blkno, g->known ?
				(uint64_t)info->u.dq.len << (g->blocklog - 9) :
				1);
	case XFSJ_LI_ICREATE:
		if (!g->known)
			return false;
		if (agno >= 0)
			return info->u.icr.ag == agno;
		return in_range(daddr, xfsj_fsb_to_daddr(g,
				(uint64_t)info->u.icr.ag << g->agblklog |
				info->u.icr.agbno),
				(uint64_t)info->u.icr.length << (g->blocklog - 9));
	case XFSJ_LI_EFI: case XFSJ_LI_EFD: case XFSJ_LI_RUI:
	case XFSJ_LI_CUI: case XFSJ_LI_BUI:
		return g->known && ext_touches(info, g, daddr, agno);
	case XFSJ_LI_ATTRI:
		return agno >= 0 && g->known &&
		       xfsj_ino_to_agno(g, info->u.attr.ino) == agno;
	case XFSJ_LI_XMI:
		return agno >= 0 && g->known &&
		       (xfsj_ino_to_agno(g, info->u.xmi.ino1) == agno ||
			xfsj_ino_to_agno(g, info->u.xmi.ino2) == agno);
	}
	return false;
}

bool xfsj_item_touches_daddr(const struct xfsj_item_info *info,
			     const struct xfsj_fsgeo *g, uint64_t daddr)
{
	return touches(info, g, daddr, -1);
}

bool xfsj_item_touches_ag(const struct xfsj_item_info *info,
			  const struct xfsj_fsgeo *g, uint32_t agno)
{
	return touches(info, g, 0, agno);
}
