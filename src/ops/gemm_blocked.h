/*
 * gemm_blocked.h — ag_gemm's cache-blocked path (packing, micro-kernel,
 * blocked driver, threads), written once for each type a product computes
 * in. matmul.c includes it twice, defining first:
 *
 *   GK(name)   the instance's name for name (name##_f64, name##_f32)
 *   GK_REAL    double or float: what the packed slivers hold, what the
 *              micro-kernel multiplies and sums in
 *   GK_VL      lanes of one vector of GK_REAL (undefined: the scalar kernel)
 *   GK_MR, GK_NR  the micro-kernel's tile (GK_NR a whole number of vectors)
 *
 * and having defined KC, MC, NC, KERNEL_ATTR, min64, pack_buffer and
 * GEMM_TASK_GRAIN. Tensors are stored as doubles whatever their dtype, so
 * A, B and C are doubles in both instances: the float one converts while it
 * packs (a copy that is made anyway).
 *
 * Every element of C is the reference BLAS's sum, which PyTorch's products
 * are where it calls that BLAS (Debian's build): its products added in K's
 * order, one at a time, each product and each sum rounded (no fused
 * multiply-add), from 0, or from C's value with accumulate. A K step after
 * the first starts its accumulators from C's values, so the K blocking
 * changes no bit either, nor does the tile, thread or path that computes an
 * element.
 */

/* ----------------------------------------------------------------------
 * packing
 * ---------------------------------------------------------------------- */

/* One sliver: dst[p*R + r] = src[r*rs + p*cs] for r < rows, 0 for
 * rows <= r < R (the zero padding of an edge tile), p < kc. R is a constant
 * at every call, so the full-sliver loops unroll. */
static inline void GK(pack_sliver)(GK_REAL *restrict dst, int R, int64_t rows, int64_t kc,
                                   const double *restrict src, int64_t rs, int64_t cs) {
    if (rows == R && rs == 1 && sizeof(GK_REAL) == sizeof(double)) {
        for (int64_t p = 0; p < kc; p++, dst += R, src += cs)
            memcpy(dst, src, (size_t)R * sizeof *dst);
    } else if (rows == R) {
        for (int64_t p = 0; p < kc; p++, dst += R, src += cs)
#pragma GCC unroll 32
            for (int r = 0; r < R; r++) dst[r] = (GK_REAL)src[r * rs];
    } else { /* an edge sliver: zeros (one memset), then the rows there are */
        memset(dst, 0, (size_t)(kc * R) * sizeof *dst);
        for (int64_t p = 0; p < kc; p++, dst += R, src += cs)
            for (int64_t r = 0; r < rows; r++) dst[r] = (GK_REAL)src[r * rs];
    }
}

/* mc rows of op(A) (kc deep) as MR-row slivers; op(A)[i][p] = src[i*rs + p*cs]. */
static void GK(pack_a)(GK_REAL *dst, int64_t mc, int64_t kc, const double *src, int64_t rs,
                       int64_t cs) {
    for (int64_t i = 0; i < mc; i += GK_MR)
        GK(pack_sliver)(dst + i * kc, GK_MR, min64(GK_MR, mc - i), kc, src + i * rs, rs, cs);
}

/* nc columns of op(B) (kc deep) as NR-column slivers; op(B)[p][j] = src[j*rs + p*cs]. */
static void GK(pack_b)(GK_REAL *dst, int64_t nc, int64_t kc, const double *src, int64_t rs,
                       int64_t cs) {
    for (int64_t j = 0; j < nc; j += GK_NR)
        GK(pack_sliver)(dst + j * kc, GK_NR, min64(GK_NR, nc - j), kc, src + j * rs, rs, cs);
}

/* ----------------------------------------------------------------------
 * the micro-kernel
 *
 * c (m x n corner of an MR x NR tile, ldc) (+)= a (MR x kc sliver) @
 * b (kc x NR sliver), both packed; add says whether the sums start from
 * C's values (as GK_REALs) or from 0.
 * ---------------------------------------------------------------------- */

/* The m x n corner of C into acc (rows lda apart), the rest of acc 0; or
 * all of acc 0 unless add: an edge tile's start. */
