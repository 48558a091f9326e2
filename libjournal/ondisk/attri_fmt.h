/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ATTRI log item (an extended attribute or parent pointer intent),
 * decoded once here for xfsj-logprint (log/item_attri.c) and for its
 * recovery (fs/attri.c).
 *
 * Region 0 is the 40-byte format, in the byte order of the host that
 * wrote the log (little-endian: the logs we read).  For PPTR_REPLACE the
 * name_len word holds two u16 lengths, the old name's at byte 28 and the
 * new name's at byte 30.  Then come the name, [the new name: PPTR_REPLACE],
 * [the value: when value_len is not 0], [the new value: PPTR_REPLACE with
 * a value], one region each, each padded to 4 bytes.  A parent pointer's
 * value is the parent's inode (be64) and generation (be32).
 *
 * What is checked here is what needs no filesystem: the kernel's
 * xfs_attri_validate without its feature and inode number checks.  The
 * feature bits, the inode numbers and the name rules are fs/attri.c's.
 */
#ifndef XFSJ_ATTRI_FMT_H
#define XFSJ_ATTRI_FMT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/layout.h"
#include "ondisk/attr_layout.h"
#include "ondisk/log.h"

#define XFSJ_ATTRI_FIELDS(F, P)						\
	F(U16, type, 0)		F(U16, size, 2)				\
	F(U32, igen, 4)		F(U64, id, 8)				\
	F(U64, ino, 16)		F(U32, op_flags, 24)			\
	F(U32, name_len, 28)	F(U32, value_len, 32)			\
	F(U32, attr_filter, 36)

XFSJ_DECLARE_STRUCTS(xfsj_attri_log, XFSJ_ATTRI_FIELDS);
#define XFSJ_ATTRI_OFF(field)	offsetof(struct xfsj_attri_log_raw, field)
extern const struct xfsj_layout xfsj_attri_log_layout;

#define XFSJ_ATTRI_OP_MASK	0xffU	/* the op: low byte of op_flags */
#define XFSJ_ATTRI_FILTER_NS	XFSJ_ATTR_NS_MASK
#define XFSJ_ATTRI_FILTER_MASK	(XFSJ_ATTRI_FILTER_NS | \
				 XFSJ_ATTRI_FILTER_INCOMPLETE)
#define XFSJ_ATTRI_MAX_REGIONS	5	/* format, two names, two values */

/* The format, decoded. */
struct xfsj_attri_fmt {
	uint64_t id, ino;
	uint32_t igen;		/* parent pointer ops: a file handle */
	uint32_t op_flags;
	uint32_t op;		/* enum xfsj_attri_op, or anything else */
	uint32_t filter;
	uint32_t name_len, new_name_len;
	uint32_t value_len, new_value_len;
	bool pptr;		/* a parent pointer op */
};

/* The regions after the format. */
enum xfsj_attri_part {
	XFSJ_ATTRI_NAME,
	XFSJ_ATTRI_NEW_NAME,
	XFSJ_ATTRI_VALUE,
	XFSJ_ATTRI_NEW_VALUE,
};

struct xfsj_attri_slot {
	enum xfsj_attri_part part;
	uint32_t len;		/* bytes of the name or value */
	const char *what;	/* "name region", ... */
};

/* Decode region 0 (@len bytes); false if it is not the format's size. */
bool xfsj_attri_fmt_decode(const uint8_t *p, uint32_t len,
			   struct xfsj_attri_fmt *a);

/*
 * The regions the format calls for after itself, in log order, into
 * @slot; returns how many (at most 4).
 */
unsigned int xfsj_attri_fmt_parts(const struct xfsj_attri_fmt *a,
				  struct xfsj_attri_slot slot[4]);

/* A name or value of @len bytes fills a region of this many bytes. */
static inline uint64_t xfsj_attri_region_len(uint32_t len)
{
	return ((uint64_t)len + 3) & ~3ULL;
}

/*
 * Regions (the format included) the kernel's recovery requires for @op:
 * a set or replace always carries a value region.
 */
uint16_t xfsj_attri_fmt_nregions(uint32_t op);

/*
 * The structural rules of the kernel's xfs_attri_validate, in its order:
 * no op flag outside the op, no unknown filter bit, at most one
 * namespace, a known op, the value length and namespace each op needs,
 * and name lengths from 1 to XFSJ_ATTR_NAME_MAX.  Returns NULL if @a
 * keeps them, else the field it breaks (*@val: its value).
 */
const char *xfsj_attri_fmt_verify(const struct xfsj_attri_fmt *a,
				  uint64_t *val);

/* A parent pointer value (XFSJ_ATTR_PPTR_VALUE_LEN bytes). */
static inline void xfsj_pptr_value_decode(const uint8_t *v, uint64_t *ino,
					  uint32_t *gen)
{
	*ino = xfsj_get_be64(v);
	*gen = xfsj_get_be32(v + 8);
}

#endif
