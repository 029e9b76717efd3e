/*
 * unary.c — the element-wise unary ops: neg, reciprocal, clone, sinh, cosh,
 * exp, log, sqrt, tanh, sigmoid, relu, abs, sin, cos, sign. Each op is a block of its forward loop, its
 * backward loop (g in the output's shape, dx = g * f'(x) handed to
 * ag_accumulate_grad), its forward and backward, and its table row. The
 * drivers that run the blocks are in elementwise.h (shared with
 * activation.c). An op whose float32 result PyTorch's float kernel
 * computes otherwise than a rounded double (exp, sin, tanh, sigmoid, ...)
 * has float32 blocks beside its others (NAME_f32_block, NAME_f32_grad_block:
 * the formula in float, SLEEF's float functions), chosen when x is float32.
 */
#include "elementwise.h"

/* ======================================================================
 * neg: y = -x; dx = -g
 * ====================================================================== */

static void neg_block(const double *x, double *y, const double *p) {
    (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = -x[i];
}

static void neg_grad_block(const double *x, const double *y, const double *g, double *dx,
                           const double *p) {
    (void)x, (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = -g[i];
}

static void neg_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward(self, g, neg_grad_block, ctx);
}

static int neg_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    grads[0] = ag_grad_out(&t, tensor_neg(g));
    return ag_grad_done(&t);
}

Tensor *tensor_neg(Tensor *x) { return unary_forward(AG_OP_NEG, neg_block, x); }

const AgOpInfo ag_op_neg = UNARY_ROW_INT(NEG, neg, "-x", "grad_x = -g", "NegBackward", READS_NONE);

/* ======================================================================
 * reciprocal: y = 1 / x; dx = -g * (y * y), PyTorch's formula (y * y
 * first). Python's number / tensor is PyTorch's reciprocal(x) * number.
 * ====================================================================== */

static void reciprocal_block(const double *x, double *y, const double *p) {
    (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = 1.0 / x[i];
}

static void reciprocal_grad_block(const double *x, const double *y, const double *g, double *dx,
                                  const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = -g[i] * (y[i] * y[i]);
}

/* float32: y * y rounded to float, then the product */
static void reciprocal_f32_grad_block(const double *x, const double *y, const double *g,
                                      double *dx, const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float yf = (float)y[i], yy = yf * yf;
        dx[i] = -(float)g[i] * yy;
    }
}

static void reciprocal_backward(Function *self, void *ctx, Tensor *g) {
    if (ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, reciprocal_f32_grad_block, NULL, ctx);
    else
        unary_backward(self, g, reciprocal_grad_block, ctx);
}

static int reciprocal_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    Tensor *y = self->output;
    grads[0] = ag_grad_out(&t, tensor_mul(ag_grad_tmp(&t, tensor_neg(g)), ag_grad_tmp(&t, tensor_mul(y, y))));
    return ag_grad_done(&t);
}

Tensor *tensor_reciprocal(Tensor *x) { return unary_forward(AG_OP_RECIPROCAL, reciprocal_block, x); }

const AgOpInfo ag_op_reciprocal = UNARY_ROW(RECIPROCAL, reciprocal, "1 / x",
                                            "grad_x = -g * (y * y), y = 1 / x",
                                            "ReciprocalBackward", READS_Y);

/* ======================================================================
 * clone: y = x, a copy recorded in the graph; dx = g
 * ====================================================================== */

static void clone_block(const double *x, double *y, const double *p) {
    (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = x[i];
}

static void clone_grad_block(const double *x, const double *y, const double *g, double *dx,
                             const double *p) {
    (void)x, (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i];
}

static void clone_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward(self, g, clone_grad_block, ctx);
}

static int clone_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    grads[0] = tensor_retain(g);
    return ag_grad_done(&t);
}

Tensor *tensor_clone(Tensor *x) { return unary_forward(AG_OP_CLONE, clone_block, x); }

const AgOpInfo ag_op_clone =
    UNARY_ROW_INT(CLONE, clone, "a copy of x (the gradient flows through it)", "grad_x = g",
              "CloneBackward", READS_NONE);

/* ======================================================================
 * sinh: y = sinh x; dx = g * cosh x.  cosh: y = cosh x; dx = g * sinh x
 * ====================================================================== */

