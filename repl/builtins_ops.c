/*
 * builtins_ops.c — bi_op, the one builtin behind every engine op: it reads
 * the bound arguments by the op's parameter letters (AgOpInfo.params) into
 * an AgOpArgs and makes the op's one engine call. An op added to the
 * engine's table is a builtin with nothing written here.
 */
#include <stdlib.h>
#include <string.h>

#include "builtins.h"

/* Tensors an op's list parameter made from numbers or lists, released
 * after the call. */
typedef struct {
    Tensor **items;
    int count;
    bool *owned; /* items[k] was converted here */
} TensorList;

static void tensor_list_free(TensorList *l) {
    for (int k = 0; l->items && k < l->count; k++)
        if (l->owned[k]) tensor_release(l->items[k]);
    free(l->items);
    free(l->owned);
}

/* Item k of a list argument as a tensor (a number or a nested list
 * converted), into l. */
static bool list_item(Session *s, CallArgs *a, int i, const Value *item, TensorList *l, int k) {
    if (item->kind == VAL_TENSOR) {
        l->items[k] = item->as.tensor;
        return true;
    }
    char why[200];
    l->items[k] = value_to_tensor(item, why, sizeof why);
    l->owned[k] = l->items[k] != NULL;
    if (l->items[k]) return true;
    return arg_error(s, a, i, "item %d of the list: %s", k + 1,
                     why[0] ? why : ag_error());
}

/* The 'L' parameter i (bound as *tensors): one list or tuple of tensors,
 * optionally followed by the dim (stack([a, b], 1), as PyTorch), or the
 * tensors themselves as arguments (stack(a, b)). *dim_given: the dim came
 * positionally, into *dim. */
static bool arg_tensor_list(Session *s, CallArgs *a, int i, TensorList *l, int64_t *dim,
                            bool *dim_given) {
    const char *name = a->b->name;
    bool one_list = a->num_rest >= 1 && a->rest[0].kind == VAL_LIST;
    int count = one_list ? a->rest[0].as.list->count : a->num_rest;
    *dim_given = false;
    if (one_list && a->num_rest > 2)
        return arg_error(s, a, REST(2), "%s takes a list of tensors and a dim", name);
    if (one_list && a->num_rest == 2) {
        if (a->given[i + 1])
            return session_fail(s, a->line, a->col, "%s got two values for 'dim'", name);
        int axis;
        if (!arg_axis(s, a, REST(1), &axis)) return false;
        *dim = axis;
        *dim_given = true;
    }
    /* [] is an empty tensor (a list of numbers is one); one tensor alone is
     * not a list of them (PyTorch refuses it too). */
    bool empty = a->num_rest >= 1 && a->rest[0].kind == VAL_TENSOR &&
                 a->rest[0].as.tensor->ndim == 1 && a->rest[0].as.tensor->numel == 0 &&
                 (a->num_rest == 1 || (a->num_rest == 2 && (a->rest[1].kind == VAL_NUMBER ||
                                                            a->rest[1].kind == VAL_INT)));
    /* cat([], 0): the empty list and a dim */
    if (count == 0 || empty)
        return session_fail(s, a->line, a->col, "%s needs at least one tensor", name);
    if (!one_list && count == 1)
        return arg_error(s, a, REST(0), "%s takes a list of tensors, %s([a, b]), or the "
                         "tensors as arguments, %s(a, b)", name, name, name);
    l->items = calloc((size_t)count, sizeof *l->items);
    l->owned = calloc((size_t)count, sizeof *l->owned);
    if (!l->items || !l->owned) return session_fail(s, a->line, a->col, "out of memory");
    l->count = count;
    for (int k = 0; k < count; k++) {
        bool ok = one_list ? list_item(s, a, REST(0), &a->rest[0].as.list->items[k], l, k)
                           : arg_tensor(s, a, REST(k), &l->items[k]);
        if (!ok) return false;
    }
    return true;
}

/* An integer parameter: a dimension when its name says so ("dim", "dim0",
 * "start_dim"). */
