/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The directory writer: a directory rewritten from scratch around a list
 * of entries, in the smallest format that holds them.
 *
 * - Short form, in the inode's literal area, when the encoded entries fit
 *   the data fork and would fit one block too (the checker's rule: the
 *   kernel turns a short form into a block before it outgrows one).
 * - Block format otherwise: one directory block holding the header, "."
 *   and "..", the entries, one unused region, the leaf entries sorted by
 *   hash and the tail.
 *
 * The old blocks leave the fork first (freed through the deferred work,
 * or only unmapped when the caller says the free space cannot be
 * trusted: the AG stage's rebuild reclaims them); the new block comes
 * from xfsj_bmap_alloc.  The flush stamps the CRC and LSN.
 */
#include <stdlib.h>
#include <string.h>

#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/defer.h"
#include "fs/attr.h"
#include "fs/iget.h"
#include "ondisk/dir_block.h"
#include "ondisk/meta.h"
#include "repair/repair_priv.h"

/* "." and ".." in a v5 block: 16 bytes each with or without ftype. */
#define DOT_BYTES(ft)	(2 * xfsj_dir2_data_entsize(2, (ft)))

static int unmap_data(struct xfsj_fs *fs, struct xfsj_iref *ip,
		      bool keep_blocks, struct xfsj_fault *f)
{
	struct xfsj_bmbt_irec *ext = NULL;
	size_t n = 0;
	uint64_t done;
	int err;

	if (ip->di.format != XFSJ_DINODE_FMT_EXTENTS &&
	    ip->di.format != XFSJ_DINODE_FMT_BTREE)
		return 0;
	err = xfsj_bmap_read(fs, ip, XFSJ_DATA_FORK, &ext, &n, f);
	for (size_t i = n; !err && i-- > 0;)
		err = xfsj_bmap_unmap(fs, ip, XFSJ_DATA_FORK, ext[i].startoff,
				      ext[i].blockcount, keep_blocks, &done, f);
	free(ext);
	return err;
}

/* Bytes the data area needs for @n entries (without "." and ".."). */
static uint32_t data_bytes(const struct xfsj_dirent *ents, size_t n,
			   bool ftype)
{
	uint32_t sz = 0;

	for (size_t i = 0; i < n; i++)
		sz += xfsj_dir2_data_entsize(ents[i].namelen, ftype);
	return sz;
}

static uint32_t put_entry(uint8_t *b, uint32_t off, uint64_t ino,
			  const uint8_t *name, uint8_t namelen, uint8_t ftype,
			  bool has_ftype)
{
	uint32_t len = xfsj_dir2_data_entsize(namelen, has_ftype);

	xfsj_put_be64(b + off, ino);
	b[off + 8] = namelen;
	memcpy(b + off + 9, name, namelen);
	if (has_ftype)
		b[off + 9 + namelen] = ftype;
	xfsj_put_be16(b + off + len - 2, (uint16_t)off);
	return len;
}

static int lent_cmp(const void *a, const void *b)
{
	const struct xfsj_dir2_leaf_ent *x = a, *y = b;

	if (x->hashval != y->hashval)
		return x->hashval < y->hashval ? -1 : 1;
	return x->address < y->address ? -1 : x->address > y->address;
}

/* Fill the single block @b of @bs bytes (zeroed). */
static int build_block(const struct xfsj_sb *sb, uint8_t *b, uint32_t bs,
		       uint64_t daddr, uint64_t dir, uint64_t parent,
		       const struct xfsj_dirent *ents, size_t n, bool ftype)
{
	uint32_t nl = (uint32_t)n + 2;
	uint32_t leaf = bs - XFSJ_DIR2_BLOCK_TAIL - nl * XFSJ_DIR2_LEAF_ENT_SIZE;
	struct xfsj_dir2_leaf_ent *le = calloc(nl, sizeof(*le));
	uint32_t off = XFSJ_DIR3_HDR_SIZE;
	struct xfsj_dir3_hdr h = { .magic = XFSJ_DIR3_BLOCK_MAGIC,
				   .blkno = daddr, .owner = dir, .crc_off = 4 };

	if (!le)
		return -XFSJ_E_NOMEM;
	memcpy(h.uuid, xfsj_meta_fs_uuid(sb), sizeof(h.uuid));
	xfsj_dir3_hdr_encode(b, &h);
	le[0] = (struct xfsj_dir2_leaf_ent){ xfsj_da_hashname((const uint8_t *)".", 1), off >> 3 };
	off += put_entry(b, off, dir, (const uint8_t *)".", 1, XFSJ_FT_DIR,
			 ftype);
	le[1] = (struct xfsj_dir2_leaf_ent){ xfsj_da_hashname((const uint8_t *)"..", 2), off >> 3 };
	off += put_entry(b, off, parent, (const uint8_t *)"..", 2, XFSJ_FT_DIR,
			 ftype);
	for (size_t i = 0; i < n; i++) {
		le[i + 2].hashval = xfsj_da_hashname(
			(const uint8_t *)ents[i].name, ents[i].namelen);
		le[i + 2].address = off >> 3;
		off += put_entry(b, off, ents[i].ino,
				 (const uint8_t *)ents[i].name,
				 ents[i].namelen, ents[i].ftype, ftype);
	}
	if (off < leaf) {
		/* One unused region up to the leaf entries: bestfree[0]. */
		xfsj_put_be16(b + off, XFSJ_DIR2_FREE_TAG);
		xfsj_put_be16(b + off + 2, (uint16_t)(leaf - off));
		xfsj_put_be16(b + leaf - 2, (uint16_t)off);
		xfsj_put_be16(b + 48, (uint16_t)off);
		xfsj_put_be16(b + 50, (uint16_t)(leaf - off));
	}
	qsort(le, nl, sizeof(*le), lent_cmp);
	for (uint32_t i = 0; i < nl; i++) {
		xfsj_put_be32(b + leaf + 8 * i, le[i].hashval);
		xfsj_put_be32(b + leaf + 8 * i + 4, le[i].address);
	}
	xfsj_put_be32(b + bs - 8, nl);
	xfsj_put_be32(b + bs - 4, 0);
	free(le);
	return 0;
}

bool xrp_dir_fits_block(const struct xfsj_sb *sb,
			const struct xfsj_dirent *ents, size_t n)
{
	bool ftype = (sb->features_incompat & XFSJ_INCOMPAT_FTYPE) != 0;
	uint64_t bs = (uint64_t)sb->blocksize << sb->dirblklog;

	return XFSJ_DIR3_HDR_SIZE + DOT_BYTES(ftype) +
	       data_bytes(ents, n, ftype) +
	       (n + 2) * XFSJ_DIR2_LEAF_ENT_SIZE + XFSJ_DIR2_BLOCK_TAIL <= bs;
}

static int write_block(struct xfsj_fs *fs, struct xfsj_iref *ip,
		       uint64_t parent, const struct xfsj_dirent *ents,
		       size_t n, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	bool ftype = (sb->features_incompat & XFSJ_INCOMPAT_FTYPE) != 0;
	uint32_t fsbs = 1U << sb->dirblklog;
	uint32_t bs = sb->blocksize << sb->dirblklog;
	struct xfsj_buf *bp;
	uint64_t fsb, daddr;
	int err;

	err = xfsj_bmap_alloc(fs, ip, XFSJ_DATA_FORK, 0, fsbs, &fsb, f);
	if (err)
		return err;
	daddr = xfsj_fsb_daddr(sb, fsb);
	err = xfsj_buf_get_zero(fs, daddr, bs, &bp);
	if (err)
		return xfsj_fault_set(f, err, "directory block", "get",
				      daddr << 9, ip->ino);
	memset(bp->data, 0, bs);
	err = build_block(sb, bp->data, bs, daddr, ip->ino, parent, ents, n,
			  ftype);
	if (err)
		return err;
	xfsj_buf_dirty(bp);
	ip->di.size = bs;
	return 0;
}

int xrp_dir_write(struct xfsj_fs *fs, uint64_t dir, uint64_t parent,
		  const struct xfsj_dirent *ents, size_t n, bool keep_blocks,
		  struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	bool ftype = (sb->features_incompat & XFSJ_INCOMPAT_FTYPE) != 0;
	struct xfsj_iref ip;
	uint32_t forksize;
	uint8_t *fork;
	size_t sfsize;
	int err;

	if (!xrp_dir_fits_block(sb, ents, n))
		return xfsj_fault_set(f, XFSJ_E_NOSPC, "directory", "entries",
				      dir, n);
	err = xfsj_iget(fs, dir, true, &ip, f);
	if (err)
		return err;
	err = unmap_data(fs, &ip, keep_blocks, f);
	if (err)
		return err;
	xfsj_iput(fs, &ip, true);
	err = xfsj_defer_finish(fs, f);
	if (err)
		return err;
	err = xfsj_iget(fs, dir, true, &ip, f);
	if (err)
		return err;
	fork = xfsj_ifork(fs, &ip, XFSJ_DATA_FORK, &forksize);
	sfsize = xfsj_dir_sf_size(parent, ents, (unsigned int)n, ftype);
	memset(fork, 0, forksize);
	if (n <= 255 && sfsize <= forksize) {
		int len = xfsj_dir_sf_encode(parent, ents, (unsigned int)n,
					     ftype, fork, forksize);

		if (len < 0)
			return xfsj_fault_set(f, -len, "directory",
					      "short form", dir, n);
		ip.di.format = XFSJ_DINODE_FMT_LOCAL;
		ip.di.size = (uint64_t)len;
		xfsj_iput(fs, &ip, true);
		return 0;
	}
	ip.di.format = XFSJ_DINODE_FMT_EXTENTS;
	err = write_block(fs, &ip, parent, ents, n, f);
	xfsj_iput(fs, &ip, true);
	if (err)
		return err;
	return xfsj_defer_finish(fs, f);
}
