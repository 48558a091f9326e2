/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The clean log written after a replay, and the redo file that makes
 * committing a replay restartable.
 *
 * Redo file layout (little-endian): header {magic "XFSJREDO", u32 version,
 * u32 pad, u64 pages, u64 device size, uuid[16]}, then per page {u64
 * offset, u32 crc32c of the data, u32 pad, u32 crc32c of each 512-byte
 * sector's old contents[8] (version 2 only), data[4096]}, then a trailer
 * {magic "XFSJDONE", u32 crc32c over every entry from its page crc on
 * (version 1: over the page crcs)}.  The trailer is the commit point:
 * without it the file was never finished and the device was never
 * touched.
 *
 * The old contents tie the file to the device as it was: a run killed
 * while copying leaves every sector it writes either old or new (sectors
 * are written whole), so a sector that is neither means the file was
 * made for another device (a copy of the same filesystem, which shares
 * the uuid and size) or the device changed since, and it is not applied.
 *
 * The file is read and written through struct xfsj_io, so that tests can
 * put it (and the device) under the fault backend; the path functions
 * open it as a Unix file and remove it with unlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/crc32c.h"
#include "ondisk/log.h"
#include "xfsj/redo.h"
#include "xfsj/undo.h"
#include "recover/redo_file.h"

#define REDO_MAGIC	"XFSJREDO"
#define REDO_DONE	"XFSJDONE"
#define REDO_HDR	48
#define REDO_VERSION	2
#define SECTORS		(XFSJ_OVL_PAGE / XFSJ_BBSIZE)
#define ENT_V1		16
#define ENT_V2		(16 + 4 * SECTORS)

/* Write @n BBs of @rec at log block @blk, wrapping and bumping the cycle. */
static int put_wrapped(struct xfsj_overlay *ov, uint64_t base, uint32_t logbb,
		       uint32_t blk, uint8_t *rec, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t b = (blk + i) % logbb;
		uint8_t *bb = rec + (size_t)i * XFSJ_BBSIZE;
		int err;

		if (blk + i >= logbb && xfsj_get_be32(bb) != XFSJ_LOG_MAGIC)
			xfsj_put_be32(bb, xfsj_get_be32(bb) + 1);
		else if (blk + i >= logbb)
			xfsj_put_be32(bb + 4, xfsj_get_be32(bb + 4) + 1);
		err = xfsj_overlay_write(ov, bb, XFSJ_BBSIZE,
					 base + (uint64_t)b * XFSJ_BBSIZE);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Header-only blocks at the @n log blocks from @from (which may be counted
 * past the log's end), of @cycle and of the next one past the end.
 */
static int put_cleared(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
		       uint64_t base, uint32_t logbb, uint32_t from, uint32_t n,
		       uint32_t cycle, uint64_t tail)
{
	uint8_t hdr[XFSJ_BBSIZE];

	for (uint32_t i = 0; i < n; i++) {
		uint64_t b = (uint64_t)from + i;
		uint32_t c = b >= logbb ? cycle + 1 : cycle;
		struct xfsj_logrec h;
		int err;

		b %= logbb;
		memset(&h, 0, sizeof(h));
		memset(hdr, 0, sizeof(hdr));
		h.magicno = XFSJ_LOG_MAGIC;
		h.cycle = c;
		h.version = XFSJ_LOG_VERSION_2;
		h.lsn = xfsj_lsn(c, (uint32_t)b);
		h.tail_lsn = tail;
		h.fmt = XFSJ_LOG_FMT_LINUX_LE;
		memcpy(h.fs_uuid, sb->uuid, 16);
		xfsj_logrec_encode(&h, hdr);
		err = xfsj_overlay_write(ov, hdr, sizeof(hdr),
					 base + b * XFSJ_BBSIZE);
		if (err)
			return err;
	}
	return 0;
}

static uint32_t log_bbs(const struct xfsj_sb *sb)
{
	return sb->logblocks << (sb->blocklog - XFSJ_BBSHIFT);
}

int xfsj_log_write_clean(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
			 uint64_t base, uint32_t head_blk, uint32_t cycle,
			 struct xfsj_fault *f)
{
	uint32_t lss = (sb->versionnum & XFSJ_SB_VERSION_SECTORBIT) ?
		       sb->logsectsize : 0;
	uint32_t size = xfsj_log_unmount_record_size(sb->logsunit, lss);
	uint32_t logbb = log_bbs(sb);
	uint32_t nbb = size / XFSJ_BBSIZE, nclear;
	uint64_t tail = xfsj_lsn(cycle, head_blk);
	bool wraps = head_blk + nbb > logbb;
	uint8_t *rec;
	int err;

	if (head_blk >= logbb || nbb >= logbb)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "log", "head", head_blk,
				      logbb);
	rec = malloc(size);
	if (!rec)
		return -XFSJ_E_NOMEM;
	/* A wrapping record changes bytes after the CRC: leave it 0. */
	err = xfsj_log_build_unmount_record(rec, sb->logsunit, lss, sb->uuid,
					    cycle, head_blk, tail, !wraps);
	if (!err)
		err = put_wrapped(ov, base, logbb, head_blk, rec, nbb);
	free(rec);
	if (err)
		return err;

	/* Header-only blocks after it, of the previous pass. */
	nclear = logbb - nbb < 4096 ? logbb - nbb : 4096;
	return put_cleared(ov, sb, base, logbb, head_blk + nbb, nclear,
			   cycle - 1, tail);
}

int xfsj_log_restamp(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
		     uint64_t base, uint32_t from, uint32_t n, uint32_t cycle,
		     uint32_t head_blk, uint32_t head_cycle,
		     struct xfsj_fault *f)
{
	uint32_t logbb = log_bbs(sb);

	if (from >= logbb || n >= logbb)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "log", "block", from,
				      logbb);
	return put_cleared(ov, sb, base, logbb, from, n, cycle,
			   xfsj_lsn(head_cycle, head_blk));
}

/*
 * Sequential writes through a 1 MiB buffer (a redo file of a big replay
 * holds hundreds of MiB; one write per page would be slow on a file).
 */
#define WBUF	(1U << 20)

struct wbuf {
	struct xfsj_io *io;
	uint64_t off;		/* file offset of buf[0] */
	size_t n;
	uint8_t *buf;
};

static int wflush(struct wbuf *w)
{
	int err = w->n ? xfsj_pwrite(w->io, w->buf, w->n, w->off) : 0;

	w->off += w->n;
	w->n = 0;
	return err;
}

static int wput(struct wbuf *w, const void *p, size_t len)
{
	const uint8_t *src = p;

	while (len) {
		size_t n = WBUF - w->n < len ? WBUF - w->n : len;
		int err;

		memcpy(w->buf + w->n, src, n);
		w->n += n;
		src += n;
		len -= n;
		if (w->n == WBUF && (err = wflush(w)) != 0)
			return err;
	}
	return 0;
}

struct save_ctx {
	struct wbuf w;
	struct xfsj_io *dev;
	uint8_t *old;		/* a page of the device's old contents */
	uint32_t crc;
	uint64_t done, total;
	const struct xfsj_redo_cb *cb;
};

/* How many bytes of the sector at @off lie on a device of @size bytes. */
static size_t sector_len(uint64_t size, uint64_t off)
{
	if (off >= size)
		return 0;
	return size - off < XFSJ_BBSIZE ? (size_t)(size - off) : XFSJ_BBSIZE;
}

/* The CRC32c of each sector of @page at @off, as far as the device goes. */
static void sector_crcs(const uint8_t *page, uint64_t off, uint64_t size,
			uint8_t out[4 * SECTORS])
{
	for (unsigned int i = 0; i < SECTORS; i++) {
		uint64_t so = off + (uint64_t)i * XFSJ_BBSIZE;
		size_t n = sector_len(size, so);

		xfsj_put_le32(out + 4 * i,
			      n ? xfsj_crc32c(page + i * XFSJ_BBSIZE, n) : 0);
	}
}

/* The device's page at @off, zero past its end. */
static int read_dev_page(struct xfsj_io *io, uint64_t off, uint8_t *page)
{
	size_t n = off >= io->size ? 0 :
		   io->size - off < XFSJ_OVL_PAGE ? (size_t)(io->size - off) :
		   XFSJ_OVL_PAGE;

	memset(page + n, 0, XFSJ_OVL_PAGE - n);
	return n ? xfsj_pread(io, page, n, off) : 0;
}

/* A page's entry in the redo file: its byte offset and its CRC32c. */
static void redo_entry(uint8_t ent[16], uint64_t off, uint32_t crc)
{
	memset(ent, 0, 16);
	xfsj_put_le32(ent, (uint32_t)off);
	xfsj_put_le32(ent + 4, (uint32_t)(off >> 32));
	xfsj_put_le32(ent + 8, crc);
}

uint32_t xfsj_redo_tag_add(uint32_t tag, uint64_t off, uint32_t page_crc)
{
	uint8_t ent[16];

	redo_entry(ent, off, page_crc);
	return xfsj_crc32c_update(tag, ent, sizeof(ent));
}

static int save_page(void *arg, uint64_t off, const uint8_t *page)
{
	struct save_ctx *c = arg;
	uint8_t ent[ENT_V2];
	uint32_t crc = xfsj_crc32c(page, XFSJ_OVL_PAGE);
	int err;

	redo_entry(ent, off, crc);
	err = read_dev_page(c->dev, off, c->old);
	if (err)
		return err;
	sector_crcs(c->old, off, c->dev->size, ent + 16);
	c->crc = xfsj_crc32c_update(c->crc, ent + 8, ENT_V2 - 8);
	err = wput(&c->w, ent, sizeof(ent));
	if (!err)
		err = wput(&c->w, page, XFSJ_OVL_PAGE);
	if (!err && c->cb && c->cb->page)
		c->cb->page(c->cb->arg, ++c->done, c->total);
	return err;
}

int xfsj_redo_save_io(struct xfsj_io *rio, struct xfsj_overlay *ov,
		      const uint8_t uuid[16], uint64_t devsize,
		      const struct xfsj_redo_cb *cb)
{
	uint64_t pages = xfsj_overlay_dirty_pages(ov);
	struct save_ctx c = { .w.io = rio, .crc = ~0U, .cb = cb,
			      .total = pages, .dev = xfsj_overlay_device(ov) };
	uint8_t hdr[REDO_HDR], tail[12];
	int err;

	c.w.buf = malloc(WBUF);
	c.old = malloc(XFSJ_OVL_PAGE);
	if (!c.w.buf || !c.old) {
		free(c.w.buf);
		free(c.old);
		return -XFSJ_E_NOMEM;
	}
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, REDO_MAGIC, 8);
	xfsj_put_le32(hdr + 8, REDO_VERSION);
	xfsj_put_le32(hdr + 16, (uint32_t)pages);
	xfsj_put_le32(hdr + 20, (uint32_t)(pages >> 32));
	xfsj_put_le32(hdr + 24, (uint32_t)devsize);
	xfsj_put_le32(hdr + 28, (uint32_t)(devsize >> 32));
	memcpy(hdr + 32, uuid, 16);
	err = wput(&c.w, hdr, sizeof(hdr));
	if (!err)
		err = xfsj_overlay_each_dirty(ov, save_page, &c);
	if (!err) {
		memcpy(tail, REDO_DONE, 8);
		xfsj_put_le32(tail + 8, ~c.crc);
		err = wput(&c.w, tail, sizeof(tail));
	}
	if (!err)
		err = wflush(&c.w);
	if (!err)
		err = xfsj_io_sync(rio);
	free(c.w.buf);
	free(c.old);
	return err;
}

