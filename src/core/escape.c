/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * udev's string helpers as systemd v252 behaves (src/shared/udev-util.c,
 * src/shared/device-nodes.c, src/basic/utf8.c), rewritten without silent truncation.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "escape.h"
#include "macro.h"
#include "utf8.h"

static const char hexdigits[] = "0123456789abcdef";

/* C-locale isspace(): udev calls isspace() on plain char, which for bytes >= 0x80 is false. */
static bool c_isspace(uint8_t c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

bool udev_char_allowed(uint8_t c, const char *extra)
{
	if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
		return true;
	switch (c) { /* asked for every byte of every exported value: no strchr() */
	case '#':
	case '+':
	case '-':
	case '.':
	case ':':
	case '=':
	case '@':
	case '_':
		return true;
	}
	return extra && c != '\0' && strchr(extra, c);
}

int udev_encode_string(const uint8_t *s, size_t len, char *out, size_t size)
{
	size_t n = 0, i, j;

	assert_return(s || len == 0, -EINVAL);
	assert_return(out, -EINVAL);

	/* First pass: the length, so that nothing is written when it does not fit. */
	for (i = 0; i < len && s[i] != '\0';) {
		int l = utf8_valid_char(s + i, len - i);

		if (l > 1) {
			n += (size_t)l;
			i += (size_t)l;
		} else {
			n += (s[i] == '\\' || !udev_char_allowed(s[i], NULL)) ? 4 : 1;
			i++;
		}
	}
	if (n + 1 > size)
		return -ENOBUFS;

	for (i = 0, j = 0; i < len && s[i] != '\0';) {
		int l = utf8_valid_char(s + i, len - i);

		if (l > 1) {
			memcpy(out + j, s + i, (size_t)l);
			j += (size_t)l;
			i += (size_t)l;
		} else if (s[i] == '\\' || !udev_char_allowed(s[i], NULL)) {
			out[j++] = '\\';
			out[j++] = 'x';
			out[j++] = hexdigits[s[i] >> 4];
			out[j++] = hexdigits[s[i] & 0xf];
			i++;
		} else
			out[j++] = (char)s[i++];
	}
	out[j] = '\0';
	return (int)j;
}

int udev_replace_whitespace(const char *s, size_t max, char *out, size_t size)
{
	const uint8_t *u = (const uint8_t *)s;
	bool pending = false;
	size_t i, j;

	assert_return(s && out, -EINVAL);
	if (size < max + 1)
		return -ENOBUFS;

	/* v252 skips leading " \t\n\r" only (strspn(WHITESPACE)), but then treats every
	 * isspace() byte, \v and \f included, as whitespace. The @max bound applies to the input
	 * position, leading whitespace included. */
	i = strspn(s, " \t\n\r");
	for (j = 0; j < max && i < max && u[i] != '\0'; i++) {
		if (c_isspace(u[i])) {
			pending = true;
			continue;
		}
		if (pending) {
			if (j + 1 >= max)
				break;
			out[j++] = '_';
			pending = false;
		}
		out[j++] = (char)u[i];
	}
	out[j] = '\0';
	return (int)j;
}

size_t udev_replace_chars(char *s, const char *extra)
{
	uint8_t *u = (uint8_t *)s;
	size_t i = 0, replaced = 0;

	if (!s)
		return 0;
	while (u[i] != '\0') {
		int l;

		if (udev_char_allowed(u[i], extra)) {
			i++;
			continue;
		}
		/* Already hex-escaped text ("\x") is left alone. */
		if (u[i] == '\\' && u[i + 1] == 'x') {
			i += 2;
			continue;
		}
		l = utf8_valid_char(u + i, SIZE_MAX);
		if (l > 1) {
			i += (size_t)l;
			continue;
		}
		if (c_isspace(u[i]) && extra && strchr(extra, ' '))
			u[i] = ' ';
		else
			u[i] = '_';
		i++;
		replaced++;
	}
	return replaced;
}

/* escape_value() keeps valid UTF-8 but never control characters, whatever their encoding
 * (utf8_valid_char() accepts U+0080..U+009F as two-byte sequences; JSON and terminals
 * would not thank us, but udev keeps them too, so they stay: only C0 and DEL are escaped). */
static size_t value_step(const uint8_t *s, size_t len, size_t i, bool *ret_escape)
{
	int l;

	if (s[i] < 0x20 || s[i] == 0x7f) {
		*ret_escape = true;
		return 1;
	}
	if (s[i] < 0x80) {
		*ret_escape = false;
		return 1;
	}
	l = utf8_valid_char(s + i, len - i);
	if (l > 1) {
		*ret_escape = false;
		return (size_t)l;
	}
	*ret_escape = true;
	return 1;
}

bool escape_value_needed(const uint8_t *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		bool esc;

		i += value_step(s, len, i, &esc);
		if (esc)
			return true;
	}
	return false;
}

int escape_value(const uint8_t *s, size_t len, char *out, size_t size)
{
	size_t n = 0, i, j;

	assert_return(s || len == 0, -EINVAL);
	assert_return(out, -EINVAL);

	for (i = 0; i < len;) {
		bool esc;
		size_t l = value_step(s, len, i, &esc);

		n += esc ? 4 : l;
		i += l;
	}
	if (n + 1 > size)
		return -ENOBUFS;

	for (i = 0, j = 0; i < len;) {
		bool esc;
		size_t l = value_step(s, len, i, &esc);

		if (esc) {
			out[j++] = '\\';
			out[j++] = 'x';
			out[j++] = hexdigits[s[i] >> 4];
			out[j++] = hexdigits[s[i] & 0xf];
		} else {
			memcpy(out + j, s + i, l);
			j += l;
		}
		i += l;
	}
	out[j] = '\0';
	return (int)j;
}
