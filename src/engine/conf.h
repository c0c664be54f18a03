/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * lund.conf(5) sections, shared by the policy (daemon) and the scan quirks (engine): a
 * [defaults] section and [device "NAME"] sections whose vendor= and model= globs (default "*")
 * select the LUs they apply to.
 */

#include <iniparser/iniparser.h>
#include <stdbool.h>

typedef struct ConfSection {
	char *name;   /* the device section's NAME ("device" when it has none); NULL for defaults */
	char *vendor; /* globs; NULL for defaults */
	char *model;
} ConfSection;

void conf_section_done(ConfSection *s);

/*
 * conf_section_parse() - what section @sec of @d is. Returns 1 with @ret filled for a device
 * section, 0 for [defaults] (@ret zeroed), -ENOENT for any other section, -ENOMEM.
 */
int conf_section_parse(dictionary *d, const char *sec, ConfSection *ret);

/*
 * conf_section_applies() - does @s apply to an LU with this vendor and model (case-insensitive
 * globs)? The rules apply [defaults] first (@pass 0), then the device sections in file order
 * (@pass 1), the last one winning: true only for sections of that pass.
 */
bool conf_section_applies(const ConfSection *s, int pass, const char *vendor, const char *model);
