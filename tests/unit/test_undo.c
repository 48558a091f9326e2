/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Undo files: a commit with an undo file, undone, gives back the old
 * bytes; applying twice is harmless; incomplete, damaged, foreign or
 * outdated undo files are refused without a write; and under the fault
 * backend, a power cut at every write and sync of a commit with an undo
 * file, then a run that finishes it, then applying the undo file gives
 * back the device as it was before the commit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suites.h"
#include "xfsj/errors.h"
#include "xfsj/io.h"
#include "xfsj/redo.h"
#include "xfsj/undo.h"
#include "core/io_fault.h"
#include "core/overlay.h"

#define PG		XFSJ_OVL_PAGE
#define DSIZE		(40 * PG + 700)		/* a short last page */
#define DIRTY		8			/* pages dirtied by edit() */
#define UNDO_LEN	(64 + DIRTY * (16 + PG) + 4 + 16)
#define FILE_ROOM	(64 * 1024)

/* The device before the commit: bytes of a xorshift generator. */
static uint8_t *before_bytes(void)
{
	static uint8_t img[DSIZE];
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < DSIZE; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		img[i] = (uint8_t)x;
	}
	return img;
}

static struct xfsj_io *before_dev(void)
{
	struct xfsj_io *io;

	ck_assert_int_eq(xfsj_io_open_mem_copy(before_bytes(), DSIZE, &io), 0);
	return io;
}

/* The filesystem's UUID: where the superblock keeps it, bytes 32..47. */
static const uint8_t *fs_uuid(void)
{
	return before_bytes() + 32;
}

/* A commit's changes: page 0, a run, a straddling write, the last page. */
static void edit(struct xfsj_overlay *ov)
{
	uint8_t buf[3 * PG];

	memset(buf, 0x5a, sizeof(buf));
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 16, 200), 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 3 * PG, 6 * PG), 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 10, 15 * PG + 7), 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 40, 25 * PG - 20), 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, buf, 50, DSIZE - 60), 0);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(ov), DIRTY);
}

/* The device after an uninterrupted commit of edit(). */
static uint8_t *after_bytes(void)
{
	static uint8_t img[DSIZE];
	struct xfsj_io *io = before_dev();
	struct xfsj_overlay *ov;

	ck_assert_int_eq(xfsj_overlay_create(io, &ov), 0);
	edit(ov);
	ck_assert_int_eq(xfsj_overlay_read(ov, img, DSIZE, 0), 0);
	xfsj_overlay_free(ov);
	xfsj_io_close(io);
	return img;
}

static bool holds(struct xfsj_io *io, const uint8_t *bytes)
{
	return !memcmp(xfsj_io_mem_buffer(io), bytes, DSIZE);
}

static struct xfsj_io *room(void)
{
	struct xfsj_io *io;

	ck_assert_int_eq(xfsj_io_open_mem(FILE_ROOM, &io), 0);
	return io;
}

/*
 * The disks that outlive a run: the device, the redo and undo files; and
 * how many commits the run makes: 1, or 2 as a repair does (a flag set
 * alone, then edit() with the flag cleared).
 */
struct disks {
	struct xfsj_io *dev, *redo, *undo;
	unsigned int commits;
};

#define FLAG_AT	100	/* the "flag" byte, in page 0 */

/* The device between the two commits of a run of 2: the flag set. */
static uint8_t *between_bytes(void)
{
	static uint8_t img[DSIZE];

	memcpy(img, before_bytes(), DSIZE);
	img[FLAG_AT] = 0xAA;
	return img;
}

static void disks_reset(struct disks *d)
{
	memcpy(xfsj_io_mem_buffer(d->dev), before_bytes(), DSIZE);
	memset(xfsj_io_mem_buffer(d->redo), 0, FILE_ROOM);
	memset(xfsj_io_mem_buffer(d->undo), 0, FILE_ROOM);
}

