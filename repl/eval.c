/*
 * eval.c — runs statements and evaluates expressions.
 *
 *   Statements   one function per kind (exec_for, exec_if, ...) behind one
 *                switch; blocks are quiet (s->quiet) and report break,
 *                continue and return up to the loop or call that takes them.
 *   Names        a call's locals first, then the globals (through a cache
 *                in the NAME node: the only thing the evaluator writes into
 *                the tree), then builtins.
 *   Operators    numbers with numbers give numbers (Python's float
 *                arithmetic); anything with a tensor gives a tensor through
 *                the engine; comparisons give booleans or boolean tensors.
 *   Calls        user functions (a Frame of locals) and builtins, through
 *                builtin_call, the one call path; x.f(...) is f(x, ...).
 */
#include "eval.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtins.h"
#include "interrupt.h"
#include "modules.h"
#include "parse.h"
#include "pyops.h"
#include "pyformat.h"
#include <ctype.h>

/* The statements' handlers, under the sanitizers, are kept out of
 * exec_kind, which is on every level of a nested block's recursion (an
 * else-if chain, a loop in a loop): there each local is padded, and the
 * handlers' locals made exec_kind's frame 3.5 KB, which stopped a
 * 2,000-branch chain short of its stack budget (under 1 KB out of line).
 * Elsewhere the compiler inlines as it sees fit (an out-of-line handler
 * cost loop_overhead 5 ns). */
#if defined(__SANITIZE_ADDRESS__)
#define STATEMENT_HANDLER __attribute__((noinline))
#else
#define STATEMENT_HANDLER
#endif

typedef enum { EXEC_OK, EXEC_ERROR, EXEC_BREAK, EXEC_CONTINUE, EXEC_RETURN } Status;

/* Sets the error and gives EXEC_ERROR, for `return exec_fail(...)`. */
#define exec_fail(...) (session_set_error(__VA_ARGS__), EXEC_ERROR)

static Status exec_block(Session *s, const Block *b);
static void anomaly_place(Session *s, int line);
static Status exec_statement(Session *s, const Stmt *st);
static bool make_function(Session *s, const Stmt *def, const Node *lambda, Value *out);
static bool call_value(Session *s, const Node *call, const Value *v, Value *out);
static bool apply_user(Session *s, const Node *at, UserFunc *f, Value *args, int n,
                       Value *kwargs, Value *out);
static bool apply_tensor_binary(Session *s, const Node *n, TokenType op, const Value *a,
                                const Value *b, Value *out);

/* ======================================================================
 * Values and messages
 * ====================================================================== */

/* The engine's result as a value, or its error at the node. */
static bool engine_result(Session *s, const Node *n, Tensor *t, Value *out) {
    *out = value_void(); /* a failure leaves nothing for the caller to release */
    if (!t) return session_fail(s, n->line, n->col, "%s", session_engine_error(s));
    *out = value_tensor(t);
    return true;
}

/* A count (len, a dimension, a loop index): an int in a .py file, a
 * number in .ag. */
static Value count_value(const Session *s, int64_t n) {
    return s->python ? (Value){.kind = VAL_INT, .as.integer = n} : value_number((double)n);
}

static int name_len(const Node *n) {
    return (int)(n->as.text.length > 60 ? 60 : n->as.text.length);
}

/* The value as a tensor (a new reference). On failure the message names
 * the operand: what, or when what is NULL "the SIDE operand of 'OP'" (built
 * only then: this is the path of every operator). */
static bool operand_tensor(Session *s, const Node *at, const Value *v, const char *what,
                           const char *side, TokenType op, Tensor **out) {
    char why[200], name[48];
    *out = value_to_tensor(v, why, sizeof why); /* a number: a wrapped number (x * 2.5) */
    if (*out) return true;
    if (!why[0]) return session_fail(s, at->line, at->col, "%s", ag_error());
    if (v->kind == VAL_LIST && !v->as.list->tuple) return session_fail(s, at->line, at->col, "%s", why);
    if (!what) snprintf(name, sizeof name, "the %s operand of '%s'", side, token_text(op));
    return session_fail(s, at->line, at->col, "%s is %s, not a tensor%s", what ? what : name, why,
                        v->kind == VAL_NONE ? " (no gradient yet?)" : "");
}

static bool to_tensor(Session *s, const Node *at, const Value *v, const char *what, Tensor **out) {
    return operand_tensor(s, at, v, what, NULL, TOK_ERROR, out);
}

/* A list of expressions stands for the tensor it stacks to ([x, 2*x].sum()). */
static bool stacked(Session *s, const Node *at, Value *v) {
    if (v->kind != VAL_LIST || v->as.list->tuple) return true;
    Tensor *t;
    bool ok = to_tensor(s, at, v, "the list", &t); /* [True, False] is a bool tensor */
    value_release(v);
    if (ok) *v = value_tensor(t);
    return ok;
}

/* A condition's truth: one element, non-zero (nan included), as PyTorch's
 * bool(t). */
static bool truth(Session *s, const Node *at, const Value *v, bool *out) {
    char shape[AG_SHAPE_STR_MAX];
    switch (v->kind) {
    case VAL_BOOL: *out = v->as.truth; return true;
    case VAL_NUMBER: *out = v->as.number != 0; return true;
    case VAL_INT: *out = v->as.integer != 0; return true;
    case VAL_NONE: *out = false; return true;
    case VAL_STRING: *out = v->as.string.length > 0; return true;
    case VAL_INSTANCE: return session_object_truth(s, at->line, at->col, v, out);
    case VAL_LIST: *out = v->as.list->count > 0; return true;
    case VAL_DICT: *out = v->as.dict->count > 0; return true;
    case VAL_FUNCTION: case VAL_BUILTIN: case VAL_CLASS: case VAL_METHOD:
        *out = true;
        return true;
    case VAL_SHAPE: *out = v->as.shape->ndim > 0; return true;
    case VAL_MODULE: case VAL_OPTIM: case VAL_GENERATOR: *out = true; return true;
    case VAL_TENSOR:
        if (v->as.tensor->numel == 1) {
            *out = tensor_values(v->as.tensor)[0] != 0;
            return true;
        }
        if (s->python) /* a < b < c of tensors too: (a < b) and (b < c) */
            return session_fail(s, at->line, at->col, "RuntimeError: Boolean value of Tensor "
                                "with more than one value is ambiguous");
        return session_fail(s, at->line, at->col, "the truth of a tensor of shape %s is "
                            "ambiguous: a condition needs exactly one element (reduce it first, "
                            "e.g. with sum or max, or take one element)", tensor_shape_str(v->as.tensor, shape, sizeof shape));
    default:
        return session_fail(s, at->line, at->col, "%s cannot be a condition", value_kind_name(v));
    }
}

/* ======================================================================
 * Names
 * ====================================================================== */

/* The global named by n, through n's cache (slots never move while the
 * table's generation stands). */
static Var *global_var(Session *s, const Node *n) {
    Node *cache = (Node *)n;
    if (cache->cache_generation == s->generation && cache->cache_slot >= 0 &&
        cache->cache_slot < s->num_vars)
        return &s->vars[cache->cache_slot];
    Var *v = session_lookup(s, n->as.text.text, n->as.text.length);
    if (v) {
        cache->cache_slot = session_var_index(s, v);
        cache->cache_generation = s->generation;
    }
    return v;
}

/* Whether n is among names (a global or nonlocal statement's). */
static bool names_has(Node *const *names, int count, const Node *n) {
    for (int i = 0; i < count; i++)
        if (names[i]->as.text.length == n->as.text.length &&
            value_same_bytes(names[i]->as.text.text, n->as.text.text, n->as.text.length))
            return true;
    return false;
}

/* The name n as variables are bound under it: its interned copy (the same
 * pointer for every node naming it), or its own text when the table is
 * full. */
static const char *name_ident(const Node *n) {
    if (!n->ident) {
        const char *id = value_intern(n->as.text.text, n->as.text.length);
        ((Node *)n)->ident = id ? id : n->as.text.text;
    }
    return n->ident;
}

/* The variable n names among env e's, or NULL: looked for first where n
 * found it last (a call binds its variables in the same order each time).
 * An env with a Code binds its variables under their nodes' interned
 * names (name_ident), so while interning has never failed, a name that is
 * not among them by address is not among them. */
static Local *local_of(Env *e, const Node *n) {
    int k = n->local_slot - 1;
    size_t len = n->as.text.length;
    const char *id = name_ident(n);
    if (k >= 0 && k < e->num_locals) {
        Local *l = &e->locals[k];
        if (l->name == id || (l->length == len && value_same_bytes(l->name, id, len)))
            return l;
    }
    Local *l = NULL;
    if (e->code && !value_intern_failed) { /* its names are all interned, as id is */
        for (int i = 0; i < e->num_locals && !l; i++)
            if (e->locals[i].name == id) l = &e->locals[i];
    } else {
        l = env_lookup(e, id, len);
    }
    if (l) ((Node *)n)->local_slot = (int)(l - e->locals) + 1;
    return l;
}

/* What a name means where it is read. */
typedef struct {
    Value *value;            /* a variable of a running call (or one it closes over), a
                                global, or NULL */
    bool global;             /* value is a global's */
    const Builtin *builtin;  /* when value is NULL: the builtin of that name, or NULL */
} Meaning;

/* The builtin named by n, looked up once and kept on the node. */
static const Builtin *builtin_of(const Node *n) {
    Node *cache = (Node *)n;
    if (!cache->builtin_known) {
        cache->builtin = builtin_find(n->as.text.text, n->as.text.length);
        cache->builtin_known = true;
    }
    return cache->builtin;
}

/* The one name resolver: the running call's variables, then those of the
 * functions it is nested in (closures), then the globals, then the
 * builtins. A deleted name holds VAL_VOID and is passed over. */
static __attribute__((noinline)) Meaning resolve_all(Session *s, const Node *n) {
    Meaning m = {NULL, false, NULL};
    Env *e = s->frame ? s->frame->env : NULL;
    if (e && names_has(e->globals, e->num_globals, n)) e = NULL;
    for (int depth = 0; e && !m.value; e = e->parent, depth++) {
        Local *l = local_of(e, n);
        if (l && l->value.kind != VAL_VOID) m.value = &l->value;
        if (m.value && depth <= SCHAR_MAX) ((Node *)n)->local_depth = (signed char)depth;
    }
    /* a module's code: a builtin's name is the builtin (its globals are not
     * the script's), but for the hidden globals its parts share (__torch_nn__) */
    bool module = s->frame && s->frame->func && s->frame->func->module &&
                  !(n->as.text.length > 2 && n->as.text.text[0] == '_' && n->as.text.text[1] == '_');
    if (!m.value && module && (m.builtin = builtin_of(n)) != NULL) return m;
    if (!m.value) {
        Var *v = global_var(s, n);
        if (v && v->value.kind != VAL_VOID) m.value = &v->value, m.global = true;
    }
    if (!m.value) m.builtin = builtin_of(n);
    return m;
}

/* resolve_all, with its common cases first and inline: a global read at
 * the top level (a script's loop: global_var's cached slot), or a variable
 * of the running call or of an env it is nested in (a comprehension's
 * function, the call micrograd's _backward closes over), as many envs up
 * and where among their variables n found it last: what resolve_all would
 * find first (no global statement in the call, and no env nearer holds
 * n). */
static inline Meaning resolve(Session *s, const Node *n) {
    if (!s->frame && n->cache_generation == s->generation && n->cache_slot >= 0 &&
        n->cache_slot < s->num_vars) { /* a global at the top level where n found it last */
        Var *v = &s->vars[n->cache_slot];
        if (v->value.kind != VAL_VOID) return (Meaning){&v->value, true, NULL};
    }
    Env *e = s->frame ? s->frame->env : NULL;
    int k = n->local_slot - 1;
    if (e && e->num_globals == 0 && k >= 0) {
        for (int d = n->local_depth; d > 0 && e; d--, e = e->parent)
            if (e->num_locals > 0 && env_lookup(e, n->as.text.text, n->as.text.length))
                return resolve_all(s, n); /* a nearer env has it now */
        if (e && k < e->num_locals && e->locals[k].name == n->ident &&
            e->locals[k].value.kind != VAL_VOID)
            return (Meaning){&e->locals[k].value, false, NULL};
    }
    return resolve_all(s, n);
}

/* Whether the name n is bound (a variable or a global). */
static bool bound(Session *s, const Node *n) { return resolve(s, n).value != NULL; }

/* Binds the name n to v (taking it): a variable of the running call
 * (unless a global or nonlocal statement says otherwise), else a global. In
 * .ag a list is bound as the tensor it stacks to, and strings cannot be. */
static bool bind_name(Session *s, const Node *n, Value v) {
    if (v.kind == VAL_VOID && !s->python) /* y = f(1) where f returns nothing: as documented */
        return session_fail(s, n->line, n->col, "this call returned nothing to assign (a body "
                            "that ends without return returns nothing)");
    if (v.kind == VAL_VOID) v = value_none(); /* .py: Python's None */
    if (!s->python && (v.kind == VAL_STRING || v.kind == VAL_GRAD_FN)) {
        bool string = v.kind == VAL_STRING;
        const char *kind = value_kind_name(&v);
        value_release(&v);
        return session_fail(s, n->line, n->col, "%s cannot be bound to a name%s", kind,
                            string ? " (strings are only arguments)" : "");
    }
    if (!s->python && !stacked(s, n, &v)) return false; /* a list is bound as its stack (.ag) */
    Env *e = s->frame ? s->frame->env : NULL;
    if (e && !names_has(e->globals, e->num_globals, n)) {
        if (names_has(e->nonlocals, e->num_nonlocals, n))
            for (Env *up = e->parent; up; up = up->parent)
                if (env_lookup(up, n->as.text.text, n->as.text.length)) {
                    e = up;
                    break;
                }
        Local *l = local_of(e, n);
        if (l) { /* rebinding a variable of the call */
            Value was = l->value;
            l->value = v;
            value_release(&was);
            return true;
        }
        return env_bind_new(s, e, NULL, name_ident(n), n->as.text.length, v, n->line, n->col);
    }
    Var *existing = global_var(s, n);
    if (existing) { /* rebinding a variable: the common case, in loops */
        value_release(&existing->value);
        existing->value = v;
        return true;
    }
    if (!session_bind(s, n->as.text.text, n->as.text.length, v, n->line, n->col)) return false;
    if (s->interactive && !s->python && builtin_find(n->as.text.text, n->as.text.length))
        fflush(s->out), fprintf(s->err, "note: '%.*s' now hides the builtin %.*s() until :reset; torch.%.*s(...) "
                "still calls it\n", name_len(n), n->as.text.text, name_len(n), n->as.text.text,
                name_len(n), n->as.text.text);
    return true;
}

/* Names people type from Python and other shells: true (and the error
 * set, saying what to write) when n is one of them. */
static bool habit_name(Session *s, const Node *n) {
    static const struct {
        const char *name, *advice;
    } habits[] = {
        {"exit", "to leave, type :quit or press Ctrl-D"},
        {"quit", "to leave, type :quit or press Ctrl-D"},
        {"help", "type :help (or :help NAME)"},
        {"F", "ag has no modules: write relu(x), not F.relu(x)"},
        {"nn", "ag has no modules: write the function itself (relu, mse_loss, ...)"},
        {"optim", "ag has no modules: write SGD(...), Adam(...)"},
        {"np", "ag has no NumPy: tensors do what you need (zeros, arange, ...)"},
    };
    for (size_t i = 0; i < sizeof habits / sizeof habits[0]; i++)
        if (strlen(habits[i].name) == n->as.text.length &&
            memcmp(habits[i].name, n->as.text.text, n->as.text.length) == 0) {
            session_set_error(s, n->line, n->col, "%s", habits[i].advice);
            return true;
        }
    return false;
}

static bool unknown_name(Session *s, const Node *n, const char *what) {
    if (s->python)
        return session_fail(s, n->line, n->col, "NameError: name '%.*s' is not defined",
                            name_len(n), n->as.text.text);
    if (habit_name(s, n)) return false;
    int count;
    const char *const *names = builtin_names(&count);
    const char *near = session_suggest(s, n->as.text.text, n->as.text.length, names, count);
    if (near)
        return session_fail(s, n->line, n->col, "unknown %s '%.*s' (did you mean '%s'?)", what,
                            name_len(n), n->as.text.text, near);
    return session_fail(s, n->line, n->col, "unknown %s '%.*s'%s", what, name_len(n),
                        n->as.text.text, strcmp(what, "function") == 0
                                             ? " (:help lists the builtins)" : "");
}

/* pi, inf and nan: names (a script may bind them) that are numbers,
 * written as literals are. */
static bool named_constant(const Node *n, Value *out) {
    static const struct {
        const char *name;
        double value;
    } constants[] = {{"pi", 3.141592653589793}, {"inf", INFINITY}, {"nan", NAN}};
    for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++)
        if (n->as.text.length == strlen(constants[i].name) &&
            memcmp(n->as.text.text, constants[i].name, n->as.text.length) == 0) {
            *out = value_number(constants[i].value);
            out->literal = true;
            return true;
        }
    return false;
}

/* A builtin as a value (a function passed to another, F.relu stored). */
static bool builtin_value(const Builtin *b, Value *out) {
    *out = builtin_as_value(b);
    return true;
}

/* A name holding a copy (x.T, x[:, j]) of a tensor changed in place since:
 * PyTorch's view would show the change. */
static bool stale_copy(Session *s, const Node *n) {
    return session_fail(s, n->line, n->col, "%s'%.*s' is a copy of a tensor's elements (ag's "
                        "x.T and x[:, j] are copies where PyTorch's are views) and that tensor "
                        "has changed in place since, which PyTorch's view would show: take it "
                        "again after the change", s->python ? "RuntimeError: " : "",
                        name_len(n), n->as.text.text);
}

static bool python_builtin(Session *s, const Node *n, Value *out, bool *failed);
static bool python_module_name(Session *s, const Node *n, const char *module, const char *name,
                               size_t len, Value *out, bool *failed);

static bool eval_name(Session *s, const Node *n, Value *out) {
    const char *name = n->as.text.text;
    size_t len = n->as.text.length;
    if (n->torch) {
        const char *sub = module_submodule("torch", name, len);
        double constant;
        if (sub) return *out = (Value){.kind = VAL_MODULE, .as.module = sub}, true;
        if (module_constant("torch", name, len, &constant)) return *out = value_number(constant), true;
        const char *dtype = module_dtype(name, len);
        if (dtype) return *out = (Value){.kind = VAL_DTYPE, .as.module = dtype}, true;
        const Builtin *b = builtin_find(name, len);
        if (b && s->python) return builtin_value(b, out);
        if (b)
            return session_fail(s, n->line, n->col, "torch.%.*s is a function: call it, as in "
                                "torch.%.*s(...)", name_len(n), name, name_len(n), name);
        bool failed = false; /* torch.save: written in Python */
        if (s->python && python_module_name(s, n, "torch", name, len, out, &failed)) return true;
        if (failed) return false;
        return session_fail(s, n->line, n->col, "ag has no torch.%.*s", name_len(n), name);
    }
    Meaning m = resolve(s, n);
    Value *v = m.value;
    if (v && m.global && s->isolated && v->kind == VAL_TENSOR && v->as.tensor->requires_grad)
        /* inside grad/gradcheck only the arguments are differentiated */
        return engine_result(s, n, tensor_detach(v->as.tensor), out);
    if (v && v->kind == VAL_TENSOR && v->as.tensor->copy_of && tensor_copy_is_stale(v->as.tensor))
        return stale_copy(s, n);
    if (v && !s->python && v->kind == VAL_FUNCTION)
        return session_fail(s, n->line, n->col, "'%.*s' is a function: call it, as in %.*s(...)",
                            name_len(n), name, name_len(n), name);
    if (v) return value_copy(v, out) || session_fail(s, n->line, n->col, "out of memory");
    if (s->python && len == 8 && memcmp(name, "__name__", 8) == 0)
        return value_string("__main__", 8, out) || session_fail(s, n->line, n->col, "out of memory");
    if (!s->python && named_constant(n, out)) return true;
    if (m.builtin && s->python) { /* f = pow: Python's, where torch's has the name too */
        const Builtin *py = builtin_value_variant(m.builtin);
        return builtin_value(py ? py : m.builtin, out);
    }
    if (m.builtin)
        return session_fail(s, n->line, n->col, "'%.*s' is a builtin function: call it, as in "
                            "%.*s(...)", name_len(n), name, name_len(n), name);
    bool failed = false;
    if (s->python && python_builtin(s, n, out, &failed)) return true;
    return !failed && unknown_name(s, n, "name");
}

/* ======================================================================
 * Literals
 * ====================================================================== */

/* The value of *EXPR (k), made iterable, and how many items it has; false
 * (nothing held) with Python's TypeError: "<what> after * must be an
 * iterable, not int". */
static bool starred_value(Session *s, const Node *k, const char *what, Value *v, int64_t *count) {
    if (!eval_expression(s, k->left, v)) return false;
    if (!session_iterable(s, k->line, k->col, v)) return value_release(v), false;
    *count = value_item_count(v);
    if (*count >= 0) return true;
    session_set_error(s, k->line, k->col, "TypeError: %s after * must be an iterable, not %s",
                      what, value_type_name(v));
    value_release(v);
    return false;
}

/* *EXPR among a display's items: each of its items appended to l. */
static bool spread_items(Session *s, const Node *k, ValueList *l) {
    Value v;
    int64_t count;
    if (!starred_value(s, k, "Value", &v, &count)) return false;
    bool ok = true;
    for (int64_t i = 0; ok && i < count; i++) {
        Value item;
        ok = (value_item(&v, i, s->python, &item) ||
              session_fail(s, k->line, k->col, "%s", ag_error())) &&
             (value_list_append(l, item) || session_fail(s, k->line, k->col, "MemoryError"));
    }
    value_release(&v);
    return ok;
}

/* [a, *xs, b] or (a, *xs): a list (tuple) of the items, spread. */
static bool eval_spread_items(Session *s, Node *const *kids, int n, bool tuple, Value *out) {
    ValueList *l = value_list_new(0, tuple);
    if (!l) return session_fail(s, 0, 0, "out of memory");
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    bool ok = true;
    for (int i = 0; ok && i < n; i++) {
        Value item;
        if (kids[i]->kind == NODE_STARRED) ok = spread_items(s, kids[i], l);
        else ok = eval_expression(s, kids[i], &item) &&
                  (value_list_append(l, item) || session_fail(s, 0, 0, "MemoryError"));
    }
    if (!ok) value_release(out);
    return ok;
}

static bool eval_items(Session *s, Node *const *kids, int n, bool tuple, Value *out) {
    for (int i = 0; i < n; i++)
        if (kids[i]->kind == NODE_STARRED) return eval_spread_items(s, kids, n, tuple, out);
    ValueList *l = value_list_new(n, tuple);
    if (!l) return session_fail(s, 0, 0, "out of memory");
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    for (int i = 0; i < n; i++)
        if (!eval_expression(s, kids[i], &l->items[i])) {
            value_release(out);
            return false;
        }
    return true;
}

/* True, False, None; ... only where it means something (an index item,
 * eval_index_items; a statement, exec_expr), since ag has no Ellipsis
 * object to make. */
static bool eval_const(Session *s, const Node *n, Value *out) {
    if (n->op == TOK_ELLIPSIS)
        return session_fail(s, n->line, n->col, "ag has no Ellipsis object: '...' is an index "
                            "item (x[..., 0]) or a statement that does nothing");
    *out = n->op == TOK_NONE ? value_none() : value_bool(n->op == TOK_TRUE);
    return true;
}

/* ======================================================================
 * Operators
 * ====================================================================== */


/* Python's float arithmetic on two numbers (x / 0 is inf or nan: IEEE, not
 * an exception). */
static double number_op(TokenType op, double x, double y) {
    switch (op) {
    case TOK_PLUS: return x + y;
    case TOK_MINUS: return x - y;
    case TOK_STAR: return x * y;
    case TOK_SLASH: return x / y;
    case TOK_SLASHSLASH: return ag_floor_divide(x, y);
    case TOK_PERCENT: /* a zero takes the divisor's sign (Python's float; PyTorch's is -0.) */
        return ag_remainder(x, y) == 0 ? copysign(0.0, y) : ag_remainder(x, y);
    case TOK_STARSTAR: return pow(x, y);
    case TOK_EQ: return x == y;
    case TOK_NE: return x != y;
    case TOK_LT: return x < y;
    case TOK_LE: return x <= y;
    case TOK_GT: return x > y;
    default: return x >= y;
    }
}

static Tensor *tensor_op(TokenType op, Tensor *a, Tensor *b) {
    switch (op) {
    case TOK_PLUS: return tensor_add(a, b);
    case TOK_MINUS: return tensor_sub(a, b);
    case TOK_STAR: return tensor_mul(a, b);
    case TOK_SLASH: return tensor_div(a, b);
    case TOK_SLASHSLASH: return tensor_floor_divide(a, b);
    case TOK_PERCENT: return tensor_remainder(a, b);
    case TOK_AT: return tensor_matmul(a, b);
    case TOK_STARSTAR: return tensor_pow(a, b);
    case TOK_EQ: return tensor_eq(a, b);
    case TOK_NE: return tensor_ne(a, b);
    case TOK_LT: return tensor_lt(a, b);
    case TOK_LE: return tensor_le(a, b);
    case TOK_GT: return tensor_gt(a, b);
    case TOK_AMP: return tensor_bitwise_and(a, b);
    case TOK_PIPE: return tensor_bitwise_or(a, b);
    case TOK_CARET: return tensor_bitwise_xor(a, b);
    default: return tensor_ge(a, b); /* apply_tensor_binary refuses the shifts */
    }
}

/* a op b on two values (borrowed) at node n. */
/* The methods that implement op: a.NAME(b), then b.RNAME(a) (None for
 * the comparisons, which reflect to their mirror). */
static void dunders(TokenType op, const char **name, const char **rname) {
    static const struct {
        TokenType op;
        const char *name, *rname;
    } table[] = {
        {TOK_PLUS, "__add__", "__radd__"},         {TOK_MINUS, "__sub__", "__rsub__"},
        {TOK_STAR, "__mul__", "__rmul__"},         {TOK_SLASH, "__truediv__", "__rtruediv__"},
        {TOK_SLASHSLASH, "__floordiv__", "__rfloordiv__"}, {TOK_PERCENT, "__mod__", "__rmod__"},
        {TOK_STARSTAR, "__pow__", "__rpow__"},     {TOK_AT, "__matmul__", "__rmatmul__"},
        {TOK_EQ, "__eq__", "__eq__"},              {TOK_NE, "__ne__", "__ne__"},
        {TOK_LT, "__lt__", "__gt__"},              {TOK_LE, "__le__", "__ge__"},
        {TOK_GT, "__gt__", "__lt__"},              {TOK_GE, "__ge__", "__le__"},
        {TOK_AMP, "__and__", "__rand__"},          {TOK_PIPE, "__or__", "__ror__"},
        {TOK_CARET, "__xor__", "__rxor__"},        {TOK_LSHIFT, "__lshift__", "__rlshift__"},
        {TOK_RSHIFT, "__rshift__", "__rrshift__"},
    };
    *name = *rname = NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].op == op) *name = table[i].name, *rname = table[i].rname;
}

/* Calls obj.NAME(arg) when obj is an object whose class has it: true then
 * (the result in out, or false ok with the error set). */
static bool call_dunder(Session *s, const Node *n, const Value *obj, const char *name,
                        const Value *arg, Value *out, bool *ok) {
    Value m;
    if (obj->kind != VAL_INSTANCE || !name) return false;
    const Value *method = value_method_of(obj, name, strlen(name));
    if (method) { /* a method of its class (a + b of two Values): no bound method made */
        UserFunc *fn = method->as.function;
        fn->refs++; /* the call may replace the class's attribute */
        Value held = {.kind = VAL_FUNCTION, .as.function = fn}, args[2];
        int count = 0;
        value_copy(obj, &args[count++]);
        if (arg) value_copy(arg, &args[count++]);
        Node at = {.kind = NODE_CALL, .line = n->line, .col = n->col};
        *out = value_void();
        *ok = apply_user(s, &at, fn, args, count, NULL, out);
        value_release(&held);
        return true;
    }
    if (!value_getattr(obj, name, strlen(name), &m)) return false;
    *ok = s->call_value(s, n->line, n->col, &m, arg, arg ? 1 : 0, out);
    value_release(&m);
    return true;
}

/* a op b with an object on either side: Python's dispatch (a.__add__(b),
 * else b.__radd__(a)); == and != fall back to identity. */
static bool object_binary(Session *s, const Node *n, TokenType op, const Value *a,
                          const Value *b, Value *out) {
    const char *name, *rname;
    bool ok;
    dunders(op, &name, &rname);
    if (call_dunder(s, n, a, name, b, out, &ok) || call_dunder(s, n, b, rname, a, out, &ok))
        return ok;
    if (op == TOK_EQ || op == TOK_NE) {
        bool same = value_equal(a, b);
        *out = value_bool(op == TOK_EQ ? same : !same);
        return true;
    }
    return session_fail(s, n->line, n->col, "TypeError: unsupported operand type(s) for %s: "
                        "'%s' and '%s'", token_text(op), value_type_name(a), value_type_name(b));
}

/* a op b of two numbers, a float among them (micrograd's arithmetic:
 * self.data + other.data, -0.05 * p.grad): what the general path below
 * computes for + - * and the comparisons (number_op), without its checks;
 * false, out untouched, for other operators and kinds. */
static bool float_binary(TokenType op, const Value *a, const Value *b, Value *out) {
    if ((a->kind != VAL_NUMBER && b->kind != VAL_NUMBER) || !value_is_scalar(a) ||
        !value_is_scalar(b))
        return false;
    switch (op) {
    case TOK_SLASH:
        if (value_scalar(b) == 0) return false; /* ZeroDivisionError, or .ag's inf */
        /* fall through */
    case TOK_PLUS: case TOK_MINUS: case TOK_STAR:
        *out = value_number(number_op(op, value_scalar(a), value_scalar(b)));
        out->literal = a->literal && b->literal;
        return true;
    case TOK_EQ: case TOK_NE: case TOK_LT: case TOK_LE: case TOK_GT: case TOK_GE:
        *out = value_bool(number_op(op, value_scalar(a), value_scalar(b)) != 0);
        return true;
    default:
        return false;
    }
}

/* Python's int op int where the result is an int64 (+, -, *: else
 * pyops_binary says what Python does) or a comparison; false otherwise. */
static bool int_binary(TokenType op, const Value *a, const Value *b, Value *out) {
    if (a->kind != VAL_INT || b->kind != VAL_INT) return false;
    int64_t x = a->as.integer, y = b->as.integer, r;
    switch (op) {
    case TOK_PLUS: if (__builtin_add_overflow(x, y, &r)) return false; break;
    case TOK_MINUS: if (__builtin_sub_overflow(x, y, &r)) return false; break;
    case TOK_STAR: if (__builtin_mul_overflow(x, y, &r)) return false; break;
    case TOK_EQ: return *out = value_bool(x == y), true;
    case TOK_NE: return *out = value_bool(x != y), true;
    case TOK_LT: return *out = value_bool(x < y), true;
    case TOK_LE: return *out = value_bool(x <= y), true;
    case TOK_GT: return *out = value_bool(x > y), true;
    case TOK_GE: return *out = value_bool(x >= y), true;
    default: return false;
    }
    *out = value_integer(r);
    return true;
}

static bool apply_binary(Session *s, const Node *n, TokenType op, const Value *a, const Value *b,
                         Value *out) {
    bool done;
    if (float_binary(op, a, b, out)) return true;
    if (s->python && int_binary(op, a, b, out)) return true;
    if ((a->kind == VAL_INSTANCE || b->kind == VAL_INSTANCE) && op != TOK_IS &&
        op != TOK_IS_NOT && op != TOK_IN && op != TOK_NOT_IN)
        return object_binary(s, n, op, a, b, out);
    if (op == TOK_IS || op == TOK_IS_NOT || op == TOK_IN || op == TOK_NOT_IN || s->python) {
        bool ok = pyops_binary(s, n, op, a, b, out, &done);
        if (done) return ok;
    }
    if (value_is_scalar(a) && value_is_scalar(b) && (op == TOK_AMP || op == TOK_PIPE ||
                                                      op == TOK_CARET || op == TOK_LSHIFT ||
                                                      op == TOK_RSHIFT))
        return session_fail(s, n->line, n->col, "TypeError: unsupported operand type(s) for %s: "
                            "'%s' and '%s'", token_text(op), value_type_name(a), value_type_name(b));
    if (value_is_scalar(a) && value_is_scalar(b) && op != TOK_AT) {
        double r = number_op(op, value_scalar(a), value_scalar(b));
        if (token_compares(op)) *out = value_bool(r != 0);
        else *out = value_number(r), out->literal = a->literal && b->literal;
        return true;
    }
    if ((op == TOK_EQ || op == TOK_NE) && (a->kind == VAL_NONE || b->kind == VAL_NONE)) {
        bool same = a->kind == b->kind; /* x.grad == None */
        *out = value_bool(op == TOK_EQ ? same : !same);
        return true;
    }
    return apply_tensor_binary(s, n, op, a, b, out);
}

