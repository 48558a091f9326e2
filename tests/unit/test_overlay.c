/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The page overlay: its own API (read, write, dirty pages) and the same
 * overlay stacked as an I/O backend, mkfs writing through it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs_fixture.h"
#include "suites.h"
#include "xfsj/errors.h"
#include "xfsj/io.h"
#include "xfsj/newfs.h"
#include "xfsj/redo.h"
#include "core/io_fault.h"
#include "core/overlay.h"

#define PG	XFSJ_OVL_PAGE
#define ENT	(16 + 32)	/* a redo file's page entry, version 2 */

/* A memory device of @size bytes, byte i holding (i * 7 + i / 4096). */
static struct xfsj_io *patterned(uint64_t size)
{
	struct xfsj_io *io;
	uint8_t *mem;

	ck_assert_int_eq(xfsj_io_open_mem(size, &io), 0);
	mem = xfsj_io_mem_buffer(io);
	for (uint64_t i = 0; i < size; i++)
		mem[i] = (uint8_t)(i * 7 + i / PG);
	return io;
}

static uint8_t pat(uint64_t i)
{
	return (uint8_t)(i * 7 + i / PG);
}

START_TEST(reads_through)
{
	struct xfsj_io *io = patterned(10 * PG);
	struct xfsj_overlay *ov;
	uint8_t buf[3 * PG];

	ck_assert_int_eq(xfsj_overlay_create(io, &ov), 0);
	ck_assert_ptr_eq(xfsj_overlay_device(ov), io);
	ck_assert_uint_eq(xfsj_overlay_dev_size(ov), 10 * PG);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov), 0);
	ck_assert_int_eq(xfsj_overlay_read(ov, buf, sizeof(buf), PG - 100), 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], pat(PG - 100 + i));
	/* Reading does not make pages dirty. */
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov), 0);
	xfsj_overlay_free(ov);
	xfsj_overlay_free(NULL);
	xfsj_io_close(io);
}
END_TEST

/* Pieces of uneven sizes, one after another: from the device alone (one
 * request), then with the first page of the range written in the
 * overlay, then a later one too (the overlay wins there); past the end
 * refused. */
START_TEST(readv_pieces)
{
	static const size_t sz[] = { 512, 1024, PG, 3000, 7 };
	struct xfsj_io *io = patterned(10 * PG);
	uint8_t buf[5][PG], page[PG];
	struct iovec iov[5];
	struct xfsj_overlay *ov;
	uint64_t at = PG - 100, off;

	ck_assert_int_eq(xfsj_overlay_create(io, &ov), 0);
	for (int i = 0; i < 5; i++)
		iov[i] = (struct iovec){ buf[i], sz[i] };
	memset(page, 0xee, sizeof(page));
	for (int pass = 0; pass < 3; pass++) {
		/* pass 1: the first page only; pass 2: page 2 as well */
		if (pass)
			ck_assert_int_eq(xfsj_overlay_write(ov, page, PG,
					 pass == 1 ? 0 : 2 * PG), 0);
		memset(buf, 0, sizeof(buf));
		ck_assert_int_eq(xfsj_overlay_readv(ov, iov, 5, at), 0);
		off = at;
		for (int i = 0; i < 5; i++)
			for (size_t k = 0; k < sz[i]; k++, off++)
				ck_assert_uint_eq(buf[i][k],
					(pass && off < PG) ||
					(pass == 2 && off >= 2 * PG &&
					 off < 3 * PG) ?
					0xee : pat(off));
	}
	ck_assert_int_eq(xfsj_overlay_readv(ov, iov, 5, 10 * PG - 4096),
			 -XFSJ_E_RANGE);
	xfsj_overlay_free(ov);
	xfsj_io_close(io);
}
END_TEST

struct seen {
	uint64_t off[16];
	uint8_t first[16];
	int n;
	int stop_at;		/* return an error on this call (from 1) */
};

static int collect(void *arg, uint64_t off, const uint8_t *page)
{
	struct seen *s = arg;

	if (s->n < 16) {
		s->off[s->n] = off;
		s->first[s->n] = page[0];
	}
	if (++s->n == s->stop_at)
		return -XFSJ_E_CORRUPT;
	return 0;
}

