/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * SCAN_IDS: does the device still say what the kernel cached when it added the LU? The standard
 * INQUIRY strings against sysfs vendor/model/rev, VPD page 0x83 (or 0x80) against the kernel's
 * binary copy; on a difference the LU is rescanned and a "change" uevent sent (scan.h).
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "scan-private.h"
#include "sysfs.h"

/* Append @n bytes of a device string to @buf, quoted, non-printable bytes as \xNN. */
static void put_quoted(char *buf, size_t size, const char *str, size_t n)
{
	size_t k = strlen(buf);

	if (k + 1 < size)
		buf[k++] = '"';
	for (size_t i = 0; i < n && k + 5 < size; i++) {
		unsigned char c = (unsigned char)str[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			buf[k++] = (char)c;
		else
			k += (size_t)snprintf(buf + k, size - k, "\\x%02x", c);
	}
	if (k + 1 < size)
		buf[k++] = '"';
	buf[MIN(k, size - 1)] = 0;
}

/*
 * The INQUIRY strings of standard data @std (36 bytes) as the kernel keeps them: from a NUL on,
 * and every byte outside printable ASCII, a blank (scsi_probe_lun()'s sanitising). Comparing
 * the raw bytes would take a device padding with NULs for one whose identity changed.
 */
static void sanitize_strings(const uint8_t *std, char ret[36])
{
	static const struct {
		size_t off, len;
	} fields[] = { { 8, 8 }, { 16, 16 }, { 32, 4 } };

	memcpy(ret, std, 36);
	for (size_t f = 0; f < ELEMENTSOF(fields); f++) {
		bool ended = false;

		for (size_t i = fields[f].off; i < fields[f].off + fields[f].len; i++) {
			unsigned char c = (unsigned char)ret[i];

			ended |= c == 0;
			if (ended || c < 0x20 || c > 0x7e)
				ret[i] = ' ';
		}
	}
}

/* The kernel's cached VPD page @page of @lu (the sysfs binary attribute), or -ENOENT. */
static int cached_vpd(Scan *s, const ScanLu *lu, unsigned page, uint8_t **ret, size_t *ret_len)
{
	char path[PATH_MAX];

	scan_pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/vpd_pg%02x", lu->hctl, page);
	/* SPC: a VPD page is at most 4 + 65535 bytes. */
	return sysfs_read_attr(s->rootfd, path, 4u + UINT16_MAX, ret, ret_len);
}

static const struct {
	const char *attr; /* sysfs attribute of the kernel's copy */
	const char *name; /* in the reason */
	size_t off, len;  /* SPC 6.7.2: where the field is in standard INQUIRY data */
} inquiry_fields[] = {
	{ "vendor", "vendor", 8, 8 },
	{ "model", "model", 16, 16 },
	{ "rev", "revision", 32, 4 },
};

/* Does sysfs show another string than the sanitised INQUIRY strings @std show for field @i?
 * *ret_have gets the kernel's copy. An unreadable attribute compares equal. */
static bool field_differs(Scan *s, const ScanLu *lu, size_t i, const char std[36], char **ret_have)
{
	_cleanup_free_ char *have = NULL;
	const char *want = std + inquiry_fields[i].off;
	size_t wl = scan_field_len(want, inquiry_fields[i].len), hl;
	char path[PATH_MAX];

	scan_pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/%s", lu->hctl,
	             inquiry_fields[i].attr);
	if (sysfs_read_string(s->rootfd, path, &have) < 0)
		return false;
	hl = scan_field_len(have, strnlen(have, inquiry_fields[i].len));
	if (hl == wl && memcmp(have, want, wl) == 0)
		return false;
	if (ret_have)
		*ret_have = TAKE_PTR(have);
	return true;
}

static bool strings_differ(Scan *s, const ScanLu *lu, const char std[36], size_t std_len)
{
	for (size_t i = 0; i < ELEMENTSOF(inquiry_fields) && std_len >= 36; i++)
		if (field_differs(s, lu, i, std, NULL))
			return true;
	return false;
}

/*
 * scan_ids_check() - compare what the device says it is with what the kernel cached when it added
 * the LU: the standard INQUIRY strings with sysfs vendor/model/rev, and VPD page 0x83 (0x80 when
 * the kernel has no 0x83) with the sysfs copy, byte for byte. Two commands per LU; nothing when
 * the kernel cached no page and the strings are equal. On a difference: "1" > rescan (the kernel
 * re-reads its VPD pages, scsi_rescan_device()), then a "change" uevent so that the names follow.
 * Returns true when it planned or applied a rescan.
 */
