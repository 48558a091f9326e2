/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finishing a crash's work after the replay (finish.h).
 *
 * Intent formats are in the byte order of the host that wrote the log
 * (little-endian: the replay refuses anything else).  Each starts with
 * type u16, size u16, nextents u32, id u64; then the extents:
 *   EFI: start u64, len u32 (and u32 padding on 64-bit hosts: 16 or 12
 *        bytes each, told apart by the region length as the kernel does);
 *   RUI: owner u64, startblock u64, startoff u64, len u32, flags u32;
 *   CUI: startblock u64, len u32, flags u32.
 * An intent whose extents do not fit the filesystem is corruption: the
 * kernel refuses to mount then, and so do we.
 */
#include <stdlib.h>
#include <string.h>

#include "fs/attri.h"
#include "fs/defer.h"
#include "xfsj/finish.h"
#include "core/layout.h"
#include "fs/refcount.h"

#define FMT_HDR		16

static bool finishable(uint16_t type)
{
	switch (type) {
	case XFSJ_LI_EFI: case XFSJ_LI_RUI: case XFSJ_LI_CUI:
	case XFSJ_LI_BUI: case XFSJ_LI_ATTRI: case XFSJ_LI_XMI:
		return true;
	}
	/* The realtime variants: this version handles no realtime device. */
	return false;
}

struct first_bad {
	uint16_t type;
	bool found;
};

static int find_unsupported(void *arg, const struct xfsj_pending_intent *pi)
{
	struct first_bad *b = arg;

	if (finishable(pi->type))
		return 0;
	b->type = pi->type;
	b->found = true;
	return 1;
}

int xfsj_finish_supported(struct xfsj_recover *rc, uint16_t *type)
{
	struct first_bad b = { 0 };
	int err = xfsj_recover_each_intent(rc, find_unsupported, &b);

	if (err < 0)
		return err;
	if (b.found)
		*type = b.type;
	return b.found ? 1 : 0;
}

struct ctx {
	struct xfsj_fs *fs;
	const struct xfsj_sb *sb;
	struct xfsj_finish_stats *st;
	struct xfsj_fault *f;
	struct xfsj_defer_chain **chains;	/* captured, in order */
	size_t nchain;
};

/* Is [fsbno, fsbno + len) inside one AG of the data device? */
static bool valid_fsbext(const struct ctx *c, uint64_t fsbno, uint64_t len)
{
	uint32_t agno = xfsj_fsb_agno(c->sb, fsbno);
	uint32_t agbno = xfsj_fsb_agbno(c->sb, fsbno);

	if (!len || len > UINT32_MAX || agno >= c->sb->agcount)
		return false;
	return agbno < xfsj_fs_ag_blocks(c->fs, agno) &&
	       len <= xfsj_fs_ag_blocks(c->fs, agno) - agbno;
}

/* Is [off, off + len) a possible range of file blocks? */
static bool valid_fileext(uint64_t off, uint64_t len)
{
	return len && off <= XFSJ_MAX_FILEOFF &&
	       len - 1 <= XFSJ_MAX_FILEOFF - off;
}

static int bad(struct ctx *c, const struct xfsj_pending_intent *pi,
	       const char *field, uint64_t val)
{
	const char *n = pi->type == XFSJ_LI_EFI ? "EFI log item" :
			pi->type == XFSJ_LI_RUI ? "RUI log item" :
			pi->type == XFSJ_LI_CUI ? "CUI log item" :
			pi->type == XFSJ_LI_BUI ? "BUI log item" : "intent log item";

	return xfsj_fault_set(c->f, XFSJ_E_CORRUPT, n, field, pi->lsn, val);
}

static int queue_efi(struct ctx *c, const struct xfsj_pending_intent *pi,
		     uint32_t n)
{
	uint32_t esz;

	if (pi->len == FMT_HDR + 16ULL * n)
		esz = 16;
	else if (pi->len == FMT_HDR + 12ULL * n)
		esz = 12;
	else
		return bad(c, pi, "size", pi->len);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = pi->fmt + FMT_HDR + (size_t)esz * i;
		struct xfsj_work w = { .kind = XFSJ_W_FREE };

		w.fsbno = xfsj_get_le64(e);
		w.len = xfsj_get_le32(e + 8);
		if (!valid_fsbext(c, w.fsbno, w.len))
			return bad(c, pi, "extent", w.fsbno);
		/* A recovered EFI no longer knows the owner. */
		w.free.oi.owner = XFSJ_RMAP_OWN_UNKNOWN;
		int err = xfsj_defer_add(c->fs, &w);

		if (err)
			return err;
	}
	c->st->efi++;
	return 0;
}

