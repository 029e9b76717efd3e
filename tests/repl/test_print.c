/*
 * test_print.c — tests the tensor printer (repl/print.c) and its string
 * buffer (repl/strbuf.c) against output produced by real PyTorch.
 *
 * It is: a standalone program (its own main) whose last line is
 * "N passed, N failed", exiting non-zero on any failure. Every expected
 * string below was printed by PyTorch 1.13 (repr(t)) with
 *     torch.set_default_dtype(torch.float64)   # so no dtype suffix, as in ag
 *     nan, inf = float('nan'), float('inf')
 *     T = torch.tensor
 *     def A(*s): return torch.arange(float(math.prod(s))).reshape(*s)
 * and pasted here; the Python expression is in the comment above each case.
 * Mul, Neg and Sum are torch.autograd.Function subclasses (forward: x * 1,
 * -x and x.sum()), so that PyTorch names their grad_fn "MulBackward",
 * "NegBackward" and "SumBackward" as ag does (PyTorch's own say "MulBackward0").
 *
 * It is NOT: a test of the engine's arithmetic. Values are exact binary
 * fractions or the same IEEE operations Python performed (the generators
 * below mirror the comments' list comprehensions), so no libm call can make
 * a digit differ. Running it needs no Python.
 */
#include "print.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* How a case's tensor is built: a plain constant, a leaf requiring grad, or
 * a non-leaf from a real engine op (x * 1 keeps the values exactly). */
typedef enum { PLAIN, LEAF_GRAD, OP_MUL, OP_NEG, OP_SUM, OP_FREED } Kind;

/* Element i (row-major) of a generated tensor. */
typedef double (*Gen)(int64_t i);

typedef struct {
    Kind kind;
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    const double *data; /* the values, or NULL to use gen (or for empty tensors) */
    Gen gen;
    const char *expected;
} Case;

/* The generators, each the Python list comprehension of its comments. */
static double g_index(int64_t i) { return (double)i; }
static double g_half(int64_t i) { return (double)i * 0.5 - 500.0; }
static double g_mod(int64_t i) { return (double)((i * 37) % 101) / 16.0 - 3.0; }
static double g_frac(int64_t i) { return (double)i * 0.37 - 5.0; }
static double g_tiny(int64_t i) { return (double)(i + 1) * 1e-5; }
static double g_tiny_index(int64_t i) { return (double)i * 1e-5; }
static double g_mixed(int64_t i) { return (double)(i % 7) * 1000.5 - 3.0; }
static double g_k1000(int64_t i) { return (double)i + 1000.0; }
static double g_plus_half(int64_t i) { return (double)i + 0.5; }
static double g_spike(int64_t i) { return i == 1000 ? 0.5 : (double)i + 100.0; }
static double g_k10(int64_t i) { return (double)i + 10.0; }
static double g_zero(int64_t i) { (void)i; return 0.0; }

