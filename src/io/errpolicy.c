/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "decimal.h"
#include "errpolicy.h"
#include "macro.h"
#include "sysfs.h"

typedef enum KnobKind {
	KIND_INT,      /* decimal in [min, max] */
	KIND_RETRY,    /* "default" or decimal in [min, max] */
	KIND_FAILFAST, /* "none" or a set of failfast class names */
	KIND_COUNTER,  /* read-only */
} KnobKind;

/*
 * Ranges are what the 6.1 kernel (with the companion patchset where marked) accepts:
 * sd max_retries -1..SD_MAX_RETRIES (5); retry_limit 0..255; evt_error_burst 1..1000;
 * evt_error_interval_ms 1000..3600000 (Documentation/ABI/testing/sysfs-bus-scsi of the series).
 * timeout/eh_timeout/queue_depth take any positive value in the kernel; lund keeps the bounds
 * lund.conf(5) documents.
 */
static const struct {
	const char *name; /* also the attribute: in the scsi_device, "scsi_disk/<hctl>/" for sd */
	KnobKind kind;
	long min, max;
	bool patched, disk;
	const char *help;
} knobs[_ERRKNOB_MAX] = {
	[ERRKNOB_TIMEOUT] = { "timeout", KIND_INT, 1, 3600, false, false, "1..3600 (s)" },
	[ERRKNOB_EH_TIMEOUT] = { "eh_timeout", KIND_INT, 1, 3600, false, false, "1..3600 (s)" },
	[ERRKNOB_MAX_RETRIES] = { "max_retries", KIND_INT, -1, 5, false, true, "-1..5" },
	[ERRKNOB_QUEUE_DEPTH] = { "queue_depth", KIND_INT, 1, 65535, false, false, "1..65535" },
	[ERRKNOB_RETRY_LIMIT] = { "retry_limit", KIND_RETRY, 0, 255, true, false,
	                          "default|0..255" },
	[ERRKNOB_FAILFAST] = { "failfast", KIND_FAILFAST, 0, 0, true, false,
	                       "none|transport,device,driver" },
	[ERRKNOB_EVT_ERROR] = { "evt_error", KIND_INT, 0, 1, true, false, "0|1" },
	[ERRKNOB_EVT_ERROR_BURST] = { "evt_error_burst", KIND_INT, 1, 1000, true, false,
	                              "1..1000" },
	[ERRKNOB_EVT_ERROR_INTERVAL_MS] = { "evt_error_interval_ms", KIND_INT, 1000, 3600000, true,
	                                    false, "1000..3600000" },
	[ERRKNOB_IOREQUEST_CNT] = { "iorequest_cnt", KIND_COUNTER, 0, 0, false, false,
	                            "read-only" },
	[ERRKNOB_IOERR_CNT] = { "ioerr_cnt", KIND_COUNTER, 0, 0, false, false, "read-only" },
	[ERRKNOB_IOTMO_CNT] = { "iotmo_cnt", KIND_COUNTER, 0, 0, false, false, "read-only" },
};

/* The kernel's scsi_failfast_names[], in its order. */
static const char *const failfast_names[] = { "transport", "device", "driver" };

const char *errknob_to_string(ErrKnob k)
{
	return k >= 0 && k < _ERRKNOB_MAX ? knobs[k].name : NULL;
}

ErrKnob errknob_from_string(const char *s)
{
	if (!s)
		return _ERRKNOB_INVALID;
	for (size_t i = 0; i < ELEMENTSOF(knobs); i++)
		if (streq(s, knobs[i].name))
			return (ErrKnob)i;
	return _ERRKNOB_INVALID;
}

bool errknob_writable(ErrKnob k)
{
	return k >= 0 && k < _ERRKNOB_MAX && knobs[k].kind != KIND_COUNTER;
}

bool errknob_patched(ErrKnob k)
{
	return k >= 0 && k < _ERRKNOB_MAX && knobs[k].patched;
}

bool errknob_disk_only(ErrKnob k)
{
	return k >= 0 && k < _ERRKNOB_MAX && knobs[k].disk;
}

const char *errknob_help(ErrKnob k)
{
	return k >= 0 && k < _ERRKNOB_MAX ? knobs[k].help : NULL;
}

int errknob_range(ErrKnob k, long *ret_min, long *ret_max)
{
	if (k < 0 || k >= _ERRKNOB_MAX || knobs[k].kind == KIND_FAILFAST ||
	    knobs[k].kind == KIND_COUNTER)
		return -EINVAL;
	*ret_min = knobs[k].min;
	*ret_max = knobs[k].max;
	return 0;
}

static int put(char *ret, size_t size, const char *s)
{
	size_t n = strlen(s);

	if (n >= size)
		return -ENOBUFS;
	memcpy(ret, s, n + 1);
	return 0;
}

