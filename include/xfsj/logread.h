/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the XFS v2 log (shared/reference/xfs-log.md §2-§8).
 *
 * Three layers, each usable alone:
 *   - scan: open the log (from the superblock, or a raw log copy), find
 *     head and tail exactly as the kernel's recovery does, read one record
 *     (CRC checked, cycle stamps undone);
 *   - walk: a streaming visitor over a range of records that calls back
 *     per record, per op and per committed transaction.  Only the current
 *     record and the transactions still open are held in memory, so the
 *     footprint is bounded by the largest open transaction, never by the
 *     size of the log;
 *   - items: the log item table, one row per item type naming its
 *     family's decoder (one per format), which fills a struct
 *     xfsj_item_info that points into the item's regions; the replay,
 *     the finishing of intents and xfsj-logprint all read items through
 *     it (see "log items" below).
 *
 * Nothing here prints.  Problems in the log are reported through the
 * visitor's fault callback (and a struct xfsj_fault naming the structure,
 * the field and the device byte offset); the callback decides whether the
 * walk goes on.
 */
#ifndef XFSJ_LOGREAD_H
#define XFSJ_LOGREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "xfsj/errors.h"
#include "ondisk/format.h"
#include "xfsj/io.h"
#include "ondisk/log.h"
#include "xfsj/ondisk.h"

/* A transaction as the log reader reassembles it: items of regions. */
struct xfsj_region {
	const uint8_t *p;
	uint32_t len;
};

struct xfsj_ritem {
	uint16_t type;
	uint16_t nreg;
	const struct xfsj_region *reg;
};

struct xfsj_rtrans {
	uint64_t lsn;		/* LSN of the record that held the START op */
	uint32_t tid;
	uint32_t nitems;
	const struct xfsj_ritem *items;
};

/* An intent without its done item, with a copy of its regions. */
struct xfsj_pending_intent {
	uint16_t type;
	uint64_t id;
	uint64_t lsn;
	const uint8_t *fmt;	/* region 0: the format */
	uint32_t len;
	const struct xfsj_region *regs;	/* all regions, fmt first */
	uint16_t nreg;
};


/* ---- constants of the log format ---- */
#define XFSJ_LOG_CLIENT_TRANS	0x69
#define XFSJ_LOG_CLIENT_LOG	0xaa	/* the unmount record */

#define XFSJ_OP_START		0x01
#define XFSJ_OP_COMMIT		0x02
#define XFSJ_OP_CONTINUE	0x04
#define XFSJ_OP_WAS_CONT	0x08
#define XFSJ_OP_END		0x10
#define XFSJ_OP_UNMOUNT		0x20

#define XFSJ_LOG_TRANS_MAGIC	0x5452414eU	/* "TRAN", host order */
#define XFSJ_LOG_MAX_REGIONS	257
#define XFSJ_LOG_MAX_ICLOGS	8
#define XFSJ_LOG_TOTAL_REC_BBS	4096	/* 8 iclogs of 256 KiB */
#define XFSJ_LOG_REC_BBS	512	/* one 256 KiB iclog */
#define XFSJ_LOG_CRC_HDR_BYTES	328	/* 64-bit header struct */
#define XFSJ_LOG_CRC_HDR_BYTES32 324	/* i386 header struct */

static inline uint32_t xfsj_lsn_cycle(uint64_t lsn)
{
	return (uint32_t)(lsn >> 32);
}

static inline uint32_t xfsj_lsn_block(uint64_t lsn)
{
	return (uint32_t)lsn;
}

/*
 * The cycle a log written on from the record at @lsn has at block @blk:
 * that record's, or the next one where @blk lies before it (the writes
 * went past the log's end to get there).
 */
static inline uint32_t xfsj_lsn_cycle_at(uint64_t lsn, uint32_t blk)
{
	return xfsj_lsn_cycle(lsn) + (blk < xfsj_lsn_block(lsn) ? 1 : 0);
}

struct xfsj_log;

/* Where the log is and what the decoders need to know of the filesystem. */
struct xfsj_log_geom {
	uint64_t dev_off;	/* byte offset of log block 0 on the device */
	uint64_t daddr;		/* the same in 512-byte units */
	uint32_t size_bb;	/* log size in 512-byte blocks */
	uint32_t sect_bb;	/* log sector size in 512-byte blocks */
	uint32_t logsunit;	/* bytes; 0 or 1 = none */
	bool raw;		/* a raw log copy: no superblock, no uuid check */
	bool external;		/* the log is on its own device */
	struct xfsj_sb sb;	/* decoded primary superblock (zero when raw) */
};

