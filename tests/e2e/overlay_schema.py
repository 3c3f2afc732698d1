#!/usr/bin/env python3
"""Check a Model Explorer node-data JSON (what `litegpu compare/check --overlay` write) against
the format as Model Explorer defines it. Written from Model Explorer's sources, not from
litegpu's output (google-ai-edge/model-explorer):

  src/server/package/src/model_explorer/node_data_builder.py
      ModelNodeData.graphsData: graph id -> GraphNodeData (to_json_string writes that dict);
      GraphNodeData: results (node key -> NodeDataResult), thresholds (ThresholdItem list),
      gradient (GradientItem list; "Stops for 0 and 1 should always be provided"),
      hideInAggregatedStatsTable, hideInChildrenStatsTable (bool), hideAggregatedStats
      (list of 'min' | 'max' | 'sum' | 'avg'), showExpandedSummaryOnGroupNode,
      showLabelCountColumnsInChildrenStatsTable (bool);
      NodeDataResult: value (required), bgColor, textColor (optional CSS colours);
      ThresholdItem: value (number), bgColor (required), textColor (optional);
      GradientItem: stop (0..1), bgColor, textColor (optional; "Only support hex color (e.g.
      #aabb00) or color names (e.g. red)").
  src/ui/src/components/visualizer/common/types.ts
      NodeDataProviderGraphData adds an optional `name` (string); NodeDataProviderResultData
      .value is `any`: node_data_provider_extension_service.ts shows numbers, booleans and
      strings as such (anything else is JSON.stringify'd), so those three are the value types
      accepted here (the Python dataclass says a number; strings are what the UI's
      showExpandedSummaryOnGroupNode / label counts are for).
  src/ui/src/components/visualizer/node_data_provider_extension_service.ts
      getNodeDataProviderData: a top level with "results" (and no results.results) is one
      graph's data; anything else is graph id -> graph data. getBgColor takes the first
      threshold whose value is >= the node's value, so thresholds are checked to increase.

Node keys (GraphNodeData.results doc): an op node's id, or an output tensor name of an op. For
a .tflite, the TFLite flatbuffer adapter (src/builtin-adapter/adapters/litert/
direct_flatbuffer_to_json_graph_convert.cc: SubgraphBuildContext, AddNode, GetSubgraphName)
gives operator i the id str(i) and names the graph by the subgraph's name, else its signature
key, else "main" / "subgraph_<i>". With --model, the model is read with flatc (an independent
flatbuffers reader) and every graph id and key must name a graph and an op of it.

usage: overlay_schema.py OVERLAY.json... [--model M.tflite --schema SCHEMA.fbs]
prints "ok: N graph(s), M result(s)" per file, or one line per problem; exits 0 when all pass.
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

BOOL_KEYS = ('hideInAggregatedStatsTable', 'hideInChildrenStatsTable',
             'showExpandedSummaryOnGroupNode', 'showLabelCountColumnsInChildrenStatsTable')
GRAPH_KEYS = {'name', 'results', 'thresholds', 'gradient', 'hideAggregatedStats'} | set(BOOL_KEYS)
AGG_STATS = {'min', 'max', 'sum', 'avg'}
HEX = re.compile(r'^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$')
NAME = re.compile(r'^[a-zA-Z]+$')


def load_strict(path):
    """JSON with no NaN/Infinity tokens and no repeated keys (Python's json takes both)."""
    def bad_constant(tok):
        raise ValueError('%s is not JSON' % tok)

    def pairs(kv):
        d = {}
        for k, v in kv:
            if k in d:
                raise ValueError('key %r appears twice' % k)
            d[k] = v
        return d
    with open(path, encoding='utf-8') as f:
        return json.load(f, parse_constant=bad_constant, object_pairs_hook=pairs)


def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def css_color(x):  # "any CSS color": hex or a name (rgb()/hsl() forms are not used here)
    return isinstance(x, str) and (HEX.match(x) or NAME.match(x))


def check_graph(gid, g, errs):
    where = 'graph %r' % gid if gid is not None else 'graph data'
    if not isinstance(g, dict):
        errs.append('%s: not an object' % where)
        return
    for k in g:
        if k not in GRAPH_KEYS:
            errs.append('%s: unknown key %r' % (where, k))
    if 'results' not in g or not isinstance(g['results'], dict):
        errs.append('%s: "results" (an object) is required' % where)
    else:
        for key, r in g['results'].items():
            w = '%s result %r' % (where, key)
            if not key:
                errs.append('%s: empty node key' % w)
            if not isinstance(r, dict):
                errs.append('%s: not an object' % w)
                continue
            for k in r:
                if k not in ('value', 'bgColor', 'textColor'):
                    errs.append('%s: unknown key %r' % (w, k))
            if 'value' not in r:
                errs.append('%s: "value" is required' % w)
            elif not (is_num(r['value']) or isinstance(r['value'], (str, bool))):
                errs.append('%s: value %r is not a number, string or boolean' % (w, r['value']))
            for c in ('bgColor', 'textColor'):
                if c in r and not css_color(r[c]):
                    errs.append('%s: %s %r is not a colour' % (w, c, r[c]))
    if 'name' in g and not isinstance(g['name'], str):
        errs.append('%s: name is not a string' % where)
    for k in BOOL_KEYS:
        if k in g and not isinstance(g[k], bool):
            errs.append('%s: %s is not a boolean' % (where, k))
    if 'hideAggregatedStats' in g and not (isinstance(g['hideAggregatedStats'], list)
                                           and all(s in AGG_STATS for s in g['hideAggregatedStats'])):
        errs.append('%s: hideAggregatedStats must list min/max/sum/avg' % where)
    th = g.get('thresholds', [])
    if not isinstance(th, list):
        errs.append('%s: thresholds is not a list' % where)
        th = []
    prev = None
    for i, t in enumerate(th):
        w = '%s threshold %d' % (where, i)
        if not isinstance(t, dict) or set(t) - {'value', 'bgColor', 'textColor'}:
            errs.append('%s: an object of value, bgColor, textColor' % w)
            continue
        if not is_num(t.get('value')):
            errs.append('%s: value (a number) is required' % w)
            continue
        if not css_color(t.get('bgColor')):
            errs.append('%s: bgColor (a colour) is required' % w)
        if 'textColor' in t and not css_color(t['textColor']):
            errs.append('%s: textColor is not a colour' % w)
        if prev is not None and not t['value'] > prev:
            errs.append('%s: thresholds must increase (%r after %r)' % (w, t['value'], prev))
        prev = t['value']
    gr = g.get('gradient', [])
    if not isinstance(gr, list):
        errs.append('%s: gradient is not a list' % where)
        gr = []
    stops = []
    for i, s in enumerate(gr):
        w = '%s gradient %d' % (where, i)
        if not isinstance(s, dict) or set(s) - {'stop', 'bgColor', 'textColor'}:
            errs.append('%s: an object of stop, bgColor, textColor' % w)
            continue
        if not is_num(s.get('stop')) or not 0 <= s['stop'] <= 1:
            errs.append('%s: stop must be a number in [0, 1]' % w)
            continue
        for c in ('bgColor', 'textColor'):
            if c in s and not (isinstance(s[c], str) and (HEX.match(s[c]) and len(s[c]) == 7 or NAME.match(s[c]))):
                errs.append('%s: %s must be #rrggbb or a colour name' % (w, c))
        stops.append(s['stop'])
    if gr and (0 not in stops or 1 not in stops):
        errs.append('%s: a gradient needs stops 0 and 1' % where)


def graphs_of(doc, errs):
    """{graph id (None: the graph shown): graph data}, as getNodeDataProviderData reads it."""
    if not isinstance(doc, dict):
        errs.append('top level: not an object')
        return {}
    if isinstance(doc.get('results'), dict) and 'results' not in doc['results']:
        return {None: doc}
    if not doc:
        errs.append('top level: no graph')
    return dict(doc)


def model_graphs(model, schema):
    """{graph id: (n_ops, set of op output tensor names)} from flatc's JSON of the model."""
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(['flatc', '--json', '--strict-json', '--raw-binary', '-o', d, schema, '--', model],
                       check=True, capture_output=True)
        js = os.path.join(d, os.path.splitext(os.path.basename(model))[0] + '.json')
        with open(js) as f:
            m = json.load(f)
    sigs = m.get('signature_defs', [])
    out = {}
    for i, sg in enumerate(m.get('subgraphs', [])):
        gid = sg.get('name', '')
        if not gid:
            for s in sigs:
                if s.get('subgraph_index', 0) == i:
                    gid = s.get('signature_key', '')
                    break
        if not gid:
            gid = 'main' if i == 0 else 'subgraph_%d' % i
        tensors = sg.get('tensors', [])
        names = set()
        ops = sg.get('operators', [])
        for op in ops:
            for t in op.get('outputs', []):
                if 0 <= t < len(tensors) and tensors[t].get('name'):
                    names.add(tensors[t]['name'])
        out[gid] = (len(ops), names)
    return out


def check_keys(graphs, mg, errs):
    for gid, g in graphs.items():
        if gid is None:
            if len(mg) != 1:
                errs.append('one graph\'s data but the model has %d subgraphs' % len(mg))
                continue
            gid = next(iter(mg))
        if gid not in mg:
            errs.append('graph %r: the model has no such graph (it has %s)' % (gid, sorted(mg)))
            continue
        n_ops, names = mg[gid]
        for key in (g.get('results') or {}) if isinstance(g, dict) else {}:
            is_id = re.fullmatch(r'0|[1-9][0-9]*', key) and int(key) < n_ops
            if not is_id and key not in names:
                errs.append('graph %r: key %r is neither an op node id (0..%d) nor an op output tensor name'
                            % (gid, key, n_ops - 1))


def main(argv):
    args = argv[1:]
    model = schema = None
    if '--model' in args:
        i = args.index('--model')
        model = args[i + 1]
        del args[i:i + 2]
    if '--schema' in args:
        i = args.index('--schema')
        schema = args[i + 1]
        del args[i:i + 2]
    if not args or (model is None) != (schema is None):
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    mg = None
    rc = 0
    for path in args:
        errs = []
        try:
            doc = load_strict(path)
        except (OSError, ValueError) as e:
            print('%s: %s' % (path, e))
            rc = 1
            continue
        graphs = graphs_of(doc, errs)
        for gid, g in graphs.items():
            check_graph(gid, g, errs)
        if model and not errs:
            if mg is None:
                mg = model_graphs(model, schema)  # flatc once for all the files
            check_keys(graphs, mg, errs)
        for e in errs:
            print('%s: %s' % (path, e))
        if errs:
            rc = 1
            continue
        n = sum(len(g['results']) for g in graphs.values())
        print('ok: %d graph(s), %d result(s)' % (len(graphs), n))
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv))
