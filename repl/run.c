/*
 * run.c — the read-run loop shared by scripts, -e, :load and the terminal:
 * read a line, join lines until the statement is complete (the parser
 * says; past a few lines the bracket and brace depth decides, so that a
 * long block is read in linear time), run the statements one at a time,
 * report the first error.
 */
#include "run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "eval.h"
#include "files.h"
#include "interrupt.h"
#include "lineedit.h"
#include "parse.h"
#include "strbuf.h"

/* A statement is re-parsed at each new line (so that a syntax error inside
 * an open bracket or block shows at once) while it is this short; beyond,
 * the depth of its brackets decides when to parse it. */
enum { REPARSE_LINES = 100, REPARSE_BYTES = 64 << 10 };

/* ======================================================================
 * Reading lines
 * ====================================================================== */

typedef enum { LINE_OK, LINE_EOF, LINE_INTERRUPTED, LINE_TOO_LONG, LINE_READ_ERROR } LineStatus;

/* Reads one line (without '\n') from a file; NUL bytes are kept (and
 * rejected later by the scanner). A line past MAX_LINE stops the reading
 * there (a file with no newline, like /dev/zero, must not run forever). */
static LineStatus file_line(FILE *f, StrBuf *line) {
    char chunk[4096];
    size_t n = 0;
    int c;
    bool any = false;
    while ((c = getc(f)) != EOF) {
        any = true;
        if (c == '\n') break;
        if (line->len + n >= MAX_LINE) return LINE_TOO_LONG;
        chunk[n++] = (char)c;
        if (n == sizeof chunk) {
            strbuf_appendn(line, chunk, n);
            n = 0;
        }
    }
    strbuf_appendn(line, chunk, n);
    if (c == EOF && ferror(f)) return LINE_READ_ERROR;
    return any ? LINE_OK : LINE_EOF;
}

static LineStatus text_line(Source *src, StrBuf *line) {
    if (src->text_pos >= src->text_len) return LINE_EOF;
    const char *start = src->text + src->text_pos;
    const char *nl = memchr(start, '\n', src->text_len - src->text_pos);
    size_t n = nl ? (size_t)(nl - start) : src->text_len - src->text_pos;
    src->text_pos += n + (nl ? 1 : 0);
    if (n > MAX_LINE) return LINE_TOO_LONG;
    strbuf_appendn(line, start, n);
    return LINE_OK;
}

static LineStatus terminal_line(const char *prompt, StrBuf *line) {
    bool interrupted = false;
    char *text = lineedit_read(prompt, &interrupted);
    if (!text) return LINE_EOF;
    strbuf_append(line, text);
    free(text);
    return interrupted ? LINE_INTERRUPTED : LINE_OK;
}

static LineStatus read_line(Source *src, const char *prompt, StrBuf *line) {
    line->len = 0;
    line->data[0] = '\0';
    LineStatus st = src->interactive ? terminal_line(prompt, line)
                    : src->file      ? file_line(src->file, line)
                                     : text_line(src, line);
    if (st != LINE_EOF) src->line++;
    if (line->oom) return LINE_TOO_LONG;
    return st;
}

/* ======================================================================
 * Reporting
 * ====================================================================== */

/* The text of line `line` of chunk (which starts at first_line). */
static const char *chunk_line(const char *chunk, int first_line, int line, size_t *len) {
    const char *p = chunk;
    for (int l = first_line; l < line && p; l++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p) p = "";
    const char *end = strchr(p, '\n');
    *len = end ? (size_t)(end - p) : strlen(p);
    return p;
}

/* Prints the session's error: FILE:LINE:COL for a script; the line and a
 * caret under the column at the terminal. */
static void report(Session *s, const Source *src, const char *chunk, int first_line) {
    size_t len = 0;
    bool caret = src->interactive || src->show_line;
    const char *text = chunk && caret ? chunk_line(chunk, first_line, s->error_line, &len)
                                                 : NULL;
    session_report(s, src->name, caret, text, len);
}

/* ======================================================================
 * Running
 * ====================================================================== */

/* A syntax error at the end of the input (the line after the final
 * newline, where nothing is written) is reported at the end of the last
 * line, as Python does: a one-line file says line 1, not 2. */
