#!/usr/bin/env python3
"""Checks `litegpu info --json` output (stdlib only). Prints one PASS/FAIL line per check.

  info_census.py flatc OURS.json FLATC.json SCHEMA.fbs MODEL.tflite
      An independent census of the model from flatc's JSON dump (flatc parses the file,
      this script counts) compared field by field with ours: file size and sha256 (hashlib),
      schema version, description, per subgraph the op counts by builtin name, custom ops,
      tensor count, max rank, inputs and outputs (name, dtype, shape, shape_signature), and
      the constant bytes / params by dtype (and of the sparse constants among them: count,
      stored bytes, dense params), metadata names and sizes; verb, model and ok.

  info_census.py expect OURS.json NAME FACT...
      Facts stated in corpus.md, each FACT one of:
        subgraphs=N  ops=N  max_rank<=N  io_dtype=T  weights_dtype=T
        in=D,D,..  (the inputs, ';'-separated, in order)   out=D,D;D,..  (outputs, in order)
        n_out=N  out_has=D,..;D,..  (these shapes among the outputs)
        has=OP,OP,..  (builtin ops present)  custom=NAME:COUNT
Exit status is 1 if any check failed.
"""
import hashlib
import json
import os
import re
import sys

failures = 0


def check(name, ok, detail=""):
    global failures
    if ok:
        print(f"PASS {name}")
    else:
        failures += 1
        print(f"FAIL {name}{': ' + detail if detail else ''}")


def schema_enum(schema_text, enum_name):
    """name -> value for `enum enum_name : type { A = 0, ... }` in a .fbs file."""
    m = re.search(r"enum\s+" + enum_name + r"\s*:\s*\w+\s*\{(.*?)\}", schema_text, re.S)
    if not m:
        raise SystemExit(f"enum {enum_name} not found in schema")
    body = re.sub(r"//[^\n]*", "", m.group(1))
    out = {}
    nxt = 0
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" in item:
            k, v = (s.strip() for s in item.split("=", 1))
            nxt = int(v)
        else:
            k = item
        out[k] = nxt
        nxt += 1
    return out


