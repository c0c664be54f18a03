/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-util.h"

int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(path);
}

/*
 * Trees not removed yet. A failed assertion ends the test's process (check forks one per test)
 * or, without forking, jumps past the test's own check_tree_remove(): whatever is still here
 * when the process exits is removed then, so a failing test leaves no directory behind.
 */
static char live_trees[16][PATH_MAX];

static void remove_live_trees(void)
{
	for (size_t i = 0; i < ELEMENTSOF(live_trees); i++)
		if (live_trees[i][0]) {
			(void)nftw(live_trees[i], rm_entry, 16, FTW_DEPTH | FTW_PHYS);
			live_trees[i][0] = 0;
		}
}

static void live_tree_set(const char *path, bool live)
{
	static bool registered;

	if (!registered)
		registered = atexit(remove_live_trees) == 0;
	for (size_t i = 0; i < ELEMENTSOF(live_trees); i++)
		if (live ? !live_trees[i][0] : streq(live_trees[i], path)) {
			if (live)
				xsnprintf(live_trees[i], "%s", path);
			else
				live_trees[i][0] = 0;
			return;
		}
}

void check_tree_new(CheckTree *t, const char *name)
{
	xsnprintf(t->path, "%s/%s-XXXXXX", getenv("TMPDIR") ?: "/tmp", name);
	ck_assert_ptr_nonnull(mkdtemp(t->path));
	live_tree_set(t->path, true);
	t->fd = open(t->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(t->fd, 0);
}

void check_tree_rm(const CheckTree *t, const char *rel)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s/%s", t->path, rel) < (int)sizeof(p))
		(void)nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void check_tree_remove(CheckTree *t)
{
	if (!t->path[0])
		return;
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -EBADF;
	(void)nftw(t->path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	live_tree_set(t->path, false);
	t->path[0] = 0;
}

/* mkdir -p of the directories in @p below the tree's own, and of @p itself when @last. */
static void mkdirs_below(const CheckTree *t, char *p, bool last)
{
	for (char *s = p + strlen(t->path) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		(void)mkdir(p, 0755);
		*s = '/';
	}
	if (last)
		(void)mkdir(p, 0755);
}

void check_tree_mkdirs(const CheckTree *t, const char *rel)
{
	char p[PATH_MAX];

	xsnprintf(p, "%s/%s", t->path, rel);
	mkdirs_below(t, p, true);
}

void check_tree_put(const CheckTree *t, const char *rel, const void *data, size_t len)
{
	char p[PATH_MAX];
	FILE *f;

	xsnprintf(p, "%s/%s", t->path, rel);
	mkdirs_below(t, p, false);
	f = fopen(p, "we");
	ck_assert_msg(f, "%s: %m", p);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

void check_tree_put_str(const CheckTree *t, const char *rel, const char *s)
{
	check_tree_put(t, rel, s, strlen(s));
}

static char *read_all(FILE *f, bool skip_comments, size_t *ret_len)
{
	char *line = NULL, *out = NULL;
	size_t size = 0, len = 0;
	FILE *o = open_memstream(&out, &len);
	ssize_t n;

	ck_assert_ptr_nonnull(o);
	while ((n = getline(&line, &size, f)) >= 0)
		if (!skip_comments || line[0] != '#')
			ck_assert_uint_eq(fwrite(line, 1, (size_t)n, o), (size_t)n);
	free(line);
	ck_assert_int_eq(fclose(o), 0);
	if (ret_len)
		*ret_len = len;
	return out;
}

char *check_tree_get(const CheckTree *t, const char *rel)
{
	char p[PATH_MAX], *s;
	FILE *f;

	xsnprintf(p, "%s/%s", t->path, rel);
	f = fopen(p, "re");
	if (!f)
		return NULL;
	s = read_all(f, false, NULL);
	fclose(f);
	return s;
}

char *check_read_file(const char *path, bool skip_comments, size_t *ret_len)
{
	FILE *f = fopen(path, "re");
	char *s;

	ck_assert_msg(f, "%s: %m", path);
	s = read_all(f, skip_comments, ret_len);
	fclose(f);
	return s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **check_fixture_list(const char *dir, const char *suffix, size_t *ret_n)
{
	size_t n = 0, sl = strlen(suffix);
	char **names = NULL;
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l <= sl || strcmp(de->d_name + l - sl, suffix) != 0)
			continue;
		names = realloc(names, (n + 2) * sizeof(*names));
		if (!names || !(names[n++] = strndup(de->d_name, l - sl))) {
			fprintf(stderr, "out of memory\n");
			exit(EXIT_FAILURE);
		}
		names[n] = NULL;
	}
	if (d)
		closedir(d);
	if (n == 0) {
		fprintf(stderr, "no *%s fixtures in %s\n", suffix, dir);
		exit(EXIT_FAILURE);
	}
	qsort(names, n, sizeof(*names), cmp_str);
	*ret_n = n;
	return names;
}

static void put_node(const CheckTree *t, const char *dir, const char *cls, const CheckLuNode *n)
{
	char p[PATH_MAX];

	if (!n->name)
		return;
	xsnprintf(p, "%s/%s/%s%s", dir, cls, n->name, n->dev ? "/dev" : "");
	if (n->dev)
		check_tree_put_str(t, p, n->dev);
	else
		check_tree_mkdirs(t, p);
}

void check_tree_put_lu(const CheckTree *t, const CheckLu *lu)
{
	char d[PATH_MAX], p[PATH_MAX], v[32];

	if (lu->parent) {
		char link[PATH_MAX];

		xsnprintf(d, "sys/devices/%s/%s", lu->parent, lu->hctl);
		check_tree_mkdirs(t, d);
		check_tree_mkdirs(t, "sys/bus/scsi/devices");
		xsnprintf(link, "sys/bus/scsi/devices/%s", lu->hctl);
		xsnprintf(p, "../../../devices/%s/%s", lu->parent, lu->hctl);
		ck_assert_msg(symlinkat(p, t->fd, link) == 0, "symlink %s: %m", link);
	} else
		xsnprintf(d, "sys/bus/scsi/devices/%s", lu->hctl);

	xsnprintf(p, "%s/type", d);
	xsnprintf(v, "%d\n", lu->type);
	check_tree_put_str(t, p, v);
	if (lu->scsi_level) {
		xsnprintf(p, "%s/scsi_level", d);
		xsnprintf(v, "%d\n", lu->scsi_level);
		check_tree_put_str(t, p, v);
	}
	for (size_t i = 0; i < 3; i++) {
		static const char *const names[] = { "vendor", "model", "rev" };
		static const int widths[] = { 8, 16, 4 };
		const char *s = i == 0 ? lu->vendor : i == 1 ? lu->model : lu->rev;

		if (!s)
			continue;
		xsnprintf(p, "%s/%s", d, names[i]);
		xsnprintf(v, "%-*.*s\n", widths[i], widths[i],
		          s); /* padded, as the kernel has it */
		check_tree_put_str(t, p, v);
	}
	if (lu->inquiry) {
		uint8_t inq[36] = { (uint8_t)lu->type, 0, 6, 2, 31 };

		xsnprintf(v, "%-8.8s%-16.16s%-4.4s", lu->vendor ?: "", lu->model ?: "",
		          lu->rev ?: "");
		memcpy(inq + 8, v, 28);
		xsnprintf(p, "%s/inquiry", d);
		check_tree_put(t, p, inq, sizeof(inq));
	}
	put_node(t, d, "block", &lu->block);
	put_node(t, d, "scsi_generic", &lu->sg);
	put_node(t, d, "scsi_tape", &lu->tape);
	for (const CheckAttr *a = lu->attrs; a < lu->attrs + ELEMENTSOF(lu->attrs) && a->name;
	     a++) {
		xsnprintf(p, "%s/%s", d, a->name);
		if (p[strlen(p) - 1] == '/')
			check_tree_mkdirs(t, p);
		else if (a->value)
			check_tree_put_str(t, p, a->value);
		else
			check_tree_put(t, p, a->data, a->len);
	}
}

char *check_unsum(char *text)
{
	size_t len;
	char *l;

	ck_assert_ptr_nonnull(text);
	len = strlen(text);
	ck_assert_uint_ge(len, 22);
	ck_assert_int_eq(text[len - 1], '\n');
	l = text + len - 22;
	ck_assert_msg(l == text || l[-1] == '\n', "the checksum line is not a line of its own");
	ck_assert_msg(strneq(l, "#sum ", 5), "no checksum line at the end of:\n%s", text);
	ck_assert_uint_eq(strspn(l + 5, "0123456789abcdef"), 16);
	*l = 0;
	return text;
}
