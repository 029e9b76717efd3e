/*
 * dtype.c — element types: their names, PyTorch's promotion, each op's
 * result type (its row's dtype rule, applied to every op's result by
 * ag_apply_dtype), the conversion of values, and the cast op x.to(dtype).
 *
 * Every tensor stores doubles. A result is computed in float64 and then
 * made what its dtype holds: rounded to float32, or wrapped to an integer
 * width, or 0/1 (docs/engine.md, "dtypes"). For +, -, *, / and sqrt of
 * float32 operands, float64's result rounded to float32 is exactly the
 * float32 result (53 >= 2 * 24 + 2 bits); elsewhere (exp, sums) it is the
 * correctly rounded value, which a float32 kernel may miss by an ulp.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

static const char *const dtype_names[AG_DTYPE_COUNT] = {
    [AG_FLOAT64] = "float64", [AG_FLOAT32] = "float32", [AG_INT64] = "int64",
    [AG_INT32] = "int32", [AG_BOOL] = "bool",
};

/* PyTorch's names for its messages ("Got: Long"). */
static const char *const scalar_type_names[AG_DTYPE_COUNT] = {
    [AG_FLOAT64] = "Double", [AG_FLOAT32] = "Float", [AG_INT64] = "Long",
    [AG_INT32] = "Int", [AG_BOOL] = "Bool",
};

const char *ag_dtype_name(AgDtype dtype) {
    return (unsigned)dtype < AG_DTYPE_COUNT ? dtype_names[dtype] : NULL;
}

const char *ag_dtype_scalar_name(AgDtype dtype) {
    return (unsigned)dtype < AG_DTYPE_COUNT ? scalar_type_names[dtype] : NULL;
}

bool ag_dtype_is_floating(AgDtype dtype) { return dtype == AG_FLOAT64 || dtype == AG_FLOAT32; }

/* bool 0, the integers 1, the floating types 2: PyTorch's categories. */
static int category(AgDtype dtype) {
    return dtype == AG_BOOL ? 0 : ag_dtype_is_floating(dtype) ? 2 : 1;
}

/* The enum is in promotion order: the common type is the earlier one. */
AgDtype ag_promote_types(AgDtype a, AgDtype b) { return a < b ? a : b; }

/* c10's combine_categories of two tiers' types (-1: no operand there):
 * the higher tier's, unless the lower's category is higher. */
static int combine_tiers(int higher, int lower) {
    if (higher < 0) return lower;
    if (lower < 0 || category((AgDtype)lower) <= category((AgDtype)higher)) return higher;
    return (int)ag_promote_types((AgDtype)higher, (AgDtype)lower);
}

AgDtype ag_result_type(Tensor *const *operands, int n) {
    int tier[3] = {-1, -1, -1}; /* with dimensions, 0-d, wrapped numbers: each's common type */
    for (int i = 0; i < n; i++) {
        const Tensor *t = operands[i];
        if (!t) continue;
        int k = t->wrapped_number ? 2 : t->ndim > 0 ? 0 : 1;
        AgDtype d = (AgDtype)t->dtype;
        if (t->wrapped_number && ag_dtype_is_floating(d)) d = ag_default_dtype();
        tier[k] = tier[k] < 0 ? (int)d : (int)ag_promote_types((AgDtype)tier[k], d);
    }
    int r = combine_tiers(tier[0], combine_tiers(tier[1], tier[2]));
    return r < 0 ? AG_FLOAT64 : (AgDtype)r;
}

/* A float32 copy of x's values (x float64, or an integer above 2^24 that
 * float32 rounds): an operand as the common type. */
static Tensor *float32_copy(const Tensor *x) {
    Tensor *c = ag_tensor_new_like(x);
    if (!c) return NULL;
    double *cv = tensor_values(c);
    const double *xv = tensor_values(x);
    for (int64_t i = 0; i < x->numel; i++) cv[i] = (double)(float)xv[i];
    c->dtype = AG_FLOAT32;
    return c;
}

int ag_common_float32(Tensor *a, Tensor *b, Tensor **ca, Tensor **cb) {
    if (ag_result_type((Tensor *[]){a, b}, 2) != AG_FLOAT32) return 0;
    if (a->dtype != AG_FLOAT32 && !(*ca = float32_copy(a))) return -1;
    if (b->dtype != AG_FLOAT32 && !(*cb = float32_copy(b))) {
        ag_common_release(*ca, a);
        return -1;
    }
    return 0;
}

