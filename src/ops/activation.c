/*
 * activation.c — torch.nn.functional's element-wise activations:
 * leaky_relu, elu, gelu, silu, relu6, hardsigmoid, hardswish, softplus.
 * Each is PyTorch 1.13's CPU kernel formula for formula (the same
 * operations in the same order, so the same roundings), forward and
 * backward. Where PyTorch's vectorised kernel and its scalar one disagree
 * (the gradient of elu and relu6 at nan, of hardswish at 3 and at nan),
 * ag follows the scalar one: what a one-element tensor gives. The ops that
 * call exp, tanh, erf or log1p have a second block for PyTorch's scalar
 * tail, the last n % 8 elements (elementwise.h): the same formula on
 * libm's functions, where the rest have SLEEF's. Where PyTorch's build
 * fuses a product and a sum into one fused multiply-add (gcc contracts
 * them in both of its loops), ag calls fma: the comments say where.
 *
 * As in unary.c, each op is a block of its forward loop, one of its
 * backward loop (x the input, y the output, g in the output's shape), its
 * forward, backward and table row; the numbers an op takes ride in p, and
 * its forward saves them in the ctx for the backward (elementwise.h).
 * Selects, not branches: a loop that calls exp or log1p computes them for
 * every element in a loop of its own and selects after, because gcc 12
 * does not vectorise a select beside a vector call.
 */
#include "elementwise.h"

/* Not yet written as recorded ops (issue 19): create_graph refuses these
 * ops by name until they are. */
#define silu_graph NULL
#define relu6_graph NULL
#define hardsigmoid_graph NULL
#define hardswish_graph NULL

/* ======================================================================
 * leaky_relu: y = x where x > 0, else x * slope;
 * dx = g where x > 0, else g * slope (nan takes the slope side)
 * ====================================================================== */

static void leaky_relu_block(const double *x, double *y, const double *p) {
    const double slope = p[0];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = x[i] > 0.0 ? x[i] : x[i] * slope;
}

static void leaky_relu_grad_block(const double *x, const double *y, const double *g, double *dx,
                                  const double *p) {
    (void)y;
    const double slope = p[0];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = x[i] > 0.0 ? g[i] : g[i] * slope;
}

static void leaky_relu_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward(self, g, leaky_relu_grad_block, ctx);
}

Tensor *tensor_leaky_relu(Tensor *x, double negative_slope) {
    return unary_forward_with(AG_OP_LEAKY_RELU, leaky_relu_block, x, &negative_slope, 1);
}

/* The shell passes None for a number as has_num false. */
static Tensor *leaky_relu_call(const AgOpArgs *a) {
    if (!a->has_num[0]) return ag_fail("leaky_relu: negative_slope must be a number, not None");
    return tensor_leaky_relu(a->t[0], a->num[0]);
}

const AgOpInfo ag_op_leaky_relu = {
    .id = AG_OP_LEAKY_RELU, .name = "leaky_relu",
    .signature = "leaky_relu(input, negative_slope=0.01)", .params = "Tn",
    .help = "x where x > 0, else negative_slope * x",
    .rule = "grad_x = g where x > 0, else g * negative_slope", .backward_name = "LeakyReluBackward",
    .call = leaky_relu_call, .backward = leaky_relu_backward, .flags = AG_OP_METHOD,
    .dtype_rule = AG_DTYPE_FLOATING,
};

/* ======================================================================
 * elu: y = x where x > 0 (or nan), else (e^x - 1) * alpha;
 * dx = g where x > 0 (or nan), else g * alpha * e^x
 * (PyTorch's elu and elu_backward on the input, with scale and
 * input_scale 1: e^x - 1, not expm1, and (g * alpha) * e^x in that order)
 * ====================================================================== */

