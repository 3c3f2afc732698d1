/* litegpu: the command-line front end. One table of verbs; each verb parses its own
   arguments, calls the library, prints text or JSON, and returns the exit code. */
#include <string.h>

#include "cli.h"
#include "man.h"

static const cli_verb verbs[] = {
    {"info", cmd_info,
     "Summarize a model: size, sha256, inputs and outputs, op census, weights.",
     "litegpu info MODEL [--json]",
     "Prints the file size and sha256, schema version and description; for each subgraph its\n"
     "inputs and outputs (name, type, shape), op census and custom ops, tensor count and\n"
     "largest rank; constant bytes and parameters by type; signatures and metadata.\n"
     "\n"
     "arguments:\n"
     "  MODEL         a .tflite file\n"
     "options:\n"
     "  --json        print the summary as JSON\n"
     "  -h, --help    show this help\n"
     "Dynamic dimensions (-1 in shape_signature) print as ? in text and -1 in JSON.\n"},
    {"convert", cmd_convert,
     "Read a model (.tflite or ONNX), validate it and write it as .tflite (atomically).",
     "litegpu convert IN.tflite|IN.onnx -o OUT.tflite [--input-shape NAME=D0,D1,...]... [--nhwc-io] "
     "[--weights fp32|fp16] [--report] [--optimize [--no-prove]] [--force] [--external-buffers] [--evidence DIR [--evidence-runs N]] [--json] | "
     "litegpu convert --list-onnx-ops [--markdown|--json]",
     "Prints one line: wrote OUT (N bytes, sha256 ...). With --optimize, first one line per\n"
     "pass of the pipeline (fold-constants, remove-identities, merge-reshapes,\n"
     "cancel-transposes, remove-dead, sink-transposes): what it changed and its fp32 parity\n"
     "against the input model (max error relative to each output's magnitude, on a pattern\n"
     "input and 2 random ones). Every pass is exact; fp16 weights (FLOAT16 + DEQUANTIZE) are never widened.\n"
     "\n"
     "An ONNX model is imported: the .tflite keeps its inputs and outputs (order, names, NCHW\n"
     "shapes, dtypes); inside, every NHWC-only TFLite op is wrapped in explicit transposes that\n"
     "the exact passes then cancel. A node litegpu cannot lower exactly is exit 2 with one line\n"
     "naming it; --report lists every node's lowering and every unsupported node at once.\n"
     "\n"
     "arguments:\n"
     "  IN                      the model to read (format detected from its content)\n"
     "options:\n"
     "  -o, --output OUT        the file to write (required; never the input file)\n"
     "  --input-shape NAME=D0,D1,...  ONNX: fix a graph input's dynamic dimensions (repeatable)\n"
     "  --nhwc-io               ONNX: rank-4 float inputs and outputs in NHWC instead of NCHW\n"
     "  --weights fp32|fp16     ONNX: store float weights as FLOAT16 + DEQUANTIZE (default fp32)\n"
     "  --report                ONNX: print every node's lowering (with --json: an \"import\" object)\n"
     "  --list-onnx-ops         list the ONNX op types the importer lowers, with their opsets\n"
     "  --markdown              with --list-onnx-ops: as a Markdown table (the README's)\n"
     "  --optimize              rewrite the graph with the exact passes above\n"
     "  --no-prove              with --optimize: skip the parity runs\n"
     "  --force                 replace OUT if it exists\n"
     "  --external-buffers      store constant data after the flatbuffer (offset/size)\n"
     "  --evidence DIR          write an evidence record of this run into DIR (must not exist;\n"
     "                          litegpu evidence DIR verifies it; README \"Refactoring: evidence records\")\n"
     "  --evidence-runs N       timed runs per model for the record's latency (default 5)\n"
     "  --json                  print the result as JSON\n"
     "  -h, --help              show this help\n"},
    {"fix", cmd_fix,
     "Rewrite what check reports into what the GPU takes, proving every rewrite.",
     "litegpu fix MODEL -o OUT.tflite [--target mldrift|classic] [--gpu any|mali|adreno|webgpu] "
     "[--input NAME=FILE.npy]... [--input-shape NAME=D0,D1,...]... [--freeze NAME=FILE.npy]... "
     "[--harden-fp16 auto|always|off] [--calib DIR] [--allow-approx] [--warnings] "
     "[--io-int32] [--pass NAME]... [--split] "
     "[--outputs T1,T2,...] [--no-prove] [--evidence DIR [--evidence-runs N]] [--force] [--json] | litegpu fix --list [--markdown|--json]",
     "Loops: check -> run every pass that removes a blocker found -> re-validate (every shape\n"
     "re-inferred) and prove fp32 parity against the model before the pass -> check again, until\n"
     "the model is ready or no pass changes anything. Prints each pass that rewrote something\n"
     "(the rules it removes, rewrites, op counts, exact or approximate, parity), the sites it\n"
     "rewrote, the end-to-end parity of OUT against MODEL, and every blocker left with why no\n"
     "rewrite exists. A model that is already ready is written unchanged. MODEL may be ONNX\n"
     "(imported as convert does, with its defaults).\n"
     "Exit code 0: OUT is ready; 1: blockers remain (OUT holds what could be fixed); 2: error.\n"
     "\n"
     "options:\n"
     "  -o, --output OUT    the file to write (required; never the input file)\n"
     "  -t, --target T      mldrift (CompiledModel GPU, the default) or classic (GPU delegate)\n"
     "  --gpu G             the GPU family whose rules apply: any (default), mali, adreno, webgpu\n"
     "  -i, --input NAME=FILE.npy  the golden parity input (float inputs; others: the pattern fill)\n"
     "  --input-shape NAME=D0,D1,...  fix a graph input's dynamic dimensions (every shape is\n"
     "                      re-inferred; the shape arithmetic then folds)\n"
     "  --freeze NAME=FILE.npy  make a graph input a constant of this value (a parameter such as\n"
     "                      a RESHAPE's shape given as an input); it leaves the model's inputs\n"
     "  --harden-fp16 M     auto (default): norms and reductions whose emulated GPU fp16 output\n"
     "                      overflows or diverges on the inputs get fp16-safe exact forms\n"
     "                      (SafeLayerNorm v2, SafeRMSNorm, SUM as MEAN, conv rescale); always:\n"
     "                      every match; off\n"
     "  --calib DIR         input sets for the hardening gate: .npy files (one input), or one\n"
     "                      subfolder per set holding NAME.npy per input\n"
     "  --allow-approx      also run approximate rewrites (each declares its error bound)\n"
     "  --warnings          also remove warnings (the field rules: PACK/SPLIT, align_corners...)\n"
     "  --io-int32          INT64 graph inputs/outputs may become INT32 (changes the contract)\n"
     "  --pass NAME         also run this pass once (e.g. pow-to-mul; repeatable)\n"
     "  --list              list the rules, the passes that remove them, exact or not, and what\n"
     "                      they do not cover; then every pass (no MODEL)\n"
     "  --markdown          with --list: the rules as a Markdown table (the README's)\n"
     "  --split             when blockers remain: write the model as parts that each run wholly\n"
     "                      on the GPU or the CPU: OUT.tflite (the first GPU part), OUT.cpu.tflite\n"
     "                      (or .cpuK/.gpuK for more), and OUT.split.json naming the parts in run\n"
     "                      order and the tensors passed between them (run and compare take it);\n"
     "                      exit 0 when every GPU part is ready\n"
     "  --outputs T1,T2,... cut the model first: only what these tensors need (e.g. raw detection\n"
     "                      heads instead of decode + NMS); they become the outputs, in this order\n"
     "  --no-prove          skip the parity runs (models litegpu cannot run)\n"
     "  --evidence DIR      write an evidence record of this run into DIR (must not exist; not\n"
     "                      with --split; litegpu evidence DIR verifies it)\n"
     "  --evidence-runs N   timed runs per model for the record's latency (default 5)\n"
     "  --force             replace OUT if it exists\n"
     "  --json              print the report as JSON\n"
     "  -h, --help          show this help\n"},
    {"quantize", cmd_quantize,
     "Store the weights in fewer bits (fp16, int8 or int4 + DEQUANTIZE) or the whole model in int8, and measure what it costs.",
     "litegpu quantize MODEL -o OUT.tflite --mode fp16|int8-weights|int4-weights|int8-dynamic|int8-static [--per-channel|--per-tensor] "
     "[--exclude OP|NAME-REGEX]... [--input NAME=FILE.npy]... [--calib DIR] [--range minmax|percentile|mse] "
     "[--percentile P] [--int8-io] [--eval DIR] [--target-error X|NdB] [--sensitivity alone|leave-one-out] "
     "[--target mldrift|classic] "
     "[--gpu any|mali|adreno|webgpu] [--evidence DIR [--evidence-runs N]] [--force] [--json]",
     "fp16, int8-weights, int4-weights store only: every quantized constant is read through a\n"
     "DEQUANTIZE, the arithmetic stays float. fp16: every FLOAT32 constant becomes FLOAT16 (clamped to +-65504, nearest even);\n"
     "int8-weights / int4-weights: the weights of FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D,\n"
     "TRANSPOSE_CONV and the tables of EMBEDDING_LOOKUP / GATHER become symmetric INT8 / packed\n"
     "INT4 with zero point 0 and a scale per output channel (scale = max|w| / 127 or / 7, rounding\n"
     "half away from zero, as TFLite's converter). Weights already FLOAT16 are quantized from their\n"
     "values. int8-dynamic (TFLite's dynamic-range quantization): the same INT8 weights, read\n"
     "directly by FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D and BATCH_MATMUL (hybrid ops: the\n"
     "runtime quantizes their float inputs on the fly; FULLY_CONNECTED and BATCH_MATMUL get\n"
     "asymmetric_quantize_inputs), BATCH_MATMUL, GATHER and EMBEDDING_LOOKUP per tensor, the\n"
     "others through DEQUANTIZE; weights under 1024 elements stay float, biases stay float.\n"
     "int8-static: full-integer int8 as TFLite's converter makes it, the activation ranges\n"
     "from running MODEL on the --calib sets (required; progress on stderr): asymmetric INT8\n"
     "activations, symmetric per-channel INT8 weights, INT32 biases; the ops litegpu's int8\n"
     "interpreter runs compute in int8, the others stay float between DEQUANTIZE / QUANTIZE (the\n"
     "report lists them and why); data-movement ops keep their input's scale (a pad constant never\n"
     "sets a range). Then the result runs against MODEL in fp32 on the inputs (--input, --calib; else the\n"
     "pattern fill and 2 random ones): per output SNR, cosine, max abs error, argmax agreement;\n"
     "the first tensor that diverges (the judge of compare); what the GPU does with the form; and\n"
     "check's verdict before and after. OUT records the mode and the calibration files (sha256)\n"
     "in its metadata \"litegpu.quantize\". MODEL may be ONNX (imported as convert does).\n"
     "Selective precision (int8-static --target-error X): the output error E of a model is the\n"
     "largest, over MODEL's float outputs, of sqrt(sum (q - f)^2 / sum f^2) over every value and\n"
     "measured input (the --eval sets when given, else --input and --calib): 10^(-SNR/20) of the\n"
     "parity SNR, so 0.0316 is 30 dB. Calibrated once, each layer (a CONV_2D, DEPTHWISE_CONV_2D,\n"
     "FULLY_CONNECTED, BATCH_MATMUL, ADD, SUB or MUL made int8, with the int8 ops following it)\n"
     "is measured alone in int8; the most sensitive are kept float, the fewest the search finds\n"
     "(k = 1, 2, 4, ... then bisection, each model measured) with E <= X. The report's table lists\n"
     "every layer's E, its rank and whether it stays float, the models tried and the final E;\n"
     "OUT's metadata records the ops kept float.\n"
     "Exit code 0: written; 1: written, but no model tried met --target-error (OUT is the one with\n"
     "the smallest E; \"ok\": false); 2: error (a model already quantized, an empty or mismatched\n"
     "--calib folder, a .npy of the wrong shape: one line).\n"
     "\n"
     "options:\n"
     "  -o, --output OUT        the file to write (required; never the input file)\n"
     "  -m, --mode M            fp16, int8-weights, int4-weights, int8-dynamic or int8-static\n"
     "  --per-channel           a scale per output channel (the default)\n"
     "  --per-tensor            one scale per weight tensor\n"
     "  --block N               refused: blockwise INT4 read through DEQUANTIZE does not run on\n"
     "                          LiteRT (its DEQUANTIZE ignores BlockwiseQuantization: zeros)\n"
     "  --exclude P             keep in float the ops named P (FULLY_CONNECTED) or whose output\n"
     "                          tensor name matches the POSIX extended regex P (repeatable)\n"
     "  -i, --input NAME=FILE.npy  an input for the parity runs (by name or index; repeatable)\n"
     "  --calib DIR             more inputs: .npy files (one input), or one subfolder per set\n"
     "                          holding NAME.npy per input; listed with sha256 in the metadata\n"
     "  --range R               int8-static: minmax (default), percentile or mse range estimate\n"
     "  --percentile P          int8-static: keep the central P percent of the values (default 99.99;\n"
     "                          implies --range percentile)\n"
     "  --int8-io               int8-static: INT8 inputs and outputs (default FLOAT32 + QUANTIZE /\n"
     "                          DEQUANTIZE at the edge)\n"
     "  --eval DIR              the inputs the report's figures (and --target-error) are measured on,\n"
     "                          instead of --input / --calib (keep calibration and evaluation apart);\n"
     "                          --calib's layout\n"
     "  --target-error X        int8-static: keep the most sensitive layers float until E <= X, X in\n"
     "                          (0, 1), or NdB for an SNR of N dB (30dB: X = 0.0316)\n"
     "  --sensitivity M         how a layer's sensitivity is measured: alone (default: E with only\n"
     "                          this layer int8) or leave-one-out (E of the int8 model with this\n"
     "                          layer float; ranks worse on the models measured, and slower)\n"
     "  -t, --target T          the check after: mldrift (default) or classic\n"
     "  --gpu G                 the GPU family for check: any (default), mali, adreno, webgpu\n"
     "  --evidence DIR          write an evidence record of this run into DIR (must not exist; the\n"
     "                          error is measured on --eval, else --calib; litegpu evidence DIR)\n"
     "  --evidence-runs N       timed runs per model for the record's latency (default 5)\n"
     "  --force                 replace OUT if it exists\n"
     "  --json                  print the report as JSON\n"
     "  -h, --help              show this help\n"},
    {"ablate", cmd_ablate,
     "Find removable residual blocks (y = x + F(x)), rank them by what bypassing each costs, remove the least harmful.",
     "litegpu ablate MODEL [--calib DIR] [--eval DIR] [--metric kl|mse|argmax] [--remove K|--remove-block ID...] "
     "[-o OUT.tflite] [--evidence DIR [--evidence-runs N]] [--force] [--json]",
     "A removable block is an ADD y = x + F(x) on subgraph 0 whose operands and output have the\n"
     "same shape, where F (the ops on the paths from x to the other operand) holds parameters,\n"
     "nothing outside F reads F's tensors (none is a model output), and the ADD has no fused\n"
     "activation; other ADDs of two computed tensors are listed with why they are not blocks.\n"
     "Each block is bypassed alone (every use of y reads x; F and the ADD removed) and run in fp32\n"
     "against MODEL on the --calib inputs (else one pattern-filled input): kl = mean KL(softmax(orig)\n"
     "|| softmax(cand)) over the last axis, mse = sum (cand - orig)^2 / sum orig^2, argmax = the\n"
     "fraction of rows whose argmax over the last axis changes; each averaged over the float\n"
     "outputs. The table is sorted by --metric (default kl), least harmful first, with the\n"
     "parameters each block holds (lg_model_learned_params before minus after). A block inside\n"
     "another's F is listed on its own; removing the outer one removes it. Ablation losses do not\n"
     "add: with --remove the combination is measured and printed next to the sum of the singles.\n"
     "OUT's metadata \"litegpu.ablate\" names the removed blocks. MODEL may be ONNX.\n"
     "Exit code 0: ok; 2: error (one line).\n"
     "\n"
     "options:\n"
     "  --calib DIR         the ranking inputs: .npy files (one input), or one subfolder per set\n"
     "                      holding NAME.npy per input\n"
     "  --eval DIR          the same metrics measured on these inputs too (kept apart from --calib)\n"
     "  --metric M          kl (default), mse or argmax: the ranking's measure\n"
     "  --remove K          remove the K least harmful blocks (not nested in one another)\n"
     "  --remove-block ID   remove this block (repeatable)\n"
     "  -o, --output OUT    the candidate to write (with --remove or --remove-block)\n"
     "  --evidence DIR      write an evidence record of the change (DIR must not exist)\n"
     "  --evidence-runs N   timed runs per model for the record's latency (default 5)\n"
     "  --force             replace OUT if it exists\n"
     "  --json              print the report as JSON\n"
     "  -h, --help          show this help\n"},
    {"check", cmd_check,
     "Will the model run fully on the phone's GPU? If not: why, and what fixes it.",
     "litegpu check MODEL [--target mldrift|classic] [--gpu any|mali|adreno|webgpu] [--max-gpu-ops N] [--overlay FILE [--force]] [--json] "
     "| litegpu check --explain RULE [--json] "
     "| litegpu check --list-rules [--markdown|--json]",
     "Applies the GPU delegates' rules (from LiteRT's source) and the field rules phones\n"
     "enforce beyond it to every op, then partitions the graph as the delegate would.\n"
     "Prints a one-line verdict, the findings grouped by rule (op, tensors, reason, fix,\n"
     "source) and a summary. Exit code 0: ready; 1: not ready; 2: error.\n"
     "\n"
     "arguments:\n"
     "  MODEL               a .tflite file\n"
     "options:\n"
     "  -t, --target T      mldrift (CompiledModel GPU, the default) or classic (GPU delegate)\n"
     "  --gpu G             the GPU family: any (the default: every family's rules), mali,\n"
     "                      adreno (delegate-source rules only: no field reports) or webgpu\n"
     "                      (mldrift only); a field rule applies to the families it was seen on\n"
     "  --json              print the report as JSON\n"
     "  --max-gpu-ops N     warn above N delegated ops (shader compile limit; default 900)\n"
     "  --overlay FILE      also write a Model Explorer node-data JSON: each op with a finding,\n"
     "                      keyed by its node id (the op index), valued by its worst severity\n"
     "  --force             replace the --overlay FILE if it exists\n"
     "  --explain RULE      print a rule's documentation (no MODEL; --json: as JSON)\n"
     "  --list-rules        list every rule (no MODEL)\n"
     "  --markdown          with --list-rules: as a Markdown table\n"
     "  -h, --help          show this help\n"
     "Options a mode does not take (--target or --gpu with --explain, --markdown without\n"
     "--list-rules) are errors.\n"},
    {"lowrank", cmd_lowrank,
     "Replace FULLY_CONNECTED / 1x1 CONV_2D layers by two thin ones from the SVD, and measure it.",
     "litegpu lowrank MODEL -o OUT.tflite (--op N|--all-fc|--all-1x1) (--rank R|--energy E) [--force-rank] "
     "[--min-saving F] [--calib DIR [--refit [--lambda L]]] [--eval DIR] [--evidence DIR [--evidence-runs N]] [--force] [--json]",
     "A layer with a constant FLOAT32 weight W [m, n] (FULLY_CONNECTED [out, in]; CONV_2D 1x1,\n"
     "stride 1, dilation 1, OHWI [m, 1, 1, n]; or FLOAT16 read through DEQUANTIZE, an fp16 model:\n"
     "the factors are stored the same way) becomes n -> r -> m: the thin SVD W = U S V^T\n"
     "(LAPACK, double), first layer A = sqrt(S_r) V_r^T without bias or activation (a conv gets a\n"
     "zero bias: TFLite's conv requires one), second B = U_r sqrt(S_r) with the original bias and\n"
     "fused activation. A runtime or shared weight, a kernel other than 1x1, a stride or dilation\n"
     "other than 1 is left alone with the reason (--op N on such an op is an error). Rank: --rank\n"
     "R (clamped to min(m, n)) or --energy E, the smallest r with sum_{i<r} s_i^2 >= E sum s_i^2.\n"
     "A layer whose parameters would not drop (r >= the break-even rank m*n/(m+n) for an FC) is\n"
     "left alone unless --force-rank (with --rank: full rank reproduces the layer). Prints per\n"
     "layer m, n, the rank, the break-even rank, parameters before/after, the energy kept, the\n"
     "spectrum (--json: every singular value) and ||W - W_r||_F / ||W||_F from the stored factors;\n"
     "n_params before/after (info's learned parameters), the file sizes, and the output error of\n"
     "OUT against MODEL in fp32 (max abs, and relative to max |output|) on the pattern input and\n"
     "on --calib and --eval, each apart. OUT records the layers and ranks in its metadata\n"
     "\"litegpu.lowrank\". MODEL may be ONNX (imported as convert does).\n"
     "Exit code 0: written (also when no layer qualified: OUT is MODEL + metadata); 2: error.\n"
     "\n"
     "options:\n"
     "  -o, --output OUT    the file to write (required; never the input file)\n"
     "  --op N              the op (index in subgraph 0) to factor\n"
     "  --all-fc            every FULLY_CONNECTED\n"
     "  --all-1x1           every 1x1 CONV_2D (with --all-fc: both)\n"
     "  -r, --rank R        the rank to keep\n"
     "  -e, --energy E      the fraction of the squared spectrum to keep, in (0, 1]\n"
     "  --force-rank        with --rank: replace even when parameters would not drop\n"
     "  --min-saving F      leave alone layers saving less than the fraction F of their parameters\n"
     "  --calib DIR         also measure the output error on these inputs (.npy per set)\n"
     "  --refit             recovery without training: each factored FC's second layer (B, bias)\n"
     "                      solved by ridge least squares on --calib so that it reproduces the\n"
     "                      original layer's output (in op order; convs and FLOAT16 weights keep\n"
     "                      their SVD factors); measure it on --eval\n"
     "  --lambda L          the refit's ridge lambda, relative to the mean activation energy\n"
     "                      (default 0.001)\n"
     "  --eval DIR          and on these, reported apart\n"
     "  --evidence DIR      write an evidence record of this run into DIR (must not exist;\n"
     "                      litegpu evidence DIR verifies it)\n"
     "  --evidence-runs N   timed runs per model for the record's latency (default 5)\n"
     "  --force             replace OUT if it exists\n"
     "  --json              print the report as JSON\n"
     "  -h, --help          show this help\n"},
    {"taps", cmd_taps,
     "Add intermediate tensors as extra outputs, to find the first broken op on a device.",
     "litegpu taps MODEL -o OUT.tflite [--tensors NAME,...] [--every N] [--force] [--json]",
     "Writes OUT with the model's outputs first (output K keeps its meaning) and the taps after\n"
     "them, and prints one line per tap: its output index, tensor and the op that computes it.\n"
     "Run OUT on the phone and compare each tap with `litegpu run OUT` on the same input: the\n"
     "first tap that differs names the first broken op (a tap is stored, so the delegate cannot\n"
     "fuse across it). By default every float tensor an op computes at run time is tapped\n"
     "(constant-folded values such as DEQUANTIZE of fp16 weights are not).\n"
     "\n"
     "options:\n"
     "  -o, --output OUT        the file to write (required; never the input file)\n"
     "  --tensors NAME,...      tap these tensors (by name)\n"
     "  --every N               tap the first float output of every N-th op (run order)\n"
     "  --force                 replace OUT if it exists\n"
     "  --json                  print the taps as JSON\n"
     "  -h, --help              show this help\n"},
    {"run", cmd_run,
     "Run the model with the reference kernels, in fp32 or emulated GPU fp16.",
     cli_run_usage, cli_run_help}, /* tools/cli/cmd_run.c keeps run's usage and help */
    {"compare", cmd_compare,
     "Compare fp32 with emulated GPU precision (one model), or two models.",
     "litegpu compare MODEL [--precision f16|f32_f16] [--input NAME=FILE.npy | --fill F | --seed S] [--tol T] [--floor F] [--corr C] [--max-rel R] [--all] [--threads N] [--overlay FILE [--force]] [--json] | litegpu compare A.tflite B.tflite [--input ...] [--random N] [--seed S] [--atol A] [--rtol R] [--int-arith tflite|xnnpack] [--threads N] [--json]",
     "Precision mode runs MODEL in f32 and in the emulated precision on the same input (by\n"
     "default random:1, uniform in [-1, 1); the report names the input used) and reports, for\n"
     "every tensor, max abs/rel error, cosine, Pearson correlation, NMSE, the judge's score and\n"
     "inf/NaN counts; the first op whose output diverges; and the overflow events. Each output\n"
     "is judged against its own scale: score = rms(f16 - f32) / scale, scale = the f32 output's\n"
     "std (its magnitude when constant, never below --floor); it passes when score <= --tol and\n"
     "no new inf/NaN appears. Undefined statistics print n/a (JSON null). Two-model mode runs A\n"
     "and B on a golden input (--input, or the pattern fill) plus N random ones and checks\n"
     "allclose and argmax agreement. Exit code 0: within tolerance; 1: not; 2: error.\n"
     "\n"
     "options:\n"
     "  -p, --precision P   precision mode: f16|fp16 (default) or f32_f16; two models: the run precision\n"
     "  -i, --input NAME=FILE.npy, --fill F   the input (see litegpu help run)\n"
     "  --seed S            precision mode: the input is random:S (default 1); two models: first random seed\n"
     "  --tol T             score tolerance (default 0.05)\n"
     "  --floor F           smallest scale (default 6.1e-05 = 2^-14, the smallest normal half)\n"
     "  --corr C            also require Pearson >= C (outputs of 8+ values; default off)\n"
     "  --max-rel R         also require max_rel <= R (default off)\n"
     "  --all               list every tensor (default: only the interesting ones on big models)\n"
     "  --random N          random inputs after the golden one (default 8)\n"
     "  --atol A, --rtol R  allclose tolerances (default 1e-4, 1e-3)\n"
     "  --int-arith A       two models: quantized kernels' arithmetic, tflite (default) or xnnpack\n"
     "  --threads N         worker threads for the heavy kernels (default 1; results do not depend on it)\n"
     "  --overlay FILE      precision mode: also write a Model Explorer node-data JSON: each op's\n"
     "                      severity (score / tol, the largest over its outputs; > 1 fails), keyed\n"
     "                      by its node id (the op index); a new inf/NaN is the string \"new inf/NaN\"\n"
     "  --force             replace the --overlay FILE if it exists\n"
     "  --json              print the report as JSON\n"
     "  -h, --help          show this help\n"},
    {"bench", cmd_bench,
     "Time the reference interpreter and plan its memory.",
     "litegpu bench MODEL [--runs N] [--warmup W] [--threads N] [--precision P] [--int-arith A] [--profile] [--overlay FILE [--force]] [--json]",
     "Reports load and prepare time, the first run, the median and p95 of N warm runs after W\n"
     "warm-up runs, the planned peak activation memory (tensor lifetimes, buffers reused as an\n"
     "arena planner does) with the op where it peaks, and the measured peak RSS.\n"
     "\n"
     "options:\n"
     "  -n, --runs N          timed runs (default 20)\n"
     "  --warmup W            warm-up runs (default 5)\n"
     "  --min-warmup-ms MS    keep warming up for at least MS milliseconds\n"
     "  --threads N           worker threads\n"
     "  -p, --precision P     f32 (default), f16 or f32_f16 (fp32, fp16 also)\n"
     "  --fill F              the input fill (default half); INT8 / UINT8 inputs get it mapped to\n"
     "                        their range, floor(256 * f) (UINT8; INT8 minus 128)\n"
     "  --int-arith A         quantized kernels' arithmetic: tflite (default) or xnnpack\n"
     "  --profile             time every op of the timed runs and print them as LiteRT's\n"
     "                        benchmark_model does: run order, top 10 by time, summary by op\n"
     "                        type (avg ms, %, cdf %); with --threads, per-op wall time\n"
     "  --overlay FILE        write each op's avg ms (implies --profile) as a Model Explorer\n"
     "                        node-data overlay keyed by op index\n"
     "  --force               replace FILE if it exists\n"
     "  --json                print the report as JSON\n"
     "  -h, --help            show this help\n"},
    {"verify", cmd_verify,
     "Run the model on the real ML Drift GPU delegate (LiteRT.js WebGPU) and hold check to it.",
     "litegpu verify MODEL... [--precision f32|f16] [--fill half|pattern] [--corr C] [--timeout S] [--out DIR [--force]] [--bisect] [--json]",
     "Loads the model into ML Drift, the engine of CompiledModel GPU, through LiteRT.js's\n"
     "WebGPU backend in headless Chromium (software adapter; no phone, no GPU), and reports\n"
     "whether it compiled, whether it runs fully on the GPU (judged from isFullyAccelerated,\n"
     "where every output lives and the delegate's log), the ops it rejected with its own\n"
     "messages, the GPU outputs against LiteRT's CPU path (untrustworthy when partially\n"
     "delegated), and check --target mldrift's prediction beside the delegate's verdict.\n"
     "A software WebGPU backend is not Mali: field rules and Mali fp16 arithmetic may differ.\n"
     "Exit code 0: fully on the GPU and within tolerance; 1: not; 2: error or the oracle is\n"
     "unavailable (install it with 'make verify-deps').\n"
     "\n"
     "options:\n"
     "  -p, --precision P   f32|fp32 (default) or f16|fp16 (gpuOptions.precision; no f32_f16)\n"
     "  --fill F            half (default) or pattern\n"
     "  --corr C            also require GPU-vs-CPU Pearson >= C per output (default off: each\n"
     "                      output is judged as compare judges it, score = rms error / scale <= 0.05)\n"
     "  -o, --out DIR       keep the outputs (.npy) and the harness log in DIR\n"
     "  --force             with --out: write into a non-empty DIR\n"
     "  --bisect            one MODEL: tap every float tensor an op computes as an extra output,\n"
     "                      judge each GPU value against the CPU's and name the first op, in run\n"
     "                      order, whose output diverges (a tap is stored, so a divergence only a\n"
     "                      fused kernel makes may vanish: the report says so)\n"
     "  --timeout S         seconds allowed for each model (default 180); a model that takes\n"
     "                      longer is an error (exit 2), not a verdict\n"
     "  --json              print the report as JSON\n"
     "  -h, --help          show this help\n"},
    {"evidence", cmd_evidence,
     "Verify an evidence record (--evidence DIR of convert, fix, quantize...) and print it.",
     "litegpu evidence DIR [--json]",
     "Checks the record a verb wrote with --evidence DIR: SHA256SUMS is present and well formed,\n"
     "every file it lists is present with that sha256, DIR holds no file it does not list, and\n"
     "contract.json parses with baseline / candidate digests equal to the copies'. Then prints the\n"
     "record: experiment, verb, the one primary change, the structural checks, the measurements\n"
     "(n_params, file size, planned activation memory, latency, output error against the baseline)\n"
     "and the known limitations. `sha256sum -c SHA256SUMS` inside DIR is the independent check.\n"
     "Exit code 0: verified; 1: tampered or incomplete (each problem named: the file, expected and\n"
     "found digest); 2: usage error or DIR unreadable.\n"
     "\n"
     "arguments:\n"
     "  DIR         the record folder\n"
     "options:\n"
     "  --json      print the verdict, the problems and (when verified) the contract as JSON\n"
     "  -h, --help  show this help\n"},
    {"tile", cmd_tile,
     "Spatial tiling analysis: receptive field, halo, the op that stops exact tiling, streaming state.",
     "litegpu tile MODEL [--output N] [--tile HxW|N] [--verify [--input FILE.npy]] [--json]",
     "Per output of subgraph 0: exact tiling or not (the first op that mixes positions: global\n"
     "pooling, a norm over space such as GroupNorm, attention, a dense layer over space, a\n"
     "position-dependent constant, an align-corners resize), and per spatial axis the receptive\n"
     "field RF, the jump J (input samples per output step) and the halo before/after the tile;\n"
     "a causal 1-D model gets its streaming state, (k-1)*d samples per conv. Writes nothing.\n"
     "Exit code 0; 1: --verify found an exact model whose tiles do not reproduce its output (a\n"
     "model --verify cannot cut says why and is not a failure); 2: error.\n"
     "\n"
     "options:\n"
     "  --output N          only output N\n"
     "  --tile HxW|N        an output tile size: prints the input tile it needs ((n-1)*J + RF)\n"
     "  --verify            run the full model, then a copy of the model cut to each tile's input\n"
     "                      crop (default tile: half of each axis), and compare: max |full - tiled|\n"
     "  -i, --input FILE.npy  with --verify: the input (default: the pattern fill)\n"
     "  --json              print the report as JSON\n"
     "  -h, --help          show this help\n"},
    {"prune", cmd_prune, cli_prune_summary, cli_prune_usage, cli_prune_help},
    {"report", cmd_report,
     "Write one self-contained HTML page about a model: info, check, the fp16 error curve, memory, latency.",
     "litegpu report MODEL -o OUT.html [--input NAME=FILE.npy]... [--precision f16|f32_f16] [--before ORIGINAL] "
     "[--target mldrift|classic] [--gpu any|mali|adreno|webgpu] [--force] [--json]",
     "The page (inline CSS and SVG, no script, nothing fetched: it can be mailed) holds: the model\n"
     "at a glance (info: size, sha256, inputs and outputs, op census); check's verdict and its\n"
     "findings as a table (rule, severity, op, message, fix); the per-op error curve of compare\n"
     "(f32 against the emulated GPU precision: each op's worst judge score, rms error / output\n"
     "std, log scale) with the tolerance, the first divergent op and the overflow events marked;\n"
     "the activation-memory timeline (live bytes per op of bench's memory plan) with the peak op;\n"
     "the latency by op type (count, ms, avg, %, cdf %) and the slowest ops, from the f32\n"
     "interpreter on this machine (per-op times from the interpreter's tap timestamps); and, when\n"
     "MODEL's metadata says fix, quantize, prune or ablate wrote it or --before is given, before\n"
     "and after (check verdicts, sizes, op census side by side). Every string from a model is\n"
     "HTML-escaped. A model the interpreter cannot run gets the page without the run sections\n"
     "(it says why). Prints one line: wrote OUT (N bytes) and the verdicts.\n"
     "Exit code 0: written; 2: error.\n"
     "\n"
     "options:\n"
     "  -o, --output OUT        the page to write (required)\n"
     "  -i, --input NAME=FILE.npy  an input (by name or index; repeatable); others: random:1 as compare\n"
     "  -p, --precision P       the emulated precision: f16 (default) or f32_f16 (fp16 also)\n"
     "  --before ORIGINAL       the model before a rewrite: side by side with MODEL\n"
     "  -t, --target T          check's target: mldrift (default) or classic\n"
     "  --gpu G                 check's GPU family: any (default), mali, adreno, webgpu\n"
     "  --force                 replace OUT if it exists\n"
     "  --json                  print a summary of the page as JSON\n"
     "  -h, --help              show this help\n"},
};
#define N_VERBS (sizeof verbs / sizeof verbs[0])

