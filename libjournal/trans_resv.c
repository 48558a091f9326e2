/* PLACEHOLDER until the real reservation calculator lands. */
#include "xfsj/trans_resv.h"
static unsigned int levels(uint64_t recs, unsigned int lmin, unsigned int nmin)
{
	unsigned int h = 1;
	uint64_t n = (recs + lmin - 1) / lmin;
	while (n > 1) { n = (n + nmin - 1) / nmin; h++; }
	return h;
}
unsigned int xfsj_alloc_maxlevels(uint32_t bs, uint32_t agblocks)
{
	return levels((agblocks + 1) / 2, (bs - 56) / 8 / 2, (bs - 56) / 12 / 2);
}
unsigned int xfsj_rmap_maxlevels(uint32_t bs, uint32_t agblocks, bool reflink)
{
	unsigned int lmin = (bs - 56) / 24 / 2, nmin = (bs - 56) / 44 / 2;
	if (reflink) {
		unsigned int h = 1; uint64_t left = agblocks - 1, width = 2;
		while (width < left) { left -= width; width *= nmin; h++; }
		return h;
	}
	return levels(agblocks, lmin, nmin);
}
uint32_t xfsj_log_min_blocks(const struct xfsj_resv_geom *g) { (void)g; return 0; }
