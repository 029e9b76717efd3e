/*
 * harness.h — the engine tests' tiny harness: checks that count, and the
 * central finite-difference gradient checker every op's test uses.
 */
#ifndef AG_TEST_HARNESS_H
#define AG_TEST_HARNESS_H

#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

extern int tests_passed, tests_failed;

bool check_impl(bool ok, const char *file, int line, const char *fmt, ...) AG_PRINTF(4, 5);
#define CHECK(cond, ...) check_impl((cond), __FILE__, __LINE__, __VA_ARGS__)
#define CHECK_NEAR(a, b, tol)                                                       \
    do {                                                                            \
        double a_ = (a), b_ = (b);                                                  \
        CHECK(fabs(a_ - b_) <= (tol), "%s = %.17g, expected %s = %.17g", #a, a_, #b, \
              b_);                                                                  \
    } while (0)

/* An op under test: builds its output from inputs (borrowed). */
typedef Tensor *(*BuildFn)(Tensor **inputs, const void *arg);

/* Checks d loss / d input for every input that requires grad, where
 * loss = sum(build(inputs) * W) for a fixed random W, against central finite
 * differences (h = 1e-6): |analytic - numeric| <= 1e-6 + 1e-5 * |numeric|
 * elementwise; an input backward did not reach has gradient 0. Then, once
 * that passes, the same build in float32 (harness.c, "the float32 pass"):
 * float32 copies of the inputs must give float32 results (every result in
 * the graph) whose values and gradients are float64's at the same points
 * within float32's tolerance. Returns true when every element agrees. */
bool fd_check(const char *name, BuildFn build, const void *arg, Tensor **inputs, int n);

/* a and b are the same double: equal, or both nan (any payload). Zeros
 * must agree in sign. */
bool same_double(double a, double b);
/* got is PyTorch's want: nan for nan, the same infinity, the same signed
 * zero; a finite value within 1e-14, relative: libm, libmvec and PyTorch's
 * Sleef differ in the last bits, which a formula like 1 - tanh(x)^2 at
 * x = 3 magnifies a hundredfold, and ag's sums are pairwise where
 * PyTorch's are its own. The rules under test are not about those bits. */
bool matches_torch(double got, double want);

/* c, a constant a build has just made (tensor_zeros, tensor_create), in
 * like's dtype, and returned. fd_check runs each build in float32 too: a
 * PyTorch program in float32 makes its constants float32 (the default
 * dtype, or .to(x.dtype)), where ag's C constructors make float64, which
 * would promote the float32 graph to float64 and leave its float32 path
 * untested. */
Tensor *test_like(Tensor *c, const Tensor *like);

/* A tensor of the given shape with values from ag's seeded stream, scaled
 * into [lo, hi). */
Tensor *test_uniform(double lo, double hi, bool requires_grad, int ndim, const int64_t *shape);
#define SHAPE(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__}

/* After every group: each op of the table with a backward has been
 * through fd_check (harness.c). */
void test_fd_coverage(void);

/* The test groups main() runs, one per file (harness.c's groups[]); each
 * need not check for leaks: the harness checks after every group. */
void test_core(void);
void test_ops(void);
void test_errors(void);
void test_matmul(void);
void test_limits(void);
void test_threads(void);
void test_numerics(void);
void test_syntax_ops(void);
void test_optim(void);
void test_backward(void);
void test_index(void);
void test_losses(void);
void test_elementwise(void);
void test_reduce(void);
void test_sum_order(void);
void test_math_bits(void);
void test_f32math(void);
void test_inplace(void);
void test_random(void);
void test_layers(void);
void test_retain(void);
void test_graph(void);
void test_dtype(void);
void test_packed(void);
void test_cumulative(void);
void test_anomaly(void);
void test_snapshot(void);

/* Baseline of live tensors, to prove a test leaked nothing (the harness
 * checks every group; a test checks its own where a path must free all). */
int64_t live_tensors(void);

#endif
