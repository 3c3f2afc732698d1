/* External tensor data (TensorProto.data_location = EXTERNAL; onnx.proto: external_data keys
   "location" (a path relative to the model's folder), "offset", "length", "checksum").
 *
 * The location is untrusted. It is refused when it is empty, absolute, or has a ".."
 * component (split at '/' and '\\'); the path base/location is then resolved with realpath
 * and refused when the result lies outside realpath(base) (a symbolic link out of the
 * folder). The file must be a regular file; offset and length are checked against its size
 * (overflow-safe, before anything is mapped or allocated). Each file is mapped once, read
 * only, for the model's life; the tensor points into the mapping. The checksum is recorded,
 * not verified. Time-of-check races (a link swapped after realpath) are narrowed by opening
 * the resolved path with O_NOFOLLOW and checking it is a regular file through the descriptor.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/onnx/wire.h"

struct ox_map {
    ox_map *next;
    char *real;     /* resolved path (arena) */
    void *addr;     /* NULL for an empty file */
    size_t len;
    uint64_t size;
};

void ox_unmap_all(lg_onnx_priv *p) {
    for (ox_map *m = p->maps; m; m = m->next)
        if (m->addr) munmap(m->addr, m->len);
    p->maps = NULL;
}

/* Strict decimal: digits only, no sign, no overflow. */
static int parse_u64(lg_onnx_str s, uint64_t *v) {
    uint64_t x = 0;
    if (!s.n) return 0;
    for (uint32_t i = 0; i < s.n; i++) {
        char c = s.s[i];
        if (c < '0' || c > '9') return 0;
        unsigned d = (unsigned)(c - '0');
        if (x > (UINT64_MAX - d) / 10) return 0;
        x = x * 10 + d;
    }
    *v = x;
    return 1;
}

static lg_status check_location(ox_rd *r, lg_onnx_str loc) {
    if (!loc.n) return ox_bad(r, "external data has no location");
    if (memchr(loc.s, 0, loc.n)) return ox_bad(r, "external data location contains a NUL byte");
    if (loc.s[0] == '/' || loc.s[0] == '\\')
        return ox_bad(r, "external data location \"%.*s\" is an absolute path: refused (it must be "
                      "relative to the model's folder)", LG_ONNX_STR(loc));
    uint32_t start = 0;
    for (uint32_t i = 0; i <= loc.n; i++) {
        if (i < loc.n && loc.s[i] != '/' && loc.s[i] != '\\') continue;
        if (i - start == 2 && loc.s[start] == '.' && loc.s[start + 1] == '.')
            return ox_bad(r, "external data location \"%.*s\" has a \"..\" component: refused (it must "
                          "stay inside the model's folder)", LG_ONNX_STR(loc));
        start = i + 1;
    }
    return LG_OK;
}

/* Resolve loc under r->base_dir into real[PATH_MAX], refusing a way out. */
static lg_status resolve(ox_rd *r, lg_onnx_str loc, char *real) {
    char base[PATH_MAX], path[PATH_MAX];
    if (!realpath(r->base_dir, base))
        return ox_fail(r, LG_ERR_IO, "external data folder %s: %s", r->base_dir, strerror(errno));
    size_t bl = strlen(r->base_dir);
    if (bl + 1 + loc.n >= sizeof path)
        return ox_bad(r, "external data location \"%.*s\" is too long", LG_ONNX_STR(loc));
    memcpy(path, r->base_dir, bl);
    path[bl] = '/';
    memcpy(path + bl + 1, loc.s, loc.n);
    path[bl + 1 + loc.n] = 0;
    if (!realpath(path, real))
        return ox_fail(r, LG_ERR_IO, "external data file \"%.*s\": %s", LG_ONNX_STR(loc), strerror(errno));
    size_t n = strlen(base);
    int inside = strcmp(base, "/") == 0 ? real[0] == '/' && real[1] != 0
                                        : strncmp(real, base, n) == 0 && real[n] == '/';
    if (!inside)
        return ox_bad(r, "external data location \"%.*s\" resolves to %.200s, outside the model's folder "
                      "%.200s (a symbolic link out?): refused", LG_ONNX_STR(loc), real, base);
    return LG_OK;
}

