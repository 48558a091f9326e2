/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every item decoder, on regions built byte by byte the way a
 * little-endian kernel formats them, and every decoder again with its
 * regions truncated or padded: decoding reports a fault and never reads
 * outside the regions (the sanitizer build checks the latter).
 */
#include <stdlib.h>
#include <string.h>

#include "log_synth.h"
#include "suites.h"
#include "core/layout.h"
#include "xfsj/logread.h"

struct item {
	struct xfsj_ritem it;
	struct xfsj_region reg[6];
	uint8_t *buf[6];
};

/* Regions live in their own exact-size allocations (for ASan). */
static void item_init(struct item *x, uint16_t type, unsigned int nreg,
		      const uint32_t *lens)
{
	memset(x, 0, sizeof(*x));
	for (unsigned int i = 0; i < nreg; i++) {
		x->buf[i] = calloc(1, lens[i] ? lens[i] : 1);
		x->reg[i].p = x->buf[i];
		x->reg[i].len = lens[i];
	}
	x->it.type = type;
	x->it.nreg = (uint16_t)nreg;
	x->it.reg = x->reg;
	if (lens[0] >= 4) {
		synth_le16(x->buf[0], type);
		synth_le16(x->buf[0] + 2, (uint16_t)nreg);
	}
}

static void item_free(struct item *x)
{
	for (int i = 0; i < 6; i++)
		free(x->buf[i]);
}

START_TEST(buf_item)
{
	uint32_t lens[] = { 24, 256 };
	struct xfsj_item_info in;
	struct item x;

	item_init(&x, XFSJ_LI_BUF, 2, lens);
	synth_buf_fmt(x.buf[0], 0x80010, 8, 0x2000, 2, 2);
	xfsj_put_be32(x.buf[1], 0x41423342);		/* AB3B */
	xfsj_put_be16(x.buf[1] + 4, 1);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_str_eq(in.kind->name, "BUF");
	ck_assert_uint_eq(in.u.buf.blkno, 0x80010);
	ck_assert_uint_eq(in.u.buf.len, 8);
	ck_assert_uint_eq(in.u.buf.blft, 4);
	ck_assert_str_eq(in.u.buf.content.name, "bnobt");
	ck_assert_int_eq(in.u.buf.content.level, 1);
	ck_assert(!in.u.buf.map_mismatch);
	/* A 16-bit da magic at byte 8, v5 node with its level at 58. */
	memset(x.buf[1], 0, 256);
	xfsj_put_be16(x.buf[1] + 8, 0x3ebe);
	xfsj_put_be16(x.buf[1] + 58, 2);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_str_eq(in.u.buf.content.name, "da node");
	ck_assert_int_eq(in.u.buf.content.level, 2);
	/* map size past the region */
	synth_le32(x.buf[0] + 16, 17);
	ck_assert_int_ne(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_str_eq(in.fault.field, "blf_map_size");
	item_free(&x);
}
END_TEST

START_TEST(buf_contents)
{
	static const struct { uint32_t magic; int size, off; const char *name; } t[] = {
		{ 0x58414746, 4, 0, "AGF" }, { 0x58414749, 4, 0, "AGI" },
		{ 0x5841464c, 4, 0, "AGFL" }, { 0x58444233, 4, 0, "dir block" },
		{ 0x58444433, 4, 0, "dir data" }, { 0x58444633, 4, 0, "dir free" },
		{ 0x5841524d, 4, 0, "attr remote" }, { 0x58534c4d, 4, 0, "symlink" },
		{ 0x524d4233, 4, 0, "rmapbt" }, { 0x52334643, 4, 0, "refcountbt" },
		{ 0x424d4133, 4, 0, "bmbt" }, { 0x49414233, 4, 0, "inobt" },
		{ 0x46494233, 4, 0, "finobt" }, { 0x41423343, 4, 0, "cntbt" },
		{ 0x3df1, 2, 8, "dir leaf1" }, { 0x3dff, 2, 8, "dir leafn" },
		{ 0x3bee, 2, 8, "attr leaf" }, { 0xfbee, 2, 8, "attr leaf (v4)" },
		{ 0x494e, 2, 0, "inode cluster" },
	};
	uint8_t b[128];
	struct xfsj_buf_content c;

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(b, 0, sizeof(b));
		if (t[i].size == 4)
			xfsj_put_be32(b + t[i].off, t[i].magic);
		else
			xfsj_put_be16(b + t[i].off, (uint16_t)t[i].magic);
		xfsj_buf_identify(b, sizeof(b), 64, &c);
		ck_assert_ptr_nonnull(c.name);
		ck_assert_str_eq(c.name, t[i].name);
	}
	memset(b, 0, sizeof(b));
	xfsj_put_be32(b, 0x58465342);
	xfsj_buf_identify(b, sizeof(b), 0, &c);
	ck_assert_str_eq(c.name, "superblock");
	/* Too short to hold the magic: nothing, and no read past it. */
	xfsj_buf_identify(b, 2, 64, &c);
	ck_assert_ptr_null(c.name);
}
END_TEST

