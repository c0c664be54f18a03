/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "luns.h"
#include "macro.h"
#include "uevent.h"

/*
 * The reactions, in the order they are carried out. NULL matches anything. The subsystems and
 * device types are the kernel's: drivers/scsi/scsi_sysfs.c (scsi_device, scsi_target,
 * scsi_host on the "scsi" bus), the scsi_host class, the SAS, FC and iSCSI transport classes,
 * and the nodes' classes.
 */
static const struct {
	const char *action, *subsystem, *devtype;
	UeventReaction reaction;
} reaction_table[] = {
	{ "add", "scsi", "scsi_device", UEVENT_LOAD_DRIVERS },
	{ "change", NULL, NULL, UEVENT_REIDENTIFIED },
	{ "change", NULL, NULL, UEVENT_ERROR },
	{ "change", "scsi", "scsi_device", UEVENT_STATE },
	{ "add", "scsi_host", NULL, UEVENT_NEW_HOST },
	{ "add", "sas_end_device", NULL, UEVENT_NEW_TARGET_PORT },
	{ "add", "fc_remote_ports", NULL, UEVENT_NEW_TARGET_PORT },
	{ "add", "iscsi_session", NULL, UEVENT_NEW_TARGET_PORT },
	{ NULL, "scsi", "scsi_device", UEVENT_LU },
	{ "remove", "scsi", "scsi_target", UEVENT_HOST_REMOVED },
	{ "remove", "scsi", "scsi_host", UEVENT_HOST_REMOVED },
	{ NULL, "block", NULL, UEVENT_NODE },
	{ NULL, "scsi_generic", NULL, UEVENT_NODE },
	{ NULL, "bsg", NULL, UEVENT_NODE },
	{ NULL, "scsi_tape", NULL, UEVENT_NODE },
	/* drivers/md/dm.c, dm-ioctl.c: add on create, change on resume (a table loaded: the
	 * holders links of its paths are there), remove; the handler keeps dm devices only */
	{ NULL, "block", "disk", UEVENT_HOLDER },
};

static bool key_matches(const char *want, const char *have)
{
	/* Most rows differ in the first byte: no strcmp() call for them (every uevent tries
	 * every row). */
	return !want || (have && want[0] == have[0] && streq(want, have));
}

UeventReactions uevent_reactions(const Uevent *ev)
{
	UeventReactions r = 0;

	/* The kernel always sends ACTION=; an event without one is not a uevent. */
	if (!ev || !ev->action)
		return 0;
	for (size_t i = 0; i < ELEMENTSOF(reaction_table); i++)
		if (key_matches(reaction_table[i].subsystem, ev->subsystem) &&
		    key_matches(reaction_table[i].action, ev->action) &&
		    key_matches(reaction_table[i].devtype, ev->devtype))
			r |= 1u << reaction_table[i].reaction;
	return r;
}

int uevent_devpath_host(const char *devpath, unsigned *ret)
{
	for (const char *p = devpath ? strstr(devpath, "/host") : NULL; p;
	     p = strstr(p + 1, "/host")) {
		unsigned long v;
		char *end;

		if (p[5] < '0' || p[5] > '9')
			continue;
		errno = 0;
		v = strtoul(p + 5, &end, 10);
		if (errno == 0 && (*end == '/' || *end == 0) && v <= UINT32_MAX) {
			if (ret)
				*ret = (unsigned)v;
			return 0;
		}
	}
	return -ENOENT;
}

int uevent_devpath_hctl(const char *devpath, char **ret)
{
	const char *p, *best = NULL;
	size_t best_len = 0;

	for (p = devpath; p && *p;) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		/* "4294967295:4294967295:4294967295:18446744073709551615" */
		char comp[64];

		/* an H:C:T:L starts with a digit and holds a ':': only those are parsed */
		if (n > 0 && n < sizeof(comp) && *p >= '0' && *p <= '9' && memchr(p, ':', n)) {
			memcpy(comp, p, n);
			comp[n] = 0;
			if (hctl_parse(comp, NULL, NULL, NULL, NULL) >= 0) {
				best = p;
				best_len = n;
			}
		}
		p = e ? e + 1 : NULL;
	}
	if (!best)
		return -ENOENT;
	*ret = strndup(best, best_len);
	return *ret ? 0 : -ENOMEM;
}

bool uevent_lu_devpath(const char *devpath, char ret[static PATH_MAX])
{
	const char *last = NULL;
	size_t n;

	if (!devpath || !strneq(devpath, "/devices/", strlen("/devices/")))
		return false;
	n = strlen(devpath);
	if (n + strlen("sys") >= PATH_MAX)
		return false;
	for (const char *p = devpath + 1; *p;) {
		const char *e = strchrnul(p, '/');
		size_t k = (size_t)(e - p);

		if (k == 0 || (k == 1 && p[0] == '.') || (k == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		last = p;
		p = *e ? e + 1 : e;
	}
	if (!last || hctl_parse(last, NULL, NULL, NULL, NULL) < 0)
		return false;
	memcpy(stpcpy(ret, "sys"), devpath, n + 1);
	return true;
}

int uevent_modalias_scsi_type(const char *modalias)
{
	static const char prefix[] = "scsi:t-0x";
	int v = 0;

	if (!modalias || !strneq(modalias, prefix, strlen(prefix)))
		return -EINVAL;
	modalias += strlen(prefix);
	/* drivers/scsi/scsi_sysfs.c, SCSI_DEVICE_MODALIAS_FMT: two hex digits, nothing after */
	for (size_t i = 0; i < 2; i++) {
		char c = modalias[i];

		if (c >= '0' && c <= '9')
			v = v * 16 + (c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (c - 'a' + 10);
		else
			return -EINVAL;
	}
	if (modalias[2] != 0 || v > 0x1f)
		return -EINVAL;
	return v;
}

const char *uevent_devpath_dm(const char *devpath)
{
	static const char prefix[] = "/devices/virtual/block/dm-";
	const char *p;

	if (!devpath || !strneq(devpath, prefix, strlen(prefix)))
		return NULL;
	p = devpath + strlen(prefix);
	if (*p < '0' || *p > '9')
		return NULL;
	while (*p >= '0' && *p <= '9')
		p++;
	/* bounded like a node name: "dm-" and at most 10 digits */
	if (*p != '\0' || (size_t)(p - devpath) > strlen(prefix) + 10)
		return NULL;
	return devpath + strlen("/devices/virtual/block/");
}

static const char *const sdev_state_names[_UEVENT_SDEV_STATE_MAX] = {
	[UEVENT_SDEV_OFFLINE] = "offline",
	[UEVENT_SDEV_TRANSPORT_OFFLINE] = "transport-offline",
};

DEFINE_NAME_LOOKUP(uevent_sdev_state_to_string, UeventSdevState, sdev_state_names)

int uevent_sdev_state_parse(const char *s, UeventSdevState *ret)
{
	if (!s)
		return -ENODATA;
	for (UeventSdevState i = 0; i < _UEVENT_SDEV_STATE_MAX; i++)
		if (streq(s, sdev_state_names[i])) {
			if (ret)
				*ret = i;
			return 0;
		}
	return -EBADMSG;
}
