#include "refactor/tile_impl.h"
lg_status lg_tile_verify(const lg_model *m, const lg_tile_report *r, const lg_tile_verify_options *o,
                         lg_tile_verify_result *res, lg_error *err) {
    (void)m; (void)r; (void)o; (void)res;
    return lgi_fail(err, LG_ERR_UNSUPPORTED, "tile: verify not built yet");
}
