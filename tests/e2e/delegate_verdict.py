#!/usr/bin/env python3
"""check --target mldrift --gpu webgpu against the real ML Drift delegate, model by model
(stdlib only).

usage: delegate_verdict.py MANIFEST CHECK_TSV HARNESS_JSONL DOCUMENTED_TSV [RULES_JSON]

MANIFEST        make_rule_models' manifest.tsv: file, rule, kind (trigger|nearmiss|invalid),
                check_args; "invalid": a trigger TFLite itself refuses, which litegpu's reader
                refuses too (check exits 2: judged NOT READY)
CHECK_TSV       one line per model: file, exit code of `litegpu check --target mldrift --gpu
                webgpu --json`, path of its JSON report
HARNESS_JSONL   peers/verify/verify.js's output for the same models (one JSON line each)
DOCUMENTED_TSV  tests/e2e/check_vs_webgpu.tsv: the known differences, one per model:
                file, rule, side, gpu_output, reason
                  side: check-blocks      check says not ready, the delegate takes the whole model
                        delegate-rejects  check says ready, the delegate does not take it
                        not-judged        the harness cannot run the model (no verdict)
                  gpu_output (check-blocks only): matches | differs | - : the GPU output against
                        LiteRT's CPU output (max|gpu-cpu| <= 1e-3 of max|cpu|, or > 0.1 / non-finite)
RULES_JSON      `litegpu check --list-rules --json`: each rule's GPU families. A trigger of a rule
                that is not for the report's "gpu" (a Mali field rule, checked with --gpu webgpu)
                must NOT be reported: for that family it is a near-miss. Without it every
                trigger must report its rule.

"Fully on the GPU" is judged exactly as tools/cli/cmd_verify.c judges it: compiled, and
isFullyAccelerated, and every output on 'webgpu', and no log line saying "not supported",
"Not supported", "must be less than" or "static-sized", and nothing rejected, and no op on the
CPU. check's verdict is the report's "ok" (true exactly when READY).

Prints one PASS/FAIL line per model (and per table-level check), then
"agreement: A of J judged models (P%), D documented differences" and exits 1 on any FAIL.
A model fails when: check does not report its rule (a trigger of a rule for the report's GPU
family) or reports it (a near-miss, or a trigger of another family's rule); the two
sides disagree and the table does not document it (or documents another side/output); the table
documents a difference that no longer happens. The table fails when it names a model the
manifest does not have, or when agreement is below 95% of the judged models.
"""
import json
import os
import sys

BAD_LOG = ('not supported', 'Not supported', 'must be less than', 'static-sized')
MIN_AGREEMENT = 0.95


def read_tsv(path, ncols):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            cols = line.split('\t')
            if len(cols) < ncols:
                raise SystemExit('%s:%d: want %d tab-separated columns, got %d' % (path, n, ncols, len(cols)))
            rows.append(cols)
    return rows


def on_gpu(d):
    """cmd_verify.c's judgement."""
    locs = d.get('output_locations') or []
    all_gpu = len(locs) > 0 and all(l == 'webgpu' for l in locs)
    bad_log = any(isinstance(l, str) and any(s in l for s in BAD_LOG) for l in d.get('log') or [])
    cpu_ops = d.get('cpu_ops')
    cpu_ops = -1 if cpu_ops is None else cpu_ops
    return bool(d.get('compiled') and d.get('fully_accelerated') and all_gpu and not bad_log and
                not d.get('rejected') and cpu_ops <= 0)


def max_rel(d):
    """Largest GPU-vs-CPU difference over the outputs, relative to max|cpu|; None if unknown or
    non-finite values disagree."""
    worst = 0.0
    for o in d.get('outputs') or []:
        r = o.get('rel_diff')
        if r is None:
            return None
        worst = max(worst, r)
    return worst if d.get('outputs') else None


def why(d):
    """One phrase: why the delegate did (not) take the model."""
    if not d.get('ok'):
        return 'not processed: %s' % (d.get('error') or '?')
    if on_gpu(d):
        r = max_rel(d)
        return 'fully on the GPU (GPU vs CPU max rel diff %s)' % ('n/a' if r is None else '%.3g' % r)
    parts = []
    if d.get('rejected'):
        parts.append('rejected ' + '; '.join('%s: %s' % (r['op'], r['message']) for r in d['rejected']))
    if d.get('static_sized_only'):
        parts.append('refused whole: only static-sized tensors')
    if not d.get('compiled'):
        errs = [e for e in d.get('errors') or [] if 'litert_web.cc' not in e and 'Restored original' not in e]
        ce = (d.get('compile_error') or '').split('\n')[0]
        parts.append('compile failed: %s' % (errs[0] if errs else ce))
    elif d.get('output_locations') and any(l != 'webgpu' for l in d['output_locations']):
        parts.append('outputs on %s' % ','.join(d['output_locations']))
    if d.get('gpu_ops') is not None:
        parts.append('%s op(s) on the GPU, %s on the CPU' % (d['gpu_ops'], d['cpu_ops']))
    return '; '.join(parts) or 'not fully on the GPU'


