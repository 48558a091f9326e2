/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Extended attributes of an inode (attr.h): the operations, the short
 * form kept in the inode, where the attribute fork starts, and the hashes.
 *
 * The short form (struct xfs_attr_shortform) in the attribute fork:
 *
 *   0  totsize (be16, header included), count, pad
 *   4  entries {namelen, valuelen, flags (namespace), name, value},
 *      in the order they were added
 *
 * The fork offset (di_forkoff, in 8-byte units of the literal area) moves
 * only the way the kernel moves it: chosen by xfs_attr_shortform_bytesfit
 * when the short form grows or the fork is added, raised to the default
 * offset when the short form becomes a leaf, and cleared when the last
 * attribute goes (kept, with parent pointers, when a short form empties).
 * Past one leaf the fork becomes a dabtree (attr_leaf.c).
 *
 * A remote value occupies whole blocks of the attribute fork, each with
 * its own 56-byte header (magic XARM, offset and byte count of the part
 * of the value it holds, crc, uuid, owner, daddr, lsn).
 *
 * A replace is a removal followed by an addition, as the kernel does it
 * for logged attribute updates (which parent pointers always are); the
 * removal keeps the fork even when it empties it.
 */
#include <stdlib.h>
#include <string.h>

#include "fs/attr.h"
#include "fs/bmap.h"
#include "core/crc32c.h"
#include "core/layout.h"

#define SF_HDR		XFSJ_ATTR_SF_HDR_SIZE
#define SF_ENT		XFSJ_ATTR_SF_ENTRY_HDR

/* ---- hashes ---- */

static uint32_t rol32(uint32_t x, unsigned int n)
{
	return x << n | x >> (32 - n);
}

uint32_t xfsj_da_hashname(const uint8_t *name, uint32_t len)
{
	uint32_t hash = 0;

	/* Seven bits of every byte, four bytes per round. */
	for (; len >= 4; len -= 4, name += 4)
		hash = (uint32_t)name[0] << 21 ^ (uint32_t)name[1] << 14 ^
		       (uint32_t)name[2] << 7 ^ name[3] ^ rol32(hash, 28);
	switch (len) {
	case 3:
		return (uint32_t)name[0] << 14 ^ (uint32_t)name[1] << 7 ^
		       name[2] ^ rol32(hash, 21);
	case 2:
		return (uint32_t)name[0] << 7 ^ name[1] ^ rol32(hash, 14);
	case 1:
		return name[0] ^ rol32(hash, 7);
	default:
		return hash;
	}
}

uint32_t xfsj_parent_hashval(const uint8_t *name, uint32_t namelen,
			     uint64_t parent_ino)
{
	/* Hard links of one name in two directories must not collide. */
	return xfsj_da_hashname(name, namelen) ^ (uint32_t)(parent_ino >> 32) ^
	       (uint32_t)parent_ino;
}

uint32_t xfsj_attr_hash(const struct xfsj_attr_arg *a)
{
	if (!(a->ns & XFSJ_ATTR_NS_PARENT))
		return xfsj_da_hashname(a->name, a->namelen);
	/* The kernel hashes anything but a parent record to 0. */
	if (a->valuelen != XFSJ_ATTR_PPTR_VALUE_LEN || !a->value)
		return 0;
	return xfsj_parent_hashval(a->name, a->namelen,
				   xfsj_get_be64(a->value));
}

bool xfsj_attr_match(const struct xfsj_attr_arg *a, uint8_t flags,
		     const uint8_t *name, uint32_t namelen,
		     const uint8_t *value, uint32_t valuelen)
{
	if (a->namelen != namelen)
		return false;
	uint8_t mask = XFSJ_ATTR_NS_MASK;

	if (!a->recovery)
		mask |= XFSJ_ATTR_FLAG_INCOMPLETE;
	if ((flags & mask) != a->ns)
		return false;
	if (memcmp(a->name, name, namelen))
		return false;
	if (!(flags & XFSJ_ATTR_NS_PARENT))
		return true;
	/* Parent pointers: one name may point at several parents. */
	if (!value || valuelen != a->valuelen)
		return false;
	return valuelen == 0 || memcmp(a->value, value, valuelen) == 0;
}

/* ---- where the attribute fork starts ---- */

static uint32_t litino(const struct xfsj_fs *fs)
{
	return xfsj_fs_sb(fs)->inodesize - XFSJ_DINODE_CORE_SIZE;
}

static uint32_t bmdr_space(uint32_t nrecs)
{
	return 4 + nrecs * 16;
}

/* The kernel's xfs_default_attroffset, in bytes. */
static uint32_t default_attroffset(const struct xfsj_fs *fs,
				   const struct xfsj_iref *ip)
{
	if (ip->di.format == XFSJ_DINODE_FMT_DEV)
		return XFSJ_DEV_FORK_SIZE;
	if (xfsj_fs_sb(fs)->inodesize == 256)
		return litino(fs) - bmdr_space(XFSJ_BMDR_MIN_APTRS);
	return bmdr_space(6 * XFSJ_BMDR_MIN_APTRS);
}

static uint32_t attr_fork_size(const struct xfsj_fs *fs,
			       const struct xfsj_iref *ip)
{
	return ip->di.forkoff ? litino(fs) - ip->di.forkoff * 8U : 0;
}

static uint32_t dbroot_numrecs(const struct xfsj_fs *fs,
			       const struct xfsj_iref *ip)
{
	uint32_t size;
	uint8_t *p = xfsj_ifork(fs, ip, XFSJ_DATA_FORK, &size);

	return size >= 4 ? xfsj_get_be16(p + 2) : 0;
}

/*
 * The kernel's xfs_attr_shortform_bytesfit: the fork offset (in 8-byte
 * units) that gives a short form of @bytes room, or 0 if none does.
 */
