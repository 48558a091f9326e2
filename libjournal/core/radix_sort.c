/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sort of radix_sort.h.  By the first key, least significant byte
 * first: each pass a stable counting sort into a scratch copy and back.
 * One counting pass finds the histograms of all eight bytes; a byte that
 * every record holds alike moves nothing and is skipped (the high bytes
 * of inode and block numbers, usually).  Then each run of records equal
 * in the first key is sorted the same way by the keys after it, and a
 * short run by a stable insertion sort.  Every step is stable, so the
 * order is that of a stable sort comparing the keys in turn.
 */
#include <stdlib.h>
#include <string.h>

#include "core/radix_sort.h"
#include "xfsj/errors.h"

#define SHORT_INPUT 64

static int keys_cmp(const void *a, const void *b, const xfsj_sort_key *keys,
		    size_t nkeys)
{
	for (size_t k = 0; k < nkeys; k++) {
		uint64_t x = keys[k](a), y = keys[k](b);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static void insertion_sort(char *base, size_t n, size_t esz,
			   const xfsj_sort_key *keys, size_t nkeys, char *tmp)
{
	for (size_t i = 1; i < n; i++) {
		size_t j = i;

		if (keys_cmp(base + (i - 1) * esz, base + i * esz, keys,
			     nkeys) <= 0)
			continue;
		memcpy(tmp, base + i * esz, esz);
		while (j > 0 && keys_cmp(base + (j - 1) * esz, tmp, keys,
					 nkeys) > 0)
			j--;
		memmove(base + (j + 1) * esz, base + j * esz, (i - j) * esz);
		memcpy(base + j * esz, tmp, esz);
	}
}

/* Copy one record: word by word when the size allows (most tables). */
static inline void copy_rec(char *dst, const char *src, size_t esz)
{
	if (esz % 8 == 0) {
		for (size_t w = 0; w < esz; w += 8)
			memcpy(dst + w, src + w, 8);
	} else {
		memcpy(dst, src, esz);
	}
}

/* One stable counting pass of @src into @dst by byte @byte of @key. */
static void scatter(const char *src, char *dst, size_t n, size_t esz,
		    xfsj_sort_key key, unsigned int byte, const size_t *count)
{
	size_t at[256], sum = 0;
	unsigned int shift = byte * 8;

	for (unsigned int b = 0; b < 256; b++) {
		at[b] = sum;
		sum += count[b];
	}
	for (size_t i = 0; i < n; i++) {
		const char *r = src + i * esz;
		unsigned int b = (unsigned int)(key(r) >> shift) & 0xff;

		copy_rec(dst + at[b]++ * esz, r, esz);
	}
}

/*
 * Sort @base by @keys[0] alone, LSD (the records in @base at the end),
 * with @tmp of n * @esz bytes.
 */
static void lsd_by_key(char *base, size_t n, size_t esz, xfsj_sort_key key,
		       char *tmp, size_t (*count)[256])
{
	char *src = base, *dst = tmp, *t;

	memset(count, 0, 8 * sizeof(*count));
	for (size_t i = 0; i < n; i++) {
		uint64_t v = key(src + i * esz);

		for (unsigned int b = 0; b < 8; b++)
			count[b][(v >> (b * 8)) & 0xff]++;
	}
	for (unsigned int b = 0; b < 8; b++) {
		/* Every record holds the same byte: nothing moves. */
		if (count[b][(key(src) >> (b * 8)) & 0xff] == n)
			continue;
		scatter(src, dst, n, esz, key, b, count[b]);
		t = src;
		src = dst;
		dst = t;
	}
	if (src != base)
		memcpy(base, src, n * esz);
}

/*
 * By the first key, then each run of records equal in it by the keys
 * after it: the passes over the later keys touch only the records that
 * tie, which are few in most tables (entries naming one inode).
 */
static void sort_keys(char *base, size_t n, size_t esz,
		      const xfsj_sort_key *keys, size_t nkeys, char *tmp,
		      size_t (*count)[256])
{
	size_t i, j;

	if (n <= SHORT_INPUT) {
		insertion_sort(base, n, esz, keys, nkeys, tmp);
		return;
	}
	lsd_by_key(base, n, esz, keys[0], tmp, count);
	if (nkeys == 1)
		return;
	for (i = 0; i < n; i = j) {
		uint64_t v = keys[0](base + i * esz);

		for (j = i + 1; j < n && keys[0](base + j * esz) == v; j++)
			;
		if (j - i > 1)
			sort_keys(base + i * esz, j - i, esz, keys + 1,
				  nkeys - 1, tmp, count);
	}
}

int xfsj_radix_sort(void *base, size_t n, size_t esz,
		    const xfsj_sort_key *keys, size_t nkeys)
{
	size_t (*count)[256];
	char *tmp;

	if (n < 2 || !nkeys || !esz)
		return 0;
	if (n > SIZE_MAX / esz)
		return -XFSJ_E_NOMEM;
	tmp = malloc(n * esz);
	count = malloc(8 * sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return -XFSJ_E_NOMEM;
	}
	sort_keys(base, n, esz, keys, nkeys, tmp, count);
	free(tmp);
	free(count);
	return 0;
}
