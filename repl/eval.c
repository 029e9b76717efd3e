/*
 * eval.c — runs statements and evaluates expressions: names (parameters
 * first, then variables), operators (the engine's ops), attributes (.grad,
 * .shape, .T), and calls to builtins and user functions.
 * Recursion follows the tree, whose height the parser bounds; calls are
 * bounded here.
 */
#include "session.h"

#include <string.h>

#include "builtins.h"

/* ======================================================================
 * Statements
 * ====================================================================== */

/* The first call in the tree (below its root when skip_root) to a builtin
 * that returns nothing, or NULL. */
static const Node *void_call(const Node *n, bool skip_root) {
    if (!n) return NULL;
    if (!skip_root && n->kind == NODE_CALL) {
        const Builtin *b = builtin_find(n->as.name.text, n->as.name.length);
        if (b && b->no_value) return n;
    }
    const Node *hit = void_call(n->left, false);
    if (!hit) hit = void_call(n->right, false);
    for (int i = 0; !hit && i < n->num_args; i++) hit = void_call(n->args[i], false);
    return hit;
}

/* A call that returns nothing can only be a statement of its own: refused
 * before anything runs, so that a failed statement changes nothing. */
static bool check_void_calls(Session *s, const Stmt *stmt) {
    const Node *hit = void_call(stmt->expr, stmt->kind == STMT_EXPR);
    if (!hit) return true;
    int len = (int)hit->as.name.length;
    const char *name = hit->as.name.text;
    if (stmt->kind == STMT_ASSIGN && hit == stmt->expr)
        return session_fail(s, hit->line, hit->col, "this call returns nothing to assign");
    if (stmt->kind == STMT_DEF)
        return session_fail(s, hit->line, hit->col, "a function's body must compute a value: "
                            "%.*s(...) cannot be used inside it", len, name);
    return session_fail(s, hit->line, hit->col, "%.*s(...) returns nothing, so it cannot be "
                        "used inside an expression", len, name);
}

bool session_exec(Session *s, const Stmt *stmt) {
    bool ok;
    Value v = {VAL_VOID, NULL, 0, {0}};
    if (!check_void_calls(s, stmt)) return false;
    switch (stmt->kind) {
    case STMT_EXPR:
        ok = session_eval(s, stmt->expr, &v);
        if (ok) session_print_value(s, &v);
        value_release(&v);
        break;
    case STMT_ASSIGN:
        ok = session_eval(s, stmt->expr, &v);
        if (ok) ok = session_bind(s, stmt->name, stmt->name_length, v, stmt->line, stmt->col);
        else value_release(&v);
        break;
    case STMT_DEF:
        ok = session_define(s, stmt);
        break;
    default:
        ok = false;
    }
    session_note_arena(s);
    return ok;
}

/* ======================================================================
 * Values
 * ====================================================================== */

static Value tensor_value(Tensor *t) { return (Value){VAL_TENSOR, t, 0, {0}}; }

/* The engine's result as a value, or its error at the node. */
static bool engine_result(Session *s, const Node *n, Tensor *t, Value *out) {
    if (!t) return session_fail(s, n->line, n->col, "%s", ag_error());
    *out = tensor_value(t);
    return true;
}

/* Describes what a non-tensor value is, for messages. */
static const char *kind_name(ValueKind k) {
    switch (k) {
    case VAL_NONE: return "None";
    case VAL_SHAPE: return "a shape tuple";
    case VAL_VOID: return "nothing (a call that returns no value)";
    default: return "a tensor";
    }
}

/* ======================================================================
 * Names
 * ====================================================================== */

static bool eval_name(Session *s, const Node *n, Value *out) {
    const char *name = n->as.name.text;
    size_t len = n->as.name.length;
    if (s->frame_def)
        for (int i = 0; i < s->frame_def->num_params; i++) {
            const Node *p = s->frame_def->params[i];
            if (p->as.name.length == len && memcmp(p->as.name.text, name, len) == 0) {
                *out = s->frame_args[i];
                if (out->kind == VAL_TENSOR) tensor_retain(out->tensor);
                return true;
            }
        }
    Var *v = session_lookup(s, name, len);
    if (v && v->func)
        return session_fail(s, n->line, n->col, "'%.*s' is a function: call it, as in %.*s(...)",
                            (int)len, name, (int)len, name);
    if (v && s->isolated && v->value.kind == VAL_TENSOR && v->value.tensor->requires_grad)
        /* inside grad/gradcheck only the arguments are differentiated */
        return engine_result(s, n, tensor_detach(v->value.tensor), out);
    if (v) {
        *out = v->value;
        if (out->kind == VAL_TENSOR) tensor_retain(out->tensor);
        return true;
    }
    if (builtin_find(name, len))
        return session_fail(s, n->line, n->col,
                            "'%.*s' is a builtin function: call it, as in %.*s(...)", (int)len,
                            name, (int)len, name);
    const char *near = session_suggest(s, name, len);
    if (near)
        return session_fail(s, n->line, n->col, "unknown name '%.*s' (did you mean '%s'?)",
                            (int)len, name, near);
    return session_fail(s, n->line, n->col, "unknown name '%.*s'", (int)len, name);
}

