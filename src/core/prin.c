/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * PERSISTENT RESERVE IN (SPC-4 6.16) and TransportIDs (SPC-4 7.6.4). Every length the device
 * sends is checked against the bytes left before it is used.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "prin.h"
#include "unaligned.h"

int prin_response_len(const uint8_t *buf, size_t len, size_t *ret_len)
{
	assert_return(buf || len == 0, -EINVAL);
	assert_return(ret_len, -EINVAL);

	if (len < PRIN_HEADER_LEN)
		return -EBADMSG;
	*ret_len = (size_t)PRIN_HEADER_LEN + unaligned_read_be32(buf + 4);
	return 0;
}

/* The data after the header: ADDITIONAL LENGTH must fit what was received. */
static int prin_body(const uint8_t *buf, size_t len, uint32_t *ret_gen, size_t *ret_body)
{
	uint32_t add;

	if (!buf || len < PRIN_HEADER_LEN)
		return -EBADMSG;
	add = unaligned_read_be32(buf + 4);
	if (add > len - PRIN_HEADER_LEN)
		return -EBADMSG;
	*ret_gen = unaligned_read_be32(buf);
	*ret_body = add;
	return 0;
}

int prin_parse_transport_id(const uint8_t *buf, size_t len, PrinTransportId *ret)
{
	PrinTransportId t = {};

	assert_return(buf || len == 0, -EINVAL);
	assert_return(ret, -EINVAL);

	if (len < 4)
		return -EBADMSG;
	t.protocol = buf[0] & 0x0f;
	t.format = buf[0] >> 6;
	switch (t.protocol) {
	case PRIN_PROTO_FC: /* SPC-4 7.6.4.2: N_PORT NAME at bytes 8..15 of 24 */
		if (len < 24)
			return -EBADMSG;
		memcpy(t.port, buf + 8, 8);
		break;
	case PRIN_PROTO_SAS: /* SPC-4 7.6.4.7: SAS ADDRESS at bytes 4..11 of 24 */
		if (len < 24)
			return -EBADMSG;
		memcpy(t.port, buf + 4, 8);
		break;
	case PRIN_PROTO_SRP: /* SPC-4 7.6.4.5: INITIATOR PORT IDENTIFIER at bytes 8..23 */
		if (len < 24)
			return -EBADMSG;
		memcpy(t.port, buf + 8, 16);
		break;
	case PRIN_PROTO_ISCSI: {
		/* SPC-4 7.6.4.6: ADDITIONAL LENGTH (bytes 2..3) counts the name that follows,
		 * NUL-terminated; format 01b appends ",i,0x" and the ISID to the name. */
		size_t add = unaligned_read_be16(buf + 2), n;
		const char *sep;

		if (add > len - 4)
			return -EBADMSG;
		n = strnlen((const char *)buf + 4, add);
		if (n == add || n > PRIN_ISCSI_NAME_MAX + sizeof(",i,0x") - 1 + 12)
			return -EBADMSG;
		memcpy(t.iscsi, buf + 4, MIN(n, (size_t)PRIN_ISCSI_NAME_MAX));
		if (n > PRIN_ISCSI_NAME_MAX && t.format == 0)
			return -EBADMSG;
		if (t.format == 1) {
			char full[PRIN_ISCSI_NAME_MAX + sizeof(",i,0x") + 12] = "";

			memcpy(full, buf + 4, n);
			sep = strcasestr(full, ",i,0x");
			if (!sep || (size_t)(sep - full) > PRIN_ISCSI_NAME_MAX)
				return -EBADMSG;
			memset(t.iscsi, 0, sizeof(t.iscsi));
			memcpy(t.iscsi, full, (size_t)(sep - full));
		}
		break;
	}
	default:
		break;
	}
	*ret = t;
	return 0;
}