/* A Python int beside a float64 tensor: the float64 number it converts to
 * in PyTorch's common type (s + i), so that the op takes the float64 path
 * (py_loop); else NULL. Not a bool: x - True is PyTorch's error, which
 * the engine gives a bool operand. */
static Tensor *number_as_float64(const Value *number, const Value *other) {
    bool float64 = other->kind == VAL_TENSOR && other->as.tensor->dtype == AG_FLOAT64;
    return float64 && number->kind == VAL_INT ? tensor_number(value_scalar(number), AG_FLOAT64)
                                              : NULL;
}

/* a op b through the engine, each operand made a tensor. */

static bool apply_tensor_binary(Session *s, const Node *n, TokenType op, const Value *a,
                                const Value *b, Value *out) {
    if (op == TOK_LSHIFT || op == TOK_RSHIFT) /* ints' shifts are pyops' */
        return session_fail(s, n->line, n->col, "TypeError: ag has no %s of tensors (PyTorch's "
                            "bitwise_%s_shift): only of ints", token_text(op),
                            op == TOK_LSHIFT ? "left" : "right");
    Tensor *ta = number_as_float64(a, b), *tb = number_as_float64(b, a);
    if (!ta && !operand_tensor(s, n->left ? n->left : n, a, NULL, "left", op, &ta)) {
        tensor_release(tb);
        return false;
    }
    if (!tb && !operand_tensor(s, n->right ? n->right : n, b, NULL, "right", op, &tb)) {
        tensor_release(ta);
        return false;
    }
    Tensor *r;
    if (s->python && op == TOK_SLASH && value_is_scalar(a) && b->kind == VAL_TENSOR) {
        Tensor *inverse = tensor_reciprocal(tb); /* 2.0 / x: PyTorch's x.reciprocal() * 2.0 */
        r = inverse ? tensor_mul(inverse, ta) : NULL;
        tensor_release(inverse);
    } else {
        r = tensor_op(op, ta, tb);
    }
    tensor_release(ta);
    tensor_release(tb);
    if (r && r->grad_fn && s->python && op == TOK_MINUS && value_is_scalar(a))
        r->op_name = r->grad_fn->name = "RsubBackward1"; /* 4.2 - b: PyTorch's rsub */
    return engine_result(s, n, r, out);
}

/* a and b, a or b: short-circuit, a boolean (in a .py file, Python's: the
 * operand that decided). */
static bool eval_logical(Session *s, const Node *n, Value *out) {
    Value v;
    bool t;
    if (!eval_expression(s, n->left, &v)) return false;
    bool ok = truth(s, n->left, &v, &t);
    if (ok && s->python) {
        if (t == (n->op == TOK_OR)) return *out = v, true;
        value_release(&v);
        return eval_expression(s, n->right, out);
    }
    value_release(&v);
    if (!ok) return false;
    if (t == (n->op == TOK_OR)) {
        *out = value_bool(t);
        return true;
    }
    if (!eval_expression(s, n->right, &v)) return false;
    ok = truth(s, n->right, &v, &t);
    value_release(&v);
    *out = value_bool(t);
    return ok;
}

static bool eval_binary(Session *s, const Node *n, Value *out) {
    if (n->op == TOK_AND || n->op == TOK_OR) return eval_logical(s, n, out);
    Value a, b;
    if (!eval_expression(s, n->left, &a)) return false;
    if (!eval_expression(s, n->right, &b)) {
        value_release(&a);
        return false;
    }
    bool ok = apply_binary(s, n, n->op, &a, &b, out);
    value_release(&a);
    value_release(&b);
    return ok;
}

/* ~v of a value that is no object: an int's complement, a tensor's
 * bitwise_not (a mask's negation). */
static bool invert(Session *s, const Node *n, const Value *v, Value *out) {
    if (value_is_int(v) && s->python) return *out = value_integer(~value_int(v)), true;
    if (v->kind == VAL_TENSOR) {
        Tensor *t = v->as.tensor;
        if (ag_dtype_is_floating((AgDtype)t->dtype))
            return session_fail(s, n->line, n->col, "TypeError: ~ (operator.invert) is only "
                                "implemented on integer and Boolean-type tensors");
        return engine_result(s, n, tensor_bitwise_not(t), out);
    }
    return session_fail(s, n->line, n->col, "TypeError: bad operand type for unary ~: '%s'",
                        value_type_name(v));
}

static bool eval_unary(Session *s, const Node *n, Value *out) {
    Value v;
    if (!eval_expression(s, n->left, &v)) return false;
    bool ok = true;
    const char *dunder = n->op == TOK_MINUS ? "__neg__" : n->op == TOK_TILDE ? "__invert__" : "__pos__";
    if (v.kind == VAL_INSTANCE && n->op != TOK_NOT) { /* -obj: its __neg__ */
        if (!call_dunder(s, n, &v, dunder, NULL, out, &ok))
            ok = session_fail(s, n->line, n->col, "TypeError: bad operand type for unary %s: "
                              "'%s'", token_text(n->op), value_type_name(&v));
        value_release(&v);
        return ok;
    }
    if (n->op == TOK_NOT) {
        bool t = false; /* truth leaves it unset when it fails */
        ok = truth(s, n->left, &v, &t);
        *out = value_bool(!t);
    } else if (n->op == TOK_TILDE) {
        if (v.kind == VAL_LIST && !stacked(s, n->left, &v)) ok = false;
        else ok = invert(s, n, &v, out);
    } else if (s->python && value_is_int(&v)) {
        int64_t x = value_int(&v);
        if (x == INT64_MIN && n->op == TOK_MINUS)
            ok = session_fail(s, n->line, n->col, "OverflowError: -(-2**63) passes ag's 64-bit ints");
        *out = (Value){.kind = VAL_INT, .as.integer = n->op == TOK_MINUS ? -x : x};
    } else if (value_is_scalar(&v)) {
        double x = value_scalar(&v);
        *out = value_number(n->op == TOK_MINUS ? -x : x);
        out->literal = v.literal;
    } else {
        Tensor *t;
        ok = to_tensor(s, n->left, &v, n->op == TOK_MINUS ? "the operand of '-'"
                                                           : "the operand of '+'", &t);
        if (ok && n->op == TOK_PLUS) *out = value_tensor(t); /* +x is x itself */
        else if (ok) ok = engine_result(s, n, tensor_neg(t), out), tensor_release(t);
    }
    value_release(&v);
    return ok;
}

/* ======================================================================
 * Attributes: x.grad, x.shape, x.T, x.ndim, x.requires_grad, x.is_leaf,
 * x.grad_fn, x.data
 * ====================================================================== */

static bool attr_is(const Node *n, const char *name) {
    return n->as.text.length == strlen(name) && memcmp(n->as.text.text, name, n->as.text.length) == 0;
}

/* How to name the object of an attribute in a message: its name if it is one. */
static void object_name(const Node *obj, char *buf, size_t size) {
    if (obj->kind == NODE_NAME) snprintf(buf, size, "%.*s", name_len(obj), obj->as.text.text);
    else snprintf(buf, size, "this value");
}

static bool attr_grad(Session *s, const Node *n, Tensor *t, Value *out) {
    if (!tensor_is_leaf(t) && !t->retains_grad && s->python) /* PyTorch's None (and a warning) */
        return *out = value_none(), true;
    if (!tensor_is_leaf(t) && !t->retains_grad && n->left->kind == NODE_NAME) {
        char who[64]; /* named only here: w.grad is read in every training step */
        object_name(n->left, who, sizeof who);
        return session_fail(s, n->line, n->col,
                            "%s.grad: only leaf tensors keep their gradient, and %s is an "
                            "intermediate result (%s); its gradient is freed during backward",
                            who, who, t->op_name);
    }
    if (!tensor_is_leaf(t) && !t->retains_grad)
        return session_fail(s, n->line, n->col, ".grad of an intermediate result (%s): only "
                            "leaf tensors keep their gradient", t->op_name);
    *out = t->grad ? value_tensor(tensor_retain(t->grad)) : value_none();
    return true;
}

/* obj.NAME of a built-in value's method, not called (f = x.float,
 * getattr(xs, 'append')): true with the method bound to obj in out, which
 * a call runs as obj.NAME(...) would, or with *failed and the error set
 * (memory); false when obj has no such method. */
static bool bound_builtin(Session *s, const Node *n, const Value *obj, Value *out, bool *failed) {
    *failed = false;
    if (!s->python) return false;
    const Builtin *row = builtin_method(obj->kind, n->as.text.text, n->as.text.length);
    if (!row && obj->kind == VAL_TENSOR) {
        const Builtin *b = builtin_find(n->as.text.text, n->as.text.length);
        if (b && (b->flags & BI_METHOD)) row = b;
    }
    if (!row) return false;
    Bound *b = calloc(1, sizeof *b);
    if (!b) {
        *failed = true;
        session_set_error(s, n->line, n->col, "MemoryError");
        return true;
    }
    b->refs = 1;
    b->func = builtin_as_value(row);
    value_copy(obj, &b->self);
    *out = (Value){.kind = VAL_METHOD, .as.bound = b};
    return true;
}

static bool tensor_attr(Session *s, const Node *n, Tensor *t, Value *out) {
    if (attr_is(n, "grad")) return attr_grad(s, n, t, out);
    if (attr_is(n, "shape")) {
        if (!value_shape(t->ndim, t->shape, out)) return session_fail(s, n->line, n->col, "out of memory");
    } else if (attr_is(n, "T")) {
        /* 0-d and 1-D: the tensor itself, as PyTorch returns it */
        if (t->ndim < 2) *out = value_tensor(tensor_retain(t));
        else return engine_result(s, n, tensor_transpose(t, -2, -1), out);
    } else if (attr_is(n, "ndim")) {
        *out = count_value(s, t->ndim);
    } else if (attr_is(n, "requires_grad")) {
        *out = value_bool(t->requires_grad);
    } else if (attr_is(n, "retains_grad")) {
        *out = value_bool(t->retains_grad);
    } else if (attr_is(n, "is_leaf")) {
        *out = value_bool(tensor_is_leaf(t));
    } else if (attr_is(n, "grad_fn")) {
        *out = t->grad_fn ? (Value){.kind = VAL_GRAD_FN,
                                    .as.grad_fn = {t->op_name, t->grad_fn,
                                                   t->graph_generation << 32 | t->grad_fn->seq}}
                          : value_none();
    } else if (attr_is(n, "data")) {
        return engine_result(s, n, tensor_data(t), out);
    } else if (attr_is(n, "_version")) {
        *out = s->python ? (Value){.kind = VAL_INT, .as.integer = tensor_version(t)}
                         : value_number(tensor_version(t));
    } else if (attr_is(n, "dtype")) {
        *out = value_dtype((AgDtype)t->dtype);
    } else if (attr_is(n, "device")) { /* all on the CPU: torch.device('cpu') is 'cpu' here */
        *out = (Value){.kind = VAL_STRING, .as.string = {"cpu", 3, NULL}};
    } else {
        Value self = value_tensor(t);
        bool failed;
        if (bound_builtin(s, n, &self, out, &failed)) return !failed;
        const Builtin *b = builtin_find(n->as.text.text, n->as.text.length);
        if (b && (b->flags & BI_METHOD))
            return session_fail(s, n->line, n->col, ".%.*s is a method: call it, as in "
                                "x.%.*s()", name_len(n), n->as.text.text, name_len(n),
                                n->as.text.text);
        return session_fail(s, n->line, n->col, "tensors have no attribute '.%.*s' (they have "
                            ".grad .shape .T .ndim .requires_grad .is_leaf .grad_fn .data ._version)",
                            name_len(n), n->as.text.text);
    }
    return true;
}

/* Parses and runs Python source in the session as it stands (its frame,
 * its dialect), a statement at a time: torch.nn's source, a script's own
 * module. */
static bool run_python_text(Session *s, const char *text, size_t len, int first_line) {
    AstArena arena = {0};
    Parser p;
    parser_init_mode(&p, text, len, first_line, &arena, true, true);
    bool ok = true;
    for (Stmt *stmt; ok;) {
        ParseStatus st = parse_statement(&p, &stmt);
        if (st == PARSE_END) break;
        ok = st == PARSE_OK ? exec_statement(s, stmt) != EXEC_ERROR
                            : session_fail(s, p.error_line, p.error_col, "%s", p.error);
        ast_arena_free(&arena);
        p.arena = &arena;
    }
    parser_free(&p);
    ast_arena_free(&arena);
    return ok;
}

/* Runs the source of a module written in Python (torch_nn.c) at the top
 * level, in the .py dialect, as the session's own statements (its classes
 * are the session's values); its lines are numbered from first_line. */
static bool run_torch_source(Session *s, const char *source, int first_line) {
    Frame *frame = s->frame;
    bool python = s->python;
    int quiet = s->quiet, depth = s->call_depth;
    s->frame = NULL;
    s->quiet = 1;
    session_set_python(s, true);
    s->module_source++;
    bool ok = run_python_text(s, source, strlen(source), first_line);
    s->module_source--;
    s->frame = frame;
    s->quiet = quiet;
    s->call_depth = depth;
    session_set_python(s, python);
    return ok;
}

/* The modules written in Python (torch_nn.c), each with the hidden global
 * holding its names and its source, run on the first use of one: all of
 * torch.nn's, torch.nn.init's, torch.optim.lr_scheduler's and
 * torch.utils.data's, and torch.optim's LBFGS (its other optimizers are
 * builtins: builtins_optim.c). */
static const struct {
    const char *module, *global;
    const char *only; /* the one name it has there, or NULL: all of the module's */
    const char *source;
} python_modules[] = {
    {"torch.nn", "__torch_nn__", NULL, module_torch_nn_source},
    {"torch.optim.lr_scheduler", "__torch_lr_scheduler__", NULL, module_torch_lr_scheduler_source},
    {"torch.optim", "__torch_optim__", "LBFGS", module_torch_optim_source},
    {"torch.nn.init", "__torch_nn_init__", NULL, module_torch_nn_init_source},
    {"torch.nn.utils", "__torch_nn_utils__", NULL, module_torch_nn_utils_source},
    {"torch.utils.data", "__torch_utils_data__", NULL, module_torch_utils_data_source},
    {"torch.autograd.functional", "__torch_autograd_functional__", NULL,
     module_torch_autograd_functional_source},
    {"torch.func", "__torch_func__", NULL, module_torch_func_source},
    {"functorch", "__torch_func__", NULL, module_torch_func_source},
    {"torch.autograd", "__torch_autograd_function__", "Function",
     module_torch_autograd_function_source},
    {"torch.autograd", "__torch_autograd_function__", "_RemovableHandle",
     module_torch_autograd_function_source},
    {"torch.autograd", "__torch_autograd_function__", "once_differentiable",
     module_torch_autograd_function_source},
    {"torch.autograd", "__torch_autograd_function__", "FunctionCtx",
     module_torch_autograd_function_source},
    {"torch.autograd", "__torch_autograd_gradcheck__", "gradcheck",
     module_torch_autograd_gradcheck_source},
    {"torch.autograd", "__torch_autograd_gradcheck__", "gradgradcheck",
     module_torch_autograd_gradcheck_source},
    {"torch.nn.functional", "__torch_nn_functional__", "cross_entropy",
     module_torch_nn_functional_source},
    {"torch.nn.functional", "__torch_nn_functional__", "nll_loss",
     module_torch_nn_functional_source},
    {"typing", "__typing__", NULL, module_typing_source},
    {"builtins", "__io__", "open", module_io_source},               /* python_builtin */
    {"builtins", "__property__", "property", module_property_source},
    {"builtins", "__object__", "object", module_object_source},
    {"builtins", "__slice__", "slice", module_slice_source},
    {"builtins", "__exceptions__", NULL, module_exceptions_source}, /* the other names */
    {"sys", "__sys__", NULL, module_sys_source}, /* stdout, exit, ...; its functions are builtins */
    {"os", "__os__", NULL, module_os_source},
    {"os.path", "__os_path__", NULL, module_os_path_source},
    {"functools", "__functools__", NULL, module_functools_source},
    {"itertools", "__itertools__", NULL, module_itertools_source},
    {"torch", "__torch_save__", "save", module_torch_save_source},
    {"collections", "__collections_namedtuple__", "namedtuple", module_namedtuple_source},
    {"torch", "__torch_grad_mode__", "no_grad", module_torch_grad_mode_source},
    {"torch", "__torch_grad_mode__", "enable_grad", module_torch_grad_mode_source},
    {"torch", "__torch_grad_mode__", "inference_mode", module_torch_grad_mode_source},
    {"torch", "__torch_save__", "load", module_torch_save_source},
};

/* The row of python_modules of module's NAME when it is written in
 * Python; -1 otherwise (a builtin's name, or any other module). */
static int python_module_row(const char *module, const char *name, size_t len) {
    for (size_t i = 0; i < sizeof python_modules / sizeof python_modules[0]; i++) {
        const char *only = python_modules[i].only;
        if (strcmp(module, python_modules[i].module) == 0 &&
            (!only || (strlen(only) == len && memcmp(only, name, len) == 0)))
            return (int)i;
    }
    return -1;
}

/* NAME of a module written in Python (torch.nn's Linear) into out: true
 * if it has one. The source runs on first need; its names stay in hidden
 * globals. false with *failed when that fails (the error set at n). */
static bool python_module_name(Session *s, const Node *n, const char *module, const char *name,
                               size_t len, Value *out, bool *failed) {
    *failed = false;
    int row = python_module_row(module, name, len);
    if (row < 0) return false;
    const char *global = python_modules[row].global;
    Var *v = session_lookup(s, global, strlen(global));
    if (!v || v->value.kind != VAL_DICT) {
        int first_line = TORCH_NN_FIRST_LINE + row * TORCH_SOURCE_LINES;
        if (!run_torch_source(s, python_modules[row].source, first_line) ||
            !(v = session_lookup(s, global, strlen(global))) ||
            v->value.kind != VAL_DICT) {
            char inner[sizeof s->error];
            memcpy(inner, s->error, sizeof inner);
            *failed = true;
            session_set_error(s, n->line, n->col, "ag's %s failed to load: %.*s", module, 400, inner);
            return false;
        }
    }
    Value key;
    if (!value_string(name, len, &key)) return *failed = true, session_fail(s, n->line, n->col, "MemoryError");
    Value *found = value_dict_get(v->value.as.dict, &key);
    value_release(&key);
    return found && value_copy(found, out);
}

/* Whether a name may be one of CPython's exception classes (exceptions.c):
 * only such a name loads them. */
static bool exception_like(const char *name, size_t len) {
    static const char *const ends[] = {"Error", "Exception", "Warning", "StopIteration",
                                       "KeyboardInterrupt", "SystemExit", "GeneratorExit"};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        size_t k = strlen(ends[i]);
        if (len >= k && memcmp(name + len - k, ends[i], k) == 0) return true;
    }
    return false;
}

/* The built-in exception class the name n names (ValueError), or open
 * or property, which ag writes in Python (exceptions.c, pyio.c), its source run on
 * first need: true with the value in out; false, with *failed when loading
 * it failed (the error set), for a name that is none. */
static bool python_builtin(Session *s, const Node *n, Value *out, bool *failed) {
    *failed = false;
    const char *name = n->as.text.text;
    size_t len = n->as.text.length;
    if (!exception_like(name, len) && !(len == 4 && memcmp(name, "open", 4) == 0) &&
        !(len == 8 && memcmp(name, "property", 8) == 0) && !(len == 5 && memcmp(name, "slice", 5) == 0) &&
        !(len == 6 && memcmp(name, "object", 6) == 0))
        return false;
    return python_module_name(s, n, "builtins", name, len, out, failed);
}

/* module.NAME, n's text: a submodule, a constant, a name of a module
 * written in Python, a dtype or a function (a value in a .py file). False
 * with *missing set and no error when the module has no such name; false
 * with the error set otherwise. */
static bool module_attr_find(Session *s, const Node *n, const char *module, Value *out,
                             bool *missing) {
    const char *name = n->as.text.text;
    size_t len = n->as.text.length;
    const char *sub = module_submodule(module, name, len);
    double constant;
    bool failed;
    *missing = false;
    if (session_module_attr(s, module, name, len, out)) return true;
    if (sub) return *out = (Value){.kind = VAL_MODULE, .as.module = sub}, true;
    if (module_constant(module, name, len, &constant)) return *out = value_number(constant), true;
    bool flag;
    if (module_flag(module, name, len, &flag)) return *out = value_bool(flag), true;
    if (python_module_name(s, n, module, name, len, out, &failed)) return true;
    if (failed) return false;
    const char *dtype = strcmp(module, "torch") == 0 ? module_dtype(name, len) : NULL;
    if (dtype) return *out = (Value){.kind = VAL_DTYPE, .as.module = dtype}, true;
    const Builtin *b = builtin_of_module(module, name, len);
    if (b && s->python) return builtin_value(b, out);
    if (b)
        return session_fail(s, n->line, n->col, "%s.%.*s is a function: call it (functions as "
                            "values are not supported yet)", module, name_len(n), name);
    *missing = true;
    return false;
}

/* module.NAME at n, or Python's AttributeError. */
static bool module_attr(Session *s, const Node *n, const char *module, Value *out) {
    bool missing;
    if (module_attr_find(s, n, module, out, &missing)) return true;
    return missing ? session_fail(s, n->line, n->col, "AttributeError: module '%s' has no "
                                  "attribute '%.*s'", module, name_len(n), n->as.text.text)
                   : false;
}

/* module_attr for a builtin (Session.module_value: getattr(torch, "tanh")) */
static bool module_value_for_builtin(Session *s, int line, int col, const char *module,
                                     const char *name, size_t length, Value *out, bool *missing) {
    Node at = {.kind = NODE_NAME, .line = line, .col = col, .as.text = {name, length}};
    if (!missing) return module_attr(s, &at, module, out);
    return module_attr_find(s, &at, module, out, missing);
}

/* type(v)() for a type no builtin makes (builtin_type_only): Python's
 * TypeError. */
static bool cannot_create(Session *s, int line, int col, const Value *type) {
    return session_fail(s, line, col, "TypeError: cannot create '%s' instances",
                        type->as.builtin.name);
}

/* A builtin's __name__: its name, less a type's module (torch.Size: Size). */
static const char *builtin_name(const Value *b) {
    const char *dot = b->as.builtin.type ? strrchr(b->as.builtin.name, '.') : NULL;
    return dot ? dot + 1 : b->as.builtin.name;
}

/* f.__name__, Cls.__name__, obj.__class__, obj.__dict__: true when n names
 * one of them. */
static bool special_attr(Session *s, const Node *n, const Value *obj, Value *out) {
    const char *name = NULL;
    if (attr_is(n, "__name__"))
        name = obj->kind == VAL_FUNCTION ? obj->as.function->name
               : obj->kind == VAL_BUILTIN ? builtin_name(obj)
               : obj->kind == VAL_CLASS ? obj->as.cls->name : NULL;
    if (name) {
        size_t len = obj->kind == VAL_FUNCTION ? obj->as.function->name_length : strlen(name);
        return value_string(name, len, out) || session_fail(s, n->line, n->col, "MemoryError");
    }
    if (attr_is(n, "__class__"))
        return builtin_type_of(obj, out) || session_fail(s, n->line, n->col, "MemoryError");
    if (obj->kind == VAL_INSTANCE && attr_is(n, "__dict__")) { /* its attributes, shared (vars) */
        obj->as.object->attrs->refs++;
        *out = (Value){.kind = VAL_DICT, .as.dict = obj->as.object->attrs};
        return true;
    }
    return false;
}

/* Python's AttributeError for obj.NAME at n. */
static bool no_attribute(Session *s, const Node *n, const Value *obj) {
    if (obj->kind == VAL_CLASS)
        return session_fail(s, n->line, n->col, "AttributeError: type object '%s' has no "
                            "attribute '%.*s'", obj->as.cls->name, name_len(n), n->as.text.text);
    return session_fail(s, n->line, n->col, "AttributeError: '%s' object has no attribute "
                        "'%.*s'", obj->kind == VAL_METHOD ? "super" : value_type_name(obj),
                        name_len(n), n->as.text.text);
}

/* Python's fallback where obj.NAME is not found: its class's
 * __getattr__(obj, NAME), whose result (or AttributeError) it gives; or
 * no_attribute's error when the class has none. */
static bool attr_fallback(Session *s, const Node *n, const Value *obj, Value *out) {
    const Value *method = value_object_defines(obj, "__getattr__")
                              ? value_method_of(obj, "__getattr__", 11) : NULL;
    if (!method) return no_attribute(s, n, obj);
    Value args[2];
    value_copy(obj, &args[0]);
    if (!value_string(n->as.text.text, n->as.text.length, &args[1])) {
        value_release(&args[0]);
        return session_fail(s, n->line, n->col, "MemoryError");
    }
    bool ok = s->call_value(s, n->line, n->col, method, args, 2, out);
    value_release(&args[0]);
    value_release(&args[1]);
    return ok;
}

/* The descriptor method NAME (__get__, __set__, __set_name__) of d, an
 * attribute of a class: d's class's, or NULL. */
static const Value *descriptor_method(const Value *d, const char *name) {
    return d->kind == VAL_INSTANCE ? value_class_lookup(d->as.object->cls, name, strlen(name))
                                   : NULL;
}

/* d.NAME(args...) for a descriptor d (borrowed arguments); false with the
 * error set. */
static bool call_descriptor(Session *s, const Node *at, const Value *d, const char *name,
                            const Value *args, int n, Value *out) {
    Value m;
    if (!value_getattr(d, name, strlen(name), &m))
        return session_fail(s, at->line, at->col, "AttributeError: '%s' object has no attribute "
                            "'%s'", value_type_name(d), name);
    bool ok = s->call_value(s, at->line, at->col, &m, args, n, out);
    value_release(&m);
    return ok;
}

/* obj.attr read as *v from obj's class: when it is a descriptor (a
 * property), what its __get__(obj, type(obj)) gives instead. */
static bool descriptor_get(Session *s, const Node *at, const Value *obj, Value *v) {
    if (!s->descriptors || obj->kind != VAL_INSTANCE || !descriptor_method(v, "__get__"))
        return true;
    Value args[2] = {*obj, {.kind = VAL_CLASS, .as.cls = obj->as.object->cls}}, r;
    bool ok = call_descriptor(s, at, v, "__get__", args, 2, &r);
    value_release(v);
    *v = ok ? r : value_void();
    return ok;
}

/* NAME.attr where NAME holds an object (.py): read from the variable as
 * it is, with no reference of its own taken (value_getattr runs no code
 * that could rebind it). False when NAME holds no object: *done is then
 * false and the caller takes the general path. */
static bool object_attr_of_name(Session *s, const Node *n, Value *out, bool *done) {
    *done = false;
    if (!s->python || n->left->kind != NODE_NAME || n->left->torch) return false;
    const Value *obj = resolve(s, n->left).value;
    if (!obj || obj->kind != VAL_INSTANCE) return false;
    *done = true;
    if (special_attr(s, n, obj, out)) return true;
    const Value *own = value_own_attr(obj->as.object, name_ident(n), n->as.text.length,
                                      &((Node *)n)->attr_slot);
    if (own) return value_copy(own, out);
    if (!value_getattr(obj, n->as.text.text, n->as.text.length, out)) {
        Value held; /* __getattr__ may rebind the name that holds obj */
        value_copy(obj, &held);
        bool ok = attr_fallback(s, n, &held, out);
        value_release(&held);
        return ok;
    }
    return descriptor_get(s, n, obj, out);
}

static bool attr_of(Session *s, const Node *n, Value obj, Value *out);

static bool eval_attr(Session *s, const Node *n, Value *out) {
    Value obj;
    bool done, found = object_attr_of_name(s, n, out, &done);
    if (done) return found;
    if (n->left->kind == NODE_NAME && !n->left->torch && !s->frame &&
        !global_var(s, n->left) && habit_name(s, n->left))
        return false; /* F.relu, nn.Linear: say what to write */
    if (!eval_expression(s, n->left, &obj)) return false;
    return attr_of(s, n, obj, out);
}

/* The attribute n names of obj, n->left's value (taken). */
static bool attr_of(Session *s, const Node *n, Value obj, Value *out) {
    if (obj.kind == VAL_MODULE) return module_attr(s, n, obj.as.module, out);
    if (s->python && special_attr(s, n, &obj, out)) return value_release(&obj), true;
    if (obj.kind == VAL_INSTANCE || obj.kind == VAL_CLASS || obj.kind == VAL_METHOD) {
        bool own = !s->descriptors || (obj.kind == VAL_INSTANCE &&
                   value_own_attr(obj.as.object, n->as.text.text, n->as.text.length, NULL));
        bool found = value_getattr(&obj, n->as.text.text, n->as.text.length, out);
        bool ok = found || attr_fallback(s, n, &obj, out);
        if (ok && found && !own) ok = descriptor_get(s, n, &obj, out);
        value_release(&obj);
        return ok;
    }
    if (obj.kind == VAL_LIST && obj.as.list->fields) { /* torch.max(x, 1).values */
        const ValueList *l = obj.as.list;
        for (int i = 0; i < l->count; i++)
            if (attr_is(n, l->fields[i])) {
                value_copy(&l->items[i], out);
                value_release(&obj);
                return true;
            }
        bool ok = session_fail(s, n->line, n->col, "AttributeError: '%s' object has no "
                               "attribute '%.*s'", l->type_name, name_len(n), n->as.text.text);
        value_release(&obj);
        return ok;
    }
    if (s->python && value_is_scalar(&obj) && (attr_is(n, "real") || attr_is(n, "imag"))) {
        bool real = attr_is(n, "real"), number = obj.kind == VAL_NUMBER;
        *out = real ? (number ? obj : value_integer(value_int(&obj)))
                    : (number ? value_number(0) : value_integer(0));
        return true;
    }
    bool plain = obj.kind == VAL_LIST || obj.kind == VAL_DICT || obj.kind == VAL_STRING ||
                 obj.kind == VAL_NONE || value_is_scalar(&obj);
    if (s->python && plain) {
        bool failed, ok = bound_builtin(s, n, &obj, out, &failed) ? !failed
                          : no_attribute(s, n, &obj); /* Python's AttributeError, which except takes */
        value_release(&obj);
        return ok;
    }
    if (!stacked(s, n->left, &obj)) return false;
    bool tensor_like = obj.kind == VAL_TENSOR || (obj.kind == VAL_NUMBER && obj.literal);
    if (obj.kind == VAL_OPTIM && attr_is(n, "param_groups")) {
        bool ok = optim_param_groups(obj.as.optim, out) || session_fail(s, n->line, n->col, "MemoryError");
        value_release(&obj);
        return ok;
    }
    if (!tensor_like) {
        bool ok = s->python ? no_attribute(s, n, &obj) /* Python's AttributeError */
                  : session_fail(s, n->line, n->col, "attribute '.%.*s' of %s: only tensors have "
                                 "attributes", name_len(n), n->as.text.text, value_kind_name(&obj));
        value_release(&obj);
        return ok;
    }
    Tensor *t;
    bool ok = to_tensor(s, n->left, &obj, "the object", &t);
    value_release(&obj);
    if (!ok) return false;
    ok = tensor_attr(s, n, t, out);
    tensor_release(t);
    return ok;
}

/* ======================================================================
 * Indexing
 * ====================================================================== */

/* An integer index in [-size, size) of an object with size items (along
 * dimension dim of a tensor, or -1). */
static bool index_number(Session *s, const Node *at, const Value *v, int dim, int64_t size,
                         int64_t *out) {
    double x = value_is_scalar(v) ? value_scalar(v)
               : v->kind == VAL_TENSOR && v->as.tensor->numel == 1 ? tensor_values(v->as.tensor)[0] : NAN;
    if (x == floor(x) && fabs(x) > 0x1p62) /* x[2**63]: an integer, past every size */
        return session_fail(s, at->line, at->col, "index %.0f is out of range for size %lld",
                            x, (long long)size);
    if (x != floor(x) || fabs(x) > 0x1p62)
        return session_fail(s, at->line, at->col, "an index must be an integer, not %s",
                            isnan(x) ? value_kind_name(v) : "a fraction");
    int64_t i = (int64_t)x;
    if ((i < -size || i >= size) && dim >= 0 && s->python) /* PyTorch's words */
        return session_fail(s, at->line, at->col, "IndexError: index %lld is out of bounds for "
                            "dimension %d with size %lld", (long long)i, dim, (long long)size);
    if ((i < -size || i >= size) && dim >= 0)
        return session_fail(s, at->line, at->col, "index %lld is out of range for dimension %d "
                            "of size %lld", (long long)i, dim, (long long)size);
    if (i < -size || i >= size)
        return session_fail(s, at->line, at->col, "index %lld is out of range for size %lld",
                            (long long)i, (long long)size);
    *out = i < 0 ? i + size : i;
    return true;
}

/* The items of x[...] for the engine, and the values their tensors live in. */
typedef struct {
    AgIndex items[MAX_ARGS];
    Value held[MAX_ARGS];
    const Node *at[MAX_ARGS]; /* the item's node (an ellipsis's for its slices) */
    int count;
} IndexItems;

