/*
 * builtins_create.c — the builtins that make new leaves: tensor, zeros,
 * ones, full, randn, rand, arange, range, eye, linspace; and seed.
 */
#include <math.h>
#include <string.h>

#include "builtins.h"

/* Parameter indices, as in the signatures (builtins.c's table). */
enum { P_DATA = 0 };

/* dtype= and device= of a creation function: ag's tensors are float64 on
 * the CPU (other dtypes come with issue 18's work), so only those pass. */
static bool float64_cpu(Session *s, CallArgs *a) {
    static const char *const names[] = {"dtype", "device"};
    for (int k = 0; k < 2; k++) {
        int i = arg_index(a, names[k]);
        const Value *v = i >= 0 ? &a->arg[i] : NULL;
        if (!v || v->kind == VAL_NONE || v->kind == VAL_VOID) continue;
        const char *name = names[k];
        bool dtype = k == 0, device = k == 1;
        if (dtype && v->kind == VAL_DTYPE && strcmp(v->as.module, "torch.float64") == 0) continue;
        if (device && v->kind == VAL_STRING && v->as.string.length == 3 &&
            memcmp(v->as.string.text, "cpu", 3) == 0)
            continue;
        if (dtype || device) {
            StrBuf text;
            strbuf_init(&text);
            value_format(&text, v, &s->print, true);
            bool ok = arg_error(s, a, i, "ag's tensors are float64 on the CPU for now: %s=%s is "
                                "not supported yet", name, text.data);
            strbuf_free(&text);
            return ok;
        }
    }
    return true;
}

/* A new leaf: requires grad when asked (requires_grad=True or `grad`). */
static bool leaf_result(Session *s, CallArgs *a, int flag, Tensor *t, Value *out) {
    bool requires_grad = false;
    if (t && !float64_cpu(s, a)) {
        tensor_release(t);
        return false;
    }
    if (t && !arg_bool(s, a, flag, &requires_grad)) {
        tensor_release(t);
        return false;
    }
    if (t && requires_grad) tensor_set_requires_grad(t, true);
    return result_tensor(s, a, t, out);
}

/* torch.tensor's data in a .py file: a tensor inside a list is the number it
 * holds (PyTorch converts each with item(); one of more elements is its
 * error). A new list in *out; false with the error set. */
static bool scalars_of(Session *s, CallArgs *a, const Value *v, int depth, Value *out) {
    if (depth > AG_MAX_DIMS) /* deeper than a tensor can be, or a list that holds itself */
        return arg_error(s, a, P_DATA, "ValueError: too many dimensions 'list'");
    if (v->kind == VAL_TENSOR) {
        if (v->as.tensor->numel != 1)
            return arg_error(s, a, P_DATA, "ValueError: only one element tensors can be converted "
                             "to Python scalars");
        *out = value_number(v->as.tensor->data[0]);
        return true;
    }
    if (v->kind != VAL_LIST) return value_copy(v, out);
    ValueList *l = value_list_new(v->as.list->count, false);
    if (!l) return session_fail(s, a->line, a->col, "out of memory");
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    for (int i = 0; i < l->count; i++)
        if (!scalars_of(s, a, &v->as.list->items[i], depth + 1, &l->items[i]))
            return value_release(out), false;
    return true;
}

BUILTIN(bi_tensor) {
    Tensor *t = NULL;
    if (s->python && a->arg[P_DATA].kind == VAL_LIST) {
        Value data;
        if (!scalars_of(s, a, &a->arg[P_DATA], 0, &data)) return false;
        value_release(&a->arg[P_DATA]);
        a->arg[P_DATA] = data;
    }
    const Value *v = &a->arg[P_DATA];
    bool boolean = value_all_boolean(v);
    if (v->kind == VAL_SHAPE) { /* tensor(x.shape): its dimensions */
        double dims[AG_MAX_DIMS];
        for (int i = 0; i < v->as.shape.ndim; i++) dims[i] = (double)v->as.shape.dims[i];
        return leaf_result(s, a, 1, tensor_create(1, (int64_t[]){v->as.shape.ndim}, dims, false),
                           out);
    }
    if (v->kind == VAL_LIST && v->as.list->tuple) { /* tensor((1, 2)): a list of the same items */
        ValueList *l = value_list_new(v->as.list->count, false);
        if (!l) return session_fail(s, a->line, a->col, "out of memory");
        for (int i = 0; i < l->count; i++) value_copy(&v->as.list->items[i], &l->items[i]);
        value_release(&a->arg[P_DATA]);
        a->arg[P_DATA] = (Value){.kind = VAL_LIST, .as.list = l};
    }
    if (!arg_tensor(s, a, P_DATA, &t) || !leaf_result(s, a, 1, tensor_copy(t), out)) return false;
    out->boolean = boolean && !out->as.tensor->requires_grad; /* a mask cannot require grad */
    return true;
}

typedef Tensor *(*Maker)(int ndim, const int64_t *shape, bool requires_grad);

static bool make_shaped(Session *s, CallArgs *a, Maker make, Value *out) {
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    return arg_dims(s, a, false, &ndim, shape) && leaf_result(s, a, 1, make(ndim, shape, false), out);
}

