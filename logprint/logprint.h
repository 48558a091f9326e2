/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef XFSJ_LOGPRINT_H
#define XFSJ_LOGPRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "xfsj/logread.h"

/* Exit codes (documented in xfsj-logprint.8 and --help). */
enum {
	LP_EXIT_OK = 0,
	LP_EXIT_USAGE = 1,	/* bad options, cannot open or read */
	LP_EXIT_CORRUPT = 2,	/* the log has problems (reported) */
};

enum lp_view {
	VIEW_RECORDS,
	VIEW_TRANS,
	VIEW_CHECKPOINTS,
	VIEW_INTENTS,
	VIEW_SUMMARY,
	VIEW_COPY,
	VIEW_EXPLORE,
};

#define LP_MAX_TYPES	32

struct lp_filter {
	bool ino_set, daddr_set, ag_set, lsn_set;
	uint64_t ino, daddr;
	uint32_t ag;
	uint64_t lsn_from, lsn_to;	/* inclusive */
	unsigned int ntypes;
	uint16_t types[LP_MAX_TYPES];
};

struct lp {
	/* options */
	const char *device;
	const char *logdev;
	const char *copy_file;
	enum lp_view view;
	bool raw;		/* -f */
	bool cont;		/* -c */
	bool hdr_only;		/* -n */
	bool hex;		/* -o */
	bool ops;		/* --ops */
	bool json;
	bool all;		/* --all: records view over the whole log */
	int64_t start_blk;	/* -s, or -1 */
	struct lp_filter flt;

	/* state */
	FILE *out;
	struct xfsj_io *io, *logio;
	struct xfsj_log *log;
	struct xfsj_log_ht ht;
	struct xfsj_fsgeo fsg;
	uint64_t ddev, ldev;	/* device numbers, as xfs_logprint prints */
	uint64_t nfaults;
	bool stopped;		/* a fault stopped the walk */
};

/* main.c */
void lp_fault_print(struct lp *lp, const struct xfsj_fault *f, uint32_t blk);
int lp_fault_cb(void *arg, const struct xfsj_fault *f, uint32_t blk);

/* views.c */
int lp_view_records(struct lp *lp);
int lp_view_trans(struct lp *lp);
int lp_view_checkpoints(struct lp *lp);
int lp_view_intents(struct lp *lp);
void lp_print_summary(struct lp *lp);
int lp_copy_log(struct lp *lp);
bool lp_item_selected(const struct lp *lp, const struct xfsj_ritem *it,
		      const struct xfsj_item_info *in);
void lp_print_item(struct lp *lp, const struct xfsj_ritem *it,
		   const struct xfsj_item_info *in);
void lp_print_trans_head(struct lp *lp, const struct xfsj_log_trans *t);
void lp_item_fault_print(struct lp *lp, const struct xfsj_log_trans *t,
			 const struct xfsj_item_info *in);
void lp_print_record(struct lp *lp, const struct xfsj_log_rec *r, bool live);
void lp_print_op(struct lp *lp, const struct xfsj_log_op *op);
const char *lp_item_name(const struct xfsj_item_info *in);

/* json.c */
void js_begin(const char *kind);
void js_end(void);
void js_str(const char *key, const char *val);
void js_bytes(const char *key, const uint8_t *p, size_t n);
void js_u64(const char *key, uint64_t v);
void js_i64(const char *key, int64_t v);
void js_hex(const char *key, uint64_t v);
void js_bool(const char *key, bool v);
void js_lsn(const char *key, uint64_t lsn);
void js_raw(const char *key, const char *raw);
void js_obj_begin(const char *key);
void js_obj_end(void);
void js_arr_begin(const char *key);
void js_arr_end(void);
void js_item_fields(const struct xfsj_ritem *it,
		    const struct xfsj_item_info *in, bool hex);

/*
 * items.c: how each log item type is printed, keyed by its type: the
 * lines of -t under the item's label, its JSON fields (inside the item's
 * object) and the one-line summary of an intent in --intents.
 */
struct lp_item_print {
	void (*text)(struct lp *lp, const struct xfsj_ritem *it,
		     const struct xfsj_item_info *in);
	void (*json)(const struct xfsj_ritem *it,
		     const struct xfsj_item_info *in);
	void (*what)(const struct xfsj_item_info *in, char *buf, size_t n);
};

#define LP_TYPE_BASE	XFSJ_LI_EFI	/* the lowest item type */
#define LP_NTYPES	(XFSJ_LI_CUD_RT - LP_TYPE_BASE + 1)

/* Never NULL: a type without a row prints its id. */
const struct lp_item_print *lp_item_print(uint16_t type);

