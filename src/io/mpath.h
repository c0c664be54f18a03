/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * dm-multipath's claim on a path: multipathd stacks a device-mapper device on every path of an
 * LU, and sysfs lists it among each path's holders (sys/class/block/<node>/holders/dm-N) with
 * a dm/uuid of "mpath-<wwid>" (the kernel's dm-ioctl uuid, set by multipath-tools). udev names
 * that device /dev/disk/by-id/dm-uuid-mpath-<wwid>.
 */

/*
 * mpath_holder() - the dm-multipath device holding block node @block ("sdb") below @rootfd:
 * its node ("dm-3") and dm uuid ("mpath-3600..."), both allocated. Holders that are not
 * multipath maps (LVM, crypt: other uuid prefixes) are skipped; the first multipath one in
 * name order is returned. Returns 0; -ENOENT when no multipath map holds @block (or it has no
 * holders directory); -EINVAL for a @block that is not a plain node name; -ENOMEM.
 */
int mpath_holder(int rootfd, const char *block, char **ret_dm, char **ret_uuid);
