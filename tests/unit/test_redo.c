/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The redo file (save, apply, incomplete and foreign files), the clean
 * log written after a replay, and the commit through the redo file under
 * the fault backend: after an error or a power cut at any write or sync,
 * with unsynced writes dropped, kept or torn, running again gives the
 * bytes of an uninterrupted commit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log_synth.h"
#include "suites.h"
#include "xfsj/errors.h"
#include "xfsj/io.h"
#include "xfsj/logread.h"
#include "xfsj/redo.h"
#include "core/io_fault.h"
#include "core/overlay.h"

#define PG		XFSJ_OVL_PAGE
#define ENT		(16 + 32)		/* a page entry: version 2 */
#define DEV_SIZE	(48 * PG + 1000)	/* the last page is short */
#define NPAGES		9			/* dirty pages of changes() */
#define REDO_LEN	(48 + NPAGES * (ENT + PG) + 12)

static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8,
				  9, 10, 11, 12, 13, 14, 15, 16 };

static struct xfsj_io *orig_dev(void)
{
	static uint8_t img[DEV_SIZE];
	struct xfsj_io *io;
	uint64_t x = 1;

	/* Bytes from a linear congruential generator, the same every time. */
	for (uint64_t i = 0; i < DEV_SIZE; i++, x = x * 6364136223846793005ULL +
						 1442695040888963407ULL)
		img[i] = (uint8_t)(x >> 56);
	ck_assert_int_eq(xfsj_io_open_mem_copy(img, DEV_SIZE, &io), 0);
	return io;
}

/* What a replay might leave: runs, single bytes, the short last page. */
static void changes(struct xfsj_overlay *ov)
{
	static uint8_t buf[4 * PG];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(0x80 ^ i);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 200, 100), 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 4 * PG, 3 * PG), 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 1, 20 * PG + 5), 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 64, 31 * PG - 32), 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 100, DEV_SIZE - 100), 0);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov), NPAGES);
}

/* The device after changes(), read through an overlay. */
static uint8_t *expected(void)
{
	struct xfsj_io *io = orig_dev();
	struct xfsj_overlay *ov;
	uint8_t *want = malloc(DEV_SIZE);

	ck_assert_ptr_nonnull(want);
	ck_assert_int_eq(xfsj_overlay_create(io, &ov), 0);
	changes(ov);
	ck_assert_int_eq(xfsj_overlay_read(ov, want, DEV_SIZE, 0), 0);
	xfsj_overlay_free(ov);
	xfsj_io_close(io);
	return want;
}

static bool untouched(struct xfsj_io *io)
{
	struct xfsj_io *o = orig_dev();
	bool same = !memcmp(xfsj_io_mem_buffer(io), xfsj_io_mem_buffer(o),
			    DEV_SIZE);

	xfsj_io_close(o);
	return same;
}

static char tmpdir[64];
static char path[128];

static void setup(void)
{
	strcpy(tmpdir, "/tmp/xfsj-redo-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(path, sizeof(path), "%s/redo", tmpdir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(tmpdir);
}

static bool exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

struct progress {
	uint64_t calls, last_done, last_total;
};

static void on_page(void *arg, uint64_t done, uint64_t total)
{
	struct progress *p = arg;

	p->calls++;
	p->last_done = done;
	p->last_total = total;
}

/* A complete redo file of changes() at @path; the device untouched. */
static void save_changes(struct xfsj_io *dev)
{
	struct xfsj_overlay *ov;

	ck_assert_int_eq(xfsj_overlay_create(dev, &ov), 0);
	changes(ov);
	ck_assert_int_eq(xfsj_redo_save(path, ov, uuid, DEV_SIZE, NULL), 0);
	xfsj_overlay_free(ov);
}

START_TEST(save_then_apply)
{
	struct xfsj_io *dev = orig_dev();
	struct xfsj_overlay *ov;
	struct progress ps = { 0 }, pa = { 0 };
	struct xfsj_redo_cb cbs = { on_page, &ps }, cba = { on_page, &pa };
	uint8_t *want = expected();
	uint64_t pages = 99;
	bool applied = true;
	struct stat st;

	ck_assert_int_eq(xfsj_overlay_create(dev, &ov), 0);
	changes(ov);
	ck_assert_int_eq(xfsj_redo_save(path, ov, uuid, DEV_SIZE, &cbs), 0);
	ck_assert_uint_eq(ps.calls, NPAGES);
	ck_assert_uint_eq(ps.last_done, NPAGES);
	ck_assert_uint_eq(ps.last_total, NPAGES);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, REDO_LEN);
	ck_assert_int_eq(st.st_mode & 0777, 0600);	/* metadata: private */
	ck_assert(untouched(dev));
	xfsj_overlay_free(ov);

	ck_assert_int_eq(xfsj_redo_apply(path, dev, uuid, &applied, &pages,
					 &cba), 0);
	ck_assert(applied);
	ck_assert_uint_eq(pages, NPAGES);
	ck_assert_uint_eq(pa.calls, NPAGES);
	ck_assert_uint_eq(pa.last_done, NPAGES);
	ck_assert_mem_eq(xfsj_io_mem_buffer(dev), want, DEV_SIZE);
	ck_assert(!exists(path));
	/* No redo file: nothing to do, not an error. */
	ck_assert_int_eq(xfsj_redo_apply(path, dev, uuid, &applied, &pages,
					 NULL), 0);
	ck_assert(!applied);
	ck_assert_uint_eq(pages, 0);
	ck_assert_int_eq(xfsj_redo_apply(path, dev, uuid, &applied, NULL,
					 NULL), 0);
	free(want);
	xfsj_io_close(dev);
}
END_TEST

