/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Persistent reservations before a removal (lund(8) RESERVATIONS): the one check lund and
 * `lunctl rescan` make before an LU a successful REPORT LUNS no longer lists is removed. An LU
 * this host is registered on, or whose reservation it holds, is kept: a cluster (pacemaker's
 * fence_scsi, mpathpersist, a clustered volume manager) counts on its registration, and a
 * masking change that hides the LU for a while must not take the device away underneath it.
 *
 * "This host" is an initiator port of the LU's SCSI host, as READ FULL STATUS names each
 * registrant by its TransportID (core/prin.h): the iSCSI initiator name of the LU's session
 * (or of an offload host), the FC host's port_name, the SAS host's address; and any key the
 * admin configured (lund.conf(5) reservation_key, multipath.conf's habit, or "file" for the
 * keys in multipathd's /etc/multipath/prkeys). Without READ FULL STATUS (READ KEYS and READ
 * RESERVATION carry no TransportID) only a configured key tells.
 *
 * Threads: nothing here keeps state; any thread may call it (the scan workers do). The reads
 * send SCSI commands and may wait for the device: never from the event loop.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "prin.h"
#include "scan.h"

/* Each PERSISTENT RESERVE IN lund sends: a device that answers nothing costs this once. */
#define RESV_TIMEOUT_MS 10000
/* At most this many configured keys, and initiator port identities per SCSI host. */
#define RESV_KEYS_MAX 64
#define RESV_IDS_MAX  8
/* multipathd's keys file (multipath.conf reservation_key "file"), relative to the root. */
#define RESV_PRKEYS_FILE "etc/multipath/prkeys"

typedef struct ResvConfig {
	uint64_t keys[RESV_KEYS_MAX];
	size_t n_keys;
	bool prkeys_file; /* reservation_key = file: the keys of RESV_PRKEYS_FILE as well */
} ResvConfig;

/*
 * resv_config_parse() - [defaults] reservation_key = "0x1234 0xabcd", or "file": into @ret.
 * Returns 0 (also without the key), -EINVAL with @ret unchanged for a value that is no list of
 * non-zero 64-bit hex keys (at most RESV_KEYS_MAX) or "file".
 */
int resv_config_parse(const char *value, ResvConfig *ret);
/* resv_config_from_conf() - the [defaults] reservation_key of @conf (NULL: none). An invalid
 * value configures no key (lunctl check-config reports it). */
void resv_config_from_conf(const LundConf *conf, ResvConfig *ret);

/*
 * resv_identities() - the initiator port identities of the SCSI host of the LU @hctl, read
 * below @rootfd, into @ids (at most @max). Returns how many were found (0: none known, e.g.
 * scsi_debug or a parallel SCSI HBA).
 */
size_t resv_identities(int rootfd, const char *hctl, PrinIdentity *ids, size_t max);

/*
 * resv_read() - the LU's reservations through its node @node ("sg3", "bsg/2:0:0:1", relative
 * to dev/): READ FULL STATUS, or READ KEYS with READ RESERVATION when the device does not take
 * it, judged for this host (resv_identities(), @cfg's keys). Adds the commands sent to
 * *@commands. Returns 0 with @ret; -ENXIO when the device says the LU is not there for this
 * host (LOGICAL UNIT NOT SUPPORTED: masked, or removed on the target); -EOPNOTSUPP when it has
 * no PERSISTENT RESERVE IN (no reservation can exist then); -EBADMSG; other -errno (sgio.h).
 */
int resv_read(int rootfd, const char *node, const char *hctl, const ResvConfig *cfg,
              unsigned timeout_ms, PrinStatus *ret, unsigned *commands);

/*
 * resv_decide() - keep the LU instead of removing it? @r and @now are resv_read()'s, made just
 * now; @remembered (NULL: nothing) what was read while the LU still answered (the daemon's
 * memory; `lunctl rescan` has none). True: keep, with the reason in @why (@size bytes):
 * "reserved: 1 key (this host), WE held by this host", "reserved when last read: ...; the LU
 * no longer answers". False: nothing of this host's was seen, with what was seen in @why:
 * "reservations: none", "reservations unknown: the LU no longer answers; ..." — the LU is removed
 * then (lund(8) RESERVATIONS says why).
 */
bool resv_decide(int r, const PrinStatus *now, const PrinStatus *remembered, char *why,
                 size_t size);

/* The peripheral types whose removal a cluster would notice, and whose reservations lund reads:
 * disks (direct access, optical, RBC, host-managed zoned) and tapes; -1 (unknown) too. */
bool resv_type_applies(int type);

/*
 * resv_read_scan_lu() - resv_read() for the LU a scan is about to remove, through its sg node
 * or else its bsg node. Returns as resv_read(); -EOPNOTSUPP for a type resv_type_applies()
 * leaves out (nothing read).
 */
int resv_read_scan_lu(int rootfd, const ScanLu *lu, const ResvConfig *cfg, PrinStatus *ret);

/*
 * resv_can_tell() - whether this host could be recognised among the registrants of the LU
 * @hctl at all: it has an initiator port identity (resv_identities()) or @cfg configures a key.
 * Without either (scsi_debug, virtio-scsi, parallel SCSI, no reservation_key) reading the
 * reservations before a removal could never keep the LU: lund sends no command then.
 */
bool resv_can_tell(int rootfd, const char *hctl, const ResvConfig *cfg);

/* Whether @st shows this host registered or holding the reservation. */
bool resv_ours(const PrinStatus *st);
