/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The log item codecs of ondisk/: the ATTRI and XMI formats (decoded the
 * same for logprint and recovery: fields, the regions an ATTRI calls for,
 * the structural rules) and the checked layouts of the intent, done and
 * buf log formats.
 */
#include <string.h>

#include "suites.h"
#include "ondisk/attri_fmt.h"
#include "ondisk/log.h"
#include "ondisk/xmi_fmt.h"

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, (uint16_t)v);
	put_le16(p + 2, (uint16_t)(v >> 16));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

/* An ATTRI format of @op with the given lengths and filter. */
static void attri_fmt(uint8_t *p, uint32_t op_flags, uint32_t name_word,
		      uint32_t value_len, uint32_t filter)
{
	memset(p, 0, XFSJ_ATTRI_FMT_SIZE);
	put_le16(p, XFSJ_LI_ATTRI);
	put_le32(p + 4, 0x1234);		/* igen */
	put_le64(p + 8, 0xabcdef);		/* id */
	put_le64(p + 16, 131);			/* ino */
	put_le32(p + 24, op_flags);
	put_le32(p + 28, name_word);
	put_le32(p + 32, value_len);
	put_le32(p + 36, filter);
}

START_TEST(attri_decode_fields)
{
	uint8_t p[XFSJ_ATTRI_FMT_SIZE];
	struct xfsj_attri_fmt a;

	attri_fmt(p, XFSJ_ATTRI_OP_SET, 7, 100, XFSJ_ATTR_NS_ROOT);
	ck_assert(xfsj_attri_fmt_decode(p, sizeof(p), &a));
	ck_assert_uint_eq(a.igen, 0x1234);
	ck_assert_uint_eq(a.id, 0xabcdef);
	ck_assert_uint_eq(a.ino, 131);
	ck_assert_uint_eq(a.op, XFSJ_ATTRI_OP_SET);
	ck_assert_uint_eq(a.name_len, 7);
	ck_assert_uint_eq(a.new_name_len, 0);
	ck_assert_uint_eq(a.value_len, 100);
	ck_assert_uint_eq(a.new_value_len, 0);
	ck_assert_uint_eq(a.filter, XFSJ_ATTR_NS_ROOT);
	ck_assert(!a.pptr);
	ck_assert_ptr_null(xfsj_attri_fmt_verify(&a, &(uint64_t){ 0 }));

	/* Wrong size: not decoded. */
	ck_assert(!xfsj_attri_fmt_decode(p, sizeof(p) - 4, &a));
	ck_assert(!xfsj_attri_fmt_decode(NULL, sizeof(p), &a));
}
END_TEST

/* PPTR_REPLACE: two u16 name lengths share the name_len word. */
START_TEST(attri_pptr_replace_parts)
{
	uint8_t p[XFSJ_ATTRI_FMT_SIZE];
	struct xfsj_attri_fmt a;
	struct xfsj_attri_slot s[4];
	static const enum xfsj_attri_part want[] = {
		XFSJ_ATTRI_NAME, XFSJ_ATTRI_NEW_NAME, XFSJ_ATTRI_VALUE,
		XFSJ_ATTRI_NEW_VALUE,
	};

	attri_fmt(p, XFSJ_ATTRI_OP_PPTR_REPLACE, 5 | 9U << 16,
		  XFSJ_ATTR_PPTR_VALUE_LEN, XFSJ_ATTR_NS_PARENT);
	ck_assert(xfsj_attri_fmt_decode(p, sizeof(p), &a));
	ck_assert(a.pptr);
	ck_assert_uint_eq(a.name_len, 5);
	ck_assert_uint_eq(a.new_name_len, 9);
	ck_assert_uint_eq(a.new_value_len, XFSJ_ATTR_PPTR_VALUE_LEN);
	ck_assert_uint_eq(xfsj_attri_fmt_parts(&a, s), 4);
	for (unsigned int i = 0; i < 4; i++)
		ck_assert_int_eq(s[i].part, want[i]);
	ck_assert_uint_eq(s[1].len, 9);
	ck_assert_str_eq(s[3].what, "new value region");
	ck_assert_uint_eq(xfsj_attri_fmt_nregions(a.op), 5);
	ck_assert_ptr_null(xfsj_attri_fmt_verify(&a, &(uint64_t){ 0 }));
}
END_TEST

