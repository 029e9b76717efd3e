/*
 * builtins_create.c — the builtins that make new leaves: tensor, zeros,
 * ones, full, arange, range, eye, linspace; and the random ones (rand,
 * randn, randint, randperm, normal, bernoulli, multinomial), manual_seed
 * and torch.Generator, on the engine's PyTorch-compatible stream.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtins.h"

/* Parameter indices, as in the signatures (builtins.c's table). */
enum { P_DATA = 0 };

/* device= of a creation function: ag's tensors are on the CPU. */
static bool cpu_device(Session *s, CallArgs *a) {
    int i = arg_index(a, "device");
    const Value *v = i >= 0 ? &a->arg[i] : NULL;
    if (!v || v->kind == VAL_NONE || v->kind == VAL_VOID) return true;
    if (v->kind == VAL_STRING && v->as.string.length == 3 && memcmp(v->as.string.text, "cpu", 3) == 0)
        return true;
    StrBuf text;
    strbuf_init(&text);
    value_format(&text, v, &s->print, true);
    bool ok = arg_error(s, a, i, "ag's tensors are on the CPU: device=%s is not supported",
                        text.data);
    strbuf_free(&text);
    return ok;
}

/* dtype= of a creation function, or fallback where it is absent or None. */
static bool creation_dtype(Session *s, CallArgs *a, AgDtype fallback, AgDtype *dtype) {
    int i = arg_index(a, "dtype");
    *dtype = fallback;
    if (i < 0 || !arg_present(a, i) || a->arg[i].kind == VAL_NONE) return true;
    return arg_dtype(s, a, i, dtype);
}

/* A new leaf of t's values as dtype= asks (else as dtype), requiring grad
 * when asked (requires_grad=True or `grad`); flag is requires_grad's
 * index, or -1 for a builtin without it. */
static bool typed_leaf(Session *s, CallArgs *a, int flag, Tensor *t, AgDtype dtype, Value *out) {
    bool requires_grad = false;
    bool ok = t && cpu_device(s, a) && creation_dtype(s, a, dtype, &dtype) &&
              (flag < 0 || arg_bool(s, a, flag, &requires_grad));
    if (ok && requires_grad && !ag_dtype_is_floating(dtype))
        ok = session_fail(s, a->line, a->col, "RuntimeError: Only Tensors of floating point "
                          "and complex dtype can require gradients");
    if (!ok && t) {
        tensor_release(t);
        return false;
    }
    if (t) tensor_set_dtype(t, dtype);
    if (t && requires_grad) tensor_set_requires_grad(t, true);
    return result_tensor(s, a, t, out);
}

/* The same where t's own dtype is the one to keep: a float64 tensor is
 * made the default dtype (the makers make float64). */
static bool leaf_result(Session *s, CallArgs *a, int flag, Tensor *t, Value *out) {
    AgDtype own = t && t->dtype != AG_FLOAT64 ? (AgDtype)t->dtype : ag_default_dtype();
    return typed_leaf(s, a, flag, t, own, out);
}

/* What torch.tensor infers from its data's items (PyTorch's
 * _infer_scalar_type): their types promoted together, a tensor's its own
 * dtype, a Python float the default dtype, an int int64, a bool bool;
 * tensors tells whether any item was a tensor (only then does ag's own
 * inference give way to it). */
typedef struct {
    bool any, tensors;
    AgDtype dtype;
} ItemTypes;

static void item_type(ItemTypes *t, AgDtype d) {
    t->dtype = t->any ? ag_promote_types(t->dtype, d) : d;
    t->any = true;
}

/* torch.tensor's data in a .py file: a tensor inside a list is the number it
 * holds (PyTorch converts each with item(); one of more elements is its
 * error). A new list in *out; false with the error set. */
static bool scalars_of(Session *s, CallArgs *a, const Value *v, int depth, Value *out,
                       ItemTypes *types) {
    if (depth > AG_MAX_DIMS) /* deeper than a tensor can be, or a list that holds itself */
        return arg_error(s, a, P_DATA, "ValueError: too many dimensions 'list'");
    if (v->kind == VAL_TENSOR) {
        if (v->as.tensor->numel != 1)
            return arg_error(s, a, P_DATA, "ValueError: only one element tensors can be converted "
                             "to Python scalars");
        item_type(types, (AgDtype)v->as.tensor->dtype);
        types->tensors = true;
        *out = value_element(v->as.tensor, 0, true);
        return true;
    }
    if (v->kind == VAL_INT) item_type(types, AG_INT64);
    else if (v->kind == VAL_BOOL) item_type(types, AG_BOOL);
    else if (v->kind == VAL_NUMBER) item_type(types, ag_default_dtype());
    if (v->kind != VAL_LIST) return value_copy(v, out);
    ValueList *l = value_list_new(v->as.list->count, false);
    if (!l) return session_fail(s, a->line, a->col, "out of memory");
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    for (int i = 0; i < l->count; i++)
        if (!scalars_of(s, a, &v->as.list->items[i], depth + 1, &l->items[i], types))
            return value_release(out), false;
    return true;
}

