/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include "errevent.h"
#include "macro.h"
#include "monitor.h"

/* The kernel's netlink group of uevents (lib/kobject_uevent.c): kernel messages only, udevd's
 * are on group 2. */
#define UEVENT_GROUP_KERNEL 1u
/* Messages taken off the socket per recvmmsg(2); each has room for a uevent's environment (the
 * kernel's UEVENT_BUFFER_SIZE, 2048 bytes, DEVPATH= included) and its "ACTION@DEVPATH" header:
 * a longer message is cut short, dropped, and its sequence number missed (a resync). The
 * buffers are allocated at the first message and kept: only the pages messages touch are
 * resident (a page or two per slot). */
#define MONITOR_RECV_MSGS 8
#define MONITOR_MSG_MAX   8192

typedef struct MonitorBuffers {
	struct mmsghdr msgs[MONITOR_RECV_MSGS];
	struct iovec iov[MONITOR_RECV_MSGS];
	struct sockaddr_nl from[MONITOR_RECV_MSGS];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} control[MONITOR_RECV_MSGS];
	char data[MONITOR_RECV_MSGS][MONITOR_MSG_MAX];
} MonitorBuffers;

struct Monitor {
	int fd;
	sd_event_source *io;
	MonitorCallbacks cb;
	void *userdata;
	MonitorStats stats;
	bool rebase;          /* ignore the next gap: a resync already covers it */
	MonitorBuffers *bufs; /* from the first message on */
};

static const char *const wanted_subsystems[] = {
	"scsi",         /* scsi_host, scsi_target, scsi_device: LUs come and go, SDEV_UA */
	"block",        /* sd/sr nodes and partitions */
	"scsi_generic", /* sg nodes */
	"bsg",          /* bsg nodes */
	"scsi_tape",    /* st/nst nodes */
	/* hosts and transport target ports: what to scan when the kernel does not */
	"scsi_host",
	"sas_end_device",
	"fc_remote_ports",
	"iscsi_session",
};

bool monitor_subsystem_wanted(const char *subsystem)
{
	if (!subsystem)
		return false;
	for (size_t i = 0; i < ELEMENTSOF(wanted_subsystems); i++)
		if (streq(subsystem, wanted_subsystems[i]))
			return true;
	return false;
}

static void dispatch(Monitor *m, const Uevent *ev)
{
	m->stats.received++;

	/* SEQNUM is global and increments by one per uevent the kernel sends. Messages for
	 * devices in other network namespaces never reach us, so a gap may be harmless; a
	 * resync is cheap enough to take the chance. */
	if (m->stats.last_seqnum > 0 && ev->seqnum > m->stats.last_seqnum + 1 && !m->rebase) {
		m->stats.gaps++;
		if (m->cb.loss)
			m->cb.loss(m, MONITOR_LOSS_SEQNUM_GAP, m->stats.last_seqnum + 1, ev->seqnum,
			           m->userdata);
	}
	if (ev->seqnum > m->stats.last_seqnum || m->rebase)
		m->stats.last_seqnum = ev->seqnum;
	m->rebase = false;

	if (!monitor_subsystem_wanted(ev->subsystem))
		return;
	m->stats.dispatched++;
	if (m->cb.event)
		m->cb.event(m, ev, m->userdata);
}

/* The kernel's, and whole: sent by the kernel (port 0) to the kernel group, with root's
 * credentials, not cut short. Anyone else's message is dropped unread, as libudev drops it. */
static bool message_from_kernel(const struct mmsghdr *mm)
{
	const struct msghdr *h = &mm->msg_hdr;
	const struct sockaddr_nl *from = h->msg_name;
	struct cmsghdr *c;

	if (h->msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		return false;
	if (h->msg_namelen < sizeof(*from) || from->nl_family != AF_NETLINK || from->nl_pid != 0 ||
	    from->nl_groups != UEVENT_GROUP_KERNEL)
		return false;
	c = CMSG_FIRSTHDR((struct msghdr *)h);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS ||
	    c->cmsg_len < CMSG_LEN(sizeof(struct ucred)))
		return false;
	return ((const struct ucred *)(const void *)CMSG_DATA(c))->uid == 0;
}

static void handle_message(Monitor *m, const struct mmsghdr *mm, const char *data)
{
	/* SDEV_ERROR's properties, one more than errevent takes: errevent_parse() refuses
	 * the message that has more */
	const char *props[ERREVENT_PROPS_MAX + 1];
	Uevent ev;

	if (!message_from_kernel(mm) ||
	    uevent_parse(data, mm->msg_len, props, ELEMENTSOF(props), &ev) < 0)
		return;
	dispatch(m, &ev);
}

