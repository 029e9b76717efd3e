/*
 * lineedit.h — reading lines at a terminal: GNU readline (line editing,
 * history kept in ~/.ag_history, tab completion) when built with it
 * (-DAG_READLINE), a plain reader otherwise. The four calls are all the
 * shell knows of either (lua.c's lua_readline/lua_saveline pattern).
 */
#ifndef AG_LINEEDIT_H
#define AG_LINEEDIT_H

#include <stdbool.h>

/* Names to complete: returns the i-th candidate (any order), NULL past the
 * last. Called with i = 0, 1, 2, ... for each completion. */
typedef const char *(*CompletionSource)(void *ctx, int i);

/* Loads history and sets up completion (a no-op without readline). */
void lineedit_init(CompletionSource names, void *ctx);
/* Shows prompt and reads one line (without its newline) into a new buffer
 * the caller frees. NULL at end of input (Ctrl-D). Ctrl-C abandons the line:
 * it returns an empty line and sets *interrupted. */
char *lineedit_read(const char *prompt, bool *interrupted);
/* Adds a whole statement (perhaps several lines) to the history. */
void lineedit_save(const char *entry);
/* Writes the history back. */
void lineedit_close(void);
/* "readline" or "plain": what this build uses. */
const char *lineedit_kind(void);

#endif
