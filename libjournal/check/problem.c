/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The problem table: every phase's rows, looked up by index or code, and
 * a problem's message expanded from its row's template.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check/check_priv.h"

/*
 * Phase 0a: the log itself, reported by the caller of the replay when it
 * cannot replay it (xfsj-repair -n goes on with the superblocks).
 */
static const struct xfsj_problem_def log_rows[] = {
	{ "log.unreplayable", 0x0a0001, XFSJ_SEV_CORRUPT, "log",
	  "the log cannot be replayed: {field} is wrong (at byte {off})",
	  XFSJ_FIX_NONE,
		XFSJ_H_NONE, 0 },
};
static const struct xck_table log_table = { log_rows, 1 };

static const struct xck_table *const tables[] = {
	&log_table, &xck_sb_table, &xck_agh_table, &xck_agbt_table, &xck_inode_table,
	&xck_fork_table, &xck_dir_table, &xck_attr_table, &xck_space_table,
	&xck_names_table, &xck_counters_table,
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

size_t xfsj_problem_count(void)
{
	size_t i, n = 0;

	for (i = 0; i < NTABLES; i++)
		n += tables[i]->n;
	return n;
}

const struct xfsj_problem_def *xfsj_problem_nth(size_t i)
{
	size_t t;

	for (t = 0; t < NTABLES; t++) {
		if (i < tables[t]->n)
			return &tables[t]->rows[i];
		i -= tables[t]->n;
	}
	return NULL;
}

const struct xfsj_problem_def *xfsj_problem_by_code(const char *code)
{
	size_t t, i;

	for (t = 0; t < NTABLES; t++)
		for (i = 0; i < tables[t]->n; i++)
			if (!strcmp(tables[t]->rows[i].code, code))
				return &tables[t]->rows[i];
	return NULL;
}

const char *xfsj_sev_name(enum xfsj_sev s)
{
	static const char *const names[] = {
		[XFSJ_SEV_CORRUPT] = "corrupt",
		[XFSJ_SEV_XCORRUPT] = "xcorrupt",
		[XFSJ_SEV_WARN] = "warning",
		[XFSJ_SEV_INFO] = "info",
	};

	return (unsigned)s <= XFSJ_SEV_INFO ? names[s] : "?";
}

const char *xfsj_fix_name(enum xfsj_fix f)
{
	static const char *const names[XFSJ_FIX__COUNT] = {
		[XFSJ_FIX_NONE] = "none",
		[XFSJ_FIX_FIELD] = "fix_field",
		[XFSJ_FIX_SB_FROM_SECONDARY] = "sb_from_secondary",
		[XFSJ_FIX_AG_HEADER] = "rebuild_ag_header",
		[XFSJ_FIX_REBUILD_BTREE] = "rebuild_btree",
		[XFSJ_FIX_REBUILD_BMBT] = "rebuild_fork_map",
		[XFSJ_FIX_CLEAR_INODE] = "clear_inode",
		[XFSJ_FIX_CLEAR_FORK] = "clear_fork_mappings",
		[XFSJ_FIX_SALVAGE_DIR] = "salvage_dir",
		[XFSJ_FIX_CLEAR_ENTRY] = "clear_entry",
		[XFSJ_FIX_SALVAGE_ATTR] = "salvage_attr",
		[XFSJ_FIX_NLINK] = "fix_nlink",
		[XFSJ_FIX_RECONNECT] = "reconnect",
		[XFSJ_FIX_PPTR] = "fix_parent_pointer",
		[XFSJ_FIX_FREE_SPACE] = "free_leaked",
		[XFSJ_FIX_COUNTERS] = "fix_counters",
		[XFSJ_FIX_UNLINKED] = "clear_unlinked",
	};

	return (unsigned)f < XFSJ_FIX__COUNT && names[f] ? names[f] : "?";
}

const char *xfsj_handler_name(enum xfsj_handler h)
{
	static const char *const names[XFSJ_H__COUNT] = {
		[XFSJ_H_NONE] = "none",
		[XFSJ_H_SB_SECONDARY] = "sb_from_secondary",
		[XFSJ_H_SB_COPIES] = "sb_copies_from_primary",
		[XFSJ_H_SB_QUOTINO] = "sb_clear_quota_inode",
		[XFSJ_H_SB_NEEDSREPAIR] = "sb_clear_needsrepair",
		[XFSJ_H_AG_HEADERS] = "ag_headers_rebuild",
		[XFSJ_H_AGF_COUNTER] = "agf_counter_set",
		[XFSJ_H_AGI_COUNTER] = "agi_counter_set",
		[XFSJ_H_AG_BTREES] = "ag_btrees_rebuild",
		[XFSJ_H_FREE_LEAKED] = "ag_free_leaked",
		[XFSJ_H_CLEAR_INODE] = "inode_clear",
		[XFSJ_H_INODE_HEADER] = "inode_header_mend_or_clear",
		[XFSJ_H_INODE_FORMAT] = "inode_size_for_format_or_clear",
		[XFSJ_H_INODE_META] = "inode_meta_clear_unless_named",
		[XFSJ_H_SYMLINK_CRC] = "symlink_crc_mend_or_clear",
		[XFSJ_H_INODE_INO] = "inode_ino_set",
		[XFSJ_H_INODE_UUID] = "inode_uuid_set",
		[XFSJ_H_FORK_NEXTENTS] = "inode_nextents_from_walk",
		[XFSJ_H_INODE_BIG_NEXTENTS] = "inode_big_nextents_fix",
		[XFSJ_H_INODE_NBLOCKS] = "inode_nblocks_set",
		[XFSJ_H_INODE_FLAGS] = "inode_flags_clear_bits",
		[XFSJ_H_INODE_FLAGS2] = "inode_flags2_clear_bits",
		[XFSJ_H_INODE_SIZE] = "inode_size_set",
		[XFSJ_H_INODE_EXTSIZE] = "inode_extsize_clear",
		[XFSJ_H_INODE_COWEXTSIZE] = "inode_cowextsize_clear",
		[XFSJ_H_INODE_ONLINK] = "inode_onlink_clear",
		[XFSJ_H_INODE_NSEC] = "inode_nsec_set",
		[XFSJ_H_INODE_TIME] = "inode_time_set",
		[XFSJ_H_INODE_REFLINK] = "inode_reflink_flag_set",
		[XFSJ_H_NLINK] = "inode_nlink_set",
		[XFSJ_H_NLINK_ZERO] = "inode_nlink_from_entries",
		[XFSJ_H_FORK_MAP] = "fork_map_rebuild",
		[XFSJ_H_FORK_TRIM] = "fork_map_trim",
		[XFSJ_H_ATTR_FORK_CLEAR] = "attr_fork_clear",
		[XFSJ_H_CROSSLINK] = "crosslink_trim_or_clone",
		[XFSJ_H_SALVAGE_DIR] = "dir_salvage",
		[XFSJ_H_DIR_HEADER] = "dir_block_header_set",
		[XFSJ_H_DIR_UUID] = "dir_block_uuid_set",
		[XFSJ_H_DIR_CRC] = "dir_block_crc_set",
		[XFSJ_H_DIR_SIZE] = "dir_size_set",
		[XFSJ_H_DIR_INDEX] = "dir_index_rebuild",
		[XFSJ_H_DIRENT_FTYPE] = "dirent_ftype_from_mode",
		[XFSJ_H_CLEAR_ENTRY] = "dirent_clear",
		[XFSJ_H_DIR_PARENTS] = "dir_extra_parents_clear",
		[XFSJ_H_DOTDOT] = "dir_dotdot_set",
		[XFSJ_H_DIR_ROOT] = "dir_root_make",
		[XFSJ_H_RECONNECT] = "reconnect_lost_found",
		[XFSJ_H_SALVAGE_ATTR] = "attr_salvage",
		[XFSJ_H_ATTR_FIELD] = "attr_header_by_salvage",
		[XFSJ_H_PPTR_ADD] = "pptr_add",
		[XFSJ_H_PPTR_REMOVE] = "pptr_remove",
		[XFSJ_H_PPTR_GEN] = "pptr_gen_set",
		[XFSJ_H_PPTR_BAD_PARENT] = "pptr_bad_parent_remove",
		[XFSJ_H_UNLINKED_NEXT] = "unlinked_next_clear",
		[XFSJ_H_UNLINKED_TAKE_OFF] = "unlinked_take_off",
		[XFSJ_H_UNLINKED_CUT] = "unlinked_list_cut",
		[XFSJ_H_UNLINKED_FREE] = "unlinked_free",
		[XFSJ_H_COUNTERS] = "sb_counters_set",
	};

	return (unsigned)h < XFSJ_H__COUNT && names[h] ? names[h] : "?";
}

const char *xfsj_check_phase_name(enum xfsj_check_phase p)
{
	static const char *const names[XFSJ_CK__PHASES] = {
		[XFSJ_CK_SB] = "superblocks",
		[XFSJ_CK_AG] = "AG headers and btrees",
		[XFSJ_CK_INODES] = "inodes",
		[XFSJ_CK_SPACE] = "space",
		[XFSJ_CK_NAMES] = "names",
		[XFSJ_CK_COUNTERS] = "counters",
	};

	return (unsigned)p < XFSJ_CK__PHASES ? names[p] : "?";
}

/* Output into a bounded buffer that still counts what did not fit. */
struct out {
	char *buf;
	size_t len, used;
};

static void put(struct out *o, const char *s, size_t n)
{
	size_t room = o->used < o->len ? o->len - o->used : 0;

	/* (no room: @buf may be NULL, as with snprintf(NULL, 0)) */
	if (room)
		memcpy(o->buf + o->used, s, n < room ? n : room);
	o->used += n;
}

static void put_u64(struct out *o, bool have, uint64_t v, bool hex)
{
	char tmp[32];
	int n;

	if (!have) {
		put(o, "?", 1);
		return;
	}
	n = snprintf(tmp, sizeof(tmp), hex ? "0x%" PRIx64 : "%" PRIu64, v);
	put(o, tmp, (size_t)n);
}

static void put_name(struct out *o, const char *name, size_t len)
{
	size_t i;
	char tmp[8];

	if (!name) {
		put(o, "?", 1);
		return;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			put(o, (const char *)&c, 1);
		} else {
			snprintf(tmp, sizeof(tmp), "\\x%02x", c);
			put(o, tmp, 4);
		}
	}
}

