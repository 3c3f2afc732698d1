/* A small streaming JSON writer for the CLI's --json output.
 *
 *     json_w j;
 *     json_init(&j, stdout);
 *     json_obj_open(&j);
 *     json_key_str(&j, "file", path);
 *     json_key(&j, "shape"); json_arr_open_flat(&j);
 *     for (...) json_int(&j, dim);
 *     json_arr_close(&j);
 *     json_obj_close(&j);
 *     json_finish(&j);                       // final newline; returns 0 or -1 on I/O error
 *
 * Output is indented by two spaces per level; "flat" containers (shapes, census entries)
 * stay on one line: {"op": "ADD", "count": 3}, [1,224,224,3]. Keys appear in the order they are written. Strings are escaped fully: quotes,
 * backslashes and all control characters; invalid UTF-8 is replaced by U+FFFD. Integers
 * are exact; doubles use %.9g, and NaN/Inf become null.
 */
#ifndef LG_CLI_JSON_H
#define LG_CLI_JSON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 64

typedef struct json_w {
    FILE *f;
    int depth;                          /* open containers */
    int flat_from;                      /* depth at which one-line mode began; 0 = off */
    bool after_key;                     /* a key was written, its value comes next */
    bool has_items[JSON_MAX_DEPTH + 1]; /* per depth: an element was already written */
    bool is_obj[JSON_MAX_DEPTH + 1];    /* per depth: the container is an object */
} json_w;

void json_init(json_w *j, FILE *f);
void json_obj_open(json_w *j);
void json_obj_open_flat(json_w *j); /* this object and everything inside it on one line */
void json_obj_close(json_w *j);
void json_arr_open(json_w *j);
void json_arr_open_flat(json_w *j); /* this array and everything inside it on one line */
void json_arr_close(json_w *j);
void json_key(json_w *j, const char *key);

void json_str(json_w *j, const char *s); /* NULL writes null */
void json_strn(json_w *j, const char *s, size_t n);
void json_int(json_w *j, int64_t v);
void json_uint(json_w *j, uint64_t v);
void json_double(json_w *j, double v);
void json_bool(json_w *j, bool v);
void json_null(json_w *j);

/* key + value shorthands */
void json_key_str(json_w *j, const char *key, const char *s);
void json_key_int(json_w *j, const char *key, int64_t v);
void json_key_uint(json_w *j, const char *key, uint64_t v);
void json_key_double(json_w *j, const char *key, double v);
void json_key_bool(json_w *j, const char *key, bool v);

/* Ends the document with a newline and flushes; 0 on success, -1 if any write failed. */
int json_finish(json_w *j);

/* The escaped, quoted form of n bytes of s (the same escaping as json_strn), for text
   output that must stay on one line. */
void json_write_quoted(FILE *f, const char *s, size_t n);

#endif
