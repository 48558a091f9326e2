/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay as one call (replay.h) on a freshly made filesystem in
 * memory: a clean log, the state handed to a caller that goes on, and the
 * refusals, each with its reason.  Dirty logs are replayed by the system
 * tests (replay-crash, replay-extlog, repair-corrupt).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs_fixture.h"
#include "suites.h"
#include "xfsj/replay.h"

#define MB (1024ULL * 1024)

struct seen {
	int log_found, dirty, waiting, records;
	char waiting_path[512];
};

static void on_log_found(void *arg, const struct xfsj_log_ht *ht, bool dirty)
{
	struct seen *s = arg;

	(void)ht;
	s->log_found++;
	s->dirty += dirty;
}

static void on_waiting(void *arg, const char *path)
{
	struct seen *s = arg;

	s->waiting++;
	snprintf(s->waiting_path, sizeof(s->waiting_path), "%s", path);
}

static void on_record(void *arg, int pass, uint32_t done, uint32_t total)
{
	struct seen *s = arg;

	(void)pass;
	(void)done;
	(void)total;
	s->records++;
}

static void sb_edit(struct xfsj_io *io, uint32_t incompat, uint64_t logstart)
{
	uint8_t sect[512];
	struct xfsj_sb sb;

	ck_assert_int_eq(xfsj_pread(io, sect, sizeof(sect), 0), 0);
	xfsj_sb_decode(sect, &sb);
	sb.features_incompat |= incompat;
	sb.logstart = logstart;
	xfsj_sb_encode(&sb, sect, sizeof(sect));
	ck_assert_int_eq(xfsj_pwrite(io, sect, sizeof(sect), 0), 0);
}

START_TEST(clean_log)
{
	static struct fs_fixture fx;
	struct seen s = { 0 };
	const struct xfsj_replay_cb cb = {
		.arg = &s, .log_found = on_log_found, .record = on_record,
		.redo_waiting = on_waiting,
	};
	const struct xfsj_replay_opts o = { .nomodify = true };
	struct xfsj_replay_result res;
	struct xfsj_replay *st;
	char want[512], u[33];

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	ck_assert_int_eq(xfsj_replay(fx.io, NULL, &o, &cb, &res, &st), 0);
	ck_assert(!res.dirty);
	ck_assert(!res.written);
	ck_assert_int_eq(s.log_found, 1);
	ck_assert_int_eq(s.dirty, 0);
	ck_assert_int_eq(s.records, 0);
	/* The default redo file names the filesystem. */
	for (int i = 0; i < 16; i++)
		snprintf(u + 2 * i, 3, "%02x", fx.sb.uuid[i]);
	snprintf(want, sizeof(want), XFSJ_REPLAY_REDO_NAME,
		 XFSJ_REPLAY_REDO_DIR, u);
	ck_assert_str_eq(res.redo, want);
	/* A caller going on gets the log, an overlay and the geometry. */
	ck_assert_ptr_nonnull(st);
	ck_assert_ptr_nonnull(xfsj_replay_overlay(st));
	ck_assert_ptr_nonnull(xfsj_replay_log(st));
	ck_assert_ptr_null(xfsj_replay_recover(st));
	ck_assert_uint_eq(xfsj_replay_sb(st)->dblocks, fx.sb.dblocks);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(xfsj_replay_overlay(st)), 0);
	xfsj_replay_free(st);
	/* No callbacks and no options at all. */
	ck_assert_int_eq(xfsj_replay(fx.io, NULL, NULL, NULL, &res, NULL), 0);
	fs_fixture_free(&fx);
}
END_TEST

/* -n leaves an interrupted run's redo file alone and says so. */
START_TEST(redo_waiting_nomodify)
{
	static struct fs_fixture fx;
	struct seen s = { 0 };
	const struct xfsj_replay_cb cb = {
		.arg = &s, .redo_waiting = on_waiting,
	};
	char path[] = "/tmp/xfsj-test-replay.XXXXXX";
	struct xfsj_replay_opts o = { .nomodify = true, .redo = path };
	struct xfsj_replay_result res;
	int fd;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(xfsj_replay(fx.io, NULL, &o, &cb, &res, NULL), 0);
	ck_assert_int_eq(s.waiting, 1);
	ck_assert_str_eq(s.waiting_path, path);
	ck_assert_int_eq(access(path, F_OK), 0);
	unlink(path);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(refusals)
{
	static struct fs_fixture fx;
	const struct xfsj_replay_opts o = { .nomodify = true };
	struct xfsj_replay_result res;
	struct xfsj_replay *st = (struct xfsj_replay *)&fx;
	struct xfsj_io *logio;
	uint64_t logstart;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	logstart = fx.sb.logstart;
	/* A log device for a filesystem whose log is internal. */
	ck_assert_int_eq(xfsj_io_open_mem(16 * MB, &logio), 0);
	ck_assert_int_eq(xfsj_replay(fx.io, logio, &o, NULL, &res, &st),
			 -XFSJ_E_INVAL);
	ck_assert_int_eq(res.fault.reason, XFSJ_FR_LOG_NOT_EXTERNAL);
	ck_assert_ptr_null(st);
	/* Features this version does not know. */
	sb_edit(fx.io, 1U << 31, logstart);
	ck_assert_int_eq(xfsj_replay(fx.io, NULL, &o, NULL, &res, NULL),
			 -XFSJ_E_UNSUPP);
	ck_assert_int_eq(res.fault.reason, XFSJ_FR_FEATURES_UNKNOWN);
	ck_assert_str_eq(res.fault.field, "sb_features_incompat");
	/* An external log, and no device for it. */
	sb_edit(fx.io, 0, 0);
	ck_assert_int_eq(xfsj_replay(fx.io, NULL, &o, NULL, &res, NULL),
			 -XFSJ_E_UNSUPP);
	ck_assert_int_eq(res.fault.reason, XFSJ_FR_EXTLOG_NEEDED);
	xfsj_io_close(logio);
	fs_fixture_free(&fx);
}
END_TEST

Suite *replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("call");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, clean_log);
	tcase_add_test(tc, redo_waiting_nomodify);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);
	return s;
}
