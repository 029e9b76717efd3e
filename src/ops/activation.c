/*
 * activation.c — torch.nn.functional's element-wise activations:
 * leaky_relu, elu, gelu, silu, relu6, hardsigmoid, hardswish, softplus,
 * and the gradients of four of them as hidden ops (elu_backward,
 * gelu_backward, silu_backward, softplus_backward), so that create_graph
 * can differentiate them again with the first-order kernels' bits.
 * Each is PyTorch 1.13's CPU kernel formula for formula (the same
 * operations in the same order, so the same roundings), forward and
 * backward. Where PyTorch's vectorised kernel and its scalar one disagree
 * (the gradient of elu and relu6 at nan, of hardswish at 3 and at nan),
 * ag follows the scalar one: what a one-element tensor gives. The ops that
 * call exp, tanh, erf or log1p have a second block for PyTorch's scalar
 * tail, the last n % 8 elements (elementwise.h): the same formula on
 * libm's functions, where the rest have SLEEF's. Where PyTorch's build
 * fuses a product and a sum into one fused multiply-add (gcc contracts
 * them in both of its loops), ag calls fma: the comments say where. For a
 * float32 x, elu, gelu, silu and softplus run float32 blocks: the same
 * formulas in float, as PyTorch's float kernels (elementwise.h).
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

/* ======================================================================
 * The gradient ops (elu_backward, gelu_backward, silu_backward,
 * softplus_backward: PyTorch's names; hidden, as tanh_backward). Their
 * activations' gradients call exp, erf or tanh with PyTorch's scalar tail
 * and fused products that no recorded op reproduces, so each gradient is
 * an op of its own: its forward runs the activation's backward blocks on
 * (g, x), the first-order kernel's bits, and its graph_backward (also its
 * first-order backward, by ag_apply_by_graph) differentiates it again:
 *   grad_g = the same op on (gg, x), grad_x = gg * g * f''(x)
 * ====================================================================== */

/* An activation's backward blocks: float64's (f, tail), float32's (f32,
 * f32_tail; NULL where the op has none: it rounds float64's result). */
typedef struct {
    BackwardBlock f, tail, f32, f32_tail;
} GradBlocks;

/* dx = g * f'(x) by an activation's backward blocks (they read x, not y),
 * float32's where g and x are float32, recorded on (g, x) with the np
 * numbers p in the ctx. */
static Tensor *grad_op_forward(int op, GradBlocks b, Tensor *g, Tensor *x, const double *p,
                               int np) {
    const char *name = ag_op_at(op)->name;
    if (!g || !x) return ag_fail("%s: an operand is NULL", name);
    if (!ag_shape_equal(g->ndim, g->shape, x->ndim, x->shape)) {
        char gs[64], xs[64];
        return ag_fail("%s: grad of shape %s and input of shape %s differ", name,
                       ag_shape_list_str(g->ndim, g->shape, gs, sizeof gs),
                       ag_shape_list_str(x->ndim, x->shape, xs, sizeof xs));
    }
    Tensor *dx = ag_tensor_new_like(g);
    if (!dx) return NULL;
    if (b.f32 && ag_is_f32(x) && ag_is_f32(g))
        backward_blocks_f32(b.f32, b.f32_tail, tensor_values(x), tensor_values(x), tensor_values(g), tensor_values(dx), dx->numel, p);
    else
        backward_blocks_tail(b.f, b.tail, tensor_values(x), tensor_values(x), tensor_values(g), tensor_values(dx), dx->numel, p);
    double *saved;
    dx = ag_graph_record(dx, op, (Tensor *[]){g, x}, 2, (void **)&saved,
                         (size_t)np * sizeof *saved);
    if (saved) memcpy(saved, p, (size_t)np * sizeof *saved);
    return dx;
}

/* grad_x of a gradient op, (gg * g) * f'': a new reference; f'' (a new
 * reference or NULL) is taken, held in t. */
static Tensor *times_gg_g(GradTemps *t, Tensor *gg, Tensor *g, Tensor *second) {
    ag_grad_tmp(t, second);
    return tensor_mul(ag_grad_tmp(t, tensor_mul(gg, g)), second);
}

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

/* leaky_relu_backward(g, x; slope): g where x > 0, else g * slope, as an op of x */
static int leaky_relu_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const double *p = ctx;
    GradTemps t = {0};
    grads[0] = ag_grad_out(&t, tensor_leaky_relu_backward(g, self->inputs[0], p[0]));
    return ag_grad_done(&t);
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
    .call = leaky_relu_call, .backward = leaky_relu_backward, .graph_backward = leaky_relu_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS, .grad_reads = {READS_X},
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

/* float32: the same in float, alpha a float: (e^x - 1) * alpha and
 * (g * alpha) * e^x, expf SLEEF's on steps of 16 and libm's on the tail */
