#!/usr/bin/env python3
"""Checks a litegpu report page against the --json of the verbs its numbers come from.

usage: report_check.py PAGE.html --info INFO.json [--check CHECK.json] [--compare COMPARE.json]
                       [--bench BENCH.json] [--before-info INFO.json --before-check CHECK.json]
                       [--writer NAME] [--evil STRING]

Parsed with the standard library's html.parser (entities decoded, so an escaped tensor name
reads back as itself). Every number is turned back from what the page draws: the curve's
points from the SVG coordinates and the axis mapping the <svg> states (data-x0/x1/y0/y1,
data-log-lo/hi), the memory timeline likewise. Prints "ok" or the first failure (exit 1).
"""
import argparse
import json
import math
import sys
from html.parser import HTMLParser

VOID = {"meta", "link", "br", "img", "input", "hr", "area", "base", "col", "embed", "source", "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], []

    def all_text(self):
        return "".join(t if isinstance(t, str) else t.all_text() for t in self.text)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.cur.text.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.cur.text.append(n)

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text.append(data)


class Fail(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise Fail(msg)


def find(dom, tag=None, id=None, cls=None):
    out = []
    for n in dom.root.walk():
        if tag and n.tag != tag:
            continue
        if id and n.attrs.get("id") != id:
            continue
        if cls and cls not in (n.attrs.get("class") or "").split():
            continue
        out.append(n)
    return out


def one(dom, what, **kw):
    r = find(dom, **kw)
    need(len(r) == 1, "%s: %d elements, want 1" % (what, len(r)))
    return r[0]


def rows(tables):
    """Data rows (cells' text) of tables, header rows (th only) skipped."""
    out = []
    for t in tables:
        for tr in [n for n in t.walk() if n.tag == "tr"]:
            cells = [c for c in tr.children if c.tag in ("td", "th")]
            if cells and all(c.tag == "th" for c in cells):
                continue
            out.append([c.all_text() for c in cells])
    return out


def points(poly):
    s = poly.attrs.get("points", "").split()
    return [tuple(float(v) for v in p.split(",")) for p in s]


def xpos(svg, n_ops, op):
    x0, x1 = float(svg.attrs["data-x0"]), float(svg.attrs["data-x1"])
    return (x0 + x1) / 2 if n_ops <= 1 else x0 + op * (x1 - x0) / (n_ops - 1)


def close(a, b, tol=0.0051):
    return abs(a - b) <= tol


def check_glance(dom, info):
    need(one(dom, "#size", id="size").all_text() == str(info["size"]), "size differs from info --json")
    need(one(dom, "#sha256", id="sha256").all_text() == info["sha256"], "sha256 differs from info --json")
    need(one(dom, "#n-ops", id="n-ops").all_text() == str(info["subgraphs"][0]["n_ops"]), "n_ops differs")
    census = {r[0]: int(r[1]) for r in rows(find(dom, tag="table", cls="census"))}
    want = {c["op"]: c["count"] for c in info["subgraphs"][0]["ops"]}
    need(census == want, "op census %r != info's %r" % (census, want))


def check_findings(dom, check):
    got = rows(find(dom, tag="table", cls="findings"))
    want = check["findings"]
    need(len(got) == len(want), "findings table has %d rows, check --json %d" % (len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        exp = [str(i), w["rule"], w["severity"], str(w["op"]), w.get("op_name") or "", w["reason"], w["fix"]]
        need(g == exp, "finding %d: page %r, check --json %r" % (i, g, exp))
    verdict = one(dom, "#check-verdict", id="check-verdict").all_text()
    need(verdict == ("READY" if check["ok"] else "NOT READY"), "check verdict %r vs ok %r" % (verdict, check["ok"]))
    return len(got)


def op_scores(cmp):
    """(op, worst score) per op, in the order of compare's tensors (consecutive runs)."""
    out = []
    for t in cmp["tensors"]:
        s = t["score"]
        s = math.inf if s is None else s
        if out and out[-1][0] == t["op"]:
            out[-1][1] = max(out[-1][1], s)
        else:
            out.append([t["op"], s])
    return out


def check_curve(dom, cmp, n_ops):
    svg = one(dom, "svg#error-curve", tag="svg", id="error-curve")
    poly = [n for n in svg.walk() if n.tag == "polyline" and "curve" in n.attrs.get("class", "")]
    need(len(poly) == 1, "the curve is %d polylines, want 1" % len(poly))
    pts = points(poly[0])
    every = op_scores(cmp)
    want = [(op, s) for op, s in every if s != 0]  # exact ops are left off the line
    need(int(svg.attrs["data-n-exact"]) == len(every) - len(want), "exact ops count")
    need(len(pts) == len(want) == int(poly[0].attrs["data-n-points"]),
         "curve: %d points, data-n-points %s, compare --json %d ops" % (len(pts), poly[0].attrs["data-n-points"], len(want)))
    need(len(set(op for op, _ in every)) == len(every), "compare's tensors are not grouped by op")
    lo, hi = float(svg.attrs["data-log-lo"]), float(svg.attrs["data-log-hi"])
    y0, y1 = float(svg.attrs["data-y0"]), float(svg.attrs["data-y1"])
    finite = [s for _, s in want if 0 < s < math.inf]
    if finite:
        need(lo <= math.log10(min(finite)) + 1e-9 and hi >= math.log10(max(finite)) - 1e-9, "axis %g..%g misses data" % (lo, hi))
    for (x, y), (op, s) in zip(pts, want):
        need(close(x, xpos(svg, n_ops, op)), "op %d: x %g, want %g" % (op, x, xpos(svg, n_ops, op)))
        ls = hi if s == math.inf else lo if s <= 0 else min(max(math.log10(s), lo), hi)
        ey = y0 + (hi - ls) / (hi - lo) * (y1 - y0)
        need(close(y, ey), "op %d: y %g, want %g (score %r)" % (op, y, ey, s))
    tol = [n for n in svg.walk() if n.tag == "line" and n.attrs.get("class") == "tol"]
    need(len(tol) == 1 and float(tol[0].attrs["data-tol"]) == cmp["judge"]["tol"], "tolerance line")
    fd = [n for n in svg.walk() if n.tag == "line" and n.attrs.get("class") == "first-divergent"]
    para = one(dom, "#first-divergent", id="first-divergent")
    if cmp["first_divergent"] is None:
        need(not fd and para.attrs["data-op"] == "-1", "a first divergent op is marked; compare has none")
    else:
        op = cmp["first_divergent"]["op"]
        need(len(fd) == 1 and int(fd[0].attrs["data-op"]) == op, "first divergent mark != op %d" % op)
        need(close(float(fd[0].attrs["x1"]), xpos(svg, n_ops, op)), "first divergent mark at the wrong x")
        need(int(para.attrs["data-op"]) == op and int(para.attrs["data-tensor"]) == cmp["first_divergent"]["tensor"],
             "first divergent paragraph")
        need(cmp["first_divergent"]["name"] in para.all_text(), "first divergent tensor name not shown")
    ov = [n for n in svg.walk() if n.tag == "path" and n.attrs.get("class") == "overflows"]
    want_ov = [e["op"] for e in cmp["overflows"]]
    if want_ov:
        need(len(ov) == 1 and [int(v) for v in ov[0].attrs["data-ops"].split()] == want_ov, "overflow marks != %r" % want_ov)
        need(ov[0].attrs["d"].count("M") == len(want_ov), "overflow marks drawn")
        need(len(rows(find(dom, tag="table", cls="overflows"))) == len(want_ov), "overflow table rows")
    else:
        need(not ov, "overflow marks without overflows")
    verdict = one(dom, "#precision-verdict", id="precision-verdict").all_text()
    need(verdict == ("WITHIN TOLERANCE" if cmp["ok"] else "DIVERGES"), "precision verdict")
    return len(pts)


def check_memory(dom, bench, n_ops):
    mem = bench["memory"]
    svg = one(dom, "svg#memory", tag="svg", id="memory")
    need(int(svg.attrs["data-max"]) == mem["peak_live_bytes"], "memory axis max != bench peak_live_bytes")
    poly = [n for n in svg.walk() if n.tag == "polyline"]
    need(len(poly) == 1, "memory timeline: %d polylines" % len(poly))
    pts = points(poly[0])
    need(len(pts) == n_ops, "memory timeline: %d points, %d ops" % (len(pts), n_ops))
    y0, y1 = float(svg.attrs["data-y0"]), float(svg.attrs["data-y1"])
    peak = one(dom, "circle.peak", tag="circle", cls="peak")
    need(int(peak.attrs["data-op"]) == mem["peak_op"], "peak op %s != bench %d" % (peak.attrs["data-op"], mem["peak_op"]))
    need(int(peak.attrs["data-bytes"]) == mem["peak_live_bytes"], "peak bytes != bench")
    for op, (x, y) in enumerate(pts):
        need(close(x, xpos(svg, n_ops, op)), "memory op %d: x" % op)
        need(y >= y0 - 0.0051, "memory op %d above the peak" % op)
    need(close(pts[mem["peak_op"]][1], y0), "the peak op's point is not at the peak")
    # the first op reaching the peak is the peak op (bench's rule: the first with the largest sum)
    need(all(y > y0 + 0.0051 for _, y in pts[: mem["peak_op"]]) or mem["peak_live_bytes"] == 0, "an earlier op at the peak")
    need(int(one(dom, "#arena-bytes", id="arena-bytes").attrs["data-bytes"]) == mem["arena_bytes"], "arena bytes")
    need(one(dom, "#peak-op", id="peak-op").all_text() == str(mem["peak_op"]), "peak op text")
    for y in (float(p[1]) for p in pts):
        need(y <= y1 + 0.0051, "memory point below the axis")
    return len(pts)


def check_latency(dom, info):
    got = rows(find(dom, tag="table", id="by-type"))
    need(got, "no latency table")
    census = {c["op"]: c["count"] for c in info["subgraphs"][0]["ops"]}
    need({r[0]: int(r[1]) for r in got} == census, "latency counts by type != the op census")
    pct = sum(float(r[4]) for r in got)
    need(abs(pct - 100) < 0.5 and abs(float(got[-1][5]) - 100) < 0.02, "latency %% sums to %g" % pct)
    ms = [float(r[2]) for r in got]
    need(ms == sorted(ms, reverse=True), "by-type table not sorted by time")
    need(float(one(dom, "#run-ms", id="run-ms").all_text()) > 0, "run ms")


def check_before_after(dom, bi, bc, info, check):
    t = rows(find(dom, tag="table", id="ba"))
    d = {r[0]: r[1:] for r in t}
    need(d["size (bytes)"][:2] == [str(bi["size"]), str(info["size"])], "before/after sizes %r" % d["size (bytes)"])
    need(d["ops"][:2] == [str(bi["subgraphs"][0]["n_ops"]), str(info["subgraphs"][0]["n_ops"])], "before/after ops")
    need(d["blockers"][:2] == [str(bc["summary"]["n_blockers"]), str(check["summary"]["n_blockers"])], "before/after blockers")
    v = lambda c: "READY" if c["ok"] else "NOT READY"
    need(d["check"][0].startswith(v(bc)) and d["check"][1].startswith(v(check)), "before/after verdicts %r" % d["check"])
    ca = {c["op"]: c["count"] for c in bi["subgraphs"][0]["ops"]}
    cb = {c["op"]: c["count"] for c in info["subgraphs"][0]["ops"]}
    got = {r[0]: (int(r[1]), int(r[2])) for r in rows(find(dom, tag="table", id="ba-census"))}
    need(got == {k: (ca.get(k, 0), cb.get(k, 0)) for k in set(ca) | set(cb)}, "before/after census %r" % got)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    for k in ("info", "check", "compare", "bench", "before-info", "before-check", "writer", "evil"):
        ap.add_argument("--" + k)
    a = ap.parse_args()
    raw = open(a.page, encoding="utf-8", errors="replace").read()
    dom = Dom()
    dom.feed(raw)
    dom.close()
    load = lambda p: json.load(open(p)) if p else None
    info, check, cmp, bench = load(a.info), load(a.check), load(a.compare), load(a.bench)
    try:
        need(not find(dom, tag="script"), "the page has a <script>")
        for n in dom.root.walk():
            for k in ("src", "href", "xlink:href", "srcset", "data", "action"):
                need(k not in n.attrs, "<%s %s=...>: the page refers to something" % (n.tag, k))
        csp = [n for n in find(dom, tag="meta") if n.attrs.get("http-equiv") == "Content-Security-Policy"]
        need(csp and "default-src 'none'" in csp[0].attrs["content"], "no Content-Security-Policy")
        n_ops = info["subgraphs"][0]["n_ops"]
        check_glance(dom, info)
        summary = {}
        if check:
            summary["findings"] = check_findings(dom, check)
        if cmp:
            summary["curve_points"] = check_curve(dom, cmp, n_ops)
        if bench:
            summary["memory_points"] = check_memory(dom, bench, n_ops)
            check_latency(dom, info)
        if a.before_info:
            check_before_after(dom, load(a.before_info), load(a.before_check), info, check)
        if a.writer:
            pre = one(dom, "#writer-metadata", id="writer-metadata")
            need(a.writer in one(dom, "#before-after", id="before-after").parent.all_text(), "writer not named")
            json.loads(pre.all_text())
        if a.evil:
            need(a.evil not in raw, "the page holds %r unescaped" % a.evil)
            need(a.evil in dom.root.all_text(), "%r is not shown as text" % a.evil)
    except Fail as e:
        print("FAIL %s: %s" % (a.page, e))
        return 1
    except (KeyError, ValueError, IndexError, TypeError) as e:
        print("FAIL %s: %s: %s" % (a.page, type(e).__name__, e))
        return 1
    print("ok %s" % " ".join("%s=%s" % kv for kv in summary.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
