/*
 * unary.c — the element-wise unary ops: neg, exp, log, sqrt, tanh, sigmoid,
 * relu, abs, sin, cos. Each op's forward loop and its backward loop sit
 * together; backward gets g in the output's shape and hands
 * dx = g * f'(x) to ag_accumulate_grad.
 */
#include "../internal.h"

#include <math.h>

/* With glibc's vector math library (make finds it; gcc only), the loops
 * below call the vector versions of exp, log, tanh, sin and cos, 4 or 8
 * values a call: several times faster, within 4 ulp (glibc's bound; the
 * scalar functions are within 1). Without it, the same loops call libm. */
#if defined(AG_LIBMVEC) && defined(__GNUC__) && !defined(__clang__)
#define VECTOR_MATH __attribute__((simd("notinbranch")))
VECTOR_MATH double exp(double);
VECTOR_MATH double log(double);
VECTOR_MATH double tanh(double);
VECTOR_MATH double sin(double);
VECTOR_MATH double cos(double);
#endif



/* The output tensor for op on x (NULL with a message when x is NULL). */
static Tensor *unary_out(const char *op, const Tensor *x) {
    if (!x) return ag_fail("%s: argument is NULL", op);
    return ag_tensor_new_like(x);
}

static Tensor *unary_record(Tensor *out, Tensor *x, ApplyFn backward_fn, const char *name) {
    return ag_graph_record(out, backward_fn, name, &x, 1, NULL, 0);
}

/* The tensor a backward writes dx into: g itself when nobody else holds it
 * (each dx[i] needs only g[i], so in place is safe, and the memory is warm),
 * else a new one. */
static Tensor *dx_buffer(Tensor *grad) {
    return grad->ref_count == 1 ? tensor_retain(grad) : ag_tensor_new_like(grad);
}

/* Declares the loop variables every backward uses: x and y (input and output
 * data, y NULL-safe only when read), g, and dx, the tensor to fill. */
#define BACKWARD_VARS(self, grad)                                               \
    const double *x = (self)->inputs[0]->data;                                  \
    const double *y = (self)->output->data;                                     \
    const double *g = (grad)->data;                                             \
    Tensor *dx_t = dx_buffer(grad);                                             \
    double *dx = dx_t->data;                                                    \
    int64_t n = (grad)->numel;                                                  \
    (void)x, (void)y

/* Defines tensor_NAME: out[i] = FORWARD (in terms of x[i]), NAME_backward:
 * dx[i] = BACKWARD (in terms of x[i], y[i], g[i]), and its rule as text. */
#define UNARY_OP(NAME, FN_NAME, RULE, FORWARD, BACKWARD)                        \
    OP_DOC(NAME, RULE);                                                         \
    static void NAME##_backward(Function *self, void *ctx, Tensor *grad) {      \
        (void)ctx;                                                              \
        BACKWARD_VARS(self, grad);                                              \
        SIMD_LOOP for (int64_t i = 0; i < n; i++) dx[i] = (BACKWARD);           \
        ag_accumulate_grad(self->inputs[0], dx_t);                                 \
    }                                                                           \
    Tensor *tensor_##NAME(Tensor *in) {                                         \
        Tensor *out = unary_out(#NAME, in);                                     \
        if (!out) return NULL;                                                  \
        const double *x = in->data;                                             \
        double *y = out->data;                                                  \
        int64_t n = out->numel;                                                 \
        SIMD_LOOP for (int64_t i = 0; i < n; i++) y[i] = (FORWARD);             \
        return unary_record(out, in, NAME##_backward, FN_NAME);                 \
    }

/* neg: y = -x;            dx = -g */
UNARY_OP(neg, "NegBackward", "grad_x = -g",
         -x[i], -g[i])

/* exp: y = e^x;           dx = g * y */
UNARY_OP(exp, "ExpBackward", "grad_x = g * exp(x)",
         exp(x[i]), g[i] * y[i])

/* log: y = ln x;          dx = g / x */
UNARY_OP(log, "LogBackward", "grad_x = g / x",
         log(x[i]), g[i] / x[i])

/* sqrt: y = x^(1/2);      dx = g / (2 y) */
UNARY_OP(sqrt, "SqrtBackward", "grad_x = g / (2 sqrt(x))",
         sqrt(x[i]), g[i] / (2.0 * y[i]))

/* tanh: y = tanh x;       dx = g * (1 - y^2) */
UNARY_OP(tanh, "TanhBackward", "grad_x = g * (1 - tanh(x)^2)",
         tanh(x[i]), g[i] * (1.0 - y[i] * y[i]))

/* sigmoid: y = 1/(1+e^-x); dx = g * y * (1 - y). Written so that exp never
 * overflows and small results keep their precision: with e = e^-|x|,
 * y = 1/(1+e) for x >= 0 and e/(1+e) below; a select, so it vectorises. */
static inline double sigmoid(double v) {
    double e = exp(-fabs(v)), s = 1.0 / (1.0 + e);
    return v >= 0 ? s : e * s;
}
UNARY_OP(sigmoid, "SigmoidBackward", "grad_x = g * s * (1 - s), s = sigmoid(x)",
         sigmoid(x[i]), g[i] * (1.0 - y[i]) * y[i]) /* PyTorch's order */

/* relu: y = max(x, 0), PyTorch's clamp_min: x itself unless x < 0, so a
 * NaN passes and relu(-0) is -0. dx = 0 where y <= 0, else g (PyTorch's
 * threshold_backward on the result): a selection, not a product, so an
 * inf or nan g at x < 0 still gives 0, and the gradient passes at x = nan. */
UNARY_OP(relu, "ReluBackward", "grad_x = g where x > 0 (or x is nan), else 0",
         x[i] < 0.0 ? 0.0 : x[i],
         y[i] <= 0.0 ? 0.0 : g[i])

/* abs: y = |x|;           dx = g * sign(x), sign(0) = sign(nan) = 0: a
 * product (PyTorch's g * sgn(x)), so an inf or nan g at 0 gives nan. */
UNARY_OP(abs, "AbsBackward", "grad_x = g * sign(x) (0 at x = 0)",
         fabs(x[i]),
         g[i] * (double)((x[i] > 0.0) - (x[i] < 0.0)))

/* sin: y = sin x;         dx = g * cos x */
UNARY_OP(sin, "SinBackward", "grad_x = g * cos(x)",
         sin(x[i]), g[i] * cos(x[i]))

/* cos: y = cos x;         dx = -g * sin x */
UNARY_OP(cos, "CosBackward", "grad_x = -g * sin(x)",
         cos(x[i]), -g[i] * sin(x[i]))
