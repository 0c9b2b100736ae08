/*
 * store.c: the per-user, munge-signed profile store (see store.h).
 *
 * Every step below the root goes through openat(O_NOFOLLOW) on a directory
 * descriptor already checked, so a symlink planted anywhere in the store
 * cannot lead a reader (slurmctld, often root) to a file outside it, and a
 * directory renamed under our feet cannot either: we never re-resolve a
 * path we have checked.
 */
#include "tp_config.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app_identity.h"
#include "store.h"
#include "summary.h"
#include "tp_file.h"

#define PAYLOAD_MAX    (32 + 64 + 2 * TP_STORE_NAME_MAX + 8)
#define PAYLOAD_TAG    "topoplace-profile-v1"
#define TMP_PREFIX     ".tmp-"
#define PROFILE_SUFFIX ".tpp"

tp_store_options tp_store_default_options(void)
{
	tp_store_options opt;

	memset(&opt, 0, sizeof(opt));
	opt.keep = TP_STORE_DEFAULT_KEEP;
	opt.max_age_s = TP_STORE_DEFAULT_MAX_AGE_S;
	opt.limits = tp_profile_default_limits();
	return opt;
}

int tp_store_valid_name(const char *name)
{
	size_t n = strnlen(name, TP_STORE_NAME_MAX + 1);

	if (n == 0 || n > TP_STORE_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		         (c >= '0' && c <= '9') || c == '_';

		/* No leading '.', '-' or '+': no "..", no hidden, no option. */
		if (!ok && !(i && (c == '.' || c == '-' || c == '+')))
			return 0;
	}
	return 1;
}

/* A stored run's file name: hex digits and '-', then ".tpp". */
static int valid_file_name(const char *file)
{
	size_t n = strnlen(file, TP_STORE_FILE_MAX + 1);
	size_t suffix = strlen(PROFILE_SUFFIX);

	if (n <= suffix || n > TP_STORE_FILE_MAX ||
	    strcmp(file + n - suffix, PROFILE_SUFFIX))
		return 0;
	for (size_t i = 0; i < n - suffix; i++)
		if (!((file[i] >= '0' && file[i] <= '9') ||
		      (file[i] >= 'a' && file[i] <= 'f') || file[i] == '-'))
			return 0;
	return 1;
}

/* "<stamp>.sum" for run "<stamp>.tpp" (a valid run file name). */
static void summary_name(const char *run, char out[TP_STORE_FILE_MAX + 1])
{
	size_t stem = strlen(run) - strlen(PROFILE_SUFFIX);

	snprintf(out, TP_STORE_FILE_MAX + 1, "%.*s%s", (int)stem, run,
	         TP_SUMMARY_SUFFIX);
}

static int64_t mtime_ns(const struct stat *sb)
{
	return (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
}

tp_status tp_store_namespace_owner(const char *ns, uid_t *uid, tp_error *err)
{
	struct passwd pw, *found = NULL;
	char buf[4096];
	int rc;

	if (!tp_store_valid_name(ns))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "namespace '%.64s': not a valid name", ns);
	if (!strcmp(ns, TP_STORE_SITE_NAMESPACE)) {
		*uid = 0;
		return TP_OK;
	}
	rc = getpwnam_r(ns, &pw, buf, sizeof(buf), &found);
	if (rc || !found)
		return tp_error_set(err, TP_ERR_NOTFOUND,
		                    "namespace '%s': no such user%s%s", ns,
		                    rc ? ": " : "", rc ? strerror(rc) : "");
	*uid = found->pw_uid;
	return TP_OK;
}

void tp_store_payload(const uint8_t digest[TP_SHA256_BYTES], const char *ns,
                      const char *name, char *out, size_t out_size)
{
	char hex[65];

	tp_sha256_hex(digest, hex);
	snprintf(out, out_size, "%s %s %s %s", PAYLOAD_TAG, hex, ns, name);
}

static tp_status check_options(const tp_store_options *opt, tp_error *err)
{
	if (!opt || !opt->root || !opt->auth || !opt->auth->sign ||
	    !opt->auth->verify)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "profile store: root and auth must be set");
	if (opt->keep == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "profile store %s: keep must be >= 1",
		                    opt->root);
	return TP_OK;
}

static tp_status check_names(const char *ns, const char *name, tp_error *err)
{
	if (!tp_store_valid_name(ns))
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "namespace '%.64s': not a valid name "
		    "([A-Za-z0-9_][A-Za-z0-9_.+-]*, at most %d)",
		    ns, TP_STORE_NAME_MAX);
	if (name && !tp_store_valid_name(name))
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "profile name '%.64s': not a valid name "
		    "([A-Za-z0-9_][A-Za-z0-9_.+-]*, at most %d)",
		    name, TP_STORE_NAME_MAX);
	return TP_OK;
}

/*
 * Open the store root.  The path itself is configuration (trusted), but
 * its last component must not be a symlink.  Readers accept a root others
 * can write if it is sticky (older stores were 1777; every namespace is
 * still checked against its owner).  Writers (@for_write) refuse any root
 * writable by group or others: there another user could create, and so
 * block, anyone's namespace, or create "site".
 */
static tp_status open_root(const tp_store_options *opt, int for_write, int *fd,
                           tp_error *err)
{
	struct stat st;
	int saved;

	*fd = open(opt->root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0) {
		saved = errno;
		return tp_error_set(
		    err, saved == ENOENT ? TP_ERR_NOTFOUND : TP_ERR_IO,
		    "profile store %s: %s", opt->root,
		    saved == ELOOP || saved == ENOTDIR
		        ? "is a symbolic link or not a "
		          "directory"
		        : strerror(saved));
	}
	if (fstat(*fd, &st)) {
		saved = errno;
		close(*fd);
		*fd = -1;
		return tp_error_set(err, TP_ERR_IO,
		                    "profile store %s: fstat: %s", opt->root,
		                    strerror(saved));
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
	    (for_write || !(st.st_mode & S_ISVTX))) {
		close(*fd);
		*fd = -1;
		if (for_write)
			return tp_error_set(
			    err, TP_ERR_AUTH,
			    "profile store %s: mode %04o: other users could "
			    "create or block any user's namespace: refused "
			    "for writing (make it root-owned, mode 0755 or "
			    "0711; see topoplace.conf(5))",
			    opt->root, (unsigned)(st.st_mode & 07777));
		return tp_error_set(err, TP_ERR_AUTH,
		                    "profile store %s: writable by group or "
		                    "others without the sticky bit: refused",
		                    opt->root);
	}
	return TP_OK;
}

/*
 * Open directory @entry under @parent without following a symlink, and
 * check it belongs to @owner and only @owner can write it.  With @create,
 * make it (0700: a user's traffic matrices are nobody else's business)
 * first if missing; @cannot_create is appended to the error when that is
 * not permitted.  @label is the path shown in errors.
 */