static ALWAYS_INLINE void elu_f32_body(const double *x, double *y, const double *p,
                                       MathBlockF32 exp_) {
    const float alpha = (float)p[0];
    _Alignas(64) float xf[BLOCK], e[BLOCK];
    f32_in(x, xf);
    exp_(xf, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = xf[i] <= 0.0f ? (e[i] - 1.0f) * alpha : xf[i];
}

static void elu_f32_block(const double *x, double *y, const double *p) {
    elu_f32_body(x, y, p, block_f32_exp);
}
static void elu_f32_tail(const double *x, double *y, const double *p) {
    elu_f32_body(x, y, p, ag_libm_f32_exp);
}

static ALWAYS_INLINE void elu_f32_grad_body(const double *x, const double *g, double *dx,
                                            const double *p, MathBlockF32 exp_) {
    const float alpha = (float)p[0];
    _Alignas(64) float xf[BLOCK], e[BLOCK];
    f32_in(x, xf);
    exp_(xf, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float gf = (float)g[i];
        dx[i] = xf[i] <= 0.0f ? gf * alpha * e[i] : gf;
    }
}

static void elu_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                               const double *p) {
    (void)y;
    elu_f32_grad_body(x, g, dx, p, block_f32_exp);
}

static void elu_f32_grad_tail(const double *x, const double *y, const double *g, double *dx,
                              const double *p) {
    (void)y;
    elu_f32_grad_body(x, g, dx, p, ag_libm_f32_exp);
}

static const GradBlocks elu_grads = {elu_grad_block, elu_grad_tail, elu_f32_grad_block,
                                     elu_f32_grad_tail};

static void elu_backward(Function *self, void *ctx, Tensor *g) {
    if (ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, elu_f32_grad_block, elu_f32_grad_tail, ctx);
    else
        unary_backward_tail(self, g, elu_grad_block, elu_grad_tail, ctx);
}

static int elu_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const double *p = ctx;
    GradTemps t = {0};
    grads[0] = ag_grad_out(&t, tensor_elu_backward(g, self->inputs[0], p[0]));
    return ag_grad_done(&t);
}

Tensor *tensor_elu(Tensor *x, double alpha) {
    if (ag_is_f32(x)) return unary_forward_f32(AG_OP_ELU, elu_f32_block, elu_f32_tail, x, &alpha, 1);
    return unary_forward_tail(AG_OP_ELU, elu_block, elu_tail, x, &alpha, 1);
}

/* elu_backward(g, x): elu's gradient kernel; f'' = alpha e^x where x <= 0:
 *   grad_g = elu_backward(gg, x), grad_x = where(x <= 0, gg * g * (alpha * e^x), 0) */
static int elu_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    const double *p = ctx;
    GradTemps t = {0};
    Tensor *g = self->inputs[0], *x = self->inputs[1], *zero = ag_grad_num(&t, 0.0);
    if (ag_grad_wanted(self, 0)) grads[0] = ag_grad_out(&t, tensor_elu_backward(gg, x, p[0]));
    if (ag_grad_wanted(self, 1)) {
        Tensor *e = ag_grad_tmp(&t, tensor_exp(x));
        Tensor *second = tensor_mul(ag_grad_num(&t, p[0]), e);
        Tensor *term = ag_grad_tmp(&t, times_gg_g(&t, gg, g, second));
        Tensor *negative = ag_grad_tmp(&t, tensor_le(x, zero));
        grads[1] = ag_grad_out(&t, tensor_where(negative, term, zero));
    }
    return ag_grad_done(&t);
}

static void elu_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, elu_backward_graph);
}

Tensor *tensor_elu_backward(Tensor *g, Tensor *x, double alpha) {
    return grad_op_forward(AG_OP_ELU_BACKWARD, elu_grads, g, x, &alpha, 1);
}

static Tensor *elu_backward_call(const AgOpArgs *a) {
    return tensor_elu_backward(a->t[0], a->t[1], a->num[0]);
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
    .graph_backward = elu_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS, .grad_reads = {READS_X},
    .dtype_rule = AG_DTYPE_FLOATING,
};

const AgOpInfo ag_op_elu_backward = {
    .id = AG_OP_ELU_BACKWARD, .name = "elu_backward",
    .signature = "elu_backward(grad, input, alpha)", .params = "TTn",
    .help = "elu's gradient grad * elu'(input), an op so it can be differentiated",
    .rule = "grad_grad = elu_backward(gg, input), grad_input = gg * grad * alpha * exp(input) "
            "where input <= 0, else 0",
    .backward_name = "EluBackwardBackward", .call = elu_backward_call,
    .backward = elu_backward_backward, .graph_backward = elu_backward_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FLOATING,
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

/* float32's tanh form: the same steps in float, its constants floats
 * (kBeta the double product rounded), tanhf SLEEF's on steps of 16 and
 * libm's on the tail */
static const float GELU_BETA_F32 = (float)(SQRT_TWO * TWO_OVER_SQRT_PI * 0.5);
static const float GELU_KAPPA_F32 = (float)GELU_KAPPA;

static ALWAYS_INLINE void gelu_tanh_f32_inner(const float *x, float *t) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++)
        t[i] = GELU_BETA_F32 * fmaf(GELU_KAPPA_F32, x[i] * x[i] * x[i], x[i]);
}