int xfsj_sync_dir_of(const char *path)
{
	char *dir = strdup(path), *slash;
	int fd, err = 0;

	if (!dir)
		return -XFSJ_E_NOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	else
		strcpy(dir, ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		if (fsync(fd) < 0)
			err = -XFSJ_E_IO;
		close(fd);
	}
	free(dir);
	return err;
}

int xfsj_redo_file_create(const char *path, struct xfsj_io **out)
{
	/* Private: it holds filesystem metadata. */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return -XFSJ_E_OPEN;
	close(fd);
	return xfsj_io_open(path, 0, out);
}

int xfsj_redo_save(const char *path, struct xfsj_overlay *ov,
		   const uint8_t uuid[16], uint64_t devsize,
		   const struct xfsj_redo_cb *cb)
{
	struct xfsj_io *rio;
	int err = xfsj_redo_file_create(path, &rio);

	if (err)
		return err;
	err = xfsj_redo_save_io(rio, ov, uuid, devsize, cb);
	xfsj_io_close(rio);
	if (!err)
		err = xfsj_sync_dir_of(path);
	if (err)
		unlink(path);
	return err;
}

#define RUN_PAGES	256	/* 1 MiB writes */

/* Write @n pages at @off, the last one clipped to the device size. */
static int flush_run(struct xfsj_io *io, const uint8_t *run, uint64_t off,
		     uint32_t n)
{
	uint64_t len = (uint64_t)n * XFSJ_OVL_PAGE;

	if (off + len > io->size)
		len = io->size - off;
	return xfsj_pwrite(io, run, (size_t)len, off);
}

