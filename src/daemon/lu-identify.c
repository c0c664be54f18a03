/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inventory.h"
#include "lu-identify.h"
#include "luns.h"
#include "macro.h"
#include "sysfs.h"
#include "worker.h"

struct LuIdentifyJob {
	int rootfd;
	ProbeFlags flags;
	uint64_t token;
	LuRef ref;
	unsigned scsi_level;
	bool is_cdrom;
	/* The inventory's when the job was made. */
	UdevRules rules;
	bool cache_only; /* the kernel's cached pages only (PROBE_SYSFS_ONLY): no command */
	bool read_info;  /* the LU's info_pending: read what describes it first (@info) */
	/* the result, lu_identify_job_run()'s */
	LuIdentifyInfo info;
	LuNaming naming;
	int error;
	unsigned commands;
	bool no_node;
	bool cache_short; /* cache_only, and the kernel cached too little */
};

/* A text attribute of the LU @ref into @s (@size bytes), from its directory descriptor when it
 * has one: whether it could be read. */
static bool ref_attr_string(int rootfd, const LuRef *ref, const char *attr, char *s, size_t size)
{
	char buf[PATH_MAX];
	int dirfd;
	const char *p = probe_attr_at(ref, rootfd, attr, buf, sizeof(buf), &dirfd);

	return p && sysfs_read_string_buf(dirfd, p, s, size) >= 0;
}

/* A number attribute of the LU @ref, as ref_attr_string() reads it. */
static int ref_attr_u64(int rootfd, const LuRef *ref, const char *attr, uint64_t *ret)
{
	char buf[PATH_MAX];
	int dirfd;
	const char *p = probe_attr_at(ref, rootfd, attr, buf, sizeof(buf), &dirfd);

	return p ? sysfs_read_u64(dirfd, p, ret) : -ENAMETOOLONG;
}

int lu_ref_type(int rootfd, const LuRef *ref)
{
	uint64_t v;

	return ref_attr_u64(rootfd, ref, "type", &v) >= 0 && v <= 0x1f ? (int)v : -1;
}

unsigned lu_ref_scsi_level(int rootfd, const LuRef *ref)
{
	uint64_t v;

	return ref_attr_u64(rootfd, ref, "scsi_level", &v) >= 0 && v <= UINT32_MAX ? (unsigned)v
	                                                                           : 0;
}

/*
 * The attribute "vendor", "model" or "rev" of the LU @ref names, into @s (@len + 1 bytes): the
 * kernel prints it "%.*s" from its cached INQUIRY data, @len bytes at @off (scsi_add_lun()
 * points the strings there, after scsi_probe_lun() made them printable, and keeps at least 36
 * bytes). False when @ref does not hold that data.
 */
static bool inquiry_field(const LuRef *ref, size_t off, size_t len, char *s)
{
	size_t n = 0;

	if (!ref->inquiry || ref->inquiry_len < 36)
		return false;
	while (n < len && ref->inquiry[off + n] != 0) {
		s[n] = (char)ref->inquiry[off + n];
		n++;
	}
	s[n] = 0;
	return true;
}

void lu_ref_read_strings(int rootfd, const LuRef *ref, LuIdentifyInfo *info)
{
	info->vendor_ok =
	        inquiry_field(ref, 8, 8, info->vendor) ||
	        ref_attr_string(rootfd, ref, "vendor", info->vendor, sizeof(info->vendor));
	info->model_ok = inquiry_field(ref, 16, 16, info->model) ||
	                 ref_attr_string(rootfd, ref, "model", info->model, sizeof(info->model));
	info->revision_ok =
	        inquiry_field(ref, 32, 4, info->revision) ||
	        ref_attr_string(rootfd, ref, "rev", info->revision, sizeof(info->revision));
	info->state_ok = ref_attr_string(rootfd, ref, "state", info->state, sizeof(info->state));
}

