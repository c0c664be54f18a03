/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "config.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "probe.h"
#include "sysfs.h"

typedef struct Verb {
	const char *name;
	int (*run)(int argc, char *argv[], Options *o);
	const char *summary;
} Verb;

static const Verb verbs[] = {
	{ "decode", verb_decode, "decode a captured INQUIRY/VPD/REPORT LUNS/sense response" },
	{ "id", verb_id, "print the persistent identifiers of a logical unit" },
	{ "list", verb_list, "list SCSI logical units with their identifiers and names" },
	{ "monitor", verb_monitor, "follow lund's decisions as they happen (needs lund)" },
	{ "names", verb_names,
	  "the names lund gives a device, or its name collisions (needs lund)" },
	{ "status", verb_status, "what the lund daemon manages (needs lund)" },
	{ "reload", verb_reload, "have lund re-read lund.conf and the hwdb (needs lund)" },
	{ "resync", verb_resync, "have lund rebuild its inventory from sysfs (needs lund)" },
	{ "settle", verb_settle, "wait until lund has nothing left to do (needs lund)" },
	{ "hold", verb_hold, "stop lund's adds, removals and renames on a host, target or LU" },
	{ "release", verb_release, "end a hold and reconcile what it held (needs lund)" },
	{ "rescan", verb_rescan, "scan hosts: add, remove or resize logical units (REPORT LUNS)" },
	{ "check-config", verb_check_config,
	  "check lund.conf and lund's hwdb sources line by line" },
	{ "policy", verb_policy,
	  "show or change a logical unit's error policy (retries, fail-fast, error events)" },
};

int exit_code_from_errno(int r)
{
	switch (r) {
	case -EBADMSG:
	case -ENOBUFS:
		return EXIT_MALFORMED;
	case -EINVAL:
		return EXIT_USAGE;
	default:
		return EXIT_DEVICE;
	}
}

int lunctl_printed(int r)
{
	if (r < 0) {
		log_error_errno(r, "Failed to print: %m");
		return EXIT_DEVICE;
	}
	return EXIT_OK;
}

int lunctl_open_root(const Options *o, int *ret)
{
	int fd = sysfs_open_root(o->root);

	if (fd < 0) {
		log_error_errno(fd, "Failed to open root directory '%s': %m", o->root ?: "/");
		return EXIT_USAGE;
	}
	*ret = fd;
	return EXIT_OK;
}

static int resolve_in(int rootfd, const char *arg, ProbeResolveFlags flags, LuRef *ret)
{
	int r;

	r = probe_resolve_full(rootfd, arg, flags, ret);
	if (r == -EINVAL && !strchr(arg, '/')) {
		/* A bare node name ("sda", "sg2"), as the kernel's messages print it. */
		_cleanup_free_ char *node = NULL;

		if (asprintf(&node, "/dev/%s", arg) < 0) {
			log_error_errno(-ENOMEM, "Out of memory");
			return EXIT_DEVICE;
		}
		r = probe_resolve_full(rootfd, node, flags, ret);
		if (r == -ENOENT)
			r = -EINVAL;
	}
	if (r == -EINVAL) {
		log_error("%s: not a device node, sysfs path or H:C:T:L", arg);
		return EXIT_USAGE;
	}
	if (r == -ENODEV) {
		log_error("%s: not a SCSI logical unit", arg);
		return EXIT_DEVICE;
	}
	if (r < 0) {
		log_error_errno(r, "%s: %m", arg);
		return EXIT_DEVICE;
	}
	return EXIT_OK;
}

int lunctl_resolve(const Options *o, const char *arg, ProbeResolveFlags flags, int *ret_rootfd,
                   LuRef *ret)
{
	_cleanup_close_ int rootfd = -EBADF;
	int r;

	r = lunctl_open_root(o, &rootfd);
	if (r != EXIT_OK)
		return r;
	r = resolve_in(rootfd, arg, flags, ret);
	if (r != EXIT_OK)
		return r;
	*ret_rootfd = TAKE_FD(rootfd);
	return EXIT_OK;
}

/* The options every verb takes, anywhere on the command line, unless a verb has its own with
 * the same name (settle's and rescan's --timeout, rescan's --version). */
