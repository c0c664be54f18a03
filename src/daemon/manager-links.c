/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The Manager's links: what the link scheme (engine/linkscheme.h, lund(8) LINKS) wants for an
 * LU, the claims' link writes with their journal entries and events, and the records of link
 * directories.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "linkscheme.h"
#include "log.h"
#include "macro.h"
#include "manager-private.h"
#include "namerule.h"
#include "names.h"

/* What one LU wants, while its links are being worked out: the strings are owned. */
/* The links an LU wants: names and targets one after another in @strings, NUL-terminated. */
typedef struct LinkWants {
	ClaimWant *v;
	size_t n, n_alloc;
	char *strings;
	size_t used, alloc;
} LinkWants;

static void link_wants_done(LinkWants *l)
{
	free(l->v);
	free(l->strings);
	*l = (LinkWants){};
}

/* ---- links ---- */

static const char *link_message_id(LinkAction a)
{
	switch (a) {
	case LINK_CREATED:
	case LINK_UPDATED:
	case LINK_ADOPTED:
		return MESSAGE_LINK_CREATED;
	case LINK_REMOVED:
	case LINK_LOST:
		return MESSAGE_LINK_REMOVED;
	case LINK_FOREIGN:
		return MESSAGE_LINK_FOREIGN;
	default:
		return NULL;
	}
}

/* The LU's collected lines logged, one entry per kind (removals first: an update removes what
 * it no longer wants before it writes), and the log emptied for the next LU. */
static void link_log_flush(Manager *m)
{
	static const char *const ids[_LINK_LOG_MAX] = {
		[LINK_LOG_REMOVED] = MESSAGE_LINK_REMOVED,
		[LINK_LOG_WRITTEN] = MESSAGE_LINK_CREATED,
	};
	LinkLog *l = &m->link_log;
	LogDevice dev = { .hctl = l->lu ? l->lu->hctl : NULL };

	for (size_t k = 0; k < _LINK_LOG_MAX; k++) {
		if (l->len[k] == 0)
			continue;
		log_full(LOG_INFO, 0, &dev, ids[k], "%s", l->buf[k]);
		l->len[k] = 0;
		l->n[k] = 0;
	}
	l->lu = NULL;
}

/* Links written for no LU in particular (the start-up reconciliation) go in entries of this
 * many: tens of thousands of links at boot are a few hundred entries, none of them huge. */
#define LINK_LOG_BATCH 64

/* @msg added to the line of kind @k of the LU being written (m->current); false when it
 * cannot be (no update runs, or ENOMEM): the caller logs it alone. */
static bool link_log_add(Manager *m, size_t k, const char *msg)
{
	LinkLog *l = &m->link_log;
	size_t n = strlen(msg), need;

	if (!l->on)
		return false;
	/* An update may write another LU's links (a name moving to it): each LU its own line.
	 * A link removed on no LU's behalf is the updated LU's. */
	if (l->lu != (m->current ?: l->updated) || (!l->lu && l->n[k] >= LINK_LOG_BATCH))
		link_log_flush(m);
	l->lu = m->current ?: l->updated;
	need = l->len[k] + 2 + n + 1;
	if (GREEDY_REALLOC(l->buf[k], l->size[k], need) < 0)
		return false;
	if (l->len[k] > 0) {
		memcpy(l->buf[k] + l->len[k], ", ", 2);
		l->len[k] += 2;
	}
	memcpy(l->buf[k] + l->len[k], msg, n + 1);
	l->len[k] += n;
	l->n[k]++;
	return true;
}

/* Between these, while @lu's links are updated, links written and removed are logged per LU
 * (link_log_flush()). */
static void link_log_begin(Manager *m, const Lu *lu)
{
	m->link_log.on = true;
	m->link_log.updated = lu;
}

static void link_log_end(Manager *m)
{
	link_log_flush(m);
	m->link_log.on = false;
	m->link_log.updated = NULL;
}

void manager_link_log_free(Manager *m)
{
	for (size_t k = 0; k < _LINK_LOG_MAX; k++)
		free(m->link_log.buf[k]);
	m->link_log = (LinkLog){};
}

/* An event's "path" (/@dir/@name) and "name". */
static void event_add_name(json_object *o, const char *dir, const char *name)
{
	_cleanup_free_ char *path = NULL;

	if (asprintf(&path, "/%s/%s", dir, name) >= 0)
		json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "name", json_object_new_string(name));
}

