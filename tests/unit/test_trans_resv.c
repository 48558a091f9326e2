/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Transaction reservations and minimum log size against the oracles:
 * `xfs_db -r -c logres` (every reservation and the "minlogsize" pair) and
 * the "minimum size is N blocks" refusal of mkfs.xfs, recorded from
 * xfsprogs 6.13.0 (grid and random geometries) and 6.1 (Debian 12), plus
 * the measured table of the format reference (mkfs.xfs 6.19,
 * xfs-format.md section 9.2).  6.1 rows are limited to geometries where
 * its pre-6.3 reflink rmap height bug does not show.
 */
#include <check.h>

#include "xfsj/errors.h"
#include "ondisk/trans_resv.h"

Suite *trans_resv_suite(void);

enum {
	FINO = 1 << 0,
	RMAP = 1 << 1,
	REFL = 1 << 2,
	NX64 = 1 << 3,
	EXCH = 1 << 4,
	PPTR = 1 << 5,
};

static struct xfsj_resv_geom geom(uint32_t bs, uint32_t sect, uint32_t isize,
				  uint32_t dirbs, uint32_t agblocks,
				  uint32_t logsunit, unsigned int feat)
{
	struct xfsj_resv_geom g = {
		.blocksize = bs,
		.sectsize = sect,
		.inodesize = isize,
		.dirblocksize = dirbs,
		.agblocks = agblocks,
		.agcount = 4,
		.dblocks = (uint64_t)agblocks * 4,
		.logsunit = logsunit,
		.finobt = feat & FINO,
		.rmapbt = feat & RMAP,
		.reflink = feat & REFL,
		.nrext64 = feat & NX64,
		.exchange = feat & EXCH,
		.parent = feat & PPTR,
		.sparse_inodes = true,
		.bigtime = true,
		.inobtcount = true,
	};
	return g;
}

/*
 * Oracle rows: the image's geometry, xfs_db's "minlogsize" pair and the
 * minimum mkfs.xfs enforced (all above mkfs's 512-block floor).
 */
struct min_case {
	const char *what;	/* xfsprogs version and feature set */
	uint32_t bs, sect, isize, dirbs, agblocks, logsunit;
	unsigned int feat;
	uint32_t logres, logcount, min_blocks;
};