enum {
	OPT_ROOT = 0x1000,
	OPT_SYSFS_ONLY,
	OPT_SGIO_ONLY,
	OPT_TIMEOUT,
};
static const struct option global_opts[] = {
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "sysfs-only", no_argument, NULL, OPT_SYSFS_ONLY },
	{ "sgio-only", no_argument, NULL, OPT_SGIO_ONLY },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "version", no_argument, NULL, 'V' },
};

/* Takes a global option @c (with optarg) into @o: 0, 1 when it is none, -EINVAL (logged). */
static int global_option(int c, Options *o)
{
	switch (c) {
	case OPT_ROOT:
		o->root = optarg;
		return 0;
	case OPT_SYSFS_ONLY:
		o->sysfs_only = true;
		return 0;
	case OPT_SGIO_ONLY:
		o->sgio_only = true;
		return 0;
	case OPT_TIMEOUT: {
		char *end;
		double v;

		errno = 0;
		v = strtod(optarg, &end);
		if (errno || end == optarg || *end || !(v > 0) || v > 86400) {
			log_error("--timeout: '%s' is not a number of seconds (0..86400]", optarg);
			return -EINVAL;
		}
		lund_client_set_timeout((uint64_t)(v * 1e6) ?: 1);
		return 0;
	}
	case 'V':
		printf("lunctl %s\n", PACKAGE_VERSION);
		exit(fflush(stdout) == 0 ? EXIT_OK : EXIT_DEVICE);
	default:
		return 1;
	}
}

static bool has_long(const struct option *opts, const char *name)
{
	for (; opts->name; opts++)
		if (streq(opts->name, name))
			return true;
	return false;
}

#define OPT_FOREIGN 0x2000

static bool foreign_has_long(const ForeignOptions *f, const char *name)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (streq_ptr(f->options[i].name, name))
			return true;
	return false;
}

/* @c, when it is one of @f's options (and not one of the verb's letters @own), refused with
 * what to use instead: true then. */
static bool refuse_foreign(int c, const ForeignOptions *f, const char *own)
{
	for (size_t i = 0; f && i < f->n; i++) {
		const ForeignOption *x = &f->options[i];

		if (c == OPT_FOREIGN + (int)i)
			log_error("'--%s' is %s's \"%s\"; %s.", x->name, f->tool, x->what, x->here);
		else if (x->letter && c == x->letter && !strchr(own, x->letter))
			log_error("'-%c' is %s's \"%s\"; %s.", x->letter, f->tool, x->what,
			          x->here);
		else
			continue;
		return true;
	}
	return false;
}

int lunctl_getopt_foreign(int argc, char *argv[], const char *shortopts,
                          const struct option *longopts, const ForeignOptions *foreign, Options *o,
                          const char *verb)
{
	size_t n_foreign = foreign ? foreign->n : 0, n = 0, len = strlen(shortopts);
	_cleanup_free_ struct option *all = NULL;
	_cleanup_free_ char *shorts = NULL;
	_cleanup_free_ char *twins = NULL; /* the twins' names, one after the other */
	size_t twins_len = 1;
	char *twin;
	bool own_v = strchr(shortopts, 'V');
	/* -x and -J are the output modes where the verb has them (lsscsi's -x is not) */
	bool own_x = has_long(longopts, "export"), own_j = has_long(longopts, "json");

	/* The verb's table, the global options it does not define itself, then the foreign
	 * options it refuses. */
	while (longopts[n].name)
		n++;
	/* each foreign long option twice: lsscsi takes '_' for '-' and '-' for '_' */
	all = calloc(n + ELEMENTSOF(global_opts) + 2 * n_foreign + 1, sizeof(*all));
	for (size_t i = 0; i < n_foreign; i++)
		if (foreign->options[i].name)
			twins_len += strlen(foreign->options[i].name) + 1;
	twin = twins = malloc(twins_len);
	shorts = malloc(len + 1 + 3 * n_foreign + 1);
	if (!all || !shorts || !twins) {
		log_error_errno(-ENOMEM, "Out of memory");
		return '?';
	}
	memcpy(all, longopts, n * sizeof(*all));
	for (size_t i = 0; i < ELEMENTSOF(global_opts); i++)
		if (!has_long(longopts, global_opts[i].name) &&
		    !foreign_has_long(foreign, global_opts[i].name))
			all[n++] = global_opts[i];
	memcpy(shorts, shortopts, len + 1);
	if (!own_v)
		strcat(shorts, "V");
	for (size_t i = 0; i < n_foreign; i++) {
		const ForeignOption *x = &foreign->options[i];

		if (x->name) {
			all[n++] =
			        (struct option){ x->name, x->arg ? optional_argument : no_argument,
				                 NULL, OPT_FOREIGN + (int)i };
			if (strpbrk(x->name, "-_")) {
				all[n] = all[n - 1];
				all[n++].name = twin;
				for (const char *p = x->name; *p; p++)
					*twin++ = *p == '-' ? '_' : *p == '_' ? '-' : *p;
				*twin++ = 0;
			}
		}
		/* (a peer's letter the verb has itself is the verb's) */
		if (x->letter && !strchr(shortopts, x->letter)) {
			size_t k = strlen(shorts);

			shorts[k] = (char)x->letter;
			shorts[k + 1] = 0;
			if (x->arg)
				strcat(shorts, "::");
		}
	}

	for (;;) {
		int c = getopt_long(argc, argv, shorts, all, NULL), r;

		if (c == 'x' && own_x)
			o->output = OUTPUT_EXPORT;
		else if (c == 'J' && own_j)
			o->output = OUTPUT_JSON;
		else if (c == 'V' && own_v)
			return c;
		else if (refuse_foreign(c, foreign, shortopts))
			return '?';
		else if ((r = global_option(c, o)) < 0)
			return '?';
		else if (r > 0) {
			if (c == '?')
				fprintf(stderr, "Try 'lunctl%s%s --help' for more information.\n",
				        verb ? " " : "", verb ?: "");
			return c;
		}
	}
}

