/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ATTRI log item's format and regions (attri_fmt.h). */
#include <string.h>

#include "ondisk/attri_fmt.h"

#define XFSJ_CUR xfsj_attri_log
XFSJ_DEFINE_LAYOUT(xfsj_attri_log_layout, XFSJ_ATTRI_FIELDS, "ATTRI item",
		   XFSJ_ATTRI_FMT_SIZE);
#undef XFSJ_CUR

bool xfsj_attri_fmt_decode(const uint8_t *p, uint32_t len,
			   struct xfsj_attri_fmt *a)
{
	struct xfsj_attri_log l;

	memset(a, 0, sizeof(*a));
	if (!p || len != XFSJ_ATTRI_FMT_SIZE)
		return false;
	xfsj_layout_decode_le(&xfsj_attri_log_layout, p, &l);
	a->id = l.id;
	a->ino = l.ino;
	a->igen = l.igen;
	a->op_flags = l.op_flags;
	a->op = l.op_flags & XFSJ_ATTRI_OP_MASK;
	a->filter = l.attr_filter;
	a->value_len = l.value_len;
	a->pptr = a->op >= XFSJ_ATTRI_OP_PPTR_SET &&
		  a->op <= XFSJ_ATTRI_OP_PPTR_REPLACE;
	if (a->op == XFSJ_ATTRI_OP_PPTR_REPLACE) {
		/* Two u16 in host (little-endian) order: old, then new. */
		a->name_len = (uint16_t)l.name_len;
		a->new_name_len = l.name_len >> 16;
		a->new_value_len = a->value_len;
	} else {
		a->name_len = l.name_len;
	}
	return true;
}

static void slot(struct xfsj_attri_slot *s, enum xfsj_attri_part part,
		 uint32_t len, const char *what)
{
	s->part = part;
	s->len = len;
	s->what = what;
}

unsigned int xfsj_attri_fmt_parts(const struct xfsj_attri_fmt *a,
				  struct xfsj_attri_slot s[4])
{
	bool replace = a->op == XFSJ_ATTRI_OP_PPTR_REPLACE;
	unsigned int n = 0;

	slot(&s[n++], XFSJ_ATTRI_NAME, a->name_len, "name region");
	if (replace)
		slot(&s[n++], XFSJ_ATTRI_NEW_NAME, a->new_name_len,
		     "new name region");
	if (a->value_len)
		slot(&s[n++], XFSJ_ATTRI_VALUE, a->value_len, "value region");
	if (replace && a->value_len)
		slot(&s[n++], XFSJ_ATTRI_NEW_VALUE, a->value_len,
		     "new value region");
	return n;
}

uint16_t xfsj_attri_fmt_nregions(uint32_t op)
{
	switch (op) {
	case XFSJ_ATTRI_OP_REMOVE:
		return 2;
	case XFSJ_ATTRI_OP_PPTR_REPLACE:
		return XFSJ_ATTRI_MAX_REGIONS;
	default:
		return 3;
	}
}

static bool name_len_ok(uint32_t len)
{
	return len != 0 && len <= XFSJ_ATTR_NAME_MAX;
}

/* At most one bit set. */
static bool one_bit_at_most(uint32_t v)
{
	return (v & (v - 1)) == 0;
}

static const char *fail(uint64_t *val, const char *field, uint64_t v)
{
	*val = v;
	return field;
}

const char *xfsj_attri_fmt_verify(const struct xfsj_attri_fmt *a,
				  uint64_t *val)
{
	bool parent = a->filter & XFSJ_ATTR_NS_PARENT;

	if (a->op_flags & ~XFSJ_ATTRI_OP_MASK)
		return fail(val, "op_flags", a->op_flags);
	if (a->filter & ~XFSJ_ATTRI_FILTER_MASK)
		return fail(val, "attr_filter", a->filter);
	if (!one_bit_at_most(a->filter & XFSJ_ATTRI_FILTER_NS))
		return fail(val, "attr_filter", a->filter);

	switch (a->op) {
	case XFSJ_ATTRI_OP_PPTR_SET:
	case XFSJ_ATTRI_OP_PPTR_REMOVE:
		if (a->value_len != XFSJ_ATTR_PPTR_VALUE_LEN)
			return fail(val, "value_len", a->value_len);
		if (!parent)
			return fail(val, "attr_filter", a->filter);
		break;
	case XFSJ_ATTRI_OP_SET:
	case XFSJ_ATTRI_OP_REPLACE:
		if (a->value_len > XFSJ_XATTR_SIZE_MAX)
			return fail(val, "value_len", a->value_len);
		break;
	case XFSJ_ATTRI_OP_REMOVE:
		if (a->value_len != 0)
			return fail(val, "value_len", a->value_len);
		break;
	case XFSJ_ATTRI_OP_PPTR_REPLACE:
		if (!name_len_ok(a->new_name_len))
			return fail(val, "new_name_len", a->new_name_len);
		if (a->value_len != XFSJ_ATTR_PPTR_VALUE_LEN)
			return fail(val, "value_len", a->value_len);
		if (!parent)
			return fail(val, "attr_filter", a->filter);
		break;
	default:
		return fail(val, "op_flags", a->op);
	}
	if (!name_len_ok(a->name_len))
		return fail(val, "name_len", a->name_len);
	return NULL;
}
