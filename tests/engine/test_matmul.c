/*
 * test_matmul.c — ag_gemm against a naive triple loop (every transpose,
 * accumulate, awkward sizes and leading dimensions), and tensor_matmul's
 * values, shapes, gradients and errors for every rank combination.
 */
#include "harness.h"

#include <string.h>

/* ======================================================================
 * ag_gemm against the naive triple loop
 * ====================================================================== */

/* A rows x cols matrix with leading dimension ld > cols; the padding holds a
 * sentinel that ag_gemm must neither read into C nor overwrite. */
static double *padded_matrix(int64_t rows, int64_t cols, int64_t ld) {
    int64_t n = rows * ld;
    Tensor *t = test_uniform(-1.0, 1.0, false, 1, &n);
    double *m = malloc((size_t)(n + 1) * sizeof *m);
    for (int64_t i = 0; i < n; i++) m[i] = tensor_values(t)[i];
    tensor_release(t);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = cols; j < ld; j++) m[i * ld + j] = 1e300;
    return m;
}

typedef struct {
    int64_t M, N, K;
} GemmSize;

/* x rounded to float where in_float (float32's operands and results). */
static double as_real(double x, bool in_float) { return in_float ? (double)(float)x : x; }

/* One product of ag_gemm (ag_gemm_f32 where in_float: A, B and C then hold
 * float values) checked element by element against the naive triple loop:
 * with ag's own kernel, exactly its sum (the reference BLAS's: in K's order,
 * each product and sum rounded, in float where in_float); with OpenBLAS,
 * |C - ref| <= tol * sum |a b|. And C's padding untouched. */