/* `litegpu help` and the man page (man.c) print these. */
static const char tagline[] = "read, check and rewrite TFLite models for mobile GPUs";
static const char exit_codes[] = "0 ok, 1 findings, 2 usage or input error (one line on stderr)";
static const char general_usage[] = "litegpu VERB [ARGS...] | litegpu help [VERB] | litegpu --version";

static const cli_verb *verb_find(const char *name) {
    for (size_t i = 0; i < N_VERBS; i++)
        if (strcmp(verbs[i].name, name) == 0) return &verbs[i];
    return NULL;
}

static void verb_list(char *buf, size_t n) {
    buf[0] = 0;
    for (size_t i = 0; i < N_VERBS; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%s%s", i ? ", " : "", verbs[i].name);
    }
}

static int unknown_verb(const char *name) {
    char list[256];
    verb_list(list, sizeof list);
    return cli_error("unknown verb '%s' (verbs: %s; see 'litegpu help')", name, list);
}

static void general_help(FILE *f) {
    fprintf(f,
            "litegpu " LG_VERSION_STRING ": %s\n"
            "\n"
            "usage: litegpu VERB [ARGS...]\n"
            "       litegpu help [VERB]       (or litegpu VERB --help)\n"
            "       litegpu --version\n"
            "\n"
            "verbs:\n", tagline);
    for (size_t i = 0; i < N_VERBS; i++) {
        fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
    }
    fprintf(f, "\nexit codes: %s\n", exit_codes);
}

