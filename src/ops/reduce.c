/*
 * reduce.c — the reductions that sum: sum, mean, var, std, norm and
 * logsumexp, over any set of dimensions (PyTorch's dim: one, a tuple of
 * them, or None for all), with keepdim. max, min, argmax and argmin, which
 * pick an element, are in extreme.c.
 *
 * One view serves them all (Groups, below): x's dimensions with the size-1
 * ones dropped and neighbours of one kind merged, so that reducing
 * (2, 3, 4, 5) over dims (1, 2) is reducing (2, [12], 5) over the middle:
 * PyTorch's outer/n/inner, generalised to alternating kept and reduced
 * groups ((2, [3], 4, [5]) over dims (1, 3)). Forward sums in PyTorch's
 * order (sum_groups) and takes extremes one group at a time, and every
 * element-wise step (x - mean, exp(x - max), the backward formulas) walks
 * x's rows with the output's value beside each (for_rows). No permuted
 * copies, no per-element function pointers; the loops run along
 * contiguous rows.
 *
 * Backward spreads g over the reduced dimensions in x's own shape, so the
 * gradient is already in the input's shape: nothing for
 * ag_accumulate_grad to reduce. No loop visits the lanes of a tensor
 * without elements (a (10^18, 0) tensor has 10^18 of them).
 */
#include "elementwise.h"

#include <math.h>
#include <string.h>

#if defined(__GNUC__)
#define ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define ALWAYS_INLINE inline
#endif

/* ======================================================================
 * Summation in PyTorch 1.13's order, for PyTorch's bits: its CPU kernel
 * (cascade_sum, aten/src/ATen/native/cpu/SumKernel.cpp) as built for AVX2,
 * vectors of VEC = 4 doubles, its dims ordered as TensorIterator orders
 * them (reduced dims first, innermost first). Two orders make it up:
 *
 * - cascade: one accumulator per lane, added into a second level every
 *   2^p values (p = max(4, ceil(log2(n)) / 4)), the second into a third
 *   every 2^2p, the third into a fourth every 2^3p; the levels added
 *   together at the end. The error grows like n^(1/4), not n.
 * - row_sum: four interleaved cascades (value i into accumulator i % 4),
 *   the values after the last full four added to the first, then the four
 *   added in order.
 *
 * A contiguous sum of n >= 4 values is a row_sum of n / 4 vectors (one
 * per lane), then the values after the last full vector summed from +0,
 * then the four lanes added to that in order: the six values of
 * [0.9, 0.55, 0.5, 0.8, 0.4, 0.6] * 4.5 sum as ((x4 + x5) + x0) + ... + x3.
 * Every sum starts from +0, so a sum of -0s is +0, as in PyTorch.
 * ====================================================================== */

enum {
    VEC = 4,       /* doubles in PyTorch's AVX2 vector */
    VEC32 = 8,     /* floats in it: a float32 sum's vector */
    ILP = 4,       /* row_sum's interleaved accumulators */
    LEVELS = 4,    /* cascade's levels */
    LANES = 32,    /* accumulators of one cascade: ILP rows of up to VEC32 columns */
};

/* A float32 sum is the same order over vectors of VEC32 floats, every
 * addition rounded to float (PyTorch accumulates float in float: its
 * opmath type). Adding in double and rounding to float gives float's own
 * sum: double holds more than twice float's digits, so the two roundings
 * never differ from one. f32 is a constant wherever these inline, so the
 * float64 path compiles as before. */
#define ROUNDED(f32, v) ((f32) ? (double)(float)(v) : (v))

/* ceil(log2(x)), 1 for x <= 2 (ATen's CeilLog2). */
static int ceil_log2(int64_t x) {
    if (x <= 2) return 1;
    int b = 0;
    for (uint64_t v = (uint64_t)x - 1; v; v >>= 1) b++;
    return b;
}

/* The cascade's loop over rows [i, size) from the state acc (LEVELS x
 * LANES), the level-0 chunks 2^power rows; returns with acc updated. */
static ALWAYS_INLINE void cascade_rows(const double *x, int64_t i, int64_t size, int power,
                                       int64_t rs, int64_t sa, int nb, double acc[][LANES],
                                       bool f32) {
    int64_t step = (int64_t)1 << power, mask = step - 1;
    while (i + step <= size) {
        for (int64_t end = i + step; i < end; i++)
            for (int a = 0; a < ILP; a++)
                for (int b = 0; b < nb; b++)
                    acc[0][a * nb + b] = ROUNDED(f32, acc[0][a * nb + b] + x[i * rs + a * sa + b]);
        for (int j = 1; j < LEVELS; j++) {
            for (int k = 0; k < ILP * nb; k++) {
                acc[j][k] = ROUNDED(f32, acc[j][k] + acc[j - 1][k]);
                acc[j - 1][k] = 0.0;
            }
            if (i & (mask << (j * power))) break;
        }
    }
    for (; i < size; i++)
        for (int a = 0; a < ILP; a++)
            for (int b = 0; b < nb; b++)
                acc[0][a * nb + b] = ROUNDED(f32, acc[0][a * nb + b] + x[i * rs + a * sa + b]);
}

/* ---- the cascade on threads, the same bits ----
 * After a multiple of 2^(3 power) rows (a top block) the cascade holds
 * nothing below its last level, and what each top block added there was
 * summed from zero within the block: so the blocks' values are computed
 * apart, on any thread, and added to the last level in order, and the
 * rows after the last whole block continue the loop as before. The
 * blocks are the cascade's own, whatever the thread count. */
typedef struct {
    const double *x;
    int64_t top, rs, sa;
    int power, nb;
    bool f32;
    double *values; /* per top block, ILP * nb lanes */
} CascadeJob;

static void cascade_block_range(void *ctx, int64_t begin, int64_t end) {
    const CascadeJob *j = ctx;
    for (int64_t k = begin; k < end; k++) {
        double acc[LEVELS][LANES] = {{0}};
        const double *x = j->x + k * j->top * j->rs;
        if (j->f32) cascade_rows(x, 0, j->top, j->power, j->rs, j->sa, j->nb, acc, true);
        else if (j->nb == VEC) cascade_rows(x, 0, j->top, j->power, j->rs, j->sa, VEC, acc, false);
        else cascade_rows(x, 0, j->top, j->power, j->rs, j->sa, j->nb, acc, false);
        memcpy(j->values + k * ILP * j->nb, acc[LEVELS - 1], (size_t)(ILP * j->nb) * sizeof(double));
    }
}

/* The whole top blocks of the cascade over size rows, on threads, into
 * acc's last level; the rows they cover (0 when not worth it, or when the
 * blocks' values cannot be allocated: the loop then does it all). */
static int64_t cascade_top_blocks(const double *x, int64_t size, int power, int64_t rs,
                                  int64_t sa, int nb, double acc[][LANES], bool f32) {
    int64_t top = (int64_t)1 << (3 * power), blocks = power < 20 ? size / top : 0;
    if (blocks < 2 || !ag_parallel_worth(blocks * top * ILP * nb, AG_GRAIN_COPY)) return 0;
    double *values = malloc((size_t)(blocks * ILP * nb) * sizeof *values);
    if (!values) return 0;
    CascadeJob job = {x, top, rs, sa, power, nb, f32, values};
    int64_t grain = AG_GRAIN_COPY / (top * ILP * nb);
    ag_parallel_for(blocks, grain < 1 ? 1 : grain, cascade_block_range, &job);
    for (int64_t k = 0; k < blocks; k++)
        for (int l = 0; l < ILP * nb; l++)
            acc[LEVELS - 1][l] = ROUNDED(f32, acc[LEVELS - 1][l] + values[k * ILP * nb + l]);
    free(values);
    return blocks * top;
}

/* PyTorch's multi_row_sum: sum[a * nb + b] = the cascade over i < size of
 * x[i * rs + a * sa + b], for a < ILP and b < nb (nb = 1 or the vector). */
static ALWAYS_INLINE void cascade(const double *x, int64_t size, int64_t rs, int64_t sa,
                                  int nb, double *sum, bool f32) {
    int power = ceil_log2(size) / LEVELS;
    if (power < 4) power = 4;
    double acc[LEVELS][LANES] = {{0}};
    int64_t i = cascade_top_blocks(x, size, power, rs, sa, nb, acc, f32);
    cascade_rows(x, i, size, power, rs, sa, nb, acc, f32);
    for (int j = 1; j < LEVELS; j++)
        for (int k = 0; k < ILP * nb; k++) acc[0][k] = ROUNDED(f32, acc[0][k] + acc[j][k]);
    memcpy(sum, acc[0], (size_t)(ILP * nb) * sizeof *sum);
}