static void sinh_block(const double *x, double *y, const double *p) {
    (void)p;
    for (int i = 0; i < BLOCK; i++) y[i] = sinh(x[i]);
}

static void sinh_grad_block(const double *x, const double *y, const double *g, double *dx,
                            const double *p) {
    (void)y, (void)p;
    for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * cosh(x[i]);
}

/* float32: sinhf and coshf, SLEEF's on steps of 16 and libm's on the tail
 * (cpu_kernel_vec), each gradient g times the other function's float
 * kernel, which has the same tail */
#define HYPERBOLIC_F32(name, other)                                                          \
    F32_MAP_BLOCK(name)                                                                      \
    static void name##_f32_tail(const double *x, double *y, const double *p) {              \
        (void)p;                                                                             \
        _Alignas(64) float t[BLOCK];                                                         \
        f32_in(x, t);                                                                        \
        ag_libm_f32_##name(t, t);                                                            \
        f32_out(t, y);                                                                       \
    }                                                                                        \
    static void name##_f32_grad_block(const double *x, const double *y, const double *g,    \
                                      double *dx, const double *p) {                         \
        (void)y, (void)p;                                                                    \
        _Alignas(64) float t[BLOCK];                                                         \
        f32_in(x, t);                                                                        \
        block_f32_##other(t, t);                                                             \
        SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = (float)g[i] * t[i];                \
    }                                                                                        \
    static void name##_f32_grad_tail(const double *x, const double *y, const double *g,     \
                                     double *dx, const double *p) {                          \
        (void)y, (void)p;                                                                    \
        _Alignas(64) float t[BLOCK];                                                         \
        f32_in(x, t);                                                                        \
        ag_libm_f32_##other(t, t);                                                           \
        SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = (float)g[i] * t[i];                \
    }
HYPERBOLIC_F32(sinh, cosh)
HYPERBOLIC_F32(cosh, sinh)
#undef HYPERBOLIC_F32

static void sinh_backward(Function *self, void *ctx, Tensor *g) {
    if (ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, sinh_f32_grad_block, sinh_f32_grad_tail, ctx);
    else
        unary_backward(self, g, sinh_grad_block, ctx);
}

static int sinh_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0];
    grads[0] = ag_grad_out(&t, tensor_mul(g, ag_grad_tmp(&t, tensor_cosh(x))));
    return ag_grad_done(&t);
}

Tensor *tensor_sinh(Tensor *x) {
    if (ag_is_f32(x)) return unary_forward_f32(AG_OP_SINH, sinh_f32_block, sinh_f32_tail, x, NULL, 0);
    return unary_forward(AG_OP_SINH, sinh_block, x);
}

const AgOpInfo ag_op_sinh =
    UNARY_ROW(SINH, sinh, "hyperbolic sine", "grad_x = g * cosh(x)", "SinhBackward", READS_X);

static void cosh_block(const double *x, double *y, const double *p) {
    (void)p;
    for (int i = 0; i < BLOCK; i++) y[i] = cosh(x[i]);
}

static void cosh_grad_block(const double *x, const double *y, const double *g, double *dx,
                            const double *p) {
    (void)y, (void)p;
    for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * sinh(x[i]);
}

static void cosh_backward(Function *self, void *ctx, Tensor *g) {
    if (ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, cosh_f32_grad_block, cosh_f32_grad_tail, ctx);
    else
        unary_backward(self, g, cosh_grad_block, ctx);
}

static int cosh_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0];
    grads[0] = ag_grad_out(&t, tensor_mul(g, ag_grad_tmp(&t, tensor_sinh(x))));
    return ag_grad_done(&t);
}

Tensor *tensor_cosh(Tensor *x) {
    if (ag_is_f32(x)) return unary_forward_f32(AG_OP_COSH, cosh_f32_block, cosh_f32_tail, x, NULL, 0);
    return unary_forward(AG_OP_COSH, cosh_block, x);
}

const AgOpInfo ag_op_cosh =
    UNARY_ROW(COSH, cosh, "hyperbolic cosine", "grad_x = g * sinh(x)", "CoshBackward", READS_X);

/* ======================================================================
 * exp: y = e^x; dx = g * y
 * ====================================================================== */

