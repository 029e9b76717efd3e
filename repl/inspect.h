/*
 * inspect.h — :graph, :dot and :trace: the engine's graph and backward made
 * visible (inspect.c).
 */
#ifndef AG_INSPECT_H
#define AG_INSPECT_H

#include "session.h"

/* Numbers for Functions (#1, #2, ...) in the order they are first named. */
typedef struct Labels {
    const Function **fns;
    bool *shown;          /* :graph: the node's inputs are already listed */
    int count, cap;
} Labels;

int label_number(Labels *l, const Function *fn);
void labels_reset(Labels *l);
/* The first variable bound to t, or NULL. */
const char *session_name_of(Session *s, const Tensor *t);

/* :graph NAME */
void inspect_graph(Session *s, const Tensor *root, const char *name);
/* :dot NAME [FILE]: writes to f. */
void inspect_dot(Session *s, const Tensor *root, const char *name, FILE *f);
/* :trace on|off */
void inspect_trace(Session *s, bool on);

#endif
