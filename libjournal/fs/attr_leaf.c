/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Attribute leaf blocks (attr.h), as the kernel's xfs_attr_leaf.c and
 * xfs_da_btree.c lay them out on a v5 filesystem; the node (dabtree)
 * operations are in attr_node.c.
 *
 * A leaf block (struct xfs_attr3_leafblock):
 *
 *   0  da3 block info: forw, back (be32), magic 0x3bee (be16), pad,
 *      crc, blkno (be64 daddr), lsn, uuid[16], owner (be64 ino)
 *  56  count, usedbytes, firstused (be16; 0 means 64 KiB), holes, pad
 *  64  freemap[3] of {base, size} (be16), pad to 80
 *  80  entries[count] of {hashval be32, nameidx be16, flags, pad},
 *      sorted by hash; names and values grow down from the block end:
 *      local  {valuelen be16, namelen, name, value}, 4-byte aligned
 *      remote {valueblk be32, valuelen be32, namelen, name}
 *
 * A node block (struct xfs_da3_intnode): the same 56-byte block info
 * (magic 0x3ebe), count and level (be16), pad, then {hashval, before}
 * (be32) per child, each the last hash under that child.
 *
 * Every change below follows the kernel's arithmetic step by step (free
 * map first fit, compaction, the free map bookkeeping of a removal), as
 * the result must be byte-identical to what the kernel would have left.
 */
#include <stdlib.h>
#include <string.h>

#include "fs/attr.h"
#include "fs/bmap.h"
#include "core/crc32c.h"
#include "core/layout.h"

#define HDR		XFSJ_ATTR3_LEAF_HDR_SIZE
#define ENT		XFSJ_ATTR_LEAF_ENTRY_SIZE
#define MAPSIZE		XFSJ_ALEAF_MAPSIZE
#define OFF_MAGIC	XFSJ_DA3_OFF_MAGIC
#define OFF_CRC		XFSJ_DA3_OFF_CRC
#define OFF_BLKNO	XFSJ_DA3_OFF_BLKNO
#define OFF_UUID	XFSJ_DA3_OFF_UUID
#define OFF_OWNER	XFSJ_DA3_OFF_OWNER
#define OFF_COUNT	XFSJ_ALEAF_OFF_COUNT
#define OFF_USED	XFSJ_ALEAF_OFF_USED
#define OFF_FIRSTUSED	XFSJ_ALEAF_OFF_FIRSTUSED
#define OFF_HOLES	XFSJ_ALEAF_OFF_HOLES
#define OFF_FREEMAP	XFSJ_ALEAF_OFF_FREEMAP
#define FLAGS_KNOWN	(XFSJ_ATTR_FLAG_LOCAL | XFSJ_ATTR_NS_MASK | \
			 XFSJ_ATTR_FLAG_INCOMPLETE)

void xfsj_attr_leaf_hdr_get(const uint8_t *blk, uint32_t blksize,
			    struct xfsj_attr_leaf_hdr *h)
{
	h->count = xfsj_get_be16(blk + OFF_COUNT);
	h->usedbytes = xfsj_get_be16(blk + OFF_USED);
	h->firstused = xfsj_get_be16(blk + OFF_FIRSTUSED);
	/* 16 bits cannot say 65536: an empty 64 KiB block stores 0. */
	if (h->firstused == 0)
		h->firstused = blksize;
	h->holes = blk[OFF_HOLES];
	for (int i = 0; i < MAPSIZE; i++) {
		h->map[i].base = xfsj_get_be16(blk + OFF_FREEMAP + 4 * i);
		h->map[i].size = xfsj_get_be16(blk + OFF_FREEMAP + 4 * i + 2);
	}
}

static void hdr_put(uint8_t *blk, const struct xfsj_attr_leaf_hdr *h)
{
	xfsj_put_be16(blk + OFF_COUNT, (uint16_t)h->count);
	xfsj_put_be16(blk + OFF_USED, (uint16_t)h->usedbytes);
	xfsj_put_be16(blk + OFF_FIRSTUSED,
		      h->firstused > UINT16_MAX ? 0 : (uint16_t)h->firstused);
	blk[OFF_HOLES] = h->holes;
	blk[OFF_HOLES + 1] = 0;
	for (int i = 0; i < MAPSIZE; i++) {
		xfsj_put_be16(blk + OFF_FREEMAP + 4 * i,
			      (uint16_t)h->map[i].base);
		xfsj_put_be16(blk + OFF_FREEMAP + 4 * i + 2,
			      (uint16_t)h->map[i].size);
	}
}

