/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Table-driven codecs for fixed-layout on-disk structures.
 *
 * Each structure is described once, as an X-macro list of
 * (kind, field name, byte offset) plus explicit padding.  From that one list
 * we generate:
 *   - the host structure (native-endian values, same field names),
 *   - a byte-array "raw" structure whose member offsets are checked at
 *     compile time against the offsets in the list (so a typo in an offset,
 *     a gap or an overlap does not build),
 *   - a field table that decodes, encodes (big-endian, CRC fields
 *     little-endian) and names fields in error messages.
 */
#ifndef XFSJ_LAYOUT_H
#define XFSJ_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum xfsj_kind {
	XFSJ_K_U8,
	XFSJ_K_U16,
	XFSJ_K_U32,
	XFSJ_K_U64,
	XFSJ_K_UUID,	/* 16 raw bytes */
	XFSJ_K_NAME12,	/* 12 raw bytes (superblock label) */
	XFSJ_K_CRC,	/* crc32c, stored little-endian */
	XFSJ_K_U32A64,	/* 64 big-endian u32 (AGI buckets, log cycle data) */
};

/* Host type and on-disk size of each kind. */
typedef uint8_t xfsj_ht_U8;
typedef uint16_t xfsj_ht_U16;
typedef uint32_t xfsj_ht_U32;
typedef uint64_t xfsj_ht_U64;
typedef uint8_t xfsj_ht_UUID[16];
typedef uint8_t xfsj_ht_NAME12[12];
typedef uint32_t xfsj_ht_CRC;
typedef uint32_t xfsj_ht_U32A64[64];

#define XFSJ_KSZ_U8	1
#define XFSJ_KSZ_U16	2
#define XFSJ_KSZ_U32	4
#define XFSJ_KSZ_U64	8
#define XFSJ_KSZ_UUID	16
#define XFSJ_KSZ_NAME12	12
#define XFSJ_KSZ_CRC	4
#define XFSJ_KSZ_U32A64	256

struct xfsj_field {
	const char *name;
	uint16_t disk_off;
	uint16_t host_off;
	uint8_t kind;
};

struct xfsj_layout {
	const char *name;		/* "superblock", "AGF", ... */
	const struct xfsj_field *fields;
	unsigned int nfields;
	unsigned int size;		/* bytes covered by the field list */
};

/* Generators, used by the headers that declare structures. */
#define XFSJ_HOST_MEMBER(k, n, off)	xfsj_ht_##k n;
#define XFSJ_HOST_PAD(bytes, n, off)
#define XFSJ_RAW_MEMBER(k, n, off)	uint8_t n[XFSJ_KSZ_##k];
#define XFSJ_RAW_PAD(bytes, n, off)	uint8_t n[bytes];

#define XFSJ_DECLARE_STRUCTS(tag, LIST)					\
	struct tag { LIST(XFSJ_HOST_MEMBER, XFSJ_HOST_PAD) };		\
	struct tag##_raw { LIST(XFSJ_RAW_MEMBER, XFSJ_RAW_PAD) }

/*
 * Used once in the .c file that owns a structure, with XFSJ_CUR defined to
 * the structure tag: emits the compile-time offset checks and the layout.
 */
