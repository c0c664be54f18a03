/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * lunctl names --diff / --accept: the names computed now for every LU below --root (through
 * the identify path lund uses) against the name records in lund's state directory
 * (io/namestate.h): what would be added, removed (kept as an alias until accepted) or
 * re-targeted, and the records rewritten once the admin accepts.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"
#include "hwdb.h"

#include "identify.h"
#include "log.h"
#include "lunctl.h"
#include "luns.h"
#include "macro.h"
#include "namerec.h"
#include "names.h"
#include "namestate.h"
#include "output.h"
#include "sysfs.h"

/* Where lund writes the by-id names, relative to /dev (links.h, lund(8)). */
#define BY_ID_DIR "scsi/by-id/"

/* The key of an LU's records: what the device itself says, before any naming rule. */
static const char *identity_key(const Identity *i)
{
	if (i->wwn && namerec_identity_valid(i->wwn))
		return i->wwn;
	if (i->serial && namerec_identity_valid(i->serial))
		return i->serial;
	return NULL;
}

/* The names of one LU in @cur; its identity in *ret_identity (malloc'd) unless NULL. A
 * serial-path LU's name also goes into @liars (unless NULL): its identity is not its own. */
static int lu_names(const Options *o, const char *hctl, bool diff, NameRecSet *cur,
                    NameRecSet *liars, char **ret_identity)
{
	_cleanup_(identity_done) Identity ident = {};
	_cleanup_(lu_ref_done) LuRef lu = {};
	_cleanup_(lunctl_links_done) LunctlLinks links = {};
	_cleanup_free_ const char **bases = NULL;
	const char *key;
	size_t n;
	int r;

	r = lunctl_identify(o, hctl, &lu, &ident);
	if (r != EXIT_OK)
		return -ENODEV;
	key = identity_key(&ident);
	if (!key)
		return 0;
	if (diff) {
		_cleanup_(conf_unrefp) LundConf *conf = NULL;
		ReactVerdict react[_REACT_ACTION_MAX];
		ExclusionVerdict excl;
		char why[160];

		/* lund.conf(5) REACTIONS, identity = report: lund leaves its names as they are,
		 * so they are judged as those of an LU not attached: no change */
		r = lunctl_lu_verdicts(o, &lu, &ident, &conf, &excl, react);
		if (r == -ENOMEM)
			return r;
		if (r >= 0 && !excl.excluded && react[REACT_RENAME].report) {
			reaction_why(&react[REACT_RENAME], why, sizeof(why));
			log_info("%s: its names stay as they are (%s), not compared", hctl, why);
			return 0;
		}
	}
	r = lunctl_links(o, &lu, &ident, NULL, &links);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return -ENODEV;
	/* An LU the hwdb's rule names (lund.hwdb(7)) has that one name in /dev/scsi/by-id. */
	bases = calloc(MAX(links.in.n_names, (size_t)1), sizeof(*bases));
	if (!bases)
		return -ENOMEM;
	n = link_scheme_scsi_names(&links.in, bases);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *name = strjoin(BY_ID_DIR, bases[i]);

		if (!name || namerec_set_add(cur, key, name, NAMEREC_NAME) == -ENOMEM)
			return -ENOMEM;
		if (liars && links.in.rule_name && links.in.rule == NAME_RULE_SERIAL_PATH &&
		    namerec_set_add(liars, key, name, NAMEREC_NAME) == -ENOMEM)
			return -ENOMEM;
	}
	if (ret_identity) {
		*ret_identity = strdup(key);
		if (!*ret_identity)
			return -ENOMEM;
	}
	return 0;
}

/* The names every LU below the root gets now. An LU that cannot be identified is left out
 * (its records are then neither changed nor reported), with the reason logged. */
static int current_names(const Options *o, int rootfd, bool diff, NameRecSet *ret,
                         NameRecSet *liars)
{
	_cleanup_(namerec_set_done) NameRecSet cur = {};
	_cleanup_(closedirp) DIR *d = NULL;
	int r;

	r = sysfs_opendir(rootfd, "sys/bus/scsi/devices", &d);
	if (r < 0 && r != -ENOENT)
		return r;
	for (struct dirent *de = d ? readdir(d) : NULL; de; de = readdir(d)) {
		unsigned h, c, t;
		uint64_t l;

		if (hctl_parse(de->d_name, &h, &c, &t, &l) < 0)
			continue;
		r = lu_names(o, de->d_name, diff, &cur, liars, NULL);
		if (r == -ENOMEM)
			return r;
	}
	namerec_set_sort(&cur);
	*ret = TAKE_STRUCT(cur);
	return 0;
}