/* PyTorch's row_sum of nb adjacent columns (nb = 1 or the vector): out[b] =
 * the sum over i < n of x[i * s + b]. */
static ALWAYS_INLINE void row_sum(const double *x, int64_t n, int64_t s, int nb, double *out,
                                  bool f32) {
    double p[LANES];
    int64_t rows = n / ILP;
    cascade(x, rows, ILP * s, s, nb, p, f32);
    for (int64_t i = rows * ILP; i < n; i++)
        for (int b = 0; b < nb; b++) p[b] = ROUNDED(f32, p[b] + x[i * s + b]);
    for (int a = 1; a < ILP; a++)
        for (int b = 0; b < nb; b++) p[b] = ROUNDED(f32, p[b] + p[a * nb + b]);
    memcpy(out, p, (size_t)nb * sizeof *out);
}

/* A reduction along one dimension, PyTorch's inner sum: contiguous values
 * in vectors (n >= the vector's size), else the scalar row_sum. */
static ALWAYS_INLINE double inner_sum(const double *x, int64_t n, int64_t stride, bool f32) {
    const int vec = f32 ? VEC32 : VEC;
    double lanes[VEC32], total = 0.0;
    if (stride != 1 || n < vec) {
        row_sum(x, n, stride, 1, &total, f32);
        return total;
    }
    int64_t vectors = n / vec;
    row_sum(x, vectors, vec, vec, lanes, f32);
    for (int64_t i = vectors * vec; i < n; i++) total = ROUNDED(f32, total + x[i]);
    for (int b = 0; b < vec; b++) total = ROUNDED(f32, total + lanes[b]);
    return total;
}

double ag_sum(const double *x, int64_t n, int64_t stride) { return inner_sum(x, n, stride, false); }

double ag_sum_f32(const double *x, int64_t n, int64_t stride) {
    return inner_sum(x, n, stride, true);
}

/* dst[i] = the sum over k < n of x[k * len + i], for i < len: PyTorch's
 * outer sum (the reduced dimension outside the contiguous kept one), one
 * cascade per column in blocks of 4 vectors, then row_sums. */
static ALWAYS_INLINE void outer_sum(const double *x, int64_t n, int64_t len, double *dst,
                                    bool f32) {
    const int vec = f32 ? VEC32 : VEC;
    int64_t i = 0;
    if (len >= vec)
        for (; i + ILP * vec <= len; i += ILP * vec) cascade(x + i, n, len, vec, vec, dst + i, f32);
    for (; i + vec <= len; i += vec) row_sum(x + i, n, len, vec, dst + i, f32);
    for (; i < len; i++) row_sum(x + i, n, len, 1, dst + i, f32);
}

static void sum_columns(const double *x, int64_t n, int64_t len, double *dst, bool f32) {
    if (f32) outer_sum(x, n, len, dst, true);
    else outer_sum(x, n, len, dst, false);
}

/* One reduced group's sum of n at stride, in x's dtype's order. */
static double sum_of(const double *x, int64_t n, int64_t stride, bool f32) {
    return f32 ? ag_sum_f32(x, n, stride) : ag_sum(x, n, stride);
}

/* x viewed as (outer, n, inner): one reduced group between two kept ones. */
typedef struct {
    int64_t outer, n, inner;
} AxisView;

/* ======================================================================
 * Extremes with nan propagation (logsumexp's max, norm's p = +-inf): a nan
 * anywhere makes the result nan, as PyTorch's amax.
 * ====================================================================== */

enum { EXTREME_LANES = 8 };

/* v if it beats m (or is nan), else m; once m is nan it stays. */
static inline double pick(double v, double m, bool is_max) {
    return (is_max ? v > m : v < m) || v != v ? v : m;
}

/* The extreme of n >= 1 contiguous values, in EXTREME_LANES lanes. */
static double extreme_contiguous(const double *x, int64_t n, bool is_max) {
    double acc[EXTREME_LANES];
    for (int j = 0; j < EXTREME_LANES; j++) acc[j] = x[0];
    int64_t i = 0;
    for (; i + EXTREME_LANES <= n; i += EXTREME_LANES)
        for (int j = 0; j < EXTREME_LANES; j++) acc[j] = pick(x[i + j], acc[j], is_max);
    for (; i < n; i++) acc[0] = pick(x[i], acc[0], is_max);
    for (int j = 1; j < EXTREME_LANES; j++) acc[0] = pick(acc[j], acc[0], is_max);
    return acc[0];
}

/* out[o, i] = the extreme over k of x[o, k, i]; v.n >= 1. */
static void extreme_rows(const double *x, AxisView v, double *out, bool is_max) {
    for (int64_t o = 0; o < v.outer; o++) {
        const double *p = x + o * v.n * v.inner;
        double *restrict dst = out + o * v.inner;
        if (v.inner == 1) {
            dst[0] = extreme_contiguous(p, v.n, is_max);
            continue;
        }
        memcpy(dst, p, (size_t)v.inner * sizeof *dst);
        for (int64_t k = 1; k < v.n; k++) {
            const double *restrict row = p + k * v.inner;
            if (is_max)
                for (int64_t i = 0; i < v.inner; i++) dst[i] = pick(row[i], dst[i], true);
            else
                for (int64_t i = 0; i < v.inner; i++) dst[i] = pick(row[i], dst[i], false);
        }
    }
}

/* ======================================================================
 * The view: x's dimensions as alternating groups, kept and reduced
 * ====================================================================== */

typedef struct {
    int ndim;                      /* groups */
    int64_t size[AG_MAX_DIMS];
    bool reduced[AG_MAX_DIMS];
    int64_t n;                     /* elements of x per output element */
    int64_t numel, out_numel;      /* x's elements, the output's */
} Groups;

/* A shape over mask: size-1 dimensions dropped (they change no index),
 * neighbours of one kind merged. */
static Groups groups_of_shape(int ndim, const int64_t *shape, unsigned mask) {
    Groups g = {.n = 1, .numel = 1, .out_numel = 1};
    for (int i = 0; i < ndim; i++) {
        bool r = mask >> i & 1;
        g.numel *= shape[i];
        if (r) g.n *= shape[i];
        else g.out_numel *= shape[i];
        if (shape[i] == 1) continue;
        if (g.ndim > 0 && g.reduced[g.ndim - 1] == r) {
            g.size[g.ndim - 1] *= shape[i];
        } else {
            g.size[g.ndim] = shape[i];
            g.reduced[g.ndim++] = r;
        }
    }
    return g;
}

/* x's shape over mask. */
static Groups groups_of(const Tensor *x, unsigned mask) {
    return groups_of_shape(x->ndim, x->shape, mask);
}

/* g without group j (a reduced one), its neighbours (both kept) merged. */
static Groups drop_group(Groups g, int j) {
    if (j > 0 && j + 1 < g.ndim) { /* kept on both sides: merge them */
        g.size[j - 1] *= g.size[j + 1];
        for (int i = j; i + 2 < g.ndim; i++)
            g.size[i] = g.size[i + 2], g.reduced[i] = g.reduced[i + 2];
        g.ndim -= 2;
    } else {
        for (int i = j; i + 1 < g.ndim; i++)
            g.size[i] = g.size[i + 1], g.reduced[i] = g.reduced[i + 1];
        g.ndim -= 1;
    }
    return g;
}

/* out = the sums of x (laid out as g, with elements) over its reduced
 * groups, in PyTorch's order: TensorIterator puts the reduced dims first,
 * innermost first, so one reduced group is a sum along a dimension (an
 * inner sum, or an outer one when a kept group lies inside it), and with
 * several, the innermost is summed per output element (ag_sum) and those
 * sums are added into the output, from +0, one at a time in memory order.
 * false (with a message) when the temporary cannot be allocated. */
