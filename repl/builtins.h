/*
 * builtins.h — the builtin functions: one table (a row per builtin: name,
 * signature, help, implementation, flags) and one call path. The
 * signature, written as Python writes one ("sum(input, dim=None,
 * keepdim=False)"), is both what :help shows and what the binder reads:
 * positional and keyword arguments are bound to its parameters, defaults
 * filled in, unknown keywords refused with the accepted ones listed, all in
 * builtin_call, before the builtin runs (Lua's luaL_argerror shape: a
 * builtin never needs to know its call site).
 *
 * The implementations live in builtins_*.c and gradcheck.c; each reads its
 * bound arguments with the arg_* helpers below, which report "bad argument
 * #2 to 'reshape': ..." at the argument's position.
 */
#ifndef AG_BUILTINS_H
#define AG_BUILTINS_H

#include "session.h"

enum { MAX_PARAMS = 12 };

typedef struct Builtin Builtin;

/* A function named by the first argument of grad, gradcheck or plot: a
 * user function or a builtin, and how to call it (the evaluator's call
 * path, handed down so that builtins need not include eval.h). */
typedef struct FuncRef FuncRef;
typedef bool (*InvokeFn)(Session *s, const FuncRef *f, Value *args, int n, Value *out);
struct FuncRef {
    const char *name;
    size_t length;
    UserFunc *user;           /* or */
    const Builtin *builtin;
    const Node *at;           /* where messages point */
    InvokeFn invoke;
    Value held;               /* the function's value while the call runs (a lambda), or void */
};

/* A builtin's arguments, bound to its signature's parameters. */
typedef struct {
    const Builtin *b;
    int line, col;            /* the call: where messages about it point */
    Value arg[MAX_PARAMS];    /* one per parameter; defaults filled in */
    const Node *node[MAX_PARAMS]; /* where each came from; NULL for a default */
    bool given[MAX_PARAMS];   /* written by the caller (not a default) */
    int position[MAX_PARAMS]; /* 1-based place among the positional arguments; 0 if not */
    Value *rest;              /* the *args of a variadic signature */
    const Node **rest_node;
    int num_rest;
    int rest_first;           /* the place of rest[0] among the positional arguments */
    Value rest_keyword;       /* the *args given by keyword (randn(size=(2, 3))): rest */
    const Node *rest_keyword_node;
    Value *extra_kw;          /* BI_KWARGS: the keywords no parameter names (dict(a=1)), */
    const Node **extra_kw_nodes; /* their nodes (the name's text, the value at ->left) */
    int num_extra_kw;
    FuncRef func;             /* FUNCTION_FIRST builtins: the function named first */
} CallArgs;

typedef bool (*BuiltinFn)(Session *s, CallArgs *a, Value *out);

enum {
    BI_METHOD = 1 << 0,         /* x.f(...) means f(x, ...): the first parameter is a tensor */
    BI_CREATION = 1 << 1,       /* has requires_grad; a trailing bare `grad` sets it */
    BI_VOID = 1 << 2,           /* returns nothing: only a statement of its own */
    BI_FUNCTION_FIRST = 1 << 3, /* the first argument names a function, unevaluated */
    BI_OP = 1 << 4,             /* an engine op with a gradient rule (grad can take it) */
    BI_MAYBE_FUNCTION = 1 << 5, /* the first argument may name a function (plot(f, a, b)) */
    /* 1 << 6 was BI_KEEPS_BOOL: a tensor's dtype says it now */
    BI_PY_VARIANT = 1 << 7,     /* Python's builtin of a name ag's op has (sum, max, len...):
                                   taken in a .py file when the first argument is not a
                                   tensor, and for max(a, b) and min(a, b) by their bare
                                   names (builtin_python_variant); not found by name */
    BI_TYPE = 1 << 8,           /* a type as well as a function: int, list, torch.Tensor */
    BI_MODULE_MATH = 1 << 9,    /* a function of Python's math module (math.exp): found by
                                   builtin_in_module, not by name */
    BI_MODULE_RANDOM = 1 << 10, /* a function of Python's random module (random.seed) */
    BI_MODULE_TIME = 1 << 11,   /* a function of Python's time module (time.perf_counter) */
    BI_MODULE_AUTOGRAD = 1 << 12, /* torch.autograd's own function where ag has another of
                                     the name (torch.autograd.grad, not ag's grad(f, x)) */
    BI_MODULE_DEVICE = 1 << 13, /* torch.cuda's and torch.backends.mps's: ag computes on the
                                   CPU, so none is available (is_available() is False) */
    BI_MODULE_COLLECTIONS = 1 << 15, /* of Python's collections module (OrderedDict) */
    BI_MODULE_SYS = 1 << 16,    /* of Python's sys module (setrecursionlimit) */
    BI_KWARGS = 1 << 14,        /* takes **kwargs: keywords no parameter names go to
                                   CallArgs.extra_kw (dict(a=1, b=2)) */
};