static const struct min_case min_cases[] = {
	{ "6.13 61set", 1024, 512, 512, 4096, 65536, 1,
	  FINO, 168152, 2, 2577 },
	{ "6.13 61set", 1024, 512, 512, 4096, 1073741760, 262144,
	  FINO, 118000, 3, 7680 },
	{ "6.13 61set", 1024, 512, 512, 65536, 1073741760, 1,
	  FINO, 1232600, 2, 8910 },
	{ "6.13 61set", 4096, 512, 2048, 4096, 268435440, 1,
	  FINO, 239344, 3, 931 },
	{ "6.13 61set", 4096, 512, 512, 4096, 268435440, 32768,
	  FINO, 236272, 3, 744 },
	{ "6.13 61set", 4096, 512, 512, 8192, 67108864, 1,
	  FINO, 265840, 3, 998 },
	{ "6.13 61set", 16384, 512, 512, 16384, 65536, 262144,
	  FINO, 962264, 2, 672 },
	{ "6.13 61set", 16384, 512, 512, 65536, 65536, 1,
	  FINO, 1655768, 2, 715 },
	{ "6.13 def", 1024, 512, 512, 4096, 65536, 1,
	  FINO | RMAP | REFL | NX64 | EXCH | PPTR, 217728, 5, 4862 },
	{ "6.13 def", 1024, 512, 512, 4096, 1073741760, 262144,
	  FINO | RMAP | REFL | NX64 | EXCH | PPTR, 217728, 5, 13056 },
	{ "6.13 def", 1024, 512, 512, 65536, 65536, 1,
	  FINO | RMAP | REFL | NX64 | EXCH | PPTR, 1330560, 5, 21464 },
	{ "6.13 def", 4096, 4096, 1024, 4096, 16384, 4096,
	  FINO | RMAP | REFL | NX64 | EXCH | PPTR, 430720, 5, 1659 },
	{ "6.13 def", 4096, 512, 512, 4096, 262144, 32768,
	  FINO | RMAP | REFL | NX64 | EXCH | PPTR, 428160, 5, 1920 },
	{ "6.13 def", 4096, 512, 512, 8192, 16384, 1,
	  FINO | RMAP | REFL | NX64 | EXCH | PPTR, 487296, 5, 2218 },
	{ "6.13 def", 16384, 512, 512, 16384, 16777216, 1,
	  FINO | RMAP | REFL | NX64 | EXCH | PPTR, 1425792, 5, 1429 },
	{ "6.13 def", 16384, 512, 512, 16384, 65536, 262144,
	  FINO | RMAP | REFL | NX64 | EXCH | PPTR, 1425792, 5, 1920 },
	{ "6.13 def", 16384, 512, 512, 65536, 67108860, 1,
	  FINO | RMAP | REFL | NX64 | EXCH | PPTR, 2119296, 5, 2075 },
	{ "6.13 def", 65536, 512, 2048, 65536, 16384, 1,
	  FINO | RMAP | REFL | NX64 | EXCH | PPTR, 4741248, 5, 1129 },
	{ "6.13 def", 65536, 512, 512, 65536, 16777215, 262144,
	  FINO | RMAP | REFL | NX64 | EXCH | PPTR, 4733568, 5, 1248 },
	{ "6.13 def", 65536, 512, 512, 65536, 16777215, 1,
	  FINO | RMAP | REFL | NX64 | EXCH | PPTR, 4733568, 5, 1127 },
	{ "6.13 exch", 1024, 512, 512, 4096, 1073741760, 1,
	  FINO | REFL | EXCH, 158592, 8, 5471 },
	{ "6.13 exch", 4096, 4096, 1024, 4096, 262144, 4096,
	  FINO | REFL | EXCH, 292224, 8, 1839 },
	{ "6.13 exch", 16384, 512, 512, 16384, 1024, 1,
	  FINO | REFL | EXCH, 336768, 8, 609 },
	{ "6.13 exch", 65536, 512, 1024, 65536, 262144, 1,
	  FINO | REFL | EXCH, 2370432, 8, 910 },
	{ "6.13 nofinobt", 1024, 512, 512, 4096, 16384, 1,
	  RMAP, 168152, 2, 2577 },
	{ "6.13 nofinobt", 4096, 4096, 512, 4096, 4096, 4096,
	  RMAP, 702712, 3, 1605 },
	{ "6.13 nofinobt", 16384, 512, 512, 16384, 16777216, 1,
	  RMAP, 1129344, 2, 519 },
	{ "6.13 nrext", 1024, 512, 512, 4096, 1048576, 1,
	  FINO | RMAP | REFL | NX64, 181632, 8, 6011 },
	{ "6.13 nrext", 1024, 512, 512, 4096, 1073741760, 32768,
	  FINO | RMAP | REFL | NX64, 236928, 8, 7488 },
	{ "6.13 nrext", 1024, 512, 512, 8192, 65536, 1,
	  FINO | RMAP | REFL | NX64, 153984, 8, 5363 },
	{ "6.13 nrext", 4096, 4096, 1024, 4096, 268435440, 4096,
	  FINO | RMAP | REFL | NX64, 680832, 8, 4140 },
	{ "6.13 nrext", 4096, 512, 512, 4096, 262144, 262144,
	  FINO | RMAP | REFL | NX64, 547200, 8, 6912 },
	{ "6.13 nrext", 4096, 512, 512, 65536, 268435440, 1,
	  FINO | RMAP | REFL | NX64, 648576, 8, 4287 },
	{ "6.13 nrext", 16384, 512, 1024, 16384, 4096, 1,
	  FINO | RMAP | REFL | NX64, 1723776, 8, 2671 },
	{ "6.13 nrext", 16384, 512, 512, 16384, 16777216, 32768,
	  FINO | RMAP | REFL | NX64, 2120064, 8, 3276 },
	{ "6.13 nrext", 16384, 512, 512, 65536, 67108860, 1,
	  FINO | RMAP | REFL | NX64, 2120064, 8, 3264 },
	{ "6.13 nrext", 65536, 512, 2048, 65536, 262144, 1,
	  FINO | RMAP | REFL | NX64, 6835584, 8, 2570 },
	{ "6.13 nrext", 65536, 512, 512, 65536, 16384, 262144,
	  FINO | RMAP | REFL | NX64, 6835584, 8, 2772 },
	{ "6.13 nrext", 65536, 512, 512, 65536, 16384, 1,
	  FINO | RMAP | REFL | NX64, 6835584, 8, 2570 },
	{ "6.13 nrext_noref", 1024, 512, 512, 4096, 65536, 1,
	  FINO | RMAP | NX64, 791288, 3, 8681 },
	{ "6.13 nrext_noref", 4096, 4096, 512, 4096, 268435440, 4096,
	  FINO | RMAP | NX64, 1902328, 3, 4287 },
	{ "6.13 nrext_noref", 16384, 512, 2048, 16384, 67108860, 1,
	  FINO | RMAP | NX64, 3887480, 3, 2271 },
	{ "6.13 p0", 1024, 512, 512, 4096, 1073741760, 1,
	  FINO | RMAP | REFL | NX64 | EXCH, 236928, 8, 7307 },
	{ "6.13 p0", 1024, 512, 512, 4096, 65536, 262144,
	  FINO | RMAP | REFL | NX64 | EXCH, 153984, 8, 17664 },
	{ "6.13 p0", 1024, 512, 512, 65536, 268435456, 1,
	  FINO | RMAP | REFL | NX64 | EXCH, 1329368, 2, 9501 },
	{ "6.13 p0", 4096, 4096, 2048, 4096, 268435440, 4096,
	  FINO | RMAP | REFL | NX64 | EXCH, 680832, 8, 4140 },
	{ "6.13 p0", 4096, 512, 512, 4096, 262144, 32768,
	  FINO | RMAP | REFL | NX64 | EXCH, 547200, 8, 3744 },
	{ "6.13 p0", 4096, 512, 512, 65536, 16384, 1,
	  FINO | RMAP | REFL | NX64 | EXCH, 445824, 8, 3075 },
	{ "6.13 p0", 16384, 4096, 2048, 16384, 65536, 16384,
	  FINO | RMAP | REFL | NX64 | EXCH, 1756032, 8, 2676 },
	{ "6.13 p0", 16384, 512, 512, 16384, 65536, 32768,
	  FINO | RMAP | REFL | NX64 | EXCH, 1723776, 8, 2682 },
	{ "6.13 p0", 16384, 512, 512, 65536, 67108860, 1,
	  FINO | RMAP | REFL | NX64 | EXCH, 2120064, 8, 3264 },
	{ "6.13 p0", 65536, 512, 512, 65536, 16384, 1,
	  FINO | RMAP | REFL | NX64 | EXCH, 6835584, 8, 2570 },
	{ "6.13 p0", 65536, 512, 512, 65536, 16384, 262144,
	  FINO | RMAP | REFL | NX64 | EXCH, 6835584, 8, 2772 },
	{ "6.13 p0", 65536, 512, 512, 65536, 4194304, 1,
	  FINO | RMAP | REFL | NX64 | EXCH, 6835584, 8, 2570 },
	{ "6.13 par_nofino", 1024, 512, 512, 4096, 16384, 1,
	  RMAP | PPTR, 169344, 5, 4154 },
	{ "6.13 par_nofino", 4096, 512, 1024, 4096, 4194304, 1,
	  RMAP | PPTR, 312448, 5, 1578 },
	{ "6.13 par_nofino", 16384, 512, 1024, 16384, 1024, 1,
	  RMAP | PPTR, 966016, 5, 1001 },
	{ "6.13 par_nofino", 65536, 4096, 2048, 65536, 1024, 65536,
	  RMAP | PPTR, 2902656, 5, 714 },
	{ "6.13 par_plain", 1024, 512, 512, 4096, 268435456, 1,
	  FINO | PPTR, 169344, 5, 4154 },
	{ "6.13 par_plain", 1024, 512, 512, 4096, 268435456, 262144,
	  FINO | PPTR, 169344, 5, 12288 },
	{ "6.13 par_plain", 1024, 512, 512, 8192, 1048576, 1,
	  FINO | PPTR, 233856, 5, 5099 },
	{ "6.13 par_plain", 4096, 512, 512, 4096, 262144, 1,
	  FINO | PPTR, 309888, 5, 1568 },
	{ "6.13 par_plain", 4096, 512, 512, 4096, 16384, 32768,
	  FINO | PPTR, 309888, 5, 1488 },
	{ "6.13 par_plain", 4096, 512, 512, 8192, 268435440, 1,
	  FINO | PPTR, 369024, 5, 1785 },
	{ "6.13 par_plain", 16384, 512, 2048, 16384, 65536, 1,
	  FINO | PPTR, 971136, 5, 1005 },
	{ "6.13 par_plain", 16384, 512, 512, 16384, 4096, 262144,
	  FINO | PPTR, 963456, 5, 1488 },
	{ "6.13 par_plain", 16384, 512, 512, 65536, 65536, 1,
	  FINO | PPTR, 1656960, 5, 1645 },
	{ "6.13 par_plain", 65536, 512, 512, 65536, 1024, 1,
	  FINO | PPTR, 2894976, 5, 700 },
	{ "6.13 par_plain", 65536, 512, 512, 65536, 16777215, 262144,
	  FINO | PPTR, 2894976, 5, 828 },
	{ "6.13 par_plain", 65536, 512, 512, 65536, 16777215, 1,
	  FINO | PPTR, 2894976, 5, 700 },
	{ "6.13 par_ref", 1024, 512, 512, 4096, 65536, 1,
	  FINO | REFL | PPTR, 169344, 5, 4154 },
	{ "6.13 par_ref", 4096, 512, 2048, 4096, 16384, 1,
	  FINO | REFL | PPTR, 317568, 5, 1596 },
	{ "6.13 par_ref", 16384, 4096, 2048, 16384, 67108860, 16384,
	  FINO | REFL | PPTR, 971136, 5, 945 },
	{ "6.13 par_ref", 65536, 4096, 1024, 65536, 262144, 65536,
	  FINO | REFL | PPTR, 2897536, 5, 714 },
	{ "6.13 par_rmap", 1024, 512, 512, 4096, 65536, 1,
	  FINO | RMAP | NX64 | PPTR, 217728, 5, 4862 },
	{ "6.13 par_rmap", 4096, 512, 512, 4096, 262144, 1,
	  FINO | RMAP | NX64 | PPTR, 428160, 5, 2001 },
	{ "6.13 par_rmap", 16384, 4096, 1024, 16384, 1048576, 16384,
	  FINO | RMAP | NX64 | PPTR, 1428352, 5, 1371 },
	{ "6.13 par_rmap", 65536, 512, 512, 65536, 262144, 1,
	  FINO | RMAP | NX64 | PPTR, 4733568, 5, 1127 },
	{ "6.13 reflink", 1024, 512, 512, 4096, 65536, 1,
	  FINO | REFL, 75648, 8, 3527 },
	{ "6.13 reflink", 1024, 512, 512, 4096, 1048576, 32768,
	  FINO | REFL, 103296, 8, 4416 },
	{ "6.13 reflink", 1024, 512, 512, 8192, 268435456, 1,
	  FINO | REFL, 130944, 8, 4823 },
	{ "6.13 reflink", 4096, 4096, 2048, 4096, 4096, 4096,
	  FINO | REFL, 190848, 8, 1221 },
	{ "6.13 reflink", 4096, 512, 512, 4096, 262144, 32768,
	  FINO | REFL, 259968, 8, 2040 },
	{ "6.13 reflink", 4096, 512, 512, 8192, 16384, 1,
	  FINO | REFL, 158592, 8, 1368 },
	{ "6.13 reflink", 16384, 4096, 512, 16384, 1024, 16384,
	  FINO | REFL, 369024, 8, 615 },
	{ "6.13 reflink", 16384, 512, 512, 16384, 65536, 32768,
	  FINO | REFL, 600960, 8, 1014 },
	{ "6.13 reflink", 16384, 512, 512, 65536, 16777216, 1,
	  FINO | REFL, 997248, 8, 1589 },
	{ "6.13 reflink", 65536, 512, 1024, 65536, 4194304, 1,
	  FINO | REFL, 2370432, 8, 910 },
	{ "6.13 reflink", 65536, 512, 512, 65536, 16777215, 262144,
	  FINO | REFL, 2895744, 8, 1308 },
	{ "6.13 reflink", 65536, 512, 512, 65536, 16777215, 1,
	  FINO | REFL, 2895744, 8, 1105 },
	{ "6.13 rmap", 1024, 512, 512, 4096, 1048576, 1,
	  FINO | RMAP, 119152, 3, 2666 },
	{ "6.13 rmap", 4096, 512, 2048, 4096, 16384, 1,
	  FINO | RMAP, 218224, 3, 884 },
	{ "6.13 rmap", 16384, 4096, 2048, 16384, 16777216, 16384,
	  FINO | RMAP, 955648, 3, 561 },
	{ "6.13 rmapref", 1024, 512, 512, 4096, 16777216, 1,
	  FINO | RMAP | REFL, 209280, 8, 6659 },
	{ "6.13 rmapref", 1024, 512, 512, 4096, 268435456, 262144,
	  FINO | RMAP | REFL, 209280, 8, 19200 },
	{ "6.13 rmapref", 1024, 512, 512, 65536, 268435456, 1,
	  FINO | RMAP | REFL, 1232600, 2, 8910 },
	{ "6.13 rmapref", 4096, 512, 1024, 4096, 4194304, 1,
	  FINO | RMAP | REFL, 547200, 8, 3693 },
	{ "6.13 rmapref", 4096, 512, 512, 4096, 67108864, 262144,
	  FINO | RMAP | REFL, 648576, 8, 7488 },
	{ "6.13 rmapref", 4096, 512, 512, 65536, 67108864, 1,
	  FINO | RMAP | REFL, 648576, 8, 4287 },
	{ "6.13 rmapref", 16384, 512, 1024, 16384, 4096, 1,
	  FINO | RMAP | REFL, 1723776, 8, 2671 },
	{ "6.13 rmapref", 16384, 512, 512, 16384, 4096, 32768,
	  FINO | RMAP | REFL, 1723776, 8, 2682 },
	{ "6.13 rmapref", 16384, 512, 512, 65536, 67108860, 1,
	  FINO | RMAP | REFL, 2120064, 8, 3264 },
	{ "6.13 rmapref", 65536, 4096, 1024, 65536, 16384, 65536,
	  FINO | RMAP | REFL, 6867840, 8, 2613 },
	{ "6.13 rmapref", 65536, 512, 512, 65536, 16777215, 262144,
	  FINO | RMAP | REFL, 7360896, 8, 2964 },
	{ "6.13 rmapref", 65536, 512, 512, 65536, 16384, 1,
	  FINO | RMAP | REFL, 6835584, 8, 2570 },
	{ "6.13 random def", 1024, 512, 512, 8192, 193247391, 65536,
	  FINO | RMAP | REFL | NX64 | EXCH | PPTR, 282240, 5, 6720 },
	{ "6.13 random par_ref", 32768, 2048, 1024, 32768, 27311247, 32768,
	  FINO | REFL | PPTR, 1916288, 5, 933 },
	{ "6.13 random par_nofino", 16384, 512, 1024, 16384, 40685196, 32768,
	  PPTR, 966016, 5, 978 },
	{ "6.13 random nofinobt", 4096, 2048, 2048, 65536, 191541330, 262144,
	  0, 1203416, 2, 3072 },
	{ "6.13 random par_rmap", 4096, 4096, 2048, 65536, 235974484, 32768,
	  FINO | RMAP | NX64 | PPTR, 1322880, 5, 5256 },
	{ "6.13 random exch", 8192, 2048, 1024, 65536, 65293888, 8192,
	  FINO | REFL | EXCH, 519552, 8, 1626 },
	{ "6.13 random par_plain", 2048, 512, 1024, 8192, 204602978, 1,
	  FINO | PPTR, 286848, 5, 2967 },
	{ "6.13 random exch", 1024, 512, 512, 65536, 639188399, 32768,
	  FINO | REFL | EXCH, 1232600, 2, 7968 },
	{ "6.13 random par_ref", 16384, 4096, 512, 16384, 43607312, 16384,
	  FINO | REFL | PPTR, 963456, 5, 939 },
	{ "6.13 random par_nofino", 1024, 1024, 512, 8192, 570436421, 1024,
	  PPTR, 233856, 5, 3585 },
	{ "6.13 random rmapref", 16384, 512, 2048, 16384, 46609508, 131072,
	  FINO | RMAP | REFL, 2120064, 8, 3600 },
	{ "6.13 random par_ref", 32768, 512, 512, 32768, 10213925, 1,
	  FINO | REFL | PPTR, 1913728, 5, 942 },
	{ "6.13 random nrext_noref", 4096, 2048, 512, 16384, 93453381, 32768,
	  FINO | NX64, 1748728, 3, 4128 },
	{ "6.13 random par_nofino", 4096, 4096, 2048, 65536, 142702733, 65536,
	  PPTR, 1204608, 5, 5088 },
	{ "6.13 random nofinobt", 8192, 2048, 1024, 65536, 109215402, 65536,
	  0, 1305048, 2, 1128 },
	{ "6.13 random par_rmap", 4096, 1024, 1024, 16384, 267118893, 65536,
	  FINO | RMAP | NX64 | PPTR, 608128, 5, 2880 },
	{ "6.13 random par_ref", 65536, 4096, 2048, 65536, 8064545, 65536,
	  FINO | REFL | PPTR, 2902656, 5, 714 },
	{ "6.13 random p0", 65536, 1024, 2048, 65536, 423637, 262144,
	  FINO | RMAP | REFL | NX64 | EXCH, 6840192, 8, 2772 },
	{ "6.13 random rmapref", 1024, 1024, 512, 65536, 118542014, 1024,
	  FINO | RMAP | REFL, 1232600, 2, 7386 },
	{ "6.13 random reflink", 16384, 1024, 2048, 16384, 51138280, 131072,
	  FINO | REFL, 1001856, 8, 1944 },
	{ "6.1 61set", 1024, 512, 512, 4096, 268435456, 1,
	  FINO, 113392, 3, 2615 },
	{ "6.1 61set", 4096, 4096, 512, 4096, 262144, 4096,
	  FINO, 702712, 3, 1605 },
	{ "6.1 61set", 16384, 512, 512, 16384, 4096, 262144,
	  FINO, 962264, 2, 672 },
	{ "6.1 nofinobt", 1024, 512, 512, 4096, 1048576, 1,
	  0, 168152, 2, 2577 },
	{ "6.1 nofinobt", 4096, 4096, 2048, 4096, 4096, 4096,
	  0, 704248, 3, 1608 },
	{ "6.1 nrext", 1024, 512, 512, 8192, 268435456, 1,
	  FINO | RMAP | REFL | NX64, 209280, 8, 6659 },
	{ "6.1 nrext", 4096, 4096, 2048, 4096, 4096, 4096,
	  FINO | RMAP | REFL | NX64, 478080, 8, 2928 },
	{ "6.1 nrext", 16384, 4096, 1024, 16384, 65536, 16384,
	  FINO | RMAP | REFL | NX64, 1756032, 8, 2676 },
	{ "6.1 nrext_noref", 1024, 512, 512, 4096, 268435456, 1,
	  FINO | NX64, 791288, 3, 8681 },
	{ "6.1 nrext_noref", 4096, 512, 2048, 4096, 268435440, 1,
	  FINO | NX64, 1635064, 3, 4052 },
	{ "6.1 nrext_noref", 16384, 512, 1024, 16384, 65536, 1,
	  FINO | NX64, 3886456, 3, 2270 },
	{ "6.1 reflink", 1024, 512, 512, 65536, 268435456, 1,
	  FINO | REFL, 1232600, 2, 8910 },
	{ "6.1 reflink", 4096, 4096, 512, 4096, 262144, 4096,
	  FINO | REFL, 292224, 8, 1839 },
	{ "6.1 reflink", 16384, 512, 2048, 16384, 16777216, 1,
	  FINO | REFL, 997248, 8, 1589 },
	{ "6.1 reflink", 65536, 512, 1024, 65536, 262144, 1,
	  FINO | REFL, 2370432, 8, 910 },
	{ "6.1 rmap", 1024, 512, 512, 4096, 65536, 1,
	  FINO | RMAP, 112240, 3, 2604 },
	{ "6.1 rmap", 4096, 4096, 1024, 4096, 67108864, 4096,
	  FINO | RMAP, 331264, 3, 780 },
	{ "6.1 rmap", 16384, 512, 2048, 16384, 67108860, 1,
	  FINO | RMAP, 944896, 3, 627 },
	{ "6.1 rmapref", 1024, 512, 512, 4096, 268435456, 32768,
	  FINO | RMAP | REFL, 209280, 8, 6912 },
	{ "6.1 rmapref", 4096, 512, 2048, 4096, 268435440, 1,
	  FINO | RMAP | REFL, 648576, 8, 4287 },
	{ "6.1 rmapref", 16384, 512, 1024, 16384, 65536, 1,
	  FINO | RMAP | REFL, 1723776, 8, 2671 },
};