static const Case cases[] = {
    /* T(5.) */
    {PLAIN, 0, {0}, (const double[]){5.0}, NULL,
        "tensor(5.)"},
    /* T(3.14159265) */
    {PLAIN, 0, {0}, (const double[]){3.14159265}, NULL,
        "tensor(3.1416)"},
    /* T(-2.5) */
    {PLAIN, 0, {0}, (const double[]){-2.5}, NULL,
        "tensor(-2.5000)"},
    /* T(1e-5) */
    {PLAIN, 0, {0}, (const double[]){1e-05}, NULL,
        "tensor(1.0000e-05)"},
    /* T(1e10) */
    {PLAIN, 0, {0}, (const double[]){10000000000.0}, NULL,
        "tensor(1.0000e+10)"},
    /* T(nan) */
    {PLAIN, 0, {0}, (const double[]){NAN}, NULL,
        "tensor(nan)"},
    /* T(inf) */
    {PLAIN, 0, {0}, (const double[]){INFINITY}, NULL,
        "tensor(inf)"},
    /* T(-inf) */
    {PLAIN, 0, {0}, (const double[]){-INFINITY}, NULL,
        "tensor(-inf)"},
    /* T(-0.0) */
    {PLAIN, 0, {0}, (const double[]){-0.0}, NULL,
        "tensor(-0.)"},
    /* T(0.) */
    {PLAIN, 0, {0}, (const double[]){0.0}, NULL,
        "tensor(0.)"},
    /* T(-7.) */
    {PLAIN, 0, {0}, (const double[]){-7.0}, NULL,
        "tensor(-7.)"},
    /* T(1e8) */
    {PLAIN, 0, {0}, (const double[]){100000000.0}, NULL,
        "tensor(100000000.)"},
    /* T(123456789.) */
    {PLAIN, 0, {0}, (const double[]){123456789.0}, NULL,
        "tensor(1.2346e+08)"},
    /* T(0.5, requires_grad=True) */
    {LEAF_GRAD, 0, {0}, (const double[]){0.5}, NULL,
        "tensor(0.5000, requires_grad=True)"},
    /* T(-123.456) */
    {PLAIN, 0, {0}, (const double[]){-123.456}, NULL,
        "tensor(-123.4560)"},
    /* T(0.00012) */
    {PLAIN, 0, {0}, (const double[]){0.00012}, NULL,
        "tensor(0.0001)"},
    /* T([1., 2.]) */
    {PLAIN, 1, {2}, (const double[]){1.0, 2.0}, NULL,
        "tensor([1., 2.])"},
    /* T([1.5, -2.25, 100.125]) */
    {PLAIN, 1, {3}, (const double[]){1.5, -2.25, 100.125}, NULL,
        "tensor([  1.5000,  -2.2500, 100.1250])"},
    /* T([1., 2000.]) */
    {PLAIN, 1, {2}, (const double[]){1.0, 2000.0}, NULL,
        "tensor([1.0000e+00, 2.0000e+03])"},
    /* T([0.001, 1.5]) */
    {PLAIN, 1, {2}, (const double[]){0.001, 1.5}, NULL,
        "tensor([1.0000e-03, 1.5000e+00])"},
    /* T([1e-5, 1.]) */
    {PLAIN, 1, {2}, (const double[]){1e-05, 1.0}, NULL,
        "tensor([1.0000e-05, 1.0000e+00])"},
    /* T([0., nan, inf, -inf]) */
    {PLAIN, 1, {4}, (const double[]){0.0, NAN, INFINITY, -INFINITY}, NULL,
        "tensor([0., nan, inf, -inf])"},
    /* T([1., nan, -inf]) */
    {PLAIN, 1, {3}, (const double[]){1.0, NAN, -INFINITY}, NULL,
        "tensor([1., nan, -inf])"},
    /* T([0.5, nan, -inf]) */
    {PLAIN, 1, {3}, (const double[]){0.5, NAN, -INFINITY}, NULL,
        "tensor([0.5000,    nan,   -inf])"},
    /* T([0., -0.]) */
    {PLAIN, 1, {2}, (const double[]){0.0, -0.0}, NULL,
        "tensor([0., -0.])"},
    /* T([1., -0.])  # -0. is wider than the column */
    {PLAIN, 1, {2}, (const double[]){1.0, -0.0}, NULL,
        "tensor([1., -0.])"},
    /* T([-nan, 1.5])  # no sign on nan */
    {PLAIN, 1, {2}, (const double[]){-NAN, 1.5}, NULL,
        "tensor([   nan, 1.5000])"},
    /* T([1e-5, 0., nan]) */
    {PLAIN, 1, {3}, (const double[]){1e-05, 0.0, NAN}, NULL,
        "tensor([1.0000e-05, 0.0000e+00,        nan])"},
    /* T([-1., 10., -100.]) */
    {PLAIN, 1, {3}, (const double[]){-1.0, 10.0, -100.0}, NULL,
        "tensor([  -1.,   10., -100.])"},
    /* T([1e9, 1.]) */
    {PLAIN, 1, {2}, (const double[]){1000000000.0, 1.0}, NULL,
        "tensor([1.0000e+09, 1.0000e+00])"},
    /* T([1., 2.], requires_grad=True) */
    {LEAF_GRAD, 1, {2}, (const double[]){1.0, 2.0}, NULL,
        "tensor([1., 2.], requires_grad=True)"},
    /* T([i * 0.37 - 5.0 for i in range(30)]) */
    {PLAIN, 1, {30}, NULL, g_frac,
        "tensor([-5.0000, -4.6300, -4.2600, -3.8900, -3.5200, -3.1500, -2.7800, -2.4100,\n"
        "        -2.0400, -1.6700, -1.3000, -0.9300, -0.5600, -0.1900,  0.1800,  0.5500,\n"
        "         0.9200,  1.2900,  1.6600,  2.0300,  2.4000,  2.7700,  3.1400,  3.5100,\n"
        "         3.8800,  4.2500,  4.6200,  4.9900,  5.3600,  5.7300])"},
    /* A(40) */
    {PLAIN, 1, {40}, NULL, g_index,
        "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
        "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
        "        28., 29., 30., 31., 32., 33., 34., 35., 36., 37., 38., 39.])"},
    /* T([(i + 1) * 1e-5 for i in range(20)]) */
    {PLAIN, 1, {20}, NULL, g_tiny,
        "tensor([1.0000e-05, 2.0000e-05, 3.0000e-05, 4.0000e-05, 5.0000e-05, 6.0000e-05,\n"
        "        7.0000e-05, 8.0000e-05, 9.0000e-05, 1.0000e-04, 1.1000e-04, 1.2000e-04,\n"
        "        1.3000e-04, 1.4000e-04, 1.5000e-04, 1.6000e-04, 1.7000e-04, 1.8000e-04,\n"
        "        1.9000e-04, 2.0000e-04])"},
    /* T([i * 0.5 - 500.0 for i in range(2000)]) */
    {PLAIN, 1, {2000}, NULL, g_half,
        "tensor([-500.0000, -499.5000, -499.0000,  ...,  498.5000,  499.0000,\n"
        "         499.5000])"},
    /* A(1001) */
    {PLAIN, 1, {1001}, NULL, g_index,
        "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])"},
    /* torch.zeros(10, 100)  # 1000 elements: not summarised */
    {PLAIN, 2, {10, 100}, NULL, g_zero,
        "tensor([[0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0.],\n"
        "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0.],\n"
        "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0.],\n"
        "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0.],\n"
        "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0.],\n"
        "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0.],\n"
        "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0.],\n"
        "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0.],\n"
        "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0.],\n"
        "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,\n"
        "         0., 0., 0., 0.]])"},
    /* torch.where(torch.arange(2000) == 1000, 0.5, torch.arange(2000.) + 100)  # formatter sees only shown values */
    {PLAIN, 1, {2000}, NULL, g_spike,
        "tensor([ 100.,  101.,  102.,  ..., 2097., 2098., 2099.])"},
    /* T([i * 0.37 - 5.0 for i in range(30)], requires_grad=True) */
    {LEAF_GRAD, 1, {30}, NULL, g_frac,
        "tensor([-5.0000, -4.6300, -4.2600, -3.8900, -3.5200, -3.1500, -2.7800, -2.4100,\n"
        "        -2.0400, -1.6700, -1.3000, -0.9300, -0.5600, -0.1900,  0.1800,  0.5500,\n"
        "         0.9200,  1.2900,  1.6600,  2.0300,  2.4000,  2.7700,  3.1400,  3.5100,\n"
        "         3.8800,  4.2500,  4.6200,  4.9900,  5.3600,  5.7300],\n"
        "       requires_grad=True)"},
    /* torch.empty(0) */
    {PLAIN, 1, {0}, NULL, NULL,
        "tensor([])"},
    /* torch.empty(0, 3) */
    {PLAIN, 2, {0, 3}, NULL, NULL,
        "tensor([], size=(0, 3))"},
    /* torch.empty(2, 0, 3, requires_grad=True) */
    {LEAF_GRAD, 3, {2, 0, 3}, NULL, NULL,
        "tensor([], size=(2, 0, 3), requires_grad=True)"},
    /* torch.empty(0, 1000, 1000, 1000, 1000, 1000, 1000, 1, requires_grad=True)
     * 79 columns: no empty shape the engine accepts is wider (its non-zero
     * dimensions multiply to less than 2^60), so its suffixes never wrap */
    {LEAF_GRAD, 8, {0, 1000, 1000, 1000, 1000, 1000, 1000, 1}, NULL, NULL,
        "tensor([], size=(0, 1000, 1000, 1000, 1000, 1000, 1000, 1), requires_grad=True)"},
    /* T([[1.5, 2.], [3., 4.]]) */
    {PLAIN, 2, {2, 2}, (const double[]){1.5, 2.0, 3.0, 4.0}, NULL,
        "tensor([[1.5000, 2.0000],\n"
        "        [3.0000, 4.0000]])"},
    /* T([[1.5, 2.], [3., 4.]], requires_grad=True) */
    {LEAF_GRAD, 2, {2, 2}, (const double[]){1.5, 2.0, 3.0, 4.0}, NULL,
        "tensor([[1.5000, 2.0000],\n"
        "        [3.0000, 4.0000]], requires_grad=True)"},
    /* T([[-1., 10.], [100., -1000.]]) */
    {PLAIN, 2, {2, 2}, (const double[]){-1.0, 10.0, 100.0, -1000.0}, NULL,
        "tensor([[   -1.,    10.],\n"
        "        [  100., -1000.]])"},
    /* T([[1e-3, 2.], [3., 4e5]]) */
    {PLAIN, 2, {2, 2}, (const double[]){0.001, 2.0, 3.0, 400000.0}, NULL,
        "tensor([[1.0000e-03, 2.0000e+00],\n"
        "        [3.0000e+00, 4.0000e+05]])"},
    /* T([[((i * 37) % 101) / 16.0 - 3.0 for i in range(j, j + 100)] for j in range(0, 10000, 100)]) */
    {PLAIN, 2, {100, 100}, NULL, g_mod,
        "tensor([[-3.0000, -0.6875,  1.6250,  ...,  0.3750,  2.6875, -1.3125],\n"
        "        [ 1.0000, -3.0000, -0.6875,  ..., -1.9375,  0.3750,  2.6875],\n"
        "        [-1.3125,  1.0000, -3.0000,  ...,  2.0625, -1.9375,  0.3750],\n"
        "        ...,\n"
        "        [-0.0625,  2.2500, -1.7500,  ..., -3.0000, -0.6875,  1.6250],\n"
        "        [-2.3750, -0.0625,  2.2500,  ...,  1.0000, -3.0000, -0.6875],\n"
        "        [ 1.6250, -2.3750, -0.0625,  ..., -1.3125,  1.0000, -3.0000]])"},
    /* T([[i * 0.37 - 5.0 for i in range(j, j + 20)] for j in (0, 20)]) */
    {PLAIN, 2, {2, 20}, NULL, g_frac,
        "tensor([[-5.0000, -4.6300, -4.2600, -3.8900, -3.5200, -3.1500, -2.7800, -2.4100,\n"
        "         -2.0400, -1.6700, -1.3000, -0.9300, -0.5600, -0.1900,  0.1800,  0.5500,\n"
        "          0.9200,  1.2900,  1.6600,  2.0300],\n"
        "        [ 2.4000,  2.7700,  3.1400,  3.5100,  3.8800,  4.2500,  4.6200,  4.9900,\n"
        "          5.3600,  5.7300,  6.1000,  6.4700,  6.8400,  7.2100,  7.5800,  7.9500,\n"
        "          8.3200,  8.6900,  9.0600,  9.4300]])"},
    /* T([[7.]]) */
    {PLAIN, 2, {1, 1}, (const double[]){7.0}, NULL,
        "tensor([[7.]])"},
    /* T([[1.], [-2.], [3.]]) */
    {PLAIN, 2, {3, 1}, (const double[]){1.0, -2.0, 3.0}, NULL,
        "tensor([[ 1.],\n"
        "        [-2.],\n"
        "        [ 3.]])"},
    /* T([[nan, 1.25], [inf, -0.5]]) */
    {PLAIN, 2, {2, 2}, (const double[]){NAN, 1.25, INFINITY, -0.5}, NULL,
        "tensor([[    nan,  1.2500],\n"
        "        [    inf, -0.5000]])"},
    /* T([[(i % 7) * 1000.5 - 3.0 for i in range(j, j + 8)] for j in range(0, 24, 8)]) */
    {PLAIN, 2, {3, 8}, NULL, g_mixed,
        "tensor([[-3.0000e+00,  9.9750e+02,  1.9980e+03,  2.9985e+03,  3.9990e+03,\n"
        "          4.9995e+03,  6.0000e+03, -3.0000e+00],\n"
        "        [ 9.9750e+02,  1.9980e+03,  2.9985e+03,  3.9990e+03,  4.9995e+03,\n"
        "          6.0000e+03, -3.0000e+00,  9.9750e+02],\n"
        "        [ 1.9980e+03,  2.9985e+03,  3.9990e+03,  4.9995e+03,  6.0000e+03,\n"
        "         -3.0000e+00,  9.9750e+02,  1.9980e+03]])"},
    /* A(40, 30) */
    {PLAIN, 2, {40, 30}, NULL, g_index,
        "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 2.7000e+01, 2.8000e+01,\n"
        "         2.9000e+01],\n"
        "        [3.0000e+01, 3.1000e+01, 3.2000e+01,  ..., 5.7000e+01, 5.8000e+01,\n"
        "         5.9000e+01],\n"
        "        [6.0000e+01, 6.1000e+01, 6.2000e+01,  ..., 8.7000e+01, 8.8000e+01,\n"
        "         8.9000e+01],\n"
        "        ...,\n"
        "        [1.1100e+03, 1.1110e+03, 1.1120e+03,  ..., 1.1370e+03, 1.1380e+03,\n"
        "         1.1390e+03],\n"
        "        [1.1400e+03, 1.1410e+03, 1.1420e+03,  ..., 1.1670e+03, 1.1680e+03,\n"
        "         1.1690e+03],\n"
        "        [1.1700e+03, 1.1710e+03, 1.1720e+03,  ..., 1.1970e+03, 1.1980e+03,\n"
        "         1.1990e+03]])"},
    /* A(2, 2, 3) */
    {PLAIN, 3, {2, 2, 3}, NULL, g_index,
        "tensor([[[ 0.,  1.,  2.],\n"
        "         [ 3.,  4.,  5.]],\n"
        "\n"
        "        [[ 6.,  7.,  8.],\n"
        "         [ 9., 10., 11.]]])"},
    /* T([[[i * 0.37 - 5.0 for i in range(k, k + 4)] for k in range(j, j + 12, 4)] for j in (0, 12)]) */
    {PLAIN, 3, {2, 3, 4}, NULL, g_frac,
        "tensor([[[-5.0000, -4.6300, -4.2600, -3.8900],\n"
        "         [-3.5200, -3.1500, -2.7800, -2.4100],\n"
        "         [-2.0400, -1.6700, -1.3000, -0.9300]],\n"
        "\n"
        "        [[-0.5600, -0.1900,  0.1800,  0.5500],\n"
        "         [ 0.9200,  1.2900,  1.6600,  2.0300],\n"
        "         [ 2.4000,  2.7700,  3.1400,  3.5100]]])"},
    /* A(2, 2, 2, 2) */
    {PLAIN, 4, {2, 2, 2, 2}, NULL, g_index,
        "tensor([[[[ 0.,  1.],\n"
        "          [ 2.,  3.]],\n"
        "\n"
        "         [[ 4.,  5.],\n"
        "          [ 6.,  7.]]],\n"
        "\n"
        "\n"
        "        [[[ 8.,  9.],\n"
        "          [10., 11.]],\n"
        "\n"
        "         [[12., 13.],\n"
        "          [14., 15.]]]])"},
    /* A(2, 3, 10, 20) */
    {PLAIN, 4, {2, 3, 10, 20}, NULL, g_index,
        "tensor([[[[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.7000e+01,\n"
        "           1.8000e+01, 1.9000e+01],\n"
        "          [2.0000e+01, 2.1000e+01, 2.2000e+01,  ..., 3.7000e+01,\n"
        "           3.8000e+01, 3.9000e+01],\n"
        "          [4.0000e+01, 4.1000e+01, 4.2000e+01,  ..., 5.7000e+01,\n"
        "           5.8000e+01, 5.9000e+01],\n"
        "          ...,\n"
        "          [1.4000e+02, 1.4100e+02, 1.4200e+02,  ..., 1.5700e+02,\n"
        "           1.5800e+02, 1.5900e+02],\n"
        "          [1.6000e+02, 1.6100e+02, 1.6200e+02,  ..., 1.7700e+02,\n"
        "           1.7800e+02, 1.7900e+02],\n"
        "          [1.8000e+02, 1.8100e+02, 1.8200e+02,  ..., 1.9700e+02,\n"
        "           1.9800e+02, 1.9900e+02]],\n"
        "\n"
        "         [[2.0000e+02, 2.0100e+02, 2.0200e+02,  ..., 2.1700e+02,\n"
        "           2.1800e+02, 2.1900e+02],\n"
        "          [2.2000e+02, 2.2100e+02, 2.2200e+02,  ..., 2.3700e+02,\n"
        "           2.3800e+02, 2.3900e+02],\n"
        "          [2.4000e+02, 2.4100e+02, 2.4200e+02,  ..., 2.5700e+02,\n"
        "           2.5800e+02, 2.5900e+02],\n"
        "          ...,\n"
        "          [3.4000e+02, 3.4100e+02, 3.4200e+02,  ..., 3.5700e+02,\n"
        "           3.5800e+02, 3.5900e+02],\n"
        "          [3.6000e+02, 3.6100e+02, 3.6200e+02,  ..., 3.7700e+02,\n"
        "           3.7800e+02, 3.7900e+02],\n"
        "          [3.8000e+02, 3.8100e+02, 3.8200e+02,  ..., 3.9700e+02,\n"
        "           3.9800e+02, 3.9900e+02]],\n"
        "\n"
        "         [[4.0000e+02, 4.0100e+02, 4.0200e+02,  ..., 4.1700e+02,\n"
        "           4.1800e+02, 4.1900e+02],\n"
        "          [4.2000e+02, 4.2100e+02, 4.2200e+02,  ..., 4.3700e+02,\n"
        "           4.3800e+02, 4.3900e+02],\n"
        "          [4.4000e+02, 4.4100e+02, 4.4200e+02,  ..., 4.5700e+02,\n"
        "           4.5800e+02, 4.5900e+02],\n"
        "          ...,\n"
        "          [5.4000e+02, 5.4100e+02, 5.4200e+02,  ..., 5.5700e+02,\n"
        "           5.5800e+02, 5.5900e+02],\n"
        "          [5.6000e+02, 5.6100e+02, 5.6200e+02,  ..., 5.7700e+02,\n"
        "           5.7800e+02, 5.7900e+02],\n"
        "          [5.8000e+02, 5.8100e+02, 5.8200e+02,  ..., 5.9700e+02,\n"
        "           5.9800e+02, 5.9900e+02]]],\n"
        "\n"
        "\n"
        "        [[[6.0000e+02, 6.0100e+02, 6.0200e+02,  ..., 6.1700e+02,\n"
        "           6.1800e+02, 6.1900e+02],\n"
        "          [6.2000e+02, 6.2100e+02, 6.2200e+02,  ..., 6.3700e+02,\n"
        "           6.3800e+02, 6.3900e+02],\n"
        "          [6.4000e+02, 6.4100e+02, 6.4200e+02,  ..., 6.5700e+02,\n"
        "           6.5800e+02, 6.5900e+02],\n"
        "          ...,\n"
        "          [7.4000e+02, 7.4100e+02, 7.4200e+02,  ..., 7.5700e+02,\n"
        "           7.5800e+02, 7.5900e+02],\n"
        "          [7.6000e+02, 7.6100e+02, 7.6200e+02,  ..., 7.7700e+02,\n"
        "           7.7800e+02, 7.7900e+02],\n"
        "          [7.8000e+02, 7.8100e+02, 7.8200e+02,  ..., 7.9700e+02,\n"
        "           7.9800e+02, 7.9900e+02]],\n"
        "\n"
        "         [[8.0000e+02, 8.0100e+02, 8.0200e+02,  ..., 8.1700e+02,\n"
        "           8.1800e+02, 8.1900e+02],\n"
        "          [8.2000e+02, 8.2100e+02, 8.2200e+02,  ..., 8.3700e+02,\n"
        "           8.3800e+02, 8.3900e+02],\n"
        "          [8.4000e+02, 8.4100e+02, 8.4200e+02,  ..., 8.5700e+02,\n"
        "           8.5800e+02, 8.5900e+02],\n"
        "          ...,\n"
        "          [9.4000e+02, 9.4100e+02, 9.4200e+02,  ..., 9.5700e+02,\n"
        "           9.5800e+02, 9.5900e+02],\n"
        "          [9.6000e+02, 9.6100e+02, 9.6200e+02,  ..., 9.7700e+02,\n"
        "           9.7800e+02, 9.7900e+02],\n"
        "          [9.8000e+02, 9.8100e+02, 9.8200e+02,  ..., 9.9700e+02,\n"
        "           9.9800e+02, 9.9900e+02]],\n"
        "\n"
        "         [[1.0000e+03, 1.0010e+03, 1.0020e+03,  ..., 1.0170e+03,\n"
        "           1.0180e+03, 1.0190e+03],\n"
        "          [1.0200e+03, 1.0210e+03, 1.0220e+03,  ..., 1.0370e+03,\n"
        "           1.0380e+03, 1.0390e+03],\n"
        "          [1.0400e+03, 1.0410e+03, 1.0420e+03,  ..., 1.0570e+03,\n"
        "           1.0580e+03, 1.0590e+03],\n"
        "          ...,\n"
        "          [1.1400e+03, 1.1410e+03, 1.1420e+03,  ..., 1.1570e+03,\n"
        "           1.1580e+03, 1.1590e+03],\n"
        "          [1.1600e+03, 1.1610e+03, 1.1620e+03,  ..., 1.1770e+03,\n"
        "           1.1780e+03, 1.1790e+03],\n"
        "          [1.1800e+03, 1.1810e+03, 1.1820e+03,  ..., 1.1970e+03,\n"
        "           1.1980e+03, 1.1990e+03]]]])"},
    /* A(10, 10, 12) */
    {PLAIN, 3, {10, 10, 12}, NULL, g_index,
        "tensor([[[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.0000e+00,\n"
        "          1.0000e+01, 1.1000e+01],\n"
        "         [1.2000e+01, 1.3000e+01, 1.4000e+01,  ..., 2.1000e+01,\n"
        "          2.2000e+01, 2.3000e+01],\n"
        "         [2.4000e+01, 2.5000e+01, 2.6000e+01,  ..., 3.3000e+01,\n"
        "          3.4000e+01, 3.5000e+01],\n"
        "         ...,\n"
        "         [8.4000e+01, 8.5000e+01, 8.6000e+01,  ..., 9.3000e+01,\n"
        "          9.4000e+01, 9.5000e+01],\n"
        "         [9.6000e+01, 9.7000e+01, 9.8000e+01,  ..., 1.0500e+02,\n"
        "          1.0600e+02, 1.0700e+02],\n"
        "         [1.0800e+02, 1.0900e+02, 1.1000e+02,  ..., 1.1700e+02,\n"
        "          1.1800e+02, 1.1900e+02]],\n"
        "\n"
        "        [[1.2000e+02, 1.2100e+02, 1.2200e+02,  ..., 1.2900e+02,\n"
        "          1.3000e+02, 1.3100e+02],\n"
        "         [1.3200e+02, 1.3300e+02, 1.3400e+02,  ..., 1.4100e+02,\n"
        "          1.4200e+02, 1.4300e+02],\n"
        "         [1.4400e+02, 1.4500e+02, 1.4600e+02,  ..., 1.5300e+02,\n"
        "          1.5400e+02, 1.5500e+02],\n"
        "         ...,\n"
        "         [2.0400e+02, 2.0500e+02, 2.0600e+02,  ..., 2.1300e+02,\n"
        "          2.1400e+02, 2.1500e+02],\n"
        "         [2.1600e+02, 2.1700e+02, 2.1800e+02,  ..., 2.2500e+02,\n"
        "          2.2600e+02, 2.2700e+02],\n"
        "         [2.2800e+02, 2.2900e+02, 2.3000e+02,  ..., 2.3700e+02,\n"
        "          2.3800e+02, 2.3900e+02]],\n"
        "\n"
        "        [[2.4000e+02, 2.4100e+02, 2.4200e+02,  ..., 2.4900e+02,\n"
        "          2.5000e+02, 2.5100e+02],\n"
        "         [2.5200e+02, 2.5300e+02, 2.5400e+02,  ..., 2.6100e+02,\n"
        "          2.6200e+02, 2.6300e+02],\n"
        "         [2.6400e+02, 2.6500e+02, 2.6600e+02,  ..., 2.7300e+02,\n"
        "          2.7400e+02, 2.7500e+02],\n"
        "         ...,\n"
        "         [3.2400e+02, 3.2500e+02, 3.2600e+02,  ..., 3.3300e+02,\n"
        "          3.3400e+02, 3.3500e+02],\n"
        "         [3.3600e+02, 3.3700e+02, 3.3800e+02,  ..., 3.4500e+02,\n"
        "          3.4600e+02, 3.4700e+02],\n"
        "         [3.4800e+02, 3.4900e+02, 3.5000e+02,  ..., 3.5700e+02,\n"
        "          3.5800e+02, 3.5900e+02]],\n"
        "\n"
        "        ...,\n"
        "\n"
        "        [[8.4000e+02, 8.4100e+02, 8.4200e+02,  ..., 8.4900e+02,\n"
        "          8.5000e+02, 8.5100e+02],\n"
        "         [8.5200e+02, 8.5300e+02, 8.5400e+02,  ..., 8.6100e+02,\n"
        "          8.6200e+02, 8.6300e+02],\n"
        "         [8.6400e+02, 8.6500e+02, 8.6600e+02,  ..., 8.7300e+02,\n"
        "          8.7400e+02, 8.7500e+02],\n"
        "         ...,\n"
        "         [9.2400e+02, 9.2500e+02, 9.2600e+02,  ..., 9.3300e+02,\n"
        "          9.3400e+02, 9.3500e+02],\n"
        "         [9.3600e+02, 9.3700e+02, 9.3800e+02,  ..., 9.4500e+02,\n"
        "          9.4600e+02, 9.4700e+02],\n"
        "         [9.4800e+02, 9.4900e+02, 9.5000e+02,  ..., 9.5700e+02,\n"
        "          9.5800e+02, 9.5900e+02]],\n"
        "\n"
        "        [[9.6000e+02, 9.6100e+02, 9.6200e+02,  ..., 9.6900e+02,\n"
        "          9.7000e+02, 9.7100e+02],\n"
        "         [9.7200e+02, 9.7300e+02, 9.7400e+02,  ..., 9.8100e+02,\n"
        "          9.8200e+02, 9.8300e+02],\n"
        "         [9.8400e+02, 9.8500e+02, 9.8600e+02,  ..., 9.9300e+02,\n"
        "          9.9400e+02, 9.9500e+02],\n"
        "         ...,\n"
        "         [1.0440e+03, 1.0450e+03, 1.0460e+03,  ..., 1.0530e+03,\n"
        "          1.0540e+03, 1.0550e+03],\n"
        "         [1.0560e+03, 1.0570e+03, 1.0580e+03,  ..., 1.0650e+03,\n"
        "          1.0660e+03, 1.0670e+03],\n"
        "         [1.0680e+03, 1.0690e+03, 1.0700e+03,  ..., 1.0770e+03,\n"
        "          1.0780e+03, 1.0790e+03]],\n"
        "\n"
        "        [[1.0800e+03, 1.0810e+03, 1.0820e+03,  ..., 1.0890e+03,\n"
        "          1.0900e+03, 1.0910e+03],\n"
        "         [1.0920e+03, 1.0930e+03, 1.0940e+03,  ..., 1.1010e+03,\n"
        "          1.1020e+03, 1.1030e+03],\n"
        "         [1.1040e+03, 1.1050e+03, 1.1060e+03,  ..., 1.1130e+03,\n"
        "          1.1140e+03, 1.1150e+03],\n"
        "         ...,\n"
        "         [1.1640e+03, 1.1650e+03, 1.1660e+03,  ..., 1.1730e+03,\n"
        "          1.1740e+03, 1.1750e+03],\n"
        "         [1.1760e+03, 1.1770e+03, 1.1780e+03,  ..., 1.1850e+03,\n"
        "          1.1860e+03, 1.1870e+03],\n"
        "         [1.1880e+03, 1.1890e+03, 1.1900e+03,  ..., 1.1970e+03,\n"
        "          1.1980e+03, 1.1990e+03]]])"},
    /* A(2, 1, 2, 3) * 1e-5 */
    {PLAIN, 4, {2, 1, 2, 3}, NULL, g_tiny_index,
        "tensor([[[[0.0000e+00, 1.0000e-05, 2.0000e-05],\n"
        "          [3.0000e-05, 4.0000e-05, 5.0000e-05]]],\n"
        "\n"
        "\n"
        "        [[[6.0000e-05, 7.0000e-05, 8.0000e-05],\n"
        "          [9.0000e-05, 1.0000e-04, 1.1000e-04]]]])"},
    /* Mul.apply(T(5., requires_grad=True)) */
    {OP_MUL, 0, {0}, (const double[]){5.0}, NULL,
        "tensor(5., grad_fn=<MulBackward>)"},
    /* Sum.apply(T([2., 3., 9.], requires_grad=True)) */
    {OP_SUM, 1, {3}, (const double[]){2.0, 3.0, 9.0}, NULL,
        "tensor(14., grad_fn=<SumBackward>)"},
    /* Mul.apply(T([[1.5, 2.], [3., 4.]], requires_grad=True)) */
    {OP_MUL, 2, {2, 2}, (const double[]){1.5, 2.0, 3.0, 4.0}, NULL,
        "tensor([[1.5000, 2.0000],\n"
        "        [3.0000, 4.0000]], grad_fn=<MulBackward>)"},
    /* Mul.apply(T([i * 0.37 - 5.0 for i in range(30)], requires_grad=True)) */
    {OP_MUL, 1, {30}, NULL, g_frac,
        "tensor([-5.0000, -4.6300, -4.2600, -3.8900, -3.5200, -3.1500, -2.7800, -2.4100,\n"
        "        -2.0400, -1.6700, -1.3000, -0.9300, -0.5600, -0.1900,  0.1800,  0.5500,\n"
        "         0.9200,  1.2900,  1.6600,  2.0300,  2.4000,  2.7700,  3.1400,  3.5100,\n"
        "         3.8800,  4.2500,  4.6200,  4.9900,  5.3600,  5.7300],\n"
        "       grad_fn=<MulBackward>)"},
    /* Mul.apply(T([i * 0.37 - 5.0 for i in range(27)], requires_grad=True)) */
    {OP_MUL, 1, {27}, NULL, g_frac,
        "tensor([-5.0000, -4.6300, -4.2600, -3.8900, -3.5200, -3.1500, -2.7800, -2.4100,\n"
        "        -2.0400, -1.6700, -1.3000, -0.9300, -0.5600, -0.1900,  0.1800,  0.5500,\n"
        "         0.9200,  1.2900,  1.6600,  2.0300,  2.4000,  2.7700,  3.1400,  3.5100,\n"
        "         3.8800,  4.2500,  4.6200], grad_fn=<MulBackward>)"},
    /* Mul.apply(T([i * 0.37 - 5.0 for i in range(8)], requires_grad=True)) */
    {OP_MUL, 1, {8}, NULL, g_frac,
        "tensor([-5.0000, -4.6300, -4.2600, -3.8900, -3.5200, -3.1500, -2.7800, -2.4100],\n"
        "       grad_fn=<MulBackward>)"},
    /* Mul.apply(T([[i * 0.37 - 5.0 for i in range(j, j + 8)] for j in (0, 8)], requires_grad=True)) */
    {OP_MUL, 2, {2, 8}, NULL, g_frac,
        "tensor([[-5.0000, -4.6300, -4.2600, -3.8900, -3.5200, -3.1500, -2.7800, -2.4100],\n"
        "        [-2.0400, -1.6700, -1.3000, -0.9300, -0.5600, -0.1900,  0.1800,  0.5500]],\n"
        "       grad_fn=<MulBackward>)"},
    /* Mul.apply((torch.arange(6.) + 0.5).requires_grad_())  # suffix just fits */
    {OP_MUL, 1, {6}, NULL, g_plus_half,
        "tensor([0.5000, 1.5000, 2.5000, 3.5000, 4.5000, 5.5000], grad_fn=<MulBackward>)"},
    /* Mul.apply((torch.arange(7.) + 0.5).requires_grad_())  # suffix wraps */
    {OP_MUL, 1, {7}, NULL, g_plus_half,
        "tensor([0.5000, 1.5000, 2.5000, 3.5000, 4.5000, 5.5000, 6.5000],\n"
        "       grad_fn=<MulBackward>)"},
    /* Mul.apply((torch.arange(7.) + 1000).requires_grad_())  # wraps only by PyTorch's +2 in last_line_len */
    {OP_MUL, 1, {7}, NULL, g_k1000,
        "tensor([1000., 1001., 1002., 1003., 1004., 1005., 1006.],\n"
        "       grad_fn=<MulBackward>)"},
    /* (A(2, 7) + 1000).requires_grad_()  # suffix just fits */
    {LEAF_GRAD, 2, {2, 7}, NULL, g_k1000,
        "tensor([[1000., 1001., 1002., 1003., 1004., 1005., 1006.],\n"
        "        [1007., 1008., 1009., 1010., 1011., 1012., 1013.]], requires_grad=True)"},
    /* (A(2, 8) + 1000).requires_grad_()  # suffix wraps */
    {LEAF_GRAD, 2, {2, 8}, NULL, g_k1000,
        "tensor([[1000., 1001., 1002., 1003., 1004., 1005., 1006., 1007.],\n"
        "        [1008., 1009., 1010., 1011., 1012., 1013., 1014., 1015.]],\n"
        "       requires_grad=True)"},
    /* (A(2, 10) + 10).requires_grad_()  # wraps only by PyTorch's +2 in last_line_len */
    {LEAF_GRAD, 2, {2, 10}, NULL, g_k10,
        "tensor([[10., 11., 12., 13., 14., 15., 16., 17., 18., 19.],\n"
        "        [20., 21., 22., 23., 24., 25., 26., 27., 28., 29.]],\n"
        "       requires_grad=True)"},
    /* Mul.apply(T([i * 0.5 - 500.0 for i in range(2000)], requires_grad=True)) */
    {OP_MUL, 1, {2000}, NULL, g_half,
        "tensor([-500.0000, -499.5000, -499.0000,  ...,  498.5000,  499.0000,\n"
        "         499.5000], grad_fn=<MulBackward>)"},
    /* Neg.apply(torch.empty(0, 3, requires_grad=True)) */
    {OP_NEG, 2, {0, 3}, NULL, NULL,
        "tensor([], size=(0, 3), grad_fn=<NegBackward>)"},
    /* Mul.apply(T(3., requires_grad=True))  # after backward(): graph freed */
    {OP_FREED, 0, {0}, (const double[]){3.0}, NULL,
        "tensor(3., grad_fn=<MulBackward>)"},
};


