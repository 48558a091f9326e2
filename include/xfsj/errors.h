/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One error table for the whole library.  libjournal never prints and never
 * exits: every call returns 0 or a negative XFSJ_E* code, and where a check
 * on on-disk bytes fails it also fills a struct xfsj_fault saying which
 * structure, which field and which byte offset, so the tool can print a
 * one-line message that points at the problem.
 */
#ifndef XFSJ_ERRORS_H
#define XFSJ_ERRORS_H

#include <stddef.h>
#include <stdint.h>

/* X(name, message) — the order is the numbering, never reorder. */
#define XFSJ_ERROR_TABLE(X)						\
	X(OK,		"success")						\
	X(NOMEM,	"out of memory")					\
	X(IO,		"I/O error")						\
	X(SHORTIO,	"short read or write (device smaller than expected)")	\
	X(INVAL,	"invalid argument")					\
	X(RANGE,	"value out of range")					\
	X(BADMAGIC,	"bad magic number")					\
	X(BADCRC,	"checksum mismatch")					\
	X(CORRUPT,	"structure fails verification")				\
	X(UNSUPP,	"unsupported feature or format")			\
	X(TOOSMALL,	"device or filesystem too small")			\
	X(BUSY,		"device is in use (mounted)")				\
	X(EXISTS,	"device holds an existing signature")			\
	X(OPEN,		"cannot open device")					\
	X(NOSPC,	"no space left in allocation group")			\
	X(CONFLICT,	"conflicting options")					\
	X(STALE,	"made for another device, or the device changed since")	\
	X(SCRATCH,	"the scratch file cannot hold the tables")

enum xfsj_err {
#define XFSJ_ERR_ENUM(name, msg) XFSJ_E_##name,
	XFSJ_ERROR_TABLE(XFSJ_ERR_ENUM)
#undef XFSJ_ERR_ENUM
	XFSJ_E__COUNT
};

/* Functions return -XFSJ_E_xxx; this maps either sign to its message. */
const char *xfsj_strerror(int err);
const char *xfsj_errname(int err);

/*
 * Which of the failures sharing an error code a fault is, where a caller
 * has to tell them apart (to word its message or choose its exit code):
 * callers test this, never the structure or field names.
 */
enum xfsj_fault_reason {
	XFSJ_FR_NONE = 0,
	XFSJ_FR_EXTLOG_NEEDED,	/* external log and no log device given
				 * (-XFSJ_E_UNSUPP) */
	XFSJ_FR_LOG_PAST_END,	/* the device ends before the end of the log
				 * (-XFSJ_E_SHORTIO; offset: where the log
				 * starts, value: the device size in bytes) */
	/* The replay's refusals (replay.h): */
	XFSJ_FR_LOG_NOT_EXTERNAL,	/* a log device given, the log is
					 * internal (-XFSJ_E_INVAL) */
	XFSJ_FR_FEATURES_UNKNOWN,	/* superblock features this version
					 * does not know (-XFSJ_E_UNSUPP) */
	XFSJ_FR_LOG_CORRUPT_MIDDLE,	/* a bad record between tail and
					 * head, too far from the head to be
					 * torn (-XFSJ_E_CORRUPT) */
	XFSJ_FR_INTENT_UNSUPP,	/* pending intents of a type this version
				 * cannot finish (-XFSJ_E_UNSUPP) */
	XFSJ_FR_WORK_UNSUPP,	/* leftover work in a form this version
				 * cannot finish (-XFSJ_E_UNSUPP; the fault
				 * names it) */
	XFSJ_FR_REDO_FINISH,	/* finishing an interrupted run from its
				 * redo file failed */
	XFSJ_FR_REDO_SAVE,	/* writing the redo file failed */
	XFSJ_FR_REDO_COMMIT,	/* copying the redo file onto the device
				 * failed (run again to finish it) */
	XFSJ_FR_UNDO_SAVE,	/* writing the undo file failed (the device
				 * untouched) */
	XFSJ_FR_UNDO_MISMATCH,	/* an interrupted run waits in its redo file
				 * and the undo file given is not its
				 * complete undo file (-XFSJ_E_CONFLICT) */
};

/*
 * Where a verifier or decoder found something wrong.  `structure` and
 * `field` are static strings; `offset` is the byte offset of the field on
 * the device (or inside the buffer when the caller did not say where the
 * buffer came from).
 */
struct xfsj_fault {
	const char *structure;
	const char *field;
	uint64_t offset;
	uint64_t value;		/* what was found, when it is a number */
	int err;
	enum xfsj_fault_reason reason;	/* XFSJ_FR_NONE unless said */
};

/* Record a fault (if @f is non-NULL) and return -err, for `return` chains. */
int xfsj_fault_set(struct xfsj_fault *f, int err, const char *structure,
		   const char *field, uint64_t offset, uint64_t value);

/* Set @f's reason (if @f is non-NULL) and return @ret. */
int xfsj_fault_reason(struct xfsj_fault *f, enum xfsj_fault_reason why,
		      int ret);

#endif
