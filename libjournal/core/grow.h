/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Growing a dynamic array by doubling: the one place that computes the
 * new capacity, checks it for overflow and reallocates.
 */
#ifndef XFSJ_GROW_H
#define XFSJ_GROW_H

#include <stddef.h>

/*
 * Make room in the array *@arrp (of *@cap elements of @esz bytes, @n in
 * use) for at least @more elements past @n.  @arrp is the address of the
 * caller's array pointer (any object pointer type, e.g. &s->v).  Nothing
 * is done when n + more already fits; else the capacity becomes @first
 * (when it was 0) or twice itself, doubled again until n + more fits.
 * Returns 0, or -XFSJ_E_NOMEM (out of memory, or a size that overflows)
 * with the array and *@cap untouched.
 */
int xfsj_grow(void *arrp, size_t *cap, size_t n, size_t more, size_t esz,
	      size_t first);

/*
 * The capacity xfsj_grow would give (*@newcap, @cap itself when n + more
 * fits), for callers that allocate elsewhere; 0 or -XFSJ_E_NOMEM.
 */
int xfsj_grow_cap(size_t cap, size_t n, size_t more, size_t esz,
		  size_t first, size_t *newcap);

#endif
