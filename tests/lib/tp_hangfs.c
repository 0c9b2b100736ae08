/*
 * tp-hangfs: a file system with one file whose first open hangs, the way
 * an open on a hung NFS or Lustre mount does, for the bed tests that prove
 * a daemon's bounded work on a user's file really is bounded.
 *
 *   tp-hangfs SOURCE CONTROL_DIR MOUNTPOINT [FUSE OPTIONS...]
 *   tp-hangfs --hold-all CONTROL_DIR MOUNTPOINT [FUSE OPTIONS...]
 *
 * MOUNTPOINT shows one regular file, "app", with SOURCE's mode, size and
 * bytes.  The first open of it is held: tp-hangfs writes CONTROL_DIR/held
 * (the opener's pid and uid), then answers only once CONTROL_DIR/release
 * exists, and writes CONTROL_DIR/answered.  Every later open is answered
 * at once, so the same file still runs once the held open is out of the
 * way.
 *
 * With --hold-all MOUNTPOINT is an empty directory that cannot be read:
 * every request but the mount point's own attributes (a lookup of any
 * name, a listing) is held the same way, the first one writing
 * CONTROL_DIR/held, and answered "no such file" once CONTROL_DIR/release
 * exists: a store directory on a hung mount.
 *
 * The kernel sends a FUSE request to this process and, once it is here,
 * waits for the answer in an uninterruptible sleep: a process killed
 * there (SIGKILL) stays in state D until the answer comes, as on a hung
 * network file system.  Run as root with -o allow_other so that other
 * users' processes see the file.
 */
#define _DEFAULT_SOURCE /* openat, pread, usleep under -std=c11 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char app_path[] = "/app";

/* What the callbacks share: fuse_get_context()->private_data. */
struct hangfs {
	int source_fd;
	int control_fd; /* CONTROL_DIR, for the marker files */
	bool hold_all;  /* --hold-all: no source; every request held */
	atomic_bool held_once;
};

static struct hangfs *hangfs_state(void)
{
	return fuse_get_context()->private_data;
}

/* Write @text into CONTROL_DIR/@name (replacing it). */
static void write_marker(const struct hangfs *fs, const char *name,
                         const char *text)
{
	int fd = openat(fs->control_fd, name,
	                O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return;
	if (write(fd, text, strlen(text)) < 0)
		perror("tp-hangfs: marker");
	close(fd);
}

/* Hold the calling request until CONTROL_DIR/release exists; the first
 * held request is named in CONTROL_DIR/held, its answer in .../answered. */
static void hold(struct hangfs *fs)
{
	const struct fuse_context *who = fuse_get_context();
	bool first = !atomic_exchange(&fs->held_once, true);
	char text[64];

	snprintf(text, sizeof(text), "pid=%ld uid=%ld\n", (long)who->pid,
	         (long)who->uid);
	if (first)
		write_marker(fs, "held", text);
	while (faccessat(fs->control_fd, "release", F_OK, 0))
		usleep(100000);
	if (first)
		write_marker(fs, "answered", text);
}

static int hangfs_getattr(const char *path, struct stat *sb,
                          struct fuse_file_info *fi)
{
	struct hangfs *fs = hangfs_state();

	(void)fi;
	memset(sb, 0, sizeof(*sb));
	if (!strcmp(path, "/")) {
		sb->st_mode = S_IFDIR | 0755;
		sb->st_nlink = 2;
		return 0;
	}
	if (fs->hold_all)
		hold(fs);
	if (fs->hold_all || strcmp(path, app_path))
		return -ENOENT;
	if (fstat(fs->source_fd, sb))
		return -errno;
	sb->st_nlink = 1;
	return 0;
}

static int hangfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
                          off_t offset, struct fuse_file_info *fi,
                          enum fuse_readdir_flags flags)
{
	struct hangfs *fs = hangfs_state();

	(void)offset;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/"))
		return -ENOENT;
	if (fs->hold_all)
		hold(fs);
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	if (!fs->hold_all)
		fill(buf, app_path + 1, NULL, 0, 0);
	return 0;
}

/* The first open waits for CONTROL_DIR/release; its request stays
 * unanswered meanwhile, whatever signal its caller gets. */
static int hangfs_open(const char *path, struct fuse_file_info *fi)
{
	struct hangfs *fs = hangfs_state();

	if (fs->hold_all || strcmp(path, app_path))
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EACCES;
	if (!atomic_load(&fs->held_once))
		hold(fs);
	return 0;
}

static int hangfs_read(const char *path, char *buf, size_t size, off_t offset,
                       struct fuse_file_info *fi)
{
	ssize_t n;

	(void)path;
	(void)fi;
	n = pread(hangfs_state()->source_fd, buf, size, offset);
	return n < 0 ? -errno : (int)n;
}

static const struct fuse_operations hangfs_ops = {
    .getattr = hangfs_getattr,
    .readdir = hangfs_readdir,
    .open = hangfs_open,
    .read = hangfs_read,
};

int main(int argc, char **argv)
{
	struct hangfs fs = {.source_fd = -1, .control_fd = -1};

	if (argc < 4) {
		fprintf(stderr, "usage: tp-hangfs SOURCE|--hold-all "
		                "CONTROL_DIR MOUNTPOINT [FUSE OPTIONS...]\n");
		return 2;
	}
	fs.hold_all = !strcmp(argv[1], "--hold-all");
	fs.source_fd =
	    fs.hold_all ? 0 : open(argv[1], O_RDONLY | O_CLOEXEC);
	fs.control_fd = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs.source_fd < 0 || fs.control_fd < 0) {
		fprintf(stderr, "tp-hangfs: %s: %s\n",
		        fs.source_fd < 0 ? argv[1] : argv[2], strerror(errno));
		return 1;
	}
	/* fuse_main sees "tp-hangfs MOUNTPOINT [OPTIONS...]". */
	argv[2] = argv[0];
	return fuse_main(argc - 2, argv + 2, &hangfs_ops, &fs);
}