bool scan_ids_check(Scan *s, ScanTarget *t, ScanLu *lu)
{
	_cleanup_free_ uint8_t *std = NULL, *cached = NULL, *fresh = NULL;
	size_t std_len = 0, cached_len = 0, fresh_len = 0;
	char diff[sizeof(((ScanAction *)NULL)->reason)] = "", strs[36] = "";
	unsigned page = 0x83, cmds = 0;
	bool vpd_changed = false, strings_changed = false;
	ScanAction a;
	int r;

	if (!s->io->inquiry)
		return false;
	scan_lu_details(s->rootfd, lu);

	/* SPC 6.7.2: the strings end at byte 35; ask for exactly the 36 bytes every device has. */
	r = s->io->inquiry(s->ctx->io_userdata, s->rootfd, lu, -1, 36, s->pol.timeout_ms, &std,
	                   &std_len, &cmds);
	t->commands += cmds;
	if (r < 0) {
		scan_record_failure(s, SCAN_ACTION_REIDENTIFY, lu, r, "INQUIRY failed");
		return false;
	}
	if (std_len >= 36)
		sanitize_strings(std, strs);
	for (size_t i = 0; i < ELEMENTSOF(inquiry_fields) && std_len >= 36; i++) {
		_cleanup_free_ char *have = NULL;
		const char *want = strs + inquiry_fields[i].off;
		size_t wl = scan_field_len(want, inquiry_fields[i].len), hl;

		if (!field_differs(s, lu, i, strs, &have))
			continue;
		hl = scan_field_len(have, strnlen(have, inquiry_fields[i].len));
		strings_changed = true;
		snprintf(diff + strlen(diff), sizeof(diff) - strlen(diff), "%s%s ",
		         diff[0] ? ", " : "", inquiry_fields[i].name);
		put_quoted(diff, sizeof(diff), have, hl);
		snprintf(diff + strlen(diff), sizeof(diff) - strlen(diff), " -> ");
		put_quoted(diff, sizeof(diff), want, wl);
	}

	r = cached_vpd(s, lu, page, &cached, &cached_len);
	if (r == -ENOENT) {
		page = 0x80;
		r = cached_vpd(s, lu, page, &cached, &cached_len);
	}
	if (r >= 0 && cached_len >= 4) {
		/* Ask for as many bytes as the kernel holds: a longer page shows in its header,
		 * a shorter one in the length received. */
		cmds = 0;
		r = s->io->inquiry(s->ctx->io_userdata, s->rootfd, lu, (int)page,
		                   MIN(cached_len, (size_t)UINT16_MAX), s->pol.timeout_ms, &fresh,
		                   &fresh_len, &cmds);
		t->commands += cmds;
		if (r >= 0 && (fresh_len < 4 || fresh[1] != page))
			r = -EBADMSG; /* SPC 7.8.1: byte 1 is the PAGE CODE */
		if (r < 0) {
			scan_record_failure(s, SCAN_ACTION_REIDENTIFY, lu, r,
			                    "INQUIRY VPD page 0x%02x failed", page);
			return false;
		}
		if (fresh_len != cached_len || memcmp(fresh, cached, cached_len) != 0) {
			vpd_changed = true;
			snprintf(diff + strlen(diff), sizeof(diff) - strlen(diff),
			         "%sVPD page 0x%02x", diff[0] ? ", " : "", page);
		}
	}
	if (!vpd_changed && !strings_changed)
		return false;

	scan_action_init(&a, SCAN_ACTION_REIDENTIFY, lu);
	snprintf(a.path, sizeof(a.path), "sys/bus/scsi/devices/%s/rescan", lu->hctl);
	snprintf(a.value, sizeof(a.value), "1");
	snprintf(a.reason, sizeof(a.reason), "ids changed: %s", diff);
	if (!(s->flags & SCAN_DRY_RUN)) {
		a.error = s->io->write_attr(s->ctx->io_userdata, s->rootfd, a.path, a.value);
		a.applied = a.error >= 0;
	}
	if (a.applied) {
		_cleanup_free_ uint8_t *now = NULL;
		size_t now_len = 0;
		char path[PATH_MAX];
		int k;

		/* Tell whoever names devices: lund re-derives the LU's IDs on this one (the
		 * kernel sends no event of its own for a rescan), udev re-runs its rules on the
		 * block device. SYNTH_UUID is required before arguments; any valid one does. */
		scan_pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/uevent", lu->hctl);
		k = s->io->write_attr(s->ctx->io_userdata, s->rootfd, path,
		                      "change 00000000-0000-0000-0000-000000000000 LUND=ids");
		if (k < 0)
			scan_debug(s, "%s: synthetic change uevent: %s", lu->hctl, strerror(-k));
		if (lu->block) {
			scan_pathfmt(path, sizeof(path), "sys/bus/scsi/devices/%s/block/%s/uevent",
			             lu->hctl, lu->block);
			k = s->io->write_attr(s->ctx->io_userdata, s->rootfd, path, "change");
			if (k < 0)
				scan_debug(s, "%s: change uevent of %s: %s", lu->hctl, lu->block,
				           strerror(-k));
		}
		/* What the kernel holds now: say so when the rescan did not bring it in line. */
		if (vpd_changed && cached_vpd(s, lu, page, &now, &now_len) >= 0 &&
		    (now_len != fresh_len || memcmp(now, fresh, fresh_len) != 0))
			snprintf(a.reason + strlen(a.reason), sizeof(a.reason) - strlen(a.reason),
			         "; the kernel's VPD cache still differs");
		if (strings_changed && strings_differ(s, lu, strs, std_len))
			snprintf(a.reason + strlen(a.reason), sizeof(a.reason) - strlen(a.reason),
			         "; the kernel still shows the old INQUIRY strings (Linux 6.1 "
			         "reads them when it adds the LU)");
	}
	(void)scan_record_action(s, &a);
	return true;
}