bool ag_can_cast(AgDtype from, AgDtype to) {
    if (ag_dtype_is_floating(from) && !ag_dtype_is_floating(to)) return false;
    return !(from != AG_BOOL && to == AG_BOOL);
}

static _Thread_local AgDtype ag_default_dtype_now = AG_FLOAT64;
#define default_dtype ag_default_dtype_now

AgDtype ag_default_dtype(void) { return default_dtype; }

int ag_set_default_dtype(AgDtype dtype) {
    if (!ag_dtype_is_floating(dtype))
        return ag_fail("only floating-point types are supported as the default type"), -1;
    default_dtype = dtype;
    return 0;
}

/* A conversion to an integer type as x86's cvttsd2si does it: the value
 * truncated, or the type's smallest where it has no such integer. */
static double to_integer(double v, double limit) {
    return v > -limit - 1 && v < limit ? trunc(v) + 0.0 : -limit; /* -0.5: 0, not -0 */
}

double ag_dtype_convert(double value, AgDtype dtype) {
    switch (dtype) {
    case AG_FLOAT32: return (double)(float)value;
    case AG_INT64: return to_integer(value, 9223372036854775808.0);
    case AG_INT32: return to_integer(value, 2147483648.0);
    case AG_BOOL: return value != 0.0 ? 1.0 : 0.0; /* nan is true */
    default: return value;
    }
}

/* An integer op's result past its type's range, wrapped as two's
 * complement arithmetic wraps it (int32: 2^31 - 1 + 1 is -2^31). */
static double wrapped(double v, double limit) {
    if (v >= -limit && v < limit) return v;
    double r = fmod(v, 2 * limit); /* exact */
    return r >= limit ? r - 2 * limit : r < -limit ? r + 2 * limit : r;
}

/* v[begin, end) rounded to float32 in place (ctx: v). */
static void round_f32_range(void *ctx, int64_t begin, int64_t end) {
    double *v = ctx;
    SIMD_LOOP
    for (int64_t i = begin; i < end; i++) v[i] = (double)(float)v[i];
}

/* Converts n values in place: as ag_dtype_convert does, or for results of
 * integer arithmetic (arith), wrapping. Rounding to float32 is split
 * between threads above the grain: a float32 op's result is rounded here
 * after its float64 kernel ran on every thread. */
static void convert_values(double *v, int64_t n, AgDtype dtype, bool arith) {
    if (dtype == AG_FLOAT64) return;
    if (dtype == AG_FLOAT32) {
        if (ag_parallel_worth(n, AG_GRAIN_COPY)) ag_parallel_for(n, AG_GRAIN_COPY, round_f32_range, v);
        else round_f32_range(v, 0, n);
        return;
    }
    double limit = dtype == AG_INT32 ? 2147483648.0 : 9223372036854775808.0;
    if (arith && dtype != AG_BOOL) /* + 0.0: an integer has no -0 (-2 % 2 computes fmod's -0) */
        for (int64_t i = 0; i < n; i++) v[i] = wrapped(v[i], limit) + 0.0;
    else
        for (int64_t i = 0; i < n; i++) v[i] = ag_dtype_convert(v[i], dtype);
}

void ag_convert_from(double *v, int64_t n, AgDtype from, AgDtype to) {
    convert_values(v, n, to, !ag_dtype_is_floating(from));
}

/* The kernels PyTorch has no bool version of, by op: its message names them
 * ("\"argmax_cpu\" not implemented for 'Bool'"). */
static const char *bool_kernel(int op, const Tensor *first) {
    switch (op) {
    case AG_OP_ARGMAX: return "argmax_cpu";
    case AG_OP_ARGMIN: return "argmin_cpu";
    case AG_OP_FLOOR_DIVIDE: return "div_floor_cpu";
    case AG_OP_REMAINDER: return "remainder_cpu";
    case AG_OP_POW: return "pow";
    case AG_OP_ABS: return "abs_cpu";
    case AG_OP_DOT: return "dot";
    case AG_OP_MV: return "addmv_impl_cpu";
    case AG_OP_MM: case AG_OP_LINEAR: return "addmm_impl_cpu_";
    case AG_OP_MATMUL: return first->ndim == 1 ? "dot" : "addmm_impl_cpu_";
    default: return NULL;
    }
}

