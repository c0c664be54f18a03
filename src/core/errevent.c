/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <assert.h>
#include <string.h>

#include "errevent.h"
#include "macro.h"

#define SDEV_ERROR_PREFIX     "SDEV_ERROR"
#define SDEV_ERROR_PREFIX_LEN (sizeof(SDEV_ERROR_PREFIX) - 1)

static const char *const errclass_table[_ERRCLASS_MAX] = {
	[ERRCLASS_TRANSPORT] = "transport", [ERRCLASS_TIMEOUT] = "timeout",
	[ERRCLASS_TARGET] = "target",       [ERRCLASS_NEXUS] = "nexus",
	[ERRCLASS_MEDIUM] = "medium",       [ERRCLASS_PROTECTION] = "protection",
	[ERRCLASS_SPACE] = "space",         [ERRCLASS_DEVICE] = "device",
	[ERRCLASS_DRIVER] = "driver",
};

const char *errclass_to_string(ErrClass c)
{
	if (c < 0 || c >= _ERRCLASS_MAX)
		return NULL;
	return errclass_table[c];
}

ErrClass errclass_from_string(const char *s)
{
	if (!s)
		return _ERRCLASS_INVALID;
	for (size_t i = 0; i < ELEMENTSOF(errclass_table); i++)
		if (streq(s, errclass_table[i]))
			return (ErrClass)i;
	return _ERRCLASS_INVALID;
}

bool errclass_name_valid(const char *s, size_t len)
{
	if (!s || len == 0 || len > ERRCLASS_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      s[i] == '-'))
			return false;
	return true;
}

void errclass_table_init(ErrClassTable *t)
{
	assert(t);
	*t = (ErrClassTable){ .n = _ERRCLASS_MAX };
	for (ErrClass c = 0; c < _ERRCLASS_MAX; c++)
		strcpy(t->names[c], errclass_table[c]);
}

int errclass_table_intern(ErrClassTable *t, const char *name, size_t len)
{
	assert_return(t, -EINVAL);

	if (!errclass_name_valid(name, len))
		return -EBADMSG;
	for (unsigned i = 0; i < t->n; i++)
		if (strlen(t->names[i]) == len && memcmp(t->names[i], name, len) == 0)
			return (int)i;
	if (t->n >= ERRCLASS_TABLE_MAX)
		return -ENOBUFS;
	memcpy(t->names[t->n], name, len);
	t->names[t->n][len] = 0;
	return (int)t->n++;
}

const char *errclass_table_name(const ErrClassTable *t, unsigned id)
{
	return t && id < t->n ? t->names[id] : NULL;
}

/* The keys this parser knows; every one is required (the kernel always sends all of them). */
typedef enum ErrKey {
	KEY_ERROR,
	KEY_CLASS,
	KEY_RETRY,
	KEY_RETRYABLE,
	KEY_ERRNO,
	KEY_RESULT,
	KEY_STATUS,
	KEY_SK,
	KEY_ASC,
	KEY_ASCQ,
	KEY_OPCODE,
	KEY_SECTOR,
	KEY_SUPPRESSED,
	_KEY_MAX,
} ErrKey;

static const struct {
	const char *name;
	uint64_t min, max; /* range of a numeric value; unused for the class */
} errkeys[_KEY_MAX] = {
	[KEY_ERROR] = { "SDEV_ERROR", 1, 1 },
	[KEY_CLASS] = { "SDEV_ERROR_CLASS", 0, 0 },
	[KEY_RETRY] = { "SDEV_ERROR_RETRY", 0, UINT8_MAX },
	[KEY_RETRYABLE] = { "SDEV_ERROR_RETRYABLE", 0, 1 },
	[KEY_ERRNO] = { "SDEV_ERROR_ERRNO", 1, 4095 }, /* MAX_ERRNO */
	[KEY_RESULT] = { "SDEV_ERROR_RESULT", 0, UINT8_MAX },
	[KEY_STATUS] = { "SDEV_ERROR_STATUS", 0, UINT8_MAX },
	[KEY_SK] = { "SDEV_ERROR_SK", 0, 0xf }, /* SPC: SENSE KEY is 4 bits */
	[KEY_ASC] = { "SDEV_ERROR_ASC", 0, UINT8_MAX },
	[KEY_ASCQ] = { "SDEV_ERROR_ASCQ", 0, UINT8_MAX },
	[KEY_OPCODE] = { "SDEV_ERROR_OPCODE", 0, UINT8_MAX },
	[KEY_SECTOR] = { "SDEV_ERROR_SECTOR", 0, UINT64_MAX },
	[KEY_SUPPRESSED] = { "SDEV_ERROR_SUPPRESSED", 0, UINT32_MAX },
};

