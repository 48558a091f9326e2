/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text of each log item type in -t (items.c's table names the
 * printer of each type): the lines under the item's label line, in
 * xfs_logprint -t's words where it has some.
 */
#include <inttypes.h>

#include "logprint.h"

static const char *fork_label(uint32_t fields, bool attr)
{
	uint32_t m = attr ? fields >> 6 : fields >> 1;

	if (m & 1)
		return attr ? "ATTR FORK LOCAL inode data:" :
			      "DATA FORK LOCAL inode data:";
	if (m & 2)
		return attr ? "ATTR FORK EXTENTS inode data:" :
			      "DATA FORK EXTENTS inode data:";
	if (m & 4)
		return attr ? "ATTR FORK BTREE inode data:" :
			      "DATA FORK BTREE inode data:";
	return NULL;
}

static void print_name(const char *label, const uint8_t *p,
		       uint32_t n)
{
	o_printf("\t\t%s \"", label);
	for (uint32_t i = 0; i < n && i < 256; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			o_c(p[i]);
		else
			o_printf("\\x%02x", p[i]);
	}
	o_s(n > 256 ? "\"...\n" : "\"\n");
}

void lp_text_buf(struct lp *lp, const struct xfsj_ritem *it,
		 const struct xfsj_item_info *in)
{
	(void)lp;
	O_LIT("\tBUF:  #regs:");
	o_u(it->nreg);
	O_LIT("   start blkno:0x");
	o_x(in->u.buf.blkno);
	O_LIT("   len:");
	o_u(in->u.buf.len);
	O_LIT("   bmap size:");
	o_u(in->u.buf.map_size);
	O_LIT("   flags:0x");
	o_x(in->u.buf.flags);
	o_c('\n');
	for (uint16_t r = 1; r < it->nreg; r++) {
		const char *name = r == 1 ? in->u.buf.content.name : NULL;
		uint32_t m = r == 1 ? in->u.buf.content.magic : 0;

		if (r == 1 && in->u.buf.blkno == 0 && name)
			O_LIT("\tSUPER Block Buffer:\n");
		else if (m == XFSJ_AGI_MAGIC)
			O_LIT("\tAGI Buffer: (XAGI)\n");
		else if (m == XFSJ_AGF_MAGIC)
			O_LIT("\tAGF Buffer: (XAGF)\n");
		else if (m == XFSJ_DQUOT_MAGIC)
			O_LIT("\tDQUOT Buffer:\n");
		else
			O_LIT("\tBUF DATA\n");
	}
	if (in->u.buf.content.name) {
		O_LIT("\t\t");
		o_s(in->u.buf.content.name);
		if (in->u.buf.content.level >= 0) {
			O_LIT(" level ");
			o_u((uint64_t)in->u.buf.content.level);
		}
		O_LIT(" (type ");
		o_s(xfsj_blft_name(in->u.buf.blft));
		O_LIT(")\n");
	} else if (in->u.buf.flags & XFSJ_BLF_CANCEL) {
		O_LIT("\t\tcancel\n");
	} else if (in->u.buf.blft) {
		o_printf("\t\ttype %s\n", xfsj_blft_name(in->u.buf.blft));
	}
}

void lp_text_inode(struct lp *lp, const struct xfsj_ritem *it,
		   const struct xfsj_item_info *in)
{
	const struct xfsj_log_dinode *d;
	const char *lbl;

	O_LIT("\tINODE: #regs:");
	o_u((unsigned int)(it->reg[0].p[2] | it->reg[0].p[3] << 8));
	O_LIT("   ino:0x");
	o_x(in->u.ino.ino);
	O_LIT("  flags:0x");
	o_x(in->u.ino.fields);
	O_LIT("   dsize:");
	o_u(in->u.ino.dsize);
	O_LIT("\n\tCORE inode:\n");
	d = &in->u.ino.core;
	if (in->u.ino.have_core && !lp->hdr_only) {
		char oct[8];
		int k = 8;

		for (unsigned int m = d->mode; k > 1 && (m || k == 8); m >>= 3)
			oct[--k] = (char)('0' + (m & 7));
		oct[--k] = '0';
		O_LIT("\t\tmode:");
		o_write(oct + k, (size_t)(8 - k));
		O_LIT("  size:0x");
		o_x(d->size);
		O_LIT("  nextents:");
		o_u(d->nextents);
		O_LIT("  anextents:");
		o_u(d->anextents);
		O_LIT("  gen:0x");
		o_x(d->gen);
		O_LIT("  flags2:0x");
		o_x(d->flags2);
		o_c('\n');
	}
	lbl = fork_label(in->u.ino.fields, false);
	if (lbl) {
		O_LIT("\t\t");
		o_s(lbl);
		o_c('\n');
	}
	else if (in->u.ino.fields & 0x10)
		O_LIT("\t\tDEV inode: no extra region\n");
	lbl = fork_label(in->u.ino.fields, true);
	if (lbl) {
		O_LIT("\t\t");
		o_s(lbl);
		o_c('\n');
	}
}

void lp_text_dquot(struct lp *lp, const struct xfsj_ritem *it,
		   const struct xfsj_item_info *in)
{
	(void)lp;
	o_printf("\tDQUOT: #regs:%u  blkno:%" PRIu64 "  boffset:%u id: %u\n",
		it->nreg, in->u.dq.blkno, in->u.dq.boffset, in->u.dq.id);
}

void lp_text_qoff(struct lp *lp, const struct xfsj_ritem *it,
		  const struct xfsj_item_info *in)
{
	(void)lp;
	o_printf("\tQUOTAOFF: #regs:%u   type:%s%s%s\n", it->nreg,
		in->u.qoff.flags & 1 ? " USER" : "",
		in->u.qoff.flags & 0x40 ? " GROUP" : "",
		in->u.qoff.flags & 8 ? " PROJECT" : "");
}