static void exp_block(const double *x, double *y, const double *p) {
    (void)p;
    block_exp(x, y);
}

static void exp_grad_block(const double *x, const double *y, const double *g, double *dx,
                           const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * y[i];
}

static void exp_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward(self, g, exp_grad_block, ctx);
}

static int exp_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    Tensor *y = self->output;
    grads[0] = ag_grad_out(&t, tensor_mul(g, y));
    return ag_grad_done(&t);
}

/* float32: expf, SLEEF's; the backward's g * y is one float product, which
 * the double product of two floats rounded in ag_accumulate_grad is. */
F32_MAP_BLOCK(exp)

Tensor *tensor_exp(Tensor *x) {
    if (ag_is_f32(x)) return unary_forward_f32_map(AG_OP_EXP, exp_f32_block, block_f32_exp, x);
    return unary_forward(AG_OP_EXP, exp_block, x);
}

const AgOpInfo ag_op_exp =
    UNARY_ROW(EXP, exp, "e^x element-wise", "grad_x = g * exp(x)", "ExpBackward", READS_Y);

/* ======================================================================
 * log: y = ln x; dx = g / x
 * ====================================================================== */

static void log_block(const double *x, double *y, const double *p) {
    (void)p;
    block_log(x, y);
}

static void log_grad_block(const double *x, const double *y, const double *g, double *dx,
                           const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] / x[i];
}

static void log_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward(self, g, log_grad_block, ctx);
}

static int log_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0];
    grads[0] = ag_grad_out(&t, tensor_div(g, x));
    return ag_grad_done(&t);
}

/* float32: logf, SLEEF's; g / x is one division, as exp's product */
F32_MAP_BLOCK(log)

Tensor *tensor_log(Tensor *x) {
    if (ag_is_f32(x)) return unary_forward_f32_map(AG_OP_LOG, log_f32_block, block_f32_log, x);
    return unary_forward(AG_OP_LOG, log_block, x);
}

const AgOpInfo ag_op_log =
    UNARY_ROW(LOG, log, "natural logarithm", "grad_x = g / x", "LogBackward", READS_X);

/* ======================================================================
 * log10, log2: y = log_b x; dx = g / (x ln b), PyTorch's formula (its
 * constant ln b, a multiplication then a division)
 * ====================================================================== */

static void log10_block(const double *x, double *y, const double *p) {
    (void)p;
    block_log10(x, y);
}

static void log10_grad_block(const double *x, const double *y, const double *g, double *dx,
                             const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] / (x[i] * 2.3025850929940456);
}

/* float32: x * ln b rounded to float (ln b as a float: PyTorch's scalar
 * converted to the tensor's type), then the division */
static void log10_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                               const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float d = (float)x[i] * (float)2.3025850929940456;
        dx[i] = (float)g[i] / d;
    }
}

static void log10_backward(Function *self, void *ctx, Tensor *g) {
    if (ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, log10_f32_grad_block, NULL, ctx);
    else
        unary_backward(self, g, log10_grad_block, ctx);
}

static int log10_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0];
    grads[0] = ag_grad_out(&t, tensor_div(g, ag_grad_tmp(&t, tensor_mul(x, ag_grad_num(&t, 2.3025850929940456)))));
    return ag_grad_done(&t);
}

F32_MAP_BLOCK(log10)

Tensor *tensor_log10(Tensor *x) {
    if (ag_is_f32(x)) return unary_forward_f32_map(AG_OP_LOG10, log10_f32_block, block_f32_log10, x);
    return unary_forward(AG_OP_LOG10, log10_block, x);
}

const AgOpInfo ag_op_log10 = UNARY_ROW(LOG10, log10, "base-10 logarithm",
                                       "grad_x = g / (x ln 10)", "Log10Backward", READS_X);

static void log2_block(const double *x, double *y, const double *p) {
    (void)p;
    block_log2(x, y);
}

static void log2_grad_block(const double *x, const double *y, const double *g, double *dx,
                            const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] / (x[i] * 0.6931471805599453);
}

/* float32: x * ln b rounded to float (ln b as a float: PyTorch's scalar
 * converted to the tensor's type), then the division */
