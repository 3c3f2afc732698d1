/* Protobuf wire-format primitives for the ONNX reader (internal; see reader.c for the design).
 *
 * Wire format (https://protobuf.dev/programming-guides/encoding/): a message is a sequence
 * of fields, each a varint tag (field_number << 3 | wire_type) and a payload: wire type 0 a
 * varint (<= 10 bytes, 7 bits per byte, low group first), 1 eight little-endian bytes, 2 a
 * varint length and that many bytes (strings, bytes, sub-messages, packed repeated scalars),
 * 5 four little-endian bytes; 3 and 4 are the deprecated groups (refused here).
 * All offsets below are absolute byte offsets in the file, so messages can say "at byte N".
 */
#ifndef LG_IO_ONNX_WIRE_H
#define LG_IO_ONNX_WIRE_H

#include <stdint.h>
#include "internal.h"
#include "lg/onnx.h"

/* What a known field of a message is, for the first (checking and counting) pass. */
enum {
    OXF_UNKNOWN = 0, /* not read: skipped */
    OXF_VARINT,      /* singular varint (int32, int64, enum); the last occurrence wins */
    OXF_F32,         /* singular fixed32 (float) */
    OXF_LEN,         /* string / bytes / message; singular (last wins) or repeated */
    OXF_MSG1,        /* singular sub-message: a second occurrence is refused (we do not merge) */
    OXF_RVAR,        /* repeated varint, packed (wire type 2) or not (0) */
    OXF_RF32,        /* repeated fixed32, packed or not */
    OXF_RF64         /* repeated fixed64, packed or not */
};

#define OX_MAXF 32 /* the largest field number we read is ModelProto.functions = 25 */

typedef struct ox_msg {
    const char *name;               /* "NodeProto" */
    uint8_t kind[OX_MAXF];          /* OXF_* by field number */
    const char *field[OX_MAXF];     /* field names, for messages */
} ox_msg;

typedef struct ox_field {
    uint32_t num, wt;
    uint64_t at;       /* offset of the tag */
    uint64_t v;        /* wire types 0, 1, 5: the value */
    uint64_t off, len; /* wire type 2: the payload */
} ox_field;

/* Result of the first pass over one message. */
typedef struct ox_scan_t {
    uint64_t cnt[OX_MAXF];   /* occurrences, or elements for repeated scalars */
    ox_field last[OX_MAXF];  /* the last occurrence of each field */
} ox_scan_t;

typedef struct ox_map ox_map;

struct lg_onnx_priv {
    lgi_arena arena;
    void *map_addr;   /* the model file's mapping (lg_onnx_read_file) */
    size_t map_len;
    ox_map *maps;     /* external data files, mapped */
};

typedef struct ox_rd {
    const uint8_t *buf;
    uint64_t size;
    lgi_arena *arena;
    lg_onnx_priv *priv;
    lg_error *err;
    const char *where;        /* file name or "model" */
    char path[448];           /* message path, e.g. graph.node[3] (Conv).attribute[1] "pads" */
    size_t plen;
    uint32_t depth, max_depth;
    const char *base_dir;     /* external data folder; NULL: external data refused */
    int no_external;
    int64_t ir_version;
} ox_rd;

/* ---- errors and the message path */
LG_INTERNAL lg_status ox_fail(ox_rd *r, lg_status st, const char *fmt, ...) LGI_PRINTF(3, 4);
#define ox_bad(r, ...) ox_fail((r), LG_ERR_FORMAT, __VA_ARGS__)
LG_INTERNAL lg_status ox_nomem(ox_rd *r);
/* Append to the path; returns the old length for ox_pop. */
LG_INTERNAL size_t ox_push(ox_rd *r, const char *fmt, ...) LGI_PRINTF(2, 3);
/* Append ` "name"` (escaped, cut) to the path. */
LG_INTERNAL void ox_push_name(ox_rd *r, lg_onnx_str name);
/* Append pre, name (escaped, cut), post. */
LG_INTERNAL void ox_push_esc(ox_rd *r, const char *pre, lg_onnx_str name, const char *post);
LG_INTERNAL void ox_pop(ox_rd *r, size_t old);
/* The nesting cap: ox_enter before reading a sub-message, ox_leave after. */
LG_INTERNAL lg_status ox_enter(ox_rd *r);
static inline void ox_leave(ox_rd *r) { r->depth--; }