#define LP_ITEM_PRINTER(name)						\
	void lp_text_##name(struct lp *lp, const struct xfsj_ritem *it,	\
			    const struct xfsj_item_info *in)
#define LP_ITEM_JSON(name)						\
	void lp_json_##name(const struct xfsj_ritem *it,		\
			    const struct xfsj_item_info *in)
/* item_text.c */
LP_ITEM_PRINTER(buf);
LP_ITEM_PRINTER(inode);
LP_ITEM_PRINTER(dquot);
LP_ITEM_PRINTER(qoff);
LP_ITEM_PRINTER(icreate);
LP_ITEM_PRINTER(attri);
LP_ITEM_PRINTER(xmi);
LP_ITEM_PRINTER(efi);
LP_ITEM_PRINTER(cui);
LP_ITEM_PRINTER(map);
LP_ITEM_PRINTER(id);
/* json.c */
LP_ITEM_JSON(buf);
LP_ITEM_JSON(inode);
LP_ITEM_JSON(dquot);
LP_ITEM_JSON(qoff);
LP_ITEM_JSON(icreate);
LP_ITEM_JSON(attri);
LP_ITEM_JSON(xmi);
LP_ITEM_JSON(efi);
LP_ITEM_JSON(cui);
LP_ITEM_JSON(map);
LP_ITEM_JSON(id);

/* explore.c */
int lp_explore(struct lp *lp);

/* out.c: buffered, hand-formatted standard output. */
#define O_CAP	(1U << 20)
extern char o_buf[O_CAP];
extern size_t o_n;
void o_flush(void);
int o_error(void);
void o_write_slow(const char *s, size_t n);
void o_u_slow(uint64_t v);
void o_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The fast paths inline: a copy into the buffer when it fits. */
static inline void o_c(char c)
{
	if (o_n == O_CAP)
		o_flush();
	o_buf[o_n++] = c;
}

static inline void o_write(const char *s, size_t n)
{
	if (n <= O_CAP - o_n) {
		memcpy(o_buf + o_n, s, n);
		o_n += n;
		return;
	}
	o_write_slow(s, n);
}

static inline void o_s(const char *s)
{
	o_write(s, strlen(s));
}

/* Decimal, two digits at a time, written in place. */
static inline void o_u(uint64_t v)
{
	static const char pairs[201] =
		"0001020304050607080910111213141516171819"
		"2021222324252627282930313233343536373839"
		"4041424344454647484950515253545556575859"
		"6061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	unsigned int nd = 1;
	char *e;

	if (O_CAP - o_n < 20) {
		o_u_slow(v);
		return;
	}
	if (v >= 10) {
		/* log10 from the bit length, then one comparison. */
		static const uint64_t p10[20] = {
			1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL,
			1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL,
			10000000000ULL, 100000000000ULL, 1000000000000ULL,
			10000000000000ULL, 100000000000000ULL,
			1000000000000000ULL, 10000000000000000ULL,
			100000000000000000ULL, 1000000000000000000ULL,
			10000000000000000000ULL,
		};
		unsigned int t = (unsigned int)(64 - __builtin_clzll(v)) *
				 1233 >> 12;

		nd = t + (v >= p10[t]);
	}
	e = o_buf + o_n + nd;
	o_n += nd;
	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		*--e = pairs[2 * r + 1];
		*--e = pairs[2 * r];
	}
	if (v >= 10) {
		*--e = pairs[2 * v + 1];
		*--e = pairs[2 * v];
	} else {
		*--e = (char)('0' + v);
	}
}

/* Lower-case hex without prefix, written in place. */
static inline void o_x(uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	unsigned int nd = v ? (unsigned int)(67 - __builtin_clzll(v)) / 4 : 1;
	char *e;

	if (O_CAP - o_n < 16)
		o_flush();
	e = o_buf + o_n + nd;
	o_n += nd;
	do {
		*--e = hex[v & 15];
		v >>= 4;
	} while (v);
}

static inline void o_d(int64_t v)
{
	if (v < 0) {
		o_c('-');
		o_u((uint64_t)0 - (uint64_t)v);
	} else {
		o_u((uint64_t)v);
	}
}

#if defined(__GNUC__) || defined(__clang__)
#define LP_PREFETCH(p)	__builtin_prefetch(p)
#else
#define LP_PREFETCH(p)	((void)(p))
#endif

/* A string literal, without strlen. */
#define O_LIT(s)	o_write(s, sizeof(s) - 1)


/* Shared text helpers. */
void lp_hexdump(const uint8_t *p, uint32_t len, const char *indent);

#endif
