/* Status names and the one error-formatting core: every lg_error in the library is filled
   here (lgi_failv and its wrappers), so the location fields and the message are set one way. */
#include <stdio.h>
#include <string.h>
#include "internal.h"

const char *lg_status_str(lg_status st) {
    static const char *const names[] = {
#define LG_X_(name, text) text,
        LG_STATUS_LIST(LG_X_)
#undef LG_X_
    };
    if ((unsigned)st >= LG_STATUS_COUNT) return "unknown status";
    return names[st];
}

void lgi_error_clear(lg_error *err) {
    if (!err) return;
    err->status = LG_OK;
    err->subgraph = err->op = err->tensor = -1;
    err->msg[0] = 0;
}

lg_status lgi_failv(lg_error *err, lg_status st, int32_t sg, int32_t op, int32_t tensor,
                    const char *fmt, va_list ap) {
    if (!err) return st;
    err->status = st;
    if (sg != LGI_KEEP) err->subgraph = sg;
    if (op != LGI_KEEP) err->op = op;
    if (tensor != LGI_KEEP) err->tensor = tensor;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return st;
}

lg_status lgi_fail(lg_error *err, lg_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lgi_failv(err, st, LGI_KEEP, LGI_KEEP, LGI_KEEP, fmt, ap);
    va_end(ap);
    return st;
}

lg_status lgi_fail_at(lg_error *err, lg_status st, int32_t sg, int32_t op, int32_t tensor,
                      const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lgi_failv(err, st, sg, op, tensor, fmt, ap);
    va_end(ap);
    return st;
}

void lgi_error_prefix(lg_error *err, const char *fmt, ...) {
    if (!err) return;
    char old[sizeof err->msg];
    memcpy(old, err->msg, sizeof old);
    old[sizeof old - 1] = 0;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    if (k < 0) k = 0;
    if ((size_t)k < sizeof err->msg - 1) snprintf(err->msg + k, sizeof err->msg - (size_t)k, "%s", old);
}

lgi_pname lgi_printable(const char *name) {
    lgi_pname p;
    size_t o = 0;
    const unsigned char *c = (const unsigned char *)(name ? name : "");
    for (; *c && o + 5 < sizeof p.s - 4; c++) {
        if (*c < 0x20 || *c == 0x7f || *c == '"' || *c == '\\') {
            o += (size_t)snprintf(p.s + o, sizeof p.s - o, "\\x%02x", *c);
        } else {
            p.s[o++] = (char)*c;
        }
    }
    if (*c) {
        memcpy(p.s + o, "...", 3);
        o += 3;
    }
    p.s[o] = 0;
    return p;
}