static ALWAYS_INLINE void gelu_tanh_f32_body(const double *x, double *y, MathBlockF32 tanh_) {
    _Alignas(64) float xf[BLOCK], t[BLOCK];
    f32_in(x, xf);
    gelu_tanh_f32_inner(xf, t);
    tanh_(t, t);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = 0.5f * xf[i] * (1.0f + t[i]);
}

static void gelu_tanh_f32_block(const double *x, double *y, const double *p) {
    (void)p;
    gelu_tanh_f32_body(x, y, block_f32_tanh);
}

static void gelu_tanh_f32_tail(const double *x, double *y, const double *p) {
    (void)p;
    gelu_tanh_f32_body(x, y, ag_libm_f32_tanh);
}

static ALWAYS_INLINE void gelu_tanh_f32_grad_body(const double *x, const double *g, double *dx,
                                                  MathBlockF32 tanh_) {
    _Alignas(64) float xf[BLOCK], t[BLOCK];
    f32_in(x, xf);
    gelu_tanh_f32_inner(xf, t);
    tanh_(t, t);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float x_sq = xf[i] * xf[i];
        float left = 0.5f * xf[i], right = 1.0f + t[i];
        float left_derivative = 0.5f * right;
        float tanh_derivative = fmaf(-t[i], t[i], 1.0f);
        float inner_derivative = GELU_BETA_F32 * fmaf(3.0f * GELU_KAPPA_F32, x_sq, 1.0f);
        float right_derivative = left * tanh_derivative * inner_derivative;
        dx[i] = (float)g[i] * (left_derivative + right_derivative);
    }
}

static void gelu_tanh_f32_grad_block(const double *x, const double *y, const double *g,
                                     double *dx, const double *p) {
    (void)y, (void)p;
    gelu_tanh_f32_grad_body(x, g, dx, block_f32_tanh);
}

static void gelu_tanh_f32_grad_tail(const double *x, const double *y, const double *g,
                                    double *dx, const double *p) {
    (void)y, (void)p;
    gelu_tanh_f32_grad_body(x, g, dx, ag_libm_f32_tanh);
}

/* float32's exact form: PyTorch's GeluKernel for float. Its
 * Vectorized<float>::erf is not SLEEF's: Abramowitz and Stegun's 7.1.26,
 * its steps fused as written there, with SLEEF's expf; the scalar tail
 * calls erff. Without SLEEF, erff everywhere. PyTorch 1.13 runs this
 * kernel only for a tensor of one element (all tail) or with oneDNN
 * disabled: a float32 gelu of more elements is oneDNN's eltwise_gelu_erf,
 * its own erf and exp, whose bits ag does not have (about 1 in 4 elements
 * differs in the last bit). */
static void erf_f32_block(const float *x, float *y) {
    if (!ag_vec_ready()) {
        ag_libm_f32_erf(x, y);
        return;
    }
    _Alignas(64) float t[BLOCK], r[BLOCK], e[BLOCK];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        t[i] = 1.0f / fmaf(0.3275911f, fabsf(x[i]), 1.0f);
        float r4 = fmaf(1.061405429f, t[i], -1.453152027f);
        float r3 = fmaf(r4, t[i], 1.421413741f), r2 = fmaf(r3, t[i], -0.284496736f);
        r[i] = fmaf(r2, t[i], 0.254829592f);
        e[i] = -(x[i] * x[i]);
    }
    block_f32_exp(e, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float v = fmaf(-e[i] * t[i], r[i], 1.0f);
        y[i] = signbit(x[i]) ? -v : v; /* its xor with x's sign bit */
    }
}

static const float SQRT_HALF_F32 = (float)SQRT_HALF;

static ALWAYS_INLINE void gelu_f32_body(const double *x, double *y, MathBlockF32 erf_) {
    _Alignas(64) float xf[BLOCK], e[BLOCK];
    f32_in(x, xf);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) e[i] = xf[i] * SQRT_HALF_F32;
    erf_(e, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = xf[i] * 0.5f * (1.0f + e[i]);
}

static void gelu_f32_block(const double *x, double *y, const double *p) {
    (void)p;
    gelu_f32_body(x, y, erf_f32_block);
}

static void gelu_f32_tail(const double *x, double *y, const double *p) {
    (void)p;
    gelu_f32_body(x, y, ag_libm_f32_erf);
}