static void index_items_free(IndexItems *ix) {
    for (int i = 0; i < ix->count; i++) value_release(&ix->held[i]);
    ix->count = 0;
}

/* An integer from a number or a one-element tensor (an index, a slice bound). */
static bool index_integer(Session *s, const Node *at, const Value *v, const char *what,
                          int64_t *out) {
    if (v->kind == VAL_INT) return *out = v->as.integer, true;
    double x = v->kind == VAL_NUMBER ? v->as.number
               : v->kind == VAL_TENSOR && v->as.tensor->numel == 1 ? tensor_values(v->as.tensor)[0] : NAN;
    if (x == floor(x) && fabs(x) > 0x1p62) /* 2**63: an integer, too large */
        return session_fail(s, at->line, at->col, "%s %.0f is too large", what, x);
    if (x != floor(x) || fabs(x) > 0x1p62)
        return session_fail(s, at->line, at->col, "%s must be an integer, not %s", what,
                            isnan(x) ? value_kind_name(v) : "a fraction");
    *out = (int64_t)x;
    return true;
}

/* One part of a slice: absent or None leaves it out. */
static bool slice_bound(Session *s, const Node *part, int64_t *out, bool *has) {
    *has = false;
    if (!part) return true;
    Value v;
    if (!eval_expression(s, part, &v)) return false;
    bool ok = v.kind == VAL_NONE || index_integer(s, part, &v, "a slice bound", out);
    *has = ok && v.kind != VAL_NONE;
    value_release(&v);
    return ok;
}

static bool eval_slice(Session *s, const Node *n, AgIndex *it) {
    bool has_step;
    *it = (AgIndex){.kind = AG_INDEX_SLICE};
    if (!slice_bound(s, n->kids[0], &it->start, &it->has_start) ||
        !slice_bound(s, n->kids[1], &it->stop, &it->has_stop) ||
        !slice_bound(s, n->kids[2], &it->step, &has_step))
        return false;
    if (!has_step) it->step = 1;
    if (it->step == 0) return session_fail(s, n->line, n->col, "a slice step cannot be zero");
    return true;
}

static bool is_slice_object(Session *s, const Value *v);
static bool slice_object_index(Session *s, const Node *at, const Value *v, AgIndex *it);

/* v (kept alive by the caller) as an index item. */
static bool index_item(Session *s, const Node *at, Value *v, AgIndex *it) {
    if (v->kind == VAL_LIST && !v->as.list->tuple && !stacked(s, at, v)) return false;
    switch (v->kind) {
    case VAL_NONE: *it = (AgIndex){.kind = AG_INDEX_NEWAXIS}; return true;
    case VAL_NUMBER: case VAL_INT:
        *it = (AgIndex){.kind = AG_INDEX_INT};
        return index_integer(s, at, v, "an index", &it->index);
    case VAL_TENSOR:
        if (s->python && ag_dtype_is_floating((AgDtype)v->as.tensor->dtype)) /* .ag: floats serve */
            return session_fail(s, at->line, at->col, "IndexError: tensors used as indices must be "
                                "long, int, byte or bool tensors");
        if (v->as.tensor->dtype == AG_BOOL) *it = (AgIndex){.kind = AG_INDEX_MASK, .tensor = v->as.tensor};
        else if (v->as.tensor->ndim > 0) *it = (AgIndex){.kind = AG_INDEX_TENSOR, .tensor = v->as.tensor};
        else return *it = (AgIndex){.kind = AG_INDEX_INT}, index_integer(s, at, v, "an index", &it->index);
        return true;
    case VAL_BOOL:
        return session_fail(s, at->line, at->col, "True or False cannot be an index: a mask is "
                            "a boolean tensor, x[x > 0]");
    case VAL_LIST: /* a tuple (a list is a tensor by now) */
        return session_fail(s, at->line, at->col, "a tuple cannot be an index: write its items "
                            "between the brackets, x[0, 1]");
    case VAL_INSTANCE:
        if (is_slice_object(s, v)) return slice_object_index(s, at, v, it); /* x[slice(1, 3)] */
        /* fall through */
    default:
        return session_fail(s, at->line, at->col, "%s cannot be an index (integers, slices, "
                            "None, integer tensors and masks can)", value_kind_name(v));
    }
}

/* An integer out of range is reported at its own place: its axis is the
 * count of axes the items before it used. */
static bool check_int_items(Session *s, const Tensor *x, const IndexItems *ix) {
    for (int i = 0, axis = 0; i < ix->count; i++) {
        const AgIndex *it = &ix->items[i];
        if (it->kind == AG_INDEX_INT && axis < x->ndim) {
            int64_t size = x->shape[axis];
            if ((it->index < -size || it->index >= size) && s->python) /* PyTorch's words */
                return session_fail(s, ix->at[i]->line, ix->at[i]->col, "IndexError: index "
                                    "%lld is out of bounds for dimension %d with size %lld",
                                    (long long)it->index, axis, (long long)size);
            if (it->index < -size || it->index >= size)
                return session_fail(s, ix->at[i]->line, ix->at[i]->col, "index %lld is out of "
                                    "range for dimension %d of size %lld", (long long)it->index,
                                    axis, (long long)size);
        }
        axis += it->kind == AG_INDEX_NEWAXIS ? 0
                : it->kind == AG_INDEX_MASK  ? it->tensor->ndim
                                             : 1;
    }
    return true;
}

static bool is_ellipsis(const Node *n) { return n->kind == NODE_CONST && n->op == TOK_ELLIPSIS; }

/* x[..., i]: the ellipsis at item e stands for whole slices of the
 * dimensions the other items leave (none if they use them all: then it is
 * dropped, and check_int_items or the engine says what is too many). */
static bool expand_ellipsis(Session *s, const Tensor *x, IndexItems *ix, int e) {
    int used = 0;
    for (int i = 0; i < ix->count; i++)
        if (i != e) used += ix->items[i].kind == AG_INDEX_NEWAXIS ? 0
                            : ix->items[i].kind == AG_INDEX_MASK ? ix->items[i].tensor->ndim
                                                                 : 1;
    int fill = x->ndim > used ? x->ndim - used : 0;
    if (ix->count - 1 + fill > MAX_ARGS)
        return session_fail(s, ix->at[e]->line, ix->at[e]->col, "too many indices (at most %d)",
                            MAX_ARGS);
    int tail = ix->count - e - 1; /* the items after it move to make room */
    memmove(&ix->items[e + fill], &ix->items[e + 1], (size_t)tail * sizeof ix->items[0]);
    memmove(&ix->held[e + fill], &ix->held[e + 1], (size_t)tail * sizeof ix->held[0]);
    memmove(&ix->at[e + fill], &ix->at[e + 1], (size_t)tail * sizeof ix->at[0]);
    const Node *where = ix->at[e];
    for (int k = e; k < e + fill; k++) {
        ix->items[k] = (AgIndex){.kind = AG_INDEX_SLICE, .step = 1};
        ix->held[k] = value_void();
        ix->at[k] = where;
    }
    ix->count += fill - 1;
    return true;
}

/* The items of the index node n, applied to x. */
static bool eval_index_items(Session *s, const Node *n, const Tensor *x, IndexItems *ix) {
    ix->count = 0;
    int ellipsis = -1;
    for (int k = 0; k < n->num_kids; k++) {
        const Node *kid = n->kids[k];
        ix->held[k] = value_void();
        ix->at[k] = kid;
        ix->count = k + 1;
        if (is_ellipsis(kid) && ellipsis >= 0) /* PyTorch takes more, NumPy does not */
            return index_items_free(ix), session_fail(s, kid->line, kid->col, "%san index can "
                                                      "only have a single ellipsis ('...')",
                                                      s->python ? "IndexError: " : "");
        if (is_ellipsis(kid)) {
            ellipsis = k;
            continue;
        }
        bool ok = kid->kind == NODE_SLICE
                      ? eval_slice(s, kid, &ix->items[k])
                      : eval_expression(s, kid, &ix->held[k]) &&
                            index_item(s, kid, &ix->held[k], &ix->items[k]);
        if (!ok) return index_items_free(ix), false;
    }
    if (ellipsis >= 0 && !expand_ellipsis(s, x, ix, ellipsis)) return index_items_free(ix), false;
    if (!check_int_items(s, x, ix)) return index_items_free(ix), false;
    return true;
}

/* x[...] on a tensor: the engine's index op. */
static bool index_tensor(Session *s, const Node *n, Tensor *t, Value *out) {
    IndexItems ix;
    if (!eval_index_items(s, n, t, &ix)) return false;
    bool ok = engine_result(s, n, tensor_index(t, ix.items, ix.count), out);
    index_items_free(&ix);
    return ok;
}

/* One bound of a Python slice from its value (None: *has false). */
static bool python_slice_bound(Session *s, int line, int col, const Value *v, int64_t *out, bool *has) {
    *has = false;
    if (v->kind == VAL_INT || v->kind == VAL_BOOL) return *out = value_int(v), *has = true;
    return v->kind == VAL_NONE ||
           session_fail(s, line, col, "TypeError: slice indices must be integers or None or "
                        "have an __index__ method");
}

/* One bound of a Python slice written a:b:c (absent: *has false). */
static bool slice_part(Session *s, const Node *part, int64_t *out, bool *has) {
    *has = false;
    if (!part) return true;
    Value v;
    if (!eval_expression(s, part, &v)) return false;
    bool ok = python_slice_bound(s, part->line, part->col, &v, out, has);
    value_release(&v);
    return ok;
}

/* Whether v is an object of Python's slice (builtins' class, slice(1, 3)
 * or what obj[1:3] hands __getitem__). */
static bool is_slice_object(Session *s, const Value *v) {
    if (v->kind != VAL_INSTANCE || strcmp(v->as.object->cls->name, "slice") != 0) return false;
    Value cls;
    bool missing, same = false;
    if (s->module_value(s, 0, 0, "builtins", "slice", 5, &cls, &missing)) {
        same = cls.kind == VAL_CLASS && cls.as.cls == v->as.object->cls;
        value_release(&cls);
    }
    return same;
}

/* A slice object's start, stop and step, as slice_part reads them. */
static bool slice_object_bounds(Session *s, int line, int col, const Value *v, int64_t b[3],
                                bool has[3]) {
    static const char *const names[3] = {"start", "stop", "step"};
    for (int i = 0; i < 3; i++) {
        Value part;
        if (!value_getattr(v, names[i], strlen(names[i]), &part)) part = value_none();
        bool ok = python_slice_bound(s, line, col, &part, &b[i], &has[i]);
        value_release(&part);
        if (!ok) return false;
    }
    return true;
}

/* A slice object as a tensor's index item, as x[a:b:c] is (eval_slice). */
static bool slice_object_index(Session *s, const Node *at, const Value *v, AgIndex *it) {
    int64_t b[3] = {0, 0, 1};
    bool has[3];
    if (!slice_object_bounds(s, at->line, at->col, v, b, has)) return false;
    *it = (AgIndex){.kind = AG_INDEX_SLICE, .start = b[0], .has_start = has[0], .stop = b[1],
                    .has_stop = has[1], .step = has[2] ? b[2] : 1};
    return it->step != 0 || session_fail(s, at->line, at->col, "a slice step cannot be zero");
}

/* Python's slice of count items from its bounds (has[i] false: absent):
 * start, stop, step resolved as slice.indices does; the chosen positions
 * are start + k * step. */
static bool slice_resolve(Session *s, int line, int col, const int64_t b[3], const bool has[3],
                          int64_t count, int64_t *start, int64_t *step, int64_t *length) {
    int64_t st = has[2] ? b[2] : 1;
    if (st == 0) return session_fail(s, line, col, "ValueError: slice step cannot be zero");
    int64_t lo = st > 0 ? 0 : -1, hi = st > 0 ? count : count - 1;
    int64_t from = has[0] ? b[0] : (st > 0 ? lo : hi), to = has[1] ? b[1] : (st > 0 ? hi : lo);
    if (has[0]) from = from < 0 ? (from + count < lo ? lo : from + count) : (from > hi ? hi : from);
    if (has[1]) to = to < 0 ? (to + count < lo ? lo : to + count) : (to > hi ? hi : to);
    *start = from;
    *step = st;
    *length = st > 0 ? (to > from ? (to - from + st - 1) / st : 0)
                     : (from > to ? (from - to - st - 1) / -st : 0);
    return true;
}

/* python_slice of a:b:c written at sl. */
static bool python_slice(Session *s, const Node *sl, int64_t count, int64_t *start, int64_t *step,
                         int64_t *length) {
    int64_t b[3] = {0, 0, 1};
    bool has[3];
    for (int i = 0; i < 3; i++)
        if (!slice_part(s, sl->kids[i], &b[i], &has[i])) return false;
    return slice_resolve(s, sl->line, sl->col, b, has, count, start, step, length);
}

/* The items start + i * step (i < length) of obj, a string, list or tuple. */
static bool slice_items(Session *s, const Node *n, const Value *obj, int64_t start, int64_t step,
                        int64_t length, Value *out) {
    if (obj->kind == VAL_STRING) {
        StrBuf sb;
        strbuf_init(&sb);
        for (int64_t i = 0; i < length; i++) strbuf_appendn(&sb, obj->as.string.text + start + i * step, 1);
        bool ok = !sb.oom && value_string(sb.data, sb.len, out);
        strbuf_free(&sb);
        return ok || session_fail(s, n->line, n->col, "out of memory");
    }
    ValueList *l = value_list_new((int)length, obj->kind == VAL_LIST && obj->as.list->tuple);
    if (!l) return session_fail(s, n->line, n->col, "out of memory");
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    for (int64_t i = 0; i < length; i++)
        if (!value_item(obj, start + i * step, true, &l->items[i]))
            return value_release(out), session_fail(s, n->line, n->col, "%s", ag_error());
    return true;
}

/* xs[i], xs[a:b:c], s[i], d[key], shape[i] of Python's values. */
/* d[key] of a key d lacks, for the dicts that have a value for it
 * (false otherwise, nothing set): a defaultdict's factory() (stored under
 * key, as Python's __missing__ does), a Counter's 0. false with the error
 * set (*failed) when the factory fails. */
static bool dict_missing(Session *s, const Node *at, ValueDict *d, const Value *key, Value *out,
                         bool *failed) {
    *failed = false;
    if (d->flavor == DICT_COUNTER) return *out = value_integer(0), true;
    if (d->flavor != DICT_DEFAULT || !d->factory || d->factory->kind == VAL_NONE) return false;
    Value factory, made, k, v;
    value_copy(d->factory, &factory); /* the call may change the dict's */
    bool ok = s->call_value(s, at->line, at->col, &factory, NULL, 0, &made);
    value_release(&factory);
    if (!ok) return *failed = true, false;
    if (made.kind == VAL_VOID) made = value_none();
    value_copy(key, &k);
    value_copy(&made, &v);
    if (!value_dict_set(d, k, v)) {
        value_release(&made);
        *failed = true;
        return session_fail(s, at->line, at->col, "MemoryError");
    }
    *out = made;
    return true;
}

static bool python_subscript(Session *s, const Node *n, const Value *obj, Value *out) {
    const Node *k = n->kids[0];
    if (n->num_kids != 1)
        return session_fail(s, n->line, n->col, "TypeError: %s indices must be integers or "
                            "slices, not tuple", value_type_name(obj));
    if (obj->kind == VAL_DICT) {
        Value key;
        if (!eval_expression(s, k, &key)) return false;
        const Value *v = obj->as.dict->set || !value_hashable(&key) ? NULL
                         : value_dict_get(obj->as.dict, &key);
        bool ok = v ? value_copy(v, out) : false, failed = false;
        if (!v && !obj->as.dict->set && value_hashable(&key) &&
            (dict_missing(s, n, obj->as.dict, &key, out, &failed) || failed)) {
            value_release(&key); /* a defaultdict's or a Counter's */
            return !failed;
        }
        if (!v && obj->as.dict->set)
            session_set_error(s, n->line, n->col, "TypeError: 'set' object is not subscriptable");
        else if (!v && !value_hashable(&key))
            session_set_error(s, k->line, k->col, "TypeError: unhashable type: '%s'", value_type_name(&key));
        else if (!v) {
            StrBuf text;
            strbuf_init(&text);
            value_format(&text, &key, &s->print, true);
            session_set_error(s, n->line, n->col, "KeyError: %.*s", 400, text.data);
            strbuf_free(&text);
        }
        value_release(&key);
        return ok;
    }
    int64_t count = value_item_count(obj), start, step, length;
    if (k->kind == NODE_SLICE)
        return python_slice(s, k, count, &start, &step, &length) &&
               slice_items(s, n, obj, start, step, length, out);
    Value iv;
    if (!eval_expression(s, k, &iv)) return false;
    if (is_slice_object(s, &iv)) { /* xs[slice(1, 3)] */
        int64_t b[3] = {0, 0, 1};
        bool has[3];
        bool ok = slice_object_bounds(s, k->line, k->col, &iv, b, has) &&
                  slice_resolve(s, k->line, k->col, b, has, count, &start, &step, &length);
        value_release(&iv);
        return ok && slice_items(s, n, obj, start, step, length, out);
    }
    bool integer = iv.kind == VAL_INT || iv.kind == VAL_BOOL || value_is_index_tensor(&iv);
    int64_t i = iv.kind == VAL_TENSOR && integer ? (int64_t)tensor_values(iv.as.tensor)[0]
                : integer ? value_int(&iv) : 0;
    const char *type = value_type_name(&iv);
    bool tensor = iv.kind == VAL_TENSOR;
    value_release(&iv);
    if (!integer && tensor) /* PyTorch's Tensor.__index__ refuses it */
        return session_fail(s, k->line, k->col, "TypeError: only integer tensors of a single "
                            "element can be converted to an index");
    if (!integer)
        return session_fail(s, k->line, k->col, "TypeError: %s indices must be integers or "
                            "slices, not %s", value_type_name(obj), type);
    if (i < 0) i += count;
    if (i < 0 || i >= count)
        return session_fail(s, n->line, n->col, "IndexError: %s index out of range",
                            obj->kind == VAL_STRING ? "string" : value_type_name(obj));
    return value_item(obj, i, true, out) || session_fail(s, n->line, n->col, "%s", ag_error());
}

/* a:b:c written at sl as Python's slice object, slice(a, b, c). */
static bool slice_object(Session *s, const Node *sl, Value *out) {
    Value cls = value_none(), parts[3] = {value_none(), value_none(), value_none()};
    bool ok = s->module_value(s, sl->line, sl->col, "builtins", "slice", 5, &cls, NULL);
    for (int i = 0; ok && i < 3; i++)
        if (sl->kids[i]) ok = eval_expression(s, sl->kids[i], &parts[i]);
    if (ok) ok = s->call_value(s, sl->line, sl->col, &cls, parts, 3, out);
    for (int i = 0; i < 3; i++) value_release(&parts[i]);
    if (cls.kind == VAL_CLASS) value_release(&cls);
    return ok;
}

/* obj[key] of an object: its class's __getitem__(key), a slice object for
 * obj[a:b]. */
static bool object_subscript(Session *s, const Node *n, const Value *obj, Value *out) {
    const Node *k = n->kids[0];
    if (n->num_kids != 1)
        return session_fail(s, k->line, k->col, "ag passes one key to __getitem__ (tuples of "
                            "keys are not supported yet)");
    Value key;
    bool found;
    if (!(k->kind == NODE_SLICE ? slice_object(s, k, &key) : eval_expression(s, k, &key)))
        return false;
    bool ok = session_call_special(s, n->line, n->col, obj, "__getitem__", &key, 1, out, &found);
    value_release(&key);
    if (ok && !found)
        ok = session_fail(s, n->line, n->col, "TypeError: '%s' object is not subscriptable",
                          value_type_name(obj));
    return ok;
}

static bool eval_index(Session *s, const Node *n, Value *out) {
    Value obj;
    if (!eval_expression(s, n->left, &obj)) return false;
    if (s->python && obj.kind == VAL_INSTANCE) {
        bool ok = object_subscript(s, n, &obj, out);
        value_release(&obj);
        return ok;
    }
    if (s->python && (obj.kind == VAL_LIST || obj.kind == VAL_DICT || obj.kind == VAL_STRING ||
                      obj.kind == VAL_SHAPE)) {
        bool ok = python_subscript(s, n, &obj, out);
        value_release(&obj);
        return ok;
    }
    if (!stacked(s, n->left, &obj)) return false;
    bool ok;
    if (obj.kind == VAL_TENSOR || (obj.kind == VAL_NUMBER && obj.literal)) {
        Tensor *t;
        ok = to_tensor(s, n->left, &obj, "the object", &t);
        if (ok) {
            ok = index_tensor(s, n, t, out);
            tensor_release(t);
        }
    } else if ((obj.kind == VAL_SHAPE || obj.kind == VAL_LIST) && n->num_kids == 1 &&
               n->kids[0]->kind != NODE_SLICE) {
        int64_t size = obj.kind == VAL_SHAPE ? obj.as.shape->ndim : obj.as.list->count, i = 0;
        Value v;
        ok = eval_expression(s, n->kids[0], &v) && index_number(s, n->kids[0], &v, -1, size, &i);
        value_release(&v);
        if (ok && obj.kind == VAL_SHAPE) *out = value_number((double)obj.as.shape->dims[i]);
        else if (ok) ok = value_copy(&obj.as.list->items[i], out);
    } else {
        ok = session_fail(s, n->line, n->col, "%s cannot be indexed that way",
                          value_kind_name(&obj));
    }
    value_release(&obj);
    return ok;
}

/* ======================================================================
 * Calls
 * ====================================================================== */

/* Counts a loop iteration or a call against s->max_steps: once past it,
 * every further one fails (a bound for the fuzzer, not for users). */
static bool take_step(Session *s, int line, int col) {
    if (!s->max_steps || ++s->steps <= s->max_steps) return true;
    return session_fail(s, line, col, "the run went past its budget of %lld loop iterations "
                        "and calls", (long long)s->max_steps);
}

/* An error inside a body is reported where the function was called (the
 * body may be lines away), naming the innermost function it happened in.
 * In a .py file the error stays where it happened, as CPython's traceback
 * names that line last. */
static void blame_call(Session *s, const Node *call, const UserFunc *f) {
    if (s->python) return;
    s->error_line = call->line;
    s->error_col = call->col;
    if (s->error_in_function) return;
    s->error_in_function = true;
    char inner[sizeof s->error];
    memcpy(inner, s->error, sizeof inner);
    snprintf(s->error, sizeof s->error, "in %.*s: %.*s", (int)f->name_length, f->name,
             (int)sizeof s->error - 80, inner);
}

/* How many of f's parameters take positional arguments: all but a
 * **kwargs (the last). */
static int positional_params(const UserFunc *f) {
    int n;
    userfunc_params(f, &n);
    return f->def && f->def->dstar >= 0 ? f->def->dstar : n;
}

/* How many parameters of f have no default. */
static int required_params(const UserFunc *f) {
    int n = f->def && f->def->star >= 0 ? f->def->star : positional_params(f);
    while (f->defaults && n > 0 && f->defaults[n - 1].kind != VAL_VOID) n--;
    return n;
}

/* f called with n positional arguments where its parameters want another
 * number: Python's TypeError in a .py file. */
static bool arity_error(Session *s, const Node *at, const UserFunc *f, int n) {
    int total, required = required_params(f);
    Node *const *params = userfunc_params(f, &total);
    int nl = (int)f->name_length;
    total = positional_params(f);
    if (f->def && f->def->star >= 0) total = f->def->star; /* *args: never too many */
    if (!s->python)
        return session_fail(s, at->line, at->col, "%.*s takes %d argument%s, got %d", nl,
                            f->name, total, total == 1 ? "" : "s", n);
    if (n > total) {
        char want[32];
        if (required == total) snprintf(want, sizeof want, "%d", total);
        else snprintf(want, sizeof want, "from %d to %d", required, total);
        return session_fail(s, at->line, at->col, "TypeError: %.*s() takes %s positional "
                            "argument%s but %d %s given", nl, f->name, want,
                            total == 1 ? "" : "s", n, n == 1 ? "was" : "were");
    }
    StrBuf names;
    strbuf_init(&names);
    int missing = required - n;
    for (int i = n; i < required; i++) {
        const Node *p = params[i];
        if (i > n) strbuf_append(&names, i + 1 == required ? (missing > 2 ? ", and " : " and ") : ", ");
        strbuf_appendf(&names, "'%.*s'", name_len(p), p->as.text.text);
    }
    session_set_error(s, at->line, at->col, "TypeError: %.*s() missing %d required positional "
                      "argument%s: %s", nl, f->name, missing, missing == 1 ? "" : "s", names.data);
    strbuf_free(&names);
    return false;
}

static void release_args(Value *args, int n) {
    for (int i = 0; i < n; i++) value_release(&args[i]);
}

/* Whether one more call may nest: Python's recursion limit in a .py file. */
static bool call_depth_ok(Session *s, const Node *at, const UserFunc *f) {
    int limit = s->python ? s->recursion_limit : MAX_CALL_DEPTH;
    if (s->call_depth < limit) return true;
    if (s->python)
        return session_fail(s, at->line, at->col, "RecursionError: maximum recursion depth "
                            "exceeded");
    return session_fail(s, at->line, at->col, "runaway recursion: more than %d nested calls "
                        "(does %.*s call itself?)", limit, (int)f->name_length, f->name);
}

/* Binds params[i] to args[i] (taken) in env, a call's new env. The
 * parameters' names are distinct (session_function checked): no lookup;
 * when they fit in the env's own few, they are written there at once. */
/* env is session_env's, just made for f's call: no variables yet and its
 * few slots free, known here rather than read back (loading the fields
 * session_env has just stored stalled every call on store forwarding: a
 * third of apply_user's time in perf). */
static bool bind_params(Session *s, const Node *at, const UserFunc *f, Env *env,
                        Node *const *params, Value *args, int n) {
    if (f->code && n <= ENV_FEW_LOCALS) {
        for (int i = 0; i < n; i++)
            env->few[i] = (Local){name_ident(params[i]), params[i]->as.text.length, args[i]};
        env->num_locals = n;
        return true;
    }
    bool ok = true;
    for (int i = 0; i < n; i++) {
        const Node *p = params[i];
        if (ok) ok = env_bind_new(s, env, NULL, name_ident(p), p->as.text.length, args[i], at->line, at->col);
        else value_release(&args[i]);
    }
    return ok;
}

/* The keyword-only parameters of f (those after *args, before **kwargs)
 * into args from *n on: each its keyword, taken out of *extra (where
 * call_user put it), or its default; Python's TypeError naming those
 * missing (then args, to *n, and *extra are released). */
static bool keyword_only_args(Session *s, const Node *at, const UserFunc *f, Node *const *params,
                              Value *args, int *n, Value *extra) {
    int first = f->def->star + 1, end = positional_params(f), missing = 0, absent[MAX_ARGS];
    for (int i = first; i < end; i++) {
        const Node *p = params[i];
        Value key, *given = NULL;
        bool keyed = extra->kind == VAL_DICT && value_string(p->as.text.text, p->as.text.length, &key);
        if (keyed) given = (Value *)value_dict_get(extra->as.dict, &key);
        if (given) {
            args[*n] = *given;
            *given = value_none(); /* moved out; the entry goes */
            value_dict_remove(extra->as.dict, &key);
        } else if (f->defaults && f->defaults[i].kind != VAL_VOID) {
            value_copy(&f->defaults[i], &args[*n]);
        } else {
            args[*n] = value_none();
            absent[missing++] = i;
        }
        if (keyed) value_release(&key);
        ++*n;
    }
    if (missing == 0) return true;
    StrBuf names; /* CPython's 'a', 'b' and 'c' */
    strbuf_init(&names);
    for (int k = 0; k < missing; k++) {
        const Node *p = params[absent[k]];
        if (k > 0) strbuf_append(&names, k + 1 == missing ? (missing > 2 ? ", and " : " and ") : ", ");
        strbuf_appendf(&names, "'%.*s'", name_len(p), p->as.text.text);
    }
    session_set_error(s, at->line, at->col, "TypeError: %.*s() missing %d required keyword-only "
                      "argument%s: %s", (int)f->name_length, f->name, missing,
                      missing == 1 ? "" : "s", names.data ? names.data : "");
    strbuf_free(&names);
    release_args(args, *n);
    value_release(extra);
    return false;
}

/* Runs f's body (or its expression) in a new env, its parameters bound to
 * args (n of them, taken; defaults fill the rest). */
static bool apply_user(Session *s, const Node *at, UserFunc *f, Value *args, int n,
                       Value *kwargs, Value *out) {
    int all;
    Node *const *params = userfunc_params(f, &all);
    int star = f->def ? f->def->star : -1, total = positional_params(f);
    Value extra = value_void(); /* def f(**kwargs): the keywords no parameter took */
    if (kwargs) extra = *kwargs;
    if (total < all && extra.kind == VAL_VOID) {
        ValueDict *d = value_dict_new(false);
        if (d) extra = (Value){.kind = VAL_DICT, .as.dict = d};
    }
    if (total < all && extra.kind == VAL_VOID) {
        release_args(args, n);
        return session_fail(s, at->line, at->col, "out of memory");
    }
    int npos = star >= 0 ? star : total; /* the parameters positional arguments fill */
    if (n < npos && f->defaults) /* the defaults of the parameters not given */
        for (; n < npos && f->defaults[n].kind != VAL_VOID; n++) value_copy(&f->defaults[n], &args[n]);
    if (n < npos) {
        release_args(args, n);
        value_release(&extra);
        return arity_error(s, at, f, n);
    }
    if (star >= 0) { /* def f(a, *args): the rest as a tuple (maybe empty) */
        ValueList *rest = value_list_new(n - star, true);
        if (!rest) {
            release_args(args, n);
            value_release(&extra);
            return session_fail(s, at->line, at->col, "out of memory");
        }
        for (int i = star; i < n; i++) rest->items[i - star] = args[i];
        args[star] = (Value){.kind = VAL_LIST, .as.list = rest};
        n = star + 1;
        int extra_positional = rest->count;
        if (f->def->bare_star && extra_positional > 0) { /* def f(a, *, key): no more positional */
            release_args(args, n);
            value_release(&extra);
            return arity_error(s, at, f, star + extra_positional);
        }
        if (!keyword_only_args(s, at, f, params, args, &n, &extra)) return false;
    }
    if (n != total) {
        release_args(args, n);
        value_release(&extra);
        return arity_error(s, at, f, n);
    }
    if (total < all) args[n++] = extra;
    else value_release(&extra);
    if (!call_depth_ok(s, at, f) || !take_step(s, at->line, at->col)) {
        release_args(args, n);
        return false;
    }
    Env *env = session_env(s, f->closure, f->code, at->line, at->col);
    if (!env) {
        release_args(args, n);
        return false;
    }
    if (f->def && f->def->num_globals + f->def->num_nonlocals > 0) {
        env->globals = f->def->globals, env->num_globals = f->def->num_globals;
        env->nonlocals = f->def->nonlocals, env->num_nonlocals = f->def->num_nonlocals;
    }
    Frame frame = {.func = f, .env = env, .caller = s->frame, .result = value_void()};
    bool ok = bind_params(s, at, f, env, params, args, n);
    s->frame = &frame;
    s->call_depth++;
    bool dialect = s->python;
    if (dialect != f->python) session_set_python(s, f->python);
    if (ok && f->lambda) {
        ok = eval_expression(s, f->lambda->left, out);
    } else if (ok && !f->def->has_block) {
        ok = eval_expression(s, f->def->expr, out);
    } else if (ok) {
        if (f->def->generator) { /* run to its end: the yielded values, as a list */
            ValueList *l = value_list_new(0, false);
            ok = l || session_fail(s, at->line, at->col, "MemoryError");
            if (l) l->iterator = true, frame.result = (Value){.kind = VAL_LIST, .as.list = l};
        }
        s->quiet++;
        bool was = f->def->grad_mode ? ag_set_grad_enabled(f->def->grad_mode > 0) : true;
        Status st = ok ? exec_block(s, &f->def->body) : EXEC_ERROR;
        if (f->def->grad_mode) ag_set_grad_enabled(was);
        s->quiet--;
        ok = st != EXEC_ERROR;
        if (ok) { /* what return gave (a failed call's is released below) */
            *out = frame.result;
            frame.result = value_void();
        }
    }
    if (dialect != f->python) session_set_python(s, dialect);
    s->call_depth--;
    s->frame = frame.caller;
    value_release(&frame.result);
    env_release(env);
    if (!ok && s->error_line >= TORCH_NN_FIRST_LINE && at->line < TORCH_NN_FIRST_LINE) {
        s->error_line = at->line; /* inside torch.nn: the script's line that called in */
        s->error_col = at->col;
    }
    if (!ok) blame_call(s, at, f);
    return ok;
}


/* The evaluator's call path for grad, gradcheck and plot: args are
 * borrowed (copies are passed on). */
static bool invoke(Session *s, const FuncRef *f, Value *args, int n, Value *out) {
    Value copies[MAX_ARGS];
    const Node *nodes[MAX_ARGS];
    for (int i = 0; i < n; i++) {
        value_copy(&args[i], &copies[i]);
        nodes[i] = f->at;
    }
    if (f->user) return apply_user(s, f->at, f->user, copies, n, NULL, out);
    return builtin_call(s, f->builtin, &(BuiltinArgs){.line = f->at->line, .col = f->at->col,
                        .pos = copies, .pos_nodes = nodes, .n = n}, out);
}

