/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * lunctl names DEV --why: for each by-id name of an LU, the rule that made it and where its
 * value came from; for each page 0x83 designator, whether scsi_id used it and, when not, why.
 * The identity is the one lund computes (engine/identify.h); the verdicts come from the same
 * scsi_id model (core/ident.h: ident_designators()).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "exclusion.h"
#include "hostfacts.h"
#include "hwdb.h"
#include "identify.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "namerule.h"
#include "output.h"
#include "sysfs.h"
#include "vpd.h"

#define RULES_60  "60-persistent-storage.rules"
#define RULES_58  "58-scsi-sg3_symlink.rules"
#define DESIG_MAX 64

typedef struct NameWhy {
	const char *rule;
	char source[160];
} NameWhy;

/* Is @name the component names_component() makes of @prefix and @value? */
static bool name_is(const char *name, const char *prefix, const char *value)
{
	char c[NAME_MAX + 1];

	return value && *value && names_component(prefix, value, 0, c) >= 0 && streq(c, name);
}

static void serial_source(const Identity *i, const IdentDesignator *used, char *buf, size_t size)
{
	const ScsiIdent *id = i->id;

	if (i->bus == NAMES_BUS_ATA) {
		(void)snprintf(buf, size, "ata_id: model and serial of the IDENTIFY data (%s)",
		               id->in.pg89 ? "page 0x89" : "libata's ata_device id");
		return;
	}
	if (i->bus == NAMES_BUS_USB) {
		(void)snprintf(buf, size, "usb_id: the USB device's vendor, product and serial");
		return;
	}
	if (!id->have_serial || !streq_ptr(i->serial, id->serial)) {
		(void)snprintf(buf, size,
		               "55-scsi-sg3_id.rules: sg_inq --export of the cached pages "
		               "(SCSI_IDENT_*), set before scsi_id runs");
		return;
	}
	switch (id->serial_source) {
	case IDENT_SERIAL_PG83:
		if (used)
			(void)snprintf(buf, size,
			               "scsi_id: page 0x83 designator at byte %zu (%s, %s, %s), "
			               "the first its table accepts (row %d of 13)",
			               used->offset, vpd83_type_name(used->type),
			               vpd83_code_set_name(used->code_set),
			               vpd83_association_name(used->assoc), used->row + 1);
		else
			(void)snprintf(buf, size, "scsi_id: a page 0x83 designator");
		break;
	case IDENT_SERIAL_PG83_PRE_SPC2:
		(void)snprintf(buf, size,
		               "scsi_id: page 0x83 in the SCSI-2 format (one bare identifier)");
		break;
	case IDENT_SERIAL_PG80:
		(void)snprintf(buf, size,
		               "scsi_id: page 0x80 unit serial number, after 'S', vendor and model "
		               "(%s)",
		               id->pg83_walked ? "no page 0x83 designator it accepts"
		                               : "page 0x83 not walked");
		break;
	default:
		(void)snprintf(buf, size,
		               "scsi_id: bytes a failed attempt left in its serial buffer");
		break;
	}
}