#define XFSJ_RAW_(t)		t##_raw
#define XFSJ_RAW(t)		XFSJ_RAW_(t)
#define XFSJ_FENT(k, n, off)	{ #n, off, offsetof(struct XFSJ_CUR, n), XFSJ_K_##k },
#define XFSJ_PNONE(b, n, off)
#define XFSJ_FCHK(k, n, off)						\
	_Static_assert(offsetof(struct XFSJ_RAW(XFSJ_CUR), n) == (off),	\
		       #n " is not at byte " #off);			\
	_Static_assert(sizeof(((struct XFSJ_CUR *)0)->n) ==		\
		       XFSJ_KSZ_##k, \
		       #n " host size");
#define XFSJ_PCHK(b, n, off)						\
	_Static_assert(offsetof(struct XFSJ_RAW(XFSJ_CUR), n) == (off),	\
		       #n " is not at byte " #off);
#define XFSJ_DEFINE_LAYOUT(var, LIST, label, disk_size)			\
	LIST(XFSJ_FCHK, XFSJ_PCHK)					\
	_Static_assert(sizeof(struct XFSJ_RAW(XFSJ_CUR)) == (disk_size),	\
		       label " size");					\
	static const struct xfsj_field var##_fields[] = {		\
		LIST(XFSJ_FENT, XFSJ_PNONE)				\
	};								\
	const struct xfsj_layout var = {				\
		label, var##_fields,					\
		sizeof(var##_fields) / sizeof(var##_fields[0]), disk_size \
	}

void xfsj_layout_decode(const struct xfsj_layout *l, const void *disk,
			void *host);
/* The same with little-endian integers (structures in the log). */
void xfsj_layout_decode_le(const struct xfsj_layout *l, const void *disk,
			   void *host);
/* Writes every field (CRC fields as stored in @host); padding untouched. */
void xfsj_layout_encode(const struct xfsj_layout *l, const void *host,
			void *disk);
/* Byte offset of a field by name, or -1. */
int xfsj_layout_offset(const struct xfsj_layout *l, const char *field);
/*
 * Store @v big-endian into integer field @field of the on-disk structure
 * at @disk (a repair setting one field).  Returns 0, or -1 when there is
 * no such field, it is not an integer, or @v does not fit it.
 */
int xfsj_layout_put(const struct xfsj_layout *l, void *disk,
		    const char *field, uint64_t v);

/* Explicit big-endian accessors for everything not described by a table. */
static inline uint16_t xfsj_get_be16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t xfsj_get_be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

static inline uint64_t xfsj_get_be64(const void *p)
{
	const uint8_t *b = p;

	return (uint64_t)xfsj_get_be32(b) << 32 | xfsj_get_be32(b + 4);
}

static inline void xfsj_put_be16(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = v >> 8;
	b[1] = v & 0xff;
}

static inline void xfsj_put_be32(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = v >> 24;
	b[1] = (v >> 16) & 0xff;
	b[2] = (v >> 8) & 0xff;
	b[3] = v & 0xff;
}

static inline void xfsj_put_be64(void *p, uint64_t v)
{
	xfsj_put_be32(p, (uint32_t)(v >> 32));
	xfsj_put_be32((uint8_t *)p + 4, (uint32_t)v);
}

static inline uint32_t xfsj_get_le32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static inline void xfsj_put_le32(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = v & 0xff;
	b[1] = (v >> 8) & 0xff;
	b[2] = (v >> 16) & 0xff;
	b[3] = v >> 24;
}

/* Log item formats are in the writer's byte order: little-endian here. */
static inline uint16_t xfsj_get_le16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint64_t xfsj_get_le64(const void *p)
{
	return (uint64_t)xfsj_get_le32((const uint8_t *)p + 4) << 32 |
	       xfsj_get_le32(p);
}

static inline void xfsj_put_le16(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = v & 0xff;
	b[1] = v >> 8;
}

static inline void xfsj_put_le64(void *p, uint64_t v)
{
	xfsj_put_le32(p, (uint32_t)v);
	xfsj_put_le32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

/*
 * The same list made into a straight-line big-endian decoder (for the
 * structures decoded once per inode or block in a scan: no loop over the
 * field table, no switch per field).  Used in the structure's .c file:
 *   XFSJ_DEFINE_DECODER(fn, tag, LIST)
 * defines void fn(const void *disk, struct tag *host), which writes what
 * xfsj_layout_decode() of the same list writes (test_layout.c).
 */
#define XFSJ_DEC_U8(n, off)	h_->n = d_[off];
#define XFSJ_DEC_U16(n, off)	h_->n = xfsj_get_be16(d_ + (off));
#define XFSJ_DEC_U32(n, off)	h_->n = xfsj_get_be32(d_ + (off));
#define XFSJ_DEC_U64(n, off)	h_->n = xfsj_get_be64(d_ + (off));
#define XFSJ_DEC_UUID(n, off)	memcpy(h_->n, d_ + (off), 16);
#define XFSJ_DEC_NAME12(n, off)	memcpy(h_->n, d_ + (off), 12);
#define XFSJ_DEC_CRC(n, off)	h_->n = xfsj_get_le32(d_ + (off));
#define XFSJ_DEC_U32A64(n, off)						\
	for (int j_ = 0; j_ < 64; j_++)					\
		h_->n[j_] = xfsj_get_be32(d_ + (off) + 4 * j_);
#define XFSJ_FDEC(k, n, off)	XFSJ_DEC_##k(n, off)
#define XFSJ_DEFINE_DECODER(fn, tag, LIST)				\
	void fn(const void *disk, struct tag *h_)			\
	{								\
		const uint8_t *d_ = disk;				\
									\
		LIST(XFSJ_FDEC, XFSJ_PNONE)				\
	}

#endif
