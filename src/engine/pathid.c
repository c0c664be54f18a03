/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "luns.h"
#include "macro.h"
#include "pathid.h"
#include "pathtag.h"
#include "sysfs.h"

/* Symlinks followed while resolving one path, as the kernel's MAXSYMLINKS. */
#define RESOLVE_MAX_LINKS 40

void pathid_done(PathId *p)
{
	if (!p)
		return;
	free(p->path);
	free(p->tag);
	free(p->ata_compat);
	free(p->usb_revision);
	*p = (PathId){};
}

/* @dir + "/" + @name, or @name alone when @dir is empty. */
static char *join(const char *dir, const char *name)
{
	/* Called for every component of every walk: copied, not printed (printf cost 10x). */
	size_t d = strlen(dir), n = strlen(name);
	char *r = malloc(d + 1 + n + 1), *p;

	if (!r)
		return NULL;
	p = mempcpy(r, dir, d);
	if (d > 0)
		*p++ = '/';
	memcpy(p, name, n + 1);
	return r;
}

int pathid_resolve_walk(int rootfd, const char *path, char **ret)
{
	_cleanup_free_ char *done = strdup(""), *todo = strdup(path ?: "");
	unsigned links = 0;

	assert_return(path && ret, -EINVAL);
	if (!done || !todo)
		return -ENOMEM;

	while (!isempty(todo)) {
		char target[PATH_MAX], *slash, *next;
		const char *comp;
		_cleanup_free_ char *cand = NULL;
		ssize_t k;

		/* Take the first component off @todo. */
		slash = strchr(todo, '/');
		if (slash)
			*slash = 0;
		comp = todo;
		next = slash ? slash + 1 : todo + strlen(todo);

		if (isempty(comp) || streq(comp, ".")) {
			memmove(todo, next, strlen(next) + 1);
			continue;
		}
		if (streq(comp, "..")) {
			char *up = strrchr(done, '/');

			if (up)
				*up = 0;
			else
				done[0] = 0; /* never above the root */
			memmove(todo, next, strlen(next) + 1);
			continue;
		}
		cand = join(done, comp);
		if (!cand)
			return -ENOMEM;
		k = readlinkat(rootfd, cand, target, sizeof(target) - 1);
		if (k < 0) {
			if (errno != EINVAL)
				return -errno; /* ENOENT, or a directory we cannot read */
			free(done);
			done = TAKE_PTR(cand);
			memmove(todo, next, strlen(next) + 1);
			continue;
		}
		if (++links > RESOLVE_MAX_LINKS)
			return -ELOOP;
		target[k] = 0;
		{
			/* The target replaces the component; an absolute one starts at the root. */
			_cleanup_free_ char *rest = join(target, next);

			if (!rest)
				return -ENOMEM;
			if (target[0] == '/')
				done[0] = 0;
			free(todo);
			todo = TAKE_PTR(rest);
		}
	}
	if (faccessat(rootfd, isempty(done) ? "." : done, F_OK, 0) < 0)
		return -errno;
	*ret = TAKE_PTR(done);
	return 0;
}

/* @buf's readlink() of /proc/self/fd/@fd: 0, -errno. */
static int fd_path(int fd, char *buf, size_t size)
{
	char proc[sizeof("/proc/self/fd/") + 12];
	ssize_t k;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	k = readlink(proc, buf, size - 1);
	if (k < 0)
		return -errno;
	if ((size_t)k >= size - 1)
		return -ENAMETOOLONG;
	buf[k] = 0;
	return buf[0] == '/' ? 0 : -EBADF; /* not a path of this mount namespace */
}