static void on_link_report(LinkAction a, const char *name, const char *target, int error,
                           void *userdata)
{
	LinkReportCtx *ctx = userdata;
	Manager *m = ctx->m;
	const char *dir = m->link_dir[ctx->set];
	LogDevice dev = { .hctl = m->current ? m->current->hctl : NULL };
	json_object *o;
	char ev[32];
	int level;

	switch (a) {
	case LINK_CREATED:
	case LINK_UPDATED:
	case LINK_REMOVED:
	case LINK_ADOPTED:
		level = LOG_INFO;
		break;
	case LINK_TEMP_REMOVED:
		level = LOG_DEBUG;
		break;
	default:
		level = LOG_WARNING;
	}
	if (a == LINK_FOREIGN)
		log_full(level, 0, &dev, link_message_id(a),
		         "/%s/%s: not a link lund made, leaving it alone", dir, name);
	else if (a == LINK_LOST)
		log_full(level, 0, &dev, link_message_id(a),
		         "/%s/%s: lund's link was replaced or removed by someone else, forgetting "
		         "it",
		         dir, name);
	else if (a == LINK_RECORD_REPAIRED)
		log_full(level, 0, &dev, NULL,
		         "/%s/%s: broken record entry of lund's links, removed it", dir, name);
	else if (a == LINK_FAILED)
		log_full(level, error, &dev, NULL, "/%s/%s: failed to update link: %m", dir, name);
	else if (level <= log_get_max_level()) {
		/* The common case, one per link written: put together without printf, which
		 * would cost a third of the write, and logged with the LU's other links. */
		const char *action = link_action_name(a);
		size_t n = 1 + strlen(dir) + 1 + strlen(name) + 1 + strlen(action) +
		           (target ? 4 + strlen(target) : 0) + 1;
		_cleanup_free_ char *heap = NULL;
		char stack[512], *msg = stack, *p;

		if (n > sizeof(stack))
			msg = heap = malloc(n);
		if (msg) {
			p = stpcpy(stpcpy(stpcpy(stpcpy(msg, "/"), dir), "/"), name);
			p = stpcpy(stpcpy(p, " "), action);
			if (target)
				stpcpy(stpcpy(p, " -> "), target);
			if (level != LOG_INFO ||
			    !link_log_add(m,
			                  a == LINK_REMOVED ? LINK_LOG_REMOVED : LINK_LOG_WRITTEN,
			                  msg))
				log_full(level, 0, &dev, link_message_id(a), "%s", msg);
		}
	}

	if (!manager_want_events(m))
		return;
	snprintf(ev, sizeof(ev), "link-%s", link_action_name(a));
	o = manager_event_hctl(m->current);
	event_add_name(o, dir, name);
	if (target)
		json_object_object_add(o, "target", json_object_new_string(target));
	if (error < 0)
		json_object_object_add(o, "error",
		                       json_object_new_string(strerrorname_np(-error) ?: "EIO"));
	manager_emit(m, ev, o);
}

/* The symlink target for node @node ("sda", "bsg/0:0:0:0") from link directory @dir, in @buf:
 * its length, or -ENAMETOOLONG. */
static int node_target(const char *dir, const char *node, char buf[static PATH_MAX])
{
	size_t depth = 1, n;
	bool under_dev = strneq(dir, "dev/", 4);
	char *p = buf;

	for (const char *c = dir; *c; c++)
		if (*c == '/' && c[1] && c[1] != '/')
			depth++;
	if (under_dev)
		depth--;
	n = strlen(node);
	if (depth * 3 + strlen("dev/") + n >= PATH_MAX)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < depth; i++)
		p = mempcpy(p, "../", 3);
	if (!under_dev)
		p = mempcpy(p, "dev/", 4);
	memcpy(p, node, n + 1);
	return (int)(p - buf + n);
}

int manager_lu_name_rule(Manager *m, const Lu *lu, char **ret_match)
{
	const NameRuleQuery q = {
		.type = lu->type,
		.vendor = lu->vendor,
		.model = lu->model,
		.revision = lu->revision,
		.have_usb = lu->naming.have_usb_ids,
		.usb_vendor = lu->naming.usb_vendor,
		.usb_product = lu->naming.usb_product,
	};
	LundConf *conf = m->policy ? policy_engine_conf(m->policy) : NULL;
	NameRule rule = NAME_RULE_IDENTITY;
	int r;

	if (ret_match)
		*ret_match = NULL;
	r = name_rule_lookup(conf ? conf_hwdb(conf) : NULL, &q, &rule, ret_match);
	return r < 0 ? r : (int)rule;
}

/*
 * The name the hwdb's naming rule gives @lu in lund's own tree in place of its base names
 * (lund(8), "Devices that give one serial to different media" and "Names from the unit serial
 * number"): serial-path or unit-serial, *@ret_rule. 0 with *@ret NULL when the LU is named by
 * identity, or when the rule cannot make a name from what it has (no serial, no ID_PATH, no
 * serial of page 0x80's own): then the by-id names stand.
 */
