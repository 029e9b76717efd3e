/*
 * random.c — random numbers: PyTorch's CPU generator (an mt19937 seeded as
 * torch.manual_seed seeds it) and its samplers, so that the same seed gives
 * PyTorch's numbers bit for bit, for float64, float32 and the integer
 * types (a fill draws for the tensor's dtype). Each sampler follows ATen 1.13's
 * CPU kernel (CPUGeneratorImpl.cpp, DistributionsHelper.h,
 * DistributionTemplates.h, DistributionKernels.cpp, MultinomialKernel.cpp,
 * Distributions.cpp, TensorFactories.cpp's randperm): which draws it takes,
 * in which order, and with which roundings (PyTorch's build fuses the
 * multiply-adds that are written as fma here; ag builds with
 * -ffp-contract=off, so every fusion is spelled out).
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MT_N = 624, MT_M = 397 };

struct AgGenerator {
    uint32_t state[MT_N];
    uint32_t out[MT_N];  /* the state tempered: the next MT_N draws */
    int next;            /* the next draw's index in out; MT_N: twist first */
    uint64_t seed;       /* as given, for initial_seed() */
    bool has_normal;     /* the cached second value of Box-Muller */
    double normal;
};

/* torch.Generator()'s seed (c10's default_rng_seed_val). */
#define AG_TORCH_DEFAULT_SEED UINT64_C(67280421310721)

/* 2 pi as ATen computes it (2.0 * c10::pi<double>: doubling is exact). */
#define TWO_PI 6.283185307179586

/* ======================================================================
 * The engine: mt19937 (Matsumoto and Nishimura), as ATen's
 * ====================================================================== */

static void mt_seed(AgGenerator *g, uint64_t seed) {
    g->state[0] = (uint32_t)seed; /* PyTorch seeds mt19937 with seed mod 2^32 */
    for (uint32_t i = 1; i < MT_N; i++)
        g->state[i] = 1812433253u * (g->state[i - 1] ^ (g->state[i - 1] >> 30)) + i;
    g->next = MT_N;
    g->seed = seed;
    g->has_normal = false; /* manual_seed clears the cached normal */
}

static uint32_t mt_mix(uint32_t upper, uint32_t lower, uint32_t far) {
    uint32_t y = (upper & 0x80000000u) | (lower & 0x7fffffffu);
    return far ^ (y >> 1) ^ ((0u - (y & 1u)) & 0x9908b0dfu);
}

/* All 624 words at once, in three loops without a modulo (they vectorise). */
static void mt_twist(uint32_t *s) {
    int i = 0;
    for (; i < MT_N - MT_M; i++) s[i] = mt_mix(s[i], s[i + 1], s[i + MT_M]);
    for (; i < MT_N - 1; i++) s[i] = mt_mix(s[i], s[i + 1], s[i + MT_M - MT_N]);
    s[MT_N - 1] = mt_mix(s[MT_N - 1], s[0], s[MT_M - 1]);
}

/* Twists and tempers the whole state at once: both loops vectorise, which
 * makes a large rand as fast as with ag's earlier xoshiro stream. */
static void mt_refill(AgGenerator *g) {
    mt_twist(g->state);
    for (int i = 0; i < MT_N; i++) {
        uint32_t y = g->state[i];
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680u;
        y ^= (y << 15) & 0xefc60000u;
        g->out[i] = y ^ (y >> 18);
    }
    g->next = 0;
}

static inline uint32_t mt_draw(AgGenerator *g) {
    if (g->next >= MT_N) mt_refill(g);
    return g->out[g->next++];
}

/* The default generator, one per thread; a new thread's starts at seed 0
 * (PyTorch's starts from a nondeterministic seed: ag keeps runs repeatable). */
static _Thread_local AgGenerator default_generator;
static _Thread_local bool default_seeded;

static AgGenerator *generator_or_default(AgGenerator *g) {
    if (g) return g;
    if (!default_seeded) {
        mt_seed(&default_generator, 0);
        default_seeded = true;
    }
    return &default_generator;
}

AgGenerator *ag_generator_new(void) {
    AgGenerator *g = malloc(sizeof *g);
    if (!g) return ag_fail("out of memory for a generator");
    mt_seed(g, AG_TORCH_DEFAULT_SEED);
    return g;
}