/* ======================================================================
 * Operators
 * ====================================================================== */

/* Evaluates n, which must give a tensor (what: how to name it). */
static bool eval_tensor(Session *s, const Node *n, const char *what, Tensor **out) {
    Value v;
    if (!session_eval(s, n, &v)) return false;
    if (v.kind != VAL_TENSOR) {
        ValueKind kind = v.kind;
        value_release(&v);
        return session_fail(s, n->line, n->col, "%s is %s, not a tensor%s", what,
                            kind_name(kind), kind == VAL_NONE ? " (no gradient yet?)" : "");
    }
    *out = v.tensor;
    return true;
}

static const char *op_text(TokenType op) {
    switch (op) {
    case TOK_PLUS: return "+";
    case TOK_MINUS: return "-";
    case TOK_STAR: return "*";
    case TOK_SLASH: return "/";
    case TOK_AT: return "@";
    default: return "**";
    }
}

static bool eval_binary(Session *s, const Node *n, Value *out) {
    char what[48];
    snprintf(what, sizeof what, "the left operand of '%s'", op_text(n->op));
    Tensor *a, *b;
    if (!eval_tensor(s, n->left, what, &a)) return false;
    snprintf(what, sizeof what, "the right operand of '%s'", op_text(n->op));
    if (!eval_tensor(s, n->right, what, &b)) {
        tensor_release(a);
        return false;
    }
    Tensor *r;
    switch (n->op) {
    case TOK_PLUS: r = tensor_add(a, b); break;
    case TOK_MINUS: r = tensor_sub(a, b); break;
    case TOK_STAR: r = tensor_mul(a, b); break;
    case TOK_SLASH: r = tensor_div(a, b); break;
    case TOK_AT: r = tensor_matmul(a, b); break;
    default: r = tensor_pow(a, b); break;
    }
    tensor_release(a);
    tensor_release(b);
    return engine_result(s, n, r, out);
}

static bool eval_unary(Session *s, const Node *n, Value *out) {
    Tensor *x;
    if (!eval_tensor(s, n->left, n->op == TOK_MINUS ? "the operand of '-'" : "the operand of '+'",
                     &x))
        return false;
    if (n->op == TOK_PLUS) { /* +x is x itself */
        *out = tensor_value(x);
        return true;
    }
    Tensor *r = tensor_neg(x);
    tensor_release(x);
    return engine_result(s, n, r, out);
}

/* ======================================================================
 * Attributes: x.grad, x.shape, x.T
 * ====================================================================== */

static bool attr_is(const Node *n, const char *name) {
    return n->as.name.length == strlen(name) && memcmp(n->as.name.text, name, n->as.name.length) == 0;
}

/* How to name the object of an attribute in a message: its name if it is one. */
static void object_name(const Node *obj, char *buf, size_t size) {
    if (obj->kind == NODE_NAME)
        snprintf(buf, size, "%.*s", (int)(obj->as.name.length > 40 ? 40 : obj->as.name.length),
                 obj->as.name.text);
    else
        snprintf(buf, size, "this value");
}

static bool attr_grad(Session *s, const Node *n, Tensor *t, Value *out) {
    char who[48];
    object_name(n->left, who, sizeof who);
    if (!tensor_is_leaf(t) && n->left->kind == NODE_NAME)
        return session_fail(s, n->line, n->col,
                            "%s.grad: only leaf tensors keep their gradient, and %s is an "
                            "intermediate result (%s); its gradient is freed during backward",
                            who, who, t->op_name);
    if (!tensor_is_leaf(t))
        return session_fail(s, n->line, n->col,
                            ".grad of an intermediate result (%s): only leaf tensors keep "
                            "their gradient", t->op_name);
    if (!t->grad) {
        *out = (Value){VAL_NONE, NULL, 0, {0}};
        return true;
    }
    *out = tensor_value(tensor_retain(t->grad));
    return true;
}