static void disks_make(struct disks *d)
{
	d->commits = 1;
	ck_assert_int_eq(xfsj_io_open_mem(DSIZE, &d->dev), 0);
	d->redo = room();
	d->undo = room();
	disks_reset(d);
}

static void disks_free(struct disks *d)
{
	xfsj_io_close(d->dev);
	xfsj_io_close(d->redo);
	xfsj_io_close(d->undo);
}

/*
 * Run @commits commits onto @dev through the redo and undo files behind
 * @rio and @uio: edit(), or the flag set alone then edit() with the flag
 * cleared (both overlays made before the first commit, as a repair does).
 */
static int commit_run(struct xfsj_io *dev, struct xfsj_io *rio,
		      struct xfsj_io *uio, unsigned int commits,
		      uint64_t *pages, enum xfsj_commit_step *step)
{
	const uint8_t set = 0xAA, clear = before_bytes()[FLAG_AT];
	struct xfsj_overlay *ovs[2];
	int err;

	ck_assert_int_eq(xfsj_overlay_create(dev, &ovs[0]), 0);
	ck_assert_int_eq(xfsj_overlay_create(dev, &ovs[1]), 0);
	if (commits == 2) {
		ck_assert_int_eq(xfsj_overlay_write(ovs[0], &set, 1, FLAG_AT), 0);
		ck_assert_int_eq(xfsj_overlay_write(ovs[1], &clear, 1, FLAG_AT),
				 0);
	}
	edit(ovs[commits - 1]);
	err = xfsj_redo_commit_run_io(rio, uio, ovs, commits, fs_uuid(),
				      pages, step, NULL);
	xfsj_overlay_free(ovs[0]);
	xfsj_overlay_free(ovs[1]);
	return err;
}

/* Commit edit() onto @dev through redo and undo files in memory. */
static void commit_edit(struct xfsj_io *dev, struct xfsj_io *rio,
			struct xfsj_io *uio)
{
	enum xfsj_commit_step step = 0;
	uint64_t pages = 0;

	ck_assert_int_eq(commit_run(dev, rio, uio, 1, &pages, &step), 0);
	ck_assert_uint_eq(pages, DIRTY);
	ck_assert_int_eq(step, 0);
}

struct count {
	uint64_t calls, last, total;
};

static void on_page(void *arg, uint64_t done, uint64_t total)
{
	struct count *c = arg;

	c->calls++;
	c->last = done;
	c->total = total;
}

START_TEST(undo_gives_back_old_bytes)
{
	struct xfsj_undo_result res;
	struct count c = { 0 };
	struct xfsj_redo_cb cb = { on_page, &c };
	struct disks d;
	struct xfsj_io *dev, *uio;

	disks_make(&d);
	dev = d.dev;
	uio = d.undo;
	commit_edit(dev, d.redo, uio);
	ck_assert(holds(dev, after_bytes()));
	ck_assert_int_eq(xfsj_undo_apply_io(uio, dev, &res, &cb), 0);
	ck_assert(holds(dev, before_bytes()));
	ck_assert_int_eq(res.refused, XFSJ_UNDO_OK);
	ck_assert_uint_eq(res.pages, DIRTY);
	ck_assert_uint_eq(res.bytes, (DIRTY - 1) * PG + DSIZE % PG);
	ck_assert_uint_eq(res.already, 0);
	ck_assert_uint_eq(res.devsize, DSIZE);
	ck_assert_mem_eq(res.uuid, fs_uuid(), 16);
	ck_assert_uint_eq(c.calls, DIRTY);
	ck_assert_uint_eq(c.last, DIRTY);
	ck_assert_uint_eq(c.total, DIRTY);
	/* Twice: harmless, and said so. */
	ck_assert_int_eq(xfsj_undo_apply_io(uio, dev, &res, NULL), 0);
	ck_assert(holds(dev, before_bytes()));
	ck_assert_uint_eq(res.already, DIRTY);
	disks_free(&d);
}
END_TEST

