/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "xfsj/errors.h"

static const char *const err_msgs[] = {
#define XFSJ_ERR_MSG(name, msg) [XFSJ_E_##name] = msg,
	XFSJ_ERROR_TABLE(XFSJ_ERR_MSG)
#undef XFSJ_ERR_MSG
};

static const char *const err_names[] = {
#define XFSJ_ERR_NAME(name, msg) [XFSJ_E_##name] = #name,
	XFSJ_ERROR_TABLE(XFSJ_ERR_NAME)
#undef XFSJ_ERR_NAME
};

static int err_index(int err)
{
	/* Compare before negating: -INT_MIN does not exist. */
	if (err < 0 && err > -XFSJ_E__COUNT)
		return -err;
	if (err >= 0 && err < XFSJ_E__COUNT)
		return err;
	return -1;
}

const char *xfsj_strerror(int err)
{
	int i = err_index(err);

	return i < 0 ? "unknown error" : err_msgs[i];
}

const char *xfsj_errname(int err)
{
	int i = err_index(err);

	return i < 0 ? "UNKNOWN" : err_names[i];
}

int xfsj_fault_set(struct xfsj_fault *f, int err, const char *structure,
		   const char *field, uint64_t offset, uint64_t value)
{
	if (err < 0)
		err = err > -XFSJ_E__COUNT ? -err : XFSJ_E_INVAL;
	if (f) {
		f->structure = structure;
		f->field = field;
		f->offset = offset;
		f->value = value;
		f->err = err;
		f->reason = XFSJ_FR_NONE;
	}
	return -err;
}

int xfsj_fault_reason(struct xfsj_fault *f, enum xfsj_fault_reason why,
		      int ret)
{
	if (f)
		f->reason = why;
	return ret;
}
