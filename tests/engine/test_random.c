/*
 * test_random.c — the random stream against PyTorch 1.13's, bit for bit:
 * every sampler at 20 seeds and sizes around randn's 16 (random_cases.h,
 * made by random_cases.py), sequences that check the cached normal and a
 * separate generator, and the arguments PyTorch refuses.
 */
#include "harness.h"

#include "random_cases.h"

/* FNV-1a over the values' 64-bit patterns, as random_cases.py's fnv. */
static uint64_t values_hash(const Tensor *t) {
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int64_t i = 0; i < t->numel; i++) {
        uint64_t bits;
        memcpy(&bits, &t->data[i], sizeof bits);
        h = (h ^ bits) * UINT64_C(0x100000001b3);
    }
    return h;
}

/* A constant tensor from the values f(i), i < n. */
static Tensor *vector_of(int64_t n, double (*f)(int64_t)) {
    Tensor *t = tensor_zeros(1, &n, false);
    for (int64_t i = 0; t && i < n; i++) t->data[i] = f(i);
    return t;
}

static double weight(int64_t i) { return (double)(i % 7 + 1) / 3; }
static double probability(int64_t i) { return (double)(i % 11) / 10; }

/* random_cases.py's rows(n): weights, weights reversed, ones. */
static Tensor *weight_rows(int64_t n) {
    Tensor *t = tensor_zeros(2, (int64_t[]){3, n}, false);
    for (int64_t i = 0; t && i < n; i++) {
        t->data[i] = weight(i);
        t->data[n + i] = weight(n - 1 - i);
        t->data[2 * n + i] = 1.0;
    }
    return t;
}

static Tensor *empty_of(int64_t n) { return tensor_zeros(1, &n, false); }

/* Fills a new n-vector with fill's status folded into the result. */
static Tensor *checked(Tensor *t, int status) {
    if (status == 0) return t;
    tensor_release(t);
    return NULL;
}

/* The tensor random_cases.py's SAMPLERS[sampler] makes from n. */
static Tensor *sample(int sampler, int64_t n) {
    Tensor *t = NULL, *p = NULL;
    switch (sampler) {
    case S_RAND: return tensor_rand(1, &n, false);
    case S_RANDN: return tensor_randn(1, &n, false);
    case S_NORMAL: t = empty_of(n); return checked(t, tensor_normal_(t, 1.5, 0.25, NULL));
    case S_UNIFORM: t = empty_of(n); return checked(t, tensor_uniform_(t, -2, 3, NULL));
    case S_RANDINT: t = empty_of(n); return checked(t, tensor_random_(t, -7, 50, NULL));
    case S_RANDINT_WIDE:
        t = empty_of(n);
        return checked(t, tensor_random_(t, -(INT64_C(1) << 40), INT64_C(1) << 40, NULL));
    case S_RANDPERM: return tensor_randperm(n, NULL);
    case S_BERNOULLI_P: t = empty_of(n); return checked(t, tensor_bernoulli_(t, 0.3, NULL));
    case S_BERNOULLI: p = vector_of(n, probability); t = tensor_bernoulli(p, NULL); break;
    case S_EXPONENTIAL: t = empty_of(n); return checked(t, tensor_exponential_(t, 1.5, NULL));
    case S_MULTINOMIAL: p = vector_of(n, weight); t = tensor_multinomial(p, 2 * n + 1, true, NULL); break;
    case S_MULTINOMIAL_NOREP:
        p = vector_of(n, weight);
        t = tensor_multinomial(p, (n + 1) / 2, false, NULL);
        break;
    case S_MULTINOMIAL_ROWS: p = weight_rows(n); t = tensor_multinomial(p, 3, true, NULL); break;
    case S_MULTINOMIAL_ROWS_NOREP:
        p = weight_rows(n);
        t = tensor_multinomial(p, n < 3 ? n : 3, false, NULL);
        break;
    }
    tensor_release(p);
    return t;
}

static void test_random_cases(void) {
    int failed = 0;
    enum { SHOWN = 10 }; /* a broken sampler fails every case: show the first few */
    for (size_t i = 0; i < sizeof random_cases / sizeof *random_cases; i++) {
        const RandomCase *k = &random_cases[i];
        ag_seed(k->seed);
        Tensor *t = sample(k->sampler, k->n);
        bool ok = t && values_hash(t) == k->hash;
        if (!ok && failed++ < SHOWN)
            CHECK(false, "random case %zu (seed %llu, sampler %d, n %lld): %s; first %.17g "
                  "(PyTorch %.17g), last %.17g (PyTorch %.17g)", i,
                  (unsigned long long)k->seed, k->sampler, (long long)k->n,
                  t ? "other values" : ag_error(), t ? t->data[0] : NAN, k->first,
                  t ? t->data[t->numel - 1] : NAN, k->last);
        tensor_release(t);
    }
    CHECK(failed == 0, "random cases: %d of %zu differ from PyTorch's", failed,
          sizeof random_cases / sizeof *random_cases);
}

/* got's values, in order, are want[*at ...]; *at moves past them. */
static void expect_values(const char *label, Tensor *got, const double *want, size_t *at) {
    if (!CHECK(got != NULL, "%s: %s", label, ag_error())) return;
    for (int64_t i = 0; i < got->numel; i++, (*at)++)
        CHECK(same_double(got->data[i], want[*at]), "%s[%zu]: %.17g, PyTorch %.17g", label, *at,
              got->data[i], want[*at]);
    tensor_release(got);
}

static Tensor *normal_of(int64_t n, double mean, double std, AgGenerator *g) {
    Tensor *t = empty_of(n);
    return checked(t, tensor_normal_(t, mean, std, g));
}

static Tensor *rand_of(int64_t n, AgGenerator *g) {
    Tensor *t = empty_of(n);
    return checked(t, tensor_uniform_(t, 0, 1, g));
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
    Tensor *t = empty_of(4);
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
    p->data[1] = -1;
    CHECK(tensor_multinomial(p, 1, true, NULL) == NULL && strstr(ag_error(), "element < 0"),
          "multinomial of a negative: %s", ag_error());
    p->data[1] = 1;
    CHECK(tensor_multinomial(p, 4, false, NULL) == NULL && strstr(ag_error(), "without"),
          "multinomial: more than the categories without replacement: %s", ag_error());
    CHECK(tensor_multinomial(p, 0, true, NULL) == NULL, "multinomial of 0 samples");
    tensor_release(p);
    CHECK(live_tensors() == before, "random arguments: nothing leaked");
}

void test_random(void) {
    test_random_cases();
    test_random_sequences();
    test_random_int64();
    test_random_arguments();
    ag_seed(1234); /* the stream the later groups expect */
}