static void check(const char *what, const char *got, const char *expected) {
    if (strcmp(got, expected) == 0) {
        check_passed++;
        return;
    }
    check_failed++;
    printf("FAIL %s\n--- expected:\n%s\n--- got:\n%s\n---\n", what, expected, got);
}

static int64_t numel_of(const Case *c) {
    int64_t n = 1;
    for (int d = 0; d < c->ndim; d++) n *= c->shape[d];
    return n;
}

/* The case's values in a fresh array (the caller frees it). */
static double *case_values(const Case *c) {
    int64_t n = numel_of(c);
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (!v) return NULL;
    for (int64_t i = 0; i < n; i++) v[i] = c->gen ? c->gen(i) : c->data[i];
    return v;
}

/* The tensor a case describes, or NULL (with a message) if the engine failed. */
static Tensor *build(const Case *c, const double *values) {
    bool grad = c->kind != PLAIN;
    Tensor *x = tensor_create(c->ndim, c->shape, values, grad);
    if (!x || c->kind == PLAIN || c->kind == LEAF_GRAD) return x;
    Tensor *y;
    if (c->kind == OP_SUM) {
        y = tensor_sum(x);
    } else if (c->kind == OP_NEG) {
        y = tensor_neg(x);
    } else {
        Tensor *one = tensor_scalar(1.0);
        y = tensor_mul(x, one);
        tensor_release(one);
    }
    /* The freed case: backward frees the graph; the name must survive it. */
    if (y && c->kind == OP_FREED && backward(y) != 0) {
        tensor_release(y);
        y = NULL;
    }
    tensor_release(x);
    return y;
}

