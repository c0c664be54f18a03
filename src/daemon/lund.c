/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "errors.h"
#include "conf.h"
#include "confcheck.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "modload.h"
#include "monitor.h"

static void usage(FILE *out)
{
	fprintf(out,
	        "Usage:\n"
	        " lund [options]\n"
	        "\n"
	        "Keep SCSI logical units found and named: follow kernel uevents, keep an\n"
	        "inventory, maintain /dev/scsi/by-id links, answer on a control socket.\n"
	        "\n"
	        "Options:\n"
	        "     --root <dir>             read sysfs and write links below <dir> (default /)\n"
	        "     --run-dir <dir>          control socket and link records (default %s)\n"
	        "     --link-dir <dir>         lund's link directory below the root\n"
	        "                                (default /dev/scsi/by-id)\n"
	        "     --path-link-dir <dir>    lund's by-path link directory below the root\n"
	        "                                (default /dev/scsi/by-path)\n"
	        "     --manage-disk-links      also maintain /dev/disk/by-id and "
	        "/dev/disk/by-path\n"
	        "                                (systems without udevd)\n"
	        "     --receive-buffer <size>  kernel uevent socket buffer, bytes, K/M/G suffixes\n"
	        "                                (default 128M)\n"
	        "     --sysfs-only             never send SCSI commands, use the kernel's cache "
	        "only\n"
	        "     --config <file>          policy configuration (default " LUND_CONF_DEFAULT
	        ")\n"
	        "     --hwdb <file>            compiled hwdb (default: the system's hwdb.bin)\n"
	        "     --load-modules <when>    load LU drivers: auto (without udevd), always, "
	        "never\n"
	        "     --udev-links <when>      let udev make lund's links from its records:\n"
	        "                                auto (udevd expected and 59-lund.rules "
	        "installed),\n"
	        "                                always, never\n"
	        "     --state-dir <dir>        the name records below the root, read only\n"
	        "                                (default /var/lib/lund)\n"
	        "     --scan <when>            scan hosts for LUs at start-up (before readiness)\n"
	        "                                and when a host appears: auto (when the kernel\n"
	        "                                does not: scsi_mod.scan=manual), always, never\n"
	        "     --error-threshold <spec> CLASS:N/T:ACTION, N errors in T s -> log, offline "
	        "or\n"
	        "                                rescan (default transport:10/60:log)\n"
	        "     --error-events           patched kernel: count error events (evt_error=1)\n"
	        "                                instead of polling errors/<class>\n"
	        "     --check-config           check lund.conf (--config) and lund's hwdb sources\n"
	        "                                line by line, then exit: 0 when clean\n"
	        "     --no-monitor             do not listen to kernel uevents (tests)\n"
	        "     --log-level <level>      err, warning, notice, info or debug (default info)\n"
	        "\n"
	        " -h, --help                   display this help\n"
	        " -V, --version                display version\n"
	        "\n"
	        "For more details see lund(8).\n",
	        LUND_RUNDIR);
}

static void errtryhelp(void)
{
	fprintf(stderr, "Try 'lund --help' for more information.\n");
}

/* --load-modules, --udev-links and --scan: ModLoadMode, ManagerUdevLinks and ManagerScanMode
 * share this order. */
static const char *const when_names[] = { "auto", "always", "never" };
static DEFINE_NAME_PARSE(parse_when, int, when_names)

        static int parse_size(const char *s, size_t *ret)
{
	unsigned long long v, mult = 1;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || s[0] == '-')
		return -EINVAL;
	if (*end) {
		switch (*end) {
		case 'K':
		case 'k':
			mult = 1024ULL;
			break;
		case 'M':
		case 'm':
			mult = 1024ULL * 1024;
			break;
		case 'G':
		case 'g':
			mult = 1024ULL * 1024 * 1024;
			break;
		default:
			return -EINVAL;
		}
		if (end[1])
			return -EINVAL;
	}
	if (v == 0 || v > INT32_MAX / mult)
		return -ERANGE;
	*ret = (size_t)(v * mult);
	return 0;
}

static int parse_level(const char *s)
{
	static const struct {
		const char *name;
		int level;
	} levels[] = {
		{ "emerg", LOG_EMERG },   { "alert", LOG_ALERT }, { "crit", LOG_CRIT },
		{ "err", LOG_ERR },       { "error", LOG_ERR },   { "warning", LOG_WARNING },
		{ "notice", LOG_NOTICE }, { "info", LOG_INFO },   { "debug", LOG_DEBUG },
	};
	char *end;
	long v;

	for (size_t i = 0; i < ELEMENTSOF(levels); i++)
		if (strcasecmp(s, levels[i].name) == 0)
			return levels[i].level;
	v = strtol(s, &end, 10);
	if (end != s && !*end && v >= LOG_EMERG && v <= LOG_DEBUG)
		return (int)v;
	return -EINVAL;
}

