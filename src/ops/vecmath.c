/*
 * vecmath.c — exp, log, log1p, tanh, sin, cos and erf on blocks of BLOCK
 * doubles through SLEEF's vector functions, the ones PyTorch's CPU kernels
 * call (Sleef_*d4_u10 in its AVX2 build), so that ag has PyTorch's bits,
 * and the same bits in every build of ag (release, debug, asan, valgrind):
 * the function called no longer depends on whether the compiler vectorised
 * a loop. Built only with AG_SLEEF (make finds SLEEF; -mavx2 -mfma for this
 * file); elementwise.h calls libmvec or libm without it. The 8-wide AVX-512
 * versions where the build has AVX-512 (faster; the same bits as the
 * 4-wide ones on 2*10^6 inputs of each function), else the 4-wide ones.
 */
#include "elementwise.h"

#ifdef AG_SLEEF
#include <immintrin.h>
#include <sleef.h>

#if defined(__AVX512F__)
typedef __m512d Vec;
enum { WIDTH = 8 };
static inline Vec load(const double *p) { return _mm512_loadu_pd(p); }
static inline void store(double *p, Vec v) { _mm512_storeu_pd(p, v); }
#define SLEEF_U10(name) Sleef_##name##d8_u10
#else
typedef __m256d Vec;
enum { WIDTH = 4 };
static inline Vec load(const double *p) { return _mm256_loadu_pd(p); }
static inline void store(double *p, Vec v) { _mm256_storeu_pd(p, v); }
#define SLEEF_U10(name) Sleef_##name##d4_u10
#endif

_Static_assert(BLOCK % WIDTH == 0, "a block is whole vectors");

void ag_vec_exp(const double *x, double *y) {
    for (int i = 0; i < BLOCK; i += WIDTH) store(y + i, SLEEF_U10(exp)(load(x + i)));
}

void ag_vec_log(const double *x, double *y) {
    for (int i = 0; i < BLOCK; i += WIDTH) store(y + i, SLEEF_U10(log)(load(x + i)));
}

void ag_vec_log1p(const double *x, double *y) {
    for (int i = 0; i < BLOCK; i += WIDTH) store(y + i, SLEEF_U10(log1p)(load(x + i)));
}

void ag_vec_tanh(const double *x, double *y) {
    for (int i = 0; i < BLOCK; i += WIDTH) store(y + i, SLEEF_U10(tanh)(load(x + i)));
}

void ag_vec_sin(const double *x, double *y) {
    for (int i = 0; i < BLOCK; i += WIDTH) store(y + i, SLEEF_U10(sin)(load(x + i)));
}

void ag_vec_cos(const double *x, double *y) {
    for (int i = 0; i < BLOCK; i += WIDTH) store(y + i, SLEEF_U10(cos)(load(x + i)));
}

void ag_vec_erf(const double *x, double *y) {
    for (int i = 0; i < BLOCK; i += WIDTH) store(y + i, SLEEF_U10(erf)(load(x + i)));
}
#else
typedef int ag_vecmath_unused; /* ISO C wants something in a file */
#endif