/* cdf + x * pdf fused in the vector loop only, as float64's */
static ALWAYS_INLINE void gelu_f32_grad_body(const double *x, const double *g, double *dx,
                                             MathBlockF32 erf_, MathBlockF32 exp_, bool fused) {
    const float beta = (float)(TWO_OVER_SQRT_PI * SQRT_HALF * 0.5);
    _Alignas(64) float xf[BLOCK], e[BLOCK], q[BLOCK];
    f32_in(x, xf);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++)
        e[i] = xf[i] * SQRT_HALF_F32, q[i] = xf[i] * xf[i] * -0.5f;
    erf_(e, e);
    exp_(q, q);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float cdf = 0.5f * (1.0f + e[i]), pdf = beta * q[i];
        dx[i] = (float)g[i] * (fused ? fmaf(xf[i], pdf, cdf) : cdf + xf[i] * pdf);
    }
}

static void gelu_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                                const double *p) {
    (void)y, (void)p;
    gelu_f32_grad_body(x, g, dx, erf_f32_block, block_f32_exp, true);
}

static void gelu_f32_grad_tail(const double *x, const double *y, const double *g, double *dx,
                               const double *p) {
    (void)y, (void)p;
    gelu_f32_grad_body(x, g, dx, ag_libm_f32_erf, ag_libm_f32_exp, false);
}

static const GradBlocks gelu_grads = {gelu_grad_block, gelu_grad_tail, gelu_f32_grad_block,
                                      gelu_f32_grad_tail};
static const GradBlocks gelu_tanh_grads = {gelu_tanh_grad_block, gelu_tanh_grad_tail,
                                           gelu_tanh_f32_grad_block, gelu_tanh_f32_grad_tail};

static void gelu_backward(Function *self, void *ctx, Tensor *g) {
    const double *p = ctx;
    if (p[0] != 0.0 && ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, gelu_tanh_f32_grad_block, gelu_tanh_f32_grad_tail, p);
    else if (ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, gelu_f32_grad_block, gelu_f32_grad_tail, p);
    else if (p[0] != 0.0)
        unary_backward_tail(self, g, gelu_tanh_grad_block, gelu_tanh_grad_tail, p);
    else
        unary_backward_tail(self, g, gelu_grad_block, gelu_grad_tail, p);
}

static int gelu_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const double *p = ctx;
    GradTemps t = {0};
    grads[0] = ag_grad_out(&t, tensor_gelu_backward(g, self->inputs[0], p[0] != 0.0));
    return ag_grad_done(&t);
}

/* The exact form's f'' = phi(x) (2 - x^2), phi(x) = e^(-x^2/2) / sqrt(2 pi)
 * (a new tensor). */
static Tensor *gelu_second(Tensor *x) {
    GradTemps t = {0};
    Tensor *x_sq = ag_grad_tmp(&t, tensor_mul(x, x));
    Tensor *half_sq = ag_grad_tmp(&t, tensor_mul(x_sq, ag_grad_num(&t, -0.5)));
    Tensor *q = ag_grad_tmp(&t, tensor_exp(half_sq));
    Tensor *beta = ag_grad_num(&t, TWO_OVER_SQRT_PI * SQRT_HALF * 0.5); /* 1 / sqrt(2 pi) */
    Tensor *pdf = ag_grad_tmp(&t, tensor_mul(beta, q));
    Tensor *two_minus = ag_grad_tmp(&t, tensor_sub(ag_grad_num(&t, 2.0), x_sq));
    Tensor *r = ag_grad_out(&t, tensor_mul(pdf, two_minus));
    return ag_grad_done(&t) == 0 ? r : NULL;
}

/* The tanh form's f'' = (1 - t^2) (u' - x t u'^2 + k c), u = k (x + kappa x^3),
 * t = tanh u, c = 3 kappa x^2, u' = k (1 + c) (a new tensor). */
static Tensor *gelu_tanh_second(Tensor *x) {
    GradTemps t = {0};
    Tensor *k = ag_grad_num(&t, SQRT_TWO * TWO_OVER_SQRT_PI * 0.5), *one = ag_grad_num(&t, 1.0);
    Tensor *x_sq = ag_grad_tmp(&t, tensor_mul(x, x));
    Tensor *c = ag_grad_tmp(&t, tensor_mul(ag_grad_num(&t, 3.0 * GELU_KAPPA), x_sq));
    Tensor *x_cubed = ag_grad_tmp(&t, tensor_mul(x_sq, x));
    Tensor *cubic = ag_grad_tmp(&t, tensor_mul(ag_grad_num(&t, GELU_KAPPA), x_cubed));
    Tensor *inner = ag_grad_tmp(&t, tensor_add(x, cubic));
    Tensor *th = ag_grad_tmp(&t, tensor_tanh(ag_grad_tmp(&t, tensor_mul(k, inner))));
    Tensor *sech_sq = ag_grad_tmp(&t, tensor_sub(one, ag_grad_tmp(&t, tensor_mul(th, th))));
    Tensor *du = ag_grad_tmp(&t, tensor_mul(k, ag_grad_tmp(&t, tensor_add(one, c))));
    Tensor *xtdu = ag_grad_tmp(&t, tensor_mul(ag_grad_tmp(&t, tensor_mul(x, th)), du));
    Tensor *sum = ag_grad_tmp(&t, tensor_sub(du, ag_grad_tmp(&t, tensor_mul(xtdu, du))));
    sum = ag_grad_tmp(&t, tensor_add(sum, ag_grad_tmp(&t, tensor_mul(k, c))));
    Tensor *r = ag_grad_out(&t, tensor_mul(sech_sq, sum));
    return ag_grad_done(&t) == 0 ? r : NULL;
}