START_TEST(oracle_min_log)
{
	const struct min_case *c = &min_cases[_i];
	struct xfsj_resv_geom g = geom(c->bs, c->sect, c->isize, c->dirbs,
				       c->agblocks, c->logsunit, c->feat);
	struct xfsj_resv m = xfsj_log_max_resv(&g);

	ck_assert_msg(m.logres == c->logres && m.logcount == c->logcount,
		      "row %d (%s): minlogsize %u x %u, oracle %u x %u", _i,
		      c->what, m.logres, m.logcount, c->logres, c->logcount);
	ck_assert_msg(xfsj_log_min_blocks(&g) == c->min_blocks,
		      "row %d (%s): %u blocks, mkfs %u", _i, c->what,
		      xfsj_log_min_blocks(&g), c->min_blocks);
}
END_TEST

/*
 * The reference's measured minima: 512-byte sectors and inodes, mkfs's
 * default directory block (4 KiB or the block size), and mkfs's 512-block
 * floor applied, as mkfs reports it.
 */
/* the three feature sets of the reference table */
#define F619		(FINO | RMAP | REFL | NX64 | EXCH | PPTR)
#define F619_NOPP	(FINO | RMAP | REFL | NX64 | EXCH)
#define F61		(FINO | REFL)

struct ref_case {
	const char *what;
	uint32_t bs, dirbs, agblocks;
	unsigned int feat;
	uint32_t mkfs_min;
};