static int lu_rule_name(Manager *m, const Lu *lu, NameRule *ret_rule, char ret[static NAME_MAX + 1])
{
	int r;

	ret[0] = 0;
	*ret_rule = NAME_RULE_IDENTITY;
	if (lu->naming.n_names == 0)
		return 0;
	r = manager_lu_name_rule(m, lu, NULL);
	if (r < 0)
		return r;
	*ret_rule = (NameRule)r;
	return lu_naming_rule_name(&lu->naming, *ret_rule, ret);
}

typedef struct WantCtx {
	Manager *m;
	LinkWants *w;
} WantCtx;

/* @s (@n bytes and a NUL) appended to @w's strings: its offset there, or -ENOMEM. */
static ssize_t want_string(LinkWants *w, const char *s, size_t n)
{
	size_t off = w->used;

	if (GREEDY_REALLOC(w->strings, w->alloc, w->used + n + 1) < 0)
		return -ENOMEM;
	memcpy(w->strings + off, s, n + 1);
	w->used += n + 1;
	return (ssize_t)off;
}

/* One wanted link, its name and target as offsets into the strings until the last is in (they
 * move as they grow): 0 or -ENOMEM. */
static int want_add(LinkWants *w, unsigned set, const char *name, const char *target,
                    size_t target_len, bool alias)
{
	ssize_t n, t;

	if (GREEDY_REALLOC(w->v, w->n_alloc, w->n + 1) < 0)
		return -ENOMEM;
	n = want_string(w, name, strlen(name));
	t = n < 0 ? n : want_string(w, target, target_len);
	if (t < 0)
		return (int)t;
	w->v[w->n++] =
	        (ClaimWant){ set, (const char *)(uintptr_t)n, (const char *)(uintptr_t)t, alias };
	return 0;
}

/* The strings are in place: offsets become pointers (@r 0), or none is kept (@r < 0). */
static int wants_done(LinkWants *w, int r)
{
	if (r < 0)
		w->n = 0;
	for (size_t i = 0; i < w->n; i++) {
		w->v[i].name = w->strings + (uintptr_t)w->v[i].name;
		w->v[i].target = w->strings + (uintptr_t)w->v[i].target;
	}
	return r;
}

/* link_scheme_emit_t: one wanted link with its target. */
static int want_link(void *userdata, const LinkSchemeName *l)
{
	WantCtx *x = userdata;
	char target[PATH_MAX];
	int n = node_target(x->m->link_dir[l->set], l->node, target);

	if (n < 0)
		return 0; /* no such link */
	return want_add(x->w, (unsigned)l->set, l->name, target, (size_t)n, l->alias);
}

/* The link scheme (engine/linkscheme.h) fed @lu's facts, then each link it wants with its
 * target: the aliases are the recorded names of the LU's identity it does not get now (lund(8),
 * Naming contract). */
static int lu_wanted_links(Manager *m, const Lu *lu, LinkWants *ret)
{
	static_assert((int)LINKSET_SCSI == (int)LINK_SCHEME_SCSI &&
	                      (int)LINKSET_DISK == (int)LINK_SCHEME_DISK &&
	                      (int)LINKSET_SCSI_PATH == (int)LINK_SCHEME_SCSI_PATH &&
	                      (int)LINKSET_DISK_PATH == (int)LINK_SCHEME_DISK_PATH &&
	                      (int)_LINKSET_MAX == (int)_LINK_SCHEME_SET_MAX,
	              "one order of link sets");
	_cleanup_free_ const char **aliases = NULL;
	_cleanup_free_ LinkSchemePart *parts = NULL;
	char rule_name[NAME_MAX + 1];
	LinkSchemeInput in = {
		.type = lu->type,
		.block = lu->block,
		.sg = lu->sg,
		.tape = lu_tape(lu),
		.tape_nr = lu_tape_nr(lu),
		.mpath = lu_mpath(lu),
		.n_parts = lu_n_partitions(lu),
		.names = (const char *const *)lu->naming.names,
		.n_names = lu->naming.n_names,
		.id_path = lu->naming.id_path,
		.id_path_ata_compat = lu->naming.id_path_ata_compat,
		.id_path_usb_revision = lu->naming.id_path_usb_revision,
		.path_virtual = lu->naming.path_virtual,
	};
	size_t n_aliases = 0;
	ExclusionVerdict v;
	int r;

	if (m->links_wants_error < 0)
		return m->links_wants_error;
	/* lund.conf(5) EXCLUSIONS: no links, unless the rule asks for names only */
	policy_lu_verdict(m->policy, lu, &v);
	if (v.excluded && !v.names)
		return 0;
	for (LinkSet s = 0; s < _LINKSET_MAX; s++)
		in.set[s] = m->links[s];
	if (in.n_parts > 0) {
		parts = calloc(in.n_parts, sizeof(*parts));
		if (!parts)
			return -ENOMEM;
		for (size_t p = 0; p < in.n_parts; p++)
			parts[p] = (LinkSchemePart){ lu_partitions(lu)[p].node,
				                     lu_partitions(lu)[p].number };
		in.parts = parts;
	}
	r = lu_rule_name(m, lu, &in.rule, rule_name);
	in.rule_name = r > 0 ? rule_name : NULL;
	if (r >= 0)
		r = manager_names_aliases(m, lu, &in, &aliases, &n_aliases);
	in.aliases = aliases;
	in.n_aliases = n_aliases;
	if (r >= 0)
		r = link_scheme_foreach(&in, want_link, &(WantCtx){ m, ret });
	return wants_done(ret, r);
}