START_TEST(writes_stay_in_overlay)
{
	struct xfsj_io *io = patterned(10 * PG);
	uint8_t *mem = xfsj_io_mem_buffer(io);
	struct xfsj_overlay *ov;
	struct seen s = { .n = 0 };
	uint8_t buf[PG + 200], back[3 * PG];

	ck_assert_int_eq(xfsj_overlay_create(io, &ov), 0);
	memset(buf, 0xEE, sizeof(buf));
	/* A write across pages 7 and 8, then one inside page 2. */
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, sizeof(buf), 8 * PG - 100),
			 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 10, 2 * PG + 5), 0);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov), 4);
	/* The device has not changed. */
	for (uint64_t i = 0; i < 10 * PG; i++)
		ck_assert_uint_eq(mem[i], pat(i));
	/* Reads see the new bytes and, around them, the device's. */
	ck_assert_int_eq(xfsj_overlay_read(ov, back, 3 * PG, 7 * PG), 0);
	for (uint64_t i = 0; i < 3 * PG; i++) {
		uint64_t o = 7 * PG + i;
		bool in = o >= 8 * PG - 100 && o < 8 * PG - 100 + sizeof(buf);

		ck_assert_uint_eq(back[i], in ? 0xEE : pat(o));
	}
	/* Dirty pages come in ascending order with their whole contents. */
	ck_assert_int_eq(xfsj_overlay_each_dirty(ov, collect, &s), 0);
	ck_assert_int_eq(s.n, 4);
	ck_assert_uint_eq(s.off[0], 2 * PG);
	ck_assert_uint_eq(s.off[1], 7 * PG);
	ck_assert_uint_eq(s.off[2], 8 * PG);
	ck_assert_uint_eq(s.off[3], 9 * PG);
	ck_assert_uint_eq(s.first[0], pat(2 * PG));
	ck_assert_uint_eq(s.first[1], pat(7 * PG));
	ck_assert_uint_eq(s.first[2], 0xEE);
	/* The callback's error stops the walk and comes back. */
	s.n = 0;
	s.stop_at = 2;
	ck_assert_int_eq(xfsj_overlay_each_dirty(ov, collect, &s),
			 -XFSJ_E_CORRUPT);
	ck_assert_int_eq(s.n, 2);
	/* Overwriting a dirty page adds none. */
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 1, 2 * PG), 0);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov), 4);
	xfsj_overlay_free(ov);
	xfsj_io_close(io);
}
END_TEST

START_TEST(bounds_and_short_last_page)
{
	/* The last page is short: 2.5 pages of device. */
	struct xfsj_io *io = patterned(2 * PG + PG / 2);
	struct xfsj_overlay *ov;
	struct seen s = { .n = 0 };
	uint8_t buf[PG];

	ck_assert_int_eq(xfsj_overlay_create(io, &ov), 0);
	memset(buf, 0x11, sizeof(buf));
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 16, 2 * PG + PG / 2 - 16),
			 0);
	ck_assert_int_eq(xfsj_overlay_read(ov, buf, 32, 2 * PG + PG / 2 - 32),
			 0);
	for (int i = 0; i < 16; i++)
		ck_assert_uint_eq(buf[i], pat(2 * PG + PG / 2 - 32 + i));
	for (int i = 16; i < 32; i++)
		ck_assert_uint_eq(buf[i], 0x11);
	/* Past the end, overflowing offsets: refused, nothing dirtied. */
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 17, 2 * PG + PG / 2 - 16),
			 -XFSJ_E_RANGE);
	ck_assert_int_eq(xfsj_overlay_read(ov, buf, 1, 2 * PG + PG / 2),
			 -XFSJ_E_RANGE);
	ck_assert_int_eq(xfsj_overlay_read(ov, buf, 16, UINT64_MAX - 8),
			 -XFSJ_E_RANGE);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 16, UINT64_MAX - 8),
			 -XFSJ_E_RANGE);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 0, 2 * PG + PG / 2), 0);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov), 1);
	/* The short page is handed out whole, zero past the device's end. */
	ck_assert_int_eq(xfsj_overlay_each_dirty(ov, collect, &s), 0);
	ck_assert_uint_eq(s.off[0], 2 * PG);
	xfsj_overlay_free(ov);
	xfsj_io_close(io);
}
END_TEST

/* Thousands of pages: the table grows and keeps every one. */
START_TEST(many_pages)
{
	const uint64_t npg = 5000;
	struct xfsj_io *io;
	struct xfsj_overlay *ov;
	uint8_t v;

	ck_assert_int_eq(xfsj_io_open_mem(npg * PG, &io), 0);
	ck_assert_int_eq(xfsj_overlay_create(io, &ov), 0);
	/* Every other page, from both ends, so the order is mixed. */
	for (uint64_t i = 0; i < npg / 2; i++) {
		uint64_t p = i % 2 ? i : npg - 1 - i;

		v = (uint8_t)(p * 31 + 1);
		ck_assert_int_eq(xfsj_overlay_write(ov, &v, 1, p * PG + 7), 0);
	}
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov), npg / 2);
	for (uint64_t i = 0; i < npg / 2; i++) {
		uint64_t p = i % 2 ? i : npg - 1 - i;

		ck_assert_int_eq(xfsj_overlay_read(ov, &v, 1, p * PG + 7), 0);
		ck_assert_uint_eq(v, (uint8_t)(p * 31 + 1));
	}
	ck_assert_uint_eq(((uint8_t *)xfsj_io_mem_buffer(io))[7], 0);
	xfsj_overlay_free(ov);
	xfsj_io_close(io);
}
END_TEST