static uint8_t *read_file(size_t *len)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *b = malloc(REDO_LEN + 1);

	ck_assert_ptr_nonnull(fp);
	ck_assert_ptr_nonnull(b);
	*len = fread(b, 1, REDO_LEN + 1, fp);
	fclose(fp);
	return b;
}

static void write_file(const uint8_t *b, size_t len)
{
	FILE *fp = fopen(path, "wb");

	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(b, 1, len, fp), len);
	fclose(fp);
}

/* Cut short or damaged anywhere: never applied, removed, device as was. */
START_TEST(incomplete_is_never_applied)
{
	static const size_t cuts[] = { 0, 7, 47, 48, 60, 48 + ENT + PG,
				       48 + 3 * (ENT + PG) + 1000,
				       REDO_LEN - 12, REDO_LEN - 1 };
	/* Bytes to flip: magic, a page, an entry's CRC, trailer, its CRC. */
	static const size_t flips[] = { 0, 48 + ENT + 77, 48 + 8,
					48 + 5 * (ENT + PG) + 9, REDO_LEN - 12,
					REDO_LEN - 2 };
	struct xfsj_io *dev = orig_dev();
	uint8_t *file;
	size_t len;
	bool applied = true;

	save_changes(dev);
	file = read_file(&len);
	ck_assert_uint_eq(len, REDO_LEN);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		write_file(file, cuts[i]);
		ck_assert_int_eq(xfsj_redo_apply(path, dev, uuid, &applied,
						 NULL, NULL), 0);
		ck_assert(!applied);
		ck_assert(!exists(path));
		ck_assert(untouched(dev));
	}
	for (size_t i = 0; i < sizeof(flips) / sizeof(flips[0]); i++) {
		file[flips[i]] ^= 0x10;
		write_file(file, len);
		file[flips[i]] ^= 0x10;
		ck_assert_int_eq(xfsj_redo_apply(path, dev, uuid, &applied,
						 NULL, NULL), 0);
		ck_assert(!applied);
		ck_assert(!exists(path));
		ck_assert(untouched(dev));
	}
	/* Bytes after the trailer do not matter. */
	file[len] = 0x77;
	write_file(file, len + 1);
	ck_assert_int_eq(xfsj_redo_apply(path, dev, uuid, &applied, NULL,
					 NULL), 0);
	ck_assert(applied);
	free(file);
	xfsj_io_close(dev);
}
END_TEST