START_TEST(attri_parts_by_op)
{
	uint8_t p[XFSJ_ATTRI_FMT_SIZE];
	struct xfsj_attri_fmt a;
	struct xfsj_attri_slot s[4];

	/* A remove: the name alone, two regions in all. */
	attri_fmt(p, XFSJ_ATTRI_OP_REMOVE, 3, 0, 0);
	xfsj_attri_fmt_decode(p, sizeof(p), &a);
	ck_assert_uint_eq(xfsj_attri_fmt_parts(&a, s), 1);
	ck_assert_int_eq(s[0].part, XFSJ_ATTRI_NAME);
	ck_assert_uint_eq(xfsj_attri_fmt_nregions(a.op), 2);
	/* A set of an empty value: no value region, yet three wanted. */
	attri_fmt(p, XFSJ_ATTRI_OP_SET, 3, 0, 0);
	xfsj_attri_fmt_decode(p, sizeof(p), &a);
	ck_assert_uint_eq(xfsj_attri_fmt_parts(&a, s), 1);
	ck_assert_uint_eq(xfsj_attri_fmt_nregions(a.op), 3);
	/* Regions are padded to 4 bytes. */
	ck_assert_uint_eq(xfsj_attri_region_len(0), 0);
	ck_assert_uint_eq(xfsj_attri_region_len(5), 8);
	ck_assert_uint_eq(xfsj_attri_region_len(12), 12);
	ck_assert_uint_eq(xfsj_attri_region_len(UINT32_MAX), 1ULL << 32);
}
END_TEST

