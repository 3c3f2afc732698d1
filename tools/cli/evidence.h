/* Evidence records (issue #14 item 6): one folder holding the handbook's experiment contract
   (seed 001, chapter 16, "A reusable experiment contract") filled by a verb that wrote a model.

   Layout of DIR (every file but SHA256SUMS is listed in SHA256SUMS, `sha256sum -c` format):
     contract.json     the contract: baseline/candidate sha256, the one primary change, checks,
                       measurements (file sizes), decision "not_evaluated", rollback artifact
     environment.json  tool version, compiler, OS, CPU model (no date: the record is
                       byte-identical for the same inputs and flags on the same machine)
     command.txt       the exact argv, one argument per line
     baseline.<ext>    a copy of the input model (.tflite or .onnx)
     candidate.tflite  a copy of the written model
     SHA256SUMS
   The folder is written as DIR.tmp-XXXXXX and renamed to DIR at the end; an existing DIR is
   refused. */
#ifndef LG_CLI_EVIDENCE_H
#define LG_CLI_EVIDENCE_H

typedef struct cli_evidence {
    const char *dir;          /* must not exist */
    const char *verb;         /* "fix" */
    int argc; char **argv;    /* the verb's argv as received (argv[0] = verb name) */
    const char *baseline;     /* input model path */
    const char *candidate;    /* written model path */
    const char *hypothesis;   /* one sentence, or NULL */
    const char *change_json;  /* a JSON object text: the one primary change + parameters; NULL = {} */
    const char *checks_json;  /* a JSON array text: structural checks + figures; NULL = [] */
    const char *calib;        /* evaluation inputs folder (recorded), or NULL */
} cli_evidence;

/* Write the record. CLI_OK (0), or CLI_ERROR (2) with one line printed. */
int cli_evidence_write(const cli_evidence *e);

/* 0 when dir may be created (does not exist), or CLI_ERROR printed. Call before the work. */
int cli_evidence_check(const char *dir);

#endif
