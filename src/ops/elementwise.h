/*
 * elementwise.h — what the element-wise unary ops share (unary.c,
 * activation.c): glibc's vector math functions, and the drivers that run
 * an op's forward and backward loops over whole blocks of BLOCK elements.
 * An op with numbers of its own (leaky_relu's slope, softplus's beta and
 * threshold) hands them to its blocks as p; the forward saves them in the
 * Function's ctx, from which the backward reads them. Not for ops that
 * broadcast several operands (binary.c, select.c).
 */
#ifndef AG_OPS_ELEMENTWISE_H
#define AG_OPS_ELEMENTWISE_H

#include "../internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

/* With glibc's vector math library (make finds it; gcc only), the loops
 * below call the vector versions of these functions, 4 or 8 values a call:
 * several times faster, within 4 ulp (glibc's bound; the scalar functions
 * are within 1). Without it, the same loops call libm. libmvec has had all
 * of them since glibc 2.35, the release that added tanh, which make tests.
 * Only with AVX2 or wider: the 2-wide SSE versions a baseline x86-64 build
 * would call are further off (log(exp(2)) = 1.9999999999999998, where libm
 * and PyTorch give 2). */
#if defined(AG_LIBMVEC) && defined(__GNUC__) && !defined(__clang__) && defined(__AVX2__)
#define VECTOR_MATH __attribute__((simd("notinbranch")))
VECTOR_MATH double erf(double);
VECTOR_MATH double exp(double);
VECTOR_MATH double log(double);
VECTOR_MATH double log1p(double);
VECTOR_MATH double tanh(double);
VECTOR_MATH double sin(double);
VECTOR_MATH double cos(double);
VECTOR_MATH float erff(float);
VECTOR_MATH float expf(float);
VECTOR_MATH float logf(float);
VECTOR_MATH float log1pf(float);
VECTOR_MATH float tanhf(float);
VECTOR_MATH float sinf(float);
VECTOR_MATH float cosf(float);
#endif

/* ---- blocks: the same input gives the same result in every position ----
 * libmvec's vector functions and libm's scalar ones differ in the last bit
 * at some inputs, and a vectorised loop of n elements runs its remainder
 * through narrower vectors or the scalar functions: exp(1.58) came out one
 * ulp larger at index 8 of 9 than at 0..7. So every loop runs over whole
 * blocks of BLOCK elements (a multiple of every vector width, a count gcc
 * vectorises without a remainder), the last block through a padded copy. */

enum { BLOCK = 16 };

/* ---- the math functions on a block: y[i] = f(x[i]) for i < BLOCK ----
 * Where SLEEF is found at run time (vecmath.c loads libsleef.so.3 at the
 * first call; AG_SLEEF=0 turns it off), the vector functions PyTorch's
 * kernels call, on every block including the padded last one: PyTorch's
 * bits, the same in every build. Without it, a loop the compiler may
 * vectorise (libmvec) or not (libm, as in the asan build), so the last bit
 * can depend on the build. x and y may be the same. */
extern atomic_int ag_vec_state; /* 0: not looked for yet; 1: SLEEF loaded; -1: not there */
bool ag_vec_load(void);         /* looks for SLEEF once; whether it is there */
static inline bool ag_vec_ready(void) {
    int state = atomic_load_explicit(&ag_vec_state, memory_order_relaxed);
    return state > 0 || (state == 0 && ag_vec_load());
}
void ag_vec_exp(const double *x, double *y);
void ag_vec_log(const double *x, double *y);
void ag_vec_log10(const double *x, double *y);
void ag_vec_log2(const double *x, double *y);
void ag_vec_log1p(const double *x, double *y);
void ag_vec_tanh(const double *x, double *y);
void ag_vec_sin(const double *x, double *y);
void ag_vec_cos(const double *x, double *y);
void ag_vec_erf(const double *x, double *y);
void ag_vec_tan(const double *x, double *y);
void ag_vec_atan(const double *x, double *y);
void ag_vec_asin(const double *x, double *y);
void ag_vec_acos(const double *x, double *y);
void ag_vec_expm1(const double *x, double *y);
void ag_vec_pow(const double *x, double e, double *y); /* y = x ** e */

