/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "grow.h"
#include "inventory-private.h"
#include "lu-identify.h"
#include "luns.h"
#include "macro.h"
#include "ptrtable.h"
#include "strpool.h"
#include "sysfs.h"

const char *lu_type_name(int type)
{
	/* SPC-6 table 50, lsscsi's short names. */
	static const char *const names[] = {
		[0x00] = "disk",    [0x01] = "tape",    [0x02] = "printer", [0x03] = "process",
		[0x04] = "worm",    [0x05] = "cd/dvd",  [0x06] = "scanner", [0x07] = "optical",
		[0x08] = "mediumx", [0x09] = "comms",   [0x0c] = "storage", [0x0d] = "enclosu",
		[0x0e] = "sim dsk", [0x0f] = "opti rd", [0x10] = "bridge",  [0x11] = "osd",
		[0x12] = "adi",     [0x13] = "sec man", [0x14] = "zbc",     [0x1e] = "wlun",
		[0x1f] = "no dev",
	};
	if (type < 0 || (size_t)type >= ELEMENTSOF(names) || !names[type])
		return "unknown";
	return names[type];
}

static uint32_t lu_hash(const void *p);

int inventory_new(int rootfd, ProbeFlags probe_flags, const InventoryHooks *hooks, void *userdata,
                  Inventory **ret)
{
	Inventory *inv;

	assert_return(rootfd >= 0, -EBADF);
	assert_return(ret, -EINVAL);

	inv = calloc(1, sizeof(*inv));
	if (!inv)
		return -ENOMEM;
	inv->strings = strpool_new();
	if (!inv->strings) {
		free(inv);
		return -ENOMEM;
	}
	inv->index = PTRTABLE_INIT(lu_hash);
	inv->rootfd = rootfd;
	/* Names need no block limits page: never a command (nor a read) for it. */
	inv->probe_flags = probe_flags | PROBE_IDENTITY_ONLY;
	if (hooks)
		inv->hooks = *hooks;
	inv->userdata = userdata;
	*ret = inv;
	return 0;
}

LuRare *lu_rare_get(Lu *lu)
{
	if (!lu->rare)
		lu->rare = calloc(1, sizeof(*lu->rare));
	return lu->rare;
}

void lu_partitions_clear(Lu *lu)
{
	if (!lu->rare)
		return;
	for (size_t i = 0; i < lu->rare->n_partitions; i++)
		free(lu->rare->partitions[i].node);
	lu->rare->partitions = mfree(lu->rare->partitions);
	lu->rare->n_partitions = 0;
}

/* Let go of @lu's shared strings (inventory_string_shared()). */
void lu_put_strings(Inventory *inv, const Lu *lu)
{
	strpool_put(inv->strings, lu->vendor);
	strpool_put(inv->strings, lu->model);
	strpool_put(inv->strings, lu->revision);
	strpool_put(inv->strings, lu->state);
}

static void lu_clear_fields(Inventory *inv, Lu *lu)
{
	free(lu->syspath); /* and the nodes with it (lu_read()) */
	lu_put_strings(inv, lu);
	if (lu->rare) {
		/* The tape's nodes went with the syspath; the map is the owner's to clear. */
		lu->rare->tape = lu->rare->tape_nr = NULL;
		lu_partitions_clear(lu);
	}
	lu_naming_done(&lu->naming);
}

static Lu *lu_free(Inventory *inv, Lu *lu)
{
	if (!lu)
		return NULL;
	lu_clear_fields(inv, lu);
	if (lu->rare) {
		free(lu->rare->mpath);
		free(lu->rare->mpath_uuid);
		free(lu->rare);
	}
	free(lu);
	return NULL;
}

Inventory *inventory_free(Inventory *inv)
{
	if (!inv)
		return NULL;
	if (inv->resync_dir)
		closedir(inv->resync_dir);
	while (inv->hosts) {
		Host *h = inv->hosts;

		inv->hosts = h->next;
		while (h->targets) {
			Target *t = h->targets;

			h->targets = t->next;
			while (t->lus) {
				Lu *lu = t->lus;

				t->lus = lu->next;
				lu_free(inv, lu);
			}
			free(t);
		}
		hostfacts_done(&h->facts);
		free(h);
	}
	ptrtable_done(&inv->index);
	strpool_free(inv->strings);
	free(inv);
	return NULL;
}

