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
	size_t n = k ? strlen(k) : 0;
	char *b;

	if (n > 256) {
		/* Not a key of ours; the slow way. */
		if (!first[depth])
			o_c(',');
		first[depth] = false;
		o_c('"');
		o_write(k, n);
		O_LIT("\":");
		return;
	}
	if (O_CAP - o_n < n + 4)
		o_flush();
	b = o_buf + o_n;
	if (!first[depth])
		*b++ = ',';
	first[depth] = false;
	if (k) {
		*b++ = '"';
		memcpy(b, k, n);
		b += n;
		*b++ = '"';
		*b++ = ':';
	}
	o_n = (size_t)(b - o_buf);
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
		size_t j = i;

		/* A run that needs no escaping goes out in one piece. */
		while (j < n && p[j] >= 0x20 && p[j] < 0x7f && p[j] != '"' &&
		       p[j] != '\\')
			j++;
		if (j > i) {
			o_write((const char *)p + i, j - i);
			i = j - 1;
			continue;
		}
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

/*
 * The same for literal keys, their length known at compile time: the hot
 * path of -t --json, a few dozen keys per item.
 */
static inline void key_lit(const char *k, size_t n)
{
	char *b;

	if (O_CAP - o_n < n + 4)
		o_flush();
	b = o_buf + o_n;
	if (!first[depth])
		*b++ = ',';
	first[depth] = false;
	*b++ = '"';
	memcpy(b, k, n);
	b += n;
	*b++ = '"';
	*b++ = ':';
	o_n = (size_t)(b - o_buf);
}

#define KL(k)		key_lit(k, sizeof(k) - 1)
#define J_U64(k, v)	do { KL(k); o_u(v); } while (0)
#define J_I64(k, v)	do { KL(k); o_d(v); } while (0)
#define J_HEX(k, v)	do { KL(k); O_LIT("\"0x"); o_x(v); o_c('"'); } while (0)
#define J_BOOL(k, v)	do { KL(k); if (v) O_LIT("true"); else O_LIT("false"); } while (0)
#define J_STR(k, v)	do { KL(k); put_str(v); } while (0)

static void put_str(const char *val)
{
	if (!val)
		O_LIT("null");
	else
		put_escaped((const uint8_t *)val, strlen(val));
}