static void check_gemm_in(GemmSize s, bool ta, bool tb, bool accumulate, bool in_float) {
    int64_t M = s.M, N = s.N, K = s.K;
    int64_t a_rows = ta ? K : M, a_cols = ta ? M : K, lda = a_cols + 3;
    int64_t b_rows = tb ? N : K, b_cols = tb ? K : N, ldb = b_cols + 5;
    int64_t ldc = N + 2;
    double *A = padded_matrix(a_rows, a_cols, lda), *B = padded_matrix(b_rows, b_cols, ldb);
    double *C = padded_matrix(M, N, ldc), *C0 = malloc((size_t)(M * ldc) * sizeof *C0);
    for (int64_t i = 0; i < a_rows * lda; i++) A[i] = as_real(A[i], in_float);
    for (int64_t i = 0; i < b_rows * ldb; i++) B[i] = as_real(B[i], in_float);
    for (int64_t i = 0; i < M * ldc; i++) C[i] = as_real(C[i], in_float);
    memcpy(C0, C, (size_t)(M * ldc) * sizeof *C0);
    (in_float ? ag_gemm_f32 : ag_gemm)(ta, tb, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
    double tol = in_float ? (double)(K + 2) * 0x1p-24 : 1e-12;
    bool own = strncmp(ag_blas_name(), "ag's own", 8) == 0 || in_float;
    int bad = 0;
    for (int64_t i = 0; i < M && !bad; i++) {
        for (int64_t j = 0; j < N && !bad; j++) {
            double ref = accumulate ? C0[i * ldc + j] : 0.0, scale = fabs(ref);
            float ref32 = (float)ref;
            for (int64_t p = 0; p < K; p++) {
                double a = ta ? A[p * lda + i] : A[i * lda + p];
                double b = tb ? B[j * ldb + p] : B[p * ldb + j];
                ref += a * b;
                ref32 += (float)a * (float)b;
                scale += fabs(a * b);
            }
            double c = C[i * ldc + j], exact = in_float ? (double)ref32 : ref;
            bool ok = own ? c == exact : fabs(c - ref) <= tol * scale + 1e-300;
            if (!ok || c != as_real(c, in_float)) {
                CHECK(false, "ag_gemm%s %lldx%lldx%lld ta=%d tb=%d acc=%d: C[%lld,%lld] = "
                      "%.17g, expected %.17g", in_float ? "_f32" : "", (long long)M,
                      (long long)N, (long long)K, ta, tb, accumulate, (long long)i,
                      (long long)j, c, own ? exact : ref);
                bad = 1;
            }
        }
        for (int64_t j = N; j < ldc && !bad; j++)
            if (C[i * ldc + j] != as_real(1e300, in_float)) {
                CHECK(false, "ag_gemm %lldx%lldx%lld: padding of C row %lld was written",
                      (long long)M, (long long)N, (long long)K, (long long)i);
                bad = 1;
            }
    }
    if (!bad)
        CHECK(true, "ag_gemm%s %lldx%lldx%lld ta=%d tb=%d acc=%d", in_float ? "_f32" : "",
              (long long)M, (long long)N, (long long)K, ta, tb, accumulate);
    free(A);
    free(B);
    free(C);
    free(C0);
}

static void check_gemm(GemmSize s, bool ta, bool tb, bool accumulate) {
    check_gemm_in(s, ta, tb, accumulate, false);
}

static void test_gemm(void) {
    /* Direct path; the thin path (N <= 64, K <= KC: full tiles, edge rows
     * and columns, its largest size); the packed path with edge tiles,
     * several KC and MC blocks, and an N past one NC panel. */
    const GemmSize sizes[] = {{1, 1, 1},     {2, 2, 2},     {7, 5, 3},     {33, 17, 65},
                              {100, 16, 16}, {50, 63, 2},   {64, 64, 64},  {65, 64, 64},
                              {1, 300, 200}, {300, 1, 200}, {40, 40, 0},   {3, 2, 500},
                              {8, 24, 8},    {9, 25, 7},    {200, 130, 300}, {20, 4200, 9}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int t = 0; t < 4; t++)
            for (int acc = 0; acc < 2; acc++) check_gemm(sizes[s], t & 1, t & 2, acc);
}

/* float32's products: every path and size of test_gemm through
 * ag_gemm_f32, within float's bound. */

static void test_gemm_f32(void) {
    const GemmSize sizes[] = {{1, 1, 1},     {7, 5, 3},     {33, 17, 65},  {100, 16, 16},
                              {65, 64, 64},  {1, 300, 200}, {40, 40, 0},   {3, 2, 500},
                              {9, 49, 7},    {200, 130, 300}, {20, 4200, 9}, {70, 97, 513}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int t = 0; t < 4; t++)
            for (int acc = 0; acc < 2; acc++) check_gemm_in(sizes[s], t & 1, t & 2, acc, true);
}

/* ======================================================================
 * tensor_matmul forward against a naive reference
 * ====================================================================== */

typedef struct {
    int a_ndim;
    int64_t a_shape[4];
    int b_ndim;
    int64_t b_shape[4];
    int out_ndim;
    int64_t out_shape[4];
} MatmulCase;

static const MatmulCase cases[] = {
    {1, {4}, 1, {4}, 0, {0}},
    {1, {4}, 2, {4, 3}, 1, {3}},
    {2, {3, 4}, 1, {4}, 1, {3}},
    {2, {3, 4}, 2, {4, 5}, 2, {3, 5}},
    {3, {2, 3, 4}, 3, {2, 4, 5}, 3, {2, 3, 5}},
    {3, {2, 3, 4}, 2, {4, 5}, 3, {2, 3, 5}},
    {2, {3, 4}, 3, {2, 4, 5}, 3, {2, 3, 5}},
    {4, {2, 1, 3, 4}, 3, {5, 4, 6}, 4, {2, 5, 3, 6}},
    {1, {4}, 3, {2, 4, 5}, 2, {2, 5}},
    {3, {2, 3, 4}, 1, {4}, 2, {2, 3}},
    {2, {1, 1}, 2, {1, 1}, 2, {1, 1}},
    {2, {2, 2}, 2, {2, 2}, 2, {2, 2}},
    {3, {1, 3, 4}, 3, {2, 4, 2}, 3, {2, 3, 2}},
    {4, {2, 1, 3, 4}, 4, {2, 5, 4, 2}, 4, {2, 5, 3, 2}},
    {4, {2, 5, 3, 4}, 4, {2, 1, 4, 2}, 4, {2, 5, 3, 2}},
    {2, {3, 4}, 3, {0, 4, 5}, 3, {0, 3, 5}}, /* no batch entries: zero gradients */
    {3, {0, 3, 4}, 2, {4, 5}, 3, {0, 3, 5}},
};
enum { NUM_CASES = sizeof cases / sizeof cases[0] };

/* Element (batch index bi over the output batch, i, j) of a @ b by the
 * definition: promote 1-D operands, broadcast batch dims by hand. */
static double ref_entry(const Tensor *a, const Tensor *b, int nb, const int64_t *bi,
                        int64_t i, int64_t j) {
    bool av = a->ndim == 1, bv = b->ndim == 1;
    int64_t K = a->shape[a->ndim - 1], M = av ? 1 : a->shape[a->ndim - 2];
    int64_t N = bv ? 1 : b->shape[b->ndim - 1];
    int na = av ? 0 : a->ndim - 2, nbb = bv ? 0 : b->ndim - 2;
    int64_t oa = 0, ob = 0; /* matrix index in a's and b's batch */
    for (int d = 0; d < nb; d++) {
        int ia = na - nb + d, ib = nbb - nb + d;
        if (ia >= 0) oa = oa * a->shape[ia] + (a->shape[ia] == 1 ? 0 : bi[d]);
        if (ib >= 0) ob = ob * b->shape[ib] + (b->shape[ib] == 1 ? 0 : bi[d]);
    }
    const double *ar = tensor_values(a) + (oa * M + i) * K, *bc = tensor_values(b) + ob * K * N + j;
    double s = 0.0;
    for (int64_t p = 0; p < K; p++) s += ar[p] * bc[p * N];
    return s;
}

/* Checks every element of out (already of the expected shape). */
static bool check_values(const Tensor *a, const Tensor *b, const Tensor *out) {
    bool av = a->ndim == 1, bv = b->ndim == 1;
    int64_t M = av ? 1 : a->shape[a->ndim - 2], N = bv ? 1 : b->shape[b->ndim - 1];
    int nb = out->ndim - !av - !bv;
    int64_t count = ag_shape_prod(out->shape, 0, nb), bi[AG_MAX_DIMS];
    for (int64_t t = 0; t < count; t++) {
        int64_t r = t;
        for (int d = nb - 1; d >= 0; d--) {
            bi[d] = r % out->shape[d];
            r /= out->shape[d];
        }
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double ref = ref_entry(a, b, nb, bi, i, j);
                double got = tensor_values(out)[(t * M + i) * N + j];
                if (!(fabs(got - ref) <= 1e-12 * (1.0 + fabs(ref)))) return false;
            }
    }
    return true;
}