static bool sum_groups(const double *x, Groups g, double *out, bool f32) {
    int j = -1, groups = 0;
    for (int i = g.ndim - 1; i >= 0; i--)
        if (g.reduced[i]) groups++, j = j < 0 ? i : j;
    if (j < 0) { /* nothing to reduce: a sum of one -0 is +0 */
        for (int64_t i = 0; i < g.out_numel; i++) out[i] = 0.0 + x[i];
        return true;
    }
    AxisView v = {ag_shape_prod(g.size, 0, j), g.size[j], ag_shape_prod(g.size, j + 1, g.ndim)};
    if (groups == 1) {
        for (int64_t o = 0; o < v.outer; o++) {
            const double *p = x + o * v.n * v.inner;
            if (v.inner == 1) out[o] = sum_of(p, v.n, 1, f32);
            else sum_columns(p, v.n, v.inner, out + o * v.inner, f32);
        }
        return true;
    }
    Tensor *held = ag_tensor_new(1, (int64_t[]){v.outer * v.inner});
    if (!held) return false;
    double *t = tensor_values(held);
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t i = 0; i < v.inner; i++)
            t[o * v.inner + i] = sum_of(x + o * v.n * v.inner + i, v.n, v.inner, f32);
    /* t in memory order, each value added to its output element: an
     * odometer over g without group j, the output's offset beside it */
    g = drop_group(g, j);
    int64_t index[AG_MAX_DIMS] = {0}, stride[AG_MAX_DIMS], o = 0;
    for (int i = g.ndim - 1, s = 1; i >= 0; i--) {
        stride[i] = g.reduced[i] ? 0 : s;
        if (!g.reduced[i]) s *= g.size[i];
    }
    memset(out, 0, (size_t)g.out_numel * sizeof *out);
    for (int64_t p = 0, n = v.outer * v.inner; p < n; p++) {
        out[o] = ROUNDED(f32, out[o] + t[p]);
        for (int i = g.ndim - 1; i >= 0; i--) {
            o += stride[i];
            if (++index[i] < g.size[i]) break;
            o -= stride[i] * g.size[i];
            index[i] = 0;
        }
    }
    tensor_release(held);
    return true;
}

typedef enum { REDUCE_SUM, REDUCE_MAX, REDUCE_MIN } ReduceKind;

/* Reduces x (laid out as g) into out (g.out_numel values): sums in
 * PyTorch's order (sum_groups), or extremes, one reduced group at a time
 * from the innermost, through temporaries. x must have elements; false (with a message) when a
 * temporary cannot be allocated. */
static bool reduce_groups(const double *x, Groups g, ReduceKind kind, double *out) {
    if (kind == REDUCE_SUM) return sum_groups(x, g, out, false);
    Tensor *held = NULL; /* the temporary x points into, if any */
    bool ok = true;
    for (;;) {
        int j = g.ndim - 1, groups = 0;
        while (j >= 0 && !g.reduced[j]) j--;
        for (int i = 0; i < g.ndim; i++) groups += g.reduced[i];
        if (j < 0) { /* nothing to reduce: every reduced size is 1 */
            memcpy(out, x, (size_t)g.out_numel * sizeof *out);
            break;
        }
        AxisView v = {ag_shape_prod(g.size, 0, j), g.size[j], ag_shape_prod(g.size, j + 1, g.ndim)};
        Tensor *next = NULL; /* more groups to come: into a temporary */
        if (groups > 1 && !(next = ag_tensor_new(1, (int64_t[]){v.outer * v.inner}))) {
            ok = false;
            break;
        }
        double *dst = next ? tensor_values(next) : out;
        extreme_rows(x, v, dst, kind == REDUCE_MAX);
        tensor_release(held);
        held = next;
        if (!ok || !next) break;
        x = tensor_values(next);
        g = drop_group(g, j);
    }
    tensor_release(held);
    return ok;
}

/* ======================================================================
 * Rows: x's elements with the output's value beside each. Each kernel is
 * a loop along one row of x's innermost group: s is 0 when that group is
 * reduced (one output value for the whole row), 1 when it is kept (the
 * output runs along with x). Kernels are inlined with s a constant.
 * ====================================================================== */

typedef enum {
    ROW_SPREAD,     /* out = a                                  (sum, mean backward) */
    ROW_DEV,        /* out = x - a                              (logsumexp forward) */
    ROW_VAR_GRAD,   /* out = a * (x - b)                        (var, std backward) */
    ROW_SCALE,      /* out = a * x                              (logsumexp backward) */
    ROW_NORM2_GRAD, /* out = a * (x / b), 0 where b == 0        (norm, p = 2) */
    ROW_INF_MASK,   /* out = |x| == b or |x| is nan             (norm, p = +-inf) */
    ROW_INF_GRAD,   /* out = sign(x) * (a * mask)               (norm, p = +-inf) */
    ROW_SIGN_GRAD,  /* out = sign(x) * a                        (norm, p = 1) */
    /* the next three read out, holding |x|^(p-1) (p > 2: |x|^(p-2)) */
    ROW_SMALL_GRAD, /* out = sign(x)|x|^(p-1) (0 at 0) * a * b  (norm, p < 1) */
    ROW_MID_GRAD,   /* out = sign(x)|x|^(p-1) * a               (norm, 1 < p < 2) */
    ROW_BIG_GRAD,   /* out = x|x|^(p-2) * a                     (norm, p > 2) */
} RowKind;

static inline double sign_of(double x) { return (double)((x > 0) - (x < 0)); }

static ALWAYS_INLINE void row_loop(RowKind kind, const double *restrict x,
                                   const double *restrict a, const double *restrict b,
                                   int64_t s, int64_t n, double *restrict out) {
    switch (kind) {
    case ROW_SPREAD:
        for (int64_t j = 0; j < n; j++) out[j] = a[j * s];
        break;
    case ROW_DEV:
        for (int64_t j = 0; j < n; j++) out[j] = x[j] - a[j * s];
        break;
    case ROW_VAR_GRAD:
        for (int64_t j = 0; j < n; j++) out[j] = a[j * s] * (x[j] - b[j * s]);
        break;
    case ROW_SCALE:
        for (int64_t j = 0; j < n; j++) out[j] = a[j * s] * x[j];
        break;
    case ROW_NORM2_GRAD:
        for (int64_t j = 0; j < n; j++) out[j] = a[j * s] * (b[j * s] == 0 ? 0.0 : x[j] / b[j * s]);
        break;
    case ROW_INF_MASK:
        for (int64_t j = 0; j < n; j++) out[j] = fabs(x[j]) == b[j * s] || x[j] != x[j];
        break;
    case ROW_INF_GRAD:
        for (int64_t j = 0; j < n; j++) {
            double mask = fabs(x[j]) == b[j * s] || x[j] != x[j];
            out[j] = sign_of(x[j]) * (a[j * s] * mask);
        }
        break;
    case ROW_SIGN_GRAD:
        for (int64_t j = 0; j < n; j++) out[j] = sign_of(x[j]) * a[j * s];
        break;
    case ROW_SMALL_GRAD:
        for (int64_t j = 0; j < n; j++) {
            double scaled = sign_of(x[j]) * (x[j] == 0 ? 0.0 : out[j]);
            out[j] = scaled * a[j * s] * b[j * s];
        }
        break;
    case ROW_MID_GRAD:
        for (int64_t j = 0; j < n; j++) out[j] = sign_of(x[j]) * out[j] * a[j * s];
        break;
    case ROW_BIG_GRAD:
        for (int64_t j = 0; j < n; j++) out[j] = x[j] * out[j] * a[j * s];
        break;
    }
}

/* out = kind(x, a, b) over every element of x (laid out as g; with
 * elements), a and b (b may be NULL when unused) holding one value per
 * output element (out, for the kinds that read it, one per element of x).
 * A row is the innermost group; the group before it runs its rows with a
 * fixed step in a (1 when that group is kept, 0 when it is reduced); the
 * groups before those go by an odometer. */
/* One row of for_rows split between threads (a whole reduction's
 * backward: one row of x): each element alone, the same bits. */
typedef struct {
    RowKind kind;
    const double *x, *a, *b;
    int64_t s;
    double *out;
} RowJob;

static void row_range(void *ctx, int64_t begin, int64_t end) {
    const RowJob *j = ctx;
    row_loop(j->kind, j->x + begin, j->a + begin * j->s, j->b + begin * j->s, j->s, end - begin,
             j->out + begin);
}