static uint32_t bytesfit(const struct xfsj_fs *fs, const struct xfsj_iref *ip,
			 uint32_t bytes)
{
	uint32_t lit = litino(fs);
	uint64_t dsize;
	uint32_t offset, minforkoff, maxforkoff;

	if (bytes > lit)
		return 0;
	offset = (lit - bytes) >> 3;
	if (ip->di.format == XFSJ_DINODE_FMT_DEV) {
		minforkoff = XFSJ_DEV_FORK_SIZE >> 3;
		return offset >= minforkoff ? minforkoff : 0;
	}
	if (bytes <= attr_fork_size(fs, ip))
		return ip->di.forkoff;
	switch (ip->di.format) {
	case XFSJ_DINODE_FMT_EXTENTS:
		dsize = xfsj_dinode_nextents(&ip->di) * 16;
		/* The data fork would become a btree: room for its root. */
		if (!ip->di.forkoff && dsize > default_attroffset(fs, ip))
			dsize = bmdr_space(XFSJ_BMDR_MIN_DPTRS);
		break;
	case XFSJ_DINODE_FMT_BTREE:
		if (ip->di.forkoff)
			return offset < ip->di.forkoff ? 0 : ip->di.forkoff;
		dsize = bmdr_space(dbroot_numrecs(fs, ip));
		break;
	case XFSJ_DINODE_FMT_LOCAL:
		dsize = ip->di.size;
		break;
	default:
		dsize = 0;
		break;
	}
	if (dsize < bmdr_space(XFSJ_BMDR_MIN_DPTRS))
		dsize = bmdr_space(XFSJ_BMDR_MIN_DPTRS);
	minforkoff = (uint32_t)((dsize + 7) >> 3);
	maxforkoff = (lit - bmdr_space(XFSJ_BMDR_MIN_APTRS)) >> 3;
	if (offset >= maxforkoff)
		return maxforkoff;
	if (offset >= minforkoff)
		return offset;
	return 0;
}

static void fork_remove(struct xfsj_iref *ip)
{
	ip->di.forkoff = 0;
	ip->di.aformat = XFSJ_DINODE_FMT_EXTENTS;
}

/*
 * A btree data fork root is laid out for the size of its fork (pointers
 * after the largest number of keys that fits), so moving the fork offset
 * moves its pointers.
 */
static int relayout_dbroot(struct xfsj_fs *fs, struct xfsj_iref *ip,
			   uint32_t old_size, uint32_t new_size,
			   struct xfsj_fault *f)
{
	uint8_t *p = ip->dip + XFSJ_DINODE_CORE_SIZE;
	uint32_t oldmax = (old_size - 4) / 16, newmax = (new_size - 4) / 16;
	uint32_t n = xfsj_get_be16(p + 2);
	uint8_t tmp[2048];

	(void)fs;
	if (n > oldmax || old_size > sizeof(tmp))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode",
				      "data fork btree root numrecs",
				      ip->byte_off + XFSJ_DINODE_CORE_SIZE + 2,
				      n);
	if (n > newmax)
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, "inode",
				      "data fork root (needs a new level)",
				      ip->byte_off + XFSJ_DINODE_CORE_SIZE, n);
	memcpy(tmp, p, old_size);
	memmove(p + 4 + newmax * 8, tmp + 4 + oldmax * 8, (size_t)n * 8);
	return 0;
}

/* The kernel's xfs_bmap_add_attrfork for a short form of @size bytes. */
static int add_fork(struct xfsj_fs *fs, struct xfsj_iref *ip, uint32_t size,
		    struct xfsj_fault *f)
{
	uint32_t dfl = default_attroffset(fs, ip) >> 3;
	uint32_t old_dsize = litino(fs), new_dsize;
	int err;

	if (ip->di.format == XFSJ_DINODE_FMT_DEV) {
		ip->di.forkoff = (uint8_t)dfl;
	} else {
		uint32_t fo = bytesfit(fs, ip, size);

		ip->di.forkoff = (uint8_t)(fo ? fo : dfl);
	}
	new_dsize = ip->di.forkoff * 8U;
	ip->di.aformat = XFSJ_DINODE_FMT_EXTENTS;
	switch (ip->di.format) {
	case XFSJ_DINODE_FMT_EXTENTS:
		if (xfsj_dinode_nextents(&ip->di) * 16 > new_dsize)
			return xfsj_fault_set(f, XFSJ_E_UNSUPP, "inode",
					      "data fork extents to btree",
					      ip->byte_off,
					      xfsj_dinode_nextents(&ip->di));
		break;
	case XFSJ_DINODE_FMT_LOCAL:
		if (ip->di.size > new_dsize)
			return xfsj_fault_set(f, XFSJ_E_UNSUPP, "inode",
					      "inline data fork to blocks",
					      ip->byte_off, ip->di.size);
		break;
	case XFSJ_DINODE_FMT_BTREE:
		err = relayout_dbroot(fs, ip, old_dsize, new_dsize, f);
		if (err)
			return err;
		break;
	default:
		break;
	}
	return 0;
}

/* ---- attribute fork blocks and remote values ---- */

int xfsj_attr_bmap(struct xfsj_fs *fs, struct xfsj_iref *ip, uint64_t lblk,
		   uint64_t *fsbno, struct xfsj_fault *f)
{
	struct xfsj_bmbt_irec *ext = NULL;
	size_t n = 0;
	int err;

	err = xfsj_bmap_read(fs, ip, XFSJ_ATTR_FORK, &ext, &n, f);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		if (lblk >= ext[i].startoff &&
		    lblk < ext[i].startoff + ext[i].blockcount) {
			*fsbno = ext[i].startblock + (lblk - ext[i].startoff);
			free(ext);
			return 0;
		}
	}
	free(ext);
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr fork",
			      "hole where a block should be", ip->byte_off,
			      lblk);
}

static uint64_t fsb_daddr(struct xfsj_fs *fs, uint64_t fsb)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);

	return xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
				 xfsj_fsb_agbno(sb, fsb));
}

int xfsj_attr_rmt_set(struct xfsj_fs *fs, struct xfsj_iref *ip,
		      const uint8_t *value, uint32_t len, uint32_t *lblk,
		      struct xfsj_fault *f)
{
	uint32_t bs = xfsj_fs_sb(fs)->blocksize;
	uint32_t space = bs - XFSJ_RMT_HDR_SIZE;
	uint32_t nblk = xfsj_attr_rmt_blocks(bs, len);
	uint64_t off, fsb;
	uint32_t done = 0;
	struct xfsj_rmt_hdr hdr;
	struct xfsj_vctx c;
	int err;