int pathid_resolve(int rootfd, const char *path, char **ret)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int fd = -EBADF;
	char root[PATH_MAX], full[PATH_MAX];
	const char *rel;
	size_t n;

	assert_return(path && ret, -EINVAL);

	/* The kernel resolves the whole path inside the root in one call, with the walk's rules
	 * (an absolute link and ".." stop at the root, 40 links at most), and names the result:
	 * 4 system calls where the walk makes one per component (about 12 for an LU in sysfs).
	 * The walk stays for what the kernel cannot do here: no openat2() (before 5.6, or a
	 * seccomp filter), no /proc, a concurrent rename (EAGAIN). */
	fd = (int)syscall(SYS_openat2, rootfd, isempty(path) ? "." : path, &how, sizeof(how));
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			return -errno;
		return pathid_resolve_walk(rootfd, path, ret);
	}
	if (fd_path(rootfd, root, sizeof(root)) < 0 || fd_path(fd, full, sizeof(full)) < 0 ||
	    strstr(full, " (deleted)"))
		return pathid_resolve_walk(rootfd, path, ret);
	n = streq(root, "/") ? 0 : strlen(root);
	if (strncmp(full, root, n) != 0 || (full[n] != '/' && full[n] != 0))
		return pathid_resolve_walk(rootfd, path, ret);
	rel = full + n;
	rel += *rel == '/';
	*ret = strdup(rel);
	return *ret ? 0 : -ENOMEM;
}

/* ---- the device model path_id walks (sd-device's view of sysfs) ---- */

static const char *dev_sysname(const char *dev)
{
	const char *s = strrchr(dev, '/');

	return s ? s + 1 : dev;
}

/* sd-device's sysnum: the trailing decimal digits of the sysname, NULL when there are none. */
static const char *dev_sysnum(const char *dev)
{
	const char *name = dev_sysname(dev), *p = name + strlen(name);

	while (p > name && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (!*p)
		return NULL;
	if (p == name) /* an all-digit sysname keeps its first digit out (sd-device) */
		p++;
	return *p ? p : NULL;
}

typedef struct Walk {
	int rootfd;
	const char *sdev; /* the device walked from when its name says it is a SCSI device */
	char *path;       /* ID_PATH so far */
	char *compat;     /* ID_PATH_ATA_COMPAT so far, NULL until the ATA rule starts it */
	bool supported_transport, supported_parent;
	int error; /* -ENOMEM once anything failed to allocate */
} Walk;

static bool dev_is_device(Walk *w, const char *dev)
{
	_cleanup_free_ char *u = join(dev, "uevent");

	return u && faccessat(w->rootfd, u, F_OK, 0) >= 0;
}

/* The nearest ancestor directory of @dev that is a device, below sys/devices/; NULL for none
 * (sd_device_get_parent()). */
static char *dev_parent(Walk *w, const char *dev)
{
	_cleanup_free_ char *p = strdup(dev);

	if (!p)
		return NULL;
	for (;;) {
		char *s = strrchr(p, '/');

		if (!s)
			return NULL;
		*s = 0;
		if (!strneq(p, "sys/devices/", strlen("sys/devices/")))
			return NULL;
		if (dev_is_device(w, p))
			return TAKE_PTR(p);
	}
}

/* The name of @dev's subsystem (the "subsystem" link's last component), NULL for none. */
static char *dev_subsystem_read(Walk *w, const char *dev)
{
	_cleanup_free_ char *l = NULL;
	char *s = NULL;

	if (w->sdev && streq(dev, w->sdev))
		return strdup("scsi");
	l = join(dev, "subsystem");
	if (!l || sysfs_link_basename(w->rootfd, l, &s) < 0)
		return NULL;
	return s;
}

/* DEVTYPE= of @dev's uevent file, NULL for none. */
static char *dev_devtype_read(Walk *w, const char *dev)
{
	_cleanup_free_ char *u = NULL;
	_cleanup_free_ uint8_t *buf = NULL;
	size_t len;

	if (w->sdev && streq(dev, w->sdev))
		return strdup("scsi_device");
	u = join(dev, "uevent");
	if (!u || sysfs_read_attr(w->rootfd, u, 64 * 1024, &buf, &len) < 0)
		return NULL;
	for (char *line = (char *)buf; line && *line;) {
		char *end = strchr(line, '\n');

		if (end)
			*end = 0;
		if (strneq(line, "DEVTYPE=", strlen("DEVTYPE=")))
			return strdup(line + strlen("DEVTYPE="));
		line = end ? end + 1 : NULL;
	}
	return NULL;
}

/* Is @dev's attribute (dev_subsystem_read() or dev_devtype_read()) @value? */
static bool dev_attr_is(Walk *w, const char *dev, char *(*read)(Walk *w, const char *dev),
                        const char *value)
{
	_cleanup_free_ char *v = read(w, dev);

	return v && streq(v, value);
}

/* The first ancestor of @dev (not @dev) in @subsystem with @devtype (NULL: any); NULL for none. */
static char *dev_parent_with(Walk *w, const char *dev, const char *subsystem, const char *devtype)
{
	_cleanup_free_ char *cur = dev_parent(w, dev);

	while (cur) {
		char *next;

		if (dev_attr_is(w, cur, dev_subsystem_read, subsystem) &&
		    (!devtype || dev_attr_is(w, cur, dev_devtype_read, devtype)))
			return TAKE_PTR(cur);
		next = dev_parent(w, cur);
		free(cur);
		cur = next;
	}
	return NULL;
}

/* The device @sysname of @subsystem (a class or a bus), as a path below the root; NULL when
 * there is none (sd_device_new_from_subsystem_sysname()). */
static char *dev_from_subsystem(int rootfd, const char *subsystem, const char *sysname)
{
	static const char *const dirs[][2] = { { "sys/bus/", "/devices/" }, { "sys/class/", "/" } };

	if (strchr(sysname, '/') || streq(sysname, "..") || streq(sysname, "."))
		return NULL;
	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		_cleanup_free_ char *p = NULL;

		if (asprintf(&p, "%s%s%s%s", dirs[i][0], subsystem, dirs[i][1], sysname) < 0)
			return NULL;
		if (faccessat(rootfd, p, F_OK, 0) >= 0)
			return TAKE_PTR(p);
	}
	return NULL;
}

