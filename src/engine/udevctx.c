/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <assert.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "pathid.h"
#include "sysfs.h"
#include "udevctx.h"

static bool attr_exists(int rootfd, const char *dir, const char *attr)
{
	char p[PATH_MAX];

	if (!strjoin_buf(p, sizeof(p), dir, "/", attr))
		return false;
	return faccessat(rootfd, p, F_OK, 0) >= 0;
}

/*
 * The SCSI device's directory under sys/devices, relative to the root: @lu's syspath when it is
 * that directory already (probe_resolve_at()), else its sys/bus/scsi/devices link resolved
 * inside the root (the root may not be "/").
 */
static int scsi_devpath(int rootfd, const LuRef *lu, char **ret)
{
	if (strneq(lu->syspath, "sys/devices/", strlen("sys/devices/"))) {
		*ret = strdup(lu->syspath);
		return *ret ? 0 : -ENOMEM;
	}
	return pathid_resolve(rootfd, lu->syspath, ret);
}

/* idVendor/idProduct: exactly four hex digits (the kernel's "%04x"). */
static bool usb_hex16(const char *s, unsigned *ret)
{
	unsigned v = 0;

	if (!s || strlen(s) != 4)
		return false;
	for (size_t i = 0; i < 4; i++) {
		char c = s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		v = v << 4 | d;
	}
	*ret = v;
	return true;
}

/*
 * Whether @devpath lies below a USB root hub: the USB core names every root hub "usb<busnum>"
 * (usb_alloc_dev()) and every USB device and interface sits below its root hub, so a path
 * without such a component has no USB interface above it and needs no probing.
 */
static bool below_usb_root(const char *devpath)
{
	for (const char *p = devpath; (p = strstr(p, "/usb")); p++) {
		const char *d = p + strlen("/usb");
		size_t n = strspn(d, "0123456789");

		if (n > 0 && d[n] == '/')
			return true;
	}
	return false;
}

/* usb_id's inputs: the closest usb_interface above the LU, and the usb_device above that. */
static int read_usb(int rootfd, const LuRef *lu, const char *devpath, UdevCtx *c)
{
	_cleanup_free_ char *dir = NULL;
	_cleanup_free_ char *if_class = NULL, *if_subclass = NULL, *vendor = NULL, *model = NULL,
	                    *id_vendor = NULL, *id_product = NULL, *manufacturer = NULL,
	                    *product = NULL, *serial = NULL;
	char *slash;
	UsbIdInput in = {};

	if (!below_usb_root(devpath))
		return 0;
	dir = strdup(devpath);
	if (!dir)
		return -ENOMEM;
	/* Walk up from the SCSI device; an interface has bInterfaceClass, its parent device
	 * idVendor. Stop at sys/devices. */
	for (;;) {
		slash = strrchr(dir, '/');
		if (!slash)
			return 0;
		*slash = 0;
		if (!strchr(dir, '/') || streq(dir, "sys/devices"))
			return 0;
		if (attr_exists(rootfd, dir, "bInterfaceClass"))
			break;
	}
	if_class = sysfs_attr_string(rootfd, dir, "bInterfaceClass");
	if_subclass = sysfs_attr_string(rootfd, dir, "bInterfaceSubClass");
	vendor = sysfs_attr_string(rootfd, lu->syspath, "vendor");
	model = sysfs_attr_string(rootfd, lu->syspath, "model");
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = 0;
	if (!attr_exists(rootfd, dir, "idVendor"))
		return 0;
	id_vendor = sysfs_attr_string(rootfd, dir, "idVendor");
	id_product = sysfs_attr_string(rootfd, dir, "idProduct");
	manufacturer = sysfs_attr_string(rootfd, dir, "manufacturer");
	product = sysfs_attr_string(rootfd, dir, "product");
	serial = sysfs_attr_string(rootfd, dir, "serial");

	in = (UsbIdInput){
		.if_class = if_class,
		.if_subclass = if_subclass,
		.scsi_vendor = vendor,
		.scsi_model = model,
		.have_hctl = true,
		.target = lu->target,
		.lun = lu->lun,
		.id_vendor = id_vendor,
		.id_product = id_product,
		.manufacturer = manufacturer,
		.product = product,
		.serial = serial,
	};
	c->have_usb = usbid_compute(&in, &c->usb) >= 0;
	c->have_usb_ids =
	        usb_hex16(id_vendor, &c->usb_vendor) && usb_hex16(id_product, &c->usb_product);
	return 0;
}