	/* The kernel puts the value in the first hole large enough. */
	err = xfsj_bmap_first_unused(fs, ip, XFSJ_ATTR_FORK, nblk, 0, &off, f);
	if (err)
		return err;
	if (off + nblk > UINT32_MAX)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "attr fork",
				      "remote value offset", ip->byte_off, off);
	err = xfsj_bmap_alloc(fs, ip, XFSJ_ATTR_FORK, off, nblk, &fsb, f);
	if (err)
		return err;
	xfsj_fs_vctx(fs, 0, &c);
	for (uint32_t i = 0; i < nblk; i++) {
		uint64_t daddr = fsb_daddr(fs, fsb + i);
		uint32_t cnt = len - done < space ? len - done : space;
		struct xfsj_buf *bp;
		uint8_t *p;

		err = xfsj_buf_get_zero(fs, daddr, bs, &bp);
		if (err)
			return xfsj_fault_set(f, err, "attr remote", "get",
					      daddr << 9, ip->ino);
		p = bp->data;
		memset(p, 0, bs);
		hdr = (struct xfsj_rmt_hdr){
			.magic = XFSJ_ATTR_RMT_MAGIC, .offset = done,
			.bytes = cnt, .owner = ip->ino, .blkno = daddr,
		};
		memcpy(hdr.uuid, c.uuid, 16);
		/* The kernel's "no LSN" (NULLCOMMITLSN) for remote blocks. */
		hdr.lsn = UINT64_MAX;
		xfsj_rmt_hdr_encode(&hdr, p);
		memcpy(p + XFSJ_RMT_HDR_SIZE, value + done, cnt);
		xfsj_cksum_update(p, bs, XFSJ_RMT_OFF(crc));
		xfsj_buf_dirty(bp);
		done += cnt;
	}
	*lblk = (uint32_t)off;
	return 0;
}

int xfsj_attr_rmt_get(struct xfsj_fs *fs, struct xfsj_iref *ip,
		      uint32_t lblk, uint8_t *value, uint32_t len,
		      struct xfsj_fault *f)
{
	uint32_t bs = xfsj_fs_sb(fs)->blocksize;
	uint32_t space = bs - XFSJ_RMT_HDR_SIZE;
	uint32_t nblk = xfsj_attr_rmt_blocks(bs, len);
	uint32_t done = 0;
	struct xfsj_rmt_hdr hdr;
	struct xfsj_vctx c;
	int err;

	xfsj_fs_vctx(fs, 0, &c);
	for (uint32_t i = 0; i < nblk; i++) {
		uint32_t cnt = len - done < space ? len - done : space;
		struct xfsj_buf *bp;
		uint64_t fsb, daddr;
		const uint8_t *p;

		err = xfsj_attr_bmap(fs, ip, (uint64_t)lblk + i, &fsb, f);
		if (err)
			return err;
		daddr = fsb_daddr(fs, fsb);
		err = xfsj_buf_read(fs, daddr, bs, &bp);
		if (err)
			return xfsj_fault_set(f, err, "attr remote", "read",
					      daddr << 9, ip->ino);
		p = bp->data;
		err = xfsj_rmt_hdr_verify(p, bs, XFSJ_ATTR_RMT_MAGIC, c.uuid,
					  daddr, XFSJ_ATTR_RMT_LIMIT,
					  "attr remote", f);
		if (err)
			return err;
		xfsj_rmt_hdr_decode(p, &hdr);
		if (hdr.owner != ip->ino || hdr.offset != done ||
		    hdr.bytes != cnt)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr remote",
					      "header (owner/blkno/offset)",
					      daddr << 9, ip->ino);
		if (value)
			memcpy(value + done, p + XFSJ_RMT_HDR_SIZE, cnt);
		done += cnt;
	}
	return 0;
}

int xfsj_attr_rmt_remove(struct xfsj_fs *fs, struct xfsj_iref *ip,
			 uint32_t lblk, uint32_t len, struct xfsj_fault *f)
{
	uint32_t bs = xfsj_fs_sb(fs)->blocksize;
	uint32_t nblk = xfsj_attr_rmt_blocks(bs, len);
	uint64_t total = 0, done;
	int err;

	/* Cached copies must not be written over whatever comes next. */
	for (uint32_t i = 0; i < nblk; i++) {
		struct xfsj_buf *bp;
		uint64_t fsb;

		err = xfsj_attr_bmap(fs, ip, (uint64_t)lblk + i, &fsb, f);
		if (err)
			return err;
		if (xfsj_buf_read(fs, fsb_daddr(fs, fsb), bs, &bp) == 0)
			xfsj_buf_forget(fs, bp);
	}
	/*
	 * Unmapping may stop early (the kernel rolls its transaction every
	 * few extents); the whole range again finishes what is left,
	 * whichever end it started from.
	 */
	while (total < nblk) {
		done = 0;
		err = xfsj_bmap_unmap(fs, ip, XFSJ_ATTR_FORK, lblk, nblk,
				      false, &done, f);
		if (err)
			return err;
		if (!done || done > nblk - total)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr fork",
					      "remote value unmap",
					      ip->byte_off, lblk);
		total += done;
	}
	return 0;
}

/* ---- short form ---- */

struct xfsj_attr_sf {
	uint8_t buf[2048];	/* a copy: the fork may move while we work */
	uint32_t totsize;
};

struct sfent {
	uint32_t off, size;
	uint8_t namelen, valuelen, flags;
	const uint8_t *name, *value;
};

static void sf_ent(const struct xfsj_attr_sf *s, uint32_t off, struct sfent *e)
{
	const uint8_t *p = s->buf + off;

	e->off = off;
	e->namelen = p[0];
	e->valuelen = p[1];
	e->flags = p[2];
	e->name = p + SF_ENT;
	e->value = p + SF_ENT + e->namelen;
	e->size = SF_ENT + e->namelen + e->valuelen;
}

/* The kernel's short-form verifier, then a private copy. */
static int sf_load(struct xfsj_fs *fs, struct xfsj_iref *ip,
		   struct xfsj_attr_sf *s, struct xfsj_fault *f)
{
	uint32_t asize, off = SF_HDR, count;
	uint8_t *p = xfsj_ifork(fs, ip, XFSJ_ATTR_FORK, &asize);
	uint64_t where = ip->byte_off + (uint64_t)(p - ip->dip);