/* Is @node (a target's last component) one of @lu's nodes? */
static bool lu_has_node(const Lu *lu, const char *node)
{
	if (streq_ptr(lu->block, node) || streq_ptr(lu->sg, node) || streq_ptr(lu_tape(lu), node) ||
	    streq_ptr(lu_tape_nr(lu), node))
		return true;
	for (size_t p = 0; p < lu_n_partitions(lu); p++)
		if (streq_ptr(lu_partitions(lu)[p].node, node))
			return true;
	return false;
}

/* The links lund has recorded to @lu's nodes, as its wants: what a held LU keeps when lund
 * starts (manager-hold.c), since its rules are not asked while it is held. */
static int lu_recorded_links(Manager *m, const Lu *lu, LinkWants *ret)
{
	int r = 0;

	for (LinkSet s = 0; s < _LINKSET_MAX && r >= 0; s++) {
		LinkSpec *v = NULL;
		size_t n = 0;

		if (!m->links[s] || manager_udev_set(m, s))
			continue;
		r = links_recorded(m->links[s], &v, &n);
		for (size_t i = 0; i < n && r >= 0; i++) {
			const char *node = strrchr(v[i].target, '/');

			if (lu_has_node(lu, node ? node + 1 : v[i].target))
				r = want_add(ret, s, v[i].name, v[i].target, strlen(v[i].target),
				             false);
		}
		links_spec_free(v, n);
	}
	return wants_done(ret, r);
}

/* ClaimsOps: the claims' links written to this manager's link directories. */
static int link_op_add(void *userdata, unsigned set, const char *name, const char *target,
                       const char *known, const Lu *lu)
{
	Manager *m = userdata;
	int r;

	if (manager_udev_set(m, set)) {
		/* udev makes it: the winner's record says so once the update is done. */
		manager_udev_mark(m, lu);
		return 0;
	}
	m->current = lu;
	r = links_add(m->links[set], name, target, known);
	m->current = NULL;
	return r;
}

static int link_op_remove(void *userdata, unsigned set, const char *name, const char *known,
                          const Lu *lu)
{
	Manager *m = userdata;
	int r;

	if (manager_udev_set(m, set)) {
		/* A name given up or moving to another LU: that LU's records follow after the
		 * update. */
		manager_udev_mark(m, lu);
		return 1;
	}
	m->current = lu;
	r = links_remove(m->links[set], name, known);
	m->current = NULL;
	return r;
}

/* Does link target @target name node @node of an LU, as lund would write it from @set? */
static bool target_is_node(Manager *m, LinkSet set, const char *target, const char *node)
{
	char t[PATH_MAX];

	return node && node_target(m->link_dir[set], node, t) >= 0 && streq(t, target);
}

/*
 * LinksPruneFn for lund's own link directory: an unrecorded link no present LU wants (that name
 * to that target) goes when it dangles, or when it points at a node of an LU whose
 * identification has ended: named, it does not get that name there (else the link would be
 * wanted); not identified, nothing says the name is its own, and its node may be another disk's
 * than the one the name was made for. One pointing at a node of an LU still being identified,
 * or at something else that exists, stays.
 */