static void js_core(const struct xfsj_log_dinode *d)
{
	js_obj_begin("core");
	J_U64("mode", d->mode);
	J_U64("version", d->version);
	J_U64("format", d->format);
	J_U64("aformat", d->aformat);
	J_U64("uid", d->uid);
	J_U64("gid", d->gid);
	J_U64("nlink", d->nlink);
	J_U64("projid", d->projid);
	J_U64("size", d->size);
	J_U64("nblocks", d->nblocks);
	J_U64("extsize", d->extsize);
	J_U64("nextents", d->nextents);
	J_U64("anextents", d->anextents);
	J_U64("forkoff", d->forkoff);
	J_HEX("flags", d->flags);
	J_HEX("flags2", d->flags2);
	J_U64("gen", d->gen);
	J_I64("atime", d->atime_sec);
	J_I64("mtime", d->mtime_sec);
	J_I64("ctime", d->ctime_sec);
	if (d->v3) {
		J_I64("crtime", d->crtime_sec);
		J_U64("cowextsize", d->cowextsize);
		J_U64("di_ino", d->ino);
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

/* ---- the fields of each item type (logprint/items.c names them) ---- */

void lp_json_buf(const struct xfsj_ritem *it,
		 const struct xfsj_item_info *in)
{
	(void)it;
	J_U64("blkno", in->u.buf.blkno);
	J_U64("len", in->u.buf.len);
	J_HEX("flags", in->u.buf.flags);
	J_U64("map_size", in->u.buf.map_size);
	J_STR("buf_type", xfsj_blft_name(in->u.buf.blft));
	J_BOOL("cancel", in->u.buf.flags & XFSJ_BLF_CANCEL);
	J_BOOL("inode_buf", in->u.buf.flags & XFSJ_BLF_INODE_BUF);
	J_U64("data_bytes", in->u.buf.data_bytes);
	if (in->u.buf.content.name) {
		J_STR("holds", in->u.buf.content.name);
		J_HEX("magic", in->u.buf.content.magic);
		if (in->u.buf.content.level >= 0)
			J_U64("level", (uint64_t)in->u.buf.content.level);
	}
}

void lp_json_inode(const struct xfsj_ritem *it,
		   const struct xfsj_item_info *in)
{
	(void)it;
	J_U64("ino", in->u.ino.ino);
	J_HEX("fields", in->u.ino.fields);
	J_U64("blkno", in->u.ino.blkno);
	J_U64("len", in->u.ino.len);
	J_U64("boffset", in->u.ino.boffset);
	J_U64("dsize", in->u.ino.dsize);
	J_U64("asize", in->u.ino.asize);
	if (in->u.ino.have_core)
		js_core(&in->u.ino.core);
}

void lp_json_dquot(const struct xfsj_ritem *it,
		   const struct xfsj_item_info *in)
{
	(void)it;
	J_U64("id", in->u.dq.id);
	J_U64("blkno", in->u.dq.blkno);
	J_U64("len", in->u.dq.len);
	J_U64("boffset", in->u.dq.boffset);
	if (in->u.dq.have_dq) {
		J_U64("bcount", in->u.dq.bcount);
		J_U64("icount", in->u.dq.icount);
	}
}

void lp_json_qoff(const struct xfsj_ritem *it,
		  const struct xfsj_item_info *in)
{
	(void)it;
	J_HEX("flags", in->u.qoff.flags);
}

void lp_json_icreate(const struct xfsj_ritem *it,
		     const struct xfsj_item_info *in)
{
	(void)it;
	J_U64("ag", in->u.icr.ag);
	J_U64("agbno", in->u.icr.agbno);
	J_U64("count", in->u.icr.count);
	J_U64("isize", in->u.icr.isize);
	J_U64("length", in->u.icr.length);
	J_HEX("gen", in->u.icr.gen);
}

void lp_json_attri(const struct xfsj_ritem *it,
		   const struct xfsj_item_info *in)
{
	(void)it;
	J_HEX("id", in->id);
	J_U64("ino", in->u.attr.ino);
	J_U64("igen", in->u.attr.igen);
	J_U64("op", in->u.attr.op);
	J_HEX("filter", in->u.attr.filter);
	js_bytes("name", in->u.attr.name, in->u.attr.name_len);
	if (in->u.attr.new_name)
		js_bytes("new_name", in->u.attr.new_name,
			 in->u.attr.new_name_len);
	J_U64("value_len", in->u.attr.value_len);
	if (in->u.attr.pptr && in->u.attr.value) {
		J_U64("parent_ino", in->u.attr.parent_ino);
		J_U64("parent_gen", in->u.attr.parent_gen);
	} else if (in->u.attr.value) {
		js_bytes("value", in->u.attr.value,
			 in->u.attr.value_len);
	}
	if (in->u.attr.pptr && in->u.attr.new_value) {
		J_U64("new_parent_ino", in->u.attr.new_parent_ino);
		J_U64("new_parent_gen", in->u.attr.new_parent_gen);
	}
}

void lp_json_xmi(const struct xfsj_ritem *it,
		 const struct xfsj_item_info *in)
{
	(void)it;
	J_HEX("id", in->id);
	J_U64("ino1", in->u.xmi.ino1);
	J_U64("ino2", in->u.xmi.ino2);
	J_U64("startoff1", in->u.xmi.startoff1);
	J_U64("startoff2", in->u.xmi.startoff2);
	J_U64("blockcount", in->u.xmi.blockcount);
	J_HEX("flags", in->u.xmi.flags);
}

/* The extents of an intent (or EFD): start and length, and what @what asks. */
enum { EXT_OWNER = 1, EXT_FLAGS = 2 };

static void js_extents(const struct xfsj_item_info *in, unsigned int what)
{
	struct xfsj_item_ext e;

	J_HEX("id", in->id);
	js_arr_begin("extents");
	for (uint32_t i = 0; i < in->u.ext.nextents; i++) {
		if (xfsj_item_extent(in, i, &e))
			break;
		js_obj_begin(NULL);
		J_U64("start", e.startblock);
		J_U64("len", e.len);
		if (what & EXT_OWNER) {
			J_I64("owner", (int64_t)e.owner);
			J_U64("offset", e.offset);
		}
		if (what & EXT_FLAGS)
			J_HEX("flags", e.flags);
		js_obj_end();
	}
	js_arr_end();
}

/* EFI, EFD (and RT). */
void lp_json_efi(const struct xfsj_ritem *it, const struct xfsj_item_info *in)
{
	(void)it;
	js_extents(in, 0);
}

/* CUI (and RT). */
void lp_json_cui(const struct xfsj_ritem *it, const struct xfsj_item_info *in)
{
	(void)it;
	js_extents(in, EXT_FLAGS);
}

/* RUI (and RT), BUI. */
void lp_json_map(const struct xfsj_ritem *it, const struct xfsj_item_info *in)
{
	(void)it;
	js_extents(in, EXT_OWNER | EXT_FLAGS);
}

/* Done items: the id of their intent. */
void lp_json_id(const struct xfsj_ritem *it, const struct xfsj_item_info *in)
{
	(void)it;
	J_HEX("id", in->id);
}

/* The decoded fields of one item, inside an open object. */
void js_item_fields(const struct xfsj_ritem *it,
		    const struct xfsj_item_info *in, bool hex)
{
	J_STR("type", lp_item_name(in));
	J_HEX("type_code", in->type);
	js_arr_begin("regions");
	for (uint16_t r = 0; r < it->nreg; r++)
		js_u64(NULL, it->reg[r].len);
	js_arr_end();
	if (in->err) {
		J_STR("error", xfsj_strerror(in->err));
		J_STR("error_structure", in->fault.structure);
		J_STR("error_field", in->fault.field);
		J_U64("error_offset", in->fault.offset);
		J_U64("error_region", in->fault_reg);
		J_U64("error_device_offset", in->fault_dev_off);
	}
	if (in->kind)
		lp_item_print(in->type)->json(it, in);
	if (hex)
		js_region_hex(it);
}