static void put_dinode(uint8_t *d, bool bigtime, bool nrext64)
{
	synth_le16(d, 0x494e);
	synth_le16(d + 2, 0100644);
	d[4] = 3;
	d[5] = 2;
	synth_le32(d + 16, 1);
	synth_le64(d + 56, 12345);
	synth_le64(d + 64, 4);
	if (nrext64) {
		synth_le64(d + 24, 70000);
		synth_le32(d + 76, 3);
	} else {
		synth_le32(d + 76, 7);
		synth_le16(d + 80, 1);
	}
	if (bigtime)
		synth_le64(d + 40, ((uint64_t)1700000000 + 2147483648ULL) *
				   1000000000ULL + 5);
	else {
		synth_le32(d + 40, 1700000000);
		synth_le32(d + 44, 5);
	}
	synth_le32(d + 92, 0xabcdef);
	synth_le64(d + 120, (bigtime ? 0x8 : 0) | (nrext64 ? 0x10 : 0));
	synth_le64(d + 152, 0x1234);
}

START_TEST(inode_item)
{
	uint32_t lens[] = { 56, 176, 32, 16 };
	struct xfsj_item_info in;
	struct item x;

	for (int v = 0; v < 4; v++) {
		bool big = v & 1, nrext = v & 2;

		item_init(&x, XFSJ_LI_INODE, 4, lens);
		synth_le32(x.buf[0] + 4, 0x1 | 0x4 | 0x80);
		synth_le16(x.buf[0] + 8, 16);
		synth_le16(x.buf[0] + 10, 32);
		synth_le64(x.buf[0] + 16, 0x1234);
		synth_le64(x.buf[0] + 40, 0x80);
		synth_le32(x.buf[0] + 48, 32);
		synth_le32(x.buf[0] + 52, 0x800);
		put_dinode(x.buf[1], big, nrext);
		ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
		ck_assert_uint_eq(in.u.ino.ino, 0x1234);
		ck_assert_uint_eq(in.u.ino.blkno, 0x80);
		ck_assert_uint_eq(in.u.ino.boffset, 0x800);
		ck_assert_int_eq(in.u.ino.dfork_reg, 2);
		ck_assert_int_eq(in.u.ino.afork_reg, 3);
		ck_assert(in.u.ino.core.v3);
		ck_assert_uint_eq(in.u.ino.core.size, 12345);
		ck_assert_uint_eq(in.u.ino.core.gen, 0xabcdef);
		ck_assert_uint_eq(in.u.ino.core.ino, 0x1234);
		ck_assert_int_eq(in.u.ino.core.mtime_sec, 1700000000);
		ck_assert_uint_eq(in.u.ino.core.mtime_nsec, 5);
		ck_assert_uint_eq(in.u.ino.core.nextents, nrext ? 70000 : 7);
		ck_assert_uint_eq(in.u.ino.core.anextents, nrext ? 3 : 1);
		item_free(&x);
	}
	/* A fork flag without its region; a short core. */
	item_init(&x, XFSJ_LI_INODE, 2, lens);
	synth_le32(x.buf[0] + 4, 0x1 | 0x2);
	put_dinode(x.buf[1], false, false);
	ck_assert_int_ne(xfsj_item_decode(&x.it, &in), 0);
	item_free(&x);
	lens[1] = 60;
	item_init(&x, XFSJ_LI_INODE, 2, lens);
	ck_assert_int_ne(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_str_eq(in.fault.structure, "log dinode");
	item_free(&x);
}
END_TEST

START_TEST(dquot_qoff_icreate)
{
	uint32_t l2[] = { 24, 104 }, l1[] = { 20 }, lc[] = { 28 };
	struct xfsj_item_info in;
	struct item x;

	item_init(&x, XFSJ_LI_DQUOT, 2, l2);
	synth_le32(x.buf[0] + 4, 1000);
	synth_le64(x.buf[0] + 8, 0x5000);
	synth_le32(x.buf[0] + 16, 1);
	xfsj_put_be16(x.buf[1], 0x4451);
	xfsj_put_be64(x.buf[1] + 40, 77);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_uint_eq(in.u.dq.id, 1000);
	ck_assert_uint_eq(in.u.dq.bcount, 77);
	item_free(&x);

	item_init(&x, XFSJ_LI_QUOTAOFF, 1, l1);
	synth_le32(x.buf[0] + 4, 0x41);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_uint_eq(in.u.qoff.flags, 0x41);
	item_free(&x);

	item_init(&x, XFSJ_LI_ICREATE, 1, lc);
	xfsj_put_be32(x.buf[0] + 4, 1);
	xfsj_put_be32(x.buf[0] + 8, 16);
	xfsj_put_be32(x.buf[0] + 12, 64);
	xfsj_put_be32(x.buf[0] + 16, 512);
	xfsj_put_be32(x.buf[0] + 20, 8);
	xfsj_put_be32(x.buf[0] + 24, 0x382275a8);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_uint_eq(in.u.icr.ag, 1);
	ck_assert_uint_eq(in.u.icr.count, 64);
	ck_assert_uint_eq(in.u.icr.gen, 0x382275a8);
	item_free(&x);
}
END_TEST

START_TEST(efi_efd_both_encodings)
{
	uint32_t l16[] = { 16 + 2 * 16 }, l12[] = { 16 + 2 * 12 };
	struct xfsj_item_info in;
	struct xfsj_item_ext e;
	struct item x;

	item_init(&x, XFSJ_LI_EFI, 1, l16);
	synth_le32(x.buf[0] + 4, 2);
	synth_le64(x.buf[0] + 8, 0xfeed);
	synth_le64(x.buf[0] + 16, 100);
	synth_le32(x.buf[0] + 24, 5);
	synth_le64(x.buf[0] + 32, 200);
	synth_le32(x.buf[0] + 40, 6);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_uint_eq(in.id, 0xfeed);
	ck_assert_uint_eq(in.u.ext.stride, 16);
	ck_assert_int_eq(xfsj_item_extent(&in, 1, &e), 0);
	ck_assert_uint_eq(e.startblock, 200);
	ck_assert_uint_eq(e.len, 6);
	ck_assert_int_ne(xfsj_item_extent(&in, 2, &e), 0);
	item_free(&x);

	item_init(&x, XFSJ_LI_EFD, 1, l12);
	synth_le32(x.buf[0] + 4, 2);
	synth_le64(x.buf[0] + 8, 0xfeed);
	synth_le64(x.buf[0] + 16, 100);
	synth_le32(x.buf[0] + 24, 5);
	synth_le64(x.buf[0] + 28, 200);
	synth_le32(x.buf[0] + 36, 6);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_uint_eq(in.u.ext.stride, 12);
	ck_assert_int_eq(xfsj_item_extent(&in, 1, &e), 0);
	ck_assert_uint_eq(e.startblock, 200);
	ck_assert_uint_eq(in.kind->pair, XFSJ_LI_EFI);
	/* nextents that matches neither encoding */
	synth_le32(x.buf[0] + 4, 1000000);
	ck_assert_int_ne(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_int_ne(xfsj_item_extent(&in, 5, &e), 0);
	item_free(&x);
}
END_TEST

START_TEST(rui_cui_bui_and_done)
{
	uint32_t lr[] = { 16 + 32 }, lc[] = { 16 + 2 * 16 }, ld[] = { 16 };
	uint16_t done[] = { XFSJ_LI_RUD, XFSJ_LI_CUD, XFSJ_LI_BUD,
			    XFSJ_LI_ATTRD, XFSJ_LI_XMD, XFSJ_LI_RUD_RT,
			    XFSJ_LI_CUD_RT };
	struct xfsj_item_info in;
	struct xfsj_item_ext e;
	struct item x;

	item_init(&x, XFSJ_LI_RUI, 1, lr);
	synth_le32(x.buf[0] + 4, 1);
	synth_le64(x.buf[0] + 8, 0x77);
	synth_le64(x.buf[0] + 16, 0x85);
	synth_le64(x.buf[0] + 24, 0x1000);
	synth_le64(x.buf[0] + 32, 3);
	synth_le32(x.buf[0] + 40, 4);
	synth_le32(x.buf[0] + 44, 1);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_int_eq(xfsj_item_extent(&in, 0, &e), 0);
	ck_assert_uint_eq(e.owner, 0x85);
	ck_assert_uint_eq(e.startblock, 0x1000);
	ck_assert_uint_eq(e.offset, 3);
	ck_assert_uint_eq(e.len, 4);
	/* The same bytes as a BUI: one mapping, fine. */
	synth_le16(x.buf[0], XFSJ_LI_BUI);
	x.it.type = XFSJ_LI_BUI;
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	synth_le32(x.buf[0] + 4, 2);
	ck_assert_int_ne(xfsj_item_decode(&x.it, &in), 0);
	item_free(&x);

	item_init(&x, XFSJ_LI_CUI, 1, lc);
	synth_le32(x.buf[0] + 4, 2);
	synth_le64(x.buf[0] + 16, 0x2000);
	synth_le32(x.buf[0] + 24, 8);
	synth_le32(x.buf[0] + 28, 1);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_int_eq(xfsj_item_extent(&in, 0, &e), 0);
	ck_assert_uint_eq(e.flags, 1);
	item_free(&x);

	for (unsigned int i = 0; i < sizeof(done) / sizeof(done[0]); i++) {
		item_init(&x, done[i], 1, ld);
		synth_le64(x.buf[0] + 8, 0x4242 + i);
		ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
		ck_assert_uint_eq(in.id, 0x4242 + i);
		ck_assert_int_eq(in.kind->role, XFSJ_ROLE_DONE);
		item_free(&x);
	}
	/* RT intents are named. */
	ck_assert_str_eq(xfsj_item_type_lookup(XFSJ_LI_EFI_RT)->name, "EFI_RT");
	ck_assert_str_eq(xfsj_item_type_lookup(XFSJ_LI_CUI_RT)->name, "CUI_RT");
	ck_assert_ptr_eq(xfsj_item_type_by_name("ino"),
			 xfsj_item_type_lookup(XFSJ_LI_INODE));
}
END_TEST

START_TEST(attri_items)
{
	uint32_t lset[] = { 40, 8, 8 };
	uint32_t lrep[] = { 40, 4, 8, 12, 12 };
	struct xfsj_item_info in;
	struct item x;

	item_init(&x, XFSJ_LI_ATTRI, 3, lset);
	synth_le64(x.buf[0] + 8, 0x99);
	synth_le64(x.buf[0] + 16, 0x83);
	synth_le32(x.buf[0] + 24, 1);
	synth_le32(x.buf[0] + 28, 5);
	synth_le32(x.buf[0] + 32, 6);
	memcpy(x.buf[1], "user1", 5);
	memcpy(x.buf[2], "value1", 6);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_uint_eq(in.u.attr.op, 1);
	ck_assert_uint_eq(in.u.attr.name_len, 5);
	ck_assert_int_eq(memcmp(in.u.attr.name, "user1", 5), 0);
	ck_assert_int_eq(memcmp(in.u.attr.value, "value1", 6), 0);
	/* A region whose length does not match the padded name length. */
	synth_le32(x.buf[0] + 28, 9);
	ck_assert_int_ne(xfsj_item_decode(&x.it, &in), 0);
	item_free(&x);

	/* Parent pointer replace: two names, two BE parent values. */
	item_init(&x, XFSJ_LI_ATTRI, 5, lrep);
	synth_le32(x.buf[0] + 4, 0x1234);
	synth_le64(x.buf[0] + 16, 0x85);
	synth_le32(x.buf[0] + 24, 6);
	synth_le16(x.buf[0] + 28, 3);
	synth_le16(x.buf[0] + 30, 7);
	synth_le32(x.buf[0] + 32, 12);
	synth_le32(x.buf[0] + 36, 0x08);
	memcpy(x.buf[1], "old", 3);
	memcpy(x.buf[2], "newname", 7);
	xfsj_put_be64(x.buf[3], 0x80);
	xfsj_put_be32(x.buf[3] + 8, 11);
	xfsj_put_be64(x.buf[4], 0x81);
	xfsj_put_be32(x.buf[4] + 8, 12);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert(in.u.attr.pptr);
	ck_assert_uint_eq(in.u.attr.name_len, 3);
	ck_assert_uint_eq(in.u.attr.new_name_len, 7);
	ck_assert_uint_eq(in.u.attr.parent_ino, 0x80);
	ck_assert_uint_eq(in.u.attr.parent_gen, 11);
	ck_assert_uint_eq(in.u.attr.new_parent_ino, 0x81);
	ck_assert_uint_eq(in.u.attr.new_parent_gen, 12);
	/* Missing regions: fault, no read past the item. */
	x.it.nreg = 3;
	ck_assert_int_ne(xfsj_item_decode(&x.it, &in), 0);
	item_free(&x);
}
END_TEST

START_TEST(xmi_item)
{
	uint32_t l[] = { 88 };
	struct xfsj_item_info in;
	struct item x;

	item_init(&x, XFSJ_LI_XMI, 1, l);
	synth_le64(x.buf[0] + 8, 0x55);
	synth_le64(x.buf[0] + 16, 0x83);
	synth_le64(x.buf[0] + 24, 0x84);
	synth_le64(x.buf[0] + 56, 10);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_uint_eq(in.u.xmi.ino1, 0x83);
	ck_assert_uint_eq(in.u.xmi.ino2, 0x84);
	ck_assert_uint_eq(in.u.xmi.blockcount, 10);
	synth_le32(x.buf[0] + 4, 1);
	ck_assert_int_ne(xfsj_item_decode(&x.it, &in), 0);
	item_free(&x);
}
END_TEST

START_TEST(unknown_and_short)
{
	uint32_t l[] = { 16 }, l2[] = { 2 };
	struct xfsj_item_info in;
	struct item x;

	item_init(&x, 0x7777, 1, l);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), -XFSJ_E_UNSUPP);
	ck_assert_ptr_null(in.kind);
	item_free(&x);
	item_init(&x, XFSJ_LI_BUF, 1, l2);
	ck_assert_int_ne(xfsj_item_decode(&x.it, &in), 0);
	item_free(&x);
}
END_TEST

