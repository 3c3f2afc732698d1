#!/usr/bin/env python3
"""An independent reader of litegpu evidence records (tests/e2e/test_evidence.sh).

    evidence_check.py record DIR BASELINE CANDIDATE [--params N | --params N AFTER] [--eval FOLDER]
        hashlib recomputes every digest of DIR/SHA256SUMS, checks that DIR holds nothing else,
        that contract.json's baseline / candidate / rollback sha256 are sha256(BASELINE) and
        sha256(CANDIDATE) as they are on disk (the files the verb read and wrote, not the
        copies), that the copies are byte-identical to them, that the file sizes are theirs,
        that n_params (before and after) is N, and that max_rel = max_abs / ref_max_abs. With
        --eval: inputs_sha256 is sha256 of the float32 data of FOLDER/*.npy in name order
        (numpy reads them) and n_cases their count.
    evidence_check.py field DIR PATH...   print contract.json's value at PATH (keys / indices)
    evidence_check.py flip FILE           flip the lowest bit of the middle byte of FILE
    evidence_check.py resum DIR           rewrite DIR/SHA256SUMS from the files (a forger's step)
Prints one line per failed assertion and exits 1 on any."""
import hashlib
import json
import os
import sys


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 16), b""):
            h.update(b)
    return h.hexdigest()


def record(argv):
    d, base, cand = argv[0], argv[1], argv[2]
    params = None
    evald = None
    rest = argv[3:]
    while rest:
        if rest[0] == "--params":
            params = int(rest[1]); rest = rest[2:]
            after = params
            if rest and rest[0].isdigit():
                after = int(rest[0]); rest = rest[1:]
        elif rest[0] == "--eval":
            evald = rest[1]; rest = rest[2:]
        else:
            raise SystemExit("unknown option " + rest[0])
    bad = []
    listed = {}
    with open(os.path.join(d, "SHA256SUMS")) as f:
        for line in f:
            digest, name = line.rstrip("\n").split("  ", 1)
            listed[name] = digest
    for name, digest in listed.items():
        got = sha(os.path.join(d, name))
        if got != digest:
            bad.append("%s: SHA256SUMS %s, hashlib %s" % (name, digest, got))
    extra = sorted(set(os.listdir(d)) - set(listed) - {"SHA256SUMS"})
    if extra:
        bad.append("unlisted files: %s" % extra)
    for need in ("contract.json", "measurements_timing.json", "environment.json", "command.txt", "candidate.tflite"):
        if need not in listed:
            bad.append("%s not in SHA256SUMS" % need)
    c = json.load(open(os.path.join(d, "contract.json")))
    bs, cs = sha(base), sha(cand)
    if c["baseline"]["sha256"] != bs:
        bad.append("baseline sha256 %s != sha256(%s) %s" % (c["baseline"]["sha256"], base, bs))
    if c["rollback_artifact"]["sha256"] != bs:
        bad.append("rollback sha256 is not the baseline's")
    if c["candidate"]["sha256"] != cs:
        bad.append("candidate sha256 %s != sha256(%s) %s" % (c["candidate"]["sha256"], cand, cs))
    if open(os.path.join(d, c["baseline"]["copy"]), "rb").read() != open(base, "rb").read():
        bad.append("the baseline copy differs from %s" % base)
    if open(os.path.join(d, "candidate.tflite"), "rb").read() != open(cand, "rb").read():
        bad.append("the candidate copy differs from %s" % cand)
    m = c["measurements"]
    fs = m["file_size_bytes"]
    if fs["before"] != os.path.getsize(base) or fs["after"] != os.path.getsize(cand):
        bad.append("file sizes %s, on disk %d / %d" % (fs, os.path.getsize(base), os.path.getsize(cand)))
    if params is not None and (m["n_params"]["before"] != params or m["n_params"]["after"] != after):
        bad.append("n_params %s, hand count %d -> %d" % (m["n_params"], params, after))
    if c["decision"] != "not_evaluated":
        bad.append("decision %r" % c["decision"])
    for o in m["output_error"] or []:
        if o["ref_max_abs"] > 0:
            want = o["max_abs"] / o["ref_max_abs"]
            if abs(o["max_rel"] - want) > 1e-6 * max(want, 1e-30) + 1e-12:
                bad.append("output %d max_rel %r, max_abs / ref_max_abs %r" % (o["index"], o["max_rel"], want))
    if evald:
        import numpy as np
        names = sorted(n for n in os.listdir(evald) if n.endswith(".npy"))
        h = hashlib.sha256()
        for n in names:
            h.update(np.ascontiguousarray(np.load(os.path.join(evald, n)), dtype="<f4").tobytes())
        ev = m["evaluation_inputs"]
        if ev["inputs_sha256"] != h.hexdigest():
            bad.append("inputs_sha256 %s, numpy %s" % (ev["inputs_sha256"], h.hexdigest()))
        if ev["n_cases"] != len(names):
            bad.append("n_cases %d, files %d" % (ev["n_cases"], len(names)))
    for b in bad:
        print(b)
    return 1 if bad else 0


def field(argv):
    v = json.load(open(os.path.join(argv[0], "contract.json")))
    for k in argv[1:]:
        v = v[int(k)] if isinstance(v, list) else v[k]
    print(json.dumps(v))
    return 0


def flip(argv):
    with open(argv[0], "r+b") as f:
        data = bytearray(f.read())
        i = len(data) // 2
        data[i] ^= 1
        f.seek(0)
        f.write(data)
    return 0


def resum(argv):
    d = argv[0]
    names = [n.split("  ", 1)[1].rstrip("\n") for n in open(os.path.join(d, "SHA256SUMS"))]
    with open(os.path.join(d, "SHA256SUMS"), "w") as f:
        for n in names:
            f.write("%s  %s\n" % (sha(os.path.join(d, n)), n))
    return 0


if __name__ == "__main__":
    cmd = sys.argv[1]
    sys.exit({"record": record, "field": field, "flip": flip, "resum": resum}[cmd](sys.argv[2:]))
