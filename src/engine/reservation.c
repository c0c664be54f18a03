/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "macro.h"
#include "reservation.h"
#include "sense.h"
#include "sgio.h"
#include "sysfs.h"
#include "unaligned.h"

/* The largest prkeys file read: multipathd writes one line of about 60 bytes per map. */
#define RESV_PRKEYS_MAX (1024u * 1024)
/* The first read asks for this much: 40 registrants with iSCSI names of 64 bytes. */
#define RESV_FIRST_ALLOC 4096

/* One key, "0x" optional, 1..16 hex digits; @end gets what follows. 0 is no key. */
static int parse_key(const char *s, const char **end, uint64_t *ret)
{
	uint64_t v = 0;
	size_t n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; isxdigit((unsigned char)*s); s++, n++) {
		if (n == 16)
			return -EINVAL;
		v = v << 4 |
		    (uint64_t)(isdigit((unsigned char)*s) ? *s - '0'
		                                          : tolower((unsigned char)*s) - 'a' + 10);
	}
	if (n == 0 || v == 0)
		return -EINVAL;
	*end = s;
	*ret = v;
	return 0;
}

int resv_config_parse(const char *value, ResvConfig *ret)
{
	ResvConfig c = {};
	const char *p = value;

	if (!ret)
		return -EINVAL;
	if (!value) {
		*ret = c;
		return 0;
	}
	for (;;) {
		uint64_t k;

		p += strspn(p, " \t,");
		if (!*p)
			break;
		if (strncasecmp(p, "file", 4) == 0 && strchr(" \t,", p[4])) {
			c.prkeys_file = true;
			p += 4;
			continue;
		}
		if (parse_key(p, &p, &k) < 0 || !strchr(" \t,", *p) || c.n_keys == RESV_KEYS_MAX)
			return -EINVAL;
		c.keys[c.n_keys++] = k;
	}
	*ret = c;
	return 0;
}

void resv_config_from_conf(const LundConf *conf, ResvConfig *ret)
{
	const char *v = NULL;

	for (size_t i = 0; conf && i < conf_n_sections(conf); i++) {
		const ConfSection *s = conf_section(conf, i);

		if (s->kind == CONF_SECTION_DEFAULTS && conf_section_get(s, "reservation_key"))
			v = conf_section_get(s, "reservation_key");
	}
	if (resv_config_parse(v, ret) < 0)
		*ret = (ResvConfig){};
}

/* The keys of multipathd's prkeys file ("KEY[:FLAGS] WWID" lines), added to @keys. */
static void prkeys_file_keys(int rootfd, uint64_t *keys, size_t *n, size_t max)
{
	_cleanup_free_ uint8_t *buf = NULL;
	size_t len;
	char *line, *save = NULL;

	if (sysfs_read_attr(rootfd, RESV_PRKEYS_FILE, RESV_PRKEYS_MAX, &buf, &len) < 0)
		return;
	for (line = strtok_r((char *)buf, "\n", &save); line && *n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *end;
		uint64_t k;

		line += strspn(line, " \t");
		if (*line != '#' && parse_key(line, &end, &k) == 0 && strchr(": \t", *end))
			keys[(*n)++] = k;
	}
}

static int hex_port(const char *s, uint8_t port[8])
{
	const char *end;
	uint64_t v;

	if (parse_key(s, &end, &v) < 0 || *end)
		return -EINVAL;
	unaligned_write_be64(port, v);
	return 0;
}