enum {
	XFSJ_LOGOPEN_RAW = 1 << 0,	/* @io holds only the log */
};

/*
 * Open the log of the filesystem on @io (its superblock says where the log
 * is), or, with XFSJ_LOGOPEN_RAW, treat all of @io as the log.  @logio is
 * the external log device, or NULL.  Reading never writes.
 */
int xfsj_log_open(struct xfsj_io *io, struct xfsj_io *logio, unsigned int flags,
		  struct xfsj_log **out, struct xfsj_fault *f);
void xfsj_log_close(struct xfsj_log *log);
const struct xfsj_log_geom *xfsj_log_geom(const struct xfsj_log *log);

/* ---- head and tail (reference §5) ---- */
struct xfsj_log_ht {
	uint32_t head_blk;	/* where the next record would be written */
	uint32_t tail_blk;	/* oldest record recovery needs */
	uint32_t cycle;		/* cycle of the next write at the head */
	uint64_t tail_lsn;	/* h_tail_lsn of the last record (clean: head) */
	uint32_t last_blk;	/* header block of the last record */
	uint64_t last_lsn;	/* its h_lsn */
	uint32_t last_hsize;	/* its h_size */
	bool have_last;		/* false for a zeroed log */
	bool zeroed;		/* block 0 has cycle 0: the whole log is zero */
	bool clean;		/* unmount record right before the head */
	bool torn;		/* the head was trimmed by the CRC check */
	uint32_t orig_head;	/* head before that trimming */
	bool tail_moved;	/* the tail verification skipped bad records */
	uint32_t orig_tail;
	/*
	 * A record between tail and head failed its CRC or header check too
	 * far from the head to be a torn write: the kernel refuses to mount.
	 * Head and tail are still given; the walk reports that record.
	 */
	bool verify_failed;
	uint32_t bad_blk;
	/*
	 * With XFSJ_HT_DEFER_VERIFY: the records of the live log past the
	 * reach of the head (eight log buffers) were not checked here; a
	 * walk over the live log checks each record it reads and reports
	 * a failing one through its fault callback (what verify_failed
	 * would have said).
	 */
	bool crc_deferred;
	/*
	 * With XFSJ_HT_FIND_LOST: a stretch of the log was lost (its blocks
	 * hold an older cycle) and more records follow it than a torn
	 * write can leave.  The kernel stops at lost_blk; head and tail
	 * are then where those records end and the kernel's tail, and
	 * verify_failed names the stretch (a bad record in the middle).
	 */
	bool lost;
	uint32_t lost_blk;		/* the kernel's head */
	uint32_t lost_next_blk;		/* the first record after it */
	uint64_t lost_next_lsn;		/* ... its LSN */
	uint64_t lost_prev_lsn;		/* LSN of the last record before */
	uint32_t lost_records;		/* records after it */
};

/*
 * Find head and tail the way the kernel's recovery does: cycle search,
 * out-of-order completion near the head, partial-record backup, unmount
 * check, torn-write check at the head and tail verification.  The result
 * is also kept in @log for the walkers.
 */
int xfsj_log_find_head_tail(struct xfsj_log *log, struct xfsj_log_ht *ht,
			    struct xfsj_fault *f);

enum {
	/*
	 * Check only the records whose failure could move the tail (those
	 * within eight log buffers after the head) and leave the CRC check
	 * of the rest to the walk, which has their bytes at hand anyway:
	 * one pass over the log instead of two.  Head and tail are the
	 * same; a failure past that reach (verify_failed without deferral)
	 * is reported by the walk instead.  Not for replay, which must
	 * know before it starts.
	 */
	XFSJ_HT_DEFER_VERIFY = 1 << 0,
	/*
	 * Look past the head for a lost stretch of the log (ht->lost):
	 * replay, which refuses it, or with salvage replays past it.
	 */
	XFSJ_HT_FIND_LOST = 1 << 1,
};

