/* litegpu(1) as man(7) roff, from the verb table and the help texts (tools/cli/man.h).

   A verb's help text is laid out for a terminal; the page keeps its structure:
     - a line "options:" / "arguments:" (lower-case words and a colon) is a bold heading;
     - a line indented by exactly two spaces is an entry, "  TAG  description": the tag ends
       at the first run of two spaces; it becomes a .TP item (options bold, the rest italic);
     - a line indented further continues the entry (or the paragraph) above;
     - other lines are prose, filled; an empty line ends the paragraph.
   Text is escaped for roff (groff(7)): a backslash is \e, every '-' is \- (an ASCII minus
   when rendered, so options copy and paste), a line starting with '.' or '\'' gets \& in
   front (it would be a request), non-ASCII UTF-8 is written as \[uXXXX]. */
#include <stdbool.h>
#include <string.h>

#include "man.h"

/* Writes n bytes of s escaped. *bol: the output is at the beginning of a line. */
static void put_text(FILE *f, const char *s, size_t n, bool *bol) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (*bol && (c == '.' || c == '\'')) fputs("\\&", f);
        *bol = false;
        if (c == '\\') {
            fputs("\\e", f);
        } else if (c == '-') {
            fputs("\\-", f);
        } else if (c >= 0xC0 && c < 0xF8) {
            /* a UTF-8 sequence: 2, 3 or 4 bytes */
            size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
            unsigned long cp = c & (0x3Fu >> (len - 1));
            size_t k = 1;
            for (; k < len && i + k < n && ((unsigned char)s[i + k] & 0xC0) == 0x80; k++)
                cp = (cp << 6) | ((unsigned char)s[i + k] & 0x3F);
            if (k == len) fprintf(f, "\\[u%04lX]", cp);
            else fputs("?", f);
            i += k - 1;
        } else if (c >= 0x80 || (c < 0x20 && c != '\t')) {
            fputs("?", f); /* a stray byte: never pass it to groff */
        } else {
            fputc(c, f);
        }
    }
}

static void put_line(FILE *f, const char *s, size_t n) {
    bool bol = true;
    put_text(f, s, n, &bol);
    fputc('\n', f);
}

static void put_str_line(FILE *f, const char *s) { put_line(f, s, strlen(s)); }

/* An entry's tag: each space-separated word that starts with '-' in bold, others in italic;
   a trailing comma stays roman ("-o, --output OUT"). */
static void put_tag(FILE *f, const char *s, size_t n) {
    bool bol = true;
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != ' ') j++;
        size_t w = j - i;
        bool comma = w > 1 && s[j - 1] == ',';
        if (comma) w--;
        if (i > 0) fputc(' ', f);
        fputs(s[i] == '-' ? "\\fB" : "\\fI", f);
        bol = false;
        put_text(f, s + i, w, &bol);
        fputs("\\fR", f);
        if (comma) fputc(',', f);
        i = j;
        while (i < n && s[i] == ' ') i++;
    }
    fputc('\n', f);
}

static size_t leading_spaces(const char *s, size_t n) {
    size_t k = 0;
    while (k < n && s[k] == ' ') k++;
    return k;
}

static bool is_heading(const char *s, size_t n) {
    if (n < 2 || n > 24 || s[n - 1] != ':' || s[0] < 'a' || s[0] > 'z') return false;
    for (size_t i = 0; i + 1 < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || s[i] == ' ')) return false;
    return true;
}

/* An entry line (n bytes at line, 2 spaces of indent) with no two-space gap: a tag long
   enough to touch its description ("  --outputs T1,T2,... cut the model"). The description
   column is then the next line's indent when that line continues the entry and the entry
   line has a space just before that column; otherwise the whole line is the tag. Returns
   the tag's end, counted from after the indent. */
static size_t entry_tag_end(const char *line, size_t n, const char *nl) {
    if (nl) {
        const char *next = nl + 1;
        size_t nn = strcspn(next, "\n");
        size_t col = leading_spaces(next, nn);
        if (col > 3 && col < nn && col < n && line[col - 1] == ' ' && line[col] != ' ') {
            size_t t = col - 1;
            while (t > 2 && line[t - 1] == ' ') t--;
            return t - 2;
        }
    }
    return n - 2;
}