BUILTIN(bi_tensor) {
    Tensor *t = NULL;
    ItemTypes types = {0};
    if (s->python && a->arg[P_DATA].kind == VAL_LIST) {
        Value data;
        if (!scalars_of(s, a, &a->arg[P_DATA], 0, &data, &types)) return false;
        value_release(&a->arg[P_DATA]);
        a->arg[P_DATA] = data;
    }
    const Value *v = &a->arg[P_DATA];
    if (v->kind == VAL_SHAPE) { /* tensor(x.shape): its dimensions */
        double dims[AG_MAX_DIMS];
        for (int i = 0; i < v->as.shape->ndim; i++) dims[i] = (double)v->as.shape->dims[i];
        return leaf_result(s, a, 1, tensor_create(1, (int64_t[]){v->as.shape->ndim}, dims, false),
                           out);
    }
    if (v->kind == VAL_LIST && v->as.list->tuple) { /* tensor((1, 2)): a list of the same items */
        ValueList *l = value_list_new(v->as.list->count, false);
        if (!l) return session_fail(s, a->line, a->col, "out of memory");
        for (int i = 0; i < l->count; i++) value_copy(&v->as.list->items[i], &l->items[i]);
        value_release(&a->arg[P_DATA]);
        a->arg[P_DATA] = (Value){.kind = VAL_LIST, .as.list = l};
    }
    if (!arg_tensor(s, a, P_DATA, &t)) return false;
    if (types.tensors) /* torch.tensor([float32 scalars]): float32, as PyTorch infers it */
        return typed_leaf(s, a, 1, tensor_copy(t), types.dtype, out);
    return leaf_result(s, a, 1, tensor_copy(t), out);
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
           typed_leaf(s, a, 1, make(like->ndim, like->shape, false), (AgDtype)like->dtype, out);
}

/* x.new_zeros(*size) and x.new_ones(*size): a new leaf of that shape, of
 * x's dtype unless dtype= says (PyTorch's Tensor.new_zeros). */
static bool make_new(Session *s, CallArgs *a, Maker make, Value *out) {
    Tensor *like = NULL;
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    return arg_tensor(s, a, 0, &like) && arg_dims(s, a, false, &ndim, shape) &&
           typed_leaf(s, a, arg_index(a, "requires_grad"), make(ndim, shape, false),
                      (AgDtype)like->dtype, out);
}

static BUILTIN(bi_new_zeros) { return make_new(s, a, tensor_zeros, out); }
static BUILTIN(bi_new_ones) { return make_new(s, a, tensor_ones, out); }

BUILTIN(bi_zeros_like) { return make_like(s, a, tensor_zeros, out); }
static BUILTIN(bi_ones_like) { return make_like(s, a, tensor_ones, out); }
BUILTIN(bi_zeros) { return make_shaped(s, a, tensor_zeros, out); }
static BUILTIN(bi_ones) { return make_shaped(s, a, tensor_ones, out); }

