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

static void key(const char *k)
{
	if (!first[depth])
		o_c(',');
	first[depth] = false;
	if (k) {
		o_c('"');
		o_s(k);
		O_LIT("\":");
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

void js_begin(const char *kind)
{
	depth = 0;
	first[0] = true;
	o_c('{');
	js_str("kind", kind);
}

void js_end(void)
{
	O_LIT("}\n");
	depth = 0;
}

/* Names and values from the log are bytes, not text: escape the rest. */
static void put_escaped(const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	o_c('"');
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];

		if (c == '"' || c == '\\') {
			o_c('\\');
			o_c(c);
		} else if (c >= 0x20 && c < 0x7f) {
			o_c(c);
		} else {
			O_LIT("\\u00");
			o_c(hex[c >> 4]);
			o_c(hex[c & 15]);
		}
	}
	o_c('"');
}

void js_str(const char *k, const char *val)
{
	key(k);
	if (!val)
		O_LIT("null");
	else
		put_escaped((const uint8_t *)val, strlen(val));
}

void js_bytes(const char *k, const uint8_t *p, size_t n)
{
	key(k);
	if (!p)
		O_LIT("null");
	else
		put_escaped(p, n);
}

void js_u64(const char *k, uint64_t v)
{
	key(k);
	o_u(v);
}

void js_i64(const char *k, int64_t v)
{
	key(k);
	o_d(v);
}

void js_hex(const char *k, uint64_t v)
{
	key(k);
	O_LIT("\"0x");
	o_x(v);
	o_c('"');
}

void js_bool(const char *k, bool v)
{
	key(k);
	o_s(v ? "true" : "false");
}

void js_lsn(const char *k, uint64_t lsn)
{
	key(k);
	o_c('[');
	o_u(xfsj_lsn_cycle(lsn));
	o_c(',');
	o_u(xfsj_lsn_block(lsn));
	o_c(']');
}

void js_raw(const char *k, const char *raw)
{
	key(k);
	o_s(raw);
}

void js_obj_begin(const char *k)
{
	key(k);
	o_c('{');
	push();
}

void js_obj_end(void)
{
	o_c('}');
	pop();
}

void js_arr_begin(const char *k)
{
	key(k);
	o_c('[');
	push();
}

void js_arr_end(void)
{
	o_c(']');
	pop();
}

static void js_core(const struct xfsj_log_dinode *d)
{
	js_obj_begin("core");
	js_u64("mode", d->mode);
	js_u64("version", d->version);
	js_u64("format", d->format);
	js_u64("aformat", d->aformat);
	js_u64("uid", d->uid);
	js_u64("gid", d->gid);
	js_u64("nlink", d->nlink);
	js_u64("projid", d->projid);
	js_u64("size", d->size);
	js_u64("nblocks", d->nblocks);
	js_u64("extsize", d->extsize);
	js_u64("nextents", d->nextents);
	js_u64("anextents", d->anextents);
	js_u64("forkoff", d->forkoff);
	js_hex("flags", d->flags);
	js_hex("flags2", d->flags2);
	js_u64("gen", d->gen);
	js_i64("atime", d->atime_sec);
	js_i64("mtime", d->mtime_sec);
	js_i64("ctime", d->ctime_sec);
	if (d->v3) {
		js_i64("crtime", d->crtime_sec);
		js_u64("cowextsize", d->cowextsize);
		js_u64("di_ino", d->ino);
		js_lsn("di_lsn", d->lsn);
	}
	js_obj_end();
}

static void js_region_hex(const struct xfsj_ritem *it)
{
	static const char hex[] = "0123456789abcdef";

	js_arr_begin("regions_hex");
	for (uint16_t r = 0; r < it->nreg; r++) {
		key(NULL);
		o_c('"');
		for (uint32_t i = 0; i < it->reg[r].len; i++) {
			o_c(hex[it->reg[r].p[i] >> 4]);
			o_c(hex[it->reg[r].p[i] & 15]);
		}
		o_c('"');
	}
	js_arr_end();
}

