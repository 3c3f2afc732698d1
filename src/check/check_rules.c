/* The rule table, generated from rules.def (the checker, `--explain` and the README's rule
   list all read it), and its public look-ups. */
#include <string.h>

#include "check/check_impl.h"

const lg_rule_info lgc_rule_table[R_COUNT] = {
#define RULE(sym, id, sev, tg, gpus, gnote, kind, src, title, fix, doc) \
    {id, sev, tg, gpus, gnote, kind, src, title, fix, doc},
#include "check/rules.def"
#undef RULE
};

const lg_rule_info *lg_rules(uint32_t *n) {
    if (n) *n = R_COUNT;
    return lgc_rule_table;
}

const lg_rule_info *lg_rule_find(const char *id) {
    for (int i = 0; i < R_COUNT; i++)
        if (strcmp(lgc_rule_table[i].id, id) == 0) return &lgc_rule_table[i];
    return NULL;
}

const char *lg_target_name(lg_target t) {
    return t == LG_TARGET_CLASSIC ? "classic" : t == LG_TARGET_MLDRIFT ? "mldrift" : "?";
}

int lg_target_from_name(const char *name) {
    if (strcmp(name, "mldrift") == 0) return LG_TARGET_MLDRIFT;
    if (strcmp(name, "classic") == 0) return LG_TARGET_CLASSIC;
    return -1;
}

const char *lg_gpu_name(lg_gpu g) {
    switch (g) {
    case LG_GPU_ANY: return "any";
    case LG_GPU_MALI: return "mali";
    case LG_GPU_ADRENO: return "adreno";
    case LG_GPU_WEBGPU: return "webgpu";
    default: return "?";
    }
}

int lg_gpu_from_name(const char *name) {
    for (int g = 0; g < LG_GPU_COUNT; g++)
        if (strcmp(name, lg_gpu_name((lg_gpu)g)) == 0) return g;
    return -1;
}

unsigned lg_gpu_mask(lg_gpu g) {
    return g == LG_GPU_ANY || (unsigned)g >= LG_GPU_COUNT ? LG_GPUS_ALL : LG_GPU_BIT(g);
}

const char *lg_severity_name(lg_severity s) { return s == LG_SEV_BLOCKER ? "blocker" : "warning"; }
