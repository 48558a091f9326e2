/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A set of 64-bit numbers (u64set.c): the blocks a btree walk has reached,
 * so that a block reached twice (a loop, or two parents) is known.  Open
 * addressing, at most half full; any value may be added.
 */
#ifndef XFSJ_U64SET_H
#define XFSJ_U64SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xfsj_u64set {
	uint64_t *v;		/* value + 1; 0 is an empty slot */
	size_t n, cap;		/* cap: a power of two, or 0 */
	bool has_max;		/* UINT64_MAX, which has no slot form */
};

/* Add @x: 0 when new, 1 when it was there, or -XFSJ_E_NOMEM. */
int xfsj_u64set_add(struct xfsj_u64set *s, uint64_t x);
/* Does it hold @x? */
bool xfsj_u64set_has(const struct xfsj_u64set *s, uint64_t x);
/* How many values it holds. */
size_t xfsj_u64set_count(const struct xfsj_u64set *s);
void xfsj_u64set_free(struct xfsj_u64set *s);

#endif
