/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * `lunctl list`'s rows from sysfs: the LUs lunctl identifies itself, and their transports,
 * sizes and hosts, read where lsscsi 0.31 (Debian 12) and 0.32 read them and in the same order
 * of precedence (its transport_init() for hosts, transport_tport() for LUs), so that `lunctl
 * list --transport --size` and `lsscsi -t -s` agree field for field.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "hostfacts.h"
#include "identify.h"
#include "log.h"
#include "lunctl-list-fmt.h"
#include "lunctl-list.h"
#include "macro.h"
#include "output.h"
#include "reservation.h"
#include "sysfs.h"

/* The iSCSI session (under the host's device) that holds target H:C:T, -1 when none. */
static long iscsi_session(int rootfd, unsigned h, const char *hctl)
{
	char path[PATH_MAX], hct[64];
	_cleanup_(closedirp) DIR *d = NULL;
	const char *last = strrchr(hctl, ':');
	long found = -1;

	if (!last || (size_t)(last - hctl) >= sizeof(hct))
		return -1;
	snprintf(hct, sizeof(hct), "%.*s", (int)(last - hctl), hctl);
	snprintf(path, sizeof(path), "sys/class/iscsi_host/host%u/device", h);
	if (sysfs_opendir(rootfd, path, &d) < 0)
		return -1;
	for (struct dirent *de; (de = readdir(d));) {
		char sub[PATH_MAX];

		if (!strneq(de->d_name, "session", 7) ||
		    !sysfs_is_dirf(rootfd, sub, "%s/%s/target%s", path, de->d_name, hct))
			continue;
		found = strtol(de->d_name + 7, NULL, 10);
	}
	return found;
}

/* The transport lsscsi -t prints for the LU at @hctl on host @h: "sas:0x...", "fc:0x...,0x...",
 * "iqn...,t,0x1", "usb:1-1:1.0", "sata:<LU name>", "spi:<target>"; "" when lsscsi prints none.
 * Returns 0 with a malloc'd string, -ENOMEM. */
static int lu_transport(int rootfd, const char *hctl, unsigned h, unsigned t, char **ret)
{
	char path[PATH_MAX], name[1024];
	_cleanup_free_ char *proc = NULL, *link = NULL;
	const char *prefix;

	if (sysfs_is_dirf(rootfd, path, "sys/class/sas_host/host%u", h)) {
		_cleanup_free_ char *addr = NULL;

		/* the SAS end device is two levels above the LU: end_device-H:N/targetH:C:T/H:C:T:L
		 */
		snprintf(path, sizeof(path), "sys/bus/scsi/devices/%s", hctl);
		link = sysfs_link_target(rootfd, path);
		if (!link || list_path_component(link, 2, name, sizeof(name)) < 0)
			return (*ret = strdup("")) ? 0 : -ENOMEM;
		snprintf(path, sizeof(path), "sys/class/sas_device/%s", name);
		addr = sysfs_attr_string(rootfd, path, "sas_address");
		/* a device without a SAS address in a SAS domain (SATA behind an expander) */
		return asprintf(ret, "sas:%s", addr ?: "0x0000000000000000") < 0 ? -ENOMEM : 0;
	}
	if (sysfs_is_dirf(rootfd, path, "sys/class/spi_host/host%u", h))
		return asprintf(ret, "spi:%u", t) < 0 ? -ENOMEM : 0;
	if (sysfs_is_dirf(rootfd, path, "sys/class/fc_host/host%u", h)) {
		char tdir[PATH_MAX];
		const char *last = strrchr(hctl, ':');

		snprintf(tdir, sizeof(tdir), "sys/class/fc_transport/target%.*s",
		         last ? (int)(last - hctl) : 0, hctl);
		return hostfacts_fc_string(rootfd, tdir, path, ret);
	}
	if (sysfs_is_dirf(rootfd, path, "sys/class/srp_host/host%u", h))
		return (*ret = strdup("srp:")) ? 0 : -ENOMEM;
	if (sysfs_is_dirf(rootfd, path, "sys/bus/scsi/devices/%s/sas_device", hctl)) {
		_cleanup_free_ char *addr = sysfs_attr_string(rootfd, path, "sas_addr");

		if (addr)
			return asprintf(ret, "sas:%s", addr) < 0 ? -ENOMEM : 0;
	} else {
		_cleanup_free_ char *id = NULL;

		snprintf(path, sizeof(path), "sys/bus/scsi/devices/%s", hctl);
		id = sysfs_attr_string(rootfd, path, "ieee1394_id");
		if (id)
			return asprintf(ret, "sbp:%s:", id) < 0 ? -ENOMEM : 0;
	}
	if (sysfs_is_dirf(rootfd, path, "sys/class/iscsi_host/host%u/device", h)) {
		long s = iscsi_session(rootfd, h, hctl);
		_cleanup_free_ char *tn = NULL, *tpgt = NULL;

		if (s < 0)
			return (*ret = strdup("")) ? 0 : -ENOMEM;
		snprintf(path, sizeof(path), "sys/class/iscsi_session/session%ld", s);
		tn = sysfs_attr_string(rootfd, path, "targetname");
		tpgt = sysfs_attr_string(rootfd, path, "tpgt");
		if (!tn || !tpgt)
			return (*ret = strdup("")) ? 0 : -ENOMEM;
		/* SAM-4's iSCSI target port name: name ",t,0x" portal group tag */
		return asprintf(ret, "%s,t,0x%x", tn, (unsigned)strtoul(tpgt, NULL, 10)) < 0
		               ? -ENOMEM
		               : 0;
	}
	snprintf(path, sizeof(path), "sys/class/scsi_device/%s", hctl);
	link = sysfs_link_target(rootfd, path);
	if (link && hostfacts_usb_name(link, name, sizeof(name)) == 0)
		return asprintf(ret, "usb:%s", name) < 0 ? -ENOMEM : 0;

	snprintf(path, sizeof(path), "sys/class/scsi_host/host%u", h);
	proc = sysfs_attr_string(rootfd, path, "proc_name");
	prefix = hostfacts_ata_prefix(proc);
	if (prefix) {
		_cleanup_free_ uint8_t *page = NULL;
		size_t len = 0;
		int r;

		/* lsscsi reads the first 512 bytes of the page */
		snprintf(path, sizeof(path), "sys/bus/scsi/devices/%s/vpd_pg83", hctl);
		r = sysfs_read_attr(rootfd, path, SYSFS_ATTR_MAX, &page, &len);
		name[0] = 0;
		if (r >= 0)
			(void)list_lu_name(page, MIN(len, (size_t)512), name, sizeof(name));
		return asprintf(ret, "%s%s", prefix, name) < 0 ? -ENOMEM : 0;
	}
	return (*ret = strdup("")) ? 0 : -ENOMEM;
}