/* The decoded fields of one item, inside an open object. */
void js_item_fields(const struct xfsj_ritem *it,
		    const struct xfsj_item_info *in, bool hex)
{
	struct xfsj_item_ext e;

	js_str("type", lp_item_name(in));
	js_hex("type_code", in->type);
	js_arr_begin("regions");
	for (uint16_t r = 0; r < it->nreg; r++)
		js_u64(NULL, it->reg[r].len);
	js_arr_end();
	if (in->err) {
		js_str("error", xfsj_strerror(in->err));
		js_str("error_structure", in->fault.structure);
		js_str("error_field", in->fault.field);
		js_u64("error_offset", in->fault.offset);
	}
	if (!in->kind)
		goto out;
	switch (in->type) {
	case XFSJ_LI_BUF:
		js_u64("blkno", in->u.buf.blkno);
		js_u64("len", in->u.buf.len);
		js_hex("flags", in->u.buf.flags);
		js_u64("map_size", in->u.buf.map_size);
		js_str("buf_type", xfsj_blft_name(in->u.buf.blft));
		js_bool("cancel", in->u.buf.flags & XFSJ_BLF_CANCEL);
		js_bool("inode_buf", in->u.buf.flags & XFSJ_BLF_INODE_BUF);
		js_u64("data_bytes", in->u.buf.data_bytes);
		if (in->u.buf.content.name) {
			js_str("holds", in->u.buf.content.name);
			js_hex("magic", in->u.buf.content.magic);
			if (in->u.buf.content.level >= 0)
				js_u64("level", (uint64_t)in->u.buf.content.level);
		}
		break;
	case XFSJ_LI_INODE:
		js_u64("ino", in->u.ino.ino);
		js_hex("fields", in->u.ino.fields);
		js_u64("blkno", in->u.ino.blkno);
		js_u64("len", in->u.ino.len);
		js_u64("boffset", in->u.ino.boffset);
		js_u64("dsize", in->u.ino.dsize);
		js_u64("asize", in->u.ino.asize);
		if (in->u.ino.have_core)
			js_core(&in->u.ino.core);
		break;
	case XFSJ_LI_DQUOT:
		js_u64("id", in->u.dq.id);
		js_u64("blkno", in->u.dq.blkno);
		js_u64("len", in->u.dq.len);
		js_u64("boffset", in->u.dq.boffset);
		if (in->u.dq.have_dq) {
			js_u64("bcount", in->u.dq.bcount);
			js_u64("icount", in->u.dq.icount);
		}
		break;
	case XFSJ_LI_QUOTAOFF:
		js_hex("flags", in->u.qoff.flags);
		break;
	case XFSJ_LI_ICREATE:
		js_u64("ag", in->u.icr.ag);
		js_u64("agbno", in->u.icr.agbno);
		js_u64("count", in->u.icr.count);
		js_u64("isize", in->u.icr.isize);
		js_u64("length", in->u.icr.length);
		js_hex("gen", in->u.icr.gen);
		break;
	case XFSJ_LI_ATTRI:
		js_hex("id", in->id);
		js_u64("ino", in->u.attr.ino);
		js_u64("igen", in->u.attr.igen);
		js_u64("op", in->u.attr.op);
		js_hex("filter", in->u.attr.filter);
		js_bytes("name", in->u.attr.name, in->u.attr.name_len);
		if (in->u.attr.new_name)
			js_bytes("new_name", in->u.attr.new_name,
				 in->u.attr.new_name_len);
		js_u64("value_len", in->u.attr.value_len);
		if (in->u.attr.pptr && in->u.attr.value) {
			js_u64("parent_ino", in->u.attr.parent_ino);
			js_u64("parent_gen", in->u.attr.parent_gen);
		} else if (in->u.attr.value) {
			js_bytes("value", in->u.attr.value,
				 in->u.attr.value_len);
		}
		if (in->u.attr.pptr && in->u.attr.new_value) {
			js_u64("new_parent_ino", in->u.attr.new_parent_ino);
			js_u64("new_parent_gen", in->u.attr.new_parent_gen);
		}
		break;
	case XFSJ_LI_XMI:
		js_hex("id", in->id);
		js_u64("ino1", in->u.xmi.ino1);
		js_u64("ino2", in->u.xmi.ino2);
		js_u64("startoff1", in->u.xmi.startoff1);
		js_u64("startoff2", in->u.xmi.startoff2);
		js_u64("blockcount", in->u.xmi.blockcount);
		js_hex("flags", in->u.xmi.flags);
		break;
	default:
		js_hex("id", in->id);
		if (in->kind->role == XFSJ_ROLE_DONE &&
		    in->type != XFSJ_LI_EFD && in->type != XFSJ_LI_EFD_RT)
			break;
		js_arr_begin("extents");
		for (uint32_t i = 0; i < in->u.ext.nextents; i++) {
			if (xfsj_item_extent(in, i, &e))
				break;
			js_obj_begin(NULL);
			js_u64("start", e.startblock);
			js_u64("len", e.len);
			if (in->type == XFSJ_LI_RUI || in->type == XFSJ_LI_BUI ||
			    in->type == XFSJ_LI_RUI_RT) {
				js_i64("owner", (int64_t)e.owner);
				js_u64("offset", e.offset);
			}
			if (in->type != XFSJ_LI_EFI && in->type != XFSJ_LI_EFD &&
			    in->type != XFSJ_LI_EFI_RT &&
			    in->type != XFSJ_LI_EFD_RT)
				js_hex("flags", e.flags);
			js_obj_end();
		}
		js_arr_end();
		break;
	}
out:
	if (hex)
		js_region_hex(it);
}