/* full(VALUE, d...) (ag's order) or full(SHAPE, VALUE) (PyTorch's). */
static BUILTIN(bi_full) {
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
    const Value *value = &a->rest[torch_order ? 1 : 0]; /* an int fills int64, a bool bool */
    AgDtype dtype = value->kind == VAL_INT ? AG_INT64 : value->kind == VAL_BOOL ? AG_BOOL
                                                                               : ag_default_dtype();
    return arg_dims(s, &dims, false, &ndim, shape) &&
           typed_leaf(s, a, 1, tensor_full(v, ndim, shape, false), dtype, out);
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

/* arange of Python ints is int64, as PyTorch's; it has no bool kernel. The
 * dtype is known before the points are: float32's are computed as
 * PyTorch's float32 kernel does. */
/* arange's start, end and step given by keyword (torch.arange(start=0,
 * end=5, step=1), torch.arange(1, end=7, step=3)), with the positional ones
 * before them: *keywords says whether any is; then has[k] whether start,
 * end or step is given, and at[k] its argument (an index, or REST(j)). */
static bool arange_keywords(Session *s, CallArgs *a, bool *keywords, bool has[3], int at[3]) {
    int key[3] = {arg_index(a, "start"), arg_index(a, "end"), arg_index(a, "step")};
    bool given[3];
    for (int k = 0; k < 3; k++) given[k] = key[k] >= 0 && arg_present(a, key[k]);
    *keywords = given[0] || given[1] || given[2];
    if (!*keywords) return true;
    int positional = a->num_rest;
    /* PyTorch's overloads: (end), (start, end), (start, end, step), each by
     * position or keyword */
    if (positional > 2 || (positional == 2 && (given[0] || given[1])) ||
        (positional == 1 && given[0]) || (given[2] && positional + given[0] + given[1] < 2))
        return session_fail(s, a->line, a->col, "TypeError: arange() received an invalid "
                            "combination of arguments");
    has[0] = positional == 2 || (positional == 1 && given[1]), at[0] = REST(0);
    has[1] = positional == 2 || (positional == 1 && !given[1]);
    at[1] = positional == 2 ? REST(1) : REST(0);
    has[2] = false;
    for (int k = 0; k < 3; k++)
        if (given[k]) has[k] = true, at[k] = key[k];
    return has[1] || session_fail(s, a->line, a->col, "TypeError: arange() missing required "
                                  "argument 'end'");
}

static BUILTIN(bi_arange) {
    double start, stop, step, v[3] = {0, 0, 1};
    bool ints = true, keywords, has[3];
    int at[3];
    AgDtype dtype;
    if (!arange_keywords(s, a, &keywords, has, at)) return false;
    for (int k = 0; !keywords && k < a->num_rest; k++) ints = ints && a->rest[k].kind == VAL_INT;
    for (int k = 0; keywords && k < 3; k++) {
        if (!has[k]) continue;
        const Value *x = at[k] >= 0 ? &a->arg[at[k]] : &a->rest[REST(at[k])];
        ints = ints && x->kind == VAL_INT;
        if (!arg_number(s, a, at[k], &v[k])) return false;
    }
    if (keywords && v[2] == 0) return session_fail(s, a->line, a->col, "step must not be zero");
    if (keywords) start = v[0], stop = v[1], step = v[2];
    if (!creation_dtype(s, a, ints ? AG_INT64 : ag_default_dtype(), &dtype)) return false;
    if (dtype == AG_BOOL)
        return session_fail(s, a->line, a->col, "RuntimeError: \"arange_cpu\" not implemented "
                            "for 'Bool'");
    return (keywords || range_args(s, a, false, &start, &stop, &step)) &&
           typed_leaf(s, a, 1, tensor_arange_as(start, stop, step, dtype), dtype, out);
}

static BUILTIN(bi_range) {
    double start, stop, step;
    AgDtype dtype;
    return range_args(s, a, true, &start, &stop, &step) &&
           creation_dtype(s, a, ag_default_dtype(), &dtype) &&
           leaf_result(s, a, 1, tensor_arange_as(start, stop, step, dtype), out);
}

/* eye(n) and eye(n, m): ones on the diagonal of an n x m matrix. */
static BUILTIN(bi_eye) {
    int64_t n, m;
    if (!arg_int(s, a, 0, "size", 0, INT64_MAX, &n)) return false;
    if (!arg_present(a, 1)) return leaf_result(s, a, 2, tensor_eye(n), out);
    if (!arg_int(s, a, 1, "m", 0, INT64_MAX, &m)) return false;
    Tensor *t = tensor_zeros(2, (int64_t[]){n, m}, false);
    for (int64_t i = 0; t && i < n && i < m; i++) tensor_values(t)[i * m + i] = 1;
    return leaf_result(s, a, 2, t, out);
}

static BUILTIN(bi_linspace) {
    double start, stop;
    int64_t n;
    AgDtype dtype;
    return arg_number(s, a, 0, &start) && arg_number(s, a, 1, &stop) &&
           arg_int(s, a, 2, "the number of points", 0, INT64_MAX, &n) &&
           creation_dtype(s, a, ag_default_dtype(), &dtype) &&
           leaf_result(s, a, 3, tensor_linspace_as(start, stop, n, dtype), out);
}


/* ======================================================================
 * Random numbers: the engine's stream (PyTorch's, src/random.c)
 * ====================================================================== */

/* generator=: None for the default stream (NULL), or a torch.Generator. */
static bool arg_generator(Session *s, CallArgs *a, AgGenerator **g) {
    int i = arg_index(a, "generator");
    *g = NULL;
    if (i < 0 || !arg_present(a, i)) return true;
    if (a->arg[i].kind != VAL_GENERATOR)
        return arg_error(s, a, i, "TypeError: generator must be a torch.Generator, not %s",
                         value_type_name(&a->arg[i]));
    *g = a->arg[i].as.generator->engine;
    return true;
}

/* An in-place fill of the engine (uniform_, normal_, bernoulli_ ...) with
 * its two numbers. */
typedef int (*Fill)(Tensor *t, double p, double q, AgGenerator *g);

static int fill_bernoulli(Tensor *t, double p, double q, AgGenerator *g) {
    (void)q;
    return tensor_bernoulli_(t, p, g);
}

/* A new leaf of the shape filled by fill(p, q), from generator= when the
 * builtin takes one; requires grad when asked. */
static bool random_leaf(Session *s, CallArgs *a, int ndim, const int64_t *shape, Fill fill,
                        double p, double q, AgDtype fallback, Value *out) {
    AgGenerator *g;
    AgDtype dtype;
    if (!arg_generator(s, a, &g) || !creation_dtype(s, a, fallback, &dtype)) return false;
    Tensor *t = tensor_zeros(ndim, shape, false);
    if (t && (tensor_set_dtype(t, dtype) != 0 || fill(t, p, q, g) != 0)) { /* drawn as its dtype */
        tensor_release(t);
        return session_fail(s, a->line, a->col, "%s", session_engine_error(s));
    }
    return typed_leaf(s, a, arg_index(a, "requires_grad"), t, dtype, out);
}

static bool random_shaped(Session *s, CallArgs *a, Fill fill, Value *out) {
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    return arg_dims(s, a, false, &ndim, shape) &&
           random_leaf(s, a, ndim, shape, fill, 0, 1, ag_default_dtype(), out);
}

static bool random_like(Session *s, CallArgs *a, Fill fill, Value *out) {
    Tensor *like = NULL;
    return arg_tensor(s, a, 0, &like) &&
           random_leaf(s, a, like->ndim, like->shape, fill, 0, 1, (AgDtype)like->dtype, out);
}

static BUILTIN(bi_rand) { return random_shaped(s, a, tensor_uniform_, out); }
static BUILTIN(bi_randn) { return random_shaped(s, a, tensor_normal_, out); }
static BUILTIN(bi_rand_like) { return random_like(s, a, tensor_uniform_, out); }
static BUILTIN(bi_randn_like) { return random_like(s, a, tensor_normal_, out); }

/* x.uniform_(from, to), x.normal_(mean, std), x.bernoulli_(p): x filled
 * in place from the stream (nn.init's draws), returning x. A tensor that
 * requires grad only under no_grad, as PyTorch. */
static bool fill_in_place(Session *s, CallArgs *a, Fill fill, double p, double q, Value *out) {
    Tensor *t;
    AgGenerator *g;
    if (!arg_tensor(s, a, 0, &t) || !arg_generator(s, a, &g)) return false;
    if (arg_present(a, 1) && !arg_number(s, a, 1, &p)) return false;
    if (arg_index(a, "generator") != 2 && arg_present(a, 2) && !arg_number(s, a, 2, &q))
        return false;
    if (fill(t, p, q, g) != 0)
        return session_fail(s, a->line, a->col, "%s%s", s->python ? "RuntimeError: " : "",
                            ag_error());
    *out = value_tensor(tensor_retain(t));
    return true;
}

static BUILTIN(bi_uniform_) { return fill_in_place(s, a, tensor_uniform_, 0, 1, out); }
static BUILTIN(bi_normal_) { return fill_in_place(s, a, tensor_normal_, 0, 1, out); }
static BUILTIN(bi_bernoulli_) { return fill_in_place(s, a, fill_bernoulli, 0.5, 0, out); }

/* randint's bounds are integers PyTorch takes as int64; ag's values are
 * doubles, exact to 2^53. */
enum { RANDINT_BITS = 53 };

/* The low and high of randint(high, ...) or randint(low, high, ...): the
 * first n of the *args (n is 1 or 2). */
static bool randint_bounds(Session *s, CallArgs *a, int n, int first, int64_t *low,
                           int64_t *high) {
    const int64_t limit = INT64_C(1) << RANDINT_BITS;
    *low = 0;
    if (n == 2 && !arg_int(s, a, first == 0 ? REST(0) : first, "low", -limit, limit, low))
        return false;
    int i = first == 0 ? REST(n - 1) : first + n - 1;
    return arg_int(s, a, i, "high", -limit, limit, high);
}

/* randint(high, size), randint(low, high, size), size= by keyword too. */
static BUILTIN(bi_randint) {
    int size = arg_index(a, "size");
    bool size_given = arg_present(a, size);
    int bounds = a->num_rest - (size_given ? 0 : 1);
    if (bounds < 1 || bounds > 2)
        return session_fail(s, a->line, a->col, "TypeError: randint takes randint(high, size) or "
                            "randint(low, high, size), size a tuple: %s", a->b->signature);
    int64_t low, high;
    if (!randint_bounds(s, a, bounds, 0, &low, &high)) return false;
    CallArgs dims = *a; /* the size alone, as the *args of arg_dims */
    if (size_given) {
        dims.rest = &a->arg[size];
        dims.rest_node = &a->node[size];
        dims.num_rest = 1;
    } else {
        dims.rest += bounds, dims.rest_node += bounds, dims.rest_first += bounds;
        dims.num_rest = 1;
        if (dims.rest[0].kind != VAL_SHAPE && dims.rest[0].kind != VAL_LIST)
            return arg_error(s, a, REST(bounds), "TypeError: randint's size must be a tuple of "
                             "ints, not %s", value_type_name(&dims.rest[0]));
    }
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    if (!arg_dims(s, &dims, false, &ndim, shape)) return false;
    AgGenerator *g;
    AgDtype dtype;
    if (!arg_generator(s, a, &g) || !creation_dtype(s, a, AG_INT64, &dtype)) return false;
    Tensor *t = tensor_zeros(ndim, shape, false);
    if (t) tensor_set_dtype(t, dtype);
    if (t && tensor_random_(t, low, high, g) != 0) tensor_release(t), t = NULL;
    return typed_leaf(s, a, arg_index(a, "requires_grad"), t, dtype, out);
}

/* randint_like(input, high) or randint_like(input, low, high). */
static BUILTIN(bi_randint_like) {
    Tensor *like = NULL;
    if (!arg_tensor(s, a, 0, &like)) return false;
    if (a->num_rest < 1 || a->num_rest > 2)
        return session_fail(s, a->line, a->col, "TypeError: randint_like takes (input, high) or "
                            "(input, low, high): %s", a->b->signature);
    int64_t low, high;
    if (!randint_bounds(s, a, a->num_rest, 0, &low, &high)) return false;
    Tensor *t = tensor_zeros(like->ndim, like->shape, false);
    if (t) tensor_set_dtype(t, (AgDtype)like->dtype);
    if (t && tensor_random_(t, low, high, NULL) != 0) tensor_release(t), t = NULL;
    return typed_leaf(s, a, arg_index(a, "requires_grad"), t, (AgDtype)like->dtype, out);
}

static BUILTIN(bi_randperm) {
    int64_t n;
    AgGenerator *g;
    return arg_int(s, a, 0, "n", 0, INT64_C(1) << RANDINT_BITS, &n) && arg_generator(s, a, &g) &&
           leaf_result(s, a, arg_index(a, "requires_grad"), tensor_randperm(n, g), out);
}

/* normal(mean, std, size) of numbers; or a tensor mean or std (or both),
 * whose shape the result takes: N(0, std) + mean for a tensor mean and a
 * number std, else N(0, 1) * std + mean, as PyTorch computes each. */
static BUILTIN(bi_normal) {
    enum { P_MEAN = 0, P_STD = 1, P_SIZE = 2 };
    bool mean_tensor = a->arg[P_MEAN].kind == VAL_TENSOR, std_tensor = a->arg[P_STD].kind == VAL_TENSOR;
    if (!mean_tensor && !std_tensor) {
        double mean, std;
        int ndim;
        int64_t shape[AG_MAX_DIMS];
        if (!arg_number(s, a, P_MEAN, &mean) || !arg_number(s, a, P_STD, &std)) return false;
        if (!arg_present(a, P_SIZE))
            return session_fail(s, a->line, a->col, "TypeError: normal of a number mean and std "
                                "needs size=: normal(mean, std, size)");
        CallArgs dims = *a;
        dims.rest = &a->arg[P_SIZE], dims.rest_node = &a->node[P_SIZE], dims.num_rest = 1;
        return arg_dims(s, &dims, false, &ndim, shape) &&
               random_leaf(s, a, ndim, shape, tensor_normal_, mean, std, ag_default_dtype(), out);
    }
    if (arg_present(a, P_SIZE))
        return arg_error(s, a, P_SIZE, "TypeError: normal takes size= only with a number mean "
                         "and std");
    Tensor *mean = NULL, *std = NULL;
    double std_number = 1;
    AgGenerator *g;
    if (!arg_tensor(s, a, P_MEAN, &mean) || !arg_generator(s, a, &g)) return false;
    if (std_tensor ? !arg_tensor(s, a, P_STD, &std) : !arg_number(s, a, P_STD, &std_number))
        return false;
    for (int64_t i = 0; std && i < std->numel; i++)
        if (!(tensor_values(std)[i] >= 0))
            return arg_error(s, a, P_STD, "RuntimeError: normal expects all elements of std "
                             ">= 0.0");
    /* The draws take the broadcast shape of mean and std, then scale and shift. */
    Tensor *shape_of = std ? tensor_add(mean, std) : tensor_detach(mean);
    Tensor *t = shape_of ? tensor_zeros(shape_of->ndim, shape_of->shape, false) : NULL;
    tensor_release(shape_of);
    Tensor *scaled = NULL, *result = NULL;
    if (t && tensor_normal_(t, 0, std ? 1 : std_number, g) == 0) {
        scaled = std ? tensor_mul(t, std) : tensor_retain(t);
        result = scaled ? tensor_add(scaled, mean) : NULL;
    }
    tensor_release(t);
    tensor_release(scaled);
    Tensor *leaf = result ? tensor_detach(result) : NULL;
    tensor_release(result);
    return leaf_result(s, a, arg_index(a, "requires_grad"), leaf, out);
}

/* bernoulli(input): 1 with each element's probability; bernoulli(input, p):
 * with p, in input's shape. */
static BUILTIN(bi_bernoulli) {
    Tensor *x = NULL;
    AgGenerator *g;
    if (!arg_tensor(s, a, 0, &x) || !arg_generator(s, a, &g)) return false;
    if (!arg_present(a, 1)) return result_tensor(s, a, tensor_bernoulli(x, g), out);
    double p;
    return arg_number(s, a, 1, &p) && random_leaf(s, a, x->ndim, x->shape, fill_bernoulli, p, 0,
                                                   (AgDtype)x->dtype, out);
}

static BUILTIN(bi_multinomial) {
    Tensor *p = NULL;
    int64_t n;
    bool replacement;
    AgGenerator *g;
    return arg_tensor(s, a, 0, &p) && arg_int(s, a, 1, "num_samples", INT64_MIN, INT64_MAX, &n) &&
           arg_bool(s, a, 2, &replacement) && arg_generator(s, a, &g) &&
           result_tensor(s, a, tensor_multinomial(p, n, replacement, g), out);
}

/* A seed as PyTorch takes one: any int, negative ones taken mod 2^64
 * (manual_seed(-1) is 2^64 - 1). */
static bool seed_arg(Session *s, CallArgs *a, int i, uint64_t *seed) {
    if (a->arg[i].kind == VAL_INT) {
        *seed = (uint64_t)a->arg[i].as.integer;
        return true;
    }
    int64_t n;
    if (!arg_int(s, a, i, "the seed", INT64_MIN, INT64_MAX, &n)) return false;
    *seed = (uint64_t)n;
    return true;
}

/* A seed as a Python int: one above 2^63 (a negative seed's) as a float. */
static Value seed_value(uint64_t seed) {
    if (seed > (uint64_t)INT64_MAX) return value_number((double)seed);
    return (Value){.kind = VAL_INT, .as.integer = (int64_t)seed};
}

/* A seed no run repeats (torch.seed()'s): the system's random bytes, or
 * the clock where there are none; below 2^63, so that it is a Python int
 * of ag's (PyTorch's may be any 64-bit number). */
static uint64_t fresh_seed(void) {
    uint64_t seed = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    bool read = f && fread(&seed, sizeof seed, 1, f) == 1;
    if (f) fclose(f);
    if (!read) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec;
    }
    return seed & (uint64_t)INT64_MAX;
}