static char *case_name(const MatmulCase *c, char *buf, size_t size) {
    char sa[AG_SHAPE_STR_MAX], sb[AG_SHAPE_STR_MAX];
    snprintf(buf, size, "matmul %s @ %s", ag_shape_str(c->a_ndim, c->a_shape, sa, sizeof sa),
             ag_shape_str(c->b_ndim, c->b_shape, sb, sizeof sb));
    return buf;
}

static void test_forward(void) {
    for (int k = 0; k < NUM_CASES; k++) {
        const MatmulCase *c = &cases[k];
        char name[128], so[AG_SHAPE_STR_MAX];
        case_name(c, name, sizeof name);
        Tensor *a = test_uniform(-1, 1, false, c->a_ndim, c->a_shape);
        Tensor *b = test_uniform(-1, 1, false, c->b_ndim, c->b_shape);
        Tensor *out = tensor_matmul(a, b);
        if (CHECK(out != NULL, "%s failed: %s", name, ag_error())) {
            CHECK(ag_shape_equal(out->ndim, out->shape, c->out_ndim, c->out_shape),
                  "%s: shape %s", name, tensor_shape_str(out, so, sizeof so));
            if (ag_shape_equal(out->ndim, out->shape, c->out_ndim, c->out_shape))
                CHECK(check_values(a, b, out), "%s: values differ from the reference", name);
            CHECK(!out->requires_grad && tensor_is_leaf(out), "%s: recorded a graph", name);
        }
        tensor_release(out);
        tensor_release(a);
        tensor_release(b);
    }
}

/* Bigger products, through the packed ag_gemm path: folded batch, and
 * broadcast batch with both operands batched. */
