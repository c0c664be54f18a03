/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _nonnull_(...) __attribute__((nonnull(__VA_ARGS__)))
#define _must_check_   __attribute__((warn_unused_result))
#define _unused_       __attribute__((unused))
#define _cleanup_(x)   __attribute__((cleanup(x)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _fallthrough_  __attribute__((fallthrough))
#define _sentinel_     __attribute__((sentinel))

#define ELEMENTSOF(x)                                                                   \
	(__builtin_choose_expr(!__builtin_types_compatible_p(typeof(x), typeof(&*(x))), \
	                       sizeof(x) / sizeof((x)[0]), (void)0))

/* const char *func(type i): the name of enum value i in the designated-initializer table, NULL
 * for _X_INVALID and anything else outside the table. */
#define DEFINE_NAME_LOOKUP(func, type, table)                                       \
	const char *func(type i)                                                    \
	{                                                                           \
		return i >= 0 && (size_t)i < ELEMENTSOF(table) ? (table)[i] : NULL; \
	}
/* And back: @func(s) is the index of the entry of @table equal to @s, (@type)(-EINVAL) (the enum's
 * _INVALID) when none is or @s is NULL. */
#define DEFINE_NAME_PARSE(func, type, table)                        \
	type func(const char *s)                                    \
	{                                                           \
		for (size_t i = 0; s && i < ELEMENTSOF(table); i++) \
			if (streq(s, (table)[i]))                   \
				return (type)i;                     \
		return (type)(-EINVAL);                             \
	}

#define MIN(a, b)                   \
	({                          \
		typeof(a) _a = (a); \
		typeof(b) _b = (b); \
		_a < _b ? _a : _b;  \
	})
#define MAX(a, b)                   \
	({                          \
		typeof(a) _a = (a); \
		typeof(b) _b = (b); \
		_a > _b ? _a : _b;  \
	})

/* Hand ownership of a pointer or fd over: the variable is reset so cleanup does nothing. */
#define TAKE_PTR(p)                 \
	({                          \
		typeof(p) _p = (p); \
		(p) = NULL;         \
		_p;                 \
	})
/* The struct @s handed over, @s left zeroed (for a cleanup that must now find nothing). */
#define TAKE_STRUCT(s)               \
	({                           \
		typeof(s) _s = (s);  \
		(s) = (typeof(s)){}; \
		_s;                  \
	})
#define TAKE_FD(fd)             \
	({                      \
		int _fd = (fd); \
		(fd) = -EBADF;  \
		_fd;            \
	})

/* Turn a libc "-1 and errno" return into "-errno". */
static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EINVAL;
}
#define RET_NERRNO(expr)                        \
	({                                      \
		typeof(expr) _r = (expr);       \
		_r < 0 ? negative_errno() : _r; \
	})

/* Public entry points check their arguments without aborting. */
#define assert_return(expr, r)      \
	do {                        \
		if (!(expr))        \
			return (r); \
	} while (false)

static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline int safe_close(int fd)
{
	if (fd >= 0) {
		int saved = errno;
		close(fd);
		errno = saved;
	}
	return -EBADF;
}
/* write(2) all @len bytes of @buf, again after EINTR and short writes; -EIO when write() makes
 * no progress. */
static inline int loop_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

static inline void closep(int *fd)
{
	safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f)
{
	if (*f)
		(void)fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func) \
	static inline void func##p(type *p)     \
	{                                       \
		if (*p)                         \
			func(*p);               \
	}

/* -1, 0 or 1 as @a is below, equal to or above @b; chain with ?: for several keys. */
#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

#define streq(a, b)     (strcmp((a), (b)) == 0)
#define strneq(a, b, n) (strncmp((a), (b), (n)) == 0)
#define isempty(s)      (!(s) || (s)[0] == '\0')

/* Two strings equal, or both NULL. */
static inline bool streq_ptr(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return streq(a, b);
}

/* @s without its leading and trailing blanks (isspace()), cut in place. */
static inline char *strstrip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static inline void *mfree(void *p)
{
	free(p);
	return NULL;
}

/* @a and every string after it up to the NULL that ends the list, joined in one new
 * allocation; NULL when out of memory. What asprintf("%s%s...") gives, at a fraction of its
 * cost: paths built for every uevent use it. */
_sentinel_ static inline char *strjoin_internal(const char *a, ...)
{
	size_t len = strlen(a);
	const char *s;
	va_list ap;
	char *r, *p;

	va_start(ap, a);
	while ((s = va_arg(ap, const char *)))
		len += strlen(s);
	va_end(ap);

	r = malloc(len + 1);
	if (!r)
		return NULL;
	p = stpcpy(r, a);
	va_start(ap, a);
	while ((s = va_arg(ap, const char *)))
		p = stpcpy(p, s);
	va_end(ap);
	return r;
}
#define strjoin(a, ...) strjoin_internal((a), __VA_ARGS__, (const char *)NULL)

/* The same into @buf of @size bytes, for paths that need not outlive the call: false (and @buf
 * unusable) when the joined string and its NUL do not fit. */
_sentinel_ static inline bool strjoin_buf_internal(char *buf, size_t size, const char *a, ...)
{
	size_t len = 0;
	const char *s = a;
	va_list ap;

	va_start(ap, a);
	for (; s; s = va_arg(ap, const char *)) {
		size_t n = strlen(s);

		if (n >= size - len) {
			va_end(ap);
			return false;
		}
		memcpy(buf + len, s, n);
		len += n;
	}
	va_end(ap);
	buf[len] = 0;
	return true;
}
#define strjoin_buf(buf, size, a, ...) \
	strjoin_buf_internal((buf), (size), (a), __VA_ARGS__, (const char *)NULL)

/* The value of one hexadecimal digit, -1 if @c is none. */
static inline int unhexchar(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
