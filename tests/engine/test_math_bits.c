/*
 * test_math_bits.c — exp, log, tanh, sin, cos, the activations built on
 * them and pow (SLEEF's, for exponents without a kernel of their own)
 * against PyTorch 1.13's bits (issue 22, item 17), at the inputs of
 * math_cases.h (made by math_cases.py). Where SLEEF is loaded (installed,
 * and AG_SLEEF is not 0) ag calls the functions PyTorch calls and the
 * results named below must match; without it (glibc's libmvec or libm) the
 * counts are printed and only the same result in every build is expected,
 * which test_numerics.c checks.
 */
#include "harness.h"
#include "ops/elementwise.h"

#include "math_cases.h"

typedef Tensor *(*MathFn)(Tensor *x);

static Tensor *log_abs(Tensor *x) {
    Tensor *a = tensor_abs(x), *y = tensor_log(a);
    tensor_release(a);
    return y;
}
static Tensor *abs_then(Tensor *(*f)(Tensor *), Tensor *x) {
    Tensor *a = tensor_abs(x), *y = f(a);
    tensor_release(a);
    return y;
}
static Tensor *log10_abs(Tensor *x) { return abs_then(tensor_log10, x); }
static Tensor *log2_abs(Tensor *x) { return abs_then(tensor_log2, x); }
static Tensor *elu1(Tensor *x) { return tensor_elu(x, 1.0); }
static Tensor *softplus1(Tensor *x) { return tensor_softplus(x, 1.0, 20.0); }
static Tensor *pow_by(Tensor *x, double e) {
    Tensor *t = tensor_create(0, NULL, &e, false), *y = tensor_pow(x, t);
    tensor_release(t);
    return y;
}
static Tensor *rsqrt_abs(Tensor *x) { return abs_then(tensor_rsqrt, x); }
static Tensor *pow4(Tensor *x) { return pow_by(x, 4.0); }
static Tensor *pow5(Tensor *x) { return pow_by(x, 5.0); }
static Tensor *pow2_5(Tensor *x) {
    Tensor *a = tensor_abs(x), *y = pow_by(a, 2.5);
    tensor_release(a);
    return y;
}

/* exact: what must have PyTorch's bits with SLEEF: 2 values and gradients,
 * 1 values, 0 neither. PyTorch's build fuses some of its kernels' products
 * and sums into fused multiply-adds (silu, gelu backward; gelu_tanh): ag
 * calls fma there. elu's gradient at nan is the scalar kernel's (g), where
 * the vector kernel of 640 elements gives nan. */
static const struct {
    const char *name;
    MathFn f;
    int exact;
} fns[] = {
    {"exp", tensor_exp, 2},   {"log", log_abs, 2},          {"log10", log10_abs, 2},
    {"log2", log2_abs, 2},    {"tanh", tensor_tanh, 2},
    {"sin", tensor_sin, 2},   {"cos", tensor_cos, 2},       {"sigmoid", tensor_sigmoid, 2},
    {"silu", tensor_silu, 2}, {"elu", elu1, 1},             {"gelu", tensor_gelu, 2},
    {"gelu_tanh", tensor_gelu_tanh, 2},                     {"softplus", softplus1, 2},
    {"pow4", pow4, 2},        {"pow5", pow5, 2},            {"pow2_5", pow2_5, 2},
    {"tan", tensor_tan, 2},   {"atan", tensor_atan, 2},     {"asin", tensor_asin, 2},
    {"acos", tensor_acos, 2}, {"erf", tensor_erf, 2},       {"log1p", tensor_log1p, 2},
    {"expm1", tensor_expm1, 2}, {"rsqrt", rsqrt_abs, 2},
};

/* Each input in a one-element tensor: all of it PyTorch's scalar tail
 * (elementwise.h), glibc's functions in the composite kernels. With SLEEF,
 * every value and gradient must have PyTorch's bits. */
static void test_math_tail_bits(void) {
    int64_t n = sizeof math_inputs / sizeof math_inputs[0], one = 1;
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++) {
        const MathCase *m = &math_tail_cases[k];
        CHECK(strcmp(m->name, fns[k].name) == 0, "tail case %s is %s", m->name, fns[k].name);
        int64_t same_y = 0, same_dx = 0;
        for (int64_t i = 0; i < n; i++) {
            Tensor *x = tensor_create(1, &one, &math_inputs[i], true), *y = fns[k].f(x);
            Tensor *g = tensor_ones(1, &one, false);
            if (y && g && tensor_backward(y, g) == 0 && x->grad) {
                same_y += same_double(tensor_values(y)[0], m->y[i]);
                same_dx += same_double(tensor_values(x->grad)[0], m->dx[i]);
            }
            tensor_release(g);
            tensor_release(y);
            tensor_release(x);
        }
        printf("  PyTorch's bits, one element each: %s %lld and its gradient %lld of %lld\n",
               m->name, (long long)same_y, (long long)same_dx, (long long)n);
        if (ag_vec_ready())
            CHECK(same_y == n && same_dx == n, "%s, one element each: %lld values and %lld "
                  "gradients differ from PyTorch's", m->name, (long long)(n - same_y),
                  (long long)(n - same_dx));
    }
}

void test_math_bits(void) {
    test_math_tail_bits();
    int64_t n = sizeof math_inputs / sizeof math_inputs[0];
    int64_t all_same = 0, all = 0;
    _Static_assert(sizeof fns / sizeof fns[0] == sizeof math_cases / sizeof math_cases[0],
                   "one function per case");
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++) {
        const MathCase *m = &math_cases[k];
        CHECK(strcmp(m->name, fns[k].name) == 0, "case %s is %s", m->name, fns[k].name);
        Tensor *x = tensor_create(1, &n, math_inputs, true), *y = fns[k].f(x);
        Tensor *g = tensor_ones(1, &n, false);
        int64_t same_y = 0, same_dx = 0;
        if (y && g && tensor_backward(y, g) == 0 && x->grad) {
            for (int64_t i = 0; i < n; i++) {
                same_y += same_double(tensor_values(y)[i], m->y[i]);
                if (m->dx) same_dx += same_double(tensor_values(x->grad)[i], m->dx[i]);
            }
        }
        printf("  PyTorch's bits: %s %lld of %lld", m->name, (long long)same_y, (long long)n);
        if (m->dx) printf(", its gradient %lld of %lld", (long long)same_dx, (long long)n);
        printf("\n");
        all_same += same_y + same_dx;
        all += n + (m->dx ? n : 0);
        if (ag_vec_ready() && fns[k].exact >= 1)
            CHECK(same_y == n, "%s: %lld of %lld values differ from PyTorch's", m->name,
                  (long long)(n - same_y), (long long)n);
        if (ag_vec_ready() && m->dx && fns[k].exact >= 2)
            CHECK(same_dx == n, "%s: %lld of %lld gradients differ from PyTorch's", m->name,
                  (long long)(n - same_dx), (long long)n);
        tensor_release(g);
        tensor_release(y);
        tensor_release(x);
    }
    printf("  PyTorch's bits: %lld of %lld results in all (%s)\n", (long long)all_same,
           (long long)all, ag_vec_ready() ? "SLEEF" : "libmvec or libm: SLEEF not loaded");
}
