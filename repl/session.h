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

/* A global: a name and its value (functions are values too). */
typedef struct {
    char *name;
    Value value;
} Var;

/* A call of a function being run: its variables (env, which closures made
 * during the call share) and what return gave. */
typedef struct Frame {
    UserFunc *func;
    Env *env;
    Value result;          /* what return gave */
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
    MAX_CALL_DEPTH = 100,     /* nested user-function calls (.ag) */
    MAX_PY_CALL_DEPTH = 1000, /* and in a .py file: Python's recursion limit */
    MAX_EVAL_DEPTH = 20000,   /* evaluator recursion, calls included, on an 8 MiB stack
                                 (more on a larger one: Session.max_eval_depth; the
                                 stack's budget stops it first where frames are large) */
    MAX_VARIABLES = 100000,
    MAX_LOAD_DEPTH = 16,      /* :load inside :load */
    ARENA_NOTE_FIRST = 1000,  /* Functions waiting for backward before the first note; x10 after */
    GRADCHECK_MAX_ELEMENTS = 100000, /* gradcheck perturbs elements one at a time */
};

/* Python's random module's generator: CPython's Mersenne Twister state
 * (builtins_modules.c), seeded from the clock at its first use unless
 * random.seed seeded it. */
typedef struct {
    uint32_t mt[624];
    int index;
    bool gauss_has;            /* gauss's second number, kept for its next call */
    double gauss_next;
    bool seeded;
} PyRandom;

typedef struct Session Session;
/* Rich output for a notebook (ag --kernel, repl/kernel.c): shows len bytes
 * of data of a MIME type ("image/svg+xml") in place, after the text
 * printed before it. The contract for every builtin and command that makes
 * a picture: when s->display is set, hand the picture to session_display
 * instead of printing text or writing a file; when NULL (the terminal, a
 * script), do what it does there. */
typedef void (*DisplayFn)(Session *s, const char *mime, const char *data, size_t len);
/* A statement's value to show (an expression statement's, at the top
 * level): ag --kernel takes those of a notebook cell's own statements
 * (the last is the cell's result) and returns true; false, or a NULL
 * hook: printed as usual. */
typedef bool (*ShowResultFn)(Session *s, const Value *v);
/* A Python hook the engine holds on a tensor (builtins_values.c's
 * register_hook), on its session's list: the engine's reference to the
 * hook's function is no container's, so a cycle through it (a tensor whose
 * hook holds the tensor) is not the collector's to find, and session_free
 * takes every hook off before its last collection. */
typedef struct SessionHook {
    struct SessionHook *prev, *next;
    Tensor *tensor;            /* borrowed: the hook goes when the tensor does */
    int handle;
} SessionHook;
/* Puts h on s's list, and takes it off (from any list, or none: h->prev
 * and h->next pointing at h). */
void session_hook_link(Session *s, SessionHook *h);
void session_hook_unlink(SessionHook *h);
/* Calls a function value (a UserFunc or a builtin) with args (n, borrowed):
 * the evaluator's, handed to builtins (sorted's key, max's key). */
typedef bool (*CallValueFn)(Session *s, int line, int col, const Value *fn, const Value *args,
                            int n, Value *out);
/* module.NAME as the evaluator finds it (a submodule, a constant, a
 * function, a class of a module written in Python, loaded on first use:
 * torch.autograd's _RemovableHandle); false with the error set at
 * line:col, or, where missing is not NULL and the module has no such
 * name, false with *missing set and no error (getattr's default). */
typedef bool (*ModuleValueFn)(Session *s, int line, int col, const char *module, const char *name,
                              size_t length, Value *out, bool *missing);
/* obj.NAME of an object or class as the evaluator finds it (properties,
 * __getattr__); false with the error set (AttributeError where it has
 * none). */
typedef bool (*AttrValueFn)(Session *s, int line, int col, const Value *obj, const char *name,
                            size_t length, Value *out);
/* a OP b as the evaluator does it (sum's additions); false with the error set at line:col. */
typedef bool (*BinaryFn)(Session *s, int line, int col, TokenType op, const Value *a,
                         const Value *b, Value *out);

