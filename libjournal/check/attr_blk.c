/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Phase 06, attribute forks in blocks: a single leaf at block 0, or a
 * dabtree whose root node is block 0 (layouts: ondisk/attr_layout.h,
 * fs/attr_leaf.c), and the remote values the leaves point at.
 *
 * The tree is walked from the root, left to right; every block is read
 * once (a block reached twice, from two parents or as a tree block and a
 * value, is reported), the level of each child must be its parent's less
 * one (so the walk ends), and each block is checked as far as it can be:
 *
 *  - every block: CRC, magic, uuid, owner, blkno; the sibling links of
 *    each level in the tree's order, none at the root;
 *  - a node: count, level, hashes in order, each the last hash under its
 *    child, children mapped;
 *  - a leaf: count, each entry's name area inside the block, past the
 *    entry table and not shared with another's, its hash the hash of its
 *    name and in order, the attribute's own rules (attr.c); firstused and
 *    usedbytes against the entries (xfs_repair's rules); the free map
 *    inside the block, aligned (the kernel's verifier) and over no byte
 *    in use (the kernel's scrub, xchk_xattr_check_freemap);
 *  - a remote value: each block mapped, its header (xfsj_attr_rmt_verify)
 *    naming this inode, block and part of the value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/attr_priv.h"
#include "fs/attr.h"
#include "fs/bmbt.h"
#include "core/crc32c.h"
#include "core/layout.h"

#define LHDR		XFSJ_ATTR3_LEAF_HDR_SIZE
#define LENT		XFSJ_ATTR_LEAF_ENTRY_SIZE
#define NHDR		XFSJ_DA3_NODE_HDR_SIZE
#define NENT		XFSJ_DA3_NODE_ENTRY_SIZE
#define RUN_MAX		32		/* names of one hash kept for dups */
#define SEEN_MAX	(1ULL << 27)	/* fork blocks tracked, at most */

struct run_ent {
	struct xck_aent e;
	uint8_t name[256];
	uint8_t value[XFSJ_ATTR_PPTR_VALUE_LEN];
};

/* A level's last block, left to right, for the sibling links. */
struct level {
	bool have, broken;
	uint32_t blk, forw;
};

/* The walk of one attribute fork's blocks. */
struct bw {
	struct xck_aw *w;
	struct xck_icheck *ic;
	uint32_t bs;
	/* Fork blocks used (tree blocks, values), by rank in the mapping. */
	uint64_t *prefix;
	uint8_t *seen;
	uint8_t *bytes;		/* a leaf's bytes in use, one bit each */
	struct level lv[XFSJ_DA_NODE_MAXDEPTH + 1];
	uint64_t total, visits;
	int err;		/* an I/O error or no memory, kept */
	bool have_last;
	uint32_t lasthash;	/* the last good hash, across leaves */
	/* The good entries of hash runhash so far: duplicates. */
	struct run_ent run[RUN_MAX];
	uint32_t nrun, runhash;
};

/* w->field = @fmt, which holds one %u: @i. */
static void setf(struct bw *b, const char *fmt, uint32_t i)
{
	snprintf(b->w->field, sizeof(b->w->field), fmt, i);
}

static void blk_report(struct bw *b, int row, uint32_t dablk,
		       unsigned int has, uint64_t expected, uint64_t found)
{
	xck_attr_report(b->w, row, has | XFSJ_PF_OFF,
			&(struct xfsj_problem){ .off = dablk,
						.expected = expected,
						.found = found });
}

/* ---- fork blocks ---- */

enum { CL_OK, CL_MISSING, CL_SHARED };

/* The disk block of fork block @dablk, if mapped. */
static bool claim_peek(struct bw *b, uint32_t dablk, uint64_t *fsbno)
{
	const struct xfsj_bmbt_irec *m;

	m = xck_fork_lookup(b->ic, XFSJ_ATTR_FORK, dablk);
	if (m)
		*fsbno = m->startblock + (dablk - m->startoff);
	return m != NULL;
}

static int claim(struct bw *b, uint32_t dablk, uint64_t *fsbno)
{
	const struct xfsj_bmbt_irec *m;
	uint64_t rank;

	if (!claim_peek(b, dablk, fsbno))
		return CL_MISSING;
	m = xck_fork_lookup(b->ic, XFSJ_ATTR_FORK, dablk);
	/* Untracked (a hostile fork): no more visits than blocks. */
	if (!b->seen) {
		if (++b->visits <= b->total)
			return CL_OK;
		blk_report(b, AT_BLK_SHARED, dablk, 0, 0, 0);
		return CL_SHARED;
	}
	rank = b->prefix[m - b->ic->map[XFSJ_ATTR_FORK]] + dablk -
	       m->startoff;
	if (b->seen[rank / 8] & (1U << rank % 8)) {
		blk_report(b, AT_BLK_SHARED, dablk, 0, 0, 0);
		return CL_SHARED;
	}
	b->seen[rank / 8] |= 1U << rank % 8;
	return CL_OK;
}

/*
 * Claim and read block @dablk, reported as named by w->field when it is
 * not mapped.  Returns 0 with *buf, 1 when there is nothing to check, or
 * a negative XFSJ_E_*.
 */
static int read_blk(struct bw *b, uint32_t dablk, uint8_t **buf,
		    uint64_t *fsbno)
{
	int err;

	*buf = NULL;
	switch (claim(b, dablk, fsbno)) {
	case CL_MISSING:
		blk_report(b, AT_BLK_MISSING, dablk, 0, 0, 0);
		return 1;
	case CL_SHARED:
		return 1;
	}
	err = xck_fork_read(b->w->ck, b->ic, XFSJ_ATTR_FORK, dablk, 1, buf);
	if (err == 1)
		blk_report(b, AT_BLK_MISSING, dablk, 0, 0, 0);
	return err;
}

/* The da3 block info; false when the magic says it is not @magic. */
static bool check_info(struct bw *b, const uint8_t *blk, uint32_t dablk,
		       uint64_t fsbno, uint16_t magic)
{
	const struct xfsj_sb *sb = b->w->ck->sb;
	uint64_t daddr = xfsj_fsb_daddr(sb, fsbno);
	uint16_t found = xfsj_get_be16(blk + XFSJ_DA3_OFF_MAGIC);
	unsigned int has = XFSJ_PF_FSBNO | XFSJ_PF_OFF;
	struct xfsj_problem p = { .off = dablk, .fsbno = fsbno };

	if (!xfsj_cksum_ok(blk, b->bs, XFSJ_DA3_OFF_CRC)) {
		strcpy(b->w->field, "hdr.info.crc");
		xck_attr_report(b->w, AT_BLK_CRC, has, &p);
	}
	if (found != magic) {
		strcpy(b->w->field, "hdr.info.hdr.magic");
		p.expected = magic;
		p.found = found;
		xck_attr_report(b->w, AT_BLK_MAGIC,
				has | XFSJ_PF_EXPECTED | XFSJ_PF_FOUND, &p);
		return false;
	}
	if (memcmp(blk + XFSJ_DA3_OFF_UUID, b->w->uuid, 16)) {
		strcpy(b->w->field, "hdr.info.uuid");
		xck_attr_report(b->w, AT_BLK_UUID, has, &p);
	}
	has |= XFSJ_PF_EXPECTED | XFSJ_PF_FOUND;
	p.expected = b->ic->ino;
	p.found = xfsj_get_be64(blk + XFSJ_DA3_OFF_OWNER);
	if (p.found != p.expected) {
		strcpy(b->w->field, "hdr.info.owner");
		xck_attr_report(b->w, AT_BLK_OWNER, has, &p);
	}
	p.expected = daddr;
	p.found = xfsj_get_be64(blk + XFSJ_DA3_OFF_BLKNO);
	if (p.found != p.expected) {
		strcpy(b->w->field, "hdr.info.blkno");
		xck_attr_report(b->w, AT_BLK_BLKNO, has, &p);
	}
	p.found = xfsj_get_be16(blk + XFSJ_DA3_OFF_MAGIC + 2);
	if (p.found) {
		strcpy(b->w->field, "hdr.info.hdr.pad");
		xck_attr_report(b->w, AT_BLK_PAD, has, &p);
	}
	return true;
}

/* A block of @level seen after the level's last one, left to right. */
static void sibling(struct bw *b, int level, uint32_t dablk,
		    const uint8_t *blk)
{
	uint32_t forw = xfsj_get_be32(blk + XFSJ_DA3_OFF_FORW);
	uint32_t back = xfsj_get_be32(blk + XFSJ_DA3_OFF_BACK);
	unsigned int has = XFSJ_PF_EXPECTED | XFSJ_PF_FOUND;
	struct level *lv = &b->lv[level];

	if (!lv->broken) {
		uint32_t want = lv->have ? lv->blk : 0;

		strcpy(b->w->field, "hdr.info.hdr.back");
		if (back != want)
			blk_report(b, AT_BLK_SIBLING, dablk, has, want, back);
		strcpy(b->w->field, "hdr.info.hdr.forw");
		if (lv->have && lv->forw != dablk)
			blk_report(b, AT_BLK_SIBLING, lv->blk, has, dablk,
				   lv->forw);
	}
	lv->have = true;
	lv->broken = false;
	lv->blk = dablk;
	lv->forw = forw;
}

/* A subtree of @level could not be walked: its links cannot be checked. */
static void broken(struct bw *b, int level)
{
	for (int l = 0; l <= level && l <= XFSJ_DA_NODE_MAXDEPTH; l++)
		b->lv[l].broken = true;
}

/* ---- remote values ---- */

/*
 * Each block of the value mapped and used once; then the blocks read as
 * the kernel reads a value (fs/attr.c: each header's CRC, magic, uuid,
 * owner, blkno, and the part of the value it holds), the first bad one
 * reported.
 */
static int check_rmt(struct bw *b, const struct xck_aent *e,
		     uint32_t valueblk)
{
	uint32_t nblk = xfsj_attr_rmt_blocks(b->bs, e->valuelen);
	const struct xfsj_sb *sb = b->w->ck->sb;
	struct xfsj_iref ip = { .ino = b->ic->ino, .dip = (uint8_t *)b->ic->dip,
				.di = b->ic->di };
	struct xfsj_problem p = { .name = (const char *)e->name,
				  .namelen = e->namelen };
	struct xfsj_fault f = { 0 };
	unsigned int has = XFSJ_PF_OFF;
	uint64_t fsbno = 0;
	int err;

	for (uint32_t k = 0; k < nblk; k++) {
		p.off = (uint64_t)valueblk + k;
		if (p.off > UINT32_MAX) {
			xck_attr_report(b->w, AT_RMT_MISSING, XFSJ_PF_OFF, &p);
			return 0;
		}
		switch (claim(b, (uint32_t)p.off, &fsbno)) {
		case CL_MISSING:
			xck_attr_report(b->w, AT_RMT_MISSING, XFSJ_PF_OFF, &p);
			return 0;
		case CL_SHARED:
			return 0;
		}
	}
	err = xfsj_attr_rmt_get(b->w->ck->fs, &ip, valueblk, NULL,
				e->valuelen, &f);
	if (err == -XFSJ_E_IO || err == -XFSJ_E_NOMEM)
		return err;
	if (!err)
		return 0;
	/* The block the fault is in (its byte address names it). */
	p.off = valueblk;
	for (uint32_t k = 0; k < nblk; k++) {
		uint64_t at;

		claim_peek(b, valueblk + k, &fsbno);
		at = xfsj_fsb_daddr(sb, fsbno) << 9;
		if (f.offset >= at && f.offset < at + b->bs) {
			p.off = valueblk + k;
			p.fsbno = fsbno;
			has |= XFSJ_PF_FSBNO;
			break;
		}
	}
	snprintf(b->w->field, sizeof(b->w->field), "%s",
		 f.field ? f.field : "header");
	xck_attr_report(b->w, AT_RMT_HEADER, has, &p);
	return 0;
}

/* ---- leaf blocks ---- */

/* Mark [start, end) of the leaf in use; false when a byte already was. */
static bool mark(struct bw *b, uint32_t start, uint32_t end)
{
	bool clash = false;

	for (uint32_t i = start; i < end; i++) {
		if (b->bytes[i / 8] & (1U << i % 8))
			clash = true;
		b->bytes[i / 8] |= 1U << i % 8;
	}
	return !clash;
}

/* A good entry of hash @hash: the same name twice? */
static void dup_check(struct bw *b, const struct xck_aent *e, uint32_t hash)
{
	struct run_ent *r;

	if (!b->nrun || hash != b->runhash) {
		b->nrun = 0;
		b->runhash = hash;
	}
	for (uint32_t i = 0; i < b->nrun; i++) {
		if (xck_attr_same(&b->run[i].e, e)) {
			xck_attr_report(b->w, AT_DUP, 0, &(struct xfsj_problem){
				.name = (const char *)e->name,
				.namelen = e->namelen });
			return;
		}
	}
	if (b->nrun == RUN_MAX)
		return;
	r = &b->run[b->nrun++];
	r->e = *e;
	memcpy(r->name, e->name, e->namelen);
	r->e.name = r->name;
	r->e.value = NULL;
	if (e->value && e->valuelen == sizeof(r->value)) {
		memcpy(r->value, e->value, sizeof(r->value));
		r->e.value = r->value;
	}
}

/*
 * Entry @i of a leaf whose entry table ends at @tabend: false when its
 * name structure cannot be placed (the header's sums are not checked).
 * *last gets the hash the entry should have.
 */
static bool check_lent(struct bw *b, const uint8_t *blk, uint32_t dablk,
		       uint32_t i, uint32_t tabend, uint32_t *used,
		       uint32_t *firstb, uint32_t *last)
{
	const uint8_t *p = blk + LHDR + (size_t)i * LENT;
	uint32_t hash = xfsj_get_be32(p), nameidx = xfsj_get_be16(p + 4);
	uint8_t flags = p[6], ns = flags & XFSJ_ATTR_NS_MASK;
	struct xfsj_attr_lent le;
	struct xck_aent e;
	uint32_t want, end;
	int place;
	bool ok;

	*last = hash;
	setf(b, "entries[%u].pad2", i);
	if (p[7])
		blk_report(b, AT_BLK_PAD, dablk, XFSJ_PF_FOUND, 0, p[7]);
	setf(b, "entries[%u].nameidx", i);
	place = xfsj_attr_leaf_ent_place(blk, b->bs, i, tabend, &le, &end);
	if (place == XFSJ_ALENT_SLOT || place == XFSJ_ALENT_NAMEIDX) {
		blk_report(b, AT_LEAF_NAMEIDX, dablk,
			   XFSJ_PF_EXPECTED | XFSJ_PF_FOUND, tabend, nameidx);
		return false;
	}
	setf(b, "entries[%u]", i);
	if (place != XFSJ_ALENT_OK) {
		blk_report(b, AT_LEAF_NAME_PAST, dablk,
			   XFSJ_PF_EXPECTED | XFSJ_PF_FOUND, b->bs, end);
		return false;
	}
	e = (struct xck_aent){ .flags = flags, .namelen = le.namelen,
			       .name = le.name, .valuelen = le.valuelen,
			       .value = le.value };
	if (!mark(b, nameidx, end))
		xck_attr_report(b->w, AT_LEAF_OVERLAP, XFSJ_PF_OFF,
				&(struct xfsj_problem){
					.off = dablk,
					.name = (const char *)e.name,
					.namelen = e.namelen });
	*used += end - nameidx;
	if (nameidx < *firstb)
		*firstb = nameidx;
	ok = xck_attr_entry(b->w, &e);
	if (e.namelen && !(ns & (ns - 1))) {
		struct xfsj_attr_arg a = { .ns = ns, .name = e.name,
					   .namelen = e.namelen,
					   .value = e.value,
					   .valuelen = e.valuelen };

		want = xfsj_attr_hash(&a);
		setf(b, "entries[%u].hashval", i);
		if (want != hash) {
			xck_attr_report(b->w, AT_LEAF_HASHVAL, XFSJ_PF_OFF |
					XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
					&(struct xfsj_problem){
						.off = dablk, .expected = want,
						.found = hash,
						.name = (const char *)e.name,
						.namelen = e.namelen });
			*last = want;
			ok = false;
		} else if (b->have_last && hash < b->lasthash) {
			xck_attr_report(b->w, AT_LEAF_HASHORDER, XFSJ_PF_OFF |
					XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
					&(struct xfsj_problem){
						.off = dablk,
						.expected = b->lasthash,
						.found = hash,
						.name = (const char *)e.name,
						.namelen = e.namelen });
		} else {
			b->have_last = true;
			b->lasthash = hash;
		}
	}
	if (!(flags & XFSJ_ATTR_FLAG_LOCAL) &&
	    !(flags & XFSJ_ATTR_FLAG_INCOMPLETE)) {
		struct xfsj_problem q = { .off = dablk,
					  .name = (const char *)e.name,
					  .namelen = e.namelen };

		setf(b, "nvlist[%u].valueblk", i);
		if (le.valueblk == 0) {
			xck_attr_report(b->w, AT_RMT_VALUEBLK, XFSJ_PF_OFF, &q);
		} else if (le.valuelen > XFSJ_XATTR_SIZE_MAX) {
			setf(b, "nvlist[%u].valuelen", i);
			q.expected = XFSJ_XATTR_SIZE_MAX;
			q.found = le.valuelen;
			xck_attr_report(b->w, AT_RMT_VALUELEN, XFSJ_PF_OFF |
					XFSJ_PF_EXPECTED | XFSJ_PF_FOUND, &q);
		} else if (ns != XFSJ_ATTR_NS_PARENT) {
			setf(b, "nvlist[%u].valueblk", i);
			int err = check_rmt(b, &e, le.valueblk);

			if (err && !b->err)
				b->err = err;
		}
	}
	if (ok) {
		setf(b, "entries[%u]", i);
		dup_check(b, &e, hash);
	}
	return true;
}

static void check_freemap(struct bw *b, const uint8_t *blk, uint32_t dablk,
			  const struct xfsj_attr_leaf_hdr *h)
{
	unsigned int has = XFSJ_PF_FOUND;

	(void)blk;
	for (uint32_t i = 0; i < XFSJ_ALEAF_MAPSIZE; i++) {
		uint32_t base = h->map[i].base, size = h->map[i].size;

		setf(b, "hdr.freemap[%u].base", i);
		if (base > b->bs || (base & 3)) {
			blk_report(b, AT_LEAF_FREEMAP, dablk, has, 0, base);
			continue;
		}
		setf(b, "hdr.freemap[%u].size", i);
		if (size > b->bs || (size & 3) || base + size > b->bs) {
			blk_report(b, AT_LEAF_FREEMAP, dablk, has, 0, size);
			continue;
		}
		if (!mark(b, base, base + size))
			blk_report(b, AT_LEAF_FREEMAP_USED, dablk, 0, 0, 0);
	}
}

/* A leaf; *highest gets the hash its last entry should have. */
static void check_leaf(struct bw *b, const uint8_t *blk, uint32_t dablk,
		       bool root, uint32_t *highest)
{
	uint32_t maxcount = (b->bs - LHDR) / LENT, tabend, i;
	uint32_t used = 0, firstb = b->bs, last = 0;
	unsigned int has = XFSJ_PF_EXPECTED | XFSJ_PF_FOUND;
	struct xfsj_attr_leaf_hdr h;
	bool whole = true;

	xfsj_attr_leaf_hdr_get(blk, b->bs, &h);
	*highest = 0;
	strcpy(b->w->field, "hdr.pad1");
	if (blk[XFSJ_ALEAF_OFF_HOLES + 1])
		blk_report(b, AT_BLK_PAD, dablk, XFSJ_PF_FOUND, 0,
			   blk[XFSJ_ALEAF_OFF_HOLES + 1]);
	strcpy(b->w->field, "hdr.pad2");
	if (xfsj_get_be32(blk + LHDR - 4))
		blk_report(b, AT_BLK_PAD, dablk, XFSJ_PF_FOUND, 0,
			   xfsj_get_be32(blk + LHDR - 4));
	strcpy(b->w->field, "hdr.count");
	if (h.count == 0 && root) {
		/* xfs_repair -n only logs this one: the kernel allows it. */
		blk_report(b, AT_LEAF_EMPTY, dablk, 0, 0, 0);
		return;
	}
	if (h.count == 0 || h.count > maxcount) {
		blk_report(b, AT_LEAF_COUNT, dablk, has, maxcount, h.count);
		return;
	}
	tabend = LHDR + h.count * LENT;
	memset(b->bytes, 0, b->bs / 8);
	mark(b, 0, tabend);
	for (i = 0; i < h.count; i++)
		whole &= check_lent(b, blk, dablk, i, tabend, &used, &firstb,
				    &last);
	*highest = last;
	strcpy(b->w->field, "hdr.firstused");
	if (h.firstused > b->bs || h.firstused < tabend)
		blk_report(b, AT_LEAF_FIRSTUSED, dablk, has, firstb,
			   h.firstused);
	else if (whole && ((!h.holes && firstb != h.firstused) ||
			   h.firstused > firstb))
		blk_report(b, AT_LEAF_FIRSTUSED, dablk, has, firstb,
			   h.firstused);
	strcpy(b->w->field, "hdr.usedbytes");
	if (whole && used != h.usedbytes)
		blk_report(b, AT_LEAF_USED, dablk, has, used, h.usedbytes);
	check_freemap(b, blk, dablk, &h);
}

/* ---- the tree ---- */

static int visit(struct bw *b, uint32_t dablk, int level, uint32_t *highest,
		 bool *ok);

static int check_node(struct bw *b, const uint8_t *blk, uint32_t dablk,
		      int level, uint32_t *highest)
{
	uint32_t count = xfsj_get_be16(blk + XFSJ_DA3_NODE_OFF_COUNT);
	uint32_t max = (b->bs - NHDR) / NENT, prev = 0;
	unsigned int has = XFSJ_PF_EXPECTED | XFSJ_PF_FOUND;
	int err;

	*highest = 0;
	strcpy(b->w->field, "hdr.count");
	if (count == 0 || count > max) {
		blk_report(b, AT_NODE_COUNT, dablk, has, max, count);
		broken(b, level - 1);
		return 0;
	}
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *e = blk + NHDR + (size_t)i * NENT;
		uint32_t hv = xfsj_get_be32(e), before = xfsj_get_be32(e + 4);
		uint32_t child = hv;
		bool ok = false;

		setf(b, "btree[%u].before", i);
		if (before == 0) {
			blk_report(b, AT_NODE_BEFORE, dablk, XFSJ_PF_FOUND, 0,
				   before);
			broken(b, level - 1);
		} else {
			err = visit(b, before, level - 1, &child, &ok);
			if (err)
				return err;
		}
		setf(b, "btree[%u].hashval", i);
		/* A wrong hash is blamed once, not again by the order. */
		if (ok && child != hv)
			xck_attr_report(b->w, AT_NODE_HASHVAL,
					has | XFSJ_PF_OFF,
					&(struct xfsj_problem){
						.off = dablk, .expected = child,
						.found = hv });
		else if (i && hv < prev)
			xck_attr_report(b->w, AT_NODE_HASHORDER,
					has | XFSJ_PF_OFF,
					&(struct xfsj_problem){
						.off = dablk, .expected = prev,
						.found = hv });
		prev = ok ? child : hv;
		*highest = prev;
	}
	return 0;
}

/*
 * Block @dablk at @level below a node (0: a leaf).  *ok when it could be
 * walked, with *highest its last hash.
 */
static int visit(struct bw *b, uint32_t dablk, int level, uint32_t *highest,
		 bool *ok)
{
	uint16_t magic = level ? XFSJ_DA3_NODE_MAGIC : XFSJ_ATTR3_LEAF_MAGIC;
	uint64_t fsbno;
	uint8_t *blk;
	int err;

	*ok = false;
	err = read_blk(b, dablk, &blk, &fsbno);
	if (err) {
		broken(b, level);
		return err < 0 ? err : 0;
	}
	if (!check_info(b, blk, dablk, fsbno, magic)) {
		broken(b, level);
		free(blk);
		return 0;
	}
	sibling(b, level, dablk, blk);
	if (level == 0) {
		check_leaf(b, blk, dablk, false, highest);
		*ok = true;
	} else {
		uint32_t found = xfsj_get_be16(blk + XFSJ_DA3_NODE_OFF_LEVEL);

		strcpy(b->w->field, "hdr.level");
		if (found != (uint32_t)level) {
			blk_report(b, AT_NODE_LEVEL, dablk,
				   XFSJ_PF_EXPECTED | XFSJ_PF_FOUND, level,
				   found);
			broken(b, level - 1);
		} else {
			err = check_node(b, blk, dablk, level, highest);
			*ok = !err;
		}
	}
	free(blk);
	return err;
}

/* The root: a leaf or a node, no siblings; then the ends of the chains. */
static int walk_root(struct bw *b)
{
	unsigned int has = XFSJ_PF_EXPECTED | XFSJ_PF_FOUND;
	uint32_t highest, level = 0;
	uint64_t fsbno;
	uint8_t *blk;
	uint16_t magic;
	int err;

	strcpy(b->w->field, "block 0");
	err = read_blk(b, 0, &blk, &fsbno);
	if (err)
		return err < 0 ? err : 0;
	magic = xfsj_get_be16(blk + XFSJ_DA3_OFF_MAGIC);
	if (magic != XFSJ_DA3_NODE_MAGIC)
		magic = XFSJ_ATTR3_LEAF_MAGIC;
	if (!check_info(b, blk, 0, fsbno, magic))
		goto out;
	strcpy(b->w->field, "hdr.info.hdr.forw");
	if (xfsj_get_be32(blk + XFSJ_DA3_OFF_FORW))
		blk_report(b, AT_BLK_SIBLING, 0, has, 0,
			   xfsj_get_be32(blk + XFSJ_DA3_OFF_FORW));
	strcpy(b->w->field, "hdr.info.hdr.back");
	if (xfsj_get_be32(blk + XFSJ_DA3_OFF_BACK))
		blk_report(b, AT_BLK_SIBLING, 0, has, 0,
			   xfsj_get_be32(blk + XFSJ_DA3_OFF_BACK));
	if (magic == XFSJ_ATTR3_LEAF_MAGIC) {
		check_leaf(b, blk, 0, true, &highest);
		goto out;
	}
	level = xfsj_get_be16(blk + XFSJ_DA3_NODE_OFF_LEVEL);
	strcpy(b->w->field, "hdr.level");
	if (level == 0 || level > XFSJ_DA_NODE_MAXDEPTH) {
		blk_report(b, AT_NODE_LEVEL, 0, has, XFSJ_DA_NODE_MAXDEPTH,
			   level);
		goto out;
	}
	err = check_node(b, blk, 0, (int)level, &highest);
	/* The last block of each level has no right sibling. */
	for (uint32_t l = 0; !err && l < level; l++) {
		if (!b->lv[l].have || b->lv[l].broken || !b->lv[l].forw)
			continue;
		strcpy(b->w->field, "hdr.info.hdr.forw");
		blk_report(b, AT_BLK_SIBLING, b->lv[l].blk, has, 0,
			   b->lv[l].forw);
	}
out:
	free(blk);
	return err;
}

int xck_attr_blocks(struct xck_aw *w)
{
	struct xck_icheck *ic = w->ic;
	size_t n = ic->nmap[XFSJ_ATTR_FORK];
	struct bw *b;
	uint64_t total = 0;
	int err;

	/*
	 * Nothing mapped: an extents fork with no extents (the kernel copes
	 * with that), or a mapping forks.c could not read and reported.
	 */
	if (n == 0)
		return 0;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -XFSJ_E_NOMEM;
	b->w = w;
	b->ic = ic;
	b->bs = w->bs;
	b->prefix = malloc((n + 1) * sizeof(*b->prefix));
	b->bytes = malloc(b->bs / 8);
	err = -XFSJ_E_NOMEM;
	if (!b->prefix || !b->bytes)
		goto out;
	for (size_t i = 0; i < n; i++) {
		b->prefix[i] = total;
		total += ic->map[XFSJ_ATTR_FORK][i].blockcount;
	}
	b->prefix[n] = total;
	b->total = total;
	/* Past this a fork is hostile anyway: its blocks go untracked. */
	if (total <= SEEN_MAX) {
		b->seen = calloc(1, total / 8 + 1);
		if (!b->seen)
			goto out;
	}
	err = walk_root(b);
	if (!err)
		err = b->err;
out:
	free(b->prefix);
	free(b->bytes);
	free(b->seen);
	free(b);
	return err;
}