Tensor *tensor_gelu(Tensor *x) {
    if (ag_is_f32(x))
        return unary_forward_f32(AG_OP_GELU, gelu_f32_block, gelu_f32_tail, x,
                                 (const double[]){0.0}, 1);
    return unary_forward_tail(AG_OP_GELU, gelu_block, gelu_tail, x, (const double[]){0.0}, 1);
}

Tensor *tensor_gelu_tanh(Tensor *x) {
    if (ag_is_f32(x))
        return unary_forward_f32(AG_OP_GELU, gelu_tanh_f32_block, gelu_tanh_f32_tail, x,
                                 (const double[]){1.0}, 1);
    return unary_forward_tail(AG_OP_GELU, gelu_tanh_block, gelu_tanh_tail, x,
                              (const double[]){1.0}, 1);
}

/* gelu_backward(g, x): gelu's gradient kernel (p[0]: 1 for the tanh form):
 *   grad_g = gelu_backward(gg, x), grad_x = gg * g * f''(x) */
static int gelu_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    const double *p = ctx;
    GradTemps t = {0};
    Tensor *g = self->inputs[0], *x = self->inputs[1];
    if (ag_grad_wanted(self, 0))
        grads[0] = ag_grad_out(&t, tensor_gelu_backward(gg, x, p[0] != 0.0));
    if (ag_grad_wanted(self, 1)) {
        Tensor *second = p[0] != 0.0 ? gelu_tanh_second(x) : gelu_second(x);
        grads[1] = ag_grad_out(&t, times_gg_g(&t, gg, g, second));
    }
    return ag_grad_done(&t);
}

static void gelu_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, gelu_backward_graph);
}

Tensor *tensor_gelu_backward(Tensor *g, Tensor *x, bool tanh_form) {
    const double p = tanh_form;
    return grad_op_forward(AG_OP_GELU_BACKWARD, tanh_form ? gelu_tanh_grads : gelu_grads, g, x,
                           &p, 1);
}

static Tensor *gelu_call(const AgOpArgs *a) {
    if (a->str_len == 4 && memcmp(a->str, "none", 4) == 0) return tensor_gelu(a->t[0]);
    if (a->str_len == 4 && memcmp(a->str, "tanh", 4) == 0) return tensor_gelu_tanh(a->t[0]);
    return ag_fail("gelu: approximate must be 'none' or 'tanh', not '%.*s'",
                   (int)(a->str_len > 40 ? 40 : a->str_len), a->str);
}

static Tensor *gelu_backward_call(const AgOpArgs *a) {
    if (a->str_len == 4 && memcmp(a->str, "none", 4) == 0)
        return tensor_gelu_backward(a->t[0], a->t[1], false);
    if (a->str_len == 4 && memcmp(a->str, "tanh", 4) == 0)
        return tensor_gelu_backward(a->t[0], a->t[1], true);
    return ag_fail("gelu_backward: approximate must be 'none' or 'tanh', not '%.*s'",
                   (int)(a->str_len > 40 ? 40 : a->str_len), a->str);
}

const AgOpInfo ag_op_gelu = {
    .id = AG_OP_GELU, .name = "gelu", .signature = "gelu(input, approximate='none')",
    .params = "Ts", .help = "x * Phi(x), Phi the normal cdf (approximate='tanh': its tanh form)",
    .rule = "grad_x = g * (Phi(x) + x * phi(x)), Phi and phi the normal cdf and pdf "
            "(approximate='tanh': g times the tanh form's derivative)",
    .backward_name = "GeluBackward", .call = gelu_call, .backward = gelu_backward,
    .graph_backward = gelu_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS, .grad_reads = {READS_X},
    .dtype_rule = AG_DTYPE_FLOATING,
};

