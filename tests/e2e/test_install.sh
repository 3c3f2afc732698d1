#!/usr/bin/env bash
# `make install` / `make uninstall` (issue #15 item 4): litegpu as a library others build against.
#  - make install PREFIX=$T/p writes exactly bin/litegpu, lib/liblitegpu.a, lib/pkgconfig/litegpu.pc,
#    share/man/man1/litegpu.1 and include/lg/ = every include/lg/*.h of the tree plus ops.def
#    (lg.h includes it); the list here comes from the tree, not from the Makefile; it rebuilds
#    nothing when build/ is current (make -n install runs no compiler);
#  - every installed header compiles alone (C11 -pedantic -Werror, and as C++) with only the
#    installed include dir on the path; near-miss: an internal header (src/ops/ops_impl.h) is
#    not reachable that way;
#  - examples/embed/embed.c compiled with `cc $(pkg-config --cflags --libs litegpu)` (and
#    --static) against the prefix prints the same first values as the INSTALLED `litegpu run
#    --out-dir` of the same model (read back with numpy, compared as float32, bit for bit), in
#    f32 and f16, on tiny_convnet and hand_landmark_lite (4 outputs); near-miss: embed's f16
#    values are not run's f32 values (the comparison can fail);
#  - the man page: `MANWIDTH=80 man -l` and `groff -man -ww -z` print no warning (near-miss: a
#    page with an unknown font and macro does warn), it is what `litegpu help --man` writes now,
#    every verb `litegpu help` lists has its subsection, and every option every
#    `litegpu help VERB` names appears in the rendered page; the generator (tools/cli/man.c) on
#    a verb table made for it: help lines starting with '.' or "'", a backslash, UTF-8, usage
#    alternatives, an entry whose tag touches its description, all reach the page as written;
#  - pkg-config --modversion is `litegpu --version`'s;
#  - make uninstall removes every installed file and include/lg/, and leaves foreign files in
#    the prefix (include/other.h, lib/pkgconfig/other.pc, share/man/man1/other.1) alone; with a
#    foreign include/lg/user.h it keeps include/lg/ and that file;
#  - DESTDIR staging: PREFIX=/opt/litegpu DESTDIR=$T/stage writes only under $T/stage/opt/litegpu,
#    litegpu.pc says prefix=/opt/litegpu (no staging path), a LIBDIR override under PREFIX is
#    written ${prefix}/...; uninstall with the same variables empties it;
#  - a relative PREFIX is refused before anything is written.
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
PY=/usr/bin/python3
export MANPAGER=cat; unset MAN_KEEP_FORMATTING MANOPT MANROFFOPT
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
finish() { echo "install: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
for tool in pkg-config man groff cc; do
    command -v "$tool" >/dev/null || { bad "tools" "$tool missing (scripts/install-deps.sh installs it)"; finish; }
done
# the man page (build/litegpu.1) may be missing: install generates it, compiling nothing
make -s -q build/litegpu build/liblitegpu.a 2>/dev/null ||
    { bad "build" "build/ is not current: run make -j2 first (this test must not rebuild it)"; finish; }

# ---- install into a prefix holding foreign files
P=$T/p
mkdir -p "$P/include" "$P/lib/pkgconfig" "$P/share/man/man1"
echo "int other;" >"$P/include/other.h"; echo "Name: other" >"$P/lib/pkgconfig/other.pc"
echo ".TH OTHER 1" >"$P/share/man/man1/other.1"
foreign=$(cd "$P" && find . -type f | sort)
if make -s -n install PREFIX="$P" | grep -Eq '(^| )(cc|gcc|clang|ar) '; then
    bad "make install rebuilds nothing" "$(make -s -n install PREFIX="$P" | grep -E '(cc|ar) ' | head -n 2)"
else ok "make install on a current build runs no compiler"; fi
if make -s install PREFIX="$P" >"$T/inst.log" 2>&1; then ok "make install PREFIX=\$T/p"
else bad "make install" "$(tail -n 3 "$T/inst.log")"; finish; fi

expected=$( { printf '%s\n' ./bin/litegpu ./lib/liblitegpu.a ./lib/pkgconfig/litegpu.pc \
                  ./share/man/man1/litegpu.1 ./include/lg/ops.def
              for h in include/lg/*.h; do echo "./$h"; done; echo "$foreign"; } | sort)
got=$(cd "$P" && find . -type f | sort)
if [ "$got" = "$expected" ]; then ok "installed exactly the CLI, the library, $(ls include/lg/*.h | wc -l) headers + ops.def, litegpu.pc, litegpu.1"
else bad "installed files" "$(diff <(echo "$expected") <(echo "$got") | head -n 8 | tr '\n' ' ')"; fi
cmp -s build/litegpu "$P/bin/litegpu" && cmp -s build/liblitegpu.a "$P/lib/liblitegpu.a" &&
    ok "bin/litegpu and lib/liblitegpu.a are the built ones" || bad "installed binaries differ from build/"
[ -x "$P/bin/litegpu" ] && [ "$(stat -c %a "$P/include/lg/lg.h")" = 644 ] &&
    ok "modes: bin 755, headers 644" || bad "modes" "$(stat -c '%a %n' "$P/bin/litegpu" "$P/include/lg/lg.h")"

export PKG_CONFIG_PATH=$P/lib/pkgconfig
ver=$("$P/bin/litegpu" --version)
[ "litegpu $(pkg-config --modversion litegpu)" = "$ver" ] && ok "pkg-config --modversion = $ver" ||
    bad "pkg-config --modversion" "$(pkg-config --modversion litegpu) vs $ver"
libs=$(pkg-config --libs litegpu)
[[ " $libs " == *" -L$P/lib "*"-llitegpu "*"-llapack "*"-lblas "*"-lpthread "*"-lm "* ]] &&
    ok "pkg-config --libs: $libs(dependencies in Libs: the library is static)" || bad "pkg-config --libs" "$libs"

# ---- every installed header alone, with only the installed include dir
hfail=""
for h in "$P"/include/lg/*.h; do
    n=$(basename "$h")
    (cd "$T" && printf '#include <lg/%s>\n' "$n" | cc -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only \
        $(pkg-config --cflags litegpu) -x c - 2>"$T/h.err") || hfail="$hfail $n(C: $(head -n 1 "$T/h.err"))"
    if command -v c++ >/dev/null; then
        (cd "$T" && printf '#include <lg/%s>\n' "$n" | c++ -Wall -Wextra -Werror -fsyntax-only \
            $(pkg-config --cflags litegpu) -x c++ - 2>"$T/h.err") || hfail="$hfail $n(C++: $(head -n 1 "$T/h.err"))"
    fi
done
[ -z "$hfail" ] && ok "each of the $(ls "$P"/include/lg/*.h | wc -l) installed headers compiles alone (C11 -pedantic, C++)" ||
    bad "headers alone" "$hfail"
if (cd "$T" && printf '#include <ops_impl.h>\n' | cc -fsyntax-only $(pkg-config --cflags litegpu) -x c - 2>/dev/null); then
    bad "near-miss: an internal header must not be reachable from the installed include dir"
else ok "near-miss: src/ops/ops_impl.h (internal) is not reachable with the installed Cflags"; fi

# ---- the embedding program, linked through pkg-config
EMB=$ROOT/examples/embed/embed.c
if (cd "$T" && cc -std=c11 -Wall -Wextra -Werror -o embed "$EMB" $(pkg-config --cflags --libs litegpu) 2>"$T/cc.err"); then
    ok "cc embed.c \$(pkg-config --cflags --libs litegpu)"
else bad "cc embed.c with pkg-config" "$(head -n 3 "$T/cc.err")"; finish; fi
(cd "$T" && cc -std=c11 -o embed_static "$EMB" $(pkg-config --cflags --libs --static litegpu) 2>"$T/cc.err") &&
    ok "cc embed.c \$(pkg-config --cflags --libs --static litegpu)" || bad "--static link" "$(head -n 3 "$T/cc.err")"

# embed's printed values vs the installed CLI's output .npy files: same names, shapes, and the
# first N values equal as float32 (%.9g round-trips a float32 exactly).
cat >"$T/cmp.py" <<'EOF'
import json, re, sys
import numpy as np
emb, outdir, runjson, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
outs = json.load(open(runjson))["outputs"]
lines = [l for l in open(emb).read().splitlines() if l.startswith("output ")]
if len(lines) != len(outs):
    sys.exit("embed printed %d outputs, run has %d" % (len(lines), len(outs)))
for k, (line, o) in enumerate(zip(lines, outs)):
    m = re.match(r"output (\d+) (\S*) \[([0-9,]*)\]: (.*)$", line)
    if not m or int(m.group(1)) != k:
        sys.exit("bad line: " + line)
    shape = [int(d) for d in m.group(3).split(",") if d]
    if m.group(2) != o["name"] or shape != o["shape"]:
        sys.exit("output %d: embed %s %s, run %s %s" % (k, m.group(2), shape, o["name"], o["shape"]))
    got = np.array([float(v) for v in m.group(4).split()], dtype=np.float32)
    want = np.load("%s/output_%d.npy" % (outdir, k)).astype(np.float32).ravel()[:n]
    if got.shape != want.shape or not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
        sys.exit("output %d: embed %s, run %s" % (k, got[:4], want[:4]))
print("ok")
EOF
same_as_run() { # MODEL PREC_EMBED PREC_RUN
    local tag; tag=$(basename "$1" .tflite)_$2_$3
    "$T/embed" "$1" "$2" 16 >"$T/$tag.emb" 2>"$T/$tag.err" || { echo "embed: $(cat "$T/$tag.err")"; return 1; }
    "$P/bin/litegpu" run "$1" --precision "$3" --out-dir "$T/$tag.out" --json >"$T/$tag.json" 2>"$T/$tag.err" ||
        { echo "run: $(cat "$T/$tag.err")"; return 1; }
    $PY "$T/cmp.py" "$T/$tag.emb" "$T/$tag.out" "$T/$tag.json" 16 2>&1
}
models=(examples/tiny_convnet.tflite)
[ -f build/corpus/hand_landmark_lite.tflite ] && models+=(build/corpus/hand_landmark_lite.tflite)
for m in "${models[@]}"; do
    for p in f32 f16; do
        r=$(same_as_run "$m" "$p" "$p") && ok "embed $(basename "$m") $p: first values = installed litegpu run's ($(grep -c '^output' "$T/$(basename "$m" .tflite)_${p}_$p.emb") outputs)" ||
            bad "embed $(basename "$m") $p vs litegpu run" "$r"
    done
done
m=${models[-1]}
if same_as_run "$m" f16 f32 >/dev/null; then bad "near-miss: embed f16 must differ from run f32 on $(basename "$m")"
else ok "near-miss: embed f16 differs from run f32 on $(basename "$m") (the comparison can fail)"; fi
"$T/embed_static" examples/tiny_convnet.tflite f32 16 >"$T/st.emb" 2>&1 && cmp -s "$T/st.emb" "$T/tiny_convnet_f32_f32.emb" &&
    ok "the --static build prints the same" || bad "--static build" "$(head -n 2 "$T/st.emb")"

# ---- the man page
MANF=$P/share/man/man1/litegpu.1
"$P/bin/litegpu" help --man | cmp -s - "$MANF" && ok "the installed page is what litegpu help --man writes" ||
    bad "installed page is stale"
w=$(MANWIDTH=80 LC_ALL=C man -l "$MANF" 2>&1 >"$T/man.txt"); g=$(groff -man -ww -z "$MANF" 2>&1)
[ -z "$w$g" ] && [ -s "$T/man.txt" ] && ok "man -l renders it ($(wc -l <"$T/man.txt") lines at 80 columns), groff -ww: no warning" ||
    bad "man page warnings" "$(echo "$w$g" | head -n 3)"
printf '.TH X 1\n.SH NAME\nx \\- y\n\\fQx\\fR\n.nosuchmacro\n' >"$T/bad.1"
[ -n "$(groff -man -ww -z "$T/bad.1" 2>&1)" ] && ok "near-miss: groff -ww warns on an unknown font and macro" ||
    bad "near-miss: groff -ww should warn on a bad page"
verbs=$("$P/bin/litegpu" help | awk '/^verbs:/{v=1; next} v && /^  [a-z]/{print $1} v && /^$/{v=0}')
missing=""
for v in $verbs help; do grep -q "^   $v\$" "$T/man.txt" || missing="$missing $v"; done
for s in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" "SEE ALSO"; do grep -q "^$s\$" "$T/man.txt" || missing="$missing [$s]"; done
[ -n "$verbs" ] && [ -z "$missing" ] && ok "every verb of litegpu help ($(echo $verbs | wc -w)) has its subsection; NAME ... SEE ALSO present" ||
    bad "man page sections" "missing:$missing"
grep -q "^   nosuchverb\$" "$T/man.txt" && bad "near-miss: a verb that does not exist has no subsection" ||
    ok "near-miss: no subsection for a verb that does not exist"
missing=""; n=0
for v in $verbs; do
    for o in $("$P/bin/litegpu" help "$v" | grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u); do
        n=$((n + 1)); grep -qF -- "$o" "$T/man.txt" || missing="$missing $v:$o"
    done
done
[ -z "$missing" ] && ok "all $n options named by litegpu help VERB appear in the rendered page" ||
    bad "options missing from the page" "$missing"

# the generator's escaping, on a verb table made for it (tools/cli/man.c alone): a help line
# starting with '.' or "'" (a request if written raw), a backslash, a non-ASCII character,
# a two-alternative usage, an entry whose tag touches its description (one space: the
# description column is the continuation's indent), a tag alone; each must reach the page.
cat >"$T/mandrv.c" <<'EOF'
#include "man.h"
int cmd_info(const cli_verb *v, int argc, char **argv) { (void)v; (void)argc; (void)argv; return 0; }
static const cli_verb verbs[] = {{"zork", cmd_info, "Summary with a back\\slash.",
    "litegpu zork A [--x] | litegpu zork --list",
    "First prose line\n.tflite at the start of a line\n'quoted start\n\nemdash \xe2\x80\x94 here\n"
    "options:\n  --x N       the x option\n                 continued\n"
    "  --outputs T1,T2,... cut the model\n                      first\n  --lonely-tag-only\n"}};
int main(void) {
    cli_man_page p = {"9.9", "tag line", "litegpu VERB", "0 ok", verbs, 1, &verbs[0]};
    return cli_man_write(stdout, &p);
}
EOF
w=x
if cc -std=c11 -Iinclude -Itools/cli -o "$T/mandrv" "$T/mandrv.c" tools/cli/man.c 2>"$T/cc.err" && "$T/mandrv" >"$T/z.1"; then
    w=$(MANWIDTH=80 LC_ALL=C.UTF-8 man -l "$T/z.1" 2>&1 >"$T/z.txt"; groff -man -ww -z "$T/z.1" 2>&1)
fi
if [ -z "$w" ] && grep -qF "First prose line .tflite at the start of a line 'quoted start" "$T/z.txt" &&
   grep -qF 'back\slash' "$T/z.txt" && grep -q $'emdash \xe2\x80\x94 here' "$T/z.txt" &&
   grep -q '^       litegpu zork --list$' "$T/z.txt" && grep -q 'the x option continued' "$T/z.txt" &&
   grep -q '^       --outputs T1,T2,...$' "$T/z.txt" && grep -q '^              cut the model first$' "$T/z.txt" &&
   grep -q '^       --lonely-tag-only$' "$T/z.txt"; then
    ok "generator: '.', \"'\" and a backslash in help text, UTF-8, usage alternatives, a tag touching its text"
else bad "generator escaping" "$(head -n 2 "$T/cc.err") $w | $(grep -n 'tflite\|quoted\|slash\|emdash\|zork\|option' "$T/z.txt" | head -n 8 | tr '\n' ' ')"; fi

# ---- uninstall
make -s uninstall PREFIX="$P" >"$T/un.log" 2>&1 || bad "make uninstall" "$(tail -n 2 "$T/un.log")"
left=$(cd "$P" && find . -type f | sort)
[ "$left" = "$foreign" ] && [ ! -e "$P/include/lg" ] && ok "make uninstall removed every installed file and include/lg/, kept the 3 foreign files" ||
    bad "after uninstall" "$(diff <(echo "$foreign") <(echo "$left") | head -n 5 | tr '\n' ' ')"
make -s install PREFIX="$P" >/dev/null 2>&1 && echo "mine" >"$P/include/lg/user.h" &&
    make -s uninstall PREFIX="$P" >"$T/un.log" 2>&1
[ "$(cd "$P" && find . -type f | sort)" = "$(printf '%s\n' "$foreign" ./include/lg/user.h | sort)" ] &&
    ok "uninstall keeps include/lg/ holding a foreign header (and says so)" || bad "uninstall with a foreign include/lg/user.h" "$(cat "$T/un.log")"

# ---- DESTDIR staging and a LIBDIR override
S=$T/stage
if make -s install PREFIX=/opt/litegpu DESTDIR="$S" LIBDIR=/opt/litegpu/lib/x86_64-linux-gnu >"$T/st.log" 2>&1; then
    outside=$(cd "$S" && find . -type f ! -path './opt/litegpu/*')
    pc=$S/opt/litegpu/lib/x86_64-linux-gnu/pkgconfig/litegpu.pc
    if [ -z "$outside" ] && [ -f "$S/opt/litegpu/bin/litegpu" ] && [ -f "$S/opt/litegpu/lib/x86_64-linux-gnu/liblitegpu.a" ] &&
       grep -qx 'prefix=/opt/litegpu' "$pc" && grep -qx 'libdir=${prefix}/lib/x86_64-linux-gnu' "$pc" && ! grep -q "$S" "$pc"; then
        ok "DESTDIR staging: everything under \$DESTDIR/opt/litegpu, litegpu.pc names /opt/litegpu, libdir \${prefix}/lib/x86_64-linux-gnu"
    else bad "DESTDIR staging" "outside: $outside; $(grep -E '^(prefix|libdir)=' "$pc" 2>&1 | tr '\n' ' ')"; fi
    make -s uninstall PREFIX=/opt/litegpu DESTDIR="$S" LIBDIR=/opt/litegpu/lib/x86_64-linux-gnu >/dev/null 2>&1
    [ -z "$(find "$S" -type f)" ] && ok "DESTDIR uninstall leaves no file" || bad "DESTDIR uninstall" "$(find "$S" -type f | head -n 3)"
else bad "DESTDIR install" "$(tail -n 3 "$T/st.log")"; fi

# ---- a relative PREFIX
if make -s install PREFIX=rel/prefix DESTDIR="$T/rel" >"$T/rel.log" 2>&1; then bad "relative PREFIX accepted"
elif [ -e "$T/rel" ]; then bad "relative PREFIX: files written before the refusal"
elif grep -q "PREFIX must be an absolute path" "$T/rel.log"; then ok "relative PREFIX refused, nothing written"
else bad "relative PREFIX" "$(head -n 2 "$T/rel.log")"; fi
finish
