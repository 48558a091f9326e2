/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The geometry report, in mkfs.xfs's layout so that scripts which parse
 * "meta-data=", "data =", "naming =", "log =" and "realtime =" lines keep
 * working.  The layout is that of xfsprogs 6.13 (exchange=, metadir=,
 * parent=, rgcount=).
 */
#include <stdio.h>

#include "mkfs.h"

void mkfs_report(FILE *out, const char *name, const char *logdev,
		 const struct xfsj_geometry *g)
{
	const struct xfsj_features *f = &g->feat;

	fprintf(out,
		"meta-data=%-22s isize=%-6u agcount=%u, agsize=%u blks\n"
		"         =%-22s sectsz=%-5u attr=%u, projid32bit=%u\n"
		"         =%-22s crc=%-8u finobt=%u, sparse=%u, rmapbt=%u\n"
		"         =%-22s reflink=%-4u bigtime=%u inobtcount=%u nrext64=%u\n"
		"         =%-22s exchange=%-3u metadir=%u\n"
		"data     =%-22s bsize=%-6u blocks=%llu, imaxpct=%u\n"
		"         =%-22s sunit=%-6u swidth=%u blks\n"
		"naming   =version %-14u bsize=%-6u ascii-ci=%d, ftype=%d, parent=%d\n"
		"log      =%-22s bsize=%-6u blocks=%u, version=%d\n"
		"         =%-22s sectsz=%-5u sunit=%u blks, lazy-count=%d\n"
		"realtime =%-22s extsz=%-6u blocks=%llu, rtextents=%llu\n"
		"         =%-22s rgcount=%-4u rgsize=%u extents\n",
		name, g->inodesize, g->agcount, g->agblocks,
		"", g->sectsize, 2u, 1u,
		"", 1u, f->finobt, f->sparse, f->rmapbt,
		"", f->reflink, f->bigtime, f->inobtcount, f->nrext64,
		"", f->exchange, 0u,
		"", g->blocksize, (unsigned long long)g->dblocks, g->imaxpct,
		"", g->dsunit, g->dswidth,
		2u, g->dirblocksize, 0, f->ftype, f->parent,
		logdev ? logdev : "internal log", g->blocksize, g->logblocks, 2,
		"", g->logsectsize, g->lsunit, 1,
		"none", g->rextsize * g->blocksize, 0ULL, 0ULL,
		"", 0u, 0u);
}