const AgOpInfo ag_op_gelu_backward = {
    .id = AG_OP_GELU_BACKWARD, .name = "gelu_backward",
    .signature = "gelu_backward(grad, input, approximate='none')", .params = "TTs",
    .help = "gelu's gradient grad * gelu'(input), an op so it can be differentiated",
    .rule = "grad_grad = gelu_backward(gg, input), grad_input = gg * grad * gelu''(input)",
    .backward_name = "GeluBackwardBackward", .call = gelu_backward_call,
    .backward = gelu_backward_backward, .graph_backward = gelu_backward_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FLOATING,
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

/* float32: the same in float, expf SLEEF's on steps of 16, libm's on the tail */
static ALWAYS_INLINE void silu_f32_body(const double *x, double *y, MathBlockF32 exp_) {
    _Alignas(64) float xf[BLOCK], e[BLOCK];
    f32_in(x, xf);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) e[i] = -xf[i];
    exp_(e, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = xf[i] / (1.0f + e[i]);
}

static void silu_f32_block(const double *x, double *y, const double *p) {
    (void)p;
    silu_f32_body(x, y, block_f32_exp);
}

static void silu_f32_tail(const double *x, double *y, const double *p) {
    (void)p;
    silu_f32_body(x, y, ag_libm_f32_exp);
}

static ALWAYS_INLINE void silu_f32_grad_body(const double *x, const double *g, double *dx,
                                             MathBlockF32 exp_) {
    _Alignas(64) float xf[BLOCK], e[BLOCK];
    f32_in(x, xf);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) e[i] = -xf[i];
    exp_(e, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float s = 1.0f / (1.0f + e[i]);
        dx[i] = (float)g[i] * s * fmaf(xf[i], 1.0f - s, 1.0f);
    }
}

static void silu_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                                const double *p) {
    (void)y, (void)p;
    silu_f32_grad_body(x, g, dx, block_f32_exp);
}

static void silu_f32_grad_tail(const double *x, const double *y, const double *g, double *dx,
                               const double *p) {
    (void)y, (void)p;
    silu_f32_grad_body(x, g, dx, ag_libm_f32_exp);
}

static const GradBlocks silu_grads = {silu_grad_block, silu_grad_tail, silu_f32_grad_block,
                                      silu_f32_grad_tail};

static void silu_backward(Function *self, void *ctx, Tensor *g) {
    if (ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, silu_f32_grad_block, silu_f32_grad_tail, ctx);
    else
        unary_backward_tail(self, g, silu_grad_block, silu_grad_tail, ctx);
}

/* With create_graph PyTorch records infinitely_differentiable_silu_backward
 * (g * s * (1 + x * (1 - s)) as ops, each rounding) where ag records its
 * kernel as one op: the first-order kernel's bits, which ag's create_graph
 * gradients keep (harness.c checks it), an ulp from PyTorch's at some x. */
static int silu_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    grads[0] = ag_grad_out(&t, tensor_silu_backward(g, self->inputs[0]));
    return ag_grad_done(&t);
}

Tensor *tensor_silu(Tensor *x) {
    if (ag_is_f32(x))
        return unary_forward_f32(AG_OP_SILU, silu_f32_block, silu_f32_tail, x, NULL, 0);
    return unary_forward_tail(AG_OP_SILU, silu_block, silu_tail, x, NULL, 0);
}

/* silu_backward(g, x): silu's gradient kernel; f'' = s (1 - s) (2 + x (1 - 2 s)):
 *   grad_g = silu_backward(gg, x), grad_x = gg * g * f''(x) */
static int silu_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *g = self->inputs[0], *x = self->inputs[1];
    if (ag_grad_wanted(self, 0)) grads[0] = ag_grad_out(&t, tensor_silu_backward(gg, x));
    if (ag_grad_wanted(self, 1)) {
        Tensor *s = ag_grad_tmp(&t, tensor_sigmoid(x));
        Tensor *one_minus = ag_grad_tmp(&t, tensor_sub(ag_grad_num(&t, 1.0), s));
        Tensor *ds = ag_grad_tmp(&t, tensor_mul(s, one_minus));
        Tensor *x_term = ag_grad_tmp(&t, tensor_mul(x, ag_grad_tmp(&t, tensor_sub(one_minus, s))));
        Tensor *factor = ag_grad_tmp(&t, tensor_add(ag_grad_num(&t, 2.0), x_term));
        grads[1] = ag_grad_out(&t, times_gg_g(&t, gg, g, tensor_mul(ds, factor)));
    }
    return ag_grad_done(&t);
}

static void silu_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, silu_backward_graph);
}

Tensor *tensor_silu_backward(Tensor *g, Tensor *x) {
    return grad_op_forward(AG_OP_SILU_BACKWARD, silu_grads, g, x, NULL, 0);
}

const AgOpInfo ag_op_silu = UNARY_ROW(SILU, silu, "x * sigmoid(x) (swish)",
                                      "grad_x = g * s * (1 + x * (1 - s)), s = sigmoid(x)",
                                      "SiluBackward", READS_X);

