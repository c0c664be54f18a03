/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "inventory.h"
#include "lu-identify.h"
#include "luns.h"
#include "macro.h"
#include "strpool.h"
#include "sysfs.h"

struct Inventory {
	int rootfd;
	ProbeFlags probe_flags;
	InventoryHooks hooks;
	void *userdata;
	Host *hosts;
	size_t n_lus;
	size_t n_identifying; /* LUs with naming_pending */
	uint64_t identify_seq;
	unsigned generation;
	/* Every LU by H:C:T:L, so that each uevent finds its LU in O(1): open addressing with
	 * linear probing, @index_size a power of two kept at least twice @n_lus. */
	Lu **index;
	size_t index_size;
	StrPool *strings; /* Lu.vendor, .model, .revision, .state */
	/* What identifying one LU reads that is the same for many: which udev rules files exist,
	 * and path_id's walk above the LUs (hosts, targets, adapters). */
	UdevRulesCache rules;
	PathIdCache *paths;
	/* The identification of every LU the kernel adds goes to the identify hook, one from the
	 * kernel's cache too (inventory_identify_off_loop()). */
	bool identify_off_loop;
};

static const char *const ua_table[_LU_UA_MAX] = {
	[LU_UA_REPORTED_LUNS_CHANGED] = "REPORTED_LUNS_DATA_HAS_CHANGED",
	[LU_UA_CAPACITY_CHANGED] = "CAPACITY_DATA_HAS_CHANGED",
	[LU_UA_INQUIRY_CHANGED] = "INQUIRY_DATA_HAS_CHANGED",
	[LU_UA_POWER_ON_RESET] = "POWER_ON_RESET_OCCURRED",
	[LU_UA_MODE_PARAMETERS_CHANGED] = "MODE_PARAMETERS_CHANGED",
	[LU_UA_THIN_PROVISIONING_THRESHOLD] = "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED",
	[LU_UA_ALUA_STATE_CHANGED] = "ASYMMETRIC_ACCESS_STATE_CHANGED",
	[LU_UA_OTHER] = "OTHER",
};

LuUnitAttention lu_unit_attention_from_string(const char *s)
{
	if (!s)
		return _LU_UA_INVALID;
	for (LuUnitAttention i = 0; i < LU_UA_OTHER; i++)
		if (streq(s, ua_table[i]))
			return i;
	return LU_UA_OTHER;
}

const char *lu_unit_attention_to_string(LuUnitAttention ua)
{
	return ua >= 0 && ua < _LU_UA_MAX ? ua_table[ua] : NULL;
}

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

const char *lu_primary_node(const Lu *lu)
{
	switch (lu->type) {
	case LU_TYPE_DISK:
	case LU_TYPE_OPTICAL:
	case LU_TYPE_RBC:
	case LU_TYPE_ZBC:
	case LU_TYPE_WORM:
	case LU_TYPE_CDROM:
		return lu->block;
	case LU_TYPE_TAPE:
		return lu_tape(lu);
	default:
		return lu->sg;
	}
}

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
	if (pathid_cache_new(&inv->paths) < 0) {
		strpool_free(inv->strings);
		free(inv);
		return -ENOMEM;
	}
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

static void lu_partitions_clear(Lu *lu)
{
	if (!lu->rare)
		return;
	for (size_t i = 0; i < lu->rare->n_partitions; i++)
		free(lu->rare->partitions[i].node);
	lu->rare->partitions = mfree(lu->rare->partitions);
	lu->rare->n_partitions = 0;
}

/* Let go of @lu's shared strings (string_shared()). */
static void lu_put_strings(Inventory *inv, const Lu *lu)
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
		free(h);
	}
	free(inv->index);
	strpool_free(inv->strings);
	pathid_cache_free(inv->paths);
	free(inv);
	return NULL;
}

void inventory_forget_caches(Inventory *inv)
{
	if (!inv)
		return;
	udevctx_rules_forget(&inv->rules);
	pathid_cache_forget(inv->paths);
}

/* The rules udev reads, from the inventory's cache (udevctx.h), on CLOCK_MONOTONIC. */
static void inventory_rules(Inventory *inv, UdevRules *ret)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	udevctx_rules_cached(&inv->rules, inv->rootfd,
	                     (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000, ret);
}

