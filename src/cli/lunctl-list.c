/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libsmartcols.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "names.h"
#include "output.h"
#include "probe.h"
#include "sysfs.h"
#include "udevctx.h"

typedef struct Entry {
        LuRef lu;
        ProbeData d;
        ScsiIdent id;
        UdevCtx udev;
        NamesList names;
        int error; /* identification failed: the row shows the LU with what sysfs has */
} Entry;

static int entry_cmp(const void *a, const void *b)
{
        const Entry *x = a, *y = b;

        if (x->lu.host != y->lu.host)
                return x->lu.host < y->lu.host ? -1 : 1;
        if (x->lu.channel != y->lu.channel)
                return x->lu.channel < y->lu.channel ? -1 : 1;
        if (x->lu.target != y->lu.target)
                return x->lu.target < y->lu.target ? -1 : 1;
        if (x->lu.lun != y->lu.lun)
                return x->lu.lun < y->lu.lun ? -1 : 1;
        return 0;
}

static void entries_free(Entry *e, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                lu_ref_done(&e[i].lu);
                probe_data_done(&e[i].d);
        }
        free(e);
}

static int identify(int rootfd, Entry *e, ProbeFlags flags)
{
        ScsiIdentInput in;
        int r;

        r = probe_read(rootfd, &e->lu, flags, &e->d);
        if (r < 0)
                return r;
        r = udevctx_read(rootfd, &e->lu, &e->udev);
        if (r < 0)
                return r;
        in = (ScsiIdentInput) {
                .inquiry = e->d.buf[PROBE_INQUIRY],
                .inquiry_len = e->d.len[PROBE_INQUIRY],
                .pg00 = e->d.buf[PROBE_PG00],
                .pg00_len = e->d.len[PROBE_PG00],
                .pg80 = e->d.buf[PROBE_PG80],
                .pg80_len = e->d.len[PROBE_PG80],
                .pg83 = e->d.buf[PROBE_PG83],
                .pg83_len = e->d.len[PROBE_PG83],
                .pg89 = e->d.buf[PROBE_PG89],
                .pg89_len = e->d.len[PROBE_PG89],
                .ata_identify = e->udev.have_ata_identify ? e->udev.ata_identify : NULL,
                .ata_identify_len = e->udev.have_ata_identify ? sizeof(e->udev.ata_identify) : 0,
                .page = IDENT_PAGE_DEFAULT,
                .pg00_infer = !e->d.buf[PROBE_PG00] && (flags & PROBE_SYSFS_ONLY),
        };
        r = ident_compute(&in, &e->id);
        if (r < 0)
                return r;
        /* Consumed by ident_compute(); the entries array may move later (realloc). */
        e->id.in.ata_identify = NULL;
        e->id.in.ata_identify_len = 0;
        /* A name refused for safety is left out of the row; the row still shows the LU. */
        r = udevctx_names(&e->udev, &e->lu, &e->id, &e->names);
        if (r == -ENOMEM)
                return r;
        return 0;
}

static int collect(int rootfd, ProbeFlags flags, Entry **ret, size_t *ret_n)
{
        Entry *e = NULL;
        size_t n = 0, allocated = 0;
        DIR *d;
        int fd;

        fd = openat(rootfd, "sys/bus/scsi/devices", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                safe_close(fd);
                return -errno;
        }

        for (struct dirent *de; (de = readdir(d));) {
                LuRef lu;
                int r;

                /* host*, target* and the transport's objects live here too: only H:C:T:L. */
                if (probe_resolve(rootfd, de->d_name, &lu) < 0)
                        continue;
                if (n == allocated) {
                        size_t m = allocated ? 2 * allocated : 64;
                        Entry *ne = reallocarray(e, m, sizeof(*e));

                        if (!ne) {
                                lu_ref_done(&lu);
                                closedir(d);
                                entries_free(e, n);
                                return -ENOMEM;
                        }
                        e = ne;
                        allocated = m;
                }
                e[n] = (Entry) { .lu = lu };
                r = identify(rootfd, &e[n], flags);
                if (r < 0) {
                        LogDevice dev = { .hctl = lu.hctl };

                        e[n].error = r;
                        log_device_full(LOG_WARNING, r, &dev, "cannot identify: %m");
                }
                n++;
        }
        closedir(d);

        if (n > 0)
                qsort(e, n, sizeof(*e), entry_cmp);
        *ret = e;
        *ret_n = n;
        return 0;
}

static char *nodes_string(const LuRef *lu)
{
        char *s = NULL;

        if (asprintf(&s, "%s%s%s%s%s", lu->block ?: "", lu->block && (lu->tape || lu->sg) ? "," : "",
                     lu->tape ?: "", lu->tape && lu->sg ? "," : "", lu->sg ?: "") < 0)
                return NULL;
        return s;
}