/* The function the first argument of grad, gradcheck or plot names (or,
 * in a .py file, is: a lambda, F.relu); messages about calling it point at
 * the call. f->held keeps an evaluated function alive. */
static bool function_ref(Session *s, const Builtin *b, const Node *call, const Node *arg,
                         FuncRef *f) {
    memset(f, 0, sizeof *f);
    f->invoke = invoke;
    f->at = call;
    f->held = value_void();
    Value v = value_void();
    bool named = arg->kind == NODE_NAME;
    Meaning m = named && !arg->torch ? resolve(s, arg) : (Meaning){NULL, false, NULL};
    if (named) f->name = arg->as.text.text, f->length = arg->as.text.length;
    if (m.value) v = *m.value;
    else if (named) f->builtin = builtin_of(arg);
    else if (s->python && !eval_expression(s, arg, &f->held)) return false;
    else if (s->python) v = f->held;
    if (v.kind == VAL_FUNCTION) f->user = v.as.function;
    if (v.kind == VAL_BUILTIN) f->builtin = v.as.builtin.row;
    if (!named && f->user) f->name = f->user->name, f->length = f->user->name_length;
    if (!named && f->builtin) f->name = f->builtin->name, f->length = strlen(f->builtin->name);
    if (f->user || (f->builtin && (f->builtin->flags & BI_OP))) return true;
    value_release(&f->held);
    if (f->builtin && f->builtin->op)
        return session_fail(s, arg->line, arg->col, "%s has no gradient: its result is a "
                            "constant (as in PyTorch)", f->builtin->name);
    return session_fail(s, arg->line, arg->col, "the first argument of %s must name a function "
                        "to differentiate: one you defined (f(x) = ...) or an op such as exp",
                        b->name);
}

/* Whether arg is a name that means a function here: one the user defined,
 * or an engine op that no variable hides (plot(sin, 0, 3)); in a .py file
 * a lambda too. */
static bool names_function(Session *s, const Node *arg) {
    if (arg->kind == NODE_LAMBDA) return s->python;
    if (arg->kind != NODE_NAME) return false;
    if (arg->torch) return builtin_of(arg) && (builtin_of(arg)->flags & BI_OP);
    Meaning m = resolve(s, arg);
    const Value *v = m.value;
    return v ? v->kind == VAL_FUNCTION || (v->kind == VAL_BUILTIN && (v->as.builtin.row->flags & BI_OP))
             : m.builtin && (m.builtin->flags & BI_OP);
}

/* Evaluates positional argument k into pos[*n] (and its node), or, for
 * *k, each item of k's value (f(*args)); at most max in all. */
static bool positional_arg(Session *s, const Node *k, Value *pos, const Node **nodes, int *n,
                           int max) {
    if (k->kind != NODE_STARRED) {
        if (*n == max) return session_fail(s, k->line, k->col, "too many arguments (at most %d)", max);
        if (!eval_expression(s, k, &pos[*n])) return false;
        nodes[(*n)++] = k;
        return true;
    }
    Value v;
    int64_t count;
    if (!starred_value(s, k, "argument", &v, &count)) return false;
    bool ok = true;
    if (*n + count > max)
        ok = session_fail(s, k->line, k->col, "too many arguments (at most %d)", max);
    for (int64_t i = 0; ok && i < count; i++) {
        ok = value_item(&v, i, s->python, &pos[*n]) ||
             session_fail(s, k->line, k->col, "%s", ag_error());
        if (ok) nodes[(*n)++] = k;
    }
    value_release(&v);
    return ok;
}

/* **kwargs passed on to a builtin: fine when empty (a wrapper's
 * f(*args, **kwargs) with no keywords); others are not supported yet. */
static bool empty_double_star(Session *s, const Node *k, const Builtin *b) {
    Value v;
    if (!eval_expression(s, k->left, &v)) return false;
    bool empty = v.kind == VAL_DICT && v.as.dict->count == 0;
    value_release(&v);
    return empty || session_fail(s, k->line, k->col, "ag cannot pass **dict to its builtin %s "
                                 "yet: write the keyword arguments out", b->name);
}

/* The keyword arguments f(**d) of a builtin's call stand for: a node each,
 * naming its key (the text the held dict keeps), made at the first ** and
 * freed with the dicts after the call. */
enum { MAX_SPREADS = 8 };
typedef struct {
    Node *nodes;         /* MAX_ARGS of them, or NULL */
    int used;
    Value held[MAX_SPREADS];
    int num_held;
} KeywordSpread;

static void spread_free(KeywordSpread *sp) {
    if (!sp->nodes) return;
    free(sp->nodes);
    for (int i = 0; i < sp->num_held; i++) value_release(&sp->held[i]);
}

/* **d (k) in a builtin's call: each of d's items a keyword argument, into
 * kw and kw_nodes (*nk of them so far). */
static bool spread_builtin_keywords(Session *s, const Node *k, const Builtin *b, KeywordSpread *sp,
                                    Value *kw, const Node **kw_nodes, int *nk) {
    Value d;
    if (!eval_expression(s, k->left, &d)) return false;
    if (d.kind != VAL_DICT || d.as.dict->set) {
        bool ok = session_fail(s, k->line, k->col, "TypeError: %s() argument after ** must be a "
                               "mapping, not %s", b->name, value_type_name(&d));
        value_release(&d);
        return ok;
    }
    if (sp->num_held == MAX_SPREADS || (!sp->nodes && !(sp->nodes = malloc(MAX_ARGS * sizeof *sp->nodes)))) {
        value_release(&d);
        return session_fail(s, k->line, k->col, sp->nodes ? "SyntaxError: too many ** arguments"
                                                          : "MemoryError");
    }
    sp->held[sp->num_held++] = d; /* its keys name the arguments until the call is done */
    for (int64_t i = 0; i < d.as.dict->count; i++) {
        const DictEntry *e = &d.as.dict->entries[i];
        if (e->key.kind != VAL_STRING)
            return session_fail(s, k->line, k->col, "TypeError: keywords must be strings");
        if (*nk == MAX_ARGS || sp->used == MAX_ARGS)
            return session_fail(s, k->line, k->col, "too many arguments (at most %d)", MAX_ARGS);
        Node *n = &sp->nodes[sp->used++];
        *n = (Node){.kind = NODE_KEYWORD, .line = k->line, .col = k->col, .left = k->left,
                    .as.text = {e->key.as.string.text, e->key.as.string.length}};
        value_copy(&e->value, &kw[*nk]);
        kw_nodes[(*nk)++] = n;
    }
    return true;
}

/* Evaluates a call's arguments into pos (positional; self first for a
 * method call) and kw (keyword), then calls b through builtin_call. */
static bool call_builtin(Session *s, const Node *call, const Builtin *b, Value *self,
                         Value *out) {
    Value pos[MAX_ARGS + 1], kw[MAX_ARGS];
    const Node *pos_nodes[MAX_ARGS + 1], *kw_nodes[MAX_ARGS];
    int np = 0, nk = 0, first = 0;
    bool grad_flag = false, ok = true;
    KeywordSpread spread; /* only what a ** sets is read: no zeroing every call */
    spread.nodes = NULL, spread.used = spread.num_held = 0;
    FuncRef func, *fref = NULL;
    int positional = call->num_positional;
    if (self) {
        pos[np] = *self;
        pos_nodes[np++] = call->left->left;
    }
    if ((b->flags & BI_CREATION) && positional > 0) { /* tensor(x, grad) */
        const Node *last = call->kids[positional - 1];
        if (last->kind == NODE_NAME && !last->torch && last->as.text.length == 4 &&
            memcmp(last->as.text.text, "grad", 4) == 0)
            grad_flag = true, positional--;
    }
    bool function_first = (b->flags & BI_FUNCTION_FIRST) ||
                          ((b->flags & BI_MAYBE_FUNCTION) && positional > 0 &&
                           names_function(s, call->kids[0]));
    if (function_first && !self) {
        if (positional < 2)
            return session_fail(s, call->line, call->col, "%s takes a function and at least "
                                "one argument: %s", b->name, b->signature);
        if (!function_ref(s, b, call, call->kids[0], &func)) return false;
        fref = &func;
        first = 1;
    }
    for (int i = first; ok && i < call->num_kids; i++) {
        const Node *k = call->kids[i];
        if (i >= positional && i < call->num_positional) continue; /* the grad flag */
        if (k->kind == NODE_KEYWORD && k->as.text.length == 0) {
            ok = s->python ? spread_builtin_keywords(s, k, b, &spread, kw, kw_nodes, &nk)
                           : empty_double_star(s, k, b);
        } else if (k->kind == NODE_KEYWORD) {
            ok = eval_expression(s, k->left, &kw[nk]);
            if (ok) kw_nodes[nk++] = k;
        } else {
            ok = positional_arg(s, k, pos, pos_nodes, &np, MAX_ARGS + 1);
        }
    }
    if (!ok) {
        release_args(pos, np);
        release_args(kw, nk);
        if (fref) value_release(&fref->held);
        spread_free(&spread);
        return false;
    }
    if (s->python && !self) { /* sum([1, 2]), max(a, b), len(xs): Python's own */
        bool bare = call->left->kind == NODE_NAME && !call->left->torch;
        const Builtin *py = builtin_python_variant(b, pos, np, bare);
        if (py) b = py;
    }
    ok = builtin_call(s, b, &(BuiltinArgs){.line = call->line, .col = call->col, .pos = pos,
                      .pos_nodes = pos_nodes, .n = np, .kw = kw, .kw_nodes = kw_nodes, .nkw = nk,
                      .grad_flag = grad_flag, .func = fref}, out);
    if (fref) value_release(&fref->held);
    spread_free(&spread);
    return ok;
}

/* The parameter of f named so (not *args or **kwargs), or -1. */
static int param_index(const UserFunc *f, const char *name, size_t length) {
    int n;
    Node *const *params = userfunc_params(f, &n);
    int star = f->def ? f->def->star : -1, dstar = f->def ? f->def->dstar : -1;
    for (int i = 0; i < n; i++)
        if (params[i]->as.text.length == length && i != star && i != dstar &&
            memcmp(params[i]->as.text.text, name, length) == 0)
            return i;
    return -1;
}

/* Places keyword argument NAME=v (taken) in its parameter's slot of args,
 * or in *extra (a dict, made at the first) when f has **kwargs. */
static bool keyword_arg(Session *s, const Node *call, const UserFunc *f, const char *name,
                        size_t length, Value v, Value *args, bool *given, Value *extra) {
    int i = param_index(f, name, length);
    /* a keyword-only parameter's goes with **kwargs' keywords, which apply_user
     * takes it from (its slot of args holds what *args is made of) */
    bool keyword_only = i >= 0 && f->def && f->def->star >= 0 && i > f->def->star;
    if (keyword_only || (i < 0 && f->def && f->def->dstar >= 0)) {
        Value key;
        if (extra->kind == VAL_VOID) {
            ValueDict *d = value_dict_new(false);
            if (d) *extra = (Value){.kind = VAL_DICT, .as.dict = d};
        }
        if (extra->kind == VAL_VOID || !value_string(name, length, &key)) {
            value_release(&v);
            return session_fail(s, call->line, call->col, "MemoryError");
        }
        if (value_dict_get(extra->as.dict, &key)) {
            value_release(&key), value_release(&v);
            return session_fail(s, call->line, call->col, "TypeError: %.*s() got multiple "
                                "values for keyword argument '%.*s'", (int)f->name_length,
                                f->name, (int)length, name);
        }
        return value_dict_set(extra->as.dict, key, v) ||
               session_fail(s, call->line, call->col, "MemoryError");
    }
    const char *problem = i < 0 ? "got an unexpected keyword argument" : given[i]
                              ? "got multiple values for argument" : NULL;
    if (problem) {
        value_release(&v);
        return session_fail(s, call->line, call->col, "TypeError: %.*s() %s '%.*s'",
                            (int)f->name_length, f->name, problem, (int)length, name);
    }
    args[i] = v;
    given[i] = true;
    return true;
}

/* f(**d): each of d's items as a keyword argument. */
static bool spread_keywords(Session *s, const Node *call, const UserFunc *f, const Node *k,
                            Value d, Value *args, bool *given, Value *extra) {
    bool ok = d.kind == VAL_DICT && !d.as.dict->set;
    if (!ok) session_set_error(s, k->line, k->col, "TypeError: %.*s() argument after ** must be "
                               "a mapping, not %s", (int)f->name_length, f->name,
                               value_type_name(&d));
    for (int64_t i = 0; ok && i < d.as.dict->count; i++) {
        const DictEntry *e = &d.as.dict->entries[i];
        if (e->key.kind != VAL_STRING) {
            ok = session_fail(s, k->line, k->col, "TypeError: keywords must be strings");
            break;
        }
        Value v;
        value_copy(&e->value, &v);
        ok = keyword_arg(s, call, f, e->key.as.string.text, e->key.as.string.length, v, args,
                         given, extra);
    }
    value_release(&d);
    return ok;
}

/* Evaluates a call's arguments into f's parameter slots: positional ones
 * in order (*args spread), keyword ones by name, defaults for the rest
 * (apply_user). */
/* f(a, b): positional arguments only, few of them, none starred (the
 * common call): evaluated straight into the array apply_user binds, which
 * also fills the defaults and says when the count is wrong. */
static bool call_user_positional(Session *s, const Node *call, UserFunc *f, const Value *self,
                                 Value *out) {
    enum { FEW = 8 };
    Value args[FEW];
    int n = 0;
    if (self) value_copy(self, &args[n++]);
    for (int i = 0; i < call->num_kids; i++) {
        if (!eval_expression(s, call->kids[i], &args[n])) return release_args(args, n), false;
        n++;
    }
    return apply_user(s, call, f, args, n, NULL, out);
}

static bool call_user(Session *s, const Node *call, UserFunc *f, const Value *self,
                      Value *out) {
    int params;
    userfunc_params(f, &params); /* apply_user fills the defaults in: room for them all */
    bool plain = call->num_positional == call->num_kids && call->num_kids + (self != NULL) <= 8 &&
                 params <= 8 && !(f->def && (f->def->star >= 0 || f->def->dstar >= 0));
    for (int i = 0; plain && i < call->num_kids; i++) plain = call->kids[i]->kind != NODE_STARRED;
    if (plain) return call_user_positional(s, call, f, self, out);
    /* Room for the arguments on the stack when they are few (recursion
     * goes deep on the C stack), on the heap otherwise. */
    enum { FEW = 8 };
    Value few[FEW];
    const Node *few_nodes[FEW];
    bool few_given[FEW];
    int np = 0, total, n;
    Value extra = value_void(); /* the keywords **kwargs takes */
    userfunc_params(f, &total);
    bool starred = false;
    for (int i = 0; i < call->num_kids; i++) starred = starred || call->kids[i]->kind == NODE_STARRED;
    int cap = !starred && call->num_kids < FEW && total <= FEW ? FEW : MAX_ARGS;
    Value *args = cap == FEW ? few : malloc(MAX_ARGS * sizeof *args);
    const Node **nodes = cap == FEW ? few_nodes : malloc(MAX_ARGS * sizeof *nodes);
    bool *given = cap == FEW ? few_given : malloc(MAX_ARGS * sizeof *given);
    bool ok = args && nodes && given;
    if (!ok) session_set_error(s, call->line, call->col, "out of memory calling a function");
    for (int i = 0; ok && i < cap; i++) args[i] = value_void(), given[i] = false;
    if (ok && self) { /* a method's object, its first argument */
        value_copy(self, &args[0]);
        nodes[0] = call;
        given[0] = true;
        np = 1;
    }
    for (int i = 0; ok && i < call->num_kids; i++) {
        const Node *k = call->kids[i];
        if (k->kind != NODE_KEYWORD) {
            ok = positional_arg(s, k, args, nodes, &np, cap);
            for (int j = 0; j < np; j++) given[j] = true;
            continue;
        }
        Value v;
        if (!(ok = eval_expression(s, k->left, &v))) break;
        if (np > total) value_release(&v); /* too many positional: said below */
        else if (k->as.text.length == 0) ok = spread_keywords(s, call, f, k, v, args, given, &extra);
        else ok = keyword_arg(s, call, f, k->as.text.text, k->as.text.length, v, args, given,
                              &extra);
    }
    n = np;
    total = positional_params(f);
    if (f->def && f->def->star >= 0) total = f->def->star; /* *args may be empty */
    if (ok && np < total && call->num_positional < call->num_kids) { /* keywords: fill the gaps */
        for (n = np; n < total && (given[n] || (f->defaults && f->defaults[n].kind != VAL_VOID)); n++)
            if (!given[n]) value_copy(&f->defaults[n], &args[n]);
        if (n < total) ok = arity_error(s, call, f, n);
    }
    if (!ok && args) release_args(args, cap);
    if (ok) ok = apply_user(s, call, f, args, n, extra.kind == VAL_VOID ? NULL : &extra, out);
    else value_release(&extra);
    if (cap != FEW) free(args), free(nodes), free(given);
    return ok;
}

/* Whether an in-place op on x whose result was recorded is recorded, as
 * PyTorch records it (grad mode on): x is an intermediate (it has a
 * Function), or a constant that owns its elements (c += x, x requiring
 * grad; a constant view of another keeps version 2's rule). */
static bool in_place_recorded(const Tensor *x) {
    bool intermediate = x->requires_grad && !tensor_is_leaf(x);
    return ag_is_grad_enabled() && (intermediate || (!x->requires_grad && !x->base));
}

/* x takes the values and the Function of r (taken), x op v just recorded
 * from x: the engine rebases x's history (ag_rebase_in_place). */
static bool rebase_in_place(Session *s, const Node *at, Tensor *x, Value *r) {
    bool ok = ag_rebase_in_place(x, r->as.tensor) == 0 ||
              session_fail(s, at->line, at->col, "%s%s", s->python ? "RuntimeError: " : "",
                           ag_error());
    value_release(r);
    return ok;
}

/* Writes r (taken) into the tensor x in place: every name, list item and
 * optimizer holding x sees it. */
static bool write_in_place(Session *s, const Node *at, Tensor *x, Value *r) {
    Tensor *v = NULL;
    bool ok = to_tensor(s, at, r, "the value", &v) &&
              (tensor_assign(x, v) == 0 ||
               session_fail(s, at->line, at->col, "%s%s", s->python ? "RuntimeError: " : "",
                            ag_error()));
    tensor_release(v);
    value_release(r);
    return ok;
}

/* x.add_(alpha, other) and x.sub_(alpha, other), a number then a tensor:
 * PyTorch 1.13's deprecated overload (the char-RNN tutorial's
 * p.data.add_(-learning_rate, p.grad.data)), x + alpha * other, with a
 * note once on stderr as PyTorch warns once. *done false when the first
 * argument is no number (the builtin's own call then says what is wrong). */
static bool scaled_overload(Session *s, const Node *call, const Value *self, bool add,
                            Value *out, bool *done) {
    Value alpha, other;
    *done = false;
    if (!eval_expression(s, call->kids[0], &alpha)) return false;
    bool number = value_is_scalar(&alpha);
    double a = number ? value_scalar(&alpha) : 0;
    value_release(&alpha);
    if (!number) return true;
    if (!eval_expression(s, call->kids[1], &other)) return false;
    if (other.kind != VAL_TENSOR) return value_release(&other), true;
    if (!s->deprecated_noted) {
        s->deprecated_noted = true;
        fflush(s->out);
        fprintf(s->err, "UserWarning: This overload of %s_ is deprecated: %s_(Number alpha, "
                "Tensor other); use %s_(Tensor other, *, Number alpha)\n", add ? "add" : "sub",
                add ? "add" : "sub", add ? "add" : "sub");
    }
    Tensor *x = self->as.tensor, *r = add ? tensor_add_scaled(x, other.as.tensor, a)
                                           : tensor_sub_scaled(x, other.as.tensor, a);
    value_release(&other);
    *done = true;
    return engine_result(s, call, r, out);
}

/* The new values of x.NAME_(args) (x is self): zero_() zeros, fill_(v)
 * and copy_(src) their argument, any other the out-of-place op NAME
 * (add_ is add, relu_ relu) applied to x and the arguments. */
static bool in_place_values(Session *s, const Node *call, const Value *self, Value *out) {
    const Node *attr = call->left;
    const char *name = attr->as.text.text;
    size_t len = attr->as.text.length - 1;
    bool zero = len == 4 && memcmp(name, "zero", 4) == 0;
    bool fill = (len == 4 && memcmp(name, "fill", 4) == 0) || (len == 4 && memcmp(name, "copy", 4) == 0);
    if (zero || fill) {
        int want = zero ? 0 : 1;
        if (call->num_kids != want || call->num_positional != want)
            return session_fail(s, attr->line, attr->col + 1, "TypeError: %.*s() takes %s",
                                name_len(attr), name, zero ? "no arguments" : "exactly one "
                                "positional argument");
        if (zero) return *out = value_number(0), true;
        return eval_expression(s, call->kids[0], out);
    }
    bool add = len == 3 && memcmp(name, "add", 3) == 0, sub = len == 3 && memcmp(name, "sub", 3) == 0;
    if (s->python && (add || sub) && call->num_kids == 2 && call->num_positional == 2) {
        bool done;
        if (!scaled_overload(s, call, self, add, out, &done)) return false;
        if (done) return true;
    }
    const Builtin *b = builtin_find(name, len);
    if (!b || !(b->flags & BI_METHOD))
        return session_fail(s, attr->line, attr->col + 1, "AttributeError: 'Tensor' object has "
                            "no attribute '%.*s'", name_len(attr), name);
    Value x;
    value_copy(self, &x);
    return call_builtin(s, call, b, &x, out);
}

/* zero_, fill_ and copy_: their values are not an op of x's. */
static bool in_place_fill(const Node *attr) {
    size_t len = attr->as.text.length - 1;
    const char *name = attr->as.text.text;
    return len == 4 && (memcmp(name, "zero", 4) == 0 || memcmp(name, "fill", 4) == 0 ||
                        memcmp(name, "copy", 4) == 0);
}

/* Whether the result r of x.NAME_(...) may be written into x: an op's
 * result must cast to x's dtype (bool_x.add_(1.5) and int_x.mul_(0.5) are
 * PyTorch's errors, as x += 1.5 is); zero_, fill_ and copy_ convert any
 * value, as PyTorch's do. */
static bool in_place_castable(Session *s, const Node *attr, const Tensor *x, const Value *r) {
    size_t len = attr->as.text.length;
    bool converts = len == 5 && (memcmp(attr->as.text.text, "fill_", 5) == 0 ||
                                 memcmp(attr->as.text.text, "copy_", 5) == 0 ||
                                 memcmp(attr->as.text.text, "zero_", 5) == 0);
    if (converts || r->kind != VAL_TENSOR) return true;
    AgDtype from = (AgDtype)r->as.tensor->dtype, to = (AgDtype)x->dtype;
    if (ag_can_cast(from, to)) return true;
    return session_fail(s, attr->line, attr->col + 1, "%sresult type %s can't be cast to the "
                        "desired output type %s", s->python ? "RuntimeError: " : "",
                        ag_dtype_scalar_name(from), ag_dtype_scalar_name(to));
}

/* Evaluates a call's arguments for their errors only: Python evaluates
 * them before the method runs, so x.mul_(~f) of a leaf x that requires
 * grad and a float f is ~'s TypeError, not the method's refusal of x. */
static bool arguments_evaluate(Session *s, const Node *call) {
    for (int i = 0; i < call->num_kids; i++) {
        const Node *k = call->kids[i];
        Value v;
        if (k->kind == NODE_KEYWORD && k->as.text.length == 0) continue; /* **dict */
        if (!eval_expression(s, k->kind == NODE_KEYWORD ? k->left : k, &v)) return false;
        value_release(&v);
    }
    return true;
}

/* squeeze_, unsqueeze_, t_, transpose_, swapdims_, swapaxes_: in-place
 * methods that change the tensor's shape (its result takes x's place). */
static bool shape_in_place(const Node *attr) {
    static const char *const names[] = {"squeeze_", "unsqueeze_", "t_", "transpose_",
                                        "swapdims_", "swapaxes_"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (attr->as.text.length == strlen(names[i]) &&
            memcmp(attr->as.text.text, names[i], attr->as.text.length) == 0)
            return true;
    return false;
}

static bool same_shape(const Tensor *a, const Tensor *b) {
    return a->ndim == b->ndim && memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof *a->shape) == 0;
}

/* x.add_(y), x.zero_(), x.relu_(): in place, as PyTorch: every name, list
 * item and optimizer holding x sees the new values, and the call returns
 * x. A leaf that requires grad, with grad mode on, is PyTorch's error. On
 * an intermediate, with grad mode on, the op is recorded and x's history
 * rebased onto it (ag_rebase_in_place); another op that would have to be
 * recorded (c.add_(x), c a constant) is refused (docs/pytorch.md). self is
 * taken. */
static bool call_in_place(Session *s, const Node *call, Value *self, Value *out) {
    const Node *attr = call->left;
    Tensor *x = self->as.tensor;
    Value r = value_void();
    bool ok = !(x->requires_grad && tensor_is_leaf(x) && ag_is_grad_enabled()) ||
              (arguments_evaluate(s, call) &&
               session_fail(s, attr->line, attr->col + 1, "%sa leaf Variable that requires grad "
                            "is being used in an in-place operation.",
                            s->python ? "RuntimeError: " : ""));
    ok = ok && in_place_values(s, call, self, &r);
    if (ok && !in_place_castable(s, attr, x, &r)) {
        value_release(&r);
        ok = false;
    }
    if (ok && r.kind == VAL_TENSOR && !tensor_is_leaf(r.as.tensor) && in_place_recorded(x) &&
        !in_place_fill(attr)) {
        ok = rebase_in_place(s, attr, x, &r);
        if (ok) *out = value_tensor(tensor_retain(x));
        value_release(self);
        return ok;
    }
    if (ok && r.kind == VAL_TENSOR && !tensor_is_leaf(r.as.tensor)) {
        ok = session_fail(s, attr->line, attr->col + 1, "ag does not record in-place operations "
                          "on tensors that require grad: write x = x.%.*s(...) (a new tensor) "
                          "instead", (int)attr->as.text.length - 1, attr->as.text.text);
        value_release(&r);
    }
    if (ok && shape_in_place(attr) && r.kind == VAL_TENSOR &&
        !same_shape(x, r.as.tensor)) {
        ok = tensor_assign_reshaped(x, r.as.tensor) == 0 ||
             session_fail(s, attr->line, attr->col + 1, "%s%s", s->python ? "RuntimeError: " : "",
                          ag_error());
        value_release(&r);
    } else {
        ok = ok && write_in_place(s, attr, x, &r);
    }
    if (ok) *out = value_tensor(tensor_retain(x));
    value_release(self);
    return ok;
}

/* x.NAME_(...): an in-place method (one underscore at the end, and no
 * builtin of that name: requires_grad_ is one). */
static bool in_place_name(const Node *attr) {
    size_t len = attr->as.text.length;
    return len >= 2 && attr->as.text.text[len - 1] == '_' && attr->as.text.text[len - 2] != '_' &&
           !builtin_find(attr->as.text.text, len);
}

static bool name_is(const Node *n, const char *name) {
    return n->as.text.length == strlen(name) && memcmp(n->as.text.text, name, n->as.text.length) == 0;
}

/* F.relu(x), nn.Linear(...), torch.nn.functional.relu(x), optim.SGD(...):
 * PyTorch's modules, which ag does without. True (and the error set, with
 * what to write) when the method call's object is one of them. */
static bool module_habit(Session *s, const Node *attr) {
    const Node *root = attr->left;
    while (root->kind == NODE_ATTR) root = root->left;
    if (root->kind != NODE_NAME) return false;
    bool module = root->torch ? false
                              : (name_is(root, "F") || name_is(root, "nn") || name_is(root, "optim")) &&
                                    !bound(s, root);
    if (!module) return false;
    const Builtin *b = builtin_find(attr->as.text.text, attr->as.text.length);
    /* the dotted name as written, e.g. torch.nn.functional.relu */
    const char *from = root->as.text.text, *to = attr->as.text.text + attr->as.text.length;
    int len = to - from > 80 ? 80 : (int)(to - from);
    const char *torch = root->torch ? "torch." : "";
    if (b)
        session_set_error(s, root->line, root->col, "ag has no modules: write %s(...), not "
                          "%s%.*s(...)", b->name, torch, len, from);
    else
        session_set_error(s, root->line, root->col, "ag has no modules (%s%.*s): write the "
                          "function itself (relu, mse_loss, SGD, ...); :help lists them", torch,
                          len, from);
    return true;
}

/* module.f(args): a math function, or (torch and its submodules) the
 * builtin f. */
static bool call_module(Session *s, const Node *call, const char *module, Value *out) {
    const Node *attr = call->left;
    const char *name = attr->as.text.text;
    size_t len = attr->as.text.length;
    Value cls;
    bool failed;
    if (python_module_name(s, attr, module, name, len, &cls, &failed)) {
        bool ok = call_value(s, call, &cls, out); /* nn.Linear(2, 3) */
        value_release(&cls);
        return ok;
    }
    if (failed) return false;
    const Builtin *b = builtin_of_module(module, name, len);
    if (b && !b->self_kind) return call_builtin(s, call, b, NULL, out);
    return session_fail(s, attr->line, attr->col + 1, "AttributeError: module '%s' has no "
                        "attribute '%.*s'", module, name_len(attr), name);
}

/* x.f(args): the builtin f with x as its first argument. */
/* call(...) of f, a method of self's class (value_method_of's), with self
 * first: no bound method is made. */
static bool call_class_method(Session *s, const Node *call, const Value *f, const Value *self,
                              Value *out) {
    UserFunc *fn = f->as.function;
    fn->refs++; /* the call may replace the class's attribute */
    Value held = {.kind = VAL_FUNCTION, .as.function = fn};
    bool ok = call_user(s, call, fn, self, out);
    value_release(&held);
    return ok;
}

/* TYPE.NAME(args) of a builtin type (dict.fromkeys): the builtin named
 * "TYPE.NAME"; type (taken) is released. */
static bool call_type_method(Session *s, const Node *call, Value *type, Value *out) {
    const Node *attr = call->left;
    char name[64];
    int n = snprintf(name, sizeof name, "%s.%.*s", type->as.builtin.name, name_len(attr),
                     attr->as.text.text);
    const Builtin *b = n > 0 && n < (int)sizeof name ? builtin_find(name, (size_t)n) : NULL;
    if (b) {
        value_release(type);
        return call_builtin(s, call, b, NULL, out);
    }
    bool ok = session_fail(s, attr->line, attr->col + 1, "AttributeError: type object '%s' has "
                           "no attribute '%.*s'", builtin_name(type), name_len(attr),
                           attr->as.text.text);
    value_release(type);
    return ok;
}

/* super().__setattr__(name, value) where super() is object's (a class of
 * no base): Python's object.__setattr__, the plain assignment. */
static bool object_setattr(Value self, const Node *attr, const Node *call) {
    return self.kind == VAL_METHOD && !self.as.bound->from && self.as.bound->func.kind == VAL_VOID &&
           attr_is(attr, "__setattr__") && call->num_kids == 2 && call->num_positional == 2;
}

static bool set_through_object(Session *s, const Node *call, Value *self, Value *out) {
    Value name, v;
    bool ok = eval_expression(s, call->kids[0], &name);
    if (ok && name.kind != VAL_STRING)
        ok = session_fail(s, call->line, call->col, "TypeError: attribute name must be string, "
                          "not '%s'", value_type_name(&name));
    if (ok && !eval_expression(s, call->kids[1], &v)) ok = false;
    const Value *target = &self->as.bound->self;
    if (ok && !value_setattr(target, name.as.string.text, name.as.string.length, NULL, v))
        ok = session_fail(s, call->line, call->col, "MemoryError");
    value_release(&name);
    value_release(self);
    *out = value_none();
    return ok;
}

