/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON Lines output: one object per line, written straight to the stream
 * (no document tree, so a 2 GiB log costs no memory here).  The only state
 * is whether a comma is due at each nesting depth.
 */
#include <inttypes.h>
#include <string.h>

#include "logprint.h"

#define JS_DEPTH 16

static bool first[JS_DEPTH];
static int depth;

static void key(FILE *o, const char *k)
{
	if (!first[depth])
		putc(',', o);
	first[depth] = false;
	if (k) {
		putc('"', o);
		fputs(k, o);
		fputs("\":", o);
	}
}

static void push(void)
{
	if (depth < JS_DEPTH - 1)
		depth++;
	first[depth] = true;
}

static void pop(void)
{
	if (depth)
		depth--;
}

void js_begin(FILE *o, const char *kind)
{
	depth = 0;
	first[0] = true;
	putc('{', o);
	js_str(o, "kind", kind);
}

void js_end(FILE *o)
{
	fputs("}\n", o);
	depth = 0;
}

/* Names and values from the log are bytes, not text: escape the rest. */
static void put_escaped(FILE *o, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	putc('"', o);
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];

		if (c == '"' || c == '\\') {
			putc('\\', o);
			putc(c, o);
		} else if (c >= 0x20 && c < 0x7f) {
			putc(c, o);
		} else {
			fputs("\\u00", o);
			putc(hex[c >> 4], o);
			putc(hex[c & 15], o);
		}
	}
	putc('"', o);
}

void js_str(FILE *o, const char *k, const char *val)
{
	key(o, k);
	if (!val)
		fputs("null", o);
	else
		put_escaped(o, (const uint8_t *)val, strlen(val));
}

void js_bytes(FILE *o, const char *k, const uint8_t *p, size_t n)
{
	key(o, k);
	if (!p)
		fputs("null", o);
	else
		put_escaped(o, p, n);
}

void js_u64(FILE *o, const char *k, uint64_t v)
{
	key(o, k);
	fprintf(o, "%" PRIu64, v);
}

void js_i64(FILE *o, const char *k, int64_t v)
{
	key(o, k);
	fprintf(o, "%" PRId64, v);
}

void js_hex(FILE *o, const char *k, uint64_t v)
{
	key(o, k);
	fprintf(o, "\"0x%" PRIx64 "\"", v);
}

void js_bool(FILE *o, const char *k, bool v)
{
	key(o, k);
	fputs(v ? "true" : "false", o);
}

void js_lsn(FILE *o, const char *k, uint64_t lsn)
{
	key(o, k);
	fprintf(o, "[%u,%u]", xfsj_lsn_cycle(lsn), xfsj_lsn_block(lsn));
}

void js_raw(FILE *o, const char *k, const char *raw)
{
	key(o, k);
	fputs(raw, o);
}

void js_obj_begin(FILE *o, const char *k)
{
	key(o, k);
	putc('{', o);
	push();
}

void js_obj_end(FILE *o)
{
	putc('}', o);
	pop();
}

void js_arr_begin(FILE *o, const char *k)
{
	key(o, k);
	putc('[', o);
	push();
}

void js_arr_end(FILE *o)
{
	putc(']', o);
	pop();
}

static void js_core(FILE *o, const struct xfsj_log_dinode *d)
{
	js_obj_begin(o, "core");
	js_u64(o, "mode", d->mode);
	js_u64(o, "version", d->version);
	js_u64(o, "format", d->format);
	js_u64(o, "aformat", d->aformat);
	js_u64(o, "uid", d->uid);
	js_u64(o, "gid", d->gid);
	js_u64(o, "nlink", d->nlink);
	js_u64(o, "projid", d->projid);
	js_u64(o, "size", d->size);
	js_u64(o, "nblocks", d->nblocks);
	js_u64(o, "extsize", d->extsize);
	js_u64(o, "nextents", d->nextents);
	js_u64(o, "anextents", d->anextents);
	js_u64(o, "forkoff", d->forkoff);
	js_hex(o, "flags", d->flags);
	js_hex(o, "flags2", d->flags2);
	js_u64(o, "gen", d->gen);
	js_i64(o, "atime", d->atime_sec);
	js_i64(o, "mtime", d->mtime_sec);
	js_i64(o, "ctime", d->ctime_sec);
	if (d->v3) {
		js_i64(o, "crtime", d->crtime_sec);
		js_u64(o, "cowextsize", d->cowextsize);
		js_u64(o, "di_ino", d->ino);
		js_lsn(o, "di_lsn", d->lsn);
	}
	js_obj_end(o);
}

static void js_region_hex(FILE *o, const struct xfsj_ritem *it)
{
	static const char hex[] = "0123456789abcdef";

	js_arr_begin(o, "regions_hex");
	for (uint16_t r = 0; r < it->nreg; r++) {
		key(o, NULL);
		putc('"', o);
		for (uint32_t i = 0; i < it->reg[r].len; i++) {
			putc(hex[it->reg[r].p[i] >> 4], o);
			putc(hex[it->reg[r].p[i] & 15], o);
		}
		putc('"', o);
	}
	js_arr_end(o);
}