void inventory_forget_caches(Inventory *inv)
{
	if (!inv)
		return;
	udevctx_rules_forget(&inv->rules);
}

void inventory_rules(Inventory *inv, UdevRules *ret)
{
	udevctx_rules_cached(&inv->rules, inv->rootfd, clock_now_usec(CLOCK_MONOTONIC), ret);
}

Host *inventory_hosts(const Inventory *inv)
{
	return inv->hosts;
}

size_t inventory_n_lus(const Inventory *inv)
{
	return inv->n_lus;
}

Lu *inventory_first_lu(const Inventory *inv)
{
	for (Host *h = inv->hosts; h; h = h->next)
		for (Target *t = h->targets; t; t = t->next)
			if (t->lus)
				return t->lus;
	return NULL;
}

Lu *inventory_next_lu(const Lu *lu)
{
	Target *t;
	Host *h;

	if (lu->next)
		return lu->next;
	for (t = lu->target->next, h = lu->target->host; h; h = h->next, t = h ? h->targets : NULL)
		for (; t; t = t->next)
			if (t->lus)
				return t->lus;
	return NULL;
}

static uint64_t mix64(uint64_t x)
{
	/* splitmix64's finaliser: every input bit affects every output bit */
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}

static uint32_t hctl_hash(unsigned hn, unsigned cn, unsigned tn, uint64_t ln)
{
	return (uint32_t)mix64(mix64(((uint64_t)hn << 32 | cn) ^ mix64((uint64_t)tn)) ^ ln);
}

static uint32_t lu_hash(const void *p)
{
	const Lu *lu = p;
	const Target *t = lu->target;

	return hctl_hash(t->host->number, t->channel, t->id, lu->lun);
}

static Lu *find_lu(const Inventory *inv, unsigned hn, unsigned cn, unsigned tn, uint64_t ln)
{
	const PtrTable *x = &inv->index;

	for (size_t i = ptrtable_home(x, hctl_hash(hn, cn, tn, ln)); ptrtable_at(x, i);
	     i = ptrtable_next(x, i)) {
		Lu *lu = ptrtable_at(x, i);
		const Target *t = lu->target;

		if (lu->lun == ln && t->id == tn && t->channel == cn && t->host->number == hn)
			return lu;
	}
	return NULL;
}

Lu *inventory_find(const Inventory *inv, const char *hctl)
{
	unsigned h, c, t;
	uint64_t l;

	if (!inv || !hctl || hctl_parse(hctl, &h, &c, &t, &l) < 0)
		return NULL;
	return find_lu(inv, h, c, t, l);
}

/* Insert @lu at its place, creating its host and target as needed. */
static int insert_lu(Inventory *inv, Lu *lu, unsigned hn, unsigned cn, unsigned tn)
{
	Host **hp, *h;
	Target **tp, *t;
	Lu **lp;
	int r;

	for (hp = &inv->hosts; *hp && (*hp)->number < hn; hp = &(*hp)->next)
		;
	h = *hp;
	if (!h || h->number != hn) {
		h = calloc(1, sizeof(*h));
		if (!h)
			return -ENOMEM;
		h->inventory = inv;
		h->number = hn;
		/* hosts are few and their driver and transport do not change */
		if (hostfacts_read(inv->rootfd, hn, &h->facts) < 0)
			h->facts = (HostFacts){};
		h->next = *hp;
		*hp = h;
	}
	for (tp = &h->targets;
	     *tp && ((*tp)->channel < cn || ((*tp)->channel == cn && (*tp)->id < tn));
	     tp = &(*tp)->next)
		;
	t = *tp;
	if (!t || t->channel != cn || t->id != tn) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return -ENOMEM; /* an empty host is harmless and pruned on removal */
		t->host = h;
		t->channel = cn;
		t->id = tn;
		t->next = *tp;
		*tp = t;
	}
	/* indexed first: an LU the index cannot take is not in the tree either */
	lu->target = t;
	r = ptrtable_insert(&inv->index, lu);
	if (r < 0)
		return r; /* an empty target is as harmless as an empty host */
	if (t->last_lu && t->last_lu->lun < lu->lun)
		lp = &t->last_lu->next;
	else
		for (lp = &t->lus; *lp && (*lp)->lun < lu->lun; lp = &(*lp)->next)
			;
	lu->next = *lp;
	*lp = lu;
	if (!lu->next)
		t->last_lu = lu;
	inv->n_lus++;
	return 0;
}

