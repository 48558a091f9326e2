/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The generic half of the table-driven codecs (see core/layout.h). */
#include <stdbool.h>
#include <string.h>

#include "core/layout.h"

static uint16_t get16(const uint8_t *p, bool le)
{
	return le ? (uint16_t)(p[0] | p[1] << 8) : xfsj_get_be16(p);
}

static uint32_t get32(const uint8_t *p, bool le)
{
	return le ? xfsj_get_le32(p) : xfsj_get_be32(p);
}

static uint64_t get64(const uint8_t *p, bool le)
{
	return le ? (uint64_t)xfsj_get_le32(p + 4) << 32 | xfsj_get_le32(p) :
		    xfsj_get_be64(p);
}

/*
 * Decode with integers in either byte order: on-disk structures are
 * big-endian, but the log keeps some (the log dinode) in the byte order of
 * the host that wrote it, which for Linux logs we read is little-endian.
 */
static void decode(const struct xfsj_layout *l, const void *disk, void *host,
		   bool le)
{
	const uint8_t *d = disk;
	uint8_t *h = host;

	for (unsigned int i = 0; i < l->nfields; i++) {
		const struct xfsj_field *f = &l->fields[i];
		const uint8_t *src = d + f->disk_off;
		void *dst = h + f->host_off;

		switch (f->kind) {
		case XFSJ_K_U8:
			*(uint8_t *)dst = *src;
			break;
		case XFSJ_K_U16: {
			uint16_t v = get16(src, le);

			memcpy(dst, &v, 2);
			break;
		}
		case XFSJ_K_U32: {
			uint32_t v = get32(src, le);

			memcpy(dst, &v, 4);
			break;
		}
		case XFSJ_K_U64: {
			uint64_t v = get64(src, le);

			memcpy(dst, &v, 8);
			break;
		}
		case XFSJ_K_UUID:
			memcpy(dst, src, 16);
			break;
		case XFSJ_K_NAME12:
			memcpy(dst, src, 12);
			break;
		case XFSJ_K_CRC: {
			uint32_t v = xfsj_get_le32(src);

			memcpy(dst, &v, 4);
			break;
		}
		case XFSJ_K_U32A64:
			for (int j = 0; j < 64; j++) {
				uint32_t v = get32(src + 4 * j, le);

				memcpy((uint8_t *)dst + 4 * j, &v, 4);
			}
			break;
		}
	}
}

void xfsj_layout_decode(const struct xfsj_layout *l, const void *disk,
			void *host)
{
	decode(l, disk, host, false);
}

void xfsj_layout_decode_le(const struct xfsj_layout *l, const void *disk,
			   void *host)
{
	decode(l, disk, host, true);
}

void xfsj_layout_encode(const struct xfsj_layout *l, const void *host,
			void *disk)
{
	const uint8_t *h = host;
	uint8_t *d = disk;

	for (unsigned int i = 0; i < l->nfields; i++) {
		const struct xfsj_field *f = &l->fields[i];
		const void *src = h + f->host_off;
		uint8_t *dst = d + f->disk_off;

		switch (f->kind) {
		case XFSJ_K_U8:
			*dst = *(const uint8_t *)src;
			break;
		case XFSJ_K_U16: {
			uint16_t v;

			memcpy(&v, src, 2);
			xfsj_put_be16(dst, v);
			break;
		}
		case XFSJ_K_U32: {
			uint32_t v;

			memcpy(&v, src, 4);
			xfsj_put_be32(dst, v);
			break;
		}
		case XFSJ_K_U64: {
			uint64_t v;

			memcpy(&v, src, 8);
			xfsj_put_be64(dst, v);
			break;
		}
		case XFSJ_K_UUID:
			memcpy(dst, src, 16);
			break;
		case XFSJ_K_NAME12:
			memcpy(dst, src, 12);
			break;
		case XFSJ_K_CRC: {
			uint32_t v;

			memcpy(&v, src, 4);
			xfsj_put_le32(dst, v);
			break;
		}
		case XFSJ_K_U32A64:
			for (int j = 0; j < 64; j++) {
				uint32_t v;

				memcpy(&v, (const uint8_t *)src + 4 * j, 4);
				xfsj_put_be32(dst + 4 * j, v);
			}
			break;
		}
	}
}

int xfsj_layout_offset(const struct xfsj_layout *l, const char *field)
{
	for (unsigned int i = 0; i < l->nfields; i++)
		if (!strcmp(l->fields[i].name, field))
			return l->fields[i].disk_off;
	return -1;
}

int xfsj_layout_put(const struct xfsj_layout *l, void *disk,
		    const char *field, uint64_t v)
{
	uint8_t *p = disk;

	for (unsigned int i = 0; i < l->nfields; i++) {
		const struct xfsj_field *fl = &l->fields[i];

		if (strcmp(fl->name, field))
			continue;
		switch (fl->kind) {
		case XFSJ_K_U8:
			if (v > UINT8_MAX)
				return -1;
			p[fl->disk_off] = (uint8_t)v;
			return 0;
		case XFSJ_K_U16:
			if (v > UINT16_MAX)
				return -1;
			xfsj_put_be16(p + fl->disk_off, (uint16_t)v);
			return 0;
		case XFSJ_K_U32:
			if (v > UINT32_MAX)
				return -1;
			xfsj_put_be32(p + fl->disk_off, (uint32_t)v);
			return 0;
		case XFSJ_K_U64:
			xfsj_put_be64(p + fl->disk_off, v);
			return 0;
		default:
			return -1;
		}
	}
	return -1;
}
