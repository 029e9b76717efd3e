/*
 * special.c — more element-wise unary ops: tan, atan, asin, acos, erf, log1p,
 * expm1 and rsqrt. Each is PyTorch's: its value SLEEF's function on every element
 * (PyTorch's vml kernels, the last vector padded: no scalar tail; libm's
 * without SLEEF), its gradient PyTorch's formula (derivatives.yaml) written
 * in the order PyTorch evaluates it, each step rounded where PyTorch's ops
 * round (in float for a float32 x), and the same formula as recorded ops for
 * create_graph. Blocks and drivers as unary.c's (elementwise.h).
 */
#include <math.h>

#include "elementwise.h"

/* 1 as the number PyTorch adds in these formulas (`1 + result.pow(2)`). */
static Tensor *plus_one(GradTemps *t, Tensor *x) {
    return ag_grad_tmp(t, tensor_add(x, ag_grad_num(t, 1.0)));
}

/* rsqrt(1 - x * x), as PyTorch's `(-self * self + 1).rsqrt()`, recorded. */
static Tensor *inverse_root(GradTemps *t, Tensor *x) {
    Tensor *xx = ag_grad_tmp(t, tensor_mul(ag_grad_tmp(t, tensor_neg(x)), x));
    return ag_grad_tmp(t, tensor_rsqrt(plus_one(t, xx)));
}

/* ======================================================================
 * tan: y = tan x; dx = g * (1 + y * y)   (grad * (1 + result.pow(2)))
 * ====================================================================== */

static void tan_block(const double *x, double *y, const double *p) {
    (void)p;
    block_tan(x, y);
}

static void tan_grad_block(const double *x, const double *y, const double *g, double *dx,
                           const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * (y[i] * y[i] + 1.0);
}

static void tan_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                               const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float yf = (float)y[i];
        dx[i] = (float)g[i] * (yf * yf + 1.0f);
    }
}

UNARY_BACKWARD_F32(tan)

static int tan_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *y = self->output;
    grads[0] = ag_grad_out(&t, tensor_mul(g, plus_one(&t, ag_grad_tmp(&t, tensor_mul(y, y)))));
    return ag_grad_done(&t);
}

F32_MAP_BLOCK(tan)

UNARY_FORWARD_F32_MAP(TAN, tan)

const AgOpInfo ag_op_tan =
    UNARY_ROW(TAN, tan, "tangent", "grad_x = g * (1 + tan(x)^2)", "TanBackward", READS_Y);

/* ======================================================================
 * atan: y = atan x; dx = g / (x * x + 1)   (grad / (self * self + 1))
 * ====================================================================== */

static void atan_block(const double *x, double *y, const double *p) {
    (void)p;
    block_atan(x, y);
}

static void atan_grad_block(const double *x, const double *y, const double *g, double *dx,
                            const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] / (x[i] * x[i] + 1.0);
}

static void atan_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                                const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float xf = (float)x[i];
        dx[i] = (float)g[i] / (xf * xf + 1.0f);
    }
}

UNARY_BACKWARD_F32(atan)

static int atan_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0];
    grads[0] = ag_grad_out(&t, tensor_div(g, plus_one(&t, ag_grad_tmp(&t, tensor_mul(x, x)))));
    return ag_grad_done(&t);
}

F32_MAP_BLOCK(atan)

UNARY_FORWARD_F32_MAP(ATAN, atan)

const AgOpInfo ag_op_atan =
    UNARY_ROW(ATAN, atan, "arc tangent", "grad_x = g / (1 + x^2)", "AtanBackward", READS_X);

/* ======================================================================
 * asin: y = asin x; dx = g * rsqrt(1 - x * x)
 * acos: y = acos x; dx = g * -rsqrt(1 - x * x)
 * (grad * (-self * self + 1).rsqrt(), and its negation: PyTorch's rsqrt is
 * 1 / sqrt, two correctly rounded steps, in double and in float)
 * ====================================================================== */