static void GK(load_tile)(const double *c, int64_t ldc, GK_REAL *acc, int lda, int rows, int m,
                          int n, bool add) {
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < lda; j++)
            acc[i * lda + j] = add && i < m && j < n ? (GK_REAL)c[i * ldc + j] : 0;
}

/* Stores the m x n corner of acc (rows lda apart) into C: the edge-tile
 * mask. */
static void GK(store_tile)(double *c, int64_t ldc, const GK_REAL *acc, int lda, int m, int n) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) c[i * ldc + j] = acc[i * lda + j];
}

#ifdef GK_VL

typedef GK_REAL GK(vec) __attribute__((vector_size(GK_VL * sizeof(GK_REAL))));
typedef double GK(cvec) __attribute__((vector_size(GK_VL * sizeof(double)))); /* C's lanes */

enum {
    GK(NV) = GK_NR / GK_VL,         /* vectors across a tile row */
    GK(C_LINES) = (GK_NR + 7) / 8,  /* cache lines of doubles a tile row covers (aligned) */
    GK(A_AHEAD) = 16 * GK_MR,       /* prefetch distance in the A sliver (elements) */
};

static inline GK(vec) GK(vload)(const GK_REAL *p) {
    GK(vec) v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* GK_VL lanes of C, as GK_REALs, and back. */
static inline GK(vec) GK(load_c)(const double *p) {
    GK(cvec) v;
    memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, GK(vec));
}

static inline void GK(store_c)(double *p, GK(vec) v) {
    GK(cvec) d = __builtin_convertvector(v, GK(cvec));
    memcpy(p, &d, sizeof d);
}

KERNEL_ATTR
static void GK(micro_kernel)(int64_t kc, const GK_REAL *restrict a, const GK_REAL *restrict b,
                             double *restrict c, int64_t ldc, int m, int n, bool add,
                             const double *next) {
    GK(vec) acc[GK_MR][GK(NV)];
    bool full = m == GK_MR && n == GK_NR;
    if (full) {
#pragma GCC unroll 32
        for (int i = 0; i < GK_MR; i++)
#pragma GCC unroll 8
            for (int j = 0; j < GK(NV); j++)
                acc[i][j] = add ? GK(load_c)(c + i * ldc + j * GK_VL) : (GK(vec)){0};
    } else {
        GK_REAL tile[GK_MR * GK_NR];
        GK(load_tile)(c, ldc, tile, GK_NR, GK_MR, m, n, add);
        memcpy(acc, tile, sizeof tile);
    }
    for (int64_t p = 0; p < kc; p++, a += GK_MR, b += GK_NR) {
        /* The next tile's C (a line a step, its first rows' lines: it
         * comes from beyond L2, and the sums start from it); A's sliver
         * streams from L2. Written out here: gcc will not inline a helper
         * into a function with an optimize attribute. */
        if (next && p < GK_MR * GK(C_LINES))
            __builtin_prefetch(next + p / GK(C_LINES) * ldc + p % GK(C_LINES) * 8, 1, 3);
        __builtin_prefetch(a + GK(A_AHEAD), 0, 3);
        GK(vec) bv[GK(NV)];
#pragma GCC unroll 8
        for (int j = 0; j < GK(NV); j++) bv[j] = GK(vload)(b + j * GK_VL);
#pragma GCC unroll 32
        for (int i = 0; i < GK_MR; i++) {
            GK(vec) ai = a[i] - (GK(vec)){0}; /* broadcast (x - 0 is exactly x) */
#pragma GCC unroll 8
            for (int j = 0; j < GK(NV); j++) acc[i][j] += ai * bv[j]; /* two roundings */
        }
    }
    if (full) {
#pragma GCC unroll 32
        for (int i = 0; i < GK_MR; i++)
#pragma GCC unroll 8
            for (int j = 0; j < GK(NV); j++) GK(store_c)(c + i * ldc + j * GK_VL, acc[i][j]);
    } else {
        GK_REAL tile[GK_MR * GK_NR];
        memcpy(tile, acc, sizeof tile);
        GK(store_tile)(c, ldc, tile, GK_NR, m, n);
    }
}

#else /* no vector extensions: the same kernel on scalars */

enum { GK(A_AHEAD) = 0 };