static ALWAYS_INLINE void elu_body(const double *x, double *y, const double *p, MathBlock exp_) {
    const double alpha = p[0];
    _Alignas(64) double e[BLOCK];
    exp_(x, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = x[i] <= 0.0 ? (e[i] - 1.0) * alpha : x[i];
}

static void elu_block(const double *x, double *y, const double *p) { elu_body(x, y, p, block_exp); }
static void elu_tail(const double *x, double *y, const double *p) { elu_body(x, y, p, ag_tail_exp); }

static ALWAYS_INLINE void elu_grad_body(const double *x, const double *g, double *dx,
                                        const double *p, MathBlock exp_) {
    const double alpha = p[0];
    _Alignas(64) double e[BLOCK];
    exp_(x, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = x[i] <= 0.0 ? g[i] * alpha * e[i] : g[i];
}

static void elu_grad_block(const double *x, const double *y, const double *g, double *dx,
                           const double *p) {
    (void)y;
    elu_grad_body(x, g, dx, p, block_exp);
}

static void elu_grad_tail(const double *x, const double *y, const double *g, double *dx,
                          const double *p) {
    (void)y;
    elu_grad_body(x, g, dx, p, ag_tail_exp);
}

static void elu_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward_tail(self, g, elu_grad_block, elu_grad_tail, ctx);
}

Tensor *tensor_elu(Tensor *x, double alpha) {
    return unary_forward_tail(AG_OP_ELU, elu_block, elu_tail, x, &alpha, 1);
}

static Tensor *elu_call(const AgOpArgs *a) {
    if (!a->has_num[0]) return ag_fail("elu: alpha must be a number, not None");
    return tensor_elu(a->t[0], a->num[0]);
}

const AgOpInfo ag_op_elu = {
    .id = AG_OP_ELU, .name = "elu", .signature = "elu(input, alpha=1.0)", .params = "Tn",
    .help = "x where x > 0, else alpha * (e^x - 1)",
    .rule = "grad_x = g where x > 0 (or x is nan), else g * alpha * exp(x)",
    .backward_name = "EluBackward", .call = elu_call, .backward = elu_backward,
    .flags = AG_OP_METHOD,
    .dtype_rule = AG_DTYPE_FLOATING,
};

/* ======================================================================
 * gelu: y = x * Phi(x), Phi the standard normal's cdf:
 *   exact ('none'): y = x * 0.5 * (1 + erf(x / sqrt 2));
 *                   dx = g * (Phi(x) + x * phi(x)), phi(x) = e^(-x^2/2) / sqrt(2 pi)
 *   'tanh':         y = 0.5 x (1 + tanh(k (x + 0.044715 x^3))), k = sqrt(2 / pi);
 *                   dx = g times its derivative, as PyTorch writes it
 * p[0]: 0 exact, 1 tanh.
 * ====================================================================== */

static const double SQRT_HALF = 0x1.6a09e667f3bcdp-1;     /* M_SQRT1_2 */
static const double TWO_OVER_SQRT_PI = 0x1.20dd750429b6dp+0; /* M_2_SQRTPI */
static const double SQRT_TWO = 0x1.6a09e667f3bcdp+0;       /* M_SQRT2 */
static const double GELU_KAPPA = 0.044715;

static ALWAYS_INLINE void gelu_body(const double *x, double *y, MathBlock erf_) {
    _Alignas(64) double e[BLOCK];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) e[i] = x[i] * SQRT_HALF;
    erf_(e, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = x[i] * 0.5 * (1.0 + e[i]);
}

static void gelu_block(const double *x, double *y, const double *p) {
    (void)p;
    gelu_body(x, y, block_erf);
}

static void gelu_tail(const double *x, double *y, const double *p) {
    (void)p;
    gelu_body(x, y, ag_tail_erf);
}

/* cdf + x * pdf: fused in PyTorch's vector loop, not in its scalar one
 * (gcc contracted the one and not the other). */
static ALWAYS_INLINE void gelu_grad_body(const double *x, const double *g, double *dx,
                                         MathBlock erf_, MathBlock exp_, bool fused) {
    const double beta = TWO_OVER_SQRT_PI * SQRT_HALF * 0.5; /* 1 / sqrt(2 pi) */
    _Alignas(64) double e[BLOCK], q[BLOCK];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) e[i] = x[i] * SQRT_HALF, q[i] = x[i] * x[i] * -0.5;
    erf_(e, e);
    exp_(q, q);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        double cdf = 0.5 * (1.0 + e[i]);
        double pdf = beta * q[i];
        dx[i] = g[i] * (fused ? fma(x[i], pdf, cdf) : cdf + x[i] * pdf);
    }
}

static void gelu_grad_block(const double *x, const double *y, const double *g, double *dx,
                            const double *p) {
    (void)y, (void)p;
    gelu_grad_body(x, g, dx, block_erf, block_exp, true);
}

static void gelu_grad_tail(const double *x, const double *y, const double *g, double *dx,
                           const double *p) {
    (void)y, (void)p;
    gelu_grad_body(x, g, dx, ag_tail_erf, ag_tail_exp, false);
}

