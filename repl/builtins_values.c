/*
 * builtins_values.c — backward and gradients, values as numbers (item,
 * len, numel), constant copies, and printing (print, set_printoptions).
 */
#include <limits.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "builtins.h"

/* ======================================================================
 * Autograd
 * ====================================================================== */

static BUILTIN(bi_backward) {
    (void)out;
    Tensor *y = NULL, *g = NULL;
    bool retain = false, create = false;
    if (!arg_tensor(s, a, 0, &y) || (arg_present(a, 1) && !arg_tensor(s, a, 1, &g)) ||
        (arg_present(a, 2) && !arg_bool(s, a, 2, &retain)) || !arg_bool(s, a, 3, &create))
        return false;
    if (retain)
        return arg_error(s, a, 2, "ag has no retain_graph: backward frees the graph; run the "
                         "forward again to differentiate again (:help arena)");
    if (create)
        return arg_error(s, a, 3, "ag does not differentiate a backward (no create_graph): "
                         "gradients are constants");
    /* Hold each leaf's current gradient: accumulate_grad then leaves it as
     * it was, so a changed pointer means "received a gradient". */
    Tensor **before = calloc((size_t)s->num_vars + 1, sizeof *before);
    if (!before) return session_fail(s, a->line, a->col, "out of memory");
    for (int i = 0; i < s->num_vars; i++)
        if (s->vars[i].value.kind == VAL_TENSOR)
            before[i] = tensor_retain(s->vars[i].value.as.tensor->grad);
    bool ok = tensor_backward(y, g) == 0;
    if (!ok) /* PyTorch raises every backward failure as a RuntimeError */
        session_set_error(s, a->line, a->col, "%s%s", s->python ? "RuntimeError: " : "", ag_error());
    else if (!s->quiet && !s->python && session_print_grads(s, before) == 0 && s->interactive)
        fprintf(s->out, "note: no variable received a gradient: the leaves this backward "
                        "reached are not bound to names\n");
    for (int i = 0; i < s->num_vars; i++) tensor_release(before[i]);
    free(before);
    return ok;
}

static BUILTIN(bi_zero_grad) {
    (void)out;
    for (int k = 0; k < a->num_rest; k++)
        if (a->rest[k].kind != VAL_TENSOR)
            return arg_error(s, a, REST(k), "expected a tensor, got %s",
                             value_kind_name(&a->rest[k]));
    for (int i = 0; i < a->num_rest; i++) tensor_zero_grad(a->rest[i].as.tensor);
    if (a->num_rest > 0) return true;
    /* every variable: the running call's and those it closes over, and the globals */
    for (Env *e = s->frame ? s->frame->env : NULL; e; e = e->parent)
        for (int i = 0; i < e->num_locals; i++)
            if (e->locals[i].value.kind == VAL_TENSOR) tensor_zero_grad(e->locals[i].value.as.tensor);
    for (int i = 0; i < s->num_vars; i++)
        if (s->vars[i].value.kind == VAL_TENSOR) tensor_zero_grad(s->vars[i].value.as.tensor);
    return true;
}

/* x.requires_grad_(): the flag of a leaf, changed in place (PyTorch's
 * idiom x = torch.arange(4.); x.requires_grad_(True)). */
static BUILTIN(bi_requires_grad_) {
    Tensor *x = NULL;
    bool flag;
    if (!arg_tensor(s, a, 0, &x) || !arg_bool(s, a, 1, &flag)) return false;
    if (tensor_set_requires_grad(x, flag) != 0) return arg_error(s, a, 0, "%s", ag_error());
    *out = value_tensor(tensor_retain(x));
    return true;
}

static BUILTIN(bi_detach) {
    Tensor *x = NULL;
    return arg_tensor(s, a, 0, &x) && result_tensor(s, a, tensor_detach(x), out);
}

/* ======================================================================
 * Numbers
 * ====================================================================== */

