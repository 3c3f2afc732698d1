/* The rules for the files litegpu reads and writes (lg.h, "files"), in one place: the
   library's readers and writers and the CLI call these. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"

const char *lg_file_kind(unsigned mode) {
    switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "not a regular file";
    }
}

lg_status lg_output_check(const char *path, bool force, lg_error *err) {
    if (!path || !path[0]) return lgi_fail(err, LG_ERR_INVALID_ARG, "no output path given");
    struct stat sb;
    if (lstat(path, &sb) != 0) {
        if (errno == ENOENT) return LG_OK;
        return lgi_fail(err, LG_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
    }
    if (S_ISLNK(sb.st_mode))
        return lgi_fail(err, LG_ERR_INVALID_ARG,
                        "%s: is a symbolic link: litegpu neither replaces a link nor writes through "
                        "it (give the path it points to)", path);
    if (S_ISDIR(sb.st_mode)) return lgi_fail(err, LG_ERR_INVALID_ARG, "%s: is a directory", path);
    if (!S_ISREG(sb.st_mode))
        return lgi_fail(err, LG_ERR_INVALID_ARG,
                        "%s: is %s, not a regular file: litegpu writes only regular files (even "
                        "with --force)", path, lg_file_kind(sb.st_mode));
    if (!force) return lgi_fail(err, LG_ERR_EXISTS, "%s: output exists (use --force to overwrite)", path);
    return LG_OK;
}

static lg_status not_regular(const char *path, unsigned mode, lg_error *err) {
    if (S_ISDIR(mode)) return lgi_fail(err, LG_ERR_IO, "%s: is a directory", path);
    return lgi_fail(err, LG_ERR_IO, "%s: is %s, not a regular file (litegpu reads regular files only)",
                    path, lg_file_kind(mode));
}

lg_status lg_input_open(const char *path, int *fd_out, uint64_t *size, lg_error *err) {
    *fd_out = -1;
    if (!path || !path[0]) return lgi_fail(err, LG_ERR_INVALID_ARG, "no input path given");
    struct stat sb;
    /* stat first: a device or FIFO is refused without being opened at all */
    if (stat(path, &sb) != 0) return lgi_fail(err, LG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode)) return not_regular(path, sb.st_mode, err);
    /* O_NONBLOCK: should path become a FIFO after the stat, open() must not wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return lgi_fail(err, LG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return lgi_fail(err, LG_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return not_regular(path, sb.st_mode, err);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    *fd_out = fd;
    *size = (uint64_t)sb.st_size;
    return LG_OK;
}

mode_t lgi_umask(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        unsigned mask;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "Umask: %o", &mask) == 1) {
                fclose(f);
                return (mode_t)mask;
            }
        fclose(f);
    }
    mode_t u = umask(022);
    umask(u);
    return u;
}

lg_status lgi_tmp_create(const char *path, int *fd, char **tmp, lg_error *err) {
    *tmp = NULL;
    *fd = -1;
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t dlen = slash ? (size_t)(slash - path) : 0;
    if (!name[0]) return lgi_fail(err, LG_ERR_INVALID_ARG, "%s: not a file name", path);
    size_t tl = dlen + strlen(name) + 16;
    char *t = malloc(tl);
    if (!t) return lgi_fail(err, LG_ERR_NOMEM, "%s: out of memory", path);
    snprintf(t, tl, "%.*s%s.%s.XXXXXX", (int)dlen, path, slash ? "/" : "", name);
    int f = mkstemp(t);
    if (f < 0) {
        int e = errno;
        free(t);
        return lgi_fail(err, LG_ERR_IO, "%s: cannot create a temporary file next to it: %s", path, strerror(e));
    }
    *tmp = t;
    *fd = f;
    return LG_OK;
}

static void sync_parent(const char *path) {
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

lg_status lgi_tmp_commit(int fd, const char *tmp, const char *path, bool force, bool durable,
                         lg_error *err) {
    lg_status st = LG_OK;
    if (fchmod(fd, (mode_t)0666 & ~lgi_umask()) != 0)
        st = lgi_fail(err, LG_ERR_IO, "%s: chmod failed: %s", path, strerror(errno));
    else if (durable && fsync(fd) != 0)
        st = lgi_fail(err, LG_ERR_IO, "%s: fsync failed: %s", path, strerror(errno));
    if (close(fd) != 0 && st == LG_OK)
        st = lgi_fail(err, LG_ERR_IO, "%s: close failed: %s", path, strerror(errno));
    if (st == LG_OK && !force) {
        if (link(tmp, path) == 0) {
            unlink(tmp);
            if (durable) sync_parent(path);
            return LG_OK;
        }
        if (errno == EEXIST) {
            /* say what is there: a device or link gets its own message */
            st = lg_output_check(path, false, err);
            if (st == LG_OK) st = lgi_fail(err, LG_ERR_EXISTS, "%s: output exists (use --force to overwrite)", path);
        }
        /* no hard links here (EPERM, EXDEV...): check and rename instead */
        else st = lg_output_check(path, false, err);
    } else if (st == LG_OK) {
        st = lg_output_check(path, true, err);
    }
    if (st == LG_OK && rename(tmp, path) != 0)
        st = lgi_fail(err, LG_ERR_IO, "%s: cannot move the new file into place: %s", path, strerror(errno));
    if (st != LG_OK) unlink(tmp);
    else if (durable) sync_parent(path);
    return st;
}
