/*
 * kernel.c — ag --kernel: the shell behind a Jupyter kernel.
 *
 * Jupyter's wire protocol (ZeroMQ sockets, signed JSON messages) is left to
 * Python's ipykernel, in repl/jupyter/ag_kernel.py, which starts one
 * `ag --kernel` per notebook and talks to it over a pipe in frames: a line
 * "KIND LENGTH [ARGUMENT]" then LENGTH bytes.
 *
 * Requests, on stdin:
 *   execute LEN             a cell: run it
 *   complete LEN CURSOR     names that complete the word before byte CURSOR
 *   inspect LEN CURSOR      :help for the name at byte CURSOR
 * Answers, on stdout, in order, the last of each request "done":
 *   stdout LEN / stderr LEN text the cell printed, as it prints it (line by line)
 *   display LEN MIME        a picture (image/svg+xml): plot(...) in a notebook
 *   result LEN              the cell's value: its last statement's, as ag prints it
 *   error LEN               NAME NUL VALUE NUL REPORT: the error that stopped the cell
 *   matches LEN START END   completions (one a line) of the bytes START..END
 *   inspect LEN             the help text (empty: none)
 *   done LEN                "ok" or "error"
 * A malformed request ends the kernel (exit status 2): the stream after it
 * cannot be trusted.
 *
 * The cell's text reaches the pipe as it is printed: s->out and s->err are
 * stdio streams whose writes become frames (fopencookie, in glibc and
 * musl), so a training loop's lines arrive while it runs. Interrupt: Jupyter
 * sends SIGINT, which sets the flag the evaluator polls; the cell stops
 * with "interrupted" and the session stays.
 */
#define _GNU_SOURCE /* fopencookie */
#include "kernel.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "commands.h"
#include "interrupt.h"
#include "run.h"
#include "strbuf.h"

enum {
    MAX_HEADER = 128,     /* bytes in a frame's header line */
    MAX_MATCHES = 500,    /* completions sent for one word */
};

typedef struct {
    Session *s;
    FILE *proto;                /* the pipe to the Python side */
    StrBuf result;              /* the last top-level value, printed, not yet sent */
    bool has_result;
    uint64_t result_statement;  /* s->statements when it was shown */
    bool dialect_decided;       /* the first cell with code chose .ag or .py */
} Kernel;

/* ======================================================================
 * Frames
 * ====================================================================== */

static void send_frame(Kernel *k, const char *kind, const char *arg, const char *data, size_t len) {
    fprintf(k->proto, "%s %zu%s%s\n", kind, len, arg ? " " : "", arg ? arg : "");
    fwrite(data, 1, len, k->proto);
    fflush(k->proto);
}

static void send_text(Kernel *k, const char *kind, const char *text) {
    send_frame(k, kind, NULL, text, strlen(text));
}

/* A value shown before is not the cell's last word once anything else is
 * printed: in the .ag dialect it is printed as text where it came, as at
 * the prompt; in the .py dialect it is dropped, as IPython shows only the
 * last statement's value. */
static void settle_result(Kernel *k) {
    if (!k->has_result) return;
    k->has_result = false;
    if (!k->s->python) send_frame(k, "stdout", NULL, k->result.data, k->result.len);
}

static ssize_t write_stdout(void *cookie, const char *buf, size_t size) {
    Kernel *k = cookie;
    settle_result(k);
    send_frame(k, "stdout", NULL, buf, size);
    return (ssize_t)size;
}

static ssize_t write_stderr(void *cookie, const char *buf, size_t size) {
    send_frame(cookie, "stderr", NULL, buf, size);
    return (ssize_t)size;
}

/* ======================================================================
 * The session's hooks (session.h's DisplayFn and ShowResultFn)
 * ====================================================================== */

static void kernel_display(Session *s, const char *mime, const char *data, size_t len) {
    Kernel *k = s->notebook;
    fflush(s->out); /* the text printed before the picture goes first */
    fflush(s->err);
    settle_result(k);
    send_frame(k, "display", mime, data, len);
}

