/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The clean log written after a replay, and the redo file that makes
 * committing a replay restartable.
 *
 * Redo file layout (little-endian): header {magic "XFSJREDO", u32 version,
 * u32 pad, u64 pages, u64 device size, uuid[16]}, then per page {u64
 * offset, u32 crc32c of the data, u32 pad, data[4096]}, then a trailer
 * {magic "XFSJDONE", u32 crc32c over every page crc}.  The trailer is the
 * commit point: without it the file was never finished and the device was
 * never touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/crc32c.h"
#include "ondisk/log.h"
#include "xfsj/redo.h"

#define REDO_MAGIC	"XFSJREDO"
#define REDO_DONE	"XFSJDONE"
#define REDO_HDR	48
#define REDO_ENT	(16 + XFSJ_OVL_PAGE)

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

int xfsj_log_write_clean(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
			 uint64_t base, uint32_t head_blk, uint32_t cycle,
			 struct xfsj_fault *f)
{
	uint32_t lss = (sb->versionnum & XFSJ_SB_VERSION_SECTORBIT) ?
		       sb->logsectsize : 0;
	uint32_t size = xfsj_log_unmount_record_size(sb->logsunit, lss);
	uint32_t logbb = sb->logblocks << (sb->blocklog - XFSJ_BBSHIFT);
	uint32_t nbb = size / XFSJ_BBSIZE, nclear;
	uint64_t tail = xfsj_lsn(cycle, head_blk);
	bool wraps = head_blk + nbb > logbb;
	uint8_t *rec, hdr[XFSJ_BBSIZE];
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
	for (uint32_t i = 0; i < nclear; i++) {
		uint32_t b = head_blk + nbb + i;
		uint32_t c = b >= logbb ? cycle : cycle - 1;
		struct xfsj_logrec h;

		b %= logbb;
		memset(&h, 0, sizeof(h));
		memset(hdr, 0, sizeof(hdr));
		h.magicno = XFSJ_LOG_MAGIC;
		h.cycle = c;
		h.version = XFSJ_LOG_VERSION_2;
		h.lsn = xfsj_lsn(c, b);
		h.tail_lsn = tail;
		h.fmt = XFSJ_LOG_FMT_LINUX_LE;
		memcpy(h.fs_uuid, sb->uuid, 16);
		xfsj_logrec_encode(&h, hdr);
		err = xfsj_overlay_write(ov, hdr, sizeof(hdr),
					 base + (uint64_t)b * XFSJ_BBSIZE);
		if (err)
			return err;
	}
	return 0;
}

struct save_ctx {
	FILE *fp;
	uint32_t crc;
	uint64_t done, total;
	const struct xfsj_redo_cb *cb;
};

static int save_page(void *arg, uint64_t off, const uint8_t *page)
{
	struct save_ctx *c = arg;
	uint8_t ent[16];
	uint32_t crc = xfsj_crc32c(page, XFSJ_OVL_PAGE);

	memset(ent, 0, sizeof(ent));
	xfsj_put_le32(ent, (uint32_t)off);
	xfsj_put_le32(ent + 4, (uint32_t)(off >> 32));
	xfsj_put_le32(ent + 8, crc);
	c->crc = xfsj_crc32c_update(c->crc, ent + 8, 4);
	if (fwrite(ent, sizeof(ent), 1, c->fp) != 1 ||
	    fwrite(page, XFSJ_OVL_PAGE, 1, c->fp) != 1)
		return -XFSJ_E_IO;
	if (c->cb && c->cb->page)
		c->cb->page(c->cb->arg, ++c->done, c->total);
	return 0;
}

static int sync_dir_of(const char *path)
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

int xfsj_redo_save(const char *path, struct xfsj_overlay *ov,
		   const uint8_t uuid[16], uint64_t devsize,
		   const struct xfsj_redo_cb *cb)
{
	struct save_ctx c = { .crc = ~0U, .cb = cb,
			      .total = xfsj_overlay_dirty_pages(ov) };
	uint8_t hdr[REDO_HDR], tail[12];
	uint64_t pages = xfsj_overlay_dirty_pages(ov);
	int err, fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -XFSJ_E_OPEN;
	c.fp = fdopen(fd, "w");
	if (!c.fp) {
		close(fd);
		return -XFSJ_E_NOMEM;
	}
	setvbuf(c.fp, NULL, _IOFBF, 1 << 20);
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, REDO_MAGIC, 8);
	xfsj_put_le32(hdr + 8, 1);
	xfsj_put_le32(hdr + 16, (uint32_t)pages);
	xfsj_put_le32(hdr + 20, (uint32_t)(pages >> 32));
	xfsj_put_le32(hdr + 24, (uint32_t)devsize);
	xfsj_put_le32(hdr + 28, (uint32_t)(devsize >> 32));
	memcpy(hdr + 32, uuid, 16);
	err = fwrite(hdr, sizeof(hdr), 1, c.fp) == 1 ? 0 : -XFSJ_E_IO;
	if (!err)
		err = xfsj_overlay_each_dirty(ov, save_page, &c);
	if (!err) {
		memcpy(tail, REDO_DONE, 8);
		xfsj_put_le32(tail + 8, ~c.crc);
		if (fwrite(tail, sizeof(tail), 1, c.fp) != 1)
			err = -XFSJ_E_IO;
	}
	if (fflush(c.fp) != 0 || fsync(fileno(c.fp)) < 0)
		err = err ? err : -XFSJ_E_IO;
	if (fclose(c.fp) != 0)
		err = err ? err : -XFSJ_E_IO;
	if (!err)
		err = sync_dir_of(path);
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

