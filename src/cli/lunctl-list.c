/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * `lunctl list`: its options, the row model both sources fill (lunctl-list.h), and the choice
 * between lund's inventory and lunctl's own reading of sysfs.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "log.h"
#include "lunctl-list-render.h"
#include "lunctl-list.h"
#include "lunctl.h"
#include "macro.h"

/* ---- the row model ---- */

void row_done(Row *w)
{
	lu_ref_done(&w->lu);
	free(w->paths);
	json_object_put(w->multipath);
	free(w->state);
	free(w->excluded);
	free(w->pr);
	json_object_put(w->pr_json);
	free(w->type);
	free(w->vendor);
	free(w->model);
	free(w->revision);
	free(w->serial);
	free(w->transport);
	json_object_put(w->properties);
	for (size_t k = 0; k < w->n_names; k++)
		free(w->names[k]);
	free(w->names);
	*w = (Row){};
}

void rows_free(Row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		row_done(&rows[i]);
	free(rows);
}

int row_cmp(const void *a, const void *b)
{
	const Row *x = a, *y = b;

	return CMP(x->lu.host, y->lu.host) ?: CMP(x->lu.channel, y->lu.channel) ?:
	       CMP(x->lu.target, y->lu.target) ?: CMP(x->lu.lun, y->lu.lun);
}

Row *rows_append(Row **rows, size_t *n, size_t *allocated)
{
	if (GREEDY_REALLOC(*rows, *allocated, *n + 1) < 0)
		return NULL;
	(*rows)[*n] = (Row){};
	return &(*rows)[(*n)++];
}

char *row_strdup(const char *s, bool *oom)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

int row_add_name(Row *w, const char *name)
{
	if (GREEDY_REALLOC_EXACT(w->names, w->n_names + 1) < 0)
		return -ENOMEM;
	w->names[w->n_names] = strdup(name);
	if (!w->names[w->n_names])
		return -ENOMEM;
	w->n_names++;
	return 0;
}

void host_done(Host *h)
{
	free(h->driver);
	free(h->transport);
}

void hosts_free(Host *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		host_done(&h[i]);
	free(h);
}

/* ---- options ---- */

/*
 * lsscsi's options that lunctl list does not take with the same meaning, each refused with
 * what to use instead (lunctl(8) carries the same list). Those it takes as lsscsi does: -t, -s,
 * -H/-C, -b, -g and -k (the NODES column has the sg node and kernel names), -N (lunctl lists no
 * NVMe), -h, -V.
 */
static const ForeignOption lsscsi_options[] = {
	{ 'c', "classic", false, "output like /proc/scsi/scsi",
	  "no equivalent; lunctl id DEV for one LU's INQUIRY data" },
	{ 'd', "device", false, "show the device nodes' major:minor",
	  "no equivalent; ls -l /dev/NODE" },
	{ 'D', "pdt", false, "show the peripheral device type in hex", "use -o +PDT (its name)" },
	{ 'i', "scsi_id", false, "show udev's /dev/disk/by-id/scsi-* name",
	  "use -o +NAMES for the by-id names, the ID column is ID_SERIAL" },
	{ 'l', "long", false, "additional information", "use lunctl id DEV, or --json" },
	{ 'L', "list", false, "additional information, one attribute=value per line",
	  "use lunctl id DEV, or --pairs" },
	{ 'p', "protection", false, "target and initiator protection information",
	  "no equivalent" },
	{ 'P', "protmode", false, "negotiated protection information mode",
	  "no equivalent; lunctl's KEY=\"value\" output is --pairs, long option only" },
	/* how lsscsi's usage line spells --protmode (its getopt takes only "protmode") */
	{ 0, "prot-mode", false, "negotiated protection information mode", "no equivalent" },
	{ 'S', "sz-lbs", false, "size as a number of logical blocks", "use --json: size_bytes" },
	{ 'u', "unit", false, "logical unit name", "use lunctl id DEV: every designator" },
	{ 'U', "long-unit", false, "logical unit name in full",
	  "use lunctl id DEV: every designator" },
	{ 'v', "verbose", false, "the sysfs paths where data is found", "no equivalent" },
	{ 'w', "wwn", false, "the WWN from /dev/disk/by-id/wwn-*",
	  "use -o +NAMES (the wwn- names), or lunctl id DEV" },
	{ 'x', "lunhex", false, "LUNs in hex",
	  "lunctl prints the kernel's decimal LUN; "
	  "lunctl decode prints REPORT LUNS in hex" },
	{ 'y', "sysfsroot", true, "another sysfs mount point",
	  "use --root DIR, the directory holding sys/" },
};