	if (asize < SF_HDR || asize > sizeof(s->buf))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr shortform",
				      "fork size", ip->byte_off + 82, asize);
	s->totsize = xfsj_get_be16(p);
	if (s->totsize < SF_HDR || s->totsize > asize)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr shortform",
				      "totsize", where, s->totsize);
	memcpy(s->buf, p, s->totsize);
	count = s->buf[XFSJ_ATTR_SF_OFF_COUNT];
	for (uint32_t i = 0; i < count; i++) {
		struct sfent e;
		uint8_t ns;

		if (off + SF_ENT >= s->totsize)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT,
					      "attr shortform", "count",
					      where + 2, count);
		sf_ent(s, off, &e);
		if (e.namelen == 0)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT,
					      "attr shortform", "namelen",
					      where + off, 0);
		if (off + e.size > s->totsize)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT,
					      "attr shortform",
					      "entry past totsize", where + off,
					      e.size);
		ns = e.flags & XFSJ_ATTR_NS_MASK;
		if (e.flags != ns || (ns & (ns - 1)))
			return xfsj_fault_set(f, XFSJ_E_CORRUPT,
					      "attr shortform", "flags",
					      where + off + 2, e.flags);
		off += e.size;
	}
	if (off != s->totsize)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr shortform",
				      "totsize (entries end elsewhere)", where,
				      s->totsize);
	return 0;
}

/* Write the short form at the fork offset now in @ip->di. */
static void sf_store(struct xfsj_fs *fs, struct xfsj_iref *ip,
		     struct xfsj_attr_sf *s)
{
	uint32_t asize;
	uint8_t *p = xfsj_ifork(fs, ip, XFSJ_ATTR_FORK, &asize);

	ip->di.aformat = XFSJ_DINODE_FMT_LOCAL;
	xfsj_put_be16(s->buf, (uint16_t)s->totsize);
	/* Only the short form's bytes are written, as an inode flush does. */
	memcpy(p, s->buf, s->totsize < asize ? s->totsize : asize);
	xfsj_buf_dirty(ip->bp);
}

static bool sf_find(const struct xfsj_attr_sf *s, const struct xfsj_attr_arg *a,
		    struct sfent *e)
{
	uint32_t off = SF_HDR;

	for (uint32_t i = 0; i < s->buf[XFSJ_ATTR_SF_OFF_COUNT]; i++) {
		sf_ent(s, off, e);
		if (xfsj_attr_match(a, e->flags, e->name, e->namelen,
				    e->value, e->valuelen))
			return true;
		off += e->size;
	}
	return false;
}

static void sf_create(struct xfsj_attr_sf *s)
{
	memset(s->buf, 0, SF_HDR);
	s->totsize = SF_HDR;
}

/* Append (the kernel's xfs_attr_shortform_add), fork offset @forkoff. */
static void sf_append(struct xfsj_attr_sf *s, struct xfsj_iref *ip,
		      const struct xfsj_attr_arg *a, uint32_t forkoff)
{
	uint8_t *p = s->buf + s->totsize;

	ip->di.forkoff = (uint8_t)forkoff;
	p[0] = (uint8_t)a->namelen;
	p[1] = (uint8_t)a->valuelen;
	p[2] = a->ns;
	memcpy(p + SF_ENT, a->name, a->namelen);
	if (a->valuelen)
		memcpy(p + SF_ENT + a->namelen, a->value, a->valuelen);
	s->buf[XFSJ_ATTR_SF_OFF_COUNT]++;
	s->totsize += SF_ENT + a->namelen + a->valuelen;
}

/* The kernel's xfs_attr_shortform_addname after its lookup: 1 = no room. */
static int sf_addname(struct xfsj_fs *fs, struct xfsj_iref *ip,
		      struct xfsj_attr_sf *s, const struct xfsj_attr_arg *a)
{
	uint32_t forkoff;

	if (a->namelen >= XFSJ_ATTR_SF_ENTSIZE_MAX ||
	    a->valuelen >= XFSJ_ATTR_SF_ENTSIZE_MAX)
		return 1;
	/* The count is a u8. */
	if (s->buf[XFSJ_ATTR_SF_OFF_COUNT] == UINT8_MAX)
		return 1;
	forkoff = bytesfit(fs, ip, s->totsize + SF_ENT + a->namelen +
				   a->valuelen);
	if (!forkoff)
		return 1;
	sf_append(s, ip, a, forkoff);
	sf_store(fs, ip, s);
	return 0;
}

static void sf_removename(struct xfsj_fs *fs, struct xfsj_iref *ip,
			  struct xfsj_attr_sf *s, const struct sfent *e,
			  bool keep_fork)
{
	uint32_t forkoff;

	memmove(s->buf + e->off, s->buf + e->off + e->size,
		s->totsize - e->off - e->size);
	s->buf[XFSJ_ATTR_SF_OFF_COUNT]--;
	s->totsize -= e->size;
	/* With parent pointers the fork stays (a link will need it). */
	if (s->totsize == SF_HDR && !keep_fork &&
	    ip->di.format != XFSJ_DINODE_FMT_BTREE &&
	    !xfsj_fs_has_incompat(fs, XFSJ_INCOMPAT_PARENT)) {
		fork_remove(ip);
		return;
	}
	forkoff = bytesfit(fs, ip, s->totsize);
	if (forkoff)
		ip->di.forkoff = (uint8_t)forkoff;
	sf_store(fs, ip, s);
}

/* ---- leaf form ---- */

