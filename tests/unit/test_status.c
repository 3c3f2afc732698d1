/* util/status.c: the one error-formatting core. Expected strings are written out by hand. */
#include <string.h>

#include "internal.h"
#include "tf.h"

LG_TEST(status_names) {
    CHECK_STR(lg_status_str(LG_OK), "ok");
    CHECK_STR(lg_status_str(LG_ERR_NOMEM), "out of memory");
    CHECK_STR(lg_status_str(LG_ERR_INTERNAL), "internal error");
    CHECK_STR(lg_status_str(LG_STATUS_COUNT), "unknown status");
    CHECK_STR(lg_status_str((lg_status)-1), "unknown status");
}

LG_TEST(status_fail_keeps_location) {
    lg_error e;
    lgi_error_clear(&e);
    CHECK_EQ_INT(e.status, LG_OK);
    CHECK_EQ_INT(e.subgraph, -1);
    CHECK_EQ_INT(e.op, -1);
    CHECK_EQ_INT(e.tensor, -1);
    CHECK_STR(e.msg, "");
    e.op = 7; /* what the builder does: the place first, then the failure */
    CHECK_EQ_INT(lgi_fail(&e, LG_ERR_LIMIT, "too many %s (%u)", "ops", 3u), LG_ERR_LIMIT);
    CHECK_EQ_INT(e.status, LG_ERR_LIMIT);
    CHECK_EQ_INT(e.op, 7);
    CHECK_EQ_INT(e.subgraph, -1);
    CHECK_STR(e.msg, "too many ops (3)");
    /* NULL err: only the status comes back */
    CHECK_EQ_INT(lgi_fail(NULL, LG_ERR_IO, "x %d", 1), LG_ERR_IO);
    CHECK_EQ_INT(lgi_fail_at(NULL, LG_ERR_IO, 1, 2, 3, "x"), LG_ERR_IO);
    lgi_error_prefix(NULL, "p: ");
    lgi_error_clear(NULL);
}

LG_TEST(status_fail_at_sets_location) {
    lg_error e;
    lgi_error_clear(&e);
    e.tensor = 9;
    CHECK_EQ_INT(lgi_fail_at(&e, LG_ERR_FORMAT, 0, 12, LGI_KEEP, "input %d", 3), LG_ERR_FORMAT);
    CHECK_EQ_INT(e.subgraph, 0);
    CHECK_EQ_INT(e.op, 12);
    CHECK_EQ_INT(e.tensor, 9); /* LGI_KEEP */
    CHECK_STR(e.msg, "input 3");
    /* the near miss: -1 is a value, not "keep" */
    lgi_fail_at(&e, LG_ERR_FORMAT, -1, -1, -1, "none");
    CHECK_EQ_INT(e.subgraph, -1);
    CHECK_EQ_INT(e.op, -1);
    CHECK_EQ_INT(e.tensor, -1);
}

LG_TEST(status_prefix) {
    lg_error e;
    lgi_error_clear(&e);
    lgi_fail_at(&e, LG_ERR_INVALID_ARG, 1, 2, 3, "bad %s", "shape");
    lgi_error_prefix(&e, "%s: ", "m.tflite");
    CHECK_STR(e.msg, "m.tflite: bad shape");
    CHECK_EQ_INT(e.status, LG_ERR_INVALID_ARG);
    CHECK_EQ_INT(e.op, 2);
    /* a 500-character message behind a 20-character prefix: 511 characters survive, the
       last being message character 511 - 20 - 1 = 490 */
    char body[501];
    for (int i = 0; i < 500; i++) body[i] = (char)('a' + i % 26);
    body[500] = 0;
    lgi_fail(&e, LG_ERR_FORMAT, "%s", body);
    lgi_error_prefix(&e, "%s", "0123456789012345678:");
    CHECK_EQ_INT(strlen(e.msg), 511);
    CHECK(memcmp(e.msg, "0123456789012345678:abc", 23) == 0);
    CHECK_EQ_INT(e.msg[510], 'a' + 490 % 26);
    /* a prefix longer than the buffer leaves only the prefix, cut */
    char longp[700];
    memset(longp, 'x', sizeof longp - 1);
    longp[sizeof longp - 1] = 0;
    lgi_fail(&e, LG_ERR_FORMAT, "tail");
    lgi_error_prefix(&e, "%s", longp);
    CHECK_EQ_INT(strlen(e.msg), 511);
    CHECK(strstr(e.msg, "tail") == NULL);
    /* the message is cut at 511 characters by the core too */
    char big[600];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = 0;
    lgi_fail(&e, LG_ERR_FORMAT, "%s", big);
    CHECK_EQ_INT(strlen(e.msg), 511);
}