/* zeros_like(x) and the others: the shape of x (a tensor, or anything
 * that converts to one), a new leaf. */
static bool make_like(Session *s, CallArgs *a, Maker make, Value *out) {
    Tensor *like = NULL;
    return arg_tensor(s, a, 0, &like) &&
           leaf_result(s, a, 1, make(like->ndim, like->shape, false), out);
}

BUILTIN(bi_zeros_like) { return make_like(s, a, tensor_zeros, out); }
BUILTIN(bi_ones_like) { return make_like(s, a, tensor_ones, out); }
BUILTIN(bi_randn_like) { return make_like(s, a, tensor_randn, out); }
BUILTIN(bi_rand_like) { return make_like(s, a, tensor_rand, out); }

BUILTIN(bi_zeros) { return make_shaped(s, a, tensor_zeros, out); }
BUILTIN(bi_ones) { return make_shaped(s, a, tensor_ones, out); }
BUILTIN(bi_randn) { return make_shaped(s, a, tensor_randn, out); }
BUILTIN(bi_rand) { return make_shaped(s, a, tensor_rand, out); }

/* full(VALUE, d...) (ag's order) or full(SHAPE, VALUE) (PyTorch's). */
BUILTIN(bi_full) {
    if (a->num_rest == 0)
        return session_fail(s, a->line, a->col, "full needs a value and a shape: full(VALUE, "
                            "d...) or full(SHAPE, VALUE)");
    bool torch_order = a->rest[0].kind == VAL_SHAPE || a->rest[0].kind == VAL_LIST;
    double v;
    if (torch_order && a->num_rest != 2)
        return session_fail(s, a->line, a->col, "full(SHAPE, VALUE) takes two arguments");
    if (!arg_number(s, a, REST(torch_order ? 1 : 0), &v)) return false;
    /* The dimensions are the rest without the value. */
    CallArgs dims = *a;
    dims.num_rest = torch_order ? 1 : a->num_rest - 1;
    if (!torch_order) dims.rest++, dims.rest_node++, dims.rest_first++;
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    return arg_dims(s, &dims, false, &ndim, shape) &&
           leaf_result(s, a, 1, tensor_full(v, ndim, shape, false), out);
}

/* The 1 to 3 numbers of arange or range into start, stop, step. */
static bool range_args(Session *s, CallArgs *a, bool integers, double *start, double *stop,
                       double *step) {
    if (a->num_rest < 1 || a->num_rest > 3)
        return session_fail(s, a->line, a->col, "%s takes 1 to 3 numbers, got %d: %s", a->b->name,
                            a->num_rest, a->b->signature);
    double v[3] = {0, 0, 1};
    for (int k = 0; k < a->num_rest; k++) {
        int64_t n;
        if (integers ? !arg_int(s, a, REST(k), "an argument of range", -(INT64_C(1) << 53),
                                INT64_C(1) << 53, &n)
                     : !arg_number(s, a, REST(k), &v[k]))
            return false;
        if (integers) v[k] = (double)n;
    }
    *start = a->num_rest == 1 ? 0 : v[0];
    *stop = a->num_rest == 1 ? v[0] : v[1];
    *step = a->num_rest == 3 ? v[2] : 1;
    if (*step == 0) return arg_error(s, a, REST(2), "step must not be zero");
    return true;
}

BUILTIN(bi_arange) {
    double start, stop, step;
    return range_args(s, a, false, &start, &stop, &step) &&
           leaf_result(s, a, 1, tensor_arange(start, stop, step), out);
}

BUILTIN(bi_range) {
    double start, stop, step;
    return range_args(s, a, true, &start, &stop, &step) &&
           leaf_result(s, a, 1, tensor_arange(start, stop, step), out);
}

/* eye(n) and eye(n, m): ones on the diagonal of an n x m matrix. */
BUILTIN(bi_eye) {
    int64_t n, m;
    if (!arg_int(s, a, 0, "size", 0, INT64_MAX, &n)) return false;
    if (!arg_present(a, 1)) return leaf_result(s, a, 2, tensor_eye(n), out);
    if (!arg_int(s, a, 1, "m", 0, INT64_MAX, &m)) return false;
    Tensor *t = tensor_zeros(2, (int64_t[]){n, m}, false);
    for (int64_t i = 0; t && i < n && i < m; i++) t->data[i * m + i] = 1;
    return leaf_result(s, a, 2, t, out);
}

BUILTIN(bi_linspace) {
    double start, stop;
    int64_t n;
    return arg_number(s, a, 0, &start) && arg_number(s, a, 1, &stop) &&
           arg_int(s, a, 2, "the number of points", 0, INT64_MAX, &n) &&
           leaf_result(s, a, 3, tensor_linspace(start, stop, n), out);
}

BUILTIN(bi_seed) {
    (void)out;
    int64_t n;
    if (!arg_int(s, a, 0, "the seed", 0, (int64_t)1 << 53, &n)) return false;
    ag_seed((uint64_t)n);
    return true;
}
