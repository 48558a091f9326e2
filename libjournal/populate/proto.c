/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mkfs.xfs's protofile as a source.  Whitespace-separated tokens, ':'
 * starting a comment to the end of its line:
 *
 *	boot-image-name			(ignored)
 *	blocks inodes			(ignored)
 *	MODE uid gid			the root directory
 *	entries of the root, then "$"
 *
 * An entry is "name MODE uid gid" then, by type: a regular file the path
 * of the file holding its bytes; a block or character device its major
 * and minor; a symlink its target; a directory its own entries and "$".
 * MODE is the type ('-' regular, 'b', 'c', 'd', 'p' FIFO, 'l' symlink),
 * 'u' or '-' (setuid), 'g' or '-' (setgid), then the permissions in octal
 * (xfs_protofile writes the setgid and sticky bits among them too: all
 * the digits are read).  Entries are added in the file's order; their
 * times are the run's (clamped like any other), without extended
 * attributes or hard links, as mkfs.xfs does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "core/grow.h"
#include "populate/pop_priv.h"

struct proto {
	char *buf, *pos;
	char file[1024];	/* the protofile, for messages */
	unsigned int line;
};

/* The next token, NUL-terminated in place; NULL at the end. */
static char *tok(struct proto *pr)
{
	char *t;

	for (;;) {
		while (*pr->pos == ' ' || *pr->pos == '\t' ||
		       *pr->pos == '\n' || *pr->pos == '\r')
			pr->line += *pr->pos++ == '\n';
		if (*pr->pos != ':')
			break;
		while (*pr->pos && *pr->pos != '\n')
			pr->pos++;
	}
	if (!*pr->pos)
		return NULL;
	t = pr->pos;
	while (*pr->pos && *pr->pos != ' ' && *pr->pos != '\t' &&
	       *pr->pos != '\n' && *pr->pos != '\r')
		pr->pos++;
	if (*pr->pos) {
		pr->line += *pr->pos == '\n';
		*pr->pos++ = 0;
	}
	return t;
}

static int bad(struct pop *p, struct proto *pr, const char *what)
{
	snprintf(p->path, sizeof(p->path), "%s:%u", pr->file, pr->line + 1);
	return xfsj_pop_fail(p, what, EINVAL, -XFSJ_E_INVAL);
}

static int number(struct pop *p, struct proto *pr, int base, uint32_t *out)
{
	char *t = tok(pr), *end;
	unsigned long v;

	if (!t)
		return bad(p, pr, "protofile ends early");
	errno = 0;
	v = strtoul(t, &end, base);
	if (errno || *end || v > UINT32_MAX)
		return bad(p, pr, "protofile number");
	*out = (uint32_t)v;
	return 0;
}

/* MODE uid gid into @st (the times are the run's). */
static int mode_owner(struct pop *p, struct proto *pr, struct stat *st)
{
	static const char types[] = "-bcdpl";
	static const mode_t fmt[] = { S_IFREG, S_IFBLK, S_IFCHR, S_IFDIR,
				      S_IFIFO, S_IFLNK };
	char *t = tok(pr), *end;
	const char *k;
	unsigned long perm;
	uint32_t uid, gid;
	int err;

	if (!t)
		return bad(p, pr, "protofile ends early");
	if (strlen(t) < 4 || !(k = strchr(types, t[0])) || !*k ||
	    (t[1] != 'u' && t[1] != '-') || (t[2] != 'g' && t[2] != '-'))
		return bad(p, pr, "protofile mode");
	errno = 0;
	perm = strtoul(t + 3, &end, 8);
	if (errno || *end || perm > 07777)
		return bad(p, pr, "protofile mode");
	memset(st, 0, sizeof(*st));
	st->st_mode = fmt[k - types] | (mode_t)perm |
		      (t[1] == 'u' ? S_ISUID : 0) | (t[2] == 'g' ? S_ISGID : 0);
	err = number(p, pr, 10, &uid);
	if (!err)
		err = number(p, pr, 10, &gid);
	if (err)
		return err;
	st->st_uid = uid;
	st->st_gid = gid;
	st->st_nlink = 1;
	st->st_atim.tv_sec = st->st_mtim.tv_sec = st->st_ctim.tv_sec =
		(time_t)p->o->now_sec;
	st->st_atim.tv_nsec = st->st_mtim.tv_nsec = st->st_ctim.tv_nsec =
		(long)p->o->now_nsec;
	return 0;
}

/* The rest of entry @name after its mode and owner; p->path set. */
static int entry_extra(struct pop *p, struct proto *pr, const char *name,
		       struct pop_ent *ent)
{
	struct stat data;
	uint32_t maj, min;
	char *t;
	int err;