/* One help text, laid out as the header comment says. */
static void put_help(FILE *f, const char *text) {
    bool need_pp = true, in_list = false;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        size_t ind = leading_spaces(p, n);
        const char *s = p + ind;
        size_t m = n - ind;
        while (m > 0 && s[m - 1] == ' ') m--;
        if (m == 0) {
            need_pp = true;
            in_list = false;
        } else if (ind == 0 && is_heading(s, m)) {
            fputs(".PP\n\\fB", f);
            bool bol = false;
            put_text(f, s, m, &bol);
            fputs("\\fR\n", f);
            need_pp = false;
            in_list = false;
        } else if (ind == 2) {
            size_t t = 0;
            while (t + 1 < m && !(s[t] == ' ' && s[t + 1] == ' ')) t++;
            if (t + 1 >= m) {
                t = entry_tag_end(p, n, nl);
                if (t > m) t = m;
            }
            fputs(".TP\n", f);
            put_tag(f, s, t);
            size_t d = t + leading_spaces(s + t, m - t);
            if (d < m) put_line(f, s + d, m - d);
            need_pp = false;
            in_list = true;
        } else {
            if (ind == 0 && in_list) need_pp = true, in_list = false;
            if (need_pp) fputs(".PP\n", f);
            need_pp = false;
            put_line(f, s, m);
        }
        p = nl ? nl + 1 : p + n;
    }
}

/* Usage alternatives ("A | litegpu B"), one per line with a hanging indent. */
static void put_usage(FILE *f, const char *usage) {
    static const char sep[] = " | litegpu ";
    fputs(".PP\n.in +4n\n", f);
    const char *p = usage;
    for (;;) {
        const char *q = strstr(p, sep);
        size_t n = q ? (size_t)(q - p) : strlen(p);
        fputs(".ti -4n\n", f);
        put_line(f, p, n);
        if (!q) break;
        fputs(".br\n", f);
        p = q + 3; /* the next alternative starts at "litegpu" */
    }
    fputs(".in -4n\n", f);
}

static void put_verb(FILE *f, const cli_verb *v) {
    fprintf(f, ".SS %s\n", v->name);
    put_usage(f, v->usage);
    fputs(".PP\n", f);
    put_str_line(f, v->summary);
    if (v->help && v->help[0]) put_help(f, v->help);
}

int cli_man_write(FILE *f, const cli_man_page *p) {
    fprintf(f, ".\\\" litegpu(1), generated by `litegpu help --man` from the texts of `litegpu help`.\n"
               ".\\\" Do not edit: change the help texts in tools/cli/ instead.\n"
               ".TH LITEGPU 1 \"\" \"litegpu %s\" \"litegpu manual\"\n"
               ".nh\n.ad l\n"
               ".SH NAME\n",
            p->version);
    fputs("litegpu \\- ", f);
    bool bol = false;
    put_text(f, p->tagline, strlen(p->tagline), &bol);
    fputs("\n.SH SYNOPSIS\n", f);
    put_usage(f, p->usage);
    fputs(".SH DESCRIPTION\n", f);
    fputs(".B litegpu\nruns one verb per call; ", f);
    put_str_line(f, "litegpu help VERB (or litegpu VERB --help) prints the verb's section below.");
    fputs(".PP\n\\fBverbs:\\fR\n", f);
    for (size_t i = 0; i < p->n_verbs; i++) {
        fprintf(f, ".TP\n\\fB%s\\fR\n", p->verbs[i].name);
        put_str_line(f, p->verbs[i].summary);
    }
    for (size_t i = 0; i < p->n_verbs; i++) put_verb(f, &p->verbs[i]);
    put_verb(f, p->help_verb);
    fputs(".SH EXIT STATUS\n", f);
    put_str_line(f, p->exit_codes);
    fputs(".PP\nA verb's section above says what 1 means for it.\n", f);
    fputs(".SH SEE ALSO\n"
          ".BR pkg\\-config (1):\n"
          "\\fBpkg\\-config \\-\\-cflags \\-\\-libs litegpu\\fR\n"
          "compiles and links a program against the library, \\fIliblitegpu.a\\fR,\n"
          "whose API is in the headers \\fI<lg/*.h>\\fR;\n"
          "the README of the source tree describes the architecture and every verb with examples.\n",
          f);
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