/* Sequential reads of the redo file through a 1 MiB buffer. */
struct rbuf {
	struct xfsj_io *io;
	uint64_t off;		/* file offset of buf[0] */
	size_t n, pos;
	uint8_t *buf;
	size_t entsz;		/* a page entry's size (the file's version) */
};

/*
 * The next @len bytes: 0, 1 at the end of the file (an incomplete file),
 * or an error: a read error is not "incomplete", because a complete redo
 * file must never be thrown away over a transient error.
 */
static int rget(struct rbuf *r, void *p, size_t len)
{
	uint8_t *dst = p;

	while (len) {
		size_t n;
		int err;

		if (r->pos == r->n) {
			r->off += r->n;
			r->pos = r->n = 0;
			if (r->off >= r->io->size)
				return 1;
			n = r->io->size - r->off < WBUF ?
			    (size_t)(r->io->size - r->off) : WBUF;
			err = xfsj_pread(r->io, r->buf, n, r->off);
			if (err)
				return err;
			r->n = n;
		}
		n = r->n - r->pos < len ? r->n - r->pos : len;
		memcpy(dst, r->buf + r->pos, n);
		r->pos += n;
		dst += n;
		len -= n;
	}
	return 0;
}

static void rrewind(struct rbuf *r, uint64_t off)
{
	r->off = off;
	r->n = r->pos = 0;
}

