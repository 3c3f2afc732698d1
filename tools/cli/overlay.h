/* Model Explorer node-data overlays (`--overlay FILE` of compare and check; bench's per-op
   times once bench has them).

   The format is Model Explorer's "node data" JSON, as its sources define it:
   - google-ai-edge/model-explorer src/server/package/src/model_explorer/node_data_builder.py
     (ModelNodeData: graph id -> GraphNodeData; GraphNodeData: "results" (node key ->
     NodeDataResult), optional "thresholds" (ThresholdItem: value, bgColor, textColor?) and
     "gradient" (GradientItem: stop in [0, 1], bgColor?, textColor?; stops 0 and 1 always
     given; takes precedence over thresholds), "showExpandedSummaryOnGroupNode"...;
     NodeDataResult: "value", optional "bgColor" / "textColor" that override the colour the
     thresholds or gradient give);
   - src/ui/src/components/visualizer/common/types.ts (NodeDataProviderData = graph id ->
     NodeDataProviderGraphData, which adds an optional display "name";
     NodeDataProviderResultData.value is `any`: the UI shows numbers, booleans and strings);
   - src/ui/src/components/visualizer/node_data_provider_extension_service.ts
     (getNodeDataProviderData: a file whose top level has "results" is one graph's data,
     anything else is read as graph id -> graph data; getBgColor: a number takes the colour of
     the first threshold whose value it does not exceed, so thresholds go in increasing order;
     a value past the last one is left uncoloured).

   Node keys: for a .tflite, Model Explorer's TFLite flatbuffer adapter
   (src/builtin-adapter/adapters/litert/direct_flatbuffer_to_json_graph_convert.cc,
   SubgraphBuildContext and AddNode; the same in the older
   src/builtin-adapter/direct_flatbuffer_to_json_graph_convert.cc AddSubgraph) gives operator
   i of a subgraph the node id "i" (its index in the flatbuffer's operators, as a decimal
   string) and numbers its GraphInputs, pseudo_const and GraphOutputs nodes after the
   operators. A results key may be a node id or an output tensor name (node_data_builder.py
   GraphNodeData.results); tensor names can be empty or repeated, node ids cannot, so litegpu
   keys every entry by node id = op index. The graph id is the adapter's subgraph id
   (GetSubgraphName there): the subgraph's name, else its signature key, else "main" for
   subgraph 0 ("subgraph_<i>" for the others); common/schema_structs.cc (Subgraph::Json)
   writes it as the graph's "id", the id the UI indexes node data by
   (processNodeDataProviderDataForGraph: nodeDataProviderData[modelGraph.id]). */
#ifndef LG_CLI_OVERLAY_H
#define LG_CLI_OVERLAY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lg/lg.h"

typedef enum cli_overlay_kind { CLI_OVERLAY_NUMBER = 0, CLI_OVERLAY_STRING } cli_overlay_kind;

typedef struct cli_overlay_entry {
    char key[24];            /* the node key: cli_overlay_op_key (the op index) */
    cli_overlay_kind kind;
    double num;              /* CLI_OVERLAY_NUMBER; a non-finite number is written as the
                                string "inf", "-inf" or "nan" (JSON has no such numbers) */
    const char *str;         /* CLI_OVERLAY_STRING */
    const char *bg_color;    /* NULL, or a CSS colour overriding thresholds/gradient */
} cli_overlay_entry;

typedef struct cli_overlay_threshold {
    double value;            /* values <= this (and above the previous one) get bg_color */
    const char *bg_color;    /* required */
    const char *text_color;  /* NULL: none */
} cli_overlay_threshold;

typedef struct cli_overlay_stop {
    double stop;             /* 0 = the smallest value in results, 1 = the largest */
    const char *bg_color, *text_color; /* hex (#aabb00) or a colour name; NULL: none */
} cli_overlay_stop;

typedef struct cli_overlay {
    const char *graph_id;    /* the subgraph's graph id (cli_overlay_graph_id); NULL writes
                                one graph's data (applied to the graph shown) */
    const char *name;        /* the display name, or NULL (the UI then uses the file name) */
    const cli_overlay_entry *entries; uint32_t n_entries; /* keys unique */
    const cli_overlay_threshold *thresholds; uint32_t n_thresholds; /* values increasing */
    const cli_overlay_stop *gradient; uint32_t n_gradient; /* stops increasing, 0 ... 1 */
    bool expanded_summary;   /* showExpandedSummaryOnGroupNode (string values) */
} cli_overlay;

/* The node key of op `op`: its index as a decimal string. */
void cli_overlay_op_key(char key[24], int32_t op);

/* The graph id Model Explorer's TFLite adapter gives subgraph sg, into buf. */
const char *cli_overlay_graph_id(const lg_model *m, uint32_t sg, char *buf, size_t size);

/* Write ov to path: a temporary file next to it, then moved into place (an existing regular
   file is replaced only with force; links, devices, directories are refused: cli.h
   "outputs"). Refuses an overlay that breaks the format (duplicate or empty keys, thresholds
   not increasing, a gradient without stops 0 and 1). CLI_OK, or CLI_ERROR (printed). */
int cli_overlay_write(const char *path, const cli_overlay *ov, bool force);

#endif