int xfsj_log_find_head_tail_ex(struct xfsj_log *log, struct xfsj_log_ht *ht,
			       unsigned int flags, struct xfsj_fault *f);

/* Cycle number of one log block (the header's h_cycle for a header). */
int xfsj_log_block_cycle(struct xfsj_log *log, uint32_t blk, uint32_t *cycle,
			 struct xfsj_fault *f);

/* Forward distance in blocks from @from to @to around the circular log. */
uint32_t xfsj_log_distance(const struct xfsj_log *log, uint32_t from,
			   uint32_t to);

/* ---- records ---- */
enum xfsj_crc_state {
	XFSJ_CRC_OK,		/* over 328 header bytes */
	XFSJ_CRC_OK324,		/* over 324 (i386 writer) */
	XFSJ_CRC_ZERO,		/* h_crc 0: not checksummed (mkfs) */
	XFSJ_CRC_BAD,
	XFSJ_CRC_UNCHECKED,
};

struct xfsj_log_rec {
	uint32_t blk;		/* log block of the first header sector */
	uint64_t dev_off;	/* device byte offset of that sector */
	uint32_t cycle, version, len, num_logops, prev_block, fmt, size;
	uint64_t lsn, tail_lsn;
	uint32_t crc, crc_calc;
	uint8_t uuid[16];
	uint32_t hblks;		/* header sectors */
	uint32_t data_bbs;	/* data sectors: BTOBB(len) */
	bool wraps;		/* crosses the physical end of the log */
	enum xfsj_crc_state crc_state;
	const uint8_t *hdr;	/* hblks sectors as on disk */
	const uint8_t *data;	/* len bytes, cycle stamps undone */
};

/*
 * Read and check the record whose header is at @blk into the log's record
 * buffer (valid until the next read).  With @check_crc the CRC state is
 * computed; the record is returned even if the CRC is bad.
 */
int xfsj_log_read_record(struct xfsj_log *log, uint32_t blk, bool check_crc,
			 struct xfsj_log_rec *rec, struct xfsj_fault *f);

/* Device byte offset of byte @off of a record's data (wrap-aware). */
uint64_t xfsj_log_data_offset(const struct xfsj_log *log,
			      const struct xfsj_log_rec *rec, uint32_t off);

/* ---- ops and transactions ---- */
struct xfsj_log_op {
	uint32_t index;		/* within the record */
	uint32_t tid, len;
	uint8_t clientid, flags;
	uint32_t off;		/* of the op header within the record data */
	uint64_t dev_off;	/* device byte offset of the op header */
	const uint8_t *payload;	/* len bytes */
};

struct xfsj_item_info;

struct xfsj_log_trans {
	/*
	 * What the replay engine takes: rt.lsn is the LSN of the record that
	 * held the START op (r_lsn), rt.items the items in log order, each a
	 * list of regions (pointers valid during the callback only).
	 */
	struct xfsj_rtrans rt;
	uint64_t commit_lsn;	/* LSN of the record that held the COMMIT op */
	uint32_t start_blk, commit_blk;
	uint32_t th_type, th_num_items;	/* transaction header (host order) */
	bool have_th;
	uint64_t bytes;		/* log bytes of its ops, headers included */
	uint32_t nops;
	uint32_t nrecords;	/* records it spans */
	/* Decoded items, parallel to rt.items (with XFSJ_LOGW_DECODE). */
	const struct xfsj_item_info *info;
	/*
	 * XFSJ_LOGW_SALVAGE: the transaction lost some of its ops to a
	 * damaged record; rt.items are the items that could still be
	 * reassembled whole.  commit_lsn 0: its commit was never seen.
	 */
	bool partial;
};

struct xfsj_log_walk_stats {
	uint64_t records, ops, trans, items, bytes;
	uint64_t crc_bad, faults, skipped_bbs;
	uint64_t open_trans;	/* started but not committed at the end */
	uint64_t max_open_bytes;	/* largest reassembly footprint seen */
};