static void for_rows(RowKind kind, const Groups *g, const double *x, const double *a,
                     const double *b, double *out) {
    if (!b) b = a; /* a stand-in: the kernel does not read it */
    if (g->ndim <= 1 && ag_parallel_worth(g->numel, AG_GRAIN_COPY)) {
        RowJob job = {kind, x, a, b, g->ndim == 1 && !g->reduced[0], out};
        ag_parallel_for(g->numel, AG_GRAIN_COPY, row_range, &job);
        return;
    }
    int nd = g->ndim, outer_nd = nd > 2 ? nd - 2 : 0;
    int64_t len = nd > 0 ? g->size[nd - 1] : 1, s = nd > 0 && !g->reduced[nd - 1];
    int64_t rows = nd > 1 ? g->size[nd - 2] : 1, step = nd > 1 && !g->reduced[nd - 2];
    /* a's strides over the outer groups: 0 along reduced ones */
    int64_t stride[AG_MAX_DIMS], index[AG_MAX_DIMS] = {0};
    int64_t per_block = (s ? len : 1) * (step ? rows : 1);
    for (int i = outer_nd - 1; i >= 0; i--) {
        stride[i] = g->reduced[i] ? 0 : per_block;
        if (!g->reduced[i]) per_block *= g->size[i];
    }
    int64_t blocks = ag_shape_prod(g->size, 0, outer_nd), off = 0;
    for (int64_t block = 0; block < blocks; block++) {
        int64_t at = block * rows * len;
        if (s == 1) /* rows along a kept group: a runs along them */
            for (int64_t r = 0; r < rows; r++, at += len)
                row_loop(kind, x + at, a + off + r * step, b + off + r * step, 1, len, out + at);
        else        /* rows along a reduced group: one a value each */
            for (int64_t r = 0; r < rows; r++, at += len)
                row_loop(kind, x + at, a + off + r * step, b + off + r * step, 0, len, out + at);
        for (int d = outer_nd - 1; d >= 0; d--) {
            off += stride[d];
            if (++index[d] < g->size[d]) break;
            off -= stride[d] * g->size[d];
            index[d] = 0;
        }
    }
}

/* ======================================================================
 * Shared steps of the forwards and backwards
 * ====================================================================== */

typedef struct {
    unsigned mask;   /* x's reduced axes */
    bool whole;      /* over everything: dim None (or a 0-d x) */
    bool unbiased;   /* var, std: divide by n - 1 */
    double p;        /* norm */
} ReduceInfo;

typedef struct {
    ReduceInfo info;
    double saved[];  /* var, std: the mean, one per output element */
} ReduceCtx;

/* Checks x and dims, makes the output (NULL with a message on failure). */
static Tensor *reduce_begin(const char *op, Tensor *x, const int64_t *dims, int ndims,
                            bool keepdim, unsigned *mask, Groups *g) {
    if (ag_reduce_mask(op, x, dims, ndims, mask) != 0) return NULL;
    *g = groups_of(x, *mask);
    return ag_reduced_new(x, *mask, keepdim);
}

/* Records out (which ag_graph_record may release) with info, and saved
 * (one double per output element) when not NULL. */
static Tensor *reduce_record(Tensor *out, int op, Tensor *x, ReduceInfo info,
                             const double *saved) {
    ReduceCtx *c;
    size_t extra = saved ? (size_t)out->numel * sizeof(double) : 0;
    out = ag_graph_record(out, op, &x, 1, (void **)&c, sizeof *c + extra);
    if (c) {
        c->info = info;
        if (saved) memcpy(c->saved, saved, extra);
    }
    return out;
}

/* A tensor of n doubles (a temporary), or NULL with a message. */
static Tensor *scratch(int64_t n) { return ag_tensor_new(1, &n); }

/* out = sum over the reduced dims of x (laid out as g); false on an
 * allocation failure. */
static bool sum_into(const double *x, const Groups *g, double *out, bool f32) {
    if (g->out_numel == 0) return true;
    if (g->numel == 0) { /* some reduced size is 0: sums of nothing */
        memset(out, 0, (size_t)g->out_numel * sizeof *out);
        return true;
    }
    return sum_groups(x, *g, out, f32);
}

bool ag_sum_dims(const double *x, int ndim, const int64_t *shape, unsigned mask, double *out,
                 bool f32) {
    Groups g = groups_of_shape(ndim, shape, mask);
    return sum_into(x, &g, out, f32);
}

/* dx = a spread over the reduced dims (one value of a per output
 * element), handed to x's gradient. */
static void spread_to(Tensor *x, const Groups *g, const double *a) {
    Tensor *dx = ag_tensor_new_like(x);
    if (!dx) return;
    if (dx->numel > 0) for_rows(ROW_SPREAD, g, tensor_values(x), a, NULL, tensor_values(dx));
    ag_accumulate_grad(x, dx);
}

/* ---- for the graph_backwards: the same steps as recorded ops ---- */

/* The dims of mask (bit i: dim i), ascending, into dims; how many. */
static int dims_of_mask(unsigned mask, int ndim, int64_t *dims) {
    int n = 0;
    for (int d = 0; d < ndim; d++)
        if (mask >> d & 1) dims[n++] = d;
    return n;
}

/* t, an output-shaped tensor (g, the output), with x's reduced dims kept at
 * size 1 so that it broadcasts against x (a recorded reshape). */
static Tensor *kept_shape(Tensor *t, const Tensor *x, unsigned mask) {
    int64_t kept[AG_MAX_DIMS];
    for (int d = 0; d < x->ndim; d++) kept[d] = (mask >> d) & 1 ? 1 : x->shape[d];
    return tensor_reshape(t, x->ndim, kept);
}

/* where(zero, 0, n / d), the divisor 1 where zero holds so that the branch
 * not taken gives the second order no 0 * inf: n / d's bits elsewhere. */
static Tensor *masked_div(GradTemps *t, Tensor *zero, Tensor *n, Tensor *d) {
    Tensor *z = ag_grad_num(t, 0.0);
    Tensor *safe = ag_grad_tmp(t, tensor_where(zero, ag_grad_num(t, 1.0), d));
    return tensor_where(zero, z, ag_grad_tmp(t, tensor_div(n, safe)));
}

/* ======================================================================
 * sum: out = sum of x over dims; dx = g copied to every summed element
 * mean: out = sum / n (nan for n = 0, as PyTorch); dx = g / n likewise
 * ====================================================================== */

static void sum_backward(Function *self, void *ctx, Tensor *g) {
    ReduceCtx *c = ctx;
    Groups gr = groups_of(self->inputs[0], c->info.mask);
    spread_to(self->inputs[0], &gr, tensor_values(g));
}

/* mean divides g by n as PyTorch does: g * (1/n) differs in the last bit. */
static void mean_backward(Function *self, void *ctx, Tensor *g) {
    ReduceCtx *c = ctx;
    Tensor *x = self->inputs[0];
    Groups gr = groups_of(x, c->info.mask);
    Tensor *a = ag_tensor_new_like(g);
    if (!a) return;
    double *av = tensor_values(a);
    const double *gv = tensor_values(g);
    for (int64_t i = 0; i < a->numel; i++) av[i] = gv[i] / (double)gr.n;
    spread_to(x, &gr, tensor_values(a));
    tensor_release(a);
}

/* sum's and mean's gradients as recorded ops: g (mean: divided by n first,
 * mean_backward's order) with the reduced dims kept at size 1, expanded to
 * x's shape. */
static int sum_mean_graph(Function *self, ReduceCtx *c, Tensor *g, Tensor **grads, bool mean) {
    Tensor *x = self->inputs[0];
    GradTemps t = {0};
    Tensor *scaled = g;
    if (mean) {
        Groups gr = groups_of(x, c->info.mask);
        scaled = ag_grad_tmp(&t, tensor_div(g, ag_grad_num(&t, (double)gr.n)));
    }
    Tensor *r = ag_grad_tmp(&t, kept_shape(scaled, x, c->info.mask));
    grads[0] = ag_grad_out(&t, tensor_expand(r, x->ndim, x->shape));
    return ag_grad_done(&t);
}

static int sum_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    return sum_mean_graph(self, ctx, g, grads, false);
}

static int mean_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    return sum_mean_graph(self, ctx, g, grads, true);
}

static Tensor *sum_forward(const char *op, int id, Tensor *x, const int64_t *dims, int ndims,
                           bool keepdim) {
    unsigned mask;
    Groups g;
    Tensor *out = reduce_begin(op, x, dims, ndims, keepdim, &mask, &g);
    if (!out) return NULL;
    /* a float32 sum adds in float, as PyTorch's (its mean divides that) */
    if (!sum_into(tensor_values(x), &g, tensor_values(out), x->dtype == AG_FLOAT32))
        return tensor_release(out), NULL;
    double *o = tensor_values(out);
    if (id == AG_OP_MEAN)
        for (int64_t i = 0; i < out->numel; i++) o[i] /= (double)g.n;
    return reduce_record(out, id, x, (ReduceInfo){.mask = mask}, NULL);
}

Tensor *tensor_sum_dims(Tensor *x, const int64_t *dims, int ndims, bool keepdim) {
    return sum_forward("sum", AG_OP_SUM, x, dims, ndims, keepdim);
}