/* PyTorch's refusals of some dtypes by some ops: a message, or NULL. */
static const char *refusal(int op, const AgOpInfo *info, Tensor *const *in, int n,
                           AgDtype result) {
    static _Thread_local char text[200];
    AgDtype first = (AgDtype)in[0]->dtype;
    if (op == AG_OP_NEG && first == AG_BOOL)
        return "Negation, the `-` operator, on a bool tensor is not supported. If you are "
               "trying to invert a mask, use the `~` or `logical_not()` operator instead.";
    if (op == AG_OP_SUB && n == 2 && first == AG_BOOL && in[1]->dtype == AG_BOOL)
        return "Subtraction, the `-` operator, with two bool tensors is not supported. Use "
               "the `^` or `logical_xor()` operator instead.";
    if (op == AG_OP_SUB && n == 2 && (first == AG_BOOL || in[1]->dtype == AG_BOOL))
        return "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
               "trying to invert a mask, use the `~` or `logical_not()` operator instead.";
    if (op == AG_OP_RELU && first == AG_BOOL) return "Boolean inputs not supported for relu";
    bool bools = result == AG_BOOL || (first == AG_BOOL && info->dtype_rule == AG_DTYPE_INDEX);
    const char *kernel = bools ? bool_kernel(op, in[0]) : NULL;
    if (kernel) {
        snprintf(text, sizeof text, "\"%s\" not implemented for 'Bool'", kernel);
        return text;
    }
    if (info->dtype_rule == AG_DTYPE_FLOAT_ONLY && !ag_dtype_is_floating(first)) {
        if (op == AG_OP_VAR || op == AG_OP_STD)
            return "std and var only support floating point and complex dtypes";
        if (op == AG_OP_NORM) {
            snprintf(text, sizeof text, "norm(): input dtype should be either floating point "
                     "or complex. Got %s instead.", scalar_type_names[first]);
            return text;
        }
        snprintf(text, sizeof text, "%s(): could not infer output dtype. Input dtype must be "
                 "either a floating point or complex dtype. Got: %s", info->name,
                 scalar_type_names[first]);
        return text;
    }
    if (info->dtype_rule == AG_DTYPE_SAME)
        for (int i = 1; i < n; i++)
            if (in[i] && in[i]->dtype != first) {
                snprintf(text, sizeof text, "expected scalar type %s but found %s",
                         scalar_type_names[first], scalar_type_names[in[i]->dtype]);
                return text;
            }
    if (info->dtype_rule == AG_DTYPE_INTEGRAL && ag_dtype_is_floating(result)) {
        snprintf(text, sizeof text, "\"%s_cpu\" not implemented for '%s'", info->name,
                 scalar_type_names[result]);
        return text;
    }
    /* Only a Python number as the exponent: a tensor's negative exponents
     * give 0 (PyTorch's powi; integer_powers below) */
    if (op == AG_OP_POW && !ag_dtype_is_floating(result) && in[1]->wrapped_number)
        for (int64_t i = 0; i < in[1]->numel; i++)
            if (tensor_values(in[1])[i] < 0) return "Integers to negative integer powers are not allowed.";
    if ((op == AG_OP_FLOOR_DIVIDE || op == AG_OP_REMAINDER) && !ag_dtype_is_floating(result))
        for (int64_t i = 0; i < in[1]->numel; i++)
            if (tensor_values(in[1])[i] == 0) return "ZeroDivisionError"; /* PyTorch's, a RuntimeError */
    return NULL;
}

/* The result type of operands broadcast together first (PyTorch's
 * mse_loss: torch.broadcast_tensors, then the op): with one operand of
 * dimensions, every 0-d one has them too, so no tier is below another. */
static AgDtype broadcast_result_type(Tensor *const *in, int n) {
    bool dims = false;
    for (int i = 0; i < n; i++) dims |= in[i] && in[i]->ndim > 0;
    if (!dims) return ag_result_type(in, n);
    AgDtype d = (AgDtype)in[0]->dtype;
    for (int i = 1; i < n; i++)
        if (in[i]) d = ag_promote_types(d, (AgDtype)in[i]->dtype);
    return d;
}

