/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The superblock phase's shared pieces: its problem rows, one superblock
 * being checked, and the rules each superblock must meet on its own
 * (sb_rules.c).
 */
#ifndef XFSJ_CHECK_SB_RULES_H
#define XFSJ_CHECK_SB_RULES_H

#include "check/check_priv.h"

/* The kinds of finding a primary and a secondary share, in row order. */
enum sb_kind {
	SBK_MAGIC, SBK_CRC, SBK_INVALID, SBK_MISMATCH, SBK_GARBAGE,
	SBK_DBLOCKS, SB__KINDS
};

/* The rows: the primary's kinds, its own, the secondaries', INFO. */
enum {
	SBR_P_MAGIC, SBR_P_CRC, SBR_P_INVALID, SBR_P_MISMATCH, SBR_P_GARBAGE,
	SBR_P_DBLOCKS, SBR_P_DIFFERS, SBR_P_DEVSIZE, SBR_P_QUOTINO,
	SBR_P_NEEDSREPAIR, SBR_P_ELSEWHERE, SBR_P_UUID, SBR_P_MKFS_UNFINISHED,
	SBR_S_MAGIC, SBR_S_CRC, SBR_S_INVALID, SBR_S_MISMATCH, SBR_S_GARBAGE,
	SBR_S_DBLOCKS, SBR_S_DIFFERS, SBR_S_PASTEND,
	SBR_UNCHECKED,
	SBR__N
};
_Static_assert(SBR_P_DBLOCKS - SBR_P_MAGIC == SBK_DBLOCKS &&
	       SBR_S_DBLOCKS - SBR_S_MAGIC == SBK_DBLOCKS,
	       "a kind's row is its primary or secondary base plus the kind");

/* One superblock being checked. */
struct sb_one {
	struct xck *ck;
	uint32_t agno;		/* 0: the primary */
	const uint8_t *buf;	/* its sector as read */
	uint32_t len;		/* bytes in buf */
	struct xfsj_sb sb;	/* decoded */
	bool geom_bad;		/* a size, log or count is wrong */
	unsigned int nbad;	/* problems reported for it */
};

/* Report a finding about @s (sb.c owns the rows). */
void xck_sb_report(struct sb_one *s, enum sb_kind kind, unsigned int has,
		   const char *field, uint64_t expected, uint64_t found,
		   uint64_t count);

/*
 * The rules every superblock meets on its own: magic, version, CRC,
 * geometry, feature-dependent fields, unused bytes; for a secondary
 * (@primary given) also the fields only the primary may set.  Returns
 * whether its fields can be trusted for comparison (magic and CRC good).
 */
bool xck_sb_rules(struct sb_one *s, const struct xfsj_sb *primary);
/* The rules only the primary meets: root inodes, in-progress, device. */
void xck_sb_primary_rules(struct sb_one *s);

/* The primary's sector size if it is one, else 512. */
uint32_t xck_sb_sane_sectsize(const struct xfsj_sb *sb);
/* How many AGs' superblocks to read: agcount, or just past the device. */
uint32_t xck_sb_ags_to_read(const struct xfsj_sb *sb, uint64_t devsize);
/* The largest superblock sector: a buffer for any one. */
#define XCK_SB_BUFLEN	(1U << 15)
/*
 * The superblock at byte @off of the device behind @ov, decoded into
 * @out when its magic and its own checks hold (read with its own sector
 * size into @buf, at least XCK_SB_BUFLEN bytes; the in-progress flag mkfs
 * leaves in secondaries is not a fault).  False otherwise.
 */
bool xck_sb_read_at(struct xfsj_overlay *ov, uint64_t off, uint8_t *buf,
		    uint32_t buflen, struct xfsj_sb *out);
/*
 * Search the device, past the primary, for a secondary superblock that
 * holds up and lies where its own AG size puts one.  Returns 1 with it in
 * @sb and its byte in @where, 0 when there is none, or -XFSJ_E_NOMEM.
 */
int xck_sb_find_secondary(struct xfsj_overlay *ov, struct xfsj_sb *sb,
			  uint64_t *where);
/* Is @ino a possible inode number of this geometry? */
bool xck_sb_ino_valid(const struct xfsj_sb *sb, uint64_t ino);

#endif