static bool call_method(Session *s, const Node *call, Value *out) {
    const Node *attr = call->left;
    const Node *obj = attr->left;
    if (module_habit(s, attr)) return false;
    Value self;
    if (!eval_expression(s, obj, &self)) return false;
    if (self.kind == VAL_TENSOR && in_place_name(attr)) return call_in_place(s, call, &self, out);
    if (self.kind == VAL_MODULE) return call_module(s, call, self.as.module, out);
    if (self.kind == VAL_INSTANCE) { /* a method of its class: called with no bound method made */
        const Value *f = value_method_of(&self, attr->as.text.text, attr->as.text.length);
        if (f) {
            bool ok = call_class_method(s, call, f, &self, out);
            value_release(&self);
            return ok;
        }
    }
    if (self.kind == VAL_INSTANCE || self.kind == VAL_CLASS || self.kind == VAL_METHOD) {
        Value f; /* obj.f(...): the bound method, or whatever the attribute holds */
        bool found = value_getattr(&self, attr->as.text.text, attr->as.text.length, &f);
        if (!found && attr->as.text.length == 8 && memcmp(attr->as.text.text, "__init__", 8) == 0 &&
            call->num_kids == 0) { /* super().__init__() of a class with no __init__: object's */
            value_release(&self);
            *out = value_none();
            return true;
        }
        if (!found && object_setattr(self, attr, call)) /* super().__setattr__(name, v) */
            return set_through_object(s, call, &self, out);
        bool ok = found || attr_fallback(s, attr, &self, &f);
        if (ok && found && s->descriptors && self.kind == VAL_INSTANCE &&
            !value_own_attr(self.as.object, attr->as.text.text, attr->as.text.length, NULL))
            ok = descriptor_get(s, attr, &self, &f); /* obj.prop(...): the property's value */
        value_release(&self);
        if (ok) ok = call_value(s, call, &f, out);
        value_release(&f);
        return ok;
    }
    if (s->python && self.kind == VAL_BUILTIN && self.as.builtin.type) /* dict.fromkeys(...) */
        return call_type_method(s, call, &self, out);
    bool python_value = self.kind == VAL_LIST || self.kind == VAL_DICT || self.kind == VAL_STRING;
    if (s->python && python_value) { /* xs.append(x), d.items(), ", ".join(names) */
        const Builtin *m = builtin_method(self.kind, attr->as.text.text, attr->as.text.length);
        if (m) return call_builtin(s, call, m, &self, out);
        bool ok = session_fail(s, attr->line, attr->col + 1, "AttributeError: '%s' object has no "
                               "attribute '%.*s'", value_type_name(&self), name_len(attr), attr->as.text.text);
        value_release(&self);
        return ok;
    }
    if (!stacked(s, obj, &self)) return false;
    const Builtin *b = builtin_find(attr->as.text.text, attr->as.text.length);
    const Builtin *method = builtin_method(self.kind, attr->as.text.text, attr->as.text.length);
    if (method) return call_builtin(s, call, method, &self, out); /* opt.step() */
    bool tensor_like = self.kind == VAL_TENSOR || (self.kind == VAL_NUMBER && self.literal);
    if ((!tensor_like || !b || !(b->flags & BI_METHOD)) && s->python) { /* (-1).to(...) */
        bool ok = session_fail(s, attr->line, attr->col + 1, "AttributeError: '%s' object has no "
                               "attribute '%.*s'", value_type_name(&self), name_len(attr),
                               attr->as.text.text);
        value_release(&self);
        return ok;
    }
    if (!tensor_like || !b || !(b->flags & BI_METHOD)) {
        bool ok = session_fail(s, attr->line, attr->col + 1, "%s has no method '%.*s'%s",
                               value_kind_name(&self), name_len(attr), attr->as.text.text,
                               tensor_like && b ? " (call it as a function)" : "");
        value_release(&self);
        return ok;
    }
    return call_builtin(s, call, b, &self, out);
}

/* Cls(...): a new object of the class, its __init__ run with the
 * arguments (which must return None). */
/* A new object of class cls with no attributes yet, into out. */
static bool new_object(Session *s, const Node *at, const Value *cls, Value *out) {
    Instance *o = value_block_zalloc(sizeof *o);
    ValueDict *attrs = o ? value_dict_new(false) : NULL;
    if (!attrs) {
        free(o);
        return session_fail(s, at->line, at->col, "MemoryError");
    }
    *o = (Instance){.refs = 1, .cls = cls->as.cls, .attrs = attrs};
    cls->as.cls->refs++;
    value_dict_reserve(attrs, cls->as.cls->object_attrs); /* a hint: without room it grows */
    *out = (Value){.kind = VAL_INSTANCE, .as.object = o};
    return true;
}

static bool instantiate(Session *s, const Node *call, const Value *cls, Value *out) {
    Value self, init, r = value_void();
    if (!new_object(s, call, cls, &self)) return false;
    Instance *o = self.as.object;
    bool ok = true;
    const Value *method = value_method_of(&self, "__init__", 8);
    if (method) { /* the common case: no bound method made */
        ok = call_class_method(s, call, method, &self, &r);
    } else if (value_getattr(&self, "__init__", 8, &init)) {
        ok = call_value(s, call, &init, &r);
        value_release(&init);
    } else if (call->num_kids > 0) {
        ok = session_fail(s, call->line, call->col, "TypeError: %s() takes no arguments",
                          cls->as.cls->name);
    }
    if (ok && r.kind != VAL_NONE && r.kind != VAL_VOID)
        ok = session_fail(s, call->line, call->col, "TypeError: __init__() should return "
                          "None, not '%s'", value_type_name(&r));
    value_release(&r);
    if (!ok) return value_release(&self), false;
    cls->as.cls->object_attrs = o->attrs->count;
    *out = self;
    return true;
}

/* Cls(*args) with the arguments' values (args taken), where no call is
 * written (a decorator, a builtin's callback): as instantiate. */
static bool instantiate_with(Session *s, const Node *at, const Value *cls, Value *args, int n,
                             Value *out) {
    Value self, init, r = value_void(), all[MAX_ARGS];
    if (n + 1 > MAX_ARGS) return release_args(args, n), session_fail(s, at->line, at->col, "too many arguments");
    if (!new_object(s, at, cls, &self)) return release_args(args, n), false;
    bool ok = true;
    const Value *method = value_method_of(&self, "__init__", 8);
    if (method) { /* self first, then the arguments, as a bound call */
        UserFunc *fn = method->as.function;
        fn->refs++;
        Value held = {.kind = VAL_FUNCTION, .as.function = fn};
        value_copy(&self, &all[0]);
        memcpy(all + 1, args, (size_t)n * sizeof *args);
        ok = apply_user(s, at, fn, all, n + 1, NULL, &r);
        value_release(&held);
    } else if (value_getattr(&self, "__init__", 8, &init)) {
        ok = s->call_value(s, at->line, at->col, &init, args, n, &r);
        release_args(args, n);
        value_release(&init);
    } else {
        release_args(args, n);
        if (n > 0)
            ok = session_fail(s, at->line, at->col, "TypeError: %s() takes no arguments",
                              cls->as.cls->name);
    }
    if (ok && r.kind != VAL_NONE && r.kind != VAL_VOID)
        ok = session_fail(s, at->line, at->col, "TypeError: __init__() should return None, not "
                          "'%s'", value_type_name(&r));
    value_release(&r);
    if (!ok) return value_release(&self), false;
    *out = self;
    return true;
}

/* super() in a method: the object (its first parameter), seen from the
 * base of the class that defines the running method. */
/* super(Class, obj), Python 2's spelling: obj's class must be Class or
 * derive from it; *owner is Class. */
static bool super_of(Session *s, const Node *call, Value *cls, Value *obj, const ClassObj **owner) {
    if (!eval_expression(s, call->kids[0], cls)) return false;
    if (!eval_expression(s, call->kids[1], obj)) return false;
    const ClassObj *c = obj->kind == VAL_INSTANCE ? obj->as.object->cls : NULL;
    while (c && cls->kind == VAL_CLASS && c != cls->as.cls) c = c->base;
    if (cls->kind != VAL_CLASS)
        return session_fail(s, call->line, call->col, "TypeError: super() argument 1 must be a "
                            "type, not %s", value_type_name(cls));
    if (!c)
        return session_fail(s, call->line, call->col, "TypeError: super(type, obj): obj must be "
                            "an instance or subtype of type");
    *owner = cls->as.cls;
    return true;
}

static bool make_super(Session *s, const Node *call, Value *out) {
    Frame *f = s->frame;
    Env *e = f ? f->env : NULL;
    Value cls = value_void(), obj = value_void();
    const Value *self = &obj;
    const ClassObj *owner = NULL;
    bool given = call->num_kids == 2; /* super(Class, self): owner is Class */
    if (given) {
        bool ok = super_of(s, call, &cls, &obj, &owner);
        value_release(&cls);
        if (!ok) return value_release(&obj), false;
    } else if (call->num_kids || !f || !f->func || !e || e->num_locals == 0 ||
               e->locals[0].value.kind != VAL_INSTANCE) {
        return session_fail(s, call->line, call->col, "RuntimeError: super(): ag takes super() "
                            "with no arguments (or a class and self), inside a method");
    } else {
        self = &e->locals[0].value;
        owner = self->as.object->cls;
    }
    for (; !given && owner; owner = owner->base) { /* the class whose namespace holds this function */
        bool here = false;
        for (int64_t i = 0; owner->attrs && i < owner->attrs->count && !here; i++) {
            const Value *v = &owner->attrs->entries[i].value;
            here = v->kind == VAL_FUNCTION && v->as.function == f->func;
        }
        if (here) break;
    }
    if (!owner) {
        value_release(&obj);
        return session_fail(s, call->line, call->col, "RuntimeError: super(): this method's "
                            "class was not found");
    }
    Bound *b = calloc(1, sizeof *b);
    if (!b) return value_release(&obj), session_fail(s, call->line, call->col, "MemoryError");
    b->refs = 1;
    b->func = value_void();
    value_copy(self, &b->self);
    value_release(&obj);
    b->from = owner->base; /* NULL: a class of no base, whose super() is object's (call_method) */
    if (owner->base) owner->base->refs++;
    *out = (Value){.kind = VAL_METHOD, .as.bound = b};
    return true;
}

/* f(...) where f is a built-in value's method bound to it: the builtin
 * with (a new reference to) the value first, which call_builtin takes. */
static bool call_bound_builtin(Session *s, const Node *call, const Bound *b, Value *out) {
    Value self;
    value_copy(&b->self, &self);
    return call_builtin(s, call, b->func.as.builtin.row, &self, out);
}

/* Calls the value v (borrowed): a function you defined, or a builtin. */
static bool call_value(Session *s, const Node *call, const Value *v, Value *out) {
    if (v->kind == VAL_FUNCTION) {
        UserFunc *f = v->as.function;
        f->refs++; /* the call may rebind the name that held it */
        Value held = {.kind = VAL_FUNCTION, .as.function = f};
        bool ok = call_user(s, call, f, NULL, out);
        value_release(&held);
        return ok;
    }
    if (v->kind == VAL_METHOD && !v->as.bound->from) { /* obj.f(...): self first */
        Value held;
        value_copy(v, &held);
        const Bound *b = v->as.bound;
        bool ok = b->func.kind == VAL_FUNCTION
                      ? call_user(s, call, b->func.as.function, &b->self, out)
                  : b->func.kind == VAL_BUILTIN /* f = x.float; f(): the builtin with x first */
                      ? call_bound_builtin(s, call, b, out)
                      : session_fail(s, call->line, call->col, "TypeError: this method cannot "
                                     "be called");
        value_release(&held);
        return ok;
    }
    if (v->kind == VAL_CLASS) return instantiate(s, call, v, out);
    if (v->kind == VAL_INSTANCE) { /* obj(...): its __call__ */
        Value f;
        if (!value_getattr(v, "__call__", 8, &f))
            return session_fail(s, call->line, call->col, "TypeError: '%s' object is not "
                                "callable", value_type_name(v));
        bool ok = call_value(s, call, &f, out);
        value_release(&f);
        return ok;
    }
    if (builtin_type_only(v)) return cannot_create(s, call->line, call->col, v);
    if (v->kind == VAL_BUILTIN) return call_builtin(s, call, v->as.builtin.row, NULL, out);
    const Node *callee = call->left;
    if (s->python || callee->kind != NODE_NAME)
        return session_fail(s, callee->line, callee->col, "TypeError: '%s' object is not "
                            "callable", value_type_name(v));
    const char *name = callee->as.text.text;
    bool hides = builtin_find(name, callee->as.text.length) != NULL;
    return session_fail(s, callee->line, callee->col, "'%.*s' is a variable, not a "
                        "function%s%.*s%s", name_len(callee), name,
                        hides ? " (it hides the builtin: torch." : "",
                        hides ? name_len(callee) : 0, name, hides ? "(...) calls it)" : "");
}

/* f(...): a name's function (the resolver's), a builtin, a method
 * (x.f(...)), or, in a .py file, any expression's value (fs[0](x)). */
static bool eval_call(Session *s, const Node *call, Value *out) {
    const Node *callee = call->left;
    if (callee->kind == NODE_ATTR) return call_method(s, call, out);
    if (callee->kind != NODE_NAME) {
        Value f;
        if (!eval_expression(s, callee, &f)) return false;
        bool ok = call_value(s, call, &f, out);
        value_release(&f);
        return ok;
    }
    const char *name = callee->as.text.text;
    Meaning m = callee->torch ? (Meaning){NULL, false, builtin_of(callee)} : resolve(s, callee);
    if (!m.value && s->python && callee->as.text.length == 5 && memcmp(name, "super", 5) == 0)
        return make_super(s, call, out);
    if (m.value) {
        Value f = *m.value; /* call_value takes its own reference when it must */
        return call_value(s, call, &f, out);
    }
    if (m.builtin) return call_builtin(s, call, m.builtin, NULL, out);
    if (callee->torch && s->python) { /* torch.save(...): written in Python, or none */
        Value f;
        if (!eval_name(s, callee, &f)) return false;
        bool ok = call_value(s, call, &f, out);
        value_release(&f);
        return ok;
    }
    if (callee->torch)
        return session_fail(s, callee->line, callee->col, "ag has no torch.%.*s (:help lists "
                            "the builtins)", name_len(callee), name);
    Value cls;
    bool failed = false;
    if (s->python && python_builtin(s, callee, &cls, &failed)) { /* ValueError(...), open(...) */
        bool ok = call_value(s, call, &cls, out);
        value_release(&cls);
        return ok;
    }
    return !failed && unknown_name(s, callee, "function");
}

/* ======================================================================
 * Expressions
 * ====================================================================== */


/* One {x!r:spec} field of an f-string, appended to out. */
static bool format_field(Session *s, const Node *field, StrBuf *out) {
    Value v;
    if (!eval_expression(s, field->left, &v)) return false;
    StrBuf text, repr;
    strbuf_init(&text);
    strbuf_init(&repr);
    PyfmtArg a = value_pyfmt_arg(&v, &s->print, &text, &repr);
    char err[PYFMT_ERR_MAX];
    uint32_t conv = (uint32_t)field->op;
    if (field->right) { /* {x=}: its text first, and repr unless a spec is given */
        strbuf_appendn(out, field->right->as.text.text, field->right->as.text.length);
        if (!conv && field->as.text.length == 0) conv = 'r';
    }
    bool ok = pyfmt_field(out, &a, conv, field->as.text.text, field->as.text.length, err, sizeof err);
    if (!ok) session_set_error(s, field->line, field->col, "%s", err);
    strbuf_free(&text);
    strbuf_free(&repr);
    value_release(&v);
    return ok;
}

static bool eval_fstring(Session *s, const Node *n, Value *out) {
    StrBuf sb;
    strbuf_init(&sb);
    bool ok = true;
    for (int i = 0; ok && i < n->num_kids; i++) {
        const Node *k = n->kids[i];
        if (k->kind == NODE_STRING) strbuf_appendn(&sb, k->as.text.text, k->as.text.length);
        else ok = format_field(s, k, &sb);
    }
    if (ok && (sb.oom || !value_string(sb.data, sb.len, out)))
        ok = session_fail(s, n->line, n->col, "out of memory");
    strbuf_free(&sb);
    return ok;
}

/* A list literal of numbers in a .py file: Python's list (nested, of
 * ints, or of floats when one was written with a point), from the values
 * the parser read at once; *at walks them. */
static bool python_list(Session *s, const Node *n, int level, int64_t *at, Value *out) {
    int64_t count = n->as.list.shape[level];
    ValueList *l = value_list_new((int)count, false);
    if (!l || count > INT32_MAX) return session_fail(s, n->line, n->col, "out of memory");
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    for (int64_t k = 0; k < count; k++) {
        if (level + 1 < n->as.list.ndim) {
            if (!python_list(s, n, level + 1, at, &l->items[k])) return value_release(out), false;
            continue;
        }
        double v = n->as.list.values[(*at)++];
        l->items[k] = n->integer && fabs(v) < 0x1p63 ? (Value){.kind = VAL_INT, .as.integer = (int64_t)v}
                                                     : value_number(v);
    }
    return true;
}

/* a < b < c: each comparison on the previous right operand (read once),
 * stopping at the first false one, whose result is the chain's. The last
 * result is the chain's as it is, never asked for its truth (Python's
 * `and`): x < y <= t with t a tensor of several elements is that tensor. */
static bool eval_chain(Session *s, const Node *n, Value *out) {
    Value left, right;
    if (!eval_expression(s, n->kids[0]->left, &left)) return false;
    bool ok = true;
    *out = value_void();
    for (int i = 0; ok && i < n->num_kids; i++) {
        const Node *c = n->kids[i];
        if (!(ok = eval_expression(s, c->right, &right))) break;
        value_release(out);
        ok = apply_binary(s, c, c->op, &left, &right, out);
        value_release(&left);
        left = right;
        bool t, last = i == n->num_kids - 1;
        if (ok && !last && (!(ok = truth(s, c, out, &t)) || !t)) break;
    }
    value_release(&left);
    if (!ok) value_release(out);
    return ok;
}

/* A COND else B */
static bool eval_ternary(Session *s, const Node *n, Value *out) {
    Value c;
    bool t;
    if (!eval_expression(s, n->kids[0], &c)) return false;
    bool ok = truth(s, n->kids[0], &c, &t);
    value_release(&c);
    return ok && eval_expression(s, t ? n->left : n->right, out);
}

/* Adds the comprehension's element (and value, for a dict) to acc. */
static bool comp_add(Session *s, const Node *n, Value *acc) {
    Value item, value = value_void();
    if (!eval_expression(s, n->left, &item)) return false;
    if (n->right && !eval_expression(s, n->right, &value)) return value_release(&item), false;
    if (acc->kind == VAL_LIST) {
        return value_list_append(acc->as.list, item) ||
               session_fail(s, n->line, n->col, "out of memory");
    }
    if (!value_hashable(&item)) {
        bool ok = session_fail(s, n->left->line, n->left->col, "TypeError: unhashable type: "
                               "'%s'", value_type_name(&item));
        value_release(&item);
        value_release(&value);
        return ok;
    }
    return value_dict_set(acc->as.dict, item, n->right ? value : value_none()) ||
           session_fail(s, n->line, n->col, "out of memory");
}

static bool bind_target(Session *s, const Node *target, Value v);

/* The clauses of comprehension n from the i-th on, adding to acc. */
static bool comp_clause(Session *s, const Node *n, int i, Value *acc) {
    if (i == n->num_kids) return comp_add(s, n, acc);
    const Node *c = n->kids[i];
    Value v;
    if (!eval_expression(s, c->kind == NODE_COMP_IF ? c->left : c->right, &v)) return false;
    if (c->kind == NODE_COMP_IF) {
        bool t, ok = truth(s, c->left, &v, &t);
        value_release(&v);
        return ok && (!t || comp_clause(s, n, i + 1, acc));
    }
    if (!session_iterable(s, c->right->line, c->right->col, &v)) return value_release(&v), false;
    int64_t count = value_item_count(&v);
    bool ok = count >= 0 || session_fail(s, c->right->line, c->right->col, "TypeError: '%s' "
                                         "object is not iterable", value_type_name(&v));
    for (int64_t k = 0; ok && k < count; k++) {
        Value item;
        ok = (value_item(&v, k, s->python, &item) || session_fail(s, c->line, c->col, "%s", ag_error())) &&
             bind_target(s, c->left, item) && comp_clause(s, n, i + 1, acc);
        if (ok && session_interrupted) ok = session_fail(s, n->line, n->col, "interrupted");
    }
    value_release(&v);
    return ok;
}

/* [x for ...], (x for ...) (run to its end: a list), {x for ...}, {k: v
 * for ...}, in a scope of their own, as Python 3's. */
static bool eval_comprehension(Session *s, const Node *n, Value *out) {
    bool list = n->op != TOK_LBRACE;
    Value acc = list ? (Value){.kind = VAL_LIST, .as.list = value_list_new(0, false)}
                     : (Value){.kind = VAL_DICT, .as.dict = value_dict_new(!n->right)};
    if (list ? !acc.as.list : !acc.as.dict) return session_fail(s, n->line, n->col, "out of memory");
    Frame *caller = s->frame;
    /* in a function, its variables' names point into the function's tree,
     * which the env keeps (at the top level, the statement's tree goes
     * with it: env_bind_new copies them) */
    Code *code = caller && caller->func ? caller->func->code : NULL;
    Env *env = session_env(s, caller ? caller->env : NULL, code, n->line, n->col);
    if (!env) return value_release(&acc), false;
    Frame frame = {.func = caller ? caller->func : NULL, .env = env, .caller = caller,
                   .result = value_void()};
    s->frame = &frame;
    bool ok = comp_clause(s, n, 0, &acc);
    s->frame = caller;
    env_release(env);
    if (!ok) return value_release(&acc), false;
    *out = acc;
    return true;
}

/* **EXPR of a dict display: the mapping's pairs set into d, in its order. */
static bool spread_into(Session *s, const Node *star, ValueDict *d) {
    Value m;
    if (!eval_expression(s, star->left, &m)) return false;
    bool ok = (m.kind == VAL_DICT && !m.as.dict->set) ||
              session_fail(s, star->left->line, star->left->col, "TypeError: '%s' object is not "
                           "a mapping", value_type_name(&m));
    for (int64_t j = 0; ok && j < m.as.dict->count; j++) {
        Value k, v;
        value_copy(&m.as.dict->entries[j].key, &k);
        value_copy(&m.as.dict->entries[j].value, &v);
        ok = value_dict_set(d, k, v) || session_fail(s, star->line, star->col, "MemoryError");
    }
    value_release(&m);
    return ok;
}

/* {k: v, ...} and {a, b, ...} */
static bool eval_dict(Session *s, const Node *n, Value *out) {
    bool set = n->kind == NODE_SET;
    ValueDict *d = value_dict_new(set);
    if (!d) return session_fail(s, n->line, n->col, "out of memory");
    *out = (Value){.kind = VAL_DICT, .as.dict = d};
    for (int i = 0; i < n->num_kids; i += set ? 1 : 2) {
        Value k, v = value_none();
        if (n->kids[i]->kind == NODE_STARRED) { /* {**d, ...} */
            if (!spread_into(s, n->kids[i], d)) return value_release(out), false;
            continue;
        }
        if (!eval_expression(s, n->kids[i], &k)) return value_release(out), false;
        if (!set && !eval_expression(s, n->kids[i + 1], &v)) {
            value_release(&k);
            return value_release(out), false;
        }
        if (!value_hashable(&k)) {
            session_set_error(s, n->kids[i]->line, n->kids[i]->col, "TypeError: unhashable "
                              "type: '%s'", value_type_name(&k));
            value_release(&k);
            value_release(&v);
            return value_release(out), false;
        }
        if (!value_dict_set(d, k, v)) return value_release(out), session_fail(s, n->line, n->col, "out of memory");
    }
    return true;
}

/* A number literal: in a .py file 5 is an int and 2.0 a float; in .ag a
 * number literal (the constant tensor it writes, on its own). */
static bool eval_number(Session *s, const Node *n, Value *out) {
    if (s->python && n->integer) {
        if (n->too_big)
            return session_fail(s, n->line, n->col, "OverflowError: this integer passes ag's "
                                "64-bit ints (2**63 - 1 at most)");
        *out = (Value){.kind = VAL_INT, .as.integer = n->ivalue};
        return true;
    }
    *out = value_number(n->as.number);
    out->literal = !s->python;
    return true;
}

/* An expression with parts: evaluated below the checks that bound the
 * recursion (kept out of eval_expression, so that a leaf costs a call). */
static __attribute__((noinline)) bool eval_nested(Session *s, const Node *n, Value *out) {
    if (s->eval_depth >= s->max_eval_depth || !session_stack_ok(s))
        return session_fail(s, n->line, n->col, s->python ? "RecursionError: maximum recursion "
                            "depth exceeded" : "expression too deep to evaluate (calls nest "
                            "more than %d levels)", s->max_eval_depth);
    s->eval_depth++;
    bool ok;
    switch (n->kind) {
    case NODE_NUMBER: ok = eval_number(s, n, out); break;
    case NODE_FSTRING: ok = eval_fstring(s, n, out); break;
    case NODE_LAMBDA: ok = make_function(s, NULL, n, out); break;
    case NODE_TERNARY: ok = eval_ternary(s, n, out); break;
    case NODE_CHAIN: ok = eval_chain(s, n, out); break;
    case NODE_COMP: ok = eval_comprehension(s, n, out); break;
    case NODE_DICT: case NODE_SET: ok = eval_dict(s, n, out); break;
    case NODE_STRING:
        ok = value_string(n->as.text.text, n->as.text.length, out) ||
             session_fail(s, n->line, n->col, "out of memory");
        break;
    case NODE_CONST: ok = eval_const(s, n, out); break;
    case NODE_LIST:
        if (s->python) {
            int64_t at = 0;
            ok = python_list(s, n, 0, &at, out);
        } else {
            ok = engine_result(s, n, tensor_create(n->as.list.ndim, n->as.list.shape,
                                                   n->as.list.values, false), out);
        }
        break;
    case NODE_LIST_EXPR: ok = eval_items(s, n->kids, n->num_kids, false, out); break;
    case NODE_TUPLE: ok = eval_items(s, n->kids, n->num_kids, true, out); break;
    case NODE_NAME: ok = eval_name(s, n, out); break;
    case NODE_UNARY: ok = eval_unary(s, n, out); break;
    case NODE_BINARY: ok = eval_binary(s, n, out); break;
    case NODE_CALL:
        ok = eval_call(s, n, out);
        if (ok && s->python && out->kind == VAL_VOID) *out = value_none(); /* print() is None */
        break;
    case NODE_ATTR: ok = eval_attr(s, n, out); break;
    case NODE_INDEX: ok = eval_index(s, n, out); break;
    default: ok = session_fail(s, n->line, n->col, "this cannot stand on its own here");
    }
    s->eval_depth--;
    return ok;
}

bool eval_expression(Session *s, const Node *n, Value *out) {
    *out = value_void();
    /* checked at every node, leaves too: a chain a+b+c+... reaches its
     * additions only as it comes back up, past its leaves */
    if (session_interrupted) return session_fail(s, n->line, n->col, "interrupted");
    switch (n->kind) { /* the leaves: nothing below them to bound */
    case NODE_NUMBER: return eval_number(s, n, out);
    case NODE_NAME: return eval_name(s, n, out);
    case NODE_CONST: return eval_const(s, n, out);
    default: return eval_nested(s, n, out);
    }
}

/* ======================================================================
 * Calls that return nothing, refused before a statement runs
 * ====================================================================== */

/* The builtin a call node reaches when nothing hides it, or NULL; with no
 * session, the builtin its name names, whatever hides it. */
static const Builtin *static_builtin(Session *s, const Node *call) {
    const Node *c = call->left;
    if (c->kind != NODE_ATTR && c->kind != NODE_NAME) return NULL; /* f()(x), fs[0](x) */
    if (c->kind == NODE_ATTR || !s) return builtin_find(c->as.text.text, c->as.text.length);
    if (!c->torch && bound(s, c))
        return NULL;
    return builtin_find(c->as.text.text, c->as.text.length);
}

/* The first call in the tree (below its root when skip_root) to a builtin
 * that returns nothing, or NULL. */
static const Node *void_call(Session *s, const Node *n, bool skip_root) {
    if (!n) return NULL;
    if (!skip_root && n->kind == NODE_CALL) {
        const Builtin *b = static_builtin(s, n);
        if (b && (b->flags & BI_VOID)) return n;
    }
    const Node *hit = void_call(s, n->left, false);
    if (!hit) hit = void_call(s, n->right, false);
    for (int i = 0; !hit && i < n->num_kids; i++) hit = void_call(s, n->kids[i], false);
    return hit;
}

/* A call that returns nothing can only be a statement of its own: refused
 * before anything runs, so that a failed statement changes nothing. */
static bool check_void_calls(Session *s, const Node *expr, bool statement_root, bool assigned) {
    if (s->python) return true; /* Python's rule: such a call gives None */
    if (!expr) return true;
    /* Without a session, void_call finds any call named as such a builtin:
     * when there is none, no binding can make one. The tree never changes,
     * so that is worked out once per statement. */
    Node *cache = (Node *)expr;
    if (!cache->names_void) cache->names_void = void_call(NULL, expr, false) ? 2 : 1;
    if (cache->names_void == 1) return true;
    const Node *hit = void_call(s, expr, statement_root);
    if (!hit) return true;
    const Node *c = hit->left;
    if (assigned && hit == expr)
        return session_fail(s, hit->line, hit->col, "this call returns nothing to assign");
    return session_fail(s, hit->line, hit->col, "%.*s(...) returns nothing, so it cannot be used "
                        "inside an expression", name_len(c), c->as.text.text);
}

/* ======================================================================
 * Statements
 * ====================================================================== */

/* A call that is a statement of its own, evaluated with its place noted
 * (Session.statement_call_line): grad shows its result there. Out of line,
 * to keep the statement loop's frame as it was. */
static __attribute__((noinline)) bool eval_statement_call(Session *s, const Node *call,
                                                           Value *out) {
    int line = s->statement_call_line, col = s->statement_call_col; /* (nested statements) */
    s->statement_call_line = call->line;
    s->statement_call_col = call->col;
    bool ok = eval_expression(s, call, out);
    s->statement_call_line = line, s->statement_call_col = col;
    return ok;
}

static STATEMENT_HANDLER Status exec_expr(Session *s, const Stmt *st) {
    Value v;
    if (st->expr && st->expr->kind == NODE_CONST && st->expr->op == TOK_ELLIPSIS)
        return EXEC_OK; /* def f(): ... */
    if (!check_void_calls(s, st->expr, true, false)) return EXEC_ERROR;
    bool call = st->expr && st->expr->kind == NODE_CALL;
    if (!(call ? eval_statement_call(s, st->expr, &v) : eval_expression(s, st->expr, &v)))
        return EXEC_ERROR;
    if (!s->quiet && !s->python && !stacked(s, st->expr, &v))
        return EXEC_ERROR; /* [x, 2*x] prints as its stack */
    /* Python's REPL shows the repr (None aside) of the prompt's own
     * statements, not of a module being imported (it runs in a frame); the
     * .ag dialect prints every value. */
    bool show = !s->quiet && (!s->python || (s->interactive && !s->frame && v.kind != VAL_NONE));
    /* a notebook cell's value goes to ag --kernel, which shows the last one */
    if (show && !(s->show_result && s->show_result(s, &v))) session_print_value(s, &v);
    value_release(&v);
    return EXEC_OK;
}

/* NAME.grad = None resets a gradient, as zero_grad(NAME); NAME.grad = g
 * sets it to a copy of g, as in PyTorch. */
/* x.requires_grad = True / False on a leaf (PyTorch's rule: a result of a
 * recorded op cannot stop requiring grad this way). */
static Status assign_requires_grad(Session *s, const Stmt *st, const Value *objv, Value *v) {
    const Node *t = st->target;
    Value obj = *objv;
    bool flag = false;
    bool ok = truth(s, st->expr, v, &flag);
    if (ok && obj.kind != VAL_TENSOR)
        ok = session_fail(s, t->line, t->col, "AttributeError: '%s' object has no attribute "
                          "'requires_grad'", value_type_name(&obj));
    else if (ok && !tensor_is_leaf(obj.as.tensor))
        ok = session_fail(s, t->line, t->col, "RuntimeError: you can only change requires_grad "
                          "flags of leaf variables.");
    if (ok) tensor_set_requires_grad(obj.as.tensor, flag);
    return ok ? EXEC_OK : EXEC_ERROR;
}

/* x.data = v: v's elements written into x's, unrecorded, as PyTorch's
 * w.data = w.data - lr * w.grad does (PyTorch rebinds x to v's storage;
 * ag copies, so a later in-place change of v does not reach x). x takes
 * v's dtype (model.float() does this to every parameter); v of another
 * shape is refused: ag's tensors keep their shape. */
static Status assign_data(Session *s, const Stmt *st, const Value *objv, Value *vv) {
    const Node *t = st->target;
    Value obj = *objv, v = *vv;
    *vv = value_void(); /* taken */
    bool ok = true;
    if (ok && obj.kind != VAL_TENSOR)
        ok = session_fail(s, t->line, t->col, "%s has no .data", value_kind_name(&obj));
    Tensor *value = NULL, *data = NULL;
    if (ok) ok = to_tensor(s, st->expr, &v, "the new data", &value);
    bool same = ok && value->ndim == obj.as.tensor->ndim &&
                memcmp(value->shape, obj.as.tensor->shape, (size_t)value->ndim * sizeof *value->shape) == 0;
    if (ok && !same) {
        char have[AG_SHAPE_STR_MAX], want[AG_SHAPE_STR_MAX];
        ok = session_fail(s, t->line, t->col, "%sx.data = v needs v of x's shape %s, not %s: "
                          "ag's tensors keep their shape", s->python ? "RuntimeError: " : "",
                          tensor_shape_str(obj.as.tensor, want, sizeof want),
                          tensor_shape_str(value, have, sizeof have));
    }
    if (ok && value->dtype != obj.as.tensor->dtype &&
        tensor_set_dtype(obj.as.tensor, (AgDtype)value->dtype) != 0)
        ok = session_fail(s, t->line, t->col, "%s", session_engine_error(s));
    if (ok) data = tensor_data(obj.as.tensor);
    if (ok && (!data || tensor_assign(data, value) != 0))
        ok = session_fail(s, t->line, t->col, "%s", session_engine_error(s));
    tensor_release(data);
    tensor_release(value);
    value_release(&v);
    return ok ? EXEC_OK : EXEC_ERROR;
}

