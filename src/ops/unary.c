/*
 * unary.c — the element-wise unary ops: neg, exp, log, sqrt, tanh, sigmoid,
 * relu, abs, sin, cos, sign. Each op is a block of its forward loop, its
 * backward loop (g in the output's shape, dx = g * f'(x) handed to
 * ag_accumulate_grad), its forward and backward, and its table row.
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

/* The forward of a unary op (an id of ops.h): y = f(x) block by block. */
static ALWAYS_INLINE Tensor *unary_forward(int op, ForwardBlock f, Tensor *x) {
    Tensor *y = unary_out(ag_op_at(op)->name, x);
    if (!y) return NULL;
    forward_blocks(f, x->data, y->data, y->numel);
    return ag_graph_record(y, op, &x, 1, NULL, 0);
}

/* The backward of a unary op: dx = f'(x, y, g) block by block, into g's
 * memory when nobody else holds it. */
static ALWAYS_INLINE void unary_backward(Function *self, Tensor *grad, BackwardBlock f) {
    Tensor *dx = dx_buffer(grad);
    if (!dx) return;
    backward_blocks(f, self->inputs[0]->data, self->output->data, grad->data, dx->data,
                    grad->numel);
    ag_accumulate_grad(self->inputs[0], dx);
}

/* The table row of a unary op: x.f() is f(x). */
#define UNARY_ROW(ID, NAME, HELP, RULE, BACKWARD_NAME)                                 \
    {.id = AG_OP_##ID, .name = #NAME, .signature = #NAME "(input)", .params = "T",     \
     .help = HELP, .rule = RULE, .backward_name = BACKWARD_NAME, .unary = tensor_##NAME, \
     .backward = NAME##_backward, .flags = AG_OP_METHOD}

/* ======================================================================
 * neg: y = -x; dx = -g
 * ====================================================================== */

static void neg_block(const double *x, double *y) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = -x[i];
}

static void neg_grad_block(const double *x, const double *y, const double *g, double *dx) {
    (void)x, (void)y;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = -g[i];
}

static void neg_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    unary_backward(self, g, neg_grad_block);
}

Tensor *tensor_neg(Tensor *x) { return unary_forward(AG_OP_NEG, neg_block, x); }

const AgOpInfo ag_op_neg = UNARY_ROW(NEG, neg, "-x", "grad_x = -g", "NegBackward");

/* ======================================================================
 * exp: y = e^x; dx = g * y
 * ====================================================================== */

static void exp_block(const double *x, double *y) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = exp(x[i]);
}

static void exp_grad_block(const double *x, const double *y, const double *g, double *dx) {
    (void)x;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * y[i];
}

static void exp_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    unary_backward(self, g, exp_grad_block);
}

Tensor *tensor_exp(Tensor *x) { return unary_forward(AG_OP_EXP, exp_block, x); }

const AgOpInfo ag_op_exp =
    UNARY_ROW(EXP, exp, "e^x element-wise", "grad_x = g * exp(x)", "ExpBackward");

/* ======================================================================
 * log: y = ln x; dx = g / x
 * ====================================================================== */

static void log_block(const double *x, double *y) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = log(x[i]);
}

static void log_grad_block(const double *x, const double *y, const double *g, double *dx) {
    (void)y;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] / x[i];
}

static void log_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    unary_backward(self, g, log_grad_block);
}

Tensor *tensor_log(Tensor *x) { return unary_forward(AG_OP_LOG, log_block, x); }

const AgOpInfo ag_op_log =
    UNARY_ROW(LOG, log, "natural logarithm", "grad_x = g / x", "LogBackward");

/* ======================================================================
 * sqrt: y = x^(1/2); dx = g / (2 y)
 * ====================================================================== */

static void sqrt_block(const double *x, double *y) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = sqrt(x[i]);
}

static void sqrt_grad_block(const double *x, const double *y, const double *g, double *dx) {
    (void)x;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] / (2.0 * y[i]);
}

static void sqrt_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    unary_backward(self, g, sqrt_grad_block);
}

Tensor *tensor_sqrt(Tensor *x) { return unary_forward(AG_OP_SQRT, sqrt_block, x); }

const AgOpInfo ag_op_sqrt =
    UNARY_ROW(SQRT, sqrt, "square root", "grad_x = g / (2 sqrt(x))", "SqrtBackward");

/* ======================================================================
 * tanh: y = tanh x; dx = g * (1 - y^2)
 * ====================================================================== */

static void tanh_block(const double *x, double *y) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = tanh(x[i]);
}

static void tanh_grad_block(const double *x, const double *y, const double *g, double *dx) {
    (void)x;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * (1.0 - y[i] * y[i]);
}

static void tanh_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    unary_backward(self, g, tanh_grad_block);
}

Tensor *tensor_tanh(Tensor *x) { return unary_forward(AG_OP_TANH, tanh_block, x); }

const AgOpInfo ag_op_tanh = UNARY_ROW(TANH, tanh, "hyperbolic tangent",
                                      "grad_x = g * (1 - tanh(x)^2)", "TanhBackward");