/* The dtype an op's rule gives its result. */
static AgDtype rule_result(const AgOpInfo *info, Tensor *const *in, int n) {
    switch ((AgDtypeRule)info->dtype_rule) {
    case AG_DTYPE_BOOL: return AG_BOOL;
    case AG_DTYPE_INDEX: return AG_INT64;
    case AG_DTYPE_FIRST:
    case AG_DTYPE_FLOAT_ONLY:
    case AG_DTYPE_SAME: return (AgDtype)in[0]->dtype;
    case AG_DTYPE_SUM: return ag_dtype_is_floating((AgDtype)in[0]->dtype) ? (AgDtype)in[0]->dtype
                                                                           : AG_INT64;
    case AG_DTYPE_NOT_FIRST: return ag_result_type(in + 1, n - 1);
    case AG_DTYPE_TARGET:
        if (n > 1 && ag_dtype_is_floating((AgDtype)in[1]->dtype)) return (AgDtype)in[1]->dtype;
        return rule_result(&(AgOpInfo){.dtype_rule = AG_DTYPE_FLOATING}, in, n);
    case AG_DTYPE_FLOATING:
    case AG_DTYPE_BROADCAST: {
        AgDtype d = info->dtype_rule == AG_DTYPE_BROADCAST ? broadcast_result_type(in, n)
                                                           : ag_result_type(in, n);
        return ag_dtype_is_floating(d) ? d : default_dtype;
    }
    default: return ag_result_type(in, n);
    }
}

/* base ** exp (exp >= 0) as PyTorch's powi computes it in the integer
 * type: squarings and products that wrap, as two's complement arithmetic
 * does (in 64 bits; their low 32 bits are int32's). */
static double wrapped_power(double base, double exp, AgDtype dtype) {
    uint64_t a = (uint64_t)(int64_t)base, r = 1;
    for (int64_t b = (int64_t)exp; b; b /= 2) {
        if (b & 1) r *= a;
        a *= a;
    }
    return dtype == AG_INT32 ? (double)(int32_t)(uint32_t)r : (double)(int64_t)r;
}

/* An integer power, as PyTorch's powi gives it. With a negative exponent:
 * 1 and -1 keep their powers (exact in pow), every other base gives 0, 0
 * included (pow's fraction truncated, its inf replaced; + 0.0 makes -0 a
 * 0). A power past 2^53 (pow's double is not the integer, or inf) is
 * computed again from the operands, broadcast, by wrapped_power: 3 ** 40
 * in int32 is 3^40 mod 2^32, as signed. */
static void integer_powers(Tensor *out, Tensor *const *in, AgDtype dtype) {
    bool past = false;
    for (int64_t i = 0; i < out->numel; i++) {
        past |= fabs(tensor_values(out)[i]) >= 0x1p53 && tensor_values(in[1])[in[1]->numel > 1 ? i : 0] >= 0;
        tensor_values(out)[i] = isinf(tensor_values(out)[i]) ? 0 : trunc(tensor_values(out)[i]) + 0.0;
    }
    if (!past || dtype == AG_BOOL) return;
    Tensor *a = ag_broadcast_to(in[0], out->ndim, out->shape);
    Tensor *b = ag_broadcast_to(in[1], out->ndim, out->shape);
    for (int64_t i = 0; a && b && i < out->numel; i++)
        if (tensor_values(b)[i] >= 0 && (fabs(tensor_values(out)[i]) >= 0x1p53 || tensor_values(out)[i] == 0))
            tensor_values(out)[i] = wrapped_power(tensor_values(a)[i], tensor_values(b)[i], dtype);
    tensor_release(a);
    tensor_release(b);
}

Tensor *ag_apply_dtype(Tensor *out, int op, Tensor *const *in, int n) {
    const AgOpInfo *info = ag_op_at(op);
    if (!out || !info || n == 0 || info->dtype_rule == AG_DTYPE_OWN) return out;
    AgDtype dtype = rule_result(info, in, n);
    const char *why = refusal(op, info, in, n, dtype);
    if (why) {
        tensor_release(out);
        return ag_fail("%s", why);
    }
    if (out->packed) { /* float32 already, and computed as such */
        AG_ASSERT(dtype == AG_FLOAT32, "only a float32 result is packed");
        return out;
    }
    out->dtype = (uint8_t)dtype;
    if (op == AG_OP_POW && !ag_dtype_is_floating(dtype)) integer_powers(out, in, dtype);
    convert_values(tensor_values(out), out->numel, dtype, true);
    return out;
}