size_t resv_identities(int rootfd, const char *hctl, PrinIdentity *ids, size_t max)
{
	char path[PATH_MAX], s[PRIN_ISCSI_NAME_MAX + 2];
	_cleanup_free_ char *session = NULL;
	unsigned host;
	size_t n = 0;

	if (!hctl || sscanf(hctl, "%u:", &host) != 1 || max == 0)
		return 0;
	/* iSCSI (software or offload): the session's initiator name; the host's for offloads */
	snprintf(path, sizeof(path), "sys/bus/scsi/devices/%s/../../iscsi_session", hctl);
	if (sysfs_first_entry(rootfd, path, "session", &session) >= 0) {
		snprintf(path, sizeof(path), "sys/bus/scsi/devices/%s/../../iscsi_session/%s", hctl,
		         session);
		if (sysfs_attr_string_buf(rootfd, path, "initiatorname", s, sizeof(s)) >= 0 &&
		    s[0] && strlen(s) <= PRIN_ISCSI_NAME_MAX) {
			ids[n] = (PrinIdentity){ .protocol = PRIN_PROTO_ISCSI };
			memcpy(ids[n++].iscsi, s, strlen(s));
		}
	}
	snprintf(path, sizeof(path), "sys/class/iscsi_host/host%u", host);
	if (n < max && sysfs_attr_string_buf(rootfd, path, "initiatorname", s, sizeof(s)) >= 0 &&
	    s[0] && strlen(s) <= PRIN_ISCSI_NAME_MAX && (n == 0 || strcasecmp(ids[0].iscsi, s))) {
		ids[n] = (PrinIdentity){ .protocol = PRIN_PROTO_ISCSI };
		memcpy(ids[n++].iscsi, s, strlen(s));
	}
	/* FC: the host's N_Port name; SAS: the HBA's address (mpt3sas, megaraid_sas, hisi) */
	snprintf(path, sizeof(path), "sys/class/fc_host/host%u", host);
	if (n < max && sysfs_attr_string_buf(rootfd, path, "port_name", s, sizeof(s)) >= 0) {
		ids[n] = (PrinIdentity){ .protocol = PRIN_PROTO_FC };
		n += hex_port(s, ids[n].port) == 0;
	}
	snprintf(path, sizeof(path), "sys/class/scsi_host/host%u", host);
	if (n < max && sysfs_attr_string_buf(rootfd, path, "host_sas_address", s, sizeof(s)) >= 0) {
		ids[n] = (PrinIdentity){ .protocol = PRIN_PROTO_SAS };
		n += hex_port(s, ids[n].port) == 0;
	}
	return n;
}

/* One PERSISTENT RESERVE IN (SPC-4 6.16.1): the whole response, asked again with more room
 * once when the first did not hold it. -ENXIO: LOGICAL UNIT NOT SUPPORTED (ASC 25h); -EPROTO:
 * the service action refused (INVALID FIELD IN CDB, 24h) where another may be taken;
 * -EOPNOTSUPP: the command refused (INVALID COMMAND OPERATION CODE, 20h). */
static int prin_exec(int fd, PrinAction sa, unsigned timeout_ms, uint8_t **ret_buf, size_t *ret_len,
                     unsigned *commands)
{
	_cleanup_free_ uint8_t *buf = NULL;
	size_t want = RESV_FIRST_ALLOC;
	int r = -EIO;

	for (unsigned attempt = 0; attempt < 2; attempt++) {
		uint8_t cdb[10] = { 0x5e, (uint8_t)sa };
		SgioResult res = {};
		ScsiSense sense;
		size_t need;

		free(buf);
		buf = calloc(1, want);
		if (!buf)
			return -ENOMEM;
		unaligned_write_be16(cdb + 7, (uint16_t)want);
		r = sgio_exec_retry(fd, cdb, sizeof(cdb), buf, want, timeout_ms, &res);
		*commands += res.commands;
		if (r == -EOPNOTSUPP && sense_parse(res.sense, res.sense_len, &sense) >= 0 &&
		    sense.have_asc && (sense.asc == 0x25 || sense.asc == 0x24))
			return sense.asc == 0x25 ? -ENXIO : -EPROTO;
		if (r < 0)
			return r;
		r = prin_response_len(buf, res.len, &need);
		if (r < 0)
			return r;
		if (need <= want) {
			*ret_len = MIN(need, res.len);
			*ret_buf = TAKE_PTR(buf);
			return 0;
		}
		if (need > PRIN_ALLOC_MAX)
			return -ENOBUFS;
		want = need;
	}
	return -EBADMSG;
}