BUILTIN(bi_numel) {
    Tensor *x = NULL;
    if (!arg_tensor(s, a, 0, &x)) return false;
    *out = s->python ? (Value){.kind = VAL_INT, .as.integer = x->numel} : value_number((double)x->numel);
    return true;
}

static BUILTIN(bi_item) {
    Tensor *x = NULL;
    if (!arg_tensor(s, a, 0, &x)) return false;
    if (x->numel != 1) {
        char shape[AG_SHAPE_STR_MAX];
        return arg_error(s, a, 0, "item() needs a tensor with one element, not shape %s",
                         tensor_shape_str(x, shape, sizeof shape));
    }
    *out = value_number(x->data[0]);
    return true;
}

/* Python's round: to ndigits decimals (None: to an integer), halves to
 * even, on the exact binary value (as Python's correctly rounded repr:
 * glibc's printf rounds the exact value too). */
BUILTIN(bi_round) {
    double v;
    int64_t digits = 0;
    if (!arg_number(s, a, 0, &v)) return false;
    if (arg_present(a, 1) && !arg_int(s, a, 1, "ndigits", -308, 308, &digits)) return false;
    if (!arg_present(a, 1) || !isfinite(v)) {
        /* + 0.0: an integer, so round(-0.4) is 0, not -0 (Python's int) */
        *out = value_number(isfinite(v) ? nearbyint(v) + 0.0 : v);
        return true;
    }
    char text[700]; /* 309 digits before the point, 308 after, at most */
    if (digits >= 0) {
        snprintf(text, sizeof text, "%.*f", (int)digits, v);
        *out = value_number(strtod(text, NULL));
    } else { /* round(1234.5, -2) = 1200: to a multiple of 10^-digits */
        double scale = pow(10.0, (double)-digits);
        *out = value_number(nearbyint(v / scale) * scale);
    }
    return true;
}

static BUILTIN(bi_len) {
    const Value *v = &a->arg[0];
    if (v->kind == VAL_SHAPE) *out = value_number(v->as.shape->ndim);
    else if (v->kind == VAL_LIST) *out = value_number(v->as.list->count);
    else if (v->kind != VAL_TENSOR) return arg_error(s, a, 0, "len() of %s", value_kind_name(v));
    else if (v->as.tensor->ndim == 0) return arg_error(s, a, 0, "len() of a 0-d tensor");
    else if (s->python) *out = (Value){.kind = VAL_INT, .as.integer = v->as.tensor->shape[0]};
    else *out = value_number((double)v->as.tensor->shape[0]);
    return true;
}

/* ======================================================================
 * Printing
 * ====================================================================== */

/* print's sep= or end=: a string, or None for the default. */
static bool print_text(Session *s, CallArgs *a, int i, const char *fallback, const char **text,
                       size_t *len) {
    const Value *v = &a->arg[i];
    *text = fallback, *len = strlen(fallback);
    if (v->kind == VAL_NONE || v->kind == VAL_VOID) return true;
    if (v->kind != VAL_STRING)
        return arg_error(s, a, i, "TypeError: %s must be None or a string, not %s",
                         i == 1 ? "sep" : "end", value_kind_name(v));
    *text = v->as.string.text, *len = v->as.string.length;
    return true;
}

static BUILTIN(bi_print) {
    (void)out;
    const char *sep, *end;
    size_t sep_len, end_len;
    if (!print_text(s, a, 1, " ", &sep, &sep_len) || !print_text(s, a, 2, "\n", &end, &end_len))
        return false;
    StrBuf sb;
    strbuf_init(&sb);
    for (int i = 0; i < a->num_rest; i++) {
        Value *v = &a->rest[i];
        if (i) strbuf_appendn(&sb, sep, sep_len);
        /* a function that returned nothing prints as None, as in Python */
        Value shown = v->kind == VAL_VOID ? value_none() : *v;
        shown.literal = false; /* print(5) writes 5, as Python */
        value_format(&sb, &shown, &s->print, false);
    }
    strbuf_appendn(&sb, end, end_len);
    fwrite(sb.data, 1, sb.len, s->out);
    strbuf_free(&sb);
    return true;
}