/*
 * Does every sector of the device's page at @off hold either the redo
 * file's new contents @page or the old contents whose CRCs @old holds?
 */
static int page_matches(struct xfsj_io *io, uint64_t off, const uint8_t *page,
			const uint8_t *old, uint8_t *dev)
{
	int err = read_dev_page(io, off, dev);

	if (err)
		return err;
	for (unsigned int i = 0; i < SECTORS; i++) {
		size_t at = (size_t)i * XFSJ_BBSIZE;
		size_t n = sector_len(io->size, off + at);

		if (n && memcmp(dev + at, page + at, n) &&
		    xfsj_crc32c(dev + at, n) != xfsj_get_le32(old + 4 * i))
			return 0;
	}
	return 1;
}

/*
 * Is @r a complete, intact redo file for this filesystem (1), an
 * incomplete one (0), somebody else's (-XFSJ_E_CONFLICT), one made for
 * another device or for this one before it changed (-XFSJ_E_STALE), or
 * unreadable?  On 1, *@pages is its page count and *@tag its tag
 * (redo_file.h).
 */
static int redo_check(struct rbuf *r, struct xfsj_io *io,
		      const uint8_t uuid[16], bool fresh, uint64_t *pages,
		      uint32_t *tag)
{
	uint8_t hdr[REDO_HDR], ent[ENT_V2], tail[12];
	uint8_t *page = malloc(2 * XFSJ_OVL_PAGE);
	uint32_t crc = ~0U, t = XFSJ_REDO_TAG_INIT, ver;
	bool stale = false;
	int ret;

	if (!page)
		return -XFSJ_E_NOMEM;
	ret = rget(r, hdr, sizeof(hdr));
	if (ret || memcmp(hdr, REDO_MAGIC, 8))
		goto out;
	if (memcmp(hdr + 32, uuid, 16)) {
		/* Somebody else's redo file: not ours to apply or remove. */
		ret = -XFSJ_E_CONFLICT;
		goto out;
	}
	ver = xfsj_get_le32(hdr + 8);
	if (ver != 1 && ver != REDO_VERSION) {
		ret = -XFSJ_E_UNSUPP;	/* a newer version's: keep it */
		goto out;
	}
	r->entsz = ver == 1 ? ENT_V1 : ENT_V2;
	*pages = xfsj_get_le32(hdr + 16) |
		 (uint64_t)xfsj_get_le32(hdr + 20) << 32;
	if ((xfsj_get_le32(hdr + 24) |
	     (uint64_t)xfsj_get_le32(hdr + 28) << 32) != io->size) {
		ret = -XFSJ_E_CONFLICT;
		goto out;
	}
	for (uint64_t i = 0; i < *pages; i++) {
		uint64_t off;

		ret = rget(r, ent, r->entsz);
		if (!ret)
			ret = rget(r, page, XFSJ_OVL_PAGE);
		if (ret)
			goto out;
		if (xfsj_crc32c(page, XFSJ_OVL_PAGE) != xfsj_get_le32(ent + 8))
			goto out;
		crc = xfsj_crc32c_update(crc, ent + 8,
					 ver == 1 ? 4 : ENT_V2 - 8);
		off = xfsj_get_le64(ent);
		t = xfsj_redo_tag_add(t, off, xfsj_get_le32(ent + 8));
		if (ver == 1 || fresh || stale || off >= io->size)
			continue;	/* (past the end: redo_copy refuses) */
		ret = page_matches(io, off, page, ent + 16,
				   page + XFSJ_OVL_PAGE);
		if (ret < 0)
			goto out;
		stale = !ret;
	}
	ret = rget(r, tail, sizeof(tail));
	if (!ret && !memcmp(tail, REDO_DONE, 8) &&
	    xfsj_get_le32(tail + 8) == ~crc) {
		free(page);
		if (stale)
			return -XFSJ_E_STALE;
		*tag = t;
		return 1;
	}
out:
	free(page);
	return ret < 0 ? ret : 0;	/* the end of the file: incomplete */
}