Tensor *tensor_mean_dims(Tensor *x, const int64_t *dims, int ndims, bool keepdim) {
    return sum_forward("mean", AG_OP_MEAN, x, dims, ndims, keepdim);
}

Tensor *tensor_sum(Tensor *x) { return tensor_sum_dims(x, NULL, 0, false); }
Tensor *tensor_mean(Tensor *x) { return tensor_mean_dims(x, NULL, 0, false); }

Tensor *tensor_sum_axis(Tensor *x, int axis) {
    return tensor_sum_dims(x, (int64_t[]){axis}, 1, false);
}

Tensor *tensor_mean_axis(Tensor *x, int axis) {
    return tensor_mean_dims(x, (int64_t[]){axis}, 1, false);
}

/* The 'd' parameter: None (every dim), one dim, or a tuple of them. */
static int call_ndims(const AgOpArgs *a) { return a->has_dims ? a->num_dims : 0; }

static Tensor *sum_call(const AgOpArgs *a) {
    return tensor_sum_dims(a->t[0], a->dims, call_ndims(a), a->flags[0]);
}

static Tensor *mean_call(const AgOpArgs *a) {
    return tensor_mean_dims(a->t[0], a->dims, call_ndims(a), a->flags[0]);
}

const AgOpInfo ag_op_sum = {
    .id = AG_OP_SUM, .name = "sum", .signature = "sum(input, dim=None, keepdim=False)",
    .params = "Tdb", .help = "sum of all elements, or over dim (an int or a tuple)",
    .rule = "grad_x = g, copied to every summed element", .backward_name = "SumBackward",
    .call = sum_call, .backward = sum_backward, .graph_backward = sum_graph, .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
    .dtype_rule = AG_DTYPE_SUM,
};

const AgOpInfo ag_op_mean = {
    .id = AG_OP_MEAN, .name = "mean", .signature = "mean(input, dim=None, keepdim=False)",
    .params = "Tdb", .help = "mean of all elements, or over dim (an int or a tuple)",
    .rule = "grad_x = g / n to each of the n averaged elements", .backward_name = "MeanBackward",
    .call = mean_call, .backward = mean_backward, .graph_backward = mean_graph, .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
    .dtype_rule = AG_DTYPE_FLOAT_ONLY,
};

/* ======================================================================
 * var: out = sum((x - mean)^2) / (n - c), c = 1 when unbiased (PyTorch's
 * default), else 0; n - c <= 0 divides by 0 (nan, as PyTorch). As
 * PyTorch 1.13 computes it: to one output element (std_var_all_cpu), the
 * mean (summed pairwise), then the squared deviations summed in memory
 * order; to several (WelfordOps), Welford's update per output element,
 * its elements in memory order, m2 += delta * new_delta fused (its
 * build's contraction). The pairwise sum of squares was 5 ulps off. The
 * mean (pairwise, kept in ctx) serves the backward:
 * dx = (2 / (n - c)) * g * (x - mean) (PyTorch's var_backward).
 * std: out = sqrt(var); dx as var's with g / (2 std) in place of g, 0
 * where std is 0 (PyTorch's std_backward masks it).
 * ====================================================================== */

/* dx = (2 / (n - c)) * gv * (x - mean), gv = g (var) or g / (2 std), 0
 * where std is 0 (std). Over everything with n - c <= 0, PyTorch 1.13's
 * var_backward leaves out the factor (x - mean): dx = (2 / 0) * gv, inf
 * times g (its full reduction of a 0-d tensor; of a bigger one, its
 * backward fails on a shape). Along dims, inf * 0 = nan. */
static void var_std_grad(Function *self, ReduceCtx *c, Tensor *g, bool is_std) {
    Tensor *x = self->inputs[0];
    Groups gr = groups_of(x, c->info.mask);
    double dof = (double)gr.n - (c->info.unbiased ? 1 : 0), scale = 2.0 / (dof > 0 ? dof : 0);
    Tensor *a = ag_tensor_new_like(g), *dx = a ? ag_tensor_new_like(x) : NULL;
    if (!dx) return tensor_release(a);
    const double *std = tensor_values(self->output);
    for (int64_t i = 0; i < a->numel; i++) {
        double gv = !is_std ? tensor_values(g)[i] : std[i] == 0 ? 0.0 : tensor_values(g)[i] / (std[i] * 2);
        tensor_values(a)[i] = scale * gv;
    }
    RowKind kind = c->info.whole && dof <= 0 ? ROW_SPREAD : ROW_VAR_GRAD;
    if (dx->numel > 0) for_rows(kind, &gr, tensor_values(x), tensor_values(a), c->saved, tensor_values(dx));
    tensor_release(a);
    ag_accumulate_grad(x, dx);
}

static void var_backward(Function *self, void *ctx, Tensor *g) {
    var_std_grad(self, ctx, g, false);
}

static void std_backward(Function *self, void *ctx, Tensor *g) {
    var_std_grad(self, ctx, g, true);
}

/* var's and std's gradients as recorded ops, var_std_grad's order:
 *   a = scale * gv, gv = g (var) or where(std == 0, 0, g / (std * 2)) (std)
 *   dx = a * (x - mean), or a spread over x (everything, n - c <= 0)
 * with the mean taken again by the mean op (ctx's, bit for bit, and now
 * a function of x that the second order differentiates). */
static int var_std_graph(Function *self, ReduceCtx *c, Tensor *g, Tensor **grads, bool is_std) {
    Tensor *x = self->inputs[0];
    Groups gr = groups_of(x, c->info.mask);
    double dof = (double)gr.n - (c->info.unbiased ? 1 : 0), scale = 2.0 / (dof > 0 ? dof : 0);
    GradTemps t = {0};
    Tensor *gv = g;
    if (is_std) {
        Tensor *std = self->output, *zero = ag_grad_tmp(&t, tensor_eq(std, ag_grad_num(&t, 0.0)));
        gv = ag_grad_tmp(&t, masked_div(&t, zero, g,
                                        ag_grad_tmp(&t, tensor_mul(std, ag_grad_num(&t, 2.0)))));
    }
    Tensor *a = ag_grad_tmp(&t, tensor_mul(ag_grad_num(&t, scale), gv));
    a = ag_grad_tmp(&t, kept_shape(a, x, c->info.mask));
    if (c->info.whole && dof <= 0) {
        grads[0] = ag_grad_out(&t, tensor_expand(a, x->ndim, x->shape));
    } else {
        int64_t dims[AG_MAX_DIMS];
        int nd = dims_of_mask(c->info.mask, x->ndim, dims);
        Tensor *mean = ag_grad_tmp(&t, tensor_mean_dims(x, dims, nd, true));
        grads[0] = ag_grad_out(&t, tensor_mul(a, ag_grad_tmp(&t, tensor_sub(x, mean))));
    }
    return ag_grad_done(&t);
}

static int var_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    return var_std_graph(self, ctx, g, grads, false);
}

static int std_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    return var_std_graph(self, ctx, g, grads, true);
}

/* m2[o] = the sum of squared deviations of output o's elements, by
 * Welford's update in memory order (PyTorch's WelfordOps); w: 2 * out_numel
 * doubles of scratch (the running means and counts). */
static void welford_m2(const double *x, const Groups *g, double *w, double *m2) {
    double *mean = w, *count = w + g->out_numel;
    for (int64_t o = 0; o < g->out_numel; o++) mean[o] = m2[o] = count[o] = 0.0;
    int64_t ctr[AG_MAX_DIMS] = {0}, ostride[AG_MAX_DIMS], s = 1, o = 0;
    for (int k = g->ndim - 1; k >= 0; k--) {
        ostride[k] = g->reduced[k] ? 0 : s;
        if (!g->reduced[k]) s *= g->size[k];
    }
    for (int64_t i = 0; i < g->numel; i++) {
        double delta = x[i] - mean[o];
        count[o] += 1.0;
        mean[o] = mean[o] + delta / count[o];
        m2[o] = fma(delta, x[i] - mean[o], m2[o]);
        for (int k = g->ndim - 1; k >= 0; k--) { /* the next element's output */
            if (++ctr[k] < g->size[k]) {
                o += ostride[k];
                break;
            }
            o -= ostride[k] * (g->size[k] - 1);
            ctr[k] = 0;
        }
    }
}

/* The sum of (x - mean)^2 over all n values, in order (std_var_all_cpu). */
static double squares_in_order(const double *x, int64_t n, double mean) {
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double d = x[i] - mean;
        s += d * d;
    }
    return s;
}

