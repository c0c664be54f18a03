/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /dev/disk/by-id names as Debian 12's 60-persistent-storage.rules (systemd 252) derives them.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "macro.h"
#include "names.h"

static const char *const bus_prefix[_NAMES_BUS_MAX] = {
        [NAMES_BUS_SCSI] = "scsi-",
        [NAMES_BUS_ATA] = "ata-",
};

const char *names_bus_name(NamesBus b)
{
        static const char *const n[_NAMES_BUS_MAX] = {
                [NAMES_BUS_SCSI] = "scsi",
                [NAMES_BUS_ATA] = "ata",
        };

        return b >= 0 && b < _NAMES_BUS_MAX ? n[b] : NULL;
}

NamesBus names_bus(const ScsiIdent *id, unsigned scsi_level)
{
        const char *v;
        size_t n;

        if (!id || !id->ata.valid)
                return NAMES_BUS_SCSI;
        /* ATTRS{vendor}=="ATA": udev drops trailing blanks of the attribute before comparing. */
        v = id->vendor;
        n = strlen(v);
        if (n == 3 && memcmp(v, "ATA", 3) == 0)
                return NAMES_BUS_ATA;
        /* ATTRS{type}=="5", ATTRS{scsi_level}=="[6-9]*": one digit 6..9 (levels stay below 10). */
        if (id->peripheral_type == 5 && scsi_level >= 6 && scsi_level <= 9)
                return NAMES_BUS_ATA;
        return NAMES_BUS_SCSI;
}

int names_component(const char *prefix, const char *value, unsigned partition,
                    char ret[static NAME_MAX + 1])
{
        char buf[NAME_MAX + 1];
        size_t n = 0, pl;

        assert_return(prefix && value, -EINVAL);
        if (isempty(value))
                return -EINVAL;

        pl = strlen(prefix);
        if (pl > NAME_MAX)
                return -EINVAL;
        memcpy(buf, prefix, pl);
        n = pl;

        for (const uint8_t *p = (const uint8_t *)value; *p;) {
                const char *add;
                char one[5];
                size_t al;
                int l;

                if (*p == '/') {
                        /* udev's SYMLINK would keep it and make a directory; one component it
                         * is, so write it the way encode_devnode_name() does. */
                        add = "\\x2f";
                        al = 4;
                        p++;
                } else if (udev_char_allowed(*p, NULL)) {
                        one[0] = (char)*p++;
                        add = one;
                        al = 1;
                } else if (p[0] == '\\' && p[1] == 'x') {
                        add = "\\x";
                        al = 2;
                        p += 2;
                } else if ((l = udev_utf8_valid_char(p, SIZE_MAX)) > 1) {
                        add = (const char *)p;
                        al = (size_t)l;
                        p += l;
                } else {
                        /* udev_replace_chars(value, "/ "): whitespace would become ' ' and then
                         * split the link in two; everything else '_'. lund makes both '_'. */
                        add = "_";
                        al = 1;
                        p++;
                }
                if (n + al > NAME_MAX)
                        return -EINVAL;
                memcpy(buf + n, add, al);
                n += al;
        }
        if (partition > 0) {
                char suffix[16];
                int sl = snprintf(suffix, sizeof(suffix), "-part%u", partition);

                if (sl < 0 || n + (size_t)sl > NAME_MAX)
                        return -EINVAL;
                memcpy(buf + n, suffix, (size_t)sl);
                n += (size_t)sl;
        }
        buf[n] = '\0';
        if (streq(buf, ".") || streq(buf, ".."))
                return -EINVAL;
        memcpy(ret, buf, n + 1);
        return (int)n;
}

int names_by_id(const ScsiIdent *id, NamesBus bus, unsigned partition, bool is_cdrom,
                NamesList *ret)
{
        NamesList l = {};
        const char *serial = NULL;
        char wwn[2 + 32 + 1] = "";
        bool expected = false;
        int r;

        assert_return(id && ret, -EINVAL);
        assert_return(bus >= 0 && bus < _NAMES_BUS_MAX, -EINVAL);
        /* KERNEL=="sd*|sr*", ENV{DEVTYPE}=="partition": only sd* has partition links. */
        if (is_cdrom && partition > 0)
                return -EINVAL;

        if (bus == NAMES_BUS_ATA && id->ata.valid) {
                serial = id->ata.serial;
                if (id->ata.wwn[0])
                        snprintf(wwn, sizeof(wwn), "0x%s", id->ata.wwn);
        } else {
                /* ENV{ID_SERIAL}=="?*": at least one character. */
                if (id->have_serial)
                        serial = id->serial;
                if (id->wwn[0])
                        snprintf(wwn, sizeof(wwn), "0x%s%s", id->wwn, id->wwn_vendor_extension);
        }

        if (!isempty(serial)) {
                expected = true;
                r = names_component(bus_prefix[bus], serial, partition, l.name[l.n]);
                if (r >= 0)
                        l.n++;
        }
        if (wwn[0]) {
                expected = true;
                r = names_component("wwn-", wwn, partition, l.name[l.n]);
                if (r >= 0)
                        l.n++;
        }
        if (expected && l.n == 0)
                return -EINVAL;
        *ret = l;
        return 0;
}
