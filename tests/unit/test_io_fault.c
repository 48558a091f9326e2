/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fault-injecting backend: errors at the Nth operation, power cuts
 * that drop, keep or tear the unsynced writes, one counter for several
 * devices.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "xfsj/errors.h"
#include "xfsj/io.h"
#include "core/io_fault.h"

#define SECT	512

static struct xfsj_io *mem_dev(uint64_t size, uint8_t fill)
{
	struct xfsj_io *io;

	ck_assert_int_eq(xfsj_io_open_mem(size, &io), 0);
	memset(xfsj_io_mem_buffer(io), fill, size);
	return io;
}

/* Close a fault device, end its plan, close the memory below. */
static void done(struct xfsj_io *io, struct xfsj_fault_plan *plan,
		 struct xfsj_io *mem)
{
	xfsj_io_close(io);
	xfsj_fault_plan_end(plan);
	xfsj_io_close(mem);
}

static void assert_fill(const uint8_t *p, size_t len, uint8_t v)
{
	for (size_t i = 0; i < len; i++)
		ck_assert_uint_eq(p[i], v);
}

START_TEST(passes_through)
{
	struct xfsj_io *mem = mem_dev(8 * SECT, 0), *io;
	struct xfsj_fault_plan plan = { .ops = XFSJ_FOP_READ | XFSJ_FOP_WRITE |
					       XFSJ_FOP_SYNC };
	uint8_t *dev = xfsj_io_mem_buffer(mem);
	uint8_t buf[SECT];

	ck_assert_int_eq(xfsj_io_fault(mem, &plan, &io), 0);
	ck_assert_uint_eq(io->size, 8 * SECT);
	ck_assert_uint_eq(io->lsectsize, mem->lsectsize);
	ck_assert_ptr_null(io->ops->map);
	memset(buf, 7, sizeof(buf));
	ck_assert_int_eq(xfsj_pwrite(io, buf, SECT, SECT), 0);
	assert_fill(dev + SECT, SECT, 7);
	ck_assert_int_eq(xfsj_io_zero(io, SECT + 10, 10), 0);
	ck_assert_uint_eq(dev[SECT + 15], 0);
	ck_assert_int_eq(xfsj_io_discard(io, 0, SECT), 0);
	ck_assert_int_eq(xfsj_pread(io, buf, SECT, SECT), 0);
	ck_assert_uint_eq(buf[9], 7);
	ck_assert_int_eq(xfsj_io_sync(io), 0);
	ck_assert_int_eq(xfsj_io_extend(io, 4 * SECT), 0);
	ck_assert_int_eq(xfsj_io_extend(io, 9 * SECT), -XFSJ_E_TOOSMALL);
	/* Out-of-range writes fail as the device below fails them. */
	ck_assert_int_eq(xfsj_pwrite(io, buf, 2, 8 * SECT - 1),
			 -XFSJ_E_SHORTIO);
	/* write, zero, discard, read, sync, write: counted, none fired. */
	ck_assert_uint_eq(plan.count, 6);
	ck_assert(!plan.fired);
	ck_assert_uint_eq(plan.npend, 0);
	done(io, &plan, mem);
}
END_TEST

/* An error at the Nth write, sync or read: that one fails, undone. */
START_TEST(error_at_nth)
{
	static const unsigned int kinds[] = { XFSJ_FOP_WRITE, XFSJ_FOP_SYNC,
					      XFSJ_FOP_READ };

	for (size_t k = 0; k < 3; k++) {
		for (uint64_t n = 1; n <= 3; n++) {
			struct xfsj_io *mem = mem_dev(4 * SECT, 0), *io;
			struct xfsj_fault_plan plan = {
				.ops = kinds[k], .at = n,
				.kind = XFSJ_FAULT_ERROR };
			uint8_t *dev = xfsj_io_mem_buffer(mem);
			int errs = 0;

			ck_assert_int_eq(xfsj_io_fault(mem, &plan, &io), 0);
			for (uint8_t i = 1; i <= 3; i++) {
				uint8_t v = i, back;
				int ew = xfsj_pwrite(io, &v, 1, i);
				int es = xfsj_io_sync(io);
				int er = xfsj_pread(io, &back, 1, i);

				ck_assert(!ew || ew == -XFSJ_E_IO);
				ck_assert(!es || es == -XFSJ_E_IO);
				ck_assert(!er || er == -XFSJ_E_IO);
				errs += !!ew + !!es + !!er;
				/* A failed write changed nothing. */
				ck_assert_uint_eq(dev[i], ew ? 0 : i);
				if (!er)
					ck_assert_uint_eq(back, dev[i]);
				if (i == n) {
					ck_assert(kinds[k] != XFSJ_FOP_WRITE || ew);
					ck_assert(kinds[k] != XFSJ_FOP_SYNC || es);
					ck_assert(kinds[k] != XFSJ_FOP_READ || er);
				}
			}
			ck_assert_int_eq(errs, 1);
			ck_assert(plan.fired);
			ck_assert(!plan.crashed);
			ck_assert_uint_eq(plan.count, 3);
			done(io, &plan, mem);
		}
	}
}
END_TEST

