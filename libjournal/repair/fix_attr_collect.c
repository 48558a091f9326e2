/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The attributes of a damaged fork that survive (FIX_SALVAGE_ATTR reads
 * them here, before the fork is rewritten around them).
 *
 * A short form is read entry by entry up to its end: the header's total
 * size when it is sane, else the fork's size (then the header's count
 * bounds the walk).  A block fork is read block by block, every mapped
 * block whatever the dabtree says: a block whose header is an attribute
 * leaf's (two of magic, owner and address) gives its entries; node and
 * remote value blocks are skipped, any other block is counted lost.  A
 * leaf's entry table is read past a damaged count until it would run
 * into the names of the entries already found or
 * reaches an empty slot; an entry is sound when its name structure lies
 * inside the block behind the table and its hash is its name's.  Remote
 * values are read through the fork's mapping, their headers checked.
 *
 * An entry is kept when its name is not empty and has no NUL, its flags
 * are known with one namespace at most, it is complete, it is not a
 * repeat of one kept before (the first wins), and, for a parent pointer,
 * the filesystem has them, its value is the 12 bytes of a valid inode
 * and its name holds no '/'.
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "fs/attr.h"
#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/iget.h"
#include "ondisk/attr_layout.h"
#include "repair/repair_priv.h"

#define KNOWN_FLAGS	(XFSJ_ATTR_NS_MASK | XFSJ_ATTR_FLAG_LOCAL | \
			 XFSJ_ATTR_FLAG_INCOMPLETE)
#define LHDR		XFSJ_ATTR3_LEAF_HDR_SIZE
#define LENT		XFSJ_ATTR_LEAF_ENTRY_SIZE

struct collect {
	struct xrp *rp;
	struct xfsj_iref *ip;
	struct xrp_attrlist *l;
	bool parent_ok;		/* the filesystem has parent pointers */
};

void xrp_attrlist_free(struct xrp_attrlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].buf);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* A dropped entry's name, for the report (room permitting). */
static void note_dropped(struct xrp_attrlist *l, const uint8_t *name,
			 uint32_t namelen)
{
	size_t at = strlen(l->dropped), room = sizeof(l->dropped) - at;

	l->ndropped++;
	if (room < 8)
		return;
	if (at)
		l->dropped[at++] = ' ', room--;
	if (!name || !namelen || namelen + 4 > room) {
		memcpy(l->dropped + at, "?", 2);
		return;
	}
	for (uint32_t i = 0; i < namelen; i++)
		l->dropped[at + i] = name[i] >= 0x20 && name[i] < 0x7f ?
				     (char)name[i] : '?';
	l->dropped[at + namelen] = 0;
}

static bool already(const struct xrp_attrlist *l, const struct xrp_attrent *e)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct xrp_attrent *k = &l->v[i];

		if (k->ns != e->ns || k->namelen != e->namelen ||
		    memcmp(k->name, e->name, e->namelen))
			continue;
		if (e->ns != XFSJ_ATTR_NS_PARENT ||
		    (k->valuelen == e->valuelen &&
		     !memcmp(k->value, e->value, e->valuelen)))
			return true;
	}
	return false;
}

/* Is the attribute (value NULL: not at hand) one to keep? */
static bool entry_good(struct collect *c, uint8_t flags, const uint8_t *name,
		       uint32_t namelen, const uint8_t *value,
		       uint32_t valuelen)
{
	uint8_t ns = flags & XFSJ_ATTR_NS_MASK;

	if (!namelen || (flags & ~KNOWN_FLAGS) || (ns & (ns - 1)) ||
	    (flags & XFSJ_ATTR_FLAG_INCOMPLETE) || memchr(name, 0, namelen))
		return false;
	if (ns != XFSJ_ATTR_NS_PARENT)
		return true;
	return c->parent_ok && value && valuelen == XFSJ_ATTR_PPTR_VALUE_LEN &&
	       !memchr(name, '/', namelen) &&
	       xck_ino_valid(c->rp->ck, xfsj_get_be64(value));
}

