/*
 * eval.h — the evaluator: runs statements (blocks, loops, conditionals,
 * function bodies) and evaluates expressions over the session's values.
 * Recursion follows the tree, whose height the parser bounds; calls and
 * evaluation depth are bounded here.
 */
#ifndef AG_EVAL_H
#define AG_EVAL_H

#include "session.h"

/* Runs one top-level statement; false with the session's error set. At the
 * top level an expression statement prints its value and backward prints
 * gradients; inside blocks neither does (s->quiet). */
bool eval_statement(Session *s, const Stmt *stmt);
/* Evaluates an expression into *out (which the caller then owns). */
bool eval_expression(Session *s, const Node *n, Value *out);

#endif
