/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "namerule.h"
#include "names.h"

static const char *const rule_names[_NAME_RULE_MAX] = {
	[NAME_RULE_IDENTITY] = "identity",
	[NAME_RULE_SERIAL_PATH] = "serial-path",
	[NAME_RULE_UNIT_SERIAL] = "unit-serial",
};

DEFINE_NAME_LOOKUP(name_rule_to_string, NameRule, rule_names)
DEFINE_NAME_PARSE(name_rule_from_string, NameRule, rule_names)

typedef struct LookupCtx {
	NameRule rule;
	bool set;
} LookupCtx;

static void on_property(const char *key, const char *value, void *userdata)
{
	LookupCtx *c = userdata;
	NameRule r;

	if (!streq(key, NAME_RULE_HWDB_KEY))
		return;
	r = name_rule_from_string(value);
	if (r < 0)
		return;
	c->rule = r;
	c->set = true;
}

int name_rule_lookup(Hwdb *h, const NameRuleQuery *q, NameRule *ret_rule, char **ret_match)
{
	_cleanup_free_ char *usb = NULL, *scsi = NULL;
	char **winner = NULL;
	LookupCtx c = { NAME_RULE_IDENTITY, false };

	assert_return(q && ret_rule, -EINVAL);

	if (h && q->have_usb) {
		usb = hwdb_modalias_usb(q->usb_vendor, q->usb_product);
		if (!usb)
			return -ENOMEM;
		/* A failed lookup contributes nothing, as for the policy's. */
		(void)hwdb_lookup(h, usb, on_property, &c);
		if (c.set)
			winner = &usb;
	}
	if (h) {
		scsi = hwdb_modalias(q->type, q->vendor, q->model, q->revision);
		if (!scsi)
			return -ENOMEM;
		c.set = false;
		(void)hwdb_lookup(h, scsi, on_property, &c);
		if (c.set)
			winner = &scsi;
	}
	*ret_rule = c.rule;
	if (ret_match)
		*ret_match = winner && c.rule != NAME_RULE_IDENTITY ? TAKE_PTR(*winner) : NULL;
	return 0;
}

int name_rule_check(const char *key, const char *value)
{
	if (!key || !streq(key, NAME_RULE_HWDB_KEY))
		return -ENOENT;
	return name_rule_from_string(value) < 0 ? -EINVAL : 0;
}

int name_rule_unit_serial(const ScsiIdentInput *in, char ret[static NAME_MAX + 1])
{
	_cleanup_free_ ScsiIdent *id = NULL;
	ScsiIdentInput in80;
	int r;

	assert_return(in, -EINVAL);
	id = malloc(sizeof(*id));
	if (!id)
		return -ENOMEM;
	in80 = *in;
	in80.page = IDENT_PAGE_80;
	r = ident_compute(&in80, id);
	/* -ENODATA without INQUIRY data: no vendor and product for the name. */
	if (r < 0)
		return r;
	return names_unit_serial(id, ret);
}

int name_rule_name(NameRule rule, const char *first, const char *id_path, const ScsiIdentInput *in,
                   char ret[static NAME_MAX + 1])
{
	int r;

	ret[0] = 0;
	if (!first)
		return 0;
	if (rule == NAME_RULE_SERIAL_PATH)
		r = names_serial_path(first, id_path, ret);
	else if (rule == NAME_RULE_UNIT_SERIAL && in)
		r = name_rule_unit_serial(in, ret);
	else
		return 0;
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		ret[0] = 0;
		return 0;
	}
	return 1;
}
