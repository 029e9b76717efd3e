/*
 * check.c — ag --check: scripts that carry their expected output, as clox's
 * tests do. "# expect: TEXT" is one line the statements above it print;
 * "# expect error: TEXT" is an error whose message contains TEXT. Errors do
 * not stop a checked script, so one file can show several.
 */
#include <stdlib.h>
#include <string.h>

#include "run.h"

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

/* Every "# expect: " and "# expect error: " in the text, in order. */
static bool collect(const char *text, size_t len, bool error_lines, ExpectList *out) {
    const char *marker = error_lines ? "# expect error: " : "# expect: ";
    int line = 1;
    for (const char *p = text, *end = text + len; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        const char *hit = NULL;
        for (const char *q = p; q + strlen(marker) <= eol && !hit; q++)
            if (memcmp(q, marker, strlen(marker)) == 0) hit = q;
        if (hit && !push(out, error_lines, hit + strlen(marker),
                         (size_t)(eol - hit) - strlen(marker), line))
            return false;
        p = eol + 1;
    }
    return true;
}

/* The expectations of both kinds, merged in line order. */
static bool expectations(const char *text, size_t len, ExpectList *out) {
    ExpectList lines = {0}, errors = {0};
    bool ok = collect(text, len, false, &lines) && collect(text, len, true, &errors);
    for (int i = 0, j = 0; ok && (i < lines.count || j < errors.count);) {
        bool take_error = i == lines.count || (j < errors.count && errors.items[j].line < lines.items[i].line);
        Expect *e = take_error ? &errors.items[j++] : &lines.items[i++];
        ok = push(out, e->error, e->text, strlen(e->text), e->line);
    }
    free_list(&lines);
    free_list(&errors);
    return ok;
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
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("%s: cannot open\n", path);
        return 1;
    }
    char *text = NULL, *output = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    for (int c; mem && (c = getc(f)) != EOF;) putc(c, mem);
    if (mem) fclose(mem);
    ExpectList want = {0};
    int failures = 1;
    if (text && expectations(text, size, &want)) {
        rewind(f);
        failures = run_captured(path, f, &output) ? compare(path, output, &want) : 1;
    }
    if (failures == 0)
        printf("%s: ok (%d expectation%s)\n", path, want.count, want.count == 1 ? "" : "s");
    else
        printf("%s: %d mismatch%s\n", path, failures, failures == 1 ? "" : "es");
    fclose(f);
    free(text);
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
