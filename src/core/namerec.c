/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "macro.h"
#include "namerec.h"

static const char *const state_names[_NAMEREC_STATE_MAX] = {
	[NAMEREC_NAME] = "name",
	[NAMEREC_ALIAS] = "alias",
};

static const char *const change_names[_NAMECHANGE_KIND_MAX] = {
	[NAMECHANGE_ADDED] = "added",
	[NAMECHANGE_REMOVED] = "removed",
	[NAMECHANGE_RETARGETED] = "retargeted",
};

DEFINE_NAME_LOOKUP(namerec_state_name, NameRecState, state_names)
DEFINE_NAME_LOOKUP(namechange_kind_name, NameChangeKind, change_names)

static NameRecState state_from_string(const char *s, size_t len)
{
	for (size_t i = 0; i < ELEMENTSOF(state_names); i++)
		if (strlen(state_names[i]) == len && strneq(state_names[i], s, len))
			return (NameRecState)i;
	return _NAMEREC_STATE_INVALID;
}

static void rec_done(NameRec *r)
{
	free(r->identity);
	free(r->name);
	r->identity = r->name = NULL;
}

void namerec_set_done(NameRecSet *s)
{
	for (size_t i = 0; i < s->n; i++)
		rec_done(&s->rec[i]);
	free(s->rec);
	*s = (NameRecSet){};
}

static bool identity_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == ':' || c == '-';
}

static bool identity_valid_n(const char *s, size_t len)
{
	if (len == 0 || len > NAMEREC_IDENTITY_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!identity_char(s[i]))
			return false;
	return true;
}

/* Printable ASCII without blanks; relative; no empty, "." or ".." component. */
static bool name_valid_n(const char *s, size_t len)
{
	size_t comp = 0;

	if (len == 0 || len > NAMEREC_NAME_MAX || s[0] == '/' || s[len - 1] == '/')
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || s[i] == '/') {
			const char *c = s + i - comp;

			if (comp == 0 || (comp == 1 && c[0] == '.') ||
			    (comp == 2 && c[0] == '.' && c[1] == '.'))
				return false;
			comp = 0;
			continue;
		}
		if (s[i] <= ' ' || s[i] > '~')
			return false;
		comp++;
	}
	return true;
}

bool namerec_identity_valid(const char *identity)
{
	return identity && identity_valid_n(identity, strlen(identity));
}

bool namerec_name_valid(const char *name)
{
	return name && name_valid_n(name, strlen(name));
}

static int set_add_n(NameRecSet *s, const char *identity, size_t ilen, const char *name,
                     size_t nlen, NameRecState state)
{
	_cleanup_free_ char *i = NULL, *n = NULL;

	if (!identity_valid_n(identity, ilen) || !name_valid_n(name, nlen) ||
	    !namerec_state_name(state))
		return -EINVAL;
	if (GREEDY_REALLOC(s->rec, s->n_alloc, s->n + 1) < 0)
		return -ENOMEM;
	i = strndup(identity, ilen);
	n = strndup(name, nlen);
	if (!i || !n)
		return -ENOMEM;
	s->rec[s->n] = (NameRec){
		.identity = TAKE_PTR(i), .name = TAKE_PTR(n), .state = state, .seq = s->n
	};
	s->n++;
	return 0;
}

int namerec_set_add(NameRecSet *s, const char *identity, const char *name, NameRecState state)
{
	if (!identity || !name)
		return -EINVAL;
	return set_add_n(s, identity, strlen(identity), name, strlen(name), state);
}

static int rec_cmp(const void *a, const void *b)
{
	const NameRec *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : CMP(x->seq, y->seq);
}

size_t namerec_set_sort(NameRecSet *s)
{
	size_t w = 0, dropped = 0;

	if (s->n == 0)
		return 0;
	qsort(s->rec, s->n, sizeof(NameRec), rec_cmp);
	/* Of a run of one name the last (latest added) stays. */
	for (size_t i = 0; i < s->n; i++) {
		if (i + 1 < s->n && streq(s->rec[i].name, s->rec[i + 1].name)) {
			rec_done(&s->rec[i]);
			dropped++;
			continue;
		}
		s->rec[w] = s->rec[i];
		s->rec[w].seq = w;
		w++;
	}
	s->n = w;
	return dropped;
}

static int find_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const NameRec *)elem)->name);
}

const NameRec *namerec_set_find(const NameRecSet *s, const char *name)
{
	if (s->n == 0)
		return NULL;
	return bsearch(name, s->rec, s->n, sizeof(NameRec), find_cmp);
}

