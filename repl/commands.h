/*
 * commands.h — the shell commands (:help, :vars, :mem, :graph, :dot,
 * :trace, :load, :reset, :quit): one table, one line each.
 */
#ifndef AG_COMMANDS_H
#define AG_COMMANDS_H

#include <stdbool.h>

#include "session.h"

typedef struct {
    const char *name, *usage, *help;
} CommandInfo;

/* How :load runs a file (run.c's run_file): handed in, so that commands
 * need not include run.h. Returns 0 when the file ran, 1 when it failed
 * (its error reported), 2 when it could not be opened (the reason in the
 * session's error). */
typedef int (*LoadFn)(Session *s, const char *path);

/* Runs the :command of one line (":help sum", len bytes, which may hold a
 * NUL); false on an error, which it reports (FILE:LINE:1 for a script, or
 * "error: ..." at the terminal). */
bool command_run(Session *s, const char *line, size_t len, const char *source_name,
                 int source_line, bool interactive, LoadFn load);
/* The commands, for :help and completion. */
const CommandInfo *command_list(int *count);
/* The i-th name to complete (ctx: the Session): keywords, builtins,
 * variables, then the commands as ":name"; NULL past the last. The
 * command's text lives until the next call. */
const char *command_completion_name(void *ctx, int i);

#endif
