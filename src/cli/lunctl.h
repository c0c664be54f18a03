/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>

#include "exclusion.h"
#include "hostfacts.h"
#include "linkscheme.h"
#include "namerule.h"
#include "probe.h"

/* Exit codes, documented in lunctl(8). */
enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,     /* bad command line */
	EXIT_DEVICE = 2,    /* device missing, not SCSI, or an I/O error talking to it */
	EXIT_MALFORMED = 3, /* the device (or the file) sent malformed data */
};

typedef enum OutputMode {
	OUTPUT_HUMAN,
	OUTPUT_EXPORT,
	OUTPUT_JSON,
} OutputMode;

typedef struct Options {
	const char *root; /* operate on a tree unpacked at this directory instead of "/" */
	OutputMode output;
	bool sysfs_only;
	bool sgio_only;
	/* lunctl names --diff --config/--hwdb: the lund.conf and compiled hwdb the names are
	 * computed under; NULL: the installed ones. */
	const char *conf_path;
	const char *hwdb_path;
} Options;

typedef struct LuRef LuRef;

/*
 * lunctl_open_root() - the directory fd of --root (or "/") in *ret. Logs why not and returns
 * EXIT_USAGE on failure, else EXIT_OK.
 */
int lunctl_open_root(const Options *o, int *ret);

/*
 * lunctl_resolve() - open --root (lunctl_open_root()) and find in it the LU an admin named: a
 * device node (or its bare name, "sda", as kernel messages print it), a /sys path or H:C:T:L,
 * as @flags ask (probe_resolve_full()). Logs one line naming @arg and the reason on failure.
 * Returns EXIT_OK with the root's fd in @ret_rootfd and @ret filled, or the exit code to return
 * (nothing to close then).
 */
int lunctl_resolve(const Options *o, const char *arg, ProbeResolveFlags flags, int *ret_rootfd,
                   LuRef *ret);

/*
 * lunctl_getopt() - getopt_long() that takes the output options of lunctl and its verbs itself:
 * -x/--export and -J/--json set @o->output and are not returned (where @longopts has them), as
 * are the global options (--root, --sysfs-only, --sgio-only, --timeout, --version) where the
 * verb has none of the same name. On '?' (an unknown option, a
 * missing argument) it first points at `lunctl @verb --help` (`lunctl --help` for NULL @verb).
 */
int lunctl_getopt(int argc, char *argv[], const char *shortopts, const struct option *longopts,
                  Options *o, const char *verb);

/* An option of a peer tool (rescan-scsi-bus.sh, lsscsi) that means something else, or nothing,
 * in lunctl: refused with what to use instead, so that none silently does the wrong thing. */
typedef struct ForeignOption {
	int letter;       /* short option, or 0 */
	const char *name; /* long option, or NULL */
	bool arg;         /* takes an argument */
	const char *what; /* what it does in @tool */
	const char *here; /* what to use with lunctl, and why */
} ForeignOption;
typedef struct ForeignOptions {
	const char *tool;
	const ForeignOption *options;
	size_t n;
} ForeignOptions;
/*
 * lunctl_getopt_foreign() - lunctl_getopt() that also knows @foreign's options (those the verb
 * does not have itself) and refuses each: "'-X' is TOOL's "WHAT"; HERE.", then returns '?'.
 */
int lunctl_getopt_foreign(int argc, char *argv[], const char *shortopts,
                          const struct option *longopts, const ForeignOptions *foreign, Options *o,
                          const char *verb);

/* The exit code once a verb has printed its result: EXIT_OK for @r >= 0, else EXIT_DEVICE with
 * @r logged as why printing failed. */
int lunctl_printed(int r);

/* Map a negative errno from the engine to the exit code. */
int exit_code_from_errno(int r);

int verb_decode(int argc, char *argv[], Options *o);
int verb_id(int argc, char *argv[], Options *o);

/*
 * lunctl_identify() - resolve @arg below --root and identify it as @o asks (engine/identify.h),
 * logging one line naming @arg on failure and a warning when every by-id name was refused.
 * Returns EXIT_OK with @ret_lu and @ret filled, or the exit code to return. (lunctl-id.c)
 */
typedef struct Identity Identity;
int lunctl_identify(const Options *o, const char *arg, LuRef *ret_lu, Identity *ret);
/* A JSON object with the nodes @lu has ("block", "tape", "sg"); NULL on ENOMEM. */
json_object *lunctl_nodes_json(const LuRef *lu);
/* lunctl names DEV --why (lunctl-why.c): the rule and source of each name of @i, its aliases
 * and links (@links, lunctl_links()), and what scsi_id made of each page 0x83 designator.
 * Returns the exit code. */
typedef struct LunctlLinks LunctlLinks;
int lunctl_names_why(const Options *o, const LuRef *lu, const Identity *i,
                     const LunctlLinks *links);
/* What lund.conf(5)'s exclusions and reactions and the hwdb's naming rules judge an LU on, from
 * sysfs below @rootfd (none when it is negative): its address, type, INQUIRY vendor, model and
 * revision (@lu->syspath NULL: none), its host's driver and transport, and the IDs of @i (NULL:
 * none), as lund judges it. (lunctl-why.c) */