static bool eval_attr(Session *s, const Node *n, Value *out) {
    Value obj;
    if (!session_eval(s, n->left, &obj)) return false;
    if (obj.kind != VAL_TENSOR) {
        ValueKind kind = obj.kind;
        value_release(&obj);
        return session_fail(s, n->line, n->col, "attribute '.%.*s' of %s: only tensors have "
                            "attributes", (int)n->as.name.length, n->as.name.text,
                            kind_name(kind));
    }
    Tensor *t = obj.tensor;
    bool ok = true;
    if (attr_is(n, "grad")) {
        ok = attr_grad(s, n, t, out);
    } else if (attr_is(n, "shape")) {
        *out = (Value){VAL_SHAPE, NULL, t->ndim, {0}};
        memcpy(out->shape, t->shape, sizeof t->shape);
    } else if (attr_is(n, "T")) {
        /* .T of a 0-d or 1-D tensor is the same values (PyTorch returns a
         * view; ag, which has none, a copy that still carries the graph). */
        ok = engine_result(s, n, t->ndim < 2 ? tensor_reshape(t, t->ndim, t->shape)
                                             : tensor_transpose(t, -2, -1), out);
    } else {
        ok = session_fail(s, n->line, n->col, "unknown attribute '.%.*s' (tensors have .grad, "
                          ".shape and .T)", (int)n->as.name.length, n->as.name.text);
    }
    tensor_release(t);
    return ok;
}

/* ======================================================================
 * Calls
 * ====================================================================== */

static void release_args(Value *args, int n) {
    for (int i = 0; i < n; i++) value_release(&args[i]);
}

/* Evaluates n of call's arguments, from the first-th, into args. */
static bool eval_args(Session *s, const Node *call, int n, Value *args, int first) {
    for (int i = 0; i < n; i++)
        if (!session_eval(s, call->args[first + i], &args[i])) {
            release_args(args, i);
            return false;
        }
    return true;
}

/* An error inside a body is reported where the function was called (the
 * body may be lines away), naming the innermost function it happened in. */
static void blame_call(Session *s, const Node *call, const Stmt *def) {
    s->error_line = call->line;
    s->error_col = call->col;
    if (s->error_in_function) return;
    s->error_in_function = true;
    char inner[sizeof s->error];
    memcpy(inner, s->error, sizeof inner);
    int name_len = def->name_length > 40 ? 40 : (int)def->name_length;
    snprintf(s->error, sizeof s->error, "in %.*s: %.*s", name_len, def->name,
             (int)sizeof s->error - 50, inner);
}

/* Evaluates f's body with its parameters bound to args (n of them). */
static bool apply_user(Session *s, const Node *n, const UserFunc *f, int num_args, Value *args,
                       Value *out) {
    const Stmt *def = f->def;
    if (num_args != def->num_params)
        return session_fail(s, n->line, n->col, "%.*s takes %d argument%s, got %d",
                            (int)def->name_length, def->name, def->num_params,
                            def->num_params == 1 ? "" : "s", num_args);
    if (s->call_depth >= MAX_CALL_DEPTH)
        return session_fail(s, n->line, n->col, "function calls nested more than %d deep "
                            "(runaway recursion?)", MAX_CALL_DEPTH);
    const Stmt *saved_def = s->frame_def;
    Value *saved_args = s->frame_args;
    s->frame_def = def;
    s->frame_args = args;
    s->call_depth++;
    bool ok = session_eval(s, def->expr, out);
    s->call_depth--;
    s->frame_def = saved_def;
    s->frame_args = saved_args;
    if (!ok) blame_call(s, n, def);
    return ok;
}

static bool call_user(Session *s, const Node *n, const UserFunc *f, Value *out) {
    if (n->num_args != f->def->num_params) return apply_user(s, n, f, n->num_args, NULL, out);
    Value args[64];
    if (!eval_args(s, n, n->num_args, args, 0)) return false;
    bool ok = apply_user(s, n, f, n->num_args, args, out);
    release_args(args, n->num_args);
    return ok;
}

/* A trailing bare `grad` argument of a creation builtin is the flag. */
static bool is_grad_flag(const Node *arg) {
    return arg->kind == NODE_NAME && arg->as.name.length == 4 &&
           memcmp(arg->as.name.text, "grad", 4) == 0;
}

/* grad(f, a, ...) and gradcheck(f, ...): f is a name, the rest values. */
static bool call_with_function(Session *s, const Node *n, const Builtin *b, Value *out) {
    if (n->num_args < b->min_args)
        return session_fail(s, n->line, n->col, "%s takes a function and at least one argument: "
                            "%s", b->name, b->signature);
    const Node *f = n->args[0];
    Var *v = f->kind == NODE_NAME ? session_lookup(s, f->as.name.text, f->as.name.length) : NULL;
    const Builtin *fb = f->kind == NODE_NAME ? builtin_find(f->as.name.text, f->as.name.length) : NULL;
    /* A builtin qualifies when it is one of the engine's differentiable ops. */
    if (!(v && v->func) && !(fb && ag_op_rule(fb->name)))
        return session_fail(s, f->line, f->col, "the first argument of %s must name a function "
                            "to differentiate: one you defined (f(x) = ...) or an op such as "
                            "exp", b->name);
    Value args[64];
    if (!eval_args(s, n, n->num_args - 1, args, 1)) return false;
    CallArgs a = {n, args, n->num_args - 1, false};
    *out = (Value){VAL_VOID, NULL, 0, {0}};
    bool ok = b->fn(s, &a, out);
    release_args(args, a.n);
    return ok;
}