int lu_identify_names(int rootfd, const LuRef *ref, const ProbeData *pd, int r, unsigned scsi_level,
                      bool is_cdrom, const UdevRules *rules, LuNaming *naming, bool *no_node)
{
	*no_node = false;
	for (ProbePage p = 0; r >= 0 && p < _PROBE_PAGE_MAX; p++)
		if (pd->error[p] == -ENODEV)
			*no_node = true;
	if (r >= 0)
		r = lu_compute_names(rootfd, ref, pd, scsi_level, is_cdrom, rules, naming);
	return r < 0 ? r : 0;
}

void lu_identify_job_free(LuIdentifyJob *job)
{
	if (!job)
		return;
	lu_ref_done(&job->ref);
	lu_naming_done(&job->naming);
	free(job);
}

static int strdup_opt(const char *s, char **ret)
{
	*ret = s ? strdup(s) : NULL;
	return s && !*ret ? -ENOMEM : 0;
}

int lu_identify_job_new(const Lu *lu, int rootfd, ProbeFlags flags, const UdevRules *rules,
                        LuIdentifyJob **ret)
{
	LuIdentifyJob *job = calloc(1, sizeof(*job));
	int r;

	if (!job)
		return -ENOMEM;
	*job = (LuIdentifyJob){
		.rootfd = rootfd,
		.flags = flags,
		.cache_only = flags & PROBE_SYSFS_ONLY,
		.read_info = lu->info_pending,
		.info.type = lu->type,
		.token = lu->identify_token,
		.scsi_level = lu->scsi_level,
		.is_cdrom = lu_is_cdrom(lu),
		.rules = *rules,
	};
	r = hctl_parse(lu->hctl, &job->ref.host, &job->ref.channel, &job->ref.target,
	               &job->ref.lun);
	if (r >= 0 &&
	    (strdup_opt(lu->hctl, &job->ref.hctl) < 0 ||
	     strdup_opt(lu->syspath, &job->ref.syspath) < 0 ||
	     strdup_opt(lu->sg, &job->ref.sg) < 0 || strdup_opt(lu->block, &job->ref.block) < 0 ||
	     strdup_opt(lu_tape(lu), &job->ref.tape) < 0))
		r = -ENOMEM;
	if (r < 0) {
		lu_identify_job_free(job);
		return r;
	}
	*ret = job;
	return 0;
}

const char *lu_identify_job_hctl(const LuIdentifyJob *job)
{
	return job->ref.hctl;
}

uint64_t lu_identify_job_token(const LuIdentifyJob *job)
{
	return job->token;
}

bool lu_identify_job_cache_only(const LuIdentifyJob *job)
{
	return job->cache_only;
}

/* What the inventory reads of an LU in the loop, read here for one the kernel has just added:
 * its SCSI level (which identification needs), type when its add uevent lacked it, the INQUIRY
 * strings (from the cached INQUIRY data, which identification reads anyway) and its state. */
static void job_read_info(LuIdentifyJob *job)
{
	LuIdentifyInfo *info = &job->info;
	const LuRef *ref = &job->ref;
	int rootfd = job->rootfd, r;

	r = probe_open_dir(rootfd, &job->ref);
	if (r < 0) {
		info->error = r;
		return;
	}
	job->scsi_level = info->scsi_level = lu_ref_scsi_level(rootfd, ref);
	if (info->type < 0)
		info->type = lu_ref_type(rootfd, ref);
	r = probe_keep_inquiry(rootfd, &job->ref);
	if (r == -ENOENT) {
		info->error = r;
		return;
	}
	lu_ref_read_strings(rootfd, ref, info);
}

void lu_identify_job_run(LuIdentifyJob *job)
{
	_cleanup_(probe_data_done) ProbeData pd = {};
	int r;

	if (job->read_info) {
		job_read_info(job);
		if (job->info.error < 0)
			return;
	}
	r = probe_read(job->rootfd, &job->ref, job->flags, &pd);
	if (job->cache_only && r >= 0 && pd.uncached > 0) {
		job->cache_short = true;
		return;
	}
	job->commands = pd.commands;
	job->error = lu_identify_names(job->rootfd, &job->ref, &pd, r, job->scsi_level,
	                               job->is_cdrom, &job->rules, &job->naming, &job->no_node);
}

