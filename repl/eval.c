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

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "interrupt.h"

typedef enum { EXEC_OK, EXEC_ERROR, EXEC_BREAK, EXEC_CONTINUE, EXEC_RETURN } Status;

/* Sets the error and gives EXEC_ERROR, for `return exec_fail(...)`. */
#define exec_fail(...) (session_set_error(__VA_ARGS__), EXEC_ERROR)

static Status exec_block(Session *s, const Block *b);
static Status exec_statement(Session *s, const Stmt *st);

/* ======================================================================
 * Values and messages
 * ====================================================================== */

/* The engine's result as a value, or its error at the node. */
static bool engine_result(Session *s, const Node *n, Tensor *t, Value *out) {
    if (!t) return session_fail(s, n->line, n->col, "%s", ag_error());
    *out = value_tensor(t);
    return true;
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
    *out = value_to_tensor(v, why, sizeof why);
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
    bool ok = to_tensor(s, at, v, "the list", &t), boolean = value_all_boolean(v);
    value_release(v);
    if (ok) *v = value_tensor(t);
    if (ok) v->boolean = boolean && !t->requires_grad; /* [True, False] is a mask */
    return ok;
}

/* A condition's truth: one element, non-zero (nan included), as PyTorch's
 * bool(t). */
static bool truth(Session *s, const Node *at, const Value *v, bool *out) {
    char shape[AG_SHAPE_STR_MAX];
    switch (v->kind) {
    case VAL_BOOL: *out = v->as.truth; return true;
    case VAL_NUMBER: *out = v->as.number != 0; return true;
    case VAL_NONE: *out = false; return true;
    case VAL_TENSOR:
        if (v->as.tensor->numel == 1) {
            *out = v->as.tensor->data[0] != 0;
            return true;
        }
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

/* Binds the name n to v (taking it): a local inside a function call, else
 * a global. A list is bound as the tensor it stacks to; strings cannot be. */
static bool bind_name(Session *s, const Node *n, Value v) {
    if (v.kind == VAL_VOID) v = value_none(); /* y = f(1) where f returns nothing */
    if (v.kind == VAL_STRING || v.kind == VAL_GRAD_FN) {
        bool string = v.kind == VAL_STRING;
        const char *kind = value_kind_name(&v);
        value_release(&v);
        return session_fail(s, n->line, n->col, "%s cannot be bound to a name%s", kind,
                            string ? " (strings are only arguments)" : "");
    }
    if (!stacked(s, n, &v)) return false; /* a list is bound as its stack */
    if (s->frame) return frame_bind(s, s->frame, n->as.text.text, n->as.text.length, v, n->line, n->col);
    Var *existing = global_var(s, n);
    if (existing && !existing->func) { /* rebinding a variable: the common case, in loops */
        value_release(&existing->value);
        existing->value = v;
        return true;
    }
    bool new_name = existing == NULL;
    if (!session_bind(s, n->as.text.text, n->as.text.length, v, n->line, n->col)) return false;
    if (new_name && s->interactive && builtin_find(n->as.text.text, n->as.text.length))
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

static bool eval_name(Session *s, const Node *n, Value *out) {
    const char *name = n->as.text.text;
    size_t len = n->as.text.length;
    if (n->torch) {
        if (builtin_find(name, len))
            return session_fail(s, n->line, n->col, "torch.%.*s is a function: call it, as in "
                                "torch.%.*s(...)", name_len(n), name, name_len(n), name);
        return session_fail(s, n->line, n->col, "ag has no torch.%.*s", name_len(n), name);
    }
    Local *l = s->frame ? frame_lookup(s->frame, name, len) : NULL;
    if (l) return value_copy(&l->value, out) || session_fail(s, n->line, n->col, "out of memory");
    Var *v = global_var(s, n);
    if (v && v->func)
        return session_fail(s, n->line, n->col, "'%.*s' is a function: call it, as in %.*s(...)",
                            name_len(n), name, name_len(n), name);
    if (v && s->isolated && v->value.kind == VAL_TENSOR && v->value.as.tensor->requires_grad)
        /* inside grad/gradcheck only the arguments are differentiated */
        return engine_result(s, n, tensor_detach(v->value.as.tensor), out);
    if (v) return value_copy(&v->value, out) || session_fail(s, n->line, n->col, "out of memory");
    if (named_constant(n, out)) return true;
    if (builtin_find(name, len))
        return session_fail(s, n->line, n->col, "'%.*s' is a builtin function: call it, as in "
                            "%.*s(...)", name_len(n), name, name_len(n), name);
    return unknown_name(s, n, "name");
}

/* ======================================================================
 * Literals
 * ====================================================================== */

static bool eval_items(Session *s, Node *const *kids, int n, bool tuple, Value *out) {
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

static bool eval_const(const Node *n, Value *out) {
    *out = n->op == TOK_NONE ? value_none() : value_bool(n->op == TOK_TRUE);
    return true;
}

/* ======================================================================
 * Operators
 * ====================================================================== */

static bool is_comparison(TokenType op) { return op >= TOK_EQ && op <= TOK_GE; }

/* Python's float arithmetic on two numbers (x / 0 is inf or nan: IEEE, not
 * an exception). */
static double number_op(TokenType op, double x, double y) {
    switch (op) {
    case TOK_PLUS: return x + y;
    case TOK_MINUS: return x - y;
    case TOK_STAR: return x * y;
    case TOK_SLASH: return x / y;
    case TOK_SLASHSLASH: return ag_floor_divide(x, y);
    case TOK_PERCENT: return ag_remainder(x, y);
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
    default: return tensor_ge(a, b);
    }
}

/* a op b on two values (borrowed) at node n. */
static bool apply_binary(Session *s, const Node *n, TokenType op, const Value *a, const Value *b,
                         Value *out) {
    if (value_is_scalar(a) && value_is_scalar(b) && op != TOK_AT) {
        double r = number_op(op, value_scalar(a), value_scalar(b));
        if (is_comparison(op)) *out = value_bool(r != 0);
        else *out = value_number(r), out->literal = a->literal && b->literal;
        return true;
    }
    if ((op == TOK_EQ || op == TOK_NE) && (a->kind == VAL_NONE || b->kind == VAL_NONE)) {
        bool same = a->kind == b->kind; /* x.grad == None */
        *out = value_bool(op == TOK_EQ ? same : !same);
        return true;
    }
    Tensor *ta, *tb;
    if (!operand_tensor(s, n->left ? n->left : n, a, NULL, "left", op, &ta)) return false;
    if (!operand_tensor(s, n->right ? n->right : n, b, NULL, "right", op, &tb)) {
        tensor_release(ta);
        return false;
    }
    Tensor *r = tensor_op(op, ta, tb);
    tensor_release(ta);
    tensor_release(tb);
    if (!engine_result(s, n, r, out)) return false;
    out->boolean = is_comparison(op);
    return true;
}

/* a and b, a or b: short-circuit, a boolean. */
static bool eval_logical(Session *s, const Node *n, Value *out) {
    Value v;
    bool t;
    if (!eval_expression(s, n->left, &v)) return false;
    bool ok = truth(s, n->left, &v, &t);
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

static bool eval_unary(Session *s, const Node *n, Value *out) {
    Value v;
    if (!eval_expression(s, n->left, &v)) return false;
    bool ok = true;
    if (n->op == TOK_NOT) {
        bool t = false; /* truth leaves it unset when it fails */
        ok = truth(s, n->left, &v, &t);
        *out = value_bool(!t);
    } else if (value_is_scalar(&v)) {
        double x = value_scalar(&v);
        *out = value_number(n->op == TOK_MINUS ? -x : x);
        out->literal = v.literal;
    } else if (v.kind == VAL_TENSOR && v.boolean && n->op == TOK_MINUS) {
        ok = session_fail(s, n->line, n->col, "'-' of a boolean tensor: to invert a mask write "
                          "1 - m, or compare again (x <= 0 for x > 0)");
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
    if (!tensor_is_leaf(t) && n->left->kind == NODE_NAME) {
        char who[64]; /* named only here: w.grad is read in every training step */
        object_name(n->left, who, sizeof who);
        return session_fail(s, n->line, n->col,
                            "%s.grad: only leaf tensors keep their gradient, and %s is an "
                            "intermediate result (%s); its gradient is freed during backward",
                            who, who, t->op_name);
    }
    if (!tensor_is_leaf(t))
        return session_fail(s, n->line, n->col, ".grad of an intermediate result (%s): only "
                            "leaf tensors keep their gradient", t->op_name);
    *out = t->grad ? value_tensor(tensor_retain(t->grad)) : value_none();
    return true;
}

static bool tensor_attr(Session *s, const Node *n, Tensor *t, Value *out) {
    if (attr_is(n, "grad")) return attr_grad(s, n, t, out);
    if (attr_is(n, "shape")) {
        *out = (Value){.kind = VAL_SHAPE, .as.shape.ndim = t->ndim};
        memcpy(out->as.shape.dims, t->shape, sizeof t->shape);
    } else if (attr_is(n, "T")) {
        /* 0-d and 1-D: the tensor itself, as PyTorch returns it */
        if (t->ndim < 2) *out = value_tensor(tensor_retain(t));
        else return engine_result(s, n, tensor_transpose(t, -2, -1), out);
    } else if (attr_is(n, "ndim")) {
        *out = value_number(t->ndim);
    } else if (attr_is(n, "requires_grad")) {
        *out = value_bool(t->requires_grad);
    } else if (attr_is(n, "is_leaf")) {
        *out = value_bool(tensor_is_leaf(t));
    } else if (attr_is(n, "grad_fn")) {
        *out = t->grad_fn ? (Value){.kind = VAL_GRAD_FN, .as.grad_fn = t->op_name} : value_none();
    } else if (attr_is(n, "data")) {
        return engine_result(s, n, tensor_detach(t), out);
    } else if (attr_is(n, "dtype") || attr_is(n, "device")) {
        return session_fail(s, n->line, n->col, "ag tensors are all float64 on the CPU: there "
                            "is no .%.*s", name_len(n), n->as.text.text);
    } else {
        const Builtin *b = builtin_find(n->as.text.text, n->as.text.length);
        if (b && (b->flags & BI_METHOD))
            return session_fail(s, n->line, n->col, ".%.*s is a method: call it, as in "
                                "x.%.*s()", name_len(n), n->as.text.text, name_len(n),
                                n->as.text.text);
        return session_fail(s, n->line, n->col, "tensors have no attribute '.%.*s' (they have "
                            ".grad .shape .T .ndim .requires_grad .is_leaf .grad_fn .data)",
                            name_len(n), n->as.text.text);
    }
    return true;
}

static bool eval_attr(Session *s, const Node *n, Value *out) {
    Value obj;
    if (n->left->kind == NODE_NAME && !n->left->torch && !s->frame &&
        !global_var(s, n->left) && habit_name(s, n->left))
        return false; /* F.relu, nn.Linear: say what to write */
    if (!eval_expression(s, n->left, &obj) || !stacked(s, n->left, &obj)) return false;
    bool tensor_like = obj.kind == VAL_TENSOR || (obj.kind == VAL_NUMBER && obj.literal);
    if (!tensor_like) {
        bool ok = session_fail(s, n->line, n->col, "attribute '.%.*s' of %s: only tensors have "
                               "attributes", name_len(n), n->as.text.text, value_kind_name(&obj));
        value_release(&obj);
        return ok;
    }
    Tensor *t;
    bool ok = to_tensor(s, n->left, &obj, "the object", &t), obj_boolean = obj.boolean;
    value_release(&obj);
    if (!ok) return false;
    ok = tensor_attr(s, n, t, out);
    tensor_release(t);
    if (ok && out->kind == VAL_TENSOR && (attr_is(n, "T") || attr_is(n, "data")))
        out->boolean = obj_boolean; /* the same elements */
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
               : v->kind == VAL_TENSOR && v->as.tensor->numel == 1 ? v->as.tensor->data[0] : NAN;
    if (x != floor(x) || fabs(x) > 0x1p62)
        return session_fail(s, at->line, at->col, "an index must be an integer, not %s",
                            isnan(x) ? value_kind_name(v) : "a fraction");
    int64_t i = (int64_t)x;
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
    int count;
} IndexItems;

static void index_items_free(IndexItems *ix) {
    for (int i = 0; i < ix->count; i++) value_release(&ix->held[i]);
    ix->count = 0;
}

/* An integer from a number or a one-element tensor (an index, a slice bound). */
static bool index_integer(Session *s, const Node *at, const Value *v, const char *what,
                          int64_t *out) {
    double x = v->kind == VAL_NUMBER ? v->as.number
               : v->kind == VAL_TENSOR && v->as.tensor->numel == 1 ? v->as.tensor->data[0] : NAN;
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

/* v (kept alive by the caller) as an index item. */
static bool index_item(Session *s, const Node *at, Value *v, AgIndex *it) {
    if (v->kind == VAL_LIST && !v->as.list->tuple && !stacked(s, at, v)) return false;
    switch (v->kind) {
    case VAL_NONE: *it = (AgIndex){.kind = AG_INDEX_NEWAXIS}; return true;
    case VAL_NUMBER:
        *it = (AgIndex){.kind = AG_INDEX_INT};
        return index_integer(s, at, v, "an index", &it->index);
    case VAL_TENSOR:
        if (v->boolean) *it = (AgIndex){.kind = AG_INDEX_MASK, .tensor = v->as.tensor};
        else if (v->as.tensor->ndim > 0) *it = (AgIndex){.kind = AG_INDEX_TENSOR, .tensor = v->as.tensor};
        else return *it = (AgIndex){.kind = AG_INDEX_INT}, index_integer(s, at, v, "an index", &it->index);
        return true;
    case VAL_BOOL:
        return session_fail(s, at->line, at->col, "True or False cannot be an index: a mask is "
                            "a boolean tensor, x[x > 0]");
    case VAL_LIST: /* a tuple (a list is a tensor by now) */
        return session_fail(s, at->line, at->col, "a tuple cannot be an index: write its items "
                            "between the brackets, x[0, 1]");
    default:
        return session_fail(s, at->line, at->col, "%s cannot be an index (integers, slices, "
                            "None, integer tensors and masks can)", value_kind_name(v));
    }
}

/* An integer out of range is reported at its own place: its axis is the
 * count of axes the items before it used. */
static bool check_int_items(Session *s, const Node *n, const Tensor *x, const IndexItems *ix) {
    for (int i = 0, axis = 0; i < ix->count; i++) {
        const AgIndex *it = &ix->items[i];
        if (it->kind == AG_INDEX_INT && axis < x->ndim) {
            int64_t size = x->shape[axis];
            if (it->index < -size || it->index >= size)
                return session_fail(s, n->kids[i]->line, n->kids[i]->col, "index %lld is out of "
                                    "range for dimension %d of size %lld", (long long)it->index,
                                    axis, (long long)size);
        }
        axis += it->kind == AG_INDEX_NEWAXIS ? 0
                : it->kind == AG_INDEX_MASK  ? it->tensor->ndim
                                             : 1;
    }
    return true;
}

/* The items of the index node n, applied to x. */
static bool eval_index_items(Session *s, const Node *n, const Tensor *x, IndexItems *ix) {
    ix->count = 0;
    for (int k = 0; k < n->num_kids; k++) {
        const Node *kid = n->kids[k];
        ix->held[k] = value_void();
        ix->count = k + 1;
        bool ok = kid->kind == NODE_SLICE
                      ? eval_slice(s, kid, &ix->items[k])
                      : eval_expression(s, kid, &ix->held[k]) &&
                            index_item(s, kid, &ix->held[k], &ix->items[k]);
        if (!ok) return index_items_free(ix), false;
    }
    if (!check_int_items(s, n, x, ix)) return index_items_free(ix), false;
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

static bool eval_index(Session *s, const Node *n, Value *out) {
    Value obj;
    if (!eval_expression(s, n->left, &obj) || !stacked(s, n->left, &obj)) return false;
    bool ok;
    if (obj.kind == VAL_TENSOR || (obj.kind == VAL_NUMBER && obj.literal)) {
        Tensor *t;
        ok = to_tensor(s, n->left, &obj, "the object", &t);
        if (ok) {
            ok = index_tensor(s, n, t, out);
            tensor_release(t);
        }
        if (ok) out->boolean = obj.boolean; /* a mask's elements are booleans */
    } else if ((obj.kind == VAL_SHAPE || obj.kind == VAL_LIST) && n->num_kids == 1 &&
               n->kids[0]->kind != NODE_SLICE) {
        int64_t size = obj.kind == VAL_SHAPE ? obj.as.shape.ndim : obj.as.list->count, i = 0;
        Value v;
        ok = eval_expression(s, n->kids[0], &v) && index_number(s, n->kids[0], &v, -1, size, &i);
        value_release(&v);
        if (ok && obj.kind == VAL_SHAPE) *out = value_number((double)obj.as.shape.dims[i]);
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
 * body may be lines away), naming the innermost function it happened in. */
static void blame_call(Session *s, const Node *call, const UserFunc *f) {
    s->error_line = call->line;
    s->error_col = call->col;
    if (s->error_in_function) return;
    s->error_in_function = true;
    char inner[sizeof s->error];
    memcpy(inner, s->error, sizeof inner);
    const Node *name = f->def->target;
    snprintf(s->error, sizeof s->error, "in %.*s: %.*s", name_len(name), name->as.text.text,
             (int)sizeof s->error - 80, inner);
}

/* Runs f's body with its parameters bound to args (n of them, taken). */
static bool apply_user(Session *s, const Node *at, const UserFunc *f, Value *args, int n,
                       Value *out) {
    const Stmt *def = f->def;
    const Node *fname = def->target;
    if (n != def->num_params) {
        for (int i = 0; i < n; i++) value_release(&args[i]);
        return session_fail(s, at->line, at->col, "%.*s takes %d argument%s, got %d",
                            name_len(fname), fname->as.text.text, def->num_params,
                            def->num_params == 1 ? "" : "s", n);
    }
    if (s->call_depth >= MAX_CALL_DEPTH) {
        for (int i = 0; i < n; i++) value_release(&args[i]);
        return session_fail(s, at->line, at->col, "runaway recursion: more than %d nested calls "
                            "(does %.*s call itself?)", MAX_CALL_DEPTH, name_len(fname),
                            fname->as.text.text);
    }
    if (!take_step(s, at->line, at->col)) {
        for (int i = 0; i < n; i++) value_release(&args[i]);
        return false;
    }
    Frame frame = {.func = f, .caller = s->frame, .result = value_void()};
    bool ok = true;
    for (int i = 0; i < n; i++) {
        const Node *p = def->params[i];
        if (ok) ok = frame_bind(s, &frame, p->as.text.text, p->as.text.length, args[i], at->line, at->col);
        else value_release(&args[i]);
    }
    s->frame = &frame;
    s->call_depth++;
    if (ok && !def->has_block) {
        ok = eval_expression(s, def->expr, out);
    } else if (ok) {
        s->quiet++;
        Status st = exec_block(s, &def->body);
        s->quiet--;
        ok = st != EXEC_ERROR;
        *out = frame.result;
        frame.result = value_void();
    }
    s->call_depth--;
    s->frame = frame.caller;
    frame_free(&frame);
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
    if (f->user) return apply_user(s, f->at, f->user, copies, n, out);
    return builtin_call(s, f->builtin, f->at->line, f->at->col, copies, nodes, n, NULL, NULL, 0,
                        false, NULL, out);
}

/* The function the first argument of grad or gradcheck names; messages
 * about calling it point at the call. */
static bool function_ref(Session *s, const Builtin *b, const Node *call, const Node *arg,
                         FuncRef *f) {
    memset(f, 0, sizeof *f);
    f->invoke = invoke;
    f->at = call;
    if (arg->kind == NODE_NAME) {
        f->name = arg->as.text.text;
        f->length = arg->as.text.length;
        Var *v = arg->torch ? NULL : global_var(s, arg);
        if (v && v->func) f->user = v->func;
        else if (!v) f->builtin = builtin_find(f->name, f->length);
        if (f->user || (f->builtin && (f->builtin->flags & BI_OP))) return true;
        if (f->builtin && f->builtin->op)
            return session_fail(s, arg->line, arg->col, "%s has no gradient: its result is a "
                                "constant (as in PyTorch)", f->builtin->name);
    }
    return session_fail(s, arg->line, arg->col, "the first argument of %s must name a function "
                        "to differentiate: one you defined (f(x) = ...) or an op such as exp",
                        b->name);
}

/* Whether arg is a name that means a function here: one the user defined,
 * or an engine op that no variable hides (plot(sin, 0, 3)). */
static bool names_function(Session *s, const Node *arg) {
    if (arg->kind != NODE_NAME) return false;
    const Builtin *b = builtin_find(arg->as.text.text, arg->as.text.length);
    if (arg->torch) return b && (b->flags & BI_OP);
    if (s->frame && frame_lookup(s->frame, arg->as.text.text, arg->as.text.length)) return false;
    Var *v = global_var(s, arg);
    return v ? v->func != NULL : b && (b->flags & BI_OP);
}

/* Evaluates a call's arguments into pos (positional; self first for a
 * method call) and kw (keyword), then calls b through builtin_call. */
static bool call_builtin(Session *s, const Node *call, const Builtin *b, Value *self,
                         Value *out) {
    Value pos[MAX_ARGS + 1], kw[MAX_ARGS];
    const Node *pos_nodes[MAX_ARGS + 1], *kw_nodes[MAX_ARGS];
    int np = 0, nk = 0, first = 0;
    bool grad_flag = false, ok = true;
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
        bool keyword = k->kind == NODE_KEYWORD;
        Value *slot = keyword ? &kw[nk] : &pos[np];
        ok = eval_expression(s, keyword ? k->left : k, slot);
        if (!ok) break;
        if (keyword) kw_nodes[nk++] = k;
        else pos_nodes[np++] = k;
    }
    if (!ok) {
        for (int i = 0; i < np; i++) value_release(&pos[i]);
        for (int i = 0; i < nk; i++) value_release(&kw[i]);
        return false;
    }
    return builtin_call(s, b, call->line, call->col, pos, pos_nodes, np, kw, kw_nodes, nk,
                        grad_flag, fref, out);
}

static bool call_user(Session *s, const Node *call, const UserFunc *f, Value *out) {
    Value args[MAX_ARGS];
    if (call->num_positional != call->num_kids)
        return session_fail(s, call->kids[call->num_positional]->line,
                            call->kids[call->num_positional]->col,
                            "functions you define take positional arguments only");
    for (int i = 0; i < call->num_kids; i++)
        if (!eval_expression(s, call->kids[i], &args[i])) {
            for (int j = 0; j < i; j++) value_release(&args[j]);
            return false;
        }
    return apply_user(s, call, f, args, call->num_kids, out);
}

/* x.zero_(), x.add_(y): in-place methods, which ag does not have. True
 * (and the error set) when attr names one. */
static bool in_place_habit(Session *s, const Node *attr) {
    size_t len = attr->as.text.length;
    if (len < 2 || attr->as.text.text[len - 1] != '_' || attr->as.text.text[len - 2] == '_' ||
        builtin_find(attr->as.text.text, len)) /* requires_grad_ is a builtin */
        return false;
    if (len == 5 && memcmp(attr->as.text.text, "zero_", 5) == 0)
        session_set_error(s, attr->line, attr->col + 1, "ag has no in-place operations: to "
                          "reset a gradient write zero_grad(x) or x.grad = None");
    else
        session_set_error(s, attr->line, attr->col + 1, "ag has no in-place operations (%.*s): "
                          "write x = x.%.*s(...) instead; values are never changed in place",
                          name_len(attr), attr->as.text.text, (int)len - 1, attr->as.text.text);
    return true;
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
    bool module = root->torch ? name_is(root, "nn") || name_is(root, "optim")
                              : (name_is(root, "F") || name_is(root, "nn") || name_is(root, "optim")) &&
                                    !(s->frame && frame_lookup(s->frame, root->as.text.text,
                                                               root->as.text.length)) &&
                                    !global_var(s, root);
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

/* x.f(args): the builtin f with x as its first argument. */
static bool call_method(Session *s, const Node *call, Value *out) {
    const Node *attr = call->left;
    const Node *obj = attr->left;
    if (module_habit(s, attr) || in_place_habit(s, attr)) return false;
    const Builtin *b = builtin_find(attr->as.text.text, attr->as.text.length);
    Value self;
    if (!eval_expression(s, obj, &self) || !stacked(s, obj, &self)) return false;
    const Builtin *method = builtin_method(self.kind, attr->as.text.text, attr->as.text.length);
    if (method) return call_builtin(s, call, method, &self, out); /* opt.step() */
    bool tensor_like = self.kind == VAL_TENSOR || (self.kind == VAL_NUMBER && self.literal);
    if (!tensor_like || !b || !(b->flags & BI_METHOD)) {
        bool ok = session_fail(s, attr->line, attr->col + 1, "%s has no method '%.*s'%s",
                               value_kind_name(&self), name_len(attr), attr->as.text.text,
                               tensor_like && b ? " (call it as a function)" : "");
        value_release(&self);
        return ok;
    }
    return call_builtin(s, call, b, &self, out);
}

static bool eval_call(Session *s, const Node *call, Value *out) {
    const Node *callee = call->left;
    if (callee->kind == NODE_ATTR) return call_method(s, call, out);
    const char *name = callee->as.text.text;
    size_t len = callee->as.text.length;
    if (!callee->torch) {
        Local *l = s->frame ? frame_lookup(s->frame, name, len) : NULL;
        Var *v = l ? NULL : global_var(s, callee);
        if (v && v->func) return call_user(s, call, v->func, out);
        if (l || v) {
            bool hides = builtin_find(name, len) != NULL;
            return session_fail(s, callee->line, callee->col, "'%.*s' is a variable, not a "
                                "function%s%.*s%s", name_len(callee), name,
                                hides ? " (it hides the builtin: torch." : "",
                                hides ? name_len(callee) : 0, name, hides ? "(...) calls it)" : "");
        }
    }
    const Builtin *b = builtin_find(name, len);
    if (b) return call_builtin(s, call, b, NULL, out);
    if (callee->torch)
        return session_fail(s, callee->line, callee->col, "ag has no torch.%.*s (:help lists "
                            "the builtins)", name_len(callee), name);
    return unknown_name(s, callee, "function");
}

/* ======================================================================
 * Expressions
 * ====================================================================== */

bool eval_expression(Session *s, const Node *n, Value *out) {
    *out = value_void();
    if (session_interrupted) return session_fail(s, n->line, n->col, "interrupted");
    if (s->eval_depth >= MAX_EVAL_DEPTH)
        return session_fail(s, n->line, n->col, "expression too deep to evaluate (calls nest "
                            "more than %d levels)", MAX_EVAL_DEPTH);
    s->eval_depth++;
    bool ok;
    switch (n->kind) {
    case NODE_NUMBER:
        *out = value_number(n->as.number);
        out->literal = true;
        ok = true;
        break;
    case NODE_STRING:
        *out = (Value){.kind = VAL_STRING, .as.string = {n->as.text.text, n->as.text.length}};
        ok = true;
        break;
    case NODE_CONST: ok = eval_const(n, out); break;
    case NODE_LIST:
        ok = engine_result(s, n, tensor_create(n->as.list.ndim, n->as.list.shape,
                                               n->as.list.values, false), out);
        break;
    case NODE_LIST_EXPR: ok = eval_items(s, n->kids, n->num_kids, false, out); break;
    case NODE_TUPLE: ok = eval_items(s, n->kids, n->num_kids, true, out); break;
    case NODE_NAME: ok = eval_name(s, n, out); break;
    case NODE_UNARY: ok = eval_unary(s, n, out); break;
    case NODE_BINARY: ok = eval_binary(s, n, out); break;
    case NODE_CALL: ok = eval_call(s, n, out); break;
    case NODE_ATTR: ok = eval_attr(s, n, out); break;
    case NODE_INDEX: ok = eval_index(s, n, out); break;
    default: ok = session_fail(s, n->line, n->col, "this cannot stand on its own here");
    }
    s->eval_depth--;
    return ok;
}

/* ======================================================================
 * Calls that return nothing, refused before a statement runs
 * ====================================================================== */

/* The builtin a call node reaches when nothing hides it, or NULL; with no
 * session, the builtin its name names, whatever hides it. */
static const Builtin *static_builtin(Session *s, const Node *call) {
    const Node *c = call->left;
    if (c->kind == NODE_ATTR || !s) return builtin_find(c->as.text.text, c->as.text.length);
    if (!c->torch && ((s->frame && frame_lookup(s->frame, c->as.text.text, c->as.text.length)) ||
                      global_var(s, c)))
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

static Status exec_expr(Session *s, const Stmt *st) {
    Value v;
    if (!check_void_calls(s, st->expr, true, false) || !eval_expression(s, st->expr, &v))
        return EXEC_ERROR;
    if (!s->quiet) {
        if (!stacked(s, st->expr, &v)) return EXEC_ERROR; /* [x, 2*x] prints as its stack */
        session_print_value(s, &v);
    }
    value_release(&v);
    return EXEC_OK;
}

/* NAME.grad = None resets a gradient, as zero_grad(NAME); NAME.grad = g
 * sets it to a copy of g, as in PyTorch. */
static Status assign_attr(Session *s, const Stmt *st) {
    const Node *t = st->target;
    if (!attr_is(t, "grad"))
        return exec_fail(s, t->line, t->col, "only x.grad can be assigned (x.grad = None, or "
                         "a gradient); .%.*s cannot", name_len(t), t->as.text.text);
    Value obj, v;
    if (!eval_expression(s, t->left, &obj)) return EXEC_ERROR;
    bool ok = eval_expression(s, st->expr, &v);
    Tensor *g = NULL;
    if (ok && obj.kind != VAL_TENSOR)
        ok = session_fail(s, t->line, t->col, "%s has no gradient", value_kind_name(&obj));
    if (ok && v.kind != VAL_NONE)
        ok = to_tensor(s, st->expr, &v, "a gradient", &g);
    if (ok && tensor_set_grad(obj.as.tensor, g) != 0) /* None resets it, as zero_grad */
        ok = session_fail(s, t->line, t->col, "%s", ag_error());
    tensor_release(g);
    value_release(&obj);
    value_release(&v);
    return ok ? EXEC_OK : EXEC_ERROR;
}

/* NAME[INDEX] = EXPR (op TOK_ERROR), or with op (+= ...) NAME[INDEX] =
 * NAME[INDEX] op EXPR:
 * NAME is rebound to a copy with those elements replaced. Nothing is
 * recorded; a leaf stays a leaf (requires_grad and .grad kept); a value a
 * recorded op made is refused (ag records no in-place writes). */
static Status assign_index(Session *s, const Stmt *st, TokenType op) {
    const Node *target = st->target, *name = target->left;
    if (name->kind != NODE_NAME || name->torch)
        return exec_fail(s, target->line, target->col, "only a variable's elements can be "
                         "assigned: NAME[...] = value");
    Value old, rhs = value_void(), values = value_void();
    if (!eval_name(s, name, &old)) return EXEC_ERROR;
    Tensor *x = old.kind == VAL_TENSOR ? old.as.tensor : NULL, *fresh = NULL;
    IndexItems ix = {.count = 0};
    bool ok = x || session_fail(s, name->line, name->col, "%.*s is %s: only a tensor's elements "
                                "can be assigned", name_len(name), name->as.text.text,
                                value_kind_name(&old));
    if (ok && x->requires_grad && !tensor_is_leaf(x))
        ok = session_fail(s, target->line, target->col, "%.*s was computed by a recorded op "
                          "(%s): ag does not record in-place writes; compute a new value "
                          "instead (where(mask, a, b) selects elements)", name_len(name),
                          name->as.text.text, x->op_name);
    ok = ok && eval_index_items(s, target, x, &ix) && eval_expression(s, st->expr, &rhs);
    bool was_enabled = ag_set_grad_enabled(false); /* nothing is recorded */
    if (ok && op != TOK_ERROR) { /* the current elements, op the new value */
        Value cur;
        ok = engine_result(s, target, tensor_index(x, ix.items, ix.count), &cur);
        Node op_node = *target;
        op_node.left = st->target, op_node.right = st->expr;
        ok = ok && apply_binary(s, &op_node, op, &cur, &rhs, &values);
        value_release(&cur);
    } else if (ok) {
        values = rhs, rhs = value_void();
    }
    Tensor *v = NULL;
    ok = ok && to_tensor(s, st->expr, &values, "the value", &v);
    if (ok) fresh = tensor_index_put(x, ix.items, ix.count, v);
    ok = ok && (fresh || session_fail(s, target->line, target->col, "%s", ag_error()));
    ag_set_grad_enabled(was_enabled);
    if (ok && x->requires_grad && tensor_inherit(fresh, x) != 0)
        ok = session_fail(s, target->line, target->col, "%s", ag_error());
    Value result = ok ? value_tensor(fresh) : value_void();
    if (ok) result.boolean = old.boolean && value_all_boolean(&values);
    if (!ok) tensor_release(fresh);
    tensor_release(v);
    index_items_free(&ix);
    value_release(&values);
    value_release(&rhs);
    value_release(&old);
    return ok && bind_name(s, name, result) ? EXEC_OK : EXEC_ERROR;
}

static Status exec_assign(Session *s, const Stmt *st) {
    if (st->target->kind == NODE_ATTR) return assign_attr(s, st);
    if (st->target->kind == NODE_INDEX) return assign_index(s, st, TOK_ERROR);
    Value v;
    if (!check_void_calls(s, st->expr, false, true) || !eval_expression(s, st->expr, &v))
        return EXEC_ERROR;
    return bind_name(s, st->target, v) ? EXEC_OK : EXEC_ERROR;
}

/* The value a name holds now (a copy), for NAME op= EXPR. */
static bool current_value(Session *s, const Node *n, Value *out) { return eval_name(s, n, out); }

/* NAME op= EXPR. When NAME holds a leaf that requires grad, the update is
 * not recorded and NAME becomes a fresh leaf that still requires grad and
 * keeps its .grad (gradient descent: w -= lr * w.grad); the old tensor is
 * not changed, so a graph that used it is intact. Otherwise NAME = NAME op
 * EXPR. */
static Status exec_augassign(Session *s, const Stmt *st) {
    if (st->target->kind == NODE_INDEX) return assign_index(s, st, st->op);
    Value old, rhs, r;
    if (!check_void_calls(s, st->expr, false, false) || !current_value(s, st->target, &old))
        return EXEC_ERROR;
    if (!eval_expression(s, st->expr, &rhs)) return value_release(&old), EXEC_ERROR;
    bool leaf = old.kind == VAL_TENSOR && old.as.tensor->requires_grad &&
                tensor_is_leaf(old.as.tensor);
    bool was_enabled = leaf ? ag_set_grad_enabled(false) : true;
    Node op_node = *st->target;
    op_node.left = st->target;
    op_node.right = st->expr;
    bool ok = apply_binary(s, &op_node, st->op, &old, &rhs, &r);
    if (leaf) ag_set_grad_enabled(was_enabled);
    if (ok && leaf) {
        Tensor *fresh = r.kind == VAL_TENSOR ? r.as.tensor : NULL;
        ok = fresh && tensor_inherit(fresh, old.as.tensor) == 0;
        if (!ok) {
            session_set_error(s, st->line, st->col, "%s", ag_error());
            value_release(&r);
        }
    }
    value_release(&old);
    value_release(&rhs);
    return ok && bind_name(s, st->target, r) ? EXEC_OK : EXEC_ERROR;
}

static Status exec_def(Session *s, const Stmt *st) {
    if (s->frame)
        return exec_fail(s, st->line, st->col, "functions are defined at the top level, not "
                            "inside another function");
    if (!st->has_block && !check_void_calls(s, st->expr, false, false)) {
        const Node *hit = void_call(s, st->expr, false);
        return exec_fail(s, hit->line, hit->col, "a function's body must compute a value: "
                            "%.*s(...) cannot be used in f(x) = EXPR (a block body can: "
                            "f(x) { ... })", name_len(hit->left), hit->left->as.text.text);
    }
    return session_define(s, st) ? EXEC_OK : EXEC_ERROR;
}

/* Runs a loop body once; *stop says whether the loop ends here. */
static Status loop_body(Session *s, const Stmt *st, bool *stop) {
    *stop = true;
    if (session_interrupted)
        return exec_fail(s, st->line, st->col, "interrupted");
    if (!take_step(s, st->line, st->col)) return EXEC_ERROR;
    Status r = exec_block(s, &st->body);
    session_note_arena(s); /* a loop that builds graphs says so as it goes */
    if (r == EXEC_BREAK) return EXEC_OK;
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
        v[i] = !ok ? NAN : value_is_scalar(&x) ? value_scalar(&x) : x.as.tensor->data[0];
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
        if (!bind_name(s, st->target, value_number(i))) return EXEC_ERROR;
        Status r = loop_body(s, st, &done);
        if (done) return r;
    }
    return EXEC_OK;
}

/* The k-th item of what a for loop walks over (a new value). */
static bool loop_item(Session *s, const Stmt *st, const Value *over, int64_t k, Value *out) {
    if (over->kind == VAL_SHAPE) *out = value_number((double)over->as.shape.dims[k]);
    else if (over->kind == VAL_LIST) return value_copy(&over->as.list->items[k], out);
    else if (!engine_result(s, st->expr, tensor_select(over->as.tensor, 0, k), out)) return false;
    else out->boolean = over->boolean;
    return true;
}

static Status for_values(Session *s, const Stmt *st) {
    Value over;
    if (!eval_expression(s, st->expr, &over)) return EXEC_ERROR;
    int64_t count = over.kind == VAL_SHAPE ? over.as.shape.ndim
                    : over.kind == VAL_LIST ? over.as.list->count
                    : over.kind == VAL_TENSOR && over.as.tensor->ndim > 0 ? over.as.tensor->shape[0]
                    : -1;
    Status r = EXEC_OK;
    if (count < 0)
        r = exec_fail(s, st->expr->line, st->expr->col, "a for loop walks over range(...), "
                         "a tensor's first dimension, a list or a shape, not %s%s",
                         over.kind == VAL_TENSOR ? "a 0-d tensor" : value_kind_name(&over),
                         value_is_scalar(&over) ? " (write range(n))" : "");
    for (int64_t k = 0; r == EXEC_OK && k < count; k++) {
        Value item;
        bool done;
        if (!loop_item(s, st, &over, k, &item) || !bind_name(s, st->target, item)) {
            r = EXEC_ERROR;
            break;
        }
        r = loop_body(s, st, &done);
        if (done) break;
    }
    value_release(&over);
    return r;
}

/* Whether a for loop's iterable is a call of the builtin range. */
static bool is_range_call(Session *s, const Node *e) {
    if (e->kind != NODE_CALL || e->left->kind != NODE_NAME) return false;
    const Node *c = e->left;
    if (c->as.text.length != 5 || memcmp(c->as.text.text, "range", 5) != 0) return false;
    if (e->num_positional != e->num_kids) return false; /* keywords: the builtin's call */
    return c->torch || !((s->frame && frame_lookup(s->frame, "range", 5)) || global_var(s, c));
}

static Status exec_for(Session *s, const Stmt *st) {
    if (!check_void_calls(s, st->expr, false, false)) return EXEC_ERROR;
    return is_range_call(s, st->expr) ? for_range(s, st) : for_values(s, st);
}

/* The truth of a statement's condition. */
static bool condition(Session *s, const Node *e, bool *out) {
    Value v;
    if (!check_void_calls(s, e, false, false) || !eval_expression(s, e, &v)) return false;
    bool ok = truth(s, e, &v, out);
    value_release(&v);
    return ok;
}

static Status exec_while(Session *s, const Stmt *st) {
    for (;;) {
        bool go, done;
        if (!condition(s, st->expr, &go)) return EXEC_ERROR;
        if (!go) return EXEC_OK;
        Status r = loop_body(s, st, &done);
        if (done) return r;
    }
}

static Status exec_if(Session *s, const Stmt *st) {
    bool go;
    if (!condition(s, st->expr, &go)) return EXEC_ERROR;
    return exec_block(s, go ? &st->body : &st->orelse);
}

static Status exec_no_grad(Session *s, const Stmt *st) {
    bool was = ag_set_grad_enabled(false);
    Status r = exec_block(s, &st->body);
    ag_set_grad_enabled(was);
    return r;
}

static Status exec_return(Session *s, const Stmt *st) {
    if (!st->expr) return EXEC_RETURN;
    Value v;
    if (!check_void_calls(s, st->expr, false, false) || !eval_expression(s, st->expr, &v))
        return EXEC_ERROR;
    value_release(&s->frame->result);
    s->frame->result = v;
    return EXEC_RETURN;
}

static Status exec_import(Session *s, const Stmt *st) {
    (void)st;
    fflush(s->out);
    if (!s->import_noted)
        fprintf(s->err, "note: import lines are ignored: ag's builtins are always there "
                "(torch.NAME works too)\n");
    s->import_noted = true;
    return EXEC_OK;
}

static Status exec_statement(Session *s, const Stmt *st) {
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
    }
    return exec_fail(s, st->line, st->col, "internal error: unknown statement");
}

/* A block's statements, quiet, in order; break, continue and return end it
 * and go up to whoever takes them. */
static Status exec_block(Session *s, const Block *b) {
    s->quiet++;
    Status r = EXEC_OK;
    for (int i = 0; i < b->count && r == EXEC_OK; i++) r = exec_statement(s, b->items[i]);
    s->quiet--;
    return r;
}

bool eval_statement(Session *s, const Stmt *stmt) {
    Status r = exec_statement(s, stmt);
    session_note_arena(s);
    return r != EXEC_ERROR;
}