void ag_generator_free(AgGenerator *g) { free(g); }

void ag_generator_manual_seed(AgGenerator *g, uint64_t seed) {
    if (!g) default_seeded = true;
    mt_seed(g ? g : &default_generator, seed);
}

uint64_t ag_generator_initial_seed(AgGenerator *g) { return generator_or_default(g)->seed; }

void ag_seed(uint64_t seed) { ag_generator_manual_seed(NULL, seed); }

uint32_t ag_generator_random(AgGenerator *g) { return mt_draw(generator_or_default(g)); }

/* Two draws, the first as the high half (ATen's random64). */
static inline uint64_t mt_draw64(AgGenerator *g) {
    uint64_t hi = mt_draw(g);
    return hi << 32 | mt_draw(g);
}

uint64_t ag_generator_random64(AgGenerator *g) { return mt_draw64(generator_or_default(g)); }

/* int64's random_() without bounds (uniform_int_distribution<int64_t>):
 * random64 mod 2^63, the seed DataLoader and RandomSampler draw. */
int64_t ag_generator_random_int64(AgGenerator *g) {
    return (int64_t)(mt_draw64(generator_or_default(g)) % (UINT64_C(1) << 63));
}

/* ======================================================================
 * Samplers (g resolved: never NULL)
 * ====================================================================== */

/* float64's uniform_real_distribution(0, 1): the low 53 bits of random64. */
static inline double uniform01(AgGenerator *g) {
    return (double)(mt_draw64(g) & ((UINT64_C(1) << 53) - 1)) * 0x1.0p-53;
}

/* n uniforms into d, as n calls of uniform01: whole pairs straight from the
 * tempered block, in a loop that vectorises. */
static void uniform_fill(double *d, int64_t n, AgGenerator *g) {
    int64_t i = 0;
    while (i < n) {
        if (MT_N - g->next < 2) { /* a pair across two blocks (after an odd draw) */
            d[i++] = uniform01(g);
            continue;
        }
        int64_t pairs = (MT_N - g->next) / 2;
        if (pairs > n - i) pairs = n - i;
        const uint32_t *w = g->out + g->next;
        for (int64_t k = 0; k < pairs; k++) {
            uint64_t bits = (uint64_t)(w[2 * k] & 0x1fffffu) << 32 | w[2 * k + 1];
            d[i + k] = (double)bits * 0x1.0p-53;
        }
        g->next += (int)(2 * pairs);
        i += pairs;
    }
}

/* normal_distribution<double>: Box-Muller, the sine kept for the next call. */
static double standard_normal(AgGenerator *g) {
    if (g->has_normal) {
        g->has_normal = false;
        return g->normal;
    }
    double u1 = uniform01(g), u2 = uniform01(g);
    double r = sqrt(-2.0 * log(1.0 - u2)), theta = TWO_PI * u1;
    g->normal = r * sin(theta);
    g->has_normal = true;
    return r * cos(theta);
}

/* normal_fill_16: pairs (j, j + 8) of uniforms into two normals each. */
static void normal_fill_16(double *d, double mean, double std) {
    for (int j = 0; j < 8; j++) {
        double r = sqrt(-2.0 * log(1.0 - d[j])), theta = TWO_PI * d[j + 8];
        d[j] = fma(r * cos(theta), std, mean);
        d[j + 8] = fma(r * sin(theta), std, mean);
    }
}

/* 16 or more elements: every uniform first, then blocks of 16; a tail is
 * redrawn over the last 16 (overwriting normals already made), as ATen's
 * normal_fill. The cached normal is neither used nor touched. */
static void normal_fill(double *d, int64_t n, double mean, double std, AgGenerator *g) {
    uniform_fill(d, n, g);
    for (int64_t i = 0; i + 16 <= n; i += 16) normal_fill_16(d + i, mean, std);
    if (n % 16) {
        double *tail = d + n - 16;
        uniform_fill(tail, 16, g);
        normal_fill_16(tail, mean, std);
    }
}

/* ======================================================================
 * float32 samplers
 * ====================================================================== */

/* float32's uniform_real_distribution(0, 1): the low 24 bits of one draw. */
static inline float uniform01_f32(AgGenerator *g) {
    return (float)(mt_draw(g) & 0xffffffu) * 0x1.0p-24f;
}

