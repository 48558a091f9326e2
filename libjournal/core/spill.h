/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Arrays that spill to the scratch file (xfsj/spill.h): the growable
 * arrays of the large tables, in the style of core/grow.h (the caller
 * keeps the pointer, the capacity and where the array lives).  An array
 * lives in RAM (malloc) until the spill's RAM bound is spent, then in a
 * region of the scratch file mapped MAP_SHARED: its pointer is an
 * ordinary pointer either way (indexing, bsearch and merge-walks need no
 * change), the kernel pages it in and out of the page cache, and the
 * pages the process holds are dropped when it passes its RSS bound.
 *
 * Every function takes a NULL spill too: RAM only, no bound.  A spill is
 * shared by threads (one lock).
 */
#ifndef XFSJ_CORE_SPILL_H
#define XFSJ_CORE_SPILL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xfsj/spill.h"

/* *foff of an array in RAM (or none yet): zeroed arrays start there. */
#define XFSJ_SPILL_RAM	0

/*
 * Make room in the array *@arrp of *@cap elements of @esz bytes (@n in
 * use) for @more past @n, the capacity grown as xfsj_grow grows it.  The
 * array may move (between RAM and the file too): pointers into it do
 * not survive.  0, -XFSJ_E_NOMEM, or -XFSJ_E_SCRATCH (the scratch file
 * could not be made or grown: xfsj_spill_stats says why); the array is
 * untouched on failure.
 */
int xfsj_spill_grow(struct xfsj_spill *sp, void *arrp, size_t *cap,
		    uint64_t *foff, size_t n, size_t more, size_t esz,
		    size_t first);
/* Free the array (RAM or file); *@arrp NULL, *@cap 0 after. */
void xfsj_spill_release(struct xfsj_spill *sp, void *arrp, size_t *cap,
			uint64_t *foff, size_t esz);
/*
 * Sort the @n elements of the array, stably (equal elements keep their
 * order): in RAM by qsort; in the file by sorted runs of a window each,
 * merged into a second region and copied back, so that only a few
 * windows are resident; in RAM so too when qsort's copy of the array
 * would pass the bound.  The array does not move.
 * 0, or an error of xfsj_spill_grow's (the array unchanged).
 */
int xfsj_spill_sort(struct xfsj_spill *sp, void *base, uint64_t foff,
		    size_t n, size_t esz,
		    int (*cmp)(const void *, const void *));

/*
 * May a sort take a copy of @bytes of the array at @foff in RAM (e.g. a
 * radix sort's scratch)?  Not when the array is in the file, nor when
 * the copy would pass the RAM bound; always without a spill.
 */
bool xfsj_spill_copy_fits(struct xfsj_spill *sp, uint64_t foff,
			  uint64_t bytes);

/*
 * An arena of zeroed blocks that never move (records others point at,
 * e.g. the inodes of a chunk), carved from segments that are spilling
 * arrays; freed all at once.
 */
struct xfsj_spill_arena {
	pthread_mutex_t lock;	/* threads carve from one arena */
	struct xfsj_spill_seg *seg;
	size_t nseg, capseg;
	size_t used;		/* bytes of the last segment handed out */
};
void xfsj_spill_arena_init(struct xfsj_spill_arena *a);
/* @bytes zeroed bytes (at most a segment, 1 MiB), or NULL with *@err. */
void *xfsj_spill_zalloc(struct xfsj_spill *sp, struct xfsj_spill_arena *a,
			size_t bytes, int *err);
/* The bytes the arena's segments hold. */
uint64_t xfsj_spill_arena_bytes(const struct xfsj_spill_arena *a);
void xfsj_spill_arena_free(struct xfsj_spill *sp, struct xfsj_spill_arena *a);

#endif