static bool arg_op_int(Session *s, CallArgs *a, int i, int64_t *out) {
    if (strstr(arg_name(a, i), "dim") != NULL) {
        int axis;
        if (!arg_axis(s, a, i, &axis)) return false;
        *out = axis;
        return true;
    }
    return arg_int(s, a, i, arg_name(a, i), INT64_MIN, INT64_MAX, out);
}

/* Reads the arguments by the op's letters into args (tensor lists into l). */
static bool read_op_args(Session *s, CallArgs *a, AgOpArgs *args, TensorList *l) {
    const AgOpInfo *op = a->b->op;
    int nt = 0, nn = 0, ni = 0, nb = 0;
    bool ok = true;
    for (int i = 0; ok && op->params[i]; i++) {
        bool present = arg_present(a, i);
        switch (op->params[i]) {
        case 'T': ok = arg_tensor(s, a, i, &args->t[nt++]); break;
        case 't': ok = !present || arg_tensor(s, a, i, &args->t[nt]); nt++; break;
        case 'n':
            args->has_num[nn] = present;
            ok = !present || arg_number(s, a, i, &args->num[nn]);
            nn++;
            break;
        case 'i':
            args->has_int[ni] = present;
            ok = !present || arg_op_int(s, a, i, &args->ints[ni]);
            ni++;
            break;
        case 'd':
            args->has_dims = present;
            ok = !present || arg_axes(s, a, i, &args->num_dims, args->dims);
            break;
        case 'D': ok = arg_dims(s, a, true, &args->num_dims, args->dims); break;
        case 'P': ok = arg_axis_list(s, a, &args->num_dims, args->dims); break;
        case 'b': ok = arg_bool(s, a, i, &args->flags[nb++]); break;
        case 's': ok = arg_string(s, a, i, &args->str, &args->str_len); break;
        case 'L': {
            bool dim_given;
            ok = arg_tensor_list(s, a, i, l, &args->ints[ni], &dim_given);
            args->list = l->items;
            args->list_len = l->count;
            if (ok && dim_given) { /* the dim parameter, next, is read already */
                args->has_int[ni++] = true;
                i++;
            }
            break;
        }
        default: ok = session_fail(s, a->line, a->col, "%s: no reader for parameter kind '%c'",
                                   op->name, op->params[i]);
        }
    }
    return ok;
}

/* torch.max(x, dim) and min in a .py file: PyTorch's named tuple of the
 * values (r, taken) and the int64 indices. A bool x has them too (PyTorch's
 * max has a bool kernel, its argmax none): found on x as int64. */
static bool values_and_indices(Session *s, CallArgs *a, const AgOpArgs *args, Tensor *r,
                               Value *out) {
    bool max = strcmp(a->b->op->name, "max") == 0;
    Tensor *t = args->t[0];
    Tensor *x = t->dtype == AG_BOOL ? tensor_to(t, AG_INT64) : tensor_detach(t);
    Tensor *i = x ? (max ? tensor_argmax_dim : tensor_argmin_dim)(x, (int)args->ints[0],
                                                                   args->flags[0])
                  : NULL;
    tensor_release(x);
    return values_indices_result(s, a, max ? "torch.return_types.max" : "torch.return_types.min",
                                 r, i, out);
}

/* torch.max(a, b), torch.min(a, b), a.max(b): PyTorch's element-wise
 * forms, torch.maximum's and torch.minimum's. */
static bool extreme_pair(Session *s, CallArgs *a, bool max, Value *out) {
    Tensor *x, *y;
    if (!arg_tensor(s, a, 0, &x) || !arg_tensor(s, a, 1, &y)) return false;
    return result_tensor(s, a, max ? tensor_maximum(x, y) : tensor_minimum(x, y), out);
}

/* softmax(x) or log_softmax(x) with no dim, or dim=None: PyTorch's
 * F.softmax then takes its legacy choice (_get_softmax_dim, with a
 * deprecation warning ag does not print): dim 0 for 0-, 1- and
 * 3-dimensional inputs, else dim 1. */
