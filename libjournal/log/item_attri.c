/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ATTRI items (extended attribute and parent pointer intents): the
 * format and its regions are decoded by ondisk/attri_fmt.c, as for their
 * recovery; this printer's decoder is lenient (it shows what it can of a
 * broken item).  Their done items (ATTRD) are item_intent.c's.
 */
#include "log/item_priv.h"
#include "ondisk/attri_fmt.h"

/* Region @*idx, which should hold @s->len bytes (padded), or NULL. */
static const uint8_t *attr_region(const struct xfsj_ritem *it,
				  struct xfsj_item_info *in, int *idx,
				  const struct xfsj_attri_slot *s)
{
	const struct xfsj_region *r;

	if (*idx >= it->nreg) {
		ITEM_BAD(in, "ATTRI item", s->what, 0, it->nreg);
		return NULL;
	}
	r = &it->reg[(*idx)++];
	if (r->len != xfsj_attri_region_len(s->len)) {
		ITEM_BAD_R(in, (unsigned int)*idx - 1, "ATTRI item", s->what, 0,
			   r->len);
		return NULL;
	}
	return r->p;
}

static void take_parts(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		       const struct xfsj_attri_fmt *a)
{
	struct xfsj_attri_slot s[4];
	unsigned int n = xfsj_attri_fmt_parts(a, s);
	int idx = 1;

	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *p = attr_region(it, in, &idx, &s[i]);

		switch (s[i].part) {
		case XFSJ_ATTRI_NAME:
			in->u.attr.name = p;
			break;
		case XFSJ_ATTRI_NEW_NAME:
			in->u.attr.new_name = p;
			break;
		case XFSJ_ATTRI_VALUE:
			in->u.attr.value = p;
			break;
		case XFSJ_ATTRI_NEW_VALUE:
			in->u.attr.new_value = p;
			break;
		}
	}
}

static int dec_attri(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	struct xfsj_attri_fmt a;

	if (!xfsj_attri_fmt_decode(it->reg[0].p, it->reg[0].len, &a))
		return ITEM_BAD(in, "ATTRI item", "length", 0, it->reg[0].len);
	in->u.attr.igen = a.igen;
	in->u.attr.ino = a.ino;
	in->u.attr.op_flags = a.op_flags;
	in->u.attr.op = a.op;
	in->u.attr.value_len = a.value_len;
	in->u.attr.filter = a.filter;
	in->u.attr.name_len = a.name_len;
	in->u.attr.new_name_len = a.new_name_len;
	in->u.attr.pptr = a.pptr;
	if (!a.op || a.op > XFSJ_ATTRI_OP_PPTR_REPLACE)
		return ITEM_BAD(in, "ATTRI item", "alfi_op_flags",
				XFSJ_ATTRI_OFF(op_flags), a.op_flags);
	/* Lengths no writer logs: the regions are not looked at. */
	if (a.name_len > UINT16_MAX || a.value_len > XFSJ_XATTR_SIZE_MAX)
		return ITEM_BAD(in, "ATTRI item", "alfi_name_len",
				XFSJ_ATTRI_OFF(name_len), a.name_len);
	in->fmt_ok = true;

	take_parts(it, in, &a);
	if ((a.filter & XFSJ_ATTR_NS_PARENT) &&
	    a.value_len == XFSJ_ATTR_PPTR_VALUE_LEN) {
		if (in->u.attr.value)
			xfsj_pptr_value_decode(in->u.attr.value,
					       &in->u.attr.parent_ino,
					       &in->u.attr.parent_gen);
		if (in->u.attr.new_value)
			xfsj_pptr_value_decode(in->u.attr.new_value,
					       &in->u.attr.new_parent_ino,
					       &in->u.attr.new_parent_gen);
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

static void attri_each_ino(const struct xfsj_item_info *in,
			   void (*fn)(void *arg, uint64_t ino), void *arg)
{
	fn(arg, in->u.attr.ino);
	if (!in->u.attr.pptr)
		return;
	if (in->u.attr.parent_ino)
		fn(arg, in->u.attr.parent_ino);
	if (in->u.attr.new_parent_ino)
		fn(arg, in->u.attr.new_parent_ino);
}

const struct xfsj_item_ops xlog_attri_ops = {
	.each_ino = attri_each_ino,
	.decode = dec_attri,
	.touches_ino = attri_touches_ino,
	.touches = attri_touches,
};
