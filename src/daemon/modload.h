/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Driver loading for systems without udevd (initramfs, containers, mdev): nobody else loads
 * sd_mod, sr_mod, st or sg for a new logical unit there, and its disk never appears. lund loads
 * the module matching each new LU's MODALIAS through libkmod, as udev's kmod builtin does, plus
 * sg (Debian's 80-drivers.rules loads it for every scsi_device) and scsi_dh_alua for LUs that
 * report ALUA support (INQUIRY TPGS). Where udevd runs (/run/udev/control exists) it is left
 * to udevd.
 */

#include <stdbool.h>

typedef struct ModLoader ModLoader;

typedef enum ModLoadMode {
	MODLOAD_AUTO, /* only while udevd is not running */
	MODLOAD_ALWAYS,
	MODLOAD_NEVER,
} ModLoadMode;

/* modload_new() - NULL in *ret (and 0) when built without libkmod or @mode is NEVER. */
int modload_new(int rootfd, ModLoadMode mode, ModLoader **ret);
ModLoader *modload_free(ModLoader *ml);

/*
 * modload_prepare() - load libkmod and set up its context now; modload_lu() does it when it first
 * has a driver to load: libkmod is dlopen()ed, not linked, so that lund maps neither it nor
 * libcrypto where udevd loads the drivers. Returns 0, -EOPNOTSUPP for NULL (not loading), or
 * -errno (logged the first time; modload_lu() then loads nothing).
 */
int modload_prepare(ModLoader *ml);

/* Is loading on right now (AUTO: udevd absent)? */
bool modload_active(ModLoader *ml);

/*
 * modload_lu() - load what the LU at sysfs @syspath (relative to the root) needs: its MODALIAS
 * (@modalias, or read from sysfs when NULL), sg, and scsi_dh_alua when TPGS is set. Logs what
 * it loads and failures. Returns the number of modules newly loaded, or -errno.
 */
int modload_lu(ModLoader *ml, const char *hctl, const char *syspath, const char *modalias);