/* The device's read errors come back from reads and first writes. */
START_TEST(device_errors)
{
	struct xfsj_io *mem = patterned(4 * PG), *io;
	struct xfsj_fault_plan plan = { .ops = XFSJ_FOP_READ, .at = 1,
					.kind = XFSJ_FAULT_ERROR };
	struct xfsj_overlay *ov;
	uint8_t b = 0x33;

	ck_assert_int_eq(xfsj_io_fault(mem, &plan, &io), 0);
	ck_assert_int_eq(xfsj_overlay_create(io, &ov), 0);
	/* Read-modify-write of a new page: the read fails, nothing kept. */
	ck_assert_int_eq(xfsj_overlay_write(ov, &b, 1, PG + 1), -XFSJ_E_IO);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov), 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, &b, 1, PG + 1), 0);
	plan.fired = false;
	plan.at = plan.count + 1;
	/* A dirty page is read from memory; a clean one from the device. */
	ck_assert_int_eq(xfsj_overlay_read(ov, &b, 1, PG + 1), 0);
	ck_assert_uint_eq(b, 0x33);
	ck_assert_int_eq(xfsj_overlay_read(ov, &b, 1, 3 * PG), -XFSJ_E_IO);
	xfsj_overlay_free(ov);
	xfsj_io_close(io);
	xfsj_fault_plan_end(&plan);
	xfsj_io_close(mem);
}
END_TEST

/* ---- the overlay as a stacked backend ---- */

START_TEST(backend_basics)
{
	struct xfsj_io *mem = patterned(6 * PG), *io;
	uint8_t *dev = xfsj_io_mem_buffer(mem);
	struct xfsj_overlay *ov;
	uint8_t buf[2 * PG];

	mem->lsectsize = 4096;
	ck_assert_int_eq(xfsj_overlay_create(mem, &ov), 0);
	ck_assert_int_eq(xfsj_overlay_io(ov, &io), 0);
	ck_assert_uint_eq(io->size, 6 * PG);
	ck_assert_uint_eq(io->lsectsize, 4096);
	ck_assert_uint_eq(io->psectsize, mem->psectsize);
	ck_assert(!io->readonly);
	ck_assert_ptr_nonnull(io->name);
	ck_assert_ptr_null(xfsj_io_mem_buffer(io));
	/* Writes and zeroing land in the overlay. */
	memset(buf, 0x5C, sizeof(buf));
	ck_assert_int_eq(xfsj_pwrite(io, buf, 100, PG - 50), 0);
	ck_assert_int_eq(xfsj_io_zero(io, 3 * PG + 10, PG + 20), 0);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov), 4);
	for (uint64_t i = 0; i < 6 * PG; i++)
		ck_assert_uint_eq(dev[i], pat(i));
	ck_assert_int_eq(xfsj_pread(io, buf, 2 * PG, 3 * PG), 0);
	ck_assert_uint_eq(buf[9], pat(3 * PG + 9));
	for (uint64_t i = 10; i < PG + 30; i++)
		ck_assert_uint_eq(buf[i], 0);
	ck_assert_uint_eq(buf[PG + 30], pat(4 * PG + 30));
	ck_assert_int_eq(xfsj_pread(io, buf, 1, PG + 49), 0);
	ck_assert_uint_eq(buf[0], 0x5C);
	/* Out of range; no growing; sync and discard write nothing. */
	ck_assert_int_ne(xfsj_pwrite(io, buf, 2, 6 * PG - 1), 0);
	ck_assert_int_ne(xfsj_pread(io, buf, 2, 6 * PG - 1), 0);
	ck_assert_int_eq(xfsj_io_zero(io, 6 * PG - 1, 2), -XFSJ_E_RANGE);
	ck_assert_int_eq(xfsj_io_extend(io, 6 * PG), 0);
	ck_assert_int_eq(xfsj_io_extend(io, 7 * PG), -XFSJ_E_TOOSMALL);
	ck_assert_int_eq(xfsj_io_discard(io, 0, 6 * PG), 0);
	ck_assert_int_eq(xfsj_io_sync(io), 0);
	for (uint64_t i = 0; i < 6 * PG; i++)
		ck_assert_uint_eq(dev[i], pat(i));
	/* Closing the backend keeps the overlay and its pages. */
	xfsj_io_close(io);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov), 4);
	ck_assert_int_eq(xfsj_overlay_read(ov, buf, 1, PG + 49), 0);
	ck_assert_uint_eq(buf[0], 0x5C);
	xfsj_overlay_free(ov);
	xfsj_io_close(mem);
}
END_TEST