static int load_state(int rootfd, const char *state_dir, bool create, int *ret_fd, NameRecSet *ret)
{
	NameStateDamage dmg;
	int fd, r;

	fd = namestate_open_dir(rootfd, state_dir, create);
	if (fd == -ENOENT && !create) {
		*ret_fd = -EBADF;
		*ret = (NameRecSet){};
		return 0;
	}
	if (fd < 0)
		return log_error_errno(fd, "Cannot open the state directory %s: %m", state_dir);
	r = namestate_load(fd, ret, &dmg);
	if (r < 0) {
		close(fd);
		return log_error_errno(r, "Cannot read %s/%s: %m", state_dir, NAMESTATE_FILE);
	}
	if (dmg.unusable) {
		/* About to write it: the damaged one is kept for a look, not overwritten. */
		bool aside = false;

		if (create) {
			r = namestate_set_aside(fd);
			if (r < 0)
				log_warning_errno(r, "Cannot set %s/%s aside, ignoring: %m",
				                  state_dir, NAMESTATE_FILE);
			aside = r >= 0;
		}
		log_warning("%s/%s is damaged (%s), read as empty; %s%s%sit is written again when "
		            "the names are accepted",
		            state_dir, NAMESTATE_FILE,
		            dmg.checksum ? "its checksum does not match" : "not a name record file",
		            aside ? "set aside as " : "", aside ? NAMESTATE_DAMAGED : "",
		            aside ? ", " : "");
	} else if (dmg.bad_lines > 0)
		log_warning("%s/%s: %zu damaged record(s) skipped, ignoring", state_dir,
		            NAMESTATE_FILE, dmg.bad_lines);
	*ret_fd = fd;
	return 0;
}

/* Is @identity a serial-path LU's (in @liars)? lund keeps no alias for it (lund(8)). */
static bool identity_lies(const NameRecSet *liars, const char *identity)
{
	for (size_t i = 0; identity && i < liars->n; i++)
		if (streq(liars->rec[i].identity, identity))
			return true;
	return false;
}

static int print_changes(const NameChange *v, size_t n, const NameRecSet *liars, OutputMode mode)
{
	if (mode == OUTPUT_JSON) {
		_cleanup_(json_object_putp) json_object *root = json_object_new_object();
		json_object *a = json_object_new_array();

		if (!root || !a) {
			json_object_put(a);
			return -ENOMEM;
		}
		json_object_object_add(root, "pending", json_object_new_boolean(n > 0));
		json_object_object_add(root, "changes", a);
		for (size_t i = 0; i < n; i++) {
			json_object *c = json_object_new_object();

			if (!c)
				return -ENOMEM;
			json_object_object_add(
			        c, "change",
			        json_object_new_string(namechange_kind_name(v[i].kind)));
			json_object_object_add(c, "path", json_object_new_string(v[i].name));
			json_object_object_add(c, "old_identity",
			                       v[i].old_identity
			                               ? json_object_new_string(v[i].old_identity)
			                               : NULL);
			json_object_object_add(c, "new_identity",
			                       v[i].new_identity
			                               ? json_object_new_string(v[i].new_identity)
			                               : NULL);
			if (v[i].kind == NAMECHANGE_REMOVED)
				json_object_object_add(c, "alias",
				                       json_object_new_boolean(!identity_lies(
				                               liars, v[i].old_identity)));
			json_object_array_add(a, c);
		}
		return output_json(stdout, root);
	}
	for (size_t i = 0; i < n; i++)
		switch (v[i].kind) {
		case NAMECHANGE_ADDED:
			printf("+ /dev/%s (%s)\n", v[i].name, v[i].new_identity);
			break;
		case NAMECHANGE_REMOVED:
			if (identity_lies(liars, v[i].old_identity))
				printf("- /dev/%s (%s, no alias: the device gives one serial to "
				       "different media)\n",
				       v[i].name, v[i].old_identity);
			else
				printf("- /dev/%s (%s, kept as an alias until accepted)\n",
				       v[i].name, v[i].old_identity);
			break;
		default:
			printf("~ /dev/%s (%s -> %s)\n", v[i].name, v[i].old_identity,
			       v[i].new_identity);
			break;
		}
	if (n == 0)
		printf("no changes pending\n");
	return 0;
}

/* Where a source hwdb is compiled for a preview: systemd-hwdb --root reads it from here. */
#define PREVIEW_HWDB_DIR  "etc/udev/hwdb.d"
#define PREVIEW_HWDB_FILE "etc/udev/hwdb.d/60-lund-preview.hwdb"
#define PREVIEW_HWDB_BIN  "etc/udev/hwdb.bin"

/* A temporary root for compiling a source hwdb; removed by preview_done(). */
typedef struct Preview {
	char *tmp;
	char *hwdb_bin;
} Preview;