static int load(struct xfsj_attr_ctx *c, struct xfsj_fault *f)
{
	struct xfsj_iref *ip = c->ip;
	const struct xfsj_sb *sb = xfsj_fs_sb(c->fs);
	uint64_t fsb, daddr;
	uint16_t magic;
	int err;

	c->leaf = NULL;
	if (!ip->di.forkoff) {
		c->st = XFSJ_AF_NONE;
		return 0;
	}
	if (ip->di.forkoff * 8U >= litino(c->fs))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode", "forkoff",
				      ip->byte_off + 82, ip->di.forkoff);
	switch (ip->di.aformat) {
	case XFSJ_DINODE_FMT_LOCAL:
		c->st = XFSJ_AF_SF;
		return sf_load(c->fs, ip, c->sf, f);
	case XFSJ_DINODE_FMT_EXTENTS:
	case XFSJ_DINODE_FMT_BTREE:
		break;
	default:
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode", "aformat",
				      ip->byte_off + 83, ip->di.aformat);
	}
	if (xfsj_dinode_anextents(&ip->di) == 0) {
		c->st = XFSJ_AF_EMPTY;
		return 0;
	}
	err = xfsj_attr_bmap(c->fs, ip, 0, &fsb, f);
	if (err)
		return err;
	daddr = xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
				  xfsj_fsb_agbno(sb, fsb));
	err = xfsj_buf_read(c->fs, daddr, c->bs, &c->leaf);
	if (err)
		return xfsj_fault_set(f, err, "attr leaf", "read", daddr << 9,
				      ip->ino);
	magic = xfsj_get_be16(c->leaf->data + 8);
	if (magic == XFSJ_DA3_NODE_MAGIC) {
		err = xfsj_attr_node_verify(c, c->leaf->data, daddr, f);
		c->leaf = NULL;
		c->st = XFSJ_AF_NODE;
		return err;
	}
	err = xfsj_attr_leaf_verify(c->fs, ip->ino, c->leaf->data, daddr, f);
	if (err)
		return err;
	c->st = XFSJ_AF_LEAF;
	return 0;
}

/*
 * A changed leaf gets its checksum at once (the flush would stamp it
 * anyway), so that reading it again in this session verifies as usual.
 */
static void leaf_dirty(struct xfsj_attr_ctx *c)
{
	xfsj_cksum_update(c->leaf->data, c->bs, 12);
	xfsj_buf_dirty(c->leaf);
}

/* The kernel's xfs_attr_shortform_allfit: 0, -1 (empty) or a forkoff. */
static int leaf_allfit(struct xfsj_attr_ctx *c)
{
	int bytes = xfsj_attr_leaf_sf_bytes(c->leaf->data, c->bs);

	if (bytes < 0)
		return 0;
	if (bytes == SF_HDR && c->ip->di.format != XFSJ_DINODE_FMT_BTREE)
		return -1;
	return (int)bytesfit(c->fs, c->ip, (uint32_t)bytes);
}

/* The kernel's xfs_attr3_leaf_to_shortform. */
static int leaf_to_sf(struct xfsj_attr_ctx *c, int forkoff, bool keep_fork,
		      struct xfsj_fault *f)
{
	struct xfsj_iref *ip = c->ip;
	uint8_t *blk = malloc(c->bs);
	struct xfsj_attr_lent e;
	uint64_t done = 0;
	uint32_t count;
	int err;

	if (!blk)
		return -XFSJ_E_NOMEM;
	memcpy(blk, c->leaf->data, c->bs);
	xfsj_buf_forget(c->fs, c->leaf);
	c->leaf = NULL;
	err = xfsj_bmap_unmap(c->fs, ip, XFSJ_ATTR_FORK, 0, 1, false, &done,
			      f);
	if (err)
		goto out;
	if (done != 1) {
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr fork",
				     "leaf block unmap", ip->byte_off, done);
		goto out;
	}
	if (forkoff == -1) {
		if (!keep_fork)
			fork_remove(ip);
		c->st = keep_fork ? XFSJ_AF_EMPTY : XFSJ_AF_NONE;
		goto out;
	}
	sf_create(c->sf);
	count = xfsj_attr_leaf_count(blk);
	for (uint32_t i = 0; i < count; i++) {
		struct xfsj_attr_arg a = { 0 };

		xfsj_attr_leaf_get_ent(blk, c->bs, i, &e);
		if ((e.flags & XFSJ_ATTR_FLAG_INCOMPLETE) || !e.nameidx)
			continue;
		a.ns = e.flags & XFSJ_ATTR_NS_MASK;
		a.name = e.name;
		a.namelen = e.namelen;
		a.value = e.value;
		a.valuelen = e.valuelen;
		sf_append(c->sf, ip, &a, (uint32_t)forkoff);
	}
	sf_store(c->fs, ip, c->sf);
	c->st = XFSJ_AF_SF;
out:
	free(blk);
	return err;
}

/* Insert into the leaf, then write a remote value. */
static int leaf_addname(struct xfsj_attr_ctx *c, const struct xfsj_attr_arg *a,
			uint32_t hash, struct xfsj_fault *f)
{
	uint8_t *blk = c->leaf->data;
	uint32_t index, lblk;
	bool found, nospc, remote;
	int err;

	xfsj_attr_leaf_lookup(blk, c->bs, a, hash, &index, &found);
	err = xfsj_attr_leaf_add(blk, c->bs, a, hash, index, &nospc, &remote);
	if (err)
		return err;
	leaf_dirty(c);
	if (nospc) {
		err = xfsj_attr_leaf_to_node(c, f);
		if (err)
			return err;
		return xfsj_attr_node_addname(c, a, hash, f);
	}
	if (!remote)
		return 0;
	err = xfsj_attr_rmt_set(c->fs, c->ip, a->value, a->valuelen, &lblk, f);
	if (err)
		return err;
	xfsj_attr_leaf_set_rmt(blk, c->bs, index, lblk, a->valuelen);
	leaf_dirty(c);
	return 0;
}