/* "/dev/scsi/by-id/" -> "dev/scsi/by-id": paths below the root are kept relative. */
static const char *below_root(const char *p)
{
	static char buf[4096];
	size_t n;

	p += strspn(p, "/");
	n = strlen(p);
	if (n == 0 || n >= sizeof(buf))
		return NULL;
	memcpy(buf, p, n + 1);
	while (n > 0 && buf[n - 1] == '/')
		buf[--n] = 0;
	if (strstr(buf, "..") && (streq(buf, "..") || strneq(buf, "../", 3) ||
	                          strstr(buf, "/../") || (n >= 3 && streq(buf + n - 3, "/.."))))
		return NULL;
	return strdup(buf);
}

static void on_config_problem(const char *path, unsigned line, const char *message, void *userdata)
{
	fprintf(stderr, "%s:%u: %s\n", path, line, message);
}

/* lund --check-config: lund.conf and lund's hwdb sources checked as lunctl check-config does;
 * 0 when clean, 1 with problems or an unreadable file. */
static int check_configuration(const char *conf)
{
	int r, n = 0;

	r = conf_check_file(conf, on_config_problem, NULL);
	if (r < 0 && r != -ENOENT) {
		fprintf(stderr, "lund: cannot read %s: %s\n", conf, strerror(-r));
		return LUND_EXIT_FAILURE;
	}
	n += MAX(r, 0);
	r = hwdb_check_sources(NULL, NULL, on_config_problem, NULL);
	if (r < 0) {
		fprintf(stderr, "lund: cannot read lund's hwdb sources: %s\n", strerror(-r));
		return LUND_EXIT_FAILURE;
	}
	n += r;
	if (n > 0) {
		fprintf(stderr, "lund: %d problem%s in the configuration\n", n, n == 1 ? "" : "s");
		return LUND_EXIT_FAILURE;
	}
	printf("%s and lund's hwdb sources: no problems\n", conf);
	return EXIT_SUCCESS;
}