/* One whole-number option in [lo, hi] when given (not None). */
static bool option(Session *s, CallArgs *a, int i, int lo, int64_t hi, int *field) {
    int64_t v = 0;
    if (!arg_present(a, i)) return true;
    if (a->arg[i].kind == VAL_NUMBER && a->arg[i].as.number == 1.0 / 0.0) { /* threshold=inf */
        *field = INT_MAX;
        return true;
    }
    if (!arg_int(s, a, i, "the option", lo, hi, &v)) return false;
    *field = (int)v;
    return true;
}

/* set_printoptions(precision=None, threshold=None, edgeitems=None,
 * linewidth=None, sci_mode=None): as PyTorch, options left None keep their
 * value, except sci_mode, which None sets back to "decide per tensor". */
static BUILTIN(bi_set_printoptions) {
    (void)out;
    PrintOptions o = s->print;
    if (!option(s, a, 0, 0, 40, &o.precision) || !option(s, a, 1, 0, INT_MAX, &o.threshold) ||
        !option(s, a, 2, 1, 1000, &o.edgeitems) || !option(s, a, 3, 1, 100000, &o.linewidth))
        return false;
    bool sci = false;
    if (arg_present(a, 4) && !arg_bool(s, a, 4, &sci)) return false;
    o.sci_mode = arg_present(a, 4) ? sci : -1;
    s->print = o;
    return true;
}

/* ======================================================================
 * Iteration helpers: enumerate and zip, built whole as lists of tuples
 * ====================================================================== */

/* The number of items of argument v (i, or REST(k)), or an error. */
static bool iterable_count(Session *s, CallArgs *a, int i, Value *v, int64_t *count) {
    if (!session_iterable(s, a->line, a->col, v)) return false; /* an object: its __iter__ */
    *count = value_item_count(v);
    if (*count >= 0) return true;
    return arg_error(s, a, i, "TypeError: '%s' object is not iterable",
                     s->python ? value_type_name(v) : value_kind_name(v));
}

/* A tuple of n values (taken) appended to list; false when out of memory. */
static bool append_tuple(ValueList *list, Value *items, int n) {
    ValueList *t = value_list_new(n, true);
    if (!t) {
        for (int i = 0; i < n; i++) value_release(&items[i]);
        return false;
    }
    for (int i = 0; i < n; i++) t->items[i] = items[i];
    return value_list_append(list, (Value){.kind = VAL_LIST, .as.list = t});
}

static bool list_result(Session *s, CallArgs *a, ValueList *l, bool ok, Value *out) {
    Value v = {.kind = VAL_LIST, .as.list = l};
    if (!ok) {
        value_release(&v);
        return s->error[0] ? false : session_fail(s, a->line, a->col, "%s", ag_error());
    }
    *out = v;
    return true;
}

static BUILTIN(bi_enumerate) {
    int64_t count, start = 0;
    if (!iterable_count(s, a, 0, &a->arg[0], &count)) return false;
    if (arg_present(a, 1) && !arg_int(s, a, 1, "start", INT64_MIN / 2, INT64_MAX / 2, &start))
        return false;
    ValueList *l = value_list_new(0, false);
    if (!l) return session_fail(s, a->line, a->col, "out of memory");
    s->error[0] = '\0';
    bool ok = true;
    for (int64_t k = 0; ok && k < count; k++) {
        Value pair[2] = {s->python ? (Value){.kind = VAL_INT, .as.integer = start + k}
                                   : value_number((double)(start + k))};
        ok = value_item(&a->arg[0], k, s->python, &pair[1]) && append_tuple(l, pair, 2);
    }
    return list_result(s, a, l, ok, out);
}