static Tensor *var_forward(const char *op, int id, Tensor *x, const int64_t *dims, int ndims,
                           bool unbiased, bool keepdim) {
    unsigned mask;
    Groups g;
    Tensor *out = reduce_begin(op, x, dims, ndims, keepdim, &mask, &g);
    if (!out) return NULL;
    Tensor *mean = scratch(out->numel), *dev = mean ? scratch(2 * out->numel + 1) : NULL;
    bool ok = dev && sum_into(tensor_values(x), &g, tensor_values(mean), false);
    for (int64_t i = 0; ok && i < out->numel; i++) tensor_values(mean)[i] /= (double)g.n;
    if (ok && out->numel == 1)
        tensor_values(out)[0] = squares_in_order(tensor_values(x), x->numel, tensor_values(mean)[0]);
    else if (ok && x->numel > 0)
        welford_m2(tensor_values(x), &g, tensor_values(dev), tensor_values(out));
    else if (ok)
        for (int64_t i = 0; i < out->numel; i++) tensor_values(out)[i] = 0.0;
    double dof = (double)g.n - (unbiased ? 1 : 0);
    if (dof < 0) dof = 0;
    for (int64_t i = 0; ok && i < out->numel; i++) {
        tensor_values(out)[i] /= dof;
        if (id == AG_OP_STD) tensor_values(out)[i] = sqrt(tensor_values(out)[i]);
    }
    tensor_release(dev);
    if (!ok) {
        tensor_release(mean);
        return tensor_release(out), NULL;
    }
    ReduceInfo info = {.mask = mask, .whole = ndims == 0 || x->ndim == 0, .unbiased = unbiased};
    out = reduce_record(out, id, x, info, tensor_values(mean));
    tensor_release(mean);
    return out;
}

Tensor *tensor_var_dims(Tensor *x, const int64_t *dims, int ndims, bool unbiased, bool keepdim) {
    return var_forward("var", AG_OP_VAR, x, dims, ndims, unbiased, keepdim);
}

Tensor *tensor_std_dims(Tensor *x, const int64_t *dims, int ndims, bool unbiased, bool keepdim) {
    return var_forward("std", AG_OP_STD, x, dims, ndims, unbiased, keepdim);
}

static Tensor *var_call(const AgOpArgs *a) {
    return tensor_var_dims(a->t[0], a->dims, call_ndims(a), a->flags[0], a->flags[1]);
}

static Tensor *std_call(const AgOpArgs *a) {
    return tensor_std_dims(a->t[0], a->dims, call_ndims(a), a->flags[0], a->flags[1]);
}

const AgOpInfo ag_op_var = {
    .id = AG_OP_VAR, .name = "var",
    .signature = "var(input, dim=None, unbiased=True, keepdim=False)", .params = "Tdbb",
    .help = "variance over dim (all by default), dividing by n - 1 (unbiased) or n",
    .rule = "grad_x = g * 2 (x - mean) / (n - 1) (unbiased=False: / n)",
    .backward_name = "VarBackward", .call = var_call, .backward = var_backward,
    .graph_backward = var_graph, .flags = AG_OP_METHOD | AG_OP_SAVES_READS, .grad_reads = {1},
    .dtype_rule = AG_DTYPE_FLOAT_ONLY,
};

const AgOpInfo ag_op_std = {
    .id = AG_OP_STD, .name = "std",
    .signature = "std(input, dim=None, unbiased=True, keepdim=False)", .params = "Tdbb",
    .help = "standard deviation: sqrt(var(input, dim, unbiased))",
    .rule = "grad_x = g * (x - mean) / ((n - 1) std) (unbiased=False: n std); 0 where std = 0",
    .backward_name = "StdBackward", .call = std_call, .backward = std_backward,
    .graph_backward = std_graph, .flags = AG_OP_METHOD,
    .dtype_rule = AG_DTYPE_FLOAT_ONLY,
};

/* ======================================================================
 * norm: PyTorch's vector norm over dims. out = (sum |x|^p)^(1/p); p = 2:
 * sqrt(sum x^2); p = 1: sum |x|; p = inf / -inf: the largest / smallest
 * |x| (nan if any is nan; 0 over no elements); p = 0: the number of
 * non-zero elements. No scaling: 1e200 squared is inf, as in PyTorch.
 * Backward, PyTorch's norm_backward formula for formula:
 *   p = 0          dx = 0
 *   p = 1          dx = sign(x) * g
 *   p = 2          dx = g * (x / norm), 0 where norm == 0
 *   p = +-inf      dx = sign(x) * (g / count) where |x| == norm or |x| is
 *                  nan (count: how many), else 0
 *   p < 1          dx = sign(x) |x|^(p-1) (0 at x = 0) * g * norm^(1-p)
 *   1 < p < 2      dx = sign(x) |x|^(p-1) * (g / norm^(p-1)), 0 where norm == 0
 *   p > 2          dx = x |x|^(p-2) * (g / norm^(p-1)), 0 where norm == 0
 * Each power is PyTorch's x.pow(e), by its pow kernels (ag_pow_scalar:
 * sqrt for 0.5, x * x for 2, SLEEF's pow for most others), so that the
 * graph path, through the pow op, has the same bits.
 * ====================================================================== */

/* Fills a and b, the per-output values norm's row kernel for p reads, and
 * says which kernel; false on an allocation failure. mask is x-sized
 * scratch (p = +-inf counts the maxima in it). */
static bool norm_grad_terms(const Tensor *x, const Groups *gr, const Tensor *g,
                            const double *norm, double p, double *a, double *b, double *mask,
                            RowKind *kind) {
    size_t bytes = (size_t)g->numel * sizeof(double);
    if (p == 1) { /* sign(x) * g */
        *kind = ROW_SIGN_GRAD;
        memcpy(a, tensor_values(g), bytes);
    } else if (p == 2) {
        *kind = ROW_NORM2_GRAD;
        memcpy(a, tensor_values(g), bytes);
        memcpy(b, norm, bytes);
    } else if (isinf(p)) { /* a = g / count, count = the mask summed */
        *kind = ROW_INF_GRAD;
        for_rows(ROW_INF_MASK, gr, tensor_values(x), norm, norm, mask);
        if (!sum_into(mask, gr, a, false)) return false;
        const double *gv = tensor_values(g);
        for (int64_t i = 0; i < g->numel; i++) a[i] = gv[i] / a[i];
        memcpy(b, norm, bytes);
    } else if (p < 1) {
        *kind = ROW_SMALL_GRAD;
        memcpy(a, tensor_values(g), bytes);
        ag_pow_scalar(norm, 1 - p, b, g->numel);
    } else {
        *kind = p < 2 ? ROW_MID_GRAD : ROW_BIG_GRAD;
        ag_pow_scalar(norm, p - 1, a, g->numel);
        for (int64_t i = 0; i < g->numel; i++) a[i] = norm[i] == 0 ? 0.0 : tensor_values(g)[i] / a[i];
    }
    return true;
}

/* The exponent of |x| in norm's row kernel for p (p > 2: x |x|^(p-2)), or
 * 0 for the kernels that take no power of |x| (never one that those with
 * one take: p - 1 for p < 2, p - 2 for p > 2). */
static double norm_abs_exponent(RowKind kind, double p) {
    if (kind == ROW_BIG_GRAD) return p - 2;
    return kind == ROW_SMALL_GRAD || kind == ROW_MID_GRAD ? p - 1 : 0;
}

/* out = |x| ** e, PyTorch's self.abs().pow_(e); false on an allocation
 * failure. */
static bool abs_pow(const Tensor *x, double e, double *out) {
    Tensor *a = ag_tensor_new_like(x);
    if (!a) return false;
    double *av = tensor_values(a);
    const double *xv = tensor_values(x);
    for (int64_t i = 0; i < x->numel; i++) av[i] = fabs(xv[i]);
    ag_pow_scalar(tensor_values(a), e, out, x->numel);
    tensor_release(a);
    return true;
}

static void norm_backward(Function *self, void *ctx, Tensor *g) {
    ReduceCtx *c = ctx;
    Tensor *x = self->inputs[0];
    Groups gr = groups_of(x, c->info.mask);
    Tensor *dx = ag_tensor_filled_like(x, 0.0);
    if (!dx) return;
    if (x->numel > 0 && c->info.p != 0) { /* p = 0: the count of non-zeros is flat */
        Tensor *a = ag_tensor_new_like(g), *b = a ? ag_tensor_new_like(g) : NULL;
        RowKind kind;
        bool ok = b && norm_grad_terms(x, &gr, g, tensor_values(self->output), c->info.p, tensor_values(a), tensor_values(b),
                                       tensor_values(dx), &kind);
        double e = ok ? norm_abs_exponent(kind, c->info.p) : 0;
        if (e != 0) ok = abs_pow(x, e, tensor_values(dx)); /* read by the row kernel */
        if (ok) for_rows(kind, &gr, tensor_values(x), tensor_values(a), tensor_values(b), tensor_values(dx));
        tensor_release(a);
        tensor_release(b);
        if (!ok) return tensor_release(dx);
    }
    ag_accumulate_grad(x, dx);
}