int resv_read(int rootfd, const char *node, const char *hctl, const ResvConfig *cfg,
              unsigned timeout_ms, PrinStatus *ret, unsigned *commands)
{
	_cleanup_free_ uint8_t *a = NULL, *b = NULL;
	_cleanup_close_ int fd = -EBADF;
	uint64_t keys[RESV_KEYS_MAX * 2];
	PrinIdentity ids[RESV_IDS_MAX];
	char path[PATH_MAX];
	size_t alen, blen, n_keys = 0, n_ids;
	int r;

	if (!node || !ret || !commands)
		return -EINVAL;
	if (snprintf(path, sizeof(path), "dev/%s", node) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	/* O_NONBLOCK: never wait for another opener of sg; read-only is enough for PR IN */
	fd = openat(rootfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (cfg) {
		memcpy(keys, cfg->keys, cfg->n_keys * sizeof(keys[0]));
		n_keys = cfg->n_keys;
		if (cfg->prkeys_file)
			prkeys_file_keys(rootfd, keys, &n_keys, ELEMENTSOF(keys));
	}
	n_ids = resv_identities(rootfd, hctl, ids, ELEMENTSOF(ids));

	r = prin_exec(fd, PRIN_READ_FULL_STATUS, timeout_ms, &a, &alen, commands);
	if (r >= 0)
		return prin_parse_full_status(a, alen, ids, n_ids, keys, n_keys, ret);
	/* no PERSISTENT RESERVE IN at all: one command, not three */
	if (r != -EPROTO)
		return r;
	/* SPC-3 devices without READ FULL STATUS: the keys and the reservation, no names */
	r = prin_exec(fd, PRIN_READ_KEYS, timeout_ms, &a, &alen, commands);
	if (r >= 0)
		r = prin_exec(fd, PRIN_READ_RESERVATION, timeout_ms, &b, &blen, commands);
	if (r < 0)
		return r == -EPROTO ? -EOPNOTSUPP : r;
	return prin_parse_keys_reservation(a, alen, b, blen, keys, n_keys, ret);
}

bool resv_type_applies(int type)
{
	return type < 0 || type == 0x00 || type == 0x01 || type == 0x07 || type == 0x0e ||
	       type == 0x14;
}

int resv_read_scan_lu(int rootfd, const ScanLu *lu, const ResvConfig *cfg, PrinStatus *ret)
{
	char node[sizeof(lu->hctl) + 8];
	unsigned cmds = 0;

	if (!resv_type_applies(lu->type))
		return -EOPNOTSUPP;
	if (lu->sg)
		snprintf(node, sizeof(node), "%s", lu->sg);
	else
		snprintf(node, sizeof(node), "bsg/%s", lu->hctl);
	return resv_read(rootfd, node, lu->hctl, cfg, RESV_TIMEOUT_MS, ret, &cmds);
}

bool resv_can_tell(int rootfd, const char *hctl, const ResvConfig *cfg)
{
	PrinIdentity ids[RESV_IDS_MAX];

	return (cfg && (cfg->n_keys > 0 || cfg->prkeys_file)) ||
	       resv_identities(rootfd, hctl, ids, ELEMENTSOF(ids)) > 0;
}

bool resv_ours(const PrinStatus *st)
{
	return st && (st->registered_us || st->holder_us);
}

bool resv_decide(int r, const PrinStatus *now, const PrinStatus *remembered, char *why, size_t size)
{
	char d[PRIN_DESCRIBE_MAX];

	if (r >= 0 && now) {
		(void)prin_describe(now, d, sizeof(d));
		snprintf(why, size, "%s: %s", resv_ours(now) ? "reserved" : "reservations", d);
		return resv_ours(now);
	}
	if (r == -EOPNOTSUPP) {
		snprintf(why, size, "no persistent reservations (PERSISTENT RESERVE IN refused)");
		return false;
	}
	/* The LU no longer answers (masked: LOGICAL UNIT NOT SUPPORTED) or the read failed:
	 * what was read while it answered decides. */
	if (remembered) {
		(void)prin_describe(remembered, d, sizeof(d));
		snprintf(why, size, "%s when last read: %s; now: %s",
		         resv_ours(remembered) ? "reserved" : "reservations", d,
		         r == -ENXIO ? "the LU no longer answers" : strerrorname_np(-r) ?: "EIO");
		return resv_ours(remembered);
	}
	snprintf(why, size, "reservations unknown: %s; this host was not known registered",
	         r == -ENXIO ? "the LU no longer answers" : strerrorname_np(-r) ?: "EIO");
	return false;
}
