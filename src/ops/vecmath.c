/*
 * vecmath.c — exp, log, log10, log2, log1p, tanh, sin, cos, erf, tan, atan,
 * asin, acos and expm1 on blocks of BLOCK
 * doubles, and pow of a block by one exponent, through SLEEF's vector
 * functions, the ones PyTorch's CPU kernels
 * call (Sleef_*d4_u10 in its AVX2 build), so that ag has PyTorch's bits,
 * and the same bits in every build of ag (release, debug, asan, valgrind):
 * the function called no longer depends on whether the compiler vectorised
 * a loop. SLEEF is loaded with dlopen at the first call (libsleef.so.3, as
 * OpenBLAS in matmul.c), so libag.a still links with -lm alone; where it is
 * not there (or AG_SLEEF=0, or the CPU lacks AVX2 and FMA) elementwise.h
 * calls libmvec or libm. The 8-wide AVX-512 versions where the build has
 * AVX-512 (faster; the same bits as the 4-wide ones on 2*10^6 inputs of
 * each function), else the 4-wide ones. For float32 tensors the float
 * functions PyTorch's float kernels call (Sleef_*f8_u10, 8 floats, in
 * every build: the 16-wide sinf and cosf give other bits), loaded with the
 * double ones, and libm's float functions for the scalar tails.
 */
#include "elementwise.h"

/* libm's functions one value a call, for PyTorch's scalar tails
 * (elementwise.h): through a function gcc does not inline, so that no loop
 * here becomes a call of libmvec's vector versions. */
#define TAIL_MATH(name)                                                      \
    __attribute__((noinline)) double ag_libm_##name(double x) {             \
        return name(x);                                                      \
    }                                                                        \
    void ag_tail_##name(const double *x, double *y) {                       \
        for (int i = 0; i < BLOCK; i++) y[i] = ag_libm_##name(x[i]);        \
    }
TAIL_MATH(exp)
TAIL_MATH(log1p)
TAIL_MATH(tanh)
TAIL_MATH(erf)
#undef TAIL_MATH

/* libm's float functions on a float block: PyTorch's float32 scalar tails
 * (std::exp of a float is expf), and every float32 value where SLEEF is
 * not loaded. Not inlined, for the same reason as above. */
#define TAIL_MATH_F32(name)                                                  \
    __attribute__((noinline)) static float libm_##name##f(float x) {        \
        return name##f(x);                                                   \
    }                                                                        \
    void ag_libm_f32_##name(const float *x, float *y) {                     \
        for (int i = 0; i < BLOCK; i++) y[i] = libm_##name##f(x[i]);        \
    }
TAIL_MATH_F32(exp)
TAIL_MATH_F32(log)
TAIL_MATH_F32(log10)
TAIL_MATH_F32(log2)
TAIL_MATH_F32(tanh)
TAIL_MATH_F32(sin)
TAIL_MATH_F32(cos)
TAIL_MATH_F32(log1p)
TAIL_MATH_F32(sinh)
TAIL_MATH_F32(cosh)
TAIL_MATH_F32(erf)
TAIL_MATH_F32(tan)
TAIL_MATH_F32(atan)
TAIL_MATH_F32(asin)
TAIL_MATH_F32(acos)
TAIL_MATH_F32(expm1)
#undef TAIL_MATH_F32

/* The float blocks where SLEEF is not loaded: vectorised into libmvec's
 * float functions where elementwise.h declares them (16 lanes a call on
 * AVX-512, where libm's scalar tanhf ran at a sixteenth of float64's
 * libmvec tanh), libm's otherwise. */
#define MVEC_MATH_F32(name)                                                  \
    void ag_mvec_f32_##name(const float *x, float *y) {                     \
        SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = name##f(x[i]);     \
    }
MVEC_MATH_F32(exp)
MVEC_MATH_F32(log)
MVEC_MATH_F32(tanh)
MVEC_MATH_F32(sin)
MVEC_MATH_F32(cos)
MVEC_MATH_F32(log1p)
MVEC_MATH_F32(erf)
#undef MVEC_MATH_F32

/* y = f(x) on n values, BLOCK at a time, the last through a padded block:
 * PyTorch's whole-tensor exp and log (vml: SLEEF's on every element). */