/* A crash drops every unsynced write and stops the process. */
START_TEST(crash_drops_unsynced)
{
	struct xfsj_io *mem = mem_dev(8 * SECT, 0xAA), *io;
	struct xfsj_fault_plan plan = { .ops = XFSJ_FOP_SYNC, .at = 2,
					.kind = XFSJ_FAULT_CRASH };
	uint8_t *dev = xfsj_io_mem_buffer(mem);
	uint8_t buf[2 * SECT];

	ck_assert_int_eq(xfsj_io_fault(mem, &plan, &io), 0);
	memset(buf, 1, sizeof(buf));
	ck_assert_int_eq(xfsj_pwrite(io, buf, SECT, 0), 0);
	ck_assert_int_eq(xfsj_io_sync(io), 0);		/* durable */
	memset(buf, 2, sizeof(buf));
	ck_assert_int_eq(xfsj_pwrite(io, buf, 2 * SECT, SECT), 0);
	ck_assert_int_eq(xfsj_io_zero(io, 0, 100), 0);
	ck_assert_int_eq(xfsj_pwrite(io, buf, 10, 6 * SECT + 3), 0);
	ck_assert_uint_eq(dev[0], 0);		/* visible before the crash */
	ck_assert_int_eq(xfsj_io_sync(io), -XFSJ_E_IO);	/* the power goes */
	ck_assert(plan.crashed);
	ck_assert_uint_eq(plan.dropped, 3);
	ck_assert_uint_eq(plan.kept + plan.torn, 0);
	ck_assert_int_eq(plan.crash_err, 0);
	assert_fill(dev, SECT, 1);
	assert_fill(dev + SECT, 7 * SECT, 0xAA);
	/* The process has stopped: nothing works any more. */
	ck_assert_int_eq(xfsj_pwrite(io, buf, 1, 0), -XFSJ_E_IO);
	ck_assert_int_eq(xfsj_pread(io, buf, 1, 0), -XFSJ_E_IO);
	ck_assert_int_eq(xfsj_io_sync(io), -XFSJ_E_IO);
	ck_assert_int_eq(xfsj_io_zero(io, 0, 1), -XFSJ_E_IO);
	ck_assert_int_eq(xfsj_io_discard(io, 0, 1), -XFSJ_E_IO);
	ck_assert_int_eq(xfsj_io_extend(io, 1), -XFSJ_E_IO);
	assert_fill(dev, SECT, 1);
	done(io, &plan, mem);
}
END_TEST

/* A crash at a write: issued, then lost with the others. */
START_TEST(crash_at_write)
{
	struct xfsj_io *mem = mem_dev(4 * SECT, 0), *io;
	struct xfsj_fault_plan plan = { .ops = XFSJ_FOP_WRITE, .at = 2,
					.kind = XFSJ_FAULT_CRASH };
	uint8_t *dev = xfsj_io_mem_buffer(mem);
	uint8_t v = 9;

	ck_assert_int_eq(xfsj_io_fault(mem, &plan, &io), 0);
	ck_assert_int_eq(xfsj_pwrite(io, &v, 1, 0), 0);
	ck_assert_int_eq(xfsj_io_sync(io), 0);	/* syncs are not counted */
	ck_assert_int_eq(xfsj_pwrite(io, &v, 1, 1), -XFSJ_E_IO);
	ck_assert(plan.crashed);
	ck_assert_uint_eq(plan.dropped, 1);
	ck_assert_uint_eq(dev[0], 9);
	ck_assert_uint_eq(dev[1], 0);
	done(io, &plan, mem);
}
END_TEST