static tp_status open_owned_dir(int parent, const char *entry, uid_t owner,
                                int create, const char *cannot_create,
                                const char *label, int *fd, tp_error *err)
{
	struct stat st;
	int saved;

	*fd = openat(parent, entry,
	             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0 && errno == ENOENT && create) {
		if (mkdirat(parent, entry, 0700) && errno != EEXIST) {
			saved = errno;
			return tp_error_set(
			    err, TP_ERR_IO, "%s: mkdir: %s%s", label,
			    strerror(saved),
			    (saved == EACCES || saved == EPERM) && cannot_create
			        ? cannot_create
			        : "");
		}
		*fd = openat(parent, entry,
		             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (*fd < 0) {
		saved = errno;
		if (saved == ENOENT)
			return tp_error_set(err, TP_ERR_NOTFOUND,
			                    "%s: no such profile directory",
			                    label);
		return tp_error_set(err, TP_ERR_IO, "%s: %s", label,
		                    saved == ELOOP || saved == ENOTDIR
		                        ? "is a symbolic link or not a "
		                          "directory: refused"
		                        : strerror(saved));
	}
	if (fstat(*fd, &st)) {
		saved = errno;
		close(*fd);
		*fd = -1;
		return tp_error_set(err, TP_ERR_IO, "%s: fstat: %s", label,
		                    strerror(saved));
	}
	if (st.st_uid != owner || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(*fd);
		*fd = -1;
		return tp_error_set(err, TP_ERR_AUTH,
		                    "%s: directory owned by uid %u mode %03o, "
		                    "namespace owner is uid %u and only it may "
		                    "write: refused",
		                    label, (unsigned)st.st_uid,
		                    (unsigned)(st.st_mode & 0777),
		                    (unsigned)owner);
	}
	return TP_OK;
}

/* Open the <ns>/<name> directory of the store (creating it for writers). */
static tp_status open_name_dir(const tp_store_options *opt, const char *ns,
                               const char *name, uid_t owner, int create,
                               int *fd, tp_error *err)
{
	char label[4096 + 2 * TP_STORE_NAME_MAX];
	int root, nsfd;
	tp_status st;

	st = open_root(opt, create, &root, err);
	if (st != TP_OK)
		return st;
	snprintf(label, sizeof(label), "%s/%s", opt->root, ns);
	/* In a root-owned store only root makes a user's namespace. */
	st = open_owned_dir(root, ns, owner, create,
	                    " (the namespace is made by root: task/topoplace "
	                    "at a --comm-record step, or `topoplace profile "
	                    "prepare USER`)",
	                    label, &nsfd, err);
	close(root);
	if (st != TP_OK)
		return st;
	snprintf(label, sizeof(label), "%s/%s/%s", opt->root, ns, name);
	st = open_owned_dir(nsfd, name, owner, create, NULL, label, fd, err);
	close(nsfd);
	return st;
}

/*
 * Check @opt and the names, and open the existing directory of
 * application @ns/@name for a reader or pruner: *@owner is the
 * namespace's owner, *@dirfd the directory (the caller closes it), @label
 * its path for errors.
 */
static tp_status open_app_dir(const tp_store_options *opt, const char *ns,
                              const char *name, uid_t *owner, int *dirfd,
                              char label[4096 + 2 * TP_STORE_NAME_MAX],
                              tp_error *err)
{
	tp_status st;

	if ((st = check_options(opt, err)) != TP_OK ||
	    (st = check_names(ns, name, err)) != TP_OK ||
	    (st = tp_store_namespace_owner(ns, owner, err)) != TP_OK)
		return st;
	st = open_name_dir(opt, ns, name, *owner, 0, dirfd, err);
	if (st == TP_OK)
		snprintf(label, 4096 + 2 * TP_STORE_NAME_MAX, "%s/%s/%s",
		         opt->root, ns, name);
	return st;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_files(char **files, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(files[i]);
	free(files);
}

/* Which entries of a store directory a listing keeps. */
typedef bool (*entry_filter)(int dirfd, const char *entry);

static bool is_run_file(int dirfd, const char *entry)
{
	(void)dirfd;
	return valid_file_name(entry);
}

/* A valid-named subdirectory, not a symlink to one. */
static bool is_name_dir(int dirfd, const char *entry)
{
	struct stat sb;

	return tp_store_valid_name(entry) &&
	       !fstatat(dirfd, entry, &sb, AT_SYMLINK_NOFOLLOW) &&
	       S_ISDIR(sb.st_mode);
}

/*
 * The entries of @dirfd that @keep accepts, sorted (run files sort oldest
 * first by their stamp).  @label names the directory in errors.
 */
static tp_status list_entries(int dirfd, const char *label, entry_filter keep,
                              char ***out, size_t *count, tp_error *err)
{
	size_t n = 0, cap = 0;
	char **names = NULL;
	struct dirent *d;
	DIR *dir;
	int dupfd = dup(dirfd);

	*out = NULL;
	*count = 0;
	if (dupfd < 0 || !(dir = fdopendir(dupfd))) {
		if (dupfd >= 0)
			close(dupfd);
		return tp_error_set(err, TP_ERR_IO, "%s: opendir: %s", label,
		                    strerror(errno));
	}
	rewinddir(dir);
	while ((d = readdir(dir))) {
		if (!keep(dirfd, d->d_name))
			continue;
		if (n == cap) {
			size_t bigger = cap ? 2 * cap : 16;
			char **grown = realloc(names, bigger * sizeof(*names));

			if (!grown)
				goto nomem;
			names = grown;
			cap = bigger;
		}
		if (!(names[n] = strdup(d->d_name)))
			goto nomem;
		n++;
	}
	closedir(dir);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	*out = names;
	*count = n;
	return TP_OK;
nomem:
	closedir(dir);
	free_files(names, n);
	return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", label);
}

/* time-ns, pid, 32 random bits: sorts by time, unique across writers. */
static void make_stamp(char *out, size_t size)
{
	struct timespec now;
	uint32_t rnd = 0;

	clock_gettime(CLOCK_REALTIME, &now);
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd ^= (uint32_t)now.tv_nsec * 2654435761u;
	snprintf(out, size, "%016llx-%08x-%08x",
	         (unsigned long long)now.tv_sec * 1000000000ull +
	             (unsigned long long)now.tv_nsec,
	         (unsigned)getpid(), rnd);
}

/*
 * Whether run @files[@index] of @count (sorted oldest first) goes: beyond
 * the newest opt->keep, or older than opt->max_age_s (see tp_store_prune).
 * A run whose time cannot be read is left to the next pruner.
 */
static bool run_expires(const tp_store_options *opt, int dirfd, char **files,
                        size_t count, size_t index, int64_t now_s)
{
	struct stat sb;

	if (index + opt->keep < count)
		return true;
	return opt->max_age_s > 0 &&
	       !fstatat(dirfd, files[index], &sb, AT_SYMLINK_NOFOLLOW) &&
	       now_s - (int64_t)sb.st_mtim.tv_sec > opt->max_age_s;
}

/* Drop the runs of one application that run_expires says go; races with
 * other pruners are harmless (ENOENT ignored). */
static tp_status prune_dir(const tp_store_options *opt, int dirfd,
                           const char *label, int64_t now_s, unsigned *removed,
                           tp_error *err)
{
	char **files;
	size_t count, kept = 0;
	tp_status st;

	*removed = 0;
	st = list_entries(dirfd, label, is_run_file, &files, &count, err);
	if (st != TP_OK)
		return st;
	for (size_t i = 0; i < count; i++) {
		char sum[TP_STORE_FILE_MAX + 1];

		if (!run_expires(opt, dirfd, files, count, i, now_s)) {
			kept++;
			continue;
		}
		if (unlinkat(dirfd, files[i], 0) && errno != ENOENT) {
			tp_log(opt->logger, TP_LOG_WARNING,
			       "%s/%s: cannot remove old run: %s", label,
			       files[i], strerror(errno));
			kept++;
			continue;
		}
		(*removed)++;
		summary_name(files[i], sum);
		if (unlinkat(dirfd, sum, 0) && errno != ENOENT)
			tp_log(opt->logger, TP_LOG_WARNING,
			       "%s/%s: cannot remove old summary: %s", label,
			       sum, strerror(errno));
	}
	/* No run left: nothing the record of its last use could speak of. */
	if (!kept && count)
		(void)unlinkat(dirfd, TP_STORE_LAST_USE_FILE, 0);
	free_files(files, count);
	return TP_OK;
}

/*
 * Write the summary of run @file (just stored, @profile decoded or
 * finished) beside it in @dirfd, atomically, owned by @owner, mode 0600.
 * @label names the directory in errors.
 */
static tp_status write_summary(int dirfd, const char *label, const char *file,
                               const tp_profile *profile, uid_t owner,
                               tp_error *err)
{
	char sum[TP_STORE_FILE_MAX + 1], stamp[48], tmp[96];
	tp_profile_summary summary;
	struct stat sb;
	char *text = NULL;
	tp_status st;
	int fd, saved;

	if (fstatat(dirfd, file, &sb, AT_SYMLINK_NOFOLLOW))
		return tp_error_set(err, TP_ERR_IO, "%s/%s: stat: %s", label,
		                    file, strerror(errno));
	if ((st = tp_summary_of_profile(profile, &summary, err)) != TP_OK)
		return tp_error_prefix(err, "%s/%s", label, file);
	snprintf(summary.profile_file, sizeof(summary.profile_file), "%s",
	         file);
	summary.profile_bytes = (uint64_t)sb.st_size;
	summary.profile_mtime_ns = mtime_ns(&sb);
	if ((st = tp_summary_format(&summary, &text, err)) != TP_OK)
		return st;
	summary_name(file, sum);
	make_stamp(stamp, sizeof(stamp));
	snprintf(tmp, sizeof(tmp), "%s%s%s", TMP_PREFIX, stamp,
	         TP_SUMMARY_SUFFIX);
	fd = openat(dirfd, tmp,
	            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		st = tp_error_set(err, TP_ERR_IO, "%s/%s: create: %s", label,
		                  tmp, strerror(errno));
		goto out;
	}
	/* Root summarising a user's store: the file is the user's, as the
	 * run is (readers check both owners alike). */
	if ((sb.st_uid != geteuid() && fchown(fd, owner, (gid_t)-1)) ||
	    tp_file_write_all(fd, text, strlen(text)) || fsync(fd)) {
		saved = errno;
		close(fd);
		unlinkat(dirfd, tmp, 0);
		st = tp_error_set(err, TP_ERR_IO, "%s/%s: write: %s", label,
		                  tmp, strerror(saved));
		goto out;
	}
	close(fd);
	if (renameat(dirfd, tmp, dirfd, sum)) {
		saved = errno;
		unlinkat(dirfd, tmp, 0);
		st = tp_error_set(err, TP_ERR_IO, "%s/%s: rename: %s", label,
		                  sum, strerror(saved));
		goto out;
	}
	fsync(dirfd);
out:
	free(text);
	return st;
}

tp_status tp_store_put(const tp_store_options *opt, const char *ns,
                       const char *name, tp_profile *profile,
                       char file[TP_STORE_FILE_MAX + 1], tp_error *err)
{
	char label[4096 + 2 * TP_STORE_NAME_MAX], payload[PAYLOAD_MAX];
	char stamp[48], final[TP_STORE_FILE_MAX + 1], tmp[64];
	char *cred = NULL;
	uint8_t *buf = NULL;
	size_t len;
	uid_t owner;
	tp_status st;
	int dirfd = -1, fd = -1, saved;

	if ((st = check_options(opt, err)) != TP_OK ||
	    (st = check_names(ns, name, err)) != TP_OK ||
	    (st = tp_store_namespace_owner(ns, &owner, err)) != TP_OK)
		return st;
	snprintf(label, sizeof(label), "%s/%s/%s", opt->root, ns, name);
	if (geteuid() != owner)
		return tp_error_set(err, TP_ERR_AUTH,
		                    "%s: namespace '%s' belongs to uid %u, you "
		                    "are uid %u: readers would refuse it",
		                    label, ns, (unsigned)owner,
		                    (unsigned)geteuid());
	st = tp_profile_compute_digest(profile, err);
	if (st != TP_OK)
		return tp_error_prefix(err, "%s", label);
	tp_store_payload(profile->digest, ns, name, payload, sizeof(payload));
	st = opt->auth->sign(opt->auth->data, payload, &cred, err);
	if (st != TP_OK)
		return tp_error_prefix(err, "%s: signing", label);
	free(profile->credential);
	profile->credential = cred;
	st = tp_profile_encode(profile, &buf, &len, err);
	if (st != TP_OK)
		return tp_error_prefix(err, "%s", label);
	st = open_name_dir(opt, ns, name, owner, 1, &dirfd, err);
	if (st != TP_OK)
		goto out;
	make_stamp(stamp, sizeof(stamp));
	snprintf(final, sizeof(final), "%s%s", stamp, PROFILE_SUFFIX);
	snprintf(tmp, sizeof(tmp), "%s%s", TMP_PREFIX, stamp);
	fd = openat(dirfd, tmp,
	            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		st = tp_error_set(err, TP_ERR_IO, "%s/%s: create: %s", label,
		                  tmp, strerror(errno));
		goto out;
	}
	/* fsync before rename: the name must never point at lost data. */
	if (tp_file_write_all(fd, buf, len) || fsync(fd) || close(fd)) {
		saved = errno;
		if (fd >= 0)
			close(fd);
		unlinkat(dirfd, tmp, 0);
		st = tp_error_set(err, TP_ERR_IO, "%s/%s: write: %s", label,
		                  tmp, strerror(saved));
		goto out;
	}
	if (renameat(dirfd, tmp, dirfd, final)) {
		saved = errno;
		unlinkat(dirfd, tmp, 0);
		st = tp_error_set(err, TP_ERR_IO, "%s/%s: rename: %s", label,
		                  final, strerror(saved));
		goto out;
	}
	fsync(dirfd);
	{
		tp_error sum_err;
		struct stat run_st;

		/* The run is stored either way: readers without a summary
		 * read the run itself (bounded), so a failure here is a
		 * warning. */
		if (write_summary(dirfd, label, final, profile, owner,
		                  &sum_err) != TP_OK) {
			tp_log(opt->logger, TP_LOG_WARNING,
			       "%s: no summary written (readers will read the "
			       "whole run): %s",
			       label, sum_err.message);
		} else if (fstatat(dirfd, final, &run_st,
		                   AT_SYMLINK_NOFOLLOW) &&
		           errno == ENOENT) {
			char sum[TP_STORE_FILE_MAX + 1];

			/* Another writer's prune took the run before its
			 * summary was in place (and found none to remove):
			 * drop the summary, or it would outlive its run. */
			summary_name(final, sum);
			(void)unlinkat(dirfd, sum, 0);
		}
	}
	{
		tp_error prune_err;
		unsigned removed;

		if (prune_dir(opt, dirfd, label, (int64_t)time(NULL), &removed,
		              &prune_err) != TP_OK)
			tp_log(opt->logger, TP_LOG_WARNING,
			       "%s: old runs not pruned: %s", label,
			       prune_err.message);
	}
	if (file)
		memcpy(file, final, strlen(final) + 1);
	tp_log(opt->logger, TP_LOG_DEBUG, "%s/%s: stored %zu bytes", label,
	       final, len);
out:
	if (dirfd >= 0)
		close(dirfd);
	free(buf);
	return st;
}

static void uid_label(uid_t uid, char *out, size_t size)
{
	struct passwd pw, *found = NULL;
	char buf[4096];

	if (!getpwuid_r(uid, &pw, buf, sizeof(buf), &found) && found)
		snprintf(out, size, "uid %u (%s)", (unsigned)uid,
		         found->pw_name);
	else
		snprintf(out, size, "uid %u", (unsigned)uid);
}

/* The namespace of @uid: its user name, which must be a valid store name. */
static tp_status user_namespace(uid_t uid, char ns[TP_STORE_NAME_MAX + 1],
                                tp_error *err)
{
	struct passwd pw, *found = NULL;
	char buf[4096];
	int rc = getpwuid_r(uid, &pw, buf, sizeof(buf), &found);

	if (rc || !found)
		return tp_error_set(err, TP_ERR_NOTFOUND,
		                    "uid %u: no such user%s%s", (unsigned)uid,
		                    rc ? ": " : "", rc ? strerror(rc) : "");
	if (!tp_store_valid_name(found->pw_name) ||
	    !strcmp(found->pw_name, TP_STORE_SITE_NAMESPACE))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "uid %u: user name '%.64s' cannot name a "
		                    "store namespace",
		                    (unsigned)uid, found->pw_name);
	snprintf(ns, TP_STORE_NAME_MAX + 1, "%s", found->pw_name);
	return TP_OK;
}

tp_status tp_store_prepare_user(const char *root, uid_t uid, gid_t gid,
                                tp_error *err)
{
	char ns[TP_STORE_NAME_MAX + 1], label[4096 + TP_STORE_NAME_MAX];
	char owner_by[300];
	tp_store_options opt = tp_store_default_options();
	struct stat sb;
	int rootfd, fd, made = 0, saved;
	tp_status st;

	if (!root || !root[0])
		return tp_error_set(err, TP_ERR_INVALID,
		                    "profile store: no directory configured");
	if (uid == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "profile store %s: uid 0 publishes in "
		                    "\"site\", it has no user namespace",
		                    root);
	if (geteuid() != 0 && geteuid() != uid)
		return tp_error_set(err, TP_ERR_AUTH,
		                    "profile store %s: only root prepares the "
		                    "namespace of uid %u (running as uid %u)",
		                    root, (unsigned)uid, (unsigned)geteuid());
	if ((st = user_namespace(uid, ns, err)) != TP_OK)
		return tp_error_prefix(err, "profile store %s", root);
	opt.root = root;
	if ((st = open_root(&opt, 1, &rootfd, err)) != TP_OK)
		return st;
	snprintf(label, sizeof(label), "%s/%s", root, ns);
	/* Made as root 0700, then handed over: never visible with another
	 * owner or looser mode, and the root is writable only by its owner,
	 * so nobody can plant the name between mkdir and open. */
	if (!mkdirat(rootfd, ns, 0700))
		made = 1;
	else if (errno != EEXIST) {
		saved = errno;
		close(rootfd);
		return tp_error_set(err, TP_ERR_IO, "%s: mkdir: %s", label,
		                    strerror(saved));
	}
	fd =
	    openat(rootfd, ns, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		st = tp_error_set(err, TP_ERR_IO, "%s: %s", label,
		                  saved == ELOOP || saved == ENOTDIR
		                      ? "is a symbolic link or not a "
		                        "directory: refused"
		                      : strerror(saved));
	} else if (fstat(fd, &sb)) {
		st = tp_error_set(err, TP_ERR_IO, "%s: fstat: %s", label,
		                  strerror(errno));
	} else if (made && sb.st_uid != uid && fchown(fd, uid, gid)) {
		st = tp_error_set(err, TP_ERR_IO, "%s: chown to uid %u: %s",
		                  label, (unsigned)uid, strerror(errno));
		unlinkat(rootfd, ns, AT_REMOVEDIR);
	} else if (!made && sb.st_uid != uid) {
		uid_label(sb.st_uid, owner_by, sizeof(owner_by));
		st = tp_error_set(err, TP_ERR_AUTH,
		                  "%s: namespace of uid %u is owned by %s: "
		                  "refused (remove it or give it to its user)",
		                  label, (unsigned)uid, owner_by);
	} else if ((sb.st_mode & 0777) != 0700 && fchmod(fd, 0700)) {
		/* Older stores made namespaces 0755: close them to others. */
		st = tp_error_set(err, TP_ERR_IO, "%s: chmod 0700: %s", label,
		                  strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	close(rootfd);
	return st;
}

/*
 * Check that @credential, made by @ns's owner, signs @digest stored as
 * @ns/@name and is not expired: a run's own check, and a summary's (which
 * carries the run's digest and credential).
 */
static tp_status verify_credential(const tp_store_options *opt, const char *ns,
                                   const char *name,
                                   const uint8_t digest[TP_SHA256_BYTES],
                                   const char *credential, uid_t *cred_uid,
                                   tp_error *err)
{
	char expect[PAYLOAD_MAX], made_by[300], owner_by[300];
	char tag[32], hex[80], cns[TP_STORE_NAME_MAX + 2],
	    cname[TP_STORE_NAME_MAX + 2];
	tp_store_cred cred;
	time_t now = time(NULL);
	uid_t owner;
	tp_status st;

	if ((st = check_options(opt, err)) != TP_OK ||
	    (st = check_names(ns, name, err)) != TP_OK ||
	    (st = tp_store_namespace_owner(ns, &owner, err)) != TP_OK)
		return st;
	if (!credential || !credential[0])
		return tp_error_set(err, TP_ERR_AUTH,
		                    "not signed (no credential): refused");
	memset(&cred, 0, sizeof(cred));
	st = opt->auth->verify(opt->auth->data, credential, &cred, err);
	/* TP_ERR_IO: munged did not answer, the credential is unjudged. */
	if (st == TP_ERR_IO)
		return tp_error_prefix(err, "credential not checked");
	if (st != TP_OK)
		return tp_error_prefix(err, "credential refused");
	if (cred_uid)
		*cred_uid = cred.uid;
	uid_label(cred.uid, made_by, sizeof(made_by));
	uid_label(owner, owner_by, sizeof(owner_by));
	if (cred.uid != owner) {
		st = tp_error_set(err, TP_ERR_AUTH,
		                  "credential made by %s, but namespace '%s' "
		                  "belongs to %s: refused (wrong owner or "
		                  "forged)",
		                  made_by, ns, owner_by);
		goto out;
	}
	tp_store_payload(digest, ns, name, expect, sizeof(expect));
	if (!cred.payload || strcmp(cred.payload, expect)) {
		tag[0] = hex[0] = cns[0] = cname[0] = '\0';
		if (cred.payload)
			sscanf(cred.payload, "%31s %79s %65s %65s", tag, hex,
			       cns, cname);
		if (strcmp(tag, PAYLOAD_TAG))
			st = tp_error_set(err, TP_ERR_AUTH,
			                  "credential payload is not a "
			                  "topoplace profile signature: "
			                  "refused");
		else if (strncmp(expect + strlen(PAYLOAD_TAG) + 1, hex, 64) ||
		         strlen(hex) != 64)
			st =
			    tp_error_set(err, TP_ERR_AUTH,
			                 "credential signs another profile "
			                 "(digest %.16s..., file digest "
			                 "%.16s...): tampered, refused",
			                 hex, expect + strlen(PAYLOAD_TAG) + 1);
		else
			st = tp_error_set(err, TP_ERR_AUTH,
			                  "credential was made for %s/%s but "
			                  "the profile is in %s/%s: replayed, "
			                  "refused",
			                  cns, cname, ns, name);
		goto out;
	}
	if (cred.rewound) {
		st = tp_error_set(err, TP_ERR_AUTH,
		                  "credential encoded in the future "
		                  "(%lld s from now): refused",
		                  (long long)(cred.encoded_s - now));
		goto out;
	}
	if (opt->max_age_s == 0 && cred.backend_expired) {
		st = tp_error_set(err, TP_ERR_AUTH,
		                  "credential expired (munge TTL %lld s, "
		                  "encoded %lld s ago): refused",
		                  (long long)cred.ttl_s,
		                  (long long)(now - cred.encoded_s));
		goto out;
	}
	if (opt->max_age_s > 0 && now - cred.encoded_s > opt->max_age_s) {
		st = tp_error_set(err, TP_ERR_AUTH,
		                  "credential expired (encoded %lld s ago, "
		                  "max age %lld s): refused",
		                  (long long)(now - cred.encoded_s),
		                  (long long)opt->max_age_s);
		goto out;
	}
	st = TP_OK;
out:
	free(cred.payload);
	return st;
}

tp_status tp_store_verify_profile(const tp_store_options *opt, const char *ns,
                                  const char *name, const tp_profile *profile,
                                  uid_t *cred_uid, tp_error *err)
{
	return verify_credential(opt, ns, name, profile->digest,
	                         profile->credential, cred_uid, err);
}

/* Open, check, read, decode and verify @file in @dirfd. */
static tp_status read_run(const tp_store_options *opt, int dirfd,
                          const char *ns, const char *name, uid_t owner,
                          const char *file, tp_profile **profile, tp_error *err)
{
	char label[4096 + 3 * TP_STORE_NAME_MAX];
	struct stat sb;
	uint8_t *buf;
	size_t len;
	tp_status st;
	int fd;

	*profile = NULL;
	snprintf(label, sizeof(label), "%s/%s/%s/%s", opt->root, ns, name,
	         file);
	if (!valid_file_name(file))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: not a stored run's file name", label);
	/* O_NONBLOCK: a FIFO planted here must not hang slurmctld. */
	fd =
	    openat(dirfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int saved = errno;

		return tp_error_set(
		    err, saved == ENOENT ? TP_ERR_NOTFOUND : TP_ERR_IO,
		    "%s: %s", label,
		    saved == ELOOP ? "is a symbolic link: "
		                     "refused"
		                   : strerror(saved));
	}
	if (fstat(fd, &sb)) {
		close(fd);
		return tp_error_set(err, TP_ERR_IO, "%s: fstat failed", label);
	}
	if (!S_ISREG(sb.st_mode) || sb.st_nlink != 1 || sb.st_uid != owner ||
	    (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return tp_error_set(
		    err, TP_ERR_AUTH,
		    "%s: %s (owner uid %u, links %lu, mode "
		    "%03o; namespace owner uid %u): refused",
		    label,
		    !S_ISREG(sb.st_mode) ? "not a regular file"
		    : sb.st_uid != owner ? "not owned by the namespace's "
		                           "owner"
		                         : "hard-linked or writable by "
		                           "others",
		    (unsigned)sb.st_uid, (unsigned long)sb.st_nlink,
		    (unsigned)(sb.st_mode & 0777), (unsigned)owner);
	}
	st = tp_profile_slurp_fd(fd, label, opt->limits.max_file_bytes, &buf,
	                         &len, err);
	close(fd);
	if (st != TP_OK)
		return st;
	st = tp_profile_decode(label, buf, len, &opt->limits, profile, err);
	free(buf);
	if (st != TP_OK)
		return st;
	st = tp_store_verify_profile(opt, ns, name, *profile, NULL, err);
	if (st != TP_OK) {
		tp_error_prefix(err, "%s", label);
		tp_profile_free(*profile);
		*profile = NULL;
	}
	return st;
}

tp_status tp_store_get(const tp_store_options *opt, const char *ns,
                       const char *name, const char *file, tp_profile **profile,
                       tp_error *err)
{
	char label[4096 + 2 * TP_STORE_NAME_MAX];
	char **files = NULL;
	size_t count = 0;
	uid_t owner;
	tp_status st;
	int dirfd;

	*profile = NULL;
	if ((st = check_options(opt, err)) != TP_OK ||
	    (st = check_names(ns, name, err)) != TP_OK ||
	    (st = tp_store_namespace_owner(ns, &owner, err)) != TP_OK)
		return st;
	if (file && !valid_file_name(file))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s/%s/%s/%.64s: not a stored run's file "
		                    "name",
		                    opt->root, ns, name, file);
	st = open_name_dir(opt, ns, name, owner, 0, &dirfd, err);
	if (st != TP_OK)
		return st;
	snprintf(label, sizeof(label), "%s/%s/%s", opt->root, ns, name);
	if (file) {
		st = read_run(opt, dirfd, ns, name, owner, file, profile, err);
		close(dirfd);
		return st;
	}
	/* The newest run may be pruned by a writer between listing and
	 * opening it: list again a few times before giving up. */
	for (int attempt = 0; attempt < 8; attempt++) {
		st = list_entries(dirfd, label, is_run_file, &files, &count,
		                  err);
		if (st == TP_OK && count == 0)
			st = tp_error_set(err, TP_ERR_NOTFOUND,
			                  "%s: no stored run", label);
		if (st == TP_OK)
			st = read_run(opt, dirfd, ns, name, owner,
			              files[count - 1], profile, err);
		free_files(files, count);
		files = NULL;
		if (st != TP_ERR_NOTFOUND || count == 0)
			break;
		count = 0;
	}
	close(dirfd);
	return st;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Add run @r's matrix, collectives and I/O totals into @acc. */
static tp_status accumulate(tp_profile *acc, const tp_profile *r, tp_error *err)
{
	tp_status st;

	for (size_t i = 0; i < r->pair_count; i++) {
		st = tp_profile_add_pair(acc, r->pairs[i].src, r->pairs[i].dst,
		                         r->pairs[i].bytes, r->pairs[i].msgs,
		                         err);
		if (st != TP_OK)
			return st;
	}
	for (size_t i = 0; i < r->collective_count; i++) {
		st = tp_profile_add_collective(acc, r->collectives[i].name,
		                               r->collectives[i].calls,
		                               r->collectives[i].bytes, err);
		if (st != TP_OK)
			return st;
	}
	acc->io.read_bytes = add_sat(acc->io.read_bytes, r->io.read_bytes);
	acc->io.write_bytes = add_sat(acc->io.write_bytes, r->io.write_bytes);
	acc->io.time_us = add_sat(acc->io.time_us, r->io.time_us);
	for (int b = 0; b < TP_PROFILE_IO_BUCKETS; b++)
		acc->io.size_hist[b] =
		    add_sat(acc->io.size_hist[b], r->io.size_hist[b]);
	/* Finish sums duplicate pairs: keep the array from growing runs-fold.
	 */
	return tp_profile_finish(acc, err);
}

tp_status tp_store_merged(const tp_store_options *opt, const char *ns,
                          const char *name, tp_profile **profile,
                          unsigned *runs, tp_error *err)
{
	char label[4096 + 2 * TP_STORE_NAME_MAX];
	char **files = NULL;
	size_t count = 0;
	tp_profile *acc = NULL, *newest = NULL;
	unsigned merged = 0;
	uid_t owner;
	tp_status st;
	int dirfd;

	*profile = NULL;
	*runs = 0;
	if ((st = check_options(opt, err)) != TP_OK ||
	    (st = check_names(ns, name, err)) != TP_OK ||
	    (st = tp_store_namespace_owner(ns, &owner, err)) != TP_OK)
		return st;
	st = open_name_dir(opt, ns, name, owner, 0, &dirfd, err);
	if (st != TP_OK)
		return st;
	snprintf(label, sizeof(label), "%s/%s/%s", opt->root, ns, name);
	st = list_entries(dirfd, label, is_run_file, &files, &count, err);
	/* Newest first: it fixes the header and the rank count. */
	for (size_t i = count; st == TP_OK && i-- > 0;) {
		tp_profile *run;
		tp_error why;

		if (read_run(opt, dirfd, ns, name, owner, files[i], &run,
		             &why) != TP_OK) {
			tp_log(opt->logger, TP_LOG_WARNING,
			       "merge skips a run: %s", why.message);
			continue;
		}
		if (!acc) {
			st = tp_profile_new(&run->header, &acc, err);
			if (st == TP_OK)
				acc->exec = run->exec;
			newest = run;
		} else if (run->header.ranks != acc->header.ranks) {
			tp_log(opt->logger, TP_LOG_WARNING,
			       "%s/%s: merge skips a run of %u ranks (newest "
			       "has %u)",
			       label, files[i], run->header.ranks,
			       acc->header.ranks);
			tp_profile_free(run);
			continue;
		}
		if (st == TP_OK)
			st = accumulate(acc, run, err);
		if (st == TP_OK)
			merged++;
		if (run != newest)
			tp_profile_free(run);
	}
	free_files(files, count);
	close(dirfd);
	if (st == TP_OK && !merged)
		st = tp_error_set(err, TP_ERR_NOTFOUND,
		                  "%s: no run that verifies", label);
	if (st == TP_OK) {
		/* Mean over runs: the merged view has one run's scale. */
		for (size_t i = 0; i < acc->pair_count; i++) {
			acc->pairs[i].bytes /= merged;
			acc->pairs[i].msgs /= merged;
		}
		for (size_t i = 0; i < acc->collective_count; i++) {
			acc->collectives[i].calls /= merged;
			acc->collectives[i].bytes /= merged;
		}
		acc->io.requests = 0;
		for (int b = 0; b < TP_PROFILE_IO_BUCKETS; b++) {
			acc->io.size_hist[b] /= merged;
			acc->io.requests += acc->io.size_hist[b];
		}
		acc->io.read_bytes /= merged;
		acc->io.write_bytes /= merged;
		acc->io.time_us /= merged;
		for (size_t i = 0; st == TP_OK && i < newest->io.client_count;
		     i++)
			st = tp_profile_add_io_client(
			    acc, &newest->io.clients[i], err);
		if (st == TP_OK && newest->credential) {
			acc->credential = strdup(newest->credential);
			if (!acc->credential)
				st = tp_error_set(err, TP_ERR_NOMEM,
				                  "%s: out of memory", label);
		}
		if (st == TP_OK)
			st = tp_profile_finish(acc, err);
	}
	tp_profile_free(newest);
	if (st != TP_OK) {
		tp_profile_free(acc);
		return st;
	}
	*profile = acc;
	*runs = merged;
	return TP_OK;
}

static int add_entry(tp_store_list *list, size_t *cap, const char *ns,
                     const char *name, const char *file, const struct stat *sb)
{
	tp_store_entry *e;

	if (list->count == *cap) {
		size_t bigger = *cap ? 2 * *cap : 16;
		tp_store_entry *grown =
		    realloc(list->entries, bigger * sizeof(*grown));

		if (!grown)
			return -1;
		list->entries = grown;
		*cap = bigger;
	}
	e = &list->entries[list->count++];
	memset(e, 0, sizeof(*e));
	snprintf(e->ns, sizeof(e->ns), "%s", ns);
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->file, sizeof(e->file), "%s", file);
	e->size_bytes = (uint64_t)sb->st_size;
	e->mtime_s = sb->st_mtime;
	return 0;
}

static bool is_link_file(int dirfd, const char *entry)
{
	(void)dirfd;
	return !strcmp(entry, TP_STORE_LINK_FILE);
}

/* The regular files @keep accepts in the name directories of @ns/@name
 * (all namespaces when @ns is NULL, all names when @name is NULL). */
static tp_status list_files(const tp_store_options *opt, const char *ns,
                            const char *name, entry_filter keep,
                            tp_store_list *list, tp_error *err)
{
	char **nss = NULL, **names = NULL, **files = NULL;
	size_t nns = 0, nnames = 0, nfiles = 0, cap = 0;
	char label[4096 + 3 * TP_STORE_NAME_MAX];
	tp_status st;
	int root;

	memset(list, 0, sizeof(*list));
	if ((st = check_options(opt, err)) != TP_OK)
		return st;
	if (ns && (st = check_names(ns, name, err)) != TP_OK)
		return st;
	if ((st = open_root(opt, 0, &root, err)) != TP_OK)
		return st;
	if (ns) {
		nss = calloc(1, sizeof(*nss));
		if (nss && !(nss[0] = strdup(ns))) {
			free(nss);
			nss = NULL;
		}
		nns = nss ? 1 : 0;
		if (!nss)
			st = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
	} else {
		st =
		    list_entries(root, opt->root, is_name_dir, &nss, &nns, err);
	}
	for (size_t i = 0; st == TP_OK && i < nns; i++) {
		int nsfd =
		    openat(root, nss[i],
		           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (nsfd < 0)
			continue;
		snprintf(label, sizeof(label), "%s/%s", opt->root, nss[i]);
		if (name) {
			names = calloc(1, sizeof(*names));
			if (names && (names[0] = strdup(name)))
				nnames = 1;
			else
				st = tp_error_set(err, TP_ERR_NOMEM,
				                  "out of memory");
		} else {
			st = list_entries(nsfd, label, is_name_dir, &names,
			                  &nnames, err);
		}
		for (size_t j = 0; st == TP_OK && j < nnames; j++) {
			int fd = openat(nsfd, names[j],
			                O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			                    O_CLOEXEC);

			if (fd < 0)
				continue;
			snprintf(label, sizeof(label), "%s/%s/%s", opt->root,
			         nss[i], names[j]);
			st = list_entries(fd, label, keep, &files, &nfiles,
			                  err);
			for (size_t k = 0; st == TP_OK && k < nfiles; k++) {
				struct stat sb;

				if (fstatat(fd, files[k], &sb,
				            AT_SYMLINK_NOFOLLOW) ||
				    !S_ISREG(sb.st_mode))
					continue;
				if (add_entry(list, &cap, nss[i], names[j],
				              files[k], &sb))
					st = tp_error_set(err, TP_ERR_NOMEM,
					                  "out of memory");
			}
			free_files(files, nfiles);
			files = NULL;
			nfiles = 0;
			close(fd);
		}
		free_files(names, nnames);
		names = NULL;
		nnames = 0;
		close(nsfd);
	}
	free_files(nss, nns);
	close(root);
	if (st != TP_OK)
		tp_store_list_free(list);
	return st;
}

tp_status tp_store_list_runs(const tp_store_options *opt, const char *ns,
                             const char *name, tp_store_list *list,
                             tp_error *err)
{
	return list_files(opt, ns, name, is_run_file, list, err);
}

tp_status tp_store_list_links(const tp_store_options *opt, const char *ns,
                              tp_store_list *list, tp_error *err)
{
	return list_files(opt, ns, NULL, is_link_file, list, err);
}

void tp_store_list_free(tp_store_list *list)
{
	if (!list)
		return;
	free(list->entries);
	list->entries = NULL;
	list->count = 0;
}

/*
 * Read the summary of run @run (stat'ed as @run_sb) in @dirfd, its
 * credential left to verify_summary.  Any reason not to use it is
 * TP_ERR_PARSE / TP_ERR_AUTH / TP_ERR_NOTFOUND / TP_ERR_IO with the
 * reason; the caller falls back to the run.  Counted in @stats (may be
 * NULL).
 */
static tp_status read_summary(int dirfd, const char *label, const char *run,
                              const struct stat *run_sb, uid_t owner,
                              tp_profile_summary *summary,
                              tp_store_stats *stats, tp_error *err)
{
	char sum[TP_STORE_FILE_MAX + 1], path[4096 + 4 * TP_STORE_NAME_MAX];
	struct stat sb;
	uint8_t *buf = NULL;
	size_t len;
	tp_status st;
	int fd;

	summary_name(run, sum);
	snprintf(path, sizeof(path), "%s/%s", label, sum);
	if (stats)
		stats->summaries_read++;
	fd = openat(dirfd, sum, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return tp_error_set(
		    err, errno == ENOENT ? TP_ERR_NOTFOUND : TP_ERR_IO,
		    "%s: %s", path,
		    errno == ENOENT ? "no summary" : strerror(errno));
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_nlink != 1 ||
	    sb.st_uid != owner || (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return tp_error_set(err, TP_ERR_AUTH,
		                    "%s: not a regular file of the namespace's "
		                    "owner, or writable by others: refused",
		                    path);
	}
	st = tp_profile_slurp_fd(fd, path, TP_SUMMARY_MAX_BYTES, &buf, &len,
	                         err);
	close(fd);
	if (st != TP_OK)
		return st;
	st = tp_summary_parse(path, (const char *)buf, len, summary, err);
	free(buf);
	if (st != TP_OK)
		return st;
	if (strcmp(summary->profile_file, run) ||
	    summary->profile_bytes != (uint64_t)run_sb->st_size ||
	    summary->profile_mtime_ns != mtime_ns(run_sb))
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: stale (describes %s of %llu bytes, "
		                    "the run has %llu bytes or another mtime)",
		                    path, summary->profile_file,
		                    (unsigned long long)summary->profile_bytes,
		                    (unsigned long long)run_sb->st_size);
	return TP_OK;
}

/*
 * Verify the credential of @summary, read for run @run in @label, as
 * stored at @ns/@name.  *@unjudged: munged did not answer, so the run's
 * own credential cannot be checked either and reading the run would not
 * help.  Counted in @stats (may be NULL).
 */
static tp_status verify_summary(const tp_store_options *opt, const char *ns,
                                const char *name, const char *label,
                                const char *run,
                                const tp_profile_summary *summary,
                                tp_store_stats *stats, bool *unjudged,
                                tp_error *err)
{
	char sum[TP_STORE_FILE_MAX + 1];
	tp_status st;

	if (stats)
		stats->credentials_checked++;
	st = verify_credential(opt, ns, name, summary->digest,
	                       summary->credential, NULL, err);
	*unjudged = st == TP_ERR_IO;
	if (st != TP_OK) {
		summary_name(run, sum);
		tp_error_prefix(err, "%s/%s", label, sum);
	}
	return st;
}

/*
 * The runs a job's readers weigh: the application's directory, its runs
 * (oldest first) and, from @first, the newest
 * TP_IDENTITY_RUN_CANDIDATES_MAX, each with what reading its summary gave
 * (a summary carries a credential of up to 8 KiB: they are on the heap).
 * A candidate not read yet has status TP_ERR_NOTFOUND and ranks 0.
 */
struct candidates {
	char label[4096 + 2 * TP_STORE_NAME_MAX];
	int dirfd;
	uid_t owner;
	char **files;
	size_t count, first;
	tp_profile_summary *summaries;
	tp_status read[TP_IDENTITY_RUN_CANDIDATES_MAX];
	uint32_t ranks[TP_IDENTITY_RUN_CANDIDATES_MAX]; /* 0: not usable */
	uint64_t size_bytes[TP_IDENTITY_RUN_CANDIDATES_MAX];
	int64_t mtime_s[TP_IDENTITY_RUN_CANDIDATES_MAX];
};

static size_t candidate_count(const struct candidates *c)
{
	return c->count - c->first;
}

/* Open and list @ns/@name into @c; candidates_close whatever the status.
 * TP_ERR_NOTFOUND: no run. */
static tp_status candidates_open(const tp_store_options *opt, const char *ns,
                                 const char *name, struct candidates *c,
                                 tp_error *err)
{
	int dirfd = -1;
	tp_status st;

	memset(c, 0, sizeof(*c));
	c->dirfd = -1;
	st = open_app_dir(opt, ns, name, &c->owner, &dirfd, c->label, err);
	if (st != TP_OK)
		return st;
	c->dirfd = dirfd;
	st = list_entries(dirfd, c->label, is_run_file, &c->files, &c->count,
	                  err);
	if (st == TP_OK && c->count == 0)
		st = tp_error_set(err, TP_ERR_NOTFOUND, "%s: no stored run",
		                  c->label);
	if (st != TP_OK)
		return st;
	c->first = c->count > TP_IDENTITY_RUN_CANDIDATES_MAX
	               ? c->count - TP_IDENTITY_RUN_CANDIDATES_MAX
	               : 0;
	for (size_t i = 0; i < candidate_count(c); i++)
		c->read[i] = TP_ERR_NOTFOUND;
	c->summaries = calloc(candidate_count(c), sizeof(*c->summaries));
	if (!c->summaries)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    c->label);
	return TP_OK;
}

static void candidates_close(struct candidates *c)
{
	free(c->summaries);
	free_files(c->files, c->count);
	if (c->dirfd >= 0)
		close(c->dirfd);
}

/* Read candidate @i's summary (0: the oldest weighed), unverified; why it
 * cannot be used into @err. */
static tp_status candidate_read(struct candidates *c, size_t i,
                                tp_store_stats *stats, tp_error *err)
{
	const char *file = c->files[c->first + i];
	struct stat sb;

	if (fstatat(c->dirfd, file, &sb, AT_SYMLINK_NOFOLLOW)) {
		c->read[i] = tp_error_set(err, TP_ERR_IO, "%s/%s: stat: %s",
		                          c->label, file, strerror(errno));
	} else {
		c->size_bytes[i] = (uint64_t)sb.st_size;
		c->mtime_s[i] = (int64_t)sb.st_mtim.tv_sec;
		c->read[i] =
		    read_summary(c->dirfd, c->label, file, &sb, c->owner,
		                 &c->summaries[i], stats, err);
	}
	c->ranks[i] = c->read[i] == TP_OK ? c->summaries[i].ranks : 0;
	return c->read[i];
}

static tp_status candidate_verify(const tp_store_options *opt, const char *ns,
                                  const char *name, struct candidates *c,
                                  size_t i, tp_store_stats *stats,
                                  bool *unjudged, tp_error *err)
{
	return verify_summary(opt, ns, name, c->label, c->files[c->first + i],
	                      &c->summaries[i], stats, unjudged, err);
}

/*
 * Read the candidates newest first until tp_identity_choose_run has its
 * answer: the first with the job's @job_tasks, else every one; with no
 * task count, the newest alone.  Those left unread have ranks 0, which
 * the rule, weighing from the newest, never reaches.  Why the newest
 * cannot be used into @newest_err (its summary is the fallback's).
 */
static void read_for_choice(struct candidates *c, uint32_t job_tasks,
                            tp_store_stats *stats, tp_error *newest_err)
{
	size_t n = candidate_count(c);

	for (size_t i = n; i-- > 0;) {
		tp_error ignored;

		candidate_read(c, i, stats, i == n - 1 ? newest_err : &ignored);
		if (!job_tasks || c->ranks[i] == job_tasks)
			break;
	}
}

/*
 * The scale view of every candidate (all read) into @runs, oldest first:
 * each verified as tp_store_get_summary verifies the newest's, except
 * @verified (already verified; candidate_count: none); a run whose summary
 * cannot be used has ranks 0 (the scale rule refuses it).
 */
static size_t scale_view(const tp_store_options *opt, const char *ns,
                         const char *name, struct candidates *c,
                         size_t verified, tp_scale_run *runs,
                         tp_store_stats *stats)
{
	for (size_t i = 0; i < candidate_count(c); i++) {
		tp_error ignored;
		bool unjudged;

		if (i == verified ||
		    (c->read[i] == TP_OK &&
		     candidate_verify(opt, ns, name, c, i, stats, &unjudged,
		                      &ignored) == TP_OK))
			tp_scale_run_of_summary(&c->summaries[i], &runs[i]);
		else
			memset(&runs[i], 0, sizeof(runs[i]));
	}
	return candidate_count(c);
}

/* Name candidate @i of @ns/@name in @run. */
static void candidate_entry(const struct candidates *c, size_t i,
                            const char *ns, const char *name,
                            tp_store_entry *run)
{
	snprintf(run->ns, sizeof(run->ns), "%s", ns);
	snprintf(run->name, sizeof(run->name), "%s", name);
	snprintf(run->file, sizeof(run->file), "%s", c->files[c->first + i]);
	run->size_bytes = c->size_bytes[i];
	run->mtime_s = c->mtime_s[i];
}

tp_status tp_store_read_job_runs(const tp_store_options *opt, const char *ns,
                                 const char *name, uint32_t job_tasks,
                                 tp_profile_summary *summary,
                                 tp_scale_run *scale_runs,
                                 tp_store_job_runs *out, tp_error *err)
{
	struct candidates c;
	tp_error newest_err;
	bool unjudged = false;
	size_t chosen;
	tp_status st;

	memset(out, 0, sizeof(*out));
	st = candidates_open(opt, ns, name, &c, err);
	if (st != TP_OK)
		goto out;
	tp_error_clear(&newest_err);
	read_for_choice(&c, job_tasks, &out->stats, &newest_err);
	out->choice =
	    tp_identity_choose_run(c.ranks, candidate_count(&c), job_tasks);
	chosen = out->choice.index;
	candidate_entry(&c, chosen, ns, name, &out->run);
	/* Past this point every failure leaves the run itself to read. */
	out->fallback = true;
	if (c.read[chosen] != TP_OK) {
		/* Only a run that was read can match: this is the newest. */
		if (err)
			*err = newest_err;
		st = c.read[chosen];
		goto out;
	}
	st = candidate_verify(opt, ns, name, &c, chosen, &out->stats, &unjudged,
	                      err);
	if (st == TP_OK || unjudged)
		out->fallback = false;
	if (st != TP_OK)
		goto out;
	*summary = c.summaries[chosen];
	/* Unmatched, every candidate was read: only the credentials of the
	 * others are left to check. */
	if (scale_runs && job_tasks && !out->choice.matched)
		out->scale_count = scale_view(opt, ns, name, &c, chosen,
		                              scale_runs, &out->stats);
out:
	candidates_close(&c);
	return st;
}

tp_status tp_store_get_summary(const tp_store_options *opt, const char *ns,
                               const char *name, tp_profile_summary *summary,
                               tp_store_entry *run, bool *fallback,
                               tp_error *err)
{
	tp_identity_run_choice choice;

	return tp_store_get_summary_for(opt, ns, name, 0, summary, run, &choice,
	                                fallback, err);
}

tp_status tp_store_get_summary_for(const tp_store_options *opt, const char *ns,
                                   const char *name, uint32_t job_tasks,
                                   tp_profile_summary *summary,
                                   tp_store_entry *run,
                                   tp_identity_run_choice *choice,
                                   bool *fallback, tp_error *err)
{
	tp_store_job_runs found;
	tp_status st;

	st = tp_store_read_job_runs(opt, ns, name, job_tasks, summary, NULL,
	                            &found, err);
	*run = found.run;
	*choice = found.choice;
	*fallback = found.fallback;
	return st;
}

tp_status tp_store_scale_runs(const tp_store_options *opt, const char *ns,
                              const char *name, tp_scale_run *runs,
                              size_t *count, tp_error *err)
{
	struct candidates c;
	tp_status st;

	*count = 0;
	st = candidates_open(opt, ns, name, &c, err);
	if (st == TP_OK) {
		for (size_t i = 0; i < candidate_count(&c); i++) {
			tp_error ignored;

			candidate_read(&c, i, NULL, &ignored);
		}
		*count = scale_view(opt, ns, name, &c, candidate_count(&c),
		                    runs, NULL);
	}
	candidates_close(&c);
	return st;
}

tp_status tp_store_run_summary(const tp_store_options *opt, const char *ns,
                               const char *name, const char *file,
                               tp_profile_summary *summary, tp_error *err)
{
	char label[4096 + 2 * TP_STORE_NAME_MAX];
	struct stat sb;
	bool unjudged = false;
	uid_t owner;
	tp_status st;
	int dirfd;

	if (!valid_file_name(file))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "run '%.64s': not a run file name", file);
	st = open_app_dir(opt, ns, name, &owner, &dirfd, label, err);
	if (st != TP_OK)
		return st;
	if (fstatat(dirfd, file, &sb, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISREG(sb.st_mode))
		st = tp_error_set(err, TP_ERR_NOTFOUND, "%s/%s: no such run",
		                  label, file);
	else
		st = read_summary(dirfd, label, file, &sb, owner, summary, NULL,
		                  err);
	if (st == TP_OK)
		st = verify_summary(opt, ns, name, label, file, summary, NULL,
		                    &unjudged, err);
	close(dirfd);
	return st;
}

/* One run of a namespace scan: where it is and when it was written. */
struct scan_run {
	char name[TP_STORE_NAME_MAX + 1];
	char file[TP_STORE_FILE_MAX + 1];
	int64_t mtime_ns;
	uint64_t size_bytes;
};

/* The newest @max runs seen so far, unordered, and how many were seen. */
struct scan_newest {
	struct scan_run *runs;
	size_t count, max, listed;
};

/* Keep @run among the newest (replacing the oldest kept when full). */
static void scan_keep(struct scan_newest *n, const struct scan_run *run)
{
	size_t oldest = 0;

	if (n->count < n->max) {
		n->runs[n->count++] = *run;
		return;
	}
	for (size_t i = 1; i < n->count; i++)
		if (n->runs[i].mtime_ns < n->runs[oldest].mtime_ns)
			oldest = i;
	if (n->count && run->mtime_ns > n->runs[oldest].mtime_ns)
		n->runs[oldest] = *run;
}

static int cmp_scan_newest_first(const void *a, const void *b)
{
	const struct scan_run *x = a, *y = b;
	int c;

	if (x->mtime_ns != y->mtime_ns)
		return x->mtime_ns > y->mtime_ns ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->file, y->file);
}

/* List the runs of application @name (open at @fd) into @n. */
static tp_status scan_list_app(int fd, const char *label, const char *name,
                               struct scan_newest *n, tp_error *err)
{
	char **files = NULL;
	size_t count = 0;
	tp_status st =
	    list_entries(fd, label, is_run_file, &files, &count, err);

	for (size_t k = 0; st == TP_OK && k < count; k++) {
		struct scan_run run;
		struct stat sb;

		if (fstatat(fd, files[k], &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(sb.st_mode))
			continue;
		if (++n->listed > TP_STORE_SCAN_LIST_MAX) {
			st = tp_error_set(err, TP_ERR_LIMIT,
			                  "%s: more than %d runs in the "
			                  "namespace: not scanned",
			                  label, TP_STORE_SCAN_LIST_MAX);
			break;
		}
		snprintf(run.name, sizeof(run.name), "%s", name);
		snprintf(run.file, sizeof(run.file), "%s", files[k]);
		run.mtime_ns = mtime_ns(&sb);
		run.size_bytes = (uint64_t)sb.st_size;
		scan_keep(n, &run);
	}
	free_files(files, count);
	return st;
}

/* The newest runs of every application of the namespace open at @nsfd. */
static tp_status scan_list(int nsfd, const char *ns_label, uid_t owner,
                           struct scan_newest *n, tp_error *err)
{
	/* The caller's label, '/' and a name. */
	char label[4096 + 3 * TP_STORE_NAME_MAX + 2];
	char **names = NULL;
	size_t count = 0;
	tp_status st =
	    list_entries(nsfd, ns_label, is_name_dir, &names, &count, err);

	for (size_t j = 0; st == TP_OK && j < count; j++) {
		tp_error ignored;
		int fd;

		snprintf(label, sizeof(label), "%s/%s", ns_label, names[j]);
		/* Another owner's directory is nobody's runs: skipped. */
		if (open_owned_dir(nsfd, names[j], owner, 0, NULL, label, &fd,
		                   &ignored) != TP_OK)
			continue;
		st = scan_list_app(fd, label, names[j], n, err);
		close(fd);
	}
	free_files(names, count);
	return st;
}

/* Read and visit the summaries of @n's runs, newest first. */
static void scan_visit(const tp_store_options *opt, int nsfd,
                       const char *ns_label, const char *ns, uid_t owner,
                       struct scan_newest *n, tp_profile_summary *summary,
                       tp_store_summary_visit visit, void *ctx, size_t *read)
{
	/* The caller's label, '/' and a name. */
	char label[4096 + 3 * TP_STORE_NAME_MAX + 2];

	qsort(n->runs, n->count, sizeof(*n->runs), cmp_scan_newest_first);
	for (size_t i = 0; i < n->count; i++) {
		const struct scan_run *r = &n->runs[i];
		tp_store_entry entry;
		struct stat sb;
		tp_error ignored;
		bool ok;
		int fd;

		snprintf(label, sizeof(label), "%s/%s", ns_label, r->name);
		fd = openat(nsfd, r->name,
		            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		ok = !fstatat(fd, r->file, &sb, AT_SYMLINK_NOFOLLOW) &&
		     read_summary(fd, label, r->file, &sb, owner, summary,
		                  NULL, &ignored) == TP_OK;
		close(fd);
		if (!ok)
			continue;
		memset(&entry, 0, sizeof(entry));
		snprintf(entry.ns, sizeof(entry.ns), "%s", ns);
		snprintf(entry.name, sizeof(entry.name), "%s", r->name);
		snprintf(entry.file, sizeof(entry.file), "%s", r->file);
		entry.size_bytes = r->size_bytes;
		entry.mtime_s = (int64_t)sb.st_mtim.tv_sec;
		(*read)++;
		if (!visit(ctx, &entry, summary))
			break;
	}
}

tp_status tp_store_scan_summaries(const tp_store_options *opt, const char *ns,
                                  size_t max_runs, tp_store_summary_visit visit,
                                  void *ctx, size_t *read, tp_error *err)
{
	char label[4096 + 2 * TP_STORE_NAME_MAX];
	struct scan_newest newest = {.max = max_runs};
	tp_profile_summary *summary = NULL;
	size_t visited = 0;
	uid_t owner;
	tp_status st;
	int root, nsfd;

	if (read)
		*read = 0;
	if ((st = check_options(opt, err)) != TP_OK ||
	    (st = check_names(ns, NULL, err)) != TP_OK ||
	    (st = tp_store_namespace_owner(ns, &owner, err)) != TP_OK)
		return st;
	if (!max_runs)
		return TP_OK;
	if ((st = open_root(opt, 0, &root, err)) != TP_OK)
		return st;
	snprintf(label, sizeof(label), "%s/%s", opt->root, ns);
	st = open_owned_dir(root, ns, owner, 0, NULL, label, &nsfd, err);
	close(root);
	if (st != TP_OK)
		return st;
	/* A summary carries a credential of up to 8 KiB: not on the stack. */
	newest.runs = calloc(max_runs, sizeof(*newest.runs));
	summary = malloc(sizeof(*summary));
	if (!newest.runs || !summary)
		st =
		    tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", label);
	if (st == TP_OK)
		st = scan_list(nsfd, label, owner, &newest, err);
	if (st == TP_OK)
		scan_visit(opt, nsfd, label, ns, owner, &newest, summary, visit,
		           ctx, &visited);
	if (read)
		*read = visited;
	free(summary);
	free(newest.runs);
	close(nsfd);
	return st;
}

tp_status tp_store_summarize(const tp_store_options *opt, const char *ns,
                             const char *name, const char *file, tp_error *err)
{
	char label[4096 + 2 * TP_STORE_NAME_MAX];
	tp_profile *profile = NULL;
	uid_t owner;
	tp_status st;
	int dirfd;

	if ((st = check_options(opt, err)) != TP_OK ||
	    (st = check_names(ns, name, err)) != TP_OK ||
	    (st = tp_store_namespace_owner(ns, &owner, err)) != TP_OK)
		return st;
	if (geteuid() != owner && geteuid() != 0)
		return tp_error_set(err, TP_ERR_AUTH,
		                    "%s/%s/%s: namespace '%s' belongs to uid "
		                    "%u, you are uid %u: only it or root may "
		                    "summarize it",
		                    opt->root, ns, name, ns, (unsigned)owner,
		                    (unsigned)geteuid());
	st = open_name_dir(opt, ns, name, owner, 0, &dirfd, err);
	if (st != TP_OK)
		return st;
	snprintf(label, sizeof(label), "%s/%s/%s", opt->root, ns, name);
	/* The run is verified like any read: a summary never vouches for a
	 * run its owner did not sign. */
	st = read_run(opt, dirfd, ns, name, owner, file, &profile, err);
	if (st == TP_OK)
		st = write_summary(dirfd, label, file, profile, owner, err);
	tp_profile_free(profile);
	close(dirfd);
	return st;
}

tp_status tp_store_prune(const tp_store_options *opt, const char *ns,
                         const char *name, int64_t now_s, unsigned *removed,
                         tp_error *err)
{
	char label[4096 + 2 * TP_STORE_NAME_MAX];
	unsigned dropped = 0;
	uid_t owner;
	tp_status st;
	int dirfd;

	if (removed)
		*removed = 0;
	st = open_app_dir(opt, ns, name, &owner, &dirfd, label, err);
	if (st != TP_OK)
		return st;
	st = prune_dir(opt, dirfd, label, now_s, &dropped, err);
	close(dirfd);
	if (removed)
		*removed = dropped;
	return st;
}

/* One decimal field of a last-use record, up to @max. */
static bool parse_decimal(const char **cursor, char stop, uint64_t max,
                          uint64_t *out)
{
	const char *p = *cursor;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned digit = (unsigned)(*p - '0');

		if (v > (max - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	if (*p != stop)
		return false;
	*cursor = p + 1;
	*out = v;
	return true;
}

#define LAST_USE_TAG "topoplace-last-use 1 "

/* Whether @text[@len] is one line of a small record: @tag first, no NUL,
 * a newline last (the fields between are the caller's). */
static bool record_line(const char *text, size_t len, const char *tag)
{
	return len > strlen(tag) && !memcmp(text, tag, strlen(tag)) &&
	       !memchr(text, '\0', len) && text[len - 1] == '\n';
}

/* "topoplace-last-use 1 <unix s> <job id>\n" and nothing after. */
static tp_status parse_last_use(const char *path, const char *text, size_t len,
                                int64_t *used_s, uint64_t *job_id,
                                tp_error *err)
{
	const char *p = text;
	uint64_t when, job;

	if (!record_line(text, len, LAST_USE_TAG))
		goto bad;
	p += strlen(LAST_USE_TAG);
	if (!parse_decimal(&p, ' ', INT64_MAX, &when) ||
	    !parse_decimal(&p, '\n', UINT64_MAX, &job) || p != text + len)
		goto bad;
	*used_s = (int64_t)when;
	*job_id = job;
	return TP_OK;
bad:
	return tp_error_set(err, TP_ERR_PARSE,
	                    "%s: not a last-use record ('%s<unix seconds> "
	                    "<job id>' and a newline): ignored",
	                    path, LAST_USE_TAG);
}

/*
 * Open, check and read the small record @file of @dirfd (@label its
 * directory's path; the path goes to *@path), as tp_store_last_use and
 * tp_store_read_link say: a regular file with one link, owned by @owner
 * and writable by nobody else, at most @max bytes.  @missing is the error
 * text when it does not exist (TP_ERR_NOTFOUND).  The caller frees *@buf.
 */
static tp_status read_owned_record(int dirfd, const char *label, uid_t owner,
                                   const char *file, size_t max,
                                   const char *missing, char *path,
                                   size_t path_size, uint8_t **buf,
                                   size_t *len, tp_error *err)
{
	struct stat sb;
	tp_status st;
	int fd, saved;

	snprintf(path, path_size, "%s/%s", label, file);
	fd = openat(dirfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		if (saved == ENOENT)
			return tp_error_set(err, TP_ERR_NOTFOUND, "%s: %s",
			                    path, missing);
		return tp_error_set(
		    err, saved == ELOOP ? TP_ERR_AUTH : TP_ERR_IO,
		    "%s: %s: ignored", path,
		    saved == ELOOP ? "a symbolic link" : strerror(saved));
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_nlink != 1 ||
	    sb.st_uid != owner || (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return tp_error_set(
		    err, TP_ERR_AUTH,
		    "%s: owned by uid %u mode %03o, not a "
		    "regular file of the namespace's owner (uid "
		    "%u) that only it may write: ignored",
		    path, (unsigned)sb.st_uid, (unsigned)(sb.st_mode & 0777),
		    (unsigned)owner);
	}
	st = tp_profile_slurp_fd(fd, path, max, buf, len, err);
	close(fd);
	return st;
}

/* Read the last-use record in @dirfd (@label its path), checked as
 * tp_store_last_use says. */
static tp_status read_last_use(int dirfd, const char *label, uid_t owner,
                               int64_t *used_s, uint64_t *job_id, tp_error *err)
{
	char path[4096 + 4 * TP_STORE_NAME_MAX];
	uint8_t *buf = NULL;
	size_t len;
	tp_status st;

	st = read_owned_record(dirfd, label, owner, TP_STORE_LAST_USE_FILE,
	                       TP_STORE_LAST_USE_MAX_BYTES, "never used", path,
	                       sizeof(path), &buf, &len, err);
	if (st != TP_OK)
		return st;
	st = parse_last_use(path, (const char *)buf, len, used_s, job_id, err);
	free(buf);
	return st;
}

tp_status tp_store_last_use(const tp_store_options *opt, const char *ns,
                            const char *name, int64_t *used_s, uint64_t *job_id,
                            tp_error *err)
{
	char label[4096 + 2 * TP_STORE_NAME_MAX];
	int64_t when = 0;
	uint64_t job = 0;
	uid_t owner;
	tp_status st;
	int dirfd;

	st = open_app_dir(opt, ns, name, &owner, &dirfd, label, err);
	if (st != TP_OK)
		return st;
	st = read_last_use(dirfd, label, owner, &when, &job, err);
	close(dirfd);
	if (st == TP_OK) {
		if (used_s)
			*used_s = when;
		if (job_id)
			*job_id = job;
	}
	return st;
}

/* Replace the record @file in @dirfd with @text, owned by @owner:
 * written beside it, then renamed over it (readers never see it torn). */
static tp_status write_owned_record(int dirfd, const char *label, uid_t owner,
                                    const char *file, const char *text,
                                    tp_error *err)
{
	char stamp[48], tmp[96];
	int fd, saved;

	make_stamp(stamp, sizeof(stamp));
	snprintf(tmp, sizeof(tmp), "%s%s.rec", TMP_PREFIX, stamp);
	fd = openat(dirfd, tmp,
	            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return tp_error_set(err, TP_ERR_IO, "%s/%s: create: %s", label,
		                    tmp, strerror(errno));
	/* A daemon (root) writes it for the owner: readers check the
	 * owner, as for runs and summaries. */
	if ((geteuid() != owner && fchown(fd, owner, (gid_t)-1)) ||
	    tp_file_write_all(fd, text, strlen(text)) || fsync(fd)) {
		saved = errno;
		close(fd);
		unlinkat(dirfd, tmp, 0);
		return tp_error_set(err, TP_ERR_IO, "%s/%s: write: %s", label,
		                    tmp, strerror(saved));
	}
	close(fd);
	if (renameat(dirfd, tmp, dirfd, file)) {
		saved = errno;
		unlinkat(dirfd, tmp, 0);
		return tp_error_set(err, TP_ERR_IO, "%s/%s: rename: %s", label,
		                    file, strerror(saved));
	}
	return TP_OK;
}

tp_status tp_store_note_use(const tp_store_options *opt, const char *ns,
                            const char *name, int64_t now_s, uint64_t job_id,
                            bool *written, tp_error *err)
{
	char label[4096 + 2 * TP_STORE_NAME_MAX];
	char text[TP_STORE_LAST_USE_MAX_BYTES];
	tp_error old_err;
	int64_t used_s = 0;
	uint64_t used_job;
	uid_t owner;
	tp_status st;
	int dirfd;

	if (written)
		*written = false;
	if (now_s < 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "last use of %s/%s: time %lld before the "
		                    "epoch",
		                    ns, name, (long long)now_s);
	st = open_app_dir(opt, ns, name, &owner, &dirfd, label, err);
	if (st != TP_OK)
		return st;
	st = read_last_use(dirfd, label, owner, &used_s, &used_job, &old_err);
	if (st == TP_OK && used_s <= now_s &&
	    now_s - used_s < TP_STORE_LAST_USE_RESOLUTION_S) {
		close(dirfd);
		return TP_OK;
	}
	if (st != TP_OK && st != TP_ERR_NOTFOUND)
		tp_log(opt->logger, TP_LOG_WARNING, "%s (replaced)",
		       old_err.message);
	snprintf(text, sizeof(text), "%s%lld %llu\n", LAST_USE_TAG,
	         (long long)now_s, (unsigned long long)job_id);
	st = write_owned_record(dirfd, label, owner, TP_STORE_LAST_USE_FILE,
	                        text, err);
	close(dirfd);
	if (st == TP_OK && written)
		*written = true;
	return st;
}

/* ---- links: a script that runs an application recorded under another name */

#define LINK_TAG    "topoplace-link 2 "
#define LINK_TAG_V1 "topoplace-link 1 "

const char *tp_store_link_rule_name(tp_store_link_rule rule)
{
	return rule == TP_STORE_LINK_COMMAND ? "command" : "program";
}

/*
 * "topoplace-link 2 <name> <job id> <rule>\n", or version 1's
 * "topoplace-link 1 <name> <job id>\n" (rule program), and nothing after;
 * <name> a store name other than the link's own @self.
 */
static tp_status parse_link(const char *path, const char *self,
                            const char *text, size_t len,
                            char target[TP_STORE_NAME_MAX + 1],
                            uint64_t *job_id, tp_store_link_rule *rule,
                            tp_error *err)
{
	const char *p = text, *end;
	bool v1 = record_line(text, len, LINK_TAG_V1);
	size_t n;

	if (!v1 && !record_line(text, len, LINK_TAG))
		goto bad;
	p += strlen(v1 ? LINK_TAG_V1 : LINK_TAG);
	end = memchr(p, ' ', len - (size_t)(p - text));
	if (!end || (n = (size_t)(end - p)) == 0 || n > TP_STORE_NAME_MAX)
		goto bad;
	memcpy(target, p, n);
	target[n] = '\0';
	p = end + 1;
	if (!parse_decimal(&p, v1 ? '\n' : ' ', UINT64_MAX, job_id))
		goto bad;
	*rule = TP_STORE_LINK_PROGRAM;
	if (!v1) {
		n = (size_t)(text + len - p);
		if (n == sizeof("command") && !memcmp(p, "command\n", n))
			*rule = TP_STORE_LINK_COMMAND;
		else if (n != sizeof("program") || memcmp(p, "program\n", n))
			goto bad;
		p += n;
	}
	if (p != text + len)
		goto bad;
	if (!tp_store_valid_name(target))
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: links to '%s', not a profile name: "
		                    "ignored",
		                    path, target);
	if (!strcmp(target, self))
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: links to itself: ignored", path);
	return TP_OK;
bad:
	return tp_error_set(err, TP_ERR_PARSE,
	                    "%s: not a link record ('%s<profile name> <job "
	                    "id> command|program' and a newline): ignored",
	                    path, LINK_TAG);
}

/* The link record of the open directory @dirfd of @name (@label its path). */
static tp_status read_link_at(int dirfd, const char *label, uid_t owner,
                              const char *name,
                              char target[TP_STORE_NAME_MAX + 1],
                              uint64_t *job_id, tp_store_link_rule *rule,
                              tp_error *err)
{
	char path[4096 + 4 * TP_STORE_NAME_MAX];
	uint8_t *buf = NULL;
	size_t len;
	tp_status st;

	target[0] = '\0';
	st = read_owned_record(dirfd, label, owner, TP_STORE_LINK_FILE,
	                       TP_STORE_LINK_MAX_BYTES, "no link", path,
	                       sizeof(path), &buf, &len, err);
	if (st != TP_OK)
		return st;
	st = parse_link(path, name, (const char *)buf, len, target, job_id,
	                rule, err);
	free(buf);
	if (st != TP_OK)
		target[0] = '\0';
	return st;
}

tp_status tp_store_read_link(const tp_store_options *opt, const char *ns,
                             const char *name,
                             char target[TP_STORE_NAME_MAX + 1],
                             uint64_t *job_id, tp_store_link_rule *rule,
                             tp_error *err)
{
	char label[4096 + 2 * TP_STORE_NAME_MAX];
	tp_store_link_rule how = TP_STORE_LINK_PROGRAM;
	uint64_t job = 0;
	uid_t owner;
	tp_status st;
	int dirfd;

	target[0] = '\0';
	st = open_app_dir(opt, ns, name, &owner, &dirfd, label, err);
	if (st != TP_OK)
		return st;
	st = read_link_at(dirfd, label, owner, name, target, &job, &how, err);
	close(dirfd);
	if (st == TP_OK && job_id)
		*job_id = job;
	if (st == TP_OK && rule)
		*rule = how;
	return st;
}

tp_status tp_store_put_link(const tp_store_options *opt, const char *ns,
                            const char *name, const char *target,
                            uint64_t job_id, tp_store_link_rule rule,
                            bool *written, tp_error *err)
{
	tp_store_link_rule old_rule;
	char label[4096 + 2 * TP_STORE_NAME_MAX];
	char text[TP_STORE_LINK_MAX_BYTES];
	char old[TP_STORE_NAME_MAX + 1];
	uint64_t old_job;
	struct stat sb;
	tp_error old_err;
	uid_t owner;
	tp_status st;
	int root, nsfd, dirfd;

	if (written)
		*written = false;
	if ((st = check_options(opt, err)) != TP_OK ||
	    (st = check_names(ns, name, err)) != TP_OK ||
	    (st = check_names(ns, target, err)) != TP_OK ||
	    (st = tp_store_namespace_owner(ns, &owner, err)) != TP_OK)
		return st;
	if (!strcmp(name, target))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "link %s/%s: links to itself", ns, name);
	if ((st = open_root(opt, 0, &root, err)) != TP_OK)
		return st;
	snprintf(label, sizeof(label), "%s/%s", opt->root, ns);
	/* The namespace exists: the target's runs are in it. */
	st = open_owned_dir(root, ns, owner, 0, NULL, label, &nsfd, err);
	close(root);
	if (st != TP_OK)
		return st;
	snprintf(label, sizeof(label), "%s/%s/%s", opt->root, ns, name);
	/* A daemon (root) makes the name's directory for its owner; one that
	 * was there, or that anyone put there meanwhile, is checked below as
	 * any other (owner, mode, no symlink). */
	if (mkdirat(nsfd, name, 0700) == 0 && geteuid() != owner) {
		dirfd = openat(nsfd, name,
		               O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dirfd >= 0 && !fstat(dirfd, &sb) &&
		    sb.st_uid == geteuid() && fchown(dirfd, owner, (gid_t)-1))
			tp_log(opt->logger, TP_LOG_WARNING, "%s: chown: %s",
			       label, strerror(errno));
		if (dirfd >= 0)
			close(dirfd);
	}
	st = open_owned_dir(nsfd, name, owner, 0, NULL, label, &dirfd, err);
	close(nsfd);
	if (st != TP_OK)
		return st;
	/* The same link again costs no write (every step of the script
	 * would otherwise write it). */
	st = read_link_at(dirfd, label, owner, name, old, &old_job, &old_rule,
	                  &old_err);
	if (st == TP_OK && !strcmp(old, target) && old_rule == rule) {
		close(dirfd);
		return TP_OK;
	}
	if (st != TP_OK && st != TP_ERR_NOTFOUND)
		tp_log(opt->logger, TP_LOG_WARNING, "%s (replaced)",
		       old_err.message);
	snprintf(text, sizeof(text), "%s%s %llu %s\n", LINK_TAG, target,
	         (unsigned long long)job_id, tp_store_link_rule_name(rule));
	st = write_owned_record(dirfd, label, owner, TP_STORE_LINK_FILE, text,
	                        err);
	close(dirfd);
	if (st == TP_OK && written)
		*written = true;
	return st;
}