/* Every known type, with first regions of every length 0..100. */
START_TEST(all_types_all_lengths)
{
	unsigned int nt;
	const struct xfsj_item_type *types = xfsj_item_types(&nt);

	for (unsigned int t = 0; t < nt; t++) {
		for (uint32_t len = 0; len <= 100; len++) {
			for (unsigned int nreg = 1; nreg <= 5; nreg++) {
				uint32_t lens[5] = { len, len / 2, len / 3, 0, 1 };
				struct xfsj_item_info in;
				struct item x;

				item_init(&x, types[t].type, nreg, lens);
				for (unsigned int r = 0; r < nreg; r++)
					memset(x.buf[r] + (r == 0 && len >= 4 ? 4 : 0),
					       0xff, lens[r] > 4 ? lens[r] - 4 : 0);
				xfsj_item_decode(&x.it, &in);
				for (uint32_t i = 0; i < 4; i++) {
					struct xfsj_item_ext e;

					xfsj_item_extent(&in, i, &e);
				}
				item_free(&x);
			}
		}
	}
}
END_TEST

START_TEST(touches)
{
	struct xfsj_sb sb = { 0 };
	struct xfsj_fsgeo g;
	uint32_t lens[] = { 24, 128 };
	struct xfsj_item_info in;
	struct item x;

	sb.magicnum = XFSJ_SB_MAGIC;
	sb.blocksize = 4096;
	sb.blocklog = 12;
	sb.agblocks = 65536;
	sb.agblklog = 16;
	sb.agcount = 4;
	sb.inodesize = 512;
	sb.inopblog = 3;
	xfsj_fsgeo_from_sb(&sb, &g);
	ck_assert(g.known);
	ck_assert_uint_eq(xfsj_fsb_to_daddr(&g, (1ULL << 16) | 2), 524288 + 16);
	ck_assert_uint_eq(xfsj_daddr_to_agno(&g, 524288 + 16), 1);
	ck_assert_uint_eq(xfsj_ino_to_agno(&g, 1ULL << 19), 1);

	item_init(&x, XFSJ_LI_BUF, 2, lens);
	synth_buf_fmt(x.buf[0], 524288 + 16, 8, 0, 1, 2);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert(xfsj_item_touches_daddr(&in, &g, 524288 + 20));
	ck_assert(!xfsj_item_touches_daddr(&in, &g, 524288 + 24));
	ck_assert(xfsj_item_touches_ag(&in, &g, 1));
	ck_assert(!xfsj_item_touches_ag(&in, &g, 0));
	/* An inode cluster buffer holds its inodes. */
	xfsj_put_be16(x.buf[1], 0x494e);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert(xfsj_item_touches_ino(&x.it, &in, &g,
					(((1ULL << 16) | 2) << 3) + 1));
	item_free(&x);
}
END_TEST