/* Another filesystem's, or another size's, redo file is left alone. */
START_TEST(foreign_files_refused)
{
	struct xfsj_io *dev = orig_dev(), *small;
	uint8_t other[16];
	bool applied = true;

	save_changes(dev);
	memcpy(other, uuid, 16);
	other[15] ^= 1;
	ck_assert_int_eq(xfsj_redo_apply(path, dev, other, &applied, NULL,
					 NULL), -XFSJ_E_CONFLICT);
	ck_assert(!applied);
	ck_assert(exists(path));
	ck_assert_int_eq(xfsj_io_open_mem(DEV_SIZE - 1, &small), 0);
	ck_assert_int_eq(xfsj_redo_apply(path, small, uuid, &applied, NULL,
					 NULL), -XFSJ_E_CONFLICT);
	ck_assert(exists(path));
	ck_assert(untouched(dev));
	xfsj_io_close(small);
	/* A directory is no redo file; a missing directory takes none. */
	ck_assert_int_eq(xfsj_redo_apply(tmpdir, dev, uuid, &applied, NULL,
					 NULL), -XFSJ_E_OPEN);
	ck_assert(exists(tmpdir));
	{
		struct xfsj_overlay *ov;
		char bad[200];

		snprintf(bad, sizeof(bad), "%s/no/such/dir", tmpdir);
		ck_assert_int_eq(xfsj_overlay_create(dev, &ov), 0);
		changes(ov);
		ck_assert_int_eq(xfsj_redo_save(bad, ov, uuid, DEV_SIZE, NULL),
				 -XFSJ_E_OPEN);
		ck_assert_int_eq(xfsj_redo_commit(bad, ov, uuid, NULL, NULL),
				 -XFSJ_E_OPEN);
		xfsj_overlay_free(ov);
	}
	ck_assert(untouched(dev));
	xfsj_io_close(dev);
}
END_TEST

/*
 * A redo file is applied only to the device it was made for: every
 * sector it writes must hold its old or its new contents (a copy killed
 * half way, a torn page included); a copy of the same filesystem that
 * differs in a page the file writes is refused, untouched, file kept.
 */
START_TEST(stale_device_refused)
{
	struct xfsj_io *dev = orig_dev(), *other = orig_dev();
	uint8_t *want = expected();
	uint8_t *o = xfsj_io_mem_buffer(other), *d = xfsj_io_mem_buffer(dev);
	uint8_t *keep = malloc(DEV_SIZE);
	bool applied = true;

	ck_assert_ptr_nonnull(keep);
	save_changes(dev);
	/* Another copy: one byte differs in a page the file writes. */
	o[20 * PG + 300] ^= 0x40;
	memcpy(keep, o, DEV_SIZE);
	ck_assert_int_eq(xfsj_redo_apply(path, other, uuid, &applied, NULL,
					 NULL), -XFSJ_E_STALE);
	ck_assert(!applied);
	ck_assert(exists(path));
	ck_assert_mem_eq(o, keep, DEV_SIZE);
	{
		uint64_t pages;
		uint32_t tag;

		ck_assert_int_eq(xfsj_redo_pending(path, other, uuid, &pages,
						   &tag), -XFSJ_E_STALE);
		ck_assert_int_eq(xfsj_redo_pending(path, dev, uuid, &pages,
						   &tag), 1);
	}
	/* Killed while copying: some pages new, one torn at a sector. */
	memcpy(d + 3 * PG, want + 3 * PG, 2 * PG);
	memcpy(d + 20 * PG, want + 20 * PG, 4 * XFSJ_BBSIZE);
	memcpy(d + 48 * PG, want + 48 * PG, 1000);	/* the short page */
	ck_assert_int_eq(xfsj_redo_apply(path, dev, uuid, &applied, NULL,
					 NULL), 0);
	ck_assert(applied);
	ck_assert_mem_eq(d, want, DEV_SIZE);
	ck_assert(!exists(path));
	/* A difference outside the pages it writes is not seen. */
	xfsj_io_close(dev);
	dev = orig_dev();
	save_changes(dev);
	memcpy(o, xfsj_io_mem_buffer(dev), DEV_SIZE);
	o[40 * PG] ^= 1;
	ck_assert_int_eq(xfsj_redo_apply(path, other, uuid, &applied, NULL,
					 NULL), 0);
	ck_assert(applied);
	free(keep);
	free(want);
	xfsj_io_close(other);
	xfsj_io_close(dev);
}
END_TEST