static bool prune_unrecorded(const char *name, const char *target, int dfd, void *userdata)
{
	const LinkReportCtx *x = userdata;

	for (Lu *lu = inventory_first_lu(x->m->inventory); lu; lu = inventory_next_lu(lu)) {
		const char *nodes[] = { lu->block, lu->sg, lu_tape(lu), lu_tape_nr(lu), lu->bsg };

		for (size_t i = 0; i < ELEMENTSOF(nodes); i++)
			if (target_is_node(x->m, x->set, target, nodes[i]))
				return !lu->naming_pending;
	}
	return faccessat(dfd, target, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
}

static int link_op_reconcile(void *userdata, unsigned set, const LinkSpec *want, size_t n,
                             int *ret_results, unsigned *ret_unremoved)
{
	Manager *m = userdata;
	LinksStats st = {}, pst = {};
	int r, k = 0;

	if (manager_udev_set(m, set)) {
		for (size_t i = 0; ret_results && i < n; i++)
			ret_results[i] = 0;
		m->udev_resync = true;
		return 0;
	}
	/* Only lund writes its own tree; /dev/disk/by-id is udev's too and is never pruned. First,
	 * so that a name an unrecorded link held is free for the reconcile to link. */
	if (set == LINKSET_SCSI) {
		link_log_begin(m, NULL);
		k = links_prune(m->links[set], want, n, prune_unrecorded, &m->report_ctx[set],
		                &pst);
		link_log_end(m);
		if (pst.removed > 0)
			log_info("/%s: %u unrecorded links naming no present logical unit removed",
			         m->link_dir[set], pst.removed);
		if (k < 0)
			log_warning_errno(k, "/%s: removing unrecorded links failed, retrying: %m",
			                  m->link_dir[set]);
	}
	link_log_begin(m, NULL);
	r = links_reconcile(m->links[set], want, n, ret_results, &st);
	link_log_end(m);
	/* Those either could not remove are retried with the rest; a directory neither could
	 * look at is one unknown, not two. */
	*ret_unremoved = st.unremoved + (r < 0 && k < 0 ? 0 : pst.unremoved);
	log_info("/%s: %u created, %u updated, %u removed, %u unchanged, %u adopted, %u foreign, "
	         "%u lost, %u failed, %u broken records repaired",
	         m->link_dir[set], st.created, st.updated, st.removed, st.unchanged, st.adopted,
	         st.foreign, st.lost, st.failed, st.repaired);
	return r;
}

/* Journal message ID (sd-id128) of a quarantined name: clones claim it (lund(8), CLONES). */
#define MESSAGE_NAME_QUARANTINE "6f0a3e9d24c84b1fa7d5e2c81b9f4a63"

static void link_op_collision(void *userdata, const Claim *c, const Lu *winner)
{
	Manager *m = userdata;
	const Lu *first = winner ?: c->owners->lu;
	LogDevice dev = { .hctl = first->hctl, .wwid = first->naming.wwn };
	json_object *o = manager_event_hctl(first), *others = json_object_new_array();

	for (ClaimOwner *x = c->owners; x; x = x->next)
		if (x->lu != first && !(x->alias && c->superseded))
			json_object_array_add(others, json_object_new_string(x->lu->hctl));
	if (winner)
		log_full(LOG_NOTICE, 0, &dev, MESSAGE_NAME_COLLISION,
		         "/%s/%s is one logical unit through %zu paths, pointing it at %s "
		         "(the lowest running H:C:T:L)",
		         m->link_dir[c->set], c->name, json_object_array_length(others) + 1,
		         winner->hctl);
	else
		log_full(LOG_WARNING, 0, &dev, MESSAGE_NAME_QUARANTINE,
		         "/%s/%s is claimed by %zu logical units that page 0x83 does not prove to "
		         "be one (clones), quarantined: no link",
		         m->link_dir[c->set], c->name, json_object_array_length(others) + 1);
	event_add_name(o, m->link_dir[c->set], c->name);
	json_object_object_add(o, "kind", json_object_new_string(winner ? "paths" : "clones"));
	json_object_object_add(o, "others", others);
	manager_emit(m, "collision", o);
	/* Whichever path holds the name now is watched, to hand it on when it stops. */
	if (winner)
		manager_state_watch(m, NULL);
}

static void link_op_failed(void *userdata, const Claim *c, const char *target, int error,
                           const Lu *lu)
{
	Manager *m = userdata;

	m->current = lu;
	on_link_report(LINK_FAILED, c->name, target, error, &m->report_ctx[c->set]);
	m->current = NULL;
}

/* Journal message ID (sd-id128) of an alias given up for another LU's current name. */
#define MESSAGE_ALIAS_DROPPED "b2c94e1f07d34a85a1e6c3d95f28e7b0"

static void link_op_alias_dropped(void *userdata, const Claim *c, const Lu *lu)
{
	Manager *m = userdata;
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };
	json_object *o = manager_event_hctl(lu);

	log_full(LOG_NOTICE, 0, &dev, MESSAGE_ALIAS_DROPPED,
	         "/%s/%s: old name of %s kept as an alias, now another logical unit's current "
	         "name: the alias is dropped",
	         m->link_dir[c->set], c->name, lu->hctl);
	event_add_name(o, m->link_dir[c->set], c->name);
	manager_emit(m, "alias-dropped", o);
}

