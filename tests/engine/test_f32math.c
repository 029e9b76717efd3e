/*
 * test_f32math.c — float32 element-wise math against PyTorch 1.13's float
 * kernels, bit for bit (issue 18): exp, log, sin, tanh, sigmoid, the
 * activations, x ** e by each of pow_tensor_scalar's kernels and tensor **
 * tensor, values and gradients, on tensors of 1 to 203 elements (the
 * vector body and the scalar tail of PyTorch's kernels), at the inputs of
 * f32math_cases.h (made by f32math_cases.py). Where SLEEF is loaded the ops
 * marked exact must have every bit; without it (libm's float functions)
 * the counts are printed only. Where the C library is not the one PyTorch
 * ran on (F32_CASES_LIBC), "PyTorch's bits" means within 2 float32 ulps:
 * the ops that call its float functions (sinhf, coshf, log1pf) take that
 * library's bits, which PyTorch run there takes too (glibc 2.41 rounds
 * sinhf correctly; 2.36, where the cases were made, does not).
 */
#include "harness.h"
#include "ops/elementwise.h"

#include <string.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "f32math_cases.h"

static bool libc_as_recorded(void) {
#ifdef __GLIBC__
    return strcmp(gnu_get_libc_version(), F32_CASES_LIBC) == 0;
#else
    return false;
#endif
}

/* got is want, or (another C library) within 2 float32 ulps of it. */
static bool as_torch(double got, double want, bool exact) {
    if (same_double(got, want)) return true;
    if (exact || !isfinite(got) || !isfinite(want) || (got < 0) != (want < 0)) return false;
    double ulp = want == 0.0 ? 0x1p-149 : fmax(ldexp(1.0, ilogb(want) - 23), 0x1p-149);
    return fabs(got - want) <= 2 * ulp;
}

typedef Tensor *(*F32Fn)(Tensor *x, const double *e);

static Tensor *f32_tensor(const double *v, int64_t n) {
    Tensor *t = tensor_create(1, &n, v, false);
    if (t) tensor_set_dtype(t, AG_FLOAT32);
    return t;
}

static Tensor *abs_then(Tensor *(*f)(Tensor *), Tensor *x) {
    Tensor *a = tensor_abs(x), *y = f(a);
    tensor_release(a);
    return y;
}
static Tensor *pow_number(Tensor *x, double e) {
    Tensor *t = tensor_number(e, AG_FLOAT64), *y = tensor_pow(x, t);
    tensor_release(t);
    return y;
}
static Tensor *pow_abs(Tensor *x, double e) {
    Tensor *a = tensor_abs(x), *y = pow_number(a, e);
    tensor_release(a);
    return y;
}

#define PLAIN(name) \
    static Tensor *f32_##name(Tensor *x, const double *e) { return (void)e, tensor_##name(x); }
#define ABS(name) \
    static Tensor *f32_##name(Tensor *x, const double *e) { return (void)e, abs_then(tensor_##name, x); }
#define POW(name, how, v) \
    static Tensor *f32_##name(Tensor *x, const double *e) { return (void)e, how(x, v); }
PLAIN(exp) ABS(log) ABS(log10) ABS(log2) PLAIN(sin) PLAIN(cos) PLAIN(tanh) PLAIN(sigmoid)
ABS(sqrt) PLAIN(reciprocal) PLAIN(sinh) PLAIN(cosh) PLAIN(silu) PLAIN(gelu) PLAIN(gelu_tanh)
POW(pow2, pow_number, 2.0) POW(pow3, pow_number, 3.0) POW(pow0_5, pow_abs, 0.5)
POW(pow_m0_5, pow_abs, -0.5) POW(pow_m1, pow_number, -1.0) POW(pow_m2, pow_number, -2.0)
POW(pow4, pow_number, 4.0) POW(pow2_5, pow_abs, 2.5) POW(pow1_6, pow_abs, 1.6)
PLAIN(tan) PLAIN(atan) PLAIN(asin) PLAIN(acos) PLAIN(erf) PLAIN(log1p) PLAIN(expm1) ABS(rsqrt)
#undef PLAIN
#undef ABS
#undef POW
static Tensor *f32_elu(Tensor *x, const double *e) { return (void)e, tensor_elu(x, 1.0); }
static Tensor *f32_softplus(Tensor *x, const double *e) {
    return (void)e, tensor_softplus(x, 1.0, 20.0);
}
static Tensor *f32_pow_tensor(Tensor *x, const double *e) {
    Tensor *a = tensor_abs(x), *t = f32_tensor(e, x->numel), *y = tensor_pow(a, t);
    tensor_release(a);
    tensor_release(t);
    return y;
}

