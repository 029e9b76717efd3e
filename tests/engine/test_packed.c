/*
 * test_packed.c — float32 results held as floats (Tensor.packed; issue 18's
 * float32 kernels). A float32 add, sub, mul, div, unary op or cast of at
 * least AG_PACK_MIN elements is computed in float and stored packed; these
 * check that it has the bits of the doubles path, from packed operands and
 * from unpacked ones: for the arithmetic, each element's exact float
 * result; for the unary ops, the same op on pieces of the input too small
 * to pack (the path test_f32math holds to PyTorch's bits), cut on block
 * boundaries. And that every way of reading a packed tensor sees its
 * values: tensor_values, a view, an in-place write, a cast, a sum,
 * backward, and the same on several threads.
 */
#include "harness.h"

#include "../../src/internal.h"

#include <string.h>

/* n float64 values spread over [-4, 4] and beyond, none 0 (a divisor) */
static Tensor *spread(int64_t n, double phase) {
    Tensor *t = tensor_create(1, &n, NULL, false);
    for (int64_t i = 0; i < n; i++)
        tensor_values(t)[i] = 4.0 * sin(0.37 * (double)i + phase) + 1e-3 * (double)(i % 7) + 0.01;
    return t;
}

/* x as float32, packed (the cast packs from AG_PACK_MIN elements), or
 * read once so that it holds doubles */
static Tensor *as_f32(const Tensor *x, bool packed) {
    Tensor *t = tensor_to((Tensor *)x, AG_FLOAT32);
    if (t && !packed) (void)tensor_values(t);
    return t;
}

static bool bits_equal(const double *a, const double *b, int64_t n, int64_t *first) {
    for (int64_t i = 0; i < n; i++)
        if (!same_double(a[i], b[i])) return *first = i, false;
    return true;
}

static void test_cast_packs(void) {
    int64_t n = AG_PACK_MIN + 5;
    Tensor *x = spread(n, 0.0), *small = spread(AG_PACK_MIN - 1, 0.0);
    Tensor *p = as_f32(x, true), *q = as_f32(small, true);
    CHECK(p && p->packed && p->dtype == AG_FLOAT32, "a cast of %lld elements to float32 packs",
          (long long)n);
    CHECK(q && !q->packed, "one of AG_PACK_MIN - 1 does not");
    AgStats before = ag_stats();
    int64_t wrong = 0;
    const double *v = tensor_values(p); /* unpacks */
    for (int64_t i = 0; i < n; i++) wrong += !same_double(v[i], (double)(float)tensor_values(x)[i]);
    CHECK(!p->packed && wrong == 0, "unpacked, each element is the float of x's (%lld wrong)",
          (long long)wrong);
    CHECK(ag_stats().live_bytes == before.live_bytes, "unpacking allocates nothing");
    Tensor *again = as_f32(x, true), *back = tensor_to(again, AG_FLOAT64);
    CHECK(back && back->dtype == AG_FLOAT64 && !back->packed &&
              memcmp(tensor_values(back), v, (size_t)n * sizeof(double)) == 0,
          "a packed tensor cast back to float64 has its values");
    Tensor *all[] = {x, small, p, q, again, back};
    for (int k = 0; k < 6; k++) tensor_release(all[k]);
}

/* a op b, both float32 values, as a float kernel rounds it */
static double float_op(int op, double a, double b) {
    float x = (float)a, y = (float)b;
    switch (op) {
    case 0: return (double)(x + y);
    case 1: return (double)(x - y);
    case 2: return (double)(x * y);
    default: return (double)(x / y);
    }
}

static Tensor *apply_op(int op, Tensor *a, Tensor *b) {
    switch (op) {
    case 0: return tensor_add(a, b);
    case 1: return tensor_sub(a, b);
    case 2: return tensor_mul(a, b);
    default: return tensor_div(a, b);
    }
}

/* Every op, every operand form: both full (packed or not), one a single
 * float32 value, one a float64 number (cast to float32 first). */
