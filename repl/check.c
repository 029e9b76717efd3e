/*
 * check.c — ag --check: scripts that carry their expected output, as clox's
 * tests do. "# expect: TEXT" is one line the statements above it print;
 * "# expect error: TEXT" is an error whose message contains TEXT. Errors do
 * not stop a checked script, so one file can show several.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "run.h"
#include "strbuf.h"

enum { MAX_REPORTED = 20 };

typedef struct {
    bool error;        /* an expected error (else a printed line) */
    char *text;
    int line;          /* of the expectation in the file */
} Expect;

typedef struct {
    Expect *items;
    int count, cap;
} ExpectList;

static bool push(ExpectList *l, bool error, const char *text, size_t len, int line) {
    if (l->count == l->cap) {
        int cap = l->cap ? l->cap * 2 : 64;
        Expect *items = realloc(l->items, (size_t)cap * sizeof *items);
        if (!items) return false;
        l->items = items;
        l->cap = cap;
    }
    while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\r')) len--;
    char *copy = malloc(len + 1);
    if (!copy) return false;
    memcpy(copy, text, len);
    copy[len] = '\0';
    l->items[l->count++] = (Expect){error, copy, line};
    return true;
}

static void free_list(ExpectList *l) {
    for (int i = 0; i < l->count; i++) free(l->items[i].text);
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* The expectation a line holds ("# expect: " or "# expect error: "
 * anywhere in it), added to out. */
static bool collect_line(const char *text, size_t len, int line, ExpectList *out) {
    static const char *const markers[] = {"# expect error: ", "# expect: "};
    for (int m = 0; m < 2; m++) {
        size_t n = strlen(markers[m]);
        for (size_t i = 0; i + n <= len; i++)
            if (memcmp(text + i, markers[m], n) == 0)
                return push(out, m == 0, text + i + n, len - i - n, line);
    }
    return true;
}

/* Reads f's expectations, a line at a time (a line is bounded as when a
 * script runs: /dev/zero ends here, not in memory). NULL, or why not. */
static const char *expectations(FILE *f, ExpectList *out) {
    StrBuf line;
    strbuf_init(&line);
    const char *why = NULL;
    int c = 0;
    for (int n = 1; !why && c != EOF; n++) {
        line.len = 0;
        while ((c = getc(f)) != EOF && c != '\n') {
            if (line.len >= MAX_LINE) {
                why = "a line is too long (more than 16 MiB)";
                break;
            }
            char ch = (char)c;
            strbuf_appendn(&line, &ch, 1);
        }
        if (!why && ferror(f)) why = strerror(errno);
        if (!why && (line.oom || !collect_line(line.data, line.len, n, out))) why = "out of memory";
    }
    strbuf_free(&line);
    return why;
}

/* What a checked script printed, one line at a time; an error line is
 * "FILE:LINE:COL: error: MESSAGE" (run.c's report), its message returned. */
static const char *error_message(const char *line) {
    const char *hit = strstr(line, ": error: ");
    return hit ? hit + strlen(": error: ") : NULL;
}

/* Compares output lines with the expectations; prints mismatches; returns
 * how many there were. */
static int compare(const char *path, char *output, const ExpectList *want) {
    int failures = 0, i = 0;
    for (char *line = output, *next; line && *line; line = next, i++) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        const char *message = error_message(line);
        const Expect *e = i < want->count ? &want->items[i] : NULL;
        bool ok = e && (e->error ? message && strstr(message, e->text)
                                 : !message && strcmp(line, e->text) == 0);
        if (ok) continue;
        if (failures++ >= MAX_REPORTED) continue;
        if (!e)
            printf("%s: unexpected %s after the last expectation: %s\n", path,
                   message ? "error" : "output", message ? message : line);
        else
            printf("%s:%d: expected %s'%s', got %s'%s'\n", path, e->line,
                   e->error ? "an error containing " : "", e->text, message ? "the error " : "",
                   message ? message : line);
    }
    for (; i < want->count; i++, failures++)
        if (failures < MAX_REPORTED)
            printf("%s:%d: expected %s'%s', but nothing more was printed\n", path,
                   want->items[i].line, want->items[i].error ? "an error containing " : "",
                   want->items[i].text);
    return failures;
}

/* Runs one file with its output captured; the captured text for compare. */
static bool run_captured(const char *path, FILE *file, char **output) {
    size_t size;
    FILE *mem = open_memstream(output, &size);
    if (!mem) return false;
    Session s;
    session_init(&s, mem, mem, false);
    s.quiet_notes = true;
    Source src = {.name = path, .file = file, .keep_going = true};
    run_source(&s, &src);
    session_free(&s);
    ag_graph_free();
    fclose(mem);
    return true;
}

static int check_file(const char *path) {
    Session probe;
    session_init(&probe, stdout, stderr, false);
    FILE *f = run_open(&probe, path);
    if (!f) {
        printf("%s: %s\n", path, probe.error);
        session_free(&probe);
        return 1;
    }
    session_free(&probe);
    char *output = NULL;
    ExpectList want = {0};
    int failures = 1;
    const char *why = expectations(f, &want);
    if (why) {
        printf("%s: cannot read it: %s\n", path, why);
    } else {
        rewind(f);
        failures = run_captured(path, f, &output) ? compare(path, output, &want) : 1;
        if (failures == 0)
            printf("%s: ok (%d expectation%s)\n", path, want.count, want.count == 1 ? "" : "s");
        else
            printf("%s: %d mismatch%s\n", path, failures, failures == 1 ? "" : "es");
    }
    fclose(f);
    free(output);
    free_list(&want);
    return failures != 0;
}

int check_files(int count, char **paths) {
    if (count == 0) {
        fprintf(stderr, "ag: --check needs at least one FILE\n");
        return 2;
    }
    int failed = 0;
    for (int i = 0; i < count; i++) failed += check_file(paths[i]);
    printf("%d passed, %d failed\n", count - failed, failed);
    return failed ? 1 : 0;
}