	snprintf(p->path, sizeof(p->path), "%s:%u: %s", pr->file,
		 pr->line + 1, name);
	switch (ent->st.st_mode & S_IFMT) {
	case S_IFREG:
		if (!(t = tok(pr)))
			return bad(p, pr, "protofile ends early");
		snprintf(p->path, sizeof(p->path), "%s", t);
		if (stat(t, &data))
			return xfsj_pop_fail(p, "stat", errno, -XFSJ_E_IO);
		if (!S_ISREG(data.st_mode))
			return xfsj_pop_fail(p, "not a regular file", EINVAL,
					     -XFSJ_E_INVAL);
		ent->st.st_size = data.st_size;
		return 0;
	case S_IFBLK:
	case S_IFCHR:
		err = number(p, pr, 0, &maj);
		if (!err)
			err = number(p, pr, 0, &min);
		ent->st.st_rdev = makedev(maj, min);
		return err;
	case S_IFLNK:
		if (!(ent->target = tok(pr)))
			return bad(p, pr, "protofile ends early");
		return 0;
	}
	return 0;
}

static int proto_dir(struct pop *p, struct proto *pr, uint64_t dino,
		     uint64_t parent)
{
	struct xfsj_dirent *ents = NULL;
	size_t n = 0, cap = 0;
	uint32_t nsub = 0;
	int err = 0;

	for (;;) {
		struct pop_ent ent = { 0 };
		char *name = tok(pr);

		if (!name) {
			err = bad(p, pr, "protofile ends before \"$\"");
			break;
		}
		if (!strcmp(name, "$"))
			break;
		err = xfsj_grow(&ents, &cap, n, 1, sizeof(*ents), 64);
		if (!err)
			err = mode_owner(p, pr, &ent.st);
		if (!err)
			err = entry_extra(p, pr, name, &ent);
		if (!err)
			err = xfsj_pop_add(p, dino, name, &ent, &ents[n]);
		if (err)
			break;
		n++;
		if (S_ISDIR(ent.st.st_mode)) {
			nsub++;
			err = proto_dir(p, pr, ents[n - 1].ino, dino);
			if (err)
				break;
		}
	}
	if (!err)
		err = xfsj_pop_dir_done(p, dino, parent, ents, n, nsub);
	free(ents);
	return err;
}

/*
 * The entries a protofile names, for the progress: its lines that hold
 * something other than a comment or "$", less the three of the header
 * (one entry a line, as xfs_protofile writes them; an estimate else).
 */
static uint64_t count_entries(const char *s)
{
	uint64_t n = 0;

	while (*s) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		size_t i = strspn(s, " \t\r");

		if (i < len && s[i] != ':' && s[i] != '$')
			n++;
		s += len + (e != NULL);
	}
	return n > 3 ? n - 3 : 0;
}

int xfsj_pop_proto(struct pop *p)
{
	struct proto pr = { .line = 0 };
	struct pop_ent root = { 0 };
	FILE *fp;
	long len;
	int err;

	if (strlen(p->path) >= sizeof(pr.file))
		return xfsj_pop_fail(p, "path length", ENAMETOOLONG,
				     -XFSJ_E_RANGE);
	memcpy(pr.file, p->path, strlen(p->path) + 1);
	fp = fopen(pr.file, "r");
	if (!fp)
		return xfsj_pop_fail(p, "open", errno, -XFSJ_E_IO);
	if (fseek(fp, 0, SEEK_END) || (len = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET)) {
		fclose(fp);
		return xfsj_pop_fail(p, "read", errno, -XFSJ_E_IO);
	}
	pr.buf = calloc(1, (size_t)len + 1);
	if (!pr.buf) {
		fclose(fp);
		return -XFSJ_E_NOMEM;
	}
	if (fread(pr.buf, 1, (size_t)len, fp) != (size_t)len) {
		free(pr.buf);
		fclose(fp);
		return xfsj_pop_fail(p, "read", EIO, -XFSJ_E_IO);
	}
	fclose(fp);
	pr.pos = pr.buf;
	if (p->o->progress) {
		p->total = count_entries(pr.buf);
		p->o->progress(p->o->progress_arg, 0, p->total);
	}
	/* The boot image, the block and inode counts: not used. */
	err = tok(&pr) && tok(&pr) && tok(&pr) ? 0 :
	      bad(p, &pr, "protofile header");
	if (!err)
		err = mode_owner(p, &pr, &root.st);
	if (!err && !S_ISDIR(root.st.st_mode))
		err = bad(p, &pr, "protofile root is not a directory");
	if (!err)
		err = xfsj_pop_root(p, &root);
	if (!err)
		err = proto_dir(p, &pr, p->sb->rootino, p->sb->rootino);
	free(pr.buf);
	return err;
}
