/* The litegpu(1) man page, written from the verb table and the texts `litegpu help` prints
   (`litegpu help --man`, hidden; the Makefile writes build/litegpu.1 with it), so the page
   cannot drift from the help. */
#ifndef LG_CLI_MAN_H
#define LG_CLI_MAN_H
#include <stddef.h>
#include <stdio.h>

#include "cli.h"

typedef struct cli_man_page {
    const char *version;       /* "0.1.0" */
    const char *tagline;       /* the one line after "litegpu VERSION: " in `litegpu help` */
    const char *usage;         /* the general usage, alternatives separated by " | " */
    const char *exit_codes;    /* the "exit codes:" line of `litegpu help` (without the label) */
    const cli_verb *verbs;     /* every verb, in the order `litegpu help` lists them */
    size_t n_verbs;
    const cli_verb *help_verb; /* `litegpu help help` as a verb entry (fn unused) */
} cli_man_page;

/* Writes the page as man(7) roff. Returns 0, or -1 when writing failed. */
int cli_man_write(FILE *f, const cli_man_page *p);

#endif