/* exact: 2 values and gradients must have PyTorch's bits (with SLEEF),
 * 1 values, 0 neither (counted only); ONE_ELEMENT: values and gradients of
 * the tensors of one element (gelu: PyTorch 1.13 hands float32 gelu of
 * more elements to oneDNN, whose bits ag does not have). */
enum { ONE_ELEMENT = 3 };
static const struct {
    const char *name;
    F32Fn f;
    int exact;
} fns[] = {
    {"exp", f32_exp, 2},         {"log", f32_log, 2},         {"log10", f32_log10, 2},
    {"log2", f32_log2, 2},       {"sin", f32_sin, 2},         {"cos", f32_cos, 2},
    {"tanh", f32_tanh, 2},       {"sigmoid", f32_sigmoid, 2}, {"sqrt", f32_sqrt, 2},
    {"reciprocal", f32_reciprocal, 2}, {"sinh", f32_sinh, 2}, {"cosh", f32_cosh, 2},
    {"silu", f32_silu, 2},       {"elu", f32_elu, 2},         {"gelu", f32_gelu, ONE_ELEMENT},
    {"gelu_tanh", f32_gelu_tanh, 2}, {"softplus", f32_softplus, 2},
    {"pow2", f32_pow2, 2},       {"pow3", f32_pow3, 2},       {"pow0_5", f32_pow0_5, 2},
    {"pow_m0_5", f32_pow_m0_5, 2}, {"pow_m1", f32_pow_m1, 2}, {"pow_m2", f32_pow_m2, 2},
    {"pow4", f32_pow4, 2},       {"pow2_5", f32_pow2_5, 2},   {"pow1_6", f32_pow1_6, 2},
    {"pow_tensor", f32_pow_tensor, 2},
    {"tan", f32_tan, 2},         {"atan", f32_atan, 2},       {"asin", f32_asin, 2},
    {"acos", f32_acos, 2},       {"erf", f32_erf, 2},         {"log1p", f32_log1p, 2},
    {"expm1", f32_expm1, 2},     {"rsqrt", f32_rsqrt, 2},
};
_Static_assert(sizeof fns / sizeof fns[0] == sizeof f32_cases / sizeof f32_cases[0],
               "one function per case");

/* One op on every piece of the inputs: how many values and gradients have
 * PyTorch's bits, into *same_y and *same_dx; how many values and gradients
 * of one-element pieces differ, into *ones_differ. */
static void run_case(size_t k, int64_t *same_y, int64_t *same_dx, int64_t *ones_differ) {
    const F32Case *m = &f32_cases[k];
    bool exact = libc_as_recorded();
    int64_t at = 0;
    for (size_t s = 0; s < sizeof f32_sizes / sizeof f32_sizes[0]; s++) {
        int64_t n = f32_sizes[s];
        Tensor *x = f32_tensor(f32_x + at, n), *g = f32_tensor(f32_g + at, n);
        if (x) tensor_set_requires_grad(x, true);
        Tensor *y = x && g ? fns[k].f(x, f32_e + at) : NULL;
        CHECK(y && y->dtype == AG_FLOAT32, "%s of %lld elements: a float32 result", m->name,
              (long long)n);
        if (y && tensor_backward(y, g) == 0 && x->grad) {
            for (int64_t i = 0; i < n; i++) {
                bool sy = as_torch(tensor_values(y)[i], m->y[at + i], exact);
                bool sdx = as_torch(tensor_values(x->grad)[i], m->dx[at + i], exact);
                *same_y += sy;
                *same_dx += sdx;
                if (n == 1) *ones_differ += !sy + !sdx;
            }
        }
        tensor_release(y);
        tensor_release(g);
        tensor_release(x);
        at += n;
    }
}

static void test_f32math_broadcast_grad(void);
static void test_f32math_create_graph(void);