LuIdentifyInfo *lu_identify_job_info(LuIdentifyJob *job)
{
	return job->read_info ? &job->info : NULL;
}

bool lu_identify_job_reask(const LuIdentifyJob *job, bool lu_has_node)
{
	return job->cache_short ||
	       (job->no_node && !job->ref.sg && !job->ref.block && !job->ref.tape && lu_has_node);
}

int lu_identify_job_result(LuIdentifyJob *job, LuNaming *ret_naming, unsigned *ret_commands,
                           bool *ret_no_node)
{
	*ret_naming = job->naming;
	job->naming = (LuNaming){};
	*ret_commands = job->commands;
	*ret_no_node = job->no_node;
	return job->error;
}

struct IdentifyThreads {
	sd_event *event;
	IdentifyDoneFn done;
	void *userdata;
	Worker *workers[2]; /* [true]: cache-only jobs */
};

/* One job in a worker. */
typedef struct IdentifyJob {
	IdentifyThreads *threads;
	LuIdentifyJob *job;
} IdentifyJob;

static void identify_job_free(void *data)
{
	IdentifyJob *j = data;

	lu_identify_job_free(j->job);
	free(j);
}

static int identify_job_run(void *data)
{
	lu_identify_job_run(((IdentifyJob *)data)->job);
	return 0;
}

static void identify_job_done(void *data, int r)
{
	IdentifyJob *j = data;

	j->threads->done(j->job, r, j->threads->userdata);
}

int identify_threads_new(sd_event *e, IdentifyDoneFn done, void *userdata, IdentifyThreads **ret)
{
	IdentifyThreads *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	*t = (IdentifyThreads){ .event = e, .done = done, .userdata = userdata };
	*ret = t;
	return 0;
}

int identify_threads_start(IdentifyThreads *t, bool cache_only)
{
	/* Cache-only jobs are work to spread over the CPUs, not waits to overlap: no more threads
	 * than CPUs (each costs ~150 KiB of private memory once it has run: its stack, its
	 * arena). */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = !cache_only ? IDENTIFY_THREADS
	             : cpus < 1  ? 1
	                         : (unsigned)MIN(cpus, (long)IDENTIFY_THREADS);

	return worker_new(t->event, cache_only ? "identify-cache" : "identify", n,
	                  &t->workers[cache_only]);
}

int identify_threads_submit(IdentifyThreads *t, LuIdentifyJob *job)
{
	bool cache_only = lu_identify_job_cache_only(job);
	Worker *w = t->workers[cache_only];
	IdentifyJob *j;

	if (!w) {
		/* No thread to be had: identify it here. */
		lu_identify_job_run(job);
		t->done(job, 0, t->userdata);
		lu_identify_job_free(job);
		return 0;
	}
	j = malloc(sizeof(*j));
	if (!j) {
		lu_identify_job_free(job);
		return -ENOMEM;
	}
	*j = (IdentifyJob){ .threads = t, .job = job };
	return worker_submit(w, identify_job_run, identify_job_done, identify_job_free, j,
	                     cache_only ? 0 : IDENTIFY_TIMEOUT_USEC);
}

int identify_threads_stop(IdentifyThreads *t, bool cache_only, uint64_t grace_usec)
{
	Worker *w;

	if (!t)
		return 0;
	w = t->workers[cache_only];
	t->workers[cache_only] = NULL;
	return worker_shutdown(w, grace_usec);
}

IdentifyThreads *identify_threads_free(IdentifyThreads *t)
{
	(void)identify_threads_stop(t, false, 0);
	(void)identify_threads_stop(t, true, 0);
	free(t);
	return NULL;
}