static void test_forward_large(void) {
    Tensor *a = test_uniform(-1, 1, false, SHAPE(2, 40, 50));
    Tensor *b = test_uniform(-1, 1, false, SHAPE(50, 60));
    Tensor *out = tensor_matmul(a, b);
    CHECK(out && check_values(a, b, out), "matmul (2, 40, 50) @ (50, 60)");
    tensor_release(out);
    Tensor *c = test_uniform(-1, 1, false, SHAPE(3, 1, 40, 33));
    Tensor *d = test_uniform(-1, 1, false, SHAPE(2, 33, 45));
    out = tensor_matmul(c, d);
    CHECK(out && out->ndim == 4 && out->shape[1] == 2 && check_values(c, d, out),
          "matmul (3, 1, 40, 33) @ (2, 33, 45)");
    tensor_release(out);
    tensor_release(a);
    tensor_release(b);
    tensor_release(c);
    tensor_release(d);
}

/* ======================================================================
 * Gradients
 * ====================================================================== */

static Tensor *build_matmul(Tensor **in, const void *arg) {
    (void)arg;
    return tensor_matmul(in[0], in[1]);
}

/* fd_check with the given inputs requiring grad; the other gets none. */
static void grad_case(const MatmulCase *c, bool ga, bool gb) {
    char name[160], base[128];
    snprintf(name, sizeof name, "%s grad (a %s, b %s)", case_name(c, base, sizeof base),
             ga ? "yes" : "no", gb ? "yes" : "no");
    Tensor *in[2] = {test_uniform(-1, 1, ga, c->a_ndim, c->a_shape),
                     test_uniform(-1, 1, gb, c->b_ndim, c->b_shape)};
    fd_check(name, build_matmul, NULL, in, 2);
    CHECK((in[0]->grad != NULL) == ga && (in[1]->grad != NULL) == gb,
          "%s: gradient given to an input that does not require grad", name);
    tensor_release(in[0]);
    tensor_release(in[1]);
}

static void test_grad(void) {
    for (int k = 0; k < NUM_CASES; k++) {
        grad_case(&cases[k], true, true);
        grad_case(&cases[k], true, false);
        grad_case(&cases[k], false, true);
    }
    /* Through the packed path, folded and not. */
    const MatmulCase big[] = {
        {3, {2, 20, 36}, 2, {36, 40}, 3, {2, 20, 40}},
        {3, {2, 36, 20}, 3, {1, 20, 40}, 3, {2, 36, 40}},
    };
    for (int k = 0; k < 2; k++) grad_case(&big[k], true, true);
}

/* matmul_nt and matmul_tn, matmul's gradient kernels as ops (create_graph):
 * g @ b^T in a's shape and a^T @ g in b's, for every case of matmul. */
static Tensor *build_matmul_nt(Tensor **in, const void *arg) {
    const MatmulCase *c = arg;
    return tensor_matmul_nt(in[0], in[1], c->a_ndim, c->a_shape);
}

static Tensor *build_matmul_tn(Tensor **in, const void *arg) {
    const MatmulCase *c = arg;
    return tensor_matmul_tn(in[0], in[1], c->b_ndim, c->b_shape);
}

static void test_grad_ops(void) {
    for (int k = 0; k < NUM_CASES; k++) {
        const MatmulCase *c = &cases[k];
        char name[160], base[128];
        case_name(c, base, sizeof base);
        Tensor *a = test_uniform(-1, 1, true, c->a_ndim, c->a_shape);
        Tensor *b = test_uniform(-1, 1, true, c->b_ndim, c->b_shape);
        Tensor *g = test_uniform(-1, 1, true, c->out_ndim, c->out_shape);
        snprintf(name, sizeof name, "matmul_nt of %s", base);
        fd_check(name, build_matmul_nt, c, (Tensor *[]){g, b}, 2);
        snprintf(name, sizeof name, "matmul_tn of %s", base);
        fd_check(name, build_matmul_tn, c, (Tensor *[]){a, g}, 2);
        tensor_release(a), tensor_release(b), tensor_release(g);
    }
    Tensor *g = test_uniform(-1, 1, false, SHAPE(3, 4)), *b = test_uniform(-1, 1, false, SHAPE(4, 5));
    CHECK(!tensor_matmul_nt(g, b, SHAPE(3, 4)) &&
              strstr(ag_error(), "matmul_nt: the gradient's shape (3, 4) is not the product's, (3, 5)"),
          "matmul_nt checks g's shape: %s", ag_error());
    CHECK(!tensor_matmul_tn(b, g, SHAPE(2, 5)) && strstr(ag_error(), "cannot be multiplied"),
          "matmul_tn checks the shapes multiply: %s", ag_error());
    tensor_release(g), tensor_release(b);
}