static void help(void)
{
	printf("Usage: lunctl list [options] [H[:C[:T[:L]]] | H C T L]\n"
	       "\n"
	       "List SCSI logical units, one line each as lsscsi(8) does, with their nodes and\n"
	       "identifiers. The filter takes lsscsi's form: '-', '*' or '?' for any value,\n"
	       "\"hostH\" for a host; a filter starting with '-' goes after \"--\".\n"
	       "\n"
	       "When lund answers on its control socket ($LUND_RUN_DIR/control, default\n"
	       "/run/lund/control) the list is its live inventory; otherwise, or with --root,\n"
	       "--sysfs-only or --sgio-only, lunctl identifies every LU itself from sysfs.\n"
	       "Same columns and JSON either way; the JSON's \"source\" says which (lund, sysfs).\n"
	       "\n"
	       "Options:\n"
	       " -t, --transport      add the TRANSPORT column (as lsscsi -t prints it)\n"
	       " -s, --size           add the SIZE column (as lsscsi -s prints it)\n"
	       " -H, --hosts          list the SCSI hosts, not the logical units (-C too)\n"
	       " -b, --brief          only H:C:T:L and the nodes (as lsscsi -b)\n"
	       "     --tree           hosts, targets, logical units, nodes and names as a tree\n"
	       " -o, --output <list>  the columns to print; \"+<list>\" adds to the default\n"
	       "                      (-o +NAMES: the by-id names)\n"
	       "     --list-columns   print the columns -o takes, and exit\n"
	       " -n, --noheadings     do not print the headings\n"
	       " -r, --raw            raw output: one space between columns, nothing aligned\n"
	       "     --pairs          KEY=\"value\" output, one line per LU\n"
	       " -J, --json           print JSON\n"
	       " -h, --help           display this help\n"
	       "\n"
	       "lsscsi's -g, -k and -N are taken (NODES has the sg node, kernel names; lunctl\n"
	       "lists no NVMe); its other options are refused with lunctl's equivalent.\n"
	       "For more details see lunctl(8).\n");
}

