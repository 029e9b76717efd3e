/*
 * transcript.c — checks the sessions written in documentation. Every
 * fenced block opened with ```ag in a Markdown file is a terminal session:
 * lines starting with "ag> " or "...> " are typed, everything else is what
 * the shell must print. Each block runs in a fresh ./ag on a pseudo-terminal
 * and the screen must read exactly as the block (the banner excepted),
 * except that an expected line ending in "..." matches any line that
 * starts with what comes before it (for :mem's process sizes). A block
 * opened with ```ag sleef prints PyTorch's last bits of sin, exp..., which
 * ag gives only where SLEEF loads: it is skipped where AG_VECMATH says not.
 *
 * Usage: transcript PATH_TO_AG FILE.md...   Prints "N passed, N failed" last.
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pty.h"
#include "check.h"

static Pty pty;

/* The block's lines, NUL-terminated in place. */
typedef struct {
    char *lines[512];
    int count, first_line;
    bool needs_sleef;  /* ```ag sleef: PyTorch's last bits of sin, exp... (SLEEF's) */
} Block;

/* Whether ag's vector math is SLEEF's (tests/run.sh's AG_VECMATH; unset:
 * assumed, as on a machine with it). */
static bool sleef_loaded(void) {
    const char *v = getenv("AG_VECMATH");
    return !v || !*v || strcmp(v, "SLEEF") == 0;
}

static bool is_input(const char *line) {
    return strncmp(line, "ag> ", 4) == 0 || strncmp(line, "...> ", 5) == 0;
}

/* What the terminal showed from the first prompt on: '\r' removed, the
 * final prompt dropped. */
static char *screen(void) {
    const char *start = strstr(pty.seen, "ag> ");
    char *out = strdup(start ? start : "");
    size_t w = 0;
    for (size_t r = 0; out[r]; r++)
        if (out[r] != '\r') out[w++] = out[r];
    out[w] = '\0';
    if (w >= 4 && strcmp(out + w - 4, "ag> ") == 0) out[w - 4] = '\0';
    return out;
}

/* Line by line: equal, or a prefix where the expected line ends in "...". */
static bool screen_matches(const char *got, const Block *b) {
    const char *p = got;
    for (int i = 0; i < b->count; i++) {
        const char *end = strchr(p, '\n');
        if (!end) return false;
        size_t len = (size_t)(end - p), want = strlen(b->lines[i]);
        bool wild = want >= 3 && strcmp(b->lines[i] + want - 3, "...") == 0;
        if (wild ? len < want - 3 || memcmp(p, b->lines[i], want - 3) != 0
                 : len != want || memcmp(p, b->lines[i], len) != 0)
            return false;
        p = end + 1;
    }
    return *p == '\0';
}

static bool run_block(const char *ag, const char *file, const Block *b) {
    char home[] = "/tmp/ag-transcript-XXXXXX";
    if (!mkdtemp(home) || !pty_start(&pty, ag, home)) return false;
    bool ok = pty_expect(&pty, "ag> ");
    for (int i = 0; ok && i < b->count; i++) {
        const char *line = b->lines[i];
        if (!is_input(line)) continue;
        pty_type(&pty, strchr(line, ' ') + 1);
        pty_type(&pty, "\n");
        /* Wait for the prompt the next input line shows. */
        const char *next = "ag> ";
        for (int j = i + 1; j < b->count; j++)
            if (is_input(b->lines[j])) {
                next = b->lines[j][0] == '.' ? "...> " : "ag> ";
                break;
            }
        ok = pty_expect(&pty, next);
    }
    char *got = screen();
    pty_finish(&pty);
    char expected[1 << 16];
    size_t n = 0;
    for (int i = 0; i < b->count && n < sizeof expected - 1; i++)
        n += (size_t)snprintf(expected + n, sizeof expected - n, "%s\n", b->lines[i]);
    ok = ok && screen_matches(got, b);
    if (!ok)
        printf("FAIL %s:%d: the session differs.\n--- expected\n%s--- got\n%s---\n", file,
               b->first_line, expected, got);
    else
        printf("ok %s:%d\n", file, b->first_line);
    free(got);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", home);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", home);
    return ok;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: transcript PATH_TO_AG FILE.md...\n");
        return 2;
    }
    for (int f = 2; f < argc; f++) {
        char *text = read_file(argv[f]);
        if (!text) {
            printf("FAIL cannot read %s\n", argv[f]);
            check_failed++;
            continue;
        }
        Block b = {.count = -1};
        int line_no = 0;
        for (char *line = text, *next; line && *line; line = next) {
            next = strchr(line, '\n');
            if (next) *next++ = '\0';
            line_no++;
            if (b.count < 0 && (strcmp(line, "```ag") == 0 || strcmp(line, "```ag sleef") == 0)) {
                b.count = 0;
                b.first_line = line_no;
                b.needs_sleef = strcmp(line, "```ag sleef") == 0;
            } else if (b.count >= 0 && strcmp(line, "```") == 0) {
                if (b.needs_sleef && !sleef_loaded())
                    printf("skip %s:%d (needs SLEEF's bits)\n", argv[f], b.first_line);
                else if (run_block(argv[1], argv[f], &b)) check_passed++;
                else check_failed++;
                b.count = -1;
            } else if (b.count >= 0 && b.count < 512) {
                b.lines[b.count++] = line;
            }
        }
        free(text);
    }
    return check_summary();
}
