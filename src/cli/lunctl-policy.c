/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * lunctl policy DEVICE [KEY=VALUE ...]: show and change a logical unit's error-handling knobs
 * at runtime. Which knobs exist is detected on the LU (errpolicy.h); the ones only the kernel
 * companion patchset provides are named once when missing. Every KEY=VALUE is checked before
 * anything is written, so a bad argument leaves every attribute as it was. The transport's
 * timeouts (the iSCSI session's or FC remote port's, tportknob.h) are shown and set beside them:
 * they apply to every LU on that session or port.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errpolicy.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"
#include "probe.h"
#include "tportknob.h"

#define NOT_SUPPORTED "(not supported by this kernel)"
#define NOT_A_DISK    "(not an sd disk)"

static int oom(void)
{
	log_error_errno(-ENOMEM, "Out of memory");
	return EXIT_DEVICE;
}

typedef struct Assignment {
	ErrKnob knob;    /* the LU's, or _ERRKNOB_INVALID */
	TportKnob tknob; /* the transport's, or _TPORT_KNOB_INVALID */
	const char *value;
} Assignment;

/* The LU's transport and the values of its timeouts (NULL: absent or unreadable). */
typedef struct TportView {
	Tport tport;
	char *value[_TPORT_KNOB_MAX];
} TportView;

static void tport_view_done(TportView *v)
{
	tport_done(&v->tport);
	for (int k = 0; k < _TPORT_KNOB_MAX; k++)
		v->value[k] = mfree(v->value[k]);
}

static int tport_view_read(int rootfd, const char *syspath, TportView *ret)
{
	int r;

	*ret = (TportView){};
	r = tport_find(rootfd, syspath, &ret->tport);
	if (r < 0)
		return r;
	for (TportKnob k = 0; k < _TPORT_KNOB_MAX; k++) {
		if (tport_knob_kind(k) != ret->tport.kind)
			continue;
		r = tport_read(rootfd, &ret->tport, k, &ret->value[k]);
		if (r == -ENOMEM)
			return r;
	}
	return 0;
}

static bool knob_missing_from_kernel(const ErrPolicy *p, ErrKnob k)
{
	/* sd's max_retries is absent on tapes, CD-ROMs, enclosures: not the kernel's fault. */
	return !p->present[k] && !errknob_disk_only(k);
}

static void print_missing_note(FILE *out, const ErrPolicy *p)
{
	bool first = true;

	for (ErrKnob k = 0; k < _ERRKNOB_MAX; k++) {
		if (!knob_missing_from_kernel(p, k))
			continue;
		fprintf(out, "%s%s", first ? "Missing on this kernel: " : ", ",
		        errknob_to_string(k));
		first = false;
	}
	if (first)
		return;
	fprintf(out, ".\n");
	if (!errpolicy_has_patchset(p))
		fprintf(out, "The lund kernel companion patchset (kernel/ in lund's sources) adds "
		             "retry_limit, failfast and the evt_error* error events; without it "
		             "only sd's max_retries, the timeouts and the ioerr_cnt/iotmo_cnt "
		             "counters are available.\n");
}

static int print_human(const LuRef *lu, const ErrPolicy *p, const TportView *t)
{
	printf("%s", lu->hctl);
	if (lu->block)
		printf(" (%s)", lu->block);
	else if (lu->sg)
		printf(" (%s)", lu->sg);
	printf("\n");

	for (ErrKnob k = 0; k < _ERRKNOB_MAX; k++) {
		_cleanup_free_ char *esc = NULL;
		const char *v;

		if (!p->present[k])
			v = errknob_disk_only(k) ? NOT_A_DISK : NOT_SUPPORTED;
		else if (p->error[k] != 0)
			v = strerror(-p->error[k]);
		else {
			esc = output_escape(p->value[k], strlen(p->value[k]));
			if (!esc)
				return oom();
			v = esc;
		}
		printf("  %-22s %s\n", errknob_to_string(k), v);
	}
	print_missing_note(stdout, p);
	if (t->tport.kind == TPORT_NONE)
		return EXIT_OK;
	printf("Transport: %s %s\n", tport_kind_to_string(t->tport.kind), t->tport.name);
	for (TportKnob k = 0; k < _TPORT_KNOB_MAX; k++) {
		_cleanup_free_ char *esc = NULL;

		if (tport_knob_kind(k) != t->tport.kind)
			continue;
		if (t->value[k] && !(esc = output_escape(t->value[k], strlen(t->value[k]))))
			return oom();
		printf("  %-22s %s\n", tport_knob_to_string(k), esc ?: "(not available)");
	}
	return EXIT_OK;
}

