/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "clock.h"
#include "config.h"
#include "macro.h"

/* A reply line is never longer than the daemon's per-client backlog. */
#define CLIENT_LINE_MAX (16u * 1024u * 1024u)

struct LundClient {
	int fd;
	char *buf;
	size_t len, size;
	uint64_t deadline; /* CLOCK_MONOTONIC usec; 0: wait as long as it takes */
};

static uint64_t timeout_override; /* lunctl --timeout; 0: the built-in defaults */

void lund_client_set_timeout(uint64_t usec)
{
	timeout_override = usec;
}

uint64_t lund_client_timeout(bool slow)
{
	if (timeout_override)
		return timeout_override;
	return slow ? LUND_CLIENT_SLOW_TIMEOUT_USEC : LUND_CLIENT_TIMEOUT_USEC;
}

/* Wait for @events on @fd until @deadline (0: forever). 0 when ready, -ETIMEDOUT, -errno. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		uint64_t now = clock_now_usec(CLOCK_MONOTONIC);
		int ms = -1, k;

		if (deadline) {
			if (now >= deadline)
				return -ETIMEDOUT;
			ms = (int)MIN((deadline - now + 999) / 1000, (uint64_t)INT32_MAX);
		}
		k = poll(&p, 1, ms);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k > 0)
			return 0;
	}
}

int lund_errno_from_name(const char *name)
{
	static const struct {
		const char *name;
		int e;
	} table[] = {
		{ "ENOENT", ENOENT },         { "EINVAL", EINVAL },
		{ "EOPNOTSUPP", EOPNOTSUPP }, { "EBADMSG", EBADMSG },
		{ "EPERM", EPERM },           { "EACCES", EACCES },
		{ "ENOMEM", ENOMEM },         { "EBUSY", EBUSY },
		{ "EAGAIN", EAGAIN },         { "ENODEV", ENODEV },
		{ "EEXIST", EEXIST },         { "ENOBUFS", ENOBUFS },
		{ "EMSGSIZE", EMSGSIZE },     { "ENOTSUP", ENOTSUP },
		{ "ENXIO", ENXIO },           { "ETIMEDOUT", ETIMEDOUT },
		{ "ECANCELED", ECANCELED },   { "EIO", EIO },
		{ "EUSERS", EUSERS },
	};

	if (name)
		for (size_t i = 0; i < ELEMENTSOF(table); i++)
			if (streq(name, table[i].name))
				return table[i].e;
	return EIO;
}

int lund_client_connect(const char *run_dir, LundClient **ret)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -EBADF;
	uint64_t deadline;
	LundClient *c;
	int n;

	if (!run_dir)
		run_dir = getenv("LUND_RUN_DIR");
	if (!run_dir || !*run_dir)
		run_dir = LUND_RUNDIR;
	n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/control", run_dir);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;

	/* Non-blocking throughout: every wait is a poll() bounded by the call's deadline. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	deadline = clock_now_usec(CLOCK_MONOTONIC) + lund_client_timeout(false);
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		/* A full listen backlog: EAGAIN on a UNIX socket, until lund accepts. */
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		if (clock_now_usec(CLOCK_MONOTONIC) >= deadline)
			return -ETIMEDOUT;
		usleep(10000);
	}

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = TAKE_FD(fd);
	*ret = c;
	return 0;
}

LundClient *lund_client_free(LundClient *c)
{
	if (!c)
		return NULL;
	safe_close(c->fd);
	free(c->buf);
	free(c);
	return NULL;
}

static int send_all(int fd, const char *p, size_t n, uint64_t deadline)
{
	while (n > 0) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				int r = wait_fd(fd, POLLOUT, deadline);

				if (r < 0)
					return r;
				continue;
			}
			return -errno;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int lund_client_read(LundClient *c, json_object **ret)
{
	for (;;) {
		char *nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
		ssize_t k;

		if (nl) {
			size_t used = (size_t)(nl - c->buf) + 1;
			json_object *o;

			*nl = 0;
			o = json_tokener_parse(c->buf);
			memmove(c->buf, c->buf + used, c->len - used);
			c->len -= used;
			if (!o || !json_object_is_type(o, json_type_object)) {
				json_object_put(o);
				return -EBADMSG;
			}
			*ret = o;
			return 1;
		}
		if (c->len >= CLIENT_LINE_MAX)
			return -EMSGSIZE;
		if (c->size - c->len < 65536) {
			size_t size = c->size ? c->size * 2 : 65536;
			char *b = realloc(c->buf, size);

			if (!b)
				return -ENOMEM;
			c->buf = b;
			c->size = size;
		}
		k = recv(c->fd, c->buf + c->len, c->size - c->len, 0);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				int r = wait_fd(c->fd, POLLIN, c->deadline);

				if (r < 0)
					return r;
				continue;
			}
			return -errno;
		}
		if (k == 0)
			return c->len ? -EBADMSG : 0; /* a truncated last line is malformed */
		c->len += (size_t)k;
	}
}

int lund_client_call_progress(LundClient *c, json_object *request, LundProgressFn progress,
                              void *userdata, json_object **ret_reply)
{
	const char *text = json_object_to_json_string_ext(
	        request, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	_cleanup_free_ char *line = NULL;
	json_object *reply = NULL, *ok = NULL, *err = NULL, *p = NULL;
	int r;

	if (!text || asprintf(&line, "%s\n", text) < 0)
		return -ENOMEM;
	/* The whole exchange is bounded; each progress note proves lund alive and restarts the
	 * clock. The reply read, the deadline is lifted again (the monitor stream has none). */
	c->deadline = clock_now_usec(CLOCK_MONOTONIC) + lund_client_timeout(progress != NULL);
	r = send_all(c->fd, line, strlen(line), c->deadline);
	/* lund refuses a peer with one error reply and closes: that reply, not EPIPE, is the
	 * answer (lund(8), CONTROL PROTOCOL). */
	if (r < 0 && r != -EPIPE && r != -ECONNRESET)
		return r;
	for (;;) {
		int k = lund_client_read(c, &reply);

		if (k <= 0) {
			c->deadline = 0;
			return k == -ETIMEDOUT ? k : r < 0 ? r : k < 0 ? k : -ECONNRESET;
		}
		r = 0;
		/* Progress notes come before the reply; without a callback they are skipped. */
		if (!json_object_object_get_ex(reply, "progress", &p))
			break;
		c->deadline =
		        clock_now_usec(CLOCK_MONOTONIC) + lund_client_timeout(progress != NULL);
		if (progress)
			progress(p, userdata);
		json_object_put(reply);
	}
	c->deadline = 0;
	if (!json_object_object_get_ex(reply, "ok", &ok) || !json_object_get_boolean(ok)) {
		r = -EIO;
		if (json_object_object_get_ex(reply, "error", &err))
			r = -lund_errno_from_name(json_object_get_string(err));
	} else
		r = 0;
	if (ret_reply)
		*ret_reply = reply;
	else
		json_object_put(reply);
	return r;
}

int lund_client_call(LundClient *c, json_object *request, json_object **ret_reply)
{
	return lund_client_call_progress(c, request, NULL, NULL, ret_reply);
}
