/*
 * run.h — running a source of statements: reading lines (from a file, a
 * string or the terminal), joining them until the parser says a statement
 * is complete, dispatching :commands, running statements one at a time and
 * reporting the first error.
 */
#ifndef AG_RUN_H
#define AG_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "session.h"

enum {
    MAX_LINE = 16 << 20,       /* bytes in one line */
    MAX_STATEMENT = 16 << 20,  /* bytes in one statement (continuation lines joined) */
};

typedef struct {
    const char *name;     /* for messages: the file, "<stdin>" or "<-e>" */
    FILE *file;           /* or NULL when reading text */
    const char *text;     /* -e TEXT */
    size_t text_len, text_pos;
    bool interactive;     /* prompts, line editing, errors do not stop it */
    int line;             /* lines read so far */
    bool keep_going;      /* errors are reported as in a script, but do not stop it */
    bool show_line;       /* errors show the line and a caret, as at the prompt (a cell) */
} Source;

/* Runs src to its end. Returns false at the first error of a
 * non-interactive source (reported as FILE:LINE:COL: error: MESSAGE). */
bool run_source(Session *s, Source *src);

/* Runs a notebook cell (ag --kernel): read as a script (an indented block
 * ends where the indentation does; :commands work on lines of their own),
 * stopping at the first error, reported as at the prompt. In the .py
 * dialect the whole cell is parsed first, as Python compiles it, so a
 * syntax error anywhere runs none of it. */
bool run_cell(Session *s, const char *text, size_t len);
/* The name run_cell gives its source ("<cell>"): s->source_name is this
 * pointer while a cell's own statements run (not a :load's or import's). */
extern const char run_cell_name[];

typedef enum { RUN_OK, RUN_FAILED, RUN_CANNOT_OPEN } RunStatus;
/* Runs a file by name ("-": stdin), for :load and ./ag FILE. RUN_FAILED:
 * its error was reported; RUN_CANNOT_OPEN: nothing ran and the reason is
 * the session's error, for the caller to report. */
RunStatus run_file(Session *s, const char *path);
/* Opens path for reading as a script: a FILE, or NULL with the reason in
 * the session's error (a directory is refused here, not read as empty). */
FILE *run_open(Session *s, const char *path);

#endif