static int print_json(const LuRef *lu, const ErrPolicy *p, const TportView *t)
{
	_cleanup_(json_object_putp) json_object *root = json_object_new_object();
	json_object *knobs = json_object_new_object(), *missing = json_object_new_array();

	if (!root || !knobs || !missing) {
		json_object_put(knobs);
		json_object_put(missing);
		return oom();
	}
	json_object_object_add(root, "hctl", json_object_new_string(lu->hctl));
	if (lu->block)
		json_object_object_add(root, "block", json_object_new_string(lu->block));
	json_object_object_add(root, "patchset",
	                       json_object_new_boolean(errpolicy_has_patchset(p)));
	for (ErrKnob k = 0; k < _ERRKNOB_MAX; k++) {
		json_object *o = json_object_new_object();

		if (!o)
			return oom();
		json_object_object_add(o, "supported", json_object_new_boolean(p->present[k]));
		json_object_object_add(o, "writable", json_object_new_boolean(errknob_writable(k)));
		if (p->present[k] && p->error[k] == 0)
			json_object_object_add(o, "value", json_object_new_string(p->value[k]));
		else
			json_object_object_add(o, "value", NULL);
		json_object_object_add(knobs, errknob_to_string(k), o);
		if (knob_missing_from_kernel(p, k))
			json_object_array_add(missing,
			                      json_object_new_string(errknob_to_string(k)));
	}
	json_object_object_add(root, "knobs", knobs);
	json_object_object_add(root, "missing", missing);
	if (t->tport.kind == TPORT_NONE)
		json_object_object_add(root, "transport", NULL);
	else {
		json_object *tp = json_object_new_object(), *tk = json_object_new_object();

		if (!tp || !tk) {
			json_object_put(tp);
			json_object_put(tk);
			return oom();
		}
		json_object_object_add(tp, "kind",
		                       json_object_new_string(tport_kind_to_string(t->tport.kind)));
		json_object_object_add(tp, "name", json_object_new_string(t->tport.name));
		for (TportKnob k = 0; k < _TPORT_KNOB_MAX; k++)
			if (tport_knob_kind(k) == t->tport.kind)
				json_object_object_add(
				        tk, tport_knob_to_string(k),
				        t->value[k] ? json_object_new_string(t->value[k]) : NULL);
		json_object_object_add(tp, "knobs", tk);
		json_object_object_add(root, "transport", tp);
	}
	return output_json(stdout, root) < 0 ? EXIT_DEVICE : EXIT_OK;
}

static int parse_assignments(int n, char **args, Assignment *ret)
{
	for (int i = 0; i < n; i++) {
		char canon[ERRKNOB_VALUE_MAX];
		char *eq = strchr(args[i], '=');
		ErrKnob k;

		if (!eq) {
			log_error("'%s' is not KEY=VALUE", args[i]);
			return -EINVAL;
		}
		*eq = 0;
		k = errknob_from_string(args[i]);
		if (k < 0) {
			TportKnob tk = tport_knob_from_string(args[i]);
			char tcanon[TPORT_VALUE_MAX];

			if (tk < 0) {
				log_error("unknown knob '%s'", args[i]);
				return -EINVAL;
			}
			if (tport_knob_validate(tk, eq + 1, tcanon, sizeof(tcanon)) < 0) {
				_cleanup_free_ char *esc = output_escape(eq + 1, strlen(eq + 1));

				log_error("invalid value '%s' for %s (accepted: %s)", esc ?: "?",
				          args[i], tport_knob_help(tk));
				return -EINVAL;
			}
			ret[i] = (Assignment){ .knob = _ERRKNOB_INVALID,
				               .tknob = tk,
				               .value = eq + 1 };
			continue;
		}
		if (!errknob_writable(k)) {
			log_error("%s is a read-only counter", args[i]);
			return -EINVAL;
		}
		if (errknob_validate(k, eq + 1, canon, sizeof(canon)) < 0) {
			_cleanup_free_ char *esc = output_escape(eq + 1, strlen(eq + 1));

			log_error("invalid value '%s' for %s (accepted: %s)", esc ?: "?", args[i],
			          errknob_help(k));
			return -EINVAL;
		}
		ret[i] = (Assignment){ .knob = k, .tknob = _TPORT_KNOB_INVALID, .value = eq + 1 };
	}
	return 0;
}

/* The transport's assignments, in the order tport_apply() finds for them. */
static int set_transport(int rootfd, const char *arg, const LuRef *lu, const TportView *t,
                         const Assignment *set, int n_set)
{
	_cleanup_(tport_result_done) TportResult res = {};
	const char *want[_TPORT_KNOB_MAX] = {};
	int r;

	for (int i = 0; i < n_set; i++)
		if (set[i].tknob >= 0)
			want[set[i].tknob] = set[i].value;
	r = tport_apply(rootfd, &t->tport, want, &res);
	if (r < 0)
		return oom();
	for (TportKnob k = 0; k < _TPORT_KNOB_MAX; k++)
		if (want[k] && res.error[k] < 0) {
			log_error_errno(res.error[k], "%s (%s): failed to set %s %s=%s: %m%s", arg,
			                lu->hctl, t->tport.name, tport_knob_to_string(k), want[k],
			                res.error[k] == -EINVAL ? " (the kernel refused it)" : "");
			return EXIT_DEVICE;
		}
	return EXIT_OK;
}

