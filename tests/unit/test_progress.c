/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Progress lines and objects (core/progress.c). */
#include <string.h>

#include "suites.h"
#include "xfsj/progress.h"

START_TEST(json_objects)
{
	struct xfsj_progress p = { .form = XFSJ_PROGRESS_JSON, .tool = "t" };
	char buf[512];

	/* a phase's first step is written at once, the time left unknown */
	ck_assert_uint_gt(xfsj_progress_step(&p, "a \"q\"", 0, 100, 1000, buf,
					     sizeof(buf)), 0);
	ck_assert_str_eq(buf, "{\"kind\":\"progress\",\"tool\":\"t\",\"phase\":"
			 "\"a \\u0022q\\u0022\",\"done\":0,\"total\":100,"
			 "\"eta_s\":null}\n");
	/* less than a second later: nothing */
	ck_assert_uint_eq(xfsj_progress_step(&p, "a \"q\"", 10, 100, 1500, buf,
					     sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	/* a quarter in 2 s: 6 s left */
	ck_assert_uint_gt(xfsj_progress_step(&p, "a \"q\"", 25, 100, 3000, buf,
					     sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\"done\":25,\"total\":100,"
				     "\"eta_s\":6}\n"));
	/* the end of a phase is written whenever it comes, once */
	ck_assert_uint_gt(xfsj_progress_step(&p, "a \"q\"", 100, 100, 3100, buf,
					     sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\"eta_s\":0}\n"));
	ck_assert_uint_eq(xfsj_progress_step(&p, "a \"q\"", 100, 100, 3200, buf,
					     sizeof(buf)), 0);
	ck_assert_uint_eq(xfsj_progress_end(&p, 3300, buf, sizeof(buf)), 0);
	/* an update held back is written when the phase ends */
	xfsj_progress_step(&p, "b", 0, 10, 4000, buf, sizeof(buf));
	ck_assert_uint_eq(xfsj_progress_step(&p, "b", 5, 10, 4100, buf,
					     sizeof(buf)), 0);
	ck_assert_uint_gt(xfsj_progress_end(&p, 4200, buf, sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\"phase\":\"b\",\"done\":5"));
	ck_assert_ptr_null(strchr(buf, '\033'));
	ck_assert_uint_eq(xfsj_progress_clear(&p, buf, sizeof(buf)), 0);
}
END_TEST

START_TEST(terminal_lines)
{
	struct xfsj_progress p = { .form = XFSJ_PROGRESS_TERM, .tool = "t" };
	char buf[512];

	xfsj_progress_step(&p, "one", 0, 4, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\r\033[Kt: one: 0/4 (0%)");
	xfsj_progress_step(&p, "one", 1, 4, 2000, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\r\033[Kt: one: 1/4 (25%), about 6 s left");
	/* erased before other output */
	ck_assert_uint_gt(xfsj_progress_clear(&p, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "\r\033[K");
	ck_assert_uint_eq(xfsj_progress_clear(&p, buf, sizeof(buf)), 0);
	/* the next phase ends this one's line (the estimate as of then) */
	xfsj_progress_step(&p, "two", 0, 0, 2500, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\r\033[Kt: one: 1/4 (25%), about 8 s left\n"
			 "\r\033[Kt: two: 0");
	ck_assert_uint_gt(xfsj_progress_end(&p, 3000, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "\r\033[Kt: two: 0\n");
	ck_assert_int_eq(xfsj_progress_eta_s(&p, 3000), -1);
}
END_TEST

START_TEST(off_writes_nothing)
{
	struct xfsj_progress p = { .form = XFSJ_PROGRESS_OFF, .tool = "t" };
	char buf[64] = "x";

	ck_assert_uint_eq(xfsj_progress_step(&p, "a", 1, 2, 5000, buf,
					     sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_uint_eq(xfsj_progress_end(&p, 6000, buf, sizeof(buf)), 0);
	ck_assert_uint_eq(xfsj_progress_clear(&p, buf, sizeof(buf)), 0);
}
END_TEST

Suite *progress_suite(void)
{
	Suite *s = suite_create("progress");
	TCase *tc = tcase_create("progress");

	tcase_add_test(tc, json_objects);
	tcase_add_test(tc, terminal_lines);
	tcase_add_test(tc, off_writes_nothing);
	suite_add_tcase(s, tc);
	return s;
}
