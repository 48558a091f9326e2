/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Undo files (xfsj/undo.h): the old contents of every page a commit
 * writes, saved before the commit touches the device, and written back on
 * demand.
 *
 * Layout (little-endian):
 *
 *   header, 64 bytes:
 *      0  magic "XFSJUNDO"
 *      8  u32 version (1)
 *     12  u32 header size (64)
 *     16  u64 pages
 *     24  u64 device size in bytes
 *     32  uuid[16] of the filesystem
 *     48  u32 tag of the commit's redo file (recover/redo_file.h)
 *     52  u32 page size (4096)
 *     56  u32 zero
 *     60  u32 CRC32c of bytes 0..59
 *   per page, in ascending device offset, 16 + 4096 bytes:
 *      0  u64 device offset (a multiple of 4096, below the device size)
 *      8  u32 CRC32c of the old contents (what follows)
 *     12  u32 CRC32c of the contents the commit writes
 *     16  old contents (past the end of the device: zeroes)
 *   complete mark, 16 bytes, written and synced after everything else is:
 *      0  magic "XFSJUCMP"
 *      8  u32 CRC32c over every page's first 16 bytes, then the header's
 *         CRC (so a mark left over from another undo file does not fit)
 *     12  u32 zero
 *
 * Both page CRCs cover a whole page, the part past the end of the device
 * taken as zeroes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/crc32c.h"
#include "core/layout.h"
#include "core/overlay.h"
#include "ondisk/format.h"
#include "recover/redo_file.h"
#include "xfsj/undo.h"

#define UNDO_MAGIC	"XFSJUNDO"
#define UNDO_MARK	"XFSJUCMP"
#define UNDO_VERSION	1
#define UNDO_HDR	64
#define UNDO_ENT	16
#define UNDO_REC	(UNDO_ENT + XFSJ_OVL_PAGE)
#define UNDO_TAIL	16

#define PG		XFSJ_OVL_PAGE

struct undo_hdr {
	uint64_t pages;
	uint64_t devsize;
	uint8_t uuid[16];
	uint32_t tag;
	uint32_t crc;
};

static uint64_t rec_off(uint64_t i)
{
	return UNDO_HDR + i * UNDO_REC;
}

/* Bytes of the page at @off that lie on a device of @size bytes. */
static size_t page_len(uint64_t size, uint64_t off)
{
	return size - off < PG ? (size_t)(size - off) : PG;
}

/* CRC32c of @len bytes of @page followed by zeroes up to a page. */
static uint32_t padded_crc(uint8_t *scratch, const uint8_t *page, size_t len)
{
	if (len == PG)
		return xfsj_crc32c(page, PG);
	memcpy(scratch, page, len);
	memset(scratch + len, 0, PG - len);
	return xfsj_crc32c(scratch, PG);
}

/* Read the page at @off of @io into @buf, zeroes past the device's end. */
static int read_dev_page(struct xfsj_io *io, uint64_t off, uint8_t *buf)
{
	size_t len = page_len(io->size, off);

	if (len < PG)
		memset(buf + len, 0, PG - len);
	return xfsj_pread(io, buf, len, off);
}

/* ---- saving ---- */

struct save_ctx {
	struct xfsj_io *uio, *dev;
	uint8_t *rec, *scratch;
	uint64_t i, total;
	uint32_t tag, mark;
	const struct xfsj_redo_cb *cb;
};