static void explain_name(const Identity *i, const IdentDesignator *used, const char *name,
                         NameWhy *w)
{
	char prefix[16];

	*w = (NameWhy){ .rule = "unknown" };
	(void)snprintf(prefix, sizeof(prefix), "%s-", names_bus_name(i->bus) ?: "?");
	if (name_is(name, prefix, i->serial)) {
		w->rule = RULES_60 ": disk/by-id/$env{ID_BUS}-$env{ID_SERIAL}";
		serial_source(i, used, w->source, sizeof(w->source));
		return;
	}
	if (name_is(name, "wwn-", i->wwn)) {
		w->rule = RULES_60 ": disk/by-id/wwn-$env{ID_WWN_WITH_EXTENSION}";
		if (i->bus == NAMES_BUS_ATA)
			(void)snprintf(w->source, sizeof(w->source),
			               "ata_id: the world wide name of the IDENTIFY data");
		else if (used && used->type == 3)
			(void)snprintf(w->source, sizeof(w->source),
			               "scsi_id: the NAA designator at byte %zu of page 0x83",
			               used->offset);
		else
			(void)snprintf(
			        w->source, sizeof(w->source),
			        "55-scsi-sg3_id.rules: the first NAA designator of page 0x83");
		return;
	}
	if (strncmp(name, "usb-", 4) == 0) {
		w->rule = RULES_60 ": disk/by-id/usb-$env{ID_USB_SERIAL}";
		(void)snprintf(w->source, sizeof(w->source),
		               "usb_id: the USB device's vendor, product and serial");
		return;
	}
	if (strncmp(name, "scsi-", 5) == 0 && name[5]) {
		static const struct {
			char c;
			const char *what;
		} sg3[] = {
			{ 'S', "SCSI_VENDOR, SCSI_MODEL and SCSI_IDENT_SERIAL (page 0x80)" },
			{ '3', "SCSI_IDENT_LUN_NAA_* (page 0x83 NAA)" },
			{ '2', "SCSI_IDENT_LUN_EUI64 (page 0x83 EUI-64)" },
			{ '8', "SCSI_IDENT_LUN_NAME (page 0x83 SCSI name string)" },
			{ '1', "SCSI_IDENT_LUN_T10 (page 0x83 T10 vendor ID)" },
			{ '0', "SCSI_IDENT_LUN_VENDOR (page 0x83 vendor specific)" },
		};

		for (size_t k = 0; k < ELEMENTSOF(sg3); k++)
			if (name[5] == sg3[k].c) {
				w->rule = RULES_58;
				(void)snprintf(w->source, sizeof(w->source),
				               "55-scsi-sg3_id.rules: %s", sg3[k].what);
				return;
			}
	}
}

static void designator_reason(const IdentDesignator *d, const IdentDesignator *used, char *buf,
                              size_t size)
{
	/* The verdicts whose reason names nothing of the designator itself. */
	static const char *const fixed[_IDENT_DESIG_MAX] = {
		[IDENT_DESIG_TPG] = "gives ID_TARGET_PORT only, never a name",
		[IDENT_DESIG_TYPE] = "scsi_id's table has no row for this type",
		[IDENT_DESIG_CODE_SET] = "scsi_id takes binary and ASCII designators only",
		[IDENT_DESIG_TOO_LONG] = "too long for scsi_id's serial buffer",
		[IDENT_DESIG_UNSEEN] = "past the 254 bytes of the page scsi_id reads",
		[IDENT_DESIG_NOT_TRIED] =
		        "scsi_id did not walk page 0x83 (not listed by page 0x00, "
		        "or the SCSI-2 format)",
	};

	if (d->verdict == IDENT_DESIG_USED)
		(void)snprintf(buf, size, "ID_SERIAL%s", d->type == 3 ? " and ID_WWN" : "");
	else if (d->verdict == IDENT_DESIG_OUTRANKED)
		(void)snprintf(buf, size,
		               "row %d of scsi_id's table accepts it; row %d matched first",
		               d->row + 1, used ? used->row + 1 : 0);
	else if (d->verdict == IDENT_DESIG_ASSOC)
		(void)snprintf(buf, size, "names the %s, not the logical unit",
		               vpd83_association_name(d->assoc));
	else
		(void)snprintf(buf, size, "%s",
		               d->verdict >= 0 && d->verdict < _IDENT_DESIG_MAX && fixed[d->verdict]
		                       ? fixed[d->verdict]
		                       : fixed[IDENT_DESIG_NOT_TRIED]);
}

/* The hwdb's naming rule for the LU (lund.hwdb(7), LUND_NAME_IDENTITY), as lund looks it up. */
typedef struct RuleWhy {
	NameRule rule;
	char *match;             /* the hwdb match string that chose the rule */
	char name[NAME_MAX + 1]; /* the rule's name, "" when none can be made */
} RuleWhy;

static void rule_why_done(RuleWhy *w)
{
	free(w->match);
}

