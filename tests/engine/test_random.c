/*
 * test_random.c — the random stream against PyTorch 1.13's, bit for bit:
 * every sampler in every dtype it takes (float64, float32, int64, int32) at
 * 20 seeds and sizes around randn's 16 (random_cases.h, made by
 * random_cases.py), sequences that check the cached normal and a separate
 * generator, and the arguments PyTorch refuses.
 */
#include "harness.h"

#include "random_cases.h"

/* FNV-1a over the values' 64-bit patterns, as random_cases.py's fnv. */
static uint64_t values_hash(const Tensor *t) {
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int64_t i = 0; i < t->numel; i++) {
        uint64_t bits;
        memcpy(&bits, &tensor_values(t)[i], sizeof bits);
        h = (h ^ bits) * UINT64_C(0x100000001b3);
    }
    return h;
}

/* A constant tensor of dtype from the values f(i), i < n (rounded to the
 * dtype, as torch.tensor(values, dtype=) rounds them). */
static Tensor *vector_of(int64_t n, double (*f)(int64_t), AgDtype dtype) {
    Tensor *t = tensor_zeros(1, &n, false);
    for (int64_t i = 0; t && i < n; i++) tensor_values(t)[i] = f(i);
    if (t) tensor_set_dtype(t, dtype);
    return t;
}

static double weight(int64_t i) { return (double)(i % 7 + 1) / 3; }
static double probability(int64_t i) { return (double)(i % 11) / 10; }

/* random_cases.py's rows(n): weights, weights reversed, ones. */
static Tensor *weight_rows(int64_t n, AgDtype dtype) {
    Tensor *t = tensor_zeros(2, (int64_t[]){3, n}, false);
    for (int64_t i = 0; t && i < n; i++) {
        tensor_values(t)[i] = weight(i);
        tensor_values(t)[n + i] = weight(n - 1 - i);
        tensor_values(t)[2 * n + i] = 1.0;
    }
    if (t) tensor_set_dtype(t, dtype);
    return t;
}

static Tensor *empty_of(int64_t n, AgDtype dtype) {
    Tensor *t = tensor_zeros(1, &n, false);
    if (t) tensor_set_dtype(t, dtype);
    return t;
}

/* t when its fill succeeded (status 0); else NULL, t released. */
static Tensor *checked(Tensor *t, int status) {
    if (status == 0) return t;
    tensor_release(t);
    return NULL;
}

/* rand and randn make the default dtype, as torch.rand(n, dtype=) asks. */
static Tensor *default_typed(Tensor *(*make)(int, const int64_t *, bool), int64_t n,
                             AgDtype dtype) {
    AgDtype was = ag_default_dtype();
    ag_set_default_dtype(dtype);
    Tensor *t = make(1, &n, false);
    ag_set_default_dtype(was);
    return t;
}

/* An in-place fill of a new n-vector of dtype. */
static Tensor *fill_of(int sampler, int64_t n, AgDtype dtype) {
    Tensor *t = empty_of(n, dtype);
    if (!t) return NULL;
    switch (sampler) {
    case S_NORMAL: return checked(t, tensor_normal_(t, 1.5, 0.25, NULL));
    case S_UNIFORM: return checked(t, tensor_uniform_(t, -2, 3, NULL));
    case S_RANDINT: return checked(t, tensor_random_(t, -7, 50, NULL));
    case S_RANDINT_WIDE:
        return checked(t, tensor_random_(t, -(INT64_C(1) << 40), INT64_C(1) << 40, NULL));
    case S_BERNOULLI_P: return checked(t, tensor_bernoulli_(t, 0.3, NULL));
    default: return checked(t, tensor_exponential_(t, 1.5, NULL)); /* S_EXPONENTIAL */
    }
}

/* The multinomial samplers of random_cases.py, p of dtype. */
static Tensor *multinomial_of(int sampler, int64_t n, AgDtype dtype) {
    bool rows = sampler == S_MULTINOMIAL_ROWS || sampler == S_MULTINOMIAL_ROWS_NOREP;
    Tensor *p = rows ? weight_rows(n, dtype) : vector_of(n, weight, dtype), *t = NULL;
    switch (sampler) {
    case S_MULTINOMIAL: t = tensor_multinomial(p, 2 * n + 1, true, NULL); break;
    case S_MULTINOMIAL_NOREP: t = tensor_multinomial(p, (n + 1) / 2, false, NULL); break;
    case S_MULTINOMIAL_ROWS: t = tensor_multinomial(p, 3, true, NULL); break;
    default: t = tensor_multinomial(p, n < 3 ? n : 3, false, NULL); break;
    }
    tensor_release(p);
    return t;
}