static void map_all(void (*f)(const double *, double *), const double *x, double *y, int64_t n) {
    int64_t full = n - n % BLOCK;
    for (int64_t i = 0; i < full; i += BLOCK) f(x + i, y + i);
    if (full == n) return;
    _Alignas(64) double t[BLOCK] = {0};
    memcpy(t, x + full, (size_t)(n - full) * sizeof *t);
    f(t, t);
    memcpy(y + full, t, (size_t)(n - full) * sizeof *t);
}

void ag_exp_all(const double *x, double *y, int64_t n) { map_all(block_exp, x, y, n); }
void ag_log_all(const double *x, double *y, int64_t n) { map_all(block_log, x, y, n); }

#if defined(__x86_64__) && defined(__GNUC__)
#include <dlfcn.h>
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__AVX512F__)
typedef __m512d Vec;
enum { WIDTH = 8 };
#define VEC_TARGET
static inline Vec load(const double *p) { return _mm512_loadu_pd(p); }
static inline void store(double *p, Vec v) { _mm512_storeu_pd(p, v); }
static inline Vec splat(double x) { return _mm512_set1_pd(x); }
#define SLEEF_SUFFIX "d8_u10"
#else
typedef __m256d Vec;
enum { WIDTH = 4 };
#define VEC_TARGET __attribute__((target("avx2,fma")))
static inline VEC_TARGET Vec load(const double *p) { return _mm256_loadu_pd(p); }
static inline VEC_TARGET void store(double *p, Vec v) { _mm256_storeu_pd(p, v); }
static inline VEC_TARGET Vec splat(double x) { return _mm256_set1_pd(x); }
#define SLEEF_SUFFIX "d4_u10"
#endif

_Static_assert(BLOCK % WIDTH == 0, "a block is whole vectors");

typedef Vec (*VecFn)(Vec);
enum {
    F_EXP, F_LOG, F_LOG10, F_LOG2, F_LOG1P, F_TANH, F_SIN, F_COS, F_ERF, F_TAN, F_ATAN, F_ASIN,
    F_ACOS, F_EXPM1, NUM_FNS
};
static const char *const fn_names[NUM_FNS] = {"exp",  "log",  "log10", "log2", "log1p",
                                              "tanh", "sin",  "cos",   "erf",  "tan",
                                              "atan", "asin", "acos",  "expm1"};
static VecFn fns[NUM_FNS];
typedef Vec (*VecFn2)(Vec, Vec);
static VecFn2 pow_fn; /* Sleef_pow: x ** e (Vectorized<double>::pow) */

/* float32: PyTorch's Vectorized<float> (AVX2: 8 floats, Sleef_*f8_u10).
 * On an AVX-512 CPU, the 16-wide functions (Sleef_*f16_u10) where they give
 * the same bits: bench/sleef_widths.c found no difference on any of the
 * 2^32 floats (SLEEF 3.5.1) but in log, log10 and log2, whose NaNs differ
 * in their sign bit, and which keep the 8-wide ones, as pow does. Twice the
 * floats a call: float32's tanh ran no faster than float64's 8-wide one. */
typedef __m256 VecF;
typedef VecF (*VecFnF)(VecF);
enum { WIDTH_F = 8 };
enum {
    FF_EXP, FF_LOG, FF_LOG10, FF_LOG2, FF_TANH, FF_SIN, FF_COS, FF_LOG1P, FF_SINH, FF_COSH,
    FF_POW, FF_TAN, FF_ATAN, FF_ASIN, FF_ACOS, FF_ERF, FF_EXPM1, NUM_FNS_F
};
static const char *const fn_names_f[NUM_FNS_F] = {
    "exp", "log",  "log10", "log2", "tanh", "sin", "cos",  "log1p", "sinh",
    "cosh", "pow", "tan",   "atan", "asin", "acos", "erf", "expm1"};
static void *fns_f[NUM_FNS_F];
static void *fns_f16[NUM_FNS_F]; /* NULL: the 8-wide one */

/* Whether float function i may take SLEEF's 16-wide version (above) */
static bool wide_f32(int i) {
    return i != FF_LOG && i != FF_LOG10 && i != FF_LOG2 && i != FF_POW;
}

atomic_int ag_vec_state;