/* obj.NAME = v, obj evaluated (borrowed) and v given (taken): an object's
 * or class's attribute (in both dialects: a class loaded from a .py file
 * is used at the prompt), or a tensor's .requires_grad, .data or .grad. */
/* obj.NAME = v (v taken) where obj's class defines __setattr__: a call
 * of it, __setattr__(obj, 'NAME', v), whose result is dropped. */
static Status setattr_method(Session *s, const Node *t, const Value *objv, Value *vv) {
    const Value *method = value_method_of(objv, "__setattr__", 11);
    Value args[3], r;
    value_copy(objv, &args[0]);
    args[2] = *vv;
    *vv = value_void();
    if (!method || !value_string(t->as.text.text, t->as.text.length, &args[1])) {
        value_release(&args[0]);
        value_release(&args[2]);
        return exec_fail(s, t->line, t->col, method ? "MemoryError" : "TypeError: '%s' object's "
                         "__setattr__ is not a method", value_type_name(objv));
    }
    bool ok = s->call_value(s, t->line, t->col, method, args, 3, &r);
    if (ok) value_release(&r);
    release_args(args, 3);
    return ok ? EXEC_OK : EXEC_ERROR;
}

static Status store_attr_of(Session *s, const Stmt *st, const Value *objv, Value *vv) {
    const Node *t = st->target;
    const Value *d = s->descriptors && objv->kind == VAL_INSTANCE
                         ? value_class_lookup(objv->as.object->cls, t->as.text.text, t->as.text.length)
                         : NULL;
    if (d && descriptor_method(d, "__set__")) { /* a property: its setter */
        Value args[2] = {*objv, *vv}, r;
        bool ok = call_descriptor(s, t, d, "__set__", args, 2, &r);
        value_release(vv);
        value_release(&r);
        return ok ? EXEC_OK : EXEC_ERROR;
    }
    if (value_object_defines(objv, "__setattr__")) /* obj.x = v: its class's __setattr__ */
        return setattr_method(s, t, objv, vv);
    if (objv->kind == VAL_CLASS && vv->kind == VAL_STRING && attr_is(t, "__name__")) {
        char *name = malloc(vv->as.string.length + 1); /* Cls.__name__ = "Point" */
        if (!name) return exec_fail(s, t->line, t->col, "MemoryError");
        memcpy(name, vv->as.string.text, vv->as.string.length);
        name[vv->as.string.length] = '\0';
        free(objv->as.cls->name);
        objv->as.cls->name = name;
        return EXEC_OK;
    }
    if (objv->kind == VAL_INSTANCE && t->as.text.length == 9 && attr_is(t, "__class__")) {
        /* obj.__class__ = Cls */
        if (vv->kind != VAL_CLASS)
            return exec_fail(s, t->line, t->col, "TypeError: __class__ must be set to a class, "
                             "not '%s' object", value_type_name(vv));
        Value old = {.kind = VAL_CLASS, .as.cls = objv->as.object->cls};
        objv->as.object->cls = vv->as.cls; /* its reference, taken */
        *vv = value_void();
        value_release(&old);
        return EXEC_OK;
    }
    if (objv->kind == VAL_INSTANCE || objv->kind == VAL_CLASS) {
        Value v = *vv;
        *vv = value_void(); /* taken */
        return value_setattr(objv, name_ident(t), t->as.text.length, &((Node *)t)->attr_slot, v)
                   ? EXEC_OK : exec_fail(s, t->line, t->col, "MemoryError");
    }
    if (objv->kind == VAL_MODULE && s->python) { /* torch.backends.cudnn.deterministic = True */
        Value v = *vv;
        *vv = value_void(); /* taken */
        return session_set_module_attr(s, t->line, t->col, objv->as.module, t->as.text.text,
                                       t->as.text.length, v) ? EXEC_OK : EXEC_ERROR;
    }
    if (attr_is(t, "requires_grad")) return assign_requires_grad(s, st, objv, vv);
    if (attr_is(t, "data")) return assign_data(s, st, objv, vv);
    if (!attr_is(t, "grad"))
        return exec_fail(s, t->line, t->col, "only x.grad, x.data and x.requires_grad can be "
                         "assigned; .%.*s cannot", name_len(t), t->as.text.text);
    Value obj = *objv, v = *vv;
    *vv = value_void(); /* taken */
    bool ok = true;
    Tensor *g = NULL;
    if (ok && obj.kind != VAL_TENSOR)
        ok = session_fail(s, t->line, t->col, "%s has no gradient", value_kind_name(&obj));
    if (ok && v.kind != VAL_NONE)
        ok = to_tensor(s, st->expr, &v, "a gradient", &g);
    if (ok && tensor_set_grad(obj.as.tensor, g) != 0) /* None resets it, as zero_grad */
        ok = session_fail(s, t->line, t->col, "%s", ag_error());
    tensor_release(g);
    value_release(&v);
    return ok ? EXEC_OK : EXEC_ERROR;
}

/* obj.NAME = v with v evaluated (taken): obj evaluated once, after it. */
static Status store_attr(Session *s, const Stmt *st, Value *v) {
    Value obj;
    if (!eval_expression(s, st->target->left, &obj)) return value_release(v), EXEC_ERROR;
    Status done = store_attr_of(s, st, &obj, v);
    value_release(&obj);
    value_release(v);
    return done;
}

/* obj.NAME = EXPR: Python's order, the value first, then the object. */
static Status assign_attr(Session *s, const Stmt *st) {
    Value v;
    if (!eval_expression(s, st->expr, &v)) return EXEC_ERROR;
    return store_attr(s, st, &v);
}

/* NAME[INDEX] = EXPR (op TOK_ERROR), or with op (+= ...) NAME[INDEX] =
 * NAME[INDEX] op EXPR:
 * NAME is rebound to a copy with those elements replaced. Nothing is
 * recorded; a leaf stays a leaf (requires_grad and .grad kept); a value a
 * recorded op made is refused (ag records no in-place writes). */
/* xs[a:b] = items (the slice replaced, its length changing), or
 * xs[a:b:c] = items of the same number. */
static bool store_slice(Session *s, const Stmt *st, ValueList *l, Value *rhs) {
    const Node *target = st->target;
    int64_t start, step, length;
    Value v = *rhs, items;
    *rhs = value_void(); /* taken */
    if (!python_slice(s, target->kids[0], l->count, &start, &step, &length))
        return value_release(&v), false;
    int64_t n = value_item_count(&v);
    ValueList *fresh = n >= 0 && n <= INT32_MAX ? value_list_new((int)n, false) : NULL;
    bool ok = fresh || session_fail(s, st->expr->line, st->expr->col, n < 0 ? "TypeError: can only "
                                    "assign an iterable" : "MemoryError");
    if (fresh) items = (Value){.kind = VAL_LIST, .as.list = fresh};
    for (int64_t k = 0; ok && k < n; k++)
        ok = value_item(&v, k, true, &fresh->items[k]) || session_fail(s, target->line, target->col, "%s", ag_error());
    value_release(&v);
    if (ok && step != 1 && n != length)
        ok = session_fail(s, target->line, target->col, "ValueError: attempt to assign sequence of "
                          "size %lld to extended slice of size %lld", (long long)n, (long long)length);
    if (ok && step != 1) {
        for (int64_t k = 0; k < n; k++) {
            value_release(&l->items[start + k * step]);
            value_copy(&fresh->items[k], &l->items[start + k * step]);
        }
    } else if (ok) { /* replace items [start, start + length) by the n new ones */
        int64_t count = l->count + n - length;
        ok = value_list_reserve(l, count) || session_fail(s, target->line, target->col, "MemoryError");
        if (ok) {
            for (int64_t k = 0; k < length; k++) value_release(&l->items[start + k]);
            memmove(&l->items[start + n], &l->items[start + length],
                    (size_t)(l->count - start - length) * sizeof *l->items);
            for (int64_t k = 0; k < n; k++) value_copy(&fresh->items[k], &l->items[start + k]);
            l->count = (int)count;
        }
    }
    if (fresh) value_release(&items);
    return ok;
}

/* xs[i] = v, d[key] = v, and with op (d[key] += 1): Python's containers,
 * changed in place (every name that holds them sees it). true when obj is
 * one (the statement done or failed: *status). */
/* obj[key] = v of an object: its class's __setitem__(key, v). */
static bool object_store_item(Session *s, const Stmt *st, TokenType op, const Value *obj,
                              Value *rhs) {
    const Node *target = st->target;
    if (op != TOK_ERROR || target->num_kids != 1 || target->kids[0]->kind == NODE_SLICE)
        return session_fail(s, target->line, target->col, "ag passes one key and = to "
                            "__setitem__ (%s and slices are not supported yet)",
                            op != TOK_ERROR ? token_text(op) : "several keys");
    Value args[2], r;
    bool found;
    if (!eval_expression(s, target->kids[0], &args[0])) return false;
    args[1] = *rhs, *rhs = value_void(); /* taken */
    bool ok = session_call_special(s, target->line, target->col, obj, "__setitem__", args, 2,
                                   &r, &found);
    if (ok && found) value_release(&r);
    if (ok && !found)
        ok = session_fail(s, target->line, target->col, "TypeError: '%s' object does not "
                          "support item assignment", value_type_name(obj));
    value_release(&args[0]);
    value_release(&args[1]);
    return ok;
}

static bool augassign_tensor(Session *s, const Stmt *st, Value *old, Value *rhs, Value *fresh);

/* obj[...] = v or op= v in a .py file when obj (evaluated, borrowed) is a
 * list, a dict, an object with __setitem__ or a string: true then, the
 * statement done or failed (*status); false for anything else (a tensor).
 * *rhs is the value of an = store (taken), void for op= (evaluated here,
 * after the index). */
static bool python_store(Session *s, const Stmt *st, TokenType op, const Value *objv,
                         Value *rhsv, Status *status) {
    const Node *target = st->target;
    Value obj = *objv, key = value_void(), rhs = value_void(), cur = value_void(),
          result = value_void(), missing = value_void();
    *status = EXEC_ERROR;
    if (obj.kind == VAL_INSTANCE) {
        *status = object_store_item(s, st, op, &obj, rhsv) ? EXEC_OK : EXEC_ERROR;
        return true;
    }
    bool list = obj.kind == VAL_LIST && !obj.as.list->tuple, dict = obj.kind == VAL_DICT && !obj.as.dict->set;
    if (!list && !dict) {
        bool other = obj.kind == VAL_LIST || obj.kind == VAL_DICT || obj.kind == VAL_STRING;
        if (other) session_set_error(s, target->line, target->col, "TypeError: '%s' object does "
                                     "not support item assignment", value_type_name(&obj));
        return other;
    }
    if (list && target->num_kids == 1 && target->kids[0]->kind == NODE_SLICE && op == TOK_ERROR) {
        *status = store_slice(s, st, obj.as.list, rhsv) ? EXEC_OK : EXEC_ERROR;
        return true;
    }
    rhs = *rhsv, *rhsv = value_void(); /* taken (void for op=) */
    bool ok = target->num_kids == 1 && target->kids[0]->kind != NODE_SLICE;
    if (!ok) session_set_error(s, target->line, target->col, "ag cannot update a slice or "
                               "several indices of a %s with %s yet", value_type_name(&obj),
                               op == TOK_ERROR ? "=" : token_text(op));
    ok = ok && eval_expression(s, target->kids[0], &key) &&
         (op == TOK_ERROR || eval_expression(s, st->expr, &rhs));
    Value *slot = NULL;
    if (ok && list) {
        int64_t i = value_int(&key), count = obj.as.list->count;
        if (key.kind != VAL_INT && key.kind != VAL_BOOL)
            ok = session_fail(s, target->line, target->col, "TypeError: list indices must be "
                              "integers or slices, not %s", value_type_name(&key));
        else if ((i < 0 ? i + count : i) < 0 || (i < 0 ? i + count : i) >= count)
            ok = session_fail(s, target->line, target->col, "IndexError: list assignment index "
                              "out of range");
        else slot = &obj.as.list->items[i < 0 ? i + count : i];
    } else if (ok) {
        if (!value_hashable(&key))
            ok = session_fail(s, target->line, target->col, "TypeError: unhashable type: '%s'",
                              value_type_name(&key));
        else slot = value_dict_get(obj.as.dict, &key);
        bool failed = false;
        if (ok && !slot && op != TOK_ERROR &&
            dict_missing(s, target, obj.as.dict, &key, &missing, &failed))
            slot = &missing; /* counts[w] += 1 of a Counter or a defaultdict */
        else if (failed)
            ok = false;
        if (ok && !slot && op != TOK_ERROR) {
            StrBuf text;
            strbuf_init(&text);
            value_format(&text, &key, &s->print, true);
            ok = session_fail(s, target->line, target->col, "KeyError: %.*s", 400, text.data);
            strbuf_free(&text);
        }
    }
    if (ok && op != TOK_ERROR && slot->kind == VAL_TENSOR) {
        /* L[0] += v is L[0] = L[0].__iadd__(v): the tensor changes in place */
        value_copy(slot, &cur);
        ok = augassign_tensor(s, st, &cur, &rhs, &result);
        cur = rhs = value_void(); /* taken */
        if (ok && result.kind == VAL_VOID) value_copy(slot, &result);
    } else if (ok && op != TOK_ERROR) {
        Node op_node = *target;
        op_node.left = st->target, op_node.right = st->expr;
        value_copy(slot, &cur);
        ok = apply_binary(s, &op_node, op, &cur, &rhs, &result);
    } else if (ok) {
        result = rhs, rhs = value_void();
    }
    if (ok && list) {
        value_release(slot);
        *slot = result, result = value_void();
    } else if (ok) {
        ok = value_dict_set(obj.as.dict, key, result) || session_fail(s, target->line, target->col,
                                                                      "out of memory");
        key = result = value_void();
    }
    value_release(&key), value_release(&rhs);
    value_release(&cur), value_release(&result), value_release(&missing);
    *status = ok ? EXEC_OK : EXEC_ERROR;
    return true;
}

/* "x" for a name, "this" for anything else: the target's words. */
static void target_words(const Node *n, char *buf, size_t size) {
    if (n->kind == NODE_NAME) snprintf(buf, size, "%.*s", name_len(n), n->as.text.text);
    else snprintf(buf, size, "the target");
}

/* The checks of x[...] = v on a tensor x before anything is evaluated: a
 * view of a leaf that requires grad cannot be written; a leaf that
 * requires grad, with grad mode on, is PyTorch's error in a .py file (in
 * the dialect: a step that records nothing). */
static bool index_store_allowed(Session *s, const Node *target, const Value *old) {
    char who[80];
    target_words(target->left, who, sizeof who);
    if (old->kind != VAL_TENSOR)
        return session_fail(s, target->left->line, target->left->col, "%s is %s: only a "
                            "tensor's elements can be assigned", who, value_kind_name(old));
    Tensor *x = old->as.tensor;
    bool view_of_leaf = x->base && x->base->requires_grad && tensor_is_leaf(x->base);
    if (x->requires_grad && !tensor_is_leaf(x) && ag_is_grad_enabled() && view_of_leaf)
        return session_fail(s, target->line, target->col, "%sa view of a leaf Variable that "
                            "requires grad is being used in an in-place operation.",
                            s->python ? "RuntimeError: " : "");
    if (s->python && x->requires_grad && tensor_is_leaf(x) && ag_is_grad_enabled())
        return session_fail(s, target->line, target->col, "RuntimeError: a leaf Variable that "
                            "requires grad is being used in an in-place operation.");
    return true;
}

/* x[i] op= v in a .py file computes x[i].__iop__(v) in place, so the
 * result may not grow x[i]'s shape (x[m] -= v of a (k,) x[m] and a (1, k)
 * v is PyTorch's error; x[i] = v would strip v's leading 1s). */
static bool index_op_shape(Session *s, const Node *target, const Value *cur, const Value *r) {
    if (!s->python || cur->kind != VAL_TENSOR || r->kind != VAL_TENSOR) return true;
    const Tensor *c = cur->as.tensor, *v = r->as.tensor;
    bool same = c->ndim == v->ndim;
    for (int i = 0; same && i < c->ndim; i++) same = c->shape[i] == v->shape[i];
    if (same) return true;
    char sc[AG_SHAPE_STR_MAX + 8], sv[AG_SHAPE_STR_MAX + 8];
    shape_brackets(c, sc, sizeof sc);
    shape_brackets(v, sv, sizeof sv);
    return session_fail(s, target->line, target->col, "RuntimeError: output with shape %s "
                        "doesn't match the broadcast shape %s", sc, sv);
}

/* x[i] op= v in a .py file is x[i] = x[i].__iop__(v): the op's result must
 * cast to x's dtype (bool x[:] += 1.0 is PyTorch's RuntimeError). */
static bool index_op_castable(Session *s, const Node *target, const Tensor *x, const Tensor *v) {
    if (!s->python || ag_can_cast((AgDtype)v->dtype, (AgDtype)x->dtype)) return true;
    return session_fail(s, target->line, target->col, "RuntimeError: result type %s can't be "
                        "cast to the desired output type %s", ag_dtype_scalar_name((AgDtype)v->dtype),
                        ag_dtype_scalar_name((AgDtype)x->dtype));
}

/* PyTorch's index_put_ (x[i] = v with a tensor or mask among the indices)
 * takes a tensor v only of x's dtype in a .py file; a mask alone with a
 * one-element v is its masked_fill_, which converts. */
static bool index_put_dtype(Session *s, const Node *target, const Tensor *x,
                            const IndexItems *ix, const Tensor *v) {
    int tensors = 0;
    for (int k = 0; k < ix->count; k++)
        tensors += ix->items[k].kind == AG_INDEX_TENSOR || ix->items[k].kind == AG_INDEX_MASK;
    bool fill = ix->count == 1 && ix->items[0].kind == AG_INDEX_MASK && v->numel == 1;
    if (!s->python || tensors == 0 || fill) return true;
    if (tensor_values(v) == tensor_values(x)) /* x[m] = x: index_put_ reads what it writes */
        return session_fail(s, target->line, target->col, "RuntimeError: unsupported operation: "
                            "some elements of the input tensor and the written-to tensor refer "
                            "to a single memory location. Please clone() the tensor before "
                            "performing the operation.");
    if (v->dtype == x->dtype) return true;
    return session_fail(s, target->line, target->col, "RuntimeError: Index put requires the "
                        "source and destination dtypes match, got %s for the destination and %s "
                        "for the source.", ag_dtype_scalar_name((AgDtype)x->dtype),
                        ag_dtype_scalar_name((AgDtype)v->dtype));
}

/* Whether PyTorch's x[...] with these indices is a view of x: ints, slices,
 * None and ..., no tensor or mask. */
static bool index_is_view(const IndexItems *ix) {
    for (int k = 0; k < ix->count; k++)
        if (ix->items[k].kind == AG_INDEX_TENSOR || ix->items[k].kind == AG_INDEX_MASK) return false;
    return true;
}

/* Writes fresh, x with the indexed elements replaced, into x: recorded
 * (fresh's Function, CopySlices or IndexPutBackward, becomes x's: x's
 * history continues through the write, as PyTorch's) when fresh has one. */
static bool store_index_result(Session *s, const Node *target, Tensor *x, Tensor *fresh) {
    const char *type = s->python ? "RuntimeError: " : "";
    int done = tensor_has_graph(fresh) ? ag_rebase_in_place(x, fresh) : tensor_assign(x, fresh);
    return done == 0 || session_fail(s, target->line, target->col, "%s%s", type, ag_error());
}

/* x[...] = v and x[...] op= v: the elements written in place (every name
 * holding x sees them). Recorded (in_place_recorded) when x is of a graph
 * or v requires grad, as PyTorch records it; on a leaf that requires grad
 * (the dialect's step) nothing is. */
static Status tensor_store(Session *s, const Stmt *st, TokenType op, const Value *oldv,
                           Value *rhsv) {
    const Node *target = st->target;
    Value old = *oldv, rhs = *rhsv, values = value_void();
    *rhsv = value_void(); /* taken (void for op=) */
    Tensor *x = old.kind == VAL_TENSOR ? old.as.tensor : NULL, *fresh = NULL;
    IndexItems ix = {.count = 0};
    bool ok = index_store_allowed(s, target, &old);
    ok = ok && eval_index_items(s, target, x, &ix) &&
         (op == TOK_ERROR || eval_expression(s, st->expr, &rhs));
    bool was_enabled = ag_set_grad_enabled(ok && in_place_recorded(x));
    if (ok && op != TOK_ERROR) { /* the current elements, op the new value */
        Value cur = value_void();
        ok = engine_result(s, target, tensor_index_copy(x, ix.items, ix.count), &cur);
        Node op_node = *target;
        op_node.left = st->target, op_node.right = st->expr;
        ok = ok && apply_binary(s, &op_node, op, &cur, &rhs, &values);
        ok = ok && index_op_shape(s, target, &cur, &values);
        value_release(&cur);
    } else if (ok) {
        values = rhs, rhs = value_void();
    }
    Tensor *v = NULL;
    bool number = value_is_scalar(&values); /* converted to x's dtype, as PyTorch does */
    ok = ok && to_tensor(s, st->expr, &values, "the value", &v);
    ok = ok && (number || op != TOK_ERROR || index_put_dtype(s, target, x, &ix, v));
    ok = ok && (op == TOK_ERROR || index_op_castable(s, target, x, v));
    if (ok) fresh = tensor_index_put(x, ix.items, ix.count, v);
    /* what is left to fail is a shape: PyTorch's RuntimeError in a .py file */
    const char *type = s->python ? "RuntimeError: " : "";
    ok = ok && (fresh || session_fail(s, target->line, target->col, "%s%s", type, ag_error()));
    ok = ok && store_index_result(s, target, x, fresh);
    /* x[1:] op= v with basic indices is PyTorch's op= on the view x[1:] and
     * then the copy back: two changes of x's version (through a tensor or a
     * mask index it is one: x[m] is a copy, put back by index_put_) */
    if (ok && op != TOK_ERROR && index_is_view(&ix)) tensor_bump_version(x);
    ag_set_grad_enabled(was_enabled);
    tensor_release(fresh);
    tensor_release(v);
    index_items_free(&ix);
    value_release(&values);
    value_release(&rhs);
    return ok ? EXEC_OK : EXEC_ERROR;
}

/* x[...] = v and x[...] op= v, each operand evaluated once, in Python's
 * order: for = the value first, then x and the index; for op= x, the
 * index and the current item, then the value. */
static Status store_index(Session *s, const Stmt *st, TokenType op, Value *rhs) {
    Value obj;
    if (!eval_expression(s, st->target->left, &obj)) return value_release(rhs), EXEC_ERROR;
    Status done = EXEC_ERROR;
    if (!(s->python && python_store(s, st, op, &obj, rhs, &done)))
        done = tensor_store(s, st, op, &obj, rhs);
    value_release(&obj);
    value_release(rhs);
    return done;
}

static Status assign_index(Session *s, const Stmt *st, TokenType op) {
    Value rhs = value_void();
    if (op == TOK_ERROR && !eval_expression(s, st->expr, &rhs)) return EXEC_ERROR;
    return store_index(s, st, op, &rhs);
}

/* The items of a value being unpacked (a, b = v): a list or tuple's, a
 * shape's, a tensor's first axis. */
static bool unpack_items(Session *s, const Node *at, const Value *v, int want, Value *items) {
    int64_t count = v->kind == VAL_LIST ? v->as.list->count
                    : v->kind == VAL_SHAPE ? v->as.shape->ndim
                    : v->kind == VAL_TENSOR && v->as.tensor->ndim > 0 ? v->as.tensor->shape[0]
                    : -1;
    if (count < 0)
        return session_fail(s, at->line, at->col, "TypeError: cannot unpack non-iterable %s "
                            "object", value_type_name(v));
    if (count != want)
        return count > want ? session_fail(s, at->line, at->col, "ValueError: too many values "
                                           "to unpack (expected %d)", want)
                            : session_fail(s, at->line, at->col, "ValueError: not enough values "
                                           "to unpack (expected %d, got %lld)", want,
                                           (long long)count);
    for (int k = 0; k < want; k++) {
        bool ok = value_item(v, k, s->python, &items[k]) ||
                  session_fail(s, at->line, at->col, "%s", ag_error());
        if (!ok) {
            for (int j = 0; j < k; j++) value_release(&items[j]);
            return false;
        }
    }
    return true;
}

/* Binds targets with one starred among them (a, *b, c = v; v taken): the
 * starred one takes a list of the items the others leave. */
static bool bind_starred(Session *s, const Node *target, Value v, int star) {
    if (!session_iterable(s, target->line, target->col, &v)) return value_release(&v), false;
    int64_t count = value_item_count(&v), fixed = target->num_kids - 1;
    bool ok = count >= 0 || session_fail(s, target->line, target->col, "TypeError: cannot "
                                         "unpack non-iterable %s object", value_type_name(&v));
    if (ok && count < fixed)
        ok = session_fail(s, target->line, target->col, "ValueError: not enough values to unpack "
                          "(expected at least %lld, got %lld)", (long long)fixed, (long long)count);
    for (int k = 0; ok && k < target->num_kids; k++) {
        Value item = value_void();
        if (k == star) {
            ValueList *rest = value_list_new(0, false);
            ok = rest || session_fail(s, target->line, target->col, "MemoryError");
            if (ok) item = (Value){.kind = VAL_LIST, .as.list = rest};
            for (int64_t i = star; ok && i < star + count - fixed; i++) {
                Value one;
                ok = (value_item(&v, i, s->python, &one) ||
                      session_fail(s, target->line, target->col, "%s", ag_error())) &&
                     (value_list_append(rest, one) ||
                      session_fail(s, target->line, target->col, "MemoryError"));
            }
        } else {
            int64_t i = k < star ? k : count - (target->num_kids - k);
            ok = value_item(&v, i, s->python, &item) ||
                 session_fail(s, target->line, target->col, "%s", ag_error());
        }
        if (!ok) {
            value_release(&item);
            break;
        }
        ok = bind_target(s, k == star ? target->kids[k]->left : target->kids[k], item);
    }
    value_release(&v);
    return ok;
}

/* Binds a target (a name, x.attr, x[i], or targets to unpack, nested) to v
 * (taken): Python's order, each target evaluated as it is stored. */
static bool bind_target(Session *s, const Node *target, Value v) {
    if (target->kind == NODE_NAME) return bind_name(s, target, v);
    if (target->kind == NODE_ATTR || target->kind == NODE_INDEX) { /* self.a, x[0] = ... */
        Stmt one = {.line = target->line, .col = target->col, .target = (Node *)target,
                    .expr = (Node *)target}; /* expr: where a message about the value points */
        return (target->kind == NODE_ATTR ? store_attr(s, &one, &v)
                                          : store_index(s, &one, TOK_ERROR, &v)) == EXEC_OK;
    }
    if (target->kind != NODE_TUPLE && target->kind != NODE_LIST_EXPR) {
        value_release(&v);
        return session_fail(s, target->line, target->col, "only names can be unpacked into "
                            "here (a, b = ...)");
    }
    for (int k = 0; k < target->num_kids; k++)
        if (target->kids[k]->kind == NODE_STARRED) return bind_starred(s, target, v, k);
    if (v.kind == VAL_INSTANCE && !session_iterable(s, target->line, target->col, &v))
        return value_release(&v), false; /* x, y = point: what its __iter__ gives */
    Value items[MAX_ARGS];
    bool unpacked = unpack_items(s, target, &v, target->num_kids, items), ok = unpacked;
    value_release(&v);
    for (int k = 0; unpacked && k < target->num_kids; k++) { /* after a failure, the rest go */
        if (ok) ok = bind_target(s, target->kids[k], items[k]);
        else value_release(&items[k]);
    }
    return ok;
}

/* One target of an assignment: x.grad, x[...], or names. */
static Status assign_one(Session *s, const Stmt *st, const Node *target, Value v) {
    if (target->kind == NODE_ATTR || target->kind == NODE_INDEX) { /* v stored, not evaluated again */
        Stmt one = *st;
        one.target = (Node *)target;
        return target->kind == NODE_ATTR ? store_attr(s, &one, &v) : store_index(s, &one, TOK_ERROR, &v);
    }
    return bind_target(s, target, v) ? EXEC_OK : EXEC_ERROR;
}

static STATEMENT_HANDLER Status exec_assign(Session *s, const Stmt *st) {
    if (st->num_params == 0 && st->target->kind == NODE_ATTR) return assign_attr(s, st);
    if (st->num_params == 0 && st->target->kind == NODE_INDEX) return assign_index(s, st, TOK_ERROR);
    Value v;
    if (!check_void_calls(s, st->expr, false, true) || !eval_expression(s, st->expr, &v))
        return EXEC_ERROR;
    if (st->num_params == 0 && st->target->kind == NODE_NAME) /* the common case, in loops */
        return bind_name(s, st->target, v) ? EXEC_OK : EXEC_ERROR;
    if (st->num_params == 0) return bind_target(s, st->target, v) ? EXEC_OK : EXEC_ERROR;
    /* a = b = v: each target, left first */
    for (int i = -1; i < st->num_params; i++) {
        Value copy;
        if (!value_copy(&v, &copy)) return value_release(&v), exec_fail(s, st->line, st->col, "out of memory");
        if (assign_one(s, st, i < 0 ? st->target : st->params[i], copy) != EXEC_OK)
            return value_release(&v), EXEC_ERROR;
    }
    value_release(&v);
    return EXEC_OK;
}

/* The value a name holds now (a copy), for NAME op= EXPR. */
static bool current_value(Session *s, const Node *n, Value *out) { return eval_name(s, n, out); }

/* NAME op= EXPR. When NAME holds a leaf that requires grad, the update is
 * not recorded and NAME becomes a fresh leaf that still requires grad and
 * keeps its .grad (gradient descent: w -= lr * w.grad); the old tensor is
 * not changed, so a graph that used it is intact. Otherwise NAME = NAME op
 * EXPR. */
/* obj.NAME op= v on an object (self.grad += g): read, apply, store. */

/* += -= *= /= (the statement holds the plain operator): PyTorch's add_,
 * sub_, mul_, div_, recorded on an intermediate. */
static bool arithmetic_update(TokenType op) {
    return op == TOK_PLUS || op == TOK_MINUS || op == TOK_STAR || op == TOK_SLASH;
}

/* x op= v on a tensor, as PyTorch does it: in place. A leaf that requires
 * grad, with grad mode on: in a .py file PyTorch's error; in the dialect
 * a gradient step that records nothing (version 2's friendly rule). On an
 * intermediate (h += 1, h requiring grad, grad mode on) the op is
 * recorded and h's history rebased onto it (ag_rebase_in_place), as
 * PyTorch does. Another result the op would have to record (c += x, c a
 * constant, x requiring grad): ag does not record that, so *fresh gets
 * the new tensor for the target to take, as version 2 did
 * (docs/pytorch.md); else *fresh is void. old and rhs are taken. */
static bool augassign_tensor(Session *s, const Stmt *st, Value *old, Value *rhs, Value *fresh) {
    Tensor *x = old->as.tensor;
    bool step = x->requires_grad && tensor_is_leaf(x) && ag_is_grad_enabled();
    Node op_node = *st->target;
    op_node.left = st->target;
    op_node.right = st->expr;
    Value r;
    *fresh = value_void();
    bool ok = !(step && s->python) ||
              session_fail(s, st->target->line, st->target->col, "RuntimeError: a leaf Variable "
                           "that requires grad is being used in an in-place operation.");
    bool was_enabled = step ? ag_set_grad_enabled(false) : true;
    ok = ok && apply_binary(s, &op_node, st->op, old, rhs, &r);
    value_release(rhs);
    bool recorded = ok && r.kind == VAL_TENSOR && !tensor_is_leaf(r.as.tensor);
    /* An int64 x += 1.5 cannot be written in place: PyTorch's error in a
     * .py file; in the .ag dialect x is rebound to the float result. */
    AgDtype from = ok && r.kind == VAL_TENSOR ? (AgDtype)r.as.tensor->dtype : (AgDtype)x->dtype;
    bool castable = ag_can_cast(from, (AgDtype)x->dtype);
    if (ok && !castable && s->python) {
        value_release(&r);
        ok = session_fail(s, st->target->line, st->target->col, "RuntimeError: result type %s "
                          "can't be cast to the desired output type %s", ag_dtype_scalar_name(from),
                          ag_dtype_scalar_name((AgDtype)x->dtype));
    } else if (ok && recorded && castable && in_place_recorded(x) && arithmetic_update(st->op)) {
        ok = rebase_in_place(s, st->target, x, &r);
    } else if (ok && (recorded || !castable)) {
        *fresh = r;
    } else {
        ok = ok && write_in_place(s, st->target, x, &r);
    }
    if (step) ag_set_grad_enabled(was_enabled);
    value_release(old);
    return ok;
}

