/*
 * builtins.h — the table of builtin functions: each one's name, argument
 * counts, signature and help (shown by :help), and implementation.
 */
#ifndef AG_BUILTINS_H
#define AG_BUILTINS_H

#include "session.h"

typedef struct {
    const Node *call;  /* the call, for positions and argument nodes */
    Value *args;       /* evaluated arguments, the `grad` flag removed */
    int n;
    bool grad;         /* a creation builtin was given a trailing bare `grad` */
} CallArgs;

typedef bool (*BuiltinFn)(Session *s, const CallArgs *a, Value *out);

typedef struct {
    const char *name;
    int min_args, max_args; /* max -1: any number */
    bool creation;          /* accepts a trailing bare `grad` */
    bool no_value;          /* returns nothing (backward, seed, zero_grad) */
    const char *signature;  /* "sum(x[, axis])" */
    const char *help;       /* what it does, in one short line */
    const char *details;    /* more for :help NAME, or NULL (an op's derivative
                               rule comes from the engine: ag_op_rule) */
    BuiltinFn fn;
    bool function_first;    /* the first argument names a function: not evaluated */
} Builtin;

const Builtin *builtin_find(const char *name, size_t length);

/* grad(f, ...) and gradcheck(f, ...) (gradcheck.c). */
bool builtin_grad(Session *s, const CallArgs *a, Value *out);
bool builtin_gradcheck(Session *s, const CallArgs *a, Value *out);
const Builtin *builtin_list(int *count);

#endif