static void GK(micro_kernel)(int64_t kc, const GK_REAL *restrict a, const GK_REAL *restrict b,
                             double *restrict c, int64_t ldc, int m, int n, bool add,
                             const double *next) {
    (void)next;
    GK_REAL acc[GK_MR * GK_NR];
    GK(load_tile)(c, ldc, acc, GK_NR, GK_MR, m, n, add);
    for (int64_t p = 0; p < kc; p++, a += GK_MR, b += GK_NR)
        for (int i = 0; i < GK_MR; i++)
            for (int j = 0; j < GK_NR; j++) acc[i * GK_NR + j] += a[i] * b[j];
    GK(store_tile)(c, ldc, acc, GK_NR, m, n);
}

#endif

/* ----------------------------------------------------------------------
 * the blocked driver
 * ---------------------------------------------------------------------- */

/* The C tiles of one packed MC x KC block of A against a packed KC x NC
 * panel of B, each told the next full tile whose sums start from C. */
static void GK(macro_kernel)(int64_t mc, int64_t nc, int64_t kc, const GK_REAL *ap,
                             const GK_REAL *bp, double *C, int64_t ldc, bool add) {
    for (int64_t jr = 0; jr < nc; jr += GK_NR)
        for (int64_t ir = 0; ir < mc; ir += GK_MR) {
            int64_t ni = ir + GK_MR < mc ? ir + GK_MR : 0, nj = ni ? jr : jr + GK_NR;
            bool next = add && nj + GK_NR <= nc && ni + GK_MR <= mc;
            GK(micro_kernel)(kc, ap + ir * kc, bp + jr * kc, C + ir * ldc + jr, ldc,
                             (int)min64(GK_MR, mc - ir), (int)min64(GK_NR, nc - jr), add,
                             next ? C + ni * ldc + nj : NULL);
        }
}

/* C (+)= op(A) @ op(B), op(A)[i][p] = A[i*a_is + p*a_ps] and op(B)[p][j] =
 * B[j*b_js + p*b_ps], with the pack buffers ap and bp (sized by
 * pack_sizes for at least these M and N). */
static void GK(gemm_blocked)(int64_t M, int64_t N, int64_t K, const double *A, int64_t a_is,
                             int64_t a_ps, const double *B, int64_t b_js, int64_t b_ps,
                             double *C, int64_t ldc, bool accumulate, GK_REAL *ap,
                             GK_REAL *bp) {
    /* K in equal steps of at most KC: no thin last step paying a C pass. */
    int64_t steps = (K + KC - 1) / KC, kstep = (K + steps - 1) / steps;
    for (int64_t jc = 0; jc < N; jc += NC) {
        int64_t nc = min64(NC, N - jc);
        for (int64_t pc = 0; pc < K; pc += kstep) {
            int64_t kc = min64(kstep, K - pc);
            GK(pack_b)(bp, nc, kc, B + jc * b_js + pc * b_ps, b_js, b_ps);
            for (int64_t ic = 0; ic < M; ic += MC) {
                int64_t mc = min64(MC, M - ic);
                GK(pack_a)(ap, mc, kc, A + ic * a_is + pc * a_ps, a_is, a_ps);
                GK(macro_kernel)(mc, nc, kc, ap, bp, C + ic * ldc + jc, ldc,
                                 accumulate || pc > 0);
            }
        }
    }
}

/* The elements gemm_blocked's buffers take for an M x N x K product: A's
 * block (with slack past the last sliver: the A prefetch reads ahead),
 * then B's panel; each a whole number of cache lines. */
static void GK(pack_sizes)(int64_t M, int64_t N, int64_t K, size_t *a, size_t *b) {
    const int64_t line = 64 / sizeof(GK_REAL);
    int64_t steps = (K + KC - 1) / KC, kstep = (K + steps - 1) / steps;
    *a = (size_t)(((min64(M, MC) + GK_MR) * kstep + GK(A_AHEAD) + line) / line * line);
    *b = (size_t)(((min64(N, NC) + GK_NR) * kstep + line) / line * line);
}