/*
 * With keep_some: each of 64 writes of 4 sectors is kept whole, dropped,
 * or torn (its first 1 to 3 sectors written); the same seed gives the
 * same bytes.
 */
static void crash_run(uint64_t seed, uint8_t *out, struct xfsj_fault_plan *res)
{
	struct xfsj_io *mem = mem_dev(64 * 4 * SECT, 0), *io;
	struct xfsj_fault_plan plan = { .ops = XFSJ_FOP_SYNC, .at = 1,
					.kind = XFSJ_FAULT_CRASH,
					.keep_some = true, .seed = seed };
	uint8_t buf[4 * SECT];

	ck_assert_int_eq(xfsj_io_fault(mem, &plan, &io), 0);
	for (int i = 0; i < 64; i++) {
		memset(buf, i + 1, sizeof(buf));
		ck_assert_int_eq(xfsj_pwrite(io, buf, sizeof(buf),
					     (uint64_t)i * sizeof(buf)), 0);
	}
	ck_assert_int_eq(xfsj_io_sync(io), -XFSJ_E_IO);
	memcpy(out, xfsj_io_mem_buffer(mem), 64 * 4 * SECT);
	*res = plan;
	done(io, &plan, mem);
}

START_TEST(crash_keeps_and_tears)
{
	uint8_t *a = malloc(64 * 4 * SECT), *b = malloc(64 * 4 * SECT);
	struct xfsj_fault_plan ra, rb;
	uint64_t kept = 0, torn = 0, dropped = 0;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	for (uint64_t seed = 1; seed <= 4; seed++) {
		crash_run(seed, a, &ra);
		crash_run(seed, b, &rb);
		ck_assert_mem_eq(a, b, 64 * 4 * SECT);
		ck_assert_uint_eq(ra.kept + ra.torn + ra.dropped, 64);
		kept = torn = dropped = 0;
		for (int i = 0; i < 64; i++) {
			const uint8_t *w = a + i * 4 * SECT;
			int s = 0;

			/* Whole sectors of new bytes, then old ones. */
			while (s < 4 && w[s * SECT] == i + 1)
				s++;
			assert_fill(w, (size_t)s * SECT, (uint8_t)(i + 1));
			assert_fill(w + s * SECT, (size_t)(4 - s) * SECT, 0);
			kept += s == 4;
			torn += s > 0 && s < 4;
			dropped += s == 0;
		}
		/* What the bytes show is what the plan counted. */
		ck_assert_uint_eq(kept, ra.kept);
		ck_assert_uint_eq(torn, ra.torn);
		ck_assert_uint_eq(dropped, ra.dropped);
		ck_assert_uint_gt(kept, 0);
		ck_assert_uint_gt(torn, 0);
		ck_assert_uint_gt(dropped, 0);
	}
	/* Another seed, other bytes. */
	crash_run(99, b, &rb);
	ck_assert_int_ne(memcmp(a, b, 64 * 4 * SECT), 0);
	free(a);
	free(b);
}
END_TEST

/* Two writes over one sector: the survivor is the later kept one. */
START_TEST(crash_overlapping_in_order)
{
	bool seen[3] = { false, false, false };

	for (uint64_t seed = 0; seed < 64; seed++) {
		struct xfsj_io *mem = mem_dev(SECT, 0), *io;
		struct xfsj_fault_plan plan = { .ops = XFSJ_FOP_SYNC, .at = 1,
						.kind = XFSJ_FAULT_CRASH,
						.keep_some = true,
						.seed = seed };
		uint8_t buf[SECT], *dev = xfsj_io_mem_buffer(mem);

		ck_assert_int_eq(xfsj_io_fault(mem, &plan, &io), 0);
		memset(buf, 1, sizeof(buf));
		ck_assert_int_eq(xfsj_pwrite(io, buf, SECT, 0), 0);
		memset(buf, 2, sizeof(buf));
		ck_assert_int_eq(xfsj_pwrite(io, buf, SECT, 0), 0);
		ck_assert_int_eq(xfsj_io_sync(io), -XFSJ_E_IO);
		ck_assert_uint_le(dev[0], 2);
		assert_fill(dev, SECT, dev[0]);
		seen[dev[0]] = true;
		/* A sector is atomic: never torn. */
		ck_assert_uint_eq(plan.torn, 0);
		done(io, &plan, mem);
	}
	ck_assert(seen[0] && seen[1] && seen[2]);
}
END_TEST