/* One record line, without its '\n': three fields separated by single spaces. */
static int parse_line(NameRecSet *s, const char *l, size_t len)
{
	const char *sp1 = memchr(l, ' ', len), *sp2;
	NameRecState st;
	int r;

	if (!sp1)
		return -EBADMSG;
	sp2 = memchr(sp1 + 1, ' ', len - (size_t)(sp1 + 1 - l));
	if (!sp2)
		return -EBADMSG;
	st = state_from_string(sp1 + 1, (size_t)(sp2 - sp1 - 1));
	if (st < 0)
		return -EBADMSG;
	r = set_add_n(s, l, (size_t)(sp1 - l), sp2 + 1, len - (size_t)(sp2 + 1 - l), st);
	return r == -ENOMEM ? r : r < 0 ? -EBADMSG : 0;
}

/* FNV-1a, 64 bits, of @len bytes at @p. */
static uint64_t sum64(const char *p, size_t len)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)p[i]) * UINT64_C(1099511628211);
	return h;
}

/* The checksum line of the @pos bytes before it at @buf ("#sum <16 hex>"): -EBADE when it
 * does not match or is malformed. */
static int sum_check(const char *buf, size_t pos, const char *l, size_t ll)
{
	size_t pl = strlen(NAMEREC_SUM_PREFIX);
	char want[17];

	if (ll != pl + 16)
		return -EBADE;
	(void)snprintf(want, sizeof(want), "%016" PRIx64, sum64(buf, pos));
	return memcmp(l + pl, want, 16) == 0 ? 0 : -EBADE;
}

int namerec_parse(const char *buf, size_t len, NameRecSet *ret, size_t *ret_bad)
{
	_cleanup_(namerec_set_done) NameRecSet s = {};
	size_t bad = 0, pos = 0, mlen = strlen(NAMEREC_MAGIC);
	bool header = false;

	if (len > NAMEREC_FILE_MAX)
		return -EFBIG;
	while (pos < len) {
		const char *l = buf + pos, *nl = memchr(l, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - l) : len - pos;
		int r;

		pos += ll + (nl ? 1 : 0);
		if (!header) {
			if (ll != mlen || !strneq(l, NAMEREC_MAGIC, mlen))
				return -EBADMSG;
			header = true;
			continue;
		}
		if (ll >= strlen(NAMEREC_SUM_PREFIX) &&
		    strneq(l, NAMEREC_SUM_PREFIX, strlen(NAMEREC_SUM_PREFIX))) {
			/* the last line, or the file is not what lund wrote */
			if (!nl || pos != len || sum_check(buf, (size_t)(l - buf), l, ll) < 0)
				return -EBADE;
			continue;
		}
		if (ll == 0 || l[0] == '#')
			continue;
		/* A last line without its '\n' was cut short by a crash during a write. */
		if (!nl) {
			bad++;
			break;
		}
		r = parse_line(&s, l, ll);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			bad++;
	}
	if (!header)
		return -EBADMSG;
	bad += namerec_set_sort(&s);
	*ret = TAKE_STRUCT(s);
	*ret_bad = bad;
	return 0;
}