static char *attr_trimmed(int rootfd, const char *syspath, const char *attr)
{
	char *s = sysfs_attr_string(rootfd, syspath, attr);
	size_t n = s ? strlen(s) : 0;

	while (n > 0 && s[n - 1] == ' ')
		s[--n] = 0;
	return s;
}

/* The hwdb a preview gives (names --diff --hwdb), else the system's compiled one, or with
 * --root the tree's /etc/udev/hwdb.bin. */
static int rule_why_compute(const Options *o, const LuRef *lu, const Identity *i, RuleWhy *ret)
{
	_cleanup_free_ char *hwdb_path = NULL;
	_cleanup_(lunctl_facts_done) LunctlFacts prod = {};
	_cleanup_close_ int rootfd = -EBADF;
	Hwdb *h = NULL;
	NameRuleQuery q;
	int r;

	*ret = (RuleWhy){ .rule = NAME_RULE_IDENTITY };
	if (o->hwdb_path)
		hwdb_path = strdup(o->hwdb_path);
	else if (o->root && !streq(o->root, "/"))
		hwdb_path = strjoin(o->root, "/etc/udev/hwdb.bin");
	if ((o->hwdb_path || (o->root && !streq(o->root, "/"))) && !hwdb_path)
		return -ENOMEM;
	if (hwdb_open(hwdb_path, &h) < 0)
		return 0; /* no hwdb: the default rule */
	rootfd = sysfs_open_root(o->root);
	lunctl_facts_read(rootfd, lu, i, &prod);
	q = (NameRuleQuery){
		.type = prod.f.type,
		.vendor = prod.vendor,
		.model = prod.model,
		.revision = prod.rev,
		.have_usb = i->udev->have_usb_ids,
		.usb_vendor = i->udev->usb_vendor,
		.usb_product = i->udev->usb_product,
	};
	r = name_rule_lookup(h, &q, &ret->rule, &ret->match);
	hwdb_free(h);
	if (r < 0)
		return r;
	r = name_rule_name(ret->rule, i->names->n > 0 ? i->names->name[0] : NULL, i->path.path,
	                   &i->id->in, ret->name);
	return r < 0 ? r : 0;
}

int lunctl_rule_name(const Options *o, const LuRef *lu, const Identity *i, NameRule *ret_rule,
                     char ret[static NAME_MAX + 1])
{
	_cleanup_(rule_why_done) RuleWhy rw = {};
	int r = rule_why_compute(o, lu, i, &rw);

	ret[0] = 0;
	if (ret_rule)
		*ret_rule = rw.rule;
	if (r < 0)
		return r;
	if (!rw.name[0])
		return 0;
	memcpy(ret, rw.name, sizeof(rw.name));
	return 1;
}

/* The rule a name the hwdb's rule made comes from, and what it was made of. */
static const char *rule_label(const RuleWhy *w)
{
	return w->rule == NAME_RULE_UNIT_SERIAL ? "lund.hwdb: unit-serial"
	                                        : "lund.hwdb: serial-path";
}

static void rule_source(const RuleWhy *w, const Identity *i, char *buf, size_t size)
{
	if (w->rule == NAME_RULE_UNIT_SERIAL) {
		(void)snprintf(
		        buf, size,
		        "lund.hwdb %s=%s (match \"%s\"): ID_SERIAL as scsi_id --page=0x80 "
		        "prints it, 'S' + vendor + product + the unit serial number of "
		        "page 0x80 \"%s\"; /dev/scsi only, /dev/disk/by-id keeps udev's names",
		        NAME_RULE_HWDB_KEY, name_rule_to_string(w->rule), w->match ?: "?",
		        i->id->scsi_serial[0] ? i->id->scsi_serial : "?");
		return;
	}
	(void)snprintf(buf, size,
	               "lund.hwdb %s=%s (match \"%s\"): the by-id name %s plus ID_PATH_TAG of "
	               "\"%s\"; /dev/scsi only, /dev/disk/by-id keeps udev's names",
	               NAME_RULE_HWDB_KEY, name_rule_to_string(w->rule), w->match ?: "?",
	               i->names->n > 0 ? i->names->name[0] : "", i->path.path ?: "");
}