def main():
    if len(sys.argv) not in (5, 6):
        raise SystemExit(__doc__.split('\n\n')[1])
    rule_gpus = {}
    if len(sys.argv) == 6:
        with open(sys.argv[5]) as f:
            rule_gpus = {r['rule']: r['gpus'] for r in json.load(f)['rules']}
    manifest = read_tsv(sys.argv[1], 3)
    if manifest and manifest[0][0] == 'file':
        manifest = manifest[1:]
    checks = {r[0]: r for r in read_tsv(sys.argv[2], 3)}
    harness = {}
    with open(sys.argv[3]) as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                harness[os.path.basename(d['model'])] = d
    doc_rows = read_tsv(sys.argv[4], 5)
    if doc_rows and doc_rows[0][0] == 'file':
        doc_rows = doc_rows[1:]
    documented = {}
    fails = 0

    def say(ok, msg):
        nonlocal fails
        print(('PASS ' if ok else 'FAIL ') + msg)
        if not ok:
            fails += 1

    files = {m[0] for m in manifest}
    for r in doc_rows:
        file, rule, side, out = r[0], r[1], r[2], r[3]
        if file in documented:
            say(False, 'check_vs_webgpu.tsv: %s is listed twice' % file)
        documented[file] = r
        if file not in files:
            say(False, 'check_vs_webgpu.tsv: %s is not a model of the manifest' % file)
        if side not in ('check-blocks', 'delegate-rejects', 'not-judged'):
            say(False, 'check_vs_webgpu.tsv: %s: unknown side %r' % (file, side))
        if out not in ('matches', 'differs', '-'):
            say(False, 'check_vs_webgpu.tsv: %s: unknown gpu_output %r' % (file, out))

    judged = agree = n_doc = n_other_family = 0
    for m in manifest:
        file, rule, kind = m[0], m[1], m[2]
        c = checks.get(file)
        rep = None
        if c:
            try:
                with open(c[2]) as f:
                    rep = json.load(f)
            except (OSError, ValueError):
                rep = None
        if kind == 'invalid':
            # a trigger TFLite itself refuses (see tests/models/rule_models.h): litegpu's reader
            # refuses the file (exit 2, one line), which is check's NOT READY
            if not c or c[1] != '2':
                say(False, '%s: a model TFLite refuses, but litegpu check exit %s (expected 2)' % (
                    file, c[1] if c else '?'))
                continue
            rep = {'ok': False, 'findings': []}
        elif rep is None or c[1] not in ('0', '1'):
            say(False, '%s: litegpu check failed (exit %s)' % (file, c[1] if c else '?'))
            continue
        ready = bool(rep.get('ok'))  # check's --json: ok is true exactly when READY
        rules = sorted({x['rule'] for x in rep.get('findings', [])})
        blockers = sorted({x['rule'] for x in rep.get('findings', []) if x.get('severity') == 'blocker'})
        gpu = rep.get('gpu', 'any')
        for_gpu = gpu == 'any' or rule not in rule_gpus or gpu in rule_gpus[rule]
        if kind == 'trigger' and not for_gpu:
            n_other_family += 1
        if kind == 'invalid':
            blockers = ['refused as malformed']
        elif (rule in rules) != (kind == 'trigger' and for_gpu):
            # the model no longer tests what its name says; its verdict is still compared below
            say(False, '%s: check %s %s (a %s%s)' % (file, 'reports' if rule in rules else 'does not report', rule, kind,
                                                  '' if for_gpu else ' of a rule for %s, not %s' % (
                                                      ', '.join(rule_gpus[rule]), gpu)))
        d = harness.get(file)
        if d is None:
            say(False, '%s: no harness result' % file)
            continue
        doc = documented.get(file)
        side_check = 'check ready' if ready else 'check NOT ready [%s]' % ','.join(blockers)
        if not d.get('ok'):
            ok = doc is not None and doc[2] == 'not-judged'
            say(ok, '%s: %s; delegate: %s%s' % (file, side_check, why(d),
                                               ' (documented: %s)' % doc[4] if ok else ' (not documented as not-judged)'))
            n_doc += ok
            continue
        judged += 1
        gpu = on_gpu(d)
        if ready == gpu:
            agree += 1
            ok = doc is None
            say(ok, '%s: %s; delegate: %s: agree%s' % (
                file, side_check, why(d), '' if ok else ' (but check_vs_webgpu.tsv documents a difference: remove the line)'))
            continue
        side = 'check-blocks' if gpu else 'delegate-rejects'
        problems = []
        if doc is None:
            problems.append('undocumented difference (%s)' % side)
        else:
            if doc[2] != side:
                problems.append('documented as %s, seen %s' % (doc[2], side))
            if doc[1] != rule:
                problems.append('documented under rule %s' % doc[1])
            if side == 'check-blocks' and doc[3] != '-':
                r = max_rel(d)
                seen = 'matches' if r is not None and r <= 1e-3 else 'differs' if r is None or r > 0.1 else 'unclear'
                if seen != doc[3]:
                    problems.append('GPU output %s the CPU (max rel %s), documented %s' % (
                        seen, 'non-finite' if r is None else '%.3g' % r, doc[3]))
        n_doc += not problems
        say(not problems, '%s: %s; delegate: %s: DIFFER%s' % (
            file, side_check, why(d), ' (documented: %s)' % doc[4] if not problems else ': ' + '; '.join(problems)))

    pct = 100.0 * agree / judged if judged else 0.0
    say(judged > 0 and agree >= MIN_AGREEMENT * judged,
        'agreement %d of %d judged models = %.1f%% (need >= %.0f%%)' % (agree, judged, pct, 100 * MIN_AGREEMENT))
    print('agreement: %d of %d judged models (%.1f%%), %d of %d in the manifest; %d documented difference(s); '
          '%d trigger(s) of rules for other GPU families (not reported, as they should not be)' % (
              agree, judged, pct, agree, len(manifest), n_doc, n_other_family))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