static const ClaimsOps link_ops = {
	.alias_dropped = link_op_alias_dropped,
	.add = link_op_add,
	.remove = link_op_remove,
	.reconcile = link_op_reconcile,
	.collision = link_op_collision,
	.failed = link_op_failed,
};

/* Backoff of the retry after failed link writes (/dev full, read-only, ...). */
#define LINKS_RETRY_FIRST_USEC (UINT64_C(1000000))
#define LINKS_RETRY_MAX_USEC   (UINT64_C(300000000))

static int on_links_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	Manager *m = userdata;

	m->links_retry_source = sd_event_source_disable_unref(m->links_retry_source);
	if (m->links_wants_failed) {
		log_info("Working out the links of every logical unit again");
		m->links_wants_failed = false;
		for (Lu *lu = inventory_first_lu(m->inventory); lu; lu = inventory_next_lu(lu))
			manager_links_dirty(m, lu);
		manager_links_flush(m);
	}
	log_info("Retrying %zu link writes that failed", claims_failed(m->claims));
	(void)manager_reconcile_links(m);
	return 0;
}

/* After any failed write, reconcile again later, each time waiting twice as long up to
 * LINKS_RETRY_MAX_USEC; once nothing fails the backoff starts over. */
static void links_retry_arm(Manager *m)
{
	int r;

	if (!m->event)
		return;
	if (claims_failed(m->claims) == 0 && !m->links_wants_failed) {
		m->links_retry_source = sd_event_source_disable_unref(m->links_retry_source);
		m->links_retry_usec = 0;
		return;
	}
	if (m->links_retry_source)
		return;
	m->links_retry_usec = m->links_retry_usec == 0 ? LINKS_RETRY_FIRST_USEC
	                                               : MIN(m->links_retry_usec * 2,
	                                                     (uint64_t)LINKS_RETRY_MAX_USEC);
	r = sd_event_add_time_relative(m->event, &m->links_retry_source, CLOCK_MONOTONIC,
	                               m->links_retry_usec, 0, on_links_retry, m);
	if (r < 0)
		log_warning_errno(r,
		                  "Failed to schedule a retry of failed link writes, ignoring: %m");
}

/* @lu's claims brought to @want (NULL: resolved again, its wants unchanged) with the link
 * writers held and the links logged per LU; then its udev records and the retry follow. */
static void links_change(Manager *m, Lu *lu, const LinkWants *want, bool gone)
{
	int r;

	for (LinkSet s = 0; s < _LINKSET_MAX; s++)
		links_hold(m->links[s]);
	link_log_begin(m, lu);
	r = want ? claims_update(m->claims, lu, want->v, want->n) : claims_refresh(m->claims, lu);
	link_log_end(m);
	for (LinkSet s = 0; s < _LINKSET_MAX; s++)
		links_release(m->links[s]);
	if (r < 0 && want)
		log_error_errno(r, "%s: failed to claim its names, links not all updated: %m",
		                lu->hctl);
	if (m->udev_links && !m->bulk)
		manager_udev_flush(m, lu, gone);
	if (!m->bulk)
		links_retry_arm(m);
}

/* Bring @lu's claims to what it wants now (nothing when @gone). */
void manager_update_links(Manager *m, Lu *lu, bool gone)
{
	_cleanup_(link_wants_done) LinkWants want = {};
	char why[160] = "";
	int r;

	/* A held LU keeps the names it has (manager-hold.c), those lund recorded for its nodes
	 * when it has none yet (lund just started); one that went loses them, and a new one
	 * without any is named. So does one whose identity changes lund only reports
	 * (lund.conf(5) REACTIONS, identity = report). */
	if (!gone &&
	    (manager_lu_held(m, lu) || manager_lu_reports(m, lu, REACT_RENAME, why, sizeof(why)))) {
		if (claims_n_of(lu) > 0) {
			if (*why)
				log_debug("%s: names kept as they are, %s", lu->hctl, why);
			return;
		}
		r = lu_recorded_links(m, lu, &want);
		if (r < 0)
			log_warning_errno(r, "%s: cannot read the links recorded for it: %m",
			                  lu->hctl);
	}
	if (!gone && want.n == 0) {
		r = lu_wanted_links(m, lu, &want);
		if (r < 0) {
			/* Not knowing what it wants is no reason to take what it has: its links
			 * stay as they are until the retry works them out. */
			log_warning_errno(
			        r, "%s: cannot work out its links, keeping them, retrying: %m",
			        lu->hctl);
			m->links_wants_failed = true;
			if (!m->bulk)
				links_retry_arm(m);
			return;
		}
	}
	links_change(m, lu, &want, gone);
}