/* The link directories holding @name itself (no suffix) among @l's links, ", "-separated;
 * "none" when it is linked nowhere (no node for it, or not a disk for /dev/disk/by-id). */
static void name_dirs(const LunctlLinks *l, const char *name, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t k = 0; k < l->scheme.n && n < size; k++) {
		const LinkSchemeLink *x = &l->scheme.links[k];

		if (streq(x->name, name) &&
		    (x->set == LINK_SCHEME_SCSI || x->set == LINK_SCHEME_DISK)) {
			int w = snprintf(buf + n, size - n, "%s/dev/%s", n ? ", " : "",
			                 link_scheme_set_dir(x->set));

			n += w > 0 ? (size_t)w : 0;
		}
	}
	if (n == 0)
		(void)snprintf(buf, size, "none");
}

/* Why an alias is linked (lund(8), Naming contract). */
#define ALIAS_RULE "alias of accepted name, pending --accept"

static int why_json(const LuRef *lu, const Identity *i, const IdentDesignator *d, size_t n,
                    const IdentDesignator *used, const RuleWhy *rw, const char *const *aliases,
                    size_t n_aliases, const LunctlLinks *links, json_object *exclusion,
                    json_object *reactions)
{
	_cleanup_(json_object_putp) json_object *root = json_object_new_object();
	json_object *names = json_object_new_array(), *desigs = json_object_new_array(),
	            *al = json_object_new_array(), *ln = lunctl_links_json(links);

	if (!root || !names || !desigs || !al || !ln) {
		json_object_put(exclusion);
		json_object_put(reactions);
		json_object_put(names);
		json_object_put(desigs);
		json_object_put(al);
		json_object_put(ln);
		return -ENOMEM;
	}
	json_object_object_add(root, "links", ln);
	json_object_object_add(root, "aliases", al);
	if (exclusion)
		json_object_object_add(root, "exclusion", exclusion);
	if (reactions)
		json_object_object_add(root, "reactions", reactions);
	for (size_t k = 0; k < n_aliases; k++) {
		json_object *o = json_object_new_object();

		if (!o)
			return -ENOMEM;
		json_object_object_add(o, "name", json_object_new_string(aliases[k]));
		json_object_object_add(o, "rule", json_object_new_string(ALIAS_RULE));
		json_object_array_add(al, o);
	}
	json_object_object_add(root, "hctl", json_object_new_string(lu->hctl));
	json_object_object_add(
	        root, "serial_source",
	        json_object_new_string(ident_serial_source_name(i->id->serial_source) ?: "none"));
	json_object_object_add(root, "names", names);
	json_object_object_add(root, "designators", desigs);
	json_object_object_add(root, "name_rule",
	                       json_object_new_string(name_rule_to_string(rw->rule)));
	if (rw->name[0]) {
		json_object *o = json_object_new_object();
		char src[512];

		if (!o)
			return -ENOMEM;
		rule_source(rw, i, src, sizeof(src));
		json_object_object_add(o, "name", json_object_new_string(rw->name));
		json_object_object_add(o, "rule", json_object_new_string(rule_label(rw)));
		json_object_object_add(o, "source", json_object_new_string(src));
		json_object_object_add(o, "link_set", json_object_new_string("scsi"));
		json_object_array_add(names, o);
	}
	for (size_t k = 0; k < i->names->n; k++) {
		json_object *o = json_object_new_object();
		NameWhy w;

		if (!o)
			return -ENOMEM;
		explain_name(i, used, i->names->name[k], &w);
		json_object_object_add(o, "name", json_object_new_string(i->names->name[k]));
		json_object_object_add(o, "rule", json_object_new_string(w.rule));
		json_object_object_add(o, "source", json_object_new_string(w.source));
		json_object_array_add(names, o);
	}
	for (size_t k = 0; k < n; k++) {
		json_object *o = json_object_new_object();
		char reason[160];

		if (!o)
			return -ENOMEM;
		designator_reason(&d[k], used, reason, sizeof(reason));
		json_object_object_add(o, "offset", json_object_new_int((int)d[k].offset));
		json_object_object_add(o, "type",
		                       json_object_new_string(vpd83_type_name(d[k].type)));
		json_object_object_add(o, "association",
		                       json_object_new_string(vpd83_association_name(d[k].assoc)));
		json_object_object_add(o, "code_set",
		                       json_object_new_string(vpd83_code_set_name(d[k].code_set)));
		json_object_object_add(o, "length", json_object_new_int((int)d[k].len));
		json_object_object_add(
		        o, "verdict",
		        json_object_new_string(ident_designator_verdict_name(d[k].verdict)));
		json_object_object_add(o, "reason", json_object_new_string(reason));
		json_object_array_add(desigs, o);
	}
	return output_json(stdout, root);
}

