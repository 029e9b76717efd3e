/*
 * check.c — ag --check: scripts that carry their expected output, as clox's
 * tests do. "# expect: TEXT" is one line the statements above it print;
 * "# expect error: TEXT" is an error whose message contains TEXT. Errors do
 * not stop a checked script, so one file can show several. Errors are
 * told from output by the stream they come on, and lines are compared as
 * they are written (nothing is held but the line being written).
 */
#define _GNU_SOURCE /* fopencookie: the script's output compared as it is written */
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

/* ======================================================================
 * Comparing while the script runs
 *
 * The script's output and its errors go to two streams of their own
 * (fopencookie), both unbuffered so that their order is kept: a line on
 * the error stream is an error whatever it says (out of band, never found
 * by reading the text), a line on the output stream is output whatever it
 * says. Each line is compared as soon as it is complete, so nothing but
 * the line being written is held.
 * ====================================================================== */

typedef struct {
    const char *path;
    const ExpectList *want;
    int next;          /* the expectation the next line meets */
    int failures;
    StrBuf line[2];    /* the line being written: [0] output, [1] errors */
    bool cut[2];       /* it passed MAX_LINE: only its start is kept */
} Checker;

/* An error's message: what follows run.c's "FILE:LINE:COL: error: " (the
 * line is known to be an error: the prefix is only left out). */
static const char *error_message(const char *line) {
    const char *hit = strstr(line, ": error: ");
    return hit ? hit + strlen(": error: ") : line;
}

/* One complete line, compared with the next expectation. A note on the
 * error stream (note: ...) is compared as output, as it reads. */
static void compare_line(Checker *c, const char *line, bool error) {
    if (error && strncmp(line, "note: ", 6) == 0) error = false;
    const char *message = error ? error_message(line) : NULL;
    const Expect *e = c->next < c->want->count ? &c->want->items[c->next] : NULL;
    c->next++;
    bool ok = e && (e->error ? message && strstr(message, e->text)
                             : !message && strcmp(line, e->text) == 0);
    if (ok || c->failures++ >= MAX_REPORTED) return;
    if (!e)
        printf("%s: unexpected %s after the last expectation: %s\n", c->path,
               message ? "error" : "output", message ? message : line);
    else
        printf("%s:%d: expected %s'%s', got %s'%s'\n", c->path, e->line,
               e->error ? "an error containing " : "", e->text, message ? "the error " : "",
               message ? message : line);
}

/* The line of stream k is complete: compare it and start the next. */
static void end_line(Checker *c, int k) {
    if (c->cut[k]) strbuf_append(&c->line[k], "... (cut: a line longer than 16 MiB)");
    compare_line(c, c->line[k].data, k == 1);
    strbuf_free(&c->line[k]);
    strbuf_init(&c->line[k]);
    c->cut[k] = false;
}

static ssize_t stream_write(Checker *c, int k, const char *buf, size_t size) {
    for (size_t i = 0; i < size;) {
        const char *nl = memchr(buf + i, '\n', size - i);
        size_t n = nl ? (size_t)(nl - (buf + i)) : size - i;
        size_t room = c->line[k].len < MAX_LINE ? MAX_LINE - c->line[k].len : 0;
        if (n > room) c->cut[k] = true;
        strbuf_appendn(&c->line[k], buf + i, n < room ? n : room);
        i += n;
        if (nl) {
            end_line(c, k);
            i++;
        }
    }
    return (ssize_t)size;
}

static ssize_t write_output(void *cookie, const char *buf, size_t size) {
    return stream_write(cookie, 0, buf, size);
}

static ssize_t write_errors(void *cookie, const char *buf, size_t size) {
    return stream_write(cookie, 1, buf, size);
}

static FILE *checked_stream(Checker *c, bool errors) {
    cookie_io_functions_t io = {.write = errors ? write_errors : write_output};
    FILE *f = fopencookie(c, "w", io);
    if (f) setvbuf(f, NULL, _IONBF, 0);
    return f;
}

/* Runs one file, comparing what it prints with want as it goes; prints
 * mismatches; returns how many there were (-1: could not run it). */
static int run_checked(const char *path, FILE *file, const ExpectList *want) {
    Checker c = {.path = path, .want = want};
    strbuf_init(&c.line[0]);
    strbuf_init(&c.line[1]);
    FILE *out = checked_stream(&c, false), *err = checked_stream(&c, true);
    if (!out || !err) {
        if (out) fclose(out);
        if (err) fclose(err);
        return -1;
    }
    Session s;
    session_init(&s, out, err, false);
    s.quiet_notes = true;
    Source src = {.name = path, .file = file, .keep_going = true};
    run_source(&s, &src);
    session_free(&s);
    ag_graph_free();
    fclose(out);
    fclose(err);
    for (int k = 0; k < 2; k++) /* a last line without its '\n' */
        if (c.line[k].len > 0 || c.cut[k]) end_line(&c, k);
    for (int k = 0; k < 2; k++) strbuf_free(&c.line[k]);
    for (int i = c.next; i < want->count; i++, c.failures++)
        if (c.failures < MAX_REPORTED)
            printf("%s:%d: expected %s'%s', but nothing more was printed\n", path,
                   want->items[i].line, want->items[i].error ? "an error containing " : "",
                   want->items[i].text);
    return c.failures;
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
    ExpectList want = {0};
    int failures = 1;
    const char *why = expectations(f, &want);
    if (why) {
        printf("%s: cannot read it: %s\n", path, why);
    } else {
        rewind(f);
        failures = run_checked(path, f, &want);
        if (failures < 0) {
            printf("%s: cannot run it: %s\n", path, strerror(errno));
            failures = 1;
        } else if (failures == 0) {
            printf("%s: ok (%d expectation%s)\n", path, want.count, want.count == 1 ? "" : "s");
        } else {
            printf("%s: %d mismatch%s\n", path, failures, failures == 1 ? "" : "es");
        }
    }
    fclose(f);
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
