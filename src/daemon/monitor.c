/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <poll.h>
#include <libudev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "errevent.h"
#include "macro.h"
#include "monitor.h"

struct Monitor {
	struct udev *udev;
	struct udev_monitor *mon;
	sd_event_source *io;
	MonitorCallbacks cb;
	void *userdata;
	MonitorStats stats;
	bool rebase; /* ignore the next gap: a resync already covers it */
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

static void udev_device_unrefp(struct udev_device **d)
{
	if (*d)
		udev_device_unref(*d);
}

static void props_freep(char ***p)
{
	for (char **q = *p; q && *q; q++)
		free(*q);
	free(*p);
}

static void dispatch(Monitor *m, struct udev_device *d)
{
	_cleanup_(props_freep) char **props = NULL;
	uint64_t seqnum = udev_device_get_seqnum(d);
	Uevent ev;

	m->stats.received++;

	/* SEQNUM is global and increments by one per uevent the kernel sends. Messages for
	 * devices in other network namespaces never reach us, so a gap may be harmless; a
	 * resync is cheap enough to take the chance. */
	if (seqnum > 0) {
		if (m->stats.last_seqnum > 0 && seqnum > m->stats.last_seqnum + 1 && !m->rebase) {
			m->stats.gaps++;
			if (m->cb.loss)
				m->cb.loss(m, MONITOR_LOSS_SEQNUM_GAP, m->stats.last_seqnum + 1,
				           seqnum, m->userdata);
		}
		if (seqnum > m->stats.last_seqnum || m->rebase)
			m->stats.last_seqnum = seqnum;
		m->rebase = false;
	}

	ev = (Uevent){
		.action = udev_device_get_action(d),
		.subsystem = udev_device_get_subsystem(d),
		.devtype = udev_device_get_devtype(d),
		.devpath = udev_device_get_devpath(d),
		.sdev_ua = udev_device_get_property_value(d, "SDEV_UA"),
		.synth_lund = udev_device_get_property_value(d, "SYNTH_ARG_LUND"),
		.modalias = udev_device_get_property_value(d, "MODALIAS"),
		.sdev_state = udev_device_get_property_value(d, "SDEV_STATE"),
		.synthetic = udev_device_get_property_value(d, "SYNTH_UUID") != NULL,
		.seqnum = seqnum,
	};
	if (!monitor_subsystem_wanted(ev.subsystem) || !ev.action)
		return;

	/* The companion patchset's error event: hand every property over, bounded as a
	 * uevent is (errevent.h), for daemon/errors.c to parse. */
	if (udev_device_get_property_value(d, "SDEV_ERROR")) {
		struct udev_list_entry *e;
		size_t n = 0;

		props = calloc(ERREVENT_PROPS_MAX + 2, sizeof(char *));
		udev_list_entry_foreach(e, udev_device_get_properties_list_entry(d))
		{
			if (!props || n > ERREVENT_PROPS_MAX)
				break;
			if (asprintf(&props[n], "%s=%s", udev_list_entry_get_name(e),
			             udev_list_entry_get_value(e) ?: "") < 0) {
				props[n] = NULL;
				break;
			}
			n++;
		}
		ev.props = (const char *const *)props;
		ev.n_props = n;
	}

	m->stats.dispatched++;
	if (m->cb.event)
		m->cb.event(m, &ev, m->userdata);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Monitor *m = userdata;

	for (unsigned i = 0; i < MONITOR_BATCH; i++) {
		_cleanup_(udev_device_unrefp) struct udev_device *d = NULL;

		errno = 0;
		d = udev_monitor_receive_device(m->mon);
		if (d) {
			dispatch(m, d);
			continue;
		}
		if (errno == ENOBUFS) {
			/* The kernel dropped messages; the socket keeps working. */
			m->stats.enobufs++;
			/* The resync this triggers covers everything lost so far: re-base the
			 * sequence check on the next message instead of reporting its gap. */
			m->rebase = true;
			if (m->cb.loss)
				m->cb.loss(m, MONITOR_LOSS_ENOBUFS, 0, 0, m->userdata);
			continue;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			break;
		/* libudev returns NULL without errno for a message it rejects (wrong sender,
		 * malformed): skip it and keep reading. */
		if (errno == 0)
			continue;
		if (m->cb.error)
			m->cb.error(m, -errno, m->userdata);
		break;
	}
	return 0;
}

Monitor *monitor_free(Monitor *m)
{
	if (!m)
		return NULL;
	sd_event_source_disable_unref(m->io);
	if (m->mon)
		udev_monitor_unref(m->mon);
	if (m->udev)
		udev_unref(m->udev);
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
	if (cb)
		m->cb = *cb;
	m->userdata = userdata;

	m->udev = udev_new();
	if (!m->udev) {
		r = errno > 0 ? -errno : -ENOMEM;
		goto fail;
	}
	m->mon = udev_monitor_new_from_netlink(m->udev, "kernel");
	if (!m->mon) {
		r = errno > 0 ? -errno : -EPROTONOSUPPORT;
		goto fail;
	}
	/* Best effort: beyond rmem_max without CAP_NET_ADMIN the kernel keeps its limit. */
	(void)udev_monitor_set_receive_buffer_size(m->mon, (int)rcvbuf);
	r = udev_monitor_enable_receiving(m->mon);
	if (r < 0)
		goto fail;
	fd = udev_monitor_get_fd(m->mon);
	if (fd < 0) {
		r = fd;
		goto fail;
	}
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

	if (!m || !m->mon)
		return false;
	p = (struct pollfd){ .fd = udev_monitor_get_fd(m->mon), .events = POLLIN };
	return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}
