/* litegpu: the command-line front end. One table of verbs; each verb parses its own
   arguments, calls the library, prints text or JSON, and returns the exit code. */
#include <string.h>

#include "cli.h"

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
     "Read a model, validate it and write it as .tflite (atomically).",
     "litegpu convert IN.tflite -o OUT.tflite [--force] [--external-buffers] [--json]",
     "Prints one line: wrote OUT (N bytes, sha256 ...).\n"
     "\n"
     "arguments:\n"
     "  IN.tflite               the model to read (format detected from its content)\n"
     "options:\n"
     "  -o, --output OUT        the file to write (required; never the input file)\n"
     "  --force                 replace OUT if it exists\n"
     "  --external-buffers      store constant data after the flatbuffer (offset/size)\n"
     "  --json                  print the result as JSON\n"
     "  -h, --help              show this help\n"},
    {"check", cmd_check,
     "Will the model run fully on the phone's GPU? If not: why, and what fixes it.",
     "litegpu check MODEL [--target mldrift|classic] [--json] | --explain RULE | --list-rules",
     "Applies the GPU delegates' rules (from LiteRT's source) and the field rules phones\n"
     "enforce beyond it to every op, then partitions the graph as the delegate would.\n"
     "Prints a one-line verdict, the findings grouped by rule (op, tensors, reason, fix,\n"
     "source) and a summary. Exit code 0: ready; 1: not ready; 2: error.\n"
     "\n"
     "arguments:\n"
     "  MODEL               a .tflite file\n"
     "options:\n"
     "  -t, --target T      mldrift (CompiledModel GPU, the default) or classic (GPU delegate)\n"
     "  --json              print the report as JSON\n"
     "  --explain RULE      print a rule's documentation\n"
     "  --list-rules        list every rule (with --markdown: as a table; --json: as JSON)\n"
     "  --max-gpu-ops N     warn above N delegated ops (shader compile limit; default 1000)\n"
     "  -h, --help          show this help\n"},
};
#define N_VERBS (sizeof verbs / sizeof verbs[0])

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
            "litegpu " LG_VERSION_STRING ": read, check and rewrite TFLite models for mobile GPUs\n"
            "\n"
            "usage: litegpu VERB [ARGS...]\n"
            "       litegpu help [VERB]       (or litegpu VERB --help)\n"
            "       litegpu --version\n"
            "\n"
            "verbs:\n");
    for (size_t i = 0; i < N_VERBS; i++) {
        fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
    }
    fprintf(f,
            "\n"
            "exit codes: 0 ok, 1 findings, 2 usage or input error (one line on stderr)\n");
}

static int cmd_help(int argc, char **argv) {
    if (argc > 3) return cli_error("help: too many arguments (usage: litegpu help [VERB])");
    if (argc == 3) {
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
