/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/*
 * lunctl loads libjson-c, libsmartcols, libiniparser, libsystemd (for sd-hwdb) and libsgutils2
 * (SG_IO) on first use instead of at exec: `lunctl id` runs once per device from udev rules and
 * needs none of them where the kernel cached the pages, and mapping them (libsystemd brings five
 * more) was most of its run time. lunctl-libs.c defines
 * each function lunctl calls from them, under the library's own name and prototype, as a stub
 * that loads the library once and calls its function; the build links none of them (see
 * src/cli/meson.build; tests/install/check-needed keeps it so).
 */

/*
 * dl_load_or_exit() - dlopen(@soname) and resolve @names[0..n) into @ret_fns. A library
 * lunctl's package depends on that cannot be loaded is a broken installation: it logs why
 * and exits with EXIT_DEVICE, as the dynamic loader would have failed at exec.
 */
void dl_load_or_exit(const char *soname, const char *const *names, void **ret_fns, size_t n);