/* The kernel's xfs_attr_shortform_to_leaf. */
static int sf_to_leaf(struct xfsj_attr_ctx *c, struct xfsj_fault *f)
{
	struct xfsj_iref *ip = c->ip;
	const struct xfsj_sb *sb = xfsj_fs_sb(c->fs);
	uint32_t dfl = default_attroffset(c->fs, ip) >> 3;
	uint32_t off = SF_HDR;
	uint64_t lblk, fsb, daddr;
	int err;

	ip->di.aformat = XFSJ_DINODE_FMT_EXTENTS;
	/* Give the data fork back what the leaf no longer needs inline. */
	if (ip->di.format != XFSJ_DINODE_FMT_DEV &&
	    ip->di.format != XFSJ_DINODE_FMT_BTREE && dfl > ip->di.forkoff)
		ip->di.forkoff = (uint8_t)dfl;
	err = xfsj_bmap_first_unused(c->fs, ip, XFSJ_ATTR_FORK, 1, 0, &lblk, f);
	if (err)
		return err;
	if (lblk != 0)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr fork",
				      "block 0 in use by a short form",
				      ip->byte_off, lblk);
	err = xfsj_bmap_alloc(c->fs, ip, XFSJ_ATTR_FORK, 0, 1, &fsb, f);
	if (err)
		return err;
	daddr = xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
				  xfsj_fsb_agbno(sb, fsb));
	err = xfsj_buf_get_zero(c->fs, daddr, c->bs, &c->leaf);
	if (err)
		return xfsj_fault_set(f, err, "attr leaf", "get", daddr << 9,
				      ip->ino);
	xfsj_attr_leaf_init(c->fs, ip->ino, c->leaf->data, daddr);
	leaf_dirty(c);
	c->st = XFSJ_AF_LEAF;
	for (uint32_t i = 0; i < c->sf->buf[XFSJ_ATTR_SF_OFF_COUNT]; i++) {
		struct xfsj_attr_arg a = { 0 };
		struct sfent e;

		sf_ent(c->sf, off, &e);
		a.ns = e.flags;
		a.name = e.name;
		a.namelen = e.namelen;
		a.value = e.value;
		a.valuelen = e.valuelen;
		err = leaf_addname(c, &a, xfsj_attr_hash(&a), f);
		if (err)
			return err;
		off += e.size;
	}
	return 0;
}

/* ---- the operations ---- */

/* @value: whether the value is used (a set, or a parent pointer). */
static int check_arg(const struct xfsj_attr_arg *a, bool value,
		     struct xfsj_fault *f)
{
	uint8_t ns = a->ns;

	if (!a->name || a->namelen == 0 || a->namelen > 255)
		return xfsj_fault_set(f, XFSJ_E_INVAL, "attr", "namelen", 0,
				      a->namelen);
	/* The value matters to a set and to a parent pointer's match. */
	if ((value || (ns & XFSJ_ATTR_NS_PARENT)) &&
	    (a->valuelen > XFSJ_XATTR_SIZE_MAX || (a->valuelen && !a->value)))
		return xfsj_fault_set(f, XFSJ_E_INVAL, "attr", "valuelen", 0,
				      a->valuelen);
	if ((ns & ~XFSJ_ATTR_NS_MASK) || (ns & (ns - 1)))
		return xfsj_fault_set(f, XFSJ_E_INVAL, "attr", "namespace", 0,
				      ns);
	return 0;
}

int xfsj_attr_ctx_open(struct xfsj_attr_ctx *c, struct xfsj_fs *fs,
		    struct xfsj_iref *ip, struct xfsj_fault *f)
{
	memset(c, 0, sizeof(*c));
	c->fs = fs;
	c->ip = ip;
	c->bs = xfsj_fs_sb(fs)->blocksize;
	if (litino(fs) > sizeof(c->sf->buf))
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, "superblock",
				      "inodesize", 104,
				      xfsj_fs_sb(fs)->inodesize);
	c->sf = malloc(sizeof(*c->sf));
	if (!c->sf)
		return -XFSJ_E_NOMEM;
	return load(c, f);
}

void xfsj_attr_ctx_close(struct xfsj_attr_ctx *c)
{
	free(c->sf);
}

struct where {
	bool found;
	struct sfent se;	/* XFSJ_AF_SF */
	uint32_t index;		/* XFSJ_AF_LEAF */
};

/*
 * In a dabtree, equal hashes may continue in the next leaf: follow the
 * sibling link while they do (as the kernel's path shift does).
 */
static int node_lookup(struct xfsj_attr_ctx *c, const struct xfsj_attr_arg *a,
		       uint32_t hash, struct where *w, struct xfsj_fault *f)
{
	uint64_t max;
	int err = xfsj_attr_chain_max(c, &max, f);

	if (!err)
		err = xfsj_attr_node_descend(c, hash, false, f);
	for (uint64_t n = 0; !err && n < max; n++) {
		uint32_t forw;

		xfsj_attr_leaf_lookup(c->leaf->data, c->bs, a, hash,
				      &w->index, &w->found);
		if (w->found ||
		    w->index < xfsj_attr_leaf_count(c->leaf->data))
			return 0;
		forw = xfsj_get_be32(c->leaf->data);
		if (!forw)
			return 0;
		err = xfsj_attr_leaf_read(c, forw, &c->leaf, f);
		if (!err && (xfsj_attr_leaf_count(c->leaf->data) == 0 ||
			     xfsj_get_be32(c->leaf->data +
					   XFSJ_ATTR3_LEAF_HDR_SIZE) != hash))
			return 0;
	}
	return err ? err : xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr leaf",
					  "forw (loop)", c->ip->byte_off, 0);
}

static int lookup(struct xfsj_attr_ctx *c, const struct xfsj_attr_arg *a,
		  uint32_t hash, struct where *w, struct xfsj_fault *f)
{
	memset(w, 0, sizeof(*w));
	if (c->st == XFSJ_AF_SF)
		w->found = sf_find(c->sf, a, &w->se);
	else if (c->st == XFSJ_AF_LEAF)
		xfsj_attr_leaf_lookup(c->leaf->data, c->bs, a, hash,
				      &w->index, &w->found);
	else if (c->st == XFSJ_AF_NODE)
		return node_lookup(c, a, hash, w, f);
	return 0;
}

/*
 * The kernel's xfs_attr_leaf_shrink after a tree collapsed to one leaf:
 * back to short form if the fork is that one block and all fits.
 */
int xfsj_attr_leaf_shrink(struct xfsj_attr_ctx *c, bool keep_fork,
			  struct xfsj_fault *f)
{
	struct xfsj_bmbt_irec *ext;
	size_t n;
	bool one;
	int forkoff, err;

	err = xfsj_bmap_read(c->fs, c->ip, XFSJ_ATTR_FORK, &ext, &n, f);
	if (err)
		return err;
	one = n == 1 && ext[0].startoff == 0 && ext[0].blockcount == 1;
	free(ext);
	if (!one)
		return 0;
	forkoff = leaf_allfit(c);
	return forkoff ? leaf_to_sf(c, forkoff, keep_fork, f) : 0;
}

