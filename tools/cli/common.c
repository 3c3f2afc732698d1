/* CLI plumbing shared by the verbs: one-line errors, option parsing, model input. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "lg/util.h"
#include "json.h"

/* ---------------------------------------------------------------- errors */

/* Print "litegpu: error: <msg>" on one line: control characters in the message (from file
   names or arguments) become '?'. */
__attribute__((format(printf, 1, 0)))
static void error_line(const char *fmt, va_list ap) {
    char buf[2048];
    vsnprintf(buf, sizeof buf, fmt, ap);
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7F) *p = '?';
    fflush(stdout);
    fprintf(stderr, "litegpu: error: %s\n", buf);
}

int cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    error_line(fmt, ap);
    va_end(ap);
    return CLI_ERROR;
}

int cli_usage_error(const cli_verb *v, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cli_error("%s: %s (usage: %s)", v->name, msg, v->usage);
}

int cli_lib_error(const char *path, const lg_error *err) {
    const char *msg = err->msg[0] ? err->msg : lg_status_str(err->status);
    if (!path) return cli_error("%s", msg);
    /* Messages about an in-memory model are prefixed "model: "; name the file instead. */
    static const char generic[] = "model: ";
    if (strncmp(msg, generic, sizeof generic - 1) == 0)
        return cli_error("%s: %s", path, msg + sizeof generic - 1);
    size_t n = strlen(path);
    if (strncmp(msg, path, n) == 0 && msg[n] == ':') return cli_error("%s", msg);
    return cli_error("%s: %s", path, msg);
}

void cli_verb_help(const cli_verb *v, FILE *f) {
    fprintf(f, "usage: %s\n\n%s\n", v->usage, v->summary);
    if (v->help && v->help[0]) fprintf(f, "\n%s", v->help);
}

void cli_write_path(FILE *f, const char *path) {
    size_t n = strlen(path);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)path[i];
        if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
            json_write_quoted(f, path, n);
            return;
        }
    }
    fputs(path, f);
}

/* ---------------------------------------------------------------- options */

static const cli_flag *flag_find(const cli_flag *flags, const char *arg, const char **inline_val) {
    *inline_val = NULL;
    for (const cli_flag *fl = flags; fl && fl->name; fl++) {
        if (strcmp(arg, fl->name) == 0 || (fl->alias && strcmp(arg, fl->alias) == 0)) return fl;
        size_t n = strlen(fl->name);
        if (strncmp(arg, fl->name, n) == 0 && arg[n] == '=') {
            *inline_val = arg + n + 1;
            return fl;
        }
    }
    return NULL;
}

int cli_parse(const cli_verb *v, int argc, char **argv, const cli_flag *flags,
              const char **pos, int max_pos, int *n_pos) {
    bool only_pos = false;
    *n_pos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!only_pos && a[0] == '-' && a[1]) {
            if (strcmp(a, "--") == 0) {
                only_pos = true;
                continue;
            }
            if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
                cli_verb_help(v, stdout);
                return CLI_OK;
            }
            const char *val;
            const cli_flag *fl = flag_find(flags, a, &val);
            if (!fl) return cli_usage_error(v, "unknown option '%s'", a);
            if (!fl->value && !fl->list) {
                if (val) return cli_usage_error(v, "option '%s' takes no value", fl->name);
                *fl->set = true;
                continue;
            }
            if (!val) {
                if (i + 1 >= argc) return cli_usage_error(v, "option '%s' needs a value", a);
                val = argv[++i];
            }
            if (!val[0]) return cli_usage_error(v, "option '%s' needs a non-empty value", fl->name);
            if (fl->list) {
                if (*fl->n_list >= fl->max_list) return cli_usage_error(v, "too many '%s' options", fl->name);
                fl->list[(*fl->n_list)++] = val;
                continue;
            }
            *fl->value = val;
            continue;
        }
        if (*n_pos >= max_pos) return cli_usage_error(v, "unexpected argument '%s'", a);
        pos[(*n_pos)++] = a;
    }
    return -1;
}

/* ---------------------------------------------------------------- formats */

/* An ONNX ModelProto begins with ir_version (field 1, varint) followed by another field
   of the model (producer_name, graph, opset_import, ...). */
static bool looks_like_onnx(const uint8_t *p, size_t n) {
    if (n < 4 || p[0] != 0x08) return false;
    size_t i = 1;
    uint64_t v = 0;
    for (int shift = 0; i < n && shift < 64; shift += 7) {
        uint8_t b = p[i++];
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) break;
    }
    if (v == 0 || v > 100 || i >= n) return false;
    switch (p[i]) {
    case 0x12: case 0x1a: case 0x22: case 0x28: case 0x32: case 0x3a: case 0x42: case 0x72:
        return true;
    default:
        return false;
    }
}

cli_format cli_format_detect(const uint8_t *p, size_t n) {
    if (n >= 8 && memcmp(p + 4, "TFL3", 4) == 0) return CLI_FORMAT_TFLITE;
    if (looks_like_onnx(p, n)) return CLI_FORMAT_ONNX;
    return CLI_FORMAT_UNKNOWN;
}

static int format_error(const char *path, cli_format fmt) {
    if (fmt == CLI_FORMAT_ONNX)
        return cli_error("%s: an ONNX model: convert it first (litegpu convert %s -o model.tflite)", path, path);
    return cli_error("%s: unknown model format (not a TFLite flatbuffer: no \"TFL3\" identifier)",
                     path);
}

/* ---------------------------------------------------------------- files */