/* ---- fields */
LG_INTERNAL const char *ox_fname(const ox_msg *m, uint32_t num, char tmp[24]);
/* The next field of the message [*pos, end): *more = 0 at the end. */
LG_INTERNAL lg_status ox_next(ox_rd *r, const ox_msg *m, uint64_t *pos, uint64_t end, ox_field *f, int *more);
/* First pass: check every field against m (wire types, packed payloads), count them. */
LG_INTERNAL lg_status ox_scan(ox_rd *r, const ox_msg *m, uint64_t off, uint64_t end, ox_scan_t *s);
/* Decode a varint at *pos (< end); over-long (> 10 bytes) or overflowing ones are refused. */
LG_INTERNAL lg_status ox_varint(ox_rd *r, uint64_t *pos, uint64_t end, uint64_t *v, const char *what);

/* The first string field num of [off, end), leniently (for the message path). */
LG_INTERNAL lg_onnx_str ox_peek(ox_rd *r, uint64_t off, uint64_t end, uint32_t num);
/* A string field: a name (valid UTF-8, no NUL) or bytes (anything). */
LG_INTERNAL lg_status ox_name(ox_rd *r, const ox_msg *m, const ox_field *f, lg_onnx_str *out);
LG_INTERNAL lg_status ox_bytes(ox_rd *r, const ox_msg *m, const ox_field *f, lg_onnx_str *out);
LG_INTERNAL int ox_utf8_ok(const uint8_t *s, uint64_t n, uint64_t *bad_at);
/* An int32 varint field (sign-extended on the wire) */
LG_INTERNAL lg_status ox_int32(ox_rd *r, const ox_msg *m, const ox_field *f, int32_t *out);
/* Append the elements of one occurrence of a repeated scalar field to a[*n..cap). */
LG_INTERNAL lg_status ox_rvar(ox_rd *r, const ox_msg *m, const ox_field *f, uint64_t *a, uint64_t cap, uint64_t *n);
LG_INTERNAL lg_status ox_rf32(ox_rd *r, const ox_msg *m, const ox_field *f, uint32_t *a, uint64_t cap, uint64_t *n);
LG_INTERNAL lg_status ox_rf64(ox_rd *r, const ox_msg *m, const ox_field *f, uint64_t *a, uint64_t cap, uint64_t *n);

/* Arena array of n elements (zeroed; never NULL on success, even for n == 0). */
LG_INTERNAL lg_status ox_array(ox_rd *r, uint64_t n, size_t elem, void **out);

/* ---- messages (reader.c, tensor.c) */
LG_INTERNAL lg_status ox_tensor(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_tensor *t);
LG_INTERNAL lg_status ox_graph(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_graph *g);
LG_INTERNAL lg_status ox_kv(ox_rd *r, uint64_t off, uint64_t end, lg_onnx_kv *kv);
/* Element count of dims (overflow and negative dims refused) and expected bytes. */
LG_INTERNAL int ox_tensor_size(int32_t dtype, const int64_t *dims, uint32_t n_dims, uint64_t *count,
                               uint64_t *nbytes);
/* External data of t (external.c): keys parsed, location checked, file mapped. */
LG_INTERNAL lg_status ox_external(ox_rd *r, lg_onnx_tensor *t);
/* Unmap the external files (model free). */
LG_INTERNAL void ox_unmap_all(lg_onnx_priv *p);

#endif