static int remove_found(struct xfsj_attr_ctx *c, const struct where *w,
			bool keep_fork, struct xfsj_fault *f)
{
	struct xfsj_attr_lent e;
	int forkoff, err;

	if (c->st == XFSJ_AF_SF) {
		sf_removename(c->fs, c->ip, c->sf, &w->se, keep_fork);
		c->st = c->ip->di.forkoff ? XFSJ_AF_SF : XFSJ_AF_NONE;
		return 0;
	}
	xfsj_attr_leaf_get_ent(c->leaf->data, c->bs, w->index, &e);
	if (!(e.flags & XFSJ_ATTR_FLAG_LOCAL) && e.valueblk) {
		err = xfsj_attr_rmt_remove(c->fs, c->ip, e.valueblk,
					   e.valuelen, f);
		if (err)
			return err;
	}
	xfsj_attr_leaf_remove(c->leaf->data, c->bs, w->index);
	leaf_dirty(c);
	forkoff = leaf_allfit(c);
	if (forkoff)
		return leaf_to_sf(c, forkoff, keep_fork, f);
	return 0;
}

/*
 * The kernel's short-form add stamps the inode's change time, in log
 * recovery too: a recovered ATTRI whose name lands in short form leaves
 * the time it was finished, not the logged one.  The other forms do not
 * (their change time is set by the system call, which recovery skips).
 */
static void stamp_change(struct xfsj_fs *fs, struct xfsj_iref *ip)
{
	int64_t sec;
	uint32_t nsec;

	xfsj_fs_now(fs, &sec, &nsec);
	ip->di.ctime = xfsj_time_encode(sec, nsec,
					ip->di.flags2 & XFSJ_DIFLAG2_BIGTIME);
}

static int add(struct xfsj_attr_ctx *c, const struct xfsj_attr_arg *a,
	       uint32_t hash, struct xfsj_fault *f)
{
	int err;

	if (c->st == XFSJ_AF_NONE) {
		/* The kernel sizes the fork with 8-bit lengths here. */
		err = add_fork(c->fs, c->ip, SF_HDR + SF_ENT +
				(uint8_t)a->namelen + (uint8_t)a->valuelen, f);
		if (err)
			return err;
		c->st = XFSJ_AF_EMPTY;
	}
	if (c->st == XFSJ_AF_EMPTY) {
		sf_create(c->sf);
		c->st = XFSJ_AF_SF;
	}
	if (c->st == XFSJ_AF_SF) {
		if (sf_addname(c->fs, c->ip, c->sf, a) == 0) {
			if (a->recovery)
				stamp_change(c->fs, c->ip);
			return 0;
		}
		err = sf_to_leaf(c, f);
		if (err)
			return err;
	}
	if (c->st == XFSJ_AF_NODE)
		return xfsj_attr_node_addname(c, a, hash, f);
	return leaf_addname(c, a, hash, f);
}

/* Find @a; if there, remove it keeping the fork (a replace's first half). */
static int find_remove(struct xfsj_attr_ctx *c, const struct xfsj_attr_arg *a,
		       uint32_t hash, bool keep_fork, bool *found,
		       struct xfsj_fault *f)
{
	struct xfsj_attr_npath np;
	struct where w;
	int err;

	if (c->st == XFSJ_AF_NODE) {
		err = xfsj_attr_npath_lookup(c, a, hash, &np, f);
		*found = !err && np.found;
		if (!*found)
			return err;
		return xfsj_attr_node_removename(c, &np, keep_fork, f);
	}
	lookup(c, a, hash, &w, f);
	*found = w.found;
	return w.found ? remove_found(c, &w, keep_fork, f) : 0;
}

int xfsj_attr_set(struct xfsj_fs *fs, struct xfsj_iref *ip,
		  const struct xfsj_attr_arg *a, enum xfsj_attr_how how,
		  struct xfsj_fault *f)
{
	struct xfsj_attr_ctx c;
	struct xfsj_attr_npath np;
	struct where w;
	uint32_t hash;
	bool found;
	int err;

	err = check_arg(a, true, f);
	if (err)
		return err;
	hash = xfsj_attr_hash(a);
	err = xfsj_attr_ctx_open(&c, fs, ip, f);
	if (err)
		goto out;
	/* CREATE and REPLACE look first and change nothing on refusal. */
	if (how != XFSJ_ATTR_UPSERT) {
		if (c.st == XFSJ_AF_NODE) {
			err = xfsj_attr_npath_lookup(&c, a, hash, &np, f);
			found = np.found;
		} else {
			lookup(&c, a, hash, &w, f);
			found = w.found;
		}
		if (err)
			goto out;
		if (found && how == XFSJ_ATTR_CREATE) {
			err = xfsj_fault_set(f, XFSJ_E_EXISTS, "attr",
					     "name exists", ip->byte_off,
					     ip->ino);
			goto out;
		}
		if (!found && how == XFSJ_ATTR_REPLACE) {
			err = xfsj_fault_set(f, XFSJ_E_RANGE, "attr",
					     "no such name to replace",
					     ip->byte_off, ip->ino);
			goto out;
		}
	}
	err = find_remove(&c, a, hash, true, &found, f);
	if (!err)
		err = add(&c, a, hash, f);
out:
	xfsj_attr_ctx_close(&c);
	return err;
}

int xfsj_attr_replace(struct xfsj_fs *fs, struct xfsj_iref *ip,
		      const struct xfsj_attr_arg *old,
		      const struct xfsj_attr_arg *new, bool *found,
		      struct xfsj_fault *f)
{
	struct xfsj_attr_ctx c;
	uint32_t hash;
	bool dup;
	int err;

	*found = false;
	err = check_arg(old, false, f);
	if (!err)
		err = check_arg(new, true, f);
	if (err)
		return err;
	hash = xfsj_attr_hash(new);
	err = xfsj_attr_ctx_open(&c, fs, ip, f);
	if (!err)
		err = find_remove(&c, old, xfsj_attr_hash(old), true, found, f);
	/* A new name already there is replaced in its turn. */
	if (!err)
		err = find_remove(&c, new, hash, true, &dup, f);
	if (!err)
		err = add(&c, new, hash, f);
	xfsj_attr_ctx_close(&c);
	return err;
}