static void unlink_lu(Inventory *inv, Lu *lu)
{
	Target *t = lu->target;
	Host *h = t->host;
	Lu *prev = NULL;

	ptrtable_delete(&inv->index, lu);
	for (Lu **lp = &t->lus; *lp; prev = *lp, lp = &(*lp)->next)
		if (*lp == lu) {
			*lp = lu->next;
			break;
		}
	if (t->last_lu == lu)
		t->last_lu = prev;
	inv->n_lus--;
	if (t->lus)
		return;
	for (Target **tp = &h->targets; *tp; tp = &(*tp)->next)
		if (*tp == t) {
			*tp = t->next;
			break;
		}
	free(t);
	if (h->targets)
		return;
	for (Host **hp = &inv->hosts; *hp; hp = &(*hp)->next)
		if (*hp == h) {
			*hp = h->next;
			break;
		}
	hostfacts_done(&h->facts);
	free(h);
}

void lu_changed(Inventory *inv, Lu *lu, LuChange what)
{
	if (what && inv->hooks.lu_changed)
		inv->hooks.lu_changed(inv, lu, what, inv->userdata);
}

void lu_pending_end(Inventory *inv, Lu *lu)
{
	lu->naming_pending = false;
	inv->n_identifying--;
}

static void remove_lu(Inventory *inv, Lu *lu)
{
	if (lu->naming_pending)
		lu_pending_end(inv, lu);
	if (inv->hooks.lu_removed)
		inv->hooks.lu_removed(inv, lu, inv->userdata);
	if (inv->resync_next == lu)
		inv->resync_next = inventory_next_lu(lu);
	unlink_lu(inv, lu);
	lu_free(inv, lu);
}

int inventory_remove(Inventory *inv, const char *hctl)
{
	Lu *lu = inventory_find(inv, hctl);

	if (!lu)
		return 0;
	remove_lu(inv, lu);
	return 1;
}

/* @s without its trailing blanks (the kernel pads INQUIRY strings with spaces to their field's
 * width), as the inventory's shared copy (strpool_put() it). */
const char *inventory_string_shared(Inventory *inv, char *s)
{
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == ' ')
		s[--n] = 0;
	return strpool_get(inv->strings, s);
}

/* A text attribute so shared; NULL when unreadable. Read on every uevent of an LU: into the
 * stack, one page as sysfs holds at most. */
const char *inventory_attr_shared(Inventory *inv, const char *syspath, const char *attr)
{
	char s[4096 + 1];

	if (sysfs_attr_string_buf(inv->rootfd, syspath, attr, s, sizeof(s)) < 0)
		return NULL;
	return inventory_string_shared(inv, s);
}

int lu_partition_insert(Lu *lu, const char *node, uint64_t num)
{
	LuRare *rare = lu_rare_get(lu);
	LuPartition *np;
	size_t i;

	if (!rare)
		return -ENOMEM;
	if (rare->n_partitions == UINT16_MAX)
		return -E2BIG;
	if (GREEDY_REALLOC_EXACT(rare->partitions, rare->n_partitions + 1) < 0)
		return -ENOMEM;
	np = rare->partitions;
	for (i = rare->n_partitions; i > 0 && np[i - 1].number > num; i--)
		np[i] = np[i - 1];
	np[i] = (LuPartition){ .node = strdup(node), .number = (unsigned)num };
	if (!np[i].node) {
		memmove(np + i, np + i + 1, (rare->n_partitions - i) * sizeof(*np));
		return -ENOMEM;
	}
	rare->n_partitions++;
	return 0;
}

static int partition_insert(const char *name, unsigned number, void *userdata)
{
	return lu_partition_insert(userdata, name, number);
}