static const struct ref_case ref_cases[] = {
	{ "1k def 16M", 1024, 4096, 16384, F619, 4862 },
	{ "1k def 64M", 1024, 4096, 65536, F619, 4862 },
	{ "1k def 1G", 1024, 4096, 1048576, F619, 4862 },
	{ "1k def 16G", 1024, 4096, 16777216, F619, 4862 },
	{ "1k def 256G", 1024, 4096, 268435456, F619, 4862 },
	{ "1k def 1T-64K", 1024, 4096, 1073741760, F619, 4862 },
	{ "1k p0 16M", 1024, 4096, 16384, F619_NOPP, 5363 },
	{ "1k p0 64M", 1024, 4096, 65536, F619_NOPP, 5363 },
	{ "1k p0 1G", 1024, 4096, 1048576, F619_NOPP, 6011 },
	{ "1k p0 16G", 1024, 4096, 16777216, F619_NOPP, 6659 },
	{ "1k p0 256G", 1024, 4096, 268435456, F619_NOPP, 6659 },
	{ "1k p0 1T-64K", 1024, 4096, 1073741760, F619_NOPP, 7307 },
	{ "1k 61 16M", 1024, 4096, 16384, F61, 3527 },
	{ "1k 61 64M", 1024, 4096, 65536, F61, 3527 },
	{ "1k 61 1G", 1024, 4096, 1048576, F61, 4175 },
	{ "1k 61 16G", 1024, 4096, 16777216, F61, 4823 },
	{ "1k 61 256G", 1024, 4096, 268435456, F61, 4823 },
	{ "1k 61 1T-64K", 1024, 4096, 1073741760, F61, 5471 },
	{ "4k def 16M", 4096, 4096, 4096, F619, 2001 },
	{ "4k def 64M", 4096, 4096, 16384, F619, 2001 },
	{ "4k def 1G", 4096, 4096, 262144, F619, 2001 },
	{ "4k def 16G", 4096, 4096, 4194304, F619, 2001 },
	{ "4k def 256G", 4096, 4096, 67108864, F619, 2004 },
	{ "4k def 1T-64K", 4096, 4096, 268435440, F619, 2004 },
	{ "4k p0 16M", 4096, 4096, 4096, F619_NOPP, 3075 },
	{ "4k p0 64M", 4096, 4096, 16384, F619_NOPP, 3075 },
	{ "4k p0 1G", 4096, 4096, 262144, F619_NOPP, 3693 },
	{ "4k p0 16G", 4096, 4096, 4194304, F619_NOPP, 3693 },
	{ "4k p0 256G", 4096, 4096, 67108864, F619_NOPP, 4287 },
	{ "4k p0 1T-64K", 4096, 4096, 268435440, F619_NOPP, 4287 },
	{ "4k 61 16M", 4096, 4096, 4096, F61, 1368 },
	{ "4k 61 64M", 4096, 4096, 16384, F61, 1368 },
	{ "4k 61 1G", 4096, 4096, 262144, F61, 1986 },
	{ "4k 61 16G", 4096, 4096, 4194304, F61, 1986 },
	{ "4k 61 256G", 4096, 4096, 67108864, F61, 2580 },
	{ "4k 61 1T-64K", 4096, 4096, 268435440, F61, 2580 },
	{ "16k def 64M", 16384, 16384, 4096, F619, 1429 },
	{ "16k def 1G", 16384, 16384, 65536, F619, 1429 },
	{ "16k def 16G", 16384, 16384, 1048576, F619, 1429 },
	{ "16k def 256G", 16384, 16384, 16777216, F619, 1429 },
	{ "16k def 1T-64K", 16384, 16384, 67108860, F619, 1429 },
	{ "16k p0 64M", 16384, 16384, 4096, F619_NOPP, 2671 },
	{ "16k p0 1G", 16384, 16384, 65536, F619_NOPP, 2671 },
	{ "16k p0 16G", 16384, 16384, 1048576, F619_NOPP, 2871 },
	{ "16k p0 256G", 16384, 16384, 16777216, F619_NOPP, 3264 },
	{ "16k p0 1T-64K", 16384, 16384, 67108860, F619_NOPP, 3264 },
	{ "32k def 64M", 32768, 32768, 2048, F619, 1157 },
	{ "32k def 1G", 32768, 32768, 32768, F619, 1157 },
	{ "32k def 16G", 32768, 32768, 524288, F619, 1157 },
	{ "32k def 256G", 32768, 32768, 8388608, F619, 1157 },
	{ "32k def 1T-64K", 32768, 32768, 33554430, F619, 1157 },
	{ "32k p0 1G", 32768, 32768, 32768, F619_NOPP, 2605 },
	{ "32k p0 16G", 32768, 32768, 524288, F619_NOPP, 2605 },
	{ "32k p0 256G", 32768, 32768, 8388608, F619_NOPP, 3192 },
	{ "32k p0 1T-64K", 32768, 32768, 33554430, F619_NOPP, 3192 },
	{ "32k 61 64M", 32768, 32768, 2048, F61, 548 },
	{ "32k 61 1G", 32768, 32768, 32768, F61, 939 },
	{ "32k 61 16G", 32768, 32768, 524288, F61, 939 },
	{ "32k 61 256G", 32768, 32768, 8388608, F61, 1527 },
	{ "32k 61 1T-64K", 32768, 32768, 33554430, F61, 1527 },
	{ "64k def 1G", 65536, 65536, 16384, F619, 1127 },
	{ "64k def 16G", 65536, 65536, 262144, F619, 1127 },
	{ "64k def 256G", 65536, 65536, 4194304, F619, 1127 },
	{ "64k def 1T-64K", 65536, 65536, 16777215, F619, 1127 },
	{ "64k p0 1G", 65536, 65536, 16384, F619_NOPP, 2570 },
	{ "64k p0 16G", 65536, 65536, 262144, F619_NOPP, 2570 },
	{ "64k p0 256G", 65536, 65536, 4194304, F619_NOPP, 2570 },
	{ "64k p0 1T-64K", 65536, 65536, 16777215, F619_NOPP, 2766 },
	{ "64k 61 64M", 65536, 65536, 1024, F61, 512 },
	{ "64k 61 1G", 65536, 65536, 16384, F61, 910 },
	{ "64k 61 16G", 65536, 65536, 262144, F61, 910 },
	{ "64k 61 256G", 65536, 65536, 4194304, F61, 910 },
	{ "64k 61 1T-64K", 65536, 65536, 16777215, F61, 1105 },
};

