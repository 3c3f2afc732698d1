#!/usr/bin/env python3
"""Independent check of `litegpu ablate`'s evaluation figures (numpy only).

usage: ablate_check.py REPORT.json EVAL_LOGITS.npy CAND_DIR

REPORT.json is `ablate --eval DIR --remove K --json`; EVAL_LOGITS.npy the original model's logits
on DIR's inputs in sort order (PyTorch's, the fixture's oracle); CAND_DIR/NNN/output_0.npy the
candidate's output on DIR/NNN.npy (litegpu run). Computes, per the README's definitions:
  kl     = mean over inputs of KL(softmax(orig) || softmax(cand)) along the last axis
  mse    = sum (cand - orig)^2 / sum orig^2
  argmax = fraction of inputs whose argmax changes
and requires the report's "removal"."eval" figures to match: argmax exactly (a count of 128),
kl and mse within 1e-3 relative (PyTorch's logits and litegpu's original differ by ~1e-6).
Prints the figures; exit 0 match, 1 mismatch.
"""
import json, os, sys
import numpy as np


def log_softmax(v):
    m = v.max(axis=-1, keepdims=True)
    return v - m - np.log(np.exp(v - m).sum(axis=-1, keepdims=True))


def main():
    rep = json.load(open(sys.argv[1]))
    orig = np.load(sys.argv[2]).astype(np.float64)
    names = sorted(os.listdir(sys.argv[3]))
    cand = np.stack([np.load(os.path.join(sys.argv[3], n, 'output_0.npy')).reshape(-1) for n in names]).astype(np.float64)
    if cand.shape != orig.shape:
        print('shape %r vs %r' % (cand.shape, orig.shape))
        return 1
    lo, lc = log_softmax(orig), log_softmax(cand)
    kl = float((np.exp(lo) * (lo - lc)).sum(axis=-1).mean())
    mse = float(((cand - orig) ** 2).sum() / (orig ** 2).sum())
    changed = int((orig.argmax(axis=-1) != cand.argmax(axis=-1)).sum())
    got = rep['removal']['eval']
    print('independent: kl %.6g mse %.6g argmax %d/%d = %.6g; report: kl %.6g mse %.6g argmax %.6g' % (
        kl, mse, changed, len(names), changed / len(names), got['kl'], got['mse'], got['argmax']))
    ok = abs(got['argmax'] - changed / len(names)) < 1e-12
    ok = ok and abs(got['kl'] - kl) <= 1e-3 * abs(kl) + 1e-9 and abs(got['mse'] - mse) <= 1e-3 * abs(mse) + 1e-9
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
