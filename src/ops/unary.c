/*
 * unary.c — the element-wise unary ops: neg, exp, log, sqrt, tanh, sigmoid,
 * relu, abs, sin, cos. Each op's forward loop and its backward loop sit
 * together; backward gets g in the output's shape and hands
 * dx = g * f'(x) to accumulate_grad.
 */
#include "../internal.h"

#include <math.h>

/* The output tensor for op on x (NULL with a message when x is NULL). */
static Tensor *unary_out(const char *op, const Tensor *x) {
    if (!x) return ag_fail("%s: argument is NULL", op);
    return tensor_new_like(x);
}

static Tensor *unary_record(Tensor *out, Tensor *x, ApplyFn backward_fn, const char *name) {
    return graph_record(out, backward_fn, name, &x, 1, NULL, 0);
}

/* Declares the loop variables every backward uses: x and y (input and output
 * data, y NULL-safe only when read), g, and dx, a new tensor to fill. */
#define BACKWARD_VARS(self, grad)                                               \
    const double *x = (self)->inputs[0]->data;                                  \
    const double *y = (self)->output->data;                                     \
    const double *g = (grad)->data;                                             \
    Tensor *dx_t = tensor_new_like(grad);                                       \
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
        for (int64_t i = 0; i < n; i++) dx[i] = (BACKWARD);                     \
        accumulate_grad(self->inputs[0], dx_t);                                 \
    }                                                                           \
    Tensor *tensor_##NAME(Tensor *in) {                                         \
        Tensor *out = unary_out(#NAME, in);                                     \
        if (!out) return NULL;                                                  \
        const double *x = in->data;                                             \
        double *y = out->data;                                                  \
        for (int64_t i = 0; i < out->numel; i++) y[i] = (FORWARD);              \
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
 * overflows: for x < 0 it is e^x / (1 + e^x). */
static double sigmoid(double v) {
    if (v >= 0) return 1.0 / (1.0 + exp(-v));
    double e = exp(v);
    return e / (1.0 + e);
}
UNARY_OP(sigmoid, "SigmoidBackward", "grad_x = g * s * (1 - s), s = sigmoid(x)",
         sigmoid(x[i]), g[i] * y[i] * (1.0 - y[i]))

/* relu: y = max(x, 0);    dx = g where x > 0, else 0 (0 at x = 0, as PyTorch).
 * NaN passes through (x != x), as in PyTorch. */
UNARY_OP(relu, "ReluBackward", "grad_x = g where x > 0, else 0",
         (x[i] > 0.0 || x[i] != x[i]) ? x[i] : 0.0,
         x[i] > 0.0 ? g[i] : 0.0)

/* abs: y = |x|;           dx = g * sign(x), sign(0) = 0 */
UNARY_OP(abs, "AbsBackward", "grad_x = g * sign(x) (0 at x = 0)",
         fabs(x[i]),
         x[i] > 0.0 ? g[i] : (x[i] < 0.0 ? -g[i] : 0.0))

/* sin: y = sin x;         dx = g * cos x */
UNARY_OP(sin, "SinBackward", "grad_x = g * cos(x)",
         sin(x[i]), g[i] * cos(x[i]))

/* cos: y = cos x;         dx = -g * sin x */
UNARY_OP(cos, "CosBackward", "grad_x = -g * sin(x)",
         cos(x[i]), -g[i] * sin(x[i]))
