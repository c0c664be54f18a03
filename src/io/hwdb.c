/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-hwdb.h>

#include "hwdb.h"
#include "macro.h"

struct Hwdb {
	/* sd-hwdb keeps its iteration state inside the object: one lookup at a time. */
	pthread_mutex_t lock;
	sd_hwdb *hwdb;
};

int hwdb_open(const char *path, Hwdb **ret)
{
	sd_hwdb *hw = NULL;
	Hwdb *h;
	int r;

	assert_return(ret, -EINVAL);

	r = path ? sd_hwdb_new_from_path(path, &hw) : sd_hwdb_new(&hw);
	if (r < 0)
		return r;
	h = calloc(1, sizeof(*h));
	if (!h) {
		sd_hwdb_unref(hw);
		return -ENOMEM;
	}
	pthread_mutex_init(&h->lock, NULL);
	h->hwdb = hw;
	*ret = h;
	return 0;
}

Hwdb *hwdb_free(Hwdb *h)
{
	if (!h)
		return NULL;
	sd_hwdb_unref(h->hwdb);
	pthread_mutex_destroy(&h->lock);
	free(h);
	return NULL;
}

/* Append @s with trailing blanks dropped and unsafe bytes as '_'. */
static char *put_field(char *p, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		*p++ = c > 0x20 && c < 0x7f && c != ':' ? (char)c : (c == ' ' ? ' ' : '_');
	}
	return p;
}

char *hwdb_modalias(int type, const char *vendor, const char *model, const char *revision)
{
	size_t n = 64 + (vendor ? strlen(vendor) : 0) + (model ? strlen(model) : 0) +
	           (revision ? strlen(revision) : 0);
	char *m = malloc(n), *p;

	if (!m)
		return NULL;
	p = m + sprintf(m, "lund:scsi:t%d:v", type < 0 ? 255 : type);
	p = put_field(p, vendor);
	p = stpcpy(p, ":m");
	p = put_field(p, model);
	p = stpcpy(p, ":r");
	p = put_field(p, revision);
	*p = 0;
	return m;
}

int hwdb_lookup(Hwdb *h, const char *modalias, HwdbPropertyFn fn, void *userdata)
{
	const char *key, *value;
	int n = 0;

	assert_return(h && modalias && fn, -EINVAL);

	pthread_mutex_lock(&h->lock);
	SD_HWDB_FOREACH_PROPERTY(h->hwdb, modalias, key, value)
	{
		fn(key[0] == ' ' ? key + 1 : key, value, userdata);
		n++;
	}
	pthread_mutex_unlock(&h->lock);
	return n;
}
