/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The daemon's state and glue: the event loop, the kernel monitor feeding the inventory, the
 * inventory's changes turned into links (with collision resolution), and the control socket's
 * requests answered from all of it.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "inventory.h"
#include "probe.h"

/* When the daemon scans hosts itself (--scan=): see lund(8), "SCANNING". */
typedef enum ManagerScanMode {
	MANAGER_SCAN_AUTO,   /* only when the kernel does not: scsi_mod.scan=manual */
	MANAGER_SCAN_ALWAYS, /* at start-up and on every new host, whatever the kernel does */
	MANAGER_SCAN_NEVER,
	_MANAGER_SCAN_MAX,
	_MANAGER_SCAN_INVALID = -EINVAL,
} ManagerScanMode;

const char *manager_scan_mode_to_string(ManagerScanMode m);

/* Who makes the links of lund's own trees (lund(8), UDEV). */
typedef enum ManagerUdevLinks {
	MANAGER_UDEV_LINKS_AUTO,   /* udev, where udevd runs and 59-lund.rules is installed */
	MANAGER_UDEV_LINKS_ALWAYS, /* udev, from lund's records */
	MANAGER_UDEV_LINKS_NEVER,  /* lund itself */
} ManagerUdevLinks;

typedef struct ManagerConfig {
	const char *root;               /* the tree sysfs and /dev are read from: "/" */
	const char *run_dir;            /* absolute: control socket and link records */
	const char *link_dir;           /* below root: "dev/scsi/by-id" */
	const char *disk_link_dir;      /* below root, or NULL: "dev/disk/by-id" */
	const char *path_link_dir;      /* below root, or NULL: "dev/scsi/by-path" */
	const char *disk_path_link_dir; /* below root, or NULL: "dev/disk/by-path" */
	size_t receive_buffer;          /* 0: the default */
	ProbeFlags probe_flags;
	bool no_monitor;             /* tests: do not listen to kernel uevents */
	const char *conf_path;       /* lund.conf(5); NULL: /etc/lund/lund.conf */
	const char *hwdb_path;       /* compiled hwdb; NULL: the system's */
	int modload;                 /* ModLoadMode (modload.h): driver loading without udevd */
	const char *error_threshold; /* "CLASS:N/T:ACTION" (errors.h); NULL: the default */
	bool error_events;           /* patched kernel: error events rather than counters */
	ManagerScanMode scan;        /* host scans by the daemon */
	ManagerUdevLinks udev_links; /* who makes lund's links */
	const char *state_dir;       /* below root: the name records, "var/lib/lund"; NULL: none */
} ManagerConfig;

/*
 * lund's exit status (lund(8), EXIT STATUS), chosen for systemd's restart rules: the unit's
 * Restart=on-failure restarts after LUND_EXIT_FAILURE and LUND_EXIT_SCAN_STUCK, and its
 * RestartPreventExitStatus= keeps a bad command line from being retried forever.
 */
#define LUND_EXIT_OK         0
#define LUND_EXIT_FAILURE    1  /* start-up failed (another lund on the run dir, no socket, ...) */
#define LUND_EXIT_USAGE      2  /* invalid command line: LSB "invalid or excess arguments" */
#define LUND_EXIT_SCAN_STUCK 75 /* stopped, a scan left stuck in the kernel: EX_TEMPFAIL */

typedef struct Manager Manager;

int manager_new(const ManagerConfig *config, Manager **ret);
Manager *manager_free(Manager *m);

/* Open the monitor and the control socket, build the inventory, reconcile the links, scan the
 * hosts when the kernel does not (the scan runs in the loop's background), and signal readiness
 * once that scan and the names it brings are done. */
int manager_start(Manager *m);

/* Apply one kernel uevent, as the monitor does for each it receives (also: replay harnesses). */
void manager_handle_uevent(Manager *m, const Uevent *ev);

/* LUs being identified off the loop: their names come in a later loop iteration. */
size_t manager_n_identifying(const Manager *m);

/* Run until SIGTERM/SIGINT; returns the exit code the loop was left with. */
int manager_run(Manager *m);