/* n float32 uniforms on [from, to), as doubles: fmaf(u, to - from, from)
 * in float, as ATen's float kernel (its multiply-add fused by its build). */
static void uniform_fill_f32(double *d, int64_t n, float from, float to, AgGenerator *g) {
    float span = to - from;
    for (int64_t i = 0; i < n; i++) d[i] = fmaf(uniform01_f32(g), span, from);
}

static inline uint32_t float_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline float bits_float(uint32_t u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The float32 normal of 16 or more elements is ATen's normal_fill_16_AVX2
 * (Debian's PyTorch runs its AVX2 kernels), whose log and sincos are
 * avx_mathfun.h's cephes approximations, not libm's. These are scalar
 * ports, one float operation for each vector one, in the same order.
 * PyTorch's build (GCC, -ffp-contract=fast, -mfma) fuses every multiply
 * whose one use is an add or subtract, and where both operands of an add
 * are products, the earlier multiply: those fusions are spelled out as
 * fmaf (tests/engine/random_cases.h checks the bits). They cover what the
 * normal gives them: log of (0, 1] and sincos of [0, 2 pi), so the vector
 * code's NaN and denormal masks are left out. Constants are double
 * literals rounded to float, as the header's tables are. */
static float cephes_logf(float x) {
    int32_t exponent = (int32_t)(float_bits(x) >> 23) - 0x7f;
    x = bits_float((float_bits(x) & ~0x7f800000u) | float_bits(0.5f)); /* [0.5, 1) */
    float e = (float)exponent + 1.0f;
    bool low = x < (float)0.707106781186547524; /* then x + x - 1, e - 1 */
    float tmp = low ? x : 0.0f;
    x = x - 1.0f;
    e = e - (low ? 1.0f : 0.0f);
    x = x + tmp;
    float z = x * x;
    static const double p[9] = {7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                                -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                                2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1};
    float y = (float)p[0];
    for (int k = 1; k < 9; k++) y = fmaf(y, x, (float)p[k]);
    y = y * x;
    y = fmaf(y, z, e * (float)-2.12194440e-4); /* y * z, the earlier product, fused */
    y = fmaf(-z, 0.5f, y);
    x = x + y;
    return fmaf(e, (float)0.693359375, x);
}

/* sincos256_ps for one x >= 0: the octant j, x reduced by j pi/4 in three
 * parts, a polynomial for each of sin and cos, swapped and signed by j. */
static void cephes_sincosf(float x, float *sine, float *cosine) {
    int32_t j = (int32_t)(x * (float)1.27323954473516); /* 4 / pi */
    j = (j + 1) & ~1;
    float y = (float)j;
    uint32_t sign_sin = (uint32_t)(j & 4) << 29;
    uint32_t sign_cos = (uint32_t)(~(j - 2) & 4) << 29;
    bool sin_poly = (j & 2) == 0; /* the sine from the sine polynomial */
    x = fmaf(y, (float)-0.78515625, x);
    x = fmaf(y, (float)-2.4187564849853515625e-4, x);
    x = fmaf(y, (float)-3.77489497744594108e-8, x);
    float z = x * x;
    float yc = fmaf((float)2.443315711809948E-005, z, (float)-1.388731625493765E-003);
    yc = fmaf(yc, z, (float)4.166664568298827E-002);
    yc = yc * z;
    yc = fmaf(yc, z, -(z * 0.5f)); /* y * z, the earlier product, fused */
    yc = yc + 1.0f;
    float ys = fmaf((float)-1.9515295891E-4, z, (float)8.3321608736E-3);
    ys = fmaf(ys, z, (float)-1.6666654611E-1);
    ys = ys * z;
    ys = fmaf(ys, x, x);
    float sin_part = sin_poly ? ys : 0.0f, cos_part = sin_poly ? 0.0f : yc;
    ys = ys - sin_part;
    yc = yc - cos_part;
    *sine = bits_float(float_bits(cos_part + sin_part) ^ sign_sin);
    *cosine = bits_float(float_bits(yc + ys) ^ sign_cos);
}

/* normal_fill_16_AVX2: as normal_fill_16, in float with the ports above. */
static void normal_fill_16_f32(double *d, float mean, float std) {
    const float two_pi = (float)TWO_PI;
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - (float)d[j], u2 = (float)d[j + 8], s, c;
        float r = sqrtf(-2.0f * cephes_logf(u1));
        cephes_sincosf(two_pi * u2, &s, &c);
        d[j] = fmaf(r * c, std, mean);
        d[j + 8] = fmaf(r * s, std, mean);
    }
}

/* normal_fill_AVX2: as normal_fill, with float32 uniforms. */
static void normal_fill_f32(double *d, int64_t n, float mean, float std, AgGenerator *g) {
    uniform_fill_f32(d, n, 0.0f, 1.0f, g);
    for (int64_t i = 0; i + 16 <= n; i += 16) normal_fill_16_f32(d + i, mean, std);
    if (n % 16) {
        double *tail = d + n - 16;
        uniform_fill_f32(tail, 16, 0.0f, 1.0f, g);
        normal_fill_16_f32(tail, mean, std);
    }
}

/* ======================================================================
 * In-place fills
 * ====================================================================== */

/* An in-place fill may not write a tensor that requires grad while grad
 * mode is on (PyTorch's "a leaf Variable that requires grad is being used
 * in an in-place operation"; nn.init fills parameters under no_grad). */
static bool fillable(const Tensor *t, const char *op) {
    if (!t) return ag_fail("%s: tensor is NULL", op), false;
    if (t->requires_grad && ag_is_grad_enabled())
        return ag_fail("a leaf Variable that requires grad is being used in an in-place "
                       "operation."), false;
    return ag_copy_write_allowed(t) == 0;
}

/* ATen's name of an integral dtype in "not implemented for" messages. */
static const char *aten_type_name(AgDtype dtype) {
    return dtype == AG_INT64 ? "Long" : dtype == AG_INT32 ? "Int" : "Bool";
}

/* The continuous samplers (and bernoulli's p) have no integral kernels:
 * PyTorch's message, which names the kernel that refused. */
static bool floating_kernel(const Tensor *t, const char *kernel) {
    if (ag_dtype_is_floating((AgDtype)t->dtype)) return true;
    return ag_fail("\"%s\" not implemented for '%s'", kernel, aten_type_name((AgDtype)t->dtype)),
           false;
}

int tensor_uniform_(Tensor *t, double from, double to, AgGenerator *g) {
    if (!fillable(t, "uniform_") || !floating_kernel(t, "check_uniform_bounds")) return -1;
    if (!(from <= to))
        return ag_fail("uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                       from, to), -1;
    g = generator_or_default(g);
    if (t->dtype == AG_FLOAT32) {
        uniform_fill_f32(tensor_values(t), t->numel, (float)from, (float)to, g);
        ag_bump_version(t);
        return 0;
    }
    double *v = tensor_values(t);
    uniform_fill(v, t->numel, g);
    double span = to - from;
    if (from != 0.0 || to != 1.0) /* fma(u, 1, 0) is u */
        for (int64_t i = 0; i < t->numel; i++) v[i] = fma(v[i], span, from);
    ag_bump_version(t);
    return 0;
}

/* Below 16 elements both float types take float64 Box-Muller (and share
 * its cached sine), float32 rounding each value; from 16, float32 has a
 * path of its own. */
int tensor_normal_(Tensor *t, double mean, double std, AgGenerator *g) {
    if (!fillable(t, "normal_") || !floating_kernel(t, "normal_kernel_cpu")) return -1;
    if (!(std >= 0.0)) return ag_fail("normal expects std >= 0.0, but found std %g", std), -1;
    g = generator_or_default(g);
    bool f32 = t->dtype == AG_FLOAT32;
    if (t->numel >= 16 && f32)
        normal_fill_f32(tensor_values(t), t->numel, (float)mean, (float)std, g);
    else if (t->numel >= 16)
        normal_fill(tensor_values(t), t->numel, mean, std, g);
    else
        for (int64_t i = 0; i < t->numel; i++) {
            double z = fma(standard_normal(g), std, mean);
            tensor_values(t)[i] = f32 ? (double)(float)z : z;
        }
    ag_bump_version(t);
    return 0;
}

/* v rounded to a float type's precision and back (static_cast<float> or
 * <double> of an int64, then to int64); 2^63, past int64, gives INT64_MIN
 * as x86's conversion does. */
static int64_t through_float(int64_t v, AgDtype dtype) {
    double r = dtype == AG_FLOAT32 ? (double)(float)v : (double)v;
    return r >= 0x1.0p63 ? INT64_MIN : (int64_t)r;
}

/* The position of |v|'s highest bit (the loop ATen's update_from runs). */
static int highest_bit(int64_t v) {
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int n = 0;
    while (u >>= 1) n++;
    return n;
}

/* ATen's update_from and update_to: for a float type, from and to move
 * inward until no integer drawn in [from, to) rounds onto to. */
static void float_bounds(AgDtype dtype, int64_t *low, int64_t *high) {
    int digits = dtype == AG_FLOAT32 ? 24 : 53;
    int64_t from_plus_1 = through_float(*low + 1, dtype);
    if (from_plus_1 < *low)
        *low = from_plus_1 + (INT64_C(1) << (highest_bit(*low + 1) - digits + 1));
    int64_t to_minus_1 = through_float(*high - 1, dtype);
    if (to_minus_1 >= *high)
        *high = to_minus_1 - (INT64_C(1) << (highest_bit(*high - 1) - digits + 1));
}

/* random_'s bounds for t's dtype: moved for a float type, refused past an
 * int32's or a bool's range (PyTorch's checks, in its order). */
static bool random_bounds(AgDtype dtype, int64_t *low, int64_t *high) {
    if (ag_dtype_is_floating(dtype)) {
        float_bounds(dtype, low, high);
        if (*low >= *high)
            return ag_fail("random_ expects 'from' casted to dtype to be less than 'to' casted "
                           "to dtype, but got from=%lld >= to=%lld", (long long)*low,
                           (long long)*high), false;
        return true;
    }
    if (dtype == AG_INT64) return true;
    int64_t min = dtype == AG_INT32 ? INT32_MIN : 0, max = dtype == AG_INT32 ? INT32_MAX : 1;
    const char *name = dtype == AG_INT32 ? "int" : "bool";
    if (*low < min || *low > max) return ag_fail("from is out of bounds for %s", name), false;
    if (*high - 1 < min || *high - 1 > max)
        return ag_fail("to - 1 is out of bounds for %s", name), false;
    return true;
}

/* A drawn integer as t's dtype holds it: ATen's static_cast (rounded once,
 * straight from int64, for float32). */
static double random_value(int64_t v, AgDtype dtype) {
    switch (dtype) {
    case AG_FLOAT32: return (double)(float)v;
    case AG_INT32: return (double)(int32_t)v;
    case AG_BOOL: return v != 0;
    default: return (double)v;
    }
}

int tensor_random_(Tensor *t, int64_t low, int64_t high, AgGenerator *g) {
    if (!fillable(t, "random_")) return -1;
    if (low >= high)
        return ag_fail("random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                       (long long)low, (long long)high), -1;
    AgDtype dtype = (AgDtype)t->dtype;
    if (!random_bounds(dtype, &low, &high)) return -1;
    g = generator_or_default(g);
    uint64_t range = (uint64_t)high - (uint64_t)low;
    /* One 32-bit draw would not cover the range; int32 and bool always
     * take one (their ranges cannot need more). */
    bool wide = range >= UINT64_C(1) << 32 && dtype != AG_INT32 && dtype != AG_BOOL;
    for (int64_t i = 0; i < t->numel; i++) {
        uint64_t v = wide ? mt_draw64(g) : mt_draw(g);
        tensor_values(t)[i] = random_value((int64_t)(v % range + (uint64_t)low), dtype);
    }
    ag_bump_version(t);
    return 0;
}

/* Every dtype draws float64 uniforms (ATen's bernoulli_distribution<double>
 * for a number p); the 0s and 1s are every dtype's. */
int tensor_bernoulli_(Tensor *t, double p, AgGenerator *g) {
    if (!fillable(t, "bernoulli_")) return -1;
    if (!(p >= 0.0 && p <= 1.0))
        return ag_fail("bernoulli_ expects p to be in [0, 1], but got p=%g", p), -1;
    g = generator_or_default(g);
    for (int64_t i = 0; i < t->numel; i++) tensor_values(t)[i] = uniform01(g) < p ? 1.0 : 0.0;
    ag_bump_version(t);
    return 0;
}

/* float64's exponential for both float types, float32 rounding it. */
int tensor_exponential_(Tensor *t, double lambd, AgGenerator *g) {
    if (!fillable(t, "exponential_") || !floating_kernel(t, "exponential_cpu")) return -1;
    if (!(lambd > 0.0))
        return ag_fail("exponential_ expects lambda > 0.0, but found lambda=%g", lambd), -1;
    g = generator_or_default(g);
    bool f32 = t->dtype == AG_FLOAT32;
    for (int64_t i = 0; i < t->numel; i++) {
        double x = -1.0 / lambd * log(1.0 - uniform01(g));
        tensor_values(t)[i] = f32 ? (double)(float)x : x;
    }
    ag_bump_version(t);
    return 0;
}

/* ======================================================================
 * New tensors
 * ====================================================================== */

/* A new leaf of the default dtype (torch.rand's) filled by fill (default
 * generator), then marked as asked. */
static Tensor *filled(int ndim, const int64_t *shape, bool requires_grad,
                      int (*fill)(Tensor *, double, double, AgGenerator *), double a, double b) {
    Tensor *t = tensor_zeros(ndim, shape, false);
    if (t) t->dtype = (uint8_t)ag_default_dtype(); /* zeros are every type's */
    if (t && fill(t, a, b, NULL) != 0) {
        tensor_release(t);
        return NULL;
    }
    if (t) t->requires_grad = requires_grad;
    return t;
}

Tensor *tensor_rand(int ndim, const int64_t *shape, bool requires_grad) {
    return filled(ndim, shape, requires_grad, tensor_uniform_, 0.0, 1.0);
}

Tensor *tensor_randn(int ndim, const int64_t *shape, bool requires_grad) {
    return filled(ndim, shape, requires_grad, tensor_normal_, 0.0, 1.0);
}

/* torch.bernoulli(p): one uniform per element, compared with its p, in
 * p's dtype: ATen's bernoulli_distribution<float> for a float32 p, whose
 * uniforms are float32's. */
Tensor *tensor_bernoulli(const Tensor *p, AgGenerator *g) {
    if (!p) return ag_fail("bernoulli: tensor is NULL");
    if (!floating_kernel(p, "bernoulli_tensor_cpu_p_")) return NULL;
    for (int64_t i = 0; i < p->numel; i++)
        if (!(tensor_values(p)[i] >= 0.0 && tensor_values(p)[i] <= 1.0))
            return ag_fail("bernoulli: every probability must be in [0, 1], found %g",
                           tensor_values(p)[i]);
    Tensor *t = tensor_zeros(p->ndim, p->shape, false);
    if (!t) return NULL;
    t->dtype = p->dtype;
    g = generator_or_default(g);
    bool f32 = p->dtype == AG_FLOAT32;
    for (int64_t i = 0; i < p->numel; i++) {
        double u = f32 ? uniform01_f32(g) : uniform01(g);
        tensor_values(t)[i] = u < tensor_values(p)[i] ? 1.0 : 0.0;
    }
    return t;
}

/* randperm: 0..n-1 (int64, as PyTorch's), element i swapped with
 * i + random() % (n - i). */
Tensor *tensor_randperm(int64_t n, AgGenerator *g) {
    if (n < 0) return ag_fail("randperm: n must be non-negative, got %lld", (long long)n);
    Tensor *t = tensor_zeros(1, &n, false);
    if (!t) return NULL;
    t->dtype = AG_INT64;
    g = generator_or_default(g);
    double *d = tensor_values(t);
    for (int64_t i = 0; i < n; i++) d[i] = (double)i;
    for (int64_t i = 0; i < n - 1; i++) {
        int64_t z = (int64_t)(mt_draw(g) % (uint64_t)(n - i));
        double saved = d[i];
        d[i] = d[z + i];
        d[z + i] = saved;
    }
    return t;
}

/* x in the probabilities' type: a float32 row's sums and quotients are
 * float's (each operation in double, then rounded: exact for + and /). */
static inline double in_type(double x, bool f32) { return f32 ? (double)(float)x : x; }

/* With replacement: the row's cumulative sums over their total, the last
 * set to 1, and a binary search for each float64 uniform (ATen's
 * multinomial_with_replacement, the sums in p's type). cum has the row's
 * length. */
static void multinomial_row_replaced(const double *p, int64_t k, int64_t n, bool f32,
                                     double *cum, double *out, AgGenerator *g) {
    double sum = 0.0;
    for (int64_t j = 0; j < k; j++) cum[j] = sum = in_type(sum + p[j], f32);
    for (int64_t j = 0; j < k; j++) cum[j] = in_type(cum[j] / sum, f32);
    cum[k - 1] = 1.0;
    for (int64_t s = 0; s < n; s++) {
        double u = uniform01(g);
        int64_t left = 0, right = k;
        while (right - left > 0) {
            int64_t mid = left + (right - left) / 2;
            if (cum[mid] < u) left = mid + 1;
            else right = mid;
        }
        out[s] = (double)left;
    }
}

typedef struct {
    double key;
    int64_t index;
} Ranked;

/* Descending by key; equal keys by index (PyTorch leaves ties' order open). */
static int ranked_descending(const void *pa, const void *pb) {
    const Ranked *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? 1 : -1;
    return (a->index > b->index) - (a->index < b->index);
}

/* Checks every row as ATen does: finite, non-negative, a positive sum. */
static bool multinomial_valid(const Tensor *p, int64_t rows, int64_t k) {
    for (int64_t i = 0; i < p->numel; i++)
        if (!(tensor_values(p)[i] >= 0.0 && tensor_values(p)[i] < INFINITY))
            return ag_fail("multinomial: probability tensor contains either `inf`, `nan` or "
                           "element < 0"), false;
    for (int64_t r = 0; r < rows; r++) {
        double sum = 0.0;
        for (int64_t j = 0; j < k; j++) sum += tensor_values(p)[r * k + j];
        if (!(sum > 0.0))
            return ag_fail("multinomial: invalid multinomial distribution (sum of probabilities "
                           "<= 0)"), false;
    }
    return true;
}

Tensor *tensor_multinomial(const Tensor *p, int64_t n, bool replacement, AgGenerator *g) {
    if (!p) return ag_fail("multinomial: tensor is NULL");
    if (p->ndim != 1 && p->ndim != 2)
        return ag_fail("multinomial: prob_dist must be 1 or 2 dim, not %d", p->ndim);
    int64_t k = p->shape[p->ndim - 1], rows = p->ndim == 2 ? p->shape[0] : 1;
    if (k == 0) return ag_fail("multinomial: number of categories cannot be zero");
    if (n <= 0) return ag_fail("multinomial: cannot sample n_sample <= 0 samples");
    if (!replacement && n > k)
        return ag_fail("multinomial: cannot sample n_sample > prob_dist.size(-1) samples "
                       "without replacement");
    if (!multinomial_valid(p, rows, k)) return NULL;
    int64_t shape[2] = {rows, n};
    Tensor *t = p->ndim == 2 ? tensor_zeros(2, shape, false) : tensor_zeros(1, &n, false);
    if (!t) return NULL;
    t->dtype = AG_INT64; /* indices, as PyTorch's */
    g = generator_or_default(g);
    bool f32 = p->dtype == AG_FLOAT32;
    if (replacement) {
        double *cum = malloc((size_t)k * sizeof *cum);
        if (!cum) return tensor_release(t), ag_fail("multinomial: out of memory");
        for (int64_t r = 0; r < rows; r++)
            multinomial_row_replaced(tensor_values(p) + r * k, k, n, f32, cum, tensor_values(t) + r * n, g);
        free(cum);
        return t;
    }
    /* Without replacement: the top n of p / q, q ~ Exp(1) drawn for every
     * element first (ATen's exponential trick, Gumbel top-k), q and the
     * quotient in p's type. */
    Ranked *ranked = malloc((size_t)p->numel * sizeof *ranked);
    if (!ranked) return tensor_release(t), ag_fail("multinomial: out of memory");
    for (int64_t i = 0; i < p->numel; i++) {
        double q = in_type(-1.0 * log(1.0 - uniform01(g)), f32);
        ranked[i] = (Ranked){in_type(tensor_values(p)[i] / q, f32), i % k};
    }
    for (int64_t r = 0; r < rows; r++) {
        qsort(ranked + r * k, (size_t)k, sizeof *ranked, ranked_descending);
        for (int64_t s = 0; s < n; s++) tensor_values(t)[r * n + s] = (double)ranked[r * k + s].index;
    }
    free(ranked);
    return t;
}