/* Copy the @pages pages of the checked redo file @r onto @io and sync. */
static int redo_copy(struct rbuf *r, struct xfsj_io *io, uint64_t pages,
		     const struct xfsj_redo_cb *cb)
{
	uint8_t ent[ENT_V2];
	uint8_t *run = malloc(RUN_PAGES * XFSJ_OVL_PAGE);
	uint64_t run_off = 0;
	uint32_t nrun = 0;
	int err = 0;

	if (!run)
		return -XFSJ_E_NOMEM;
	/*
	 * Join runs of adjacent pages into one write (replayed metadata
	 * clusters: inode chunks, btree blocks allocated together).
	 */
	rrewind(r, REDO_HDR);
	for (uint64_t i = 0; i < pages && !err; i++) {
		uint64_t off;

		err = rget(r, ent, r->entsz);
		if (err) {
			err = err < 0 ? err : -XFSJ_E_IO;	/* checked */
			break;
		}
		off = xfsj_get_le32(ent) | (uint64_t)xfsj_get_le32(ent + 4) << 32;
		if (off >= io->size) {
			err = -XFSJ_E_RANGE;
			break;
		}
		if (nrun && (off != run_off + (uint64_t)nrun * XFSJ_OVL_PAGE ||
			     nrun == RUN_PAGES)) {
			err = flush_run(io, run, run_off, nrun);
			nrun = 0;
		}
		if (!nrun)
			run_off = off;
		if (!err)
			err = rget(r, run + (size_t)nrun * XFSJ_OVL_PAGE,
				   XFSJ_OVL_PAGE);
		if (err > 0)
			err = -XFSJ_E_IO;	/* it was there a moment ago */
		nrun++;
		if (!err && cb && cb->page)
			cb->page(cb->arg, i + 1, pages);
	}
	if (!err && nrun)
		err = flush_run(io, run, run_off, nrun);
	if (!err)
		err = xfsj_io_sync(io);
	free(run);
	return err;
}

/*
 * Apply the redo file behind @rio to @io if it is complete: 1 applied, 0
 * not a complete redo file (the device untouched), or an error.
 */