START_TEST(reference_table)
{
	const struct ref_case *c = &ref_cases[_i];
	struct xfsj_resv_geom g = geom(c->bs, 512, 512, c->dirbs, c->agblocks,
				       1, c->feat);
	uint32_t min = xfsj_log_min_blocks(&g);

	if (min < 512)
		min = 512;
	ck_assert_msg(min == c->mkfs_min, "%s: %u blocks, table %u", c->what,
		      min, c->mkfs_min);
}
END_TEST

/* Complete xfs_db logres output of four images, in type order. */
struct full_case {
	const char *what;
	uint32_t bs, sect, isize, dirbs, agblocks, logsunit;
	unsigned int feat;
	struct xfsj_resv r[XFSJ_TR_NR];
};

static const struct full_case full_cases[] = {
	{ "6.1 defaults, 1 GiB, 4 KiB", 4096, 512, 512, 4096, 65536, 1,
	  FINO | REFL, {
		{ 75256, 4 }, { 107904, 4 }, { 308696, 2 }, { 187760, 2 },
		{ 171376, 2 }, { 194032, 3 }, { 192880, 2 }, { 112512, 2 },
		{ 192880, 3 }, { 130808, 2 }, { 2168, 0 }, { 27264, 2 },
		{ 53496, 2 }, { 760, 0 }, { 107136, 1 }, { 23288, 3 },
		{ 13312, 0 }, { 54656, 3 }, { 640, 0 }, { 48504, 2 },
		{ 4224, 0 }, { 6512, 0 }, { 232, 1 }, { 79479, 4 },
		{ 640, 1 }, { 760, 0 },
	} },
	{ "6.13 parent+rmap+reflink+nrext64+exchange, 4 KiB", 4096, 512, 512,
	  4096, 262144, 1, FINO | RMAP | REFL | NX64 | EXCH | PPTR, {
		{ 193528, 5 }, { 327552, 5 }, { 428160, 5 }, { 247204, 5 },
		{ 230820, 5 }, { 312612, 6 }, { 311460, 5 }, { 285696, 2 },
		{ 311460, 6 }, { 303992, 2 }, { 2168, 0 }, { 82176, 2 },
		{ 116856, 2 }, { 760, 0 }, { 326784, 1 }, { 23288, 3 },
		{ 21760, 0 }, { 164480, 3 }, { 640, 0 }, { 111864, 2 },
		{ 4224, 0 }, { 6512, 0 }, { 232, 1 }, { 197751, 5 },
		{ 640, 1 }, { 760, 0 },
	} },
	{ "6.13 64 KiB, 4 KiB sectors, 2 KiB inodes, rmap+reflink", 65536,
	  4096, 2048, 65536, 262144, 65536, FINO | RMAP | REFL, {
		{ 1657336, 5 }, { 2928000, 5 }, { 2901464, 2 }, { 1585264, 2 },
		{ 1532032, 2 }, { 2444032, 3 }, { 2442880, 2 }, { 2512640, 2 },
		{ 2442880, 3 }, { 2580856, 2 }, { 7288, 0 }, { 734976, 2 },
		{ 996472, 2 }, { 2296, 0 }, { 2927232, 1 }, { 335608, 3 },
		{ 135552, 0 }, { 1466496, 3 }, { 4224, 0 }, { 930040, 2 },
		{ 65664, 0 }, { 74608, 0 }, { 232, 1 }, { 1722999, 5 },
		{ 4224, 1 }, { 2296, 0 },
	} },
	{ "6.13 1 KiB, -n size=8k, su=32k, no finobt, parent", 1024, 512,
	  512, 8192, 1048576, 32768, NX64 | PPTR, {
		{ 47224, 2 }, { 71040, 2 }, { 282240, 5 }, { 174244, 5 },
		{ 157860, 5 }, { 143652, 6 }, { 142500, 5 }, { 55296, 2 },
		{ 142500, 6 }, { 76664, 2 }, { 2168, 0 }, { 18048, 2 },
		{ 38776, 2 }, { 760, 0 }, { 70272, 1 }, { 7928, 3 },
		{ 8704, 0 }, { 36224, 3 }, { 640, 0 }, { 29688, 2 },
		{ 1152, 0 }, { 3440, 0 }, { 232, 1 }, { 48375, 2 },
		{ 640, 1 }, { 760, 0 },
	} },
};