/*
 * libata names its port "ata<print_id>" and the device "dev<print_id>.<devno>" (behind a port
 * multiplier "dev<print_id>.<pmp>.0"). ata_scsi_find_dev(): without a PMP the SCSI id is the
 * devno (channel 0, LUN 0); with one the channel is the PMP port (id 0, LUN 0).
 */
static void read_ata_identify(int rootfd, const LuRef *lu, const char *devpath, UdevCtx *c)
{
	_cleanup_free_ uint8_t *buf = NULL;
	const char *p;
	unsigned print_id = 0;
	bool found = false;
	size_t len;

	for (p = devpath; (p = strstr(p, "/ata")); p++) {
		char *end;
		unsigned long v = strtoul(p + 4, &end, 10);

		if (end != p + 4 && (*end == '/' || *end == 0) && v <= UINT_MAX) {
			print_id = (unsigned)v;
			found = true;
		}
	}
	if (!found || lu->lun != 0)
		return;

	for (int form = 0; form < 2 && !buf; form++) {
		_cleanup_free_ char *path = NULL;
		int r;

		if (form == 0 && lu->channel == 0)
			r = asprintf(&path, "sys/class/ata_device/dev%u.%u/id", print_id,
			             lu->target);
		else if (form == 1 && lu->target == 0)
			r = asprintf(&path, "sys/class/ata_device/dev%u.%u.0/id", print_id,
			             lu->channel);
		else
			continue;
		if (r < 0)
			return;
		if (sysfs_read_attr(rootfd, path, 4096, &buf, &len) < 0)
			buf = NULL;
	}
	if (buf && ident_ata_identify_parse((const char *)buf, len, c->ata_identify) >= 0)
		c->have_ata_identify = true;
}

/* udev's rules directories (v252 RULES_DIRS), as rules_installed() looks in them. */
static const char *const rules_dirs[UDEVCTX_RULES_DIRS] = {
	"etc/udev/rules.d",     "run/udev/rules.d", "usr/local/lib/udev/rules.d",
	"usr/lib/udev/rules.d", "lib/udev/rules.d",
};

/*
 * udev reads rules from /etc, /run, /usr/local/lib, /usr/lib and /lib (v252 RULES_DIRS); the
 * first file of a name wins, and one that is empty or a link to /dev/null masks it. @ret_path
 * (NULL, or PATH_MAX bytes) gets the winner's path.
 */