START_TEST(commit_path)
{
	struct xfsj_io *dev = orig_dev();
	struct xfsj_overlay *ov;
	uint8_t *want = expected();
	uint64_t pages = 0;

	/* Nothing to write: an empty redo file, the device as it was. */
	ck_assert_int_eq(xfsj_overlay_create(dev, &ov), 0);
	ck_assert_int_eq(xfsj_redo_commit(path, ov, uuid, &pages, NULL), 0);
	ck_assert_uint_eq(pages, 0);
	ck_assert(untouched(dev));
	changes(ov);
	ck_assert_int_eq(xfsj_redo_commit(path, ov, uuid, &pages, NULL), 0);
	ck_assert_uint_eq(pages, NPAGES);
	ck_assert_mem_eq(xfsj_io_mem_buffer(dev), want, DEV_SIZE);
	ck_assert(!exists(path));
	xfsj_overlay_free(ov);
	free(want);
	xfsj_io_close(dev);
}
END_TEST

/*
 * The device fails the Nth write or sync of the copy: the error comes
 * back, the complete redo file stays, and applying it later finishes.
 */
START_TEST(commit_path_device_errors)
{
	uint8_t *want = expected();

	for (uint64_t n = 1;; n++) {
		struct xfsj_io *mem = orig_dev(), *dev;
		struct xfsj_fault_plan plan = {
			.ops = XFSJ_FOP_WRITE | XFSJ_FOP_SYNC, .at = n,
			.kind = XFSJ_FAULT_ERROR };
		struct xfsj_overlay *ov;
		bool applied = false, fired;
		int err;

		ck_assert_int_eq(xfsj_io_fault(mem, &plan, &dev), 0);
		ck_assert_int_eq(xfsj_overlay_create(dev, &ov), 0);
		changes(ov);
		err = xfsj_redo_commit(path, ov, uuid, NULL, NULL);
		fired = plan.fired;
		xfsj_overlay_free(ov);
		xfsj_io_close(dev);
		xfsj_fault_plan_end(&plan);
		if (!fired) {
			ck_assert_int_eq(err, 0);
			ck_assert_uint_gt(n, 2);
			xfsj_io_close(mem);
			break;
		}
		ck_assert_int_eq(err, -XFSJ_E_IO);
		ck_assert(exists(path));
		ck_assert_int_eq(xfsj_redo_apply(path, mem, uuid, &applied,
						 NULL, NULL), 0);
		ck_assert(applied);
		ck_assert_mem_eq(xfsj_io_mem_buffer(mem), want, DEV_SIZE);
		xfsj_io_close(mem);
	}
	free(want);
}
END_TEST

/* The redo file behind any backend; "removing" it zeroes its header. */
START_TEST(redo_behind_io)
{
	struct xfsj_io *dev = orig_dev(), *rio;
	struct xfsj_overlay *ov;
	uint8_t *want = expected(), zero[48] = { 0 };
	uint64_t pages = 0;
	bool applied = false;

	ck_assert_int_eq(xfsj_io_open_mem(REDO_LEN + 5000, &rio), 0);
	memset(xfsj_io_mem_buffer(rio), 0xC3, REDO_LEN + 5000);
	ck_assert_int_eq(xfsj_overlay_create(dev, &ov), 0);
	changes(ov);
	ck_assert_int_eq(xfsj_redo_save_io(rio, ov, uuid, DEV_SIZE, NULL), 0);
	ck_assert(untouched(dev));
	ck_assert_int_eq(xfsj_redo_apply_io(rio, dev, uuid, &applied, &pages,
					    NULL), 0);
	ck_assert(applied);
	ck_assert_uint_eq(pages, NPAGES);
	ck_assert_mem_eq(xfsj_io_mem_buffer(dev), want, DEV_SIZE);
	ck_assert_mem_eq(xfsj_io_mem_buffer(rio), zero, sizeof(zero));
	ck_assert_int_eq(xfsj_redo_apply_io(rio, dev, uuid, &applied, &pages,
					    NULL), 0);
	ck_assert(!applied);
	ck_assert_uint_eq(pages, 0);
	/* A redo file too big for its device: the error, not silence. */
	xfsj_io_close(rio);
	ck_assert_int_eq(xfsj_io_open_mem(REDO_LEN - 1, &rio), 0);
	ck_assert_int_ne(xfsj_redo_commit_io(rio, ov, uuid, NULL, NULL), 0);
	ck_assert_int_eq(xfsj_redo_discard(rio), 0);
	xfsj_io_close(rio);
	ck_assert_int_eq(xfsj_io_open_mem(0, &rio), 0);
	ck_assert_int_eq(xfsj_redo_discard(rio), 0);
	xfsj_io_close(rio);
	xfsj_overlay_free(ov);
	free(want);
	xfsj_io_close(dev);
}
END_TEST

