/*
 * builtins_optim.c — optimizers in the shell: SGD, Adam, AdamW, RMSprop and
 * Adagrad over a list of variables (opt = Adam([w, b], lr=0.01)), and their
 * methods opt.step() and opt.zero_grad(). The update rules are the engine's
 * (src/optim.c, PyTorch 1.13's bit for bit); here a step reads each
 * variable's tensor, and rebinds the variable to the new leaf the engine
 * returns, as w -= lr * w.grad does. The old tensors are not changed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"

/* ======================================================================
 * Making one
 * ====================================================================== */

/* The names in the params argument: a list written of variable names. */
static bool parameter_names(Session *s, CallArgs *a, Optimizer *o) {
    const Node *list = a->node[0];
    if (list && list->kind == NODE_LIST && list->as.list.count == 0)
        return arg_error(s, a, 0, "optimizer got an empty parameter list");
    if (!list || list->kind != NODE_LIST_EXPR || a->arg[0].kind != VAL_LIST)
        return arg_error(s, a, 0, "params must be a list of variables, as [w, b]");
    if (list->num_kids == 0) return arg_error(s, a, 0, "optimizer got an empty parameter list");
    o->names = calloc((size_t)list->num_kids, sizeof *o->names);
    if (!o->names) return session_fail(s, a->line, a->col, "out of memory");
    for (int i = 0; i < list->num_kids; i++) {
        const Node *n = list->kids[i];
        const Value *v = &a->arg[0].as.list->items[i];
        if (n->kind != NODE_NAME || n->torch)
            return session_fail(s, n->line, n->col, "parameter %d is not a variable: the "
                                "optimizer updates variables, so write their names", i + 1);
        if (v->kind != VAL_TENSOR)
            return session_fail(s, n->line, n->col, "parameter '%.*s' is %s, not a tensor",
                                (int)n->as.text.length, n->as.text.text, value_kind_name(v));
        if (!tensor_is_leaf(v->as.tensor))
            return session_fail(s, n->line, n->col, "can't optimize a non-leaf tensor: '%.*s' "
                                "is the result of %s", (int)n->as.text.length, n->as.text.text,
                                v->as.tensor->op_name);
        for (int j = 0; j < i; j++) /* a step would update it twice (PyTorch warns) */
            if (strlen(o->names[j]) == n->as.text.length &&
                memcmp(o->names[j], n->as.text.text, n->as.text.length) == 0)
                return session_fail(s, n->line, n->col, "parameter %d is '%s' again: list "
                                    "each variable once", i + 1, o->names[j]);
        o->names[i] = strndup(n->as.text.text, n->as.text.length);
        if (!o->names[i]) return session_fail(s, a->line, a->col, "out of memory");
        o->count = i + 1;
    }
    return true;
}

/* A number option, as the signature names it: config field <- argument i. */
static bool number_option(Session *s, CallArgs *a, int i, double *field) {
    return !arg_present(a, i) || arg_number(s, a, i, field);
}

static bool bool_option(Session *s, CallArgs *a, int i, bool *field) {
    return !arg_present(a, i) || arg_bool(s, a, i, field);
}

/* betas=(b1, b2) */
static bool betas_option(Session *s, CallArgs *a, int i, AgOptimConfig *c) {
    const Value *v = &a->arg[i];
    if (v->kind != VAL_LIST || v->as.list->count != 2 || !value_is_scalar(&v->as.list->items[0]) ||
        !value_is_scalar(&v->as.list->items[1]))
        return arg_error(s, a, i, "betas must be a pair of numbers, as (0.9, 0.999)");
    c->beta1 = value_scalar(&v->as.list->items[0]);
    c->beta2 = value_scalar(&v->as.list->items[1]);
    return true;
}

/* The config from the bound arguments, by the kind's signature (the
 * parameter order in builtins.c's rows). */
static bool read_config(Session *s, CallArgs *a, AgOptimKind kind, AgOptimConfig *c) {
    *c = ag_optim_defaults(kind);
    if (!number_option(s, a, 1, &c->lr)) return false;
    if (arg_present(a, 1) && isnan(c->lr)) /* the engine's nan means "not given" (SGD) */
        return arg_error(s, a, 1, "lr is nan: a learning rate must be a number");
    switch (kind) {
    case AG_OPTIM_SGD: /* params, lr, momentum, dampening, weight_decay, nesterov, maximize */
        return number_option(s, a, 2, &c->momentum) && number_option(s, a, 3, &c->dampening) &&
               number_option(s, a, 4, &c->weight_decay) && bool_option(s, a, 5, &c->nesterov) &&
               bool_option(s, a, 6, &c->maximize);
    case AG_OPTIM_ADAM:
    case AG_OPTIM_ADAMW: /* params, lr, betas, eps, weight_decay, amsgrad, maximize */
        return betas_option(s, a, 2, c) && number_option(s, a, 3, &c->eps) &&
               number_option(s, a, 4, &c->weight_decay) && bool_option(s, a, 5, &c->amsgrad) &&
               bool_option(s, a, 6, &c->maximize);
    case AG_OPTIM_RMSPROP: /* params, lr, alpha, eps, weight_decay, momentum, centered, maximize */
        return number_option(s, a, 2, &c->alpha) && number_option(s, a, 3, &c->eps) &&
               number_option(s, a, 4, &c->weight_decay) && number_option(s, a, 5, &c->momentum) &&
               bool_option(s, a, 6, &c->centered) && bool_option(s, a, 7, &c->maximize);
    case AG_OPTIM_ADAGRAD: /* params, lr, lr_decay, weight_decay, initial_accumulator_value, eps, maximize */
        return number_option(s, a, 2, &c->lr_decay) && number_option(s, a, 3, &c->weight_decay) &&
               number_option(s, a, 4, &c->initial_accumulator_value) &&
               number_option(s, a, 5, &c->eps) && bool_option(s, a, 6, &c->maximize);
    }
    return true;
}