/* Resolve @lu's names again, its wants unchanged: a path's state decides which path wins. */
void manager_links_refresh(Manager *m, Lu *lu)
{
	links_change(m, lu, NULL, false);
}

void manager_links_flush(Manager *m)
{
	/* An update may log and emit events, never mark another LU: the list stays put. */
	for (LinkSet s = 0; s < _LINKSET_MAX; s++)
		links_hold(m->links[s]);
	for (size_t i = 0; i < m->n_links_dirty; i++)
		if (m->links_dirty[i])
			manager_update_links(m, m->links_dirty[i], false);
	for (LinkSet s = 0; s < _LINKSET_MAX; s++)
		links_release(m->links[s]);
	m->n_links_dirty = 0;
	m->links_flush_urgent = false;
	m->links_flush_source = sd_event_source_disable_unref(m->links_flush_source);
}

static int on_links_flush(sd_event_source *s, void *userdata)
{
	manager_links_flush(userdata);
	return 0;
}

/* Below every source of normal priority: the monitor's pending uevents are dispatched first, so
 * an LU's links are written once for its whole burst. */
#define LINKS_FLUSH_PRIORITY (SD_EVENT_PRIORITY_NORMAL + 10)
/* But not for ever: while a storm keeps the monitor busy (thousands of LUs appearing), a batch
 * that holds LINKS_BATCH_MAX LUs or is LINKS_BATCH_USEC old is written ahead of the next uevent,
 * so names appear during the storm rather than all after it. */
#define LINKS_FLUSH_URGENT_PRIORITY (SD_EVENT_PRIORITY_NORMAL - 1)
#define LINKS_BATCH_MAX             64
#define LINKS_BATCH_USEC            (UINT64_C(250000))

static void links_flush_hurry(Manager *m)
{
	uint64_t now = 0;

	if (m->links_flush_urgent || !m->links_flush_source)
		return;
	/* the clock is read every 8th LU: a storm lists hundreds a second */
	if (m->n_links_dirty < LINKS_BATCH_MAX && m->n_links_dirty % 8 != 0)
		return;
	if (m->n_links_dirty < LINKS_BATCH_MAX &&
	    (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0 ||
	     now - m->links_dirty_since < LINKS_BATCH_USEC))
		return;
	if (sd_event_source_set_priority(m->links_flush_source, LINKS_FLUSH_URGENT_PRIORITY) >= 0)
		m->links_flush_urgent = true;
}

void manager_links_dirty(Manager *m, Lu *lu)
{
	int r;

	/* One LU's uevents come one after the other: the tail is enough to keep it listed once. */
	if (m->n_links_dirty > 0 && m->links_dirty[m->n_links_dirty - 1] == lu)
		return;
	if (m->bulk || !m->event)
		goto now;
	if (!m->links_flush_source) {
		r = sd_event_add_defer(m->event, &m->links_flush_source, on_links_flush, m);
		if (r >= 0)
			r = sd_event_source_set_priority(m->links_flush_source,
			                                 LINKS_FLUSH_PRIORITY);
		if (r >= 0 && sd_event_now(m->event, CLOCK_MONOTONIC, &m->links_dirty_since) < 0)
			m->links_dirty_since = 0;
		m->links_flush_urgent = false;
		if (r < 0) {
			m->links_flush_source =
			        sd_event_source_disable_unref(m->links_flush_source);
			goto now;
		}
	}
	if (GREEDY_REALLOC(m->links_dirty, m->n_links_dirty_alloc, m->n_links_dirty + 1) < 0)
		goto now;
	m->links_dirty[m->n_links_dirty++] = lu;
	links_flush_hurry(m);
	return;
now:
	manager_update_links(m, lu, false);
}

void manager_links_forget(Manager *m, const Lu *lu)
{
	for (size_t i = 0; i < m->n_links_dirty; i++)
		if (m->links_dirty[i] == lu)
			m->links_dirty[i] = NULL;
}

/* Full reconcile of every set from the claims (start-up, resync). */
int manager_reconcile_links(Manager *m)
{
	int ret = 0;

	for (LinkSet set = 0; set < _LINKSET_MAX; set++) {
		int r;

		if (!m->links[set])
			continue;
		r = claims_reconcile(m->claims, set);
		if (r < 0 && r != -EEXIST && ret == 0)
			ret = r;
	}
	if (m->udev_links) {
		m->udev_resync = false;
		m->n_udev_dirty = 0;
		manager_udev_sync_all(m);
	}
	links_retry_arm(m);
	return ret;
}

