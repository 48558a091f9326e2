/* PLACEHOLDER until the real reservation calculator lands. */
#ifndef XFSJ_TRANS_RESV_H
#define XFSJ_TRANS_RESV_H
#include <stdbool.h>
#include <stdint.h>
struct xfsj_resv_geom {
	uint32_t blocksize, sectsize, inodesize, dirblocksize, agblocks, agcount;
	uint64_t dblocks;
	uint32_t logsunit;
	bool finobt, rmapbt, reflink, sparse_inodes, nrext64, parent, exchange, bigtime, inobtcount;
	bool quota;
};
uint32_t xfsj_log_min_blocks(const struct xfsj_resv_geom *g);
unsigned int xfsj_alloc_maxlevels(uint32_t blocksize, uint32_t agblocks);
unsigned int xfsj_rmap_maxlevels(uint32_t blocksize, uint32_t agblocks, bool reflink);
#endif
