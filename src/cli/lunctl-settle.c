/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* lunctl settle: wait until lund has nothing left to do (lund(8), CONTROL PROTOCOL "queue") and,
 * where udevd makes lund's links, until udev's queue is empty too, as `udevadm settle` waits. */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"
#include "clock.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"

#define SETTLE_DEFAULT_TIMEOUT_SEC 120u
#define SETTLE_MAX_TIMEOUT_SEC     86400u
#define SETTLE_POLL_USEC           100000u
#define UDEVADM_POLL_USEC          10000u

/* `udevadm VERB --timeout=<what is left>` killed at @deadline: udevadm waits at least 5 s for
 * udevd's answer whatever its --timeout says. Returns 0 when it succeeded, -ETIME when it failed
 * or did not end by @deadline, -ENOENT when there is no udevadm, other -errno. */
static int udevadm(const char *verb, const char *opt, uint64_t deadline)
{
	char arg[sizeof("--timeout=") + 20]; /* 20: the digits of UINT64_MAX */
	char *argv[] = { (char *)"udevadm", (char *)verb, arg, (char *)opt, NULL };
	posix_spawn_file_actions_t fa;
	uint64_t now = clock_now_usec(CLOCK_MONOTONIC);
	int r, status;
	pid_t pid;

	if (now >= deadline)
		return -ETIME;
	/* whole seconds, at least one: the kill at @deadline bounds the rest */
	snprintf(arg, sizeof(arg), "--timeout=%" PRIu64, MAX((deadline - now) / 1000000u, 1u));
	r = posix_spawn_file_actions_init(&fa);
	if (r != 0)
		return -r;
	/* its words are not ours: settle says itself what it waited for */
	r = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (r == 0)
		r = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	if (r == 0)
		r = posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
	if (r == 0)
		r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0)
		return -r;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (clock_now_usec(CLOCK_MONOTONIC) >= deadline) {
			(void)kill(pid, SIGKILL);
			(void)waitpid(pid, &status, 0);
			return -ETIME;
		}
		usleep(UDEVADM_POLL_USEC);
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ETIME;
}

/*
 * Has udev's queue been empty, udevd asked, by @deadline? udevd creates /run/udev/queue only
 * once it has read an event from the kernel, so right after a hot-add the file can be missing
 * while udevd has not read the events yet. udevd answers a ping only after it has read the
 * uevents waiting for it (its control socket is its lowest-priority event source), so a ping
 * answered, then `udevadm settle`, is a queue udevd has seen; udev's private protocol is left
 * to udev's own tool. The ping is `udevadm control --ping`, not settle's own: settle takes a
 * udevd it cannot reach (its control socket's backlog full while udevd is held up) for one
 * with nothing to do; control --ping fails then, and the next round tries again. udevadm
 * control is root's; others get settle alone (which does not ping for them either).
 * Returns as udevadm() does.
 */
static int udev_settle(uint64_t deadline)
{
	int r = 0;

	if (geteuid() == 0)
		r = udevadm("control", "--ping", deadline);
	return r < 0 ? r : udevadm("settle", NULL, deadline);
}

/* What lund still does, in words, for the message on expiry. */
static void describe_queue(json_object *q, char *buf, size_t size)
{
	size_t n = 0;

#define ADD(...)                                                               \
	do {                                                                   \
		if (n < size)                                                  \
			n += (size_t)snprintf(buf + n, size - n, __VA_ARGS__); \
	} while (0)
	buf[0] = 0;
	if (json_object_get_boolean(json_member(q, "scan_running")))
		ADD("%sa scan runs", n ? ", " : "");
	if (json_int(q, "scans_queued") > 0)
		ADD("%s%" PRIi64 " scans queued", n ? ", " : "", json_int(q, "scans_queued"));
	if (json_object_get_boolean(json_member(q, "uevents_pending")))
		ADD("%suevents pending", n ? ", " : "");
	if (json_object_get_boolean(json_member(q, "resync_pending")))
		ADD("%sa resync pending", n ? ", " : "");
	if (json_object_get_boolean(json_member(q, "resync_running")))
		ADD("%sa resync running", n ? ", " : "");
	if (json_object_get_boolean(json_member(q, "reload_pending")))
		ADD("%sa reload pending", n ? ", " : "");
	if (json_object_get_boolean(json_member(q, "link_retry_pending")))
		ADD("%slink writes failing, retried (lunctl status)", n ? ", " : "");
	if (json_int(q, "bind_wait") > 0)
		ADD("%s%" PRIi64 " LUs waiting for their driver", n ? ", " : "",
		    json_int(q, "bind_wait"));
	if (json_object_get_boolean(json_member(q, "udev_links")) &&
	    !json_object_get_boolean(json_member(q, "udev_queue_empty")))
		ADD("%sudev's queue not empty or udevd not answering (it makes lund's links)",
		    n ? ", " : "");
#undef ADD
}