/*
 * A read error while checking or copying a complete redo file is an
 * error: the file must stay, or the device could be left half written
 * with nothing to finish it.
 */
START_TEST(read_error_keeps_redo)
{
	uint8_t *want = expected();
	bool done = false;

	for (uint64_t n = 1; !done; n++) {
		struct xfsj_io *dev = orig_dev(), *mem, *rio;
		struct xfsj_fault_plan plan = { .ops = XFSJ_FOP_READ, .at = n,
						.kind = XFSJ_FAULT_ERROR };
		struct xfsj_overlay *ov;
		bool applied = true;
		int err;

		ck_assert_int_eq(xfsj_io_open_mem(REDO_LEN, &mem), 0);
		ck_assert_int_eq(xfsj_overlay_create(dev, &ov), 0);
		changes(ov);
		ck_assert_int_eq(xfsj_redo_save_io(mem, ov, uuid, DEV_SIZE,
						   NULL), 0);
		xfsj_overlay_free(ov);
		ck_assert_int_eq(xfsj_io_fault(mem, &plan, &rio), 0);
		err = xfsj_redo_apply_io(rio, dev, uuid, &applied, NULL, NULL);
		done = !plan.fired;
		ck_assert_int_eq(err, done ? 0 : -XFSJ_E_IO);
		ck_assert(applied == done);
		xfsj_io_close(rio);
		xfsj_fault_plan_end(&plan);
		if (!done) {
			ck_assert_int_eq(xfsj_redo_apply_io(mem, dev, uuid,
							    &applied, NULL,
							    NULL), 0);
			ck_assert(applied);
		}
		ck_assert_mem_eq(xfsj_io_mem_buffer(dev), want, DEV_SIZE);
		xfsj_io_close(mem);
		xfsj_io_close(dev);
	}
	free(want);
}
END_TEST

/* ---- the clean log ---- */

struct logdev {
	struct xfsj_sb sb;
	uint64_t base;
	uint32_t logbb;
};

static int find_ht(struct xfsj_io *io, struct xfsj_log_ht *ht,
		   struct logdev *ld)
{
	struct xfsj_fault f = { 0 };
	struct xfsj_log *log;
	int err;

	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
	if (ld) {
		ld->sb = xfsj_log_geom(log)->sb;
		ld->base = xfsj_log_geom(log)->dev_off;
		ld->logbb = xfsj_log_geom(log)->size_bb;
	}
	err = xfsj_log_find_head_tail(log, ht, &f);
	xfsj_log_close(log);
	return err;
}

/* Write a clean log at @head in @cycle and read it back through the overlay. */
static void clean_and_check(struct xfsj_io *dev, const struct logdev *ld,
			    uint32_t head, uint32_t cycle)
{
	struct xfsj_fault f = { 0 };
	struct xfsj_overlay *ov;
	struct xfsj_io *io;
	struct xfsj_log_ht ht;
	uint32_t want = (head + 2) % ld->logbb;

	ck_assert_int_eq(xfsj_overlay_create(dev, &ov), 0);
	ck_assert_int_eq(xfsj_log_write_clean(ov, &ld->sb, ld->base, head,
					      cycle, &f), 0);
	ck_assert_int_eq(xfsj_overlay_io(ov, &io), 0);
	ck_assert_int_eq(find_ht(io, &ht, NULL), 0);
	ck_assert(ht.clean);
	ck_assert(!ht.torn);
	ck_assert(!ht.verify_failed);
	ck_assert_uint_eq(ht.head_blk, want);
	ck_assert_uint_eq(ht.tail_blk, want);
	ck_assert_uint_eq(ht.cycle, want < head ? cycle + 1 : cycle);
	xfsj_io_close(io);
	xfsj_overlay_free(ov);
}

/* A dirty log of @logbb blocks, @ntrans small checkpoints. */
static struct xfsj_io *dirty_log(uint32_t logbb, int ntrans)
{
	struct synth s;
	struct xfsj_io *io;

