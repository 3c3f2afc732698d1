/* The CLI's JSON writer (tools/cli/json.c, compiled into the unit tests here): escaping,
   UTF-8 repair, numbers and layout. */
#include <stdint.h>
#include <stdlib.h>
#include "../../tools/cli/json.c"
#include "tf.h"

/* Everything written to f so far, as a NUL-terminated string (static buffer). */
static const char *contents(FILE *f) {
    static char buf[4096];
    fflush(f);
    long n = ftell(f);
    rewind(f);
    size_t got = fread(buf, 1, n > 0 && (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1, f);
    buf[got] = 0;
    rewind(f);
    return buf;
}

static const char *quoted(const char *s, size_t n) {
    FILE *f = tmpfile();
    if (!f) return "(no tmpfile)";
    json_write_quoted(f, s, n);
    const char *r = contents(f);
    fclose(f);
    return r;
}
#define Q(lit) quoted(lit, sizeof(lit) - 1)

LG_TEST(json_escapes_and_utf8) {
    CHECK_STR(Q("plain"), "\"plain\"");
    CHECK_STR(Q("q\"b\\s/"), "\"q\\\"b\\\\s/\"");
    CHECK_STR(Q("\b\f\n\r\t\x01\x1f\x7f"), "\"\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\"");
    CHECK_STR(Q("a\0b"), "\"a\\u0000b\"");
    /* valid 2-, 3-, 4-byte sequences pass through */
    CHECK_STR(Q("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    CHECK_STR(Q("\xef\xbf\xbd\xf4\x8f\xbf\xbf"), "\"\xef\xbf\xbd\xf4\x8f\xbf\xbf\"");
    /* invalid: stray bytes, truncation, overlongs, surrogates, beyond U+10FFFF */
    CHECK_STR(Q("\xff"), "\"\\ufffd\"");
    CHECK_STR(Q("a\xc3"), "\"a\\ufffd\"");
    CHECK_STR(Q("\xe2\x82" "A"), "\"\\ufffdA\"");
    CHECK_STR(Q("\xc0\xaf"), "\"\\ufffd\\ufffd\"");
    CHECK_STR(Q("\xe0\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
    CHECK_STR(Q("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
    CHECK_STR(Q("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    CHECK_STR(Q("\xf0\x9f\x98"), "\"\\ufffd\"");
}

LG_TEST(json_numbers_and_layout) {
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) return;
    json_w j;
    json_init(&j, f);
    json_obj_open(&j);
    json_key_int(&j, "min", INT64_MIN);
    json_key_uint(&j, "max", UINT64_MAX);
    json_key_double(&j, "tenth", 0.1f);
    json_key_double(&j, "big", 1e300);
    json_key_double(&j, "nan", NAN);
    json_key_double(&j, "inf", -INFINITY);
    json_key_bool(&j, "t", true);
    json_key_str(&j, "null", NULL);
    json_key(&j, "shape");
    json_arr_open_flat(&j);
    json_int(&j, 1);
    json_int(&j, -1);
    json_arr_close(&j);
    json_key(&j, "list");
    json_arr_open(&j);
    json_obj_open_flat(&j);
    json_key_str(&j, "op", "ADD");
    json_key_uint(&j, "count", 3);
    json_obj_close(&j);
    json_arr_close(&j);
    json_key(&j, "empty");
    json_arr_open(&j);
    json_arr_close(&j);
    json_key(&j, "eobj");
    json_obj_open(&j);
    json_obj_close(&j);
    json_obj_close(&j);
    CHECK_EQ_INT(json_finish(&j), 0);
    CHECK_STR(contents(f),
              "{\n"
              "  \"min\": -9223372036854775808,\n"
              "  \"max\": 18446744073709551615,\n"
              "  \"tenth\": 0.100000001,\n"
              "  \"big\": 1e+300,\n"
              "  \"nan\": null,\n"
              "  \"inf\": null,\n"
              "  \"t\": true,\n"
              "  \"null\": null,\n"
              "  \"shape\": [1,-1],\n"
              "  \"list\": [\n"
              "    {\"op\": \"ADD\", \"count\": 3}\n"
              "  ],\n"
              "  \"empty\": [],\n"
              "  \"eobj\": {}\n"
              "}\n");
    fclose(f);
}