/* Holds the value of a cell's own statement (not a :load's or an
 * import's) until what comes next tells whether it is the cell's last. */
static bool kernel_show_result(Session *s, const Value *v) {
    Kernel *k = s->notebook;
    if (v->kind == VAL_VOID || s->source_name != run_cell_name || s->frame) return false;
    fflush(s->out);
    settle_result(k);
    k->result.len = 0;
    value_format(&k->result, v, &s->print, true);
    strbuf_append(&k->result, "\n");
    k->has_result = true;
    k->result_statement = s->statements;
    return true;
}

/* ======================================================================
 * execute
 * ====================================================================== */

/* "NameError: name 'x' is not defined" is a NameError in a .py cell;
 * ag's own messages are "Error"s; an interrupt is Python's KeyboardInterrupt. */
static void send_error(Kernel *k, const char *report, size_t report_len) {
    const char *message = k->s->error, *value = message;
    char name[64] = "Error";
    size_t n = strspn(message, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
    if (strcmp(message, "interrupted") == 0) {
        snprintf(name, sizeof name, "KeyboardInterrupt");
        value = "";
    } else if (k->s->python && n > 0 && n < sizeof name && strncmp(message + n, ": ", 2) == 0) {
        snprintf(name, sizeof name, "%.*s", (int)n, message);
        value = message + n + 2;
    }
    StrBuf part;
    strbuf_init(&part);
    strbuf_appendn(&part, name, strlen(name) + 1);
    strbuf_appendn(&part, value, strlen(value) + 1);
    strbuf_appendn(&part, report, report_len);
    send_frame(k, "error", NULL, part.data, part.len);
    strbuf_free(&part);
}

/* The first line of text that holds code (not blank, not a comment), or NULL. */
static char *first_code_line(char *text) {
    for (char *line = text; *line;) {
        const char *p = line + strspn(line, " \t\r");
        if (*p != '\n' && *p != '#' && *p != '\0') return line;
        char *next = strchr(line, '\n');
        if (!next) break;
        line = next + 1;
    }
    return NULL;
}

static bool starts_word(const char *line, const char *word) {
    size_t n = strlen(word);
    return strncmp(line, word, n) == 0 && (line[n] == ' ' || line[n] == '\t' || line[n] == '\n' ||
                                           line[n] == '\r' || line[n] == '\0');
}

/* IPython's own lines in a notebook written for it (%matplotlib inline,
 * !pip install ...: a % or ! at the margin, then a name or a command) are
 * neither Python nor ag: blanked (the line numbers kept), with a note. */
static void skip_ipython_lines(Kernel *k, char *code) {
    int number = 1;
    for (char *line = code; *line; number++) {
        size_t n = strcspn(line, "\n");
        bool magic = line[0] == '%' && (isalpha((unsigned char)line[1]) || line[1] == '%');
        bool shell = line[0] == '!' && line[1] != '=' && line[1] != '\0' && line[1] != '\n';
        if (magic || shell) {
            fprintf(k->s->err, "note: line %d, '%.*s%s', is IPython's: skipped\n", number,
                    (int)(n > 40 ? 40 : n), line, n > 40 ? "..." : "");
            memset(line, ' ', n);
        }
        if (!line[n]) break;
        line += n + 1;
    }
}

/* The dialect: a cell that starts with %python or %ag switches to it (the
 * line is then blanked); otherwise the first cell with code decides, .py
 * when it starts with import or from (a Python notebook), .ag otherwise. */
static void choose_dialect(Kernel *k, char *code) {
    char *line = first_code_line(code);
    if (!line) return;
    bool python = starts_word(line, "%python"), ag = starts_word(line, "%ag");
    if (python || ag) {
        session_set_python(k->s, python);
        memset(line, ' ', strcspn(line, "\n"));
    }
    skip_ipython_lines(k, code);
    line = first_code_line(code);
    if (!k->dialect_decided && !python && !ag && line)
        session_set_python(k->s, starts_word(line, "import") || starts_word(line, "from"));
    k->dialect_decided = k->dialect_decided || python || ag || line;
}

/* The value held last is the cell's result when nothing came after it:
 * in the .py dialect, when it is the last statement's. */
static void send_result(Kernel *k) {
    if (!k->has_result || (k->s->python && k->result_statement != k->s->statements)) {
        settle_result(k);
        return;
    }
    k->result.len -= k->result.len > 0 && k->result.data[k->result.len - 1] == '\n';
    send_frame(k, "result", NULL, k->result.data, k->result.len);
    k->has_result = false;
}

static void execute(Kernel *k, char *code, size_t len) {
    Session *s = k->s;
    choose_dialect(k, code);
    char *report = NULL;
    size_t report_len = 0;
    s->report_err = open_memstream(&report, &report_len);
    s->error[0] = '\0';
    k->has_result = false;
    session_interrupted = 0; /* one that came while the kernel waited is spent */
    bool ok = run_cell(s, code, len);
    session_interrupted = 0;
    fflush(s->out);
    fflush(s->err);
    if (s->report_err) fclose(s->report_err);
    s->report_err = NULL;
    if (s->quit) {
        s->quit = false;
        fputs("note: :quit does nothing in a notebook: restart or shut down the kernel\n", s->err);
        fflush(s->err);
    }
    if (ok) send_result(k);
    else settle_result(k);
    if (!ok) send_error(k, report ? report : "", report ? report_len : 0);
    free(report);
    send_text(k, "done", ok ? "ok" : "error");
}

/* ======================================================================
 * complete and inspect
 * ====================================================================== */

static bool is_name_byte(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Whether the names in sb (one a line) hold name already. */
static bool listed(const StrBuf *sb, const char *name) {
    size_t n = strlen(name);
    for (const char *p = sb->data; p < sb->data + sb->len; p = strchr(p, '\n') + 1)
        if (strncmp(p, name, n) == 0 && p[n] == '\n') return true;
    return false;
}

static void complete(Kernel *k, const char *code, size_t len, size_t cursor) {
    if (cursor > len) cursor = len;
    size_t start = cursor;
    while (start > 0 && is_name_byte(code[start - 1])) start--;
    if (start > 0 && code[start - 1] == ':') start--; /* a :command */
    StrBuf names;
    strbuf_init(&names);
    size_t n = cursor - start;
    int count = 0;
    for (int i = 0; count < MAX_MATCHES; i++) {
        const char *name = command_completion_name(k->s, i);
        if (!name) break;
        if (strncmp(name, "__", 2) == 0 || strncmp(name, code + start, n) != 0 || listed(&names, name))
            continue;
        strbuf_append(&names, name);
        strbuf_append(&names, "\n");
        count++;
    }
    char range[64];
    snprintf(range, sizeof range, "%zu %zu", start, cursor);
    send_frame(k, "matches", range, names.data, names.len);
    strbuf_free(&names);
    send_text(k, "done", "ok");
}

/* :help NAME for the name the cursor is on (or just after). */
static void inspect(Kernel *k, const char *code, size_t len, size_t cursor) {
    Session *s = k->s;
    if (cursor > len) cursor = len;
    size_t start = cursor, end = cursor;
    while (start > 0 && is_name_byte(code[start - 1])) start--;
    while (end < len && is_name_byte(code[end])) end++;
    bool colon = start > 0 && code[start - 1] == ':';
    char line[128];
    int n = snprintf(line, sizeof line, ":help %s%.*s", colon ? ":" : "", (int)(end - start),
                     code + start);
    char *help = NULL, *discarded = NULL;
    size_t help_len = 0, discarded_len = 0;
    FILE *out = s->out, *text = open_memstream(&help, &help_len);
    FILE *errors = open_memstream(&discarded, &discarded_len);
    bool ok = end > start && n < (int)sizeof line && text && errors;
    if (ok) {
        s->out = text;
        s->report_err = errors;
        ok = command_run(s, line, (size_t)n, "<inspect>", 1, true, NULL);
        s->out = out;
        s->report_err = NULL;
    }
    if (text) fclose(text);
    if (errors) fclose(errors);
    send_frame(k, "inspect", NULL, help ? help : "", ok && help ? help_len : 0);
    free(help);
    free(discarded);
    send_text(k, "done", "ok");
}

/* ======================================================================
 * The loop
 * ====================================================================== */

/* Reads one request: false at the end of stdin (*malformed: a request
 * that could not be read whole, reported on stderr). */
static bool read_request(char *kind, size_t *cursor, StrBuf *payload, bool *malformed) {
    char header[MAX_HEADER];
    *malformed = false;
    if (!fgets(header, sizeof header, stdin)) return false;
    unsigned long long len = 0, at = 0;
    int fields = sscanf(header, "%15s %llu %llu", kind, &len, &at);
    *malformed = fields < 2 || !strchr(header, '\n') || len > MAX_STATEMENT;
    header[strcspn(header, "\n")] = '\0';
    if (*malformed) {
        fprintf(stderr, "ag --kernel: malformed request header '%.60s'\n", header);
        return false;
    }
    *cursor = (size_t)at;
    payload->len = 0;
    char chunk[1 << 16];
    while (payload->len < len) {
        size_t want = len - payload->len > sizeof chunk ? sizeof chunk : len - payload->len;
        size_t got = fread(chunk, 1, want, stdin);
        if (got == 0) break;
        strbuf_appendn(payload, chunk, got);
    }
    *malformed = payload->len < len || payload->oom;
    if (*malformed) fprintf(stderr, "ag --kernel: a request ended early (%zu of %llu bytes)\n",
                            payload->len, len);
    return !*malformed;
}

int kernel_main(Session *s) {
    Kernel k = {.s = s, .proto = stdout};
    strbuf_init(&k.result);
    cookie_io_functions_t out_io = {.write = write_stdout}, err_io = {.write = write_stderr};
    FILE *out = fopencookie(&k, "w", out_io), *err = fopencookie(&k, "w", err_io);
    if (!out || !err) {
        fprintf(stderr, "ag --kernel: cannot make the output streams\n");
        return 2;
    }
    setvbuf(out, NULL, _IOLBF, 1 << 14);
    setvbuf(err, NULL, _IOLBF, 1 << 12);
    s->out = out;
    s->err = err;
    s->interactive = true; /* a cell is typed as at the prompt: its notes too */
    s->notebook = &k;
    s->display = kernel_display;
    s->show_result = kernel_show_result;
    session_catch_sigint(); /* Jupyter's interrupt */
    ag_set_interrupt_flag(&session_interrupted); /* stops backward between Functions */
    char kind[16];
    size_t cursor;
    bool malformed = false;
    StrBuf payload;
    strbuf_init(&payload);
    while (read_request(kind, &cursor, &payload, &malformed)) {
        if (strcmp(kind, "execute") == 0) execute(&k, payload.data, payload.len);
        else if (strcmp(kind, "complete") == 0) complete(&k, payload.data, payload.len, cursor);
        else if (strcmp(kind, "inspect") == 0) inspect(&k, payload.data, payload.len, cursor);
        else {
            fprintf(stderr, "ag --kernel: unknown request '%s'\n", kind);
            malformed = true;
            break;
        }
    }
    strbuf_free(&payload);
    strbuf_free(&k.result);
    s->out = stdout;
    s->err = stderr;
    s->display = NULL;
    s->show_result = NULL;
    fclose(out);
    fclose(err);
    return malformed ? 2 : 0;
}