#define BLOCK_MATH(name, fn)                                                \
    static inline void block_##name(const double *x, double *y) {          \
        if (ag_vec_ready()) {                                               \
            ag_vec_##name(x, y);                                            \
            return;                                                         \
        }                                                                   \
        SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = fn(x[i]);          \
    }
BLOCK_MATH(exp, exp)
BLOCK_MATH(log, log)
BLOCK_MATH(log10, log10)
BLOCK_MATH(log2, log2)
BLOCK_MATH(log1p, log1p)
BLOCK_MATH(tanh, tanh)
BLOCK_MATH(sin, sin)
BLOCK_MATH(cos, cos)
BLOCK_MATH(erf, erf)
BLOCK_MATH(tan, tan)
BLOCK_MATH(atan, atan)
BLOCK_MATH(asin, asin)
BLOCK_MATH(acos, acos)
BLOCK_MATH(expm1, expm1)
#undef BLOCK_MATH

/* ---- float32: PyTorch's float kernels ----
 * A float32 tensor's elements are doubles holding floats; its element-wise
 * ops compute in float as PyTorch's float32 kernels do: SLEEF's float
 * functions (Sleef_*f8_u10, Vectorized<float> of AVX2) where SLEEF is
 * loaded, each product and sum rounded to float, and libm's float functions
 * (expf, ...) on the scalar tail of the composite kernels: cpu_kernel_vec
 * runs two vectors of 8 floats a step, so the tail is the last n % 16 =
 * n % BLOCK elements, the last, padded block. Without SLEEF, libm's float
 * functions on every element (other bits than PyTorch's, in places). A
 * block here is BLOCK floats. */
enum { TORCH_VEC_STEP_F32 = 16 };
_Static_assert((int)TORCH_VEC_STEP_F32 == (int)BLOCK, "float32's tail is the last block");

void ag_vec_f32_exp(const float *x, float *y);
void ag_vec_f32_log(const float *x, float *y);
void ag_vec_f32_log10(const float *x, float *y);
void ag_vec_f32_log2(const float *x, float *y);
void ag_vec_f32_tanh(const float *x, float *y);
void ag_vec_f32_sin(const float *x, float *y);
void ag_vec_f32_cos(const float *x, float *y);
void ag_vec_f32_log1p(const float *x, float *y);
void ag_vec_f32_sinh(const float *x, float *y);
void ag_vec_f32_cosh(const float *x, float *y);
void ag_vec_f32_tan(const float *x, float *y);
void ag_vec_f32_atan(const float *x, float *y);
void ag_vec_f32_asin(const float *x, float *y);
void ag_vec_f32_acos(const float *x, float *y);
void ag_vec_f32_erf(const float *x, float *y);
void ag_vec_f32_expm1(const float *x, float *y);
void ag_vec_f32_pow(const float *x, float e, float *y); /* y = x ** e */
void ag_vec_f32_pow_tensor(const float *x, const float *e, float *y); /* y = x ** e */
void ag_libm_f32_exp(const float *x, float *y);
void ag_libm_f32_log(const float *x, float *y);
void ag_libm_f32_log10(const float *x, float *y);
void ag_libm_f32_log2(const float *x, float *y);
void ag_libm_f32_tanh(const float *x, float *y);
void ag_libm_f32_sin(const float *x, float *y);
void ag_libm_f32_cos(const float *x, float *y);
void ag_libm_f32_log1p(const float *x, float *y);
void ag_libm_f32_sinh(const float *x, float *y);
void ag_libm_f32_cosh(const float *x, float *y);
void ag_libm_f32_erf(const float *x, float *y);
void ag_libm_f32_tan(const float *x, float *y);
void ag_libm_f32_atan(const float *x, float *y);
void ag_libm_f32_asin(const float *x, float *y);
void ag_libm_f32_acos(const float *x, float *y);
void ag_libm_f32_expm1(const float *x, float *y);

/* The same where SLEEF is not loaded: a loop gcc vectorises into
 * libmvec's float functions where it has them (the VECTOR_MATH ones
 * above), libm's otherwise. */