/* obj.NAME op= v: Python's order, obj once, its attribute, then v. */
static Status augassign_attr(Session *s, const Stmt *st) {
    const Node *t = st->target;
    Value obj, held, old, rhs, r;
    if (!eval_expression(s, t->left, &obj)) return EXEC_ERROR;
    value_copy(&obj, &held);
    if (!attr_of(s, t, held, &old)) return value_release(&obj), EXEC_ERROR;
    if (!eval_expression(s, st->expr, &rhs)) return value_release(&old), value_release(&obj), EXEC_ERROR;
    bool ok, tensor = old.kind == VAL_TENSOR; /* w.data -= ..., self.w -= ...: in place */
    if (tensor) {
        ok = augassign_tensor(s, st, &old, &rhs, &r);
    } else {
        Node op_node = *t;
        op_node.left = (Node *)t;
        op_node.right = st->expr;
        bool done;
        ok = pyops_in_place(s, &op_node, st->op, &old, &rhs, &r, &done); /* self.items += [x] */
        if (!done) ok = apply_binary(s, &op_node, st->op, &old, &rhs, &r);
        value_release(&old);
        value_release(&rhs);
    }
    Status done = ok ? EXEC_OK : EXEC_ERROR;
    if (ok && r.kind != VAL_VOID) { /* VOID: written in place */
        bool object = obj.kind == VAL_INSTANCE || obj.kind == VAL_CLASS ||
                      (obj.kind == VAL_MODULE && s->python);
        done = object ? store_attr_of(s, st, &obj, &r)
                      : exec_fail(s, t->line, t->col, "only an object's attributes can be updated "
                                  "with %s= (x.grad of a tensor cannot)", token_text(st->op));
        value_release(&r);
    }
    value_release(&obj);
    return done;
}

static STATEMENT_HANDLER Status exec_augassign(Session *s, const Stmt *st) {
    if (st->target->kind == NODE_INDEX) return assign_index(s, st, st->op);
    if (st->target->kind == NODE_ATTR) return augassign_attr(s, st);
    Value old, rhs, r;
    if (!check_void_calls(s, st->expr, false, false) || !current_value(s, st->target, &old))
        return EXEC_ERROR;
    if (!eval_expression(s, st->expr, &rhs)) return value_release(&old), EXEC_ERROR;
    if (old.kind == VAL_TENSOR) {
        if (!augassign_tensor(s, st, &old, &rhs, &r)) return EXEC_ERROR;
        return r.kind == VAL_VOID || bind_name(s, st->target, r) ? EXEC_OK : EXEC_ERROR;
    }
    Node op_node = *st->target;
    op_node.left = st->target;
    op_node.right = st->expr;
    bool done, ok = pyops_in_place(s, &op_node, st->op, &old, &rhs, &r, &done); /* out += [x] */
    if (!done) ok = apply_binary(s, &op_node, st->op, &old, &rhs, &r);
    value_release(&old);
    value_release(&rhs);
    return ok && bind_name(s, st->target, r) ? EXEC_OK : EXEC_ERROR;
}

/* Evaluates the defaults of n parameters (NULL where none) into values;
 * *any says whether there was one. */
static bool eval_defaults(Session *s, Node *const *nodes, int n, Value *values, bool *any) {
    *any = false;
    for (int i = 0; i < n; i++) values[i] = value_void();
    for (int i = 0; nodes && i < n; i++) {
        if (!nodes[i]) continue;
        *any = true;
        if (!eval_expression(s, nodes[i], &values[i])) return release_args(values, n), false;
    }
    return true;
}

/* Whether n reads a variable other than params (count of them): a name
 * that may be another function's. Conservative: a nested function's own
 * parameters count as such names too. */
static bool reads_free_name(const Node *n, Node *const *params, int count) {
    if (!n) return false;
    if (n->kind == NODE_NAME) return !n->torch && !names_has(params, count, n);
    if (reads_free_name(n->left, params, count) || reads_free_name(n->right, params, count))
        return true;
    for (int i = 0; i < n->num_kids; i++)
        if (reads_free_name(n->kids[i], params, count)) return true;
    return false;
}

static bool block_reads_free_name(const Block *b, Node *const *params, int count) {
    for (int i = 0; i < b->count; i++) {
        const Stmt *st = b->items[i];
        /* names a statement binds or declares: not worked out, so kept */
        if (st->kind == STMT_DEF || st->kind == STMT_CLASS || st->kind == STMT_GLOBAL ||
            st->kind == STMT_IMPORT || st->kind == STMT_DEL || st->num_params > 0)
            return true;
        if (reads_free_name(st->target, params, count) || reads_free_name(st->expr, params, count) ||
            block_reads_free_name(&st->body, params, count) ||
            block_reads_free_name(&st->orelse, params, count))
            return true;
    }
    return false;
}

/* Whether a function needs the variables of the call it is defined in: not
 * when its body reads nothing but its parameters (micrograd's
 * `self._backward = lambda: None`), so that it keeps no call alive and the
 * object holding it goes when its last reference does, with no cycle left
 * for the collector (CPython's closures hold only the names they read). */
static bool needs_closure(const Stmt *def, const Node *lambda) {
    signed char *known = def ? (signed char *)&def->free_names : (signed char *)&lambda->free_names;
    if (*known) return *known == 2;
    int n;
    Node *const *params = def ? def->params : lambda->kids;
    n = def ? def->num_params : lambda->num_positional;
    bool reads;
    if (lambda) reads = reads_free_name(lambda->left, params, n);
    else if (!def->has_block) reads = reads_free_name(def->expr, params, n);
    else reads = block_reads_free_name(&def->body, params, n);
    *known = reads ? 2 : 1;
    return reads;
}

/* A def or a lambda as a function value: inside a call, it shares the
 * running function's tree and closes over the call's variables (when it
 * reads a name that may be one of them). */
static bool make_function(Session *s, const Stmt *def, const Node *lambda, Value *out) {
    int n = def ? def->num_params : lambda->num_positional;
    Node *const *defaults = def ? def->defaults : lambda->kids ? lambda->kids + n : NULL;
    Value values[MAX_ARGS];
    bool any;
    if (!eval_defaults(s, defaults, n, values, &any)) return false;
    Value *owned = any ? malloc((size_t)(n ? n : 1) * sizeof *owned) : NULL;
    if (any && !owned) {
        release_args(values, n);
        return session_fail(s, def ? def->line : lambda->line, def ? def->col : lambda->col,
                            "out of memory defining a function");
    }
    for (int i = 0; owned && i < n; i++) owned[i] = values[i];
    Frame *f = s->frame;
    Env *closure = f ? f->env : NULL;
    while (closure && closure->class_scope) closure = closure->parent; /* methods skip the class's */
    if (closure && !needs_closure(def, lambda)) closure = NULL;
    UserFunc *fn = session_function(s, f && f->func ? f->func->code : NULL, def, lambda, owned,
                                    closure);
    if (!fn) return false;
    fn->module = s->module_source > 0 || (f && f->func && f->func->module);
    *out = (Value){.kind = VAL_FUNCTION, .as.function = fn};
    return true;
}

/* def with decorators d0, d1, ...: the decorators evaluated (top first),
 * the function made, then f = d0(d1(...(f))), bound to its name. */
static Status decorated_def(Session *s, const Stmt *st) {
    Value decs[MAX_ARGS], fn;
    int n = 0;
    bool ok = st->num_decorators <= MAX_ARGS ||
              session_fail(s, st->line, st->col, "too many decorators (at most %d)", MAX_ARGS);
    while (ok && n < st->num_decorators && eval_expression(s, st->decorators[n], &decs[n])) n++;
    ok = ok && n == st->num_decorators && make_function(s, st, NULL, &fn);
    for (int i = n - 1; ok && i >= 0; i--) {
        Value next;
        const Node *d = st->decorators[i];
        ok = s->call_value(s, d->line, d->col, &decs[i], &fn, 1, &next);
        value_release(&fn);
        fn = ok ? next : value_void();
    }
    release_args(decs, n);
    return ok && bind_name(s, st->target, fn) ? EXEC_OK : EXEC_ERROR;
}

static STATEMENT_HANDLER Status exec_def(Session *s, const Stmt *st) {
    if (st->num_decorators > 0 && (st->python_block || !s->frame)) return decorated_def(s, st);
    if (s->frame && st->python_block) {
        Value fn;
        return make_function(s, st, NULL, &fn) && bind_name(s, st->target, fn) ? EXEC_OK
                                                                              : EXEC_ERROR;
    }
    if (s->frame)
        return exec_fail(s, st->line, st->col, "functions are defined at the top level, not "
                            "inside another function");
    if (!st->has_block && !check_void_calls(s, st->expr, false, false)) {
        const Node *hit = void_call(s, st->expr, false);
        return exec_fail(s, hit->line, hit->col, "a function's body must compute a value: "
                            "%.*s(...) cannot be used in f(x) = EXPR (a block body can: "
                            "f(x) { ... })", name_len(hit->left), hit->left->as.text.text);
    }
    Value fn;
    return make_function(s, st, NULL, &fn) && bind_name(s, st->target, fn) ? EXEC_OK : EXEC_ERROR;
}

/* Runs a loop body once; *stop says whether the loop ends here. */
static Status loop_body(Session *s, const Stmt *st, bool *stop) {
    *stop = true;
    if (session_interrupted)
        return exec_fail(s, st->line, st->col, "interrupted");
    if (!take_step(s, st->line, st->col)) return EXEC_ERROR;
    Status r = exec_block(s, &st->body);
    session_note_arena(s); /* a loop that builds graphs says so as it goes */
    session_maybe_collect(s); /* closures' cycles, made by each iteration */
    if (r == EXEC_BREAK) return EXEC_BREAK; /* the loop ends, its else skipped */
    if (r == EXEC_ERROR || r == EXEC_RETURN) return r;
    *stop = false; /* EXEC_OK or EXEC_CONTINUE: the next iteration */
    return EXEC_OK;
}

/* for i in range(...): numbers, no tensor made. */
static bool range_bounds(Session *s, const Node *call, double *start, double *stop, double *step) {
    double v[3];
    int n = call->num_kids;
    if (n < 1 || n > 3 || call->num_positional != n)
        return session_fail(s, call->line, call->col, "range takes 1 to 3 integers, got %d", n);
    for (int i = 0; i < n; i++) {
        Value x;
        if (!eval_expression(s, call->kids[i], &x)) return false;
        bool ok = value_is_scalar(&x) || (x.kind == VAL_TENSOR && x.as.tensor->numel == 1);
        v[i] = !ok ? NAN : value_is_scalar(&x) ? value_scalar(&x) : tensor_values(x.as.tensor)[0];
        const char *kind = value_kind_name(&x);
        value_release(&x);
        if (!ok)
            return session_fail(s, call->kids[i]->line, call->kids[i]->col, "range takes "
                                "integers, not %s", kind);
        if (v[i] != floor(v[i]) || fabs(v[i]) > 0x1p53) {
            StrBuf text;
            strbuf_init(&text);
            format_number(&text, v[i]);
            session_set_error(s, call->kids[i]->line, call->kids[i]->col, "range takes "
                              "integers, not %s", text.data);
            strbuf_free(&text);
            return false;
        }
    }
    *start = n == 1 ? 0 : v[0];
    *stop = n == 1 ? v[0] : v[1];
    *step = n == 3 ? v[2] : 1;
    if (*step == 0) return session_fail(s, call->kids[2]->line, call->kids[2]->col,
                                        "range's step must not be zero");
    return true;
}

static Status for_range(Session *s, const Stmt *st) {
    double start, stop, step;
    if (!range_bounds(s, st->expr, &start, &stop, &step)) return EXEC_ERROR;
    for (double i = start; step > 0 ? i < stop : i > stop; i += step) {
        bool done;
        Value v = s->python ? count_value(s, (int64_t)i) : value_number(i);
        if (!(st->target->kind == NODE_NAME ? bind_name(s, st->target, v)
                                            : bind_target(s, st->target, v)))
            return EXEC_ERROR;
        Status r = loop_body(s, st, &done);
        if (done) return r;
    }
    return EXEC_OK;
}


static Status for_values(Session *s, const Stmt *st) {
    Value over;
    if (!eval_expression(s, st->expr, &over)) return EXEC_ERROR;
    if (!session_iterable(s, st->expr->line, st->expr->col, &over)) {
        value_release(&over);
        return EXEC_ERROR;
    }
    int64_t count = value_item_count(&over);
    if (!s->python && (over.kind == VAL_DICT || over.kind == VAL_STRING)) count = -1;
    Status r = EXEC_OK;
    if (count < 0 && s->python)
        r = exec_fail(s, st->expr->line, st->expr->col, "TypeError: '%s' object is not iterable",
                      value_type_name(&over));
    else if (count < 0)
        r = exec_fail(s, st->expr->line, st->expr->col, "a for loop walks over range(...), "
                         "a tensor's first dimension, a list or a shape, not %s%s",
                         over.kind == VAL_TENSOR ? "a 0-d tensor" : value_kind_name(&over),
                         value_is_scalar(&over) ? " (write range(n))" : "");
    if (s->num_roots < (int)(sizeof s->roots / sizeof s->roots[0])) s->roots[s->num_roots++] = &over;
    bool taking = over.kind == VAL_LIST && over.as.list->iterator; /* its items go as read */
    for (int64_t k = 0; r == EXEC_OK && (taking ? over.as.list->count > 0 : k < count); k++) {
        Value item;
        bool done;
        if (taking) { /* the front item, taken: next(it) in the body takes the one after */
            ValueList *l = over.as.list;
            item = l->items[0];
            memmove(&l->items[0], &l->items[1], (size_t)(l->count - 1) * sizeof *l->items);
            l->count--;
        } else if (!value_item(&over, k, s->python, &item)) {
            r = exec_fail(s, st->expr->line, st->expr->col, "%s", ag_error());
            break;
        }
        if (!bind_target(s, st->target, item)) {
            r = EXEC_ERROR;
            break;
        }
        r = loop_body(s, st, &done);
        if (done) break;
    }
    if (s->num_roots > 0 && s->roots[s->num_roots - 1] == &over) s->num_roots--;
    value_release(&over);
    return r;
}

/* Whether a for loop's iterable is a call of the builtin range. */
static bool is_range_call(Session *s, const Node *e) {
    if (e->kind != NODE_CALL || e->left->kind != NODE_NAME) return false;
    const Node *c = e->left;
    if (c->as.text.length != 5 || memcmp(c->as.text.text, "range", 5) != 0) return false;
    if (e->num_positional != e->num_kids) return false; /* keywords: the builtin's call */
    return c->torch || !bound(s, c);
}

/* How a loop ended: a break ends it there; its end otherwise runs its else. */
static Status loop_end(Session *s, const Stmt *st, Status r) {
    if (r == EXEC_BREAK) return EXEC_OK;
    if (r == EXEC_OK && st->orelse.count) return exec_block(s, &st->orelse);
    return r;
}

static Status exec_for(Session *s, const Stmt *st) {
    if (!check_void_calls(s, st->expr, false, false)) return EXEC_ERROR;
    return loop_end(s, st, is_range_call(s, st->expr) ? for_range(s, st) : for_values(s, st));
}

/* The truth of a statement's condition. */
static bool condition(Session *s, const Node *e, bool *out) {
    Value v;
    if (!check_void_calls(s, e, false, false) || !eval_expression(s, e, &v)) return false;
    bool ok = truth(s, e, &v, out);
    value_release(&v);
    return ok;
}

static Status while_loop(Session *s, const Stmt *st) {
    for (;;) {
        bool go, done;
        if (!condition(s, st->expr, &go)) return EXEC_ERROR;
        if (!go) return EXEC_OK;
        Status r = loop_body(s, st, &done);
        if (done) return r;
    }
}

static Status exec_while(Session *s, const Stmt *st) { return loop_end(s, st, while_loop(s, st)); }

static Status exec_if(Session *s, const Stmt *st) {
    bool go;
    if (!condition(s, st->expr, &go)) return EXEC_ERROR;
    return exec_block(s, go ? &st->body : &st->orelse);
}

/* with torch.autograd.detect_anomaly(): / set_detect_anomaly(mode): anomaly
 * mode for the block, the previous one after it. */
static Status exec_anomaly(Session *s, const Stmt *st) {
    bool on = true;
    const Node *call = st->expr;
    if (call->num_kids > 0 && !condition(s, call->kids[0], &on)) return EXEC_ERROR;
    bool was = ag_set_detect_anomaly(on);
    if (on) anomaly_place(s, st->line);
    Status r = exec_block(s, &st->body);
    ag_set_detect_anomaly(was);
    return r;
}

static Status exec_no_grad(Session *s, const Stmt *st) {
    if (st->anomaly) return exec_anomaly(s, st);
    bool on = st->enable_grad;
    if (st->set_grad && !condition(s, st->expr->kids[0], &on)) return EXEC_ERROR;
    bool was = ag_set_grad_enabled(on);
    Status r = exec_block(s, &st->body);
    ag_set_grad_enabled(was);
    return r;
}

static STATEMENT_HANDLER Status exec_return(Session *s, const Stmt *st) {
    const UserFunc *f = s->frame->func;
    if (!st->expr || (f && f->def && f->def->generator)) return EXEC_RETURN;
    Value v;
    if (!check_void_calls(s, st->expr, false, false) || !eval_expression(s, st->expr, &v))
        return EXEC_ERROR;
    value_release(&s->frame->result);
    s->frame->result = v;
    return EXEC_RETURN;
}

static Status no_module(Session *s, const Node *n) {
    int len = name_len(n);
    return exec_fail(s, n->line, n->col, "ModuleNotFoundError: No module named '%.*s' (ag "
                     "runs torch, math, random, time and the .py files beside the script)", len,
                     n->as.text.text);
}

/* ======================================================================
 * The script's own modules: import engine, from micrograd.engine import
 * Value (a .py file, or a folder's __init__.py, beside the running
 * script). Each runs once, in a namespace of its own (an env, which the
 * functions it defines close over); the module is an object of the class
 * "module" whose attributes are what it bound, kept in the hidden global
 * __ag_modules__ by its dotted name.
 * ====================================================================== */

/* path of the dotted module (micrograd.engine: DIR/micrograd/engine.py,
 * or DIR/micrograd/engine/__init__.py); false when neither is a file. */
static bool module_path(const Session *s, const char *dotted, size_t len, char *path, size_t size) {
    const char *dir = s->script_dir[0] ? s->script_dir : ".";
    int n = snprintf(path, size, "%s/%.*s", dir, (int)len, dotted);
    if (n < 0 || (size_t)n + 13 >= size) return false;
    for (char *p = path + strlen(dir) + 1; *p; p++)
        if (*p == '.') *p = '/';
    struct stat st;
    strcat(path, ".py");
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) return true;
    path[n] = '\0';
    bool folder = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    strcat(path, "/__init__.py");
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) return true;
    if (folder) path[n] = '\0'; /* a folder without __init__.py: Python 3's namespace package */
    return folder;
}

static bool module_path_exists(const Session *s, const char *dotted, size_t len) {
    char path[1024];
    return module_path(s, dotted, len, path, sizeof path);
}

/* The whole file, NUL-terminated (malloc'd), or NULL; a folder (a
 * namespace package) reads as no text. */
static char *read_text(const char *path, size_t *len) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return *len = 0, calloc(1, 1);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    StrBuf sb;
    strbuf_init(&sb);
    bool bad = !strbuf_append_file(&sb, f);
    fclose(f);
    if (bad) return strbuf_free(&sb), NULL;
    if (sb.len == 0) { /* an empty __init__.py: the buffer's text is static then */
        strbuf_free(&sb);
        return *len = 0, calloc(1, 1);
    }
    *len = sb.len;
    return sb.data;
}

/* Runs text's statements in env (a frame of no function), in the .py dialect. */
static bool run_module_text(Session *s, Env *env, const char *text, size_t len) {
    Frame frame = {.func = NULL, .env = env, .caller = s->frame, .result = value_void()};
    s->frame = &frame;
    s->module_source++;
    bool ok = run_python_text(s, text, len, 1);
    s->module_source--;
    s->frame = frame.caller;
    value_release(&frame.result);
    return ok;
}

/* A new, empty module object: an instance of a class "module". */
static bool module_object(Session *s, const Node *at, Value *out) {
    ClassObj *c = calloc(1, sizeof *c);
    Instance *o = value_block_zalloc(sizeof *o);
    ValueDict *attrs = value_dict_new(false), *cattrs = value_dict_new(false);
    char *name = strdup("module");
    if (!c || !o || !attrs || !cattrs || !name) {
        free(c), free(o), free(name);
        Value a = {.kind = VAL_DICT, .as.dict = attrs}, b = {.kind = VAL_DICT, .as.dict = cattrs};
        if (attrs) value_release(&a);
        if (cattrs) value_release(&b);
        return session_fail(s, at->line, at->col, "MemoryError");
    }
    *c = (ClassObj){.refs = 1, .name = name, .attrs = cattrs};
    *o = (Instance){.refs = 1, .cls = c, .attrs = attrs};
    *out = (Value){.kind = VAL_INSTANCE, .as.object = o};
    return true;
}

/* What the module's code bound, as its attributes. */
static bool module_fill(Session *s, const Node *at, Env *env, Value *module) {
    for (int i = 0; i < env->num_locals; i++) {
        Local *l = &env->locals[i];
        Value v;
        if (l->value.kind == VAL_VOID) continue; /* deleted */
        if (!value_copy(&l->value, &v) || !value_setattr(module, l->name, l->length, NULL, v))
            return session_fail(s, at->line, at->col, "MemoryError");
    }
    return true;
}

/* The hidden global __ag_modules__, the modules by dotted name (made on
 * first need); NULL with the error set. */
static ValueDict *module_cache(Session *s, const Node *at) {
    Var *v = session_lookup(s, "__ag_modules__", 14);
    if (v && v->value.kind == VAL_DICT) return v->value.as.dict;
    ValueDict *d = value_dict_new(false);
    if (!d || !session_bind(s, "__ag_modules__", 14, (Value){.kind = VAL_DICT, .as.dict = d},
                            at->line, at->col)) {
        session_set_error(s, at->line, at->col, "MemoryError");
        return NULL;
    }
    return d;
}

/* Runs the module's text into the (empty) module object; its __name__ is
 * its dotted name (so its if __name__ == '__main__': part does not run). */
static bool module_run(Session *s, const Node *at, const char *path, const char *text, size_t n,
                       const char *dotted, size_t len, Value *module) {
    Env *env = session_env(s, NULL, NULL, at->line, at->col);
    Value name;
    bool ok = env && value_string(dotted, len, &name) &&
              env_bind(s, env, "__name__", 8, name, at->line, at->col);
    ok = ok && run_module_text(s, env, text, n);
    if (!ok && env) { /* its error, at the import: the line in the module named */
        char inner[sizeof s->error];
        memcpy(inner, s->error, sizeof inner);
        int line = s->error_line;
        session_set_error(s, at->line, at->col, "%.*s (%s, line %d)", 400, inner, path, line);
    }
    ok = ok && module_fill(s, at, env, module);
    if (env) env_release(env);
    return ok;
}

/* The script's module DOTTED (run now if it never ran) into out; false
 * with the error set (ModuleNotFoundError when there is no such file).
 * It is in the cache while it runs, as in Python's sys.modules, so a
 * circular import finds it (still empty) instead of running it again. */
/* ag's message for a module CPython or PyTorch has and ag does not. */
static bool module_not_in_ag(Session *s, const Node *at, const char *dotted, size_t len) {
    return session_fail(s, at->line, at->col, "ModuleNotFoundError: No module named '%.*s' (ag "
                        "has no such module: it runs torch, torch.nn, torch.optim, "
                        "torch.utils.data, math, random, time, collections, sys, os, typing and "
                        "the script's own .py files)", (int)(len > 80 ? 80 : len), dotted);
}

static bool user_module(Session *s, const Node *at, const char *dotted, size_t len, Value *out) {
    if (len > 6 && memcmp(dotted, "torch.", 6) == 0) /* torch.distributions: PyTorch's, not ag's */
        return module_not_in_ag(s, at, dotted, len);
    if (len > 255) /* no such file; and the packages above it recurse once per dot */
        return session_fail(s, at->line, at->col, "ModuleNotFoundError: No module named '%.60s...'",
                            dotted);
    ValueDict *cache = module_cache(s, at);
    Value key;
    if (!cache) return false;
    if (!value_string(dotted, len, &key)) return session_fail(s, at->line, at->col, "MemoryError");
    Value *found = value_dict_get(cache, &key);
    if (found) return value_release(&key), value_copy(found, out);
    *out = value_void();
    const char *dot = NULL; /* the last '.' (memrchr is GNU's) */
    for (size_t i = len; i > 0 && !dot; i--)
        if (dotted[i - 1] == '.') dot = dotted + i - 1;
    Value parent = value_void(); /* import a.b runs a first, and b becomes a's attribute */
    if (dot && !user_module(s, at, dotted, (size_t)(dot - dotted), &parent))
        return value_release(&key), false;
    char path[1024];
    size_t n;
    char *text = s->allow_files && module_path(s, dotted, len, path, sizeof path)
                 ? read_text(path, &n) : NULL; /* allow_files off (the fuzzer): no file is read */
    bool ok = text || (module_elsewhere(dotted, len)
                       ? module_not_in_ag(s, at, dotted, len)
                       : session_fail(s, at->line, at->col, "ModuleNotFoundError: No module "
                                      "named '%.*s'", (int)len, dotted));
    Value held = value_void(), copy;
    ok = ok && module_object(s, at, out) && value_copy(out, &held) && value_copy(&key, &copy) &&
         (value_dict_set(cache, copy, held) || session_fail(s, at->line, at->col, "MemoryError"));
    if (ok) ok = module_run(s, at, path, text, n, dotted, len, out);
    free(text);
    if (ok && dot) {
        Value v;
        ok = value_copy(out, &v) && value_setattr(&parent, dot + 1, len - (size_t)(dot - dotted) - 1, NULL, v);
        if (!ok) session_set_error(s, at->line, at->col, "MemoryError");
    }
    if (!ok && out->kind == VAL_INSTANCE) { /* a failed module is not kept, as in Python */
        ValueDict *now = module_cache(s, at);
        if (now) value_dict_remove(now, &key);
        value_release(out);
    }
    value_release(&parent);
    value_release(&key);
    return ok;
}

/* Binds name (a NAME node, or its alias) to a module. */
static Status bind_module(Session *s, const Node *name, const Node *alias, const char *module) {
    Value v = {.kind = VAL_MODULE, .as.module = module};
    if (!alias && !name->torch) { /* import torch.nn binds torch */
        const char *dot = memchr(name->as.text.text, '.', name->as.text.length);
        if (dot) {
            Node root = *name;
            root.as.text.length = (size_t)(dot - name->as.text.text);
            root.cache_slot = -1;
            v.as.module = module_find(root.as.text.text, root.as.text.length);
            return bind_name(s, &root, v) ? EXEC_OK : EXEC_ERROR;
        }
    }
    return bind_name(s, alias ? alias : name, v) ? EXEC_OK : EXEC_ERROR;
}

/* from MODULE import NAME [as ALIAS]: a submodule, a constant, or a
 * builtin (whose name then means it: nothing to bind unless renamed). */

static Status import_from(Session *s, const char *module, const Node *name, const Node *alias) {
    const char *text = name->as.text.text;
    size_t len = name->as.text.length;
    const char *sub = module_submodule(module, text, len);
    double constant;
    Value cls;
    bool failed;
    if (sub) return bind_module(s, name, alias, sub);
    if (python_module_name(s, name, module, text, len, &cls, &failed))
        return bind_name(s, alias ? alias : name, cls) ? EXEC_OK : EXEC_ERROR;
    if (failed) return EXEC_ERROR;
    if (module_constant(module, text, len, &constant))
        return bind_name(s, alias ? alias : name, value_number(constant)) ? EXEC_OK : EXEC_ERROR;
    const Builtin *own = builtin_in_module(module, text, len);
    if (own) /* from math import exp: math's exp, not the tensor op of that name */
        return bind_name(s, alias ? alias : name, builtin_as_value(own)) ? EXEC_OK : EXEC_ERROR;
    bool known = (len == 1 && text[0] == '*') || (module_is_torch(module) && builtin_find(text, len));
    if (!known)
        return exec_fail(s, name->line, name->col, "ImportError: cannot import name '%.*s' from "
                         "'%s' (ag has no such name)", name_len(name), text, module);
    if (alias) return exec_fail(s, alias->line, alias->col, "ag cannot rename a function yet "
                                "(import %.*s as %.*s): use %.*s", name_len(name), text,
                                name_len(alias), alias->as.text.text, name_len(name), text);
    return EXEC_OK;
}

/* from MODULE import NAME [as ALIAS], ... of the script's own module: its
 * names (a submodule file too: from micrograd import nn), or all of them
 * not beginning with _ for *. */
static Status import_from_user(Session *s, const Stmt *st) {
    const Node *m = st->module;
    Value mod;
    if (!user_module(s, m, m->as.text.text, m->as.text.length, &mod)) return EXEC_ERROR;
    Status r = EXEC_OK;
    for (int i = 0; r == EXEC_OK && i < st->num_params; i++) {
        const Node *name = st->params[i], *alias = st->defaults[i];
        Value v;
        if (name->as.text.length == 1 && name->as.text.text[0] == '*') {
            const ValueDict *d = mod.as.object->attrs;
            for (int64_t k = 0; r == EXEC_OK && k < d->count; k++) {
                const Value *key = &d->entries[k].key;
                if (key->kind != VAL_STRING || key->as.string.text[0] == '_') continue;
                Node at = *name;
                at.as.text.text = key->as.string.text, at.as.text.length = key->as.string.length;
                at.cache_slot = -1;
                r = value_copy(&d->entries[k].value, &v) && bind_name(s, &at, v) ? EXEC_OK : EXEC_ERROR;
            }
            continue;
        }
        bool found = value_getattr(&mod, name->as.text.text, name->as.text.length, &v);
        if (!found) { /* from micrograd import nn: the submodule's file */
            char dotted[256];
            int n = snprintf(dotted, sizeof dotted, "%.*s.%.*s", (int)m->as.text.length,
                             m->as.text.text, (int)name->as.text.length, name->as.text.text);
            bool file = n > 0 && (size_t)n < sizeof dotted && s->allow_files &&
                        module_path_exists(s, dotted, (size_t)n);
            if (file) found = user_module(s, name, dotted, (size_t)n, &v);
            else session_set_error(s, name->line, name->col, "ImportError: cannot import name "
                                   "'%.*s' from '%.*s'", name_len(name), name->as.text.text,
                                   name_len(m), m->as.text.text);
        }
        r = found && bind_name(s, alias ? alias : name, v) ? EXEC_OK : EXEC_ERROR;
    }
    value_release(&mod);
    return r;
}

/* import NAME [as ALIAS] of the script's own module (import a.b binds a). */
static Status import_user(Session *s, const Node *name, const Node *alias) {
    Value mod;
    const char *dot = memchr(name->as.text.text, '.', name->as.text.length);
    if (!user_module(s, name, name->as.text.text, name->as.text.length, &mod)) return EXEC_ERROR;
    if (dot && !alias) { /* import pkg.mod: binds pkg, the package */
        value_release(&mod);
        size_t n = (size_t)(dot - name->as.text.text);
        if (!user_module(s, name, name->as.text.text, n, &mod)) return EXEC_ERROR;
        Node root = *name;
        root.as.text.length = n;
        root.cache_slot = -1;
        return bind_name(s, &root, mod) ? EXEC_OK : EXEC_ERROR;
    }
    return bind_name(s, alias ? alias : name, mod) ? EXEC_OK : EXEC_ERROR;
}

/* from __future__ import print_function (division, annotations...):
 * Python 3 has them all, so nothing to do; another name is Python's
 * SyntaxError. */
static Status import_future(Session *s, const Stmt *st) {
    static const char *const known[] = {"nested_scopes", "generators", "division",
                                        "absolute_import", "with_statement", "print_function",
                                        "unicode_literals", "barry_as_FLUFL", "generator_stop",
                                        "annotations"};
    for (int i = 0; i < st->num_params; i++) {
        const Node *n = st->params[i];
        bool found = false;
        for (size_t k = 0; k < sizeof known / sizeof known[0] && !found; k++)
            found = strlen(known[k]) == n->as.text.length &&
                    memcmp(known[k], n->as.text.text, n->as.text.length) == 0;
        if (!found && name_len(n) == 6 && memcmp(n->as.text.text, "braces", 6) == 0)
            return exec_fail(s, n->line, n->col, "SyntaxError: not a chance");
        if (!found)
            return exec_fail(s, n->line, n->col, "SyntaxError: future feature %.*s is not "
                             "defined", name_len(n), n->as.text.text);
    }
    return EXEC_OK;
}

static STATEMENT_HANDLER Status exec_import(Session *s, const Stmt *st) {
    const char *from = NULL;
    if (st->module && st->module->as.text.length == 10 &&
        memcmp(st->module->as.text.text, "__future__", 10) == 0)
        return import_future(s, st);
    if (st->module && !(from = module_find(st->module->as.text.text, st->module->as.text.length)))
        return s->python ? import_from_user(s, st) : no_module(s, st->module);
    for (int i = 0; i < st->num_params; i++) {
        const Node *name = st->params[i], *alias = st->defaults[i];
        Status r;
        if (from) {
            r = import_from(s, from, name, alias);
        } else {
            const char *module = module_find(name->as.text.text, name->as.text.length);
            r = module ? bind_module(s, name, alias, module)
                : s->python ? import_user(s, name, alias) : no_module(s, name);
        }
        if (r != EXEC_OK) return r;
    }
    return EXEC_OK;
}