static int save_page(void *arg, uint64_t off, const uint8_t *page)
{
	struct save_ctx *c = arg;
	size_t len;
	int err;

	if (off >= c->dev->size)
		return -XFSJ_E_RANGE;
	len = page_len(c->dev->size, off);
	err = read_dev_page(c->dev, off, c->rec + UNDO_ENT);
	if (err)
		return err;
	xfsj_put_le64(c->rec, off);
	xfsj_put_le32(c->rec + 8, xfsj_crc32c(c->rec + UNDO_ENT, PG));
	xfsj_put_le32(c->rec + 12, padded_crc(c->scratch, page, len));
	c->tag = xfsj_redo_tag_add(c->tag, off, xfsj_crc32c(page, PG));
	c->mark = xfsj_crc32c_update(c->mark, c->rec, UNDO_ENT);
	err = xfsj_pwrite(c->uio, c->rec, UNDO_REC, rec_off(c->i));
	if (err)
		return err;
	c->i++;
	if (c->cb && c->cb->page)
		c->cb->page(c->cb->arg, c->i, c->total);
	return 0;
}

static void encode_hdr(uint8_t *h, const struct undo_hdr *u)
{
	memset(h, 0, UNDO_HDR);
	memcpy(h, UNDO_MAGIC, 8);
	xfsj_put_le32(h + 8, UNDO_VERSION);
	xfsj_put_le32(h + 12, UNDO_HDR);
	xfsj_put_le64(h + 16, u->pages);
	xfsj_put_le64(h + 24, u->devsize);
	memcpy(h + 32, u->uuid, 16);
	xfsj_put_le32(h + 48, u->tag);
	xfsj_put_le32(h + 52, PG);
	xfsj_put_le32(h + 60, xfsj_crc32c(h, 60));
}

int xfsj_undo_save_io(struct xfsj_io *uio, struct xfsj_overlay *ov,
		      const uint8_t uuid[16], const struct xfsj_redo_cb *cb)
{
	struct save_ctx c = {
		.uio = uio, .dev = xfsj_overlay_device(ov),
		.total = xfsj_overlay_dirty_pages(ov),
		.tag = XFSJ_REDO_TAG_INIT, .mark = XFSJ_REDO_TAG_INIT,
		.cb = cb,
	};
	struct undo_hdr u = { .pages = c.total };
	uint8_t hdr[UNDO_HDR], tail[UNDO_TAIL];
	int err;

	c.rec = malloc(UNDO_REC);
	c.scratch = malloc(PG);
	err = c.rec && c.scratch ? 0 : -XFSJ_E_NOMEM;
	if (!err)
		err = xfsj_overlay_each_dirty(ov, save_page, &c);
	free(c.rec);
	free(c.scratch);
	if (err)
		return err;
	/* The pages and the header, durable before the complete mark. */
	u.devsize = c.dev->size;
	u.tag = c.tag;
	memcpy(u.uuid, uuid, 16);
	encode_hdr(hdr, &u);
	err = xfsj_pwrite(uio, hdr, sizeof(hdr), 0);
	if (!err)
		err = xfsj_io_sync(uio);
	if (err)
		return err;
	memset(tail, 0, sizeof(tail));
	memcpy(tail, UNDO_MARK, 8);
	xfsj_put_le32(tail + 8, xfsj_crc32c_update(c.mark, hdr + 60, 4));
	err = xfsj_pwrite(uio, tail, sizeof(tail), rec_off(c.i));
	return err ? err : xfsj_io_sync(uio);
}

int xfsj_undo_save(const char *path, struct xfsj_overlay *ov,
		   const uint8_t uuid[16], const struct xfsj_redo_cb *cb)
{
	struct xfsj_io *uio;
	int err = xfsj_redo_file_create(path, &uio);

	if (err)
		return err;
	err = xfsj_undo_save_io(uio, ov, uuid, cb);
	xfsj_io_close(uio);
	if (!err)
		err = xfsj_sync_dir_of(path);
	if (err)
		unlink(path);	/* the device was not touched: nothing to undo */
	return err;
}

/* ---- reading and checking ---- */