struct Builtin {
    const char *name;
    const char *signature;  /* "sum(input, dim=None, keepdim=False)" */
    const char *help;       /* what it does, in one short line */
    const char *details;    /* more for :help NAME, or NULL */
    BuiltinFn fn;
    unsigned flags;
    ValueKind self_kind;    /* a method of values of this kind (opt.step()), found by
                               builtin_method, not by name; VAL_VOID for the others */
    const AgOpInfo *op;     /* an engine op's builtin (made from its row of the op
                               table, run by bi_op), or NULL */
};

/* The builtins: the shell's own rows and, made from the engine's op table
 * (ag_op_at), one per op (and alias) that is not AG_OP_HIDDEN. */

/* The builtin named so, or NULL (a hash over the table). */
const Builtin *builtin_find(const char *name, size_t length);
/* Python's builtin that stands for b in a .py file when called with args
 * (n of them) whose first is not a tensor: sum([1, 2]), max(a, b), len(xs);
 * or NULL. bare: called by its bare name (max, not torch.max), where max
 * and min of two or more arguments are Python's even for tensors
 * (max(t, 0.5) compares, as CPython; torch.max(x, 1) is the op's). */
const Builtin *builtin_python_variant(const Builtin *b, const Value *args, int n, bool bare);
/* The variant a .py file's bare name stands for as a value (f = pow), where
 * only the bare name is Python's (pow); else NULL. */
const Builtin *builtin_value_variant(const Builtin *b);
/* FORMAT % ARGS for a string FORMAT (str's % operator); false with the
 * error set at line:col. */
bool python_percent(Session *s, int line, int col, const Value *format, const Value *rhs,
                    Value *out);

/* b as a value (act = torch.tanh; type(3) is int). */
Value builtin_as_value(const Builtin *b);
/* type(v): the type's row as a value (type(3) is int), an object's class,
 * or a type no builtin makes (below); false when memory runs out. */
bool builtin_type_of(const Value *v, Value *out);
/* Whether v is the type of values no builtin makes (type(len), type of a
 * grad_fn), which cannot be called. */
bool builtin_type_only(const Value *v);
/* The rows of builtins_python.c: Python's builtins and the methods of its
 * values (list.append, dict.items, str.join, ...). */
extern const Builtin python_builtins[];
extern const int num_python_builtins;
/* The rows of the files that hold builtins' bodies, each beside its
 * bodies: builtins_create.c (creation), builtins_values.c (autograd and
 * values), gradcheck.c (grad, gradcheck), builtins_data.c (load_csv,
 * save_csv), plot.c (plot), graphview.c (draw). */
extern const Builtin create_builtins[], values_builtins[], grad_builtins[], data_builtins[],
    plot_builtins[], graph_builtins[];
extern const int num_create_builtins, num_values_builtins, num_grad_builtins, num_data_builtins,
    num_plot_builtins, num_graph_builtins;

/* The rows of builtins_modules.c: the functions of Python's math and
 * random modules. */
extern const Builtin module_builtins[];
extern const int num_module_builtins;
/* The rows of builtins_optim.c: the optimizers (SGD, Adam, ...), then the
 * methods of an optimizer's value; builtin i for i below the count. */
/* opt.param_groups: a list of the groups' dicts (shared: a change to one
 * is the optimizer's at its next step). false when out of memory. */
bool optim_param_groups(const Optimizer *o, Value *out);
const Builtin *optim_builtin(int i);
int optim_builtin_count(void);
/* The function NAME of Python's module MODULE ("math", "random",
 * "torch.autograd"'s own), or NULL. */
const Builtin *builtin_in_module(const char *module, const char *name, size_t length);
/* module.NAME as a function: the module's own (builtin_in_module), else for
 * torch and its submodules the builtin NAME; or NULL. */
const Builtin *builtin_of_module(const char *module, const char *name, size_t length);

/* The method name of values of kind (opt.step), or NULL. */
const Builtin *builtin_method(ValueKind kind, const char *name, size_t length);
/* Every builtin, in the table's order (:help, completion); methods of
 * values (self_kind) included. */
const Builtin *builtin_list(int *count);
/* Every builtin's name, NULL-terminated (suggestions). */
const char *const *builtin_names(int *count);