static uint8_t *ent_ptr(uint8_t *blk, uint32_t i)
{
	return blk + HDR + (size_t)i * ENT;
}

static uint32_t round4(uint32_t x)
{
	return (x + 3) & ~3U;
}

/* Sizes as the kernel computes them (the historical padding included). */
static uint32_t entsize_local(uint32_t nlen, uint32_t vlen)
{
	return round4(3 + nlen + vlen);
}

static uint32_t entsize_remote(uint32_t nlen)
{
	return round4(11 + nlen);
}

/* Whether a value is kept in the leaf: below 3/4 of a block. */
static uint32_t newentsize(const struct xfsj_attr_arg *a, uint32_t blksize,
			   bool *local)
{
	uint32_t size = entsize_local(a->namelen, a->valuelen);

	*local = size < (blksize >> 1) + (blksize >> 2);
	return *local ? size : entsize_remote(a->namelen);
}

static uint32_t entsize_at(const uint8_t *blk, uint32_t i)
{
	const uint8_t *e = blk + HDR + (size_t)i * ENT;
	const uint8_t *n = blk + xfsj_get_be16(e + 4);

	if (e[6] & XFSJ_ATTR_FLAG_LOCAL)
		return entsize_local(n[2], xfsj_get_be16(n));
	return entsize_remote(n[8]);
}

uint32_t xfsj_attr_rmt_blocks(uint32_t blocksize, uint32_t valuelen)
{
	uint32_t space = blocksize - XFSJ_RMT_HDR_SIZE;

	return (valuelen + space - 1) / space;
}

uint32_t xfsj_attr_leaf_count(const uint8_t *blk)
{
	return xfsj_get_be16(blk + OFF_COUNT);
}

void xfsj_attr_leaf_get_ent(const uint8_t *blk, uint32_t blksize, uint32_t i,
			    struct xfsj_attr_lent *e)
{
	const uint8_t *p = blk + HDR + (size_t)i * ENT;
	const uint8_t *n;

	(void)blksize;
	memset(e, 0, sizeof(*e));
	e->hash = xfsj_get_be32(p);
	e->nameidx = xfsj_get_be16(p + 4);
	e->flags = p[6];
	n = blk + e->nameidx;
	if (e->flags & XFSJ_ATTR_FLAG_LOCAL) {
		e->valuelen = xfsj_get_be16(n);
		e->namelen = n[2];
		e->name = n + 3;
		e->value = n + 3 + e->namelen;
		e->entsize = entsize_local(e->namelen, e->valuelen);
	} else {
		e->valueblk = xfsj_get_be32(n);
		e->valuelen = xfsj_get_be32(n + 4);
		e->namelen = n[8];
		e->name = n + 9;
		e->entsize = entsize_remote(e->namelen);
	}
}

/* ---- verification (the kernel's leaf verifier, plus flag checks) ---- */

static int leaf_bad(struct xfsj_fault *f, const char *field, uint64_t daddr,
		    uint32_t off, uint64_t value)
{
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr leaf", field,
			      (daddr << 9) + off, value);
}

/* The bytes one entry's name structure takes: [start, end). */
struct name_span {
	uint32_t start, end;
};