void ag_mvec_f32_exp(const float *x, float *y);
void ag_mvec_f32_log(const float *x, float *y);
void ag_mvec_f32_tanh(const float *x, float *y);
void ag_mvec_f32_sin(const float *x, float *y);
void ag_mvec_f32_cos(const float *x, float *y);
void ag_mvec_f32_log1p(const float *x, float *y);
void ag_mvec_f32_erf(const float *x, float *y);

/* y = f(x) on a block of floats: SLEEF's where loaded, else libmvec's or
 * libm's. */
#define BLOCK_MATH_F32(name, fallback)                                      \
    static inline void block_f32_##name(const float *x, float *y) {        \
        if (ag_vec_ready())                                                 \
            ag_vec_f32_##name(x, y);                                        \
        else                                                                \
            fallback##_f32_##name(x, y);                                    \
    }
BLOCK_MATH_F32(exp, ag_mvec)
BLOCK_MATH_F32(log, ag_mvec)
BLOCK_MATH_F32(log10, ag_libm)
BLOCK_MATH_F32(log2, ag_libm)
BLOCK_MATH_F32(tanh, ag_mvec)
BLOCK_MATH_F32(sin, ag_mvec)
BLOCK_MATH_F32(cos, ag_mvec)
BLOCK_MATH_F32(log1p, ag_mvec)
BLOCK_MATH_F32(sinh, ag_libm)
BLOCK_MATH_F32(cosh, ag_libm)
BLOCK_MATH_F32(tan, ag_libm)
BLOCK_MATH_F32(atan, ag_libm)
BLOCK_MATH_F32(asin, ag_libm)
BLOCK_MATH_F32(acos, ag_libm)
BLOCK_MATH_F32(erf, ag_mvec)
BLOCK_MATH_F32(expm1, ag_libm)
#undef BLOCK_MATH_F32

/* A block of float math: block_f32_exp, ag_libm_f32_exp, ... */
typedef void (*MathBlockF32)(const float *x, float *y);

/* A block of doubles holding floats, as floats, and back */
static inline void f32_in(const double *x, float *xf) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) xf[i] = (float)x[i];
}
static inline void f32_out(const float *yf, double *y) {
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = yf[i];
}

/* A float32 op's forward block that is one float function on every element
 * (PyTorch's vml kernels: exp, log, sin, ... on whole vectors, the last one
 * padded: no scalar tail) */
#define F32_MAP_BLOCK(name)                                                  \
    static void name##_f32_block(const double *x, double *y, const double *p) { \
        (void)p;                                                             \
        _Alignas(64) float t[BLOCK];                                         \
        f32_in(x, t);                                                        \
        block_f32_##name(t, t);                                              \
        f32_out(t, y);                                                       \
    }

/* An op's backward and forward that take NAME_f32_grad_block and
 * NAME_f32_block for a float32 x (no scalar tail), else NAME_grad_block and
 * NAME_block. */