void lp_text_icreate(struct lp *lp, const struct xfsj_ritem *it,
		     const struct xfsj_item_info *in)
{
	(void)lp;
	(void)it;
	o_printf("\tICR:  #ag: %u  agbno: 0x%x  len: %u\n"
		"\t      cnt: %u  isize: %u    gen: 0x%x\n",
		in->u.icr.ag, in->u.icr.agbno, in->u.icr.length,
		in->u.icr.count, in->u.icr.isize, in->u.icr.gen);
}

void lp_text_attri(struct lp *lp, const struct xfsj_ritem *it,
		   const struct xfsj_item_info *in)
{
	o_printf("\tATTRI:  #regs: %u\top: %u  ino: 0x%" PRIx64
		"  igen: 0x%x  name_len: %u, value_len: %u  id: 0x%"
		PRIx64 "  filter: 0x%x\n",
		it->nreg, in->u.attr.op, in->u.attr.ino, in->u.attr.igen,
		in->u.attr.name_len, in->u.attr.value_len, in->id,
		in->u.attr.filter);
	if (lp->hdr_only)
		return;
	if (in->u.attr.name)
		print_name("name", in->u.attr.name,
			   in->u.attr.name_len);
	if (in->u.attr.new_name)
		print_name("new name", in->u.attr.new_name,
			   in->u.attr.new_name_len);
	if (in->u.attr.pptr && in->u.attr.value)
		o_printf("\t\tparent ino: 0x%" PRIx64 "  gen: 0x%x\n",
			in->u.attr.parent_ino, in->u.attr.parent_gen);
	if (in->u.attr.pptr && in->u.attr.new_value)
		o_printf("\t\tnew parent ino: 0x%" PRIx64 "  gen: 0x%x\n",
			in->u.attr.new_parent_ino,
			in->u.attr.new_parent_gen);
}

void lp_text_xmi(struct lp *lp, const struct xfsj_ritem *it,
		 const struct xfsj_item_info *in)
{
	(void)lp;
	o_printf("\tXMI:  #regs: %u  id: 0x%" PRIx64 "  ino1: 0x%" PRIx64
		"  ino2: 0x%" PRIx64 "  off1: %" PRIu64 "  off2: %" PRIu64
		"  len: %" PRIu64 "  flags: 0x%" PRIx64 "\n",
		it->nreg, in->id, in->u.xmi.ino1, in->u.xmi.ino2,
		in->u.xmi.startoff1, in->u.xmi.startoff2,
		in->u.xmi.blockcount, in->u.xmi.flags);
}

/* The header line of an item that carries extents, then its extents. */
static void text_ext_head(const struct xfsj_ritem *it,
			  const struct xfsj_item_info *in)
{
	o_printf("\t%s:  #regs: %u\tnum_extents: %u  id: 0x%" PRIx64 "\n",
		in->kind->name, it->nreg, in->u.ext.nextents, in->id);
}

/* Extent @i of @n of an item, in the words of its type. */
typedef void (*ext_line_fn)(const struct xfsj_item_ext *e, uint32_t i,
			    uint32_t n);

static void text_extents(struct lp *lp, const struct xfsj_ritem *it,
			 const struct xfsj_item_info *in, ext_line_fn line)
{
	struct xfsj_item_ext e;

	text_ext_head(it, in);
	for (uint32_t i = 0; !lp->hdr_only && i < in->u.ext.nextents; i++) {
		if (xfsj_item_extent(in, i, &e))
			break;
		line(&e, i, in->u.ext.nextents);
	}
}

/* EFI, EFD (and RT): four extents to a line. */
static void efi_line(const struct xfsj_item_ext *e, uint32_t i, uint32_t n)
{
	o_printf("%s(s: 0x%" PRIx64 ", l: %u) ", i % 4 ? "" : "\t",
		 e->startblock, e->len);
	if (i % 4 == 3 || i == n - 1)
		o_c('\n');
}

/* CUI (and RT). */
static void cui_line(const struct xfsj_item_ext *e, uint32_t i, uint32_t n)
{
	(void)i;
	(void)n;
	o_printf("\t(s: 0x%" PRIx64 ", l: %u, f: 0x%x)\n", e->startblock,
		 e->len, e->flags);
}

/* RUI (and RT), BUI: mappings with owner and offset. */
static void map_line(const struct xfsj_item_ext *e, uint32_t i, uint32_t n)
{
	(void)i;
	(void)n;
	o_printf("\t(s: 0x%" PRIx64 ", l: %u, own: %" PRId64 ", off: %" PRIu64
		 ", f: 0x%x)\n", e->startblock, e->len, (int64_t)e->owner,
		 e->offset, e->flags);
}

void lp_text_efi(struct lp *lp, const struct xfsj_ritem *it,
		 const struct xfsj_item_info *in)
{
	text_extents(lp, it, in, efi_line);
}

void lp_text_cui(struct lp *lp, const struct xfsj_ritem *it,
		 const struct xfsj_item_info *in)
{
	text_extents(lp, it, in, cui_line);
}

void lp_text_map(struct lp *lp, const struct xfsj_ritem *it,
		 const struct xfsj_item_info *in)
{
	text_extents(lp, it, in, map_line);
}

/* Done items (and anything else known): the id. */
void lp_text_id(struct lp *lp, const struct xfsj_ritem *it,
		const struct xfsj_item_info *in)
{
	(void)lp;
	o_printf("\t%s:  #regs: %u\tid: 0x%" PRIx64 "\n",
		in->kind->name, it->nreg, in->id);
}