static int parse_options(int argc, char *argv[], Options *o, ListOptions *lo)
{
	enum { OPT_TREE = 0x100, OPT_LIST_COLUMNS, OPT_PAIRS };
	static const struct option longopts[] = { { "transport", no_argument, NULL, 't' },
		                                  { "size", no_argument, NULL, 's' },
		                                  { "hosts", no_argument, NULL, 'H' },
		                                  { "controllers", no_argument, NULL, 'C' },
		                                  { "brief", no_argument, NULL, 'b' },
		                                  { "generic", no_argument, NULL, 'g' },
		                                  { "kname", no_argument, NULL, 'k' },
		                                  { "no-nvme", no_argument, NULL, 'N' },
		                                  /* lsscsi takes '_' for '-' in its long options */
		                                  { "no_nvme", no_argument, NULL, 'N' },
		                                  { "tree", no_argument, NULL, OPT_TREE },
		                                  { "output", required_argument, NULL, 'o' },
		                                  { "list-columns", no_argument, NULL,
		                                    OPT_LIST_COLUMNS },
		                                  { "noheadings", no_argument, NULL, 'n' },
		                                  { "raw", no_argument, NULL, 'r' },
		                                  { "pairs", no_argument, NULL, OPT_PAIRS },
		                                  { "json", no_argument, NULL, 'J' },
		                                  { "help", no_argument, NULL, 'h' },
		                                  {} };
	static const ForeignOptions lsscsi = { "lsscsi", lsscsi_options,
		                               ELEMENTSOF(lsscsi_options) };
	const char *output = NULL;
	char err[256] = "";
	unsigned sizes = 0;
	bool brief = false;
	int c;

	while ((c = lunctl_getopt_foreign(argc, argv, "tsHCbgkNo:nrJh", longopts, &lsscsi, o,
	                                  "list")) != -1) {
		switch (c) {
		case 't':
			lo->transport = true;
			break;
		case 's':
			lo->size = true;
			sizes++;
			break;
		case 'H':
		case 'C':
			lo->hosts = true;
			break;
		case 'b':
			brief = true;
			break;
		case 'g':
		case 'k':
		case 'N':
			break;
		case OPT_TREE:
			lo->tree = true;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_LIST_COLUMNS:
			list_print_columns();
			return EXIT_OK;
		case 'n':
			lo->noheadings = true;
			break;
		case 'r':
			lo->raw = true;
			break;
		case OPT_PAIRS:
			lo->pairs = true;
			break;
		case 'h':
			help();
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (sizes > 1) {
		log_error("'-%s' is lsscsi's \"size in %s\"; -s prints lsscsi's powers of 1000, "
		          "--json adds size_bytes.",
		          sizes == 2 ? "ss" : "sss",
		          sizes == 2 ? "powers of 1024" : "logical blocks");
		return EXIT_USAGE;
	}
	lo->json = o->output == OUTPUT_JSON;
	if (lo->raw + lo->pairs + lo->json > 1) {
		log_error("--raw, --pairs and --json exclude each other");
		return EXIT_USAGE;
	}
	if (lo->hosts + lo->tree > 1) {
		log_error("--hosts and --tree exclude each other");
		return EXIT_USAGE;
	}
	if (brief && output) {
		log_error("-b/--brief and -o/--output exclude each other");
		return EXIT_USAGE;
	}
	if (output && (lo->hosts || lo->tree)) {
		log_error("-o/--output chooses the columns of the LU listing, not of --hosts or "
		          "--tree");
		return EXIT_USAGE;
	}
	if (list_filter_parse(argv + optind, (size_t)(argc - optind), &lo->filter, err,
	                      sizeof(err)) < 0) {
		log_error("Invalid filter: %s", err);
		return EXIT_USAGE;
	}
	/* lsscsi -b: the tuple and the nodes, with -t's transport and -s's size */
	if (brief)
		output = lo->transport
		                 ? (lo->size ? "HCTL,TRANSPORT,NODES,SIZE" : "HCTL,TRANSPORT,NODES")
		                 : (lo->size ? "HCTL,NODES,SIZE" : "HCTL,NODES");
	if (list_parse_columns(lo, output) < 0)
		return EXIT_USAGE;
	lo->want[COL_TRANSPORT] |= lo->transport;
	lo->want[COL_SIZE] |= lo->size;
	return -1;
}

/* The rows @lo's filter lets through, sorted by H:C:T:L (the tree depends on it), and their
 * source. lund's inventory is the live one; a tree elsewhere, or a way of reading the devices
 * asked for explicitly, is lunctl's own work. Returns 0, -errno (logged). */
static int list_rows(int rootfd, const Options *o, const ListOptions *lo, Row **ret, size_t *ret_n,
                     const char **ret_source)
{
	ProbeFlags flags =
	        (o->sysfs_only ? PROBE_SYSFS_ONLY : 0) | (o->sgio_only ? PROBE_SGIO_ONLY : 0);
	int r = 0;

	if (!o->root && !o->sysfs_only && !o->sgio_only) {
		r = list_rows_from_lund(&lo->filter, ret, ret_n);
		*ret_source = "lund";
		if (r < 0)
			log_warning_errno(
			        r, "lund's inventory is unusable, reading sysfs instead: %m");
	}
	if (r <= 0) {
		*ret_source = "sysfs";
		r = list_rows_from_sysfs(rootfd, flags, &lo->filter, ret, ret_n);
		if (r < 0)
			return log_error_errno(r, "Failed to enumerate SCSI devices: %m");
	}
	if (*ret_n > 1)
		qsort(*ret, *ret_n, sizeof(**ret), row_cmp);
	return 0;
}

int verb_list(int argc, char *argv[], Options *o)
{
	_cleanup_close_ int rootfd = -EBADF;
	ListOptions lo = {};
	const char *source = NULL;
	Row *rows = NULL;
	Host *hosts = NULL;
	size_t n = 0, nh = 0;
	int r;

	r = parse_options(argc, argv, o, &lo);
	if (r >= 0)
		return r;
	if (lunctl_open_root(o, &rootfd) != EXIT_OK)
		return EXIT_USAGE;
	if (lo.hosts || lo.tree) {
		r = list_hosts_from_sysfs(rootfd, &lo.filter, lo.transport, &hosts, &nh);
		if (r < 0) {
			log_error_errno(r, "Failed to enumerate SCSI hosts: %m");
			return EXIT_DEVICE;
		}
	}
	if (!lo.hosts) {
		r = list_rows(rootfd, o, &lo, &rows, &n, &source);
		if (r < 0) {
			hosts_free(hosts, nh);
			return EXIT_DEVICE;
		}
		list_rows_read_sysfs(rootfd, rows, n, lo.want[COL_TRANSPORT], lo.want[COL_SIZE]);
		if (lo.want[COL_PR])
			list_rows_read_pr(rootfd, rows, n, NULL);
	}
	/* a filter narrower than a host shows only the hosts it finds LUs on */
	if (lo.tree &&
	    (lo.filter.channel != LIST_ANY || lo.filter.target != LIST_ANY || !lo.filter.lun_any)) {
		size_t k = 0;

		for (size_t i = 0; i < nh; i++) {
			bool has = false;

			for (size_t j = 0; !has && j < n; j++)
				has = rows[j].lu.host == hosts[i].host;
			if (has)
				hosts[k++] = hosts[i];
			else
				host_done(&hosts[i]);
		}
		nh = k;
	}
	r = list_print(&lo, hosts, nh, rows, n, source);
	rows_free(rows, n);
	hosts_free(hosts, nh);
	return lunctl_printed(r);
}