/* The gradients of sum(a @ b) by the definition, for 3-D and 4-D operands
 * (no 1-D ones): each batch entry t adds, into the matrices oa and ob it
 * reads, d/da[oa, i, k] = sum_j b[ob, k, j] and d/db[ob, k, j] = sum_i a[oa, i, k]. */
static void ref_sum_grads(const Tensor *a, const Tensor *b, const Tensor *out, double *ga,
                          double *gb) {
    int64_t M = a->shape[a->ndim - 2], K = a->shape[a->ndim - 1], N = b->shape[b->ndim - 1];
    int nb = out->ndim - 2, na = a->ndim - 2, nbb = b->ndim - 2;
    int64_t count = ag_shape_prod(out->shape, 0, nb);
    memset(ga, 0, (size_t)a->numel * sizeof *ga);
    memset(gb, 0, (size_t)b->numel * sizeof *gb);
    for (int64_t t = 0; t < count; t++) {
        int64_t oa = 0, ob = 0, rest = t, bi[AG_MAX_DIMS];
        for (int d = nb - 1; d >= 0; d--) {
            bi[d] = rest % out->shape[d];
            rest /= out->shape[d];
        }
        for (int d = 0; d < nb; d++) {
            int ia = na - nb + d, ib = nbb - nb + d;
            if (ia >= 0) oa = oa * a->shape[ia] + (a->shape[ia] == 1 ? 0 : bi[d]);
            if (ib >= 0) ob = ob * b->shape[ib] + (b->shape[ib] == 1 ? 0 : bi[d]);
        }
        for (int64_t k = 0; k < K; k++) {
            double row_b = 0.0, col_a = 0.0;
            for (int64_t j = 0; j < N; j++) row_b += tensor_values(b)[(ob * K + k) * N + j];
            for (int64_t i = 0; i < M; i++) col_a += tensor_values(a)[(oa * M + i) * K + k];
            for (int64_t i = 0; i < M; i++) ga[(oa * M + i) * K + k] += row_b;
            for (int64_t j = 0; j < N; j++) gb[(ob * K + k) * N + j] += col_a;
        }
    }
}

static bool close_to(const Tensor *g, const double *want) {
    for (int64_t i = 0; i < g->numel; i++)
        if (!(fabs(tensor_values(g)[i] - want[i]) <= 1e-10 * (1.0 + fabs(want[i])))) return false;
    return true;
}

/* Broadcast batch dimensions: an operand used by several batch entries gets
 * their gradients summed inside matmul's backward, never materialised in
 * the broadcast shape (up to 64 times the operand here) and then reduced.
 * Under a limit with room for the operands' gradients only, backward
 * succeeds, and the gradients are those of the definition. */
static void broadcast_grad_case(int a_ndim, const int64_t *a_shape, int b_ndim,
                                const int64_t *b_shape) {
    char sa[AG_SHAPE_STR_MAX], sb[AG_SHAPE_STR_MAX];
    int64_t before = live_tensors(), limit = ag_memory_limit();
    Tensor *a = test_uniform(-1, 1, true, a_ndim, a_shape);
    Tensor *b = test_uniform(-1, 1, true, b_ndim, b_shape);
    Tensor *out = tensor_matmul(a, b), *loss = tensor_sum(out);
    /* Room for out's gradient and the operands', and a half to spare. */
    AgStats s = ag_stats();
    ag_set_memory_limit(s.live_bytes + s.arena_bytes + (out->numel + a->numel + b->numel) * 12 +
                        4096);
    int rc = backward(loss);
    ag_set_memory_limit(limit);
    ag_shape_str(a_ndim, a_shape, sa, sizeof sa);
    ag_shape_str(b_ndim, b_shape, sb, sizeof sb);
    if (CHECK(rc == 0, "sum(%s @ %s): backward within the limit: %s", sa, sb, ag_error())) {
        double *ga = malloc((size_t)a->numel * sizeof *ga), *gb = malloc((size_t)b->numel * sizeof *gb);
        ref_sum_grads(a, b, out, ga, gb);
        CHECK(close_to(a->grad, ga) && close_to(b->grad, gb), "sum(%s @ %s): the gradients", sa, sb);
        free(ga);
        free(gb);
    }
    Tensor *all[] = {a, b, out, loss};
    for (int i = 0; i < 4; i++) tensor_release(all[i]);
    CHECK(live_tensors() == before, "leaked %lld tensors", (long long)(live_tensors() - before));
}