/* Plain decimal: 1..ERREVENT_VALUE_MAX digits, no sign, no blanks, no leading zero. */
static int parse_decimal(const char *s, size_t len, uint64_t min, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;

	if (len == 0 || len > ERREVENT_VALUE_MAX)
		return -EBADMSG;
	if (s[0] == '0' && len > 1)
		return -EBADMSG;
	for (size_t i = 0; i < len; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return -EBADMSG;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -EBADMSG;
		v = v * 10 + d;
	}
	if (v < min || v > max)
		return -EBADMSG;
	*ret = v;
	return 0;
}

int errevent_parse(const char *const *props, size_t n, ErrEvent *ret)
{
	uint64_t val[_KEY_MAX] = {};
	bool seen[_KEY_MAX] = {};
	char class_name[ERRCLASS_NAME_MAX + 1] = "";
	ErrEvent e;

	assert_return(props || n == 0, -EINVAL);
	assert_return(ret, -EINVAL);

	if (n > ERREVENT_PROPS_MAX)
		return -EBADMSG;

	for (size_t i = 0; i < n; i++) {
		const char *p = props[i], *eq, *v;
		size_t len, klen, vlen;
		ErrKey k;

		if (!p)
			return -EBADMSG;
		len = strnlen(p, ERREVENT_LINE_MAX + 1);
		if (len > ERREVENT_LINE_MAX)
			return -EBADMSG;
		eq = memchr(p, '=', len);
		if (!eq || eq == p)
			return -EBADMSG;
		klen = (size_t)(eq - p);
		if (klen < SDEV_ERROR_PREFIX_LEN ||
		    memcmp(p, SDEV_ERROR_PREFIX, SDEV_ERROR_PREFIX_LEN) != 0)
			continue;

		for (k = 0; k < _KEY_MAX; k++)
			if (strlen(errkeys[k].name) == klen &&
			    memcmp(p, errkeys[k].name, klen) == 0)
				break;
		if (k == _KEY_MAX)
			continue; /* a newer kernel's key */
		if (seen[k])
			return -EBADMSG;
		seen[k] = true;

		v = eq + 1;
		vlen = len - klen - 1;
		if (k == KEY_CLASS) {
			/* a class lund does not know is still the kernel's word for it */
			if (!errclass_name_valid(v, vlen))
				return -EBADMSG;
			memcpy(class_name, v, vlen);
			class_name[vlen] = 0;
			continue;
		}
		if (parse_decimal(v, vlen, errkeys[k].min, errkeys[k].max, &val[k]) < 0)
			return -EBADMSG;
	}

	if (!seen[KEY_ERROR])
		return -ENODATA;
	for (ErrKey k = 0; k < _KEY_MAX; k++)
		if (!seen[k])
			return -EBADMSG;

	e = (ErrEvent){
		.class = errclass_from_string(class_name),
		.retry = (uint8_t)val[KEY_RETRY],
		.retryable = val[KEY_RETRYABLE] != 0,
		.error = (int)val[KEY_ERRNO],
		.result = (uint8_t)val[KEY_RESULT],
		.status = (uint8_t)val[KEY_STATUS],
		.sk = (uint8_t)val[KEY_SK],
		.asc = (uint8_t)val[KEY_ASC],
		.ascq = (uint8_t)val[KEY_ASCQ],
		.opcode = (uint8_t)val[KEY_OPCODE],
		.sector = val[KEY_SECTOR],
		.suppressed = (uint32_t)val[KEY_SUPPRESSED],
	};
	memcpy(e.class_name, class_name, sizeof(e.class_name));
	*ret = e;
	return 0;
}