static const char help_usage[] = "litegpu help [VERB]";

static const cli_verb help_verb = {
    "help", NULL, "Show the list of verbs, or one verb's usage and options.", help_usage,
    "arguments:\n"
    "  VERB          a verb (litegpu help lists them), or help\n"
    "Same as litegpu VERB --help.\n"};

/* `litegpu help --man` (hidden): the man page, from the texts above (tools/cli/man.c). */
static int man_page(void) {
    const cli_man_page page = {LG_VERSION_STRING, tagline, general_usage, exit_codes,
                               verbs, N_VERBS, &help_verb};
    return cli_man_write(stdout, &page) == 0 ? CLI_OK : cli_error("help --man: write failed");
}

static int cmd_help(int argc, char **argv) {
    if (argc > 3) return cli_error("help: too many arguments (usage: %s)", help_usage);
    if (argc == 3 && (strcmp(argv[2], "help") == 0 || strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
        cli_verb_help(&help_verb, stdout);
    } else if (argc == 3 && strcmp(argv[2], "--man") == 0) {
        return man_page();
    } else if (argc == 3) {
        if (argv[2][0] == '-') return cli_error("help: unknown option '%s' (usage: %s)", argv[2], help_usage);
        const cli_verb *v = verb_find(argv[2]);
        if (!v) return unknown_verb(argv[2]);
        cli_verb_help(v, stdout);
    } else {
        general_help(stdout);
    }
    return CLI_OK;
}

int main(int argc, char **argv) {
    if (argc < 2) return cli_error("no verb given (usage: %s)", general_usage);
    const char *a = argv[1];
    if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
        if (argc > 2) return cli_error("--version takes no arguments");
        printf("litegpu %s\n", LG_VERSION_STRING);
        return fflush(stdout) == 0 ? CLI_OK : CLI_ERROR;
    }
    if (strcmp(a, "help") == 0 || strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
        return cmd_help(argc, argv);
    if (a[0] == '-') return cli_error("unknown option '%s' (usage: %s)", a, general_usage);
    const cli_verb *v = verb_find(a);
    if (!v) return unknown_verb(a);
    return v->fn(v, argc - 1, argv + 1);
}