static int validate_failfast(const char *value, char *ret, size_t size)
{
	bool set[ELEMENTSOF(failfast_names)] = {}, none = false, any = false;
	char out[ERRKNOB_VALUE_MAX] = "";
	const char *p = value;

	while (*p) {
		size_t len = strcspn(p, ", \t");
		size_t i;

		if (len == 0) {
			p++;
			continue;
		}
		if (len == 4 && strncmp(p, "none", 4) == 0)
			none = true;
		else {
			for (i = 0; i < ELEMENTSOF(failfast_names); i++)
				if (strlen(failfast_names[i]) == len &&
				    strncmp(p, failfast_names[i], len) == 0)
					break;
			if (i == ELEMENTSOF(failfast_names))
				return -EINVAL;
			set[i] = true;
			any = true;
		}
		p += len;
	}
	/* The kernel refuses "" and "none" together with a class. */
	if (none == any)
		return -EINVAL;
	if (none)
		return put(ret, size, "none");
	for (size_t i = 0; i < ELEMENTSOF(failfast_names); i++)
		if (set[i]) {
			if (out[0])
				strcat(out, ",");
			strcat(out, failfast_names[i]);
		}
	return put(ret, size, out);
}

int errknob_validate(ErrKnob k, const char *value, char *ret, size_t size)
{
	char buf[ERRKNOB_VALUE_MAX];
	long v;
	int r;

	assert_return(ret, -EINVAL);

	if (!errknob_writable(k) || !value)
		return -EINVAL;
	/* Nothing longer than a canonical value is ever valid: reject before looking at it. */
	if (strnlen(value, 64) >= 64)
		return -EINVAL;

	switch (knobs[k].kind) {
	case KIND_FAILFAST:
		return validate_failfast(value, ret, size);
	case KIND_RETRY:
		if (streq(value, "default"))
			return put(ret, size, "default");
		_fallthrough_;
	case KIND_INT:
		r = parse_decimal(value, knobs[k].min, knobs[k].max, &v);
		if (r < 0)
			return r;
		(void)snprintf(buf, sizeof(buf), "%ld", v);
		return put(ret, size, buf);
	default:
		return -EINVAL;
	}
}

int errknob_path(const char *syspath, const char *hctl, ErrKnob k, char **ret)
{
	assert_return(syspath && hctl && ret, -EINVAL);
	assert_return(k >= 0 && k < _ERRKNOB_MAX, -EINVAL);

	if (knobs[k].disk)
		*ret = strjoin(syspath, "/scsi_disk/", hctl, "/", knobs[k].name);
	else
		*ret = strjoin(syspath, "/", knobs[k].name);
	return *ret ? 0 : -ENOMEM;
}

void errpolicy_done(ErrPolicy *p)
{
	if (!p)
		return;
	for (int k = 0; k < _ERRKNOB_MAX; k++)
		p->value[k] = mfree(p->value[k]);
}

int errpolicy_read(int rootfd, const char *syspath, const char *hctl, ErrPolicy *ret)
{
	_cleanup_(errpolicy_done) ErrPolicy p = {};
	_cleanup_free_ char *type = NULL, *tpath = NULL;
	int r;

	assert_return(syspath && hctl && ret, -EINVAL);

	/* The LU itself must exist; every scsi_device has a type attribute. */
	if (!(tpath = strjoin(syspath, "/type")))
		return -ENOMEM;
	r = sysfs_read_string(rootfd, tpath, &type);
	if (r < 0)
		return r;

	for (ErrKnob k = 0; k < _ERRKNOB_MAX; k++) {
		_cleanup_free_ char *path = NULL;

		r = errknob_path(syspath, hctl, k, &path);
		if (r < 0)
			return r;
		r = sysfs_read_string(rootfd, path, &p.value[k]);
		if (r == -ENOENT)
			continue;
		p.present[k] = true;
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			p.error[k] = r;
	}
	*ret = TAKE_STRUCT(p);
	return 0;
}

bool errpolicy_has_patchset(const ErrPolicy *p)
{
	return p && p->present[ERRKNOB_RETRY_LIMIT] && p->present[ERRKNOB_FAILFAST] &&
	       p->present[ERRKNOB_EVT_ERROR];
}

int errpolicy_write(int rootfd, const char *syspath, const char *hctl, ErrKnob k, const char *value)
{
	_cleanup_free_ char *path = NULL;
	char canon[ERRKNOB_VALUE_MAX];
	struct stat st;
	int r;

	assert_return(syspath && hctl, -EINVAL);

	r = errknob_validate(k, value, canon, sizeof(canon));
	if (r < 0)
		return r;
	r = errknob_path(syspath, hctl, k, &path);
	if (r < 0)
		return r;
	if (fstatat(rootfd, path, &st, 0) < 0)
		return errno == ENOENT ? -EOPNOTSUPP : -errno;
	return sysfs_write_attr(rootfd, path, canon);
}
