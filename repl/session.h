/*
 * session.h — the shell's state: the variable table (insertion-ordered,
 * holding references), user functions, the frames of function calls being
 * evaluated, print options, the error being reported, and the state the
 * commands keep (graph labels, :load depth). Everything a run of the shell
 * knows lives here, not in file statics. Evaluation is eval.c's.
 * The shell is a client of the engine: it includes only include/ag.h.
 */
#ifndef AG_SESSION_H
#define AG_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ag.h"
#include "ast.h"
#include "print.h"
#include "ptrmap.h"
#include "value.h"

/* A user function f(x, w) = EXPR or f(x, w) { ... }: its own copy of the
 * source, parsed into its own arena. */
typedef struct {
    char *source;
    AstArena arena;
    Stmt *def;
    int64_t bytes;     /* source and tree: counted against the memory limit */
    Value *defaults;   /* def f(x, y=2): each parameter's default, evaluated when the
                          def ran (VAL_VOID: none), or NULL */
    int num_defaults;
} UserFunc;

typedef struct {
    char *name;
    Value value;       /* a variable, or */
    UserFunc *func;    /* a function */
} Var;

/* The variables of one call of a user function: its parameters, then the
 * names its body binds, in order. Names point into the function's source. */
typedef struct {
    const char *name;
    size_t length;
    Value value;
} Local;

typedef struct Frame {
    const UserFunc *func;
    Local *locals;
    int num_locals, cap_locals;
    Value result;          /* what return gave */
    Node *const *globals;  /* the names a global statement made global here */
    int num_globals;
    struct Frame *caller;
} Frame;

/* Numbers for Functions (#1, #2, ...) in the order :graph, :dot and
 * :trace first name them; they start afresh when the graph is freed. */
typedef struct {
    PtrMap numbers;       /* Function -> its number */
    bool *shown;          /* by number - 1: the node is already listed */
    int count, cap;
    uint64_t generation;  /* the graph they number (ag_stats().generation) */
} Labels;

enum {
    MAX_CALL_DEPTH = 100,     /* nested user-function calls */
    MAX_EVAL_DEPTH = 3000,    /* evaluator recursion, calls included */
    MAX_VARIABLES = 100000,
    MAX_LOAD_DEPTH = 16,      /* :load inside :load */
    ARENA_NOTE_FIRST = 1000,  /* Functions waiting for backward before the first note; x10 after */
    GRADCHECK_MAX_ELEMENTS = 100000, /* gradcheck perturbs elements one at a time */
};

typedef struct Session {
    Var *vars;                 /* in the order names were first bound */
    int num_vars, cap_vars;
    int *index;                /* open-addressing hash: slot -> var + 1, 0 empty */
    int index_cap;
    uint32_t generation;       /* changes when the table is emptied (eval.c's caches) */
    FILE *out, *err;
    bool interactive;
    bool python;               /* the .py dialect: a .py file, or --python (run.c sets it) */
    PrintOptions print;        /* set_printoptions */
    /* notes shown once */
    bool accumulation_noted, import_noted;
    int64_t arena_note_at;     /* Functions count that triggers the next arena note */
    /* evaluation */
    int eval_depth, call_depth;
    int quiet;                 /* inside a block: results and gradients are not printed */
    Frame *frame;              /* the innermost user-function call, or NULL */
    int isolated;              /* inside grad/gradcheck: variables read as constants */
    /* the error being reported */
    char error[600];
    int error_line, error_col;
    bool error_in_function;    /* the message already names the function */
    bool quit;                 /* :quit was given */
    /* commands */
    bool tracing;              /* :trace on */
    Labels labels;             /* :graph and :dot's node numbers */
    int load_depth;            /* :load inside :load */
    bool quiet_notes;          /* no arena notes (ag --check compares output) */
    bool allow_files;          /* :load, :dot FILE, load_csv... (off when fuzzing) */
    int64_t gradcheck_max_elements;
    int64_t max_steps;         /* loop iterations and user-function calls a run may make
                                  before every further one fails; 0: no bound (the fuzzer
                                  sets one: while True { } and f(n) = f(n-1) + f(n-1) end) */
    int64_t steps;             /* loop iterations and calls made so far */
} Session;

void session_init(Session *s, FILE *out, FILE *err, bool interactive);
void session_reset(Session *s); /* forget every variable and function */
void session_free(Session *s);

/* Sets the error at a position; is false, for `return session_fail(...)`.
 * (A macro, so the compiler sees the false on every failure path.) */
void session_set_error(Session *s, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define session_fail(...) (session_set_error(__VA_ARGS__), false)

/* The global variable or function named so, or NULL. */
Var *session_lookup(Session *s, const char *name, size_t length);
/* The index of a global in s->vars (for caches), or -1. */
int session_var_index(Session *s, const Var *v);
/* Binds a global name to v (taking its reference); false (error set at
 * line:col) when memory or the variable table runs out. */
bool session_bind(Session *s, const char *name, size_t length, Value v, int line, int col);
/* Defines (or redefines) a global function from its parsed statement;
 * defaults (def->num_params of them, taken; VAL_VOID where none) or NULL. */
bool session_define(Session *s, const Stmt *def, Value *defaults);
/* Switches the .py dialect on or off (the print options follow). */
void session_set_python(Session *s, bool python);

/* The local named so in the innermost frame, or NULL. */
Local *frame_lookup(Frame *f, const char *name, size_t length);
/* Binds a local of frame f (taking v's reference). */
bool frame_bind(Session *s, Frame *f, const char *name, size_t length, Value v, int line, int col);
void frame_free(Frame *f);

/* Prints a value as a statement's result (nothing for VAL_VOID). */
void session_print_value(Session *s, const Value *v);
/* "PREFIXtensor(...)", continuation lines indented under the first. */
void session_print_named(Session *s, const char *prefix, const Tensor *t);
/* After a backward: NAME.grad = tensor(...) for each leaf variable whose
 * gradient is not `before[i]` (the gradients retained before it ran).
 * Returns how many it printed. */
int session_print_grads(Session *s, Tensor **before);
/* Prints the arena note when forward graphs have piled up past a threshold. */
void session_note_arena(Session *s);

/* The closest of the variables and the given names to a misspelt one, or
 * NULL. names: NULL-terminated, or NULL. */
const char *session_suggest(Session *s, const char *name, size_t length,
                            const char *const *names, int num_names);

#endif