static int print_table(const Entry *e, size_t n)
{
        struct libscols_table *tb = scols_new_table();
        enum { COL_HCTL, COL_TYPE, COL_VENDOR, COL_MODEL, COL_REV, COL_NODES, COL_ID, COL_NAMES };
        int r = 0;

        if (!tb)
                return -ENOMEM;
        scols_table_new_column(tb, "HCTL", 0, 0);
        scols_table_new_column(tb, "TYPE", 0, 0);
        scols_table_new_column(tb, "VENDOR", 0, 0);
        scols_table_new_column(tb, "MODEL", 0, 0);
        scols_table_new_column(tb, "REV", 0, 0);
        scols_table_new_column(tb, "NODES", 0, 0);
        scols_table_new_column(tb, "ID", 0, SCOLS_FL_TRUNC);
        scols_table_new_column(tb, "NAMES", 0, SCOLS_FL_WRAP);

        for (size_t i = 0; i < n; i++) {
                struct libscols_line *ln = scols_table_new_line(tb, NULL);
                _cleanup_free_ char *nodes = nodes_string(&e[i].lu), *names = NULL, *id = NULL;

                if (!ln) {
                        r = -ENOMEM;
                        break;
                }
                scols_line_set_data(ln, COL_HCTL, e[i].lu.hctl);
                scols_line_set_data(ln, COL_NODES, nodes);
                if (e[i].error < 0) {
                        scols_line_set_data(ln, COL_ID, "(unreadable)");
                        continue;
                }
                scols_line_set_data(ln, COL_TYPE, e[i].id.type);
                scols_line_set_data(ln, COL_VENDOR, e[i].id.vendor);
                scols_line_set_data(ln, COL_MODEL, e[i].id.model);
                scols_line_set_data(ln, COL_REV, e[i].id.revision);
                if (e[i].id.have_serial)
                        id = output_escape(e[i].id.serial, strlen(e[i].id.serial));
                scols_line_set_data(ln, COL_ID, id ?: "-");
                for (size_t k = 0; k < e[i].names.n; k++) {
                        char *s = NULL;

                        if (asprintf(&s, "%s%s%s", names ?: "", names ? " " : "",
                                     e[i].names.name[k]) < 0) {
                                r = -ENOMEM;
                                break;
                        }
                        free(names);
                        names = s;
                }
                scols_line_set_data(ln, COL_NAMES, names ?: "");
        }
        if (r >= 0)
                r = scols_print_table(tb);
        scols_unref_table(tb);
        return r;
}

static int print_json(const Entry *e, size_t n)
{
        _cleanup_(json_object_putp) json_object *root = json_object_new_object();
        json_object *arr = json_object_new_array();

        if (!root || !arr) {
                json_object_put(arr);
                return -ENOMEM;
        }
        json_object_object_add(root, "logical_units", arr);

        for (size_t i = 0; i < n; i++) {
                json_object *o = json_object_new_object(), *nodes = json_object_new_object(),
                            *names = json_object_new_array();

                json_object_array_add(arr, o);
                json_object_object_add(o, "hctl", json_object_new_string(e[i].lu.hctl));
                json_object_object_add(o, "nodes", nodes);
                if (e[i].lu.block)
                        json_object_object_add(nodes, "block", json_object_new_string(e[i].lu.block));
                if (e[i].lu.tape)
                        json_object_object_add(nodes, "tape", json_object_new_string(e[i].lu.tape));
                if (e[i].lu.sg)
                        json_object_object_add(nodes, "sg", json_object_new_string(e[i].lu.sg));
                json_object_object_add(o, "names", names);
                if (e[i].error < 0) {
                        json_object_object_add(o, "error", json_object_new_int(e[i].error));
                        continue;
                }
                json_object_object_add(o, "type", json_object_new_string(e[i].id.type));
                json_object_object_add(o, "properties",
                                       output_properties_json(&e[i].id, EXPORT_UDEV));
                for (size_t k = 0; k < e[i].names.n; k++)
                        json_object_array_add(names, json_object_new_string(e[i].names.name[k]));
        }
        return output_json(stdout, root);
}

int verb_list(int argc, char *argv[], Options *o)
{
        _cleanup_close_ int rootfd = -EBADF;
        ProbeFlags flags = 0;
        Entry *e = NULL;
        size_t n = 0;
        int r;

        r = lunctl_parse_noargs(argc, argv, o, "list");
        if (r >= 0)
                return r;

        rootfd = sysfs_open_root(o->root);
        if (rootfd < 0) {
                log_error_errno(rootfd, "Failed to open root directory '%s': %m", o->root ?: "/");
                return EXIT_USAGE;
        }
        if (o->sysfs_only)
                flags |= PROBE_SYSFS_ONLY;
        if (o->sgio_only)
                flags |= PROBE_SGIO_ONLY;

        r = collect(rootfd, flags, &e, &n);
        if (r == -ENOENT) {
                /* No SCSI subsystem at all: nothing to list, not an error. */
                e = NULL;
                n = 0;
        } else if (r < 0) {
                log_error_errno(r, "Failed to enumerate SCSI devices: %m");
                return EXIT_DEVICE;
        }

        r = o->output == OUTPUT_JSON ? print_json(e, n) : print_table(e, n);
        entries_free(e, n);
        if (r < 0) {
                log_error_errno(r, "Failed to print: %m");
                return EXIT_DEVICE;
        }
        return EXIT_OK;
}