/* seed(n) and manual_seed(n) restart the stream from n; torch.seed()
 * (no n) from a fresh seed, which it gives back. */
static BUILTIN(bi_seed) {
    uint64_t seed;
    bool given = arg_present(a, 0);
    if (given && !seed_arg(s, a, 0, &seed)) return false;
    if (!given) seed = fresh_seed();
    ag_seed(seed);
    *out = given ? value_void() : seed_value(seed);
    return true;
}

/* set_num_threads(n) (torch.set_num_threads): the threads large kernels
 * may use, PyTorch's checks and words; in .ag a whole number will do. */
static BUILTIN(bi_set_num_threads) {
    const Value *v = &a->arg[0];
    *out = value_void();
    bool whole = v->kind == VAL_NUMBER && !s->python && v->as.number == floor(v->as.number);
    if (v->kind != VAL_INT && !whole)
        return arg_error(s, a, 0, "%sset_num_threads expects an int, but got %s",
                         s->python ? "RuntimeError: " : "", value_type_name(v));
    double n = v->kind == VAL_INT ? (double)v->as.integer : v->as.number;
    if (ag_set_num_threads(n < 1 ? 0 : n > 1e6 ? 1000000 : (int)n) != 0)
        return arg_error(s, a, 0, "%s%s", s->python ? "RuntimeError: " : "", ag_error());
    return true;
}