typedef struct LunctlFacts {
	ExclusionFacts f; /* its strings are the ones below and @i's */
	char *vendor, *model, *rev;
	HostFacts host;
} LunctlFacts;
void lunctl_facts_read(int rootfd, const LuRef *lu, const Identity *i, LunctlFacts *ret);
void lunctl_facts_done(LunctlFacts *x);
/* lund.conf(5) EXCLUSIONS and REACTIONS: the verdicts lund gives @lu, by the lund.conf lund
 * reads (--config, else the installed one below --root): 0 with *ret and @ret_react (one per
 * ReactAction) set and the file in *ret_conf (NULL when there is none to read), -ENOMEM.
 * (lunctl-why.c) */
int lunctl_lu_verdicts(const Options *o, const LuRef *lu, const Identity *i, LundConf **ret_conf,
                       ExclusionVerdict *ret, ReactVerdict ret_react[_REACT_ACTION_MAX]);
/* The name of @i in /dev/scsi/by-id when the hwdb's rule gives it one in place of its base
 * names (lund.hwdb(7): serial-path, unit-serial), as lund makes it: 1 and the name in @ret; 0
 * when its base names stand (@ret ""); -errno. The rule looked up goes into *@ret_rule (may be
 * NULL) either way. (lunctl-why.c) */
int lunctl_rule_name(const Options *o, const LuRef *lu, const Identity *i, NameRule *ret_rule,
                     char ret[static NAME_MAX + 1]);
/* The aliases of @i (lund(8), Naming contract): the by-id base names recorded for its identity
 * in @state_dir below --root that link_scheme_alias() keeps for its link scheme input @in.
 * *ret (strv, free with strv_free_n()) and *ret_n; no records is none. Returns 0, -errno
 * (logged). (lunctl-names-state.c) */
int lunctl_names_aliases(const Options *o, const char *state_dir, const Identity *i,
                         const LinkSchemeInput *in, char ***ret, size_t *ret_n);
void strv_free_n(char **v, size_t n);

/* The links lund gives one LU (engine/linkscheme.h), in every link set, and what they were
 * computed from: @in's strings point into this struct, @i and the aliases. (lunctl-links.c) */
typedef struct LunctlLinks {
	LinkSchemeInput in;
	LinkScheme scheme;
	LinkSchemePart *parts;
	size_t n_parts;
	const char **names;
	char *tape_nr, *mpath, *rule_name;
	char **aliases; /* @in.aliases, @in.n_aliases of them */
} LunctlLinks;
/*
 * lunctl_links() - the links of @lu, identified as @i: its type, partitions and dm-multipath
 * map read from sysfs below --root, the hwdb's rule looked up as lund does
 * (lunctl_rule_name()), its aliases from the records in @state_dir (NULL: none,
 * lunctl_names_aliases()). @i must outlive @ret. Returns 0, -errno.
 */
int lunctl_links(const Options *o, const LuRef *lu, const Identity *i, const char *state_dir,
                 LunctlLinks *ret);
void lunctl_links_done(LunctlLinks *l);
/* [{path, set, name, node, alias, reason}] of @l's links; NULL on ENOMEM. */
json_object *lunctl_links_json(const LunctlLinks *l);
/* One line per link: "link   /dev/<dir>/<name> -> <node> (<reason>)". */
void lunctl_links_print(const LunctlLinks *l);
/* lunctl names --diff / --accept (lunctl-names-state.c), against the name records in
 * @state_dir below --root. --diff computes the names under lund.conf @conf_path and the hwdb
 * @hwdb_path (source text, compiled here, or compiled; NULL: the installed ones) and returns 1
 * when a change is pending, 2 on any error; --accept accepts the names of @dev, or of every LU
 * when NULL. Return the exit code. */
int lunctl_names_diff(const Options *o, const char *state_dir, const char *conf_path,
                      const char *hwdb_path);
int lunctl_names_accept(const Options *o, const char *state_dir, const char *dev);
int verb_list(int argc, char *argv[], Options *o);
int verb_monitor(int argc, char *argv[], Options *o);
int verb_names(int argc, char *argv[], Options *o);
int verb_check_config(int argc, char *argv[], Options *o);
int verb_status(int argc, char *argv[], Options *o);
int verb_reload(int argc, char *argv[], Options *o);
int verb_resync(int argc, char *argv[], Options *o);
int verb_settle(int argc, char *argv[], Options *o);

/*
 * lunctl_daemon_call() - one request to lund ({"cmd": @cmd} plus @key: @value when given).
 * Returns EXIT_OK with *ret the reply, or logs why not and returns the exit code to use.
 */
int lunctl_daemon_call(const char *cmd, const char *key, const char *value, json_object **ret);
/* lunctl_daemon_request() - the same for the request @req (its "cmd" named in messages, @what
 * before lund's message when not NULL). */
int lunctl_daemon_request(json_object *req, const char *what, json_object **ret);
/* Of lund's "collisions" (lund(8), CONTROL PROTOCOL "status"): is @c the names paths of one LU
 * want, and do @a and @b have the same owners (one LU through the same paths)? (lunctl-names.c) */
bool lunctl_collision_is_paths(json_object *c);
bool lunctl_collision_same_owners(json_object *a, json_object *b);
/* " OWNER" for each owner of @c but @except (NULL: none). */
void lunctl_collision_print_owners(json_object *c, const char *except);
int verb_hold(int argc, char *argv[], Options *o);
/* The "holds" of lund's status or hold reply, one line each. */
void lunctl_print_holds(json_object *holds);
int verb_release(int argc, char *argv[], Options *o);
int verb_rescan(int argc, char *argv[], Options *o);
int verb_policy(int argc, char *argv[], Options *o);
