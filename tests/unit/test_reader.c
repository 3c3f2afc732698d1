/* Reader cases built byte by byte (hand-derived flatbuffers). */
#include <string.h>

#include "lg/lg.h"
#include "tf.h"

/* A Model table with only version = 3 and no subgraphs (found by the fuzzer once check ran on
   accepted inputs): TFLite refuses it ("No subgraph in the model"), so must we.
     0: uoffset 16 -> root table     4: "TFL3"
     8: vtable {size 6, table size 8, field 0 (version) at +4}, 2 bytes padding
    16: table: soffset 8 (vtable at 16 - 8), 20: version 3 */
LG_TEST(reader_refuses_model_without_subgraphs) {
    const unsigned char buf[24] = {16, 0, 0, 0, 'T', 'F', 'L', '3', 6, 0, 8, 0, 4, 0, 0, 0,
                                   8, 0, 0, 0, 3, 0, 0, 0};
    lg_model *m = NULL;
    lg_error err;
    CHECK_EQ_INT(lg_tflite_read_mem(buf, sizeof buf, NULL, &m, &err), LG_ERR_FORMAT);
    CHECK(m == NULL);
    CHECK(strstr(err.msg, "no subgraph") != NULL);
}