static void test_binary(void) {
    static const char *const names[] = {"add", "sub", "mul", "div"};
    static const int64_t sizes[] = {AG_PACK_MIN, AG_PACK_MIN + 1, 5003};
    int wrong = 0, cases = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int64_t n = sizes[s];
        Tensor *x = spread(n, 0.0), *y = spread(n, 1.0);
        Tensor *one = tensor_scalar(-0.3);
        Tensor *one32 = tensor_to(one, AG_FLOAT32), *number = tensor_number(0.1, AG_FLOAT64);
        for (int op = 0; op < 4; op++)
            for (int form = 0; form < 7; form++) {
                bool pa = form & 1, pb = form & 2;
                Tensor *a = form < 4 ? as_f32(x, pa) : form == 4 ? tensor_retain(one32) : as_f32(x, true);
                Tensor *b = form < 4 ? as_f32(y, pb) : form == 5 ? tensor_retain(one32)
                                     : form == 6 ? tensor_retain(number) : as_f32(y, false);
                Tensor *r = apply_op(op, a, b);
                bool ok = r && r->packed && r->dtype == AG_FLOAT32 && r->numel == n;
                const double *av = tensor_values(a), *bv = tensor_values(b), *rv = ok ? tensor_values(r) : NULL;
                for (int64_t i = 0; ok && i < n; i++) {
                    double ai = av[a->numel == 1 ? 0 : i], bi = bv[b->numel == 1 ? 0 : i];
                    ok = same_double(rv[i], float_op(op, ai, bi));
                }
                cases++;
                wrong += !CHECK(ok, "%s of %lld, form %d: packed float32, each element the float op's",
                                names[op], (long long)n, form);
                tensor_release(a);
                tensor_release(b);
                tensor_release(r);
            }
        Tensor *all[] = {x, y, one, one32, number};
        for (int k = 0; k < 5; k++) tensor_release(all[k]);
    }
    CHECK(wrong == 0, "%d binary cases packed with the float op's bits", cases);
    /* a broadcast that is not one value does not pack */
    Tensor *m64 = spread(2 * AG_PACK_MIN, 0.0), *row64 = spread(2, 0.0);
    Tensor *m = tensor_to(m64, AG_FLOAT32), *row = tensor_to(row64, AG_FLOAT32);
    Tensor *m2 = tensor_reshape(m, 2, (int64_t[]){AG_PACK_MIN, 2});
    Tensor *r = tensor_mul(m2, row);
    CHECK(r && !r->packed && r->dtype == AG_FLOAT32, "a row broadcast takes the doubles path");
    Tensor *all[] = {m64, row64, m, row, m2, r};
    for (int k = 0; k < 6; k++) tensor_release(all[k]);
}

typedef Tensor *(*UnaryFn)(Tensor *);
static Tensor *elu1(Tensor *x) { return tensor_elu(x, 1.0); }
static Tensor *softplus1(Tensor *x) { return tensor_softplus(x, 1.0, 20.0); }
static Tensor *leaky(Tensor *x) { return tensor_leaky_relu(x, 0.01); }
static Tensor *sqrt_abs(Tensor *x) {
    Tensor *a = tensor_abs(x), *r = tensor_sqrt(a);
    tensor_release(a);
    return r;
}

/* f of x (float32, n elements) against f of its pieces of 1024 (whole
 * blocks; the last ends where x does, so its partial block is the same) */
static bool unary_as_pieces(UnaryFn f, const Tensor *x, bool packed, int64_t *at) {
    Tensor *in = as_f32(x, packed), *y = f(in);
    bool ok = y && y->packed && y->dtype == AG_FLOAT32;
    const double *yv = ok ? tensor_values(y) : NULL;
    for (int64_t start = 0; ok && start < x->numel; start += 1024) {
        int64_t len = x->numel - start < 1024 ? x->numel - start : 1024;
        Tensor *piece = tensor_create(1, &len, tensor_values(x) + start, false);
        Tensor *p32 = tensor_to(piece, AG_FLOAT32), *py = f(p32);
        ok = py && !py->packed && bits_equal(yv + start, tensor_values(py), len, at);
        if (!ok) *at += start;
        tensor_release(piece);
        tensor_release(p32);
        tensor_release(py);
    }
    tensor_release(in);
    tensor_release(y);
    return ok;
}

static void test_unary(void) {
    static const struct {
        const char *name;
        UnaryFn f;
    } fns[] = {{"tanh", tensor_tanh},       {"exp", tensor_exp},   {"sin", tensor_sin},
               {"cos", tensor_cos},         {"sigmoid", tensor_sigmoid}, {"silu", tensor_silu},
               {"elu", elu1},               {"softplus", softplus1}, {"sinh", tensor_sinh},
               {"erf", tensor_erf},         {"atan", tensor_atan}, {"expm1", tensor_expm1},
               {"relu", tensor_relu},       {"neg", tensor_neg},   {"abs", tensor_abs},
               {"sqrt", sqrt_abs},          {"reciprocal", tensor_reciprocal},
               {"clone", tensor_clone},     {"sign", tensor_sign}, {"leaky_relu", leaky},
               {"hardswish", tensor_hardswish}, {"floor", tensor_floor}};
    Tensor *x = spread(5003, 0.5);
    int wrong = 0;
    for (size_t k = 0; k < sizeof fns / sizeof *fns; k++)
        for (int packed = 0; packed < 2; packed++) {
            int64_t at = -1;
            wrong += !CHECK(unary_as_pieces(fns[k].f, x, packed, &at),
                            "%s of 5003 float32 (%s): packed, the bits of its pieces (first "
                            "difference at %lld)", fns[k].name, packed ? "packed" : "doubles",
                            (long long)at);
        }
    CHECK(wrong == 0, "every unary op packs with the doubles path's bits");
    tensor_release(x);
}