/* lund.conf(5) EXCLUSIONS: the verdict lund gives the LU, by the lund.conf lund reads (--config,
 * else the installed one below --root). *ret_conf is NULL when there is no file to read. */
void lunctl_facts_read(int rootfd, const LuRef *lu, const Identity *i, LunctlFacts *ret)
{
	uint64_t type = UINT64_MAX;

	*ret = (LunctlFacts){};
	if (rootfd >= 0 && lu->syspath) {
		ret->vendor = attr_trimmed(rootfd, lu->syspath, "vendor");
		ret->model = attr_trimmed(rootfd, lu->syspath, "model");
		ret->rev = attr_trimmed(rootfd, lu->syspath, "rev");
		(void)sysfs_attr_u64(rootfd, lu->syspath, "type", &type);
	}
	if (rootfd < 0 || hostfacts_read(rootfd, lu->host, &ret->host) < 0)
		ret->host = (HostFacts){};
	ret->f = (ExclusionFacts){
		.serial = i ? i->serial : NULL,
		.wwn = i ? i->wwn : NULL,
		.vendor = ret->vendor,
		.model = ret->model,
		.host = lu->host,
		.channel = lu->channel,
		.target = lu->target,
		.lun = (int64_t)lu->lun,
		.type = type <= 0x1f ? (int)type : -1,
		.driver = ret->host.driver,
		.transport = ret->host.kind[0] ? ret->host.kind : NULL,
	};
}

void lunctl_facts_done(LunctlFacts *x)
{
	free(x->vendor);
	free(x->model);
	free(x->rev);
	hostfacts_done(&x->host);
}

int lunctl_lu_verdicts(const Options *o, const LuRef *lu, const Identity *i, LundConf **ret_conf,
                       ExclusionVerdict *ret, ReactVerdict ret_react[_REACT_ACTION_MAX])
{
	_cleanup_(lunctl_facts_done) LunctlFacts x = {};
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int rootfd = -EBADF;
	LundConf *c = NULL;
	int r;

	*ret = (ExclusionVerdict){};
	for (ReactAction a = 0; a < _REACT_ACTION_MAX; a++)
		ret_react[a] = (ReactVerdict){};
	*ret_conf = NULL;
	if (o->conf_path)
		path = strdup(o->conf_path);
	else if (asprintf(&path, "%s%s", o->root && !streq(o->root, "/") ? o->root : "",
	                  LUND_CONF_DEFAULT) < 0)
		path = NULL;
	if (!path)
		return -ENOMEM;
	r = conf_load_file(path, &c);
	if (r == -ENOMEM)
		return r;
	if (conf_file_error(c) < 0) {
		/* none, or one lund ignores as a whole: nothing is excluded */
		conf_unref(c);
		return 0;
	}
	rootfd = sysfs_open_root(o->root);
	lunctl_facts_read(rootfd, lu, i, &x);
	exclusion_judge(c, &x.f, ret);
	for (ReactAction a = 0; a < _REACT_ACTION_MAX; a++)
		reaction_judge(c, &x.f, a, &ret_react[a]);
	*ret_conf = c;
	return 0;
}