/* Over a read-only file, for a dry run: writes still land in memory. */
START_TEST(backend_over_readonly)
{
	char path[] = "/tmp/xfsj-ovl-XXXXXX";
	int fd = mkstemp(path);
	struct xfsj_io *file, *io;
	struct xfsj_overlay *ov;
	uint8_t buf[PG];

	ck_assert_int_ge(fd, 0);
	memset(buf, 0x21, sizeof(buf));
	ck_assert_int_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
	ck_assert_int_eq(xfsj_io_open(path, XFSJ_IO_RDONLY, &file), 0);
	ck_assert_int_eq(xfsj_overlay_create(file, &ov), 0);
	ck_assert_int_eq(xfsj_overlay_io(ov, &io), 0);
	ck_assert(!io->readonly);
	memset(buf, 0x42, 8);
	ck_assert_int_eq(xfsj_pwrite(io, buf, 8, 100), 0);
	ck_assert_int_eq(xfsj_pread(io, buf, 16, 96), 0);
	ck_assert_uint_eq(buf[3], 0x21);
	ck_assert_uint_eq(buf[4], 0x42);
	ck_assert_uint_eq(buf[12], 0x21);
	xfsj_io_close(io);
	xfsj_overlay_free(ov);
	ck_assert_int_eq(xfsj_pread(file, buf, 8, 100), 0);
	ck_assert_uint_eq(buf[0], 0x21);
	xfsj_io_close(file);
	unlink(path);
}
END_TEST

/* Overlays stack: the upper one's writes do not reach the lower one. */
START_TEST(backend_stacks)
{
	struct xfsj_io *mem = patterned(4 * PG), *io1, *io2;
	struct xfsj_overlay *ov1, *ov2;
	uint8_t a = 0xA1, b = 0xB2, v;

	ck_assert_int_eq(xfsj_overlay_create(mem, &ov1), 0);
	ck_assert_int_eq(xfsj_overlay_io(ov1, &io1), 0);
	ck_assert_int_eq(xfsj_overlay_create(io1, &ov2), 0);
	ck_assert_int_eq(xfsj_overlay_io(ov2, &io2), 0);
	ck_assert_int_eq(xfsj_pwrite(io1, &a, 1, 10), 0);
	ck_assert_int_eq(xfsj_pwrite(io2, &b, 1, PG + 10), 0);
	ck_assert_int_eq(xfsj_pread(io2, &v, 1, 10), 0);
	ck_assert_uint_eq(v, 0xA1);
	ck_assert_int_eq(xfsj_pread(io1, &v, 1, PG + 10), 0);
	ck_assert_uint_eq(v, pat(PG + 10));
	ck_assert_int_eq(xfsj_pread(io2, &v, 1, PG + 10), 0);
	ck_assert_uint_eq(v, 0xB2);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov1), 1);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov2), 1);
	xfsj_io_close(io2);
	xfsj_overlay_free(ov2);
	xfsj_io_close(io1);
	xfsj_overlay_free(ov1);
	xfsj_io_close(mem);
}
END_TEST

/*
 * One write path: mkfs writing through the overlay backend, committed
 * through a redo file, leaves the bytes mkfs writes straight to the
 * device, and nothing reaches the device before the commit.
 */