struct Session {
    Var *vars;                 /* in the order names were first bound */
    int num_vars, cap_vars;
    int *index;                /* open-addressing hash: slot -> var + 1, 0 empty */
    int index_cap;
    uint32_t generation;       /* changes when the table is emptied (eval.c's caches) */
    FILE *out, *err;
    bool interactive;
    bool python;               /* the .py dialect: a .py file, or --python (run.c sets it) */
    char script_dir[512];      /* where `import engine` finds engine.py: the running .py
                                  file's folder (run.c sets it; empty: the current one) */
    PrintOptions print;        /* set_printoptions */
    PyRandom random;           /* Python's random module */
    /* notes shown once */
    bool accumulation_noted, import_noted, deprecated_noted;
    int64_t arena_note_at;     /* Functions count that triggers the next arena note */
    int64_t arena_left;        /* Functions left alive by the last look for dead graphs */
    /* evaluation */
    int eval_depth, call_depth;
    int max_eval_depth;        /* MAX_EVAL_DEPTH, scaled to the stack's size */
    const char *source_name;   /* the file (or "<stdin>") whose statements run (run.c) */
    int anomaly_line;          /* under anomaly mode, the line of the statement running */
    int quiet;                 /* inside a block: results and gradients are not printed */
    int module_source;         /* > 0 while a module's own text runs (torch.nn's source, an
                                  imported .py): the functions it defines are UserFunc.module */
    Frame *frame;              /* the innermost user-function call, or NULL */
    int isolated;              /* inside grad/gradcheck: variables read as constants */
    Env envs;                  /* the sentinel of the circle of every live Env */
    Env envs_old;              /* on that circle, the boundary: the young envs (made since
                                  the collector last ran) come before it, the old after */
    int64_t num_envs, collect_at; /* envs made since the collector last ran; it runs when
                                     num_envs passes collect_at */
    int64_t young_envs;        /* how many envs apart young passes come now (session.c's
                                  YOUNG_ENVS, more while they free little) */
    int64_t promoted, old_size; /* containers made old since the last full pass, and how
                                   many that pass kept: a full pass runs when promoted
                                   passes a quarter of old_size */
    const Value *roots[64];    /* values held by running statements (a loop's iterable),
                                  for session_collect */
    int num_roots;
    bool module_attrs_set;     /* a script gave a module an attribute (session_set_module_attr) */
    struct {                   /* the last few functions parsed again from their text (a
                                  lambda or def at the top level, whose tree goes with its
                                  statement): the same text at the same place again (a loop's
                                  next turn) takes the tree already made (session.c) */
        Code *code;            /* one of its refs, or NULL */
        const Stmt *def;
        const Node *lambda;
        int line, col;
        bool python;
    } parsed[8];
    int parsed_next;           /* the entry of parsed the next new one replaces */
    SessionHook hooks;         /* the sentinel of the circle of the session's Python hooks */
    CallValueFn call_value;    /* the evaluator's (set by eval_statement) */
    ModuleValueFn module_value; /* the same */
    const char *stack_base;    /* an address near the bottom of the C stack (session_init's) */
    size_t stack_budget;       /* how much of the C stack the evaluator may use */
    BinaryFn binary;
    AttrValueFn attr_value;    /* the same */
    /* the error being reported */
    char error[600];
    int error_line, error_col;
    /* Where the call that is a whole statement of its own starts (0: none):
     * a builtin that shows its result there (grad) returns it elsewhere. */
    int statement_call_line, statement_call_col;
    bool error_in_function;    /* the message already names the function */
    /* .py: the exception object the error is, when a raise statement made
     * it (void otherwise: an except makes one of the message's class on
     * need); session_set_error forgets it. */
    Value exception;
    struct Handling *handling; /* the innermost except clause running (eval.c), or NULL:
                                  what a bare raise raises again */
    bool descriptors;          /* a class has an attribute that is a descriptor (a
                                  property): attribute reads and writes look for them */
    bool quit;                 /* :quit was given, or a SystemExit ended the run */
    bool exited;               /* a SystemExit ended the run (sys.exit): exit_status is its */
    int exit_status;
    int recursion_limit;       /* a .py file's nested calls (sys.setrecursionlimit) */
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
    /* a notebook (ag --kernel): NULL elsewhere */
    DisplayFn display;         /* pictures: see DisplayFn */
    ShowResultFn show_result;  /* top-level expression statements' values */
    uint64_t statements;       /* statements run so far (run.c), so that the kernel
                                  knows whether a value came from a cell's last one */
    void *notebook;            /* the kernel's own state (kernel.c), for those two */
    FILE *report_err;          /* where session_report writes, when not NULL (the kernel:
                                  a cell's error apart from its notes) */
    bool graph_not_kept;       /* the last backward ran in a block: no snapshot (session_keep_graph) */
};

