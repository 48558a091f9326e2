/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's problem table (libjournal/check/problem.c): a message
 * template expanded with every key, absent fields as "?", names escaped,
 * truncation returning the length needed; and every row of the table,
 * whichever phase adds it, well formed: a unique code and number, a
 * message, a valid severity and fix, only known {keys} in its template.
 */
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "xfsj/check.h"

static const struct xfsj_problem_def def_all = {
	"test.all", 0x7f0001, XFSJ_SEV_CORRUPT, "test",
	"ag {ag} agbno {agbno} ino {ino} fsbno {fsbno} off {off} "
	"field {field} expected {expected} found {found} "
	"xexpected {xexpected} xfound {xfound} count {count} name {name}",
	XFSJ_FIX_FIELD, XFSJ_H_INODE_SIZE, 0,
};

static const struct xfsj_problem p_all = {
	.def = &def_all,
	.has = XFSJ_PF_AG | XFSJ_PF_AGBNO | XFSJ_PF_INO | XFSJ_PF_FSBNO |
	       XFSJ_PF_OFF | XFSJ_PF_EXPECTED | XFSJ_PF_FOUND | XFSJ_PF_COUNT,
	.agno = 3, .agbno = 4096, .ino = 0x123456789ULL,
	.fsbno = 18446744073709551615ULL, .off = 0,
	.expected = 255, .found = 4096, .count = 7,
	.field = "agf_freeblks", .name = "dir1", .namelen = 4,
};

static size_t fmt(const struct xfsj_problem *p, char *buf, size_t len)
{
	memset(buf, '#', len);
	return xfsj_problem_format(p, buf, len);
}

START_TEST(test_every_key)
{
	static const char want[] =
		"ag 3 agbno 4096 ino 4886718345 fsbno 18446744073709551615 "
		"off 0 field agf_freeblks expected 255 found 4096 "
		"xexpected 0xff xfound 0x1000 count 7 name dir1";
	char buf[512];

	ck_assert_uint_eq(fmt(&p_all, buf, sizeof(buf)), strlen(want));
	ck_assert_str_eq(buf, want);
}
END_TEST

START_TEST(test_absent_fields)
{
	static const char want[] =
		"ag ? agbno ? ino ? fsbno ? off ? field ? expected ? found ? "
		"xexpected ? xfound ? count ? name ?";
	struct xfsj_problem p = { .def = &def_all };
	char buf[512];

	ck_assert_uint_eq(fmt(&p, buf, sizeof(buf)), strlen(want));
	ck_assert_str_eq(buf, want);

	/* A value of the wrong kind set without its bit is still absent. */
	p.agno = 9;
	p.ino = 9;
	p.found = 9;
	p.has = XFSJ_PF_EXPECTED;
	p.expected = 0;
	fmt(&p, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "ag ? "));
	ck_assert_ptr_nonnull(strstr(buf, "ino ? "));
	ck_assert_ptr_nonnull(strstr(buf, "expected 0 found ? "));
	ck_assert_ptr_nonnull(strstr(buf, "xexpected 0x0 xfound ? "));
}
END_TEST

START_TEST(test_name_escaped)
{
	static const struct xfsj_problem_def d = {
		"test.name", 0x7f0002, XFSJ_SEV_WARN, "test", "<{name}>",
		XFSJ_FIX_NONE, XFSJ_H_NONE, 0,
	};
	/* A NUL, control bytes, a backslash, DEL and high bytes. */
	static const char name[] = { 'a', '\0', '\n', '\\', 0x7f, (char)0xff,
				     ' ', '"', 'z' };
	struct xfsj_problem p = {
		.def = &d, .name = name, .namelen = sizeof(name),
	};
	static const char want[] = "<a\\x00\\x0a\\x5c\\x7f\\xff \"z>";
	char buf[64];
	size_t i;

	ck_assert_uint_eq(fmt(&p, buf, sizeof(buf)), strlen(want));
	ck_assert_str_eq(buf, want);
	for (i = 0; buf[i]; i++)
		ck_assert(buf[i] >= 0x20 && buf[i] < 0x7f);

	/* Only @namelen bytes: the name need not be terminated. */
	p.namelen = 1;
	fmt(&p, buf, sizeof(buf));
	ck_assert_str_eq(buf, "<a>");
	p.namelen = 0;
	fmt(&p, buf, sizeof(buf));
	ck_assert_str_eq(buf, "<>");
}
END_TEST

START_TEST(test_literal_braces)
{
	static const struct xfsj_problem_def d = {
		"test.braces", 0x7f0003, XFSJ_SEV_INFO, "test",
		"{bogus} {} {ag}} {{ag} open {ag", XFSJ_FIX_NONE, XFSJ_H_NONE, 0,
	};
	struct xfsj_problem p = { .def = &d, .has = XFSJ_PF_AG, .agno = 1 };
	static const char want[] = "{bogus} {} 1} {{ag} open {ag";
	char buf[64];

	/* An unknown key stays as written; so does an unclosed brace. */
	ck_assert_uint_eq(fmt(&p, buf, sizeof(buf)), strlen(want));
	ck_assert_str_eq(buf, want);
}
END_TEST

START_TEST(test_truncation)
{
	char full[512], buf[512];
	size_t need = fmt(&p_all, full, sizeof(full)), len;

	ck_assert_uint_gt(need, 40);
	/* Every size: the needed length back, a terminated prefix in. */
	for (len = 1; len <= need + 1; len++) {
		memset(buf, '#', sizeof(buf));
		ck_assert_uint_eq(xfsj_problem_format(&p_all, buf, len), need);
		ck_assert_uint_eq(strlen(buf), len - 1);
		ck_assert(!memcmp(buf, full, len - 1));
		/* Nothing written past the buffer. */
		ck_assert_int_eq(buf[len], '#');
	}
	/* No buffer at all: only the length, as snprintf(NULL, 0). */
	ck_assert_uint_eq(xfsj_problem_format(&p_all, NULL, 0), need);
	buf[0] = '#';
	ck_assert_uint_eq(xfsj_problem_format(&p_all, buf, 0), need);
	ck_assert_int_eq(buf[0], '#');
}
END_TEST