static void log2_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                               const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float d = (float)x[i] * (float)0.6931471805599453;
        dx[i] = (float)g[i] / d;
    }
}

static void log2_backward(Function *self, void *ctx, Tensor *g) {
    if (ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, log2_f32_grad_block, NULL, ctx);
    else
        unary_backward(self, g, log2_grad_block, ctx);
}

static int log2_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0];
    grads[0] = ag_grad_out(&t, tensor_div(g, ag_grad_tmp(&t, tensor_mul(x, ag_grad_num(&t, 0.6931471805599453)))));
    return ag_grad_done(&t);
}

F32_MAP_BLOCK(log2)

Tensor *tensor_log2(Tensor *x) {
    if (ag_is_f32(x)) return unary_forward_f32_map(AG_OP_LOG2, log2_f32_block, block_f32_log2, x);
    return unary_forward(AG_OP_LOG2, log2_block, x);
}

const AgOpInfo ag_op_log2 = UNARY_ROW(LOG2, log2, "base-2 logarithm",
                                      "grad_x = g / (x ln 2)", "Log2Backward", READS_X);

/* ======================================================================
 * sqrt: y = x^(1/2); dx = g / (2 y)
 * ====================================================================== */

static void sqrt_block(const double *x, double *y, const double *p) {
    (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = sqrt(x[i]);
}

static void sqrt_grad_block(const double *x, const double *y, const double *g, double *dx,
                            const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] / (2.0 * y[i]);
}

static void sqrt_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward(self, g, sqrt_grad_block, ctx);
}

static int sqrt_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    Tensor *y = self->output;
    grads[0] = ag_grad_out(&t, tensor_div(g, ag_grad_tmp(&t, tensor_mul(ag_grad_num(&t, 2.0), y))));
    return ag_grad_done(&t);
}

Tensor *tensor_sqrt(Tensor *x) { return unary_forward(AG_OP_SQRT, sqrt_block, x); }

const AgOpInfo ag_op_sqrt =
    UNARY_ROW(SQRT, sqrt, "square root", "grad_x = g / (2 sqrt(x))", "SqrtBackward", READS_Y);

/* ======================================================================
 * tanh: y = tanh x; dx = g * (1 - y^2)
 * ====================================================================== */

static void tanh_block(const double *x, double *y, const double *p) {
    (void)p;
    block_tanh(x, y);
}

static void tanh_grad_block(const double *x, const double *y, const double *g, double *dx,
                            const double *p) {
    (void)x, (void)p;
    /* 1 - y*y rounded once, as PyTorch's kernel computes it (its build
     * contracts the product and the difference into one fused multiply-add):
     * the same bits, e.g. 0.49999999999999994, not 0.4999999999999999, at
     * y = tanh(0.8813735870195432), micrograd's neuron. */
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * fma(-y[i], y[i], 1.0);
}

/* float32: tanh_backward's float kernel, 1 - y*y fused as above */
static void tanh_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                                const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float yf = (float)y[i];
        dx[i] = (float)g[i] * fmaf(-yf, yf, 1.0f);
    }
}

static void tanh_backward(Function *self, void *ctx, Tensor *g) {
    if (ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, tanh_f32_grad_block, NULL, ctx);
    else
        unary_backward(self, g, tanh_grad_block, ctx);
}

static int tanh_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    Tensor *y = self->output;
    grads[0] = ag_grad_out(&t, tensor_tanh_backward(g, y));
    return ag_grad_done(&t);
}

F32_MAP_BLOCK(tanh)

Tensor *tensor_tanh(Tensor *x) {
    if (ag_is_f32(x)) return unary_forward_f32_map(AG_OP_TANH, tanh_f32_block, block_f32_tanh, x);
    return unary_forward(AG_OP_TANH, tanh_block, x);
}

const AgOpInfo ag_op_tanh = UNARY_ROW(TANH, tanh, "hyperbolic tangent",
                                      "grad_x = g * (1 - tanh(x)^2)", "TanhBackward", READS_Y);