/* The size in bytes lsscsi -s shows for an LU of type @pdt with block device @block (NULL:
 * none): only direct-access types (disk, cd/dvd, sim dsk, zbc). Returns 0, -ENODATA when it
 * shows none ("-"). */
static int lu_size(int rootfd, int pdt, const char *block, uint64_t *ret)
{
	char path[PATH_MAX];
	uint64_t sectors;

	/* lsscsi's is_direct_access_dev() */
	if (!block || (pdt != 0x0 && pdt != 0x5 && pdt != 0xe && pdt != 0x14))
		return -ENODATA;
	snprintf(path, sizeof(path), "sys/class/block/%s", block);
	/* the block layer counts 512-byte sectors whatever the logical block size */
	if (sysfs_attr_u64(rootfd, path, "size", &sectors) < 0 || sectors == 0 ||
	    sectors > UINT64_MAX / 512)
		return -ENODATA;
	*ret = sectors * 512;
	return 0;
}

/* Identify the LU of @w (its lu filled) as @flags say into @w: its error when that fails. */
static int row_identify(int rootfd, ProbeFlags flags, Row *w)
{
	_cleanup_(identity_done) Identity ident = {};
	const ScsiIdent *id;
	bool oom = false;
	int r;

	r = identify_lu(rootfd, &w->lu, &(IdentifyOptions){ .flags = flags }, &ident);
	if (r < 0) {
		LogDevice dev = { .hctl = w->lu.hctl };

		w->error = r;
		log_device_full(LOG_WARNING, r, &dev, "cannot identify: %m");
		return 0;
	}
	id = ident.id;
	w->type = row_strdup(id->type, &oom);
	w->vendor = row_strdup(id->vendor, &oom);
	w->model = row_strdup(id->model, &oom);
	w->revision = row_strdup(id->revision, &oom);
	if (id->have_serial)
		w->serial = row_strdup(id->serial, &oom);
	/* scsi_id's set only, as lund serves it. */
	w->properties = output_lines_json(ident.lines, ident.udev_size);
	if (!w->properties)
		oom = true;
	for (size_t k = 0; !oom && k < ident.names->n; k++)
		if (row_add_name(w, ident.names->name[k]) < 0)
			oom = true;
	return oom ? -ENOMEM : 0;
}

int list_rows_from_sysfs(int rootfd, ProbeFlags flags, const ListFilter *filter, Row **ret,
                         size_t *ret_n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	Row *rows = NULL;
	size_t n = 0, allocated = 0;
	int r;

	r = sysfs_opendir(rootfd, "sys/bus/scsi/devices", &d);
	if (r == -ENOENT)
		r = 0; /* no SCSI subsystem at all: nothing to list, not an error */
	else if (r < 0)
		return r;
	for (struct dirent *de; d && r >= 0 && (de = readdir(d));) {
		LuRef lu;
		Row *w;

		/* host*, target* and the transport's objects live here too: only H:C:T:L. */
		if (probe_resolve(rootfd, de->d_name, &lu) < 0)
			continue;
		/* identify only what is to be shown */
		if (!list_filter_match(filter, lu.host, lu.channel, lu.target, lu.lun)) {
			lu_ref_done(&lu);
			continue;
		}
		w = rows_append(&rows, &n, &allocated);
		if (!w) {
			lu_ref_done(&lu);
			r = -ENOMEM;
			break;
		}
		w->lu = lu;
		r = row_identify(rootfd, flags, w);
	}
	if (r < 0) {
		rows_free(rows, n);
		return r;
	}
	*ret = rows;
	*ret_n = n;
	return 0;
}

