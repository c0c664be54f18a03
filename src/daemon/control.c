/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control-request.h"
#include "control.h"
#include "grow.h"
#include "log.h"
#include "macro.h"
#include "ratelimit.h"

/* Reads of a client's socket (4 KiB each) in one turn of the loop. */
#define CONTROL_READS_PER_WAKEUP 4

struct ControlClient {
	unsigned n_ref;
	ControlServer *server;
	ControlClient *next;
	int fd;
	sd_event_source *io;
	sd_event_source *timer; /* idle timeout; while closing, the deadline to drain */
	uid_t uid;
	pid_t pid;
	bool read_only; /* a member of the read group: read-only commands only */
	bool monitor;
	bool closing;   /* flush what is queued, then close */
	bool eof;       /* the peer sends no more */
	bool dead;      /* disconnected: off the list, fd closed, memory kept for its holders */
	bool pending;   /* a reply is deferred (control_client_reply()); later requests wait */
	bool streaming; /* the deferred reply is being written in parts (control_client_write()) */
	json_object *pending_id; /* the deferred request's "id" */
	sd_event_source *resume; /* requests that waited behind a deferred reply */
	char *in;
	size_t in_len;
	char *out;
	size_t out_len, out_off;
	size_t out_cap; /* allocated for @out: grown by doubling, so queuing is linear */
};

struct ControlServer {
	sd_event *event;
	int fd;
	char *path;
	sd_event_source *io;
	ControlHandler handler;
	void *userdata;
	ControlClient *clients;
	unsigned n_clients;
	uint64_t idle_usec;
	gid_t read_gid;      /* members may send read-only commands; (gid_t)-1: no such group */
	RateLimit log_limit; /* refusals and drops, folded when a client floods */
};

/* Every refusal and drop is logged, at most a few per interval, the rest counted. */
static void control_log_refusal(ControlServer *s, pid_t pid, uid_t uid, int error, const char *what)
{
	unsigned suppressed = 0;
	uint64_t now = 0;

	(void)sd_event_now(s->event, CLOCK_MONOTONIC, &now);
	if (!ratelimit_below(&s->log_limit, now, &suppressed))
		return;
	if (suppressed > 0)
		log_warning("control: %u similar messages suppressed", suppressed);
	log_warning_errno(error, "control: client pid %i uid %u: %s, closing its connection",
	                  (int)pid, (unsigned)uid, what);
}

ControlClient *control_client_ref(ControlClient *c)
{
	if (c)
		c->n_ref++;
	return c;
}

ControlClient *control_client_unref(ControlClient *c)
{
	if (!c || --c->n_ref > 0)
		return NULL;
	assert(c->dead);
	json_object_put(c->pending_id);
	free(c->in);
	free(c->out);
	free(c);
	return NULL;
}

/*
 * Take @c off the server and close its connection. Its memory lives on while anyone holds a
 * reference: the dispatch of its own request (on_client) holds one, so a client dropped by a
 * broadcast inside its own handler is only marked here and freed after the handler returns.
 */
