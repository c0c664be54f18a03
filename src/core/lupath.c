/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lupath.h"
#include "macro.h"
#include "vpd.h"

/* A descriptor header is 4 bytes: at most this many descriptors fit in the largest page. */
#define LUPATH_MAX_DESIGNATORS ((VPD_MAX_LEN - VPD_HEADER_LEN) / 4)

static int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *designator_key(const VpdDesignator *d)
{
	static const char hex[] = "0123456789abcdef";
	/* Byte 0 (protocol identifier, code set) and byte 1 without its reserved bit 6. */
	uint8_t head[2] = { d->desc[0], d->desc[1] & 0xbf };
	char *s = malloc(4 + 1 + 2 * d->len + 1), *p = s;

	if (!s)
		return NULL;
	for (size_t i = 0; i < 2; i++) {
		*p++ = hex[head[i] >> 4];
		*p++ = hex[head[i] & 0xf];
	}
	*p++ = ':';
	for (size_t i = 0; i < d->len; i++) {
		*p++ = hex[d->value[i] >> 4];
		*p++ = hex[d->value[i] & 0xf];
	}
	*p = '\0';
	return s;
}

/* Sort @v (@n strings), drop duplicates and join them with ','; frees every string. */
static char *join_set(char **v, size_t n)
{
	size_t total = 1, k = 0;
	char *s, *p;

	if (n > 0)
		qsort(v, n, sizeof(*v), str_ptr_cmp);
	for (size_t i = 0; i < n; i++)
		total += strlen(v[i]) + 1;
	s = malloc(total);
	if (s) {
		p = s;
		for (size_t i = 0; i < n; i++) {
			if (i > 0 && streq(v[i], v[i - 1]))
				continue;
			if (k++ > 0)
				*p++ = ',';
			p = stpcpy(p, v[i]);
		}
		*p = '\0';
	}
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	return s;
}

int lupath_keys(const uint8_t *buf, size_t len, char **ret_lu, char **ret_port)
{
	_cleanup_free_ char **lu = NULL, **port = NULL;
	size_t n_lu = 0, n_port = 0, offset = 0;
	VpdHeader h;
	VpdDesignator d;
	char *klu, *kport;
	int r = 0;

	assert_return(buf || len == 0, -EINVAL);
	assert_return(ret_lu && ret_port, -EINVAL);

	r = vpd_parse_header(buf, len, &h);
	if (r < 0)
		return r;
	if (h.page != 0x83)
		return -ENODATA;
	if (vpd83_is_pre_spc2(buf, len))
		return -EBADMSG;
	/* Bounded by the page: every descriptor takes at least its 4-byte header. */
	len = MIN(len, VPD_HEADER_LEN + h.page_len);
	lu = calloc(len / 4 + 1, sizeof(*lu));
	port = calloc(len / 4 + 1, sizeof(*port));
	if (!lu || !port)
		return -ENOMEM;
	while (n_lu + n_port < LUPATH_MAX_DESIGNATORS &&
	       (r = vpd83_next(buf, len, &offset, &d)) > 0) {
		char *k;

		if (d.association != VPD_ASSOC_LU && d.association != VPD_ASSOC_TARGET_PORT)
			continue;
		k = designator_key(&d);
		if (!k) {
			r = -ENOMEM;
			break;
		}
		if (d.association == VPD_ASSOC_LU)
			lu[n_lu++] = k;
		else
			port[n_port++] = k;
	}
	if (r < 0) {
		for (size_t i = 0; i < n_lu; i++)
			free(lu[i]);
		for (size_t i = 0; i < n_port; i++)
			free(port[i]);
		return r;
	}
	klu = join_set(lu, n_lu);
	kport = join_set(port, n_port);
	if (!klu || !kport) {
		free(klu);
		free(kport);
		return -ENOMEM;
	}
	*ret_lu = klu;
	*ret_port = kport;
	return 0;
}

LuRelation lupath_relation(const char *lu_a, const char *port_a, const char *lu_b,
                           const char *port_b)
{
	if (isempty(lu_a) || isempty(lu_b) || !streq(lu_a, lu_b))
		return LU_RELATION_CLONES;
	if (isempty(port_a) || isempty(port_b) || streq(port_a, port_b))
		return LU_RELATION_CLONES;
	return LU_RELATION_PATHS;
}