/* @prefix and @s copied to @p, which moves past them; NULL stays NULL. */
static char *strings_put(char **p, const char *prefix, const char *s)
{
	char *r = *p;

	if (!s)
		return NULL;
	*p = stpcpy(stpcpy(*p, prefix), s) + 1;
	return r;
}

/*
 * Set @lu's syspath and nodes (@bsg with its "bsg/"), all in one allocation, @syspath's:
 * thousands of LUs, and each string a malloc chunk of 32 bytes or more on its own. st names its
 * non-rewinding node after the rewinding one: st0 / nst0. The arguments may point into the
 * strings they replace.
 */
int lu_set_strings(Lu *lu, const char *syspath, const char *sg, const char *block, const char *tape,
                   const char *bsg)
{
	size_t n = strlen(syspath) + 1 + (sg ? strlen(sg) + 1 : 0) +
	           (block ? strlen(block) + 1 : 0) + (tape ? 2 * strlen(tape) + 3 : 0) +
	           (bsg ? strlen(bsg) + 1 : 0);
	_cleanup_free_ char *tmp = malloc(n);
	char *v[5], *p = tmp, *q;

	if (!tmp || (tape && !lu_rare_get(lu)))
		return -ENOMEM;
	(void)strings_put(&p, "", syspath); /* first: the allocation's start */
	v[0] = strings_put(&p, "", sg);
	v[1] = strings_put(&p, "", block);
	v[2] = strings_put(&p, "", tape);
	v[3] = strings_put(&p, "n", tape);
	v[4] = strings_put(&p, "", bsg);
	/* Grown or shrunk in place where malloc can: node events come one by one. */
	q = realloc(lu->syspath, n);
	if (!q)
		return -ENOMEM;
	memcpy(q, tmp, n);
	lu->syspath = q;
	lu->sg = v[0] ? q + (v[0] - tmp) : NULL;
	lu->block = v[1] ? q + (v[1] - tmp) : NULL;
	if (lu->rare) {
		lu->rare->tape = v[2] ? q + (v[2] - tmp) : NULL;
		lu->rare->tape_nr = v[3] ? q + (v[3] - tmp) : NULL;
	}
	lu->bsg = v[4] ? q + (v[4] - tmp) : NULL;
	return 0;
}

/* @lu's nodes (sg, block with its partitions, st, bsg) from sysfs, those @ref has not looked up
 * yet with them. */
int lu_read_nodes(Inventory *inv, Lu *lu, LuRef *ref)
{
	_cleanup_free_ char *bsgdir = NULL, *bsg = NULL;
	int r;

	if (ref->nodes_lazy) {
		r = probe_resolve_nodes(inv->rootfd, ref, 0);
		if (r < 0)
			return r;
	}
	if (asprintf(&bsgdir, "%s/bsg", ref->syspath) < 0)
		return -ENOMEM;
	if (sysfs_first_entry(inv->rootfd, bsgdir, NULL, &bsg) >= 0) {
		free(bsgdir);
		if (asprintf(&bsgdir, "bsg/%s", bsg) < 0) {
			bsgdir = NULL;
			return -ENOMEM;
		}
	} else
		bsgdir = mfree(bsgdir);
	r = lu_set_strings(lu, ref->syspath, ref->sg, ref->block, ref->tape, bsgdir);
	if (r < 0)
		return r;
	return lu->block ? sysfs_for_each_partition(inv->rootfd, ref->syspath, lu->block,
	                                            partition_insert, lu)
	                 : 0;
}

/*
 * Fill @lu (a fresh one, only hctl/lun set) from sysfs: from its directory @devpath when the
 * caller knows it (its add uevent; it is then the LU's syspath), else the bus's entry; its
 * peripheral device type @type when the caller knows it (its add uevent's MODALIAS carries the
 * kernel's value; -1: read "type").
 * -ENOENT when the LU is gone. With @nodes_from_events (the kernel's add of an LU not known yet) no
 * node is looked up: each node's own add uevent comes after the LU's and names it
 * (lu_node_event()). With @info_lazy as well (that add, identified off the loop) nothing is
 * read at all: the identification reads what describes the LU (lu->info_pending), and the
 * directory the add uevent named is taken as it is.
 */