enum {
	XFSJ_LOGW_DECODE	= 1 << 0,	/* decode items for trans() */
	XFSJ_LOGW_NOCRC		= 1 << 1,	/* do not checksum records */
	XFSJ_LOGW_RESYNC	= 1 << 2,	/* skip non-records quietly (whole log) */
	XFSJ_LOGW_HDRONLY	= 1 << 3,	/* records only: no op parsing */
	/*
	 * Without op() or trans(): still parse the op headers of every
	 * record whose CRC is not bad, and report what does not hold
	 * together (an op past the record, a bad client id, fewer ops than
	 * h_num_logops says): damage behind a valid CRC.
	 */
	XFSJ_LOGW_CHECKOPS	= 1 << 4,
	/*
	 * Salvage (log_salvage.c): a damaged record in the range (a bad
	 * CRC, or blocks that are not a record) is reported once through
	 * fault() and damage(), then skipped: the walk goes on at the next
	 * record xfsj_log_resync() finds.  The transactions open at the
	 * damage, and those seen after it without their START, are
	 * reassembled from their first recognizable item on and handed to
	 * trans() with `partial` set (at their commit, or at the end of the
	 * walk when their commit was not seen).
	 */
	XFSJ_LOGW_SALVAGE	= 1 << 5,
};

/* A damaged stretch of the log a salvage walk skipped. */
struct xfsj_log_damage {
	uint32_t bad_blk;	/* the first block that failed */
	uint64_t prev_lsn;	/* LSN of the last good record before, or 0 */
	bool bad_crc;		/* a record header was there, its CRC bad */
	uint64_t bad_lsn;	/* ... and its h_lsn */
	bool resumed;		/* a record was found after the damage */
	uint32_t next_blk;	/* where the walk goes on (or its end) */
	uint64_t next_lsn;	/* that record's LSN */
	uint32_t skipped_bbs;	/* blocks skipped */
	uint32_t open_trans;	/* transactions open at the damage */
	bool stale;		/* its first block holds an older cycle */
};

/*
 * Find the next record that can be trusted after a damage: from log block
 * @from, at most @left blocks on (wrapping), the first block that holds a
 * record header passing the kernel's checks, whose h_lsn names this very
 * block with the header's own cycle, newer than @after_lsn and at most
 * one cycle on, whose whole record lies within @left and whose CRC holds.
 * Returns 0 with *@next, 1 when there is none, or a negative I/O error.
 */
int xfsj_log_resync(struct xfsj_log *log, uint32_t from, uint32_t left,
		    uint64_t after_lsn, uint32_t *next, uint64_t *next_lsn,
		    struct xfsj_fault *f);

struct xfsj_log_visitor {
	void *arg;
	unsigned int flags;
	/* Each returns 0 to go on; anything else stops the walk with it. */
	int (*record)(void *arg, const struct xfsj_log_rec *r);
	int (*op)(void *arg, const struct xfsj_log_rec *r,
		  const struct xfsj_log_op *op);
	int (*trans)(void *arg, const struct xfsj_log_trans *t);
	/*
	 * A problem in the log at log block @blk.  Return 0 to go on (the
	 * walk skips what it cannot parse), non-zero to stop.  Without this
	 * callback every problem stops the walk.
	 */
	int (*fault)(void *arg, const struct xfsj_fault *f, uint32_t blk);
	struct xfsj_log_walk_stats *stats;	/* optional */
	/* XFSJ_LOGW_SALVAGE: a damaged stretch was skipped (optional). */
	int (*damage)(void *arg, const struct xfsj_log_damage *d);
};

/*
 * Visit the records from log block @from up to (not including) @to,
 * wrapping at the physical end.  @from == @to visits nothing unless
 * XFSJ_LOGW_RESYNC is set, which then visits the whole circle.  Returns 0,
 * a negative error (I/O, memory) or the non-zero value a callback returned.
 */
int xfsj_log_walk(struct xfsj_log *log, uint32_t from, uint32_t to,
		  const struct xfsj_log_visitor *v, struct xfsj_fault *f);

/* The live log: [tail, head) from xfsj_log_find_head_tail(). */
int xfsj_log_walk_live(struct xfsj_log *log, const struct xfsj_log_visitor *v,
		       struct xfsj_fault *f);

/*
 * ---- log items (items.c and one item_*.c per family) ----
 *
 * What is known of each log item type is one row of one table (items.c):
 * its name, its role (intent, done, other), its reorder class and the ops
 * of its family (item_buf.c, item_inode.c, item_intent.c, ...): the one
 * decoder of its format, the entries of its extent list, what it
 * touches.  Everything that reads items (xfsj-logprint's views and
 * filters, the replay's passes, the finishing of intents) goes through a
 * decoded struct xfsj_item_info and these ops; nothing outside the table
 * switches on the item type.  The replay side of a row (passes 1 and 2,
 * finishing) is the recover layer's table, keyed by the same type; the
 * wording of the printed views is xfsj-logprint's table.  A new item type
 * is one family file, one row here and one row in each of those tables.
 */
