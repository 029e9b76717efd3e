/*
 * inspect.h — :graph, :dot and :trace: the engine's graph and backward made
 * visible (inspect.c). Functions are numbered (#1, #2, ...) in the order
 * they are first shown, the same numbers in all three (s->labels).
 */
#ifndef AG_INSPECT_H
#define AG_INSPECT_H

#include "session.h"

/* :graph NAME */
void inspect_graph(Session *s, const Tensor *root, const char *name);
/* :dot NAME [FILE]: writes to f; false (error set) when interrupted or out
 * of memory, the file still a whole DOT graph. */
bool inspect_dot(Session *s, const Tensor *root, const char *name, FILE *f);
/* :trace on|off */
void inspect_trace(Session *s, bool on);

#endif