static bool rules_installed_at(int rootfd, const char *name, char *ret_path)
{
	for (size_t i = 0; i < UDEVCTX_RULES_DIRS; i++) {
		char p[PATH_MAX], target[PATH_MAX];
		struct stat st;
		ssize_t k;

		if (!strjoin_buf(p, sizeof(p), rules_dirs[i], "/", name))
			return false;
		if (fstatat(rootfd, p, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			k = readlinkat(rootfd, p, target, sizeof(target) - 1);
			if (k > 0) {
				target[k] = 0;
				if (streq(target, "/dev/null"))
					return false;
			}
			if (fstatat(rootfd, p, &st, 0) < 0)
				continue;
		}
		if (ret_path)
			memcpy(ret_path, p, sizeof(p));
		return S_ISREG(st.st_mode) && st.st_size > 0;
	}
	return false;
}

static bool rules_installed(int rootfd, const char *name)
{
	return rules_installed_at(rootfd, name, NULL);
}

/* Whether the rules file at @path (relative to the root) holds @word, outside comments. */
static bool rules_mention(int rootfd, const char *path, const char *word)
{
	_cleanup_free_ uint8_t *buf = NULL;
	size_t len;

	/* udev's rules files are small (sg3-utils' 8 KiB); a larger one is read in part */
	if (sysfs_read_attr(rootfd, path, 256 * 1024, &buf, &len) < 0)
		return false;
	for (const char *l = (const char *)buf, *end = l + len; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t n = nl ? (size_t)(nl - l) : (size_t)(end - l);

		if (n > 0 && *l != '#' && memmem(l, n, word, strlen(word)))
			return true;
		l += n + 1;
	}
	return false;
}

void udevctx_rules_read(int rootfd, UdevRules *ret)
{
	UdevRules r = {};

	char path[PATH_MAX];

	r.sg3_id = rules_installed_at(rootfd, "55-scsi-sg3_id.rules", path);
	r.sg3_symlink = r.sg3_id && rules_installed(rootfd, "58-scsi-sg3_symlink.rules");
	/* sg3-utils 1.48 sets ".SCSI_ID_SERIAL_SRC" (to "T" unless 00-scsi-sg3_config.rules did);
	 * 1.46 knows no such key */
	r.sg3_src_filter = r.sg3_id && rules_mention(rootfd, path, ".SCSI_ID_SERIAL_SRC");
	/* the rules and the path_id builtin come in one package: the rule that links the
	 * property (systemd v254) says the builtin sets it */
	r.path_usb_revision = rules_installed_at(rootfd, "60-persistent-storage.rules", path) &&
	                      rules_mention(rootfd, path, "ID_PATH_WITH_USB_REVISION");
	*ret = r;
}

/* What udevd looks at to decide whether its rules changed (v252 udev_rules_should_reload():
 * the directories' modification times): here each directory's inode and times, zero when it
 * does not exist. */
static void rules_stamp(int rootfd, UdevRulesStamp stamp[static UDEVCTX_RULES_DIRS])
{
	for (size_t i = 0; i < UDEVCTX_RULES_DIRS; i++) {
		struct stat st;

		stamp[i] = (UdevRulesStamp){};
		if (fstatat(rootfd, rules_dirs[i], &st, 0) < 0)
			continue;
		stamp[i] = (UdevRulesStamp){
			.ino = st.st_ino,
			.dev = st.st_dev,
			.mtime_sec = st.st_mtim.tv_sec,
			.mtime_nsec = st.st_mtim.tv_nsec,
			.ctime_sec = st.st_ctim.tv_sec,
			.ctime_nsec = st.st_ctim.tv_nsec,
		};
	}
}

void udevctx_rules_cached(UdevRulesCache *c, int rootfd, uint64_t now_usec, UdevRules *ret)
{
	UdevRulesStamp stamp[UDEVCTX_RULES_DIRS];

	assert(c && ret);
	if (c->valid && now_usec >= c->checked_usec &&
	    now_usec - c->checked_usec < UDEVCTX_RULES_CHECK_USEC) {
		*ret = c->rules;
		return;
	}
	rules_stamp(rootfd, stamp);
	c->checked_usec = now_usec;
	if (!c->valid || memcmp(stamp, c->stamp, sizeof(stamp)) != 0) {
		/* Looked at before reading the files: a change while they are read shows next
		 * time. */
		memcpy(c->stamp, stamp, sizeof(stamp));
		udevctx_rules_read(rootfd, &c->rules);
		c->valid = true;
	}
	*ret = c->rules;
}

void udevctx_rules_forget(UdevRulesCache *c)
{
	if (c)
		c->valid = false;
}

/* Whether the kernel's cached attribute @attr of @lu exists: @page read from sysfs says so
 * without asking again. */
static bool cached_attr_exists(int rootfd, const LuRef *lu, const ProbeData *pages, ProbePage page,
                               const char *attr)
{
	if (pages && pages->source[page] == PROBE_SOURCE_SYSFS)
		return true;
	return attr_exists(rootfd, lu->syspath, attr);
}

int udevctx_read_full(int rootfd, const LuRef *lu, const UdevCtxKnown *known, UdevCtx *ret)
{
	const UdevRules *rules = known ? known->rules : NULL;
	const ProbeData *pages = known ? known->pages : NULL;
	UdevRules rr;
	_cleanup_free_ char *devpath = NULL;
	char p[PATH_MAX];
	UdevCtx c = {};
	uint64_t v;
	int r;

	assert_return(lu && lu->syspath && ret, -EINVAL);

	if (known && known->have_scsi_level)
		c.scsi_level = known->scsi_level <= 0xff ? known->scsi_level : 0;
	else if (strjoin_buf(p, sizeof(p), lu->syspath, "/scsi_level") &&
	         sysfs_read_u64(rootfd, p, &v) >= 0 && v <= 0xff)
		c.scsi_level = (unsigned)v;
	if (lu->block && strjoin_buf(p, sizeof(p), "sys/block/", lu->block, "/removable"))
		c.removable = sysfs_read_u64(rootfd, p, &v) >= 0 && v != 0;
	else if (pages && pages->buf[PROBE_INQUIRY] && pages->len[PROBE_INQUIRY] > 1)
		/* No disk yet (sd binds after the LU's add event): the one it will have is
		 * removable exactly when the INQUIRY data's RMB bit says so (sd_probe() sets
		 * GENHD_FL_REMOVABLE from sdev->removable, scsi_add_lun()'s copy of it). */
		c.removable = pages->buf[PROBE_INQUIRY][1] & 0x80;

	/* probe_resolve_full() may have found the device's directory already */
	if (lu->devpath) {
		devpath = strdup(lu->devpath);
		r = devpath ? 0 : -ENOMEM;
	} else
		r = scsi_devpath(rootfd, lu, &devpath);
	if (r == -ENOMEM)
		return r;
	if (r >= 0) {
		r = read_usb(rootfd, lu, devpath, &c);
		if (r < 0)
			return r;
		read_ata_identify(rootfd, lu, devpath, &c);
	}

	if (!rules) {
		udevctx_rules_read(rootfd, &rr);
		rules = &rr;
	}
	c.sg3_id_rules = rules->sg3_id;
	if (c.sg3_id_rules) {
		/* what that rule's sg_inq reads (udevctx_names()): nobody else asks */
		c.sysfs_inquiry = cached_attr_exists(rootfd, lu, pages, PROBE_INQUIRY, "inquiry");
		c.sysfs_pg80 = cached_attr_exists(rootfd, lu, pages, PROBE_PG80, "vpd_pg80");
		c.sysfs_pg83 = cached_attr_exists(rootfd, lu, pages, PROBE_PG83, "vpd_pg83");
	}
	c.sg3_symlink_rules = c.sg3_id_rules && rules->sg3_symlink;
	c.sg3_src_filter = c.sg3_id_rules && rules->sg3_src_filter;
	c.path_usb_revision = rules->path_usb_revision;
	*ret = c;
	return 0;
}

int udevctx_names(const UdevCtx *ctx, const LuRef *lu, const ScsiIdent *id, NamesList *ret)
{
	_cleanup_free_ ScsiIdent *sg3 = NULL;
	NamesContext nc;
	int r;

	assert_return(ctx && lu && id && ret, -EINVAL);

	nc = (NamesContext){
		.id = id,
		.scsi_level = ctx->scsi_level,
		.is_cdrom = id->peripheral_type == 0x05,
		.removable = ctx->removable,
		.usb = ctx->have_usb ? &ctx->usb : NULL,
		.sg3_symlinks = ctx->sg3_symlink_rules,
		.sg3_src_filter = ctx->sg3_src_filter,
	};

	if (ctx->sg3_id_rules) {
		ScsiIdentInput in = id->in;

		/* 55-scsi-sg3_id.rules: with the kernel's "inquiry" attribute (and scsi_level
		 * other than 4) sg_inq decodes only the cached vpd_pg80/vpd_pg83 files; a page
		 * the kernel did not cache is not asked for. Otherwise sg_inq asks the device,
		 * as the probe did. */
		if (ctx->sysfs_inquiry && ctx->scsi_level != 4) {
			if (!ctx->sysfs_pg80) {
				in.pg80 = NULL;
				in.pg80_len = 0;
			}
			if (!ctx->sysfs_pg83) {
				in.pg83 = NULL;
				in.pg83_len = 0;
			}
		}
		/* sg_inq's set never reads ata_id's view: page 0x89 and the IDENTIFY data are
		 * decoded once, for @id, not again here. */
		in.pg89 = NULL;
		in.pg89_len = 0;
		in.ata_identify = NULL;
		in.ata_identify_len = 0;
		sg3 = malloc(sizeof(*sg3));
		if (!sg3)
			return -ENOMEM;
		r = ident_compute(&in, sg3);
		if (r < 0)
			return r;
		nc.sg3 = sg3;
	}
	return names_by_id_full(&nc, ret);
}