static void clamp_to_text(const char *text, size_t len, int first_line, int *line, int *col) {
    if (len == 0 || text[len - 1] != '\n') return;
    int last = first_line;
    for (size_t i = 0; i + 1 < len; i++) last += text[i] == '\n';
    if (*line <= last) return;
    size_t start = len - 1;
    while (start > 0 && text[start - 1] != '\n') start--;
    *line = last;
    *col = (int)(len - 1 - start) + 1;
}

/* Runs the statements of a complete chunk, one at a time; each statement's
 * tree is freed once it has run, so a long line of statements runs in the
 * memory of one. */
static bool run_chunk(Session *s, const Source *src, const char *chunk, size_t len,
                      int first_line) {
    AstArena arena = {0};
    Parser p;
    parser_init_mode(&p, chunk, len, first_line, &arena, s->python, true);
    /* The Ctrl-C flag is not cleared here: one typed after the line was
     * entered, before the statement starts, must stop it (lineedit_read
     * clears it before each prompt). */
    bool ok = true;
    const char *outer_name = s->source_name; /* :load and import run a chunk inside one */
    s->source_name = src->name;
    for (;;) {
        Stmt *stmt;
        uint64_t mark = ag_graph_mark();
        ParseStatus st = parse_statement(&p, &stmt);
        if (st == PARSE_END) break;
        s->statements++;
        if (st != PARSE_OK) {
            snprintf(s->error, sizeof s->error, "%s", p.error);
            s->error_line = p.error_line;
            s->error_col = p.error_col;
            clamp_to_text(chunk, len, first_line, &s->error_line, &s->error_col);
            ok = false;
        } else {
            ok = eval_statement(s, stmt);
        }
        /* What a failed statement recorded and dropped goes now, not at the
         * next backward (a loop's earlier iterations keep what they bound). */
        if (!ok) ag_graph_release_dead(mark);
        ast_arena_free(&arena);
        p.arena = &arena;
        if (!ok || s->quit) break;
    }
    s->source_name = outer_name;
    if (!ok && s->python && session_system_exit(s)) ok = true; /* sys.exit(): the run ends */
    if (!ok) report(s, src, chunk, first_line);
    parser_free(&p);
    ast_arena_free(&arena);
    return ok;
}

/* A line that is a :command (first non-blank byte ':'). */
static const char *command_text(const char *line) {
    while (*line == ' ') line++;
    return *line == ':' ? line : NULL;
}

/* Reports a source-level error (not tied to a statement) at the current line. */
static bool source_error(Session *s, const Source *src, const char *message) {
    session_set_error(s, src->line, 1, "%s", message);
    report(s, src, NULL, 0);
    return false;
}

static int load_file(Session *s, const char *path) {
    RunStatus st = run_file(s, path);
    return st == RUN_OK ? 0 : st == RUN_FAILED ? 1 : 2;
}

static bool is_blank(const char *line) {
    while (*line == ' ' || *line == '\t' || *line == '\r' || *line == '\f') line++;
    return *line == '\0' || *line == '#';
}

/* Whether a line continues an if or a loop whose indented block came
 * before it (else:, elif ...:), so it joins that statement. */
static bool continues_block(const char *line) {
    static const char *const words[] = {"else", "elif", "except", "finally"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i]);
        if (strncmp(line, words[i], n) == 0 && (line[n] == ':' || line[n] == ' ')) return true;
    }
    return false;
}

/* Runs the statement gathered so far (with its history entry at the
 * terminal); *ok false on an error that stops the source. */
static void run_gathered(Session *s, Source *src, StrBuf *chunk, int first_line, bool *ok) {
    if (src->interactive) {
        chunk->data[chunk->len - 1] = '\0'; /* history without the last newline */
        lineedit_save(chunk->data);
        chunk->data[chunk->len - 1] = '\n';
    }
    *ok = run_chunk(s, src, chunk->data, chunk->len, first_line) || src->interactive ||
          src->keep_going;
    chunk->len = 0;
}

/* An indented block (Python's) ends where a line is no longer indented:
 * at the prompt, a blank line, as in Python's REPL; in a script, the next
 * line that starts at the margin (unless it is an else or elif). The
 * statement gathered so far then runs first, if that completes it. */
static bool block_ended(Session *s, const Source *src, const StrBuf *line, const StrBuf *chunk,
                        int depth) {
    if (!chunk->len || depth > 0) return false;
    bool blank = is_blank(line->data);
    if (src->interactive ? !blank
                         : blank || line->data[0] == ' ' || line->data[0] == '\t' ||
                               continues_block(line->data))
        return false;
    return parse_check_complete(chunk->data, chunk->len, s->python, true) != PARSE_INCOMPLETE;
}