static BUILTIN(bi_zip) {
    int64_t shortest = INT64_MAX;
    for (int i = 0; i < a->num_rest; i++) {
        int64_t n;
        if (!iterable_count(s, a, REST(i), &a->rest[i], &n)) return false;
        if (n < shortest) shortest = n;
    }
    if (a->num_rest == 0) shortest = 0;
    ValueList *l = value_list_new(0, false);
    if (!l) return session_fail(s, a->line, a->col, "out of memory");
    s->error[0] = '\0';
    bool ok = true;
    for (int64_t k = 0; ok && k < shortest; k++) {
        Value items[MAX_ARGS];
        int n = 0;
        while (ok && n < a->num_rest) ok = value_item(&a->rest[n], k, s->python, &items[n]), n += ok;
        if (ok) ok = append_tuple(l, items, n);
        else
            for (int j = 0; j < n; j++) value_release(&items[j]);
    }
    return list_result(s, a, l, ok, out);
}

/* ======================================================================
 * The rows of this file's builtins (builtins.c puts every file's in one
 * list, in :help's order)
 * ====================================================================== */

const Builtin values_builtins[] = {
    {"backward", "backward(tensor, gradient=None, retain_graph=None, create_graph=False)", "differentiates y; prints and accumulates "
     "leaf .grads", "y must hold one element, or gradient (of y's shape) is given: the "
     "vector-Jacobian product; afterwards the graph is freed (:help arena)", bi_backward,
     BI_VOID | BI_METHOD, VAL_VOID, NULL},
    {"zero_grad", "zero_grad(*tensors)", "resets .grad to None (no argument: every variable)",
     NULL, bi_zero_grad, BI_VOID, VAL_VOID, NULL},
    {"requires_grad_", "requires_grad_(input, requires_grad=True)", "makes a leaf require "
     "gradients (or not), and returns it: PyTorch's one in-place method", "only a leaf, one no "
     "op has recorded, can change: the same tensor, not a copy", bi_requires_grad_, BI_METHOD, VAL_VOID, NULL},
    {"detach", "detach(input)", "a constant copy of x (no graph, no grad)", NULL, bi_detach,
     BI_KEEPS_BOOL | BI_METHOD, VAL_VOID, NULL},
    {"numel", "numel(input)", "the number of elements of x", NULL, bi_numel, BI_METHOD, VAL_VOID, NULL},
    {"item", "item(input)", "the value of a one-element tensor, as a number", NULL, bi_item,
     BI_METHOD, VAL_VOID, NULL},
    {"round", "round(number, ndigits=None)", "a number rounded to ndigits decimals (Python's "
     "round: halves to even)", "for printing: print(t, round(loss.item(), 4))", bi_round, 0,
     VAL_VOID, NULL},
    {"len", "len(input)", "the size of the first dimension, as a number", NULL, bi_len, 0, VAL_VOID, NULL},
    {"enumerate", "enumerate(iterable, start=0)", "(index, item) pairs of a list, tuple or "
     "tensor's first axis, as a list", NULL, bi_enumerate, 0, VAL_VOID, NULL},
    {"zip", "zip(*iterables)", "tuples of the i-th items of each argument, as a list (as long "
     "as the shortest)", NULL, bi_zip, 0, VAL_VOID, NULL},
    {"print", "print(*values, sep=None, end=None)", "prints its arguments separated by spaces (or sep), then a newline (or end)", NULL, bi_print,
     BI_VOID, VAL_VOID, NULL},
    {"set_printoptions", "set_printoptions(precision=None, threshold=None, edgeitems=None, "
     "linewidth=None, sci_mode=None)", "how tensors print, as PyTorch's", NULL,
     bi_set_printoptions, BI_VOID, VAL_VOID, NULL},
};
const int num_values_builtins = sizeof values_builtins / sizeof values_builtins[0];
