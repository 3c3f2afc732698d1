/* Every pass litegpu has, in the order `litegpu help` lists them. */
#include "passes/passes_impl.h"

static const lg_pass *const registry[] = {
    &lgp_fold_constants, &lgp_remove_identities, &lgp_merge_reshapes, &lgp_cancel_transposes,
    &lgp_remove_dead, &lgp_sink_transposes,
    &lgp_reduce_rank,
};

uint32_t lg_pass_count(void) { return (uint32_t)(sizeof registry / sizeof registry[0]); }

const lg_pass *lg_pass_at(uint32_t i) { return i < lg_pass_count() ? registry[i] : NULL; }

const lg_pass *lg_pass_find(const char *name) {
    for (uint32_t i = 0; name && i < lg_pass_count(); i++)
        if (strcmp(registry[i]->name, name) == 0) return registry[i];
    return NULL;
}
