/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A stable sort of fixed-size records by one or more 64-bit keys
 * (radix_sort.c), for the large tables of the check: claims by block or
 * owner, directory entries by child or directory, parent pointers.  It
 * gives the order of a stable comparison sort whose comparator compares
 * the keys in turn, in linear time.
 */
#ifndef XFSJ_RADIX_SORT_H
#define XFSJ_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

/* One key of a record, as an unsigned number whose order is the key's. */
typedef uint64_t (*xfsj_sort_key)(const void *rec);

/*
 * Sort the @n records of @esz bytes at @base by @keys[0], ties by
 * @keys[1], and so on; records equal in every key keep their order.
 * 0, or -XFSJ_E_NOMEM (a scratch copy of the records is needed; @base is
 * left as it was).
 */
int xfsj_radix_sort(void *base, size_t n, size_t esz,
		    const xfsj_sort_key *keys, size_t nkeys);

/*
 * The same, on up to @threads threads (a large table): the same order
 * whatever @threads is.
 */
int xfsj_radix_sort_threads(void *base, size_t n, size_t esz,
			    const xfsj_sort_key *keys, size_t nkeys,
			    unsigned int threads);

#endif