/* Nothing to commit: an undo file of no pages, which undoes nothing. */
START_TEST(undo_of_nothing)
{
	struct xfsj_undo_result res;
	struct xfsj_overlay *ov;
	struct disks d;

	disks_make(&d);
	ck_assert_int_eq(xfsj_overlay_create(d.dev, &ov), 0);
	ck_assert_int_eq(xfsj_redo_commit_run_io(d.redo, d.undo, &ov, 1,
						 fs_uuid(), NULL, NULL, NULL),
			 0);
	xfsj_overlay_free(ov);
	ck_assert_int_eq(xfsj_undo_apply_io(d.undo, d.dev, &res, NULL), 0);
	ck_assert_uint_eq(res.pages, 0);
	ck_assert(holds(d.dev, before_bytes()));
	disks_free(&d);
}
END_TEST

static char dir[64], redo_path[128], undo_path[128];

static void setup(void)
{
	strcpy(dir, "/tmp/xfsj-undo-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(redo_path, sizeof(redo_path), "%s/redo", dir);
	snprintf(undo_path, sizeof(undo_path), "%s/undo", dir);
}

static void teardown(void)
{
	unlink(redo_path);
	unlink(undo_path);
	rmdir(dir);
}

/* The same through files: the undo file stays, private, the redo goes. */
START_TEST(undo_through_files)
{
	struct xfsj_io *dev = before_dev();
	struct xfsj_undo_result res;
	struct xfsj_overlay *ov;
	enum xfsj_commit_step step = 0;
	struct stat st;
	uint64_t pages;
	bool ok = false;

	ck_assert_int_eq(xfsj_overlay_create(dev, &ov), 0);
	edit(ov);
	/* The redo file must not be the undo file. */
	ck_assert_int_eq(xfsj_redo_commit_undo(redo_path, redo_path, ov,
					       fs_uuid(), &pages, &step, NULL),
			 -XFSJ_E_INVAL);
	ck_assert_int_eq(step, XFSJ_COMMIT_UNDO);
	ck_assert(holds(dev, before_bytes()));
	ck_assert_int_eq(xfsj_redo_commit_undo(redo_path, undo_path, ov,
					       fs_uuid(), &pages, &step, NULL),
			 0);
	xfsj_overlay_free(ov);
	ck_assert_uint_eq(pages, DIRTY);
	ck_assert(holds(dev, after_bytes()));
	ck_assert_int_ne(stat(redo_path, &st), 0);
	ck_assert_int_eq(stat(undo_path, &st), 0);
	ck_assert_int_eq(st.st_size, UNDO_LEN);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	/* No interrupted run waits: any undo file will do. */
	ck_assert_int_eq(xfsj_redo_undo_check(redo_path, undo_path, dev,
					      fs_uuid(), &ok), 0);
	ck_assert(ok);
	ck_assert_int_eq(xfsj_undo_apply(undo_path, dev, &res, NULL), 0);
	ck_assert(holds(dev, before_bytes()));
	ck_assert_uint_eq(res.pages, DIRTY);
	/* A missing undo file cannot be applied. */
	ck_assert_int_eq(xfsj_undo_apply(redo_path, dev, &res, NULL),
			 -XFSJ_E_OPEN);
	ck_assert(holds(dev, before_bytes()));
	xfsj_io_close(dev);
}
END_TEST

/* ---- refusals: nothing written ---- */

/*
 * Apply the undo file @file (@len bytes) to a device holding @dev_bytes
 * (of @dev_size bytes), counting the device's writes: expect @err and
 * @why, and no write.
 */
static void refused(const uint8_t *file, size_t len, const uint8_t *dev_bytes,
		    uint64_t dev_size, int err, enum xfsj_undo_refusal why)
{
	struct xfsj_fault_plan plan = { .ops = XFSJ_FOP_WRITE | XFSJ_FOP_SYNC };
	struct xfsj_io *mem, *dev, *uio;
	struct xfsj_undo_result res;
	uint8_t *copy = malloc(dev_size);

	ck_assert_ptr_nonnull(copy);
	memset(copy, 0, dev_size);
	memcpy(copy, dev_bytes, dev_size < DSIZE ? dev_size : DSIZE);
	ck_assert_int_eq(xfsj_io_open_mem_copy(copy, dev_size, &mem), 0);
	ck_assert_int_eq(xfsj_io_open_mem_copy(file, len, &uio), 0);
	ck_assert_int_eq(xfsj_io_fault(mem, &plan, &dev), 0);
	ck_assert_int_eq(xfsj_undo_apply_io(uio, dev, &res, NULL), err);
	ck_assert_int_eq(res.refused, why);
	ck_assert_uint_eq(plan.count, 0);
	ck_assert_mem_eq(xfsj_io_mem_buffer(mem), copy, dev_size);
	xfsj_io_close(dev);
	xfsj_fault_plan_end(&plan);
	xfsj_io_close(uio);
	xfsj_io_close(mem);
	free(copy);
}

/* The bytes of the undo file of edit(), and the device after it. */
static uint8_t *undo_file(void)
{
	uint8_t *b = malloc(UNDO_LEN + 1);
	struct disks d;

	ck_assert_ptr_nonnull(b);
	disks_make(&d);
	commit_edit(d.dev, d.redo, d.undo);
	memcpy(b, xfsj_io_mem_buffer(d.undo), UNDO_LEN);
	disks_free(&d);
	return b;
}

START_TEST(incomplete_and_torn_refused)
{
	static const size_t cuts[] = { 1, 8, 40, 64, 64 + 16 + PG,
				       UNDO_LEN - 16, UNDO_LEN - 1 };
	/* Header fields, an entry, page data, the complete mark, its CRC. */
	static const size_t torn[] = { 20, 33, 50, 61, 64 + 3, 64 + 9,
				       64 + 13, 64 + 16 + 5,
				       64 + 4 * (16 + PG) + 2000,
				       UNDO_LEN - 7, UNDO_LEN - 18 };
	uint8_t *file = undo_file(), *after = after_bytes();

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		refused(file, cuts[i], after, DSIZE,
			cuts[i] < 8 ? -XFSJ_E_BADMAGIC : -XFSJ_E_CORRUPT,
			cuts[i] < 8 ? XFSJ_UNDO_NOT_UNDO :
			XFSJ_UNDO_INCOMPLETE);
	for (size_t i = 0; i < sizeof(torn) / sizeof(torn[0]); i++) {
		file[torn[i]] ^= 0x04;
		refused(file, UNDO_LEN, after, DSIZE, -XFSJ_E_BADCRC,
			XFSJ_UNDO_TORN);
		file[torn[i]] ^= 0x04;
	}
	/* The complete mark missing: never finished. */
	file[UNDO_LEN - 16] ^= 0x01;
	refused(file, UNDO_LEN, after, DSIZE, -XFSJ_E_CORRUPT,
		XFSJ_UNDO_INCOMPLETE);
	file[UNDO_LEN - 16] ^= 0x01;
	file[0] ^= 0x01;
	refused(file, UNDO_LEN, after, DSIZE, -XFSJ_E_BADMAGIC,
		XFSJ_UNDO_NOT_UNDO);
	file[0] ^= 0x01;
	file[8] = 2;	/* version */
	refused(file, UNDO_LEN, after, DSIZE, -XFSJ_E_UNSUPP,
		XFSJ_UNDO_VERSION);
	free(file);
}
END_TEST

START_TEST(foreign_and_changed_refused)
{
	uint8_t *file = undo_file(), *after = after_bytes();
	uint8_t *other = malloc(DSIZE);

	ck_assert_ptr_nonnull(other);
	/* Another filesystem: its UUID differs (page 0 neither old nor new). */
	memcpy(other, after, DSIZE);
	other[40] ^= 0x80;
	refused(file, UNDO_LEN, other, DSIZE, -XFSJ_E_CONFLICT,
		XFSJ_UNDO_OTHER_FS);
	/* The same filesystem on a device of another size. */
	refused(file, UNDO_LEN, after, DSIZE + PG, -XFSJ_E_CONFLICT,
		XFSJ_UNDO_OTHER_SIZE);
	/* Another size and another UUID: another filesystem. */
	refused(file, UNDO_LEN, other, DSIZE - 1, -XFSJ_E_CONFLICT,
		XFSJ_UNDO_OTHER_FS);
	/* Changed since the commit: a page neither old nor new. */
	memcpy(other, after, DSIZE);
	other[15 * PG + 3000] ^= 0x01;
	{
		struct xfsj_io *dev, *uio;
		struct xfsj_undo_result res;

		refused(file, UNDO_LEN, other, DSIZE, -XFSJ_E_CONFLICT,
			XFSJ_UNDO_CHANGED);
		ck_assert_int_eq(xfsj_io_open_mem_copy(other, DSIZE, &dev), 0);
		ck_assert_int_eq(xfsj_io_open_mem_copy(file, UNDO_LEN, &uio), 0);
		ck_assert_int_eq(xfsj_undo_apply_io(uio, dev, &res, NULL),
				 -XFSJ_E_CONFLICT);
		ck_assert_uint_eq(res.offset, 15 * PG);
		xfsj_io_close(dev);
		xfsj_io_close(uio);
	}
	/* Pages outside the commit may change: they are not put back. */
	memcpy(other, after, DSIZE);
	other[10 * PG] ^= 0x01;
	{
		struct xfsj_io *dev, *uio;
		struct xfsj_undo_result res;

		ck_assert_int_eq(xfsj_io_open_mem_copy(other, DSIZE, &dev), 0);
		ck_assert_int_eq(xfsj_io_open_mem_copy(file, UNDO_LEN, &uio), 0);
		ck_assert_int_eq(xfsj_undo_apply_io(uio, dev, &res, NULL), 0);
		memcpy(other, before_bytes(), DSIZE);
		other[10 * PG] ^= 0x01;
		ck_assert(holds(dev, other));
		xfsj_io_close(dev);
		xfsj_io_close(uio);
	}
	free(other);
	free(file);
}
END_TEST

/*
 * A commit that rewrites a damaged UUID: the undo file, applied, puts the
 * damaged one back, and is still taken as this filesystem's the second
 * time (its superblock page holds the old contents).
 */
START_TEST(damaged_uuid_undone_twice)
{
	struct xfsj_undo_result res;
	struct xfsj_overlay *ov;
	uint8_t good[16];
	struct disks d;
	struct xfsj_io *dev, *rio, *uio;

	disks_make(&d);
	dev = d.dev;
	rio = d.redo;
	uio = d.undo;
	memcpy(good, fs_uuid(), 16);
	good[0] ^= 0xff;
	ck_assert_int_eq(xfsj_overlay_create(dev, &ov), 0);
	ck_assert_int_eq(xfsj_overlay_write(ov, good, 16, 32), 0);
	ck_assert_int_eq(xfsj_redo_commit_run_io(rio, uio, &ov, 1, good, NULL,
						 NULL, NULL), 0);
	xfsj_overlay_free(ov);
	ck_assert_mem_eq((uint8_t *)xfsj_io_mem_buffer(dev) + 32, good, 16);
	ck_assert_int_eq(xfsj_undo_apply_io(uio, dev, &res, NULL), 0);
	ck_assert(holds(dev, before_bytes()));
	ck_assert_int_eq(xfsj_undo_apply_io(uio, dev, &res, NULL), 0);
	ck_assert_uint_eq(res.already, 1);
	ck_assert(holds(dev, before_bytes()));
	disks_free(&d);
}
END_TEST

/* ---- power cuts ---- */

/*
 * One run of the tool with an undo file: finish an interrupted commit
 * (only with its undo file); then, unless the device holds the result
 * already (a replayed log is clean), run the commits with the undo file.
 * Returns the error; *@refused when an interrupted run waited with
 * another undo file.
 */
static int tool_run(struct disks *d, struct xfsj_io *undo,
		    struct xfsj_fault_plan *plan, bool *refused)
{
	struct xfsj_io *dev, *rio, *uio;
	bool ok = false, applied = false;
	int err;

	ck_assert_int_eq(xfsj_io_fault(d->dev, plan, &dev), 0);
	ck_assert_int_eq(xfsj_io_fault(d->redo, plan, &rio), 0);
	ck_assert_int_eq(xfsj_io_fault(undo, plan, &uio), 0);
	*refused = false;
	err = xfsj_redo_undo_check_io(rio, uio, dev, fs_uuid(), &ok);
	if (!err && !ok)
		*refused = true;
	if (!err && ok)
		err = xfsj_redo_apply_io(rio, dev, fs_uuid(), &applied, NULL,
					 NULL);
	if (!err && ok && !holds(d->dev, after_bytes())) {
		/*
		 * Not done yet (a redo file finished may have been the first
		 * commit of two): as it was before, or between commits.
		 */
		ck_assert(holds(d->dev, before_bytes()) ||
			  (d->commits == 2 && holds(d->dev, between_bytes())));
		err = commit_run(dev, rio, uio, d->commits, NULL, NULL);
	}
	xfsj_io_close(uio);
	xfsj_io_close(rio);
	xfsj_io_close(dev);
	xfsj_fault_plan_end(plan);
	/* A power cut stops the run with an error; none, no error. */
	ck_assert(plan->fired == (err != 0));
	return err;
}

/* Applying the undo file gives back the device as it was, and no redo. */
static void undo_and_compare(struct disks *d)
{
	struct xfsj_undo_result res;
	uint64_t pages;
	uint32_t tag;

	ck_assert(holds(d->dev, after_bytes()));
	ck_assert_int_eq(xfsj_redo_pending_io(d->redo, d->dev, fs_uuid(),
					      &pages, &tag), 0);
	ck_assert_int_eq(xfsj_undo_apply_io(d->undo, d->dev, &res, NULL), 0);
	ck_assert(holds(d->dev, before_bytes()));
}

/*
 * A power cut at operation @n of a first run (the unsynced writes lost,
 * or with @seed some kept and torn), at @m of a second (0: none), then a
 * run that goes through, then the undo file applied.
 */
static void cut_rerun_undo(struct disks *d, uint64_t n, uint64_t seed,
			   uint64_t m)
{
	const unsigned int ops = XFSJ_FOP_WRITE | XFSJ_FOP_SYNC;
	struct xfsj_fault_plan p1 = { .ops = ops, .at = n,
				      .kind = XFSJ_FAULT_CRASH,
				      .keep_some = seed != 0, .seed = seed };
	struct xfsj_fault_plan p2 = { .ops = ops, .at = m,
				      .kind = XFSJ_FAULT_CRASH,
				      .keep_some = true, .seed = seed + 7 };
	struct xfsj_fault_plan p3 = { .ops = 0 };
	bool refused;

	disks_reset(d);
	tool_run(d, d->undo, &p1, &refused);
	ck_assert(p1.crashed);
	ck_assert_int_eq(p1.crash_err, 0);
	ck_assert(!refused);
	if (m) {
		tool_run(d, d->undo, &p2, &refused);
		ck_assert(!refused);
	}
	ck_assert_int_eq(tool_run(d, d->undo, &p3, &refused), 0);
	ck_assert(!refused);
	undo_and_compare(d);
}

/*
 * A run of 2 cut between its commits: the device partly written, no redo
 * file.  The next run keeps the undo file byte for byte (else it would
 * save the half-written device); one that would write a page the undo
 * file does not hold is refused.
 */
static void cut_between(struct disks *d)
{
	uint8_t *kept = malloc(FILE_ROOM);
	struct xfsj_fault_plan p = { .ops = 0 };
	struct xfsj_overlay *ov;
	uint8_t x = 1;
	bool refused;

	ck_assert_ptr_nonnull(kept);
	memcpy(kept, xfsj_io_mem_buffer(d->undo), FILE_ROOM);
	ck_assert_int_eq(xfsj_overlay_create(d->dev, &ov), 0);
	edit(ov);
	ck_assert_int_eq(xfsj_overlay_write(ov, &x, 1, 33 * PG), 0);
	ck_assert_int_eq(xfsj_undo_save_io(d->undo, &ov, 1, fs_uuid(), NULL),
			 -XFSJ_E_CONFLICT);
	xfsj_overlay_free(ov);
	ck_assert(holds(d->dev, between_bytes()));
	ck_assert_int_eq(tool_run(d, d->undo, &p, &refused), 0);
	ck_assert_mem_eq(xfsj_io_mem_buffer(d->undo), kept, FILE_ROOM);
	undo_and_compare(d);
	free(kept);
}

/*
 * A power cut at every write and sync of a run of @commits, then runs
 * again, then the undo file: the device as it was before the run.
 */
static void power_cuts(unsigned int commits)
{
	struct xfsj_fault_plan count = { .ops = XFSJ_FOP_WRITE | XFSJ_FOP_SYNC };
	struct disks d;
	bool refused;
	uint64_t total, touched = 0, between = 0;

	disks_make(&d);
	d.commits = commits;
	ck_assert_int_eq(tool_run(&d, d.undo, &count, &refused), 0);
	undo_and_compare(&d);
	total = count.count;
	/* Undo: 8 pages, tag, header, sync, mark, sync; redo; copy. */
	ck_assert_uint_ge(total, DIRTY + 5 + 6 * commits);
	for (uint64_t n = 1; n <= total; n++) {
		struct xfsj_fault_plan p = { .ops = count.ops, .at = n,
					     .kind = XFSJ_FAULT_CRASH };

		cut_rerun_undo(&d, n, 0, 0);
		for (uint64_t seed = 1; seed <= 3; seed++)
			cut_rerun_undo(&d, n, n * 31 + seed, 0);
		for (uint64_t m = 1; m <= 6; m += 2)
			cut_rerun_undo(&d, n, n * 17 + m, m);
		/* Where the cuts left the device. */
		disks_reset(&d);
		tool_run(&d, d.undo, &p, &refused);
		if (!holds(d.dev, before_bytes()))
			touched++;
		if (commits == 2 && holds(d.dev, between_bytes()) &&
		    !xfsj_redo_pending_io(d.redo, d.dev, fs_uuid(),
					  &(uint64_t){ 0 }, &(uint32_t){ 0 })) {
			between++;
			cut_between(&d);
		}
	}
	/* Some cuts came during a copy, after the undo file was done. */
	ck_assert_uint_gt(touched, 0);
	if (commits == 2)
		ck_assert_uint_gt(between, 0);
	disks_free(&d);
}

START_TEST(power_cut_every_point)
{
	power_cuts(1);
}
END_TEST

START_TEST(power_cut_every_point_of_two_commits)
{
	power_cuts(2);
}
END_TEST

/*
 * A run cut during the copy, run again with another undo file (none, or
 * a complete one of another commit): refused, nothing written; with its
 * own undo file it finishes.
 */
START_TEST(interrupted_needs_its_undo)
{
	const unsigned int ops = XFSJ_FOP_WRITE | XFSJ_FOP_SYNC;
	struct xfsj_fault_plan count = { .ops = ops };
	struct disks d;
	struct xfsj_io *stale = room();
	bool refused;
	uint64_t total;

	disks_make(&d);
	ck_assert_int_eq(tool_run(&d, d.undo, &count, &refused), 0);
	total = count.count;
	/* A complete undo file of another commit (of no pages). */
	{
		struct xfsj_io *rio = room();
		struct xfsj_overlay *ov;

		ck_assert_int_eq(xfsj_overlay_create(d.dev, &ov), 0);
		ck_assert_int_eq(xfsj_redo_commit_run_io(rio, stale, &ov, 1,
							 fs_uuid(), NULL, NULL,
							 NULL), 0);
		xfsj_overlay_free(ov);
		xfsj_io_close(rio);
	}
	/* The copy's last write, before its sync: the redo file complete. */
	for (uint64_t n = total - 3; n <= total - 2; n++) {
		struct xfsj_fault_plan p1 = { .ops = ops, .at = n,
					      .kind = XFSJ_FAULT_CRASH,
					      .keep_some = true, .seed = n };
		struct xfsj_fault_plan p2 = { .ops = ops };
		struct xfsj_fault_plan p3 = { .ops = ops };
		struct xfsj_io *none = room();
		uint8_t *dev_now = malloc(DSIZE);

		ck_assert_ptr_nonnull(dev_now);
		disks_reset(&d);
		tool_run(&d, d.undo, &p1, &refused);
		memcpy(dev_now, xfsj_io_mem_buffer(d.dev), DSIZE);
		ck_assert_int_eq(tool_run(&d, none, &p2, &refused), 0);
		ck_assert(refused);
		ck_assert_uint_eq(p2.count, 0);
		ck_assert_int_eq(tool_run(&d, stale, &p3, &refused), 0);
		ck_assert(refused);
		ck_assert_uint_eq(p3.count, 0);
		ck_assert(holds(d.dev, dev_now));
		p3 = (struct xfsj_fault_plan){ .ops = ops };
		ck_assert_int_eq(tool_run(&d, d.undo, &p3, &refused), 0);
		ck_assert(!refused);
		undo_and_compare(&d);
		xfsj_io_close(none);
		free(dev_now);
	}
	xfsj_io_close(stale);
	disks_free(&d);
}
END_TEST

/* I/O errors of the undo file: reported, the device untouched. */
START_TEST(undo_write_errors)
{
	const unsigned int ops = XFSJ_FOP_WRITE | XFSJ_FOP_SYNC;

	for (uint64_t n = 1; n <= DIRTY + 3; n++) {
		struct xfsj_fault_plan plan = { .ops = ops, .at = n,
						.kind = XFSJ_FAULT_ERROR };
		struct xfsj_io *dev = before_dev(), *rio = room(), *mem = room();
		struct xfsj_io *uio;
		enum xfsj_commit_step step = 0;

		ck_assert_int_eq(xfsj_io_fault(mem, &plan, &uio), 0);
		ck_assert_int_eq(commit_run(dev, rio, uio, 1, NULL, &step),
				 -XFSJ_E_IO);
		ck_assert_int_eq(step, XFSJ_COMMIT_UNDO);
		ck_assert(holds(dev, before_bytes()));
		xfsj_io_close(uio);
		xfsj_fault_plan_end(&plan);
		xfsj_io_close(mem);
		xfsj_io_close(rio);
		xfsj_io_close(dev);
	}
}
END_TEST

Suite *undo_suite(void)
{
	Suite *s = suite_create("undo");
	TCase *tc = tcase_create("undo_file");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, undo_gives_back_old_bytes);
	tcase_add_test(tc, undo_of_nothing);
	tcase_add_test(tc, undo_through_files);
	tcase_add_test(tc, incomplete_and_torn_refused);
	tcase_add_test(tc, foreign_and_changed_refused);
	tcase_add_test(tc, damaged_uuid_undone_twice);
	tcase_add_test(tc, undo_write_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("undo_power_cuts");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, power_cut_every_point);
	tcase_add_test(tc, power_cut_every_point_of_two_commits);
	tcase_add_test(tc, interrupted_needs_its_undo);
	suite_add_tcase(s, tc);
	return s;
}