bool prin_transport_id_is(const PrinTransportId *t, const PrinIdentity *id)
{
	if (!t || !id || t->protocol != id->protocol)
		return false;
	switch (t->protocol) {
	case PRIN_PROTO_FC:
	case PRIN_PROTO_SAS:
		return memcmp(t->port, id->port, 8) == 0;
	case PRIN_PROTO_SRP:
		return memcmp(t->port, id->port, 16) == 0;
	case PRIN_PROTO_ISCSI:
		/* RFC 3722: iSCSI names compare after folding case */
		return t->iscsi[0] && strcasecmp(t->iscsi, id->iscsi) == 0;
	default:
		return false;
	}
}

static bool name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == ':' || c == '-';
}

static int put_hex(const char *proto, const uint8_t *p, size_t n, char *s, size_t size)
{
	size_t k;
	int w = snprintf(s, size, "%s:0x", proto);

	if (w < 0 || (size_t)w >= size)
		return -ENOBUFS;
	k = (size_t)w;
	for (size_t i = 0; i < n; i++, k += 2) {
		if (k + 2 >= size)
			return -ENOBUFS;
		snprintf(s + k, size - k, "%02x", p[i]);
	}
	return 0;
}

int prin_format_transport_id(const PrinTransportId *t, char *s, size_t size)
{
	int w;

	assert_return(t, -EINVAL);
	assert_return(s && size > 0, -EINVAL);

	switch (t->protocol) {
	case PRIN_PROTO_FC:
		return put_hex("fc", t->port, 8, s, size);
	case PRIN_PROTO_SAS:
		return put_hex("sas", t->port, 8, s, size);
	case PRIN_PROTO_SRP:
		return put_hex("srp", t->port, 16, s, size);
	case PRIN_PROTO_ISCSI: {
		size_t n = strlen(t->iscsi);

		if (n + 1 > size)
			return -ENOBUFS;
		for (size_t i = 0; i < n; i++)
			s[i] = name_char_ok(t->iscsi[i]) ? t->iscsi[i] : '?';
		s[n] = '\0';
		return 0;
	}
	default:
		w = snprintf(s, size, "proto-%u", t->protocol);
		return w >= 0 && (size_t)w < size ? 0 : -ENOBUFS;
	}
}

bool prin_type_all_registrants(uint8_t type)
{
	return type == 0x7 || type == 0x8;
}

const char *prin_type_name(uint8_t type)
{
	/* SPC-4 6.16.3.4 table 215 */
	static const char *const names[16] = {
		[0x1] = "WE",    [0x3] = "EA",    [0x5] = "WE-RO",
		[0x6] = "EA-RO", [0x7] = "WE-AR", [0x8] = "EA-AR",
	};

	return names[type & 0x0f];
}

static bool key_is_ours(uint64_t key, const uint64_t *keys, size_t n_keys)
{
	/* a key of 0 is no registration (SPC-4 5.13.7): never "ours" */
	for (size_t i = 0; key != 0 && keys && i < n_keys; i++)
		if (keys[i] == key)
			return true;
	return false;
}

int prin_parse_full_status(const uint8_t *buf, size_t len, const PrinIdentity *ids, size_t n_ids,
                           const uint64_t *keys, size_t n_keys, PrinStatus *ret)
{
	PrinStatus st = { .full_status = true };
	size_t body, off;
	int r;

	assert_return(ret, -EINVAL);
	assert_return(ids || n_ids == 0, -EINVAL);
	assert_return(keys || n_keys == 0, -EINVAL);

	r = prin_body(buf, len, &st.generation, &body);
	if (r < 0)
		return r;
	for (off = 0; off < body;) {
		const uint8_t *d = buf + PRIN_HEADER_LEN + off;
		size_t left = body - off, tid_len;
		PrinTransportId tid;
		uint64_t key;
		bool us, holder;

		/* SPC-4 6.16.5 table 222: ADDITIONAL DESCRIPTOR LENGTH excludes the 24 bytes */
		if (left < PRIN_FULL_DESC_LEN)
			return -EBADMSG;
		tid_len = unaligned_read_be32(d + 20);
		if (tid_len > left - PRIN_FULL_DESC_LEN)
			return -EBADMSG;
		r = prin_parse_transport_id(d + PRIN_FULL_DESC_LEN, tid_len, &tid);
		if (r < 0)
			return r;
		key = unaligned_read_be64(d);
		us = key_is_ours(key, keys, n_keys);
		for (size_t i = 0; i < n_ids && !us; i++)
			us = prin_transport_id_is(&tid, &ids[i]);
		holder = d[12] & 0x01; /* R_HOLDER */
		if (st.n_keys < UINT32_MAX)
			st.n_keys++;
		st.registered_us |= us;
		if (holder) {
			st.reserved = true;
			st.type = d[13] & 0x0f;
			st.holder_us |= us;
			/* all registrants types: every registrant has R_HOLDER; name the first */
			if (!st.holder_known) {
				st.holder_known = true;
				st.holder = tid;
				st.holder_key = key;
			}
		}
		off += PRIN_FULL_DESC_LEN + tid_len;
	}
	*ret = st;
	return 0;
}