/* class NAME(BASE): its body runs in a namespace of its own (a class-scope
 * env, which the functions defined in it do not close over, as Python's);
 * what it bound becomes the class's attributes. */
/* The descriptors among a new class's attributes (env's, in order): the
 * session starts looking for them, and each one's __set_name__(cls, name)
 * runs, as CPython's type() calls it. */
static bool set_names(Session *s, const Stmt *st, const Value *cls, const Env *env) {
    for (int i = 0; i < env->num_locals; i++) {
        const Value *v = &env->locals[i].value;
        if (descriptor_method(v, "__get__") || descriptor_method(v, "__set__")) s->descriptors = true;
        if (!descriptor_method(v, "__set_name__")) continue;
        Value args[2] = {*cls, value_void()}, r;
        if (!value_string(env->locals[i].name, env->locals[i].length, &args[1]))
            return session_fail(s, st->line, st->col, "MemoryError");
        bool ok = call_descriptor(s, st->target, v, "__set_name__", args, 2, &r);
        value_release(&args[1]);
        value_release(&r);
        if (!ok) return false;
    }
    return true;
}

static STATEMENT_HANDLER Status exec_class(Session *s, const Stmt *st) {
    ClassObj *base = NULL;
    bool object_base = st->expr && st->expr->kind == NODE_NAME && !st->expr->torch &&
                       st->expr->as.text.length == 6 &&
                       memcmp(st->expr->as.text.text, "object", 6) == 0 && !bound(s, st->expr);
    if (st->expr && !object_base) { /* class C(object): Python 2's spelling of no base */
        Value b;
        if (!eval_expression(s, st->expr, &b)) return EXEC_ERROR;
        if (b.kind != VAL_CLASS) {
            Status r = exec_fail(s, st->expr->line, st->expr->col, "TypeError: a class's base "
                                 "must be a class (ag's torch.nn.Module comes later), not %s",
                                 value_type_name(&b));
            value_release(&b);
            return r;
        }
        base = b.as.cls; /* b's reference becomes the class's */
    }
    Frame *caller = s->frame;
    Env *env = session_env(s, caller ? caller->env : NULL, caller && caller->func ? caller->func->code : NULL,
                           st->line, st->col);
    if (!env) return class_release(base), EXEC_ERROR;
    env->class_scope = true;
    Frame frame = {.func = caller ? caller->func : NULL, .env = env, .caller = caller,
                   .result = value_void()};
    s->frame = &frame;
    Status r = exec_block(s, &st->body);
    s->frame = caller;
    ClassObj *c = r == EXEC_OK ? calloc(1, sizeof *c) : NULL;
    if (r == EXEC_OK && c) {
        *c = (ClassObj){.refs = 1, .base = base, .attrs = value_dict_new(false)};
        size_t n = st->target->as.text.length;
        c->name = malloc(n + 1);
        if (c->name) memcpy(c->name, st->target->as.text.text, n), c->name[n] = '\0';
        base = NULL;
        bool ok = c->attrs && c->name;
        for (int i = 0; ok && i < env->num_locals; i++) {
            Local *l = &env->locals[i];
            Value key, v;
            if (l->value.kind == VAL_VOID) continue;
            ok = value_string(l->name, l->length, &key) && value_copy(&l->value, &v) &&
                 value_dict_set(c->attrs, key, v);
        }
        Value cls = {.kind = VAL_CLASS, .as.cls = c};
        if (!ok) value_release(&cls), r = exec_fail(s, st->line, st->col, "MemoryError");
        else if (!set_names(s, st, &cls, env)) value_release(&cls), r = EXEC_ERROR;
        else r = bind_name(s, st->target, cls) ? EXEC_OK : EXEC_ERROR;
    } else if (r == EXEC_OK) {
        r = exec_fail(s, st->line, st->col, "MemoryError");
    }
    class_release(base);
    env_release(env);
    return r == EXEC_ERROR ? EXEC_ERROR : r == EXEC_OK ? EXEC_OK
           : exec_fail(s, st->line, st->col, "SyntaxError: 'return' outside function");
}

/* yield EXPR: the value joins the list the generator's call gives. */
static Status exec_yield(Session *s, const Stmt *st) {
    Value v = value_none();
    if (st->expr && !eval_expression(s, st->expr, &v)) return EXEC_ERROR;
    ValueList *l = s->frame->result.as.list;
    return value_list_append(l, v) ? EXEC_OK : exec_fail(s, st->line, st->col, "MemoryError");
}

/* del xs[a:b:c] of a list: the items the slice names go. */
static bool del_slice(Session *s, const Node *t, ValueList *l) {
    int64_t start, step, length;
    if (!python_slice(s, t->kids[0], l->count, &start, &step, &length)) return false;
    if (step < 0) start += (length - 1) * step, step = -step; /* the same items, ascending */
    int64_t to = start; /* the kept items close up, in order */
    for (int64_t i = start, k = 0; i < l->count; i++) {
        if (k < length && i == start + k * step) {
            value_release(&l->items[i]);
            k++;
            continue;
        }
        l->items[to++] = l->items[i];
    }
    l->count = (int)to;
    return true;
}

/* del x[i] / del d[key] / del xs[a:b] */
static Status del_item(Session *s, const Node *t) {
    Value obj, key;
    if (!eval_expression(s, t->left, &obj)) return EXEC_ERROR;
    if (t->num_kids == 1 && t->kids[0]->kind == NODE_SLICE && obj.kind == VAL_LIST &&
        !obj.as.list->tuple) {
        bool ok = del_slice(s, t, obj.as.list);
        value_release(&obj);
        return ok ? EXEC_OK : EXEC_ERROR;
    }
    if (t->num_kids != 1 || t->kids[0]->kind == NODE_SLICE || !eval_expression(s, t->kids[0], &key)) {
        if (t->num_kids != 1 || t->kids[0]->kind == NODE_SLICE)
            session_set_error(s, t->line, t->col, "TypeError: '%s' object does not support item "
                              "deletion", value_type_name(&obj));
        value_release(&obj);
        return EXEC_ERROR;
    }
    bool ok = true;
    if (obj.kind == VAL_DICT && !obj.as.dict->set) {
        if (!value_hashable(&key) || !value_dict_remove(obj.as.dict, &key)) {
            StrBuf text;
            strbuf_init(&text);
            value_format(&text, &key, &s->print, true);
            ok = session_fail(s, t->line, t->col, "KeyError: %.*s", 400, text.data);
            strbuf_free(&text);
        }
    } else if (obj.kind == VAL_LIST && !obj.as.list->tuple && value_is_int(&key)) {
        ValueList *l = obj.as.list;
        int64_t i = value_int(&key);
        if (i < 0) i += l->count;
        if (i < 0 || i >= l->count) {
            ok = session_fail(s, t->line, t->col, "IndexError: list assignment index out of range");
        } else {
            value_release(&l->items[i]);
            memmove(&l->items[i], &l->items[i + 1], (size_t)(l->count - i - 1) * sizeof *l->items);
            l->count--;
        }
    } else {
        ok = session_fail(s, t->line, t->col, "TypeError: '%s' object doesn't support item "
                          "deletion", value_type_name(&obj));
    }
    value_release(&obj);
    value_release(&key);
    return ok ? EXEC_OK : EXEC_ERROR;
}

/* del obj.attr: an object's or a class's own attribute */
static Status del_attr(Session *s, const Node *t) {
    Value obj;
    if (!eval_expression(s, t->left, &obj)) return EXEC_ERROR;
    bool ok = value_delattr(&obj, t->as.text.text, t->as.text.length) ||
              session_fail(s, t->line, t->col, "AttributeError: '%s' object has no attribute "
                           "'%.*s'", value_type_name(&obj), name_len(t), t->as.text.text);
    value_release(&obj);
    return ok ? EXEC_OK : EXEC_ERROR;
}

static STATEMENT_HANDLER Status exec_del(Session *s, const Stmt *st) {
    for (int i = 0; i < st->num_params; i++) {
        const Node *t = st->params[i];
        if (t->kind == NODE_INDEX || t->kind == NODE_ATTR) {
            if ((t->kind == NODE_INDEX ? del_item(s, t) : del_attr(s, t)) != EXEC_OK)
                return EXEC_ERROR;
            continue;
        }
        Value *v = resolve(s, t).value;
        if (!v) return exec_fail(s, t->line, t->col, "NameError: name '%.*s' is not defined",
                                 name_len(t), t->as.text.text);
        value_release(v); /* VAL_VOID: unbound (resolve skips it) */
    }
    return EXEC_OK;
}

static Status exec_global(Session *s, const Stmt *st) {
    if (!s->frame) return EXEC_OK; /* global at the top level: names are global already */
    Env *e = s->frame->env;
    const Stmt *def = s->frame->func ? s->frame->func->def : NULL;
    if (!e->class_scope && def && def->num_globals + def->num_nonlocals > 0)
        return EXEC_OK; /* a .py def's: all of them apply from the call's start (apply_user) */
    if (st->nonlocal) e->nonlocals = st->params, e->num_nonlocals = st->num_params;
    else e->globals = st->params, e->num_globals = st->num_params;
    return EXEC_OK;
}

static STATEMENT_HANDLER Status exec_assert(Session *s, const Stmt *st) {
    bool go;
    if (!condition(s, st->expr, &go)) return EXEC_ERROR;
    if (go) return EXEC_OK;
    if (!st->target) return exec_fail(s, st->line, st->col, "AssertionError");
    Value m;
    if (!eval_expression(s, st->target, &m)) return EXEC_ERROR;
    StrBuf text;
    strbuf_init(&text);
    value_format(&text, &m, &s->print, false);
    session_set_error(s, st->line, st->col, "AssertionError: %.*s", 500, text.data);
    strbuf_free(&text);
    value_release(&m);
    return EXEC_ERROR;
}

/* ======================================================================
 * Exceptions (.py): raise, try/except/else/finally
 *
 * An exception is the error being reported: its message starts with the
 * name of its class ("ValueError: ..."), as CPython's traceback ends. A
 * raise statement also keeps the object it raised (s->exception); an
 * error from C code has none, and an except clause that catches it makes
 * one of the class its message names. A message that names no class
 * (ag's own limits, an interrupt, the fuzzer's step budget) is no Python
 * exception: no except clause catches it, not even a bare one, since that
 * would hide that ag, not the script, stopped.
 * ====================================================================== */

/* The except clause running, innermost first: the exception a bare raise
 * raises again. */
/* The error being reported, kept aside while other code runs (an except
 * clause's type, a finally, an __exit__) and put back as it was. */
typedef struct {
    char error[sizeof ((Session *)0)->error];
    int line, col;
    bool in_function;
    Value exception;           /* the raised object, or void */
} SavedError;

/* Takes the error (and its object) off s into e. */
static void error_save(Session *s, SavedError *e) {
    memcpy(e->error, s->error, sizeof e->error);
    e->line = s->error_line, e->col = s->error_col, e->in_function = s->error_in_function;
    e->exception = s->exception;
    s->exception = value_void();
}

/* Makes e the error again (its object copied; e keeps its own). */
static void error_put(Session *s, const SavedError *e) {
    session_set_error(s, e->line, e->col, "%s", e->error);
    s->error_in_function = e->in_function;
    value_copy(&e->exception, &s->exception);
}

/* error_put, and e's object released: e is used up. */
static void error_restore(Session *s, SavedError *e) {
    error_put(s, e);
    value_release(&e->exception);
}

typedef struct Handling {
    SavedError caught;         /* its object is the one the clause bound */
    struct Handling *outer;
} Handling;

static bool object_text(void *ctx, const Value *v, bool repr, StrBuf *out);

/* BaseException's class, when exceptions.c has run; else NULL. */
static ClassObj *base_exception(Session *s) {
    Var *v = session_lookup(s, "__exceptions__", 14);
    if (!v || v->value.kind != VAL_DICT) return NULL;
    Value key;
    if (!value_string("BaseException", 13, &key)) return NULL;
    const Value *found = value_dict_get(v->value.as.dict, &key);
    value_release(&key);
    return found && found->kind == VAL_CLASS ? found->as.cls : NULL;
}

static bool derives(const ClassObj *c, const ClassObj *base) {
    for (; c; c = c->base)
        if (c == base) return true;
    return false;
}

/* The length of the class name the error's message starts with ("KeyError"
 * of "KeyError: 'a'", or the whole of "StopIteration"): a built-in
 * exception's name, or the class of the object raised (any name); 0 for
 * none. */
static size_t error_class_length(const Session *s) {
    const char *message = s->error;
    size_t k = 0;
    while (isalnum((unsigned char)message[k]) || message[k] == '_') k++;
    if (k == 0 || !(message[k] == '\0' || (message[k] == ':' && message[k + 1] == ' ')))
        return 0;
    const char *raised = s->exception.kind == VAL_INSTANCE ? s->exception.as.object->cls->name : "";
    if (strlen(raised) == k && memcmp(raised, message, k) == 0) return k;
    return exception_like(message, k) ? k : 0;
}

/* Sets the error to the exception object v (taking it): "Class: str(v)",
 * as CPython's traceback ends, at line:col. */
static Status raise_object(Session *s, int line, int col, Value v) {
    StrBuf text;
    strbuf_init(&text);
    const char *name = v.as.object->cls->name;
    if (!object_text(s, &v, false, &text)) /* its __str__ failed: CPython's words */
        session_set_error(s, line, col, "%s: <exception str() failed>", name);
    else
        session_set_error(s, line, col, "%s%s%.*s", name, text.len ? ": " : "", 500,
                          text.len ? text.data : "");
    strbuf_free(&text);
    s->exception = v;
    return EXEC_ERROR;
}

/* raise E(msg) / raise E / raise: the object, or E(), becomes the error;
 * a bare raise raises again what the running except clause caught. */
static STATEMENT_HANDLER Status exec_raise(Session *s, const Stmt *st) {
    if (!st->expr) {
        const Handling *h = s->handling;
        if (!h) return exec_fail(s, st->line, st->col, "RuntimeError: No active exception to reraise");
        error_put(s, &h->caught);
        return EXEC_ERROR;
    }
    Value v;
    if (!eval_expression(s, st->expr, &v)) return EXEC_ERROR;
    ClassObj *base = base_exception(s);
    if (v.kind == VAL_CLASS && base && derives(v.as.cls, base)) { /* raise E: E() */
        Value made;
        bool ok = s->call_value(s, st->line, st->col, &v, NULL, 0, &made);
        value_release(&v);
        if (!ok) return EXEC_ERROR;
        v = made;
    }
    if (v.kind != VAL_INSTANCE || !base || !derives(v.as.object->cls, base)) {
        value_release(&v);
        return exec_fail(s, st->line, st->col, "TypeError: exceptions must derive from "
                         "BaseException");
    }
    return raise_object(s, st->line, st->col, v);
}

/* The exception being reported as an object, into out: the one raised,
 * else one made of the class its message names (its text the message);
 * void when the message names no class. false when making it failed. */
static bool exception_object(Session *s, const Node *at, Value *out) {
    *out = value_void();
    size_t k = error_class_length(s);
    if (k == 0) return true;
    if (s->exception.kind == VAL_INSTANCE &&
        strlen(s->exception.as.object->cls->name) == k &&
        memcmp(s->exception.as.object->cls->name, s->error, k) == 0)
        return value_copy(&s->exception, out);
    char message[sizeof s->error];
    memcpy(message, s->error, sizeof message);
    Node name = {.kind = NODE_NAME, .line = at->line, .col = at->col};
    name.as.text.text = message;
    name.as.text.length = k;
    Value cls;
    bool failed;
    if (!python_builtin(s, &name, &cls, &failed)) return !failed;
    /* BaseException's __init__ made in place: args, the message's text
     * after "Class: " (none for a bare "Class"); and str(e) that text
     * exactly (KeyError's str would repr it again). */
    const char *text = message[k] ? message + k + 2 : NULL;
    ValueList *args = value_list_new(text ? 1 : 0, true);
    Value tuple = args ? (Value){.kind = VAL_LIST, .as.list = args} : value_void(), copy;
    bool ok = args && new_object(s, at, &cls, out);
    value_release(&cls);
    ok = ok && (!text || value_string(text, strlen(text), &args->items[0]));
    if (ok && text)
        ok = value_copy(&args->items[0], &copy) &&
             value_setattr(out, "_ag_message", 11, NULL, copy);
    if (ok) ok = value_setattr(out, "args", 4, NULL, tuple); /* takes the tuple */
    else value_release(&tuple);
    if (!ok) value_release(out);
    return ok || session_fail(s, at->line, at->col, "MemoryError");
}

/* Whether the exception e (an object, or void: one of no class) is what
 * the except clause h names; false with the error set when its type is
 * not one. */
static bool clause_matches(Session *s, const Stmt *h, const Value *e, bool *match) {
    *match = h->expr == NULL; /* a bare except: every exception */
    if (!h->expr) return true;
    Value t;
    if (!eval_expression(s, h->expr, &t)) return false;
    const Value *types = t.kind == VAL_LIST ? t.as.list->items : &t;
    int n = t.kind == VAL_LIST ? t.as.list->count : 1;
    ClassObj *base = base_exception(s);
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        if (types[i].kind != VAL_CLASS || !base || !derives(types[i].as.cls, base))
            ok = session_fail(s, h->line, h->col, "TypeError: catching classes that do not "
                              "inherit from BaseException is not allowed");
        else if (e->kind == VAL_INSTANCE && derives(e->as.object->cls, types[i].as.cls))
            *match = true;
    }
    value_release(&t);
    return ok;
}

/* Runs except clause h on exception e (taking it): e bound to its name,
 * which is unbound after, as CPython does. */
static Status run_handler(Session *s, const Stmt *h, Handling *caught, Value e) {
    caught->caught.exception = e;
    caught->outer = s->handling;
    s->handling = caught;
    value_release(&s->exception);
    Value bound;
    Status r = EXEC_OK;
    if (h->target && (!value_copy(&e, &bound) || !bind_name(s, h->target, bound)))
        r = EXEC_ERROR;
    if (r == EXEC_OK) r = exec_block(s, &h->body);
    if (h->target) {
        Value *v = resolve(s, h->target).value;
        if (v) value_release(v);
    }
    s->handling = caught->outer;
    value_release(&caught->caught.exception);
    return r;
}

/* The error of a try's body: the first except clause that names it runs;
 * with none, the error stands. */
static Status catch_error(Session *s, const Stmt *st) {
    Value e;
    if (error_class_length(s) == 0) return EXEC_ERROR; /* no Python exception */
    if (!exception_object(s, &(Node){.line = s->error_line, .col = s->error_col}, &e))
        return EXEC_ERROR;
    SavedError raised; /* kept apart while the clauses' types are evaluated */
    error_save(s, &raised);
    for (int i = 0; i < st->handlers.count; i++) {
        const Stmt *h = st->handlers.items[i];
        bool match;
        if (!clause_matches(s, h, &e, &match)) {
            value_release(&e), value_release(&raised.exception);
            return EXEC_ERROR;
        }
        if (!match) continue;
        value_release(&raised.exception); /* e, the object the clause binds, stands for it */
        Handling caught = {.caught = raised};
        return run_handler(s, h, &caught, e);
    }
    value_release(&e);
    error_restore(s, &raised);
    return EXEC_ERROR;
}

/* finally's body after the rest of the try ended with r: its own error,
 * return, break or continue replaces r; else r stands, an error as it was. */
static Status run_finally(Session *s, const Stmt *st, Status r) {
    SavedError raised;
    error_save(s, &raised);
    Status f = exec_block(s, &st->finalbody);
    if (f != EXEC_OK || r != EXEC_ERROR) {
        value_release(&raised.exception);
        return f != EXEC_OK ? f : r;
    }
    error_restore(s, &raised);
    return r;
}

/* mgr.NAME(args...) from C: false with the error set when it has none
 * (*missing) or the call fails. */
static bool call_protocol(Session *s, const Stmt *st, const Value *mgr, const char *name,
                          const Value *args, int n, Value *out, bool *missing) {
    Value m;
    *missing = mgr->kind != VAL_INSTANCE || !value_getattr(mgr, name, strlen(name), &m);
    if (*missing) return false;
    bool ok = s->call_value(s, st->line, st->col, &m, args, n, out);
    value_release(&m);
    return ok;
}

/* with MGR [as T]: BODY (a .py file's context manager, open()'s files
 * among them): T = MGR.__enter__(), BODY, then MGR.__exit__(type, value,
 * None) with the exception BODY raised (None three times when none); a
 * true result swallows it, as CPython's. */
static STATEMENT_HANDLER Status exec_with(Session *s, const Stmt *st) {
    Value mgr, entered, r = value_void();
    if (!eval_expression(s, st->expr, &mgr)) return EXEC_ERROR;
    const ClassObj *c = mgr.kind == VAL_INSTANCE ? mgr.as.object->cls : NULL;
    bool enter = c && value_class_lookup(c, "__enter__", 9), exit = c && value_class_lookup(c,
                 "__exit__", 8), missing = !enter || !exit; /* CPython looks for both first */
    if (missing || !call_protocol(s, st, &mgr, "__enter__", NULL, 0, &entered, &missing)) {
        if (missing)
            session_set_error(s, st->expr->line, st->expr->col, "TypeError: '%s' object does "
                              "not support the context manager protocol%s", value_type_name(&mgr),
                              enter ? " (missed __exit__ method)" : "");
        value_release(&mgr);
        return EXEC_ERROR;
    }
    Status status = EXEC_OK;
    if (st->target && !bind_target(s, st->target, entered)) status = EXEC_ERROR;
    else if (!st->target) value_release(&entered);
    if (status == EXEC_OK) status = exec_block(s, &st->body);
    Value args[3] = {value_none(), value_none(), value_none()}, e = value_void();
    SavedError raised = {.exception = value_void()};
    if (status == EXEC_ERROR) { /* the exception, kept while __exit__ runs */
        if (error_class_length(s) &&
            exception_object(s, &(Node){.line = s->error_line, .col = s->error_col}, &e) &&
            e.kind == VAL_INSTANCE) {
            args[0] = (Value){.kind = VAL_CLASS, .as.cls = e.as.object->cls};
            e.as.object->cls->refs++;
            value_copy(&e, &args[1]);
        }
        error_save(s, &raised);
    }
    bool swallow = false;
    bool ok = call_protocol(s, st, &mgr, "__exit__", args, 3, &r, &missing);
    if (r.kind == VAL_VOID) r = value_none(); /* an __exit__ that returns nothing: None */
    if (ok && e.kind == VAL_INSTANCE) ok = truth(s, st->expr, &r, &swallow);
    value_release(&r), value_release(&e), value_release(&mgr);
    for (int i = 0; i < 3; i++) value_release(&args[i]);
    if (!ok || status != EXEC_ERROR || swallow) { /* __exit__'s error, or none left */
        value_release(&raised.exception);
        return !ok ? EXEC_ERROR : status == EXEC_ERROR ? EXEC_OK : status;
    }
    error_restore(s, &raised);
    return EXEC_ERROR;
}

static STATEMENT_HANDLER Status exec_try(Session *s, const Stmt *st) {
    Status r = exec_block(s, &st->body);
    if (r == EXEC_ERROR && st->handlers.count) r = catch_error(s, st);
    else if (r == EXEC_OK && st->orelse.count) r = exec_block(s, &st->orelse);
    return st->finalbody.count ? run_finally(s, st, r) : r;
}

static Status exec_kind(Session *s, const Stmt *st) {
    switch (st->kind) {
    case STMT_EXPR: return exec_expr(s, st);
    case STMT_ASSIGN: return exec_assign(s, st);
    case STMT_AUGASSIGN: return exec_augassign(s, st);
    case STMT_DEF: return exec_def(s, st);
    case STMT_FOR: return exec_for(s, st);
    case STMT_WHILE: return exec_while(s, st);
    case STMT_IF: return exec_if(s, st);
    case STMT_NO_GRAD: return exec_no_grad(s, st);
    case STMT_BREAK: return EXEC_BREAK;
    case STMT_CONTINUE: return EXEC_CONTINUE;
    case STMT_RETURN: return exec_return(s, st);
    case STMT_IMPORT: return exec_import(s, st);
    case STMT_PASS: return EXEC_OK;
    case STMT_GLOBAL: return exec_global(s, st);
    case STMT_ASSERT: return exec_assert(s, st);
    case STMT_RAISE: return exec_raise(s, st);
    case STMT_TRY: return exec_try(s, st);
    case STMT_EXCEPT: break; /* run by its TRY */
    case STMT_WITH: return exec_with(s, st);
    case STMT_YIELD: return exec_yield(s, st);
    case STMT_DEL: return exec_del(s, st);
    case STMT_CLASS: return exec_class(s, st);
    }
    return exec_fail(s, st->line, st->col, "internal error: unknown statement");
}

/* The engine's place for what a statement records under anomaly mode:
 * its line, and the caller's again once it has run (y = f(x) * 2 records
 * the product on its own line, not on f's last). */
static void anomaly_place(Session *s, int line) {
    s->anomaly_line = line;
    ag_set_anomaly_location(line > 0 ? s->source_name : NULL, line);
}

/* A statement during which an object's __eq__ or __hash__ failed inside a
 * container's compare (value_hook_failed): it fails with that error, at
 * its own place when the error has none. */
static inline Status hook_failure(Session *s, const Stmt *st, Status r) {
    if (!value_hook_failed) return r;
    value_hook_failed = false;
    const char *message = value_hook_message;
    value_hook_message = NULL;
    if (r == EXEC_ERROR) return r;
    if (message) return exec_fail(s, st->line, st->col, "%s", message);
    if (s->error_line == 0) s->error_line = st->line, s->error_col = st->col;
    return EXEC_ERROR;
}

/* A statement of torch's own modules (written in Python, their lines past
 * TORCH_NN_FIRST_LINE) keeps the place of the script's line that called
 * in, as their errors do. */
static Status exec_statement(Session *s, const Stmt *st) {
    if (!ag_is_anomaly_enabled() || st->line >= TORCH_NN_FIRST_LINE) return hook_failure(s, st, exec_kind(s, st));
    int outer = s->anomaly_line;
    anomaly_place(s, st->line);
    Status r = exec_kind(s, st);
    anomaly_place(s, outer);
    return hook_failure(s, st, r);
}

/* A block's statements, quiet, in order; break, continue and return end it
 * and go up to whoever takes them. */
static Status exec_block(Session *s, const Block *b) {
    /* every nesting of statements comes through here (and calls through
     * eval_expression): the C stack is checked once a block */
    if (b->count && !session_stack_ok(s))
        return exec_fail(s, b->items[0]->line, b->items[0]->col, s->python ? "RecursionError: "
                         "maximum recursion depth exceeded" : "blocks and calls nested too deeply "
                         "for the stack");
    s->quiet++;
    Status r = EXEC_OK;
    for (int i = 0; i < b->count && r == EXEC_OK; i++) r = exec_statement(s, b->items[i]);
    s->quiet--;
    return r;
}

/* The evaluator's call path and operators, for builtins (builtins.h). */
static bool call_for_builtin(Session *s, int line, int col, const Value *fn, const Value *args,
                             int n, Value *out) {
    Value copies[MAX_ARGS];
    *out = value_void(); /* set however the call fails: the builtin releases it */
    bool method = fn->kind == VAL_METHOD && !fn->as.bound->from;
    if (n + method > MAX_ARGS) return session_fail(s, line, col, "too many arguments");
    if (method) value_copy(&fn->as.bound->self, &copies[0]); /* a bound method: self first */
    for (int i = 0; i < n; i++) value_copy(&args[i], &copies[i + method]);
    n += method;
    if (method) fn = &fn->as.bound->func;
    Node at = {.kind = NODE_CALL, .line = line, .col = col};
    if (fn->kind == VAL_INSTANCE || fn->kind == VAL_CLASS) { /* __call__, or a new object */
        Value f, r = value_void();
        bool ok;
        if (fn->kind == VAL_CLASS) return instantiate_with(s, &at, fn, copies, n, out);
        if (!value_getattr(fn, "__call__", 8, &f))
            ok = session_fail(s, line, col, "TypeError: '%s' object is not callable",
                              value_type_name(fn));
        else
            ok = call_for_builtin(s, line, col, &f, copies, n, &r), value_release(&f);
        release_args(copies, n);
        if (ok) *out = r;
        return ok;
    }
    if (fn->kind == VAL_FUNCTION) {
        UserFunc *f = fn->as.function;
        f->refs++;
        Value held = {.kind = VAL_FUNCTION, .as.function = f};
        bool ok = apply_user(s, &at, f, copies, n, NULL, out);
        value_release(&held);
        return ok;
    }
    if (builtin_type_only(fn)) {
        release_args(copies, n);
        return cannot_create(s, at.line, at.col, fn);
    }
    if (fn->kind == VAL_BUILTIN) {
        const Node *nodes[MAX_ARGS];
        for (int i = 0; i < n; i++) nodes[i] = &at;
        const Builtin *b = fn->as.builtin.row, *py = s->python ? builtin_python_variant(b, copies, n, false) : NULL;
        return builtin_call(s, py ? py : b, &(BuiltinArgs){.line = at.line, .col = at.col,
                            .pos = copies, .pos_nodes = nodes, .n = n}, out);
    }
    release_args(copies, n);
    return session_fail(s, at.line, at.col, "TypeError: '%s' object is not callable", value_type_name(fn));
}

static bool binary_for_builtin(Session *s, int line, int col, TokenType op, const Value *a,
                               const Value *b, Value *out) {
    Node at = {.kind = NODE_BINARY, .op = op, .line = line, .col = col};
    return apply_binary(s, &at, op, a, b, out);
}

/* print's and str()'s text of an object whose class has __str__ or
 * __repr__ (repr: __repr__ only); false for the default text. */
static bool object_text(void *ctx, const Value *v, bool repr, StrBuf *out) {
    Session *s = ctx;
    Value m, r;
    if (!value_getattr(v, repr ? "__repr__" : "__str__", repr ? 8 : 7, &m) &&
        (repr || !value_getattr(v, "__repr__", 8, &m)))
        return false;
    bool ok = s->call_value(s, s->error_line, s->error_col, &m, NULL, 0, &r);
    value_release(&m);
    if (ok && r.kind == VAL_STRING) strbuf_appendn(out, r.as.string.text, r.as.string.length);
    else if (ok) ok = false; /* __repr__ returned non-string: the default text */
    value_release(&r);
    return ok;
}

/* value_object_hooks.equal: Python's a == b for a container's compare
 * (its truth). The values are held while the method runs, which may
 * change the container they are in. */
static bool object_equal(void *ctx, const Value *a, const Value *b, bool *out) {
    Session *s = ctx;
    Value x, y, r;
    value_copy(a, &x);
    value_copy(b, &y);
    Node at = {.kind = NODE_BINARY, .op = TOK_EQ};
    bool ok = apply_binary(s, &at, TOK_EQ, &x, &y, &r) && truth(s, &at, &r, out);
    if (ok || r.kind != VAL_VOID) value_release(&r);
    value_release(&x);
    value_release(&y);
    return ok;
}

/* value_object_hooks.hash: the object's __hash__() (an int). */
static bool object_hash(void *ctx, const Value *v, uint64_t *out) {
    Session *s = ctx;
    const Value *method = value_method_of(v, "__hash__", 8);
    Value self, r;
    if (!method) return *out = (uint64_t)(uintptr_t)v->as.object, true;
    value_copy(v, &self);
    bool ok = s->call_value(s, 0, 0, method, &self, 1, &r);
    value_release(&self);
    if (ok && r.kind != VAL_INT && r.kind != VAL_BOOL)
        ok = session_fail(s, 0, 0, "TypeError: __hash__ method should return an integer");
    if (ok) *out = (uint64_t)value_int(&r);
    if (ok || r.kind != VAL_VOID) value_release(&r);
    return ok;
}

/* getattr's and hasattr's obj.NAME (Session.attr_value). */
static bool attr_for_builtin(Session *s, int line, int col, const Value *obj, const char *name,
                             size_t length, Value *out) {
    Node left = {.kind = NODE_NAME, .line = line, .col = col, .as.text = {"object", 6}};
    Node at = {.kind = NODE_ATTR, .line = line, .col = col, .as.text = {name, length},
               .attr_slot = -1, .left = &left};
    Value held;
    value_copy(obj, &held);
    return attr_of(s, &at, held, out);
}

bool eval_statement(Session *s, const Stmt *stmt) {
    value_object_hooks = (ValueObjectHooks){object_equal, object_hash, s};
    s->attr_value = attr_for_builtin;
    s->print.text = object_text;
    s->print.text_ctx = s;
    s->call_value = call_for_builtin;
    s->module_value = module_value_for_builtin;
    s->binary = binary_for_builtin;
    Status r = exec_statement(s, stmt);
    session_note_arena(s);
    if (!s->frame) session_maybe_collect(s);
    return r != EXEC_ERROR;
}