/* Adds a line to the statement being gathered in chunk, and runs it when
 * it is complete (or runs the line as a command); *ok false on an error
 * that stops the source. */
static void run_line(Session *s, Source *src, StrBuf *line, StrBuf *chunk, int *first_line,
                     int *lines, int *depth, bool *ok) {
    if (block_ended(s, src, line, chunk, *depth)) {
        run_gathered(s, src, chunk, *first_line, ok);
        if (!*ok || s->quit || src->interactive) return; /* the blank line is done with */
    }
    if (!chunk->len) {
        const char *command = command_text(line->data);
        if (command) {
            if (src->interactive) lineedit_save(line->data);
            size_t len = line->len - (size_t)(command - line->data);
            *ok = command_run(s, command, len, src->name, src->line,
                              src->interactive || src->show_line, load_file) ||
                  src->interactive || src->keep_going;
            return;
        }
        *first_line = src->interactive ? 1 : src->line;
        *lines = *depth = 0;
    }
    strbuf_appendn(chunk, line->data, line->len);
    strbuf_append(chunk, "\n");
    (*lines)++;
    *depth = scan_depth(line->data, line->len, *depth);
    if (chunk->len > MAX_STATEMENT || chunk->oom) {
        *ok = source_error(s, src, "statement too long (more than 16 MiB; is a bracket "
                           "never closed?)") || src->interactive;
        chunk->len = 0;
        return;
    }
    /* While short, the parser decides at every line (a syntax error inside
     * an open bracket shows at once); past that, only when every bracket
     * and block has closed. */
    bool short_chunk = *lines <= REPARSE_LINES && chunk->len <= REPARSE_BYTES;
    /* an indented line of a long indented block cannot complete it */
    bool inside_block = *lines > 1 && (line->data[0] == ' ' || line->data[0] == '\t');
    /* an entry recalled from history holds its whole block: it is complete
     * without the blank line that ended it when it was typed */
    bool recalled = src->interactive && memchr(line->data, '\n', line->len) != NULL;
    if ((!short_chunk && (*depth > 0 || inside_block)) ||
        parse_check_complete(chunk->data, chunk->len, s->python, recalled) == PARSE_INCOMPLETE)
        return;
    run_gathered(s, src, chunk, *first_line, ok);
}

bool run_source(Session *s, Source *src) {
    StrBuf line, chunk;
    strbuf_init(&line);
    strbuf_init(&chunk);
    int first_line = 0, lines = 0, depth = 0;
    bool ok = true;
    while (ok && !s->quit) {
        LineStatus st = read_line(src, chunk.len ? "...> " : "ag> ", &line);
        if (st == LINE_EOF) {
            /* An unfinished statement: run what is there, so the statements
             * before it run and the parser names what is open. */
            if (chunk.len && !src->interactive)
                ok = run_chunk(s, src, chunk.data, chunk.len, first_line);
            break;
        }
        if (st == LINE_INTERRUPTED) { /* Ctrl-C: abandon what was typed */
            chunk.len = 0;
            continue;
        }
        if (st == LINE_TOO_LONG || st == LINE_READ_ERROR) {
            char message[200];
            if (st == LINE_TOO_LONG) snprintf(message, sizeof message, "line too long (more than 16 MiB)");
            else snprintf(message, sizeof message, "cannot read %s: %s", src->name, strerror(errno));
            ok = source_error(s, src, message);
            break; /* the rest of this source cannot be trusted */
        }
        run_line(s, src, &line, &chunk, &first_line, &lines, &depth, &ok);
    }
    strbuf_free(&line);
    strbuf_free(&chunk);
    return ok;
}

FILE *run_open(Session *s, const char *path) {
    FILE *f = files_open_read(path); /* a FIFO waits for its writer, until Ctrl-C */
    struct stat st;
    if (!f) {
        if (errno == EINTR)
            session_set_error(s, 0, 0, "interrupted while waiting for a writer to '%s'", path);
        else
            session_set_error(s, 0, 0, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        session_set_error(s, 0, 0, "cannot run '%s': it is a directory", path);
        return NULL;
    }
    return f;
}

/* Reads the whole of f (at most MAX_STATEMENT bytes) into text; false,
 * with the reason in the session's error, when it cannot. */
static bool read_whole(Session *s, FILE *f, const char *name, StrBuf *text) {
    char chunk[1 << 16];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (text->len + n > MAX_STATEMENT)
            return session_fail(s, 1, 1, "%s is too long (more than 16 MiB)", name);
        strbuf_appendn(text, chunk, n);
        if (text->oom) return session_fail(s, 1, 1, "out of memory reading %s", name);
    }
    if (ferror(f)) return session_fail(s, 1, 1, "cannot read %s: %s", name, strerror(errno));
    return true;
}