#define RUI_TYPE_MASK		0xffU
#define RUI_ATTR_FORK		(1U << 31)
#define RUI_BMBT_BLOCK		(1U << 30)
#define RUI_UNWRITTEN		(1U << 29)
#define RUI_FLAGS		(RUI_TYPE_MASK | RUI_ATTR_FORK | \
				 RUI_BMBT_BLOCK | RUI_UNWRITTEN)

static int queue_rui(struct ctx *c, const struct xfsj_pending_intent *pi,
		     uint32_t n)
{
	if (pi->len != FMT_HDR + 32ULL * n)
		return bad(c, pi, "size", pi->len);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = pi->fmt + FMT_HDR + 32 * (size_t)i;
		uint32_t flags = xfsj_get_le32(e + 28);
		uint32_t op = flags & RUI_TYPE_MASK;
		struct xfsj_work w = { .kind = XFSJ_W_RMAP };

		if ((flags & ~RUI_FLAGS) || op < 1 || op > 8)
			return bad(c, pi, "flags", flags);
		w.fsbno = xfsj_get_le64(e + 8);
		w.len = xfsj_get_le32(e + 24);
		if (!valid_fsbext(c, w.fsbno, w.len))
			return bad(c, pi, "extent", w.fsbno);
		w.rmap.op = (enum xfsj_rmap_op)(op - 1);
		w.rmap.owner = xfsj_get_le64(e);
		w.rmap.offset = xfsj_get_le64(e + 16);
		/* As the kernel validates a map: owner, then file range. */
		if (!(w.rmap.owner >> 63) &&
		    !xfsj_intent_ino_ok(c->fs, w.rmap.owner))
			return bad(c, pi, "owner", w.rmap.owner);
		if (!valid_fileext(w.rmap.offset, w.len))
			return bad(c, pi, "startoff", w.rmap.offset);
		w.rmap.attr_fork = flags & RUI_ATTR_FORK;
		w.rmap.bmbt_block = flags & RUI_BMBT_BLOCK;
		w.rmap.unwritten = flags & RUI_UNWRITTEN;
		int err = xfsj_defer_add(c->fs, &w);

		if (err)
			return err;
	}
	c->st->rui++;
	return 0;
}

static int queue_cui(struct ctx *c, const struct xfsj_pending_intent *pi,
		     uint32_t n)
{
	if (pi->len != FMT_HDR + 16ULL * n)
		return bad(c, pi, "size", pi->len);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = pi->fmt + FMT_HDR + 16 * (size_t)i;
		uint32_t flags = xfsj_get_le32(e + 12);
		struct xfsj_work w = { .kind = XFSJ_W_REFC };

		if (flags < XFSJ_REFC_INCREASE || flags > XFSJ_REFC_FREE_COW)
			return bad(c, pi, "flags", flags);
		w.fsbno = xfsj_get_le64(e);
		w.len = xfsj_get_le32(e + 8);
		if (!valid_fsbext(c, w.fsbno, w.len))
			return bad(c, pi, "extent", w.fsbno);
		w.refc.op = (enum xfsj_refc_op)flags;
		int err = xfsj_defer_add(c->fs, &w);

		if (err)
			return err;
	}
	c->st->cui++;
	return 0;
}

static int queue_one(struct ctx *c, const struct xfsj_pending_intent *pi);

/* One recovered intent: its own work now, the rest captured. */
static int queue_intent(void *arg, const struct xfsj_pending_intent *pi)
{
	struct ctx *c = arg;
	struct xfsj_defer_chain *chain = NULL, **n;
	int err = queue_one(c, pi);

	if (!err)
		err = xfsj_defer_finish_capture(c->fs, &chain, c->f);
	if (err || !chain)
		return err;
	n = realloc(c->chains, (c->nchain + 1) * sizeof(*n));
	if (!n) {
		xfsj_defer_chain_free(chain);
		return -XFSJ_E_NOMEM;
	}
	c->chains = n;
	c->chains[c->nchain++] = chain;
	return 0;
}

#define BUI_TYPE_MASK		0xffU
#define BUI_ATTR_FORK		(1U << 31)
#define BUI_UNWRITTEN		(1U << 30)