static void run_case(int index, const Case *c) {
    char what[32];
    snprintf(what, sizeof what, "case %d", index);
    double *values = case_values(c);
    Tensor *t = values ? build(c, values) : NULL;
    if (!t) {
        check_failed++;
        printf("FAIL %s: could not build the tensor: %s\n", what, ag_error());
    } else {
        StrBuf out;
        strbuf_init(&out);
        format_tensor(&out, t, &print_defaults);
        check(what, out.data, c->expected);
        strbuf_free(&out);
    }
    tensor_release(t);
    free(values);
    ag_graph_free();
}

/* A caller's prefix ("x.grad = ") stays; continuation lines keep the indent
 * of "tensor(" (Python: 'x.grad = ' + repr(T([[1.5, 2.], [3., 4.]]))). */
static void test_prefix(void) {
    const int64_t shape[2] = {2, 2};
    Tensor *t = tensor_create(2, shape, (const double[]){1.5, 2, 3, 4}, false);
    StrBuf out;
    strbuf_init(&out);
    strbuf_append(&out, "x.grad = ");
    format_tensor(&out, t, &print_defaults);
    check("prefix", out.data,
          "x.grad = tensor([[1.5000, 2.0000],\n"
          "        [3.0000, 4.0000]])");
    strbuf_free(&out);
    tensor_release(t);
}