static int redo_replay(struct xfsj_io *rio, struct xfsj_io *io,
		       const uint8_t uuid[16], bool fresh, uint64_t *pages,
		       const struct xfsj_redo_cb *cb)
{
	struct rbuf r = { .io = rio };
	uint32_t tag;
	int ret;

	r.buf = malloc(WBUF);
	if (!r.buf)
		return -XFSJ_E_NOMEM;
	ret = redo_check(&r, io, uuid, fresh, pages, &tag);
	if (ret == 1) {
		ret = redo_copy(&r, io, *pages, cb);
		ret = ret ? ret : 1;
	}
	free(r.buf);
	return ret;
}

int xfsj_redo_pending_io(struct xfsj_io *rio, struct xfsj_io *io,
			 const uint8_t uuid[16], uint64_t *pages,
			 uint32_t *tag)
{
	struct rbuf r = { .io = rio };
	int ret;

	r.buf = malloc(WBUF);
	if (!r.buf)
		return -XFSJ_E_NOMEM;
	ret = redo_check(&r, io, uuid, false, pages, tag);
	free(r.buf);
	return ret;
}

int xfsj_redo_pending(const char *path, struct xfsj_io *io,
		      const uint8_t uuid[16], uint64_t *pages, uint32_t *tag)
{
	struct xfsj_io *rio;
	struct stat st;
	int ret;

	if (stat(path, &st) < 0 && errno == ENOENT)
		return 0;
	ret = xfsj_io_open(path, XFSJ_IO_RDONLY, &rio);
	if (ret)
		return ret == -XFSJ_E_NOMEM ? ret : -XFSJ_E_OPEN;
	ret = xfsj_redo_pending_io(rio, io, uuid, pages, tag);
	xfsj_io_close(rio);
	return ret;
}

int xfsj_redo_discard(struct xfsj_io *rio)
{
	uint8_t z[REDO_HDR] = { 0 };
	size_t n = rio->size < sizeof(z) ? (size_t)rio->size : sizeof(z);
	int err = n ? xfsj_pwrite(rio, z, n, 0) : 0;

	return err ? err : xfsj_io_sync(rio);
}

/*
 * Apply the redo file behind @rio (or at @path) to @io.  @fresh: this
 * process has just written and synced it from what it read of @io, so
 * the device's pages are not read again to see that they hold the old
 * or the new contents (a run started again after a kill checks them).
 */
static int apply_io(struct xfsj_io *rio, struct xfsj_io *io,
		    const uint8_t uuid[16], bool fresh, bool *applied,
		    uint64_t *npages, const struct xfsj_redo_cb *cb)
{
	uint64_t pages = 0;
	int ret = redo_replay(rio, io, uuid, fresh, &pages, cb);

	*applied = ret == 1;
	if (npages)
		*npages = ret == 1 ? pages : 0;
	if (ret < 0)
		return ret;
	/* Applied, or never finished and so never applied: done with. */
	return xfsj_redo_discard(rio);
}

int xfsj_redo_apply_io(struct xfsj_io *rio, struct xfsj_io *io,
		       const uint8_t uuid[16], bool *applied,
		       uint64_t *npages, const struct xfsj_redo_cb *cb)
{
	return apply_io(rio, io, uuid, false, applied, npages, cb);
}

static int apply_path(const char *path, struct xfsj_io *io,
		      const uint8_t uuid[16], bool fresh, bool *applied,
		      uint64_t *npages, const struct xfsj_redo_cb *cb)
{
	struct xfsj_io *rio;
	uint64_t pages = 0;
	struct stat st;
	int ret;

	*applied = false;
	if (npages)
		*npages = 0;
	if (stat(path, &st) < 0 && errno == ENOENT)
		return 0;
	ret = xfsj_io_open(path, XFSJ_IO_RDONLY, &rio);
	if (ret)
		return ret == -XFSJ_E_NOMEM ? ret : -XFSJ_E_OPEN;
	ret = redo_replay(rio, io, uuid, fresh, &pages, cb);
	xfsj_io_close(rio);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		/* Never finished, so never applied: the device is as it was. */
		unlink(path);
		return 0;
	}
	*applied = true;
	if (npages)
		*npages = pages;
	if (unlink(path) < 0)
		return -XFSJ_E_IO;
	return xfsj_sync_dir_of(path);
}

