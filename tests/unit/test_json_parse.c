/* The CLI's JSON reader (tools/cli/json_parse.c), compiled into the unit runner. */
#include "../../tools/cli/json_parse.c"
#include "tf.h"

LG_TEST(json_parse_document) {
    const char *t = "{\"model\": \"a.tflite\", \"ok\": true, \"n\": -12.5e1, \"x\": null,"
                    " \"arr\": [1, [2, 3], {\"k\": \"v\"}], \"s\": \"q\\\"\\\\\\n\\u00e9\\ud83d\\ude00\"}";
    char err[128];
    jv *v = jv_parse(t, strlen(t), err, sizeof err);
    CHECK(v != NULL);
    if (!v) return;
    CHECK_STR(jv_str(v, "model", NULL), "a.tflite");
    CHECK_EQ_INT(jv_bool(v, "ok", 0), 1);
    CHECK_NEAR(jv_num(v, "n", 0), -125.0, 0);
    CHECK(jv_get(v, "x") && jv_get(v, "x")->type == JV_NULL);
    const jv *a = jv_get(v, "arr");
    CHECK(a && a->n == 3);
    CHECK(jv_at(a, 1) && jv_at(a, 1)->n == 2);
    CHECK_STR(jv_str(jv_at(a, 2), "k", NULL), "v");
    /* q " \ newline, e-acute (2 bytes), U+1F600 (4 bytes) */
    CHECK_STR(jv_str(v, "s", NULL), "q\"\\\n\xc3\xa9\xf0\x9f\x98\x80");
    CHECK(jv_get(v, "missing") == NULL);
    jv_free(v);
}

LG_TEST(json_parse_rejects) {
    const char *bad[] = {"", "{", "{\"a\" 1}", "[1,]", "{\"a\":1,}", "tru", "\"abc", "[1] x",
                         "\"a\x01\"", "{\"a\":\"\\q\"}", "[01.2.3]"};
    char err[128];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        jv *v = jv_parse(bad[i], strlen(bad[i]), err, sizeof err);
        if (v) tf_fail(__FILE__, __LINE__, "accepted %s", bad[i]);
        jv_free(v);
        CHECK(err[0] != 0);
    }
    /* nesting is capped */
    char deep[300];
    memset(deep, '[', 200);
    memset(deep + 200, ']', 99);
    deep[299] = 0;
    CHECK(jv_parse(deep, strlen(deep), err, sizeof err) == NULL);
}