START_TEST(oracle_full_table)
{
	const struct full_case *c = &full_cases[_i];
	struct xfsj_resv_geom g = geom(c->bs, c->sect, c->isize, c->dirbs,
				       c->agblocks, c->logsunit, c->feat);
	struct xfsj_trans_resv t;
	unsigned int i;

	ck_assert_int_eq(xfsj_trans_resv_compute(&g, &t), 0);
	for (i = 0; i < XFSJ_TR_NR; i++)
		ck_assert_msg(t.r[i].logres == c->r[i].logres &&
			      t.r[i].logcount == c->r[i].logcount,
			      "%s: %s %u x %u, xfs_db %u x %u", c->what,
			      xfsj_resv_name(i), t.r[i].logres,
			      t.r[i].logcount, c->r[i].logres,
			      c->r[i].logcount);
}
END_TEST

/* The reference's worked example, step by step, and its stripe variants. */
START_TEST(worked_example)
{
	struct xfsj_resv_geom g = geom(4096, 512, 512, 4096, 65536, 1,
				       FINO | RMAP | REFL);
	struct xfsj_trans_resv t;
	struct xfsj_resv m;

	ck_assert_int_eq(xfsj_trans_resv_for_minlog(&g, &t), 0);
	/* 9 sectors + (92 alloc/rmap + 20 refcount) blocks + dquots */
	ck_assert_uint_eq(t.r[XFSJ_TR_ITRUNCATE].logres,
			  9 * 640 + 92 * 4224 + 20 * 4224 + 768);
	ck_assert_uint_eq(t.r[XFSJ_TR_ITRUNCATE].logcount, 8);
	ck_assert_uint_eq(t.r[XFSJ_TR_WRITE].logcount, 8);
	ck_assert_uint_eq(t.r[XFSJ_TR_QM_DQALLOC].logcount, 8);
	m = xfsj_log_max_resv(&g);
	ck_assert_uint_eq(m.logres, 479616);
	ck_assert_uint_eq(m.logcount, 8);
	ck_assert_uint_eq(xfsj_log_min_blocks(&g), 3273);
	g.logsunit = 32768;
	ck_assert_uint_eq(xfsj_log_min_blocks(&g), 3336);
	g.logsunit = 262144;
	ck_assert_uint_eq(xfsj_log_min_blocks(&g), 6528);
}
END_TEST