enum xfsj_item_role {
	XFSJ_ROLE_OTHER,
	XFSJ_ROLE_INTENT,
	XFSJ_ROLE_DONE,
};

/*
 * The kernel's recovery replays the items of one transaction in this
 * order of classes, log order within a class: buffers (and inode chunk
 * creation, which must precede the inode items of the new chunk), then
 * every other item, then inode buffers (only their unlinked pointers are
 * replayed), then buffer cancellations.  A row gives the class of its
 * type; the buffer decoder refines it from the item's flags.
 */
enum xfsj_item_order {
	XFSJ_ORDER_BUF,
	XFSJ_ORDER_ITEM,
	XFSJ_ORDER_INODE_BUF,
	XFSJ_ORDER_CANCEL,
	XFSJ_ORDER_N
};

struct xfsj_item_info;
struct xfsj_item_ext;
struct xfsj_fsgeo;

/* What one family of item types does (shared by its rows). */
struct xfsj_item_ops {
	/*
	 * The one decoder of the family's format.  Never fails hard: a
	 * problem gives info->err and the fault, and leaves decoded what
	 * could be.  Returns info->err.
	 */
	int (*decode)(const struct xfsj_ritem *it, struct xfsj_item_info *out);
	/*
	 * Decode one entry of the extent list (u.ext: stride bytes each,
	 * bounds checked by xfsj_item_extent()); NULL: the family has none.
	 */
	void (*extent)(const uint8_t *entry, struct xfsj_item_ext *e);
	/*
	 * The reorder class when it depends on the item's bytes (a
	 * well-sized region 0, at least 4 bytes); NULL: the row's order.
	 */
	uint8_t (*order)(const struct xfsj_ritem *it, uint8_t row_order);
	/* Does the item touch inode @ino?  NULL: never. */
	bool (*touches_ino)(const struct xfsj_item_info *in,
			    const struct xfsj_fsgeo *g, uint64_t ino);
	/*
	 * Does it touch disk address @daddr (@agno < 0), or AG @agno?
	 * NULL: never.
	 */
	bool (*touches)(const struct xfsj_item_info *in,
			const struct xfsj_fsgeo *g, uint64_t daddr,
			int64_t agno);
	/* Each inode the item names (NULL: none); see xfsj_item_each_ino. */
	void (*each_ino)(const struct xfsj_item_info *in,
			 void (*fn)(void *arg, uint64_t ino), void *arg);
	/* Each disk range it logs a copy of (NULL: none). */
	void (*each_daddr)(const struct xfsj_item_info *in,
			   void (*fn)(void *arg, uint64_t daddr, uint32_t bbs),
			   void *arg);
};

struct xfsj_item_type {
	uint16_t type;
	const char *name;	/* "BUF", "INODE", "EFI", ... */
	const char *lp_name;	/* xfs_logprint -t's label: "BUF", "INO", ... */
	enum xfsj_item_role role;
	uint16_t pair;		/* intent <-> done type */
	bool rt;		/* a realtime variant */
	enum xfsj_item_order order;	/* reorder class (see above) */
	const struct xfsj_item_ops *ops;
};

/* One extent/mapping of an intent or done item. */
struct xfsj_item_ext {
	uint64_t startblock;	/* fsbno (or rt block) */
	uint64_t owner;		/* RUI/BUI */
	uint64_t offset;	/* file offset (RUI/BUI) */
	uint32_t len;
	uint32_t flags;		/* me_flags / pe_flags */
};

/* The log dinode (host order in the log; decoded to native values). */
struct xfsj_log_dinode {
	uint16_t magic, mode;
	uint8_t version, format, aformat, forkoff;
	uint16_t metatype;
	uint32_t uid, gid, nlink, projid;
	int64_t atime_sec, mtime_sec, ctime_sec, crtime_sec;
	uint32_t atime_nsec, mtime_nsec, ctime_nsec, crtime_nsec;
	uint64_t size, nblocks, nextents;
	uint32_t extsize, anextents;
	uint32_t dmevmask;
	uint16_t dmstate, flags;
	uint32_t gen, next_unlinked, cowextsize;
	uint64_t changecount, lsn, flags2, ino;
	uint16_t flushiter;	/* v1/v2 inodes */
	uint8_t uuid[16];
	bool v3;		/* the 176-byte core was logged */
};