static int lu_read(Inventory *inv, Lu *lu, const char *devpath, int type, LuRef *ref,
                   bool nodes_from_events, bool info_lazy)
{
	int r;

	assert(!info_lazy || nodes_from_events);
	r = probe_resolve_at(inv->rootfd, lu->hctl, devpath,
	                     (info_lazy ? PROBE_RESOLVE_TRUSTED : PROBE_RESOLVE_DIRFD) |
	                             (nodes_from_events ? PROBE_RESOLVE_NO_NODES : 0),
	                     ref);
	if (r < 0)
		return r;
	r = nodes_from_events ? lu_set_strings(lu, ref->syspath, NULL, NULL, NULL, NULL)
	                      : lu_read_nodes(inv, lu, ref);
	if (r < 0)
		return r;

	if (type >= 0 && type <= 0x1f)
		lu->type = type;
	else if (info_lazy)
		lu->type = -1;
	else
		lu->type = lu_ref_type(inv->rootfd, ref);
	if (info_lazy) {
		lu->info_pending = true;
		return 0;
	}
	return lu_read_info(inv, lu, ref);
}

/* What describes @lu, read through @ref (its directory open): lu_read()'s, or in the loop after
 * all when an identification that was to read it did not (lu_info_in_loop()). */
int lu_read_info(Inventory *inv, Lu *lu, LuRef *ref)
{
	LuIdentifyInfo info;

	lu->scsi_level = lu_ref_scsi_level(inv->rootfd, ref);
	if (probe_keep_inquiry(inv->rootfd, ref) == -ENOMEM)
		return -ENOMEM;
	lu_ref_read_strings(inv->rootfd, ref, &info);
	lu_take_strings(inv, lu, &info);
	return 0;
}

/* @s (unless !@ok) as @lu's string *@field when that is still NULL. */
static void lu_take_string(Inventory *inv, const char **field, char *s, bool ok)
{
	if (ok && !*field)
		*field = inventory_string_shared(inv, s);
}

void lu_take_strings(Inventory *inv, Lu *lu, LuIdentifyInfo *info)
{
	lu_take_string(inv, &lu->vendor, info->vendor, info->vendor_ok);
	lu_take_string(inv, &lu->model, info->model, info->model_ok);
	lu_take_string(inv, &lu->revision, info->revision, info->revision_ok);
	lu_take_string(inv, &lu->state, info->state, info->state_ok);
}

LuChange lu_diff(const Lu *a, const Lu *b)
{
	LuChange c = 0;

	if (!streq_ptr(a->block, b->block) || !streq_ptr(lu_tape(a), lu_tape(b)) ||
	    !streq_ptr(a->sg, b->sg) || !streq_ptr(a->bsg, b->bsg) ||
	    lu_n_partitions(a) != lu_n_partitions(b))
		c |= LU_CHANGE_NODES;
	else
		for (size_t i = 0; i < lu_n_partitions(a); i++)
			if (lu_partitions(a)[i].number != lu_partitions(b)[i].number ||
			    !streq(lu_partitions(a)[i].node, lu_partitions(b)[i].node))
				c |= LU_CHANGE_NODES;
	if (a->naming_error != b->naming_error || !lu_naming_equal(&a->naming, &b->naming))
		c |= LU_CHANGE_NAMES;
	if (a->type != b->type || a->scsi_level != b->scsi_level ||
	    !streq_ptr(a->vendor, b->vendor) || !streq_ptr(a->model, b->model) ||
	    !streq_ptr(a->revision, b->revision))
		c |= LU_CHANGE_INFO | LU_CHANGE_PRODUCT;
	if (!streq_ptr(a->state, b->state))
		c |= LU_CHANGE_INFO;
	return c;
}

/*
 * Read @hctl again (inventory_refresh()). A re-probe that needs commands leaves the LU pending:
 * with @keep_names it keeps the names it has until the result (a duplicate add: nothing says
 * its identity changed); without, it has none meanwhile (the device said its identity data
 * changed).
 */