void test_f32math(void) {
    test_f32math_broadcast_grad();
    test_f32math_create_graph();
    int64_t n = sizeof f32_x / sizeof f32_x[0];
    if (!libc_as_recorded())
        printf("  (float32 math: this C library is not glibc %s, where PyTorch's bits were "
               "recorded: within 2 float32 ulps counts as the same)\n", F32_CASES_LIBC);
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++) {
        const F32Case *m = &f32_cases[k];
        CHECK(strcmp(m->name, fns[k].name) == 0, "case %s is %s", m->name, fns[k].name);
        int64_t same_y = 0, same_dx = 0, ones_differ = 0;
        run_case(k, &same_y, &same_dx, &ones_differ);
        printf("  PyTorch's float32 bits: %s %lld of %lld, its gradient %lld\n", m->name,
               (long long)same_y, (long long)n, (long long)same_dx);
        if (fns[k].exact == ONE_ELEMENT)
            CHECK(ones_differ == 0, "float32 %s of one element: %lld values or gradients "
                  "differ from PyTorch's", m->name, (long long)ones_differ);
        else if (ag_vec_ready() && fns[k].exact >= 1)
            CHECK(same_y == n, "float32 %s: %lld of %lld values differ from PyTorch's", m->name,
                  (long long)(n - same_y), (long long)n);
        if (ag_vec_ready() && fns[k].exact >= 2 && fns[k].exact != ONE_ELEMENT)
            CHECK(same_dx == n, "float32 %s: %lld of %lld gradients differ from PyTorch's",
                  m->name, (long long)(n - same_dx), (long long)n);
    }
}

/* x * b, b a 0-d float32 leaf: b.grad is the sum of the products g * x,
 * each rounded to float before the sum (PyTorch's float32 mul backward,
 * then sum_to in float), on every piece of the inputs. */
static void test_f32math_broadcast_grad(void) {
    int64_t at = 0, same = 0, pieces = sizeof f32_sizes / sizeof f32_sizes[0];
    for (int64_t s = 0; s < pieces; s++) {
        int64_t n = f32_sizes[s];
        Tensor *x = f32_tensor(f32_bx + at, n), *g = f32_tensor(f32_g + at, n);
        Tensor *b = tensor_create(0, NULL, &f32_b, false);
        if (b) tensor_set_dtype(b, AG_FLOAT32);
        if (b) tensor_set_requires_grad(b, true);
        Tensor *y = x && g && b ? tensor_mul(x, b) : NULL;
        if (y && tensor_backward(y, g) == 0 && b->grad)
            same += same_double(tensor_values(b->grad)[0], f32_bcast_mul_grad[s]);
        tensor_release(y);
        tensor_release(b);
        tensor_release(g);
        tensor_release(x);
        at += n;
    }
    CHECK(same == pieces, "float32 x * b: %lld of %lld gradients of b differ from PyTorch's",
          (long long)(pieces - same), (long long)pieces);
}

/* How many of the n values of t differ from want's bits */
static int64_t differing(const Tensor *t, const double *want, int64_t n) {
    int64_t d = 0;
    for (int64_t i = 0; i < n; i++) d += !same_double(tensor_values(t)[i], want[i]);
    return d;
}

/* create_graph on float32: tanh's gradient differentiated again (x.grad of
 * sum(gx * gx)), PyTorch's bits. */
static void test_f32math_create_graph(void) {
    int64_t n = sizeof f32_tanh_gradgrad / sizeof f32_tanh_gradgrad[0];
    Tensor *x = f32_tensor(f32_bx, n), *g = f32_tensor(f32_g, n), *gx = NULL;
    if (x) tensor_set_requires_grad(x, true);
    Tensor *y = x && g ? tensor_tanh(x) : NULL;
    int rc = y ? ag_grad(1, &y, &g, 1, &x, AG_CREATE_GRAPH, false, &gx) : -1;
    Tensor *sq = rc == 0 ? tensor_mul(gx, gx) : NULL, *loss = sq ? tensor_sum(sq) : NULL;
    bool ok = loss && tensor_backward(loss, NULL) == 0 && x->grad;
    /* PyTorch's bits where its tanhf (SLEEF's) is loaded; else libm's
     * tanhf, within float32's rounding of them */
    if (ag_vec_ready())
        CHECK(ok && differing(x->grad, f32_tanh_gradgrad, n) == 0,
              "float32 tanh's second derivative: PyTorch's bits");
    for (int64_t i = 0; ok && !ag_vec_ready() && i < n; i++)
        CHECK(fabs(tensor_values(x->grad)[i] - f32_tanh_gradgrad[i]) <=
                  1e-5 * fmax(1.0, fabs(f32_tanh_gradgrad[i])),
              "float32 tanh's second derivative at %lld: %.9g, PyTorch %.9g", (long long)i,
              tensor_values(x->grad)[i], f32_tanh_gradgrad[i]);
    Tensor *held[] = {loss, sq, gx, y, g, x};
    for (int i = 0; i < 6; i++) tensor_release(held[i]);
}