/* ----------------------------------------------------------------------
 * threads
 *
 * A large product is split into rectangles of C, whole MR x NR tiles each
 * (bands of rows, or of columns where there are more column tiles), one
 * per task, and each task runs gemm_blocked on its rectangle with pack
 * buffers of its own: every element is the same sum, in the same K
 * steps, wherever its tile lies and whoever computes it, so the bits do
 * not depend on the thread count. Each task packs the whole of the other
 * operand's panel (the price of sharing nothing: 1/(rows of the band) of
 * the work). The buffers are allocated by the caller before the job.
 * ---------------------------------------------------------------------- */

typedef struct {
    int64_t M, N, K, a_is, a_ps, b_js, b_ps, ldc;
    const double *A, *B;
    double *C;
    GK_REAL *buffers;
    bool accumulate, by_rows;
    int64_t tiles;              /* row (MR) or column (NR) tiles to split */
    int tasks;
    size_t a_size, b_size;      /* elements of each task's buffers */
} GK(GemmJob);

static void GK(gemm_task)(void *arg, int task) {
    const GK(GemmJob) *j = arg;
    int64_t per = j->tiles / j->tasks, extra = j->tiles % j->tasks;
    int64_t t0 = task * per + (task < extra ? task : extra), t1 = t0 + per + (task < extra);
    GK_REAL *ap = j->buffers + (size_t)task * (j->a_size + j->b_size), *bp = ap + j->a_size;
    if (j->by_rows) {
        int64_t r0 = t0 * GK_MR, r1 = min64(t1 * GK_MR, j->M);
        GK(gemm_blocked)(r1 - r0, j->N, j->K, j->A + r0 * j->a_is, j->a_is, j->a_ps, j->B,
                         j->b_js, j->b_ps, j->C + r0 * j->ldc, j->ldc, j->accumulate, ap, bp);
    } else {
        int64_t c0 = t0 * GK_NR, c1 = min64(t1 * GK_NR, j->N);
        GK(gemm_blocked)(j->M, c1 - c0, j->K, j->A, j->a_is, j->a_ps, j->B + c0 * j->b_js,
                         j->b_js, j->b_ps, j->C + c0, j->ldc, j->accumulate, ap, bp);
    }
}

/* gemm_blocked over tasks rectangles; false (nothing done) when the
 * buffers cannot be allocated. */
static bool GK(gemm_threaded)(GK(GemmJob) *j) {
    int64_t row_tiles = (j->M + GK_MR - 1) / GK_MR, col_tiles = (j->N + GK_NR - 1) / GK_NR;
    j->by_rows = row_tiles >= col_tiles;
    j->tiles = j->by_rows ? row_tiles : col_tiles;
    if (j->tasks > j->tiles) j->tasks = (int)j->tiles;
    int64_t band = (j->tiles + j->tasks - 1) / j->tasks * (j->by_rows ? GK_MR : GK_NR);
    GK(pack_sizes)(j->by_rows ? band : j->M, j->by_rows ? j->N : band, j->K, &j->a_size,
                   &j->b_size);
    j->buffers = pack_buffer(2, (size_t)j->tasks * (j->a_size + j->b_size) * sizeof(GK_REAL));
    if (!j->buffers) return false;
    ag_parallel_run(j->tasks, GK(gemm_task), j);
    return true;
}

/* C (+)= op(A) @ op(B) on the blocked path (strides as gemm_blocked's), on
 * tasks threads; false (nothing done) if the pack buffers cannot be
 * allocated. */
static bool GK(gemm_run)(int64_t M, int64_t N, int64_t K, const double *A, int64_t a_is,
                         int64_t a_ps, const double *B, int64_t b_js, int64_t b_ps, double *C,
                         int64_t ldc, bool accumulate, int tasks) {
    if (tasks > 1) {
        GK(GemmJob) job = {M, N, K, a_is, a_ps, b_js, b_ps, ldc, A, B, C, NULL, accumulate,
                           false, 0, tasks, 0, 0};
        return GK(gemm_threaded)(&job);
    }
    size_t a_size, b_size;
    GK(pack_sizes)(M, N, K, &a_size, &b_size);
    GK_REAL *ap = pack_buffer(0, a_size * sizeof(GK_REAL));
    GK_REAL *bp = pack_buffer(1, b_size * sizeof(GK_REAL));
    if (!ap || !bp) return false;
    GK(gemm_blocked)(M, N, K, A, a_is, a_ps, B, b_js, b_ps, C, ldc, accumulate, ap, bp);
    return true;
}