int prin_parse_keys_reservation(const uint8_t *kbuf, size_t klen, const uint8_t *rbuf, size_t rlen,
                                const uint64_t *keys, size_t n_keys, PrinStatus *ret)
{
	PrinStatus st = {};
	uint32_t rgen;
	size_t body;
	int r;

	assert_return(ret, -EINVAL);
	assert_return(keys || n_keys == 0, -EINVAL);

	/* SPC-4 6.16.2: a list of 8-byte keys */
	r = prin_body(kbuf, klen, &st.generation, &body);
	if (r < 0)
		return r;
	if (body % 8 != 0)
		return -EBADMSG;
	st.n_keys = (unsigned)MIN(body / 8, (size_t)UINT32_MAX);
	for (size_t off = 0; off < body; off += 8)
		st.registered_us |= key_is_ours(unaligned_read_be64(kbuf + PRIN_HEADER_LEN + off),
		                                keys, n_keys);

	/* SPC-4 6.16.3: no reservation (ADDITIONAL LENGTH 0), or one 16-byte descriptor */
	r = prin_body(rbuf, rlen, &rgen, &body);
	if (r < 0)
		return r;
	if (body != 0 && body < 16)
		return -EBADMSG;
	if (body >= 16) {
		const uint8_t *d = rbuf + PRIN_HEADER_LEN;

		st.reserved = true;
		st.holder_key = unaligned_read_be64(d);
		st.type = d[13] & 0x0f;
		st.holder_us = prin_type_all_registrants(st.type)
		                       ? st.registered_us
		                       : key_is_ours(st.holder_key, keys, n_keys);
	}
	*ret = st;
	return 0;
}

int prin_describe(const PrinStatus *st, char *s, size_t size)
{
	/* the longest: an iSCSI name, its type and key: 263 bytes */
	char who[PRIN_DESCRIBE_MAX - 32], tname[16];
	const char *type;
	int w;

	assert_return(st, -EINVAL);
	assert_return(s && size > 0, -EINVAL);

	if (st->n_keys == 0 && !st->reserved) {
		w = snprintf(s, size, "none");
		return w >= 0 && (size_t)w < size ? 0 : -ENOBUFS;
	}
	type = prin_type_name(st->type);
	if (!type) {
		snprintf(tname, sizeof(tname), "type 0x%x", st->type);
		type = tname;
	}
	if (!st->reserved)
		snprintf(who, sizeof(who), "no reservation");
	else if (st->holder_us)
		snprintf(who, sizeof(who), "%s held by this host", type);
	else if (st->holder_known) {
		char tid[PRIN_ISCSI_NAME_MAX + 1];

		if (prin_format_transport_id(&st->holder, tid, sizeof(tid)) < 0)
			snprintf(tid, sizeof(tid), "?");
		snprintf(who, sizeof(who), "%s held by %s (key 0x%" PRIx64 ")", type, tid,
		         st->holder_key);
	} else
		snprintf(who, sizeof(who), "%s held by key 0x%" PRIx64, type, st->holder_key);
	w = snprintf(s, size, "%u key%s%s, %s", st->n_keys, st->n_keys == 1 ? "" : "s",
	             st->registered_us ? " (this host)" : "", who);
	return w >= 0 && (size_t)w < size ? 0 : -ENOBUFS;
}