/* ======================================================================
 * sigmoid: y = 1/(1+e^-x); dx = g * (1 - y) * y (PyTorch's order).
 * Written so that exp never overflows and small results keep their
 * precision: with e = e^-|x|, y = 1/(1+e) for x >= 0 and e/(1+e) below.
 * (gcc 12 does not vectorise a select beside a vector call: this loop calls
 * the scalar exp, the same one for every element.)
 * ====================================================================== */

static inline double sigmoid(double v) {
    double e = exp(-fabs(v)), s = 1.0 / (1.0 + e);
    return v >= 0 ? s : e * s;
}

static void sigmoid_block(const double *x, double *y) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = sigmoid(x[i]);
}

static void sigmoid_grad_block(const double *x, const double *y, const double *g, double *dx) {
    (void)x;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * (1.0 - y[i]) * y[i];
}

static void sigmoid_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    unary_backward(self, g, sigmoid_grad_block);
}

Tensor *tensor_sigmoid(Tensor *x) { return unary_forward(AG_OP_SIGMOID, sigmoid_block, x); }

const AgOpInfo ag_op_sigmoid = UNARY_ROW(SIGMOID, sigmoid, "1 / (1 + e^-x)",
                                         "grad_x = g * s * (1 - s), s = sigmoid(x)",
                                         "SigmoidBackward");

/* ======================================================================
 * relu: y = max(x, 0), PyTorch's clamp_min: x itself unless x < 0, so a
 * NaN passes and relu(-0) is -0. dx = 0 where y <= 0, else g (PyTorch's
 * threshold_backward on the result): a selection, not a product, so an inf
 * or nan g at x < 0 still gives 0, and the gradient passes at x = nan.
 * ====================================================================== */

static void relu_block(const double *x, double *y) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = x[i] < 0.0 ? 0.0 : x[i];
}

static void relu_grad_block(const double *x, const double *y, const double *g, double *dx) {
    (void)x;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = y[i] <= 0.0 ? 0.0 : g[i];
}

static void relu_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    unary_backward(self, g, relu_grad_block);
}

Tensor *tensor_relu(Tensor *x) { return unary_forward(AG_OP_RELU, relu_block, x); }

const AgOpInfo ag_op_relu = UNARY_ROW(RELU, relu, "max(x, 0)",
                                      "grad_x = g where x > 0 (or x is nan), else 0",
                                      "ReluBackward");

/* ======================================================================
 * abs: y = |x|; dx = g * sign(x), sign(0) = sign(nan) = 0: a product
 * (PyTorch's g * sgn(x)), so an inf or nan g at 0 gives nan.
 * ====================================================================== */

static void abs_block(const double *x, double *y) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = fabs(x[i]);
}

static void abs_grad_block(const double *x, const double *y, const double *g, double *dx) {
    (void)y;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * (double)((x[i] > 0.0) - (x[i] < 0.0));
}

static void abs_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    unary_backward(self, g, abs_grad_block);
}

Tensor *tensor_abs(Tensor *x) { return unary_forward(AG_OP_ABS, abs_block, x); }

const AgOpInfo ag_op_abs =
    UNARY_ROW(ABS, abs, "|x|", "grad_x = g * sign(x) (0 at x = 0)", "AbsBackward");

/* ======================================================================
 * sin: y = sin x; dx = g * cos x
 * ====================================================================== */

static void sin_block(const double *x, double *y) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = sin(x[i]);
}

static void sin_grad_block(const double *x, const double *y, const double *g, double *dx) {
    (void)y;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * cos(x[i]);
}

static void sin_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    unary_backward(self, g, sin_grad_block);
}

Tensor *tensor_sin(Tensor *x) { return unary_forward(AG_OP_SIN, sin_block, x); }

const AgOpInfo ag_op_sin = UNARY_ROW(SIN, sin, "sine", "grad_x = g * cos(x)", "SinBackward");

/* ======================================================================
 * cos: y = cos x; dx = -g * sin x
 * ====================================================================== */

static void cos_block(const double *x, double *y) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = cos(x[i]);
}

static void cos_grad_block(const double *x, const double *y, const double *g, double *dx) {
    (void)y;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = -g[i] * sin(x[i]);
}

static void cos_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    unary_backward(self, g, cos_grad_block);
}

Tensor *tensor_cos(Tensor *x) { return unary_forward(AG_OP_COS, cos_block, x); }

const AgOpInfo ag_op_cos = UNARY_ROW(COS, cos, "cosine", "grad_x = -g * sin(x)", "CosBackward");

/* ======================================================================
 * sign: y = 1 where x > 0, -1 where x < 0, else 0 (0 at -0 and at nan, as
 * PyTorch); dx = 0: sign is flat wherever it is differentiable (PyTorch
 * records it and sends zeros).
 * ====================================================================== */

static void sign_block(const double *x, double *y) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = (double)((x[i] > 0.0) - (x[i] < 0.0));
}

static void sign_grad_block(const double *x, const double *y, const double *g, double *dx) {
    (void)x, (void)y, (void)g;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = 0.0;
}

static void sign_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    unary_backward(self, g, sign_grad_block);
}

Tensor *tensor_sign(Tensor *x) { return unary_forward(AG_OP_SIGN, sign_block, x); }

const AgOpInfo ag_op_sign = UNARY_ROW(SIGN, sign, "-1, 0 or 1: the sign of x (0 at nan)",
                                      "grad_x = 0", "SignBackward");