bool session_call(Session *s, const Node *call, const Node *fnode, Tensor **targs, int n,
                  Value *out) {
    Value args[64];
    for (int i = 0; i < n; i++) args[i] = tensor_value(targs[i]); /* borrowed */
    Var *v = session_lookup(s, fnode->as.name.text, fnode->as.name.length);
    if (v && v->func) return apply_user(s, call, v->func, n, args, out);
    const Builtin *b = builtin_find(fnode->as.name.text, fnode->as.name.length);
    if (n < b->min_args || (b->max_args >= 0 && n > b->max_args))
        return session_fail(s, call->line, call->col, "%s takes %d to %d arguments, got %d",
                            b->name, b->min_args, b->max_args, n);
    /* A call of the builtin as if written f(a, ...) at the same place. */
    Node as_call = *fnode;
    as_call.kind = NODE_CALL;
    as_call.args = call->args + 1;
    as_call.num_args = n;
    CallArgs a = {&as_call, args, n, false};
    *out = (Value){VAL_VOID, NULL, 0, {0}};
    return b->fn(s, &a, out);
}

static bool call_builtin(Session *s, const Node *n, const Builtin *b, Value *out) {
    CallArgs a = {n, NULL, n->num_args, false};
    if (b->creation && a.n > 0 && is_grad_flag(n->args[a.n - 1])) {
        a.grad = true;
        a.n--;
    }
    if (b->function_first) return call_with_function(s, n, b, out);
    if (a.n < b->min_args || (b->max_args >= 0 && a.n > b->max_args)) {
        char range[48];
        if (b->min_args == b->max_args) snprintf(range, sizeof range, "%d", b->min_args);
        else if (b->max_args < 0) snprintf(range, sizeof range, "at least %d", b->min_args);
        else snprintf(range, sizeof range, "%d to %d", b->min_args, b->max_args);
        return session_fail(s, n->line, n->col, "%s takes %s argument%s, got %d: %s", b->name,
                            range, b->max_args == 1 && b->min_args == 1 ? "" : "s", a.n,
                            b->signature);
    }
    Value args[64];
    if (!eval_args(s, n, a.n, args, 0)) return false;
    a.args = args;
    *out = (Value){VAL_VOID, NULL, 0, {0}};
    bool ok = b->fn(s, &a, out);
    release_args(args, a.n);
    return ok;
}

static bool eval_call(Session *s, const Node *n, Value *out) {
    const char *name = n->as.name.text;
    size_t len = n->as.name.length;
    Var *v = session_lookup(s, name, len);
    if (v && v->func) return call_user(s, n, v->func, out);
    const Builtin *b = builtin_find(name, len);
    if (b) return call_builtin(s, n, b, out);
    if (v) return session_fail(s, n->line, n->col, "'%.*s' is a variable, not a function",
                               (int)len, name);
    const char *near = session_suggest(s, name, len);
    if (near)
        return session_fail(s, n->line, n->col, "unknown function '%.*s' (did you mean '%s'?)",
                            (int)len, name, near);
    return session_fail(s, n->line, n->col, "unknown function '%.*s' (:help lists the builtins)",
                        (int)len, name);
}

/* ======================================================================
 * The evaluator
 * ====================================================================== */

bool session_eval(Session *s, const Node *n, Value *out) {
    *out = (Value){VAL_VOID, NULL, 0, {0}};
    if (session_interrupted) return session_fail(s, n->line, n->col, "interrupted");
    if (s->eval_depth >= MAX_EVAL_DEPTH)
        return session_fail(s, n->line, n->col, "expression too deep to evaluate (calls nest "
                            "more than %d levels)", MAX_EVAL_DEPTH);
    s->eval_depth++;
    bool ok;
    switch (n->kind) {
    case NODE_NUMBER: ok = engine_result(s, n, tensor_scalar(n->as.number), out); break;
    case NODE_LIST:
        ok = engine_result(s, n, tensor_create(n->as.list.ndim, n->as.list.shape,
                                               n->as.list.values, false), out);
        break;
    case NODE_NAME: ok = eval_name(s, n, out); break;
    case NODE_UNARY: ok = eval_unary(s, n, out); break;
    case NODE_BINARY: ok = eval_binary(s, n, out); break;
    case NODE_CALL: ok = eval_call(s, n, out); break;
    case NODE_ATTR: ok = eval_attr(s, n, out); break;
    default: ok = session_fail(s, n->line, n->col, "internal error: unknown node");
    }
    s->eval_depth--;
    return ok;
}