/* ======================================================================
 * sigmoid: y = 1/(1+e^-x); dx = g * (1 - y) * y (PyTorch's order).
 * PyTorch's formula as written, for every x: e/(1+e) with e = e^x below 0
 * keeps more precision but differed from PyTorch's value by an ulp or two
 * at half the negative x, and below -709 gave a subnormal where exp(-x)
 * overflows and PyTorch gives 0. exp is SLEEF's (PyTorch's vector
 * kernel), libm's on the last n % 8 elements (its scalar tail:
 * elementwise.h).
 * ====================================================================== */

static ALWAYS_INLINE void sigmoid_body(const double *x, double *y, MathBlock exp_) {
    _Alignas(64) double e[BLOCK];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) e[i] = -x[i];
    exp_(e, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = 1.0 / (1.0 + e[i]);
}

static void sigmoid_block(const double *x, double *y, const double *p) {
    (void)p;
    sigmoid_body(x, y, block_exp);
}

static void sigmoid_tail(const double *x, double *y, const double *p) {
    (void)p;
    sigmoid_body(x, y, ag_tail_exp);
}

/* float32: the same formula in float, expf SLEEF's on whole steps of 16
 * and libm's on the tail */
static ALWAYS_INLINE void sigmoid_f32_body(const double *x, double *y, MathBlockF32 exp_) {
    _Alignas(64) float e[BLOCK];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) e[i] = -(float)x[i];
    exp_(e, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = 1.0f / (1.0f + e[i]);
}

static void sigmoid_f32_block(const double *x, double *y, const double *p) {
    (void)p;
    sigmoid_f32_body(x, y, block_f32_exp);
}

static void sigmoid_f32_tail(const double *x, double *y, const double *p) {
    (void)p;
    sigmoid_f32_body(x, y, ag_libm_f32_exp);
}

static void sigmoid_f32_grad_block(const double *x, const double *y, const double *g,
                                   double *dx, const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float yf = (float)y[i], a = (float)g[i] * (1.0f - yf);
        dx[i] = a * yf;
    }
}

static void sigmoid_grad_block(const double *x, const double *y, const double *g, double *dx,
                               const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * (1.0 - y[i]) * y[i];
}

static void sigmoid_backward(Function *self, void *ctx, Tensor *g) {
    if (ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, sigmoid_f32_grad_block, NULL, ctx);
    else
        unary_backward(self, g, sigmoid_grad_block, ctx);
}

void ag_sigmoid_values(const double *x, double *y, int64_t n) {
    forward_blocks_tail(sigmoid_block, sigmoid_tail, x, y, n, NULL);
}

static int sigmoid_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    Tensor *y = self->output;
    Tensor *one_minus = ag_grad_tmp(&t, tensor_sub(ag_grad_num(&t, 1.0), y));
    grads[0] = ag_grad_out(&t, tensor_mul(ag_grad_tmp(&t, tensor_mul(g, one_minus)), y));
    return ag_grad_done(&t);
}

Tensor *tensor_sigmoid(Tensor *x) {
    if (ag_is_f32(x))
        return unary_forward_f32(AG_OP_SIGMOID, sigmoid_f32_block, sigmoid_f32_tail, x, NULL, 0);
    return unary_forward_tail(AG_OP_SIGMOID, sigmoid_block, sigmoid_tail, x, NULL, 0);
}

const AgOpInfo ag_op_sigmoid = UNARY_ROW(SIGMOID, sigmoid, "1 / (1 + e^-x)",
                                         "grad_x = g * s * (1 - s), s = sigmoid(x)",
                                         "SigmoidBackward", READS_Y);

/* ======================================================================
 * relu: y = max(x, 0), PyTorch's clamp_min: x itself unless x < 0, so a
 * NaN passes and relu(-0) is -0. dx = 0 where y <= 0, else g (PyTorch's
 * threshold_backward on the result): a selection, not a product, so an inf
 * or nan g at x < 0 still gives 0, and the gradient passes at x = nan.
 * ====================================================================== */

static void relu_block(const double *x, double *y, const double *p) {
    (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = x[i] < 0.0 ? 0.0 : x[i];
}

static void relu_grad_block(const double *x, const double *y, const double *g, double *dx,
                            const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = y[i] <= 0.0 ? 0.0 : g[i];
}

static void relu_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward(self, g, relu_grad_block, ctx);
}