static void asin_block(const double *x, double *y, const double *p) {
    (void)p;
    block_asin(x, y);
}

static void acos_block(const double *x, double *y, const double *p) {
    (void)p;
    block_acos(x, y);
}

static void asin_grad_block(const double *x, const double *y, const double *g, double *dx,
                            const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * (1.0 / sqrt(-x[i] * x[i] + 1.0));
}

static void acos_grad_block(const double *x, const double *y, const double *g, double *dx,
                            const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * -(1.0 / sqrt(-x[i] * x[i] + 1.0));
}

static void asin_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                                const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float xf = (float)x[i];
        dx[i] = (float)g[i] * (1.0f / sqrtf(-xf * xf + 1.0f));
    }
}

static void acos_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                                const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float xf = (float)x[i];
        dx[i] = (float)g[i] * -(1.0f / sqrtf(-xf * xf + 1.0f));
    }
}

UNARY_BACKWARD_F32(asin)

UNARY_BACKWARD_F32(acos)

static int asin_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    grads[0] = ag_grad_out(&t, tensor_mul(g, inverse_root(&t, self->inputs[0])));
    return ag_grad_done(&t);
}

static int acos_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *r = ag_grad_tmp(&t, tensor_neg(inverse_root(&t, self->inputs[0])));
    grads[0] = ag_grad_out(&t, tensor_mul(g, r));
    return ag_grad_done(&t);
}

F32_MAP_BLOCK(asin)
F32_MAP_BLOCK(acos)

UNARY_FORWARD_F32_MAP(ASIN, asin)

UNARY_FORWARD_F32_MAP(ACOS, acos)

const AgOpInfo ag_op_asin = UNARY_ROW(ASIN, asin, "arc sine", "grad_x = g / sqrt(1 - x^2)",
                                      "AsinBackward", READS_X);
const AgOpInfo ag_op_acos = UNARY_ROW(ACOS, acos, "arc cosine", "grad_x = -g / sqrt(1 - x^2)",
                                      "AcosBackward", READS_X);

/* ======================================================================
 * erf: y = erf x; dx = 2 / sqrt(pi) * exp(-(x * x)) * g, in that order
 * (exp SLEEF's, as PyTorch's whole-tensor exp)
 * ====================================================================== */

static const double TWO_OVER_SQRT_PI = 1.1283791670955126; /* 2.0 / sqrt(M_PI) in double */

static void erf_block(const double *x, double *y, const double *p) {
    (void)p;
    block_erf(x, y);
}

static void erf_grad_block(const double *x, const double *y, const double *g, double *dx,
                           const double *p) {
    (void)y, (void)p;
    _Alignas(64) double e[BLOCK];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) e[i] = -(x[i] * x[i]);
    block_exp(e, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = e[i] * TWO_OVER_SQRT_PI * g[i];
}

static void erf_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                               const double *p) {
    (void)y, (void)p;
    _Alignas(64) float e[BLOCK];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float xf = (float)x[i];
        e[i] = -(xf * xf);
    }
    block_f32_exp(e, e);
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = e[i] * (float)TWO_OVER_SQRT_PI * (float)g[i];
}

UNARY_BACKWARD_F32(erf)

static int erf_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0];
    Tensor *e = ag_grad_tmp(&t, tensor_exp(ag_grad_tmp(&t, tensor_neg(ag_grad_tmp(&t, tensor_mul(x, x))))));
    Tensor *d = ag_grad_tmp(&t, tensor_mul(e, ag_grad_num(&t, TWO_OVER_SQRT_PI)));
    grads[0] = ag_grad_out(&t, tensor_mul(d, g));
    return ag_grad_done(&t);
}

F32_MAP_BLOCK(erf)

UNARY_FORWARD_F32_MAP(ERF, erf)

const AgOpInfo ag_op_erf = UNARY_ROW(ERF, erf, "error function",
                                     "grad_x = g * 2 / sqrt(pi) * exp(-x^2)", "ErfBackward",
                                     READS_X);