/* The last of @dev and its ancestors that are all in @subsystem (path_id's skip_subsystem()). */
static char *skip_subsystem(Walk *w, const char *dev, const char *subsystem)
{
	_cleanup_free_ char *last = strdup(dev), *cur = NULL;

	if (!last)
		return NULL;
	if (!dev_attr_is(w, last, dev_subsystem_read, subsystem))
		return TAKE_PTR(last);
	cur = dev_parent(w, last);
	while (cur && dev_attr_is(w, cur, dev_subsystem_read, subsystem)) {
		free(last);
		last = TAKE_PTR(cur);
		cur = dev_parent(w, last);
	}
	return TAKE_PTR(last);
}

/* ---- the walk ---- */

/* Puts @fmt's text and a '-' in front of *@s (or makes it *@s). */
_printf_(3, 4) static void prepend(Walk *w, char **s, const char *fmt, ...)
{
	_cleanup_free_ char *pre = NULL;
	char *n;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&pre, fmt, ap);
	va_end(ap);
	if (r < 0) {
		w->error = -ENOMEM;
		return;
	}
	if (!*s) {
		*s = TAKE_PTR(pre);
		return;
	}
	if (asprintf(&n, "%s-%s", pre, *s) < 0) {
		w->error = -ENOMEM;
		return;
	}
	free(*s);
	*s = n;
}

/* path_id's LUN component of the SCSI device @dev, from its sysnum. path_id prints "(null)" in
 * its place when the sysnum is missing, which a SCSI device's name never lacks. */
static void lun_of(const char *dev, char *buf, size_t size)
{
	const char *num = dev_sysnum(dev);

	if (!num || pathtag_lun(strtoull(num, NULL, 10), buf, size) < 0)
		snprintf(buf, size, "(null)");
}

/* An attribute of the device @sysname of class @subsystem, NULL when either is missing. */
static char *class_attr(int rootfd, const char *subsystem, const char *sysname, const char *attr)
{
	_cleanup_free_ char *d = dev_from_subsystem(rootfd, subsystem, sysname);

	return d ? sysfs_attr_string(rootfd, d, attr) : NULL;
}

/* Each handler returns the device the walk continues above (a new string), or NULL to end it. */

static char *handle_fc(Walk *w, const char *dev)
{
	_cleanup_free_ char *target = dev_parent_with(w, dev, "scsi", "scsi_target");
	_cleanup_free_ char *port = NULL;
	char lun[32];

	if (!target)
		return NULL;
	port = class_attr(w->rootfd, "fc_transport", dev_sysname(target), "port_name");
	if (!port)
		return NULL;
	lun_of(dev, lun, sizeof(lun));
	prepend(w, &w->path, "fc-%s-%s", port, lun);
	return strdup(dev);
}