START_TEST(backend_serves_mkfs)
{
	struct xfsj_newfs_opts o = { .now_sec = 1700000000, .gen = 7 };
	struct fs_fixture fx;
	struct xfsj_io *mem, *io, *rio;
	struct xfsj_overlay *ov;
	struct xfsj_fault f = { 0 };
	uint64_t pages = 0;
	const uint8_t *dev;
	bool zero = true;

	fs_fixture_make(&fx, 64ULL << 20, 4096, 2, true, false);
	ck_assert_int_eq(xfsj_io_open_mem(fx.io->size, &mem), 0);
	ck_assert_int_eq(xfsj_overlay_create(mem, &ov), 0);
	ck_assert_int_eq(xfsj_overlay_io(ov, &io), 0);
	memset(o.uuid, 0x5a, 16);
	ck_assert_int_eq(xfsj_newfs_write(io, &fx.g, &o, &f), 0);
	dev = xfsj_io_mem_buffer(mem);
	for (uint64_t i = 0; i < mem->size && zero; i++)
		zero = !dev[i];
	ck_assert(zero);
	ck_assert_int_eq(xfsj_io_open_mem(xfsj_overlay_dirty_pages(ov) *
					  (ENT + PG) + PG, &rio), 0);
	ck_assert_int_eq(xfsj_redo_commit_io(rio, ov, o.uuid, &pages, NULL),
			 0);
	ck_assert_uint_eq(pages, xfsj_overlay_dirty_pages(ov));
	ck_assert_mem_eq(dev, xfsj_io_mem_buffer(fx.io), mem->size);
	xfsj_io_close(rio);
	xfsj_io_close(io);
	xfsj_overlay_free(ov);
	xfsj_io_close(mem);
	fs_fixture_free(&fx);
}
END_TEST

struct written_seen {
	uint64_t off[8];
	unsigned int sectors[8];
	int n;
};

static int on_written(void *arg, uint64_t off, unsigned int sectors)
{
	struct written_seen *w = arg;

	ck_assert_int_lt(w->n, 8);
	w->off[w->n] = off;
	w->sectors[w->n] = sectors;
	w->n++;
	return 0;
}

/* The mask the walk gave page @off, or -1 when it gave none. */
static int mask_of(const struct written_seen *w, uint64_t off)
{
	for (int i = 0; i < w->n; i++)
		if (w->off[i] == off)
			return (int)w->sectors[i];
	return -1;
}

START_TEST(write_epochs)
{
	struct xfsj_io *io = patterned(10 * PG);
	struct xfsj_overlay *ov;
	struct written_seen w = { .n = 0 };
	uint8_t buf[2 * PG] = { 0 };
	uint32_t e1, e2;

	ck_assert_int_eq(xfsj_overlay_create(io, &ov), 0);
	/* Before any epoch: page 0. */
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 512, 0), 0);
	e1 = xfsj_overlay_new_epoch(ov);
	/* Sectors 1 of page 2, 6-7 of page 3 and 0 of page 4 (one write
	 * across pages), the second half of sector 3 of page 5. */
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 512, 2 * PG + 512), 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 1024 + 100,
					    3 * PG + 6 * 512), 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 256,
					    5 * PG + 3 * 512 + 256), 0);
	ck_assert_int_eq(xfsj_overlay_each_written(ov, e1, on_written, &w), 0);
	ck_assert_int_eq(w.n, 4);
	ck_assert_int_eq(mask_of(&w, 0), -1);
	ck_assert_int_eq(mask_of(&w, 2 * PG), 0x02);
	ck_assert_int_eq(mask_of(&w, 3 * PG), 0xc0);
	ck_assert_int_eq(mask_of(&w, 4 * PG), 0x01);
	ck_assert_int_eq(mask_of(&w, 5 * PG), 0x08);

	/* The next epoch: only what it wrote, its mask its own. */
	e2 = xfsj_overlay_new_epoch(ov);
	ck_assert_uint_gt(e2, e1);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 512, 2 * PG + 7 * 512), 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 512, 0), 0);
	w.n = 0;
	ck_assert_int_eq(xfsj_overlay_each_written(ov, e2, on_written, &w), 0);
	ck_assert_int_eq(w.n, 2);
	ck_assert_int_eq(mask_of(&w, 2 * PG), 0x80);
	ck_assert_int_eq(mask_of(&w, 0), 0x01);
	/* From the first epoch on: the pages of both. */
	w.n = 0;
	ck_assert_int_eq(xfsj_overlay_each_written(ov, e1, on_written, &w), 0);
	ck_assert_int_eq(w.n, 5);
	xfsj_overlay_free(ov);
	xfsj_io_close(io);
}
END_TEST

Suite *overlay_suite(void)
{
	Suite *s = suite_create("overlay");
	TCase *tc = tcase_create("overlay");

	tcase_add_test(tc, reads_through);
	tcase_add_test(tc, readv_pieces);
	tcase_add_test(tc, writes_stay_in_overlay);
	tcase_add_test(tc, bounds_and_short_last_page);
	tcase_add_test(tc, many_pages);
	tcase_add_test(tc, device_errors);
	tcase_add_test(tc, write_epochs);
	suite_add_tcase(s, tc);
	tc = tcase_create("backend");
	tcase_add_test(tc, backend_basics);
	tcase_add_test(tc, backend_over_readonly);
	tcase_add_test(tc, backend_stacks);
	tcase_add_test(tc, backend_serves_mkfs);
	suite_add_tcase(s, tc);
	return s;
}