static int span_cmp(const void *a, const void *b)
{
	const struct name_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int verify_entry(const uint8_t *blk, uint32_t blksize,
			const struct xfsj_attr_leaf_hdr *h, uint32_t i,
			uint32_t *lasthash,
			struct name_span *span, uint64_t daddr,
			struct xfsj_fault *f)
{
	const uint8_t *p = blk + HDR + (size_t)i * ENT;
	uint32_t eoff = HDR + i * ENT;
	uint32_t hash = xfsj_get_be32(p);
	uint32_t nameidx = xfsj_get_be16(p + 4);
	uint8_t flags = p[6];
	uint8_t ns = flags & XFSJ_ATTR_NS_MASK;
	bool local = flags & XFSJ_ATTR_FLAG_LOCAL;
	struct xfsj_attr_lent e;
	uint32_t end;
	int place;

	if (hash < *lasthash)
		return leaf_bad(f, "entries.hashval (order)", daddr, eoff,
				hash);
	*lasthash = hash;
	if (flags & ~FLAGS_KNOWN)
		return leaf_bad(f, "entries.flags", daddr, eoff + 6, flags);
	/* One namespace at most. */
	if (ns & (ns - 1))
		return leaf_bad(f, "entries.flags (namespace)", daddr,
				eoff + 6, flags);
	place = xfsj_attr_leaf_ent_place(blk, blksize, i, h->firstused, &e,
					 &end);
	if (place == XFSJ_ALENT_SLOT || place == XFSJ_ALENT_NAMEIDX)
		return leaf_bad(f, "entries.nameidx", daddr, eoff + 4,
				nameidx);
	/* The fixed part of the name structure must be inside first. */
	if (place == XFSJ_ALENT_FIXED)
		return leaf_bad(f, local ? "name_local" : "name_remote", daddr,
				nameidx, nameidx);
	if (e.namelen == 0)
		return leaf_bad(f, local ? "name_local.namelen" :
				"name_remote.namelen", daddr,
				nameidx + (local ? 2 : 8), 0);
	if (!local && !(flags & XFSJ_ATTR_FLAG_INCOMPLETE) && !e.valueblk)
		return leaf_bad(f, "name_remote.valueblk", daddr, nameidx, 0);
	if (!local && e.valuelen > XFSJ_XATTR_SIZE_MAX)
		return leaf_bad(f, "name_remote.valuelen", daddr, nameidx + 4,
				e.valuelen);
	if (place == XFSJ_ALENT_PAST)
		return leaf_bad(f, "entries (name past block end)", daddr,
				nameidx, end);
	span->start = nameidx;
	span->end = end;
	return 0;
}

/*
 * Names may not share bytes, and usedbytes counts them all, as every
 * change keeps it (stricter than the kernel's verifier, as xfs_repair
 * is): a compaction or a join repacks the names into the space these
 * promise, so a block that lies here would be written past its start.
 */
static int verify_names(const struct xfsj_attr_leaf_hdr *h,
			struct name_span *spans,
			uint64_t daddr, struct xfsj_fault *f)
{
	uint32_t used = 0;

	qsort(spans, h->count, sizeof(*spans), span_cmp);
	for (uint32_t i = 0; i < h->count; i++) {
		if (i && spans[i].start < spans[i - 1].end)
			return leaf_bad(f, "entries.nameidx (overlap)", daddr,
					spans[i].start, spans[i].start);
		used += spans[i].end - spans[i].start;
	}
	if (used != h->usedbytes)
		return leaf_bad(f, "usedbytes", daddr, OFF_USED, h->usedbytes);
	return 0;
}

int xfsj_attr_leaf_verify(struct xfsj_fs *fs, uint64_t ino,
			  const uint8_t *blk, uint64_t daddr,
			  struct xfsj_fault *f)
{
	uint32_t blksize = xfsj_fs_sb(fs)->blocksize;
	uint32_t lasthash = 0;
	struct name_span *spans;
	struct xfsj_vctx c;
	struct xfsj_attr_leaf_hdr h;
	int err = 0;

	if (!xfsj_cksum_ok(blk, blksize, OFF_CRC))
		return xfsj_fault_set(f, XFSJ_E_BADCRC, "attr leaf", "crc",
				      (daddr << 9) + OFF_CRC, ino);
	if (xfsj_get_be16(blk + OFF_MAGIC) != XFSJ_ATTR3_LEAF_MAGIC)
		return xfsj_fault_set(f, XFSJ_E_BADMAGIC, "attr leaf", "magic",
				      (daddr << 9) + OFF_MAGIC,
				      xfsj_get_be16(blk + OFF_MAGIC));
	xfsj_fs_vctx(fs, 0, &c);
	if (memcmp(blk + OFF_UUID, c.uuid, 16))
		return leaf_bad(f, "uuid", daddr, OFF_UUID, 0);
	if (xfsj_get_be64(blk + OFF_BLKNO) != daddr)
		return leaf_bad(f, "blkno", daddr, OFF_BLKNO,
				xfsj_get_be64(blk + OFF_BLKNO));
	if (xfsj_get_be64(blk + OFF_OWNER) != ino)
		return leaf_bad(f, "owner", daddr, OFF_OWNER,
				xfsj_get_be64(blk + OFF_OWNER));
	xfsj_attr_leaf_hdr_get(blk, blksize, &h);
	if (h.firstused > blksize || h.firstused < HDR)
		return leaf_bad(f, "firstused", daddr, OFF_FIRSTUSED,
				h.firstused);
	if (h.count >= blksize / 8 || HDR + h.count * ENT > h.firstused)
		return leaf_bad(f, "count", daddr, OFF_COUNT, h.count);
	spans = malloc((h.count ? h.count : 1) * sizeof(*spans));
	if (!spans)
		return -XFSJ_E_NOMEM;
	for (uint32_t i = 0; i < h.count && !err; i++)
		err = verify_entry(blk, blksize, &h, i, &lasthash, &spans[i],
				   daddr, f);
	if (!err)
		err = verify_names(&h, spans, daddr, f);
	free(spans);
	if (err)
		return err;
	for (int i = 0; i < MAPSIZE; i++) {
		uint32_t off = OFF_FREEMAP + 4 * i;

		if (h.map[i].base > blksize || (h.map[i].base & 3) ||
		    h.map[i].size > blksize || (h.map[i].size & 3) ||
		    h.map[i].base + h.map[i].size > blksize)
			return leaf_bad(f, "freemap", daddr, off,
					h.map[i].base);
		/*
		 * Stricter than the kernel: a free region inside the header
		 * would make an insertion overwrite it.
		 */
		if (h.map[i].size && h.map[i].base < HDR)
			return leaf_bad(f, "freemap.base", daddr, off,
					h.map[i].base);
	}
	return 0;
}

void xfsj_attr_leaf_init(struct xfsj_fs *fs, uint64_t ino, uint8_t *blk,
			 uint64_t daddr)
{
	uint32_t blksize = xfsj_fs_sb(fs)->blocksize;
	struct xfsj_vctx c;
	struct xfsj_attr_leaf_hdr h;

	memset(blk, 0, blksize);
	xfsj_put_be16(blk + OFF_MAGIC, XFSJ_ATTR3_LEAF_MAGIC);
	xfsj_put_be64(blk + OFF_BLKNO, daddr);
	xfsj_fs_vctx(fs, 0, &c);
	memcpy(blk + OFF_UUID, c.uuid, 16);
	xfsj_put_be64(blk + OFF_OWNER, ino);
	memset(&h, 0, sizeof(h));
	h.firstused = blksize;
	h.map[0].base = HDR;
	h.map[0].size = h.firstused - HDR;
	hdr_put(blk, &h);
}

/* ---- lookup ---- */

void xfsj_attr_leaf_lookup(const uint8_t *blk, uint32_t blksize,
			   const struct xfsj_attr_arg *a, uint32_t hash,
			   uint32_t *index, bool *found)
{
	uint32_t count = xfsj_attr_leaf_count(blk);
	struct xfsj_attr_lent e;
	uint32_t i = 0;

	*found = false;
	/*
	 * The kernel binary-searches to the first entry of this hash and
	 * then tries every entry with it; a miss leaves the index after
	 * them, where an insertion keeps the block sorted.
	 */
	while (i < count && xfsj_get_be32(blk + HDR + (size_t)i * ENT) < hash)
		i++;
	for (; i < count; i++) {
		xfsj_attr_leaf_get_ent(blk, blksize, i, &e);
		if (e.hash != hash)
			break;
		if (xfsj_attr_match(a, e.flags, e.name, e.namelen, e.value,
				    e.valuelen)) {
			*found = true;
			break;
		}
	}
	*index = i;
}

/* ---- insertion ---- */

static void add_work(uint8_t *blk, struct xfsj_attr_leaf_hdr *h,
		     const struct xfsj_attr_arg *a, uint32_t hash,
		     uint32_t index, int mapi, uint32_t entsize, bool local)
{
	uint8_t *e = ent_ptr(blk, index);
	uint8_t *n;
	uint32_t nameidx, new_end;

	if (index < h->count)
		memmove(e + ENT, e, (size_t)(h->count - index) * ENT);
	h->count++;

	h->map[mapi].size -= entsize;
	nameidx = h->map[mapi].base + h->map[mapi].size;
	xfsj_put_be32(e, hash);
	xfsj_put_be16(e + 4, (uint16_t)nameidx);
	e[6] = a->ns | (local ? XFSJ_ATTR_FLAG_LOCAL : 0);
	e[7] = 0;
	n = blk + nameidx;
	if (local) {
		xfsj_put_be16(n, (uint16_t)a->valuelen);
		n[2] = (uint8_t)a->namelen;
		memcpy(n + 3, a->name, a->namelen);
		if (a->valuelen)
			memcpy(n + 3 + a->namelen, a->value, a->valuelen);
	} else {
		/* The value blocks come later; until then it is partial. */
		e[6] |= XFSJ_ATTR_FLAG_INCOMPLETE;
		xfsj_put_be32(n, 0);
		xfsj_put_be32(n + 4, 0);
		n[8] = (uint8_t)a->namelen;
		memcpy(n + 9, a->name, a->namelen);
	}
	if (nameidx < h->firstused)
		h->firstused = nameidx;
	/*
	 * The entry table grew by one slot: a free region that started at
	 * its old end, or now inside it, gives up what the table took.  An
	 * emptied region is cleared and the block marked for compaction
	 * (kernels since the 2026 free map fixes, backported to stable).
	 */
	new_end = h->count * ENT + HDR;
	for (int i = 0; i < MAPSIZE; i++) {
		uint32_t diff = 0;

		if (h->map[i].base == new_end - ENT)
			diff = ENT;
		else if (h->map[i].size && h->map[i].base < new_end)
			diff = new_end - h->map[i].base;
		if (diff) {
			h->map[i].base += diff;
			h->map[i].size -= h->map[i].size < diff ?
					  h->map[i].size : diff;
		}
		if (h->map[i].size == 0 && h->map[i].base) {
			h->map[i].base = 0;
			h->holes = 1;
		}
	}
	h->usedbytes += entsize;
}

/* Repack every entry in order at the end of the block (kernel compact). */
static int compact(uint8_t *blk, uint32_t blksize,
		   struct xfsj_attr_leaf_hdr *h)
{
	uint8_t *src = malloc(blksize);
	struct xfsj_attr_leaf_hdr s = *h;

	if (!src)
		return -XFSJ_E_NOMEM;
	memcpy(src, blk, blksize);
	memset(blk + HDR, 0, blksize - HDR);
	h->firstused = blksize;
	h->usedbytes = 0;
	h->count = 0;
	h->holes = 0;
	for (uint32_t i = 0; i < s.count; i++) {
		const uint8_t *se = src + HDR + (size_t)i * ENT;
		uint8_t *de = ent_ptr(blk, i);
		uint32_t sz = entsize_at(src, i);

		h->firstused -= sz;
		memcpy(de, se, 4);
		xfsj_put_be16(de + 4, (uint16_t)h->firstused);
		de[6] = se[6];
		memcpy(blk + h->firstused, src + xfsj_get_be16(se + 4), sz);
		h->usedbytes += sz;
		h->count++;
	}
	h->map[0].base = HDR + h->count * ENT;
	h->map[0].size = h->firstused - h->map[0].base;
	h->map[1].base = h->map[1].size = 0;
	h->map[2].base = h->map[2].size = 0;
	free(src);
	return 0;
}

int xfsj_attr_leaf_add(uint8_t *blk, uint32_t blksize,
		       const struct xfsj_attr_arg *a, uint32_t hash,
		       uint32_t index, bool *nospc, bool *remote)
{
	struct xfsj_attr_leaf_hdr h;
	uint32_t tablesize, sum = 0, tmp;
	bool local;
	uint32_t entsize = newentsize(a, blksize, &local);

	*nospc = false;
	*remote = !local;
	xfsj_attr_leaf_hdr_get(blk, blksize, &h);
	/* First fit, trying the free map from its last region down. */
	tablesize = (h.count + 1) * ENT + HDR;
	for (int i = MAPSIZE - 1; i >= 0; i--) {
		if (tablesize > h.firstused) {
			sum += h.map[i].size;
			continue;
		}
		if (!h.map[i].size)
			continue;
		tmp = entsize;
		if (h.map[i].base < h.firstused)
			tmp += ENT;
		if (h.map[i].size >= tmp) {
			add_work(blk, &h, a, hash, index, i, entsize, local);
			goto out;
		}
		sum += h.map[i].size;
	}
	/* Compaction cannot help a block without holes. */
	if (!h.holes && sum < entsize) {
		*nospc = true;
		return 0;
	}
	if (compact(blk, blksize, &h))
		return -XFSJ_E_NOMEM;
	if (h.map[0].size < entsize + ENT) {
		*nospc = true;
		goto out;
	}
	add_work(blk, &h, a, hash, index, 0, entsize, local);
out:
	hdr_put(blk, &h);
	return 0;
}

void xfsj_attr_leaf_set_rmt(uint8_t *blk, uint32_t blksize, uint32_t index,
			    uint32_t valueblk, uint32_t valuelen)
{
	uint8_t *e = ent_ptr(blk, index);
	uint8_t *n = blk + xfsj_get_be16(e + 4);

	(void)blksize;
	e[6] &= (uint8_t)~XFSJ_ATTR_FLAG_INCOMPLETE;
	xfsj_put_be32(n, valueblk);
	xfsj_put_be32(n + 4, valuelen);
}

/* ---- removal ---- */

bool xfsj_attr_leaf_remove(uint8_t *blk, uint32_t blksize, uint32_t index)
{
	struct xfsj_attr_leaf_hdr h;
	uint8_t *e = ent_ptr(blk, index);
	uint32_t nameidx = xfsj_get_be16(e + 4);
	uint32_t entsize = entsize_at(blk, index);
	uint32_t tablesize, tmp;
	int before = -1, after = -1, smallest = MAPSIZE - 1;
	bool was_first;

	xfsj_attr_leaf_hdr_get(blk, blksize, &h);
	/*
	 * Walk the free map: grow the region bordering the entry table by
	 * the slot that goes away, note regions adjacent to the freed name,
	 * and the smallest one in case the name needs a region of its own.
	 */
	tablesize = h.count * ENT + HDR;
	tmp = h.map[0].size;
	for (int i = 0; i < MAPSIZE; i++) {
		if (h.map[i].base == tablesize) {
			h.map[i].base -= ENT;
			h.map[i].size += ENT;
		}
		if (h.map[i].base + h.map[i].size == nameidx) {
			before = i;
		} else if (h.map[i].base == nameidx + entsize) {
			after = i;
		} else if (h.map[i].size < tmp) {
			tmp = h.map[i].size;
			smallest = i;
		}
	}
	if (before >= 0 && after >= 0) {
		h.map[before].size += entsize + h.map[after].size;
		h.map[after].base = 0;
		h.map[after].size = 0;
	} else if (before >= 0) {
		h.map[before].size += entsize;
	} else if (after >= 0) {
		h.map[after].base = nameidx;
		h.map[after].size += entsize;
	} else if (h.map[smallest].size < entsize) {
		h.map[smallest].base = nameidx;
		h.map[smallest].size = entsize;
	}
	was_first = nameidx == h.firstused;

	memset(blk + nameidx, 0, entsize);
	h.usedbytes -= entsize;
	memmove(e, e + ENT, (size_t)(h.count - index - 1) * ENT);
	h.count--;
	memset(ent_ptr(blk, h.count), 0, ENT);

	/* Removing the lowest name leaves no hole: find the new lowest. */
	if (was_first) {
		tmp = blksize;
		for (uint32_t i = 0; i < h.count; i++) {
			uint32_t ni = xfsj_get_be16(ent_ptr(blk, i) + 4);

			if (ni < tmp)
				tmp = ni;
		}
		h.firstused = tmp;
	} else {
		h.holes = 1;
	}
	hdr_put(blk, &h);
	/* Below 37% full: a dabtree would try to merge it with a sibling. */
	return h.usedbytes + HDR + h.count * ENT < blksize * 37 / 100;
}

uint32_t xfsj_attr_leaf_lasthash(const uint8_t *blk)
{
	uint32_t count = xfsj_attr_leaf_count(blk);

	return count ? xfsj_get_be32(blk + HDR + (size_t)(count - 1) * ENT) :
		       0;
}

uint32_t xfsj_attr_leaf_used(const uint8_t *blk)
{
	return HDR + xfsj_attr_leaf_count(blk) * ENT +
	       xfsj_get_be16(blk + OFF_USED);
}

/* ---- splitting a leaf (the kernel's rebalance onto an empty leaf) ---- */

/* The kernel's xfs_attr3_leaf_moveents, step for step. */
static void moveents(uint8_t *ls, struct xfsj_attr_leaf_hdr *hs,
		     uint32_t start_s, uint8_t *ld,
		     struct xfsj_attr_leaf_hdr *hd, uint32_t start_d,
		     uint32_t count)
{
	if (count == 0)
		return;
	if (start_d < hd->count)
		memmove(ent_ptr(ld, start_d + count), ent_ptr(ld, start_d),
			(size_t)(hd->count - start_d) * ENT);
	for (uint32_t i = 0; i < count; i++) {
		uint8_t *es = ent_ptr(ls, start_s + i);
		uint8_t *ed = ent_ptr(ld, start_d + i);
		uint32_t sz = entsize_at(ls, start_s + i);
		uint32_t ni = xfsj_get_be16(es + 4);

		hd->firstused -= sz;
		memcpy(ed, es, 4);
		xfsj_put_be16(ed + 4, (uint16_t)hd->firstused);
		ed[6] = es[6];
		memmove(ld + hd->firstused, ls + ni, sz);
		memset(ls + ni, 0, sz);
		hs->usedbytes -= sz;
		hd->usedbytes += sz;
		hs->count--;
		hd->count++;
	}
	if (start_s == hs->count) {
		memset(ent_ptr(ls, start_s), 0, (size_t)count * ENT);
	} else {
		memmove(ent_ptr(ls, start_s), ent_ptr(ls, start_s + count),
			(size_t)(hs->count - count) * ENT);
		memset(ent_ptr(ls, hs->count), 0, (size_t)count * ENT);
	}
	hd->map[0].base = HDR + hd->count * ENT;
	hd->map[0].size = hd->firstused - hd->map[0].base;
	hd->map[1].base = hd->map[1].size = 0;
	hd->map[2].base = hd->map[2].size = 0;
	hs->holes = 1;
}

static uint32_t iabs(int64_t x)
{
	return (uint32_t)(x < 0 ? -x : x);
}

/*
 * The kernel's xfs_attr3_leaf_figure_balance: how many entries stay in
 * the first leaf so both halves carry about the same bytes, counting
 * the new entry at @index.  Returns whether the new entry stays.
 */
static bool figure_balance(const uint8_t *l1,
			   const struct xfsj_attr_leaf_hdr *h1,
			   const uint8_t *l2,
			   const struct xfsj_attr_leaf_hdr *h2,
			   uint32_t blksize, uint32_t index, uint32_t newsize,
			   uint32_t *countp, uint32_t *usedp)
{
	uint32_t max = h1->count + h2->count, count, idx = 0;
	int64_t half, tmp, totallen = 0;
	uint32_t lastdelta = blksize;
	const uint8_t *leaf = l1;
	bool foundit = false;

	half = (int64_t)(max + 1) * ENT + h1->usedbytes + h2->usedbytes +
	       newsize;
	half /= 2;
	for (count = 0; count < max; count++, idx++) {
		if (count == index) {
			tmp = totallen + ENT + newsize;
			if (iabs(half - tmp) > lastdelta)
				break;
			lastdelta = iabs(half - tmp);
			totallen = tmp;
			foundit = true;
		}
		if (count == h1->count) {
			leaf = l2;
			idx = 0;
		}
		tmp = totallen + ENT + entsize_at(leaf, idx);
		if (iabs(half - tmp) > lastdelta)
			break;
		lastdelta = iabs(half - tmp);
		totallen = tmp;
	}
	totallen -= (int64_t)count * ENT;
	if (foundit)
		totallen -= ENT + newsize;
	*countp = count;
	*usedp = (uint32_t)totallen;
	return foundit;
}

int xfsj_attr_leaf_rebalance(uint8_t *l1, uint8_t *l2, uint32_t blksize,
			     const struct xfsj_attr_arg *a, uint32_t index,
			     bool *inleaf, uint32_t *newindex)
{
	struct xfsj_attr_leaf_hdr h1, h2;
	uint32_t count, totallen;
	bool local;
	uint32_t newsize = newentsize(a, blksize, &local);
	int err;

	xfsj_attr_leaf_hdr_get(l1, blksize, &h1);
	xfsj_attr_leaf_hdr_get(l2, blksize, &h2);
	*inleaf = figure_balance(l1, &h1, l2, &h2, blksize, index, newsize,
				 &count, &totallen);
	if (count < h1.count) {
		uint32_t moved = h1.count - count;
		int64_t space = (int64_t)h1.usedbytes - totallen +
				(int64_t)moved * ENT;
		int64_t room = (int64_t)h2.firstused - HDR -
			       (int64_t)h2.count * ENT;

		if (space > room) {
			err = compact(l2, blksize, &h2);
			if (err)
				return err;
		}
		moveents(l1, &h1, h1.count - moved, l2, &h2, 0, moved);
	}
	hdr_put(l1, &h1);
	hdr_put(l2, &h2);
	if (index > h1.count || (index == h1.count && !*inleaf)) {
		*inleaf = false;
		*newindex = index - h1.count;
	} else {
		*inleaf = true;
		*newindex = index;
	}
	return 0;
}

int xfsj_attr_leaf_unbalance(uint8_t *drop, uint8_t *save, uint32_t blksize)
{
	struct xfsj_attr_leaf_hdr hd, hs, ht;
	bool before = xfsj_attr_leaf_order(save, drop);
	uint8_t *tmp;

	xfsj_attr_leaf_hdr_get(drop, blksize, &hd);
	xfsj_attr_leaf_hdr_get(save, blksize, &hs);
	if (!hs.holes) {
		/* Room at one end of the survivor for the dropped entries. */
		moveents(drop, &hd, 0, save, &hs, before ? 0 : hs.count,
			 hd.count);
		hdr_put(save, &hs);
		return 0;
	}
	/* Both packed afresh, in hash order, into a copy of the survivor. */
	tmp = calloc(1, blksize);
	if (!tmp)
		return -XFSJ_E_NOMEM;
	memcpy(tmp, save, HDR);
	memset(&ht, 0, sizeof(ht));
	ht.firstused = blksize;
	hdr_put(tmp, &ht);
	if (before) {
		moveents(drop, &hd, 0, tmp, &ht, 0, hd.count);
		moveents(save, &hs, 0, tmp, &ht, ht.count, hs.count);
	} else {
		moveents(save, &hs, 0, tmp, &ht, 0, hs.count);
		moveents(drop, &hd, 0, tmp, &ht, ht.count, hd.count);
	}
	memcpy(save, tmp, blksize);
	hdr_put(save, &ht);
	free(tmp);
	return 0;
}

/* The kernel's xfs_attr3_leaf_order: whether @l2 sorts before @l1. */
bool xfsj_attr_leaf_order(const uint8_t *l1, const uint8_t *l2)
{
	uint32_t c1 = xfsj_attr_leaf_count(l1), c2 = xfsj_attr_leaf_count(l2);

	return c1 && c2 &&
	       (xfsj_get_be32(l2 + HDR) < xfsj_get_be32(l1 + HDR) ||
		xfsj_attr_leaf_lasthash(l2) < xfsj_attr_leaf_lasthash(l1));
}

int xfsj_attr_leaf_sf_bytes(const uint8_t *blk, uint32_t blksize)
{
	uint32_t count = xfsj_attr_leaf_count(blk);
	struct xfsj_attr_lent e;
	int bytes = XFSJ_ATTR_SF_HDR_SIZE;

	for (uint32_t i = 0; i < count; i++) {
		xfsj_attr_leaf_get_ent(blk, blksize, i, &e);
		if (e.flags & XFSJ_ATTR_FLAG_INCOMPLETE)
			continue;
		if (!(e.flags & XFSJ_ATTR_FLAG_LOCAL))
			return -1;
		if (e.namelen >= 255 || e.valuelen >= 255)
			return -1;
		bytes += XFSJ_ATTR_SF_ENTRY_HDR + e.namelen + (int)e.valuelen;
	}
	return bytes;
}