	synth_init(&s, logbb, 32768);
	for (int i = 0; i < ntrans; i++) {
		/* A checkpoint logging one buffer's format only. */
		uint8_t fmt[128];
		uint32_t tid = 0x200 + (uint32_t)i;

		synth_start(&s, tid, 1);
		synth_region(&s, tid, fmt, synth_buf_fmt(fmt, 64 + 8 * (uint64_t)i,
							 8, 0, 1, 1));
		synth_commit(&s, tid);
		synth_flush(&s);
	}
	io = synth_io(&s);
	ck_assert_ptr_nonnull(io);
	synth_free(&s);
	return io;
}

START_TEST(clean_log_after_dirty)
{
	struct xfsj_io *dev = dirty_log(2048, 10);
	struct xfsj_log_ht ht;
	struct logdev ld;
	uint8_t *before = malloc(dev->size);

	ck_assert_ptr_nonnull(before);
	memcpy(before, xfsj_io_mem_buffer(dev), dev->size);
	ck_assert_int_eq(find_ht(dev, &ht, &ld), 0);
	ck_assert(!ht.clean);
	ck_assert_uint_gt(ht.head_blk, 0);
	clean_and_check(dev, &ld, ht.head_blk, ht.cycle);
	/* Only the overlay was written. */
	ck_assert_mem_eq(xfsj_io_mem_buffer(dev), before, dev->size);
	free(before);
	xfsj_io_close(dev);
}
END_TEST

/* Heads at the start, in the middle, and where the record wraps. */
START_TEST(clean_log_wraps)
{
	struct xfsj_io *dev = dirty_log(1024, 0);
	struct xfsj_log_ht ht;
	struct logdev ld;

	ck_assert_int_eq(find_ht(dev, &ht, &ld), 0);
	ck_assert(ht.zeroed);
	ck_assert_uint_eq(ld.logbb, 1024);
	clean_and_check(dev, &ld, 0, 1);
	clean_and_check(dev, &ld, 500, 1);
	clean_and_check(dev, &ld, 500, 7);
	clean_and_check(dev, &ld, 1021, 2);
	clean_and_check(dev, &ld, 1022, 2);	/* ends at the end */
	clean_and_check(dev, &ld, 1023, 3);	/* wraps to block 0 */
	xfsj_io_close(dev);
}
END_TEST

START_TEST(clean_log_errors)
{
	struct xfsj_io *mem = dirty_log(1024, 3), *dev;
	struct xfsj_fault_plan plan = { .ops = XFSJ_FOP_READ, .at = 1,
					.kind = XFSJ_FAULT_ERROR };
	struct xfsj_fault f = { 0 };
	struct xfsj_overlay *ov;
	struct xfsj_log_ht ht;
	struct logdev ld;

	ck_assert_int_eq(find_ht(mem, &ht, &ld), 0);
	ck_assert_int_eq(xfsj_overlay_create(mem, &ov), 0);
	ck_assert_int_eq(xfsj_log_write_clean(ov, &ld.sb, ld.base, 1024, 1,
					      &f), -XFSJ_E_RANGE);
	ck_assert_str_eq(f.structure, "log");
	ck_assert_str_eq(f.field, "head");
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov), 0);
	xfsj_overlay_free(ov);
	/* The device's read error (read-modify-write of a page) comes back. */
	ck_assert_int_eq(xfsj_io_fault(mem, &plan, &dev), 0);
	ck_assert_int_eq(xfsj_overlay_create(dev, &ov), 0);
	ck_assert_int_eq(xfsj_log_write_clean(ov, &ld.sb, ld.base, ht.head_blk,
					      ht.cycle, &f), -XFSJ_E_IO);
	xfsj_overlay_free(ov);
	xfsj_io_close(dev);
	xfsj_fault_plan_end(&plan);
	xfsj_io_close(mem);
}
END_TEST

/* ---- the commit under faults ---- */

/*
 * The disks that outlive a run: a dirty log on the device, a redo file
 * behind memory; what a replay would write: a clean log and a superblock
 * change.
 */
struct world {
	struct xfsj_io *dev, *redo;
	uint8_t *orig, *want;
	size_t size;
	struct logdev ld;
	struct xfsj_log_ht ht;
};

static int replay(struct world *w, struct xfsj_overlay *ov)
{
	static const uint8_t mark[8] = "REPLAYED";
	struct xfsj_fault f = { 0 };
	int err = xfsj_overlay_write(ov, mark, sizeof(mark), 400);

	return err ? err : xfsj_log_write_clean(ov, &w->ld.sb, w->ld.base,
						w->ht.head_blk, w->ht.cycle,
						&f);
}