/* lund.conf(5) REACTIONS: what lund only reports for the LU (a host's new_hosts is no LU's). */
static void why_reactions_print(const LundConf *c, const ExclusionVerdict *v,
                                const ReactVerdict react[_REACT_ACTION_MAX])
{
	static const char *const what[_REACT_ACTION_MAX] = {
		[REACT_ADD] = "adds no LUN of its target",
		[REACT_REMOVE] = "removes nothing from its target",
		[REACT_RESIZE] = "does not re-read a changed capacity",
		[REACT_RENAME] = "does not re-read changed IDs and keeps its names",
	};

	if (v->excluded)
		return;
	for (ReactAction a = 0; a < REACT_SCAN_HOST; a++) {
		char why[160];

		if (!react[a].report || (a == REACT_REMOVE && react[REACT_ADD].report))
			continue;
		reaction_why(&react[a], why, sizeof(why));
		printf("%s (%s:%u): lund %s, it reports it\n", why, conf_get_path(c), react[a].line,
		       what[a]);
	}
}

static void why_exclusion_print(const LundConf *c, const ExclusionVerdict *v)
{
	if (!v->rule)
		return;
	if (!v->excluded)
		printf("not excluded: [exception %s] (%s:%u) wins over the exclusions\n", v->rule,
		       conf_get_path(c), v->line);
	else if (v->names)
		printf("excluded by [exclude %s] (%s:%u), names only: lund links it and does "
		       "nothing else to it\n",
		       v->rule, conf_get_path(c), v->line);
	else
		printf("excluded by [exclude %s] (%s:%u): lund makes no links for it and "
		       "leaves it alone\n",
		       v->rule, conf_get_path(c), v->line);
}

static json_object *why_exclusion_json(const LundConf *c, const ExclusionVerdict *v)
{
	json_object *x;

	if (!v->rule || !(x = json_object_new_object()))
		return NULL;
	json_object_object_add(x, "excluded", json_object_new_boolean(v->excluded));
	json_object_object_add(x, "kind", json_object_new_string(v->kind));
	json_object_object_add(x, "rule", json_object_new_string(v->rule));
	json_object_object_add(x, "file", json_object_new_string(conf_get_path(c)));
	json_object_object_add(x, "line", json_object_new_int64(v->line));
	json_object_object_add(x, "names", json_object_new_boolean(v->names));
	return x;
}

/* [{key, value, rule, file, line}] of the reactions that report for the LU; NULL when none. */
static json_object *why_reactions_json(const LundConf *c, const ExclusionVerdict *v,
                                       const ReactVerdict react[_REACT_ACTION_MAX])
{
	json_object *a = NULL;

	for (ReactAction k = 0; !v->excluded && k < REACT_SCAN_HOST; k++) {
		json_object *x;

		if (!react[k].report || (k == REACT_REMOVE && react[REACT_ADD].report))
			continue;
		if (!a && !(a = json_object_new_array()))
			return NULL;
		x = json_object_new_object();
		if (!x)
			continue;
		json_object_object_add(x, "key", json_object_new_string(react[k].key));
		json_object_object_add(x, "value", json_object_new_string(react[k].value));
		json_object_object_add(x, "rule", json_object_new_string(react[k].rule));
		json_object_object_add(x, "file", json_object_new_string(conf_get_path(c)));
		json_object_object_add(x, "line", json_object_new_int64(react[k].line));
		json_object_array_add(a, x);
	}
	return a;
}