/* The tensor random_cases.py's SAMPLERS[sampler] makes from n and dtype. */
static Tensor *sample(int sampler, int64_t n, AgDtype dtype) {
    switch (sampler) {
    case S_RAND: return default_typed(tensor_rand, n, dtype);
    case S_RANDN: return default_typed(tensor_randn, n, dtype);
    case S_RANDPERM: return tensor_randperm(n, NULL);
    case S_BERNOULLI: {
        Tensor *p = vector_of(n, probability, dtype), *t = tensor_bernoulli(p, NULL);
        tensor_release(p);
        return t;
    }
    case S_MULTINOMIAL: case S_MULTINOMIAL_NOREP: case S_MULTINOMIAL_ROWS:
    case S_MULTINOMIAL_ROWS_NOREP:
        return multinomial_of(sampler, n, dtype);
    default: return fill_of(sampler, n, dtype);
    }
}

/* The dtype PyTorch's result has: indices are int64. */
static AgDtype result_dtype(int sampler, AgDtype dtype) {
    return sampler == S_RANDPERM || sampler >= S_MULTINOMIAL ? AG_INT64 : dtype;
}

static void test_random_cases(void) {
    int failed = 0, total = 0;
    enum { SHOWN = 10 }; /* a broken sampler fails every case: show the first few */
    for (size_t i = 0; i < sizeof random_cases / sizeof *random_cases; i++) {
        const RandomCase *k = &random_cases[i];
        for (int j = 0; j < RANDOM_SIZES; j++, total++) {
            ag_seed(k->seed);
            Tensor *t = sample(k->sampler, random_sizes[j], k->dtype);
            bool ok = t && values_hash(t) == k->hash[j] &&
                      t->dtype == result_dtype(k->sampler, k->dtype);
            if (!ok && failed++ < SHOWN)
                CHECK(false, "random case %zu (seed %llu, sampler %d, %s, n %lld): %s; "
                      "first %.17g, dtype %s", i, (unsigned long long)k->seed, k->sampler,
                      ag_dtype_name(k->dtype), (long long)random_sizes[j],
                      t ? "other values" : ag_error(), t ? tensor_values(t)[0] : NAN,
                      t ? ag_dtype_name((AgDtype)t->dtype) : "-");
            tensor_release(t);
        }
    }
    CHECK(failed == 0, "random cases: %d of %d differ from PyTorch's", failed, total);
}

/* got's values, in order, are want[*at ...]; *at moves past them. */
static void expect_values(const char *label, Tensor *got, const double *want, size_t *at) {
    if (!CHECK(got != NULL, "%s: %s", label, ag_error())) return;
    for (int64_t i = 0; i < got->numel; i++, (*at)++)
        CHECK(same_double(tensor_values(got)[i], want[*at]), "%s[%zu]: %.17g, PyTorch %.17g", label, *at,
              tensor_values(got)[i], want[*at]);
    tensor_release(got);
}

static Tensor *normal_of(int64_t n, double mean, double std, AgGenerator *g) {
    Tensor *t = empty_of(n, AG_FLOAT64);
    return checked(t, tensor_normal_(t, mean, std, g));
}

static Tensor *rand_of(int64_t n, AgGenerator *g) {
    Tensor *t = empty_of(n, AG_FLOAT64);
    return checked(t, tensor_uniform_(t, 0, 1, g));
}

/* float32 draws of n elements: normal_(mean, std), or uniform_ for NAN. */
static Tensor *f32_of(int64_t n, double mean, double std) {
    Tensor *t = empty_of(n, AG_FLOAT32);
    return checked(t, isnan(mean) ? tensor_uniform_(t, 0, 1, NULL)
                                  : tensor_normal_(t, mean, std, NULL));
}

/* float32's small normals share float64's cached sine; its large path
 * leaves the cache alone. */
static void test_random_f32_cache(void) {
    size_t at = 0;
    ag_seed(5);
    expect_values("f32 cache", f32_of(1, 0, 1), seq_cache_f32, &at);
    expect_values("f32 cache", normal_of(3, 0, 1, NULL), seq_cache_f32, &at);
    expect_values("f32 cache", f32_of(20, 0, 1), seq_cache_f32, &at);
    expect_values("f32 cache", f32_of(2, NAN, 0), seq_cache_f32, &at);
    expect_values("f32 cache", f32_of(1, 0, 1), seq_cache_f32, &at);
    expect_values("f32 cache", f32_of(2, -1, 3), seq_cache_f32, &at);
    expect_values("f32 cache", f32_of(16, -1, 3), seq_cache_f32, &at);
}

