/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The Manager's name records (io/namestate.h, lund(8) "Naming contract"): the names each
 * identity was given and the admin accepted. lund only reads them; `lunctl names --accept` is
 * their one writer. A recorded name an LU's identity no longer gets is claimed again as an
 * alias (claims.h), until the admin accepts the change. lund watches the state directory with
 * inotify and reads the file again whenever it is replaced, written or removed; every LU's
 * names are then worked out again. A directory that is not there (yet: /var mounted late, no
 * accept so far) is looked for every NAMES_RETRY_USEC; lund never waits for it.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "grow.h"
#include "log.h"
#include "macro.h"
#include "manager-private.h"
#include "names.h"
#include "namestate.h"

/* Records name links below /dev; lund's by-id names are those in this directory. */
#define RECORD_BY_ID "scsi/by-id/"

static int rec_identity_cmp(const void *a, const void *b)
{
	const NameRec *x = a, *y = b;

	return strcmp(x->identity, y->identity) ?: strcmp(x->name, y->name);
}

/* Journal message ID (sd-id128) of a name record file lund cannot use. */
#define MESSAGE_NAMES_DAMAGED "4406a8b9e2584921a0c301c9c0a67f4c"

/* Read the records again; on failure the records read before stay. */
static int names_load(Manager *m)
{
	_cleanup_(namerec_set_done) NameRecSet s = {};
	NameStateDamage dmg = {};
	const char *dir = m->config.state_dir;
	int r;

	if (m->names_dirfd < 0) {
		namerec_set_done(&m->names_rec);
		return 0;
	}
	r = namestate_load(m->names_dirfd, &s, &dmg);
	if (r < 0)
		return log_warning_errno(r,
		                         "/%s/%s cannot be read, keeping the name records read "
		                         "before: %m",
		                         dir, NAMESTATE_FILE);
	if (dmg.unusable)
		log_full(LOG_WARNING, 0, NULL, MESSAGE_NAMES_DAMAGED,
		         "/%s/%s %s, no old names are kept; `lunctl names --accept --all` sets it "
		         "aside as %s and writes the records again",
		         dir, NAMESTATE_FILE,
		         dmg.checksum ? "does not match its checksum" : "is not a name record file",
		         NAMESTATE_DAMAGED);
	else if (dmg.bad_lines > 0)
		log_warning("/%s/%s: %zu damaged record(s) skipped, ignoring", dir, NAMESTATE_FILE,
		            dmg.bad_lines);
	/* by identity, for manager_names_aliases() */
	if (s.n > 0)
		qsort(s.rec, s.n, sizeof(*s.rec), rec_identity_cmp);
	namerec_set_done(&m->names_rec);
	m->names_rec = s;
	s = (NameRecSet){};
	log_debug("/%s/%s: %zu name records", dir, NAMESTATE_FILE, m->names_rec.n);
	return 0;
}

static int names_open(Manager *m, bool quiet);

/* The records changed: every LU's names are worked out again (aliases come and go). */
static void names_changed(Manager *m)
{
	size_t before = m->names_rec.n;

	if (names_load(m) < 0)
		return;
	log_info("Name records changed (%zu before, %zu now), updating the names of every logical "
	         "unit",
	         before, m->names_rec.n);
	for (Lu *lu = inventory_first_lu(m->inventory); lu; lu = inventory_next_lu(lu))
		manager_links_dirty(m, lu);
}

static int on_names_inotify(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	Manager *m = userdata;

	if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
		/* The directory itself went: no records until it is there again. */
		log_warning("/%s went away, no name records until it is back", m->config.state_dir);
		m->names_watch = sd_event_source_disable_unref(m->names_watch);
		m->names_dirfd = safe_close(m->names_dirfd);
		names_changed(m);
		(void)names_open(m, true);
		return 0;
	}
	if (ev->len > 0 && streq(ev->name, NAMESTATE_FILE))
		names_changed(m);
	return 0;
}

