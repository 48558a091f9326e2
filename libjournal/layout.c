/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The generic half of the table-driven codecs (see include/xfsj/layout.h). */
#include <string.h>

#include "xfsj/layout.h"

void xfsj_layout_decode(const struct xfsj_layout *l, const void *disk,
			void *host)
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
			uint16_t v = xfsj_get_be16(src);

			memcpy(dst, &v, 2);
			break;
		}
		case XFSJ_K_U32: {
			uint32_t v = xfsj_get_be32(src);

			memcpy(dst, &v, 4);
			break;
		}
		case XFSJ_K_U64: {
			uint64_t v = xfsj_get_be64(src);

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
				uint32_t v = xfsj_get_be32(src + 4 * j);

				memcpy((uint8_t *)dst + 4 * j, &v, 4);
			}
			break;
		}
	}
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