/*
 * The reorder class comes from the row, refined by the buffer decoder:
 * plain buffers and icreates first, inode buffers, cancellations last.
 */
START_TEST(reorder_classes)
{
	uint32_t lens[] = { 24, 256 };
	uint32_t icr[] = { 28 };
	struct xfsj_item_info in;
	struct item x;

	item_init(&x, XFSJ_LI_BUF, 2, lens);
	synth_buf_fmt(x.buf[0], 0x80010, 8, 0x2000, 2, 2);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_int_eq(in.order, XFSJ_ORDER_BUF);
	synth_le16(x.buf[0] + 4, XFSJ_BLF_INODE_BUF);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_int_eq(in.order, XFSJ_ORDER_INODE_BUF);
	synth_le16(x.buf[0] + 4, XFSJ_BLF_CANCEL | XFSJ_BLF_INODE_BUF);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_int_eq(in.order, XFSJ_ORDER_CANCEL);
	item_free(&x);
	item_init(&x, XFSJ_LI_ICREATE, 1, icr);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_int_eq(in.order, XFSJ_ORDER_BUF);
	item_free(&x);
	/* An unknown type is an item of the middle class. */
	item_init(&x, 0x1239, 1, icr);
	ck_assert_int_ne(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_int_eq(in.order, XFSJ_ORDER_ITEM);
	item_free(&x);
}
END_TEST

/* Every row has a decoder; intents and done items pair up both ways. */
START_TEST(table_rows)
{
	unsigned int nt;
	const struct xfsj_item_type *types = xfsj_item_types(&nt);

	for (unsigned int t = 0; t < nt; t++) {
		const struct xfsj_item_type *k = &types[t], *p;

		ck_assert_ptr_nonnull(k->ops);
		ck_assert_ptr_nonnull(k->ops->decode);
		ck_assert_ptr_eq(xfsj_item_type_lookup(k->type), k);
		ck_assert_int_lt(k->order, XFSJ_ORDER_N);
		if (k->role == XFSJ_ROLE_OTHER)
			continue;
		p = xfsj_item_type_lookup(k->pair);
		ck_assert_ptr_nonnull(p);
		ck_assert_int_eq(p->pair, k->type);
		ck_assert_int_ne(p->role, k->role);
		ck_assert_int_eq(p->rt, k->rt);
	}
}
END_TEST

struct run_log {
	uint32_t off[8], len[8];
	uint8_t first[8];
	int n;
};

static void log_run(void *arg, uint32_t off, const uint8_t *data,
		    uint32_t len)
{
	struct run_log *r = arg;

	r->off[r->n] = off;
	r->len[r->n] = len;
	r->first[r->n++] = data[0];
}

/* The dirty map places the data regions: one run per region. */
START_TEST(buf_runs)
{
	uint32_t lens[] = { 24, 256, 128 };
	struct xfsj_item_info in;
	struct xfsj_fault f = { 0 };
	struct run_log r = { 0 };
	struct item x;

	item_init(&x, XFSJ_LI_BUF, 3, lens);
	/* chunks 0-1 and 4 of an 8-sector buffer */
	synth_buf_fmt(x.buf[0], 64, 8, 0, 0, 3);
	synth_le32(x.buf[0] + 20, 0x13);
	memset(x.buf[1], 0xaa, 256);
	memset(x.buf[2], 0xbb, 128);
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_int_eq(xfsj_buf_item_runs(&x.it, &in, 4096, log_run, &r, &f),
			 0);
	ck_assert_int_eq(r.n, 2);
	ck_assert_uint_eq(r.off[0], 0);
	ck_assert_uint_eq(r.len[0], 256);
	ck_assert_uint_eq(r.first[0], 0xaa);
	ck_assert_uint_eq(r.off[1], 512);
	ck_assert_uint_eq(r.len[1], 128);
	ck_assert_uint_eq(r.first[1], 0xbb);
	/* A run past the buffer, and one more run than regions. */
	memset(&r, 0, sizeof(r));
	ck_assert_int_ne(xfsj_buf_item_runs(&x.it, &in, 512, log_run, &r, &f),
			 0);
	ck_assert_str_eq(f.field, "dirty map");
	synth_le32(x.buf[0] + 20, 0x53);
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(xfsj_item_decode(&x.it, &in), 0);
	ck_assert_int_ne(xfsj_buf_item_runs(&x.it, &in, 4096, log_run, &r, &f),
			 0);
	ck_assert_str_eq(f.field, "region count");
	item_free(&x);
}
END_TEST

Suite *log_items_suite(void)
{
	Suite *s = suite_create("log_items");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, buf_item);
	tcase_add_test(tc, buf_contents);
	tcase_add_test(tc, inode_item);
	tcase_add_test(tc, dquot_qoff_icreate);
	tcase_add_test(tc, efi_efd_both_encodings);
	tcase_add_test(tc, rui_cui_bui_and_done);
	tcase_add_test(tc, attri_items);
	tcase_add_test(tc, xmi_item);
	tcase_add_test(tc, unknown_and_short);
	tcase_add_test(tc, all_types_all_lengths);
	tcase_add_test(tc, touches);
	tcase_add_test(tc, reorder_classes);
	tcase_add_test(tc, table_rows);
	tcase_add_test(tc, buf_runs);
	suite_add_tcase(s, tc);
	return s;
}
