/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The filesystem handle and its buffer cache (see fs.h).
 *
 * The cache is a chained hash on the disk address.  Buffers are never
 * evicted: the work that runs through this layer after a replay touches
 * a few thousand blocks at most, and keeping them makes every pointer a
 * caller holds stay valid until the handle is closed.
 */
#include <stdlib.h>
#include <string.h>

#include "core/crc32c.h"
#include "xfsj/fs.h"
#include "ondisk/meta.h"

struct bufent {
	struct xfsj_buf b;
	struct bufent *next;	/* hash chain */
	struct bufent *all;	/* every buffer, newest first */
	bool forgotten;
};

struct xfsj_fs {
	struct xfsj_overlay *ov;
	struct xfsj_sb sb;
	uint64_t lsn;
	struct bufent **hash;
	size_t nhash, nbuf;
	struct bufent *all;
	struct xfsj_defer_q *defer;
};

int xfsj_fs_open(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
		 uint64_t lsn, struct xfsj_fs **out)
{
	struct xfsj_fs *fs = calloc(1, sizeof(*fs));

	if (!fs)
		return -XFSJ_E_NOMEM;
	fs->nhash = 4096;
	fs->hash = calloc(fs->nhash, sizeof(*fs->hash));
	if (!fs->hash) {
		free(fs);
		return -XFSJ_E_NOMEM;
	}
	fs->ov = ov;
	fs->sb = *sb;
	fs->lsn = lsn;
	*out = fs;
	return 0;
}

void xfsj_fs_close(struct xfsj_fs *fs)
{
	if (!fs)
		return;
	for (struct bufent *e = fs->all, *n; e; e = n) {
		n = e->all;
		free(e->b.data);
		free(e);
	}
	free(fs->hash);
	xfsj_defer_q_free(fs->defer);
	free(fs);
}

struct xfsj_defer_q **xfsj_fs_defer_q(struct xfsj_fs *fs)
{
	return &fs->defer;
}

const struct xfsj_sb *xfsj_fs_sb(const struct xfsj_fs *fs)
{
	return &fs->sb;
}

uint64_t xfsj_fs_lsn(const struct xfsj_fs *fs)
{
	return fs->lsn;
}

struct xfsj_overlay *xfsj_fs_overlay(struct xfsj_fs *fs)
{
	return fs->ov;
}

uint32_t xfsj_fs_ag_blocks(const struct xfsj_fs *fs, uint32_t agno)
{
	const struct xfsj_sb *sb = &fs->sb;

	if (agno + 1 < sb->agcount)
		return sb->agblocks;
	return (uint32_t)(sb->dblocks - (uint64_t)agno * sb->agblocks);
}

void xfsj_fs_vctx(const struct xfsj_fs *fs, uint32_t agno,
		  struct xfsj_vctx *c)
{
	const struct xfsj_sb *sb = &fs->sb;

	memset(c, 0, sizeof(*c));
	/* Metadata carries the meta_uuid when the user changed the uuid. */
	if (sb->features_incompat & XFSJ_INCOMPAT_META_UUID)
		memcpy(c->uuid, sb->meta_uuid, 16);
	else
		memcpy(c->uuid, sb->uuid, 16);
	c->sectsize = sb->sectsize;
	c->blocksize = sb->blocksize;
	c->inodesize = sb->inodesize;
	c->agblocks = xfsj_fs_ag_blocks(fs, agno);
	c->agno = agno;
	c->features_ro_compat = sb->features_ro_compat;
	c->features_incompat = sb->features_incompat;
}

bool xfsj_fs_has(const struct xfsj_fs *fs, uint32_t ro_compat_bit)
{
	return (fs->sb.features_ro_compat & ro_compat_bit) != 0;
}

bool xfsj_fs_has_incompat(const struct xfsj_fs *fs, uint32_t incompat_bit)
{
	return (fs->sb.features_incompat & incompat_bit) != 0;
}

/* ---- the cache ---- */

static size_t slot(const struct xfsj_fs *fs, uint64_t daddr)
{
	return (size_t)((daddr * 0x9e3779b97f4a7c15ULL) >> 20) % fs->nhash;
}

static int grow(struct xfsj_fs *fs)
{
	size_t n = fs->nhash * 4;
	struct bufent **h = calloc(n, sizeof(*h));

	if (!h)
		return -XFSJ_E_NOMEM;
	free(fs->hash);
	fs->hash = h;
	fs->nhash = n;
	for (struct bufent *e = fs->all; e; e = e->all) {
		size_t s;

		if (e->forgotten)
			continue;
		s = slot(fs, e->b.daddr);
		e->next = h[s];
		h[s] = e;
	}
	return 0;
}

static struct bufent *lookup(struct xfsj_fs *fs, uint64_t daddr)
{
	for (struct bufent *e = fs->hash[slot(fs, daddr)]; e; e = e->next)
		if (e->b.daddr == daddr)
			return e;
	return NULL;
}

static int get(struct xfsj_fs *fs, uint64_t daddr, uint32_t len, bool read,
	       struct xfsj_buf **bp)
{
	struct bufent *e = lookup(fs, daddr);
	size_t s;
	int err;