/* The tanh form's inner k (x + 0.044715 x^3), its sum fused. */
static ALWAYS_INLINE void gelu_tanh_inner(const double *x, double *t) {
    const double beta = SQRT_TWO * TWO_OVER_SQRT_PI * 0.5; /* sqrt(2 / pi) */
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) t[i] = beta * fma(GELU_KAPPA, x[i] * x[i] * x[i], x[i]);
}

static ALWAYS_INLINE void gelu_tanh_body(const double *x, double *y, MathBlock tanh_) {
    _Alignas(64) double t[BLOCK];
    gelu_tanh_inner(x, t);
    tanh_(t, t);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = 0.5 * x[i] * (1.0 + t[i]);
}

static void gelu_tanh_block(const double *x, double *y, const double *p) {
    (void)p;
    gelu_tanh_body(x, y, block_tanh);
}

static void gelu_tanh_tail(const double *x, double *y, const double *p) {
    (void)p;
    gelu_tanh_body(x, y, ag_tail_tanh);
}

/* PyTorch's steps; 1 - tanh^2 and 1 + 3 kappa x^2 fused, as its build
 * computes them (1 - tanh^2 rounded once: 76 ulps apart at x = -3). */
static ALWAYS_INLINE void gelu_tanh_grad_body(const double *x, const double *g, double *dx,
                                              MathBlock tanh_) {
    const double beta = SQRT_TWO * TWO_OVER_SQRT_PI * 0.5;
    _Alignas(64) double t[BLOCK];
    gelu_tanh_inner(x, t);
    tanh_(t, t);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        double x_sq = x[i] * x[i];
        double tanh_inner = t[i];
        double left = 0.5 * x[i], right = 1.0 + tanh_inner;
        double left_derivative = 0.5 * right;
        double tanh_derivative = fma(-tanh_inner, tanh_inner, 1.0);
        double inner_derivative = beta * fma(3.0 * GELU_KAPPA, x_sq, 1.0);
        double right_derivative = left * tanh_derivative * inner_derivative;
        dx[i] = g[i] * (left_derivative + right_derivative);
    }
}

static void gelu_tanh_grad_block(const double *x, const double *y, const double *g, double *dx,
                                 const double *p) {
    (void)y, (void)p;
    gelu_tanh_grad_body(x, g, dx, block_tanh);
}

static void gelu_tanh_grad_tail(const double *x, const double *y, const double *g, double *dx,
                                const double *p) {
    (void)y, (void)p;
    gelu_tanh_grad_body(x, g, dx, ag_tail_tanh);
}

static void gelu_backward(Function *self, void *ctx, Tensor *g) {
    const double *p = ctx;
    if (p[0] != 0.0)
        unary_backward_tail(self, g, gelu_tanh_grad_block, gelu_tanh_grad_tail, p);
    else
        unary_backward_tail(self, g, gelu_grad_block, gelu_grad_tail, p);
}

Tensor *tensor_gelu(Tensor *x) {
    return unary_forward_tail(AG_OP_GELU, gelu_block, gelu_tail, x, (const double[]){0.0}, 1);
}

Tensor *tensor_gelu_tanh(Tensor *x) {
    return unary_forward_tail(AG_OP_GELU, gelu_tanh_block, gelu_tanh_tail, x,
                              (const double[]){1.0}, 1);
}

static Tensor *gelu_call(const AgOpArgs *a) {
    if (a->str_len == 4 && memcmp(a->str, "none", 4) == 0) return tensor_gelu(a->t[0]);
    if (a->str_len == 4 && memcmp(a->str, "tanh", 4) == 0) return tensor_gelu_tanh(a->t[0]);
    return ag_fail("gelu: approximate must be 'none' or 'tanh', not '%.*s'",
                   (int)(a->str_len > 40 ? 40 : a->str_len), a->str);
}

const AgOpInfo ag_op_gelu = {
    .id = AG_OP_GELU, .name = "gelu", .signature = "gelu(input, approximate='none')",
    .params = "Ts", .help = "x * Phi(x), Phi the normal cdf (approximate='tanh': its tanh form)",
    .rule = "grad_x = g * (Phi(x) + x * phi(x)), Phi and phi the normal cdf and pdf "
            "(approximate='tanh': g times the tanh form's derivative)",
    .backward_name = "GeluBackward", .call = gelu_call, .backward = gelu_backward,
    .flags = AG_OP_METHOD,
    .dtype_rule = AG_DTYPE_FLOATING,
};

/* ======================================================================
 * silu: y = x / (1 + e^-x); dx = g * s * (1 + x * (1 - s)), s = sigmoid(x)
 * ====================================================================== */