static void test_broadcast_grad_memory(void) {
    broadcast_grad_case(SHAPE(64, 1, 64), SHAPE(64, 64));     /* b broadcast, a batched: folded */
    broadcast_grad_case(SHAPE(64, 64), SHAPE(64, 64, 1));     /* a broadcast over b's batch */
    broadcast_grad_case(SHAPE(8, 1, 8, 64), SHAPE(8, 64, 64)); /* both, one dim each */
}

/* The recorded Function's name per case: PyTorch 1.13's matmul's (its
 * last op; tests/shell/python/matmul_names.py prints them in PyTorch). */
static void test_names(void) {
    const struct {
        int k;
        const char *name;
    } expect[] = {{0, "DotBackward"},        {1, "SqueezeBackward3"},   {2, "MvBackward"},
                  {3, "MmBackward"},         {4, "UnsafeViewBackward"}, {5, "UnsafeViewBackward"},
                  {6, "CloneBackward"},      {9, "UnsafeViewBackward"}};
    for (size_t e = 0; e < sizeof expect / sizeof expect[0]; e++) {
        const MatmulCase *c = &cases[expect[e].k];
        Tensor *a = test_uniform(-1, 1, true, c->a_ndim, c->a_shape);
        Tensor *b = test_uniform(-1, 1, false, c->b_ndim, c->b_shape);
        Tensor *out = tensor_matmul(a, b);
        CHECK(out && out->requires_grad && out->op_name &&
                  strcmp(out->op_name, expect[e].name) == 0,
              "matmul case %d records %s, not %s", expect[e].k,
              out && out->op_name ? out->op_name : "(none)", expect[e].name);
        tensor_release(out);
        tensor_release(a);
        tensor_release(b);
        ag_graph_free();
    }
}

/* ======================================================================
 * Errors: NULL, with a message naming both shapes, and nothing leaked
 * ====================================================================== */

static void expect_error(const char *what, Tensor *a, Tensor *b, const char *want1,
                         const char *want2) {
    ag_clear_error();
    Tensor *out = tensor_matmul(a, b);
    const char *msg = ag_error();
    CHECK(out == NULL, "%s: expected an error", what);
    CHECK(strstr(msg, "matmul") && strstr(msg, want1) && (!want2 || strstr(msg, want2)),
          "%s: message \"%s\" should name %s%s%s", what, msg, want1, want2 ? " and " : "",
          want2 ? want2 : "");
    tensor_release(out);
}

static void test_errors_matmul(void) {
    int64_t before = live_tensors(), functions = ag_stats().arena_functions;
    Tensor *m23 = test_uniform(-1, 1, true, SHAPE(2, 3));
    Tensor *m234 = test_uniform(-1, 1, false, SHAPE(2, 3, 4));
    Tensor *m546 = test_uniform(-1, 1, false, SHAPE(5, 4, 6));
    Tensor *v3 = test_uniform(-1, 1, false, SHAPE(3));
    Tensor *v2 = test_uniform(-1, 1, false, SHAPE(2));
    Tensor *s = tensor_scalar(2.0);
    expect_error("inner mismatch", m23, m23, "shapes (2, 3) and (2, 3)", "(3 != 2)");
    expect_error("vector mismatch", v3, v2, "shapes (3,) and (2,)", "(3 != 2)");
    expect_error("matrix-vector mismatch", m23, v2, "(2, 3) and (2,)", "3 != 2");
    expect_error("batch mismatch", m234, m546, "(2, 3, 4) and (5, 4, 6)", "(2 vs 5)");
    expect_error("0-d operand", s, v3,
                 "both arguments need at least 1 dimension, got shapes () and (3,)", NULL);
    expect_error("0-d second operand", v3, s, "(3,) and ()", NULL);
    expect_error("NULL first", NULL, v3, "NULL", NULL);
    expect_error("NULL second", v3, NULL, "NULL", NULL);
    CHECK(ag_stats().arena_functions == functions, "a failed matmul recorded a Function");
    tensor_release(m23);
    tensor_release(m234);
    tensor_release(m546);
    tensor_release(v3);
    tensor_release(v2);
    tensor_release(s);
    CHECK(live_tensors() == before, "matmul errors leaked %lld tensors",
          (long long)(live_tensors() - before));
}