const AgOpInfo ag_op_silu_backward = {
    .id = AG_OP_SILU_BACKWARD, .name = "silu_backward", .signature = "silu_backward(grad, input)",
    .params = "TT",
    .help = "silu's gradient grad * silu'(input), an op so it can be differentiated",
    .rule = "grad_grad = silu_backward(gg, input), grad_input = gg * grad * s (1 - s) "
            "(2 + input (1 - 2 s)), s = sigmoid(input)",
    .backward_name = "SiluBackwardBackward", .binary = tensor_silu_backward,
    .backward = silu_backward_backward, .graph_backward = silu_backward_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FLOATING,
};

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

/* hardtanh_backward(g, x): 0 where x <= 0 or x >= 6, else g, as an op of x */
static int relu6_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    grads[0] = tensor_hardtanh_backward(g, self->inputs[0]);
    return grads[0] ? 0 : -1;
}

Tensor *tensor_relu6(Tensor *x) { return unary_forward(AG_OP_RELU6, relu6_block, x); }

const AgOpInfo ag_op_relu6 = UNARY_ROW(RELU6, relu6, "min(max(x, 0), 6)",
                                       "grad_x = g where 0 < x < 6 (or x is nan), else 0",
                                       "HardtanhBackward", READS_X);

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

/* where(-3 < x < 3, g * (1/6 as a float), 0) */
static int hardsigmoid_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0];
    Tensor *above = ag_grad_tmp(&t, tensor_gt(x, ag_grad_num(&t, -3.0)));
    Tensor *below = ag_grad_tmp(&t, tensor_lt(x, ag_grad_num(&t, 3.0)));
    Tensor *inside = ag_grad_tmp(&t, tensor_logical_and(above, below));
    Tensor *scaled = ag_grad_tmp(&t, tensor_mul(g, ag_grad_num(&t, ONE_SIXTH_FLOAT)));
    grads[0] = ag_grad_out(&t, tensor_where(inside, scaled, ag_grad_num(&t, 0.0)));
    return ag_grad_done(&t);
}

Tensor *tensor_hardsigmoid(Tensor *x) {
    return unary_forward(AG_OP_HARDSIGMOID, hardsigmoid_block, x);
}

const AgOpInfo ag_op_hardsigmoid =
    UNARY_ROW(HARDSIGMOID, hardsigmoid, "min(max(x + 3, 0), 6) / 6",
              "grad_x = g / 6 where -3 < x < 3, else 0 (1/6 as PyTorch's float: 0.16666667163)",
              "HardsigmoidBackward", READS_X);

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

/* where(x < -3, 0, where(x <= 3, g * (x / 3 + 0.5), g)) */
static int hardswish_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0];
    Tensor *third = ag_grad_tmp(&t, tensor_div(x, ag_grad_num(&t, 3.0)));
    Tensor *slope = ag_grad_tmp(&t, tensor_add(third, ag_grad_num(&t, 0.5)));
    Tensor *inside = ag_grad_tmp(&t, tensor_le(x, ag_grad_num(&t, 3.0)));
    Tensor *sloped = ag_grad_tmp(&t, tensor_mul(g, slope));
    Tensor *middle = ag_grad_tmp(&t, tensor_where(inside, sloped, g));
    Tensor *low = ag_grad_tmp(&t, tensor_lt(x, ag_grad_num(&t, -3.0)));
    grads[0] = ag_grad_out(&t, tensor_where(low, ag_grad_num(&t, 0.0), middle));
    return ag_grad_done(&t);
}

Tensor *tensor_hardswish(Tensor *x) { return unary_forward(AG_OP_HARDSWISH, hardswish_block, x); }

const AgOpInfo ag_op_hardswish =
    UNARY_ROW(HARDSWISH, hardswish, "x * min(max(x + 3, 0), 6) / 6",
              "grad_x = 0 where x < -3, g * (x / 3 + 1/2) where -3 <= x <= 3, else g",
              "HardswishBackward", READS_X);

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

/* float32: the same in float, beta and threshold floats, expf and log1pf
 * SLEEF's on steps of 16 and libm's on the tail */
static ALWAYS_INLINE void softplus_f32_body(const double *x, double *y, const double *p,
                                            MathBlockF32 exp_, MathBlockF32 log1p_) {
    const float beta = (float)p[0], threshold = (float)p[1];
    _Alignas(64) float xf[BLOCK], s[BLOCK];
    f32_in(x, xf);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) s[i] = xf[i] * beta;
    exp_(s, s);
    log1p_(s, s);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++)
        y[i] = xf[i] * beta > threshold ? xf[i] : s[i] / beta;
}

static void softplus_f32_block(const double *x, double *y, const double *p) {
    softplus_f32_body(x, y, p, block_f32_exp, block_f32_log1p);
}

static void softplus_f32_tail(const double *x, double *y, const double *p) {
    softplus_f32_body(x, y, p, ag_libm_f32_exp, ag_libm_f32_log1p);
}