#define UNARY_BACKWARD_F32(name)                                              \
    static void name##_backward(Function *self, void *ctx, Tensor *g) {      \
        if (ag_is_f32(self->inputs[0]))                                       \
            unary_backward_f32(self, g, name##_f32_grad_block, NULL, ctx);    \
        else                                                                  \
            unary_backward(self, g, name##_grad_block, ctx);                  \
    }
#define UNARY_FORWARD_F32_MAP(ID, name)                                       \
    Tensor *tensor_##name(Tensor *x) {                                        \
        if (ag_is_f32(x))                                                     \
            return unary_forward_f32_map(AG_OP_##ID, name##_f32_block, block_f32_##name, x); \
        return unary_forward(AG_OP_##ID, name##_block, x);                    \
    }
#define UNARY_FORWARD_F32(ID, name)                                           \
    Tensor *tensor_##name(Tensor *x) {                                        \
        if (ag_is_f32(x))                                                     \
            return unary_forward_f32(AG_OP_##ID, name##_f32_block, NULL, x, NULL, 0); \
        return unary_forward(AG_OP_##ID, name##_block, x);                    \
    }

/* Whether an op on x computes in float: x is float32 */
static inline bool ag_is_f32(const Tensor *x) { return x && x->dtype == AG_FLOAT32; }

/* ---- PyTorch's scalar tail ----
 * PyTorch's composite element-wise kernels (sigmoid, silu, elu, gelu,
 * softplus and their backward formulas: cpu_kernel_vec) run 8 doubles at a
 * time through their vector lambda (two AVX2 vectors, SLEEF's functions)
 * and the last n % 8 elements through their scalar lambda, which calls
 * glibc's libm (std::exp, std::tanh, ...). The two differ in the last bits
 * at many inputs (tanh by hundreds of ulps where gelu's gradient cancels),
 * and most small tensors are all tail: a one-element tensor is. So such an
 * op has a second block function, the same formula on libm's functions,
 * and the drivers run the last n % TORCH_VEC_STEP elements through it,
 * where SLEEF is loaded: without it ag cannot have PyTorch's bits, and an
 * op keeps the same result for the same input in every position.
 * (PyTorch's kernels for exp, log, log10, log2, tanh, sin, cos, tan, atan, asin, acos,
 * erf, log1p and expm1 on their own run every element through SLEEF: no tail.) The tail_* functions are
 * libm's, one call a value, never a vector clone (vecmath.c). */
enum { TORCH_VEC_STEP = 8 };
_Static_assert(BLOCK % TORCH_VEC_STEP == 0, "the tail fits in a block");

/* libm's functions, never a vector clone */
double ag_libm_exp(double x);
double ag_libm_log1p(double x);
double ag_libm_tanh(double x);
double ag_libm_erf(double x);
void ag_tail_exp(const double *x, double *y);
void ag_tail_log1p(const double *x, double *y);
void ag_tail_tanh(const double *x, double *y);
void ag_tail_erf(const double *x, double *y);

/* A block of math: block_exp, ag_tail_exp, ... */
typedef void (*MathBlock)(const double *x, double *y);

/* The drivers below take the block function as a pointer; inlined, the
 * pointer is a constant and the block's loop is inlined in turn. */
#if defined(__GNUC__)
#define ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define ALWAYS_INLINE inline
#endif

/* y = f(x) on BLOCK elements; p: the op's numbers (NULL when it has none). */
typedef void (*ForwardBlock)(const double *x, double *y, const double *p);
/* dx = f'(x, y, g) on BLOCK elements (y the forward's output). */
typedef void (*BackwardBlock)(const double *x, const double *y, const double *g, double *dx,
                              const double *p);

/* ---- threads: whole blocks split between tasks ----
 * Each block is computed the same wherever it runs, so a split changes no
 * bit. Only above the grain (AG_GRAIN_MATH elements a task): below, the
 * drivers' own loops run, the block function inlined. */
typedef struct {
    ForwardBlock f;
    BackwardBlock b;
    const double *x, *y, *g, *p;
    double *out;
} BlockJob;

static inline void forward_block_range(void *ctx, int64_t begin, int64_t end) {
    const BlockJob *j = ctx;
    for (int64_t i = begin * BLOCK; i < end * BLOCK; i += BLOCK) j->f(j->x + i, j->out + i, j->p);
}

static inline void backward_block_range(void *ctx, int64_t begin, int64_t end) {
    const BlockJob *j = ctx;
    for (int64_t i = begin * BLOCK; i < end * BLOCK; i += BLOCK)
        j->b(j->x + i, j->y + i, j->g + i, j->out + i, j->p);
}

static inline bool blocks_threaded(int64_t full) {
    return ag_parallel_worth(full / BLOCK, AG_GRAIN_MATH / BLOCK);
}

/* y[i] = f(x[i]) for i < n, BLOCK at a time (y may be x); with a tail
 * function, the last n % TORCH_VEC_STEP through it instead (PyTorch's
 * scalar tail), computed first: the blocks may overwrite x. */
static ALWAYS_INLINE void forward_blocks_tail(ForwardBlock f, ForwardBlock tail, const double *x,
                                              double *y, int64_t n, const double *p) {
    int64_t full = n - n % BLOCK, rest = n - full, vec = n - n % TORCH_VEC_STEP;
    _Alignas(64) double xt[BLOCK] = {0}, yt[BLOCK], tail_y[TORCH_VEC_STEP];
    if (tail && !ag_vec_ready()) tail = NULL;
    if (tail && vec < n) {
        memcpy(xt, x + vec, (size_t)(n - vec) * sizeof *xt);
        tail(xt, yt, p);
        memcpy(tail_y, yt, (size_t)(n - vec) * sizeof *yt);
    }
    if (blocks_threaded(full))
        ag_parallel_for(full / BLOCK, AG_GRAIN_MATH / BLOCK, forward_block_range,
                        &(BlockJob){.f = f, .x = x, .out = y, .p = p});
    else
        for (int64_t i = 0; i < full; i += BLOCK) f(x + i, y + i, p);
    if (rest > 0) {
        memset(xt, 0, sizeof xt);
        memcpy(xt, x + full, (size_t)rest * sizeof *xt);
        f(xt, yt, p);
        memcpy(y + full, yt, (size_t)rest * sizeof *yt);
    }
    if (tail && vec < n) memcpy(y + vec, tail_y, (size_t)(n - vec) * sizeof *y);
}

static ALWAYS_INLINE void forward_blocks(ForwardBlock f, const double *x, double *y, int64_t n,
                                         const double *p) {
    forward_blocks_tail(f, NULL, x, y, n, p);
}

/* dx[i] = f(x[i], y[i], g[i]) for the n - first elements from first on,
 * through a padded block, into out. */
static ALWAYS_INLINE void backward_rest(BackwardBlock f, const double *x, const double *y,
                                        const double *g, double *out, int64_t first, int64_t n,
                                        const double *p) {
    int64_t rest = n - first;
    _Alignas(64) double xt[BLOCK] = {0}, yt[BLOCK] = {0}, gt[BLOCK] = {0}, dxt[BLOCK];
    memcpy(xt, x + first, (size_t)rest * sizeof *xt);
    memcpy(yt, y + first, (size_t)rest * sizeof *yt);
    memcpy(gt, g + first, (size_t)rest * sizeof *gt);
    f(xt, yt, gt, dxt, p);
    memcpy(out, dxt, (size_t)rest * sizeof *dxt);
}

/* dx[i] = f(x[i], y[i], g[i]) for i < n, BLOCK at a time (dx may be g);
 * with a tail function, the last n % TORCH_VEC_STEP through it instead,
 * computed first: when dx is g, the blocks overwrite g. */
static ALWAYS_INLINE void backward_blocks_tail(BackwardBlock f, BackwardBlock tail,
                                               const double *x, const double *y, const double *g,
                                               double *dx, int64_t n, const double *p) {
    int64_t full = n - n % BLOCK, vec = n - n % TORCH_VEC_STEP;
    _Alignas(64) double tail_dx[TORCH_VEC_STEP];
    if (tail && !ag_vec_ready()) tail = NULL;
    if (tail && vec < n) backward_rest(tail, x, y, g, tail_dx, vec, n, p);
    if (blocks_threaded(full))
        ag_parallel_for(full / BLOCK, AG_GRAIN_MATH / BLOCK, backward_block_range,
                        &(BlockJob){.b = f, .x = x, .y = y, .g = g, .out = dx, .p = p});
    else
        for (int64_t i = 0; i < full; i += BLOCK) f(x + i, y + i, g + i, dx + i, p);
    if (full < n) backward_rest(f, x, y, g, dx + full, full, n, p);
    if (tail && vec < n) memcpy(dx + vec, tail_dx, (size_t)(n - vec) * sizeof *dx);
}

static ALWAYS_INLINE void backward_blocks(BackwardBlock f, const double *x, const double *y,
                                          const double *g, double *dx, int64_t n,
                                          const double *p) {
    backward_blocks_tail(f, NULL, x, y, g, dx, n, p);
}

/* float32's drivers: the blocks of f (split between threads as above),
 * the last partial one (PyTorch's scalar tail, n % 16) through tail where
 * SLEEF is loaded (without it f and tail call the same libm functions). */
static ALWAYS_INLINE void forward_blocks_f32(ForwardBlock f, ForwardBlock tail, const double *x,
                                             double *y, int64_t n, const double *p) {
    int64_t full = n - n % BLOCK;
    if (blocks_threaded(full)) /* whole blocks, each the same wherever it runs */
        ag_parallel_for(full / BLOCK, AG_GRAIN_MATH / BLOCK, forward_block_range,
                        &(BlockJob){.f = f, .x = x, .out = y, .p = p});
    else
        for (int64_t i = 0; i < full; i += BLOCK) f(x + i, y + i, p);
    if (full == n) return;
    _Alignas(64) double xt[BLOCK] = {0}, yt[BLOCK];
    memcpy(xt, x + full, (size_t)(n - full) * sizeof *xt);
    (tail ? tail : f)(xt, yt, p);
    memcpy(y + full, yt, (size_t)(n - full) * sizeof *yt);
}

static ALWAYS_INLINE void backward_blocks_f32(BackwardBlock f, BackwardBlock tail,
                                              const double *x, const double *y, const double *g,
                                              double *dx, int64_t n, const double *p) {
    int64_t full = n - n % BLOCK;
    if (blocks_threaded(full))
        ag_parallel_for(full / BLOCK, AG_GRAIN_MATH / BLOCK, backward_block_range,
                        &(BlockJob){.b = f, .x = x, .y = y, .g = g, .out = dx, .p = p});
    else
        for (int64_t i = 0; i < full; i += BLOCK) f(x + i, y + i, g + i, dx + i, p);
    if (full < n) backward_rest(tail ? tail : f, x, y, g, dx + full, full, n, p);
}

/* ---- float32 held packed (Tensor.packed) ----
 * A float32 op's result of at least AG_PACK_MIN elements is stored as
 * floats: the same blocks as forward_blocks_f32, x read as floats (packed)
 * or doubles, each result (a float, through the block's float math)
 * stored as one. Half the bytes written, and read from a packed x. */
static ALWAYS_INLINE void packed_block(ForwardBlock f, const double *x, const float *xf, float *y,
                                       int64_t count, const double *p) {
    _Alignas(64) double xt[BLOCK] = {0}, yt[BLOCK];
    const double *in = x;
    if (xf && count == BLOCK) {
        SIMD_LOOP for (int k = 0; k < BLOCK; k++) xt[k] = xf[k];
        in = xt;
    } else if (count < BLOCK) { /* the last block, padded */
        for (int64_t k = 0; k < count; k++) xt[k] = xf ? xf[k] : x[k];
        in = xt;
    }
    f(in, yt, p);
    SIMD_LOOP for (int64_t k = 0; k < count; k++) y[k] = (float)yt[k];
}

/* The same for an op that is one float function on every element
 * (F32_MAP_BLOCK's): the function on the floats themselves, a packed x's
 * directly, no widening (the padded last block: zeros, as f32_in's). */
static ALWAYS_INLINE void packed_map_block(MathBlockF32 map, const double *x, const float *xf,
                                           float *y, int64_t count) {
    _Alignas(64) float xt[BLOCK] = {0}, yt[BLOCK];
    if (xf && count == BLOCK) {
        map(xf, y);
        return;
    }
    if (count == BLOCK) {
        SIMD_LOOP for (int k = 0; k < BLOCK; k++) xt[k] = (float)x[k];
    } else {
        for (int64_t k = 0; k < count; k++) xt[k] = xf ? xf[k] : (float)x[k];
    }
    map(xt, yt);
    memcpy(y, yt, (size_t)count * sizeof *y);
}

typedef struct {
    ForwardBlock f;    /* NULL: map */
    MathBlockF32 map;
    const double *x;   /* x's doubles, or */
    const float *xf;   /* its floats when packed */
    float *y;
    const double *p;
} PackedBlockJob;

/* count (<= BLOCK) elements from i: f's block (the tail's, for the last
 * partial one), or map's when f is NULL */
static ALWAYS_INLINE void packed_at(const PackedBlockJob *j, ForwardBlock f, int64_t i,
                                    int64_t count) {
    const double *x = j->x ? j->x + i : NULL;
    const float *xf = j->xf ? j->xf + i : NULL;
    if (f) packed_block(f, x, xf, j->y + i, count, j->p);
    else packed_map_block(j->map, x, xf, j->y + i, count);
}

static inline void packed_block_range(void *ctx, int64_t begin, int64_t end) {
    const PackedBlockJob *j = ctx;
    for (int64_t i = begin * BLOCK; i < end * BLOCK; i += BLOCK) packed_at(j, j->f, i, BLOCK);
}

/* y = op(x) packed, block by block (split between threads as the doubles
 * path's): f's blocks and tail (or f) on the last partial one, or, with f
 * NULL, map on every block. */
static ALWAYS_INLINE void blocks_packed(ForwardBlock f, ForwardBlock tail, MathBlockF32 map,
                                        const Tensor *x, float *y, const double *p) {
    PackedBlockJob j = {.f = f, .map = map, .xf = x->packed ? ag_floats(x) : NULL, .y = y, .p = p};
    if (!j.xf) j.x = tensor_values(x);
    int64_t n = x->numel, full = n - n % BLOCK;
    if (blocks_threaded(full))
        ag_parallel_for(full / BLOCK, AG_GRAIN_MATH / BLOCK, packed_block_range, &j);
    else
        for (int64_t i = 0; i < full; i += BLOCK) packed_at(&j, f, i, BLOCK);
    if (full < n) packed_at(&j, f && tail ? tail : f, full, n - full);
}

/* The output tensor for op on x (NULL with a message when x is NULL). */
static inline Tensor *unary_out(const char *op, const Tensor *x) {
    if (!x) return ag_fail("%s: argument is NULL", op);
    return ag_tensor_new_like(x);
}

/* The tensor a backward writes dx into: g itself when nobody else holds it
 * (each dx[i] needs only g[i], so in place is safe, and the memory is warm),
 * else a new one (NULL if that fails). */
static inline Tensor *dx_buffer(Tensor *grad) {
    return ag_exclusive(grad) ? tensor_retain(grad) : ag_tensor_new_like(grad);
}

/* Records y = op(x) with its np numbers p copied into the ctx. */
static ALWAYS_INLINE Tensor *unary_record(int op, Tensor *x, Tensor *y, const double *p, int np) {
    double *saved;
    y = ag_graph_record(y, op, &x, 1, (void **)&saved, (size_t)np * sizeof *saved);
    if (saved) memcpy(saved, p, (size_t)np * sizeof *saved);
    return y;
}

/* The forward of a unary op (an id of ops.h) with np numbers p: y = f(x)
 * block by block; p is copied into the ctx, for the backward. */
static ALWAYS_INLINE Tensor *unary_forward_tail(int op, ForwardBlock f, ForwardBlock tail,
                                                Tensor *x, const double *p, int np) {
    /* A float32 x (relu, neg, abs, sqrt, ...: the float64 formula, each
     * result rounded to float) packs its result as the float kernels do;
     * not with a scalar tail, whose elements are not the last block's. */
    if (!tail && ag_is_f32(x) && x->numel >= ag_pack_min) {
        Tensor *y = ag_tensor_new_packed(x->ndim, x->shape);
        if (!y) return NULL;
        blocks_packed(f, NULL, NULL, x, ag_floats(y), p);
        return unary_record(op, x, y, p, np);
    }
    Tensor *y = unary_out(ag_op_at(op)->name, x);
    if (!y) return NULL;
    forward_blocks_tail(f, tail, tensor_values(x), tensor_values(y), y->numel, p);
    return unary_record(op, x, y, p, np);
}

/* The forward of a unary op on a float32 x: f32 on its blocks, tail (or
 * f32 when NULL) on the last partial one. */
static ALWAYS_INLINE Tensor *unary_forward_f32(int op, ForwardBlock f32, ForwardBlock tail,
                                               Tensor *x, const double *p, int np) {
    if (x && x->numel >= ag_pack_min) {
        Tensor *y = ag_tensor_new_packed(x->ndim, x->shape);
        if (!y) return NULL;
        blocks_packed(f32, tail, NULL, x, ag_floats(y), p);
        return unary_record(op, x, y, p, np);
    }
    Tensor *y = unary_out(ag_op_at(op)->name, x);
    if (!y) return NULL;
    forward_blocks_f32(f32, tail, tensor_values(x), tensor_values(y), y->numel, p);
    return unary_record(op, x, y, p, np);
}

/* unary_forward_f32 of an op whose float32 block is map on every element
 * (F32_MAP_BLOCK(name): f32 is name_f32_block, map block_f32_name): a
 * packed result computed on floats alone. */
static ALWAYS_INLINE Tensor *unary_forward_f32_map(int op, ForwardBlock f32, MathBlockF32 map,
                                                   Tensor *x) {
    if (!x || x->numel < ag_pack_min) return unary_forward_f32(op, f32, NULL, x, NULL, 0);
    Tensor *y = ag_tensor_new_packed(x->ndim, x->shape);
    if (!y) return NULL;
    blocks_packed(NULL, NULL, map, x, ag_floats(y), NULL);
    return unary_record(op, x, y, NULL, 0);
}

static ALWAYS_INLINE Tensor *unary_forward_with(int op, ForwardBlock f, Tensor *x,
                                                const double *p, int np) {
    return unary_forward_tail(op, f, NULL, x, p, np);
}

/* The forward of a unary op without numbers of its own. */
static ALWAYS_INLINE Tensor *unary_forward(int op, ForwardBlock f, Tensor *x) {
    return unary_forward_with(op, f, x, NULL, 0);
}

/* The backward of a unary op: dx = f'(x, y, g) block by block, into g's
 * memory when nobody else holds it; p is the ctx, the numbers the forward
 * saved (NULL for an op without them). */
static ALWAYS_INLINE void unary_backward_tail(Function *self, Tensor *grad, BackwardBlock f,
                                              BackwardBlock tail, const double *p) {
    Tensor *dx = dx_buffer(grad);
    if (!dx) return;
    backward_blocks_tail(f, tail, tensor_values(self->inputs[0]), tensor_values(self->output), tensor_values(grad),
                         tensor_values(dx), grad->numel, p);
    ag_accumulate_grad(self->inputs[0], dx);
}

/* The backward of a unary op whose input is float32 (its formula in
 * float: f32, tail on the last partial block, as unary_forward_f32). */
static ALWAYS_INLINE void unary_backward_f32(Function *self, Tensor *grad, BackwardBlock f32,
                                             BackwardBlock tail, const double *p) {
    Tensor *dx = dx_buffer(grad);
    if (!dx) return;
    backward_blocks_f32(f32, tail, tensor_values(self->inputs[0]), tensor_values(self->output), tensor_values(grad),
                        tensor_values(dx), grad->numel, p);
    ag_accumulate_grad(self->inputs[0], dx);
}

static ALWAYS_INLINE void unary_backward(Function *self, Tensor *grad, BackwardBlock f,
                                         const double *p) {
    unary_backward_tail(self, grad, f, NULL, p);
}

/* What a unary op's backward reads, its kernel's block and its
 * graph_backward alike (the row's grad_reads): x, its result y, or
 * neither. Only that is checked for in-place changes, as PyTorch saves
 * only what its formula needs: h = x.sin() then h[0] = 1 differentiates
 * (sin reads x), h = x.exp() then h[0] = 1 is refused (exp reads h). */
#define READS_X 1
#define READS_Y AG_CHECKS_OUTPUT
#define READS_NONE 0

/* The table row of a unary op without numbers: x.f() is f(x). */
#define UNARY_ROW_TYPED(ID, NAME, HELP, RULE, BACKWARD_NAME, DTYPE_RULE, READS)          \
    {.id = AG_OP_##ID, .name = #NAME, .signature = #NAME "(input)", .params = "T",     \
     .help = HELP, .rule = RULE, .backward_name = BACKWARD_NAME, .unary = tensor_##NAME, \
     .backward = NAME##_backward, .graph_backward = NAME##_graph,                      \
     .flags = AG_OP_METHOD | AG_OP_SAVES_READS, .grad_reads = {READS},                 \
     .dtype_rule = DTYPE_RULE}
/* A row of a floating op (exp: an integer x gives a float result), and of
 * one that keeps an integer x's type (neg, relu, abs). */
#define UNARY_ROW(ID, NAME, HELP, RULE, BACKWARD_NAME, READS)                          \
    UNARY_ROW_TYPED(ID, NAME, HELP, RULE, BACKWARD_NAME, AG_DTYPE_FLOATING, READS)
#define UNARY_ROW_INT(ID, NAME, HELP, RULE, BACKWARD_NAME, READS)                      \
    UNARY_ROW_TYPED(ID, NAME, HELP, RULE, BACKWARD_NAME, AG_DTYPE_PROMOTE, READS)

#endif