/* A state directory missing at start-up (/var not mounted yet, no accept yet) is looked for
 * again this often: one openat() a time. */
#define NAMES_RETRY_USEC (UINT64_C(30000000))

static int on_names_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	Manager *m = userdata;

	m->names_retry = sd_event_source_disable_unref(m->names_retry);
	if (names_open(m, true) >= 0 && m->names_dirfd >= 0 && m->names_rec.n > 0)
		names_changed(m);
	return 0;
}

/* Open, read and watch the state directory; when it is missing, look again later. */
static int names_open(Manager *m, bool quiet)
{
	int r;

	r = namestate_open_dir(m->rootfd, m->config.state_dir, false);
	if (r == -ENOENT) {
		if (!quiet)
			log_info("/%s does not exist (yet): no name records, no old names kept "
			         "until it does",
			         m->config.state_dir);
		if (m->event &&
		    sd_event_add_time_relative(m->event, &m->names_retry, CLOCK_MONOTONIC,
		                               NAMES_RETRY_USEC, 0, on_names_retry, m) < 0)
			log_warning("/%s will not be looked for again", m->config.state_dir);
		return 0;
	}
	if (r < 0)
		return log_warning_errno(r, "/%s cannot be opened, no old names kept: %m",
		                         m->config.state_dir);
	m->names_dirfd = r;
	(void)names_load(m);
	if (!m->event)
		return 0;
	/* The file is replaced by rename (or removed): IN_MOVED_TO / IN_DELETE; written in
	 * place by hand: IN_CLOSE_WRITE. */
	r = sd_event_add_inotify_fd(m->event, &m->names_watch, m->names_dirfd,
	                            IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM |
	                                    IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR,
	                            on_names_inotify, m);
	if (r < 0)
		log_warning_errno(r,
		                  "/%s cannot be watched, name records are read at start-up "
		                  "only: %m",
		                  m->config.state_dir);
	return 0;
}

int manager_names_setup(Manager *m)
{
	m->names_dirfd = -EBADF;
	if (!m->config.state_dir)
		return 0;
	return names_open(m, false);
}

void manager_names_free(Manager *m)
{
	m->names_retry = sd_event_source_disable_unref(m->names_retry);
	m->names_watch = sd_event_source_disable_unref(m->names_watch);
	m->names_dirfd = safe_close(m->names_dirfd);
	namerec_set_done(&m->names_rec);
}

/* The key of @lu's records, as lunctl names --accept writes it: ID_WWN_WITH_EXTENSION, else
 * ID_SERIAL. */
static const char *lu_identity(const Lu *lu)
{
	if (lu->naming.wwn && namerec_identity_valid(lu->naming.wwn))
		return lu->naming.wwn;
	if (lu->naming.serial && namerec_identity_valid(lu->naming.serial))
		return lu->naming.serial;
	return NULL;
}

int manager_names_aliases(Manager *m, const Lu *lu, const LinkSchemeInput *in, const char ***ret,
                          size_t *ret_n)
{
	const char *id = lu_identity(lu), **v = NULL;
	const NameRec *rec = m->names_rec.rec;
	size_t lo = 0, hi = m->names_rec.n, n = 0;

	*ret = NULL;
	*ret_n = 0;
	/* Which records are aliases, the link scheme says (engine/linkscheme.h). A unit-serial
	 * LU keeps its identity (page 0x83's), and with it the names recorded for it. */
	if (!id || m->names_rec.n == 0)
		return 0;
	/* The first record of @id. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(rec[mid].identity, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < m->names_rec.n && streq(rec[i].identity, id); i++) {
		const char *name = rec[i].name, *base;

		if (!strneq(name, RECORD_BY_ID, strlen(RECORD_BY_ID)))
			continue;
		base = name + strlen(RECORD_BY_ID);
		if (!link_scheme_alias(in, base))
			continue;
		if (GREEDY_REALLOC_EXACT(v, n + 1) < 0) {
			free(v);
			return -ENOMEM;
		}
		v[n++] = base;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}