/* A packed tensor read every other way */
static void test_reads(void) {
    int64_t n = 6000;
    Tensor *x = spread(n, 0.2), *x32 = as_f32(x, true), *y = tensor_tanh(x32);
    double want = (double)(float)tanh((double)(float)tensor_values(x)[17]);
    Tensor *view = y && y->packed ? tensor_detach(y) : NULL;
    CHECK(view && !y->packed && fabs(tensor_values(view)[17] - want) < 1e-6,
          "a view of a packed tensor unpacks it and shares its values");
    Tensor *z = tensor_mul(x32, x32), *ones = tensor_ones(1, &n, false);
    Tensor *ones32 = tensor_to(ones, AG_FLOAT32);
    CHECK(z && z->packed && tensor_assign(z, ones32) == 0 && !z->packed &&
              tensor_values(z)[n - 1] == 1.0,
          "an in-place write to a packed tensor lands in its doubles");
    Tensor *w = tensor_add(x32, x32), *s = tensor_sum(w);
    Tensor *w2 = tensor_add(x32, x32);
    (void)tensor_values(w2);
    Tensor *s2 = tensor_sum(w2);
    CHECK(s && s2 && same_double(tensor_values(s)[0], tensor_values(s2)[0]),
          "a sum of a packed tensor is the sum of its values");
    Tensor *all[] = {x, x32, y, view, z, ones, ones32, w, s, w2, s2};
    for (int k = 0; k < 11; k++) tensor_release(all[k]);
}

/* sum(tanh(x * x + x) / 3) in float32: x's gradient from a graph of
 * packed tensors, against the same on pieces (each element's own) */
static void test_packed_backward(void) {
    int64_t n = 5003;
    Tensor *x = spread(n, 0.7);
    Tensor *grads[2] = {NULL, NULL};
    for (int whole = 0; whole < 2; whole++) {
        int64_t len = whole ? n : 1000;
        Tensor *g = tensor_create(1, &n, NULL, false);
        for (int64_t start = 0; start < n; start += len) {
            int64_t m = n - start < len ? n - start : len;
            Tensor *piece = tensor_create(1, &m, tensor_values(x) + start, false);
            Tensor *leaf = tensor_to(piece, AG_FLOAT32);
            tensor_set_requires_grad(leaf, true);
            Tensor *sq = tensor_mul(leaf, leaf), *u = tensor_add(sq, leaf), *t = tensor_tanh(u);
            Tensor *three = tensor_number(3, AG_INT64), *d = tensor_div(t, three);
            if (whole) CHECK(sq->packed && u->packed && t->packed && d->packed, "the forward packs");
            Tensor *s = tensor_sum(d);
            CHECK(backward(s) == 0 && leaf->grad && leaf->grad->dtype == AG_FLOAT32, "backward runs");
            if (leaf->grad) memcpy(tensor_values(g) + start, tensor_values(leaf->grad), (size_t)m * sizeof(double));
            Tensor *all[] = {piece, leaf, sq, u, t, three, d, s};
            for (int k = 0; k < 8; k++) tensor_release(all[k]);
        }
        grads[whole] = g;
    }
    int64_t at = -1;
    CHECK(bits_equal(tensor_values(grads[0]), tensor_values(grads[1]), n, &at),
          "float32 gradients through packed tensors: the bits of the unpacked path (first "
          "difference at %lld)", (long long)at);
    tensor_release(x);
    tensor_release(grads[0]);
    tensor_release(grads[1]);
}

/* The same bits on several threads (the packed kernels split blocks) */
static void test_packed_threads(void) {
    int threads = ag_get_num_threads();
    int64_t n = 200003;
    Tensor *x = spread(n, 0.1), *x32 = as_f32(x, true);
    Tensor *r[2];
    for (int k = 0; k < 2; k++) {
        ag_set_num_threads(k ? 3 : 1);
        Tensor *m = tensor_mul(x32, x32), *t = tensor_tanh(m);
        r[k] = tensor_to(t, AG_FLOAT64);
        tensor_release(m);
        tensor_release(t);
    }
    ag_set_num_threads(threads);
    int64_t at = -1;
    CHECK(r[0] && r[1] && bits_equal(tensor_values(r[0]), tensor_values(r[1]), n, &at),
          "packed mul and tanh on 3 threads: the bits of 1 (first difference at %lld)",
          (long long)at);
    Tensor *all[] = {x, x32, r[0], r[1]};
    for (int k = 0; k < 4; k++) tensor_release(all[k]);
}

void test_packed(void) {
    int64_t lowered = ag_pack_min; /* AG_TEST_PACK_MIN's: these test the threshold itself */
    ag_pack_min = AG_PACK_MIN;
    test_cast_packs();
    test_binary();
    test_unary();
    test_reads();
    test_packed_backward();
    test_packed_threads();
    ag_pack_min = lowered;
}
