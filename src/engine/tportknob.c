/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "macro.h"
#include "pathid.h"
#include "sysfs.h"
#include "tportknob.h"

/*
 * What the 6.1 kernel accepts (drivers/scsi/scsi_transport_iscsi.c, scsi_transport_fc.c):
 * recovery_tmo "off" or any unsigned value; fast_io_fail_tmo "off" or at most
 * SCSI_DEVICE_BLOCK_MAX_TIMEOUT (600) and below dev_loss_tmo; dev_loss_tmo up to UINT_MAX, above
 * 600 only while fast_io_fail_tmo is set. lund keeps the bounds lund.conf(5) documents.
 */
static const struct {
	const char *name;
	TportKind kind;
	bool off; /* "off" accepted */
	long min, max;
	const char *help;
} knobs[_TPORT_KNOB_MAX] = {
	[TPORT_RECOVERY_TMO] = { "recovery_tmo", TPORT_ISCSI, true, 0, 3600, "off|0..3600 (s)" },
	[TPORT_FAST_IO_FAIL_TMO] = { "fast_io_fail_tmo", TPORT_FC, true, 0, 600,
	                             "off|0..600 (s), below dev_loss_tmo" },
	[TPORT_DEV_LOSS_TMO] = { "dev_loss_tmo", TPORT_FC, false, 1, 86400, "1..86400 (s)" },
};

static const char *const kinds[_TPORT_KIND_MAX] = {
	[TPORT_NONE] = "none",
	[TPORT_ISCSI] = "iscsi",
	[TPORT_FC] = "fc",
};

/* The class each transport's objects are listed in. */
static const char *const class_dirs[_TPORT_KIND_MAX] = {
	[TPORT_ISCSI] = "sys/class/iscsi_session/",
	[TPORT_FC] = "sys/class/fc_remote_ports/",
};

DEFINE_NAME_LOOKUP(tport_kind_to_string, TportKind, kinds)

const char *tport_knob_to_string(TportKnob k)
{
	return k >= 0 && k < _TPORT_KNOB_MAX ? knobs[k].name : NULL;
}

TportKnob tport_knob_from_string(const char *s)
{
	for (size_t i = 0; s && i < ELEMENTSOF(knobs); i++)
		if (streq(s, knobs[i].name))
			return (TportKnob)i;
	return _TPORT_KNOB_INVALID;
}

TportKind tport_knob_kind(TportKnob k)
{
	return k >= 0 && k < _TPORT_KNOB_MAX ? knobs[k].kind : _TPORT_KIND_INVALID;
}

const char *tport_knob_help(TportKnob k)
{
	return k >= 0 && k < _TPORT_KNOB_MAX ? knobs[k].help : NULL;
}

int tport_knob_validate(TportKnob k, const char *value, char *ret, size_t size)
{
	char buf[24];
	long v;

	assert_return(ret, -EINVAL);
	if (k < 0 || k >= _TPORT_KNOB_MAX || !value)
		return -EINVAL;
	if (knobs[k].off && (streq(value, "off") || streq(value, "-1")))
		snprintf(buf, sizeof(buf), "off");
	else if (parse_decimal(value, knobs[k].min, knobs[k].max, &v) < 0)
		return -EINVAL;
	else
		snprintf(buf, sizeof(buf), "%ld", v);
	if (strlen(buf) >= size)
		return -ENOBUFS;
	memcpy(ret, buf, strlen(buf) + 1);
	return 0;
}

void tport_done(Tport *t)
{
	if (!t)
		return;
	t->name = mfree(t->name);
	t->dir = mfree(t->dir);
	t->kind = TPORT_NONE;
}