int inventory_refresh_at(Inventory *inv, const char *hctl, const char *devpath, int type,
                         bool reprobe, bool keep_names, bool kernel_add)
{
	_cleanup_(lu_ref_done) LuRef ref = {};
	bool identify = false, cache_only = false;
	Lu *old, *lu;
	unsigned h, c, t;
	uint64_t l;
	int r;

	assert_return(inv && hctl, -EINVAL);
	r = hctl_parse(hctl, &h, &c, &t, &l);
	if (r < 0)
		return r;

	old = find_lu(inv, h, c, t, l);

	/* The H:C:T:L in the Lu's own allocation: it lasts as long as the LU. */
	lu = calloc(1, sizeof(*lu) + strlen(hctl) + 1);
	if (!lu)
		return -ENOMEM;
	lu->lun = l;
	lu->hctl = strcpy((char *)(lu + 1), hctl);

	/* The kernel's own add (not one replayed through sysfs "uevent"): the LU's nodes are
	 * made after it, and each sends its add uevent next. */
	r = lu_read(inv, lu, devpath, type, &ref, kernel_add && !old,
	            kernel_add && !old && devpath && lu_off_loop(inv));
	if (r == -ENOENT || r == -ENODEV) {
		lu_free(inv, lu);
		if (old)
			remove_lu(inv, old);
		return 0;
	}
	if (r >= 0 && devpath && !ref.devpath && !(ref.devpath = strdup(devpath)))
		r = -ENOMEM;
	if (r < 0) {
		lu_free(inv, lu);
		return r;
	}
	lu->generation = inv->generation;

	if (!old) {
		/* Off the loop only what the kernel has just added: the LUs a resync finds keep
		 * the names they have, which a reconciliation without theirs would take away. */
		if (!lu_probe_names(inv, lu, &ref, kernel_add && lu_off_loop(inv), &cache_only)) {
			lu_set_pending(inv, lu);
			identify = true;
		}
		r = insert_lu(inv, lu, h, c, t);
		if (r < 0) {
			lu_free(inv, lu);
			return r;
		}
		if (identify)
			inv->n_identifying++;
		if (inv->hooks.lu_added)
			inv->hooks.lu_added(inv, lu, inv->userdata);
		if (identify)
			lu_identify_submit(inv, lu, cache_only);
		return 0;
	}

	{
		LuChange what;
		Lu tmp;

		/* An LU the kernel cached no VPD for is identified over SG_IO, which needs its
		 * sg (or block) node: when identification failed and a node has appeared since
		 * (the add uevent comes before the upper drivers bind), try again. */
		if (!reprobe && (old->naming_error < 0 || old->probe_no_node) &&
		    (lu_diff(old, lu) & LU_CHANGE_NODES))
			reprobe = true;
		if (reprobe) {
			if (!lu_probe_names(inv, lu, &ref, false, &cache_only)) {
				lu_set_pending(inv, lu);
				identify = true;
				if (keep_names && old->naming_error == 0) {
					lu->naming = old->naming;
					old->naming = (LuNaming){};
				}
			}
			what = lu_diff(old, lu);
		} else {
			/* Same IDs by definition: carry them over. */
			what = lu_diff(old, lu) & ~LU_CHANGE_NAMES;
			lu->naming = old->naming;
			lu->naming_error = old->naming_error;
			lu->probe_commands = old->probe_commands;
			lu->probe_no_node = old->probe_no_node;
			lu->naming_pending = old->naming_pending;
			lu->identify_token = old->identify_token;
			old->naming = (LuNaming){};
		}
		lu->identified = lu->identified || old->identified;
		if (old->naming_pending)
			inv->n_identifying--;
		if (lu->naming_pending)
			inv->n_identifying++;

		/* Keep the old object (the owner may hold pointers to it), take the new fields. */
		lu_clear_fields(inv, old);
		tmp = *old;
		*old = *lu;
		old->hctl = tmp.hctl;
		old->target = tmp.target;
		old->next = tmp.next;
		old->userdata = tmp.userdata;
		/* The map is the owner's: kept (lu_clear_fields() left only it in tmp.rare). */
		if (tmp.rare && old->rare) {
			old->rare->mpath = tmp.rare->mpath;
			old->rare->mpath_uuid = tmp.rare->mpath_uuid;
			free(tmp.rare);
		} else if (tmp.rare)
			old->rare = tmp.rare;
		free(lu);
		lu_changed(inv, old, what);
		if (identify)
			lu_identify_submit(inv, old, false);
	}
	return 0;
}