/* A gradient that was never written prints as Python's None. */
static void test_none(void) {
    StrBuf out;
    strbuf_init(&out);
    format_tensor(&out, NULL, &print_defaults);
    check("None", out.data, "None");
    strbuf_free(&out);
}

/* x.grad after backward through x * 1 (Python: the same, x.grad). */
static void test_grad_after_backward(void) {
    Tensor *x = tensor_create(0, NULL, (const double[]){3.0}, true);
    Tensor *one = tensor_scalar(1.0);
    Tensor *y = tensor_mul(x, one);
    StrBuf out;
    strbuf_init(&out);
    if (y && backward(y) == 0) format_tensor(&out, x->grad, &print_defaults);
    check("x.grad", out.data, "tensor(1.)");
    strbuf_free(&out);
    tensor_release(y);
    tensor_release(one);
    tensor_release(x);
}

/* Python: str(tuple(torch.empty(SHAPE).shape)) for each shape. */
static void test_shapes(void) {
    static const struct { int ndim; int64_t shape[4]; const char *expected; } shapes[] = {
        {0, {0}, "()"},
        {1, {3}, "(3,)"},
        {2, {2, 3}, "(2, 3)"},
        {2, {0, 3}, "(0, 3)"},
        {4, {2, 1, 2, 3}, "(2, 1, 2, 3)"},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        Tensor *t = tensor_zeros(shapes[i].ndim, shapes[i].shape, false);
        StrBuf out;
        strbuf_init(&out);
        char shape[AG_SHAPE_STR_MAX];
        if (t) strbuf_append(&out, tensor_shape_str(t, shape, sizeof shape));
        check("tensor_shape_str", out.data, shapes[i].expected);
        strbuf_free(&out);
        tensor_release(t);
    }
}