/* |x| ** e by the pow op (ag_pow_scalar's kernels, as abs_pow). */
static Tensor *abs_pow_op(GradTemps *t, Tensor *x, double e) {
    return tensor_pow(ag_grad_tmp(t, tensor_abs(x)), ag_grad_num(t, e));
}

/* norm's gradient for p = +-inf as recorded ops: sign(x) * ((g / count) *
 * mask), mask = |x| == norm or x is nan, count = mask summed (int64). */
static Tensor *norm_inf_graph(GradTemps *t, Tensor *x, Tensor *g, Tensor *norm, unsigned mask) {
    int64_t dims[AG_MAX_DIMS];
    int nd = dims_of_mask(mask, x->ndim, dims);
    Tensor *at_norm = ag_grad_tmp(t, tensor_eq(ag_grad_tmp(t, tensor_abs(x)), norm));
    Tensor *top = ag_grad_tmp(t, tensor_logical_or(at_norm, ag_grad_tmp(t, tensor_ne(x, x))));
    Tensor *count = ag_grad_tmp(t, tensor_sum_dims(top, dims, nd, true));
    Tensor *share = ag_grad_tmp(t, tensor_mul(ag_grad_tmp(t, tensor_div(g, count)), top));
    return tensor_mul(ag_grad_tmp(t, tensor_sign(x)), share);
}

/* where(at, 0, base ** e), base taken as 1 where at holds so that the
 * power's gradient there meets no inf; 0 is the kernel's value there too
 * (x's power masked at x = 0; norm^(1-p) = 0 at norm 0). */
static Tensor *masked_pow(GradTemps *t, Tensor *at, Tensor *base, double e) {
    Tensor *safe = ag_grad_tmp(t, tensor_where(at, ag_grad_num(t, 1.0), base));
    Tensor *pw = ag_grad_tmp(t, tensor_pow(safe, ag_grad_num(t, e)));
    return tensor_where(at, ag_grad_num(t, 0.0), pw);
}

/* norm's gradient for p < 1: (sign(x) |x|^(p-1) (0 at x = 0) * g) *
 * norm^(1-p), both powers masked (norm^(1-p) is 0 at norm 0). */
static Tensor *norm_small_graph(GradTemps *t, Tensor *x, Tensor *g, Tensor *norm, double p,
                                Tensor *sign, Tensor *norm0) {
    Tensor *x0 = ag_grad_tmp(t, tensor_eq(x, ag_grad_num(t, 0.0)));
    Tensor *pw = ag_grad_tmp(t, masked_pow(t, x0, ag_grad_tmp(t, tensor_abs(x)), p - 1));
    Tensor *scaled = ag_grad_tmp(t, tensor_mul(sign, pw));
    Tensor *b = ag_grad_tmp(t, masked_pow(t, norm0, norm, 1 - p));
    return tensor_mul(ag_grad_tmp(t, tensor_mul(scaled, g)), b);
}

/* norm's gradient as recorded ops, norm_backward's formula for p (g and
 * norm with the reduced dims kept); the masks are constants. */
static Tensor *norm_p_graph(GradTemps *t, Tensor *x, Tensor *g, Tensor *norm, const ReduceCtx *c) {
    double p = c->info.p;
    if (isinf(p)) return norm_inf_graph(t, x, g, norm, c->info.mask);
    Tensor *sign = ag_grad_tmp(t, tensor_sign(x)), *zero = ag_grad_num(t, 0.0);
    if (p == 1) return tensor_mul(sign, g);
    Tensor *at0 = ag_grad_tmp(t, tensor_eq(norm, zero));
    if (p == 2) return tensor_mul(g, ag_grad_tmp(t, masked_div(t, at0, x, norm)));
    if (p < 1) return norm_small_graph(t, x, g, norm, p, sign, at0);
    /* (sign(x) |x|^(p-1) or x |x|^(p-2)) * where(norm == 0, 0, g / norm^(p-1)) */
    Tensor *lead = p < 2 ? sign : x, *pw = ag_grad_tmp(t, abs_pow_op(t, x, p < 2 ? p - 1 : p - 2));
    Tensor *norm_p1 = ag_grad_tmp(t, tensor_pow(norm, ag_grad_num(t, p - 1)));
    Tensor *a = ag_grad_tmp(t, masked_div(t, at0, g, norm_p1));
    return tensor_mul(ag_grad_tmp(t, tensor_mul(lead, pw)), a);
}

static int norm_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    ReduceCtx *c = ctx;
    Tensor *x = self->inputs[0];
    GradTemps t = {0};
    if (x->numel == 0 || c->info.p == 0) { /* flat: a constant 0 */
        grads[0] = ag_grad_out(&t, ag_tensor_filled_like(x, 0.0));
        return ag_grad_done(&t);
    }
    Tensor *gk = ag_grad_tmp(&t, kept_shape(g, x, c->info.mask));
    Tensor *norm = ag_grad_tmp(&t, kept_shape(self->output, x, c->info.mask));
    grads[0] = ag_grad_out(&t, norm_p_graph(&t, x, gk, norm, c));
    return ag_grad_done(&t);
}

/* t = the element-wise term of the norm of x (|x|, x^2, |x|^p, x != 0). */
static void norm_terms(const Tensor *x, double p, double *t) {
    const double *v = tensor_values(x);
    int64_t n = x->numel;
    if (p == 2) {
        SIMD_LOOP for (int64_t i = 0; i < n; i++) t[i] = v[i] * v[i];
    } else if (p == 1 || isinf(p)) {
        SIMD_LOOP for (int64_t i = 0; i < n; i++) t[i] = fabs(v[i]);
    } else if (p == 0) {
        SIMD_LOOP for (int64_t i = 0; i < n; i++) t[i] = v[i] != 0;
    } else {
        for (int64_t i = 0; i < n; i++) t[i] = pow(fabs(v[i]), p);
    }
}

/* norm's p = 2 in PyTorch 1.13's order (x laid out as g; out: one per
 * output element). float64 takes its binary_kernel_reduce with NormTwoOps:
 * each output's squares added one at a time in memory order, each a fused
 * multiply-add (its build contracts acc + x * x), then the square root.
 * float32 along the last dim alone (or everything) takes its vectorised
 * kernel: 8 lanes of fused multiply-adds in float over whole vectors, the
 * lanes added in order, the rest of the row fused one at a time, sqrtf
 * (PyTorch's bits for rows of up to 3 and most others: its build compiles
 * that rest in ways not all known here, an ulp apart in a few rows in ten);
 * float32 along other dims the one-at-a-time order in float. Over two
 * dims or more ag adds in memory order, which PyTorch does not always. */
static void norm2_rows(const double *x, const Groups *g, bool f32, double *out) {
    int nd = g->ndim;
    bool lastdim = nd >= 1 && g->reduced[nd - 1];
    for (int i = 0; i < nd - 1; i++) lastdim = lastdim && !g->reduced[i];
    if (f32 && lastdim) {
        int64_t len = g->size[nd - 1];
        for (int64_t r = 0; r < g->out_numel; r++) {
            const double *v = x + r * len;
            float lane[8] = {0};
            int64_t d = 0;
            for (; d < len - len % 8; d += 8)
                for (int l = 0; l < 8; l++) lane[l] = fmaf((float)v[d + l], (float)v[d + l], lane[l]);
            float b = lane[0];
            for (int l = 1; l < 8; l++) b = b + lane[l];
            for (; d < len; d++) b = fmaf((float)v[d], (float)v[d], b);
            out[r] = sqrtf(b);
        }
        return;
    }
    for (int64_t i = 0; i < g->out_numel; i++) out[i] = 0.0;
    int64_t index[AG_MAX_DIMS] = {0}, stride[AG_MAX_DIMS];
    for (int k = nd - 1, s = 1; k >= 0; k--) { /* the output's strides over the kept groups */
        stride[k] = g->reduced[k] ? 0 : s;
        if (!g->reduced[k]) s *= (int)g->size[k];
    }
    int64_t at = 0; /* the output element of x's element i */
    for (int64_t i = 0; i < g->numel; i++) {
        out[at] = f32 ? fmaf((float)x[i], (float)x[i], (float)out[at]) : fma(x[i], x[i], out[at]);
        for (int k = nd - 1; k >= 0; k--) { /* the next index, odometer-wise */
            at += stride[k];
            if (++index[k] < g->size[k]) break;
            at -= stride[k] * g->size[k];
            index[k] = 0;
        }
    }
    for (int64_t i = 0; i < g->out_numel; i++) out[i] = f32 ? sqrtf((float)out[i]) : sqrt(out[i]);
}