int cli_file_open(const char *path, cli_file *f) {
    memset(f, 0, sizeof *f);
    f->path = path;
    int fd;
    uint64_t size;
    lg_error err;
    /* regular files only (lg.h "files"): /dev/zero, a FIFO, a directory are refused at once */
    if (lg_input_open(path, &fd, &size, &err) != LG_OK) return cli_error("%s", err.msg);
    int rc = 0;
    if (size == 0) {
        rc = cli_error("%s: file is empty", path);
    } else if (size > SIZE_MAX) {
        rc = cli_error("%s: file too large", path);
    } else {
        void *p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            rc = cli_error("%s: cannot map: %s", path, strerror(errno));
        } else {
            f->map = p;
            f->data = p;
            f->size = (size_t)size;
        }
    }
    close(fd);
    return rc;
}

void cli_file_close(cli_file *f) {
    if (f->map) munmap(f->map, f->size);
    memset(f, 0, sizeof *f);
}

int cli_model_load(const char *path, cli_file *f, lg_model **m) {
    *m = NULL;
    if (cli_file_open(path, f) != 0) return CLI_ERROR;
    cli_format fmt = cli_format_detect(f->data, f->size);
    if (fmt != CLI_FORMAT_TFLITE) {
        cli_file_close(f);
        return format_error(path, fmt);
    }
    lg_error err;
    lg_read_options ro;
    memset(&ro, 0, sizeof ro);
    ro.name = path;
    if (lg_tflite_read_mem(f->data, f->size, &ro, m, &err) != LG_OK) {
        cli_file_close(f);
        return cli_lib_error(path, &err);
    }
    return 0;
}

int cli_model_format(const char *path) {
    int fd;
    uint64_t size;
    lg_error err;
    if (lg_input_open(path, &fd, &size, &err) != LG_OK) {
        cli_error("%s", err.msg);
        return -1;
    }
    uint8_t head[16];
    size_t n = 0;
    while (n < sizeof head) {
        ssize_t r = read(fd, head + n, sizeof head - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            cli_error("%s: cannot read: %s", path, strerror(e));
            return -1;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    if (n == 0) {
        cli_error("%s: file is empty", path);
        return -1;
    }
    cli_format fmt = cli_format_detect(head, n);
    if (fmt == CLI_FORMAT_UNKNOWN) {
        format_error(path, fmt);
        return -1;
    }
    return (int)fmt;
}

int cli_model_check_format(const char *path) {
    int fmt = cli_model_format(path);
    if (fmt < 0) return CLI_ERROR;
    return fmt == CLI_FORMAT_TFLITE ? 0 : format_error(path, (cli_format)fmt);
}

/* ---------------------------------------------------------------- outputs */

int cli_output_check(const char *path, bool force) {
    lg_error err;
    if (lg_output_check(path, force, &err) != LG_OK) return cli_error("%s", err.msg);
    return 0;
}

int cli_output_open(const char *path, bool force) {
    if (cli_output_check(path, force)) return -1;
    /* 0666: the umask makes it 0644 (or what the user asked for); O_NOFOLLOW and O_NONBLOCK:
       a link or FIFO put there since the check is refused, not followed or waited on */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0) {
        cli_error("%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        cli_error("%s: not a regular file", path);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

FILE *cli_output_fopen(const char *path, bool force) {
    int fd = cli_output_open(path, force);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        cli_error("%s: cannot write: %s", path, strerror(errno));
    }
    return f;
}

/* ---------------------------------------------------------------- same file */

/* The canonical path path would have: realpath() of the file if it exists, otherwise of
   its directory joined with its last component. Returns false if that cannot be known. */
static bool canonical_path(const char *path, char *out, size_t n) {
    char buf[PATH_MAX];
    if (realpath(path, buf)) {
        snprintf(out, n, "%s", buf);
        return true;
    }
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    const char *base = path;
    if (!slash) {
        snprintf(dir, sizeof dir, ".");
    } else {
        size_t len = (size_t)(slash - path);
        if (len == 0) len = 1; /* "/name" */
        if (len >= sizeof dir) return false;
        memcpy(dir, path, len);
        dir[len] = 0;
        base = slash + 1;
    }
    if (!realpath(dir, buf)) return false;
    snprintf(out, n, "%s/%s", strcmp(buf, "/") == 0 ? "" : buf, base);
    return true;
}

/* True when writing out would replace in: the same canonical path, or (when out exists)
   the same file under another name (a hard link). */
bool cli_same_file(const char *in, const char *out) {
    struct stat si, so;
    if (stat(in, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev &&
        si.st_ino == so.st_ino)
        return true;
    char ci[PATH_MAX + 1], co[PATH_MAX + 1];
    if (canonical_path(in, ci, sizeof ci) && canonical_path(out, co, sizeof co))
        return strcmp(ci, co) == 0;
    return false;
}

/* ---------------------------------------------------------------- writing a model */

int cli_write_model(const lg_model *m, const char *out, bool force, bool external, size_t *size, char hex[65]) {
    lg_write_options wo = {.external_buffers = external, .force = force};
    lg_error err;
    lg_status st = lg_tflite_write_file(m, out, &wo, &err);
    if (st == LG_ERR_EXISTS) return cli_error("%s: output exists (use --force to replace it)", out);
    if (st != LG_OK) return cli_lib_error(out, &err);
    /* report what is on disk now */
    cli_file f;
    if (cli_file_open(out, &f) != 0) return CLI_ERROR;
    uint8_t digest[32];
    lg_sha256(f.data, f.size, digest);
    lg_hex(digest, sizeof digest, hex);
    *size = f.size;
    cli_file_close(&f);
    return CLI_OK;
}