/* threshold_backward(g, y), not where(y <= 0, 0, g): PyTorch's gradient
 * depends on y, so it requires grad when y does (binary.c) */
static int relu_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    grads[0] = ag_grad_out(&t, tensor_threshold_backward(g, self->output));
    return ag_grad_done(&t);
}

Tensor *tensor_relu(Tensor *x) { return unary_forward(AG_OP_RELU, relu_block, x); }

const AgOpInfo ag_op_relu = UNARY_ROW_INT(RELU, relu, "max(x, 0)",
                                      "grad_x = g where x > 0 (or x is nan), else 0",
                                      "ReluBackward", READS_Y);

/* ======================================================================
 * abs: y = |x|; dx = g * sign(x), sign(0) = sign(nan) = 0: a product
 * (PyTorch's g * sgn(x)), so an inf or nan g at 0 gives nan.
 * ====================================================================== */

static void abs_block(const double *x, double *y, const double *p) {
    (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = fabs(x[i]);
}

static void abs_grad_block(const double *x, const double *y, const double *g, double *dx,
                           const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * (double)((x[i] > 0.0) - (x[i] < 0.0));
}

static void abs_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward(self, g, abs_grad_block, ctx);
}

static int abs_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0];
    grads[0] = ag_grad_out(&t, tensor_mul(g, ag_grad_tmp(&t, tensor_sign(x))));
    return ag_grad_done(&t);
}

Tensor *tensor_abs(Tensor *x) { return unary_forward(AG_OP_ABS, abs_block, x); }

const AgOpInfo ag_op_abs =
    UNARY_ROW_INT(ABS, abs, "|x|", "grad_x = g * sign(x) (0 at x = 0)", "AbsBackward", READS_X);

/* ======================================================================
 * sin: y = sin x; dx = g * cos x
 * ====================================================================== */

static void sin_block(const double *x, double *y, const double *p) {
    (void)p;
    block_sin(x, y);
}

static void sin_grad_block(const double *x, const double *y, const double *g, double *dx,
                           const double *p) {
    (void)y, (void)p;
    _Alignas(64) double c[BLOCK];
    block_cos(x, c);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * c[i];
}

/* float32: g * cosf(x), cos SLEEF's on every element (its own vml kernel) */
static void sin_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                               const double *p) {
    (void)y, (void)p;
    _Alignas(64) float c[BLOCK];
    f32_in(x, c);
    block_f32_cos(c, c);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = (float)g[i] * c[i];
}

static void sin_backward(Function *self, void *ctx, Tensor *g) {
    if (ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, sin_f32_grad_block, NULL, ctx);
    else
        unary_backward(self, g, sin_grad_block, ctx);
}

static int sin_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0];
    grads[0] = ag_grad_out(&t, tensor_mul(g, ag_grad_tmp(&t, tensor_cos(x))));
    return ag_grad_done(&t);
}

F32_MAP_BLOCK(sin)

Tensor *tensor_sin(Tensor *x) {
    if (ag_is_f32(x)) return unary_forward_f32_map(AG_OP_SIN, sin_f32_block, block_f32_sin, x);
    return unary_forward(AG_OP_SIN, sin_block, x);
}

const AgOpInfo ag_op_sin =
    UNARY_ROW(SIN, sin, "sine", "grad_x = g * cos(x)", "SinBackward", READS_X);

/* ======================================================================
 * cos: y = cos x; dx = -g * sin x
 * ====================================================================== */

static void cos_block(const double *x, double *y, const double *p) {
    (void)p;
    block_cos(x, y);
}

static void cos_grad_block(const double *x, const double *y, const double *g, double *dx,
                           const double *p) {
    (void)y, (void)p;
    _Alignas(64) double s[BLOCK];
    block_sin(x, s);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = -g[i] * s[i];
}

/* float32: g * -sinf(x), sin SLEEF's on every element */
static void cos_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                               const double *p) {
    (void)y, (void)p;
    _Alignas(64) float s[BLOCK];
    f32_in(x, s);
    block_f32_sin(s, s);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = (float)g[i] * -s[i];
}

static void cos_backward(Function *self, void *ctx, Tensor *g) {
    if (ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, cos_f32_grad_block, NULL, ctx);
    else
        unary_backward(self, g, cos_grad_block, ctx);
}