/* The kernel for large products is chosen from facts of the build and the
 * machine, never from timing (docs/performance.md): AG_BLAS=own and
 * AG_BLAS=openblas are obeyed (make test asks for OpenBLAS only when it
 * loads), and a build whose own kernel is AVX2 with FMA or AVX-512 -- as
 * fast as OpenBLAS at its best -- never takes OpenBLAS by itself. */
static void test_blas_choice(void) {
    const char *name = ag_blas_name(), *want = getenv("AG_BLAS");
    bool own = strncmp(name, "ag's own kernel", 15) == 0;
    if (want && strcmp(want, "own") == 0) {
        CHECK(own, "AG_BLAS=own: %s", name);
    } else if (want && strcmp(want, "openblas") == 0) {
        CHECK(strncmp(name, "OpenBLAS (", 10) == 0, "AG_BLAS=openblas: %s", name);
    } else {
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
        CHECK(own, "a build with the wide kernel never takes OpenBLAS by itself: %s", name);
#endif
    }
    CHECK(strcmp(ag_blas_name(), name) == 0, "the same kernel every time");
}

typedef Tensor *(*Product)(Tensor *, Tensor *);

static Tensor *build_product(Tensor **in, const void *arg) {
    return (*(const Product *)arg)(in[0], in[1]);
}

/* dot, mv and mm: matmul at their ranks only, named as PyTorch names them. */
static void test_rank_products(void) {
    static const Product dot = tensor_dot, mv = tensor_mv, mm = tensor_mm;
    Tensor *v = test_uniform(-1, 1, true, SHAPE(3)), *w = test_uniform(-1, 1, true, SHAPE(3));
    Tensor *m = test_uniform(-1, 1, true, SHAPE(2, 3)), *n = test_uniform(-1, 1, true, SHAPE(3, 4));
    fd_check("dot", build_product, &dot, (Tensor *[]){v, w}, 2);
    fd_check("mv", build_product, &mv, (Tensor *[]){m, v}, 2);
    fd_check("mm", build_product, &mm, (Tensor *[]){m, n}, 2);
    Tensor *d = tensor_dot(v, w);
    double want = tensor_values(v)[0] * tensor_values(w)[0] + tensor_values(v)[1] * tensor_values(w)[1] + tensor_values(v)[2] * tensor_values(w)[2];
    CHECK(d && fabs(tensor_values(d)[0] - want) < 1e-15 && strcmp(d->op_name, "DotBackward") == 0,
          "dot's value and name");
    tensor_release(d);
    CHECK(!tensor_dot(m, v) && strstr(ag_error(), "dot: expects 1-D and 1-D tensors, got (2, 3) "
                                                  "and (3,)"), "%s", ag_error());
    CHECK(!tensor_mm(m, v) && strstr(ag_error(), "mm: expects 2-D and 2-D"), "%s", ag_error());
    CHECK(!tensor_mv(v, m) && strstr(ag_error(), "mv: expects 2-D and 1-D"), "%s", ag_error());
    ag_graph_free();
    tensor_release(v), tensor_release(w), tensor_release(m), tensor_release(n);
}

/* A product of two vectors sums in order, as the reference BLAS's ddot
 * that PyTorch's dot calls: x_i = sin(i + 1), y_i = cos(2i + 1), i < 40,
 * gives PyTorch 1.13's -0x1.dd1898977b628p-2 (by dot and by matmul), where
 * summing in vector lanes gives its neighbour. */