/* Buffer contents, by magic (the first data region at buffer byte 0). */
struct xfsj_buf_content {
	const char *name;	/* "superblock", "AGF", "bnobt", "dir data" ... */
	uint32_t magic;
	int level;		/* btree or da-node level, -1 if none */
};

struct xfsj_item_info {
	const struct xfsj_item_type *kind;	/* NULL: unknown type */
	uint16_t type;
	uint16_t nreg;
	int err;		/* 0, or the decode error (fault below) */
	struct xfsj_fault fault;	/* offset: byte of region fault_reg */
	uint16_t fault_reg;
	/*
	 * Where that byte is: its device byte offset and the log block of
	 * the record holding it.  Filled by the walk (XFSJ_LOGW_DECODE);
	 * 0 when the item was decoded by a direct call.
	 */
	uint64_t fault_dev_off;
	uint32_t fault_blk;
	uint64_t id;		/* intent id, or the intent a done item ends */
	bool have_id;		/* id read (intents and done items) */
	/* Region 0, the format, decoded; err, if set, is about the rest. */
	bool fmt_ok;
	uint8_t order;		/* enum xfsj_item_order */
	/*
	 * Decoded by xfsj_item_decode_brief(): what only printing and
	 * filtering use is left out (see there).
	 */
	bool brief;
	union {
		struct {
			uint64_t blkno;		/* daddr */
			uint16_t len;		/* BBs */
			uint16_t flags;
			uint32_t map_size;
			const uint8_t *map;	/* the dirty map (map_size words) */
			uint8_t blft;		/* buffer type (flags >> 11) */
			uint32_t nbits;		/* set bits in the dirty map */
			uint32_t data_bytes;	/* bytes in data regions */
			bool map_mismatch;	/* regions != 128 * bits */
			struct xfsj_buf_content content;
		} buf;
		struct {
			uint64_t ino, blkno;
			uint32_t fields, len, boffset, rdev;
			uint16_t dsize, asize;
			bool packed32;		/* the 52-byte variant */
			bool have_core;
			struct xfsj_log_dinode core;
			int dfork_reg, afork_reg;	/* region index or -1 */
		} ino;
		struct {
			uint32_t id;
			uint64_t blkno;
			uint32_t len, boffset;
			bool have_dq;
			uint16_t dq_magic;
			uint8_t dq_version, dq_type;
			uint64_t bcount, icount, rtbcount;
			uint64_t blk_hard, blk_soft, ino_hard, ino_soft;
		} dq;
		struct {
			uint32_t flags;
		} qoff;
		struct {
			uint32_t ag, agbno, count, isize, length, gen;
		} icr;
		struct {
			uint32_t nextents;	/* entries the region holds */
			uint32_t logged;	/* the count the format states */
			uint32_t stride;	/* bytes per entry */
			const uint8_t *ext;	/* first entry */
		} ext;
		struct {
			uint32_t op;		/* low byte of op_flags */
			uint32_t op_flags;
			uint64_t ino;
			uint32_t igen;
			uint32_t name_len, new_name_len, value_len;
			uint32_t filter;
			const uint8_t *name, *new_name, *value, *new_value;
			bool pptr;		/* parent pointer op */
			uint64_t parent_ino, new_parent_ino;
			uint32_t parent_gen, new_parent_gen;
		} attr;
		struct {
			uint64_t ino1, ino2;
			uint32_t igen1, igen2;
			uint64_t startoff1, startoff2, blockcount, flags;
			uint64_t isize1, isize2;
		} xmi;
	} u;
};

const struct xfsj_item_type *xfsj_item_type_lookup(uint16_t type);
/* By name (case-insensitive "BUF", "INODE", "INO", "EFI_RT", ...). */
const struct xfsj_item_type *xfsj_item_type_by_name(const char *name);
/* Every known type, for listings: the table and its length. */
const struct xfsj_item_type *xfsj_item_types(unsigned int *n);

