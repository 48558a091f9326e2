/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bmbt root in an inode fork (bmdr.c): where its keys and pointers sit. */
#ifndef XFSJ_BMDR_H
#define XFSJ_BMDR_H

#include <stdbool.h>
#include <stdint.h>

#define XFSJ_BMDR_PAIR	16	/* a key (8 bytes) and a pointer (8) */

struct xfsj_bmdr {
	unsigned int level, numrecs;	/* as found: not checked */
	unsigned int maxr;		/* pairs the fork has room for */
	const uint8_t *keys, *ptrs;	/* key i at keys + 8i, ptr i likewise */
};

/* Key-and-pointer pairs a fork of @size bytes holds (0: not one). */
unsigned int xfsj_bmdr_room(uint32_t size);
/*
 * Decode the root in the @size bytes at @root; false (and *@r zeroed)
 * when there is no fork or it cannot hold the header and one pair.  The
 * level and record count are for the caller to judge.
 */
bool xfsj_bmdr_decode(const uint8_t *root, uint32_t size, struct xfsj_bmdr *r);

#endif