/* A BUI names one mapping of one inode (the kernel logs one per BUI). */
static int queue_bui(struct ctx *c, const struct xfsj_pending_intent *pi,
		     uint32_t n)
{
	const uint8_t *e = pi->fmt + FMT_HDR;
	struct xfsj_work w = { .kind = XFSJ_W_BMAP };
	uint32_t flags, op;

	if (n != 1 || pi->len != FMT_HDR + 32ULL)
		return bad(c, pi, "size", pi->len);
	flags = xfsj_get_le32(e + 28);
	op = flags & BUI_TYPE_MASK;
	if ((flags & ~(BUI_TYPE_MASK | BUI_ATTR_FORK | BUI_UNWRITTEN)) ||
	    (op != XFSJ_BMAP_MAP && op != XFSJ_BMAP_UNMAP))
		return bad(c, pi, "flags", flags);
	w.fsbno = xfsj_get_le64(e + 8);
	w.len = xfsj_get_le32(e + 24);
	if (!valid_fsbext(c, w.fsbno, w.len))
		return bad(c, pi, "extent", w.fsbno);
	w.bmap.op = (enum xfsj_bmap_op)op;
	w.bmap.ino = xfsj_get_le64(e);
	w.bmap.startoff = xfsj_get_le64(e + 16);
	if (!xfsj_intent_ino_ok(c->fs, w.bmap.ino))
		return bad(c, pi, "owner", w.bmap.ino);
	if (!valid_fileext(w.bmap.startoff, w.len))
		return bad(c, pi, "startoff", w.bmap.startoff);
	w.bmap.attr_fork = flags & BUI_ATTR_FORK;
	w.bmap.unwritten = flags & BUI_UNWRITTEN;
	c->st->bui++;
	return xfsj_defer_add(c->fs, &w);
}

static int queue_one(struct ctx *c, const struct xfsj_pending_intent *pi)
{
	uint32_t n;

	/* These do their first step themselves, queuing the rest. */
	if (pi->type == XFSJ_LI_ATTRI) {
		c->st->attri++;
		return xfsj_attri_recover(c->fs, pi, c->f);
	}
	if (pi->type == XFSJ_LI_XMI) {
		c->st->xmi++;
		return xfsj_xmi_recover(c->fs, pi, c->f);
	}
	if (pi->len < FMT_HDR)
		return bad(c, pi, "size", pi->len);
	n = xfsj_get_le32(pi->fmt + 4);
	/* The kernel logs at least one extent per intent. */
	if (!n || n > pi->len)
		return bad(c, pi, "nextents", n);
	c->st->extents += n;
	switch (pi->type) {
	case XFSJ_LI_EFI:
		return queue_efi(c, pi, n);
	case XFSJ_LI_RUI:
		if (!xfsj_fs_has(c->fs, XFSJ_RO_COMPAT_RMAPBT))
			return bad(c, pi, "rmapbt feature", 0);
		return queue_rui(c, pi, n);
	case XFSJ_LI_CUI:
		if (!xfsj_fs_has(c->fs, XFSJ_RO_COMPAT_REFLINK))
			return bad(c, pi, "reflink feature", 0);
		return queue_cui(c, pi, n);
	case XFSJ_LI_BUI:
		return queue_bui(c, pi, n);
	}
	return xfsj_fault_set(c->f, XFSJ_E_UNSUPP, "intent log item", "type",
			      pi->lsn, pi->type);
}

int xfsj_finish_all(struct xfsj_recover *rc, struct xfsj_fs *fs,
		    struct xfsj_finish_stats *st, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	struct ctx c = { fs, sb, st, f, NULL, 0 };
	uint64_t done0 = xfsj_defer_done(fs);
	int err;

	memset(st, 0, sizeof(*st));
	/*
	 * Each intent's own work is one step, in log order; what a step
	 * queues is captured and run, chain by chain, once every intent has
	 * had its step, as the kernel's recovery does.
	 */
	c.chains = NULL;
	c.nchain = 0;
	err = xfsj_recover_each_intent(rc, queue_intent, &c);
	for (size_t i = 0; i < c.nchain; i++) {
		if (!err)
			err = xfsj_defer_resume(fs, c.chains[i], f);
		else
			xfsj_defer_chain_free(c.chains[i]);
	}
	free(c.chains);
	if (err)
		return err;
	err = xfsj_iunlink_process(fs, &st->iul, f);
	if (err)
		return err;
	if (xfsj_fs_has(fs, XFSJ_RO_COMPAT_REFLINK)) {
		for (uint32_t a = 0; a < sb->agcount; a++) {
			uint64_t n = 0;

			err = xfsj_refcount_recover_cow(fs, a, &n, f);
			if (err)
				return err;
			st->cow += n;
		}
	}
	st->deferred = xfsj_defer_done(fs) - done0;
	return xfsj_fs_flush(fs, f);
}