void list_rows_read_sysfs(int rootfd, Row *rows, size_t n, bool transport, bool size)
{
	for (size_t i = 0; i < n; i++) {
		Row *w = &rows[i];
		char path[PATH_MAX];
		uint64_t pdt;

		snprintf(path, sizeof(path), "sys/bus/scsi/devices/%s", w->lu.hctl);
		w->pdt = sysfs_attr_u64(rootfd, path, "type", &pdt) < 0 || pdt > 31 ? -1 : (int)pdt;
		if (!w->state)
			w->state = sysfs_attr_string(rootfd, path, "state");
		if (transport &&
		    lu_transport(rootfd, w->lu.hctl, w->lu.host, w->lu.target, &w->transport) < 0)
			w->transport = NULL;
		if (size)
			w->have_size = lu_size(rootfd, w->pdt, w->lu.block, &w->size) >= 0;
	}
}

/* One row's reservations: the words of `-o PR` and the JSON object "pr". */
static void row_read_pr(int rootfd, Row *w, const ResvConfig *cfg)
{
	ScanLu lu = { .type = w->pdt, .sg = w->lu.sg };
	char text[PRIN_DESCRIBE_MAX];
	json_object *o;
	PrinStatus st;
	int r;

	snprintf(lu.hctl, sizeof(lu.hctl), "%s", w->lu.hctl);
	r = resv_read_scan_lu(rootfd, &lu, cfg, &st);
	if (r == -EOPNOTSUPP && !resv_type_applies(w->pdt))
		return; /* not asked: "-", null */
	o = json_object_new_object();
	if (r < 0) {
		/* refused: the device has no persistent reservations */
		snprintf(text, sizeof(text), "%s",
		         r == -EOPNOTSUPP ? "unsupported" : strerrorname_np(-r) ?: "EIO");
		json_object_object_add(o, "error", json_object_new_string(text));
	} else {
		char holder[PRIN_ISCSI_NAME_MAX + 1];

		(void)prin_describe(&st, text, sizeof(text));
		json_object_object_add(o, "keys", json_object_new_int64(st.n_keys));
		json_object_object_add(o, "registered_this_host",
		                       json_object_new_boolean(st.registered_us));
		json_object_object_add(o, "reserved", json_object_new_boolean(st.reserved));
		json_object_object_add(o, "type",
		                       st.reserved && prin_type_name(st.type)
		                               ? json_object_new_string(prin_type_name(st.type))
		                               : NULL);
		json_object_object_add(o, "holder_this_host",
		                       json_object_new_boolean(st.holder_us));
		json_object_object_add(o, "holder",
		                       st.holder_known &&
		                                       prin_format_transport_id(&st.holder, holder,
		                                                                sizeof(holder)) >= 0
		                               ? json_object_new_string(holder)
		                               : NULL);
		json_object_object_add(o, "holder_key",
		                       st.reserved ? json_object_new_uint64(st.holder_key) : NULL);
		json_object_object_add(o, "full_status", json_object_new_boolean(st.full_status));
	}
	json_object_object_add(o, "text", json_object_new_string(text));
	w->pr = strdup(text);
	w->pr_json = o;
}

void list_rows_read_pr(int rootfd, Row *rows, size_t n, const char *conf_path)
{
	_cleanup_(conf_unrefp) LundConf *conf = NULL;
	ResvConfig cfg;

	(void)conf_load_file(conf_path, &conf);
	resv_config_from_conf(conf, &cfg);
	for (size_t i = 0; i < n; i++)
		row_read_pr(rootfd, &rows[i], &cfg);
}

static int host_cmp(const void *a, const void *b)
{
	const Host *x = a, *y = b;

	return CMP(x->host, y->host);
}

int list_hosts_from_sysfs(int rootfd, const ListFilter *filter, bool transport, Host **ret,
                          size_t *ret_n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	Host *v = NULL;
	size_t n = 0;
	int r;

	r = sysfs_opendir(rootfd, "sys/class/scsi_host", &d);
	if (r == -ENOENT) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	if (r < 0)
		return r;
	for (struct dirent *de; (de = readdir(d));) {
		unsigned h;

		if (sysfs_scsi_host_parse(de->d_name, &h) < 0 || !list_filter_match_host(filter, h))
			continue;
		if (GREEDY_REALLOC_EXACT(v, n + 1) < 0) {
			hosts_free(v, n);
			return -ENOMEM;
		}
		v[n] = (Host){ .host = h, .driver = hostfacts_driver(rootfd, h) };
		n++;
		if (transport && hostfacts_transport(rootfd, h, &v[n - 1].transport) < 0) {
			hosts_free(v, n);
			return -ENOMEM;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), host_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}