int tensor_set_dtype(Tensor *t, AgDtype dtype) {
    if (!t) return ag_fail("set_dtype: tensor is NULL"), -1;
    if ((unsigned)dtype >= AG_DTYPE_COUNT) return ag_fail("set_dtype: no such dtype"), -1;
    if (t->requires_grad && !ag_dtype_is_floating(dtype))
        return ag_fail("only Tensors of floating point dtype can require gradients"), -1;
    convert_values(tensor_values(t), t->numel, dtype, false);
    t->dtype = (uint8_t)dtype;
    return 0;
}

/* ======================================================================
 * to: y = x as dtype; dx = g as x's dtype (ToCopyBackward)
 * ====================================================================== */

static void to_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    Tensor *x = self->inputs[0];
    Tensor *dx = ag_tensor_new_like(g);
    if (!dx) return;
    memcpy(tensor_values(dx), tensor_values(g), (size_t)g->numel * sizeof(double));
    dx->dtype = x->dtype;
    convert_values(tensor_values(dx), dx->numel, (AgDtype)x->dtype, false);
    ag_accumulate_grad(x, dx);
}

/* The same as a recorded op: dx = to(g, x's dtype), the same conversion
 * (g is floating: convert_values without integer wrapping, as above). */
static int to_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    grads[0] = tensor_to(g, (AgDtype)self->inputs[0]->dtype);
    return grads[0] ? 0 : -1;
}

/* f[i] = v[i] as a float, for i < n (split between threads above the grain) */
typedef struct {
    const double *v;
    float *f;
} Narrowing;

static void narrow_range(void *ctx, int64_t begin, int64_t end) {
    const Narrowing *j = ctx;
    SIMD_LOOP
    for (int64_t i = begin; i < end; i++) j->f[i] = (float)j->v[i];
}

static void narrow_to_floats(const double *v, float *f, int64_t n) {
    Narrowing j = {v, f};
    if (ag_parallel_worth(n, AG_GRAIN_COPY)) ag_parallel_for(n, AG_GRAIN_COPY, narrow_range, &j);
    else narrow_range(&j, 0, n);
}

Tensor *tensor_to(Tensor *x, AgDtype dtype) {
    if (!x) return ag_fail("to: tensor is NULL");
    if ((unsigned)dtype >= AG_DTYPE_COUNT) return ag_fail("to: no such dtype");
    if (x->dtype == dtype) return tensor_retain(x);
    Tensor *out;
    if (dtype == AG_FLOAT32 && x->numel >= ag_pack_min) { /* packed: as ag_dtype_convert rounds */
        if (!(out = ag_tensor_new_packed(x->ndim, x->shape))) return NULL;
        narrow_to_floats(tensor_values(x), ag_floats(out), x->numel);
    } else {
        if (!(out = ag_tensor_new_like(x))) return NULL;
        memcpy(tensor_values(out), tensor_values(x), (size_t)x->numel * sizeof(double));
        out->dtype = (uint8_t)dtype;
        ag_convert_from(tensor_values(out), out->numel, (AgDtype)x->dtype, dtype);
    }
    if (!ag_dtype_is_floating(dtype)) return out; /* no gradient flows to an integer */
    return ag_graph_record(out, AG_OP_TO, &x, 1, NULL, 0);
}

static Tensor *to_call(const AgOpArgs *a) { return tensor_to(a->t[0], (AgDtype)a->ints[0]); }

/* Hidden: a shell spells it x.to(torch.float32), x.float(). Its derivative
 * is the identity, checked exactly (test_dtype.c): finite differences
 * through a rounding to float32 mean nothing. */
const AgOpInfo ag_op_to = {
    .id = AG_OP_TO, .name = "to", .signature = "to(input, dtype)", .params = "Ti", .call = to_call,
    .help = "x's values as another dtype", .rule = "grad_x = g (as x's dtype)",
    .backward_name = "ToCopyBackward", .backward = to_backward, .graph_backward = to_graph,
    .flags = AG_OP_HIDDEN | AG_OP_SAVES_NOTHING, .dtype_rule = AG_DTYPE_OWN,
};