/* A call's arguments as the evaluator hands them to a builtin: the
 * positional ones (pos, n of them; their references are taken), the
 * keyword ones (kw_nodes: NODE_KEYWORD, their values in kw; taken too),
 * and where the call is. */
typedef struct {
    int line, col;
    Value *pos;
    const Node **pos_nodes;
    int n;
    Value *kw;
    const Node **kw_nodes;
    int nkw;
    bool grad_flag;          /* a creation builtin was given a trailing bare `grad` */
    const FuncRef *func;     /* grad(f, ...), plot(f, ...): the function named first, or NULL */
} BuiltinArgs;

/* The one call path: binds the arguments to b's signature, checks arity
 * and keywords, runs the builtin, and releases the arguments. */
bool builtin_call(Session *s, const Builtin *b, const BuiltinArgs *args, Value *out);

/* ---- reading bound arguments (each reports "bad argument #i to 'f'") ----
 * An argument is named by its parameter's index i, or by REST(k) for the
 * k-th of the *args. */
#define REST(k) (-1 - (k))

/* Sets the error "bad argument #N to 'NAME': MESSAGE" (or "bad argument
 * 'dim' to ..." for a keyword or a default) at the argument. */
bool arg_error(Session *s, const CallArgs *a, int i, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Whether parameter i was given or defaults to something other than None. */
bool arg_present(const CallArgs *a, int i);
/* values and indices (both taken) as PyTorch's named tuple, type_name
 * "torch.return_types.max" ...; false with the error (ag's, or
 * MemoryError) when either is NULL. */
bool values_indices_result(Session *s, CallArgs *a, const char *type_name, Tensor *values,
                           Tensor *indices, Value *out);
/* "[1, 3]": t's shape as PyTorch's messages write it. */
void shape_brackets(const Tensor *t, char *buf, size_t size);
/* A tensor (borrowed; numbers, booleans and lists are converted in place). */
bool arg_tensor(Session *s, CallArgs *a, int i, Tensor **t);
/* A number: a number, a boolean, or a one-element tensor. */
bool arg_number(Session *s, CallArgs *a, int i, double *out);
/* An integer in [lo, hi]; what names it ("a dimension"). */
bool arg_int(Session *s, CallArgs *a, int i, const char *what, int64_t lo, int64_t hi,
             int64_t *out);
/* An axis (the engine checks its range against the tensor). */
bool arg_axis(Session *s, CallArgs *a, int i, int *axis);
/* Dimensions of a reduction: one axis, or a tuple or list of them. */
bool arg_axes(Session *s, CallArgs *a, int i, int *count, int64_t *axes);
/* Axes as the *rest arguments (permute(x, 1, 0)) or one tuple or list of
 * them (permute(x, (1, 0))); negative ones allowed. */
bool arg_axis_list(Session *s, CallArgs *a, int *count, int64_t *axes);
bool arg_bool(Session *s, CallArgs *a, int i, bool *out);
/* A dtype (torch.float32, torch.long ...) that ag has. */
bool arg_dtype(Session *s, CallArgs *a, int i, AgDtype *out);
/* The index of the parameter named so, or -1. */
int arg_index(const CallArgs *a, const char *name);
/* The name of parameter i ("dim"). */
const char *arg_name(const CallArgs *a, int i);
/* How many parameters the signature has (*args and keyword-only ones too). */
int arg_count(const CallArgs *a);
/* A string argument (borrowed). */
bool arg_string(Session *s, CallArgs *a, int i, const char **text, size_t *length);
/* A file name (copied into buf, size bytes), refused where files are off. (builtins_data.c) */
bool arg_path(Session *s, CallArgs *a, int i, char *buf, size_t size);
/* Dimensions: the *rest integers, or one shape / tuple / list of them
 * (zeros(2, 3), zeros((2, 3)), zeros(x.shape)). allow_infer lets one be -1. */
bool arg_dims(Session *s, CallArgs *a, bool allow_infer, int *ndim, int64_t *shape);
/* The engine's result as the call's value, or its error at the call. */
bool result_tensor(Session *s, const CallArgs *a, Tensor *t, Value *out);

/* ---- the implementations (builtins_*.c, gradcheck.c, plot.c) ----
 * Each file's rows sit beside its bodies (above); these few are also rows
 * of another file's table (Python's Tensor, empty, nelement, round) or of
 * builtins.c's (every op of the engine's table). */
#define BUILTIN(name) bool name(Session *s, CallArgs *a, Value *out)
BUILTIN(bi_tensor);
BUILTIN(bi_zeros);
BUILTIN(bi_zeros_like);
BUILTIN(bi_numel);
BUILTIN(bi_round);
BUILTIN(bi_op);

#endif