/* The decoded fields of one item, inside an open object. */
void js_item_fields(FILE *o, const struct xfsj_ritem *it,
		    const struct xfsj_item_info *in, bool hex)
{
	struct xfsj_item_ext e;

	js_str(o, "type", lp_item_name(in));
	js_hex(o, "type_code", in->type);
	js_arr_begin(o, "regions");
	for (uint16_t r = 0; r < it->nreg; r++)
		js_u64(o, NULL, it->reg[r].len);
	js_arr_end(o);
	if (in->err) {
		js_str(o, "error", xfsj_strerror(in->err));
		js_str(o, "error_structure", in->fault.structure);
		js_str(o, "error_field", in->fault.field);
		js_u64(o, "error_offset", in->fault.offset);
	}
	if (!in->kind)
		goto out;
	switch (in->type) {
	case XFSJ_LI_BUF:
		js_u64(o, "blkno", in->u.buf.blkno);
		js_u64(o, "len", in->u.buf.len);
		js_hex(o, "flags", in->u.buf.flags);
		js_u64(o, "map_size", in->u.buf.map_size);
		js_str(o, "buf_type", xfsj_blft_name(in->u.buf.blft));
		js_bool(o, "cancel", in->u.buf.flags & XFSJ_BLF_CANCEL);
		js_bool(o, "inode_buf", in->u.buf.flags & XFSJ_BLF_INODE_BUF);
		js_u64(o, "data_bytes", in->u.buf.data_bytes);
		if (in->u.buf.content.name) {
			js_str(o, "holds", in->u.buf.content.name);
			js_hex(o, "magic", in->u.buf.content.magic);
			if (in->u.buf.content.level >= 0)
				js_u64(o, "level", (uint64_t)in->u.buf.content.level);
		}
		break;
	case XFSJ_LI_INODE:
		js_u64(o, "ino", in->u.ino.ino);
		js_hex(o, "fields", in->u.ino.fields);
		js_u64(o, "blkno", in->u.ino.blkno);
		js_u64(o, "len", in->u.ino.len);
		js_u64(o, "boffset", in->u.ino.boffset);
		js_u64(o, "dsize", in->u.ino.dsize);
		js_u64(o, "asize", in->u.ino.asize);
		if (in->u.ino.have_core)
			js_core(o, &in->u.ino.core);
		break;
	case XFSJ_LI_DQUOT:
		js_u64(o, "id", in->u.dq.id);
		js_u64(o, "blkno", in->u.dq.blkno);
		js_u64(o, "len", in->u.dq.len);
		js_u64(o, "boffset", in->u.dq.boffset);
		if (in->u.dq.have_dq) {
			js_u64(o, "bcount", in->u.dq.bcount);
			js_u64(o, "icount", in->u.dq.icount);
		}
		break;
	case XFSJ_LI_QUOTAOFF:
		js_hex(o, "flags", in->u.qoff.flags);
		break;
	case XFSJ_LI_ICREATE:
		js_u64(o, "ag", in->u.icr.ag);
		js_u64(o, "agbno", in->u.icr.agbno);
		js_u64(o, "count", in->u.icr.count);
		js_u64(o, "isize", in->u.icr.isize);
		js_u64(o, "length", in->u.icr.length);
		js_hex(o, "gen", in->u.icr.gen);
		break;
	case XFSJ_LI_ATTRI:
		js_hex(o, "id", in->id);
		js_u64(o, "ino", in->u.attr.ino);
		js_u64(o, "igen", in->u.attr.igen);
		js_u64(o, "op", in->u.attr.op);
		js_hex(o, "filter", in->u.attr.filter);
		js_bytes(o, "name", in->u.attr.name, in->u.attr.name_len);
		if (in->u.attr.new_name)
			js_bytes(o, "new_name", in->u.attr.new_name,
				 in->u.attr.new_name_len);
		js_u64(o, "value_len", in->u.attr.value_len);
		if (in->u.attr.pptr && in->u.attr.value) {
			js_u64(o, "parent_ino", in->u.attr.parent_ino);
			js_u64(o, "parent_gen", in->u.attr.parent_gen);
		} else if (in->u.attr.value) {
			js_bytes(o, "value", in->u.attr.value,
				 in->u.attr.value_len);
		}
		if (in->u.attr.pptr && in->u.attr.new_value) {
			js_u64(o, "new_parent_ino", in->u.attr.new_parent_ino);
			js_u64(o, "new_parent_gen", in->u.attr.new_parent_gen);
		}
		break;
	case XFSJ_LI_XMI:
		js_hex(o, "id", in->id);
		js_u64(o, "ino1", in->u.xmi.ino1);
		js_u64(o, "ino2", in->u.xmi.ino2);
		js_u64(o, "startoff1", in->u.xmi.startoff1);
		js_u64(o, "startoff2", in->u.xmi.startoff2);
		js_u64(o, "blockcount", in->u.xmi.blockcount);
		js_hex(o, "flags", in->u.xmi.flags);
		break;
	default:
		js_hex(o, "id", in->id);
		if (in->kind->role == XFSJ_ROLE_DONE &&
		    in->type != XFSJ_LI_EFD && in->type != XFSJ_LI_EFD_RT)
			break;
		js_arr_begin(o, "extents");
		for (uint32_t i = 0; i < in->u.ext.nextents; i++) {
			if (xfsj_item_extent(in, i, &e))
				break;
			js_obj_begin(o, NULL);
			js_u64(o, "start", e.startblock);
			js_u64(o, "len", e.len);
			if (in->type == XFSJ_LI_RUI || in->type == XFSJ_LI_BUI ||
			    in->type == XFSJ_LI_RUI_RT) {
				js_i64(o, "owner", (int64_t)e.owner);
				js_u64(o, "offset", e.offset);
			}
			if (in->type != XFSJ_LI_EFI && in->type != XFSJ_LI_EFD &&
			    in->type != XFSJ_LI_EFI_RT &&
			    in->type != XFSJ_LI_EFD_RT)
				js_hex(o, "flags", e.flags);
			js_obj_end(o);
		}
		js_arr_end(o);
		break;
	}
out:
	if (hex)
		js_region_hex(o, it);
}