static void test_dot_order(void) {
    int64_t n = 40;
    double xs[40], ys[40];
    for (int i = 0; i < 40; i++) xs[i] = sin(i + 1.0), ys[i] = cos(2.0 * i + 1);
    Tensor *x = tensor_create(1, &n, xs, false), *y = tensor_create(1, &n, ys, false);
    Tensor *d = tensor_dot(x, y), *m = tensor_matmul(x, y);
    CHECK(d && tensor_values(d)[0] == -0x1.dd1898977b628p-2, "dot of 40: %a", d ? tensor_values(d)[0] : NAN);
    CHECK(m && tensor_values(m)[0] == -0x1.dd1898977b628p-2, "matmul of two vectors of 40: %a",
          m ? tensor_values(m)[0] : NAN);
    Tensor *all[] = {x, y, d, m};
    for (int i = 0; i < 4; i++) tensor_release(all[i]);
}

static Tensor *build_linear(Tensor **in, const void *arg) {
    return tensor_linear(in[0], in[1], *(const bool *)arg ? in[2] : NULL);
}

/* A layer, tanh(x @ w^T + b): every gradient depends on every input, so
 * the create_graph pass differentiates each part of linear's gradient. */
static Tensor *build_tanh_linear(Tensor **in, const void *arg) {
    (void)arg;
    Tensor *y = tensor_linear(in[0], in[1], in[2]), *r = tensor_tanh(y);
    tensor_release(y);
    return r;
}

/* linear: x @ w^T + b, its gradients against finite differences for x of
 * one, two and three dims, with and without a bias; its value is matmul's
 * (x @ w.t() + b) to the bit, and its names are PyTorch's
 * (F.linear(x, W, b).grad_fn.name(): AddmmBackward0, MmBackward0,
 * AddBackward0, SqueezeBackward3, ViewBackward0, UnsafeViewBackward0). */
static void test_linear(void) {
    static const bool with = true, without = false;
    static const char *const names[3][2] = {{"SqueezeBackward", "AddBackward"},
                                            {"MmBackward", "AddmmBackward"},
                                            {"UnsafeViewBackward", "ViewBackward"}};
    Tensor *w = test_uniform(-1, 1, true, SHAPE(4, 3)), *b = test_uniform(-1, 1, true, SHAPE(4));
    Tensor *xs[3] = {test_uniform(-1, 1, true, SHAPE(3)), test_uniform(-1, 1, true, SHAPE(5, 3)),
                     test_uniform(-1, 1, true, SHAPE(2, 5, 3))};
    for (int d = 0; d < 3; d++) {
        fd_check("linear with bias", build_linear, &with, (Tensor *[]){xs[d], w, b}, 3);
        fd_check("linear without bias", build_linear, &without, (Tensor *[]){xs[d], w, b}, 2);
        fd_check("tanh of linear", build_tanh_linear, NULL, (Tensor *[]){xs[d], w, b}, 3);
        for (int k = 0; k < 2; k++) {
            Tensor *y = tensor_linear(xs[d], w, k ? b : NULL), *wt = tensor_t(w);
            Tensor *mm = tensor_matmul(xs[d], wt), *ref = k ? tensor_add(mm, b) : tensor_retain(mm);
            bool same = y && ref && y->numel == ref->numel &&
                        memcmp(tensor_values(y), tensor_values(ref), (size_t)y->numel * sizeof(double)) == 0;
            CHECK(same && strcmp(y->op_name, names[d][k]) == 0, "linear of %d-D x%s: matmul's "
                  "values, named %s", d + 1, k ? " with a bias" : "", y ? y->op_name : "?");
            Tensor *all[] = {y, wt, mm, ref};
            for (int i = 0; i < 4; i++) tensor_release(all[i]);
        }
    }
    Tensor *bad = test_uniform(-1, 1, false, SHAPE(5, 2));
    CHECK(!tensor_linear(bad, w, b) && strstr(ag_error(), "mat1 and mat2 shapes cannot be multiplied"),
          "a wrong input width: %s", ag_error());
    CHECK(!tensor_linear(xs[1], w, w) && strstr(ag_error(), "bias of shape (4, 3)"), "%s", ag_error());
    ag_graph_free();
    Tensor *all[] = {w, b, xs[0], xs[1], xs[2], bad};
    for (int i = 0; i < 6; i++) tensor_release(all[i]);
}

void test_matmul(void) {
    test_blas_choice();
    test_gemm();
    test_gemm_f32();
    test_forward();
    test_forward_large();
    test_grad();
    test_grad_ops();
    test_broadcast_grad_memory();
    test_names();
    test_errors_matmul();
    test_rank_products();
    test_dot_order();
    test_linear();
}