/*
 * One plan, two devices: one counter; a sync makes only its own device's
 * writes durable; the crash takes both back, even one already closed.
 */
START_TEST(two_devices_one_plan)
{
	struct xfsj_io *ma = mem_dev(SECT, 0), *mb = mem_dev(SECT, 0);
	struct xfsj_io *a, *b;
	struct xfsj_fault_plan plan = { .ops = XFSJ_FOP_WRITE, .at = 4,
					.kind = XFSJ_FAULT_CRASH };
	uint8_t *da = xfsj_io_mem_buffer(ma), *db = xfsj_io_mem_buffer(mb);
	uint8_t v = 5;

	ck_assert_int_eq(xfsj_io_fault(ma, &plan, &a), 0);
	ck_assert_int_eq(xfsj_io_fault(mb, &plan, &b), 0);
	ck_assert_int_eq(xfsj_pwrite(a, &v, 1, 0), 0);
	ck_assert_int_eq(xfsj_pwrite(b, &v, 1, 0), 0);
	ck_assert_int_eq(xfsj_io_sync(a), 0);
	ck_assert_uint_eq(plan.npend, 1);
	ck_assert_int_eq(xfsj_pwrite(a, &v, 1, 1), 0);
	xfsj_io_close(a);			/* closing is not syncing */
	ck_assert_int_eq(xfsj_pwrite(b, &v, 1, 1), -XFSJ_E_IO);
	ck_assert_uint_eq(plan.count, 4);
	ck_assert_uint_eq(plan.dropped, 3);
	ck_assert_uint_eq(da[0], 5);
	ck_assert_uint_eq(da[1], 0);
	ck_assert_uint_eq(db[0], 0);
	ck_assert_uint_eq(db[1], 0);
	xfsj_io_close(b);
	xfsj_fault_plan_end(&plan);
	xfsj_io_close(ma);
	xfsj_io_close(mb);
}
END_TEST

/* The power cut on demand, and a plan that ends cleanly keeps all. */
START_TEST(crash_on_demand_and_clean_end)
{
	struct xfsj_io *mem = mem_dev(SECT, 0), *io;
	struct xfsj_fault_plan plan = { .ops = 0 };
	uint8_t *dev = xfsj_io_mem_buffer(mem);
	uint8_t v = 3;

	ck_assert_int_eq(xfsj_io_fault(mem, &plan, &io), 0);
	ck_assert_int_eq(xfsj_pwrite(io, &v, 1, 0), 0);
	xfsj_fault_crash(&plan);
	ck_assert(plan.crashed);
	ck_assert_uint_eq(dev[0], 0);
	xfsj_fault_crash(&plan);		/* once only */
	ck_assert_uint_eq(plan.dropped, 1);
	xfsj_io_close(io);
	xfsj_fault_plan_end(&plan);

	memset(&plan, 0, sizeof(plan));
	ck_assert_int_eq(xfsj_io_fault(mem, &plan, &io), 0);
	ck_assert_int_eq(xfsj_pwrite(io, &v, 1, 0), 0);
	xfsj_io_close(io);
	xfsj_fault_plan_end(&plan);
	ck_assert_uint_eq(dev[0], 3);
	xfsj_io_close(mem);
}
END_TEST

Suite *io_fault_suite(void)
{
	Suite *s = suite_create("io_fault");
	TCase *tc = tcase_create("io_fault");

	tcase_add_test(tc, passes_through);
	tcase_add_test(tc, error_at_nth);
	tcase_add_test(tc, crash_drops_unsynced);
	tcase_add_test(tc, crash_at_write);
	tcase_add_test(tc, crash_keeps_and_tears);
	tcase_add_test(tc, crash_overlapping_in_order);
	tcase_add_test(tc, two_devices_one_plan);
	tcase_add_test(tc, crash_on_demand_and_clean_end);
	suite_add_tcase(s, tc);
	return s;
}