/* Whether text parses whole as Python; if not, the error is set (in
 * Python's words) for the caller to report. */
static bool python_compiles(Session *s, const char *text, size_t len) {
    AstArena arena = {0};
    Parser p;
    parser_init_mode(&p, text, len, 1, &arena, true, true);
    Stmt *stmt;
    ParseStatus st;
    while ((st = parse_statement(&p, &stmt)) == PARSE_OK) ast_arena_free(&arena);
    if (st != PARSE_END) {
        /* Python names every error here; ag's own messages say what is wrong */
        bool named = strstr(p.error, "Error: ") != NULL;
        int line = p.error_line, col = p.error_col;
        clamp_to_text(text, len, 1, &line, &col);
        session_set_error(s, line, col, "%s%s", named ? "" : "SyntaxError: ", p.error);
    }
    parser_free(&p);
    ast_arena_free(&arena);
    return st == PARSE_END;
}

/* A .py file runs as Python runs a script: compiled whole first, so a
 * syntax error anywhere stops it before any of it runs; then its
 * statements run one at a time. */
static bool run_python(Session *s, FILE *f, const char *name) {
    StrBuf text;
    strbuf_init(&text);
    Source src = {.name = name};
    bool ok = read_whole(s, f, name, &text) && python_compiles(s, text.data, text.len);
    if (ok) ok = run_chunk(s, &src, text.data, text.len, 1);
    else report(s, &src, NULL, 0);
    strbuf_free(&text);
    return ok;
}

/* A copy of a cell with its :command lines blank (the line numbers kept),
 * for the parser to check the rest. */
static void without_commands(const char *text, size_t len, StrBuf *out) {
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) + 1 : len - at;
        size_t first = at;
        while (first < at + n && text[first] == ' ') first++; /* as command_text */
        if (first == at + n || text[first] != ':') strbuf_appendn(out, text + at, n);
        else if (nl) strbuf_append(out, "\n");
        at += n;
    }
}

const char run_cell_name[] = "<cell>";

bool run_cell(Session *s, const char *text, size_t len) {
    Source src = {.name = run_cell_name, .text = text, .text_len = len, .show_line = true};
    if (s->python) {
        StrBuf code;
        strbuf_init(&code);
        without_commands(text, len, &code);
        bool ok = !code.oom && python_compiles(s, code.data, code.len);
        if (code.oom) session_set_error(s, 1, 1, "out of memory reading the cell");
        if (!ok) {
            size_t n;
            const char *line = chunk_line(text, 1, s->error_line, &n);
            session_report(s, src.name, true, line, n);
        }
        strbuf_free(&code);
        if (!ok) return false;
    }
    return run_source(s, &src);
}

static bool is_python_name(const char *path) {
    size_t n = strlen(path);
    return n > 3 && strcmp(path + n - 3, ".py") == 0;
}

RunStatus run_file(Session *s, const char *path) {
    bool from_stdin = strcmp(path, "-") == 0;
    FILE *f = from_stdin ? stdin : run_open(s, path);
    if (!f) return RUN_CANNOT_OPEN;
    Source src = {.name = from_stdin ? "<stdin>" : path, .file = f};
    bool was_python = s->python, ok;
    if (is_python_name(path)) {
        char saved[sizeof s->script_dir];
        memcpy(saved, s->script_dir, sizeof saved);
        const char *slash = strrchr(path, '/');
        size_t n = slash ? (size_t)(slash - path) + (slash == path) : 0;
        if (n < sizeof s->script_dir) memcpy(s->script_dir, path, n), s->script_dir[n] = '\0';
        session_set_python(s, true);
        ok = run_python(s, f, path);
        memcpy(s->script_dir, saved, sizeof saved);
    } else {
        ok = run_source(s, &src);
    }
    session_set_python(s, was_python);
    if (f != stdin) fclose(f);
    return ok ? RUN_OK : RUN_FAILED;
}