static ALWAYS_INLINE void softplus_f32_grad_body(const double *x, const double *g, double *dx,
                                                 const double *p, MathBlockF32 exp_) {
    const float beta = (float)p[0], threshold = (float)p[1];
    _Alignas(64) float xf[BLOCK], z[BLOCK];
    f32_in(x, xf);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) z[i] = xf[i] * beta;
    exp_(z, z);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float gf = (float)g[i];
        dx[i] = xf[i] * beta > threshold ? gf : gf * z[i] / (z[i] + 1.0f);
    }
}

static void softplus_f32_grad_block(const double *x, const double *y, const double *g,
                                    double *dx, const double *p) {
    (void)y;
    softplus_f32_grad_body(x, g, dx, p, block_f32_exp);
}

static void softplus_f32_grad_tail(const double *x, const double *y, const double *g,
                                   double *dx, const double *p) {
    (void)y;
    softplus_f32_grad_body(x, g, dx, p, ag_libm_f32_exp);
}

static const GradBlocks softplus_grads = {softplus_grad_block, softplus_grad_tail,
                                          softplus_f32_grad_block, softplus_f32_grad_tail};

static void softplus_backward(Function *self, void *ctx, Tensor *g) {
    if (ag_is_f32(self->inputs[0]))
        unary_backward_f32(self, g, softplus_f32_grad_block, softplus_f32_grad_tail, ctx);
    else
        unary_backward_tail(self, g, softplus_grad_block, softplus_grad_tail, ctx);
}

static int softplus_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const double *p = ctx;
    GradTemps t = {0};
    grads[0] = ag_grad_out(&t, tensor_softplus_backward(g, self->inputs[0], p[0], p[1]));
    return ag_grad_done(&t);
}

Tensor *tensor_softplus(Tensor *x, double beta, double threshold) {
    if (ag_is_f32(x))
        return unary_forward_f32(AG_OP_SOFTPLUS, softplus_f32_block, softplus_f32_tail, x,
                                 (const double[]){beta, threshold}, 2);
    return unary_forward_tail(AG_OP_SOFTPLUS, softplus_block, softplus_tail, x,
                              (const double[]){beta, threshold}, 2);
}

/* softplus_backward(g, x): softplus's gradient kernel; f'' = beta s (1 - s),
 * s = sigmoid(beta x), where beta x <= threshold (beyond it f' is 1):
 *   grad_g = softplus_backward(gg, x),
 *   grad_x = where(beta x > threshold, 0, gg * g * (beta * s * (1 - s))) */
static int softplus_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    const double *p = ctx;
    GradTemps t = {0};
    Tensor *g = self->inputs[0], *x = self->inputs[1];
    if (ag_grad_wanted(self, 0))
        grads[0] = ag_grad_out(&t, tensor_softplus_backward(gg, x, p[0], p[1]));
    if (ag_grad_wanted(self, 1)) {
        Tensor *bx = ag_grad_tmp(&t, tensor_mul(x, ag_grad_num(&t, p[0])));
        Tensor *s = ag_grad_tmp(&t, tensor_sigmoid(bx));
        Tensor *one_minus = ag_grad_tmp(&t, tensor_sub(ag_grad_num(&t, 1.0), s));
        Tensor *ds = ag_grad_tmp(&t, tensor_mul(s, one_minus));
        Tensor *second = tensor_mul(ag_grad_num(&t, p[0]), ds);
        Tensor *term = ag_grad_tmp(&t, times_gg_g(&t, gg, g, second));
        Tensor *linear = ag_grad_tmp(&t, tensor_gt(bx, ag_grad_num(&t, p[1])));
        grads[1] = ag_grad_out(&t, tensor_where(linear, ag_grad_num(&t, 0.0), term));
    }
    return ag_grad_done(&t);
}

static void softplus_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, softplus_backward_graph);
}

Tensor *tensor_softplus_backward(Tensor *g, Tensor *x, double beta, double threshold) {
    return grad_op_forward(AG_OP_SOFTPLUS_BACKWARD, softplus_grads, g, x,
                           (const double[]){beta, threshold}, 2);
}

static Tensor *softplus_backward_call(const AgOpArgs *a) {
    return tensor_softplus_backward(a->t[0], a->t[1], a->num[0], a->num[1]);
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
    .graph_backward = softplus_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS, .grad_reads = {READS_X},
    .dtype_rule = AG_DTYPE_FLOATING,
};

const AgOpInfo ag_op_softplus_backward = {
    .id = AG_OP_SOFTPLUS_BACKWARD, .name = "softplus_backward",
    .signature = "softplus_backward(grad, input, beta, threshold)", .params = "TTnn",
    .help = "softplus's gradient grad * softplus'(input), an op so it can be differentiated",
    .rule = "grad_grad = softplus_backward(gg, input), grad_input = gg * grad * beta * s (1 - s), "
            "s = sigmoid(beta * input), 0 where beta * input > threshold",
    .backward_name = "SoftplusBackwardBackward", .call = softplus_backward_call,
    .backward = softplus_backward_backward, .graph_backward = softplus_backward_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FLOATING,
};