int verb_settle(int argc, char *argv[], Options *o)
{
	enum { OPT_TIMEOUT = 0x100 };
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	unsigned long timeout = SETTLE_DEFAULT_TIMEOUT_SEC;
	_cleanup_close_ int rootfd = -EBADF;
	bool udev_asked = false, udevadm_missing = false;
	uint64_t deadline;
	int c, r;

	while ((c = lunctl_getopt(argc, argv, "Jh", longopts, o, "settle")) != -1) {
		switch (c) {
		case OPT_TIMEOUT: {
			char *end;

			errno = 0;
			timeout = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' ||
			    timeout > SETTLE_MAX_TIMEOUT_SEC) {
				log_error("--timeout: '%s' is not a number of seconds 0..%u",
				          optarg, SETTLE_MAX_TIMEOUT_SEC);
				return EXIT_USAGE;
			}
			break;
		}
		case 'h':
			printf("Usage: lunctl settle [--timeout SEC] [--json]\n"
			       "\n"
			       "Wait until lund has no scan running or queued, no uevent pending, "
			       "no\n"
			       "resync, reload or driver bind outstanding, and, where udevd makes "
			       "lund's\n"
			       "links, until udev's queue is empty.\n"
			       "\n"
			       "     --timeout <sec>  give up after <sec> seconds, waiting for "
			       "lund's "
			       "answers\n"
			       "                      included (default %u; 0: only ask)\n"
			       " -J, --json           print lund's last answer as JSON\n"
			       " -h, --help           display this help\n"
			       "\n"
			       "Exit status: 0 settled, 1 usage error, 2 not settled in time or "
			       "lund not\n"
			       "running.\n",
			       SETTLE_DEFAULT_TIMEOUT_SEC);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		log_error("settle takes no arguments");
		return EXIT_USAGE;
	}

	r = lunctl_open_root(o, &rootfd);
	if (r != EXIT_OK)
		return r;
	deadline = clock_now_usec(CLOCK_MONOTONIC) + (uint64_t)timeout * 1000000u;
	for (;;) {
		_cleanup_(json_object_putp) json_object *q = NULL;
		uint64_t now = clock_now_usec(CLOCK_MONOTONIC);
		bool settled;

		/* --timeout bounds the whole wait, each call to lund included. */
		if (timeout)
			lund_client_set_timeout(MIN(lund_client_timeout(false),
			                            deadline > now ? deadline - now : 1));
		r = lunctl_daemon_call("queue", NULL, NULL, &q);
		if (r != EXIT_OK)
			return r;
		settled = json_object_get_boolean(json_member(q, "settled"));
		if (json_object_get_boolean(json_member(q, "udev_links"))) {
			/* udevd's own mark of events queued or running, as udevadm settle reads it
			 */
			bool empty =
			        faccessat(rootfd, "run/udev/queue", F_OK, AT_SYMLINK_NOFOLLOW) < 0;

			if (!settled || !empty)
				udev_asked = false;
			/* The mark alone can say "empty" before udevd has read the events: ask
			 * udevd itself (udev_settle()), then lund once more. On the running system
			 * only, and not with --timeout 0 ("only ask"). */
			if (settled && empty && !udev_asked && !udevadm_missing && !o->root &&
			    timeout) {
				r = udev_settle(deadline);
				if (r == 0) {
					udev_asked = true;
					continue;
				}
				if (r == -ENOENT) {
					log_warning("udevadm not found: udev's queue read from "
					            "/run/udev/queue alone, ignoring");
					udevadm_missing = true;
				} else {
					if (r != -ETIME)
						log_warning_errno(r,
						                  "udevadm settle: %m, ignoring");
					empty = false;
				}
			}
			json_object_object_add(q, "udev_queue_empty",
			                       json_object_new_boolean(empty));
			settled = settled && empty;
		}
		if (settled || clock_now_usec(CLOCK_MONOTONIC) + SETTLE_POLL_USEC > deadline) {
			char what[256];

			if (o->output == OUTPUT_JSON) {
				json_object_object_del(q, "ok");
				if (output_json(stdout, q) < 0)
					return EXIT_DEVICE;
			}
			if (settled)
				return EXIT_OK;
			describe_queue(q, what, sizeof(what));
			log_error("lund has not settled after %lu s: %s", timeout,
			          what[0] ? what : "busy");
			return EXIT_DEVICE;
		}
		usleep(SETTLE_POLL_USEC);
	}
}