/* Keep a copy of a good attribute that is not a repeat; else note it. */
static int keep(struct collect *c, uint8_t flags, const uint8_t *name,
		uint32_t namelen, const uint8_t *value, uint32_t valuelen)
{
	struct xrp_attrlist *l = c->l;
	struct xrp_attrent e = {
		.ns = flags & XFSJ_ATTR_NS_MASK, .namelen = namelen,
		.name = name, .value = value, .valuelen = valuelen,
	};
	uint8_t *buf;

	if (!entry_good(c, flags, name, namelen, value, valuelen) ||
	    already(l, &e)) {
		note_dropped(l, name, namelen);
		return 0;
	}
	if (xfsj_grow(&l->v, &l->cap, l->n, 1, sizeof(*l->v), 16))
		return -XFSJ_E_NOMEM;
	buf = malloc((size_t)namelen + valuelen + 1);
	if (!buf)
		return -XFSJ_E_NOMEM;
	memcpy(buf, name, namelen);
	if (valuelen)
		memcpy(buf + namelen, value, valuelen);
	e.buf = buf;
	e.name = buf;
	e.value = buf + namelen;
	l->v[l->n++] = e;
	return 0;
}

/* ---- short form ---- */

static int walk_sf(struct collect *c)
{
	uint32_t asize, totsize, count, end, off = XFSJ_ATTR_SF_HDR_SIZE;
	const uint8_t *p = xfsj_ifork(c->rp->fs, c->ip, XFSJ_ATTR_FORK, &asize);
	bool sane;
	int err;

	if (!p || asize < XFSJ_ATTR_SF_HDR_SIZE) {
		c->l->unreadable = true;
		return 0;
	}
	totsize = xfsj_get_be16(p);
	count = p[XFSJ_ATTR_SF_OFF_COUNT];
	sane = totsize >= XFSJ_ATTR_SF_HDR_SIZE && totsize <= asize;
	end = sane ? totsize : asize;
	for (uint32_t i = 0; off + XFSJ_ATTR_SF_ENTRY_HDR <= end &&
	     (sane || i < count); i++) {
		uint32_t namelen = p[off], valuelen = p[off + 1];
		uint32_t size = XFSJ_ATTR_SF_ENTRY_HDR + namelen + valuelen;
		const uint8_t *name = p + off + XFSJ_ATTR_SF_ENTRY_HDR;

		/* Nothing after this can be told apart from padding. */
		if (!namelen || off + size > end) {
			note_dropped(c->l, NULL, 0);
			break;
		}
		err = keep(c, p[off + 2] & ~XFSJ_ATTR_FLAG_LOCAL, name,
			   namelen, name + namelen, valuelen);
		if (err)
			return err;
		off += size;
	}
	return 0;
}

/* ---- leaf blocks ---- */

static int leaf_entry(struct collect *c, const uint8_t *b, uint32_t bs,
		      uint32_t i, uint32_t table_end, uint32_t *lowest)
{
	struct xfsj_attr_lent le;
	uint32_t namelen, valuelen, idx, end;
	const uint8_t *name, *value;
	uint8_t *rval = NULL;
	struct xfsj_attr_arg a;
	uint32_t hash;
	uint8_t flags;
	int err = 0;

	if (xfsj_attr_leaf_ent_place(b, bs, i, table_end, &le, &end)) {
		note_dropped(c->l, NULL, 0);
		return 0;
	}
	hash = le.hash;
	idx = le.nameidx;
	flags = le.flags;
	namelen = le.namelen;
	valuelen = le.valuelen;
	name = le.name;
	value = le.value;
	a = (struct xfsj_attr_arg){ .ns = flags & XFSJ_ATTR_NS_MASK,
		.name = name, .namelen = namelen, .value = value,
		.valuelen = valuelen };
	if (!namelen || (a.ns == XFSJ_ATTR_NS_PARENT &&
			 (valuelen != XFSJ_ATTR_PPTR_VALUE_LEN || !value)) ||
	    xfsj_attr_hash(&a) != hash) {
		note_dropped(c->l, namelen ? name : NULL, namelen);
		return 0;
	}
	*lowest = idx < *lowest ? idx : *lowest;
	if (!value && valuelen && valuelen <= XFSJ_XATTR_SIZE_MAX &&
	    !(flags & XFSJ_ATTR_FLAG_INCOMPLETE)) {
		struct xfsj_fault f = { 0 };

		rval = malloc(valuelen);
		if (!rval)
			return -XFSJ_E_NOMEM;
		err = xfsj_attr_rmt_get(c->rp->fs, c->ip, le.valueblk, rval,
					valuelen, &f);
		if (err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO) {
			free(rval);
			return err;
		}
		if (!err)
			value = rval;
	}
	if (!value && !(flags & XFSJ_ATTR_FLAG_INCOMPLETE) && valuelen) {
		note_dropped(c->l, name, namelen);
		err = 0;
	} else {
		err = keep(c, flags & ~XFSJ_ATTR_FLAG_LOCAL, name, namelen,
			   value ? value : (const uint8_t *)"", valuelen);
	}
	free(rval);
	return err;
}