static BUILTIN(bi_get_num_threads) {
    (void)s, (void)a;
    *out = (Value){.kind = VAL_INT, .as.integer = ag_get_num_threads()};
    return true;
}

static BUILTIN(bi_initial_seed) {
    (void)s, (void)a;
    *out = seed_value(ag_generator_initial_seed(NULL));
    return true;
}

/* torch._random_int64(generator=None): the int that PyTorch's
 * torch.empty((), dtype=torch.int64).random_(generator=g).item() draws
 * (DataLoader's seeds: torch_nn.c), until ag has int64 tensors. */
static BUILTIN(bi_random_int64) {
    AgGenerator *g;
    if (!arg_generator(s, a, &g)) return false;
    *out = (Value){.kind = VAL_INT, .as.integer = ag_generator_random_int64(g)};
    return true;
}

static BUILTIN(bi_generator) {
    static const char *const cpu = "cpu";
    const char *device;
    size_t length;
    if (arg_present(a, 0) && (!arg_string(s, a, 0, &device, &length) || length != 3 ||
                              memcmp(device, cpu, 3) != 0))
        return arg_error(s, a, 0, "ag's generators are on the CPU: device='cpu'");
    Generator *g = malloc(sizeof *g);
    AgGenerator *engine = g ? ag_generator_new() : NULL;
    if (!engine) {
        free(g);
        return session_fail(s, a->line, a->col, "MemoryError");
    }
    *g = (Generator){.refs = 1, .engine = engine};
    *out = (Value){.kind = VAL_GENERATOR, .as.generator = g};
    return true;
}