/* @lu's error policy and transport, in @p and @t (what they held before is freed). Logs why
 * not, naming @arg. Returns the exit code. */
static int read_policy(int rootfd, const char *arg, const LuRef *lu, ErrPolicy *p, TportView *t)
{
	int r;

	errpolicy_done(p);
	tport_view_done(t);
	r = errpolicy_read(rootfd, lu->syspath, lu->hctl, p);
	if (r < 0)
		return log_error_errno(r, "%s (%s): failed to read its policy: %m", arg, lu->hctl),
		       EXIT_DEVICE;
	r = tport_view_read(rootfd, lu->syspath, t);
	if (r < 0)
		return log_error_errno(r, "%s (%s): failed to find its transport: %m", arg,
		                       lu->hctl),
		       EXIT_DEVICE;
	return EXIT_OK;
}

int verb_policy(int argc, char *argv[], Options *o)
{
	static const struct option longopts[] = { { "json", no_argument, NULL, 'J' },
		                                  { "help", no_argument, NULL, 'h' },
		                                  {} };
	_cleanup_(lu_ref_done) LuRef lu = {};
	_cleanup_(errpolicy_done) ErrPolicy p = {};
	_cleanup_(tport_view_done) TportView t = {};
	_cleanup_close_ int rootfd = -EBADF;
	_cleanup_free_ Assignment *set = NULL;
	const char *arg;
	int c, r, n_set;

	while ((c = lunctl_getopt(argc, argv, "Jh", longopts, o, "policy")) != -1) {
		switch (c) {
		case 'h':
			printf("Usage: lunctl policy [--json] DEVICE [KEY=VALUE ...]\n"
			       "DEVICE: /dev/sdX (or sdX), /dev/sgN, /dev/srN, /dev/stN, "
			       "a /sys path or H:C:T:L\n"
			       "KEY: timeout eh_timeout max_retries queue_depth retry_limit "
			       "failfast evt_error evt_error_burst evt_error_interval_ms,\n"
			       "     and the transport's: recovery_tmo (iSCSI session), "
			       "fast_io_fail_tmo dev_loss_tmo (FC remote port)\n");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "lunctl policy: expected a DEVICE\n");
		return EXIT_USAGE;
	}
	arg = argv[optind];
	n_set = argc - optind - 1;

	/* Every assignment is checked before the device is even looked at. */
	if (n_set > 0) {
		set = calloc(n_set, sizeof(Assignment));
		if (!set)
			return oom();
		if (parse_assignments(n_set, argv + optind + 1, set) < 0)
			return EXIT_USAGE;
	}

	r = lunctl_resolve(o, arg, 0, &rootfd, &lu);
	if (r != EXIT_OK)
		return r;

	r = read_policy(rootfd, arg, &lu, &p, &t);
	if (r != EXIT_OK)
		return r;

	if (n_set > 0) {
		bool missing = false;

		for (int i = 0; i < n_set; i++)
			if (set[i].tknob >= 0) {
				TportKind want = tport_knob_kind(set[i].tknob);

				if (t.tport.kind == want)
					continue;
				log_error("%s (%s): %s is an %s transport's, this LU is on %s", arg,
				          lu.hctl, tport_knob_to_string(set[i].tknob),
				          want == TPORT_ISCSI ? "iSCSI" : "FC",
				          t.tport.kind == TPORT_NONE ? "neither iSCSI nor FC"
				                                     : t.tport.name);
				missing = true;
			} else if (!p.present[set[i].knob]) {
				ErrKnob k = set[i].knob;

				log_error("%s (%s): %s is not supported %s", arg, lu.hctl,
				          errknob_to_string(k),
				          errknob_disk_only(k) ? "on this LU (not an sd disk)"
				          : errknob_patched(k) ? "by this kernel (the lund kernel "
				                                 "companion patchset adds it)"
				                               : "by this kernel");
				missing = true;
			}
		if (missing)
			return EXIT_DEVICE;

		for (int i = 0; i < n_set; i++) {
			if (set[i].tknob >= 0)
				continue;
			r = errpolicy_write(rootfd, lu.syspath, lu.hctl, set[i].knob, set[i].value);
			if (r < 0) {
				log_error_errno(r, "%s (%s): failed to set %s=%s: %m%s", arg,
				                lu.hctl, errknob_to_string(set[i].knob),
				                set[i].value,
				                r == -EINVAL ? " (the kernel refused it)" : "");
				return EXIT_DEVICE;
			}
		}

		r = set_transport(rootfd, arg, &lu, &t, set, n_set);
		if (r != EXIT_OK)
			return r;

		/* What the kernel made of the values, as it shows them now. */
		r = read_policy(rootfd, arg, &lu, &p, &t);
		if (r != EXIT_OK)
			return r;
	}

	if (o->output == OUTPUT_JSON)
		return print_json(&lu, &p, &t);
	return print_human(&lu, &p, &t);
}
