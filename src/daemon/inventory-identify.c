/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "inventory-private.h"
#include "lu-identify.h"
#include "macro.h"

bool lu_off_loop(const Inventory *inv)
{
	return inv->identify_off_loop && inv->hooks.identify &&
	       !(inv->probe_flags & PROBE_SYSFS_ONLY);
}

/*
 * Identify @lu in the caller's thread, which is what happens when the kernel's cache holds every
 * page that identifies it (no command needed), when it has no node to send a command to, or
 * when nobody takes commands off this thread (no identify hook): true. False when commands are
 * needed and the identify hook is set, or with @off_loop (and the hook set): the caller makes the
 * LU pending and hands it over (lu_identify_submit()), with *@ret_cache_only for @off_loop: a job
 * that reads the kernel's cache and nothing else.
 */
bool lu_probe_names(Inventory *inv, Lu *lu, LuRef *ref, bool off_loop, bool *ret_cache_only)
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
	lu->naming_error = lu_identify_names(inv->rootfd, ref, &pd, r, lu->scsi_level,
	                                     lu_is_cdrom(lu), &rules, &lu->naming, &no_node);
	lu->probe_no_node = no_node;
	lu->naming_pending = false;
	lu->identified = true;
	return true;
}

void lu_set_pending(Inventory *inv, Lu *lu)
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

void lu_identify_submit(Inventory *inv, Lu *lu, bool cache_only)
{
	LuIdentifyJob *job;
	UdevRules rules;
	int r;

	inventory_rules(inv, &rules);
	r = lu_identify_job_new(lu, inv->rootfd,
	                        inv->probe_flags | (cache_only ? PROBE_SYSFS_ONLY : 0), &rules,
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

/* What the job read of @lu (lu_identify_job_info()), into @lu, whose info_pending ends: the
 * change that makes. */
static LuChange lu_take_info(Inventory *inv, Lu *lu, LuIdentifyInfo *info)
{
	Lu was = *lu;

	lu->info_pending = false;
	lu->type = (int8_t)info->type;
	lu->scsi_level = info->scsi_level;
	/* the state may have been read since, on its own event (inventory_reread_state()) */
	lu_take_strings(inv, lu, info);
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
		(void)inventory_reprobe(inv, hctl);
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