/* Which transaction table sizes the log, by feature set. */
START_TEST(minlog_variants)
{
	struct xfsj_resv_geom g = geom(4096, 512, 512, 4096, 262144, 1,
				       FINO | RMAP | REFL | NX64 | PPTR);
	struct xfsj_trans_resv a, b;
	unsigned int i;

	/* with parent pointers the real table is used unchanged */
	ck_assert_int_eq(xfsj_trans_resv_compute(&g, &a), 0);
	ck_assert_int_eq(xfsj_trans_resv_for_minlog(&g, &b), 0);
	for (i = 0; i < XFSJ_TR_NR; i++) {
		ck_assert_uint_eq(a.r[i].logres, b.r[i].logres);
		ck_assert_uint_eq(a.r[i].logcount, b.r[i].logcount);
	}

	/* rmapbt alone: the extra intent rolls are not counted */
	g = geom(4096, 512, 512, 4096, 262144, 1, FINO | RMAP);
	ck_assert_int_eq(xfsj_trans_resv_compute(&g, &a), 0);
	ck_assert_int_eq(xfsj_trans_resv_for_minlog(&g, &b), 0);
	ck_assert_uint_eq(a.r[XFSJ_TR_WRITE].logcount, 4);
	ck_assert_uint_eq(b.r[XFSJ_TR_WRITE].logcount, 2);
	ck_assert_uint_eq(b.r[XFSJ_TR_ITRUNCATE].logcount, 2);
	ck_assert_uint_eq(b.r[XFSJ_TR_QM_DQALLOC].logcount, 2);
	/* without reflink the old-style write equals the new one */
	ck_assert_uint_eq(a.r[XFSJ_TR_WRITE].logres,
			  b.r[XFSJ_TR_WRITE].logres);
}
END_TEST