int xfsj_redo_apply(const char *path, struct xfsj_io *io,
		    const uint8_t uuid[16], bool *applied, uint64_t *npages,
		    const struct xfsj_redo_cb *cb)
{
	return apply_path(path, io, uuid, false, applied, npages, cb);
}

/*
 * The commits of @ovs[0..@n) through a redo file at @path or, if @rio,
 * behind @rio; first, with @undo or @uio, the device's old contents of
 * every page they write into that undo file.
 */
static int commit(const char *path, struct xfsj_io *rio, const char *undo,
		  struct xfsj_io *uio, struct xfsj_overlay *const *ovs,
		  unsigned int n, const uint8_t uuid[16], uint64_t *pages,
		  enum xfsj_commit_step *failed, const struct xfsj_redo_cb *cb)
{
	enum xfsj_commit_step step = XFSJ_COMMIT_UNDO;
	uint64_t total = 0;
	int err = 0;

	if (undo && path && !strcmp(undo, path))
		err = -XFSJ_E_INVAL;	/* the redo file would replace it */
	else if (uio)
		err = xfsj_undo_save_io(uio, ovs, n, uuid, cb);
	else if (undo)
		err = xfsj_undo_save(undo, ovs, n, uuid, cb);
	for (unsigned int i = 0; i < n && !err; i++) {
		struct xfsj_io *dev = xfsj_overlay_device(ovs[i]);
		bool applied = false;
		uint64_t done = 0;

		step = XFSJ_COMMIT_SAVE;
		if (rio)
			err = xfsj_redo_save_io(rio, ovs[i], uuid, dev->size,
						cb);
		else
			err = xfsj_redo_save(path, ovs[i], uuid, dev->size, cb);
		if (err)
			break;
		step = XFSJ_COMMIT_COPY;
		if (rio)
			err = apply_io(rio, dev, uuid, true, &applied, &done,
				       cb);
		else
			err = apply_path(path, dev, uuid, true, &applied,
					 &done, cb);
		/* We have just written it complete: not finding it so is an error. */
		if (!err && !applied)
			err = -XFSJ_E_IO;
		total += done;
	}
	if (pages)
		*pages = total;
	if (err && failed)
		*failed = step;
	return err;
}

int xfsj_redo_commit(const char *path, struct xfsj_overlay *ov,
		     const uint8_t uuid[16], uint64_t *pages,
		     const struct xfsj_redo_cb *cb)
{
	return commit(path, NULL, NULL, NULL, &ov, 1, uuid, pages, NULL, cb);
}

int xfsj_redo_commit_io(struct xfsj_io *rio, struct xfsj_overlay *ov,
			const uint8_t uuid[16], uint64_t *pages,
			const struct xfsj_redo_cb *cb)
{
	return commit(NULL, rio, NULL, NULL, &ov, 1, uuid, pages, NULL, cb);
}

int xfsj_redo_commit_run(const char *path, const char *undo,
			 struct xfsj_overlay *const *ovs, unsigned int n,
			 const uint8_t uuid[16], uint64_t *pages,
			 enum xfsj_commit_step *failed,
			 const struct xfsj_redo_cb *cb)
{
	return commit(path, NULL, undo, NULL, ovs, n, uuid, pages, failed, cb);
}

int xfsj_redo_commit_run_io(struct xfsj_io *rio, struct xfsj_io *uio,
			    struct xfsj_overlay *const *ovs, unsigned int n,
			    const uint8_t uuid[16], uint64_t *pages,
			    enum xfsj_commit_step *failed,
			    const struct xfsj_redo_cb *cb)
{
	return commit(NULL, rio, NULL, uio, ovs, n, uuid, pages, failed, cb);
}

int xfsj_redo_commit_undo(const char *path, const char *undo,
			  struct xfsj_overlay *ov, const uint8_t uuid[16],
			  uint64_t *pages, enum xfsj_commit_step *failed,
			  const struct xfsj_redo_cb *cb)
{
	return commit(path, NULL, undo, NULL, &ov, 1, uuid, pages, failed, cb);
}