static void client_disconnect(ControlClient *c)
{
	ControlServer *s = c->server;

	if (c->dead)
		return;
	c->dead = true;
	for (ControlClient **p = &s->clients; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	c->next = NULL;
	s->n_clients--;
	c->io = sd_event_source_disable_unref(c->io);
	c->timer = sd_event_source_disable_unref(c->timer);
	c->resume = sd_event_source_disable_unref(c->resume);
	c->fd = safe_close(c->fd);
	c->out_len = c->out_off = 0;
	control_client_unref(c); /* the server's reference */
}

static void client_update_events(ControlClient *c)
{
	/* While closing, what the peer still sends is read and dropped: data left unread at
	 * close would reset the connection before the peer reads its last reply. */
	uint32_t ev = c->eof ? 0 : EPOLLIN;

	if (c->out_len > c->out_off)
		ev |= EPOLLOUT;
	(void)sd_event_source_set_io_events(c->io, ev);
}

/* Write what we can now; the rest waits for EPOLLOUT. */
static int client_flush(ControlClient *c)
{
	if (c->dead)
		return -ECONNRESET;
	while (c->out_off < c->out_len) {
		ssize_t k = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
		                 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (k < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			return -errno;
		}
		c->out_off += (size_t)k;
	}
	if (c->out_off == c->out_len) {
		c->out_off = c->out_len = 0;
		if (c->out_cap > 65536) {
			/* A backlog drained: give its memory back. */
			c->out = mfree(c->out);
			c->out_cap = 0;
		}
	} else if (c->out_off > c->out_len / 2) {
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
	}
	if (c->closing && c->out_len == 0) {
		if (c->eof)
			return -ECONNRESET; /* done: the caller closes */
		/* Our side is done; close once the peer has read and closes too (or the drain
		 * deadline passes), so that the last reply is never lost to a reset. */
		(void)shutdown(c->fd, SHUT_WR);
	}
	client_update_events(c);
	return 0;
}

json_object *control_error_reply(int error, const char *message)
{
	json_object *o = json_object_new_object();
	const char *name = strerrorname_np(error < 0 ? -error : error);

	json_object_object_add(o, "ok", json_object_new_boolean(false));
	json_object_object_add(o, "error", json_object_new_string(name ?: "EIO"));
	json_object_object_add(
	        o, "message",
	        json_object_new_string(message ?: strerror(error < 0 ? -error : error)));
	return o;
}

/* Append @text and, with @eol, a newline; past the backlog limit only when @over_limit (a
 * last error line). */
static int client_put(ControlClient *c, const char *text, size_t len, bool eol, bool over_limit)
{
	char *n;

	if (c->dead)
		return -ECONNRESET;
	if (!over_limit && c->out_len - c->out_off + len + 1 > CONTROL_BACKLOG_MAX)
		return -ENOBUFS;
	if (c->out_len + len + 1 > c->out_cap && c->out_off > 0) {
		/* What was sent goes first: the queue then never holds more than the backlog. */
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
	}
	if (c->out_len + len + 1 > c->out_cap) {
		/* Doubling: a client that does not read queues up to the backlog limit in many
		 * small replies, and growing by each one would copy the queue each time (an
		 * allocator that cannot grow in place, ASan's, took minutes for 16 MiB). The
		 * last step goes to the limit and room for the error line that ends such a
		 * client, never to twice the limit. */
		size_t need = MAX(c->out_len + len + 1, (size_t)4096);
		size_t cap = c->out_cap * 2;

		if (cap >= CONTROL_BACKLOG_MAX)
			cap = CONTROL_BACKLOG_MAX + 4096;
		cap = MAX(cap, need);

		n = realloc(c->out, cap);
		if (!n)
			return -ENOMEM;
		c->out = n;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, text, len);
	c->out_len += len;
	if (eol)
		c->out[c->out_len++] = '\n';
	return 0;
}

/* Append one line; past the backlog limit only when @over_limit (a last error line). */
static int client_append(ControlClient *c, json_object *o, bool over_limit)
{
	const char *text = json_object_to_json_string_ext(
	        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	/* json-c escapes control characters in strings: a line never contains a newline. */
	return client_put(c, text, strlen(text), true, over_limit);
}

static void client_arm_timer(ControlClient *c)
{
	if (!c->timer)
		return;
	(void)sd_event_source_set_time_relative(c->timer, c->server->idle_usec);
	/* Monitors wait for events, a deferred reply for its work: neither is idle. A reply
	 * written in parts waits for the client to read: each part sets its deadline again. */
	(void)sd_event_source_set_enabled(c->timer, (c->monitor || (c->pending && !c->streaming)) &&
	                                                            !c->closing
	                                                    ? SD_EVENT_OFF
	                                                    : SD_EVENT_ONESHOT);
}

/*
 * Refuse @c for @error: one error reply (past the backlog limit, so it always fits), logged;
 * then no more reading, and the connection closes once the reply is out or the drain deadline
 * passes.
 */
static void client_fail(ControlClient *c, int error, const char *message)
{
	json_object *o;

	if (c->dead || c->closing)
		return;
	o = control_error_reply(error, message);
	(void)client_append(c, o, true);
	json_object_put(o);
	c->closing = true;
	control_log_refusal(c->server, c->pid, c->uid, error, message);
	client_arm_timer(c);
	client_update_events(c);
}

static int client_queue(ControlClient *c, json_object *o)
{
	int r = client_append(c, o, false);

	if (r == -ENOBUFS) {
		char msg[128];

		snprintf(msg, sizeof(msg),
		         "more than %u bytes queued for a client that does not read them",
		         CONTROL_BACKLOG_MAX);
		client_fail(c, -ENOBUFS, msg);
		return r;
	}
	if (r < 0)
		return r;
	return client_flush(c);
}

static int client_handle_line(ControlClient *c, const char *line, size_t len)
{
	ControlServer *s = c->server;
	json_object *req = NULL, *reply = NULL, *id = NULL;
	bool monitor = false;
	int r;

	r = control_request_parse_object(line, len, &req);
	if (r == -EDOM)
		reply = control_error_reply(-EINVAL,
		                            "request holds a number JSON has not (NaN, infinity)");
	else if (r < 0)
		reply = control_error_reply(-EBADMSG, "request is not a JSON object");
	else {
		r = s->handler(s, c, req, &reply, &monitor, s->userdata);
		if (r < 0) {
			json_object_put(reply);
			reply = control_error_reply(r, NULL);
		} else if (!reply) {
			/* Deferred: the owner answers with control_client_reply(). */
			if (json_object_object_get_ex(req, "id", &id))
				c->pending_id = json_object_get(id);
			c->pending = true;
			client_arm_timer(c);
			json_object_put(req);
			return 0;
		}
		if (json_object_object_get_ex(req, "id", &id))
			json_object_object_add(reply, "id", json_object_get(id));
	}
	r = client_queue(c, reply);
	json_object_put(reply);
	json_object_put(req);
	if (r >= 0 && monitor) {
		c->monitor = true;
		client_arm_timer(c); /* monitors wait for events: no idle timeout */
	}
	if (r == -ENOBUFS)
		return 0; /* refused with an error reply: client_fail() */
	return r;
}

/* The complete requests received, in order; those behind a deferred reply wait for it. */
static int client_handle_lines(ControlClient *c)
{
	char *nl;

	while (!c->pending && c->in && (nl = memchr(c->in, '\n', c->in_len))) {
		size_t used = (size_t)(nl - c->in) + 1;
		int r;

		*nl = 0;
		if (nl > c->in) {
			r = client_handle_line(c, c->in, (size_t)(nl - c->in));
			if (r < 0)
				return r;
			if (c->dead)
				return -ECONNRESET;
		}
		memmove(c->in, c->in + used, c->in_len - used + 1);
		c->in_len -= used;
		if (c->closing)
			return 0;
	}
	return 0;
}

static int client_read(ControlClient *c)
{
	/* A few reads per wake-up, not until the peer stops sending: a client that keeps
	 * sending must not keep the loop from everything else. The socket stays readable, so
	 * the rest is read on the next iteration, after the other clients' turn. */
	for (unsigned turn = 0; turn < CONTROL_READS_PER_WAKEUP; turn++) {
		char buf[4096];
		ssize_t k = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
		int r;

		if (k < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return -errno;
		}
		if (k == 0) {
			c->eof = true;
			return -ECONNRESET;
		}
		client_arm_timer(c);
		if (c->in_len + (size_t)k > CONTROL_REQUEST_MAX) {
			char msg[64];

			snprintf(msg, sizeof(msg), "request longer than %u bytes",
			         CONTROL_REQUEST_MAX);
			client_fail(c, -EMSGSIZE, msg);
			return 0;
		}
		if (GREEDY_REALLOC_EXACT(c->in, c->in_len + (size_t)k + 1) < 0)
			return -ENOMEM;
		memcpy(c->in + c->in_len, buf, (size_t)k);
		c->in_len += (size_t)k;
		c->in[c->in_len] = 0;

		r = client_handle_lines(c);
		if (r < 0 || c->closing)
			return r;
	}
	return 0;
}

/* A closing client's input, read and dropped until the peer stops sending: a few reads per
 * wake-up, as for any client, so that one that keeps sending cannot hold the loop. */
static int client_discard(ControlClient *c)
{
	for (unsigned turn = 0; turn < CONTROL_READS_PER_WAKEUP; turn++) {
		char buf[4096];
		ssize_t k = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (k < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		if (k == 0) {
			c->eof = true;
			client_update_events(c);
			return c->out_len > c->out_off ? 0 : -ECONNRESET;
		}
	}
	return 0; /* the rest on the next wake-up */
}

static int on_client(sd_event_source *es, int fd, uint32_t revents, void *userdata)
{
	ControlClient *c = control_client_ref(userdata);
	int r = 0;

	if (revents & EPOLLOUT)
		r = client_flush(c);
	if (r >= 0 && (revents & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !c->closing)
		r = client_read(c);
	else if (r >= 0 && (revents & EPOLLIN) && c->closing && !c->eof)
		r = client_discard(c);
	if (r >= 0 && (revents & (EPOLLHUP | EPOLLERR)) && c->out_len == 0)
		r = -ECONNRESET;
	if (r == -ECONNRESET && c->pending && c->eof && !(revents & (EPOLLHUP | EPOLLERR)))
		/* The peer shut down its sending side and waits for the deferred reply. */
		client_update_events(c);
	else if (r == -ECONNRESET && c->out_len > c->out_off &&
	         !(revents & (EPOLLHUP | EPOLLERR))) {
		/* The peer shut down its sending side: finish the replies first. */
		c->closing = true;
		client_update_events(c);
	} else if (r < 0)
		client_disconnect(c);
	control_client_unref(c);
	return 0;
}

static int on_client_timer(sd_event_source *es, uint64_t usec, void *userdata)
{
	ControlClient *c = control_client_ref(userdata);

	if (c->closing || c->streaming)
		/* its last reply, or the part of one written, could not be delivered in time */
		client_disconnect(c);
	else if (!c->monitor)
		client_fail(c, -ETIMEDOUT, "no request for too long");
	control_client_unref(c);
	return 0;
}

/* One error line to a peer that gets no client slot, then the connection closes. */
static void refuse(ControlServer *s, int fd, const struct ucred *cred, int error,
                   const char *message)
{
	json_object *o = control_error_reply(error, message);
	const char *text = json_object_to_json_string_ext(
	        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	(void)!send(fd, text, strlen(text), MSG_DONTWAIT | MSG_NOSIGNAL);
	(void)!send(fd, "\n", 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	json_object_put(o);
	control_log_refusal(s, cred->pid, cred->uid, error, message);
}

/* Is the peer on @fd a member of @gid, by its primary group or a supplementary one? */
static bool peer_in_group(int fd, const struct ucred *cred, gid_t gid)
{
	_cleanup_free_ gid_t *groups = NULL;
	socklen_t sl = 0;

	if (gid == (gid_t)-1)
		return false;
	if (cred->gid == gid)
		return true;
	/* SO_PEERGROUPS: the supplementary groups the peer had when it connected. The first
	 * call says how much room they need. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, NULL, &sl) >= 0 || errno != ERANGE ||
	    sl == 0 || sl > 65536 * sizeof(gid_t))
		return false;
	groups = malloc(sl);
	if (!groups || getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &sl) < 0)
		return false;
	for (size_t i = 0; i < sl / sizeof(gid_t); i++)
		if (groups[i] == gid)
			return true;
	return false;
}

static int on_accept(sd_event_source *es, int fd, uint32_t revents, void *userdata)
{
	ControlServer *s = userdata;
	_cleanup_close_ int cfd = -EBADF;
	struct ucred cred = {};
	socklen_t sl = sizeof(cred);
	bool read_only = false;
	ControlClient *c;
	int r;

	cfd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (cfd < 0)
		return 0; /* EAGAIN, ECONNABORTED, EMFILE: try again on the next wake-up */

	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &sl) < 0)
		return 0;
	/* Root only by default; the daemon's own user too, so an unprivileged test instance
	 * can be talked to; members of the read group for read-only commands. Refused peers get
	 * one error line. */
	if (cred.uid != 0 && cred.uid != geteuid()) {
		if (!peer_in_group(cfd, &cred, s->read_gid)) {
			refuse(s, cfd, &cred, -EPERM,
			       s->read_gid == (gid_t)-1
			               ? "permission denied: only root and lund's own user may use "
			                 "lund's socket"
			               : "permission denied: only root, lund's own user and "
			                 "members "
			                 "of lund's read group may use lund's socket");
			return 0;
		}
		read_only = true;
	}
	if (read_only) {
		unsigned all = 0, mine = 0;
		char msg[80];

		for (ControlClient *x = s->clients; x; x = x->next)
			if (x->read_only) {
				all++;
				mine += x->uid == cred.uid;
			}
		if (all >= CONTROL_CLIENTS_MAX || mine >= CONTROL_CLIENTS_PER_UID) {
			snprintf(msg, sizeof(msg), "too many clients (%u of this user, %u in all)",
			         mine, all);
			refuse(s, cfd, &cred, -EUSERS, msg);
			return 0;
		}
	}

	c = calloc(1, sizeof(*c));
	if (!c)
		return 0;
	c->n_ref = 1; /* the server's, dropped by client_disconnect() */
	c->server = s;
	c->uid = cred.uid;
	c->pid = cred.pid;
	c->read_only = read_only;
	c->fd = cfd;
	r = sd_event_add_io(s->event, &c->io, cfd, EPOLLIN, on_client, c);
	if (r >= 0)
		r = sd_event_add_time_relative(s->event, &c->timer, CLOCK_MONOTONIC, s->idle_usec,
		                               0, on_client_timer, c);
	if (r < 0) {
		sd_event_source_disable_unref(c->io);
		free(c);
		return 0;
	}
	cfd = -EBADF;
	c->next = s->clients;
	s->clients = c;
	s->n_clients++;
	return 0;
}

int control_new(sd_event *e, const char *path, ControlHandler handler, void *userdata,
                ControlServer **ret)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	ControlServer *s;
	struct stat st;
	mode_t old;
	int r;

	assert_return(e && path && handler && ret, -EINVAL);
	/* bound under a temporary name and renamed once it listens: whoever finds @path can
	 * connect (a client that waits for the path to appear is never refused) */
	if (strlen(path) + strlen(".new") >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s.new", path);

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = -EBADF;
	s->event = sd_event_ref(e);
	s->idle_usec = CONTROL_IDLE_TIMEOUT_USEC;
	s->read_gid = (gid_t)-1;
	s->log_limit = (RateLimit)RATELIMIT_INIT(10u * 1000000u, 5);
	{
		/* Tests shorten the idle timeout; anything unparsable keeps the default. */
		const char *e_idle = getenv("LUND_CONTROL_IDLE_TIMEOUT_MS");
		char *end = NULL;
		unsigned long ms = e_idle ? strtoul(e_idle, &end, 10) : 0;

		if (e_idle && end && *end == 0 && ms > 0 && ms <= 86400000ul)
			s->idle_usec = (uint64_t)ms * 1000u;
	}
	s->handler = handler;
	s->userdata = userdata;
	s->path = strdup(path);
	if (!s->path) {
		control_free(s);
		return -ENOMEM;
	}

	/* A socket left by a previous instance; never remove anything else. */
	if (lstat(path, &st) >= 0) {
		if (!S_ISSOCK(st.st_mode)) {
			control_free(s);
			return -EEXIST;
		}
		(void)unlink(path);
	}
	if (lstat(sa.sun_path, &st) >= 0 && S_ISSOCK(st.st_mode))
		(void)unlink(sa.sun_path);

	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		r = -errno;
		control_free(s);
		return r;
	}
	/* 0600 from the start: no window in which others could connect. */
	old = umask(0177);
	r = bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -errno : 0;
	umask(old);
	/* The kernel's own cap (net.core.somaxconn): a burst of clients while the loop is busy
	 * (a storm) waits in the queue instead of being refused. */
	if (r >= 0 && listen(s->fd, SOMAXCONN) < 0)
		r = -errno;
	if (r >= 0)
		r = sd_event_add_io(e, &s->io, s->fd, EPOLLIN, on_accept, s);
	if (r >= 0 && rename(sa.sun_path, path) < 0)
		r = -errno;
	if (r < 0) {
		(void)unlink(sa.sun_path);
		control_free(s);
		return r;
	}
	(void)sd_event_source_set_description(s->io, "control");
	*ret = s;
	return 0;
}

ControlServer *control_free(ControlServer *s)
{
	if (!s)
		return NULL;
	while (s->clients)
		client_disconnect(s->clients);
	sd_event_source_disable_unref(s->io);
	if (s->fd >= 0) {
		safe_close(s->fd);
		if (s->path)
			(void)unlink(s->path);
	}
	free(s->path);
	sd_event_unref(s->event);
	free(s);
	return NULL;
}

void control_broadcast(ControlServer *s, json_object *event)
{
	if (!s)
		return;
	for (ControlClient *c = s->clients, *next; c; c = next) {
		next = c->next;
		if (!c->monitor || c->closing)
			continue;
		if (client_queue(c, event) < 0 && !c->closing)
			client_disconnect(c); /* too slow or gone: it can reconnect and resync */
	}
}

bool control_has_monitors(const ControlServer *s)
{
	for (ControlClient *c = s ? s->clients : NULL; c; c = c->next)
		if (c->monitor)
			return true;
	return false;
}

unsigned control_n_clients(const ControlServer *s)
{
	return s ? s->n_clients : 0;
}

int control_client_send(ControlClient *c, json_object *o)
{
	return client_queue(c, o);
}

static int on_client_resume(sd_event_source *es, void *userdata)
{
	ControlClient *c = control_client_ref(userdata);
	int r;

	c->resume = sd_event_source_disable_unref(c->resume);
	r = client_handle_lines(c);
	if (r < 0 && r != -ECONNRESET)
		client_disconnect(c);
	control_client_unref(c);
	return 0;
}

static int deferred_done(ControlClient *c);

int control_client_reply(ControlClient *c, json_object *reply)
{
	int r;

	assert_return(c && reply, -EINVAL);
	if (c->dead)
		return -ECONNRESET;
	if (!c->pending)
		return -EINVAL;
	if (c->pending_id)
		json_object_object_add(reply, "id", TAKE_PTR(c->pending_id));
	r = client_append(c, reply, false);
	if (r == -ENOBUFS) {
		c->pending = false;
		client_fail(c, -ENOBUFS, "reply larger than the client backlog");
		return r;
	}
	if (r < 0) {
		c->pending = false;
		client_disconnect(c);
		return r;
	}
	return deferred_done(c);
}

/* The deferred reply is queued: send it, then the requests that waited behind it. */
static int deferred_done(ControlClient *c)
{
	int r;

	c->pending = c->streaming = false;
	json_object_put(TAKE_PTR(c->pending_id));
	if (c->eof)
		c->closing = true; /* the peer sends nothing more: close once this is out */
	r = client_flush(c);
	if (r < 0) {
		client_disconnect(c);
		return r;
	}
	client_arm_timer(c);
	/* Requests that arrived meanwhile are handled from the loop, not from the caller. */
	if (!c->closing && c->in && memchr(c->in, '\n', c->in_len) && !c->resume)
		(void)sd_event_add_defer(c->server->event, &c->resume, on_client_resume, c);
	return 0;
}

json_object *control_client_pending_id(const ControlClient *c)
{
	return c->pending ? c->pending_id : NULL;
}

size_t control_client_backlog(const ControlClient *c)
{
	return c->dead ? 0 : c->out_len - c->out_off;
}

int control_client_write(ControlClient *c, const char *text, size_t len)
{
	int r;

	assert_return(c && (text || len == 0), -EINVAL);
	if (c->dead)
		return -ECONNRESET;
	if (!c->pending)
		return -EINVAL;
	c->streaming = true;
	r = client_put(c, text, len, false, false);
	if (r >= 0)
		r = client_flush(c);
	if (r < 0) {
		client_disconnect(c);
		return r;
	}
	client_arm_timer(c);
	return 0;
}

int control_client_end(ControlClient *c)
{
	int r;

	assert_return(c, -EINVAL);
	if (c->dead)
		return -ECONNRESET;
	if (!c->pending || !c->streaming)
		return -EINVAL;
	r = client_put(c, "", 0, true, true);
	return r < 0 ? r : deferred_done(c);
}

bool control_client_alive(const ControlClient *c)
{
	return c && !c->dead;
}

int control_set_read_group(ControlServer *s, gid_t gid)
{
	assert_return(s, -EINVAL);
	/* The group first, the mode second: the socket is never open to a group it was not
	 * meant for. Without a group it goes back to lund's own and 0600. */
	if (chown(s->path, (uid_t)-1, gid == (gid_t)-1 ? getegid() : gid) < 0)
		return -errno;
	if (chmod(s->path, gid == (gid_t)-1 ? 0600 : 0660) < 0)
		return -errno;
	s->read_gid = gid;
	return 0;
}

bool control_client_read_only(const ControlClient *c)
{
	return c->read_only;
}

uid_t control_client_uid(const ControlClient *c)
{
	return c->uid;
}

pid_t control_client_pid(const ControlClient *c)
{
	return c->pid;
}