static const int refusal_err[] = {
	[XFSJ_UNDO_OK] = 0,
	[XFSJ_UNDO_NOT_UNDO] = -XFSJ_E_BADMAGIC,
	[XFSJ_UNDO_VERSION] = -XFSJ_E_UNSUPP,
	[XFSJ_UNDO_INCOMPLETE] = -XFSJ_E_CORRUPT,
	[XFSJ_UNDO_TORN] = -XFSJ_E_BADCRC,
	[XFSJ_UNDO_OTHER_FS] = -XFSJ_E_CONFLICT,
	[XFSJ_UNDO_OTHER_SIZE] = -XFSJ_E_CONFLICT,
	[XFSJ_UNDO_CHANGED] = -XFSJ_E_CONFLICT,
};

static int refuse(struct xfsj_undo_result *res, enum xfsj_undo_refusal why,
		  uint64_t off)
{
	res->refused = why;
	res->offset = off;
	return refusal_err[why];
}

/* The header of @uio, checked, with room in the file for its pages. */
static int read_hdr(struct xfsj_io *uio, struct undo_hdr *u,
		    struct xfsj_undo_result *res)
{
	uint8_t h[UNDO_HDR];
	int err;

	if (uio->size < 8)
		return refuse(res, uio->size ? XFSJ_UNDO_NOT_UNDO :
			      XFSJ_UNDO_INCOMPLETE, 0);
	err = xfsj_pread(uio, h, uio->size < UNDO_HDR ? 8 : UNDO_HDR, 0);
	if (err)
		return err;
	if (memcmp(h, UNDO_MAGIC, 8))
		return refuse(res, XFSJ_UNDO_NOT_UNDO, 0);
	if (uio->size < UNDO_HDR)
		return refuse(res, XFSJ_UNDO_INCOMPLETE, 0);
	if (xfsj_get_le32(h + 8) != UNDO_VERSION ||
	    xfsj_get_le32(h + 12) != UNDO_HDR || xfsj_get_le32(h + 52) != PG)
		return refuse(res, XFSJ_UNDO_VERSION, 0);
	if (xfsj_get_le32(h + 60) != xfsj_crc32c(h, 60))
		return refuse(res, XFSJ_UNDO_TORN, 0);
	u->pages = xfsj_get_le64(h + 16);
	u->devsize = xfsj_get_le64(h + 24);
	memcpy(u->uuid, h + 32, 16);
	u->tag = xfsj_get_le32(h + 48);
	u->crc = xfsj_get_le32(h + 60);
	memcpy(res->uuid, u->uuid, 16);
	res->devsize = u->devsize;
	if (uio->size < UNDO_HDR + UNDO_TAIL ||
	    u->pages > (uio->size - UNDO_HDR - UNDO_TAIL) / UNDO_REC)
		return refuse(res, XFSJ_UNDO_INCOMPLETE, 0);
	return 0;
}

/* Called for each page of a checked entry: its old contents and CRCs. */
typedef int (*undo_page_fn)(void *arg, uint64_t off, const uint8_t *old,
			    uint32_t old_crc, uint32_t new_crc);

/*
 * Check the complete mark, then every page (order, range, CRC), calling
 * @fn (may be NULL) for each as it goes.
 */
static int walk(struct xfsj_io *uio, const struct undo_hdr *u,
		struct xfsj_undo_result *res, undo_page_fn fn, void *arg)
{
	uint8_t tail[UNDO_TAIL];
	uint8_t *rec = malloc(UNDO_REC);
	uint8_t hcrc[4];
	uint32_t mark = XFSJ_REDO_TAG_INIT;
	uint64_t prev = 0;
	int err;