/* Each structural rule, broken alone, names its field. */
START_TEST(attri_verify_rules)
{
	static const struct {
		uint32_t op_flags, name_word, value_len, filter;
		const char *field;
		uint64_t val;
	} c[] = {
		{ XFSJ_ATTRI_OP_SET | 0x100, 3, 1, 0, "op_flags", 0x101 },
		{ XFSJ_ATTRI_OP_SET, 3, 1, 0x100, "attr_filter", 0x100 },
		{ XFSJ_ATTRI_OP_SET, 3, 1, XFSJ_ATTR_NS_ROOT |
		  XFSJ_ATTR_NS_SECURE, "attr_filter", 0x06 },
		{ 0, 3, 1, 0, "op_flags", 0 },
		{ 7, 3, 1, 0, "op_flags", 7 },
		{ XFSJ_ATTRI_OP_SET, 3, XFSJ_XATTR_SIZE_MAX + 1, 0,
		  "value_len", XFSJ_XATTR_SIZE_MAX + 1 },
		{ XFSJ_ATTRI_OP_REMOVE, 3, 1, 0, "value_len", 1 },
		{ XFSJ_ATTRI_OP_PPTR_SET, 3, 11, XFSJ_ATTR_NS_PARENT,
		  "value_len", 11 },
		{ XFSJ_ATTRI_OP_PPTR_REMOVE, 3, 12, 0, "attr_filter", 0 },
		{ XFSJ_ATTRI_OP_PPTR_REPLACE, 3, 12, XFSJ_ATTR_NS_PARENT,
		  "new_name_len", 0 },
		{ XFSJ_ATTRI_OP_PPTR_REPLACE, 3 | 256U << 16, 12,
		  XFSJ_ATTR_NS_PARENT, "new_name_len", 256 },
		{ XFSJ_ATTRI_OP_SET, 0, 1, 0, "name_len", 0 },
		{ XFSJ_ATTRI_OP_SET, 256, 1, 0, "name_len", 256 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint8_t p[XFSJ_ATTRI_FMT_SIZE];
		struct xfsj_attri_fmt a;
		uint64_t val = 0;
		const char *field;

		attri_fmt(p, c[i].op_flags, c[i].name_word, c[i].value_len,
			  c[i].filter);
		xfsj_attri_fmt_decode(p, sizeof(p), &a);
		field = xfsj_attri_fmt_verify(&a, &val);
		ck_assert_msg(field && !strcmp(field, c[i].field),
			      "case %zu: %s", i, field ? field : "(none)");
		ck_assert_uint_eq(val, c[i].val);
	}
}
END_TEST

START_TEST(pptr_value)
{
	uint8_t v[XFSJ_ATTR_PPTR_VALUE_LEN] = {
		0, 0, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 9,
	};
	uint64_t ino;
	uint32_t gen;

	xfsj_pptr_value_decode(v, &ino, &gen);
	ck_assert_uint_eq(ino, 0x102);
	ck_assert_uint_eq(gen, 9);
}
END_TEST

static void xmi_fmt(uint8_t *p)
{
	memset(p, 0, XFSJ_XMI_FMT_SIZE);
	put_le16(p, XFSJ_LI_XMI);
	put_le64(p + 8, 77);
	put_le64(p + 16, 131);
	put_le64(p + 24, 132);
	put_le32(p + 32, 5);
	put_le32(p + 36, 6);
	put_le64(p + 40, 10);
	put_le64(p + 48, 20);
	put_le64(p + 56, 30);
	put_le64(p + 64, XFSJ_XMI_SET_SIZES);
	put_le64(p + 72, 4096);
	put_le64(p + 80, 8192);
}

START_TEST(xmi_decode_verify)
{
	uint8_t p[XFSJ_XMI_FMT_SIZE];
	struct xfsj_xmi_fmt x;
	uint64_t val = 0;

	xmi_fmt(p);
	ck_assert(xfsj_xmi_fmt_decode(p, sizeof(p), &x));
	ck_assert_uint_eq(x.id, 77);
	ck_assert_uint_eq(x.ino1, 131);
	ck_assert_uint_eq(x.ino2, 132);
	ck_assert_uint_eq(x.igen1, 5);
	ck_assert_uint_eq(x.igen2, 6);
	ck_assert_uint_eq(x.startoff1, 10);
	ck_assert_uint_eq(x.startoff2, 20);
	ck_assert_uint_eq(x.blockcount, 30);
	ck_assert_uint_eq(x.flags, XFSJ_XMI_SET_SIZES);
	ck_assert_uint_eq(x.isize1, 4096);
	ck_assert_uint_eq(x.isize2, 8192);
	ck_assert_ptr_null(xfsj_xmi_fmt_verify(&x, &val));
	ck_assert(!xfsj_xmi_fmt_decode(p, sizeof(p) - 8, &x));

	xmi_fmt(p);
	put_le32(p + 4, 1);
	xfsj_xmi_fmt_decode(p, sizeof(p), &x);
	ck_assert_str_eq(xfsj_xmi_fmt_verify(&x, &val), "pad");
	xmi_fmt(p);
	put_le64(p + 64, XFSJ_XMI_LOGGED_FLAGS + 1);
	xfsj_xmi_fmt_decode(p, sizeof(p), &x);
	ck_assert_str_eq(xfsj_xmi_fmt_verify(&x, &val), "flags");
	xmi_fmt(p);
	put_le64(p + 56, 0);
	xfsj_xmi_fmt_decode(p, sizeof(p), &x);
	ck_assert_str_eq(xfsj_xmi_fmt_verify(&x, &val), "startoff1");
	xmi_fmt(p);
	put_le64(p + 48, XFSJ_MAX_FILEOFF - 28);
	xfsj_xmi_fmt_decode(p, sizeof(p), &x);
	ck_assert_str_eq(xfsj_xmi_fmt_verify(&x, &val), "startoff2");
	ck_assert_uint_eq(val, XFSJ_MAX_FILEOFF - 28);
}
END_TEST

START_TEST(fileext)
{
	ck_assert(xfsj_fileext_ok(0, 1));
	ck_assert(!xfsj_fileext_ok(0, 0));
	ck_assert(xfsj_fileext_ok(0, XFSJ_MAX_FILEOFF + 1));
	ck_assert(!xfsj_fileext_ok(0, XFSJ_MAX_FILEOFF + 2));
	ck_assert(xfsj_fileext_ok(XFSJ_MAX_FILEOFF, 1));
	ck_assert(!xfsj_fileext_ok(XFSJ_MAX_FILEOFF, 2));
	ck_assert(!xfsj_fileext_ok(XFSJ_MAX_FILEOFF + 1, 1));
	ck_assert(!xfsj_fileext_ok(UINT64_MAX, UINT64_MAX));
}
END_TEST

/* The layouts name the offsets the decoders read. */
START_TEST(log_item_layouts)
{
	static const struct {
		const struct xfsj_layout *l;
		const char *field;
		int off;
		unsigned int size;
	} c[] = {
		{ &xfsj_attri_log_layout, "op_flags", 24, 40 },
		{ &xfsj_attri_log_layout, "attr_filter", 36, 40 },
		{ &xfsj_xmi_fmt_layout, "flags", 64, 88 },
		{ &xfsj_xmi_fmt_layout, "isize2", 80, 88 },
		{ &xfsj_intent_hdr_layout, "id", 8, 16 },
		{ &xfsj_efi_ext_layout, "len", 8, 16 },
		{ &xfsj_map_ext_layout, "flags", 28, 32 },
		{ &xfsj_cui_ext_layout, "flags", 12, 16 },
		{ &xfsj_blf_layout, "map_size", 16, 20 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ck_assert_int_eq(xfsj_layout_offset(c[i].l, c[i].field),
				 c[i].off);
		ck_assert_uint_eq(c[i].l->size, c[i].size);
	}
	ck_assert_uint_eq(XFSJ_ATTRI_OFF(name_len), 28);
	ck_assert_uint_eq(XFSJ_XMI_OFF(pad), 4);
	ck_assert_uint_eq(XFSJ_BLF_OFF(blkno), 8);
	ck_assert_uint_eq(XFSJ_MAP_EXT_OFF(offset), 16);
}
END_TEST

Suite *intent_fmt_suite(void)
{
	Suite *s = suite_create("intent_fmt");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, attri_decode_fields);
	tcase_add_test(tc, attri_pptr_replace_parts);
	tcase_add_test(tc, attri_parts_by_op);
	tcase_add_test(tc, attri_verify_rules);
	tcase_add_test(tc, pptr_value);
	tcase_add_test(tc, xmi_decode_verify);
	tcase_add_test(tc, fileext);
	tcase_add_test(tc, log_item_layouts);
	suite_add_tcase(s, tc);
	return s;
}
