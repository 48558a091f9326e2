/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The set of u64set.h.  Values are kept as value + 1 so that a zeroed
 * table is empty; UINT64_MAX, whose + 1 is 0, is a flag of its own.  The
 * table doubles before it is half full, so a probe always ends.
 */
#include <stdlib.h>

#include "core/u64set.h"
#include "xfsj/errors.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static int grow(struct xfsj_u64set *s)
{
	size_t ncap = s->cap ? s->cap * 2 : 64, i, h;
	uint64_t *nv;

	if (ncap < s->cap || ncap > SIZE_MAX / sizeof(*nv))
		return -XFSJ_E_NOMEM;
	nv = calloc(ncap, sizeof(*nv));
	if (!nv)
		return -XFSJ_E_NOMEM;
	for (i = 0; i < s->cap; i++) {
		if (!s->v[i])
			continue;
		for (h = slot_of(s->v[i], ncap); nv[h]; h = (h + 1) & (ncap - 1))
			;
		nv[h] = s->v[i];
	}
	free(s->v);
	s->v = nv;
	s->cap = ncap;
	return 0;
}

int xfsj_u64set_add(struct xfsj_u64set *s, uint64_t x)
{
	uint64_t key = x + 1;
	size_t h;
	int err;

	if (x == UINT64_MAX) {
		if (s->has_max)
			return 1;
		s->has_max = true;
		return 0;
	}
	if ((s->n + 1) * 2 > s->cap) {
		err = grow(s);
		if (err)
			return err;
	}
	for (h = slot_of(key, s->cap); s->v[h]; h = (h + 1) & (s->cap - 1))
		if (s->v[h] == key)
			return 1;
	s->v[h] = key;
	s->n++;
	return 0;
}

bool xfsj_u64set_has(const struct xfsj_u64set *s, uint64_t x)
{
	uint64_t key = x + 1;

	if (x == UINT64_MAX)
		return s->has_max;
	if (!s->cap)
		return false;
	for (size_t h = slot_of(key, s->cap); s->v[h];
	     h = (h + 1) & (s->cap - 1))
		if (s->v[h] == key)
			return true;
	return false;
}

size_t xfsj_u64set_count(const struct xfsj_u64set *s)
{
	return s->n + s->has_max;
}

void xfsj_u64set_free(struct xfsj_u64set *s)
{
	free(s->v);
	*s = (struct xfsj_u64set){ 0 };
}