static void preview_done(Preview *p)
{
	if (p->tmp) {
		static const char *const paths[] = { PREVIEW_HWDB_BIN, PREVIEW_HWDB_FILE,
			                             PREVIEW_HWDB_DIR, "etc/udev", "etc" };
		int dfd = open(p->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		for (size_t i = 0; dfd >= 0 && i < ELEMENTSOF(paths); i++)
			(void)unlinkat(dfd, paths[i], i < 2 ? 0 : AT_REMOVEDIR);
		safe_close(dfd);
		(void)rmdir(p->tmp);
	}
	free(p->tmp);
	free(p->hwdb_bin);
}

static int copy_file(const char *from, int dirfd, const char *to)
{
	_cleanup_close_ int in = open(from, O_RDONLY | O_CLOEXEC | O_NOCTTY), out = -EBADF;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return -errno;
	out = openat(dirfd, to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0)
		return -errno;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return -EIO;
	return n < 0 ? -errno : 0;
}

/* Compile the source hwdb @src with systemd-hwdb into a temporary root. Logs why not. */
static int preview_compile(const char *src, Preview *p)
{
	char tmpl[] = "/tmp/lunctl-hwdb.XXXXXX";
	char *argv[] = { (char *)"systemd-hwdb", (char *)"--root",   NULL,
		         (char *)"update",       (char *)"--strict", NULL };
	_cleanup_close_ int dfd = -EBADF;
	pid_t pid;
	int r, status;

	if (!mkdtemp(tmpl))
		return log_error_errno(-errno, "Cannot make a temporary directory: %m");
	p->tmp = strdup(tmpl);
	if (!p->tmp) {
		(void)rmdir(tmpl);
		return log_error_errno(-ENOMEM, "Out of memory");
	}
	dfd = open(p->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || mkdirat(dfd, "etc", 0755) < 0 || mkdirat(dfd, "etc/udev", 0755) < 0 ||
	    mkdirat(dfd, PREVIEW_HWDB_DIR, 0755) < 0)
		return log_error_errno(-errno, "Cannot prepare %s: %m", p->tmp);
	r = copy_file(src, dfd, PREVIEW_HWDB_FILE);
	if (r < 0)
		return log_error_errno(r, "Cannot read %s: %m", src);
	argv[2] = p->tmp;
	r = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (r != 0)
		return log_error_errno(-r,
		                       "%s is hwdb source text and systemd-hwdb, which compiles "
		                       "it, cannot run: %m",
		                       src);
	if (waitpid(pid, &status, 0) < 0)
		return log_error_errno(-errno, "systemd-hwdb: %m");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		log_error("systemd-hwdb refused %s (exit status %d)", src,
		          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -EBADMSG;
	}
	if (asprintf(&p->hwdb_bin, "%s/%s", p->tmp, PREVIEW_HWDB_BIN) < 0) {
		p->hwdb_bin = NULL;
		return log_error_errno(-ENOMEM, "Out of memory");
	}
	return 0;
}

/* The compiled hwdb and the lund.conf the names are previewed under (lunctl(8), names --diff):
 * @hwdb a compiled file (its signature) or source text; each checked before use. */
static int preview_prepare(const char *conf_path, const char *hwdb, Preview *p, Options *po)
{
	_cleanup_close_ int fd = -EBADF;
	char sig[8] = "";
	int r;

	if (hwdb) {
		fd = open(hwdb, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return log_error_errno(-errno, "Cannot open %s: %m", hwdb);
		if (read(fd, sig, sizeof(sig)) == (ssize_t)sizeof(sig) &&
		    memcmp(sig, "KSLPHHRH", sizeof(sig)) == 0) {
			p->hwdb_bin = strdup(hwdb);
			if (!p->hwdb_bin)
				return log_error_errno(-ENOMEM, "Out of memory");
		} else {
			r = preview_compile(hwdb, p);
			if (r < 0)
				return r;
		}
		po->hwdb_path = p->hwdb_bin;
	}
	if (conf_path || p->hwdb_bin) {
		_cleanup_(conf_unrefp) LundConf *c = NULL;

		/* The installed lund.conf when only the hwdb changes. */
		r = conf_load(conf_path, p->hwdb_bin, &c);
		if (r == -ENOMEM)
			return log_error_errno(r, "Out of memory");
		r = conf_file_error(c);
		if (conf_path && r < 0)
			return log_error_errno(r, "%s: %s", conf_path,
			                       r == -EBADMSG ? "cannot parse it"
			                                     : "cannot read it: %m");
		r = conf_hwdb_error(c);
		if (p->hwdb_bin && r < 0)
			return log_error_errno(r, "%s: not a usable hwdb: %m", hwdb);
		po->conf_path = conf_path;
	}
	return 0;
}

int lunctl_names_diff(const Options *o, const char *state_dir, const char *conf_path,
                      const char *hwdb_path)
{
	_cleanup_(namerec_set_done) NameRecSet rec = {}, cur = {}, liars = {};
	_cleanup_close_ int rootfd = -EBADF, fd = -EBADF;
	_cleanup_(preview_done) Preview p = {};
	_cleanup_free_ NameChange *v = NULL;
	Options po = *o;
	size_t n;
	int r;

	r = lunctl_open_root(o, &rootfd);
	if (r != EXIT_OK)
		return EXIT_DEVICE;
	if (preview_prepare(conf_path, hwdb_path, &p, &po) < 0)
		return EXIT_DEVICE;
	o = &po;
	if (load_state(rootfd, state_dir, false, &fd, &rec) < 0)
		return EXIT_DEVICE;
	/* A fresh install: no names were accepted, so none can change yet. */
	if (fd < 0 || faccessat(fd, NAMESTATE_FILE, F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		if (o->output == OUTPUT_JSON)
			return print_changes(NULL, 0, &liars, o->output) < 0 ? EXIT_DEVICE
			                                                     : EXIT_OK;
		printf("no names recorded in %s yet: `lunctl names --accept --all` records those "
		       "of "
		       "now, --diff then shows what would change\n",
		       state_dir);
		return EXIT_OK;
	}
	r = current_names(o, rootfd, true, &cur, &liars);
	if (r < 0)
		return log_error_errno(r, "Cannot compute the names: %m"), EXIT_DEVICE;
	r = namerec_diff(&rec, &cur, NULL, &v, &n);
	if (r >= 0)
		r = print_changes(v, n, &liars, o->output);
	if (r < 0)
		return log_error_errno(r, "Cannot compare the names: %m"), EXIT_DEVICE;
	/* For upgrade hooks: 1 while a change waits for the admin. */
	return n > 0 ? 1 : EXIT_OK;
}

int lunctl_names_accept(const Options *o, const char *state_dir, const char *dev)
{
	_cleanup_(namerec_set_done) NameRecSet rec = {}, cur = {}, out = {};
	_cleanup_close_ int rootfd = -EBADF, fd = -EBADF;
	_cleanup_free_ char *only = NULL;
	int r;

	r = lunctl_open_root(o, &rootfd);
	if (r != EXIT_OK)
		return r;
	if (dev) {
		r = lu_names(o, dev, false, &cur, NULL, &only);
		if (r == -ENODEV)
			return EXIT_DEVICE;
		if (r < 0)
			return log_error_errno(r, "%s: %m", dev), EXIT_DEVICE;
		if (!only) {
			log_error("%s has no identity to keep names for", dev);
			return EXIT_DEVICE;
		}
		namerec_set_sort(&cur);
	} else {
		r = current_names(o, rootfd, false, &cur, NULL);
		if (r < 0)
			return log_error_errno(r, "Cannot compute the names: %m"), EXIT_DEVICE;
	}
	if (load_state(rootfd, state_dir, true, &fd, &rec) < 0)
		return EXIT_DEVICE;
	r = namerec_accept(&rec, &cur, only, &out);
	if (r >= 0)
		r = namestate_save(fd, &out);
	if (r < 0)
		return log_error_errno(r, "Cannot write %s/%s: %m", state_dir, NAMESTATE_FILE),
		       EXIT_DEVICE;
	return EXIT_OK;
}

void strv_free_n(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

int lunctl_names_aliases(const Options *o, const char *state_dir, const Identity *i,
                         const LinkSchemeInput *in, char ***ret, size_t *ret_n)
{
	_cleanup_(namerec_set_done) NameRecSet rec = {};
	_cleanup_close_ int rootfd = -EBADF, fd = -EBADF;
	const char *key = identity_key(i);
	char **v = NULL;
	size_t n = 0;
	int r;

	*ret = NULL;
	*ret_n = 0;
	if (!key)
		return 0;
	r = lunctl_open_root(o, &rootfd);
	if (r != EXIT_OK)
		return -EIO;
	r = load_state(rootfd, state_dir, false, &fd, &rec);
	if (r < 0)
		return r;
	/* Which records are aliases, the link scheme says (engine/linkscheme.h), as for lund. */
	for (size_t k = 0; k < rec.n; k++) {
		const NameRec *x = &rec.rec[k];
		const char *base = x->name + strlen(BY_ID_DIR);
		char **nv;

		if (!streq(x->identity, key) || !strneq(x->name, BY_ID_DIR, strlen(BY_ID_DIR)) ||
		    !link_scheme_alias(in, base))
			continue;
		nv = reallocarray(v, n + 1, sizeof(*v));
		if (!nv || !(nv[n] = strdup(base))) {
			strv_free_n(nv ?: v, n);
			return log_error_errno(-ENOMEM, "Out of memory");
		}
		v = nv;
		n++;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}