static bool make_optimizer(Session *s, CallArgs *a, AgOptimKind kind, Value *out) {
    Optimizer *o = calloc(1, sizeof *o);
    if (!o) return session_fail(s, a->line, a->col, "out of memory");
    o->refs = 1;
    o->kind = kind;
    if (s->frame && (o->env = s->frame->env)) o->env->refs++; /* its w, not a global w */
    bool ok = parameter_names(s, a, o) && read_config(s, a, kind, &o->config);
    if (ok && !(o->engine = ag_optim_new(kind, &o->config, o->count)))
        ok = session_fail(s, a->line, a->col, "%s: %s", ag_optim_name(kind), ag_error());
    if (!ok) {
        optimizer_release(o);
        return false;
    }
    *out = (Value){.kind = VAL_OPTIM, .as.optim = o};
    return true;
}

BUILTIN(bi_sgd) { return make_optimizer(s, a, AG_OPTIM_SGD, out); }
BUILTIN(bi_adam) { return make_optimizer(s, a, AG_OPTIM_ADAM, out); }
BUILTIN(bi_adamw) { return make_optimizer(s, a, AG_OPTIM_ADAMW, out); }
BUILTIN(bi_rmsprop) { return make_optimizer(s, a, AG_OPTIM_RMSPROP, out); }
BUILTIN(bi_adagrad) { return make_optimizer(s, a, AG_OPTIM_ADAGRAD, out); }

/* ======================================================================
 * opt.step(), opt.zero_grad()
 * ====================================================================== */

/* The variable i of the optimizer, holding a tensor: looked up where the
 * optimizer was made (the call's variables, then those it closes over),
 * then among the globals, wherever step() is called. */
static bool parameter_var(Session *s, const CallArgs *a, const Optimizer *o, int i, Value **out) {
    size_t length = strlen(o->names[i]);
    Value *v = NULL;
    for (Env *e = o->env; e && !v; e = e->parent) {
        Local *l = env_lookup(e, o->names[i], length);
        if (l && l->value.kind != VAL_VOID) v = &l->value; /* VOID: deleted */
    }
    if (!v) {
        Var *g = session_lookup(s, o->names[i], length);
        if (g) v = &g->value;
    }
    if (!v || v->kind != VAL_TENSOR)
        return session_fail(s, a->line, a->col, "%s: the variable '%s' no longer holds a tensor",
                            ag_optim_name(o->kind), o->names[i]);
    *out = v;
    return true;
}

BUILTIN(bi_optim_step) {
    (void)out;
    Optimizer *o = a->arg[0].as.optim;
    Tensor **params = calloc((size_t)o->count * 2, sizeof *params);
    Value **vars = calloc((size_t)o->count, sizeof *vars);
    bool ok = params && vars;
    if (!ok) session_set_error(s, a->line, a->col, "out of memory");
    for (int i = 0; ok && i < o->count; i++) {
        ok = parameter_var(s, a, o, i, &vars[i]);
        if (ok) params[i] = vars[i]->as.tensor;
    }
    Tensor **updated = params ? params + o->count : NULL;
    if (ok && ag_optim_step(o->engine, params, updated) != 0)
        ok = session_fail(s, a->line, a->col, "%s", ag_error());
    for (int i = 0; ok && i < o->count; i++) { /* rebind: the old tensors stay as they were */
        value_release(vars[i]);
        *vars[i] = value_tensor(updated[i]);
    }
    free(params);
    free(vars);
    return ok;
}

BUILTIN(bi_optim_zero_grad) {
    (void)out;
    Optimizer *o = a->arg[0].as.optim;
    bool to_none = true;
    if (!arg_bool(s, a, 1, &to_none)) return false;
    Value **vars = calloc((size_t)o->count, sizeof *vars);
    if (!vars) return session_fail(s, a->line, a->col, "out of memory");
    bool ok = true;
    for (int i = 0; ok && i < o->count; i++) ok = parameter_var(s, a, o, i, &vars[i]);
    for (int i = 0; ok && i < o->count; i++) {
        Tensor *t = vars[i]->as.tensor;
        if (to_none || !t->grad) { /* PyTorch leaves a missing gradient missing */
            tensor_zero_grad(t);
            continue;
        }
        Tensor *zeros = tensor_zeros(t->ndim, t->shape, false);
        ok = zeros && tensor_set_grad(t, zeros) == 0;
        tensor_release(zeros);
        if (!ok) session_set_error(s, a->line, a->col, "%s", ag_error());
    }
    free(vars);
    return ok;
}
