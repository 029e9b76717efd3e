/*
 * run.h — running a source of statements: reading lines (from a file, a
 * string or the terminal), joining continuation lines while a bracket is
 * open, dispatching :commands, executing statements one at a time and
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
    MAX_LOAD_DEPTH = 16,       /* :load inside :load */
};

typedef struct {
    const char *name;     /* for messages: the file, "<stdin>" or "<-e>" */
    FILE *file;           /* or NULL when reading text */
    const char *text;     /* -e TEXT */
    size_t text_len, text_pos;
    bool interactive;     /* prompts, line editing, errors do not stop it */
    int line;             /* lines read so far */
    bool keep_going;      /* errors are reported as in a script, but do not stop it */
} Source;

/* Runs src to its end. Returns false at the first error of a
 * non-interactive source (reported as FILE:LINE:COL: error: MESSAGE). */
bool run_source(Session *s, Source *src);
typedef enum { RUN_OK, RUN_FAILED, RUN_CANNOT_OPEN } RunStatus;
/* Runs a file by name ("-": stdin), for :load and ./ag FILE. RUN_FAILED:
 * its error was reported; RUN_CANNOT_OPEN: nothing ran and the reason is
 * the session's error, for the caller to report. */
RunStatus run_file(Session *s, const char *path);

/* The :command of one line (":help sum"); false on an error (reported). */
bool command_run(Session *s, Source *src, const char *line);

/* ag --check FILE...: runs each file, matching what it prints against its
 * "# expect: TEXT" and "# expect error: TEXT" lines; reports each mismatch.
 * Returns the exit status: 0 when every expectation holds, else 1. */
int check_files(int count, char **paths);

#endif