/*
 * One run of the tool: finish a complete redo file if there is one;
 * otherwise replay and commit.  Without a complete redo file the device
 * must be as it was or as an uninterrupted commit leaves it.
 */
static int run(struct world *w, struct xfsj_fault_plan *plan)
{
	struct xfsj_io *dev, *rio;
	struct xfsj_overlay *ov;
	bool applied = false;
	int err;

	ck_assert_int_eq(xfsj_io_fault(w->dev, plan, &dev), 0);
	ck_assert_int_eq(xfsj_io_fault(w->redo, plan, &rio), 0);
	err = xfsj_redo_apply_io(rio, dev, w->ld.sb.uuid, &applied, NULL,
				 NULL);
	if (!err && !applied) {
		const uint8_t *now = xfsj_io_mem_buffer(w->dev);

		ck_assert(!memcmp(now, w->orig, w->size) ||
			  !memcmp(now, w->want, w->size));
		ck_assert_int_eq(xfsj_overlay_create(dev, &ov), 0);
		err = replay(w, ov);
		if (!err)
			err = xfsj_redo_commit_io(rio, ov, w->ld.sb.uuid, NULL,
						  NULL);
		xfsj_overlay_free(ov);
	}
	xfsj_io_close(dev);
	xfsj_io_close(rio);
	xfsj_fault_plan_end(plan);
	/* A fault that fired is reported; none, no error. */
	if (plan->fired)
		ck_assert_int_ne(err, 0);
	else
		ck_assert_int_eq(err, 0);
	return err;
}

static void world_reset(struct world *w)
{
	memcpy(xfsj_io_mem_buffer(w->dev), w->orig, w->size);
	memset(xfsj_io_mem_buffer(w->redo), 0, w->redo->size);
}

static void world_make(struct world *w)
{
	struct xfsj_fault_plan plan = { .ops = 0 };
	struct xfsj_log_ht ht;

	memset(w, 0, sizeof(*w));
	/* 2 MiB of log: a redo file of several writes, copied in runs. */
	w->dev = dirty_log(4096, 12);
	w->size = w->dev->size;
	ck_assert_int_eq(find_ht(w->dev, &w->ht, &w->ld), 0);
	ck_assert(!w->ht.clean);
	ck_assert_int_eq(xfsj_io_open_mem(3 << 20, &w->redo), 0);
	w->orig = malloc(w->size);
	w->want = malloc(w->size);
	ck_assert_ptr_nonnull(w->orig);
	ck_assert_ptr_nonnull(w->want);
	memcpy(w->orig, xfsj_io_mem_buffer(w->dev), w->size);
	/* What an uninterrupted run leaves. */
	memcpy(w->want, w->orig, w->size);
	ck_assert_int_eq(run(w, &plan), 0);
	memcpy(w->want, xfsj_io_mem_buffer(w->dev), w->size);
	ck_assert_int_ne(memcmp(w->want, w->orig, w->size), 0);
	ck_assert_int_eq(find_ht(w->dev, &ht, NULL), 0);
	ck_assert(ht.clean);
	world_reset(w);
}

static void world_free(struct world *w)
{
	xfsj_io_close(w->dev);
	xfsj_io_close(w->redo);
	free(w->orig);
	free(w->want);
}

/* Operations an uninterrupted run makes, of the kinds in @ops. */
static uint64_t count_ops(struct world *w, unsigned int ops)
{
	struct xfsj_fault_plan plan = { .ops = ops };

	ck_assert_int_eq(run(w, &plan), 0);
	world_reset(w);
	return plan.count;
}

/*
 * A fault at operation @n of the first run, a power cut at @m of the
 * second (0: none), then a run that goes through: the device ends as an
 * uninterrupted run leaves it, and no redo file is left.
 */
