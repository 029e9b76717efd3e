/*
 * test_sum_order.c — sums with PyTorch 1.13's bits (issue 22, item 16):
 * over all elements, over dims, and the gradient ag_accumulate_grad sums
 * for a broadcast operand, which PyTorch makes with sum(dims, keepdim=True)
 * (Karpathy's makemore part 4 compares the two with ==). The expected sums
 * are in sum_order_cases.h (made by sum_order_cases.py); the inputs are
 * made here from the same seeds as there.
 */
#include "harness.h"

#include "sum_order_cases.h"

/* n doubles from seed, as sum_order_cases.py's lcg_values. */
static void lcg_fill(double *x, int64_t n, uint64_t seed) {
    uint64_t state = seed;
    for (int64_t i = 0; i < n; i++) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        uint64_t v = state >> 33;
        int64_t m = (int64_t)(v % 2000001) - 1000000;
        x[i] = (double)m / 997.0 * (double)(1u << (v >> 24 & 7));
    }
}

static Tensor *lcg_tensor(int ndim, const int64_t *shape, uint64_t seed, bool requires_grad) {
    Tensor *t = tensor_zeros(ndim, shape, requires_grad);
    if (t) lcg_fill(tensor_values(t), t->numel, seed);
    return t;
}

/* Elements of got that are not want's bits (-1 when got is NULL). */
static int64_t differing(const Tensor *got, const double *want, int64_t n) {
    if (!got || got->numel != n) return -1;
    int64_t d = 0;
    for (int64_t i = 0; i < n; i++) d += !same_double(tensor_values(got)[i], want[i]);
    return d;
}

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_full_sums(void) {
    int same = 0;
    for (int i = 0; i < COUNT(full_sum_cases); i++) {
        const FullSumCase *k = &full_sum_cases[i];
        Tensor *x = lcg_tensor(1, &k->n, k->seed, false), *s = tensor_sum(x);
        bool ok = s && same_double(tensor_values(s)[0], k->sum);
        same += ok;
        CHECK(ok, "sum of %lld values (seed %llu): %.17g, PyTorch %.17g", (long long)k->n,
              (unsigned long long)k->seed, s ? tensor_values(s)[0] : NAN, k->sum);
        tensor_release(s);
        tensor_release(x);
    }
    printf("  sum order: %d of %d sums over all elements have PyTorch's bits\n", same,
           COUNT(full_sum_cases));
}

static void test_dim_sums(void) {
    int same = 0;
    for (int i = 0; i < COUNT(dim_sum_cases); i++) {
        const DimSumCase *k = &dim_sum_cases[i];
        Tensor *x = lcg_tensor(k->ndim, k->shape, k->seed, false);
        Tensor *s = tensor_sum_dims(x, k->dims, k->ndims, false);
        int64_t n = x ? x->numel : 0;
        for (int d = 0; d < k->ndims; d++) n /= k->shape[k->dims[d]];
        int64_t d = differing(s, k->out, n);
        same += d == 0;
        CHECK(d == 0, "sum case %d: %lld of %lld values differ from PyTorch's", i, (long long)d,
              (long long)n);
        tensor_release(s);
        tensor_release(x);
    }
    printf("  sum order: %d of %d sums over dims have PyTorch's bits\n", same,
           COUNT(dim_sum_cases));
}

static void test_broadcast_grads(void) {
    int same = 0;
    for (int i = 0; i < COUNT(broadcast_grad_cases); i++) {
        const BroadcastGradCase *k = &broadcast_grad_cases[i];
        Tensor *c = lcg_tensor(k->big_ndim, k->big, k->seed, false);
        Tensor *a = tensor_zeros(k->small_ndim, k->small, true);
        Tensor *y = tensor_mul(a, c), *loss = tensor_sum(y);
        int64_t d = loss && tensor_backward(loss, NULL) == 0
                        ? differing(a->grad, k->grad, a->numel) : -1;
        same += d == 0;
        CHECK(d == 0, "broadcast gradient case %d: %lld of %lld values differ from PyTorch's", i,
              (long long)d, (long long)a->numel);
        Tensor *u[] = {loss, y, a, c};
        for (int j = 0; j < 4; j++) tensor_release(u[j]);
    }
    printf("  sum order: %d of %d broadcast gradients have PyTorch's bits\n", same,
           COUNT(broadcast_grad_cases));
}

void test_sum_order(void) {
    test_full_sums();
    test_dim_sums();
    test_broadcast_grads();
}
