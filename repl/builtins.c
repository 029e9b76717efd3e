/*
 * builtins.c — the shell's builtin functions: argument checking at the
 * boundary (Lua's "bad argument #2 to 'reshape'"), then one engine call.
 * The table at the end is what :help shows.
 */
#include "builtins.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * Arguments
 * ====================================================================== */

static const Node *arg_node(const CallArgs *a, int i) { return a->call->args[i]; }

static const char *callee(const CallArgs *a, char *buf, size_t size) {
    snprintf(buf, size, "%.*s", (int)a->call->as.name.length, a->call->as.name.text);
    return buf;
}

static void bad_arg_set(Session *s, const CallArgs *a, int i, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* false, like session_fail */
#define bad_arg(...) (bad_arg_set(__VA_ARGS__), false)

/* "bad argument #2 to 'reshape': ..." at the argument's position. */
static void bad_arg_set(Session *s, const CallArgs *a, int i, const char *fmt, ...) {
    char name[32], msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const Node *n = arg_node(a, i);
    session_set_error(s, n->line, n->col, "bad argument #%d to '%s': %s", i + 1,
                      callee(a, name, sizeof name), msg);
}

static bool arg_tensor(Session *s, const CallArgs *a, int i, Tensor **t) {
    const Value *v = &a->args[i];
    if (v->kind == VAL_TENSOR) {
        *t = v->tensor;
        return true;
    }
    return bad_arg(s, a, i, "expected a tensor, got %s",
                   v->kind == VAL_NONE ? "None" : v->kind == VAL_SHAPE ? "a shape" : "nothing");
}

/* A one-element tensor's value. */
static bool arg_number(Session *s, const CallArgs *a, int i, double *out) {
    Tensor *t = NULL;
    if (!arg_tensor(s, a, i, &t)) return false;
    if (t->numel != 1) {
        char shape[AG_SHAPE_STR_MAX];
        return bad_arg(s, a, i, "expected a number, got a tensor of shape %s",
                       tensor_shape_str(t, shape, sizeof shape));
    }
    *out = t->data[0];
    return true;
}

/* A number that is an integer in [lo, hi]; what names it ("a dimension"). */
static bool arg_int(Session *s, const CallArgs *a, int i, const char *what, int64_t lo,
                    int64_t hi, int64_t *out) {
    double v;
    if (!arg_number(s, a, i, &v)) return false;
    if (v != floor(v))
        return bad_arg(s, a, i, "%s must be an integer, not %.10g", what, v);
    /* (double)INT64_MAX rounds up to 2^63, which does not fit: compare below it. */
    bool below_hi = hi == INT64_MAX ? v < 0x1p63 : v <= (double)hi;
    if (!(v >= (double)lo && below_hi)) {
        if (v > 0 && hi == INT64_MAX)
            return bad_arg(s, a, i, "%s %.10g is too large", what, v);
        if (lo == 0 && hi > ((int64_t)1 << 40))
            return bad_arg(s, a, i, "%s must be a non-negative integer, not %.10g", what, v);
        return bad_arg(s, a, i, "%s must be from %lld to %lld, not %.10g", what, (long long)lo,
                       (long long)hi, v);
    }
    *out = (int64_t)v;
    return true;
}

static bool arg_axis(Session *s, const CallArgs *a, int i, int *axis) {
    int64_t v;
    /* The engine checks the range against the tensor's dimensions. */
    if (!arg_int(s, a, i, "axis", INT32_MIN, INT32_MAX, &v)) return false;
    *axis = (int)v;
    return true;
}

/* Dimensions from arguments from..n-1: integers, or shape values spliced
 * in (zeros(x.shape)). allow_infer lets one be -1 (reshape). */
static bool arg_dims(Session *s, const CallArgs *a, int from, bool allow_infer, int *ndim,
                     int64_t *shape) {
    *ndim = 0;
    for (int i = from; i < a->n; i++) {
        const Value *v = &a->args[i];
        int count = v->kind == VAL_SHAPE ? v->ndim : 1;
        if (*ndim + count > AG_MAX_DIMS)
            return bad_arg(s, a, i, "%s", "too many dimensions (at most 8)");
        if (v->kind == VAL_SHAPE) {
            memcpy(shape + *ndim, v->shape, (size_t)v->ndim * sizeof *shape);
        } else if (!arg_int(s, a, i, "a dimension", INT64_MIN, INT64_MAX, &shape[*ndim])) {
            return false;
        } else if (shape[*ndim] < (allow_infer ? -1 : 0)) {
            return bad_arg(s, a, i, "a dimension must be a non-negative integer%s, not %lld",
                           allow_infer ? " or -1" : "", (long long)shape[*ndim]);
        }
        *ndim += count;
    }
    return true;
}

static bool result(Session *s, const CallArgs *a, Tensor *t, Value *out) {
    if (!t) return session_fail(s, a->call->line, a->call->col, "%s", ag_error());
    *out = (Value){VAL_TENSOR, t, 0, {0}};
    return true;
}

/* A new leaf: requires grad when the flag was given. */
static bool leaf_result(Session *s, const CallArgs *a, Tensor *t, Value *out) {
    if (t && a->grad) tensor_set_requires_grad(t, true);
    return result(s, a, t, out);
}

/* ======================================================================
 * Creation
 * ====================================================================== */

static bool bi_tensor(Session *s, const CallArgs *a, Value *out) {
    Tensor *t = NULL;
    return arg_tensor(s, a, 0, &t) && leaf_result(s, a, tensor_detach(t), out);
}

typedef Tensor *(*Maker)(int ndim, const int64_t *shape, bool requires_grad);

static bool make_shaped(Session *s, const CallArgs *a, Maker make, Value *out) {
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    return arg_dims(s, a, 0, false, &ndim, shape) && result(s, a, make(ndim, shape, a->grad), out);
}

static bool bi_zeros(Session *s, const CallArgs *a, Value *out) { return make_shaped(s, a, tensor_zeros, out); }
static bool bi_ones(Session *s, const CallArgs *a, Value *out) { return make_shaped(s, a, tensor_ones, out); }
static bool bi_randn(Session *s, const CallArgs *a, Value *out) { return make_shaped(s, a, tensor_randn, out); }
static bool bi_rand(Session *s, const CallArgs *a, Value *out) { return make_shaped(s, a, tensor_rand, out); }

static bool bi_full(Session *s, const CallArgs *a, Value *out) {
    double v;
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    return arg_number(s, a, 0, &v) && arg_dims(s, a, 1, false, &ndim, shape) &&
           result(s, a, tensor_full(v, ndim, shape, a->grad), out);
}

static bool bi_arange(Session *s, const CallArgs *a, Value *out) {
    double start = 0, stop, step = 1;
    bool ok = a->n == 1 ? arg_number(s, a, 0, &stop)
                        : arg_number(s, a, 0, &start) && arg_number(s, a, 1, &stop) &&
                              (a->n < 3 || arg_number(s, a, 2, &step));
    if (ok && step == 0) return bad_arg(s, a, 2, "%s", "step must not be zero");
    return ok && leaf_result(s, a, tensor_arange(start, stop, step), out);
}

static bool bi_eye(Session *s, const CallArgs *a, Value *out) {
    int64_t n;
    return arg_int(s, a, 0, "size", 0, INT64_MAX, &n) && leaf_result(s, a, tensor_eye(n), out);
}

static bool bi_linspace(Session *s, const CallArgs *a, Value *out) {
    double start, stop;
    int64_t n;
    return arg_number(s, a, 0, &start) && arg_number(s, a, 1, &stop) &&
           arg_int(s, a, 2, "the number of points", 0, INT64_MAX, &n) &&
           leaf_result(s, a, tensor_linspace(start, stop, n), out);
}

static bool bi_seed(Session *s, const CallArgs *a, Value *out) {
    (void)out;
    int64_t n;
    if (!arg_int(s, a, 0, "the seed", 0, (int64_t)1 << 53, &n)) return false;
    ag_seed((uint64_t)n);
    return true;
}

/* ======================================================================
 * Element-wise, reductions, shapes, losses
 * ====================================================================== */

typedef struct {
    const char *name;
    Tensor *(*unary)(Tensor *);
    Tensor *(*binary)(Tensor *, Tensor *);
    Tensor *(*axis)(Tensor *, int);
} EngineOp;

static const EngineOp engine_ops[] = {
    {"exp", tensor_exp, NULL, NULL},       {"log", tensor_log, NULL, NULL},
    {"sqrt", tensor_sqrt, NULL, NULL},     {"tanh", tensor_tanh, NULL, NULL},
    {"sigmoid", tensor_sigmoid, NULL, NULL}, {"relu", tensor_relu, NULL, NULL},
    {"abs", tensor_abs, NULL, NULL},       {"sin", tensor_sin, NULL, NULL},
    {"cos", tensor_cos, NULL, NULL},       {"pow", NULL, tensor_pow, NULL},
    {"matmul", NULL, tensor_matmul, NULL}, {"mse", NULL, tensor_mse, NULL},
    {"cross_entropy", NULL, tensor_cross_entropy, NULL},
    {"sum", tensor_sum, NULL, tensor_sum_axis},
    {"mean", tensor_mean, NULL, tensor_mean_axis},
    {"max", tensor_max, NULL, tensor_max_axis},
    {"softmax", NULL, NULL, tensor_softmax},
    {"log_softmax", NULL, NULL, tensor_log_softmax},
};

static const EngineOp *engine_op(const CallArgs *a) {
    for (size_t i = 0; i < sizeof engine_ops / sizeof engine_ops[0]; i++)
        if (strlen(engine_ops[i].name) == a->call->as.name.length &&
            memcmp(engine_ops[i].name, a->call->as.name.text, a->call->as.name.length) == 0)
            return &engine_ops[i];
    return NULL;
}

/* f(x), f(a, b) or f(x[, axis]) through the engine_ops table. */
static bool bi_engine(Session *s, const CallArgs *a, Value *out) {
    const EngineOp *op = engine_op(a);
    Tensor *x = NULL, *y = NULL;
    int axis = -1;
    if (!arg_tensor(s, a, 0, &x)) return false;
    if (op->binary)
        return arg_tensor(s, a, 1, &y) && result(s, a, op->binary(x, y), out);
    if (a->n > 1 || !op->unary) /* an axis given, or softmax's default last axis */
        return (a->n < 2 || arg_axis(s, a, 1, &axis)) && result(s, a, op->axis(x, axis), out);
    return result(s, a, op->unary(x), out);
}

static bool bi_reshape(Session *s, const CallArgs *a, Value *out) {
    Tensor *x = NULL;
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    return arg_tensor(s, a, 0, &x) && arg_dims(s, a, 1, true, &ndim, shape) &&
           result(s, a, tensor_reshape(x, ndim, shape), out);
}

static bool bi_transpose(Session *s, const CallArgs *a, Value *out) {
    Tensor *x = NULL;
    int ax = -2, bx = -1;
    if (!arg_tensor(s, a, 0, &x)) return false;
    if (a->n == 2) return bad_arg(s, a, 1, "%s", "give both axes, or neither");
    if (a->n == 3 && !(arg_axis(s, a, 1, &ax) && arg_axis(s, a, 2, &bx))) return false;
    if (a->n == 1 && x->ndim < 2) /* as x.T: the same values */
        return result(s, a, tensor_reshape(x, x->ndim, x->shape), out);
    return result(s, a, tensor_transpose(x, ax, bx), out);
}

/* ======================================================================
 * Autograd
 * ====================================================================== */

static bool bi_backward(Session *s, const CallArgs *a, Value *out) {
    (void)out;
    Tensor *y = NULL;
    if (!arg_tensor(s, a, 0, &y)) return false;
    /* Hold each leaf's current gradient: accumulate_grad then leaves it as
     * it was, so a changed pointer means "received a gradient". */
    Tensor **before = calloc((size_t)s->num_vars + 1, sizeof *before);
    if (!before) return session_fail(s, a->call->line, a->call->col, "out of memory");
    for (int i = 0; i < s->num_vars; i++)
        if (s->vars[i].value.kind == VAL_TENSOR)
            before[i] = tensor_retain(s->vars[i].value.tensor->grad);
    bool ok = backward(y) == 0;
    if (ok && session_print_grads(s, before) == 0 && s->interactive)
        fprintf(s->out, "note: no variable received a gradient: the leaves this backward "
                        "reached are not bound to names\n");
    else session_set_error(s, a->call->line, a->call->col, "%s", ag_error());
    for (int i = 0; i < s->num_vars; i++) tensor_release(before[i]);
    free(before);
    return ok;
}

static bool bi_zero_grad(Session *s, const CallArgs *a, Value *out) {
    (void)out;
    Tensor *t = NULL;
    for (int i = 0; i < a->n; i++)
        if (!arg_tensor(s, a, i, &t)) return false;
    for (int i = 0; i < a->n; i++) tensor_zero_grad(a->args[i].tensor);
    if (a->n == 0)
        for (int i = 0; i < s->num_vars; i++)
            if (s->vars[i].value.kind == VAL_TENSOR) tensor_zero_grad(s->vars[i].value.tensor);
    return true;
}

static bool bi_detach(Session *s, const CallArgs *a, Value *out) {
    Tensor *x = NULL;
    return arg_tensor(s, a, 0, &x) && result(s, a, tensor_detach(x), out);
}

static bool bi_numel(Session *s, const CallArgs *a, Value *out) {
    Tensor *x = NULL;
    return arg_tensor(s, a, 0, &x) && result(s, a, tensor_scalar((double)x->numel), out);
}

/* ======================================================================
 * The table
 * ====================================================================== */

static const Builtin builtins[] = {
    {.name = "tensor", .min_args = 1, .max_args = 1, .creation = true,
     .signature = "tensor(LIST_OR_EXPR[, grad])",
     .help = "a new leaf holding a copy of the value",
     .fn = bi_tensor},
    {.name = "zeros", .min_args = 0, .max_args = -1, .creation = true,
     .signature = "zeros(d...[, grad])",
     .help = "a new leaf of zeros of shape (d...)",
     .fn = bi_zeros},
    {.name = "ones", .min_args = 0, .max_args = -1, .creation = true,
     .signature = "ones(d...[, grad])",
     .help = "a new leaf of ones of shape (d...)",
     .fn = bi_ones},
    {.name = "full", .min_args = 1, .max_args = -1, .creation = true,
     .signature = "full(VALUE, d...[, grad])",
     .help = "a new leaf of shape (d...) filled with VALUE",
     .fn = bi_full},
    {.name = "randn", .min_args = 0, .max_args = -1, .creation = true,
     .signature = "randn(d...[, grad])",
     .help = "normal random numbers (mean 0, variance 1)",
     .fn = bi_randn},
    {.name = "rand", .min_args = 0, .max_args = -1, .creation = true,
     .signature = "rand(d...[, grad])",
     .help = "uniform random numbers in [0, 1)",
     .fn = bi_rand},
    {.name = "arange", .min_args = 1, .max_args = 3, .creation = true,
     .signature = "arange([a, ]b[, step])",
     .help = "a, a+step, ... before b (defaults: a = 0, step = 1)",
     .fn = bi_arange},
    {.name = "eye", .min_args = 1, .max_args = 1, .creation = true,
     .signature = "eye(n[, grad])",
     .help = "the n x n identity matrix",
     .fn = bi_eye},
    {.name = "linspace", .min_args = 3, .max_args = 3, .creation = true,
     .signature = "linspace(a, b, n[, grad])",
     .help = "n evenly spaced points from a to b",
     .fn = bi_linspace},
    {.name = "seed", .min_args = 1, .max_args = 1, .no_value = true,
     .signature = "seed(N)",
     .help = "restarts the random stream (a new shell: seed 0)",
     .fn = bi_seed},
    {.name = "exp", .min_args = 1, .max_args = 1,
     .signature = "exp(x)",
     .help = "e^x element-wise",
     .fn = bi_engine},
    {.name = "log", .min_args = 1, .max_args = 1,
     .signature = "log(x)",
     .help = "natural logarithm",
     .fn = bi_engine},
    {.name = "sqrt", .min_args = 1, .max_args = 1,
     .signature = "sqrt(x)",
     .help = "square root",
     .fn = bi_engine},
    {.name = "tanh", .min_args = 1, .max_args = 1,
     .signature = "tanh(x)",
     .help = "hyperbolic tangent",
     .fn = bi_engine},
    {.name = "sigmoid", .min_args = 1, .max_args = 1,
     .signature = "sigmoid(x)",
     .help = "1 / (1 + e^-x)",
     .fn = bi_engine},
    {.name = "relu", .min_args = 1, .max_args = 1,
     .signature = "relu(x)",
     .help = "max(x, 0)",
     .fn = bi_engine},
    {.name = "abs", .min_args = 1, .max_args = 1,
     .signature = "abs(x)",
     .help = "|x|",
     .fn = bi_engine},
    {.name = "sin", .min_args = 1, .max_args = 1,
     .signature = "sin(x)",
     .help = "sine",
     .fn = bi_engine},
    {.name = "cos", .min_args = 1, .max_args = 1,
     .signature = "cos(x)",
     .help = "cosine",
     .fn = bi_engine},
    {.name = "pow", .min_args = 2, .max_args = 2,
     .signature = "pow(x, p)",
     .help = "x ** p element-wise, broadcasting",
     .fn = bi_engine},
    {.name = "sum", .min_args = 1, .max_args = 2,
     .signature = "sum(x[, axis])",
     .help = "sum of all elements, or along axis (removed)",
     .fn = bi_engine},
    {.name = "mean", .min_args = 1, .max_args = 2,
     .signature = "mean(x[, axis])",
     .help = "mean of all elements, or along axis (removed)",
     .fn = bi_engine},
    {.name = "max", .min_args = 1, .max_args = 2,
     .signature = "max(x[, axis])",
     .help = "largest element, or along axis (removed)",
     .fn = bi_engine},
    {.name = "reshape", .min_args = 2, .max_args = -1,
     .signature = "reshape(x, d...)",
     .help = "the same elements in shape (d...); one d can be -1",
     .fn = bi_reshape},
    {.name = "transpose", .min_args = 1, .max_args = 3,
     .signature = "transpose(x[, a, b])",
     .help = "swaps axes a and b (default: the last two)",
     .fn = bi_transpose},
    {.name = "matmul", .min_args = 2, .max_args = 2,
     .signature = "matmul(a, b)",
     .help = "matrix product, as a @ b (1-D, 2-D and batched)",
     .fn = bi_engine},
    {.name = "softmax", .min_args = 1, .max_args = 2,
     .signature = "softmax(x[, axis])",
     .help = "exp(x) / sum(exp(x)) along axis (default last)",
     .fn = bi_engine},
    {.name = "log_softmax", .min_args = 1, .max_args = 2,
     .signature = "log_softmax(x[, axis])",
     .help = "x - log(sum(exp(x))) along axis (default last)",
     .fn = bi_engine},
    {.name = "mse", .min_args = 2, .max_args = 2,
     .signature = "mse(pred, target)",
     .help = "mean((pred - target)^2)",
     .fn = bi_engine},
    {.name = "cross_entropy", .min_args = 2, .max_args = 2,
     .signature = "cross_entropy(logits, classes)",
     .help = "mean NLL of logits (N, C) at integer classes (N,)",
     .fn = bi_engine},
    {.name = "backward", .min_args = 1, .max_args = 1, .no_value = true,
     .signature = "backward(y)",
     .help = "differentiates y; prints and accumulates leaf .grads",
     .details = "y must hold one element; afterwards the graph is freed (:help arena)",
     .fn = bi_backward},
    {.name = "zero_grad", .min_args = 0, .max_args = -1, .no_value = true,
     .signature = "zero_grad(x, ...)",
     .help = "resets .grad to None (no argument: every variable)",
     .fn = bi_zero_grad},
    {.name = "grad", .min_args = 2, .max_args = -1, .no_value = true,
     .signature = "grad(f, a, ...)",
     .help = "prints f(a, ...) and its gradient for each argument that requires grad",
     .details = "runs f afresh on copies: no .grad changes, no graph is freed",
     .fn = builtin_grad, .function_first = true},
    {.name = "gradcheck", .min_args = 2, .max_args = -1, .no_value = true,
     .signature = "gradcheck(f, a, ...)",
     .help = "compares f's gradients with central finite differences",
     .details = "prints the largest errors per argument, ok or FAIL; no .grad changes",
     .fn = builtin_gradcheck, .function_first = true},
    {.name = "detach", .min_args = 1, .max_args = 1,
     .signature = "detach(x)",
     .help = "a constant copy of x (no graph, no grad)",
     .fn = bi_detach},
    {.name = "numel", .min_args = 1, .max_args = 1,
     .signature = "numel(x)",
     .help = "the number of elements of x",
     .fn = bi_numel},
};

const Builtin *builtin_list(int *count) {
    *count = (int)(sizeof builtins / sizeof builtins[0]);
    return builtins;
}

const Builtin *builtin_find(const char *name, size_t length) {
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (strlen(builtins[i].name) == length && memcmp(builtins[i].name, name, length) == 0)
            return &builtins[i];
    return NULL;
}
