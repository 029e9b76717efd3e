/*
 * unary.c — the element-wise unary ops: neg, exp, log, sqrt, tanh, sigmoid,
 * relu, abs, sin, cos. Each op's forward loop and its backward loop sit
 * together; backward gets g in the output's shape and hands
 * dx = g * f'(x) to ag_accumulate_grad.
 */
#include "../internal.h"

#include <math.h>
#include <string.h>

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
 * else a new one (NULL if that fails). */
static Tensor *dx_buffer(Tensor *grad) {
    return grad->ref_count == 1 ? tensor_retain(grad) : ag_tensor_new_like(grad);
}

/* ---- blocks: the same input gives the same result in every position ----
 * libmvec's vector functions and libm's scalar ones differ in the last bit
 * at some inputs, and a vectorised loop of n elements runs its remainder
 * through narrower vectors or the scalar functions: exp(1.58) came out one
 * ulp larger at index 8 of 9 than at 0..7. So every loop runs over whole
 * blocks of BLOCK elements (a multiple of every vector width, a count gcc
 * vectorises without a remainder), the last block through a padded copy. */

enum { BLOCK = 16 };

/* The drivers below take the block function as a pointer; inlined, the
 * pointer is a constant and the block's loop is inlined in turn. */
#if defined(__GNUC__)
#define ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define ALWAYS_INLINE inline
#endif

typedef void (*ForwardBlock)(const double *x, double *y);
typedef void (*BackwardBlock)(const double *x, const double *y, const double *g, double *dx);

/* y[i] = f(x[i]) for i < n, BLOCK at a time. */
static ALWAYS_INLINE void forward_blocks(ForwardBlock f, const double *x, double *y, int64_t n) {
    int64_t full = n - n % BLOCK, rest = n - full;
    for (int64_t i = 0; i < full; i += BLOCK) f(x + i, y + i);
    if (rest == 0) return;
    _Alignas(64) double xt[BLOCK] = {0}, yt[BLOCK];
    memcpy(xt, x + full, (size_t)rest * sizeof *xt);
    f(xt, yt);
    memcpy(y + full, yt, (size_t)rest * sizeof *yt);
}

/* dx[i] = f(x[i], y[i], g[i]) for i < n, BLOCK at a time (dx may be g). */
static ALWAYS_INLINE void backward_blocks(BackwardBlock f, const double *x, const double *y,
                                          const double *g, double *dx, int64_t n) {
    int64_t full = n - n % BLOCK, rest = n - full;
    for (int64_t i = 0; i < full; i += BLOCK) f(x + i, y + i, g + i, dx + i);
    if (rest == 0) return;
    _Alignas(64) double xt[BLOCK] = {0}, yt[BLOCK] = {0}, gt[BLOCK] = {0}, dxt[BLOCK];
    memcpy(xt, x + full, (size_t)rest * sizeof *xt);
    memcpy(yt, y + full, (size_t)rest * sizeof *yt);
    memcpy(gt, g + full, (size_t)rest * sizeof *gt);
    f(xt, yt, gt, dxt);
    memcpy(dx + full, dxt, (size_t)rest * sizeof *dxt);
}

/* Defines tensor_NAME: out[i] = FORWARD (in terms of x[i]), NAME_backward:
 * dx[i] = BACKWARD (in terms of x[i], y[i], g[i]), and its rule as text. */
#define UNARY_OP(NAME, FN_NAME, RULE, FORWARD, BACKWARD)                        \
    OP_DOC(NAME, RULE);                                                         \
    static void NAME##_backward_block(const double *x, const double *y,        \
                                      const double *g, double *dx) {          \
        (void)x, (void)y;                                                       \
        SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = (BACKWARD);           \
    }                                                                           \
    static void NAME##_backward(Function *self, void *ctx, Tensor *grad) {      \
        (void)ctx;                                                              \
        Tensor *dx = dx_buffer(grad);                                           \
        if (!dx) return;                                                        \
        backward_blocks(NAME##_backward_block, self->inputs[0]->data,           \
                        self->output->data, grad->data, dx->data, grad->numel); \
        ag_accumulate_grad(self->inputs[0], dx);                                \
    }                                                                           \
    static void NAME##_forward_block(const double *x, double *y) {             \
        SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = (FORWARD);             \
    }                                                                           \
    Tensor *tensor_##NAME(Tensor *in) {                                         \
        Tensor *out = unary_out(#NAME, in);                                     \
        if (!out) return NULL;                                                  \
        forward_blocks(NAME##_forward_block, in->data, out->data, out->numel);  \
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
 * y = 1/(1+e) for x >= 0 and e/(1+e) below. (gcc 12 does not vectorise
 * a select beside a vector call: this loop calls the scalar exp, the same
 * one for every element.) */
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