int lunctl_names_why(const Options *o, const LuRef *lu, const Identity *i, const LunctlLinks *links)
{
	_cleanup_(conf_unrefp) LundConf *conf = NULL;
	ExclusionVerdict excl;
	ReactVerdict react[_REACT_ACTION_MAX];
	const char *const *aliases = links->in.aliases;
	size_t n_aliases = links->in.n_aliases;
	char dirs[128];
	_cleanup_(rule_why_done) RuleWhy rw = {};
	IdentDesignator d[DESIG_MAX];
	const IdentDesignator *used = NULL;
	size_t n = ident_designators(i->id, d, ELEMENTSOF(d));
	int r;

	r = rule_why_compute(o, lu, i, &rw);
	if (r < 0) {
		log_error_errno(r, "%s: cannot look up the naming rule: %m", lu->hctl);
		return EXIT_DEVICE;
	}
	r = lunctl_lu_verdicts(o, lu, i, &conf, &excl, react);
	if (r < 0) {
		log_error_errno(r, "%s: cannot read the exclusions: %m", lu->hctl);
		return EXIT_DEVICE;
	}
	for (size_t k = 0; k < n; k++)
		if (d[k].verdict == IDENT_DESIG_USED)
			used = &d[k];
	if (o->output == OUTPUT_JSON)
		return why_json(lu, i, d, n, used, &rw, aliases, n_aliases, links,
		                why_exclusion_json(conf, &excl),
		                why_reactions_json(conf, &excl, react)) < 0
		               ? EXIT_DEVICE
		               : EXIT_OK;

	printf("%s\n", lu->hctl);
	why_exclusion_print(conf, &excl);
	why_reactions_print(conf, &excl, react);
	if (rw.name[0]) {
		char src[512];

		rule_source(&rw, i, src, sizeof(src));
		name_dirs(links, rw.name, dirs, sizeof(dirs));
		printf("name %s\n  rule:   %s (%s)\n  source: %s\n  links:  %s\n", rw.name,
		       rule_label(&rw),
		       rw.rule == NAME_RULE_UNIT_SERIAL
		               ? "the device is named by its unit serial number, page 0x80"
		               : "the device gives one serial to different media",
		       src, dirs);
	} else if (rw.rule == NAME_RULE_SERIAL_PATH)
		printf("rule serial-path (lund.hwdb, match \"%s\"): no by-id name or no ID_PATH "
		       "to build a name from, the by-id names stand\n",
		       rw.match ?: "?");
	else if (rw.rule == NAME_RULE_UNIT_SERIAL)
		printf("rule unit-serial (lund.hwdb, match \"%s\"): %s, the by-id names stand\n",
		       rw.match ?: "?",
		       i->names->n == 0 ? "no by-id name to replace"
		                        : "page 0x80 gives no serial of its own (not read, not "
		                          "page 0x80, too long, empty or blank)");
	for (size_t k = 0; k < i->names->n; k++) {
		NameWhy w;

		explain_name(i, used, i->names->name[k], &w);
		name_dirs(links, i->names->name[k], dirs, sizeof(dirs));
		printf("name %s\n  rule:   %s\n  source: %s\n  links:  %s\n", i->names->name[k],
		       w.rule, w.source, dirs);
	}
	for (size_t k = 0; k < n_aliases; k++) {
		name_dirs(links, aliases[k], dirs, sizeof(dirs));
		printf("alias %s\n  rule:   %s\n  links:  %s\n", aliases[k], ALIAS_RULE, dirs);
	}
	if (i->names->n == 0)
		printf("no names: %s\n", i->names_error < 0
		                                 ? "every candidate was refused as unsafe"
		                                 : "the device has no identifier udev's rules use");
	if (n == 0) {
		printf("page 0x83: %s\n", i->id->in.pg83 ? "no designators" : "not available");
		return EXIT_OK;
	}
	printf("page 0x83 designators:\n");
	for (size_t k = 0; k < n; k++) {
		char reason[160];

		designator_reason(&d[k], used, reason, sizeof(reason));
		printf("  byte %-3zu %s", d[k].offset, vpd83_type_name(d[k].type));
		if (d[k].type == 3)
			printf(" (NAA %u)", d[k].naa);
		printf(", %s, %s, %zu bytes: %s: %s\n", vpd83_code_set_name(d[k].code_set),
		       vpd83_association_name(d[k].assoc), d[k].len,
		       ident_designator_verdict_name(d[k].verdict), reason);
	}
	return EXIT_OK;
}