static ALWAYS_INLINE void silu_body(const double *x, double *y, MathBlock exp_) {
    _Alignas(64) double e[BLOCK];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) e[i] = -x[i];
    exp_(e, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = x[i] / (1.0 + e[i]);
}

static void silu_block(const double *x, double *y, const double *p) {
    (void)p;
    silu_body(x, y, block_exp);
}

static void silu_tail(const double *x, double *y, const double *p) {
    (void)p;
    silu_body(x, y, ag_tail_exp);
}

/* 1 + x (1 - s) fused, as PyTorch's build computes it. */
static ALWAYS_INLINE void silu_grad_body(const double *x, const double *g, double *dx,
                                         MathBlock exp_) {
    _Alignas(64) double e[BLOCK];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) e[i] = -x[i];
    exp_(e, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        double s = 1.0 / (1.0 + e[i]);
        dx[i] = g[i] * s * fma(x[i], 1.0 - s, 1.0);
    }
}

static void silu_grad_block(const double *x, const double *y, const double *g, double *dx,
                            const double *p) {
    (void)y, (void)p;
    silu_grad_body(x, g, dx, block_exp);
}

static void silu_grad_tail(const double *x, const double *y, const double *g, double *dx,
                           const double *p) {
    (void)y, (void)p;
    silu_grad_body(x, g, dx, ag_tail_exp);
}

static void silu_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward_tail(self, g, silu_grad_block, silu_grad_tail, ctx);
}

Tensor *tensor_silu(Tensor *x) {
    return unary_forward_tail(AG_OP_SILU, silu_block, silu_tail, x, NULL, 0);
}

const AgOpInfo ag_op_silu = UNARY_ROW(SILU, silu, "x * sigmoid(x) (swish)",
                                      "grad_x = g * s * (1 + x * (1 - s)), s = sigmoid(x)",
                                      "SiluBackward");

/* ======================================================================
 * relu6: PyTorch's hardtanh(x, 0, 6): y = min(max(x, 0), 6), x itself
 * unless x < 0 or x > 6 (so nan passes, and -0 stays -0);
 * dx = 0 where x <= 0 or x >= 6, else g (hardtanh_backward: 0 at both
 * kinks, g at nan)
 * ====================================================================== */

static void relu6_block(const double *x, double *y, const double *p) {
    (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        double r = x[i] < 0.0 ? 0.0 : x[i];
        y[i] = 6.0 < r ? 6.0 : r;
    }
}

static void relu6_grad_block(const double *x, const double *y, const double *g, double *dx,
                             const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = x[i] <= 0.0 || x[i] >= 6.0 ? 0.0 : g[i];
}

static void relu6_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward(self, g, relu6_grad_block, ctx);
}

Tensor *tensor_relu6(Tensor *x) { return unary_forward(AG_OP_RELU6, relu6_block, x); }

const AgOpInfo ag_op_relu6 = UNARY_ROW(RELU6, relu6, "min(max(x, 0), 6)",
                                       "grad_x = g where 0 < x < 6 (or x is nan), else 0",
                                       "HardtanhBackward");

/* ======================================================================
 * hardsigmoid: y = min(max(x + 3, 0), 6) / 6;
 * dx = g * (1/6) where -3 < x < 3, else 0 (nan: 0). PyTorch's 1/6 is the
 * float 1.0f / 6.0f, 0.16666667163...: kept, so that the gradients agree.
 * ====================================================================== */

static const double ONE_SIXTH_FLOAT = (double)(1.0f / 6.0f);

static void hardsigmoid_block(const double *x, double *y, const double *p) {
    (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        double r = x[i] + 3.0;
        r = r < 0.0 ? 0.0 : r;
        y[i] = (6.0 < r ? 6.0 : r) / 6.0;
    }
}

static void hardsigmoid_grad_block(const double *x, const double *y, const double *g, double *dx,
                                   const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++)
        dx[i] = x[i] > -3.0 && x[i] < 3.0 ? g[i] * ONE_SIXTH_FLOAT : 0.0;
}

static void hardsigmoid_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward(self, g, hardsigmoid_grad_block, ctx);
}

Tensor *tensor_hardsigmoid(Tensor *x) {
    return unary_forward(AG_OP_HARDSIGMOID, hardsigmoid_block, x);
}

const AgOpInfo ag_op_hardsigmoid =
    UNARY_ROW(HARDSIGMOID, hardsigmoid, "min(max(x + 3, 0), 6) / 6",
              "grad_x = g / 6 where -3 < x < 3, else 0 (1/6 as PyTorch's float: 0.16666667163)",
              "HardsigmoidBackward");