static char *handle_sas(Walk *w, const char *dev)
{
	_cleanup_free_ char *target = dev_parent_with(w, dev, "scsi", "scsi_target");
	_cleanup_free_ char *end_dev = NULL, *port = NULL, *phys = NULL, *phy = NULL;
	_cleanup_free_ char *above = NULL, *exp_addr = NULL;
	char lun[32];

	if (!target)
		return NULL;
	end_dev = dev_parent(w, target);
	if (!end_dev || !(port = dev_parent(w, end_dev)))
		return NULL;
	{
		_cleanup_free_ char *sasdev =
		        dev_from_subsystem(w->rootfd, "sas_device", dev_sysname(end_dev));

		if (!sasdev)
			return NULL;
	}
	phys = class_attr(w->rootfd, "sas_port", dev_sysname(port), "num_phys");
	if (!phys)
		return NULL;
	lun_of(dev, lun, sizeof(lun));

	if (!streq(phys, "1")) {
		/* A wide port: the end device's SAS address names it. */
		_cleanup_free_ char *addr =
		        class_attr(w->rootfd, "sas_device", dev_sysname(end_dev), "sas_address");

		if (!addr)
			return NULL;
		prepend(w, &w->path, "sas-%s-%s", addr, lun);
		return strdup(dev);
	}
	phy = class_attr(w->rootfd, "sas_device", dev_sysname(end_dev), "phy_identifier");
	above = dev_parent(w, port);
	if (!phy || !above)
		return NULL;
	/* The port hangs off the HBA, or off an expander whose address is then part of the name. */
	{
		_cleanup_free_ char *exp =
		        dev_from_subsystem(w->rootfd, "sas_device", dev_sysname(above));

		if (exp) {
			exp_addr = sysfs_attr_string(w->rootfd, exp, "sas_address");
			if (!exp_addr)
				return NULL;
		}
	}
	if (exp_addr)
		prepend(w, &w->path, "sas-exp%s-phy%s-%s", exp_addr, phy, lun);
	else
		prepend(w, &w->path, "sas-phy%s-%s", phy, lun);
	return strdup(dev);
}

static char *handle_iscsi(Walk *w, const char *dev)
{
	_cleanup_free_ char *session = strdup(dev), *target = NULL, *conn = NULL;
	_cleanup_free_ char *addr = NULL, *port = NULL;
	const char *num;
	char lun[32];

	/* The nearest ancestor named "session*" is the session. */
	while (session) {
		char *up = dev_parent(w, session);

		free(session);
		session = up;
		if (session && strneq(dev_sysname(session), "session", strlen("session")))
			break;
	}
	if (!session)
		return NULL;
	target = class_attr(w->rootfd, "iscsi_session", dev_sysname(session), "targetname");
	num = dev_sysnum(session);
	if (!target || !num || asprintf(&conn, "connection%s:0", num) < 0)
		return NULL;
	addr = class_attr(w->rootfd, "iscsi_connection", conn, "persistent_address");
	port = class_attr(w->rootfd, "iscsi_connection", conn, "persistent_port");
	if (!addr || !port)
		return NULL;
	lun_of(dev, lun, sizeof(lun));
	prepend(w, &w->path, "ip-%s:%s-iscsi-%s-%s", addr, port, target, lun);
	return strdup(dev);
}

static char *handle_ata(Walk *w, const char *dev)
{
	_cleanup_free_ char *host = NULL, *port_dev = NULL, *port_no = NULL;
	unsigned bus, target;

	if (hctl_parse(dev_sysname(dev), NULL, &bus, &target, NULL) < 0)
		return NULL;
	host = dev_parent_with(w, dev, "scsi", "scsi_host");
	if (!host || !(port_dev = dev_parent(w, host)))
		return NULL;
	port_no = class_attr(w->rootfd, "ata_port", dev_sysname(port_dev), "port_no");
	if (!port_no)
		return NULL;
	if (bus != 0)
		/* libata puts a port multiplier's link number in the channel. */
		prepend(w, &w->path, "ata-%s.%u.0", port_no, bus);
	else
		/* master and slave are targets 0 and 1 */
		prepend(w, &w->path, "ata-%s.%u", port_no, target);
	prepend(w, &w->compat, "ata-%s", port_no);
	return strdup(dev);
}