START_TEST(maxlevels)
{
	/* 65536-block AG, 4 KiB blocks */
	ck_assert_uint_eq(xfsj_alloc_maxlevels(4096, 65536), 2);
	ck_assert_uint_eq(xfsj_refcount_maxlevels(4096, 65536), 3);
	ck_assert_uint_eq(xfsj_inobt_maxlevels(4096, 512, 65536), 2);
	ck_assert_uint_eq(xfsj_rmap_maxlevels(4096, 65536, false), 3);
	/* reflink rmapbt: 262144 blocks -> 5 (4 before the 2023 fix) */
	ck_assert_uint_eq(xfsj_rmap_maxlevels(4096, 262144, true), 5);
	/* 64 KiB blocks: one-level trees in small AGs (AGFL sizing) */
	ck_assert_uint_eq(xfsj_alloc_maxlevels(65536, 8184), 1);
	ck_assert_uint_eq(xfsj_alloc_maxlevels(65536, 8185), 2);
	ck_assert_uint_eq(xfsj_rmap_maxlevels(65536, 1364, false), 1);
	ck_assert_uint_eq(xfsj_rmap_maxlevels(65536, 1365, false), 2);
	ck_assert_uint_ge(xfsj_rmap_maxlevels(65536, 1364, true), 2);
	/* bmbt: 2^31 / 2^48 data extents, 2^15 / 2^32 attr extents */
	ck_assert_uint_eq(xfsj_bmbt_maxlevels(4096, false, false), 5);
	ck_assert_uint_eq(xfsj_bmbt_maxlevels(4096, true, false), 3);
	ck_assert_uint_eq(xfsj_bmbt_maxlevels(4096, true, true), 5);
	/* nonsense in, zero out */
	ck_assert_uint_eq(xfsj_alloc_maxlevels(1000, 65536), 0);
	ck_assert_uint_eq(xfsj_inobt_maxlevels(4096, 8192, 65536), 0);
}
END_TEST

START_TEST(bad_geometry)
{
	struct xfsj_resv_geom g = geom(4096, 512, 512, 4096, 65536, 1, FINO);
	struct xfsj_trans_resv t;
	struct xfsj_resv m;

	ck_assert(xfsj_resv_geom_valid(&g));
	g.dirblocksize = 2048;		/* smaller than a block */
	ck_assert(!xfsj_resv_geom_valid(&g));
	ck_assert_int_eq(xfsj_trans_resv_compute(&g, &t), -XFSJ_E_INVAL);
	ck_assert_uint_eq(t.r[XFSJ_TR_WRITE].logres, 0);
	ck_assert_int_eq(xfsj_trans_resv_for_minlog(&g, &t), -XFSJ_E_INVAL);
	ck_assert_uint_eq(xfsj_log_min_blocks(&g), 0);
	m = xfsj_log_max_resv(&g);
	ck_assert_uint_eq(m.logres, 0);
	g = geom(3000, 512, 512, 4096, 65536, 1, FINO);
	ck_assert_uint_eq(xfsj_log_min_blocks(&g), 0);
	g = geom(4096, 8192, 512, 4096, 65536, 1, FINO);
	ck_assert_uint_eq(xfsj_log_min_blocks(&g), 0);
	g = geom(4096, 512, 128, 4096, 65536, 1, FINO);
	ck_assert_uint_eq(xfsj_log_min_blocks(&g), 0);
	g = geom(4096, 512, 512, 4096, 0, 1, FINO);
	ck_assert_uint_eq(xfsj_log_min_blocks(&g), 0);
	ck_assert(!xfsj_resv_geom_valid(NULL));
	ck_assert_uint_eq(xfsj_log_min_blocks(NULL), 0);
	ck_assert_int_eq(xfsj_trans_resv_compute(NULL, &t), -XFSJ_E_INVAL);
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(xfsj_resv_name(XFSJ_TR_WRITE), "write");
	ck_assert_str_eq(xfsj_resv_name(XFSJ_TR_QM_DQALLOC), "qm_dqalloc");
	ck_assert_str_eq(xfsj_resv_name(XFSJ_TR_FSYNCTS), "fsyncts");
	ck_assert_str_eq(xfsj_resv_name(XFSJ_TR_NR), "?");
}
END_TEST

#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

Suite *trans_resv_suite(void)
{
	Suite *s = suite_create("trans_resv");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, oracle_min_log, 0, ARRAY_LEN(min_cases));
	tcase_add_loop_test(tc, reference_table, 0, ARRAY_LEN(ref_cases));
	tcase_add_loop_test(tc, oracle_full_table, 0, ARRAY_LEN(full_cases));
	tcase_add_test(tc, worked_example);
	tcase_add_test(tc, minlog_variants);
	tcase_add_test(tc, maxlevels);
	tcase_add_test(tc, bad_geometry);
	tcase_add_test(tc, names);
	suite_add_tcase(s, tc);
	return s;
}