/*
 * Records of a link directory live in <run-dir>/links/<dir escaped>, the path with '-' for '/'
 * and "\x2d" for '-' (systemd's unit name escaping), so that records are bound to the directory
 * they describe and a changed --link-dir never mistakes one directory's links for another's.
 */
static char *record_dir_for(const char *link_dir)
{
	_cleanup_free_ char *name = NULL;
	char *r;

	if (links_record_dir_escape(link_dir, &name) < 0 || asprintf(&r, "links/%s", name) < 0)
		return NULL;
	return r;
}

/* Directory @path below @dirfd, never through a symlink; NULL if it cannot be read. */
static DIR *opendir_below(int dirfd, const char *path)
{
	_cleanup_close_ int fd =
	        openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (d)
		fd = -EBADF; /* the DIR owns it now */
	return d;
}

static void drop_records(int runfd, const char *record)
{
	DIR *d = opendir_below(runfd, record);

	if (!d)
		return;
	for (struct dirent *de; (de = readdir(d));)
		if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
			(void)unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	(void)unlinkat(runfd, record, AT_REMOVEDIR);
}

/* The directories of lund's link sets by default: the only ones whose records an earlier run
 * can have left for lund to retire. Records of any other directory are no record of lund's (a
 * directory put in the run dir would have lund remove symlinks anywhere below the root). */
static const char *const set_dirs[] = {
	"dev/scsi/by-id",
	"dev/scsi/by-path",
	"dev/disk/by-id",
	"dev/disk/by-path",
};

static bool is_set_dir(const char *dir)
{
	for (size_t i = 0; i < ELEMENTSOF(set_dirs); i++)
		if (streq(set_dirs[i], dir))
			return true;
	return false;
}

/* A link directory lund no longer manages (--manage-disk-links dropped, --link-dir changed):
 * remove the links it made there, then its records. */
static void retire_old_link_dirs(Manager *m)
{
	DIR *d = opendir_below(m->runfd, "links");

	if (!d)
		return;
	for (struct dirent *de; (de = readdir(d));) {
		_cleanup_free_ char *dir = NULL, *record = NULL;
		LinkReportCtx ctx = { m, LINKSET_SCSI };
		bool active = false;
		Links *l = NULL;
		LinksStats st = {};
		int r;

		if (de->d_name[0] == '.')
			continue;
		/* NULL when it is not a record directory's name (or out of memory) */
		(void)links_record_dir_unescape(de->d_name, &dir);
		for (LinkSet s = 0; s < _LINKSET_MAX; s++)
			if (dir && m->link_dir[s] && streq(m->link_dir[s], dir))
				active = true;
		if (active)
			continue;
		if (!dir || !is_set_dir(dir)) {
			log_warning("%s/links/%s: no record directory of lund's, ignoring",
			            m->run_dir, de->d_name);
			continue;
		}
		if (asprintf(&record, "links/%s", de->d_name) < 0)
			continue;
		if (faccessat(m->rootfd, dir, F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
			/* The directory is gone, and the links with it: forget the records. */
			drop_records(m->runfd, record);
			continue;
		}
		log_info("/%s is no longer managed, removing lund's links there", dir);
		r = links_new(m->rootfd, dir, m->runfd, record, NULL, &ctx, &l);
		if (r >= 0)
			r = links_reconcile(l, NULL, 0, NULL, &st);
		links_free(l);
		if (r < 0)
			log_warning_errno(r, "/%s: could not remove old links, ignoring: %m", dir);
		else {
			log_info("/%s: %u links removed, %u lost", dir, st.removed, st.lost);
			(void)unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
		}
	}
	closedir(d);
}

int manager_links_setup(Manager *m)
{
	int r;

	r = claims_new(&link_ops, m, &m->claims);
	if (r < 0)
		return log_error_errno(r, "Failed to set up link claims: %m");
	for (LinkSet s = 0; s < _LINKSET_MAX; s++) {
		_cleanup_free_ char *record = NULL;

		if (!m->link_dir[s])
			continue;
		record = record_dir_for(m->link_dir[s]);
		if (!record)
			return log_error_errno(-ENOMEM, "Out of memory");
		m->report_ctx[s] = (LinkReportCtx){ m, s };
		r = links_new(m->rootfd, m->link_dir[s], m->runfd, record, on_link_report,
		              &m->report_ctx[s], &m->links[s]);
		if (r < 0)
			return log_error_errno(r, "Failed to set up /%s: %m", m->link_dir[s]);
	}
	retire_old_link_dirs(m);
	return 0;
}
