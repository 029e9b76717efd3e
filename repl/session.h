/*
 * session.h — the shell's state and its evaluator: values, the variable
 * table (insertion-ordered, holding references), user functions, the error
 * being reported, and the calls the driver makes to run statements.
 * The shell is a client of the engine: it includes only include/ag.h.
 */
#ifndef AG_SESSION_H
#define AG_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "ag.h"
#include "ast.h"
#include "interrupt.h"
#include "parse.h"

typedef enum {
    VAL_VOID,   /* a call that returns nothing (backward, seed) */
    VAL_NONE,   /* x.grad before any backward */
    VAL_TENSOR,
    VAL_SHAPE,  /* x.shape */
} ValueKind;

typedef struct {
    ValueKind kind;
    Tensor *tensor;             /* VAL_TENSOR: a reference the Value owns */
    int ndim;                   /* VAL_SHAPE */
    int64_t shape[AG_MAX_DIMS];
} Value;

void value_release(Value *v);

/* A user function f(x, w) = EXPR: its own copy of the source, parsed into
 * its own arena. */
typedef struct {
    char *source;
    AstArena arena;
    Stmt *def;
} UserFunc;

typedef struct {
    char *name;
    Value value;       /* a variable, or */
    UserFunc *func;    /* a function */
} Var;

enum {
    MAX_CALL_DEPTH = 100,     /* nested user-function calls */
    MAX_EVAL_DEPTH = 3000,    /* evaluator recursion, calls included */
    MAX_VARIABLES = 100000,
    ARENA_NOTE_FIRST = 1000,  /* Functions waiting for backward before the first note; x10 after */
    GRADCHECK_MAX_ELEMENTS = 100000, /* gradcheck perturbs elements one at a time */
};

typedef struct {
    Var *vars;                 /* in the order names were first bound */
    int num_vars, cap_vars;
    int *index;                /* open-addressing hash: slot -> var + 1, 0 empty */
    int index_cap;
    FILE *out, *err;
    bool interactive;
    bool accumulation_noted;   /* the one-time note about accumulating grads */
    int64_t arena_note_at;     /* Functions count that triggers the next arena note */
    int eval_depth, call_depth;
    /* the error being reported */
    char error[600];
    int error_line, error_col;
    bool error_in_function;    /* the message already names the function */
    bool quit;                 /* :quit was given */
    bool tracing;              /* :trace on */
    int isolated;              /* inside grad/gradcheck: variables read as constants */
    bool quiet_notes;          /* no arena notes (ag --check compares output) */
    bool allow_files;          /* :load and :dot FILE (off when fuzzing) */
    int64_t gradcheck_max_elements;
    /* parameters bound by the function call being evaluated (innermost) */
    const Stmt *frame_def;
    Value *frame_args;
} Session;

void session_init(Session *s, FILE *out, FILE *err, bool interactive);
void session_reset(Session *s); /* forget every variable and function */
void session_free(Session *s);

/* Sets the error at a node's position; is false, for `return session_fail(...)`.
 * (A macro, so the compiler sees the false on every failure path.) */
void session_set_error(Session *s, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define session_fail(...) (session_set_error(__VA_ARGS__), false)

Var *session_lookup(Session *s, const char *name, size_t length);
/* Binds name to v (taking its reference); false (error set) if the name is
 * a builtin or memory runs out. */
bool session_bind(Session *s, const char *name, size_t length, Value v, int line, int col);
bool session_define(Session *s, const Stmt *def);

/* Runs one parsed statement; false with the error set. */
bool session_exec(Session *s, const Stmt *stmt);
/* Evaluates an expression into *out (a new reference). */
bool session_eval(Session *s, const Node *n, Value *out);
/* Calls the function (user or builtin) named by fnode with tensor arguments
 * (borrowed); call is where messages point. */
bool session_call(Session *s, const Node *call, const Node *fnode, Tensor **args, int n,
                  Value *out);

/* Prints a value as a statement's result. */
void session_print_value(Session *s, const Value *v);
/* "PREFIXtensor(...)", continuation lines indented under the first. */
void session_print_named(Session *s, const char *prefix, const Tensor *t);
/* After a backward: NAME.grad = tensor(...) for each leaf variable whose
 * gradient is not `before[i]` (the gradients retained before it ran).
 * Returns how many it printed. */
int session_print_grads(Session *s, Tensor **before);
/* Prints the arena note when forward graphs have piled up past a threshold. */
void session_note_arena(Session *s);

/* The closest variable or builtin name to a misspelt one, or NULL. */
const char *session_suggest(Session *s, const char *name, size_t length);

#endif