/* The mapped file at real (mapped on first use). */
static lg_status map_file(ox_rd *r, lg_onnx_str loc, const char *real, ox_map **out) {
    for (ox_map *m = r->priv->maps; m; m = m->next)
        if (strcmp(m->real, real) == 0) { *out = m; return LG_OK; }
    int fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return ox_fail(r, LG_ERR_IO, "external data file \"%.*s\": %s", LG_ONNX_STR(loc), strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        int e = errno;
        close(fd);
        return ox_fail(r, LG_ERR_IO, "external data file \"%.*s\" is %s, not a regular file: refused",
                       LG_ONNX_STR(loc), S_ISREG(sb.st_mode) ? strerror(e) : lg_file_kind(sb.st_mode));
    }
    ox_map *m = lgi_arena_alloc(r->arena, sizeof *m);
    char *cp = m ? lgi_arena_strdup(r->arena, real) : NULL;
    if (!cp) {
        close(fd);
        return ox_nomem(r);
    }
    m->real = cp;
    m->size = (uint64_t)sb.st_size;
    if (m->size > SIZE_MAX) {
        close(fd);
        return ox_fail(r, LG_ERR_LIMIT, "external data file \"%.*s\" is too large to map", LG_ONNX_STR(loc));
    }
    if (m->size) {
        void *a = mmap(NULL, (size_t)m->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (a == MAP_FAILED) {
            int e = errno;
            close(fd);
            return ox_fail(r, LG_ERR_IO, "external data file \"%.*s\": cannot map: %s", LG_ONNX_STR(loc), strerror(e));
        }
        m->addr = a;
        m->len = (size_t)m->size;
    }
    close(fd);
    m->next = r->priv->maps;
    r->priv->maps = m;
    *out = m;
    return LG_OK;
}

/* The keys, then the checks (location, file, range), then the mapping. */
lg_status ox_external(ox_rd *r, lg_onnx_tensor *t) {
    int has_off = 0, has_len = 0;
    for (uint32_t i = 0; i < t->n_external_data; i++) {
        const lg_onnx_kv *kv = &t->external_data[i];
        if (lg_onnx_str_eq(kv->key, "location")) t->ext_location = kv->value;
        else if (lg_onnx_str_eq(kv->key, "checksum")) t->ext_checksum = kv->value;
        else if (lg_onnx_str_eq(kv->key, "offset") || lg_onnx_str_eq(kv->key, "length")) {
            int is_off = kv->key.s[0] == 'o';
            if (!parse_u64(kv->value, is_off ? &t->ext_offset : &t->ext_length))
                return ox_bad(r, "external data %s \"%.*s\" is not a decimal number", is_off ? "offset" : "length",
                              LG_ONNX_STR(kv->value));
            *(is_off ? &has_off : &has_len) = 1;
        }
    }
    (void)has_off;
    LG_TRY(check_location(r, t->ext_location));
    if (r->no_external)
        return ox_fail(r, LG_ERR_UNSUPPORTED, "has external data (\"%.*s\"), refused by the no_external option",
                       LG_ONNX_STR(t->ext_location));
    if (!r->base_dir)
        return ox_fail(r, LG_ERR_UNSUPPORTED, "has external data (\"%.*s\") but the model was read from memory "
                       "without a base folder", LG_ONNX_STR(t->ext_location));
    char real[PATH_MAX];
    LG_TRY(resolve(r, t->ext_location, real));
    ox_map *m = NULL;
    LG_TRY(map_file(r, t->ext_location, real, &m));
    if (t->ext_offset > m->size)
        return ox_bad(r, "external data offset %llu is past the end of \"%.*s\" (%llu bytes)",
                      (unsigned long long)t->ext_offset, LG_ONNX_STR(t->ext_location), (unsigned long long)m->size);
    if (!has_len) t->ext_length = m->size - t->ext_offset;
    if (t->ext_length > m->size - t->ext_offset)
        return ox_bad(r, "external data offset %llu + length %llu is past the end of \"%.*s\" (%llu bytes)",
                      (unsigned long long)t->ext_offset, (unsigned long long)t->ext_length,
                      LG_ONNX_STR(t->ext_location), (unsigned long long)m->size);
    if (t->ext_length != t->nbytes)
        return ox_bad(r, "external data length %llu, dims (%llu %s elements) need %llu bytes",
                      (unsigned long long)t->ext_length, (unsigned long long)t->count,
                      lg_onnx_dtype_name(t->data_type), (unsigned long long)t->nbytes);
    t->data = t->nbytes ? (const uint8_t *)m->addr + t->ext_offset : NULL;
    return LG_OK;
}