/* format_number against Python's repr of a float, integral values below
 * 1e16 without ".0" (the contract). Expected strings from:
 *   /usr/bin/python3 -c 'import math; v = ...; print(repr(v))'
 * (integral: repr(int(v))), run over the values below. */
static void test_numbers(void) {
    static const struct { double v; const char *expected; } numbers[] = {
        {0.0, "0"},
        {-0.0, "-0"},
        {1.0, "1"},
        {3.0, "3"},
        {-7.0, "-7"},
        {0.1, "0.1"},
        {0.5, "0.5"},
        {24.70408163265306, "24.70408163265306"},
        {1e-05, "1e-05"},
        {1.5e-05, "1.5e-05"},
        {0.0001, "0.0001"},
        {0.00012345, "0.00012345"},
        {123456789.0, "123456789"},
        {1000000000000000.0, "1000000000000000"},
        {1e+16, "1e+16"},
        {1.5e+17, "1.5e+17"},
        {-2.5, "-2.5"},
        {0.3333333333333333, "0.3333333333333333"},
        {6.666666666666665e-08, "6.666666666666665e-08"},
        {6.02214076e+23, "6.02214076e+23"},
        {1e+300, "1e+300"},
        {-1e-300, "-1e-300"},
        {5e-324, "5e-324"},
        {3.141592653589793, "3.141592653589793"},
        {1e+22, "1e+22"},
        {2.0000000000000004, "2.0000000000000004"},
        {0.30000000000000004, "0.30000000000000004"},
        {100.0, "100"},
        {12345678.9, "12345678.9"},
        {1234567890123456.8, "1234567890123456.8"},
        /* powers of two, whose rounding interval is lopsided: 2**-1022 and
         * 2**976, where the nearest 16 digits do not read back */
        {2.2250738585072014e-308, "2.2250738585072014e-308"},
        {6.386688990511104e+293, "6.386688990511104e+293"},
    };
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        StrBuf out;
        strbuf_init(&out);
        format_number(&out, numbers[i].v);
        check("format_number", out.data, numbers[i].expected);
        strbuf_free(&out);
    }
}