bool tport_is_session(const char *s, size_t n)
{
	const size_t p = strlen("session");

	if (n <= p || strncmp(s, "session", p) != 0)
		return false;
	for (size_t i = p; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* "rport-" followed by "H:C-N" in digits. */
static bool is_rport(const char *s, size_t n)
{
	const size_t p = strlen("rport-");
	unsigned colons = 0, dashes = 0;

	if (n <= p || strncmp(s, "rport-", p) != 0)
		return false;
	for (size_t i = p; i < n; i++) {
		if (s[i] == ':')
			colons++;
		else if (s[i] == '-')
			dashes++;
		else if (s[i] < '0' || s[i] > '9')
			return false;
	}
	return colons == 1 && dashes == 1;
}

int tport_find(int rootfd, const char *syspath, Tport *ret)
{
	_cleanup_free_ char *dev = NULL;
	size_t end;
	int r;

	assert_return(syspath && ret, -EINVAL);

	r = pathid_resolve(rootfd, syspath, &dev);
	if (r < 0)
		return r;
	/* From the LU upwards: the nearest transport object is the LU's. */
	end = strlen(dev);
	while (end > 0) {
		size_t start = end;
		TportKind kind = TPORT_NONE;

		while (start > 0 && dev[start - 1] != '/')
			start--;
		if (tport_is_session(dev + start, end - start))
			kind = TPORT_ISCSI;
		else if (is_rport(dev + start, end - start))
			kind = TPORT_FC;
		if (kind != TPORT_NONE) {
			_cleanup_free_ char *name = strndup(dev + start, end - start);
			char *dir;

			if (!name)
				return -ENOMEM;
			dir = strjoin(class_dirs[kind], name);
			if (!dir)
				return -ENOMEM;
			*ret = (Tport){ .kind = kind, .name = TAKE_PTR(name), .dir = dir };
			return 0;
		}
		if (start == 0)
			break;
		end = start - 1;
	}
	*ret = (Tport){ .kind = TPORT_NONE };
	return 0;
}

static int knob_path(const Tport *t, TportKnob k, char **ret)
{
	if (k < 0 || k >= _TPORT_KNOB_MAX || !t->dir || knobs[k].kind != t->kind)
		return -EOPNOTSUPP;
	*ret = strjoin(t->dir, "/", knobs[k].name);
	return *ret ? 0 : -ENOMEM;
}

int tport_read(int rootfd, const Tport *t, TportKnob k, char **ret)
{
	_cleanup_free_ char *path = NULL;
	int r;

	assert_return(t && ret, -EINVAL);
	r = knob_path(t, k, &path);
	if (r < 0)
		return r;
	return sysfs_read_string(rootfd, path, ret);
}

void tport_result_done(TportResult *r)
{
	if (!r)
		return;
	for (int k = 0; k < _TPORT_KNOB_MAX; k++)
		r->old[k] = mfree(r->old[k]);
}

/* Write @k if it differs: 1 written, 0 already so, -errno. */
static int apply_one(int rootfd, const Tport *t, TportKnob k, const char *want, TportResult *res)
{
	_cleanup_free_ char *path = NULL;
	char canon[TPORT_VALUE_MAX], have[TPORT_VALUE_MAX];
	int r;

	r = tport_knob_validate(k, want, canon, sizeof(canon));
	if (r < 0)
		return r;
	r = knob_path(t, k, &path);
	if (r < 0)
		return r;
	if (!res->old[k]) {
		r = sysfs_read_string(rootfd, path, &res->old[k]);
		if (r < 0)
			return r;
	}
	if (tport_knob_validate(k, res->old[k], have, sizeof(have)) >= 0 && streq(have, canon))
		return 0;
	r = sysfs_write_attr(rootfd, path, canon);
	return r < 0 ? r : 1;
}

int tport_apply(int rootfd, const Tport *t, const char *const want[_TPORT_KNOB_MAX],
                TportResult *ret)
{
	/* dev_loss_tmo first: fast_io_fail_tmo is checked against it, not it against the other. */
	static const TportKnob order[] = { TPORT_RECOVERY_TMO, TPORT_DEV_LOSS_TMO,
		                           TPORT_FAST_IO_FAIL_TMO };
	TportResult res = {};
	int changed = 0;

	assert_return(t && want && ret, -EINVAL);

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < ELEMENTSOF(order); i++) {
			TportKnob k = order[i];
			int *error, r;

			/* always so (order[] holds knobs); said for gcc 14, which otherwise takes
			 * k for out of res.error's bounds */
			if ((size_t)k >= ELEMENTSOF(res.error))
				continue;
			error = &res.error[k];
			if (!want[k] || (pass == 1 && *error != -EINVAL))
				continue;
			if (knobs[k].kind != t->kind) {
				*error = -EOPNOTSUPP;
				continue;
			}
			r = apply_one(rootfd, t, k, want[k], &res);
			if (r == -ENOMEM) {
				tport_result_done(&res);
				return r;
			}
			*error = r < 0 ? r : 0;
			if (r > 0) {
				res.changed[k] = true;
				changed++;
			}
		}
	*ret = res;
	return changed;
}
