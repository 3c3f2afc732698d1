#!/usr/bin/env python3
"""Run every `$ litegpu ...` example of README.md and compare its output with the text.

usage: readme_examples.py REPO [--update]

Each fenced code block holding lines that start with "$ litegpu " is one session: its commands
run in order in a fresh temporary folder (where build/ and examples/ of the repository are
linked, so the README's relative paths work, and outputs such as hand.tflite land there), with
build/litegpu as `litegpu`. The expected output of a command is the text up to the next "$ "
line or the end of the block; stdout and stderr are compared together, line by line, exactly,
except:
  - a line "..." stands for any number of lines (output the README leaves out);
  - in a block preceded (on the line before its opening fence) by
    <!-- readme-test: numbers-vary -->, every number is compared as a number placeholder
    (timings and memory sizes that differ from run to run).
Prints "PASS/FAIL <block line>: <command>" per command and "readme_examples: N passed, N failed".
--update rewrites README.md's expected outputs from the actual ones (blocks with "..." or
numbers-vary are left alone) -- for a human to review with git diff.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

NUM = re.compile(r'-?\d+(\.\d+)?(e[-+]?\d+)?')


def blocks(lines):
    """(start line index, marker, [lines inside]) for every fenced block with $ litegpu."""
    out = []
    i = 0
    while i < len(lines):
        if lines[i].startswith('```'):
            j = i + 1
            while j < len(lines) and not lines[j].startswith('```'):
                j += 1
            body = lines[i + 1:j]
            if any(l.startswith('$ litegpu ') for l in body):
                marker = lines[i - 1].strip() if i > 0 else ''
                out.append((i, marker, body))
            i = j + 1
        else:
            i += 1
    return out


def sessions(body):
    """[(command, [expected lines], index of the command line in body)]"""
    cmds = []
    for k, l in enumerate(body):
        if l.startswith('$ '):
            cmds.append([l[2:], [], k])
        elif cmds:
            cmds[-1][1].append(l)
    return cmds


def norm(line, numbers_vary):
    return NUM.sub('N', line) if numbers_vary else line


def matches(expected, actual, numbers_vary):
    """Line-by-line with '...' as a wildcard over any number of lines."""
    e = [norm(x, numbers_vary) for x in expected]
    a = [norm(x, numbers_vary) for x in actual]

    def go(i, j):
        if i == len(e):
            return j == len(a)
        if e[i] == '...':
            return any(go(i + 1, k) for k in range(j, len(a) + 1))
        return j < len(a) and e[i] == a[j] and go(i + 1, j + 1)
    return go(0, 0)


def first_diff(expected, actual):
    for k in range(max(len(expected), len(actual))):
        x = expected[k] if k < len(expected) else '<end>'
        y = actual[k] if k < len(actual) else '<end>'
        if x != y:
            return 'line %d: README %r, litegpu %r' % (k + 1, x[:160], y[:160])
    return 'same lines'


def main():
    repo = os.path.abspath(sys.argv[1])
    update = '--update' in sys.argv[2:]
    readme = os.path.join(repo, 'README.md')
    with open(readme) as f:
        lines = f.read().split('\n')
    bindir = tempfile.mkdtemp()
    os.symlink(os.path.join(repo, 'build', 'litegpu'), os.path.join(bindir, 'litegpu'))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get('PATH', ''))
    passed = failed = 0
    replacements = []
    for start, marker, body in blocks(lines):
        numbers_vary = marker == '<!-- readme-test: numbers-vary -->'
        work = tempfile.mkdtemp()
        for d in ('build', 'examples', 'tests'):
            os.symlink(os.path.join(repo, d), os.path.join(work, d))
        for cmd, expected, k in sessions(body):
            p = subprocess.run(cmd, shell=True, cwd=work, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=600)
            actual = p.stdout.decode('utf-8', 'replace').rstrip('\n').split('\n')
            if actual == ['']:
                actual = []
            ok = matches(expected, actual, numbers_vary)
            where = 'README.md:%d' % (start + 2 + k)
            if ok:
                passed += 1
                print('PASS %s: %s' % (where, cmd))
            else:
                failed += 1
                print('FAIL %s: %s: %s' % (where, cmd, first_diff(expected, actual)))
                if update and not numbers_vary and '...' not in expected:
                    replacements.append((start + 1 + k + 1, len(expected), actual))
        shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(bindir, ignore_errors=True)
    if update and replacements:
        for at, n, new in sorted(replacements, reverse=True):
            lines[at:at + n] = new
        with open(readme, 'w') as f:
            f.write('\n'.join(lines))
        print('updated %d example(s) in README.md: review with git diff' % len(replacements))
    print('readme_examples: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