/* Boolean tensors (a comparison's result) and print options, against
 * PyTorch 1.13: /usr/bin/python3 -c 'import torch; print(repr(torch.tensor(
 * [True, False])))', and torch.set_printoptions(precision=0 / 2 / 8,
 * sci_mode=True / False, threshold=5 with edgeitems=2, linewidth=30) on the
 * tensors below (float64 the default dtype). */
static Tensor *vector_of(int n, const double *v) { return tensor_create(1, (int64_t[]){n}, v, false); }

static void check_format(const char *what, const Tensor *t, const PrintOptions *o, bool boolean,
                         const char *expected) {
    StrBuf out;
    strbuf_init(&out);
    Tensor *shown = boolean ? tensor_to((Tensor *)t, AG_BOOL) : NULL; /* a mask is a bool tensor */
    format_tensor(&out, shown ? shown : t, o);
    check(what, out.data, expected);
    tensor_release(shown);
    strbuf_free(&out);
}

static void test_booleans(void) {
    Tensor *tf = vector_of(2, (double[]){1, 0}), *tt = vector_of(2, (double[]){1, 1});
    Tensor *f = vector_of(1, (double[]){0}), *none = tensor_zeros(1, (int64_t[]){0}, false);
    Tensor *one = tensor_scalar(1), *m = tensor_create(2, (int64_t[]){2, 2}, (double[]){1, 0, 0, 0}, false);
    const PrintOptions *d = &print_defaults;
    check_format("bool [True, False]", tf, d, true, "tensor([ True, False])");
    check_format("bool [True, True]", tt, d, true, "tensor([True, True])");
    check_format("bool [False]", f, d, true, "tensor([False])");
    check_format("bool []", none, d, true, "tensor([], dtype=torch.bool)");
    check_format("bool 0-d", one, d, true, "tensor(True)");
    check_format("bool 2-D", m, d, true, "tensor([[ True, False],\n        [False, False]])");
    tensor_release(tf), tensor_release(tt), tensor_release(f), tensor_release(none);
    tensor_release(one), tensor_release(m);
}