int inventory_rootfd(const Inventory *inv)
{
	return inv->rootfd;
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

static size_t hctl_hash(unsigned hn, unsigned cn, unsigned tn, uint64_t ln)
{
	return (size_t)mix64(mix64(((uint64_t)hn << 32 | cn) ^ mix64((uint64_t)tn)) ^ ln);
}

static size_t lu_hash(const Lu *lu)
{
	const Target *t = lu->target;

	return hctl_hash(t->host->number, t->channel, t->id, lu->lun);
}

static Lu *find_lu(const Inventory *inv, unsigned hn, unsigned cn, unsigned tn, uint64_t ln)
{
	size_t mask = inv->index_size - 1;

	if (inv->index_size == 0)
		return NULL;
	for (size_t i = hctl_hash(hn, cn, tn, ln) & mask; inv->index[i]; i = (i + 1) & mask) {
		Lu *lu = inv->index[i];
		const Target *t = lu->target;

		if (lu->lun == ln && t->id == tn && t->channel == cn && t->host->number == hn)
			return lu;
	}
	return NULL;
}

static void index_put(Lu **index, size_t size, Lu *lu)
{
	size_t i = lu_hash(lu) & (size - 1);

	while (index[i])
		i = (i + 1) & (size - 1);
	index[i] = lu;
}

/* Room for one more LU. */
static int index_reserve(Inventory *inv)
{
	size_t size;
	Lu **index;

	if ((inv->n_lus + 1) * 2 <= inv->index_size)
		return 0;
	size = inv->index_size ? inv->index_size * 2 : 64;
	index = calloc(size, sizeof(*index));
	if (!index)
		return -ENOMEM;
	for (size_t i = 0; i < inv->index_size; i++)
		if (inv->index[i])
			index_put(index, size, inv->index[i]);
	free(inv->index);
	inv->index = index;
	inv->index_size = size;
	return 0;
}

static void index_remove(Inventory *inv, const Lu *lu)
{
	size_t mask = inv->index_size - 1, i, j;

	if (inv->index_size == 0)
		return;
	for (i = lu_hash(lu) & mask; inv->index[i] && inv->index[i] != lu; i = (i + 1) & mask)
		;
	if (!inv->index[i])
		return;
	/* Shift back the entries after it that probed past its slot, so none becomes
	 * unreachable (no tombstones). */
	for (j = (i + 1) & mask; inv->index[j]; j = (j + 1) & mask) {
		size_t k = lu_hash(inv->index[j]) & mask;

		/* Leave it where it is when its home slot k lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		inv->index[i] = inv->index[j];
		i = j;
	}
	inv->index[i] = NULL;
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

	r = index_reserve(inv);
	if (r < 0)
		return r;
	for (hp = &inv->hosts; *hp && (*hp)->number < hn; hp = &(*hp)->next)
		;
	h = *hp;
	if (!h || h->number != hn) {
		h = calloc(1, sizeof(*h));
		if (!h)
			return -ENOMEM;
		h->inventory = inv;
		h->number = hn;
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
	if (t->last_lu && t->last_lu->lun < lu->lun)
		lp = &t->last_lu->next;
	else
		for (lp = &t->lus; *lp && (*lp)->lun < lu->lun; lp = &(*lp)->next)
			;
	lu->next = *lp;
	*lp = lu;
	if (!lu->next)
		t->last_lu = lu;
	lu->target = t;
	inv->n_lus++;
	index_put(inv->index, inv->index_size, lu);
	return 0;
}

static void unlink_lu(Inventory *inv, Lu *lu)
{
	Target *t = lu->target;
	Host *h = t->host;
	Lu *prev = NULL;

	index_remove(inv, lu);
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
	free(h);
}

/* The lu_changed hook, when something changed. */
static void lu_changed(Inventory *inv, Lu *lu, LuChange what)
{
	if (what && inv->hooks.lu_changed)
		inv->hooks.lu_changed(inv, lu, what, inv->userdata);
}

/* @lu (pending, counted) waits no more for an identification off the loop. */
static void lu_pending_end(Inventory *inv, Lu *lu)
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
static const char *string_shared(Inventory *inv, char *s)
{
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == ' ')
		s[--n] = 0;
	return strpool_get(inv->strings, s);
}

/* A text attribute so shared; NULL when unreadable. Read on every uevent of an LU: into the
 * stack, one page as sysfs holds at most. */
static const char *attr_shared(Inventory *inv, const char *syspath, const char *attr)
{
	char s[4096 + 1];

	if (sysfs_attr_string_buf(inv->rootfd, syspath, attr, s, sizeof(s)) < 0)
		return NULL;
	return string_shared(inv, s);
}

/* The same, shared as attr_shared() shares it. */
static const char *ref_attr_shared(Inventory *inv, const LuRef *ref, const char *attr)
{
	char s[4096 + 1];

	if (!lu_ref_attr_string(inv->rootfd, ref, attr, s, sizeof(s)))
		return NULL;
	return string_shared(inv, s);
}

/* Add partition @node numbered @num to @lu's, kept ordered by number. */
static int lu_partition_insert(Lu *lu, const char *node, uint64_t num)
{
	LuRare *rare = lu_rare_get(lu);
	LuPartition *np;
	size_t i;

	if (!rare)
		return -ENOMEM;
	if (rare->n_partitions == UINT16_MAX)
		return -E2BIG;
	np = realloc(rare->partitions, (rare->n_partitions + 1) * sizeof(*np));
	if (!np)
		return -ENOMEM;
	rare->partitions = np;
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

typedef struct PartitionsRead {
	int rootfd;
	const char *dir; /* the disk's directory */
	Lu *lu;
} PartitionsRead;

static int partition_entry(const char *name, void *userdata)
{
	PartitionsRead *pr = userdata;
	_cleanup_free_ char *p = NULL;
	uint64_t num;

	if (asprintf(&p, "%s/%s", pr->dir, name) < 0)
		return -ENOMEM;
	if (sysfs_attr_u64(pr->rootfd, p, "partition", &num) < 0 || num == 0 || num > UINT32_MAX)
		return 0;
	return lu_partition_insert(pr->lu, name, num);
}

/* Partitions of @block: the entries of its sysfs directory that have a "partition" attribute
 * (a disk's directory has some thirty entries: listed with getdents64, no DIR). */
static int read_partitions(int rootfd, const char *syspath, const char *block, Lu *lu)
{
	_cleanup_free_ char *dir = NULL;
	PartitionsRead pr = { .rootfd = rootfd, .lu = lu };
	int r;

	if (asprintf(&dir, "%s/block/%s", syspath, block) < 0)
		return -ENOMEM;
	pr.dir = dir;
	r = sysfs_for_each_entry(rootfd, dir, block, partition_entry, &pr);
	if (r < 0)
		return r == -ENOENT ? 0 : r;
	return 0;
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
static int lu_set_strings(Lu *lu, const char *syspath, const char *sg, const char *block,
                          const char *tape, const char *bsg)
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

static const char *inquiry_string(Inventory *inv, const LuRef *ref, const char *attr, size_t off,
                                  size_t len)
{
	char s[16 + 1];

	assert(len < sizeof(s));
	if (!lu_ref_inquiry_field(ref, off, len, s))
		return ref_attr_shared(inv, ref, attr);
	return string_shared(inv, s);
}

/* Whether the identification of an LU the kernel adds runs off the loop. */
static bool lu_off_loop(const Inventory *inv)
{
	return inv->identify_off_loop && inv->hooks.identify &&
	       !(inv->probe_flags & PROBE_SYSFS_ONLY);
}

/* @lu's nodes (sg, block with its partitions, st, bsg) from sysfs, those @ref has not looked up
 * yet with them. */
static int lu_read_nodes(Inventory *inv, Lu *lu, LuRef *ref)
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
	return lu->block ? read_partitions(inv->rootfd, ref->syspath, lu->block, lu) : 0;
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
static int lu_read_info(Inventory *inv, Lu *lu, LuRef *ref);

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
static int lu_read_info(Inventory *inv, Lu *lu, LuRef *ref)
{
	lu->scsi_level = lu_ref_scsi_level(inv->rootfd, ref);
	if (probe_keep_inquiry(inv->rootfd, ref) == -ENOMEM)
		return -ENOMEM;
	lu->vendor = inquiry_string(inv, ref, "vendor", 8, 8);
	lu->model = inquiry_string(inv, ref, "model", 16, 16);
	lu->revision = inquiry_string(inv, ref, "rev", 32, 4);
	lu->state = ref_attr_shared(inv, ref, "state");
	return 0;
}

static bool lu_is_cdrom(const Lu *lu)
{
	return lu->block && strneq(lu->block, "sr", 2);
}

/*
 * Identify @lu in the caller's thread, which is what happens when the kernel's cache holds every
 * page that identifies it (no command needed), when it has no node to send a command to, or
 * when nobody takes commands off this thread (no identify hook): true. False when commands are
 * needed and the identify hook is set, or with @off_loop (and the hook set): the caller makes the
 * LU pending and hands it over (lu_identify_submit()), with *@ret_cache_only for @off_loop: a job
 * that reads the kernel's cache and nothing else.
 */
static bool lu_probe_names(Inventory *inv, Lu *lu, LuRef *ref, bool off_loop, bool *ret_cache_only)
{
	_cleanup_(probe_data_done) ProbeData pd = {};
	ProbeFlags flags = inv->probe_flags;
	bool no_node = false, cache_short = false;
	UdevRules rules;
	int r;

	*ret_cache_only = false;
	/* Off the loop, with the rest of the LU's reads there (the pages, path_id's walk); what
	 * the cache lacks is asked for later, once that is known (inventory_identify_done()). */
	if (off_loop) {
		*ret_cache_only = !(flags & PROBE_SGIO_ONLY);
		return false;
	}
	/* Nodes left to their uevents (lu_read()) are looked up after all when the kernel's
	 * cache lacks a page, as they would have been: a command needs one. */
	if (ref->nodes_lazy && !(flags & PROBE_SYSFS_ONLY)) {
		if (!(flags & PROBE_SGIO_ONLY)) {
			r = probe_read(inv->rootfd, ref, flags | PROBE_SYSFS_ONLY, &pd);
			if (r == -ENOMEM || (r >= 0 && pd.uncached == 0))
				goto names;
			cache_short = true;
			probe_data_done(&pd);
		}
		r = lu_read_nodes(inv, lu, ref);
		if (r < 0)
			goto names;
	}

	/* Without a node no command can be sent: identifying it never waits for a device. */
	if (inv->hooks.identify && !(flags & PROBE_SYSFS_ONLY) &&
	    (ref->sg || ref->block || ref->tape)) {
		/* the cache's answer, when the look above asked it already */
		if ((flags & PROBE_SGIO_ONLY) || cache_short)
			return false;
		r = probe_read(inv->rootfd, ref, flags | PROBE_SYSFS_ONLY, &pd);
		if (r != -ENOMEM && (r < 0 || pd.uncached != 0))
			return false;
	} else
		r = probe_read(inv->rootfd, ref, flags, &pd);
names:
	lu_naming_done(&lu->naming);
	lu->probe_commands = (uint16_t)MIN(pd.commands, (unsigned)UINT16_MAX);
	inventory_rules(inv, &rules);
	lu->naming_error =
	        lu_identify_names(inv->rootfd, ref, &pd, r, lu->scsi_level, lu_is_cdrom(lu), &rules,
	                          inv->paths, &lu->naming, &no_node);
	lu->probe_no_node = no_node;
	lu->naming_pending = false;
	lu->identified = true;
	return true;
}

/* @lu (not in the tree yet, or not counted) waits for an identification off the loop. */
static void lu_set_pending(Inventory *inv, Lu *lu)
{
	lu->naming_error = 0;
	lu->probe_no_node = false;
	lu->probe_commands = 0;
	lu->naming_pending = true;
	lu->identify_token = ++inv->identify_seq;
}

static LuChange lu_info_in_loop(Inventory *inv, Lu *lu);

/* @lu's identification off the loop ended, no longer pending: @what changed. */
static void lu_identified(Inventory *inv, Lu *lu, LuChange what)
{
	lu_changed(inv, lu, what);
	if (inv->hooks.lu_identified)
		inv->hooks.lu_identified(inv, lu, inv->userdata);
	lu->identified = true;
}

/* Hand @lu's identification (pending, counted) to the owner; on failure it ends here. */
static void lu_identify_submit(Inventory *inv, Lu *lu, bool cache_only)
{
	LuIdentifyJob *job;
	UdevRules rules;
	int r;

	inventory_rules(inv, &rules);
	r = lu_identify_job_new(
	        &(LuIdentifyRequest){
	                .rootfd = inv->rootfd,
	                .flags = inv->probe_flags | (cache_only ? PROBE_SYSFS_ONLY : 0),
	                .token = lu->identify_token,
	                .hctl = lu->hctl,
	                .syspath = lu->syspath,
	                .sg = lu->sg,
	                .block = lu->block,
	                .tape = lu_tape(lu),
	                .type = lu->type,
	                .scsi_level = lu->scsi_level,
	                .is_cdrom = lu_is_cdrom(lu),
	                .read_info = lu->info_pending,
	                .rules = &rules,
	                .paths = inv->paths,
	        },
	        &job);
	if (r >= 0)
		r = inv->hooks.identify(inv, job, inv->userdata);

	if (r >= 0)
		return;
	/* Still pending with this token unless the hook finished it already. */
	lu = inventory_find(inv, lu->hctl);
	if (!lu || !lu->naming_pending)
		return;
	lu_pending_end(inv, lu);
	lu_naming_done(&lu->naming);
	lu->naming_error = r;
	lu_identified(inv, lu, LU_CHANGE_NAMES | (lu->info_pending ? lu_info_in_loop(inv, lu) : 0));
}

void inventory_identify_off_loop(Inventory *inv, bool b)
{
	if (inv)
		inv->identify_off_loop = b;
}

size_t inventory_n_identifying(const Inventory *inv)
{
	return inv ? inv->n_identifying : 0;
}

static LuChange lu_diff(const Lu *a, const Lu *b);

/* @s (unless !@ok) as @lu's string *@field when that is still NULL. */
static void lu_take_string(Inventory *inv, const char **field, char *s, bool ok)
{
	if (ok && !*field)
		*field = string_shared(inv, s);
}

/* What job_read_info() read, into @lu, whose info_pending ends: the change that makes. */
static LuChange lu_take_info(Inventory *inv, Lu *lu, LuIdentifyInfo *info)
{
	Lu was = *lu;

	lu->info_pending = false;
	lu->type = (int8_t)info->type;
	lu->scsi_level = info->scsi_level;
	lu_take_string(inv, &lu->vendor, info->vendor, info->vendor_ok);
	lu_take_string(inv, &lu->model, info->model, info->model_ok);
	lu_take_string(inv, &lu->revision, info->revision, info->revision_ok);
	/* the state may have been read since, on its own event (inventory_reread_state()) */
	lu_take_string(inv, &lu->state, info->state, info->state_ok);
	return lu_diff(&was, lu);
}

/*
 * @lu's identification was to read what describes it and did not: read in the loop, as
 * lu_read() does otherwise. The change that makes.
 */
static LuChange lu_info_in_loop(Inventory *inv, Lu *lu)
{
	_cleanup_(lu_ref_done) LuRef ref = {};
	Lu was = *lu;
	LuChange what;

	lu->info_pending = false;
	if (probe_resolve_at(inv->rootfd, lu->hctl, lu->syspath,
	                     PROBE_RESOLVE_DIRFD | PROBE_RESOLVE_NO_NODES, &ref) < 0)
		return 0;
	if (lu->type < 0)
		lu->type = lu_ref_type(inv->rootfd, &ref);
	lu->vendor = lu->model = lu->revision = lu->state = NULL;
	(void)lu_read_info(inv, lu, &ref);
	what = lu_diff(&was, lu);
	lu_put_strings(inv, &was);
	return what;
}

static int lu_reprobe(Inventory *inv, const char *hctl);

int inventory_identify_done(Inventory *inv, LuIdentifyJob *job, int error)
{
	LuIdentifyInfo *info;
	LuChange what = 0;
	LuNaming old;
	int old_error;
	bool changed;
	Lu *lu;

	assert_return(inv && job, -EINVAL);
	lu = inventory_find(inv, lu_identify_job_hctl(job));
	if (!lu || !lu->naming_pending || lu->identify_token != lu_identify_job_token(job))
		return 0; /* removed, or re-probed since: not this LU's result any more */
	info = error >= 0 ? lu_identify_job_info(job) : NULL;
	if (lu->info_pending && info && info->error < 0) {
		char hctl[sizeof("4294967295:4294967295:4294967295:18446744073709551615")];

		/* Its directory was not there: gone since its add (its remove uevent follows),
		 * or not where that said. Read as a resync would, which settles either. */
		snprintf(hctl, sizeof(hctl), "%s", lu->hctl);
		lu_pending_end(inv, lu);
		lu->info_pending = false;
		(void)lu_reprobe(inv, hctl);
		return 1;
	}
	if (lu->info_pending)
		/* -ETIMEDOUT: the job still runs, nothing of it is read */
		what = info ? lu_take_info(inv, lu, info) : lu_info_in_loop(inv, lu);
	if (error >= 0 && lu_identify_job_reask(job, lu->sg || lu->block || lu_tape(lu))) {
		/* The kernel cached too little: commands, on the nodes it has by now (none: from
		 * the cache alone, and again when its first node appears), as in the loop. Or the
		 * job had no node to send them to, and the LU has one now: its uevent came while
		 * the job ran, and finding the LU pending it left the asking to this result. */
		lu_changed(inv, lu, what);
		lu->identify_token = ++inv->identify_seq;
		lu_identify_submit(inv, lu, false);
		return 1;
	}

	lu_pending_end(inv, lu);
	old = lu->naming;
	old_error = lu->naming_error;
	lu->naming = (LuNaming){};
	if (error < 0) {
		/* -ETIMEDOUT: the job still runs; nothing of it is read */
		lu->naming_error = error;
		lu->probe_no_node = false;
	} else {
		unsigned commands;
		bool no_node;

		lu->naming_error =
		        (int16_t)lu_identify_job_result(job, &lu->naming, &commands, &no_node);
		lu->probe_commands = (uint16_t)MIN(commands, (unsigned)UINT16_MAX);
		lu->probe_no_node = no_node;
	}
	changed = old_error != lu->naming_error || !lu_naming_equal(&old, &lu->naming);
	lu_naming_done(&old);
	if (changed)
		what |= LU_CHANGE_NAMES;
	lu_identified(inv, lu, what);
	return 1;
}

static LuChange lu_diff(const Lu *a, const Lu *b)
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
static int refresh_lu_at(Inventory *inv, const char *hctl, const char *devpath, int type,
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
	return refresh_lu_at(inv, hctl, NULL, -1, reprobe, true, false);
}

/* The device said its identity changed: read @hctl again and derive its IDs and names, which
 * it has none of while that takes commands. */
static int lu_reprobe(Inventory *inv, const char *hctl)
{
	return refresh_lu_at(inv, hctl, NULL, -1, true, false, false);
}

int inventory_resync(Inventory *inv, bool reprobe)
{
	_cleanup_(closedirp) DIR *d = NULL;
	int r;

	assert_return(inv, -EINVAL);

	r = sysfs_opendir(inv->rootfd, "sys/bus/scsi/devices", &d);
	if (r < 0 && r != -ENOENT)
		return r;
	r = 0;

	inv->generation++;
	/* Whatever was missed may have changed hosts, targets or rules. */
	inventory_forget_caches(inv);
	/* Without the scsi bus (scsi_mod not loaded yet) there simply are no LUs. */
	for (struct dirent *de; d && (de = readdir(d));) {
		int k;

		if (hctl_parse(de->d_name, NULL, NULL, NULL, NULL) < 0)
			continue; /* hosts and targets are listed here too */
		k = inventory_refresh(inv, de->d_name, reprobe);
		if (k < 0 && r == 0)
			r = k;
	}

	for (Lu *lu = inventory_first_lu(inv), *next; lu; lu = next) {
		next = inventory_next_lu(lu);
		if (lu->generation != inv->generation) {
			/* refresh() removes it only if sysfs says it is gone */
			int k = inventory_refresh(inv, lu->hctl, false);
			if (k < 0 && r == 0)
				r = k;
		}
	}
	return r;
}

static int default_rescan_target(Inventory *inv, Target *t)
{
	_cleanup_free_ char *path = NULL, *value = NULL;

	/* The kernel's own scan of one target: adds LUNs it reports, removes none. */
	if (asprintf(&path, "sys/class/scsi_host/host%u/scan", t->host->number) < 0 ||
	    asprintf(&value, "%u %u -", t->channel, t->id) < 0)
		return -ENOMEM;
	return sysfs_write_attr(inv->rootfd, path, value);
}

static int handle_unit_attention(Inventory *inv, const char *hctl, const char *ua_string)
{
	LuUnitAttention ua = lu_unit_attention_from_string(ua_string);
	_cleanup_free_ char *rescan = NULL;
	const char *action = "none";
	Lu *lu;
	int r = 0;

	lu = inventory_find(inv, hctl);
	if (!lu) {
		r = inventory_refresh(inv, hctl, false);
		if (r < 0)
			return r;
		lu = inventory_find(inv, hctl);
		if (!lu)
			return 0;
	}

	switch (ua) {
	case LU_UA_REPORTED_LUNS_CHANGED:
		action = "rescan-target";
		r = inv->hooks.rescan_target
		            ? inv->hooks.rescan_target(inv, lu->target, inv->userdata)
		            : default_rescan_target(inv, lu->target);
		break;
	case LU_UA_CAPACITY_CHANGED:
	case LU_UA_INQUIRY_CHANGED:
		/* CAPACITY: the rescan attribute makes the upper driver re-read the capacity.
		 * INQUIRY: the kernel names nothing: have it re-read its VPD cache
		 * (scsi_rescan_device()), then re-derive IDs and names from it. */
		if (inv->hooks.rescan_lu) {
			r = inv->hooks.rescan_lu(inv, lu, ua, inv->userdata);
			if (r >= 0)
				return 0; /* reported by inventory_rescan_done() */
			action = ua == LU_UA_CAPACITY_CHANGED ? "capacity-reread" : "reprobed";
			break;
		}
		if (asprintf(&rescan, "%s/rescan", lu->syspath) < 0)
			return -ENOMEM;
		return inventory_rescan_done(inv, hctl, ua,
		                             sysfs_write_attr(inv->rootfd, rescan, "1"));
	case LU_UA_POWER_ON_RESET:
		action = "policy";
		r = inv->hooks.apply_policy ? inv->hooks.apply_policy(inv, lu, inv->userdata) : 0;
		break;
	default:
		break;
	}

	if (lu && inv->hooks.unit_attention)
		inv->hooks.unit_attention(inv, lu, ua, action, r, inv->userdata);
	return r;
}

int inventory_rescan_done(Inventory *inv, const char *hctl, LuUnitAttention ua, int error)
{
	const char *action = "capacity-reread";
	int r = error;
	Lu *lu;

	assert_return(inv && hctl, -EINVAL);
	if (ua == LU_UA_INQUIRY_CHANGED) {
		int k = lu_reprobe(inv, hctl);

		action = "reprobed";
		if (r >= 0)
			r = k;
	}
	lu = inventory_find(inv, hctl);
	if (lu && inv->hooks.unit_attention)
		inv->hooks.unit_attention(inv, lu, ua, action, r, inv->userdata);
	return r;
}

static bool action_is(const Uevent *ev, const char *a)
{
	return ev->action && streq(ev->action, a);
}

/* A partition of the LU's disk appeared or went away (@disk/@part from the event's path). */
static int lu_partition_event(Inventory *inv, Lu *lu, bool add, const char *disk, size_t disk_len,
                              const char *part)
{
	_cleanup_free_ char *p = NULL;
	uint64_t num;
	size_t i;
	int r;

	if (!lu->block || strlen(lu->block) != disk_len || !strneq(lu->block, disk, disk_len))
		return 0;
	for (i = 0; i < lu_n_partitions(lu); i++)
		if (streq(lu_partitions(lu)[i].node, part))
			break;

	if (!add) {
		LuRare *rare = lu->rare;

		if (i == lu_n_partitions(lu))
			return 1; /* never knew it: nothing changes */
		free(rare->partitions[i].node);
		memmove(rare->partitions + i, rare->partitions + i + 1,
		        (rare->n_partitions - i - 1) * sizeof(*rare->partitions));
		rare->n_partitions--;
		lu_changed(inv, lu, LU_CHANGE_NODES);
		return 1;
	}

	if (i < lu_n_partitions(lu))
		return 1;
	if (asprintf(&p, "%s/block/%s/%s", lu->syspath, lu->block, part) < 0)
		return -ENOMEM;
	r = sysfs_attr_u64(inv->rootfd, p, "partition", &num);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || num == 0 || num > UINT32_MAX)
		return 0; /* not what the event said: let a full read decide */
	r = lu_partition_insert(lu, part, num);
	if (r < 0)
		return r;
	lu_changed(inv, lu, LU_CHANGE_NODES);
	return 1;
}

/*
 * A node of a known LU was added or removed: the event names it (the last component of
 * DEVPATH is the node's name; bsg nodes live in dev/bsg/), so update that one node instead of
 * reading the whole LU from sysfs again. Returns 1 when done, 0 when the event does not fit
 * what the inventory knows (or needs more than the node: a re-probe) and the caller must read
 * the LU in full, or -errno.
 */
static int lu_node_event(Inventory *inv, Lu *lu, const Uevent *ev, const char *base)
{
	bool add = action_is(ev, "add");
	_cleanup_free_ char *bsg = NULL;
	const char *name = base;
	char **slot;
	int r;

	if (!add && !action_is(ev, "remove"))
		return 0; /* change, move: read it all */

	if (streq(ev->subsystem, "block")) {
		if (ev->devtype && streq(ev->devtype, "partition")) {
			/* .../block/<disk>/<part> */
			const char *end = base - 1, *disk = end;

			while (disk > ev->devpath && disk[-1] != '/')
				disk--;
			if (disk == end || (size_t)(disk - ev->devpath) < strlen("/block/") ||
			    !strneq(disk - strlen("/block/"), "/block/", strlen("/block/")))
				return 0;
			return lu_partition_event(inv, lu, add, disk, (size_t)(end - disk), base);
		}
		if (!ev->devtype || !streq(ev->devtype, "disk"))
			return 0;
		slot = &lu->block;
	} else if (streq(ev->subsystem, "scsi_generic"))
		slot = &lu->sg;
	else if (streq(ev->subsystem, "bsg")) {
		if (asprintf(&bsg, "bsg/%s", base) < 0)
			return -ENOMEM;
		name = bsg;
		slot = &lu->bsg;
	} else
		return 0; /* st makes several nodes per LU (st0, nst0, st0l, ...): read them */

	if (add) {
		if (*slot)
			return streq(*slot, name) ? 1 : 0;
		/* Identification failed for want of a node to ask: a full read re-probes. */
		if (lu->naming_error < 0 || lu->probe_no_node)
			return 0;
	} else {
		if (!*slot)
			return 1;
		if (!streq(*slot, name))
			return 0;
		name = NULL;
	}
	r = lu_set_strings(lu, lu->syspath, slot == &lu->sg ? name : lu->sg,
	                   slot == &lu->block ? name : lu->block, lu_tape(lu),
	                   slot == &lu->bsg ? name : lu->bsg);
	if (r < 0)
		return r;
	if (!lu->block)
		lu_partitions_clear(lu); /* the disk went, and its partitions with it */
	lu_changed(inv, lu, LU_CHANGE_NODES);
	return 1;
}

/* bind/unbind of a known LU: an upper driver came or went. Its nodes have events of their own;
 * only the device's state may differ. */
/* @state (shared, NULL: unreadable) as @lu's: 1 when it changed (the lu_changed hook has been
 * called), 0 when not. */
static int lu_take_state(Inventory *inv, Lu *lu, const char *state)
{
	if (streq_ptr(state, lu->state)) {
		strpool_put(inv->strings, state);
		return 0;
	}
	strpool_put(inv->strings, lu->state);
	lu->state = state;
	lu_changed(inv, lu, LU_CHANGE_INFO);
	return 1;
}

static int lu_driver_event(Inventory *inv, Lu *lu)
{
	const char *state;

	if (lu->info_pending)
		return 1; /* its identification reads the state */
	state = attr_shared(inv, lu->syspath, "state");
	if (!state && faccessat(inv->rootfd, lu->syspath, F_OK, 0) < 0)
		return 0; /* gone: a full read removes it */
	(void)lu_take_state(inv, lu, state);
	return 1;
}

int inventory_reread_state(Inventory *inv, Lu *lu)
{
	const char *state;

	assert_return(inv && lu, -EINVAL);
	state = attr_shared(inv, lu->syspath, "state");
	return state ? lu_take_state(inv, lu, state) : 0;
}

/* UEVENT_LU: the scsi_device itself. */
static int react_lu(Inventory *inv, const Uevent *ev, const char *base)
{
	Lu *lu;
	int r;

	if (hctl_parse(base, NULL, NULL, NULL, NULL) < 0)
		return 0;
	if (action_is(ev, "remove"))
		return inventory_remove(inv, base) < 0 ? -EIO : 0;
	if (action_is(ev, "change") && ev->sdev_ua)
		return handle_unit_attention(inv, base, ev->sdev_ua);
	/* A scan found the device's identity changed and had the kernel re-read its VPD pages:
	 * derive the IDs and names again, as after INQUIRY DATA HAS CHANGED (the rescan is done
	 * already). */
	if (action_is(ev, "change") && ev->synth_lund && streq(ev->synth_lund, "ids"))
		return lu_reprobe(inv, base);
	if (action_is(ev, "bind") || action_is(ev, "unbind")) {
		lu = inventory_find(inv, base);
		r = lu ? lu_driver_event(inv, lu) : 0;
		if (r != 0)
			return r < 0 ? r : 0;
	}
	/* add, change (state, media), move, online, offline */
	if (action_is(ev, "add")) {
		char devpath[PATH_MAX];

		/* The add uevent names the device's directory (identification need not resolve
		 * sys/bus/scsi/devices/H:C:T:L again: 5 system calls) and its type. */
		return refresh_lu_at(
		        inv, base, uevent_lu_devpath(ev->devpath, devpath) ? devpath : NULL,
		        uevent_modalias_scsi_type(ev->modalias), true, true, !ev->synthetic);
	}
	return inventory_refresh(inv, base, false);
}

/* UEVENT_HOST_REMOVED: each LU gets its own remove event first; this catches any missed: re-read
 * the LUs below the host or target that went, which drops those sysfs lost. Only those: a SAN
 * taking its targets away one after the other must not have every LU read again each time. */
static int react_host_removed(Inventory *inv, const Uevent *ev, const char *base)
{
	unsigned host, channel = 0, id = 0;
	bool any = uevent_devpath_host(ev->devpath, &host) < 0, one_target = false;

	if (!any && ev->devtype && streq(ev->devtype, "scsi_target") && strneq(base, "target", 6)) {
		char hctl[64];
		unsigned h;

		/* "targetH:C:T" */
		if ((size_t)snprintf(hctl, sizeof(hctl), "%s:0", base + 6) < sizeof(hctl) &&
		    hctl_parse(hctl, &h, &channel, &id, NULL) >= 0 && h == host)
			one_target = true;
	}
	for (Lu *next, *x = inventory_first_lu(inv); x; x = next) {
		next = inventory_next_lu(x);
		if (any ||
		    (x->target->host->number == host &&
		     (!one_target || (x->target->channel == channel && x->target->id == id))))
			(void)inventory_refresh(inv, x->hctl, false);
	}
	return 0;
}

/* UEVENT_NODE: a node of an LU appeared, changed or went away: update that node, or re-read the
 * LU's nodes when the event alone does not say enough. */
static int react_node(Inventory *inv, const Uevent *ev, const char *base)
{
	_cleanup_free_ char *hctl = NULL;
	Lu *lu;
	int r;

	r = uevent_devpath_hctl(ev->devpath, &hctl);
	if (r < 0)
		return r == -ENOENT ? 0 : r; /* not a SCSI device's node (loop, nvme, ...) */
	lu = inventory_find(inv, hctl);
	if (!lu && action_is(ev, "remove"))
		return 0;
	if (lu) {
		r = lu_node_event(inv, lu, ev, base);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	return inventory_refresh(inv, hctl, false);
}

static int (*const reactions[_UEVENT_REACTION_MAX])(Inventory *inv, const Uevent *ev,
                                                    const char *base) = {
	[UEVENT_LU] = react_lu,
	[UEVENT_HOST_REMOVED] = react_host_removed,
	[UEVENT_NODE] = react_node,
};

/* Every uevent: a SCSI host or target that came or went makes path_id's walks read their
 * ancestors again. */
static void note_uevent(Inventory *inv, const Uevent *ev)
{
	if (!ev->subsystem || !ev->action || streq(ev->action, "change"))
		return;
	/* A host or target came, went or moved: path_id's walks read their directories again
	 * (pathid.h). The host's class device (scsi_host) comes with the host's. */
	if ((streq(ev->subsystem, "scsi") && ev->devtype &&
	     (streq(ev->devtype, "scsi_host") || streq(ev->devtype, "scsi_target"))) ||
	    streq(ev->subsystem, "scsi_host"))
		pathid_cache_forget(inv->paths);
}

int inventory_handle_uevent(Inventory *inv, const Uevent *ev, UeventReactions what)
{
	const char *base;
	int ret = 0;

	assert_return(inv && ev, -EINVAL);

	note_uevent(inv, ev);
	if (!ev->action || !ev->subsystem || !ev->devpath)
		return 0;
	base = strrchr(ev->devpath, '/');
	base = base ? base + 1 : ev->devpath;
	for (UeventReaction i = 0; i < _UEVENT_REACTION_MAX; i++)
		if (reactions[i] && (what & (1u << i))) {
			int r = reactions[i](inv, ev, base);

			if (r < 0 && ret == 0)
				ret = r;
		}
	return ret;
}

LuSysfs lu_sysfs(const Lu *lu)
{
	const Inventory *inv = lu->target && lu->target->host ? lu->target->host->inventory : NULL;

	return (LuSysfs){ .rootfd = inv ? inv->rootfd : -EBADF, .syspath = lu->syspath };
}

LuRelation lu_relation(const Lu *a, const Lu *b)
{
	LuSysfs at_a = lu_sysfs(a), at_b = lu_sysfs(b);

	return lu_naming_relation(&a->naming, &at_a, &b->naming, &at_b);
}