/* The cached second normal, reseeding, and a generator of one's own. */
static void test_random_sequences(void) {
    size_t at = 0;
    ag_seed(5);
    expect_values("cache", tensor_randn(SHAPE(1), false), seq_cache, &at);
    expect_values("cache", tensor_randn(SHAPE(3), false), seq_cache, &at);
    expect_values("cache", tensor_randn(SHAPE(20), false), seq_cache, &at);
    expect_values("cache", tensor_rand(SHAPE(2), false), seq_cache, &at);
    expect_values("cache", tensor_randn(SHAPE(1), false), seq_cache, &at);
    expect_values("cache", normal_of(2, -1, 3, NULL), seq_cache, &at);

    at = 0;
    ag_seed(5);
    tensor_release(tensor_randn(SHAPE(1), false)); /* leaves a normal cached */
    ag_seed(6);                                    /* which reseeding forgets */
    expect_values("reseed", tensor_randn(SHAPE(2), false), seq_reseed, &at);
    CHECK(ag_generator_initial_seed(NULL) == 6, "initial_seed: %llu",
          (unsigned long long)ag_generator_initial_seed(NULL));

    AgGenerator *g = ag_generator_new();
    if (!CHECK(g != NULL, "ag_generator_new: %s", ag_error())) return;
    at = 0;
    CHECK(ag_generator_initial_seed(g) == UINT64_C(67280421310721), "torch.Generator()'s seed");
    expect_values("fresh generator", rand_of(3, g), seq_generator_fresh, &at);
    at = 0;
    ag_seed(9);
    ag_generator_manual_seed(g, 77);
    expect_values("generator", normal_of(3, 0, 1, g), seq_generator, &at);
    expect_values("generator", tensor_rand(SHAPE(2), false), seq_generator, &at);
    expect_values("generator", normal_of(3, 0, 1, g), seq_generator, &at);
    expect_values("generator", tensor_rand(SHAPE(2), false), seq_generator, &at);
    ag_generator_free(g);

    /* random64 is two draws, the first the high half. */
    ag_seed(0);
    uint64_t hi = ag_generator_random(NULL), lo = ag_generator_random(NULL);
    ag_seed(0);
    CHECK(ag_generator_random64(NULL) == (hi << 32 | lo), "random64");
    CHECK(hi == 2357136044u, "mt19937 seeded 0: first draw %lu", (unsigned long)hi);
}

/* int64's unbounded random_(), and RandomSampler's pattern: a generator
 * seeded with one such draw gives randperm, the default stream goes on. */
static void test_random_int64(void) {
    ag_seed(0);
    AgGenerator *g = ag_generator_new();
    if (!CHECK(g != NULL, "ag_generator_new: %s", ag_error())) return;
    int64_t got[4];
    for (int i = 0; i < 3; i++) got[i] = ag_generator_random_int64(NULL);
    ag_generator_manual_seed(g, (uint64_t)got[2]);
    got[3] = ag_generator_random_int64(g);
    for (int i = 0; i < 4; i++)
        CHECK(got[i] == seq_int64[i], "int64 random_ %d: %lld, PyTorch %lld", i,
              (long long)got[i], (long long)seq_int64[i]);
    size_t at = 0;
    ag_seed(0);
    ag_generator_manual_seed(g, (uint64_t)ag_generator_random_int64(NULL));
    expect_values("sampler", tensor_randperm(10, g), seq_sampler_perm, &at);
    expect_values("sampler", tensor_rand(SHAPE(2), false), seq_sampler_perm, &at);
    ag_generator_free(g);
}

/* What PyTorch refuses, and what it allows at the edges. */
static void test_random_arguments(void) {
    int64_t before = live_tensors();
    Tensor *t = empty_of(4, AG_FLOAT64);
    CHECK(tensor_uniform_(t, 2, 1, NULL) == -1 && strstr(ag_error(), "from=2 > to=1"),
          "uniform_ from > to: %s", ag_error());
    CHECK(tensor_normal_(t, 0, -1, NULL) == -1 && strstr(ag_error(), "std >= 0.0"),
          "normal_ std < 0: %s", ag_error());
    CHECK(tensor_random_(t, 3, 3, NULL) == -1 && strstr(ag_error(), "from=3 >= to=3"),
          "random_ empty: %s", ag_error());
    CHECK(tensor_bernoulli_(t, 1.5, NULL) == -1, "bernoulli_ p > 1");
    CHECK(tensor_exponential_(t, 0, NULL) == -1, "exponential_ lambda 0");
    CHECK(tensor_randperm(-1, NULL) == NULL, "randperm -1");
    Tensor *empty = tensor_randperm(0, NULL);
    CHECK(empty && empty->numel == 0, "randperm(0) is empty");
    tensor_release(empty);
    /* A tensor that requires grad is not filled in place with grad mode on
     * (PyTorch's message); under no_grad it is (nn.init), and its version
     * moves. */
    tensor_set_requires_grad(t, true);
    CHECK(tensor_normal_(t, 0, 1, NULL) == -1 && strstr(ag_error(), "a leaf Variable that "
          "requires grad is being used in an in-place operation."),
          "fill of a tensor that requires grad: %s", ag_error());
    uint32_t version = tensor_version(t);
    bool was = ag_set_grad_enabled(false);
    CHECK(tensor_uniform_(t, -1, 1, NULL) == 0 && tensor_version(t) == version + 1,
          "under no_grad it is filled, and its version moves");
    ag_set_grad_enabled(was);
    tensor_release(t);
    Tensor *r = tensor_randn(SHAPE(2, 3), true);
    CHECK(r && r->requires_grad && tensor_is_leaf(r), "randn(requires_grad) is a leaf");
    tensor_release(r);

    Tensor *p = tensor_zeros(SHAPE(3), false);
    CHECK(tensor_multinomial(p, 1, true, NULL) == NULL && strstr(ag_error(), "sum of prob"),
          "multinomial of zeros: %s", ag_error());
    tensor_values(p)[1] = -1;
    CHECK(tensor_multinomial(p, 1, true, NULL) == NULL && strstr(ag_error(), "element < 0"),
          "multinomial of a negative: %s", ag_error());
    tensor_values(p)[1] = 1;
    CHECK(tensor_multinomial(p, 4, false, NULL) == NULL && strstr(ag_error(), "without"),
          "multinomial: more than the categories without replacement: %s", ag_error());
    CHECK(tensor_multinomial(p, 0, true, NULL) == NULL, "multinomial of 0 samples");
    tensor_release(p);
    CHECK(live_tensors() == before, "random arguments: nothing leaked");
}