static void fault_then_rerun(struct world *w, unsigned int ops, uint64_t n,
			     enum xfsj_fault_kind kind, bool keep,
			     uint64_t seed, uint64_t m)
{
	struct xfsj_fault_plan p1 = { .ops = ops, .at = n, .kind = kind,
				      .keep_some = keep, .seed = seed };
	struct xfsj_fault_plan p2 = { .ops = XFSJ_FOP_WRITE | XFSJ_FOP_SYNC,
				      .at = m, .kind = XFSJ_FAULT_CRASH,
				      .keep_some = keep, .seed = seed + 1 };
	struct xfsj_fault_plan p3 = { .ops = 0 };
	bool applied = true;

	world_reset(w);
	run(w, &p1);
	ck_assert(p1.fired);
	ck_assert(p1.crashed == (kind == XFSJ_FAULT_CRASH));
	ck_assert_int_eq(p1.crash_err, 0);
	if (m)
		run(w, &p2);
	ck_assert_int_eq(run(w, &p3), 0);
	ck_assert(!memcmp(xfsj_io_mem_buffer(w->dev), w->want, w->size));
	ck_assert_int_eq(xfsj_redo_apply_io(w->redo, w->dev, w->ld.sb.uuid,
					    &applied, NULL, NULL), 0);
	ck_assert(!applied);
}

START_TEST(commit_crash_every_point)
{
	const unsigned int ops = XFSJ_FOP_WRITE | XFSJ_FOP_SYNC;
	struct world w;
	uint64_t total, torn = 0, kept = 0;

	world_make(&w);
	total = count_ops(&w, ops);
	/* Redo: discard + 3 writes and a sync; copy: 3 runs and a sync. */
	ck_assert_uint_ge(total, 10);
	for (uint64_t n = 1; n <= total; n++) {
		/* Every unsynced write lost, then the same kept or torn. */
		fault_then_rerun(&w, ops, n, XFSJ_FAULT_CRASH, false, 0, 0);
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct xfsj_fault_plan p = { .ops = ops, .at = n,
						     .kind = XFSJ_FAULT_CRASH,
						     .keep_some = true,
						     .seed = seed };

			world_reset(&w);
			run(&w, &p);
			torn += p.torn;
			kept += p.kept;
			fault_then_rerun(&w, ops, n, XFSJ_FAULT_CRASH, true,
					 seed, 0);
		}
		/* A second power cut while finishing the first. */
		for (uint64_t m = 1; m <= 4; m++)
			fault_then_rerun(&w, ops, n, XFSJ_FAULT_CRASH, true,
					 n * 7 + m, m);
	}
	ck_assert_uint_gt(torn, 0);
	ck_assert_uint_gt(kept, 0);
	world_free(&w);
}
END_TEST

START_TEST(commit_error_every_point)
{
	const unsigned int ops = XFSJ_FOP_WRITE | XFSJ_FOP_SYNC;
	struct world w;
	uint64_t total, reads;

	world_make(&w);
	total = count_ops(&w, ops);
	for (uint64_t n = 1; n <= total; n++)
		fault_then_rerun(&w, ops, n, XFSJ_FAULT_ERROR, false, 0, 0);
	/* Read errors: of the redo file, and of the device under the overlay. */
	reads = count_ops(&w, XFSJ_FOP_READ);
	ck_assert_uint_gt(reads, 100);
	for (uint64_t n = 1; n <= reads; n += n < 8 ? 1 : 61)
		fault_then_rerun(&w, XFSJ_FOP_READ, n, XFSJ_FAULT_ERROR,
				 false, 0, 0);
	fault_then_rerun(&w, XFSJ_FOP_READ, reads, XFSJ_FAULT_ERROR, false,
			 0, 0);
	world_free(&w);
}
END_TEST

Suite *redo_suite(void)
{
	Suite *s = suite_create("redo");
	TCase *tc = tcase_create("redo_file");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, save_then_apply);
	tcase_add_test(tc, incomplete_is_never_applied);
	tcase_add_test(tc, foreign_files_refused);
	tcase_add_test(tc, stale_device_refused);
	tcase_add_test(tc, commit_path);
	tcase_add_test(tc, commit_path_device_errors);
	tcase_add_test(tc, redo_behind_io);
	tcase_add_test(tc, read_error_keeps_redo);
	suite_add_tcase(s, tc);
	tc = tcase_create("clean_log");
	tcase_add_test(tc, clean_log_after_dirty);
	tcase_add_test(tc, clean_log_wraps);
	tcase_add_test(tc, clean_log_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("commit_faults");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, commit_crash_every_point);
	tcase_add_test(tc, commit_error_every_point);
	suite_add_tcase(s, tc);
	return s;
}