static int walk_leaf(struct collect *c, const uint8_t *b, uint32_t bs)
{
	uint32_t count = xfsj_get_be16(b + XFSJ_ALEAF_OFF_COUNT);
	uint32_t lowest = bs;
	static const uint8_t zero[LENT];
	int err;

	for (uint32_t i = 0; LHDR + (i + 1) * LENT <= lowest; i++) {
		const uint8_t *slot = b + LHDR + i * LENT;

		if (i >= count && !memcmp(slot, zero, LENT))
			break;
		err = leaf_entry(c, b, bs, i, LHDR + (i + 1) * LENT, &lowest);
		if (err)
			return err;
	}
	return 0;
}

enum { BLK_LEAF, BLK_OTHER, BLK_LOST };

/*
 * A leaf: two of its magic, its owner and its own address where a da3
 * header keeps them (a remote value's header keeps them elsewhere), so
 * that one damaged field does not lose it.  Nodes and remote values are
 * skipped; anything else is lost.
 */
static int block_kind(struct collect *c, const uint8_t *b, uint64_t daddr)
{
	uint16_t magic = xfsj_get_be16(b + XFSJ_DA3_OFF_MAGIC);
	int votes = (magic == XFSJ_ATTR3_LEAF_MAGIC) +
		    (xfsj_get_be64(b + XFSJ_DA3_OFF_OWNER) == c->ip->ino) +
		    (xfsj_get_be64(b + XFSJ_DA3_OFF_BLKNO) == daddr);

	if (magic == XFSJ_DA3_NODE_MAGIC ||
	    xfsj_get_be32(b) == XFSJ_ATTR_RMT_MAGIC)
		return BLK_OTHER;
	return votes >= 2 ? BLK_LEAF : BLK_LOST;
}

static int walk_blocks(struct collect *c)
{
	struct xrp *rp = c->rp;
	uint32_t bs = rp->sb->blocksize;
	struct xfsj_bmbt_irec *ext = NULL;
	struct xfsj_fault f = { 0 };
	size_t n = 0;
	int err;

	err = xfsj_bmap_read(rp->fs, c->ip, XFSJ_ATTR_FORK, &ext, &n, &f);
	if (err) {
		free(ext);
		c->l->unreadable = true;
		return err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO ? err : 0;
	}
	for (size_t i = 0; i < n && !err; i++) {
		for (uint64_t k = 0; !err && k < ext[i].blockcount; k++) {
			uint64_t fsb = ext[i].startblock + k;
			struct xfsj_buf *bp;
			const uint8_t *b;

			if (!xrp_blocks_ok(rp, fsb, 1))
				break;
			err = xfsj_buf_read(rp->fs, xfsj_fsb_daddr(rp->sb, fsb),
					    bs, &bp);
			if (err == -XFSJ_E_IO || err == -XFSJ_E_NOMEM)
				break;
			if (err) {
				err = 0;
				continue;
			}
			b = bp->data;
			switch (block_kind(c, b, xfsj_fsb_daddr(rp->sb, fsb))) {
			case BLK_LEAF:
				err = walk_leaf(c, b, bs);
				break;
			case BLK_LOST:
				c->l->badblocks++;
				break;
			default:
				break;
			}
		}
	}
	free(ext);
	return err;
}

int xrp_attr_collect(struct xrp *rp, struct xfsj_iref *ip,
		     struct xrp_attrlist *l)
{
	struct collect c = {
		.rp = rp, .ip = ip, .l = l,
		.parent_ok = xfsj_fs_has_incompat(rp->fs,
						  XFSJ_INCOMPAT_PARENT),
	};
	int err = 0;

	memset(l, 0, sizeof(*l));
	if (!ip->di.forkoff) {
		l->unreadable = true;
		return 0;
	}
	switch (ip->di.aformat) {
	case XFSJ_DINODE_FMT_LOCAL:
		err = walk_sf(&c);
		break;
	case XFSJ_DINODE_FMT_EXTENTS:
	case XFSJ_DINODE_FMT_BTREE:
		err = walk_blocks(&c);
		break;
	default:
		l->unreadable = true;
		break;
	}
	if (err)
		xrp_attrlist_free(l);
	return err;
}