size_t xfsj_problem_format(const struct xfsj_problem *p, char *buf,
			   size_t len)
{
	struct out o = { .buf = buf, .len = len ? len - 1 : 0 };
	const char *t = p->def->msg, *e;

	while (*t) {
		if (*t != '{' || !(e = strchr(t, '}'))) {
			put(&o, t, 1);
			t++;
			continue;
		}
#define KEY(k) ((size_t)(e - t - 1) == sizeof(k) - 1 && \
		!memcmp(t + 1, k, sizeof(k) - 1))
		if (KEY("ag"))
			put_u64(&o, p->has & XFSJ_PF_AG, p->agno, false);
		else if (KEY("agbno"))
			put_u64(&o, p->has & XFSJ_PF_AGBNO, p->agbno, false);
		else if (KEY("ino"))
			put_u64(&o, p->has & XFSJ_PF_INO, p->ino, false);
		else if (KEY("fsbno"))
			put_u64(&o, p->has & XFSJ_PF_FSBNO, p->fsbno, false);
		else if (KEY("off"))
			put_u64(&o, p->has & XFSJ_PF_OFF, p->off, false);
		else if (KEY("expected"))
			put_u64(&o, p->has & XFSJ_PF_EXPECTED, p->expected,
				false);
		else if (KEY("found"))
			put_u64(&o, p->has & XFSJ_PF_FOUND, p->found, false);
		else if (KEY("xexpected"))
			put_u64(&o, p->has & XFSJ_PF_EXPECTED, p->expected,
				true);
		else if (KEY("xfound"))
			put_u64(&o, p->has & XFSJ_PF_FOUND, p->found, true);
		else if (KEY("count"))
			put_u64(&o, p->has & XFSJ_PF_COUNT, p->count, false);
		else if (KEY("field"))
			put(&o, p->field ? p->field : "?",
			    p->field ? strlen(p->field) : 1);
		else if (KEY("name"))
			put_name(&o, p->name, p->namelen);
		else
			put(&o, t, (size_t)(e - t + 1));
#undef KEY
		t = e + 1;
	}
	if (len)
		buf[o.used < o.len ? o.used : o.len] = '\0';
	return o.used;
}