/* Every {key} of @msg is one the formatter knows. */
static const char *unknown_key(const char *msg)
{
	static const char *const keys[] = {
		"ag", "agbno", "ino", "fsbno", "off", "field", "expected",
		"found", "xexpected", "xfound", "name", "count",
	};
	static char bad[64];
	const char *t = msg, *e;
	size_t k;

	while ((t = strchr(t, '{'))) {
		e = strchr(t, '}');
		if (!e)
			return "(unclosed {)";
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if ((size_t)(e - t - 1) == strlen(keys[k]) &&
			    !memcmp(t + 1, keys[k], strlen(keys[k])))
				break;
		if (k == sizeof(keys) / sizeof(keys[0])) {
			snprintf(bad, sizeof(bad), "%.*s", (int)(e - t + 1), t);
			return bad;
		}
		t = e + 1;
	}
	return NULL;
}

START_TEST(test_table_rows)
{
	size_t n = xfsj_problem_count(), i, j;

	ck_assert_uint_gt(n, 0);
	ck_assert_ptr_null(xfsj_problem_nth(n));
	for (i = 0; i < n; i++) {
		const struct xfsj_problem_def *d = xfsj_problem_nth(i);
		const char *bad;

		ck_assert_ptr_nonnull(d);
		ck_assert_msg(d->code && d->code[0], "row %zu: no code", i);
		ck_assert_msg(d->msg && d->msg[0], "%s: no message", d->code);
		ck_assert_msg(d->structure && d->structure[0],
			      "%s: no structure", d->code);
		ck_assert_msg((unsigned)d->sev <= XFSJ_SEV_INFO,
			      "%s: severity %d", d->code, (int)d->sev);
		ck_assert_msg((unsigned)d->fix < XFSJ_FIX__COUNT &&
			      strcmp(xfsj_fix_name(d->fix), "?"),
			      "%s: fix %d", d->code, (int)d->fix);
		ck_assert_str_ne(xfsj_sev_name(d->sev), "?");
		/* 0xPPnnnn: a phase and a row. */
		ck_assert_msg(d->num <= 0xffffff && (d->num >> 16) &&
			      (d->num & 0xffff), "%s: number 0x%x", d->code,
			      (unsigned)d->num);
		bad = unknown_key(d->msg);
		ck_assert_msg(!bad, "%s: unknown key %s in \"%s\"", d->code,
			      bad, d->msg);
		ck_assert_ptr_eq(xfsj_problem_by_code(d->code), d);
		for (j = 0; j < i; j++) {
			const struct xfsj_problem_def *o = xfsj_problem_nth(j);

			ck_assert_msg(strcmp(o->code, d->code),
				      "code %s used twice", d->code);
			ck_assert_msg(o->num != d->num,
				      "number 0x%06x used by %s and %s",
				      (unsigned)d->num, o->code, d->code);
		}
	}
	ck_assert_ptr_null(xfsj_problem_by_code("no.such.problem"));
}
END_TEST

/* Every row's template expands, with all fields and with none. */
START_TEST(test_table_formats)
{
	size_t n = xfsj_problem_count(), i;
	char buf[1024];

	for (i = 0; i < n; i++) {
		struct xfsj_problem p = p_all;
		size_t need;

		p.def = xfsj_problem_nth(i);
		need = xfsj_problem_format(&p, buf, sizeof(buf));
		ck_assert_uint_lt(need, sizeof(buf));
		ck_assert_uint_eq(strlen(buf), need);
		ck_assert_msg(!strchr(buf, '{'), "%s: \"%s\"", p.def->code,
			      buf);
		memset(&p, 0, sizeof(p));
		p.def = xfsj_problem_nth(i);
		ck_assert_uint_eq(xfsj_problem_format(&p, NULL, 0),
				  xfsj_problem_format(&p, buf, sizeof(buf)));
	}
}
END_TEST

START_TEST(test_names)
{
	int k;

	ck_assert_str_eq(xfsj_sev_name(XFSJ_SEV_CORRUPT), "corrupt");
	ck_assert_str_eq(xfsj_sev_name((enum xfsj_sev)99), "?");
	ck_assert_str_eq(xfsj_fix_name(XFSJ_FIX__COUNT), "?");
	for (k = 0; k < XFSJ_FIX__COUNT; k++)
		ck_assert_str_ne(xfsj_fix_name((enum xfsj_fix)k), "?");
	for (k = 0; k < XFSJ_CK__PHASES; k++)
		ck_assert_str_ne(xfsj_check_phase_name(
			(enum xfsj_check_phase)k), "?");
	ck_assert_str_eq(xfsj_check_phase_name(XFSJ_CK__PHASES), "?");
}
END_TEST

Suite *check_problem_suite(void)
{
	Suite *s = suite_create("check_problem");
	TCase *tc = tcase_create("check_problem");

	tcase_add_test(tc, test_every_key);
	tcase_add_test(tc, test_absent_fields);
	tcase_add_test(tc, test_name_escaped);
	tcase_add_test(tc, test_literal_braces);
	tcase_add_test(tc, test_truncation);
	tcase_add_test(tc, test_table_rows);
	tcase_add_test(tc, test_table_formats);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}
