/* A small JSON reader for the CLI (the verify harness's report lines). Parses into a tree
   of jv nodes allocated from one block; strings are unescaped UTF-8. Depth is capped. */
#ifndef LG_CLI_JSON_PARSE_H
#define LG_CLI_JSON_PARSE_H
#include <stddef.h>
#include <stdint.h>

typedef enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ } jv_type;

typedef struct jv {
    jv_type type;
    double num;            /* JV_NUM; JV_BOOL: 0/1 */
    char *str;             /* JV_STR */
    char *key;             /* when inside an object */
    struct jv *child;      /* JV_ARR / JV_OBJ: first element */
    struct jv *next;       /* next sibling */
    size_t n;              /* JV_ARR / JV_OBJ: number of children */
} jv;

/* Parse text[0..len). Returns the root (free with jv_free) or NULL with a message in err. */
jv *jv_parse(const char *text, size_t len, char *err, size_t err_size);
void jv_free(jv *v);
/* Object member by key, or NULL. */
const jv *jv_get(const jv *obj, const char *key);
/* Array element i, or NULL. */
const jv *jv_at(const jv *arr, size_t i);
/* Convenience: string / number / bool of a member, with a default. */
const char *jv_str(const jv *obj, const char *key, const char *def);
double jv_num(const jv *obj, const char *key, double def);
int jv_bool(const jv *obj, const char *key, int def);
#endif