void session_init(Session *s, FILE *out, FILE *err, bool interactive);
/* Whether the evaluator may go one level deeper: the C stack used since
 * session_init is within its budget (the stack's limit less a margin), so
 * that deep recursion of every kind (calls, nested blocks, long elif
 * chains) ends in a message, never a stack overflow. */
/* The address of the caller's frame on the C stack. Not a local's address:
 * under ASan's use-after-return detection (on by default since GCC 13 and
 * LLVM 15) locals live in a fake stack on the heap, and the distance from
 * one of them measured nothing (the evaluator overflowed the real stack,
 * or stopped at 100 calls). */
#if defined(__GNUC__)
#define SESSION_STACK_HERE() ((const char *)__builtin_frame_address(0))
#else
#define SESSION_STACK_HERE() ((const char *)&(char){0})
#endif
static inline bool session_stack_ok(const Session *s) {
    const char *at = SESSION_STACK_HERE();
    size_t used = at < s->stack_base ? (size_t)(s->stack_base - at) : (size_t)(at - s->stack_base);
    return used < s->stack_budget;
}
/* The size of the stack the sessions made from now on run on, when it is
 * not the process's main stack (its limit: getrlimit); 0: that one. */
void session_set_stack_size(size_t bytes);
void session_reset(Session *s); /* forget every variable and function */
void session_free(Session *s);

/* Sets the error at a position; is false, for `return session_fail(...)`.
 * (A macro, so the compiler sees the false on every failure path.) */