/*
 * Decode one item.  Never fails hard: an unknown type or a bad length
 * gives info->err and info->fault and leaves the rest as far as decoded.
 * Returns info->err.
 */
int xfsj_item_decode(const struct xfsj_ritem *it, struct xfsj_item_info *info);
/*
 * The same checks and faults, for the replay: what is used only to print
 * or filter items is not filled (BUF: u.buf.content, nbits, data_bytes,
 * map_mismatch; INODE: of u.ino.core, only magic and v3).
 */
int xfsj_item_decode_brief(const struct xfsj_ritem *it,
			   struct xfsj_item_info *info);
/* The reorder class the decode would give the item (info->order). */
uint8_t xfsj_item_order(const struct xfsj_ritem *it);

/* Entry @i of an EFI/EFD/RUI/CUI/BUI (and RT) item. */
int xfsj_item_extent(const struct xfsj_item_info *info, uint32_t i,
		     struct xfsj_item_ext *e);

/* What a buffer holds, from its first bytes. */
void xfsj_buf_identify(const uint8_t *p, uint32_t len, uint64_t blkno,
		       struct xfsj_buf_content *c);

/*
 * The data of a decoded buffer item, placed by its dirty map: each run of
 * set bits (128-byte chunks) is covered by the next data region, as much
 * of it as the region holds, clipped to @buflen bytes.  Calls @fn with
 * the buffer offset, the bytes and their length, run by run.  A map that
 * names more regions than the item has, an empty region or a bit past
 * @buflen is corruption (@f names it; nothing more is called).
 */
typedef void (*xfsj_buf_run_fn)(void *arg, uint32_t off, const uint8_t *data,
				uint32_t len);
int xfsj_buf_item_runs(const struct xfsj_ritem *it,
		       const struct xfsj_item_info *in, uint32_t buflen,
		       xfsj_buf_run_fn fn, void *arg, struct xfsj_fault *f);


/* ---- what an item touches (filters, "follow" in the explorer) ---- */
struct xfsj_fsgeo {
	uint32_t blocksize;
	uint8_t blocklog, agblklog, inopblog;
	uint32_t agblocks, agcount;
	uint32_t inodesize;
	bool known;		/* false for a raw log copy */
};

void xfsj_fsgeo_from_sb(const struct xfsj_sb *sb, struct xfsj_fsgeo *g);
/* fsbno (AG-sparse) to daddr, and AG of an fsbno, inode or daddr. */
uint64_t xfsj_fsb_to_daddr(const struct xfsj_fsgeo *g, uint64_t fsbno);
uint32_t xfsj_fsb_to_agno(const struct xfsj_fsgeo *g, uint64_t fsbno);
uint32_t xfsj_ino_to_agno(const struct xfsj_fsgeo *g, uint64_t ino);
uint32_t xfsj_daddr_to_agno(const struct xfsj_fsgeo *g, uint64_t daddr);

bool xfsj_item_touches_ino(const struct xfsj_ritem *it,
			   const struct xfsj_item_info *info,
			   const struct xfsj_fsgeo *g, uint64_t ino);
bool xfsj_item_touches_daddr(const struct xfsj_item_info *info,
			     const struct xfsj_fsgeo *g, uint64_t daddr);
bool xfsj_item_touches_ag(const struct xfsj_item_info *info,
			  const struct xfsj_fsgeo *g, uint32_t agno);

/*
 * Enumerate what an item names, for reports of what a transaction
 * touched: each inode (inode items, xattr and exchange intents, the file
 * owners of mapping intents), each disk range it logs (buffers: their
 * daddr and length; inodes: their cluster buffer).
 */
void xfsj_item_each_ino(const struct xfsj_item_info *info,
			void (*fn)(void *arg, uint64_t ino), void *arg);
void xfsj_item_each_daddr(const struct xfsj_item_info *info,
			  void (*fn)(void *arg, uint64_t daddr, uint32_t bbs),
			  void *arg);

/* Names of op flags ("START|COMMIT"), for printing; @buf >= 64 bytes. */
const char *xfsj_log_op_flags_str(uint8_t flags, char *buf, size_t len);
/* Name of a buffer type (blf_flags >> 11), "unknown" if none. */
const char *xfsj_blft_name(unsigned int blft);

#endif