static int cos_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0];
    grads[0] = ag_grad_out(&t, tensor_mul(ag_grad_tmp(&t, tensor_neg(g)), ag_grad_tmp(&t, tensor_sin(x))));
    return ag_grad_done(&t);
}

F32_MAP_BLOCK(cos)

Tensor *tensor_cos(Tensor *x) {
    if (ag_is_f32(x)) return unary_forward_f32_map(AG_OP_COS, cos_f32_block, block_f32_cos, x);
    return unary_forward(AG_OP_COS, cos_block, x);
}

const AgOpInfo ag_op_cos =
    UNARY_ROW(COS, cos, "cosine", "grad_x = -g * sin(x)", "CosBackward", READS_X);

/* ======================================================================
 * sign: y = 1 where x > 0, -1 where x < 0, else 0 (0 at -0 and at nan, as
 * PyTorch); dx = 0: sign is flat wherever it is differentiable (PyTorch
 * records it and sends zeros).
 * ====================================================================== */

static void sign_block(const double *x, double *y, const double *p) {
    (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = (double)((x[i] > 0.0) - (x[i] < 0.0));
}

static void sign_grad_block(const double *x, const double *y, const double *g, double *dx,
                            const double *p) {
    (void)x, (void)y, (void)g, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = 0.0;
}

static void sign_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward(self, g, sign_grad_block, ctx);
}

static int sign_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self, (void)ctx;
    GradTemps t = {0};
    grads[0] = ag_grad_out(&t, ag_tensor_filled_like(g, 0.0));
    return ag_grad_done(&t);
}

Tensor *tensor_sign(Tensor *x) { return unary_forward(AG_OP_SIGN, sign_block, x); }

const AgOpInfo ag_op_sign = UNARY_ROW_INT(SIGN, sign, "-1, 0 or 1: the sign of x (0 at nan)",
                                      "grad_x = 0", "SignBackward", READS_NONE);

/* ======================================================================
 * round (halves to even, as PyTorch's std::nearbyint), floor, ceil and
 * trunc: flat wherever differentiable, so dx = 0, as sign's (PyTorch
 * records them and sends zeros). An integer x keeps its dtype and values.
 * ====================================================================== */

#define ROUNDING_OP(NAME, ID, EXPR, HELP, BACKWARD_NAME, FLAGS)                            \
    static void NAME##_block(const double *x, double *y, const double *p) {              \
        (void)p;                                                                          \
        SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = EXPR(x[i]);                      \
    }                                                                                     \
    static void NAME##_backward(Function *self, void *ctx, Tensor *g) {                  \
        unary_backward(self, g, sign_grad_block, ctx);                                    \
    }                                                                                     \
    static int NAME##_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {      \
        return sign_graph(self, ctx, g, grads);                                           \
    }                                                                                     \
    Tensor *tensor_##NAME(Tensor *x) { return unary_forward(AG_OP_##ID, NAME##_block, x); } \
    const AgOpInfo ag_op_##NAME = {                                                       \
        .id = AG_OP_##ID, .name = #NAME, .signature = #NAME "(input)", .params = "T",     \
        .help = HELP, .rule = "grad_x = 0", .backward_name = BACKWARD_NAME,               \
        .unary = tensor_##NAME, .backward = NAME##_backward, .graph_backward = NAME##_graph, \
        .flags = AG_OP_METHOD | AG_OP_SAVES_READS | (FLAGS), .grad_reads = {READS_NONE},  \
        .dtype_rule = AG_DTYPE_PROMOTE};

/* round has no builtin of its own: the shell's round(number, ndigits)
 * takes a tensor to it (torch.round(x), x.round(), round(x)). */
ROUNDING_OP(round, ROUND, nearbyint, "x rounded to the nearest integer, halves to even",
            "RoundBackward", AG_OP_HIDDEN)
ROUNDING_OP(floor, FLOOR, floor, "the largest integer <= x", "FloorBackward", 0)
ROUNDING_OP(ceil, CEIL, ceil, "the smallest integer >= x", "CeilBackward", 0)
ROUNDING_OP(trunc, TRUNC, trunc, "x without its fraction (toward 0)", "TruncBackward", 0)
#undef ROUNDING_OP