int xfsj_redo_apply(const char *path, struct xfsj_io *io,
		    const uint8_t uuid[16], bool *applied, uint64_t *npages,
		    const struct xfsj_redo_cb *cb)
{
	uint8_t hdr[REDO_HDR], ent[16], tail[12];
	uint8_t *page = NULL, *run = NULL;
	uint64_t pages, devsize, run_off = 0;
	uint32_t nrun = 0;
	uint32_t crc = ~0U;
	FILE *fp;
	long data_start;
	int err = 0;

	*applied = false;
	if (npages)
		*npages = 0;
	fp = fopen(path, "rb");
	if (!fp)
		return errno == ENOENT ? 0 : -XFSJ_E_OPEN;
	if (fread(hdr, sizeof(hdr), 1, fp) != 1 || memcmp(hdr, REDO_MAGIC, 8))
		goto incomplete;
	if (memcmp(hdr + 32, uuid, 16)) {
		/* Somebody else's redo file: not ours to apply or remove. */
		fclose(fp);
		return -XFSJ_E_CONFLICT;
	}
	pages = xfsj_get_le32(hdr + 16) | (uint64_t)xfsj_get_le32(hdr + 20) << 32;
	devsize = xfsj_get_le32(hdr + 24) | (uint64_t)xfsj_get_le32(hdr + 28) << 32;
	if (devsize != io->size) {
		fclose(fp);
		return -XFSJ_E_CONFLICT;
	}
	page = malloc(XFSJ_OVL_PAGE);
	if (!page) {
		fclose(fp);
		return -XFSJ_E_NOMEM;
	}
	/* First pass: is the file complete and intact? */
	data_start = ftell(fp);
	for (uint64_t i = 0; i < pages; i++) {
		if (fread(ent, sizeof(ent), 1, fp) != 1 ||
		    fread(page, XFSJ_OVL_PAGE, 1, fp) != 1 ||
		    xfsj_crc32c(page, XFSJ_OVL_PAGE) != xfsj_get_le32(ent + 8))
			goto incomplete;
		crc = xfsj_crc32c_update(crc, ent + 8, 4);
	}
	if (fread(tail, sizeof(tail), 1, fp) != 1 ||
	    memcmp(tail, REDO_DONE, 8) || xfsj_get_le32(tail + 8) != ~crc)
		goto incomplete;
	/*
	 * Second pass: copy onto the device, joining runs of adjacent pages
	 * into one write (replayed metadata clusters: inode chunks, btree
	 * blocks allocated together).
	 */
	if (fseek(fp, data_start, SEEK_SET) != 0) {
		err = -XFSJ_E_IO;
		goto out;
	}
	run = malloc(RUN_PAGES * XFSJ_OVL_PAGE);
	if (!run) {
		err = -XFSJ_E_NOMEM;
		goto out;
	}
	for (uint64_t i = 0; i < pages && !err; i++) {
		uint64_t off;

		if (fread(ent, sizeof(ent), 1, fp) != 1 ||
		    fread(page, XFSJ_OVL_PAGE, 1, fp) != 1) {
			err = -XFSJ_E_IO;
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
		memcpy(run + (size_t)nrun * XFSJ_OVL_PAGE, page, XFSJ_OVL_PAGE);
		nrun++;
		if (!err && cb && cb->page)
			cb->page(cb->arg, i + 1, pages);
	}
	if (!err && nrun)
		err = flush_run(io, run, run_off, nrun);
	if (!err)
		err = xfsj_io_sync(io);
	if (!err) {
		*applied = true;
		if (npages)
			*npages = pages;
		fclose(fp);
		fp = NULL;
		if (unlink(path) < 0)
			err = -XFSJ_E_IO;
		else
			err = sync_dir_of(path);
	}
	goto out;
incomplete:
	/* Never finished, so never applied: the device is as it was. */
	fclose(fp);
	fp = NULL;
	unlink(path);
out:
	if (fp)
		fclose(fp);
	free(page);
	free(run);
	return err;
}