/* PyTorch 1.13's norm kernel holds p in a float (`float val`): its forward
 * computes with p rounded to float (a p of 1.0412... gives 1.7e-8 another
 * norm), its backward with p itself. ag's forward does the same. */
static double norm_kernel_p(double p) { return (double)(float)p; }

Tensor *tensor_norm_dims(Tensor *x, double p_given, const int64_t *dims, int ndims,
                         bool keepdim) {
    double p = norm_kernel_p(p_given);
    unsigned mask;
    Groups g;
    Tensor *out = reduce_begin("norm", x, dims, ndims, keepdim, &mask, &g);
    if (!out) return NULL;
    bool ok = true;
    if (x->numel == 0) { /* over no elements: 0, whatever p (PyTorch) */
        memset(tensor_values(out), 0, (size_t)out->numel * sizeof(double));
    } else if (out->numel > 0 && p == 2) {
        norm2_rows(tensor_values(x), &g, x->dtype == AG_FLOAT32, tensor_values(out));
    } else if (out->numel > 0) {
        Tensor *t = ag_tensor_new_like(x);
        ok = t != NULL;
        if (ok) {
            norm_terms(x, p, tensor_values(t));
            ok = reduce_groups(tensor_values(t), g, p == INFINITY ? REDUCE_MAX : p == -INFINITY ? REDUCE_MIN
                                                                                  : REDUCE_SUM,
                               tensor_values(out));
        }
        tensor_release(t);
        if (ok && p != 1 && p != 0 && !isinf(p))
            for (int64_t i = 0; i < out->numel; i++) tensor_values(out)[i] = pow(tensor_values(out)[i], 1 / p);
    }
    if (!ok) return tensor_release(out), NULL;
    return reduce_record(out, AG_OP_NORM, x, (ReduceInfo){.mask = mask, .p = p_given}, NULL);
}

static Tensor *norm_call(const AgOpArgs *a) {
    return tensor_norm_dims(a->t[0], a->has_num[0] ? a->num[0] : 2, a->dims, call_ndims(a),
                            a->flags[0]);
}

const AgOpInfo ag_op_norm = {
    .id = AG_OP_NORM, .name = "norm", .signature = "norm(input, p=2, dim=None, keepdim=False)",
    .params = "Tndb",
    .help = "vector p-norm over dim (all by default): (sum |x|^p)^(1/p); p = inf: max |x|",
    .rule = "grad_x = g * sign(x) |x|^(p-1) / norm^(p-1) (p = 2: g * x / norm, 0 at norm 0; "
            "p = inf: shared by the largest |x|; p = 0: 0)",
    .backward_name = "NormBackward", .call = norm_call, .backward = norm_backward,
    .graph_backward = norm_graph, .flags = AG_OP_METHOD,
    .dtype_rule = AG_DTYPE_FLOAT_ONLY,
};

/* ======================================================================
 * logsumexp: out = log(sum(exp(x - m))) + m, m the maximum over dims (0
 * where it is +-inf, as PyTorch), so that nothing overflows; over no
 * elements, log(0) = -inf. dx = g * exp(x - out): the softmax.
 * exp and log are whole-tensor steps in PyTorch ((x - m).exp_(), log_(),
 * and (x - out).exp() in the backward), its vml kernels: SLEEF's on every
 * element, as apply_all calls them (libm's exp was 6 ulps off).
 * ====================================================================== */

/* v[i] = f(v[i]) for i < n, BLOCK at a time (the last through a padded
 * block): PyTorch's whole-tensor exp and log. */
static void apply_all(MathBlock f, double *v, int64_t n) {
    int64_t full = n - n % BLOCK;
    for (int64_t i = 0; i < full; i += BLOCK) f(v + i, v + i);
    if (full == n) return;
    _Alignas(64) double t[BLOCK] = {0};
    memcpy(t, v + full, (size_t)(n - full) * sizeof *t);
    f(t, t);
    memcpy(v + full, t, (size_t)(n - full) * sizeof *t);
}

static void logsumexp_backward(Function *self, void *ctx, Tensor *g) {
    ReduceCtx *c = ctx;
    Tensor *x = self->inputs[0];
    Groups gr = groups_of(x, c->info.mask);
    Tensor *dx = ag_tensor_new_like(x), *e = dx ? ag_tensor_new_like(x) : NULL;
    if (!e) {
        tensor_release(dx);
        return;
    }
    if (dx->numel > 0) {
        for_rows(ROW_DEV, &gr, tensor_values(x), tensor_values(self->output), NULL, tensor_values(e));
        apply_all(block_exp, tensor_values(e), e->numel);
        for_rows(ROW_SCALE, &gr, tensor_values(e), tensor_values(g), NULL, tensor_values(dx));
    }
    tensor_release(e);
    ag_accumulate_grad(x, dx);
}

/* logsumexp's gradient as recorded ops, logsumexp_backward's order:
 * g * exp(x - out), g and out with the reduced dims kept (exp: the exp op,
 * SLEEF's on whole blocks as apply_all). */
static int logsumexp_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    ReduceCtx *c = ctx;
    Tensor *x = self->inputs[0];
    GradTemps t = {0};
    Tensor *out = ag_grad_tmp(&t, kept_shape(self->output, x, c->info.mask));
    Tensor *e = ag_grad_tmp(&t, tensor_exp(ag_grad_tmp(&t, tensor_sub(x, out))));
    grads[0] = ag_grad_out(&t, tensor_mul(ag_grad_tmp(&t, kept_shape(g, x, c->info.mask)), e));
    return ag_grad_done(&t);
}

Tensor *tensor_logsumexp_dims(Tensor *x, const int64_t *dims, int ndims, bool keepdim) {
    unsigned mask;
    Groups g;
    Tensor *out = reduce_begin("logsumexp", x, dims, ndims, keepdim, &mask, &g);
    if (!out) return NULL;
    bool ok = true;
    if (x->numel == 0) {
        for (int64_t i = 0; i < out->numel; i++) tensor_values(out)[i] = -INFINITY;
    } else {
        Tensor *m = scratch(out->numel), *e = m ? ag_tensor_new_like(x) : NULL;
        ok = e && reduce_groups(tensor_values(x), g, REDUCE_MAX, tensor_values(m));
        double *mv = ok ? tensor_values(m) : NULL;
        for (int64_t i = 0; ok && i < out->numel; i++)
            if (isinf(mv[i])) mv[i] = 0;
        if (ok) {
            for_rows(ROW_DEV, &g, tensor_values(x), tensor_values(m), NULL, tensor_values(e));
            apply_all(block_exp, tensor_values(e), e->numel);
        }
        ok = ok && reduce_groups(tensor_values(e), g, REDUCE_SUM, tensor_values(out));
        if (ok) apply_all(block_log, tensor_values(out), out->numel);
        for (int64_t i = 0; ok && i < out->numel; i++) tensor_values(out)[i] += tensor_values(m)[i];
        tensor_release(e);
        tensor_release(m);
    }
    if (!ok) return tensor_release(out), NULL;
    return reduce_record(out, AG_OP_LOGSUMEXP, x, (ReduceInfo){.mask = mask}, NULL);
}

static Tensor *logsumexp_call(const AgOpArgs *a) {
    return tensor_logsumexp_dims(a->t[0], a->dims, a->num_dims, a->flags[0]);
}

const AgOpInfo ag_op_logsumexp = {
    .id = AG_OP_LOGSUMEXP, .name = "logsumexp", .signature = "logsumexp(input, dim, keepdim=False)",
    .params = "Tdb", .help = "log(sum(exp(x))) over dim, computed without overflow",
    .rule = "grad_x = g * exp(x - logsumexp(x)) (the softmax)",
    .backward_name = "LogsumexpBackward", .call = logsumexp_call, .backward = logsumexp_backward,
    .graph_backward = logsumexp_graph, .flags = AG_OP_METHOD,
    .dtype_rule = AG_DTYPE_FLOATING,
};