static void test_options(void) {
    Tensor *x = vector_of(3, (double[]){1.23456789, -2.5, 1000.0});
    Tensor *wide = vector_of(3, (double[]){1e-8, 1.0, 1e9});
    double r[12];
    for (int i = 0; i < 12; i++) r[i] = i;
    Tensor *ten = vector_of(10, r);
    for (int i = 0; i < 12; i++) r[i] = i + 0.5;
    Tensor *halves = vector_of(12, r);
    PrintOptions o = print_defaults;
    o = print_defaults, o.precision = 0;
    check_format("precision=0", x, &o, false, "tensor([   1,   -2, 1000])");
    o = print_defaults, o.precision = 2;
    check_format("precision=2", x, &o, false, "tensor([   1.23,   -2.50, 1000.00])");
    o = print_defaults, o.precision = 8;
    check_format("precision=8", x, &o, false, "tensor([   1.23456789,   -2.50000000, 1000.00000000])");
    o = print_defaults, o.sci_mode = 1;
    check_format("sci_mode=True", x, &o, false, "tensor([1.2346e+00, -2.5000e+00, 1.0000e+03])");
    o = print_defaults, o.sci_mode = 0;
    check_format("sci_mode=False", wide, &o, false, "tensor([    0.0000,     1.0000, 1000000000.0000])");
    o = print_defaults, o.threshold = 5, o.edgeitems = 2;
    check_format("threshold=5, edgeitems=2", ten, &o, false, "tensor([0., 1.,  ..., 8., 9.])");
    o = print_defaults, o.linewidth = 30;
    check_format("linewidth=30", halves, &o, false, "tensor([ 0.5000,  1.5000,\n         2.5000,  3.5000,\n         4.5000,  5.5000,\n         6.5000,  7.5000,\n         8.5000,  9.5000,\n        10.5000, 11.5000])");
    tensor_release(x), tensor_release(wide), tensor_release(ten), tensor_release(halves);
}

/* The buffer itself: empty but valid after init, growing past its first
 * allocation, formatted appends, and reset by free. */
static void test_strbuf(void) {
    StrBuf sb;
    strbuf_init(&sb);
    check("strbuf empty", sb.data, "");
    char expected[303] = "";
    for (int i = 0; i < 100; i++) {
        strbuf_appendf(&sb, "%02d,", i);
        expected[3 * i] = (char)('0' + i / 10);
        expected[3 * i + 1] = (char)('0' + i % 10);
        expected[3 * i + 2] = ',';
    }
    strbuf_append(&sb, NULL);
    strbuf_appendn(&sb, "xyz", 2);
    memcpy(expected + 300, "xy", 3);
    check("strbuf grows", sb.data, expected);
    if (sb.len != strlen(expected) || sb.oom) check("strbuf len", "wrong", "right");
    strbuf_free(&sb);
    check("strbuf freed", sb.data, "");
}

/* Out of memory keeps what fits: a length the buffer cannot grow to (it
 * would overflow size_t) fails like an allocation would, and the text is
 * cut at the memory already held, still NUL-terminated, with oom set. */
static void test_strbuf_oom(void) {
    char source[128];
    memset(source, 'z', sizeof source);
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_append(&sb, "abc");
    size_t held = sb.cap;
    strbuf_appendn(&sb, source, SIZE_MAX / 2);
    bool kept = sb.oom && sb.len == held - 1 && sb.data[sb.len] == '\0' &&
                memcmp(sb.data, "abczzz", 6) == 0 && held - 1 <= sizeof source + 3;
    check("strbuf oom", kept ? "kept" : "lost", "kept");
    /* Still usable once memory is there again; the flag stays set. */
    strbuf_append(&sb, "more");
    bool usable = sb.oom && sb.len == held - 1 + 4 && strcmp(sb.data + held - 1, "more") == 0;
    check("strbuf after oom", usable ? "usable" : "broken", "usable");
    strbuf_free(&sb);
}

int main(void) {
    int n = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < n; i++) run_case(i, &cases[i]);
    test_prefix();
    test_none();
    test_grad_after_backward();
    test_shapes();
    test_numbers();
    test_booleans();
    test_options();
    test_strbuf();
    test_strbuf_oom();
    AgStats stats = ag_stats();
    if (stats.live_tensors != 0) {
        check_failed++;
        printf("FAIL: %lld tensors still live at exit\n", (long long)stats.live_tensors);
    }
    return check_summary();
}