	if (!rec)
		return -XFSJ_E_NOMEM;
	err = xfsj_pread(uio, tail, sizeof(tail), rec_off(u->pages));
	if (!err && memcmp(tail, UNDO_MARK, 8))
		err = refuse(res, XFSJ_UNDO_INCOMPLETE, 0);
	for (uint64_t i = 0; !err && i < u->pages; i++) {
		uint64_t off;

		err = xfsj_pread(uio, rec, UNDO_REC, rec_off(i));
		if (err)
			break;
		off = xfsj_get_le64(rec);
		if (off % PG || off >= u->devsize || (i && off <= prev) ||
		    xfsj_crc32c(rec + UNDO_ENT, PG) != xfsj_get_le32(rec + 8)) {
			err = refuse(res, XFSJ_UNDO_TORN, off);
			break;
		}
		prev = off;
		mark = xfsj_crc32c_update(mark, rec, UNDO_ENT);
		if (fn)
			err = fn(arg, off, rec + UNDO_ENT,
				 xfsj_get_le32(rec + 8),
				 xfsj_get_le32(rec + 12));
	}
	free(rec);
	if (err)
		return err;
	xfsj_put_le32(hcrc, u->crc);
	if (xfsj_get_le32(tail + 8) != xfsj_crc32c_update(mark, hcrc, 4))
		return refuse(res, XFSJ_UNDO_TORN, 0);
	return 0;
}

int xfsj_undo_matches_io(struct xfsj_io *uio, const uint8_t uuid[16],
			 uint64_t devsize, uint64_t pages, uint32_t tag,
			 bool *match)
{
	struct xfsj_undo_result res = { 0 };
	struct undo_hdr u;
	int err;

	*match = false;
	err = read_hdr(uio, &u, &res);
	if (!err)
		err = walk(uio, &u, &res, NULL, NULL);
	if (res.refused)
		return 0;
	if (err)
		return err;
	*match = !memcmp(u.uuid, uuid, 16) && u.devsize == devsize &&
		 u.pages == pages && u.tag == tag;
	return 0;
}

/* Open an existing undo file read-only; *@uio NULL when there is none. */
static int open_undo(const char *path, struct xfsj_io **uio)
{
	struct stat st;
	int err;

	*uio = NULL;
	if (stat(path, &st) < 0 && errno == ENOENT)
		return 0;
	err = xfsj_io_open(path, XFSJ_IO_RDONLY, uio);
	if (err)
		return err == -XFSJ_E_NOMEM ? err : -XFSJ_E_OPEN;
	return 0;
}

int xfsj_undo_matches(const char *path, const uint8_t uuid[16],
		      uint64_t devsize, uint64_t pages, uint32_t tag,
		      bool *match)
{
	struct xfsj_io *uio;
	int err = open_undo(path, &uio);

	*match = false;
	if (err || !uio)
		return err;
	err = xfsj_undo_matches_io(uio, uuid, devsize, pages, tag, match);
	xfsj_io_close(uio);
	return err;
}

/*
 * The redo file at @redo, or behind @rio: none waits, or the undo file at
 * @undo, or behind @uio, is that of the commit that waits?
 */
static int undo_check(const char *redo, struct xfsj_io *rio,
		      const char *undo, struct xfsj_io *uio,
		      struct xfsj_io *io, const uint8_t uuid[16], bool *ok)
{
	uint64_t pages;
	uint32_t tag;
	int ret = rio ? xfsj_redo_pending_io(rio, io, uuid, &pages, &tag) :
			xfsj_redo_pending(redo, io, uuid, &pages, &tag);

	*ok = ret == 0;
	if (ret <= 0)
		return ret;
	if (uio)
		return xfsj_undo_matches_io(uio, uuid, io->size, pages, tag,
					    ok);
	return xfsj_undo_matches(undo, uuid, io->size, pages, tag, ok);
}

int xfsj_redo_undo_check_io(struct xfsj_io *rio, struct xfsj_io *uio,
			    struct xfsj_io *io, const uint8_t uuid[16],
			    bool *ok)
{
	return undo_check(NULL, rio, NULL, uio, io, uuid, ok);
}

int xfsj_redo_undo_check(const char *redo, const char *undo,
			 struct xfsj_io *io, const uint8_t uuid[16], bool *ok)
{
	return undo_check(redo, NULL, undo, NULL, io, uuid, ok);
}

/* ---- applying ---- */

struct apply_ctx {
	struct xfsj_io *io;
	struct xfsj_undo_result *res;
	uint8_t *page;
	bool uuid_ok, first;
	const struct xfsj_redo_cb *cb;
	uint64_t total;
};