int main(int argc, char *argv[])
{
	enum {
		OPT_ROOT = 0x100,
		OPT_RUN_DIR,
		OPT_LINK_DIR,
		OPT_MANAGE_DISK_LINKS,
		OPT_PATH_LINK_DIR,
		OPT_RECEIVE_BUFFER,
		OPT_SYSFS_ONLY,
		OPT_NO_MONITOR,
		OPT_LOG_LEVEL,
		OPT_CONFIG,
		OPT_HWDB,
		OPT_LOAD_MODULES,
		OPT_ERROR_THRESHOLD,
		OPT_ERROR_EVENTS,
		OPT_CHECK_CONFIG,
		OPT_SCAN,
		OPT_UDEV_LINKS,
		OPT_STATE_DIR,
	};
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "run-dir", required_argument, NULL, OPT_RUN_DIR },
		{ "link-dir", required_argument, NULL, OPT_LINK_DIR },
		{ "manage-disk-links", no_argument, NULL, OPT_MANAGE_DISK_LINKS },
		{ "path-link-dir", required_argument, NULL, OPT_PATH_LINK_DIR },
		{ "receive-buffer", required_argument, NULL, OPT_RECEIVE_BUFFER },
		{ "sysfs-only", no_argument, NULL, OPT_SYSFS_ONLY },
		{ "no-monitor", no_argument, NULL, OPT_NO_MONITOR },
		{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "hwdb", required_argument, NULL, OPT_HWDB },
		{ "load-modules", required_argument, NULL, OPT_LOAD_MODULES },
		{ "error-threshold", required_argument, NULL, OPT_ERROR_THRESHOLD },
		{ "error-events", no_argument, NULL, OPT_ERROR_EVENTS },
		{ "check-config", no_argument, NULL, OPT_CHECK_CONFIG },
		{ "scan", required_argument, NULL, OPT_SCAN },
		{ "udev-links", required_argument, NULL, OPT_UDEV_LINKS },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	bool check_config = false;
	ManagerConfig config = {
		.root = "/",
		.run_dir = LUND_RUNDIR,
		.link_dir = "dev/scsi/by-id",
		.path_link_dir = "dev/scsi/by-path",
		.state_dir = "var/lib/lund",
	};
	_cleanup_free_ char *link_dir = NULL, *path_link_dir = NULL, *state_dir = NULL;
	Manager *m = NULL;
	int level = LOG_INFO, c, r;

	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) >= 0) {
		switch (c) {
		case OPT_ROOT:
			config.root = optarg;
			break;
		case OPT_RUN_DIR:
			if (optarg[0] != '/') {
				fprintf(stderr, "lund: --run-dir needs an absolute path\n");
				return LUND_EXIT_USAGE;
			}
			config.run_dir = optarg;
			break;
		case OPT_LINK_DIR:
			free(link_dir);
			link_dir = (char *)below_root(optarg);
			if (!link_dir) {
				fprintf(stderr, "lund: invalid --link-dir '%s'\n", optarg);
				return LUND_EXIT_USAGE;
			}
			config.link_dir = link_dir;
			break;
		case OPT_PATH_LINK_DIR:
			free(path_link_dir);
			path_link_dir = (char *)below_root(optarg);
			if (!path_link_dir) {
				fprintf(stderr, "lund: invalid --path-link-dir '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			config.path_link_dir = path_link_dir;
			break;
		case OPT_MANAGE_DISK_LINKS:
			config.disk_link_dir = "dev/disk/by-id";
			config.disk_path_link_dir = "dev/disk/by-path";
			break;
		case OPT_RECEIVE_BUFFER:
			if (parse_size(optarg, &config.receive_buffer) < 0) {
				fprintf(stderr, "lund: invalid --receive-buffer '%s'\n", optarg);
				return LUND_EXIT_USAGE;
			}
			break;
		case OPT_SYSFS_ONLY:
			config.probe_flags |= PROBE_SYSFS_ONLY;
			break;
		case OPT_CONFIG:
			config.conf_path = optarg;
			break;
		case OPT_HWDB:
			config.hwdb_path = optarg;
			break;
		case OPT_ERROR_THRESHOLD: {
			ErrorThreshold t;

			if (error_threshold_parse(optarg, &t) < 0) {
				log_error("Invalid --error-threshold \"%s\" "
				          "(CLASS:N/T:log|offline|rescan)",
				          optarg);
				return LUND_EXIT_USAGE;
			}
			config.error_threshold = optarg;
			break;
		}
		case OPT_CHECK_CONFIG:
			check_config = true;
			break;
		case OPT_ERROR_EVENTS:
			config.error_events = true;
			break;
		case OPT_LOAD_MODULES:
			r = parse_when(optarg);
			if (r < 0) {
				fprintf(stderr, "lund: invalid --load-modules '%s'\n", optarg);
				return LUND_EXIT_USAGE;
			}
			config.modload = (ModLoadMode)r;
			break;
		case OPT_STATE_DIR:
			free(state_dir);
			state_dir = (char *)below_root(optarg);
			if (!state_dir) {
				fprintf(stderr, "lund: invalid --state-dir '%s'\n", optarg);
				return LUND_EXIT_USAGE;
			}
			config.state_dir = state_dir;
			break;
		case OPT_UDEV_LINKS:
			r = parse_when(optarg);
			if (r < 0) {
				fprintf(stderr, "lund: invalid --udev-links '%s'\n", optarg);
				return LUND_EXIT_USAGE;
			}
			config.udev_links = (ManagerUdevLinks)r;
			break;
		case OPT_SCAN:
			r = parse_when(optarg);
			if (r < 0) {
				fprintf(stderr, "lund: invalid --scan '%s'\n", optarg);
				errtryhelp();
				return LUND_EXIT_USAGE;
			}
			config.scan = (ManagerScanMode)r;
			break;
		case OPT_NO_MONITOR:
			config.no_monitor = true;
			break;
		case OPT_LOG_LEVEL:
			level = parse_level(optarg);
			if (level < 0) {
				fprintf(stderr, "lund: invalid --log-level '%s'\n", optarg);
				return LUND_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case 'V':
			printf("lund %s\n", PACKAGE_VERSION);
			return EXIT_SUCCESS;
		default:
			errtryhelp();
			return LUND_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "lund: unexpected argument '%s'\n", argv[optind]);
		errtryhelp();
		return LUND_EXIT_USAGE;
	}
	if (check_config)
		return check_configuration(config.conf_path ?: LUND_CONF_DEFAULT);
	if (config.disk_link_dir && streq(config.disk_link_dir, config.link_dir)) {
		fprintf(stderr, "lund: --link-dir must differ from /dev/disk/by-id\n");
		return LUND_EXIT_USAGE;
	}
	if (streq(config.path_link_dir, config.link_dir) ||
	    (config.disk_link_dir && streq(config.path_link_dir, config.disk_link_dir)) ||
	    streq(config.path_link_dir, "dev/disk/by-path")) {
		fprintf(stderr, "lund: --path-link-dir must differ from the other link "
		                "directories\n");
		return EXIT_FAILURE;
	}

	log_setup("lund", LOG_TARGET_AUTO, level);

	r = manager_new(&config, &m);
	if (r < 0) {
		log_error_errno(r, "Failed to allocate the manager: %m");
		return LUND_EXIT_FAILURE;
	}
	r = manager_start(m);
	if (r >= 0)
		r = manager_run(m);
	manager_free(m);
	return r < 0 ? LUND_EXIT_FAILURE : LUND_EXIT_OK;
}