/* Every function, or none: a SLEEF without one of them is not used. */
static bool load_sleef(void) {
    const char *env = getenv("AG_SLEEF");
    if (env && strcmp(env, "0") == 0) return false;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return false;
    void *lib = dlopen("libsleef.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return false;
    for (int i = 0; i < NUM_FNS; i++) {
        char symbol[32];
        snprintf(symbol, sizeof symbol, "Sleef_%s" SLEEF_SUFFIX, fn_names[i]);
        void *f = dlsym(lib, symbol);
        if (!f) {
            dlclose(lib);
            return false;
        }
        memcpy(&fns[i], &f, sizeof f); /* ISO C has no cast from void * to a function */
    }
    void *f = dlsym(lib, "Sleef_pow" SLEEF_SUFFIX);
    if (!f) {
        dlclose(lib);
        return false;
    }
    memcpy(&pow_fn, &f, sizeof f);
    for (int i = 0; i < NUM_FNS_F; i++) {
        char symbol[32];
        snprintf(symbol, sizeof symbol, "Sleef_%sf8_u10", fn_names_f[i]);
        if (!(fns_f[i] = dlsym(lib, symbol))) {
            dlclose(lib);
            return false;
        }
    }
    bool avx512 = __builtin_cpu_supports("avx512f");
    for (int i = 0; i < NUM_FNS_F && avx512; i++) {
        char symbol[32];
        snprintf(symbol, sizeof symbol, "Sleef_%sf16_u10", fn_names_f[i]);
        fns_f16[i] = wide_f32(i) ? dlsym(lib, symbol) : NULL;
    }
    return true;
}

bool ag_vec_load(void) {
    int state = load_sleef() ? 1 : -1; /* two threads may both look: the same answer */
    atomic_store(&ag_vec_state, state);
    return state > 0;
}

/* Only here are AVX2 instructions: the CPU was checked before. */
static VEC_TARGET void apply(int f, const double *x, double *y) {
    for (int i = 0; i < BLOCK; i += WIDTH) store(y + i, fns[f](load(x + i)));
}

void ag_vec_exp(const double *x, double *y) { apply(F_EXP, x, y); }
void ag_vec_log(const double *x, double *y) { apply(F_LOG, x, y); }
void ag_vec_log10(const double *x, double *y) { apply(F_LOG10, x, y); }
void ag_vec_log2(const double *x, double *y) { apply(F_LOG2, x, y); }
void ag_vec_log1p(const double *x, double *y) { apply(F_LOG1P, x, y); }
void ag_vec_tanh(const double *x, double *y) { apply(F_TANH, x, y); }
void ag_vec_sin(const double *x, double *y) { apply(F_SIN, x, y); }
void ag_vec_cos(const double *x, double *y) { apply(F_COS, x, y); }
void ag_vec_erf(const double *x, double *y) { apply(F_ERF, x, y); }
void ag_vec_tan(const double *x, double *y) { apply(F_TAN, x, y); }
void ag_vec_atan(const double *x, double *y) { apply(F_ATAN, x, y); }
void ag_vec_asin(const double *x, double *y) { apply(F_ASIN, x, y); }
void ag_vec_acos(const double *x, double *y) { apply(F_ACOS, x, y); }
void ag_vec_expm1(const double *x, double *y) { apply(F_EXPM1, x, y); }

VEC_TARGET void ag_vec_pow(const double *x, double e, double *y) {
    Vec ev = splat(e);
    for (int i = 0; i < BLOCK; i += WIDTH) store(y + i, pow_fn(load(x + i), ev));
}

typedef __m512 (*VecFnF16)(__m512);

static __attribute__((target("avx512f"))) void apply_f16(int f, const float *x, float *y) {
    VecFnF16 fn;
    memcpy(&fn, &fns_f16[f], sizeof fn);
    _Static_assert(BLOCK == 16, "a block is one 16-wide vector");
    _mm512_storeu_ps(y, fn(_mm512_loadu_ps(x)));
}

static __attribute__((target("avx2,fma"))) void apply_f(int f, const float *x, float *y) {
    if (fns_f16[f]) {
        apply_f16(f, x, y);
        return;
    }
    VecFnF fn;
    memcpy(&fn, &fns_f[f], sizeof fn);
    for (int i = 0; i < BLOCK; i += WIDTH_F) _mm256_storeu_ps(y + i, fn(_mm256_loadu_ps(x + i)));
}

void ag_vec_f32_exp(const float *x, float *y) { apply_f(FF_EXP, x, y); }
void ag_vec_f32_log(const float *x, float *y) { apply_f(FF_LOG, x, y); }
void ag_vec_f32_log10(const float *x, float *y) { apply_f(FF_LOG10, x, y); }
void ag_vec_f32_log2(const float *x, float *y) { apply_f(FF_LOG2, x, y); }
void ag_vec_f32_tanh(const float *x, float *y) { apply_f(FF_TANH, x, y); }
void ag_vec_f32_sin(const float *x, float *y) { apply_f(FF_SIN, x, y); }
void ag_vec_f32_cos(const float *x, float *y) { apply_f(FF_COS, x, y); }
void ag_vec_f32_log1p(const float *x, float *y) { apply_f(FF_LOG1P, x, y); }
void ag_vec_f32_sinh(const float *x, float *y) { apply_f(FF_SINH, x, y); }
void ag_vec_f32_cosh(const float *x, float *y) { apply_f(FF_COSH, x, y); }
void ag_vec_f32_tan(const float *x, float *y) { apply_f(FF_TAN, x, y); }
void ag_vec_f32_atan(const float *x, float *y) { apply_f(FF_ATAN, x, y); }
void ag_vec_f32_asin(const float *x, float *y) { apply_f(FF_ASIN, x, y); }
void ag_vec_f32_acos(const float *x, float *y) { apply_f(FF_ACOS, x, y); }
void ag_vec_f32_erf(const float *x, float *y) { apply_f(FF_ERF, x, y); }
void ag_vec_f32_expm1(const float *x, float *y) { apply_f(FF_EXPM1, x, y); }

__attribute__((target("avx2,fma"))) void ag_vec_f32_pow_tensor(const float *x, const float *e,
                                                               float *y) {
    VecF (*fn)(VecF, VecF);
    memcpy(&fn, &fns_f[FF_POW], sizeof fn);
    for (int i = 0; i < BLOCK; i += WIDTH_F)
        _mm256_storeu_ps(y + i, fn(_mm256_loadu_ps(x + i), _mm256_loadu_ps(e + i)));
}

__attribute__((target("avx2,fma"))) void ag_vec_f32_pow(const float *x, float e, float *y) {
    VecF (*fn)(VecF, VecF);
    memcpy(&fn, &fns_f[FF_POW], sizeof fn);
    for (int i = 0; i < BLOCK; i += WIDTH_F)
        _mm256_storeu_ps(y + i, fn(_mm256_loadu_ps(x + i), _mm256_set1_ps(e)));
}
#else
/* No AVX2 build: never loaded (ag_vec_state stays -1 once asked). */
atomic_int ag_vec_state;
bool ag_vec_load(void) {
    atomic_store(&ag_vec_state, -1);
    return false;
}
#define NO_VEC(name) \
    void ag_vec_##name(const double *x, double *y) { (void)x, (void)y; }
NO_VEC(exp)
NO_VEC(log)
NO_VEC(log10)
NO_VEC(log2)
NO_VEC(log1p)
NO_VEC(tanh)
NO_VEC(sin)
NO_VEC(cos)
NO_VEC(erf)
NO_VEC(tan)
NO_VEC(atan)
NO_VEC(asin)
NO_VEC(acos)
NO_VEC(expm1)
void ag_vec_pow(const double *x, double e, double *y) { (void)x, (void)e, (void)y; }
void ag_vec_f32_pow_tensor(const float *x, const float *e, float *y) { (void)x, (void)e, (void)y; }
#define NO_VEC_F32(name) \
    void ag_vec_f32_##name(const float *x, float *y) { (void)x, (void)y; }
NO_VEC_F32(exp)
NO_VEC_F32(log)
NO_VEC_F32(log10)
NO_VEC_F32(log2)
NO_VEC_F32(tanh)
NO_VEC_F32(sin)
NO_VEC_F32(cos)
NO_VEC_F32(log1p)
NO_VEC_F32(sinh)
NO_VEC_F32(cosh)
NO_VEC_F32(tan)
NO_VEC_F32(atan)
NO_VEC_F32(asin)
NO_VEC_F32(acos)
NO_VEC_F32(erf)
NO_VEC_F32(expm1)
void ag_vec_f32_pow(const float *x, float e, float *y) { (void)x, (void)e, (void)y; }
#endif
