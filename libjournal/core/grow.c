/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growing a dynamic array by doubling (see grow.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "xfsj/errors.h"

int xfsj_grow_cap(size_t cap, size_t n, size_t more, size_t esz,
		  size_t first, size_t *newcap)
{
	size_t want, nc;

	if (more > SIZE_MAX - n)
		return -XFSJ_E_NOMEM;
	want = n + more;
	if (want <= cap) {
		*newcap = cap;
		return 0;
	}
	if (!cap) {
		nc = first ? first : 1;
	} else {
		if (cap > SIZE_MAX / 2)
			return -XFSJ_E_NOMEM;
		nc = cap * 2;
	}
	while (nc < want) {
		if (nc > SIZE_MAX / 2)
			return -XFSJ_E_NOMEM;
		nc *= 2;
	}
	if (!esz || nc > SIZE_MAX / esz)
		return -XFSJ_E_NOMEM;
	*newcap = nc;
	return 0;
}

int xfsj_grow(void *arrp, size_t *cap, size_t n, size_t more, size_t esz,
	      size_t first)
{
	size_t nc;
	void *v, *nv;
	int err = xfsj_grow_cap(*cap, n, more, esz, first, &nc);

	if (err || nc == *cap)
		return err;
	/* The caller's pointer is read and written as bytes, whatever its
	 * type: object pointers share one representation here. */
	memcpy(&v, arrp, sizeof(v));
	nv = realloc(v, nc * esz);
	if (!nv)
		return -XFSJ_E_NOMEM;
	memcpy(arrp, &nv, sizeof(nv));
	*cap = nc;
	return 0;
}