int namerec_format(const NameRecSet *s, char **ret, size_t *ret_len)
{
	_cleanup_free_ const NameRec **v = NULL;
	_cleanup_free_ char *out = NULL;
	size_t len = strlen(NAMEREC_MAGIC) + 1 + strlen(NAMEREC_SUM_PREFIX) + 17, pos;

	v = calloc(s->n ? s->n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		const NameRec *r = &s->rec[i];

		if (!namerec_identity_valid(r->identity) || !namerec_name_valid(r->name) ||
		    !namerec_state_name(r->state))
			return -EINVAL;
		/* bounded: each field is checked against its maximum above */
		len += strlen(r->identity) + strlen(namerec_state_name(r->state)) +
		       strlen(r->name) + 3;
		v[i] = r;
	}
	out = malloc(len + 1);
	if (!out)
		return -ENOMEM;
	pos = (size_t)sprintf(out, "%s\n", NAMEREC_MAGIC);
	for (size_t i = 0; i < s->n; i++)
		pos += (size_t)sprintf(out + pos, "%s %s %s\n", v[i]->identity,
		                       namerec_state_name(v[i]->state), v[i]->name);
	pos += (size_t)sprintf(out + pos, "%s%016" PRIx64 "\n", NAMEREC_SUM_PREFIX,
	                       sum64(out, pos));
	*ret_len = pos;
	*ret = TAKE_PTR(out);
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Identities as a sorted array without repeats; pointers into a set. */
typedef struct Ids {
	const char **v;
	size_t n;
} Ids;

static void ids_done(Ids *ids)
{
	free(ids->v);
}

static int ids_of(const NameRecSet *s, Ids *ret)
{
	const char **v = calloc(s->n ? s->n : 1, sizeof(char *));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		v[i] = s->rec[i].identity;
	qsort(v, s->n, sizeof(char *), str_cmp);
	for (size_t i = 0; i < s->n; i++)
		if (n == 0 || !streq(v[n - 1], v[i]))
			v[n++] = v[i];
	*ret = (Ids){ v, n };
	return 0;
}

/* Whether @id has a name in the set @ids came from (is attached now). */
static bool attached(const Ids *ids, const char *id)
{
	return ids->n > 0 && bsearch(&id, ids->v, ids->n, sizeof(char *), str_cmp);
}

static bool wanted(const char *only, const char *a, const char *b)
{
	return !only || (a && streq(only, a)) || (b && streq(only, b));
}

int namerec_diff(const NameRecSet *recorded, const NameRecSet *current, const char *only_identity,
                 NameChange **ret, size_t *ret_n)
{
	_cleanup_(ids_done) Ids ids = {};
	_cleanup_free_ NameChange *v = NULL;
	size_t n = 0, i = 0, k = 0;
	int r;

	r = ids_of(current, &ids);
	if (r < 0)
		return r;
	v = calloc(recorded->n + current->n + 1, sizeof(NameChange));
	if (!v)
		return -ENOMEM;
	/* Both sets are sorted by name: one merge walk. */
	while (i < recorded->n || k < current->n) {
		const NameRec *o = i < recorded->n ? &recorded->rec[i] : NULL;
		const NameRec *c = k < current->n ? &current->rec[k] : NULL;
		int cmp = !o ? 1 : !c ? -1 : strcmp(o->name, c->name);
		NameChange ch = { _NAMECHANGE_KIND_INVALID };

		if (cmp < 0) {
			if (attached(&ids, o->identity))
				ch = (NameChange){ NAMECHANGE_REMOVED, o->name, o->identity, NULL };
			i++;
		} else if (cmp > 0) {
			ch = (NameChange){ NAMECHANGE_ADDED, c->name, NULL, c->identity };
			k++;
		} else {
			if (!streq(o->identity, c->identity))
				ch = (NameChange){ NAMECHANGE_RETARGETED, c->name, o->identity,
					           c->identity };
			i++;
			k++;
		}
		if (ch.kind >= 0 && wanted(only_identity, ch.old_identity, ch.new_identity))
			v[n++] = ch;
	}
	*ret_n = n;
	*ret = n > 0 ? TAKE_PTR(v) : NULL;
	return 0;
}

/*
 * accept (@keep false): a record stays unless its identity is accepted (@only, NULL: all) and
 * attached, or its name now goes to an accepted identity; the accepted identities then have
 * exactly their current names. keep: a record stays unless @current gives its name, as an alias
 * when its identity is attached; every current name is added.
 */
static int merge(const NameRecSet *recorded, const NameRecSet *current, const char *only, bool keep,
                 NameRecSet *ret)
{
	_cleanup_(namerec_set_done) NameRecSet s = {};
	_cleanup_(ids_done) Ids ids = {};
	int r;

	r = ids_of(current, &ids);
	if (r < 0)
		return r;
	for (size_t i = 0; i < recorded->n; i++) {
		const NameRec *o = &recorded->rec[i], *c = namerec_set_find(current, o->name);
		bool att = attached(&ids, o->identity);

		if (c && (keep || wanted(only, c->identity, NULL)))
			continue;
		if (att && !keep && wanted(only, o->identity, NULL))
			continue;
		r = namerec_set_add(&s, o->identity, o->name,
		                    att && keep ? NAMEREC_ALIAS : o->state);
		if (r < 0)
			return r;
	}
	for (size_t k = 0; k < current->n; k++) {
		const NameRec *c = &current->rec[k];

		if (!wanted(only, c->identity, NULL))
			continue;
		r = namerec_set_add(&s, c->identity, c->name, NAMEREC_NAME);
		if (r < 0)
			return r;
	}
	namerec_set_sort(&s);
	*ret = TAKE_STRUCT(s);
	return 0;
}

int namerec_accept(const NameRecSet *recorded, const NameRecSet *current, const char *only_identity,
                   NameRecSet *ret)
{
	return merge(recorded, current, only_identity, false, ret);
}

int namerec_keep(const NameRecSet *recorded, const NameRecSet *current, NameRecSet *ret)
{
	return merge(recorded, current, NULL, true, ret);
}