int inventory_refresh(Inventory *inv, const char *hctl, bool reprobe)
{
	return inventory_refresh_at(inv, hctl, NULL, -1, reprobe, true, false);
}

/* The device said its identity changed: read @hctl again and derive its IDs and names, which
 * it has none of while that takes commands. */
int inventory_reprobe(Inventory *inv, const char *hctl)
{
	return inventory_refresh_at(inv, hctl, NULL, -1, true, false, false);
}

/* @hctl as this resync finds it. An LU whose identification failed is tried again: a resync is
 * when what was missing may be there. */
static int resync_refresh(Inventory *inv, const char *hctl, bool reprobe)
{
	const Lu *old = inventory_find(inv, hctl);

	return inventory_refresh(inv, hctl,
	                         reprobe || (old && old->naming_error < 0 && !old->naming_pending));
}

static void resync_fail(Inventory *inv, int r)
{
	if (r < 0 && inv->resync_error == 0)
		inv->resync_error = r;
}

int inventory_resync_begin(Inventory *inv, bool reprobe)
{
	_cleanup_(closedirp) DIR *d = NULL;
	int r;

	assert_return(inv, -EINVAL);

	r = sysfs_opendir(inv->rootfd, "sys/bus/scsi/devices", &d);
	if (r < 0 && r != -ENOENT)
		return r;

	if (inv->resync_dir)
		closedir(inv->resync_dir);
	/* Without the scsi bus (scsi_mod not loaded yet) there simply are no LUs. */
	inv->resync_dir = TAKE_PTR(d);
	inv->resync_running = true;
	inv->resync_walking = false;
	inv->resync_next = NULL;
	inv->resync_reprobe = reprobe;
	inv->resync_error = 0;
	inv->generation++;
	/* Whatever was missed may have changed hosts, targets or rules. */
	inventory_forget_caches(inv);
	return 0;
}

bool inventory_resync_running(const Inventory *inv)
{
	return inv && inv->resync_running;
}

int inventory_resync_step(Inventory *inv, size_t budget, bool *ret_done)
{
	size_t n = 0;

	assert_return(inv && ret_done, -EINVAL);

	*ret_done = !inv->resync_running;
	if (*ret_done)
		return 0;
	for (struct dirent *de; inv->resync_dir && n < budget;) {
		de = readdir(inv->resync_dir);
		if (!de) {
			closedir(inv->resync_dir);
			inv->resync_dir = NULL;
			break;
		}
		if (hctl_parse(de->d_name, NULL, NULL, NULL, NULL) < 0)
			continue; /* hosts and targets are listed here too */
		resync_fail(inv, resync_refresh(inv, de->d_name, inv->resync_reprobe));
		n++;
	}
	if (inv->resync_dir)
		return 0;

	/* What the bus no longer lists: refresh() removes it only if sysfs says it is gone. The
	 * walk goes on from where the last step left it (remove_lu() moves that on). */
	if (!inv->resync_walking) {
		inv->resync_walking = true;
		inv->resync_next = inventory_first_lu(inv);
	}
	for (Lu *lu; (lu = inv->resync_next) && n < budget;) {
		int k;

		inv->resync_next = inventory_next_lu(lu);
		if (lu->generation == inv->generation)
			continue;
		k = inventory_refresh(inv, lu->hctl, false);
		if (k < 0) {
			/* kept as it was: not tried again in this resync */
			lu->generation = inv->generation;
			resync_fail(inv, k);
		}
		n++;
	}
	if (inv->resync_next)
		return 0;

	inv->resync_walking = false;
	inv->resync_running = false;
	*ret_done = true;
	return inv->resync_error;
}

int inventory_resync(Inventory *inv, bool reprobe)
{
	bool done = false;
	int r;

	r = inventory_resync_begin(inv, reprobe);
	while (r >= 0 && !done)
		r = inventory_resync_step(inv, SIZE_MAX, &done);
	return r;
}

LuRelation lu_relation(const Lu *a, const Lu *b)
{
	return lu_naming_relation(&a->naming, &b->naming);
}