/* ======================================================================
 * log1p: y = log(1 + x), exact for small x; dx = g / (x + 1)
 * ====================================================================== */

static void log1p_block(const double *x, double *y, const double *p) {
    (void)p;
    block_log1p(x, y);
}

static void log1p_grad_block(const double *x, const double *y, const double *g, double *dx,
                             const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] / (x[i] + 1.0);
}

/* float32: x + 1 rounded to float first */
static void log1p_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                                 const double *p) {
    (void)y, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = (float)g[i] / ((float)x[i] + 1.0f);
}

UNARY_BACKWARD_F32(log1p)

static int log1p_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    grads[0] = ag_grad_out(&t, tensor_div(g, plus_one(&t, self->inputs[0])));
    return ag_grad_done(&t);
}

F32_MAP_BLOCK(log1p)

UNARY_FORWARD_F32_MAP(LOG1P, log1p)

const AgOpInfo ag_op_log1p = UNARY_ROW(LOG1P, log1p, "log(1 + x), exact near 0",
                                       "grad_x = g / (1 + x)", "Log1PBackward", READS_X);

/* ======================================================================
 * expm1: y = exp(x) - 1, exact for small x; dx = g * (y + 1)
 * ====================================================================== */

static void expm1_block(const double *x, double *y, const double *p) {
    (void)p;
    block_expm1(x, y);
}

static void expm1_grad_block(const double *x, const double *y, const double *g, double *dx,
                             const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * (y[i] + 1.0);
}

static void expm1_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                                 const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = (float)g[i] * ((float)y[i] + 1.0f);
}

UNARY_BACKWARD_F32(expm1)

static int expm1_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    grads[0] = ag_grad_out(&t, tensor_mul(g, plus_one(&t, self->output)));
    return ag_grad_done(&t);
}

F32_MAP_BLOCK(expm1)

UNARY_FORWARD_F32_MAP(EXPM1, expm1)

const AgOpInfo ag_op_expm1 = UNARY_ROW(EXPM1, expm1, "exp(x) - 1, exact near 0",
                                       "grad_x = g * (y + 1)", "Expm1Backward", READS_Y);

/* ======================================================================
 * rsqrt: y = 1 / sqrt(x) (two correctly rounded steps, as PyTorch's scalar
 * and vector kernels both compute it); dx = -0.5 * g * y^3, y^3 as (y * y) * y
 * (grad * -0.5, then times result.pow(3))
 * ====================================================================== */

static void rsqrt_block(const double *x, double *y, const double *p) {
    (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = 1.0 / sqrt(x[i]);
}

static void rsqrt_grad_block(const double *x, const double *y, const double *g, double *dx,
                             const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) dx[i] = g[i] * -0.5 * (y[i] * y[i] * y[i]);
}

static void rsqrt_f32_block(const double *x, double *y, const double *p) {
    (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = 1.0f / sqrtf((float)x[i]);
}

static void rsqrt_f32_grad_block(const double *x, const double *y, const double *g, double *dx,
                                 const double *p) {
    (void)x, (void)p;
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        float yf = (float)y[i];
        dx[i] = (float)g[i] * -0.5f * (yf * yf * yf);
    }
}

UNARY_BACKWARD_F32(rsqrt)

static int rsqrt_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *half = ag_grad_tmp(&t, tensor_mul(g, ag_grad_num(&t, -0.5)));
    Tensor *cube = ag_grad_tmp(&t, tensor_pow(self->output, ag_grad_num(&t, 3.0)));
    grads[0] = ag_grad_out(&t, tensor_mul(half, cube));
    return ag_grad_done(&t);
}

UNARY_FORWARD_F32(RSQRT, rsqrt)

const AgOpInfo ag_op_rsqrt = UNARY_ROW(RSQRT, rsqrt, "1 / sqrt(x)", "grad_x = -g / 2 * y^3",
                                       "RsqrtBackward", READS_Y);