	if (e) {
		if (e->b.len != len)
			return -XFSJ_E_INVAL;
		if (!read) {
			memset(e->b.data, 0, len);
			e->b.dirty = true;
		}
		*bp = &e->b;
		return 0;
	}
	if (!len || len > (64U << 20))
		return -XFSJ_E_INVAL;
	if (fs->nbuf >= fs->nhash * 2 && (err = grow(fs)))
		return err;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -XFSJ_E_NOMEM;
	e->b.data = read ? malloc(len) : calloc(1, len);
	if (!e->b.data) {
		free(e);
		return -XFSJ_E_NOMEM;
	}
	e->b.daddr = daddr;
	e->b.len = len;
	if (read) {
		err = xfsj_overlay_read(fs->ov, e->b.data, len, daddr << 9);
		if (err) {
			free(e->b.data);
			free(e);
			return err;
		}
	} else {
		e->b.dirty = true;
	}
	s = slot(fs, daddr);
	e->next = fs->hash[s];
	fs->hash[s] = e;
	e->all = fs->all;
	fs->all = e;
	fs->nbuf++;
	*bp = &e->b;
	return 0;
}

int xfsj_buf_read(struct xfsj_fs *fs, uint64_t daddr, uint32_t len,
		  struct xfsj_buf **bp)
{
	return get(fs, daddr, len, true, bp);
}

int xfsj_buf_get_zero(struct xfsj_fs *fs, uint64_t daddr, uint32_t len,
		      struct xfsj_buf **bp)
{
	return get(fs, daddr, len, false, bp);
}

void xfsj_buf_forget(struct xfsj_fs *fs, struct xfsj_buf *bp)
{
	struct bufent *e = (struct bufent *)bp;	/* b is the first member */
	struct bufent **pp = &fs->hash[slot(fs, bp->daddr)];

	for (; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	}
	e->forgotten = true;
	e->b.dirty = false;
}

int xfsj_fs_flush(struct xfsj_fs *fs, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = &fs->sb;

	/*
	 * Oldest first, so that when two cached buffers overlap (they should
	 * not, but a hostile filesystem can make them) the later one wins
	 * deterministically.
	 */
	size_t n = 0, i = 0;
	struct bufent **v;

	for (struct bufent *e = fs->all; e; e = e->all)
		n++;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return -XFSJ_E_NOMEM;
	for (struct bufent *e = fs->all; e; e = e->all)
		v[n - ++i] = e;
	for (i = 0; i < n; i++) {
		struct bufent *e = v[i];
		int err;

		if (!e->b.dirty || e->forgotten)
			continue;
		xfsj_meta_stamp(e->b.data, e->b.len, fs->lsn, sb->sectsize,
				sb->blocksize, sb->inodesize);
		err = xfsj_overlay_write(fs->ov, e->b.data, e->b.len,
					 e->b.daddr << 9);
		if (err) {
			free(v);
			return xfsj_fault_set(f, err, "buffer", "write",
					      e->b.daddr << 9, e->b.len);
		}
		e->b.dirty = false;
	}
	free(v);
	return 0;
}

/* ---- AG headers ---- */

typedef int (*verify_fn)(const void *buf, const struct xfsj_vctx *c,
			 uint64_t byte_off, struct xfsj_fault *f);

static int ag_header(struct xfsj_fs *fs, uint32_t agno, unsigned int sect,
		     verify_fn verify, struct xfsj_buf **bp,
		     struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = &fs->sb;
	uint64_t daddr = xfsj_agb_to_daddr(sb, agno, 0) +
			 ((uint64_t)sect * sb->sectsize >> 9);
	struct xfsj_vctx c;
	bool cached = lookup(fs, daddr) != NULL;
	int err;

	if (agno >= sb->agcount)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "AG header", "agno",
				      daddr << 9, agno);
	err = xfsj_buf_read(fs, daddr, sb->sectsize, bp);
	if (err)
		return xfsj_fault_set(f, err, "AG header", "read", daddr << 9,
				      sb->sectsize);
	if (cached)
		return 0;
	xfsj_fs_vctx(fs, agno, &c);
	/* The CRC is only checked on the way in: callers change the buffer. */
	err = verify((*bp)->data, &c, daddr << 9, f);
	if (err)
		xfsj_buf_forget(fs, *bp);
	return err;
}

int xfsj_agf_read(struct xfsj_fs *fs, uint32_t agno, struct xfsj_buf **bp,
		  struct xfsj_fault *f)
{
	return ag_header(fs, agno, 1, xfsj_agf_verify, bp, f);
}

int xfsj_agi_read(struct xfsj_fs *fs, uint32_t agno, struct xfsj_buf **bp,
		  struct xfsj_fault *f)
{
	return ag_header(fs, agno, 2, xfsj_agi_verify, bp, f);
}

int xfsj_agfl_read(struct xfsj_fs *fs, uint32_t agno, struct xfsj_buf **bp,
		   struct xfsj_fault *f)
{
	return ag_header(fs, agno, 3, xfsj_agfl_verify, bp, f);
}