/* The lowest N of the "hostN" entries in directory @dir (-1 when there is none). */
static long lowest_host(int rootfd, const char *dir)
{
	_cleanup_(closedirp) DIR *d = NULL;
	long lowest = -1;

	if (sysfs_opendir(rootfd, dir, &d) < 0)
		return -1;
	for (struct dirent *de; (de = readdir(d));) {
		unsigned char type = de->d_type;
		const char *digits;
		char *end;
		unsigned long n;

		if (de->d_name[0] == '.' || !strneq(de->d_name, "host", 4))
			continue;
		if (type == DT_UNKNOWN) {
			struct stat st;

			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
		}
		if (type != DT_DIR && type != DT_LNK)
			continue;
		digits = de->d_name + 4;
		if (*digits < '0' || *digits > '9')
			continue;
		errno = 0;
		n = strtoul(digits, &end, 10);
		if (errno != 0 || *end || n > UINT_MAX)
			continue;
		if (lowest < 0 || (long)n < lowest)
			lowest = (long)n;
	}
	return lowest;
}

static char *handle_default(Walk *w, const char *dev)
{
	_cleanup_free_ char *host = dev_parent_with(w, dev, "scsi", "scsi_host");
	_cleanup_free_ char *dir = NULL;
	unsigned h, c, t;
	uint64_t l;
	long base;
	char *slash;

	if (!host)
		return NULL;
	/* The kernel's decimal H:C:T:L, read without sscanf(): its scanner is ~700 instructions
	 * of libc that only this line ran, each translated afresh by an emulator in every new
	 * `lunctl id` (bench/README.md, "lunctl id"). */
	if (hctl_parse(dev_sysname(dev), &h, &c, &t, &l) < 0)
		return NULL;
	dir = strdup(host);
	if (!dir)
		return NULL;
	slash = strrchr(dir, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	/* The host number counted from the first host of the same parent (HBA). */
	base = lowest_host(w->rootfd, dir);
	if (base < 0)
		return TAKE_PTR(host);
	/* path_id keeps these in ints */
	prepend(w, &w->path, "scsi-%i:%i:%i:%i", (int)((long long)h - base), (int)c, (int)t,
	        (int)l);
	return TAKE_PTR(host);
}

/* Hyper-V: the VMBus device's GUID without braces and dashes; @len is the braced GUID's
 * length path_id expects (37 or 38, by the spelling of the bus). */
static char *handle_hyperv(Walk *w, const char *dev, size_t len)
{
	_cleanup_free_ char *host = dev_parent_with(w, dev, "scsi", "scsi_host");
	_cleanup_free_ char *vmbus = NULL, *guid = NULL;
	char out[40], lun[32];
	size_t k = 0;

	if (!host || !(vmbus = dev_parent(w, host)))
		return NULL;
	guid = sysfs_attr_string(w->rootfd, vmbus, "device_id");
	if (!guid || strlen(guid) < len || guid[0] != '{' || guid[len - 1] != '}')
		return NULL;
	for (size_t i = 1; i < len - 1; i++)
		if (guid[i] != '-')
			out[k++] = guid[i];
	out[k] = 0;
	lun_of(dev, lun, sizeof(lun));
	prepend(w, &w->path, "vmbus-%s-%s", out, lun);
	return strdup(dev);
}

static char *handle_scsi(Walk *w, const char *dev)
{
	_cleanup_free_ char *fw = NULL, *unit = NULL;

	if (!dev_attr_is(w, dev, dev_devtype_read, "scsi_device"))
		return strdup(dev);

	/* Only firewire-sbp2 gives its SCSI devices this attribute, and its hosts sit below the
	 * FireWire unit they serve: elsewhere there is nothing to read (the ancestors are the
	 * walk's next steps, read once a target). */
	unit = dev_parent_with(w, dev, "firewire", NULL);
	if (unit)
		fw = sysfs_attr_string(w->rootfd, dev, "ieee1394_id");
	if (fw) {
		prepend(w, &w->path, "ieee1394-0x%s", fw);
		w->supported_parent = true;
		return skip_subsystem(w, dev, "scsi");
	}
	/* The transport shows in the device path only: sysfs has no subsystem for it. */
	if (strstr(dev, "/rport-")) {
		w->supported_parent = true;
		return handle_fc(w, dev);
	}
	if (strstr(dev, "/end_device-")) {
		w->supported_parent = true;
		return handle_sas(w, dev);
	}
	if (strstr(dev, "/session")) {
		w->supported_parent = true;
		return handle_iscsi(w, dev);
	}
	if (strstr(dev, "/ata"))
		return handle_ata(w, dev);
	if (strstr(dev, "/vmbus_"))
		return handle_hyperv(w, dev, 37);
	if (strstr(dev, "/VMBUS"))
		return handle_hyperv(w, dev, 38);
	return handle_default(w, dev);
}

/*
 * The USB revision of a root hub (1, 2 or 3) from its bDeviceProtocol (USB 2.0 11.23.1: 0 a
 * full-speed hub or a high-speed one without TT, told apart by the speed; 1 and 2 high-speed
 * with TTs; 3 SuperSpeed, USB 3.x 10.15.1), as path_id reads it since v254; 0 when unknown.
 */
static int usb_root_revision(Walk *w, const char *hub)
{
	_cleanup_free_ char *proto = sysfs_attr_string(w->rootfd, hub, "bDeviceProtocol");
	_cleanup_free_ char *speed = NULL;
	char *end;
	unsigned long v;

	if (!proto)
		return 0;
	v = strtoul(proto, &end, 16);
	if (end == proto || *end)
		return 0;
	switch (v) {
	case 0:
		speed = sysfs_attr_string(w->rootfd, hub, "speed");
		return streq_ptr(speed, "480") ? 2 : speed ? 1 : 0;
	case 1:
	case 2:
		return 2;
	case 3:
		return 3;
	default:
		return 0;
	}
}

static char *handle_usb(Walk *w, const char *dev)
{
	const char *port;
	char *hub;
	int rev;

	if (!dev_attr_is(w, dev, dev_devtype_read, "usb_interface") &&
	    !dev_attr_is(w, dev, dev_devtype_read, "usb_device"))
		return strdup(dev);
	port = strchr(dev_sysname(dev), '-');
	if (!port)
		return strdup(dev);
	/* The bus number may change from boot to boot; the port path below the root hub does
	 * not, so "0" stands for the bus. udev 254 and later add the root hub's USB revision
	 * ("usbv3-0:..."; an xHCI controller has a USB 2 and a USB 3 root hub), taken out of
	 * ID_PATH again at the end (pathid_walk(), PathId.usb_revision). */
	hub = skip_subsystem(w, dev, "usb");
	rev = hub ? usb_root_revision(w, hub) : 0;
	if (rev > 0)
		prepend(w, &w->path, "usbv%i-0:%s", rev, port + 1);
	else
		prepend(w, &w->path, "usb-0:%s", port + 1);
	return hub;
}

static char *handle_bcma(Walk *w, const char *dev)
{
	unsigned core;

	if (sscanf(dev_sysname(dev), "bcma%*u:%u", &core) != 1)
		return NULL;
	prepend(w, &w->path, "bcma-%u", core);
	return strdup(dev);
}

/* Parents named by their sysname: "<prefix>-<sysname>", then skipped to the last ancestor of
 * the same subsystem. */
static const struct {
	const char *subsystem;
	bool transport; /* a well-known transport (block devices need one) */
} named_parents[] = {
	{ "pci", false },  { "platform", true }, { "amba", true },
	{ "acpi", false }, { "xen", false },     { "scm", true },
	{ "ccw", true },   { "ccwgroup", true }, { "iucv", true },
};

/* One step of the walk: @dev's component; returns the device to continue above or NULL. */
static char *walk_step(Walk *w, const char *dev)
{
	_cleanup_free_ char *subsystem = dev_subsystem_read(w, dev);
	const char *num;

	if (!subsystem)
		return strdup(dev);
	if (streq(subsystem, "scsi")) {
		w->supported_transport = true;
		return handle_scsi(w, dev);
	}
	if (streq(subsystem, "usb")) {
		w->supported_transport = true;
		return handle_usb(w, dev);
	}
	if (streq(subsystem, "bcma")) {
		w->supported_transport = true;
		return handle_bcma(w, dev);
	}
	if (streq(subsystem, "virtio")) {
		w->supported_transport = true;
		return skip_subsystem(w, dev, "virtio");
	}
	if (streq(subsystem, "serio") || streq(subsystem, "spi")) {
		num = dev_sysnum(dev);
		if (!num)
			return strdup(dev);
		prepend(w, &w->path, "%s-%s", streq(subsystem, "spi") ? "cs" : "serio", num);
		return skip_subsystem(w, dev, subsystem);
	}
	for (size_t i = 0; i < ELEMENTSOF(named_parents); i++) {
		if (!streq(subsystem, named_parents[i].subsystem))
			continue;
		prepend(w, &w->path, "%s-%s", subsystem, dev_sysname(dev));
		if (w->compat)
			prepend(w, &w->compat, "%s-%s", subsystem, dev_sysname(dev));
		w->supported_parent = true;
		if (named_parents[i].transport)
			w->supported_transport = true;
		return skip_subsystem(w, dev, subsystem);
	}
	return strdup(dev);
}

/*
 * The SCSI midlayer names a SCSI device "H:C:T:L" below its target "targetH:C:T", and nothing
 * else so: a walk starting there knows its subsystem and DEVTYPE without reading its
 * "subsystem" link and "uevent".
 */
static bool is_sdev(const char *dev)
{
	const char *base = strrchr(dev, '/'), *parent;
	unsigned h, c, t;
	char target[64];

	if (!base || hctl_parse(base + 1, &h, &c, &t, NULL) < 0)
		return false;
	for (parent = base; parent > dev && parent[-1] != '/'; parent--)
		;
	return (size_t)snprintf(target, sizeof(target), "target%u:%u:%u/", h, c, t) <
	               sizeof(target) &&
	       strneq(parent, target, strlen(target)) && parent + strlen(target) == base + 1;
}

/* The walk from @dev, the device's directory below the root ("sys/devices/..."). */
static int pathid_walk(int rootfd, const char *dev, PathId *ret)
{
	_cleanup_free_ char *cur = NULL, *tag = NULL;
	Walk w = { .rootfd = rootfd, .sdev = is_sdev(dev) ? dev : NULL };
	PathId p = {};

	p.virtual_dev = strneq(dev, "sys/devices/virtual/", strlen("sys/devices/virtual/"));

	cur = strdup(dev);
	while (cur && w.error == 0) {
		_cleanup_free_ char *above = walk_step(&w, cur);

		free(cur);
		cur = above ? dev_parent(&w, above) : NULL;
	}
	if (w.error < 0) {
		free(w.path);
		free(w.compat);
		return w.error;
	}
	/* Nothing from an unknown parent: it may not name its children uniquely. The LU is a
	 * SCSI device, so the transport check path_id makes for block devices always passes. */
	if (!w.path || !w.supported_parent || !w.supported_transport) {
		free(w.path);
		free(w.compat);
		*ret = p;
		return 0;
	}
	/* path_id's add_id_with_usb_revision(): a path with "-usbv<digit>-" is
	 * ID_PATH_WITH_USB_REVISION; ID_PATH (and its tag) are the same without "v<digit>" */
	{
		char *v = strstr(w.path, "-usbv");

		if (v && v[5] >= '0' && v[5] <= '9' && v[6] == '-') {
			p.usb_revision = strdup(w.path);
			if (!p.usb_revision) {
				free(w.path);
				free(w.compat);
				return -ENOMEM;
			}
			memmove(v + 4, v + 6, strlen(v + 6) + 1);
		}
	}
	tag = malloc(strlen(w.path) + 1);
	if (!tag || pathtag_tag(w.path, tag, strlen(w.path) + 1) < 0) {
		free(w.path);
		free(w.compat);
		free(p.usb_revision);
		return -ENOMEM;
	}
	p.path = w.path;
	p.tag = TAKE_PTR(tag);
	p.ata_compat = w.compat;
	*ret = p;
	return 0;
}

int pathid_read(int rootfd, const char *syspath, PathId *ret)
{
	_cleanup_free_ char *dev = NULL;
	int r;

	assert_return(syspath && ret, -EINVAL);

	r = pathid_resolve(rootfd, syspath, &dev);
	if (r < 0)
		return r;
	return pathid_walk(rootfd, dev, ret);
}

int pathid_read_dev(int rootfd, const char *devpath, PathId *ret)
{
	assert_return(devpath && ret, -EINVAL);
	assert_return(strneq(devpath, "sys/devices/", strlen("sys/devices/")), -EINVAL);

	return pathid_walk(rootfd, devpath, ret);
}