/* g.manual_seed(s): reseeds g and gives g back (PyTorch's, for chaining). */
static BUILTIN(bi_generator_manual_seed) {
    uint64_t seed;
    if (!seed_arg(s, a, 1, &seed)) return false;
    ag_generator_manual_seed(a->arg[0].as.generator->engine, seed);
    return value_copy(&a->arg[0], out);
}

static BUILTIN(bi_generator_initial_seed) {
    (void)s;
    *out = seed_value(ag_generator_initial_seed(a->arg[0].as.generator->engine));
    return true;
}

/* ======================================================================
 * The rows of this file's builtins (builtins.c puts every file's in one
 * list, in :help's order)
 * ====================================================================== */

const Builtin create_builtins[] = {
    {"tensor", "tensor(data, requires_grad=False, dtype=None, device=None)", "a new leaf holding a copy of the value", NULL,
     bi_tensor, BI_CREATION, VAL_VOID, NULL},
    {"zeros", "zeros(*size, requires_grad=False, dtype=None, device=None)", "a new leaf of zeros of shape (d...)", NULL,
     bi_zeros, BI_CREATION, VAL_VOID, NULL},
    {"ones", "ones(*size, requires_grad=False, dtype=None, device=None)", "a new leaf of ones of shape (d...)", NULL,
     bi_ones, BI_CREATION, VAL_VOID, NULL},
    {"full", "full(*args, requires_grad=False, dtype=None, device=None)", "a new leaf filled with VALUE: full(VALUE, d...) or "
     "full(SHAPE, VALUE)", NULL, bi_full, BI_CREATION, VAL_VOID, NULL},
    {"new_zeros", "new_zeros(input, *size, dtype=None, device=None, requires_grad=False)",
     "zeros of x's dtype (x.new_zeros(2, 3))", NULL, bi_new_zeros, BI_METHOD, VAL_VOID, NULL},
    {"new_ones", "new_ones(input, *size, dtype=None, device=None, requires_grad=False)",
     "ones of x's dtype", NULL, bi_new_ones, BI_METHOD, VAL_VOID, NULL},
    {"zeros_like", "zeros_like(input, requires_grad=False, dtype=None, device=None)", "zeros in the shape of x", NULL,
     bi_zeros_like, BI_CREATION, VAL_VOID, NULL},
    {"ones_like", "ones_like(input, requires_grad=False, dtype=None, device=None)", "ones in the shape of x", NULL,
     bi_ones_like, BI_CREATION, VAL_VOID, NULL},
    {"randn", "randn(*size, requires_grad=False, dtype=None, device=None, generator=None)", "normal random numbers "
     "(mean 0, variance 1), PyTorch's for the same seed", NULL, bi_randn, BI_CREATION, VAL_VOID, NULL},
    {"rand", "rand(*size, requires_grad=False, dtype=None, device=None, generator=None)", "uniform random numbers in "
     "[0, 1), PyTorch's for the same seed", NULL, bi_rand, BI_CREATION, VAL_VOID, NULL},
    {"randn_like", "randn_like(input, requires_grad=False, dtype=None, device=None)", "normal random numbers in the shape "
     "of x", NULL, bi_randn_like, BI_CREATION, VAL_VOID, NULL},
    {"rand_like", "rand_like(input, requires_grad=False, dtype=None, device=None)", "uniform random numbers in [0, 1) in "
     "the shape of x", NULL, bi_rand_like, BI_CREATION, VAL_VOID, NULL},
    {"randint", "randint(*args, size=None, requires_grad=False, dtype=None, device=None, generator=None)",
     "random integers in [low, high): randint(high, size) or randint(low, high, size)", "the integers are "
     "float64 values (PyTorch's are int64); size is a tuple", bi_randint, BI_CREATION, VAL_VOID, NULL},
    {"randint_like", "randint_like(input, *args, requires_grad=False, dtype=None, device=None)", "random integers in "
     "[low, high) in the shape of x: randint_like(x, high) or randint_like(x, low, high)", NULL, bi_randint_like,
     BI_CREATION, VAL_VOID, NULL},
    {"randperm", "randperm(n, requires_grad=False, dtype=None, device=None, generator=None)", "a random permutation of "
     "0 .. n-1 (as float64 values)", NULL, bi_randperm, BI_CREATION, VAL_VOID, NULL},
    {"normal", "normal(mean, std=1.0, size=None, requires_grad=False, dtype=None, device=None, generator=None)",
     "normal random numbers: normal(mean, std, size) of numbers, or a tensor mean or std", NULL, bi_normal,
     BI_CREATION, VAL_VOID, NULL},
    {"bernoulli", "bernoulli(input, p=None, generator=None)", "1 with each element's probability (or with p), else 0",
     NULL, bi_bernoulli, BI_METHOD, VAL_VOID, NULL},
    {"uniform_", "uniform_(input, from_=0.0, to=1.0, generator=None)", "fills x in place with uniform "
     "numbers in [from_, to), PyTorch's for the same seed; returns x", NULL, bi_uniform_, BI_METHOD,
     VAL_VOID, NULL},
    {"normal_", "normal_(input, mean=0.0, std=1.0, generator=None)", "fills x in place with normal "
     "numbers, PyTorch's for the same seed; returns x", NULL, bi_normal_, BI_METHOD, VAL_VOID, NULL},
    {"bernoulli_", "bernoulli_(input, p=0.5, generator=None)", "fills x in place with 1 (probability "
     "p) or 0, PyTorch's for the same seed; returns x", NULL, bi_bernoulli_, BI_METHOD, VAL_VOID, NULL},
    {"multinomial", "multinomial(input, num_samples, replacement=False, generator=None)", "indices drawn with the "
     "weights of each row of x (as float64 values)", NULL, bi_multinomial, BI_METHOD, VAL_VOID, NULL},
    {"arange", "arange(*args, requires_grad=False, dtype=None, device=None, start=None, "
     "end=None, step=None)", "a, a+step, ... before b: arange(b), "
     "arange(a, b[, step])", NULL, bi_arange, BI_CREATION, VAL_VOID, NULL},
    {"range", "range(*args, requires_grad=False, dtype=None, device=None)", "as arange, with Python's integer arguments "
     "(for i in range(n) loops over numbers)", NULL, bi_range, BI_CREATION, VAL_VOID, NULL},
    {"eye", "eye(n, m=None, requires_grad=False, dtype=None, device=None)", "the n x n identity matrix", NULL, bi_eye,
     BI_CREATION, VAL_VOID, NULL},
    {"linspace", "linspace(start, end, steps, requires_grad=False, dtype=None, device=None)",
     "steps evenly spaced points from start to end", NULL, bi_linspace, BI_CREATION, VAL_VOID, NULL},
    {"seed", "seed(n=None)", "restarts the random stream, PyTorch's mt19937 (a new shell: seed 0), "
     "from n, or (torch.seed()) from a fresh seed it gives back", NULL, bi_seed, 0, VAL_VOID, NULL},
    {"manual_seed", "manual_seed(n)", "as seed (PyTorch's name): the same numbers as PyTorch's after "
     "torch.manual_seed(n)", NULL, bi_seed, BI_VOID, VAL_VOID, NULL},
    {"set_num_threads", "set_num_threads(n)", "the threads large kernels (matrix products, "
     "element-wise ops, sums) may use; the same results for every n", NULL, bi_set_num_threads,
     BI_VOID, VAL_VOID, NULL},
    {"get_num_threads", "get_num_threads()", "the threads large kernels may use (at start: the "
     "CPUs available, or AG_NUM_THREADS)", NULL, bi_get_num_threads, 0, VAL_VOID, NULL},
    {"initial_seed", "initial_seed()", "the seed the stream was last started from", NULL, bi_initial_seed,
     0, VAL_VOID, NULL},
    {"_random_int64", "_random_int64(generator=None)", "the int PyTorch's torch.empty((), "
     "dtype=torch.int64).random_() draws (DataLoader's seeds)", NULL, bi_random_int64, 0, VAL_VOID,
     NULL},
    {"Generator", "Generator(device=None)", "a random stream of its own, for generator= (torch.Generator: "
     "seeded 67280421310721 until g.manual_seed(n))", NULL, bi_generator, 0, VAL_VOID, NULL},
    {"manual_seed", "manual_seed(self, seed)", "restarts the generator from seed; gives the generator back",
     NULL, bi_generator_manual_seed, 0, VAL_GENERATOR, NULL},
    {"initial_seed", "initial_seed(self)", "the seed the generator was last started from", NULL,
     bi_generator_initial_seed, 0, VAL_GENERATOR, NULL},
};
const int num_create_builtins = sizeof create_builtins / sizeof create_builtins[0];