/* What each dtype refuses: the continuous samplers have no integral
 * kernels, and random_'s bounds must fit an int32 or a bool (PyTorch's
 * messages); a float32 randint moves bounds it cannot hold inward. */
static void test_random_dtypes(void) {
    int64_t before = live_tensors();
    Tensor *l = empty_of(3, AG_INT64), *i = empty_of(3, AG_INT32), *b = empty_of(3, AG_BOOL);
    CHECK(tensor_uniform_(l, 0, 1, NULL) == -1 &&
          strstr(ag_error(), "\"check_uniform_bounds\" not implemented for 'Long'"),
          "uniform_ of int64: %s", ag_error());
    CHECK(tensor_normal_(i, 0, 1, NULL) == -1 &&
          strstr(ag_error(), "\"normal_kernel_cpu\" not implemented for 'Int'"),
          "normal_ of int32: %s", ag_error());
    CHECK(tensor_exponential_(b, 1, NULL) == -1 &&
          strstr(ag_error(), "\"exponential_cpu\" not implemented for 'Bool'"),
          "exponential_ of bool: %s", ag_error());
    CHECK(tensor_random_(i, 0, INT64_C(1) << 40, NULL) == -1 &&
          strstr(ag_error(), "to - 1 is out of bounds for int"), "int32 to: %s", ag_error());
    CHECK(tensor_random_(i, -(INT64_C(1) << 40), 2, NULL) == -1 &&
          strstr(ag_error(), "from is out of bounds for int"), "int32 from: %s", ag_error());
    CHECK(tensor_random_(b, 0, 3, NULL) == -1 &&
          strstr(ag_error(), "to - 1 is out of bounds for bool"), "bool to: %s", ag_error());
    /* int32's whole range takes one 32-bit draw each: torch.int32's
     * random_(-2**31, 2**31) and torch.bool's random_(0, 2) after
     * manual_seed(0). */
    ag_seed(0);
    int status = tensor_random_(i, INT32_MIN, INT64_C(1) << 31, NULL);
    CHECK(status == 0 && tensor_values(i)[0] == 209652396 && tensor_values(i)[1] == 398764591 &&
          tensor_values(i)[2] == 924231285, "int32 random_ over its range: %.17g %.17g %.17g",
          tensor_values(i)[0], tensor_values(i)[1], tensor_values(i)[2]);
    ag_seed(0);
    status = tensor_random_(b, 0, 2, NULL);
    CHECK(status == 0 && tensor_values(b)[0] == 0 && tensor_values(b)[1] == 1 && tensor_values(b)[2] == 1,
          "bool random_(0, 2): %g %g %g", tensor_values(b)[0], tensor_values(b)[1], tensor_values(b)[2]);
    CHECK(tensor_bernoulli_(l, 0.5, NULL) == 0 && l->dtype == AG_INT64, "bernoulli_ of int64");
    CHECK(tensor_bernoulli(l, NULL) == NULL &&
          strstr(ag_error(), "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'"),
          "bernoulli of an int64 p: %s", ag_error());
    tensor_release(l);
    tensor_release(i);
    tensor_release(b);
    CHECK(live_tensors() == before, "random dtypes: nothing leaked");
}

void test_random(void) {
    test_random_cases();
    test_random_sequences();
    test_random_f32_cache();
    test_random_int64();
    test_random_arguments();
    test_random_dtypes();
    ag_seed(1234); /* the stream the later groups expect */
}