int xfsj_attr_remove(struct xfsj_fs *fs, struct xfsj_iref *ip,
		     const struct xfsj_attr_arg *a, bool *found,
		     struct xfsj_fault *f)
{
	struct xfsj_attr_ctx c;
	struct where w;
	struct xfsj_attr_npath np;
	int err;

	*found = false;
	err = check_arg(a, false, f);
	if (err)
		return err;
	err = xfsj_attr_ctx_open(&c, fs, ip, f);
	if (err)
		goto out;
	if (c.st == XFSJ_AF_NODE) {
		err = xfsj_attr_npath_lookup(&c, a, xfsj_attr_hash(a), &np, f);
		*found = !err && np.found;
		if (*found)
			err = xfsj_attr_node_removename(&c, &np, false, f);
		goto out;
	}
	lookup(&c, a, xfsj_attr_hash(a), &w, f);
	*found = w.found;
	if (w.found)
		err = remove_found(&c, &w, false, f);
out:
	xfsj_attr_ctx_close(&c);
	return err;
}

static int leaf_value(struct xfsj_attr_ctx *c, const struct xfsj_attr_lent *e,
		      uint8_t **tmp, const uint8_t **val,
		      struct xfsj_fault *f)
{
	*tmp = NULL;
	*val = e->value;
	if (e->flags & XFSJ_ATTR_FLAG_LOCAL)
		return 0;
	*tmp = malloc(e->valuelen ? e->valuelen : 1);
	if (!*tmp)
		return -XFSJ_E_NOMEM;
	*val = *tmp;
	return xfsj_attr_rmt_get(c->fs, c->ip, e->valueblk, *tmp, e->valuelen,
				 f);
}

int xfsj_attr_get(struct xfsj_fs *fs, struct xfsj_iref *ip,
		  const struct xfsj_attr_arg *a, uint8_t *val, uint32_t *vlen,
		  bool *found, struct xfsj_fault *f)
{
	struct xfsj_attr_lent e;
	const uint8_t *v = NULL;
	uint8_t *tmp = NULL;
	uint32_t len = 0;
	struct xfsj_attr_ctx c;
	struct where w;
	int err;

	*found = false;
	err = check_arg(a, false, f);
	if (err)
		return err;
	err = xfsj_attr_ctx_open(&c, fs, ip, f);
	if (err)
		goto out;
	err = lookup(&c, a, xfsj_attr_hash(a), &w, f);
	if (err || !w.found)
		goto out;
	*found = true;
	if (c.st == XFSJ_AF_SF) {
		v = w.se.value;
		len = w.se.valuelen;
	} else {
		xfsj_attr_leaf_get_ent(c.leaf->data, c.bs, w.index, &e);
		len = e.valuelen;
		if (val && *vlen >= len) {
			err = leaf_value(&c, &e, &tmp, &v, f);
			if (err)
				goto out;
		}
	}
	if (val && *vlen >= len && len)
		memcpy(val, v, len);
	*vlen = len;
out:
	free(tmp);
	xfsj_attr_ctx_close(&c);
	return err;
}

static int list_leaf(struct xfsj_attr_ctx *c, xfsj_attr_fn fn, void *arg,
		     struct xfsj_fault *f)
{
	uint32_t count = xfsj_attr_leaf_count(c->leaf->data);
	struct xfsj_attr_arg a = { 0 };
	int err = 0;

	for (uint32_t i = 0; i < count && !err; i++) {
		struct xfsj_attr_lent e;
		uint8_t *tmp;

		xfsj_attr_leaf_get_ent(c->leaf->data, c->bs, i, &e);
		/* Half-made entries are not attributes yet. */
		if (e.flags & XFSJ_ATTR_FLAG_INCOMPLETE)
			continue;
		a.ns = e.flags & XFSJ_ATTR_NS_MASK;
		a.name = e.name;
		a.namelen = e.namelen;
		a.valuelen = e.valuelen;
		err = leaf_value(c, &e, &tmp, &a.value, f);
		if (!err)
			err = fn(arg, &a);
		free(tmp);
	}
	return err;
}

int xfsj_attr_list(struct xfsj_fs *fs, struct xfsj_iref *ip, xfsj_attr_fn fn,
		   void *arg, struct xfsj_fault *f)
{
	struct xfsj_attr_arg a = { 0 };
	struct xfsj_attr_ctx c;
	int err;

	err = xfsj_attr_ctx_open(&c, fs, ip, f);
	if (err)
		goto out;
	if (c.st == XFSJ_AF_SF) {
		uint32_t off = SF_HDR;
		uint32_t n = c.sf->buf[XFSJ_ATTR_SF_OFF_COUNT];

		for (uint32_t i = 0; i < n && !err; i++) {
			struct sfent e;

			sf_ent(c.sf, off, &e);
			a.ns = e.flags;
			a.name = e.name;
			a.namelen = e.namelen;
			a.value = e.value;
			a.valuelen = e.valuelen;
			err = fn(arg, &a);
			off += e.size;
		}
	} else if (c.st == XFSJ_AF_LEAF || c.st == XFSJ_AF_NODE) {
		uint64_t max = 1;

		if (c.st == XFSJ_AF_NODE) {
			err = xfsj_attr_chain_max(&c, &max, f);
			if (!err)
				err = xfsj_attr_node_descend(&c, 0, true, f);
		}
		for (uint64_t n = 0; !err; n++) {
			uint32_t forw = xfsj_get_be32(c.leaf->data);

			err = list_leaf(&c, fn, arg, f);
			if (err || c.st == XFSJ_AF_LEAF || !forw)
				break;
			if (n >= max) {
				err = xfsj_fault_set(f, XFSJ_E_CORRUPT,
						     "attr leaf", "forw (loop)",
						     c.leaf->daddr << 9, forw);
				break;
			}
			err = xfsj_attr_leaf_read(&c, forw, &c.leaf, f);
		}
	}
out:
	xfsj_attr_ctx_close(&c);
	return err;
}