def prod(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def flatc_census(fj, schema_text):
    ops_enum = schema_enum(schema_text, "BuiltinOperator")
    op_names = {v: k for k, v in ops_enum.items()}
    opcodes = []
    for oc in fj.get("operator_codes", []):
        dep = oc.get("deprecated_builtin_code", 0)
        bc = oc.get("builtin_code", 0)
        if isinstance(bc, str):
            bc = ops_enum[bc]
        code = max(dep, bc)
        opcodes.append((op_names.get(code, f"UNKNOWN({code})"), oc.get("custom_code")))
    buffers = fj.get("buffers", [])

    def buf_bytes(i):
        if i <= 0 or i >= len(buffers):
            return 0
        b = buffers[i]
        if "data" in b:
            return len(b["data"])
        if b.get("offset", 0) > 1:  # constant data stored after the flatbuffer
            return b.get("size", 0)
        return 0

    subgraphs = []
    claimed = set()
    weights = {}
    for sg in fj.get("subgraphs", []):
        tensors = sg.get("tensors", [])
        ops, custom = {}, {}
        for op in sg.get("operators", []):
            name, cc = opcodes[op.get("opcode_index", 0)]
            ops[name] = ops.get(name, 0) + 1
            if name == "CUSTOM":
                custom[cc or ""] = custom.get(cc or "", 0) + 1

        def io(ids):
            out = []
            for t in ids:
                tt = tensors[t]
                out.append({"name": tt.get("name", ""), "dtype": tt.get("type", "FLOAT32"),
                            "shape": tt.get("shape", []),
                            "shape_signature": tt.get("shape_signature")})
            return out

        subgraphs.append({
            "name": sg.get("name", ""),
            "n_ops": len(sg.get("operators", [])),
            "n_tensors": len(tensors),
            "max_rank": max([len(t.get("shape", [])) for t in tensors] + [0]),
            "ops": ops, "custom": custom,
            "inputs": io(sg.get("inputs", [])), "outputs": io(sg.get("outputs", [])),
        })
        # weights: each buffer with bytes once, under the first tensor referring to it
        for t in tensors:
            b = t.get("buffer", 0)
            nb = buf_bytes(b)
            if nb == 0 or b in claimed:
                continue
            claimed.add(b)
            w = weights.setdefault(t.get("type", "FLOAT32"), [0, 0, 0, 0, 0])
            w[0] += nb
            w[1] += prod(t.get("shape", []))
            if t.get("sparsity") is not None:  # stored bytes vs dense params, counted apart
                w[2] += 1
                w[3] += nb
                w[4] += prod(t.get("shape", []))
    metadata = [(md.get("name", ""), buf_bytes(md.get("buffer", 0)))
                for md in fj.get("metadata", [])]
    return {"version": fj.get("version", 0), "description": fj.get("description"),
            "subgraphs": subgraphs, "weights": weights, "metadata": metadata}


def cmd_flatc(ours_path, flatc_path, schema_path, model_path):
    ours = json.load(open(ours_path))
    ref = flatc_census(json.load(open(flatc_path)), open(schema_path).read())
    data = open(model_path, "rb").read()
    tag = os.path.basename(model_path).rsplit(".", 1)[0]
    check(f"{tag} common keys", ours.get("verb") == "info" and ours.get("ok") is True
          and ours.get("model") == model_path, f"{ours.get('verb')!r} {ours.get('ok')!r} {ours.get('model')!r}")
    check(f"{tag} size", ours["size"] == len(data), f"{ours['size']} vs {len(data)}")
    sha = hashlib.sha256(data).hexdigest()
    check(f"{tag} sha256", ours["sha256"] == sha, f"{ours['sha256']} vs {sha}")
    check(f"{tag} schema_version", ours["schema_version"] == ref["version"])
    check(f"{tag} description", ours["description"] == ref["description"],
          f"{ours['description']!r} vs {ref['description']!r}")
    check(f"{tag} subgraph count", len(ours["subgraphs"]) == len(ref["subgraphs"]))
    for i, (o, r) in enumerate(zip(ours["subgraphs"], ref["subgraphs"])):
        p = f"{tag} sg{i}"
        check(f"{p} name", o["name"] == r["name"], f"{o['name']!r} vs {r['name']!r}")
        for k in ("n_ops", "n_tensors", "max_rank"):
            check(f"{p} {k}", o[k] == r[k], f"{o[k]} vs {r[k]}")
        ops = {e["op"]: e["count"] for e in o["ops"]}
        check(f"{p} op census", ops == r["ops"], f"{sorted(ops.items())} vs {sorted(r['ops'].items())}")
        counts = [(-e["count"], e["op"]) for e in o["ops"]]
        check(f"{p} op census order", counts == sorted(counts))
        custom = {e["name"]: e["count"] for e in o["custom_ops"]}
        check(f"{p} custom ops", custom == r["custom"], f"{custom} vs {r['custom']}")
        for kind in ("inputs", "outputs"):
            mine = [{"name": e["name"], "dtype": e["dtype"], "shape": e["shape"],
                     "shape_signature": e["shape_signature"]} for e in o[kind]]
            check(f"{p} {kind}", mine == r[kind], f"{mine} vs {r[kind]}")
            dyn = [e["dynamic"] for e in o[kind]]
            want = [any(d < 0 for d in (e["shape_signature"] or e["shape"])) for e in r[kind]]
            check(f"{p} {kind} dynamic flags", dyn == want, f"{dyn} vs {want}")
    w = {e["dtype"]: [e["bytes"], e["params"], e["n_sparse_buffers"], e["sparse_bytes"], e["sparse_params"]]
         for e in ours["weights"]["by_dtype"]}
    check(f"{tag} weights by dtype", w == ref["weights"], f"{w} vs {ref['weights']}")
    check(f"{tag} weights totals",
          ours["weights"]["bytes"] == sum(v[0] for v in ref["weights"].values())
          and ours["weights"]["params"] == sum(v[1] for v in ref["weights"].values()))
    md = [(e["name"], e["bytes"]) for e in ours["metadata"]]
    check(f"{tag} metadata", md == ref["metadata"], f"{md} vs {ref['metadata']}")


def dims_list(s):
    return [[int(x) for x in part.split(",")] for part in s.split(";")]


def cmd_expect(ours_path, tag, facts):
    ours = json.load(open(ours_path))
    sgs = ours["subgraphs"]
    sg = sgs[0] if sgs else {"n_ops": 0, "ops": [], "custom_ops": [], "inputs": [],
                              "outputs": [], "max_rank": 0}
    ops = {e["op"]: e["count"] for e in sg["ops"]}
    for fact in facts:
        name = f"{tag} corpus.md {fact}"
        if fact.startswith("subgraphs="):
            check(name, len(sgs) == int(fact.split("=")[1]), str(len(sgs)))
        elif fact.startswith("ops="):
            total = sum(ops.values())
            check(name, sg["n_ops"] == int(fact[4:]) and total == sg["n_ops"],
                  f"n_ops {sg['n_ops']}, census total {total}")
        elif fact.startswith("max_rank<="):
            check(name, all(s["max_rank"] <= int(fact[10:]) for s in sgs))
        elif fact.startswith("io_dtype="):
            want = fact[9:]
            got = [e["dtype"] for s in sgs for e in s["inputs"] + s["outputs"]]
            check(name, got and all(d == want for d in got), str(got))
        elif fact.startswith("weights_dtype="):
            got = [e["dtype"] for e in ours["weights"]["by_dtype"]]
            check(name, fact[14:] in got, str(got))
        elif fact.startswith("in="):
            got = [e["shape"] for e in sg["inputs"]]
            check(name, got == dims_list(fact[3:]), str(got))
        elif fact.startswith("out="):
            got = [e["shape"] for e in sg["outputs"]]
            check(name, got == dims_list(fact[4:]), str(got))
        elif fact.startswith("n_out="):
            check(name, len(sg["outputs"]) == int(fact[6:]), str(len(sg["outputs"])))
        elif fact.startswith("out_has="):
            got = [e["shape"] for e in sg["outputs"]]
            check(name, all(d in got for d in dims_list(fact[8:])), str(got))
        elif fact.startswith("has="):
            missing = [op for op in fact[4:].split(",") if ops.get(op, 0) <= 0]
            check(name, not missing, f"missing {missing}")
        elif fact.startswith("custom="):
            cname, count = fact[7:].rsplit(":", 1)
            got = {e["name"]: e["count"] for e in sg["custom_ops"]}
            check(name, got.get(cname) == int(count) and ops.get("CUSTOM", 0) >= int(count),
                  str(got))
        else:
            check(name, False, "unknown fact")


def main(argv):
    if len(argv) == 6 and argv[1] == "flatc":
        cmd_flatc(*argv[2:])
    elif len(argv) >= 4 and argv[1] == "expect":
        cmd_expect(argv[2], argv[3], argv[4:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