void session_set_error(Session *s, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define session_fail(...) (session_set_error(__VA_ARGS__), false)

/* The global variable or function named so, or NULL. */
Var *session_lookup(Session *s, const char *name, size_t length);
/* The first variable (not a hidden __ one) that holds t, or NULL; ctx is
 * the Session (the namer of ag_set_keep_graph). */
const char *session_tensor_name(const Tensor *t, void *ctx);
/* Called before each backward: whether it keeps its graph for :dot, :why
 * and draw(). A backward at the top level of a statement does; one inside
 * a block or a function (a training loop's) does not, and the last graph
 * kept is forgotten: taking it would cost each step about as much as the
 * step (docs/performance.md). */
void session_keep_graph(Session *s);
/* The index of a global in s->vars (for caches), or -1. */
int session_var_index(Session *s, const Var *v);
/* Binds a global name to v (taking its reference); false (error set at
 * line:col) when memory or the variable table runs out. */
bool session_bind(Session *s, const char *name, size_t length, Value v, int line, int col);
/* An attribute a script gave a module (torch.backends.cudnn.deterministic
 * = True, setattr(math, "k", 2)), kept in the hidden global
 * __ag_module_attrs__: module.NAME = v (taking v; false with the error set
 * when memory runs out), and module.NAME's value, copied into out (false
 * when the script set none). */
/* Whether the error is an uncaught SystemExit (sys.exit(status)): then
 * the run ends (quit, exited) with its status, as CPython's: 0 for None, an
 * int's, else 1 with the code printed to stderr. */
bool session_system_exit(Session *s);
bool session_set_module_attr(Session *s, int line, int col, const char *module,
                             const char *name, size_t length, Value v);
bool session_module_attr(Session *s, const char *module, const char *name, size_t length,
                         Value *out);
/* A function made from a def or lambda node, taking defaults (one per
 * parameter, VAL_VOID where none; or NULL) and a reference to closure. The
 * node's tree lives in code (a reference is taken) or, when code is NULL,
 * in a statement's arena about to be freed: then its text is copied and
 * parsed again into a Code of its own. NULL with the error set. */
UserFunc *session_function(Session *s, Code *code, const Stmt *def, const Node *lambda,
                           Value *defaults, Env *closure);
/* Binds a global name to a new function made from def (session_function). */
bool session_define(Session *s, const Stmt *def, Value *defaults);
/* A new Env (one reference) whose names point into code, on the session's
 * list; NULL with the error set when out of memory. */
Env *session_env(Session *s, Env *parent, Code *code, int line, int col);
/* Empties the envs, lists and dicts that nothing outside the cycles among
 * them reaches (the roots: the globals, the running calls, s->roots, and
 * every container with references its census cannot account for, such as
 * a value the C code holds), so that cycles such as a nested function
 * stored in the env it closes over are freed. Called between statements
 * and loop iterations, inside functions too, when many envs were made. */
void session_collect(Session *s);
/* A pass over the young containers alone (CPython's generation 0), or a
 * full one (session_collect) when enough have grown old since the last. */
void session_collect_due(Session *s);
static inline void session_maybe_collect(Session *s) {
    if (s->num_envs >= s->collect_at) session_collect_due(s);
}
/* obj.NAME(args) for an object whose class defines NAME (Python's special
 * methods: __len__, __iter__, __getitem__, __contains__): *found says
 * whether it does; false with the error set when the call fails. */
bool session_call_special(Session *s, int line, int col, const Value *obj, const char *name,
                          const Value *args, int n, Value *out, bool *found);
/* The truth of an object (if obj, bool(obj)): its __bool__, else
 * __len__() != 0, else true, as Python's. */
bool session_object_truth(Session *s, int line, int col, const Value *obj, bool *out);
/* An object to iterate (for x in obj, list(obj), *obj) becomes what its
 * __iter__ returns (a list, tuple or generator's values); other values stay
 * as they are. False with Python's TypeError when it has no __iter__. */
bool session_iterable(Session *s, int line, int col, Value *v);
/* Drops the error just raised (its text and its exception object): a
 * caller that catches it (hasattr's AttributeError, the IndexError that
 * ends the old sequence protocol) goes on as if none had been. */
void session_forget_error(Session *s);
/* Switches the .py dialect on or off (the print options follow). */
void session_set_python(Session *s, bool python);
/* The one way an error reaches the user (s->error at s->error_line:col):
 * in a script, "SOURCE:LINE:COL: error: MESSAGE"; at the prompt the line's
 * text (line, len; NULL: none) with a caret under the column, when it is
 * printable, then "error: MESSAGE". stdout is flushed first. */
void session_report(Session *s, const char *source, bool interactive, const char *line, size_t len);
/* The engine's last error (ag_error) as the shell reports it: in a .py
 * file the exception PyTorch raises ("RuntimeError: ", or "IndexError: "
 * for an index out of bounds) and, for shapes that do not broadcast or
 * multiply, PyTorch's sentence; as it is in the .ag dialect. A buffer of
 * the thread's, valid until the next call. */
const char *session_engine_error(const Session *s);

/* The variable named so in env e itself (not its parents), or NULL. */
Local *env_lookup(Env *e, const char *name, size_t length);
/* Binds a variable of e (taking v's reference). */
bool env_bind(Session *s, Env *e, const char *name, size_t length, Value v, int line, int col);
/* The same, where l is env_lookup's answer, already known (NULL: a name e
 * does not have yet, such as a parameter of a fresh call's env). */
bool env_bind_new(Session *s, Env *e, Local *l, const char *name, size_t length, Value v,
                  int line, int col);

/* Shows a picture in the notebook (s->display), when there is one: true;
 * false outside a notebook, where the caller prints or writes a file. */
bool session_display(Session *s, const char *mime, const char *data, size_t len);
/* Prints a value as a statement's result (nothing for VAL_VOID). */
void session_print_value(Session *s, const Value *v);
/* "PREFIXtensor(...)", continuation lines indented under the first. */
void session_print_named(Session *s, const char *prefix, const Tensor *t);
/* After a backward: NAME.grad = tensor(...) for each leaf variable among
 * the first count whose gradient is not `before[i]` (the gradients
 * retained before it ran). Returns how many it printed. */
int session_print_grads(Session *s, Tensor **before, int count);
/* Prints the arena note when forward graphs have piled up past a threshold. */
void session_note_arena(Session *s);

/* The closest of the variables and the given names to a misspelt one, or
 * NULL. names: NULL-terminated, or NULL. */
const char *session_suggest(Session *s, const char *name, size_t length,
                            const char *const *names, int num_names);

#endif
