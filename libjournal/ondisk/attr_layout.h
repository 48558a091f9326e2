/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Byte offsets of the attribute fork's leaf and node block headers on a
 * v5 filesystem, shared by the log replay's attribute code (fs/attr*.c)
 * and the checker (check/attr*.c).  All fields are big-endian.
 *
 * Every leaf and node block starts with the da3 block info
 * (struct xfs_da3_blkinfo):
 *
 *   0  forw (be32), 4 back (be32), 8 magic (be16), 10 pad,
 *  12  crc (le32), 16 blkno (be64 daddr), 24 lsn, 32 uuid[16],
 *  48  owner (be64 ino)
 *
 * A leaf (struct xfs_attr3_leaf_hdr) goes on with count, usedbytes,
 * firstused (be16 each; firstused 0 means 64 KiB), holes, pad, then the
 * free map of three {base, size} (be16), padded to 80 bytes; a node
 * (struct xfs_da3_node_hdr) with count and level (be16), pad to 64, then
 * {hashval, before} (be32) per child.
 */
#ifndef XFSJ_ONDISK_ATTR_LAYOUT_H
#define XFSJ_ONDISK_ATTR_LAYOUT_H

#define XFSJ_DA3_OFF_FORW		0
#define XFSJ_DA3_OFF_BACK		4
#define XFSJ_DA3_OFF_MAGIC		8
#define XFSJ_DA3_OFF_CRC		12
#define XFSJ_DA3_OFF_BLKNO		16
#define XFSJ_DA3_OFF_LSN		24
#define XFSJ_DA3_OFF_UUID		32
#define XFSJ_DA3_OFF_OWNER		48

#define XFSJ_ALEAF_OFF_COUNT		56
#define XFSJ_ALEAF_OFF_USED		58
#define XFSJ_ALEAF_OFF_FIRSTUSED	60
#define XFSJ_ALEAF_OFF_HOLES		62
#define XFSJ_ALEAF_OFF_FREEMAP		64
#define XFSJ_ALEAF_MAPSIZE		3

#define XFSJ_DA3_NODE_OFF_COUNT		56
#define XFSJ_DA3_NODE_OFF_LEVEL		58
#define XFSJ_DA3_NODE_HDR_SIZE		64
#define XFSJ_DA3_NODE_ENTRY_SIZE	8
#define XFSJ_DA_NODE_MAXDEPTH		5	/* dir and attr da-btree levels */

/* Magic numbers (be16 at XFSJ_DA3_OFF_MAGIC); v4 blocks in brackets. */
#define XFSJ_ATTR3_LEAF_MAGIC		0x3beeU
#define XFSJ_ATTR_LEAF_MAGIC_V4		0xfbeeU
#define XFSJ_DA3_NODE_MAGIC		0x3ebeU	/* dirs and attrs alike */
#define XFSJ_DA_NODE_MAGIC_V4		0xfebeU
/* A v4 node's level: forw, back, magic, pad, count, then the level. */
#define XFSJ_DA_NODE_OFF_LEVEL_V4	14

/* Entries: flags of a leaf or short-form entry, and the sizes. */
#define XFSJ_ATTR_FLAG_LOCAL		0x01
#define XFSJ_ATTR_FLAG_INCOMPLETE	0x80
#define XFSJ_ATTR3_LEAF_HDR_SIZE	80
#define XFSJ_ATTR_LEAF_ENTRY_SIZE	8
#define XFSJ_ATTR_SF_HDR_SIZE		4	/* totsize be16, count, pad */
#define XFSJ_ATTR_SF_OFF_COUNT		2
#define XFSJ_ATTR_SF_ENTRY_HDR		3	/* namelen, valuelen, flags */
/* A short-form name or value is shorter than this (u8 lengths). */
#define XFSJ_ATTR_SF_ENTSIZE_MAX	255U
#define XFSJ_ATTR_NAME_MAX		255U	/* XATTR_NAME_MAX */
#define XFSJ_XATTR_SIZE_MAX		65536U	/* the largest value */


#endif
