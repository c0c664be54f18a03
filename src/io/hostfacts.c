/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostfacts.h"
#include "macro.h"
#include "sysfs.h"

const char *hostfacts_ata_prefix(const char *proc_name)
{
	if (!proc_name)
		return NULL;
	if (streq(proc_name, "ahci") || (strstr(proc_name, "ata") && strneq(proc_name, "sata", 4)))
		return "sata:";
	if (strstr(proc_name, "ata"))
		return "ata:";
	return NULL;
}

int hostfacts_fc_string(int rootfd, const char *dir, const char *host_dir, char **ret)
{
	_cleanup_free_ char *sym = sysfs_attr_string(rootfd, host_dir, "symbolic_name"),
	                    *port_name = sysfs_attr_string(rootfd, dir, "port_name"),
	                    *port_id = sysfs_attr_string(rootfd, dir, "port_id");

	/* lsscsi prints nothing when either is missing */
	if (!port_name || !port_id)
		return (*ret = strdup("")) ? 0 : -ENOMEM;
	return asprintf(ret, "%s:%s,%s", sym && strstr(sym, " over ") ? "fcoe" : "fc", port_name,
	                port_id) < 0
	               ? -ENOMEM
	               : 0;
}

int hostfacts_usb_name(const char *devpath, char *buf, size_t size)
{
	const char *h, *s;

	assert_return(devpath && buf && size > 0, -EINVAL);
	if (!strstr(devpath, "usb"))
		return -ENOENT;
	buf[0] = 0;
	h = strstr(devpath, "/host");
	if (!h || h == devpath)
		return 0;
	/* the component that ends where "/host" begins */
	for (s = h - 1; s > devpath && *s != '/'; s--)
		;
	if (*s != '/')
		return 0;
	s++;
	if ((size_t)(h - s) >= size)
		return -ENOBUFS;
	memcpy(buf, s, (size_t)(h - s));
	buf[h - s] = 0;
	return 0;
}

/* The lowest-numbered "phy" entry of the host's device directory (lsscsi's sas_low_phy). */
static char *sas_low_phy(int rootfd, const char *dir)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char *best = NULL;
	long best_n = 0;

	if (sysfs_opendir(rootfd, dir, &d) < 0)
		return NULL;
	for (struct dirent *de; (de = readdir(d));) {
		const char *colon;
		long n;

		if (!strstr(de->d_name, "phy") || de->d_name[0] == '.')
			continue;
		colon = strrchr(de->d_name, ':');
		n = colon ? strtol(colon + 1, NULL, 10) : 0;
		if (best && (!colon || n >= best_n))
			continue;
		free(best);
		best = strdup(de->d_name);
		best_n = n;
		if (!best)
			return NULL;
	}
	return best;
}

int hostfacts_transport(int rootfd, unsigned h, char **ret)
{
	char path[PATH_MAX], name[256];
	_cleanup_free_ char *proc = NULL, *link = NULL;
	const char *prefix;

	if (sysfs_is_dirf(rootfd, path, "sys/class/spi_host/host%u", h))
		return (*ret = strdup("spi:")) ? 0 : -ENOMEM;
	if (sysfs_is_dirf(rootfd, path, "sys/class/fc_host/host%u", h))
		return hostfacts_fc_string(rootfd, path, path, ret);
	if (sysfs_is_dirf(rootfd, path, "sys/class/srp_host/host%u", h))
		return (*ret = strdup("srp:")) ? 0 : -ENOMEM;
	if (sysfs_is_dirf(rootfd, path, "sys/class/sas_host/host%u/device", h)) {
		_cleanup_free_ char *phy = sas_low_phy(rootfd, path), *addr = NULL;

		if (!phy)
			return (*ret = strdup("")) ? 0 : -ENOMEM;
		snprintf(path, sizeof(path), "sys/class/sas_phy/%s", phy);
		addr = sysfs_attr_string(rootfd, path, "sas_address");
		if (addr)
			return asprintf(ret, "sas:%s", addr) < 0 ? -ENOMEM : 0;
	}
	if (sysfs_is_dirf(rootfd, path, "sys/class/scsi_host/host%u/device/sas/ha", h)) {
		_cleanup_free_ char *dn = sysfs_attr_string(rootfd, path, "device_name");

		if (dn)
			return asprintf(ret, "sas:%s", dn) < 0 ? -ENOMEM : 0;
	}
	if (sysfs_is_dirf(rootfd, path, "sys/class/iscsi_host/host%u", h))
		return (*ret = strdup("iscsi:")) ? 0 : -ENOMEM;
	snprintf(path, sizeof(path), "sys/class/scsi_host/host%u", h);
	link = sysfs_link_target(rootfd, path);
	if (link && hostfacts_usb_name(link, name, sizeof(name)) == 0)
		return asprintf(ret, "usb:%s", name) < 0 ? -ENOMEM : 0;
	proc = sysfs_attr_string(rootfd, path, "proc_name");
	/* The iSCSI transport class registers iscsi_host/hostN after the scsi_host's "add"
	 * uevent: in between, the software initiator's driver says what the host is. */
	if (streq_ptr(proc, "iscsi_tcp"))
		return (*ret = strdup("iscsi:")) ? 0 : -ENOMEM;
	prefix = hostfacts_ata_prefix(proc);
	return (*ret = strdup(prefix ?: "")) ? 0 : -ENOMEM;
}

char *hostfacts_driver(int rootfd, unsigned h)
{
	char path[PATH_MAX];
	char *proc, *base = NULL;

	snprintf(path, sizeof(path), "sys/class/scsi_host/host%u", h);
	proc = sysfs_attr_string(rootfd, path, "proc_name");
	/* lsscsi skips the placeholders some drivers leave there */
	if (proc && !strneq(proc, "<NULL>", 6) && !strneq(proc, "(null)", 6))
		return proc;
	free(proc);
	snprintf(path, sizeof(path), "sys/class/scsi_host/host%u/device/../driver", h);
	return sysfs_link_basename(rootfd, path, &base) >= 0 ? base : NULL;
}

int hostfacts_transport_kind(const char *transport, char *buf, size_t size)
{
	size_t n;

	assert_return(buf, -EINVAL);
	if (!transport || !*transport)
		transport = HOSTFACTS_TRANSPORT_NONE;
	n = strcspn(transport, ":,");
	/* an iSCSI target port name, "NAME,t,0x1": its name holds ':' only after the type */
	if (transport[n] == ',' || strneq(transport, "iqn.", 4) || strneq(transport, "eui.", 4) ||
	    strneq(transport, "naa.", 4)) {
		transport = "iscsi";
		n = 5;
	}
	if (n >= size)
		return -ENOBUFS;
	memcpy(buf, transport, n);
	buf[n] = 0;
	return 0;
}

int hostfacts_read(int rootfd, unsigned h, HostFacts *ret)
{
	HostFacts f = { .driver = hostfacts_driver(rootfd, h) };
	int r;

	assert_return(ret, -EINVAL);
	r = hostfacts_transport(rootfd, h, &f.transport);
	if (r >= 0 && hostfacts_transport_kind(f.transport, f.kind, sizeof(f.kind)) < 0)
		strcpy(f.kind, HOSTFACTS_TRANSPORT_NONE); /* no kind lsscsi has */
	if (r < 0) {
		free(f.driver);
		return r;
	}
	*ret = f;
	return 0;
}

void hostfacts_done(HostFacts *f)
{
	if (!f)
		return;
	f->driver = mfree(f->driver);
	f->transport = mfree(f->transport);
}