/* Before writing: is every page on the device old or new? */
static int check_page(void *arg, uint64_t off, const uint8_t *old,
		      uint32_t old_crc, uint32_t new_crc)
{
	struct apply_ctx *a = arg;
	uint32_t crc;
	int err;

	(void)old;
	err = read_dev_page(a->io, off, a->page);
	if (err)
		return err;
	crc = xfsj_crc32c(a->page, PG);
	/*
	 * A superblock whose UUID the undo file puts back (it was
	 * damaged, and is again after an earlier apply) is still ours.
	 */
	if (!a->uuid_ok && !(a->first && off == 0 && crc == old_crc))
		return refuse(a->res, XFSJ_UNDO_OTHER_FS, 0);
	a->uuid_ok = true;
	a->first = false;
	if (crc == old_crc)
		a->res->already++;
	else if (crc != new_crc)
		return refuse(a->res, XFSJ_UNDO_CHANGED, off);
	return 0;
}

static int write_page(void *arg, uint64_t off, const uint8_t *old,
		      uint32_t old_crc, uint32_t new_crc)
{
	struct apply_ctx *a = arg;
	size_t len = page_len(a->io->size, off);
	int err;

	(void)old_crc;
	(void)new_crc;
	err = xfsj_pwrite(a->io, old, len, off);
	if (err)
		return err;
	a->res->pages++;
	a->res->bytes += len;
	if (a->cb && a->cb->page)
		a->cb->page(a->cb->arg, a->res->pages, a->total);
	return 0;
}

int xfsj_undo_apply_io(struct xfsj_io *uio, struct xfsj_io *io,
		       struct xfsj_undo_result *res,
		       const struct xfsj_redo_cb *cb)
{
	struct apply_ctx a = { .io = io, .res = res, .first = true, .cb = cb };
	uint8_t devuuid[16];
	struct undo_hdr u;
	int err;

	memset(res, 0, sizeof(*res));
	err = read_hdr(uio, &u, res);
	if (err)
		return err;
	a.total = u.pages;
	memset(devuuid, 0, sizeof(devuuid));
	if (io->size >= XFSJ_SB_OFF(uuid) + 16) {
		err = xfsj_pread(io, devuuid, 16, XFSJ_SB_OFF(uuid));
		if (err)
			return err;
	}
	a.uuid_ok = !memcmp(devuuid, u.uuid, 16);
	if (u.devsize != io->size)
		return refuse(res, a.uuid_ok ? XFSJ_UNDO_OTHER_SIZE :
			      XFSJ_UNDO_OTHER_FS, 0);
	/* The whole file first, then the device against it. */
	err = walk(uio, &u, res, NULL, NULL);
	if (err)
		return err;
	a.page = malloc(PG);
	if (!a.page)
		return -XFSJ_E_NOMEM;
	err = walk(uio, &u, res, check_page, &a);
	if (!err && !a.uuid_ok)
		err = refuse(res, XFSJ_UNDO_OTHER_FS, 0);
	free(a.page);
	if (err)
		return err;
	/* All checked: write the old pages back (checked again as read). */
	err = walk(uio, &u, res, write_page, &a);
	if (!err)
		err = xfsj_io_sync(io);
	if (err && res->refused)
		err = -XFSJ_E_IO;	/* the undo file changed under us */
	return err;
}

int xfsj_undo_apply(const char *path, struct xfsj_io *io,
		    struct xfsj_undo_result *res,
		    const struct xfsj_redo_cb *cb)
{
	struct xfsj_io *uio;
	int err = open_undo(path, &uio);

	memset(res, 0, sizeof(*res));
	if (!err && !uio)
		err = -XFSJ_E_OPEN;
	if (err)
		return err;
	err = xfsj_undo_apply_io(uio, io, res, cb);
	xfsj_io_close(uio);
	return err;
}