/* ======================================================================
 * hardswish: y = x * min(max(x + 3, 0), 6) / 6;
 * dx = 0 where x < -3, g * (x / 3 + 0.5) where -3 <= x <= 3, else g
 * (so -g/2 at -3, 3g/2 at 3, g at nan)
 * ====================================================================== */

static void hardswish_block(const double *x, double *y, const double *p) {
    (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        double r = x[i] + 3.0;
        r = r < 0.0 ? 0.0 : r;
        y[i] = x[i] * (6.0 < r ? 6.0 : r) / 6.0;
    }
}

static void hardswish_grad_block(const double *x, const double *y, const double *g, double *dx,
                                 const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++)
        dx[i] = x[i] < -3.0 ? 0.0 : x[i] <= 3.0 ? g[i] * (x[i] / 3.0 + 0.5) : g[i];
}

static void hardswish_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward(self, g, hardswish_grad_block, ctx);
}

Tensor *tensor_hardswish(Tensor *x) { return unary_forward(AG_OP_HARDSWISH, hardswish_block, x); }

const AgOpInfo ag_op_hardswish =
    UNARY_ROW(HARDSWISH, hardswish, "x * min(max(x + 3, 0), 6) / 6",
              "grad_x = 0 where x < -3, g * (x / 3 + 1/2) where -3 <= x <= 3, else g",
              "HardswishBackward");

/* ======================================================================
 * softplus: y = x where x * beta > threshold, else log(1 + e^(x beta)) / beta;
 * dx = g where x * beta > threshold, else g * z / (z + 1), z = e^(x beta)
 * p: beta, threshold
 * ====================================================================== */

static ALWAYS_INLINE void softplus_body(const double *x, double *y, const double *p,
                                        MathBlock exp_, MathBlock log1p_) {
    const double beta = p[0], threshold = p[1];
    _Alignas(64) double s[BLOCK];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) s[i] = x[i] * beta;
    exp_(s, s);
    log1p_(s, s);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) s[i] = s[i] / beta;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = x[i] * beta > threshold ? x[i] : s[i];
}

static void softplus_block(const double *x, double *y, const double *p) {
    softplus_body(x, y, p, block_exp, block_log1p);
}

static void softplus_tail(const double *x, double *y, const double *p) {
    softplus_body(x, y, p, ag_tail_exp, ag_tail_log1p);
}

static ALWAYS_INLINE void softplus_grad_body(const double *x, const double *g, double *dx,
                                             const double *p, MathBlock exp_) {
    const double beta = p[0], threshold = p[1];
    _Alignas(64) double z[BLOCK];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) z[i] = x[i] * beta;
    exp_(z, z);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++)
        dx[i] = x[i] * beta > threshold ? g[i] : g[i] * z[i] / (z[i] + 1.0);
}

static void softplus_grad_block(const double *x, const double *y, const double *g, double *dx,
                                const double *p) {
    (void)y;
    softplus_grad_body(x, g, dx, p, block_exp);
}

static void softplus_grad_tail(const double *x, const double *y, const double *g, double *dx,
                               const double *p) {
    (void)y;
    softplus_grad_body(x, g, dx, p, ag_tail_exp);
}

static void softplus_backward(Function *self, void *ctx, Tensor *g) {
    unary_backward_tail(self, g, softplus_grad_block, softplus_grad_tail, ctx);
}

Tensor *tensor_softplus(Tensor *x, double beta, double threshold) {
    return unary_forward_tail(AG_OP_SOFTPLUS, softplus_block, softplus_tail, x,
                              (const double[]){beta, threshold}, 2);
}

static Tensor *softplus_call(const AgOpArgs *a) {
    if (!a->has_num[0] || !a->has_num[1])
        return ag_fail("softplus: %s must be a number, not None",
                       a->has_num[0] ? "threshold" : "beta");
    return tensor_softplus(a->t[0], a->num[0], a->num[1]);
}

const AgOpInfo ag_op_softplus = {
    .id = AG_OP_SOFTPLUS, .name = "softplus", .signature = "softplus(input, beta=1, threshold=20)",
    .params = "Tnn",
    .help = "log(1 + e^(beta x)) / beta; x itself where beta * x > threshold",
    .rule = "grad_x = g * z / (z + 1), z = exp(beta * x); g where beta * x > threshold",
    .backward_name = "SoftplusBackward", .call = softplus_call, .backward = softplus_backward,
    .flags = AG_OP_METHOD,
    .dtype_rule = AG_DTYPE_FLOATING,
};