int lunctl_getopt(int argc, char *argv[], const char *shortopts, const struct option *longopts,
                  Options *o, const char *verb)
{
	return lunctl_getopt_foreign(argc, argv, shortopts, longopts, NULL, o, verb);
}

static void usage(FILE *out)
{
	fprintf(out, "Usage:\n"
	             " lunctl [options] <command> [<args>]\n"
	             "\n"
	             "Find, name and rescan SCSI logical units.\n"
	             "\n"
	             "Commands:\n");
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
		fprintf(out, " %-8s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(out,
	        "\n"
	        "Options:\n"
	        " -x, --export         print KEY=VALUE lines for udev (ID_*, SCSI_IDENT_*)\n"
	        " -J, --json           print JSON\n"
	        "     --sysfs-only     use only the kernel's cached pages, send no SCSI command\n"
	        "     --sgio-only      ask the device, ignore the kernel's cached pages\n"
	        "     --root <dir>     operate on a tree unpacked at <dir> instead of /\n"
	        "     --timeout <sec>  wait at most <sec> for each answer from lund (default 30,\n"
	        "                      a scan 600)\n"
	        "\n"
	        " -h, --help           display this help\n"
	        " -V, --version        display version\n"
	        "\n"
	        "Exit status: 0 success, 1 usage error, 2 device or I/O error, 3 malformed data.\n"
	        "For more details see lunctl(8).\n");
}

static void errtryhelp(void)
{
	fprintf(stderr, "Try 'lunctl --help' for more information.\n");
}

int main(int argc, char *argv[])
{
	static const struct option longopts[] = { { "export", no_argument, NULL, 'x' },
		                                  { "json", no_argument, NULL, 'J' },
		                                  { "help", no_argument, NULL, 'h' },
		                                  {} };
	Options o = {};
	int c;

	log_setup("lunctl", LOG_TARGET_STDERR, LOG_INFO);

	/* '+': stop at the verb; each verb parses its own options, the global ones among them. */
	while ((c = lunctl_getopt(argc, argv, "+xJh", longopts, &o, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}

	if (optind >= argc) {
		fprintf(stderr, "lunctl: no command specified\n");
		errtryhelp();
		return EXIT_USAGE;
	}

	for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
		if (streq(argv[optind], verbs[i].name)) {
			int r;

			argc -= optind;
			argv += optind;
			optind = 0;
			r = verbs[i].run(argc, argv, &o);
			if (fflush(stdout) != 0 && r == EXIT_OK)
				r = EXIT_DEVICE;
			return r;
		}

	fprintf(stderr, "lunctl: unknown command '%s'\n", argv[optind]);
	errtryhelp();
	return EXIT_USAGE;
}