static bool softmax_dim_implicit(const CallArgs *a) {
    const char *name = a->b->op->name;
    return (strcmp(name, "softmax") == 0 || strcmp(name, "log_softmax") == 0) &&
           (!a->given[1] || a->arg[1].kind == VAL_NONE);
}

BUILTIN(bi_op) {
    const AgOpInfo *op = a->b->op;
    bool extreme = strcmp(op->name, "max") == 0 || strcmp(op->name, "min") == 0;
    if (extreme && a->given[1] && a->arg[1].kind == VAL_TENSOR && !a->given[2])
        return extreme_pair(s, a, op->name[1] == 'a', out);
    AgOpArgs args;
    TensorList list = {0};
    memset(&args, 0, sizeof args);
    bool ok = read_op_args(s, a, &args, &list);
    if (ok && s->python && softmax_dim_implicit(a)) /* F.softmax(x), nn.Softmax()(x) */
        args.ints[0] = args.t[0]->ndim == 0 || args.t[0]->ndim == 1 || args.t[0]->ndim == 3 ? 0 : 1;
    /* The .ag dialect's rule, version 2's: mean(pred == y) is a fraction,
     * where PyTorch asks for (pred == y).float().mean(). */
    Tensor *as_float = NULL;
    /* Class indices are int64 in PyTorch (.py files); the .ag dialect's
     * literals are floats, so there integral floats serve. */
    bool indices = ok && s->python && op->dtype_rule == AG_DTYPE_FIRST && /* nll_loss, cross_entropy */
                   args.t[0] && args.t[1] && args.t[1]->ndim != args.t[0]->ndim &&
                   args.t[1]->dtype != AG_INT64;
    if (indices)
        ok = session_fail(s, a->line, a->col, "RuntimeError: expected scalar type Long but found %s",
                          ag_dtype_scalar_name((AgDtype)args.t[1]->dtype));
    if (ok && !s->python && op->dtype_rule == AG_DTYPE_FLOAT_ONLY && args.t[0] &&
        !ag_dtype_is_floating((AgDtype)args.t[0]->dtype)) {
        as_float = args.t[0] = tensor_to(args.t[0], ag_default_dtype());
        ok = as_float || session_fail(s, a->line, a->col, "%s", ag_error());
    }
    if (ok) {
        Tensor *r = op->unary ? op->unary(args.t[0])
                    : op->binary ? op->binary(args.t[0], args.t[1])
                                 : op->call(&args);
        bool pair = r && s->python && args.has_int[0] &&
                    (strcmp(op->name, "max") == 0 || strcmp(op->name, "min") == 0);
        bool whole = r && r->grad_fn && s->python && !args.has_int[0] &&
                     (strcmp(op->name, "max") == 0 || strcmp(op->name, "min") == 0);
        if (whole) /* PyTorch's names for the reduction over everything */
            r->op_name = r->grad_fn->name = op->name[1] == 'a' ? "MaxBackward1" : "MinBackward1";
        /* pow(2, x) called as a function is PyTorch's pow.Scalar, PowBackward2
         * (the operator 2 ** x goes through __rpow__, which wraps the number:
         * pow.Tensor_Tensor, PowBackward1, tensor_pow's name) */
        if (r && r->grad_fn && strcmp(op->name, "pow") == 0 && args.t[0] &&
            args.t[0]->wrapped_number)
            r->op_name = r->grad_fn->name = "PowBackward2";
        /* clamp with number bounds is PyTorch's clamp (Scalar), ClampBackward1 */
        if (r && r->grad_fn && s->python && strcmp(op->name, "clamp") == 0 &&
            (!args.t[1] || args.t[1]->wrapped_number) && (!args.t[2] || args.t[2]->wrapped_number))
            r->op_name = r->grad_fn->name = "ClampBackward1";
        ok = pair ? values_and_indices(s, a, &args, r, out) : result_tensor(s, a, r, out);
    }
    tensor_release(as_float);
    tensor_list_free(&list);
    return ok;
}
