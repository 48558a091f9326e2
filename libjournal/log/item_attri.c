/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ATTRI items (extended attribute and parent pointer intents): the
 * 40-byte format, then the name, [the new name], [the value], [the new
 * value], each region padded to 4 bytes (layout in fs/attri.h).  Their
 * done items (ATTRD) are item_intent.c's.
 */
#include "log/item_priv.h"

static uint32_t round4(uint32_t n)
{
	return (n + 3) & ~3U;
}

static const uint8_t *attr_region(const struct xfsj_ritem *it,
				  struct xfsj_item_info *in, int *idx,
				  uint32_t want, const char *what)
{
	const struct xfsj_region *r;

	if (*idx >= it->nreg) {
		ITEM_BAD(in, "ATTRI item", what, 0, it->nreg);
		return NULL;
	}
	r = &it->reg[(*idx)++];
	if (r->len != round4(want)) {
		ITEM_BAD_R(in, (unsigned int)*idx - 1, "ATTRI item", what, 0,
			   r->len);
		return NULL;
	}
	return r->p;
}

static int dec_attri(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	const uint8_t *p = it->reg[0].p;
	int idx = 1;

	if (it->reg[0].len != 40)
		return ITEM_BAD(in, "ATTRI item", "length", 0, it->reg[0].len);
	in->u.attr.igen = xlog_le32(p + 4);
	in->u.attr.ino = xlog_le64(p + 16);
	in->u.attr.op_flags = xlog_le32(p + 24);
	in->u.attr.op = in->u.attr.op_flags & 0xff;
	in->u.attr.value_len = xlog_le32(p + 32);
	in->u.attr.filter = xlog_le32(p + 36);
	if (in->u.attr.op == XFSJ_ATTRI_OP_PPTR_REPLACE) {
		in->u.attr.name_len = xlog_le16(p + 28);
		in->u.attr.new_name_len = xlog_le16(p + 30);
	} else {
		in->u.attr.name_len = xlog_le32(p + 28);
	}
	in->u.attr.pptr = in->u.attr.op >= XFSJ_ATTRI_OP_PPTR_SET &&
			  in->u.attr.op <= XFSJ_ATTRI_OP_PPTR_REPLACE;
	if (!in->u.attr.op || in->u.attr.op > XFSJ_ATTRI_OP_PPTR_REPLACE)
		return ITEM_BAD(in, "ATTRI item", "alfi_op_flags", 24,
				in->u.attr.op_flags);
	if (in->u.attr.name_len > 0xffff || in->u.attr.value_len > 0x10000)
		return ITEM_BAD(in, "ATTRI item", "alfi_name_len", 28,
				in->u.attr.name_len);
	in->fmt_ok = true;

	in->u.attr.name = attr_region(it, in, &idx, in->u.attr.name_len,
				      "name region");
	if (in->u.attr.op == XFSJ_ATTRI_OP_PPTR_REPLACE)
		in->u.attr.new_name = attr_region(it, in, &idx,
						  in->u.attr.new_name_len,
						  "new name region");
	if (in->u.attr.value_len)
		in->u.attr.value = attr_region(it, in, &idx,
					       in->u.attr.value_len,
					       "value region");
	if (in->u.attr.op == XFSJ_ATTRI_OP_PPTR_REPLACE && in->u.attr.value_len)
		in->u.attr.new_value = attr_region(it, in, &idx,
						   in->u.attr.value_len,
						   "new value region");
	/* A parent pointer's value is the parent's inode and generation. */
	if ((in->u.attr.filter & XFSJ_ATTR_NS_PARENT) &&
	    in->u.attr.value_len == XFSJ_ATTR_PPTR_VALUE_LEN) {
		if (in->u.attr.value) {
			in->u.attr.parent_ino = xfsj_get_be64(in->u.attr.value);
			in->u.attr.parent_gen =
				xfsj_get_be32(in->u.attr.value + 8);
		}
		if (in->u.attr.new_value) {
			in->u.attr.new_parent_ino =
				xfsj_get_be64(in->u.attr.new_value);
			in->u.attr.new_parent_gen =
				xfsj_get_be32(in->u.attr.new_value + 8);
		}
	}
	return in->err;
}

static bool attri_touches_ino(const struct xfsj_item_info *in,
			      const struct xfsj_fsgeo *g, uint64_t ino)
{
	(void)g;
	return in->u.attr.ino == ino ||
	       (in->u.attr.pptr && (in->u.attr.parent_ino == ino ||
				    in->u.attr.new_parent_ino == ino));
}

static bool attri_touches(const struct xfsj_item_info *in,
			  const struct xfsj_fsgeo *g, uint64_t daddr,
			  int64_t agno)
{
	(void)daddr;
	return agno >= 0 && g->known &&
	       xfsj_ino_to_agno(g, in->u.attr.ino) == agno;
}

const struct xfsj_item_ops xlog_attri_ops = {
	.decode = dec_attri,
	.touches_ino = attri_touches_ino,
	.touches = attri_touches,
};