/* Up to MONITOR_RECV_MSGS messages: their number, 0 when none waits, or -errno. */
static int receive(Monitor *m)
{
	MonitorBuffers *b = m->bufs;
	int n;

	for (size_t i = 0; i < MONITOR_RECV_MSGS; i++) {
		b->iov[i] = (struct iovec){ b->data[i], MONITOR_MSG_MAX };
		b->msgs[i].msg_hdr = (struct msghdr){
			.msg_name = &b->from[i],
			.msg_namelen = sizeof(b->from[i]),
			.msg_iov = &b->iov[i],
			.msg_iovlen = 1,
			.msg_control = b->control[i].buf,
			.msg_controllen = sizeof(b->control[i].buf),
		};
		b->msgs[i].msg_len = 0;
	}
	n = recvmmsg(m->fd, b->msgs, MONITOR_RECV_MSGS, MSG_DONTWAIT, NULL);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
	return n;
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Monitor *m = userdata;
	unsigned done = 0;

	if (!m->bufs && !(m->bufs = malloc(sizeof(*m->bufs))))
		return 0; /* the socket stays readable: the next wake-up tries again */
	while (done < MONITOR_BATCH) {
		int n = receive(m);

		if (n == -ENOBUFS) {
			/* The kernel dropped messages; the socket keeps working. */
			m->stats.enobufs++;
			/* The resync this triggers covers everything lost so far: re-base the
			 * sequence check on the next message instead of reporting its gap. */
			m->rebase = true;
			if (m->cb.loss)
				m->cb.loss(m, MONITOR_LOSS_ENOBUFS, 0, 0, m->userdata);
			done++;
			continue;
		}
		if (n < 0) {
			if (m->cb.error)
				m->cb.error(m, n, m->userdata);
			break;
		}
		for (int i = 0; i < n; i++)
			handle_message(m, &m->bufs->msgs[i], m->bufs->data[i]);
		done += (unsigned)n;
		if (n < MONITOR_RECV_MSGS)
			break;
	}
	return 0;
}

Monitor *monitor_free(Monitor *m)
{
	if (!m)
		return NULL;
	sd_event_source_disable_unref(m->io);
	safe_close(m->fd);
	free(m->bufs);
	free(m);
	return NULL;
}

int monitor_new(sd_event *e, size_t rcvbuf, const MonitorCallbacks *cb, void *userdata,
                Monitor **ret)
{
	Monitor *m;
	int r, fd, size;
	socklen_t sl = sizeof(size);

	assert_return(e && ret, -EINVAL);
	if (rcvbuf == 0)
		rcvbuf = MONITOR_RCVBUF_DEFAULT;
	assert_return(rcvbuf <= INT32_MAX, -ERANGE);

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->fd = -EBADF;
	if (cb)
		m->cb = *cb;
	m->userdata = userdata;

	m->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
	if (m->fd < 0) {
		r = -errno;
		goto fail;
	}
	fd = m->fd;
	/* As udevd sizes it: SO_RCVBUFFORCE passes net.core.rmem_max with CAP_NET_ADMIN; else the
	 * kernel's limit applies (best effort). */
	size = (int)rcvbuf;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	/* the sender's credentials with every message: only root's (the kernel's) count */
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int)) < 0 ||
	    bind(fd,
	         (struct sockaddr *)&(struct sockaddr_nl){ .nl_family = AF_NETLINK,
	                                                   .nl_groups = UEVENT_GROUP_KERNEL },
	         sizeof(struct sockaddr_nl)) < 0) {
		r = -errno;
		goto fail;
	}
	sl = sizeof(size);
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, &sl) >= 0 && size > 0)
		m->stats.rcvbuf = (size_t)size;

	r = sd_event_add_io(e, &m->io, fd, EPOLLIN, on_io, m);
	if (r < 0)
		goto fail;
	(void)sd_event_source_set_description(m->io, "kernel-uevents");
	*ret = m;
	return 0;

fail:
	monitor_free(m);
	return r;
}

const MonitorStats *monitor_stats(const Monitor *m)
{
	return &m->stats;
}

bool monitor_pending(const Monitor *m)
{
	struct pollfd p;

	if (!m || m->fd < 0)
		return false;
	p = (struct pollfd){ .fd = m->fd, .events = POLLIN };
	return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}
