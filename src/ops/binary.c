/*
 * binary.c — the element-wise binary ops with NumPy broadcasting: add, sub,
 * mul, div, pow, and tanh_backward and xlogy (gradients as ops, hidden).
 * Each op's row kernel, forward and backward sit together.
 *
 * Backward kernels produce gradients in the output's shape (invariant 3);
 * ag_accumulate_grad reduces them to each input's shape.
 */
#include "../internal.h"
#include "elementwise.h"

#include <math.h>
#include <string.h>

/* ======================================================================
 * The broadcasting driver
 * ====================================================================== */

/* o[i] = f(a[i*sa], b[i*sb]) for i < n, where sa and sb are 0 or 1; p is
 * the op's number, if it takes one (add's alpha). */
typedef void (*RowKernel)(const double *a, int64_t sa, const double *b, int64_t sb,
                          double *o, int64_t n, double p);

/* Defines a row kernel from an expression in x (from a), y (from b) and p,
 * with a loop per stride pattern so each one is a plain contiguous loop. */
#define ROW_KERNEL(name, EXPR)                                                    \
    static void name(const double *restrict a, int64_t sa, const double *restrict b, \
                     int64_t sb, double *restrict o, int64_t n, double p) {      \
        (void)p;                                                                 \
        if (sa && sb) {                                                          \
            for (int64_t i = 0; i < n; i++) {                                    \
                double x = a[i], y = b[i];                                       \
                o[i] = (EXPR);                                                   \
            }                                                                    \
        } else if (sa) {                                                         \
            const double y = b[0];                                               \
            for (int64_t i = 0; i < n; i++) {                                    \
                double x = a[i];                                                 \
                o[i] = (EXPR);                                                   \
            }                                                                    \
        } else if (sb) {                                                         \
            const double x = a[0];                                               \
            for (int64_t i = 0; i < n; i++) {                                    \
                double y = b[i];                                                 \
                o[i] = (EXPR);                                                   \
            }                                                                    \
        } else {                                                                 \
            const double x = a[0], y = b[0];                                     \
            const double v = (EXPR);                                             \
            for (int64_t i = 0; i < n; i++) o[i] = v;                            \
        }                                                                        \
    }

/* A row kernel over [begin, end) of a flat call, for the threads. */
typedef struct {
    RowKernel kernel;
    const double *a, *b;
    int64_t sa, sb;
    double *o, p;
} FlatJob;

static void flat_range(void *ctx, int64_t begin, int64_t end) {
    const FlatJob *j = ctx;
    j->kernel(j->a + begin * j->sa, j->sa, j->b + begin * j->sb, j->sb, j->o + begin, end - begin,
              j->p);
}

/* kernel over n elements, split between threads above the grain (each
 * element is computed alone: the same bits). */
static void flat_apply(RowKernel kernel, const double *a, int64_t sa, const double *b, int64_t sb,
                       double *o, int64_t n, double p) {
    if (ag_parallel_worth(n, AG_GRAIN_COPY))
        ag_parallel_for(n, AG_GRAIN_COPY, flat_range, &(FlatJob){kernel, a, b, sa, sb, o, p});
    else
        kernel(a, sa, b, sb, o, n, p);
}

/* A new tensor of shape (ndim) holding kernel(a, b, p), a and b broadcast. */
static Tensor *broadcast_apply_p(RowKernel kernel, const Tensor *a, const Tensor *b, double p,
                                 int ndim, const int64_t *shape) {
    Tensor *out = ag_tensor_new(ndim, shape);
    if (!out || out->numel == 0) return out; /* the kernels read a[0], b[0] */
    int64_t n = out->numel;
    bool a_full = a->numel == n, b_full = b->numel == n;
    /* Same shapes, or one side a single value: one flat call. */
    if ((a_full || a->numel == 1) && (b_full || b->numel == 1)) {
        flat_apply(kernel, tensor_values(a), a_full && n > 1, tensor_values(b), b_full && n > 1, tensor_values(out), n, p);
        return out;
    }
    BroadcastIter it;
    double *o = tensor_values(out);
    for (bool more = ag_broadcast_iter_init(&it, ndim, shape, a, b); more;
         more = ag_broadcast_iter_next(&it)) {
        int last = it.ndim - 1;
        kernel(tensor_values(a) + it.offset[0], it.stride[0][last], tensor_values(b) + it.offset[1],
               it.stride[1][last], o, it.row_len, p);
        o += it.row_len;
    }
    return out;
}

/* The same for a kernel that takes no number. */
static Tensor *broadcast_apply(RowKernel kernel, const Tensor *a, const Tensor *b, int ndim,
                               const int64_t *shape) {
    return broadcast_apply_p(kernel, a, b, 0.0, ndim, shape);
}

/* ---- float32 held packed ----
 * A float32 add, sub, mul or div over one shape (or one side a single
 * value) of at least AG_PACK_MIN elements computes in float and holds its
 * result packed (Tensor.packed): half the bytes of the doubles path read
 * and written, and the same bits, since + - * / of two floats computed in
 * double and rounded to float is the float operation's correctly rounded
 * result. An operand held as doubles is narrowed a chunk at a time. */
enum { PACK_CHUNK = 256 };

typedef struct {
    int op;
    const float *af, *bf;   /* an operand's floats when packed, */
    const double *ad, *bd;  /* its doubles otherwise */
    bool a_one, b_one;      /* a single value, for every element */
    float *o;
} PackedJob;

/* Operand elements [at, at + n) as floats: the packed ones themselves, or
 * the doubles narrowed into tmp (a single value: its one element). */
static const float *operand_floats(const float *f, const double *d, bool one, int64_t at, int64_t n,
                                   float *tmp) {
    if (one) at = 0, n = 1;
    if (f) return f + at;
    for (int64_t i = 0; i < n; i++) tmp[i] = (float)d[at + i];
    return tmp;
}

/* o[i] = EXPR of x (from a) and y (from b) for i < n, sa and sb saying
 * which side has n elements (the other has one). */
#define PACKED_LOOPS(EXPR)                                                         \
    if (sa && sb)                                                                  \
        for (int64_t i = 0; i < n; i++) {                                          \
            float x = a[i], y = b[i];                                              \
            o[i] = (EXPR);                                                         \
        }                                                                          \
    else if (sa)                                                                   \
        for (int64_t i = 0, y0 = 0; i < n; i++) {                                  \
            float x = a[i], y = b[y0];                                             \
            o[i] = (EXPR);                                                         \
        }                                                                          \
    else                                                                           \
        for (int64_t i = 0, x0 = 0; i < n; i++) {                                  \
            float x = a[x0], y = b[i];                                             \
            o[i] = (EXPR);                                                         \
        }

static void packed_chunk(int op, const float *restrict a, bool sa, const float *restrict b,
                         bool sb, float *restrict o, int64_t n) {
    switch (op) {
    case AG_OP_ADD: PACKED_LOOPS(x + y) break;
    case AG_OP_SUB: PACKED_LOOPS(x - y) break;
    case AG_OP_MUL: PACKED_LOOPS(x * y) break;
    default: PACKED_LOOPS(x / y) break;
    }
}
#undef PACKED_LOOPS

static void packed_range(void *ctx, int64_t begin, int64_t end) {
    const PackedJob *j = ctx;
    _Alignas(64) float ta[PACK_CHUNK], tb[PACK_CHUNK];
    for (int64_t at = begin; at < end; at += PACK_CHUNK) {
        int64_t n = end - at < PACK_CHUNK ? end - at : PACK_CHUNK;
        const float *a = operand_floats(j->af, j->ad, j->a_one, at, n, ta);
        const float *b = operand_floats(j->bf, j->bd, j->b_one, at, n, tb);
        packed_chunk(j->op, a, !j->a_one, b, !j->b_one, j->o + at, n);
    }
}

/* Whether op on a and b (their common type) into shape (ndim) takes the
 * packed path: one of them has every element of the result, the other
 * those or one. */
static bool packs(int op, const Tensor *a, const Tensor *b, int ndim, const int64_t *shape) {
    if (a->dtype != AG_FLOAT32 || b->dtype != AG_FLOAT32) return false;
    if (op != AG_OP_ADD && op != AG_OP_SUB && op != AG_OP_MUL && op != AG_OP_DIV) return false;
    int64_t n = a->numel > b->numel ? a->numel : b->numel, count = 1;
    if (n < ag_pack_min) return false;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] != 0 && count > n / shape[d]) return false; /* a broadcast past n */
        count *= shape[d];
    }
    return count == n && (a->numel == n || a->numel == 1) && (b->numel == n || b->numel == 1);
}

/* op of a and b into a new packed tensor of shape (ndim). */
static Tensor *packed_apply(int op, const Tensor *a, const Tensor *b, int ndim,
                            const int64_t *shape) {
    Tensor *out = ag_tensor_new_packed(ndim, shape);
    if (!out) return NULL;
    PackedJob j = {.op = op, .a_one = a->numel == 1, .b_one = b->numel == 1, .o = ag_floats(out)};
    if (a->packed) j.af = ag_floats(a);
    else j.ad = tensor_values(a);
    if (b->packed) j.bf = ag_floats(b);
    else j.bd = tensor_values(b);
    if (ag_parallel_worth(out->numel, AG_GRAIN_COPY))
        ag_parallel_for(out->numel, AG_GRAIN_COPY, packed_range, &j);
    else
        packed_range(&j, 0, out->numel);
    return out;
}

/* Forward of a binary op (an id of ops.h): checks, broadcasts, computes,
 * records. */
static Tensor *binary_forward(int op, RowKernel kernel, Tensor *a, Tensor *b) {
    const char *name = ag_op_at(op)->name;
    if (!a || !b) return ag_fail("%s: an operand is NULL", name);
    int64_t shape[AG_MAX_DIMS];
    int ndim;
    if (ag_broadcast_shapes(name, a, b, shape, &ndim) != 0) return NULL;
    Tensor *out;
    if ((a->dtype | b->dtype) == AG_FLOAT64) { /* AG_FLOAT64 is 0: op_overhead's one test */
        out = broadcast_apply(kernel, a, b, ndim, shape);
    } else {
        Tensor *ca, *cb; /* as their common type */
        if (ag_common_operands(a, b, &ca, &cb) != 0) return NULL;
        out = packs(op, ca, cb, ndim, shape) ? packed_apply(op, ca, cb, ndim, shape)
                                             : broadcast_apply(kernel, ca, cb, ndim, shape);
        ag_common_release(ca, a);
        ag_common_release(cb, b);
    }
    return ag_graph_record(out, op, (Tensor *[]){a, b}, 2, NULL, 0);
}

/* A new tensor -g (NULL if it cannot be allocated). */
static Tensor *negated(const Tensor *g) {
    Tensor *r = ag_tensor_new_like(g);
    if (!r) return NULL;
    double *o = tensor_values(r);
    const double *gv = tensor_values(g);
    for (int64_t i = 0; i < g->numel; i++) o[i] = -gv[i];
    return r;
}

ROW_KERNEL(add_rows, x + y)
ROW_KERNEL(sub_rows, x - y)
ROW_KERNEL(add_scaled_rows, fma(y, p, x)) /* x + p * y, one rounding */
ROW_KERNEL(add_scaled_rows_f32, (double)fmaf((float)y, (float)p, (float)x)) /* the same in float */
ROW_KERNEL(mul_rows, x *y)
ROW_KERNEL(div_rows, x / y)

/* ======================================================================
 * add: out = a + alpha * b; grad_a = g, grad_b = g * alpha
 * sub: out = a - alpha * b; grad_a = g, grad_b = -g * alpha
 * alpha 1 (no ctx) is a + b and a - b. Any other alpha is PyTorch's CPU
 * kernel, one rounding: fma(b, alpha, a) (ATen's vec::fmadd(other, alpha,
 * self)), fma(b, -alpha, a) for sub (ATen's sub is add with -alpha); the
 * Function keeps alpha as its ctx, and b's gradient is g * alpha as
 * PyTorch's maybe_multiply (-g * alpha for sub). For float32 operands
 * alpha is a float first, and the fma is float's (fmaf), as PyTorch's
 * float kernel.
 * ====================================================================== */

/* The alpha a Function of add or sub was recorded with (ctx: a double). */
static double recorded_alpha(const void *ctx) { return ctx ? *(const double *)ctx : 1.0; }

/* Forward of add (sign 1) or sub (sign -1) with alpha. */
static Tensor *add_scaled_forward(int op, double sign, Tensor *a, Tensor *b, double alpha) {
    if (alpha == 1.0) return binary_forward(op, sign > 0 ? add_rows : sub_rows, a, b);
    const char *name = ag_op_at(op)->name;
    if (!a || !b) return ag_fail("%s: an operand is NULL", name);
    int64_t shape[AG_MAX_DIMS];
    int ndim;
    Tensor *ca, *cb; /* as their common type */
    if (ag_broadcast_shapes(name, a, b, shape, &ndim) != 0 ||
        ag_common_operands(a, b, &ca, &cb) != 0)
        return NULL;
    /* float32: PyTorch's float kernel, alpha a float (scalar_t) and the fma in float */
    bool f32 = ca->dtype == AG_FLOAT32;
    Tensor *out = broadcast_apply_p(f32 ? add_scaled_rows_f32 : add_scaled_rows, ca, cb,
                                    f32 ? (double)(float)(sign * alpha) : sign * alpha, ndim, shape);
    ag_common_release(ca, a);
    ag_common_release(cb, b);
    void *ctx;
    out = ag_graph_record(out, op, (Tensor *[]){a, b}, 2, &ctx, sizeof(double));
    if (ctx) *(double *)ctx = alpha;
    return out;
}

/* b's gradient, g * (sign * alpha): g itself (retained) for add with
 * alpha 1, -g for sub (NULL if it cannot be allocated). */
static Tensor *scaled_grad(Tensor *g, double sign, double alpha) {
    if (alpha == 1.0) return sign > 0 ? tensor_retain(g) : negated(g);
    Tensor *r = ag_tensor_new_like(g);
    if (!r) return NULL;
    double *o = tensor_values(r);
    const double *gv = tensor_values(g);
    if (g->dtype == AG_FLOAT32) alpha = (float)alpha; /* a float kernel's scalar */
    for (int64_t i = 0; i < g->numel; i++) o[i] = (sign * gv[i]) * alpha;
    return r;
}

/* The gradient passes through unchanged to a: both inputs may share g
 * (ag_accumulate_grad never writes into a gradient another holder can see). */
static void add_backward(Function *self, void *ctx, Tensor *g) {
    ag_accumulate_grad(self->inputs[0], tensor_retain(g));
    if (!self->inputs[1]->requires_grad) return;
    Tensor *gb = scaled_grad(g, 1.0, recorded_alpha(ctx));
    if (gb) ag_accumulate_grad(self->inputs[1], gb);
}

/* add's and sub's gradients as recorded ops, in scaled_grad's order:
 * grad_a = g, grad_b = (sign * g) * alpha. */
static int add_sub_graph(Function *self, void *ctx, Tensor *g, Tensor **grads, double sign) {
    GradTemps t = {0};
    if (ag_grad_wanted(self, 0)) grads[0] = tensor_retain(g);
    if (ag_grad_wanted(self, 1)) {
        double alpha = recorded_alpha(ctx);
        Tensor *signed_g = sign > 0 ? g : ag_grad_tmp(&t, tensor_neg(g));
        grads[1] = ag_grad_out(&t, alpha == 1.0 ? tensor_retain(signed_g)
                                                : tensor_mul(signed_g, ag_grad_num(&t, alpha)));
    }
    return ag_grad_done(&t);
}

static int add_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    return add_sub_graph(self, ctx, g, grads, 1.0);
}

Tensor *tensor_add(Tensor *a, Tensor *b) {
    return binary_forward(AG_OP_ADD, add_rows, a, b);
}

Tensor *tensor_add_scaled(Tensor *a, Tensor *b, double alpha) {
    return add_scaled_forward(AG_OP_ADD, 1.0, a, b, alpha);
}

static Tensor *add_call(const AgOpArgs *a) {
    return tensor_add_scaled(a->t[0], a->t[1], a->has_num[0] ? a->num[0] : 1.0);
}

const AgOpInfo ag_op_add = {
    .id = AG_OP_ADD, .name = "add", .signature = "add(input, other, *, alpha=1)", .params = "TTn",
    .help = "a + alpha * b element-wise, broadcasting (alpha: one rounding, as PyTorch)",
    .rule = "grad_a = g, grad_b = g (each summed back to its input's shape; with alpha=c, "
            "grad_b = g * c)",
    .backward_name = "AddBackward", .call = add_call, .backward = add_backward,
    .graph_backward = add_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
};

static void sub_backward(Function *self, void *ctx, Tensor *g) {
    ag_accumulate_grad(self->inputs[0], tensor_retain(g));
    if (!self->inputs[1]->requires_grad) return;
    Tensor *gb = scaled_grad(g, -1.0, recorded_alpha(ctx));
    if (gb) ag_accumulate_grad(self->inputs[1], gb);
}

static int sub_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    return add_sub_graph(self, ctx, g, grads, -1.0);
}

Tensor *tensor_sub(Tensor *a, Tensor *b) {
    return binary_forward(AG_OP_SUB, sub_rows, a, b);
}

Tensor *tensor_sub_scaled(Tensor *a, Tensor *b, double alpha) {
    return add_scaled_forward(AG_OP_SUB, -1.0, a, b, alpha);
}

static Tensor *sub_call(const AgOpArgs *a) {
    return tensor_sub_scaled(a->t[0], a->t[1], a->has_num[0] ? a->num[0] : 1.0);
}

const AgOpInfo ag_op_sub = {
    .id = AG_OP_SUB, .name = "sub", .signature = "sub(input, other, *, alpha=1)", .params = "TTn",
    .help = "a - alpha * b element-wise, broadcasting (alpha: one rounding, as PyTorch)",
    .rule = "grad_a = g, grad_b = -g (with alpha=c, -g * c)", .backward_name = "SubBackward",
    .call = sub_call, .backward = sub_backward, .graph_backward = sub_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
};

/* ======================================================================
 * mul: out = a * b; grad_a = g * b, grad_b = g * a
 * ====================================================================== */

typedef struct {
    const Tensor *g, *a, *b;
    Tensor *ga, *gb;
} MulGrads;

static void mul_grads_range(void *ctx, int64_t begin, int64_t end) {
    const MulGrads *m = ctx;
    const double *restrict gv = tensor_values(m->g), *restrict av = tensor_values(m->a), *restrict bv = tensor_values(m->b);
    double *restrict gav = tensor_values(m->ga), *restrict gbv = tensor_values(m->gb);
    for (int64_t i = begin; i < end; i++) {
        gav[i] = gv[i] * bv[i];
        gbv[i] = gv[i] * av[i];
    }
}

/* Both gradients in one pass over g, a and b (same shapes, no broadcast). */
static void mul_backward_both(const Tensor *g, const Tensor *a, const Tensor *b, Tensor *ga,
                              Tensor *gb) {
    MulGrads m = {g, a, b, ga, gb};
    if (ag_parallel_worth(g->numel, AG_GRAIN_COPY))
        ag_parallel_for(g->numel, AG_GRAIN_COPY, mul_grads_range, &m);
    else
        mul_grads_range(&m, 0, g->numel);
}

static void mul_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    Tensor *a = self->inputs[0], *b = self->inputs[1];
    if (a->requires_grad && b->requires_grad && a->numel == g->numel && b->numel == g->numel) {
        Tensor *ga = ag_tensor_new_like(g), *gb = ga ? ag_tensor_new_like(g) : NULL;
        if (!gb) {
            tensor_release(ga);
            return;
        }
        mul_backward_both(g, a, b, ga, gb);
        ag_accumulate_grad(a, ga);
        ag_accumulate_grad(b, gb);
        return;
    }
    if (a->requires_grad) {
        Tensor *ga = broadcast_apply(mul_rows, g, b, g->ndim, g->shape);
        if (!ga) return;
        ag_accumulate_grad(a, ga);
    }
    if (b->requires_grad) {
        Tensor *gb = broadcast_apply(mul_rows, g, a, g->ndim, g->shape);
        if (gb) ag_accumulate_grad(b, gb);
    }
}

static int mul_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    if (ag_grad_wanted(self, 0)) grads[0] = ag_grad_out(&t, tensor_mul(g, self->inputs[1]));
    if (ag_grad_wanted(self, 1)) grads[1] = ag_grad_out(&t, tensor_mul(g, self->inputs[0]));
    return ag_grad_done(&t);
}

Tensor *tensor_mul(Tensor *a, Tensor *b) {
    return binary_forward(AG_OP_MUL, mul_rows, a, b);
}

const AgOpInfo ag_op_mul = {
    .id = AG_OP_MUL, .name = "mul", .signature = "mul(input, other)", .params = "TT",
    .help = "a * b element-wise, broadcasting",
    .rule = "grad_a = g * b, grad_b = g * a", .backward_name = "MulBackward",
    .binary = tensor_mul, .backward = mul_backward, .graph_backward = mul_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS,
    .grad_reads = {2, 1}, /* each operand's gradient reads the other */
};

/* ======================================================================
 * div: out = a / b; grad_a = g / b, grad_b = -g * ((a / b) / b)
 * (PyTorch's order: -(g * out) / b would overflow or underflow elsewhere)
 * ====================================================================== */

static void div_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    Tensor *a = self->inputs[0], *b = self->inputs[1];
    if (a->requires_grad) {
        Tensor *ga = broadcast_apply(div_rows, g, b, g->ndim, g->shape);
        if (!ga) return;
        ag_accumulate_grad(a, ga);
    }
    if (b->requires_grad) {
        /* (a / b) / b, then times -g: a / b computed again (the output's
         * bits, its dtype's rounding included), not read from the output,
         * which PyTorch does not save: h = x / w; h += 1 differentiates */
        bool was_enabled = ag_set_grad_enabled(false); /* a constant: no consumer of a */
        Tensor *quotient = tensor_div(a, b);
        ag_set_grad_enabled(was_enabled);
        Tensor *gb = quotient ? broadcast_apply(div_rows, quotient, b, g->ndim, g->shape) : NULL;
        tensor_release(quotient);
        if (!gb) return;
        double *d = tensor_values(gb);
        const double *gv = tensor_values(g);
        for (int64_t i = 0; i < g->numel; i++) d[i] = -gv[i] * d[i];
        ag_accumulate_grad(b, gb);
    }
}

static int div_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *a = self->inputs[0], *b = self->inputs[1];
    if (ag_grad_wanted(self, 0)) grads[0] = ag_grad_out(&t, tensor_div(g, b));
    if (ag_grad_wanted(self, 1)) {
        /* (a / b) / b with a / b computed again, not the output: PyTorch's
         * formula reads the inputs, so a gradient of this gradient goes
         * through a and b, never through the output (whose hooks and
         * retained .grad would see it); the same bits as out / b */
        Tensor *quotient = ag_grad_tmp(&t, tensor_div(a, b));
        Tensor *ratio = ag_grad_tmp(&t, tensor_div(quotient, b));
        grads[1] = ag_grad_out(&t, tensor_mul(ag_grad_tmp(&t, tensor_neg(g)), ratio));
    }
    return ag_grad_done(&t);
}

Tensor *tensor_div(Tensor *a, Tensor *b) {
    return binary_forward(AG_OP_DIV, div_rows, a, b);
}

const AgOpInfo ag_op_div = {
    .id = AG_OP_DIV, .name = "div", .signature = "div(input, other)", .params = "TT",
    .help = "a / b element-wise, broadcasting",
    .rule = "grad_a = g / b, grad_b = -g * a / b^2", .backward_name = "DivBackward",
    .binary = tensor_div, .backward = div_backward, .graph_backward = div_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS,
    .dtype_rule = AG_DTYPE_FLOATING, /* a's gradient reads b; b's a and b */
    .grad_reads = {2, 1 | 2},
};

/* ======================================================================
 * tanh_backward: g * (1 - y^2), 1 - y*y rounded once (tanh's gradient
 * kernel, unary.c), as an op of its own (PyTorch's tanh_backward): tanh's
 * graph_backward makes its gradient with it, so the gradient has the first-
 * order kernel's bits and can be differentiated again:
 *   grad_g = gg * (1 - y^2) (tanh_backward again), grad_y = gg * ((-2 * y) * g)
 * (PyTorch's order, for its bits)
 * Its first-order backward is the same formula (ag_apply_by_graph).
 * ====================================================================== */

ROW_KERNEL(tanh_backward_rows, x * fma(-y, y, 1.0))
/* float32's: tanh's float32 gradient kernel (unary.c), in float */
ROW_KERNEL(tanh_backward_rows_f32, (float)x * fmaf(-(float)y, (float)y, 1.0f))

static int tanh_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *g = self->inputs[0], *y = self->inputs[1];
    if (ag_grad_wanted(self, 0)) grads[0] = ag_grad_out(&t, tensor_tanh_backward(gg, y));
    if (ag_grad_wanted(self, 1)) {
        Tensor *m2y = ag_grad_tmp(&t, tensor_mul(ag_grad_num(&t, -2.0), y));
        grads[1] = ag_grad_out(&t, tensor_mul(gg, ag_grad_tmp(&t, tensor_mul(m2y, g))));
    }
    return ag_grad_done(&t);
}

static void tanh_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, tanh_backward_graph);
}

Tensor *tensor_tanh_backward(Tensor *g, Tensor *y) {
    bool f32 = g && y && g->dtype == AG_FLOAT32 && y->dtype == AG_FLOAT32;
    return binary_forward(AG_OP_TANH_BACKWARD, f32 ? tanh_backward_rows_f32 : tanh_backward_rows,
                          g, y);
}

const AgOpInfo ag_op_tanh_backward = {
    .id = AG_OP_TANH_BACKWARD, .name = "tanh_backward",
    .signature = "tanh_backward(grad, output)", .params = "TT",
    .help = "grad * (1 - output^2): tanh's gradient, an op so it can be differentiated",
    .rule = "grad_grad = gg * (1 - output^2), grad_output = gg * grad * (-2 output)",
    .backward_name = "TanhBackwardBackward", .binary = tensor_tanh_backward,
    .backward = tanh_backward_backward, .graph_backward = tanh_backward_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FLOATING,
};

/* ======================================================================
 * threshold_backward: g where y > 0 (or y is nan), else 0: relu's gradient
 * at its output y (relu's kernel, unary.c), as an op of its own (PyTorch's
 * threshold_backward(grad, result, 0)) so that the gradient depends on y as
 * PyTorch's does: it requires grad when y does, and its derivative in y is
 * zero (a gradient of zeros, not none: differentiating it again gives the
 * input zeros, where a constant mask would leave no graph at all).
 *   grad_g = threshold_backward(gg, y), grad_y = 0
 * Its first-order backward is the same formula (ag_apply_by_graph).
 * ====================================================================== */

ROW_KERNEL(threshold_backward_rows, y <= 0.0 ? 0.0 : x)

static int threshold_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *y = self->inputs[1];
    if (ag_grad_wanted(self, 0)) grads[0] = ag_grad_out(&t, tensor_threshold_backward(gg, y));
    if (ag_grad_wanted(self, 1)) grads[1] = ag_grad_out(&t, ag_tensor_filled_like(y, 0.0));
    return ag_grad_done(&t);
}

static void threshold_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, threshold_backward_graph);
}

Tensor *tensor_threshold_backward(Tensor *g, Tensor *y) {
    return binary_forward(AG_OP_THRESHOLD_BACKWARD, threshold_backward_rows, g, y);
}

const AgOpInfo ag_op_threshold_backward = {
    .id = AG_OP_THRESHOLD_BACKWARD, .name = "threshold_backward",
    .signature = "threshold_backward(grad, output)", .params = "TT",
    .help = "grad where output > 0, else 0: relu's gradient, an op so it can be differentiated",
    .rule = "grad_grad = threshold_backward(gg, output), grad_output = 0",
    .backward_name = "ThresholdBackwardBackward", .binary = tensor_threshold_backward,
    .backward = threshold_backward_backward, .graph_backward = threshold_backward_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FLOATING,
};

/* ======================================================================
 * leaky_relu_backward, hardtanh_backward: leaky_relu's and relu6's
 * gradients at their input x (their kernels, activation.c), ops of their
 * own (PyTorch's) for the reason threshold_backward is one: the gradient
 * depends on x, with a derivative of zeros there.
 *   leaky_relu_backward(g, x; slope) = g where x > 0, else g * slope
 *   hardtanh_backward(g, x) = 0 where x <= 0 or x >= 6, else g (relu6's bounds)
 *   grad_g = the same op of gg, grad_x = 0
 * Their first-order backward is the same formula (ag_apply_by_graph).
 * ====================================================================== */

ROW_KERNEL(leaky_relu_backward_rows, y > 0.0 ? x : x * p)
ROW_KERNEL(hardtanh_backward_rows, y <= 0.0 || y >= 6.0 ? 0.0 : x)

static int leaky_relu_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    GradTemps t = {0};
    Tensor *x = self->inputs[1];
    if (ag_grad_wanted(self, 0))
        grads[0] = ag_grad_out(&t, tensor_leaky_relu_backward(gg, x, *(const double *)ctx));
    if (ag_grad_wanted(self, 1)) grads[1] = ag_grad_out(&t, ag_tensor_filled_like(x, 0.0));
    return ag_grad_done(&t);
}

static void leaky_relu_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, leaky_relu_backward_graph);
}

Tensor *tensor_leaky_relu_backward(Tensor *g, Tensor *x, double slope) {
    const char *name = "leaky_relu_backward";
    if (!g || !x) return ag_fail("%s: an operand is NULL", name);
    int64_t shape[AG_MAX_DIMS];
    int ndim;
    Tensor *cg, *cx; /* as their common type */
    if (ag_broadcast_shapes(name, g, x, shape, &ndim) != 0 ||
        ag_common_operands(g, x, &cg, &cx) != 0)
        return NULL;
    Tensor *out = broadcast_apply_p(leaky_relu_backward_rows, cg, cx, slope, ndim, shape);
    ag_common_release(cg, g);
    ag_common_release(cx, x);
    void *ctx;
    out = ag_graph_record(out, AG_OP_LEAKY_RELU_BACKWARD, (Tensor *[]){g, x}, 2, &ctx,
                          sizeof(double));
    if (ctx) *(double *)ctx = slope;
    return out;
}

static Tensor *leaky_relu_backward_call(const AgOpArgs *a) {
    return tensor_leaky_relu_backward(a->t[0], a->t[1], a->has_num[0] ? a->num[0] : 0.01);
}

const AgOpInfo ag_op_leaky_relu_backward = {
    .id = AG_OP_LEAKY_RELU_BACKWARD, .name = "leaky_relu_backward",
    .signature = "leaky_relu_backward(grad, input, negative_slope=0.01)", .params = "TTn",
    .help = "grad where input > 0, else grad * negative_slope: leaky_relu's gradient, an op so "
            "it can be differentiated",
    .rule = "grad_grad = leaky_relu_backward(gg, input), grad_input = 0",
    .backward_name = "LeakyReluBackwardBackward", .call = leaky_relu_backward_call,
    .backward = leaky_relu_backward_backward, .graph_backward = leaky_relu_backward_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FLOATING,
};

static int hardtanh_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[1];
    if (ag_grad_wanted(self, 0)) grads[0] = ag_grad_out(&t, tensor_hardtanh_backward(gg, x));
    if (ag_grad_wanted(self, 1)) grads[1] = ag_grad_out(&t, ag_tensor_filled_like(x, 0.0));
    return ag_grad_done(&t);
}

static void hardtanh_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, hardtanh_backward_graph);
}

Tensor *tensor_hardtanh_backward(Tensor *g, Tensor *x) {
    return binary_forward(AG_OP_HARDTANH_BACKWARD, hardtanh_backward_rows, g, x);
}

const AgOpInfo ag_op_hardtanh_backward = {
    .id = AG_OP_HARDTANH_BACKWARD, .name = "hardtanh_backward",
    .signature = "hardtanh_backward(grad, input)", .params = "TT",
    .help = "grad where 0 < input < 6, else 0: relu6's gradient, an op so it can be "
            "differentiated",
    .rule = "grad_grad = hardtanh_backward(gg, input), grad_input = 0",
    .backward_name = "HardtanhBackwardBackward", .binary = tensor_hardtanh_backward,
    .backward = hardtanh_backward_backward, .graph_backward = hardtanh_backward_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FLOATING,
};

/* ======================================================================
 * xlogy: a log(b), 0 where a is 0, nan where b is nan: PyTorch's xlogy
 * kernel (a scalar loop: libm's log), hidden; kl_div's gradient takes its
 * log(target) from it, so that gradient can be differentiated again.
 *   grad_a = g * xlogy(a != 0, b), grad_b = (g * a) / b (PyTorch's)
 * Its first-order backward is the same formula (ag_apply_by_graph).
 * ====================================================================== */

ROW_KERNEL(xlogy_rows, isnan(y) ? y : x == 0 ? 0.0 : x * log(y))

static int xlogy_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *a = self->inputs[0], *b = self->inputs[1];
    if (ag_grad_wanted(self, 0)) {
        Tensor *nonzero = ag_grad_tmp(&t, tensor_ne(a, ag_grad_num(&t, 0.0)));
        grads[0] = ag_grad_out(&t, tensor_mul(g, ag_grad_tmp(&t, tensor_xlogy(nonzero, b))));
    }
    if (ag_grad_wanted(self, 1))
        grads[1] = ag_grad_out(&t, tensor_div(ag_grad_tmp(&t, tensor_mul(g, a)), b));
    return ag_grad_done(&t);
}

static void xlogy_backward(Function *self, void *ctx, Tensor *g) {
    ag_apply_by_graph(self, ctx, g, xlogy_graph);
}

Tensor *tensor_xlogy(Tensor *a, Tensor *b) {
    return binary_forward(AG_OP_XLOGY, xlogy_rows, a, b);
}

const AgOpInfo ag_op_xlogy = {
    .id = AG_OP_XLOGY, .name = "xlogy", .signature = "xlogy(input, other)", .params = "TT",
    .help = "input * log(other), 0 where input is 0: kl_div's gradient, an op so it can be "
            "differentiated",
    .rule = "grad_input = g * xlogy(input != 0, other), grad_other = g * input / other",
    .backward_name = "XlogyBackward", .binary = tensor_xlogy, .backward = xlogy_backward,
    .graph_backward = xlogy_graph, .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FLOATING,
};

/* ======================================================================
 * pow: out = a ** b, PyTorch's tensor-tensor pow (std::pow per element)
 *   grad_a = where(b == 0, 0, g * (b * a^(b-1)))
 *   grad_b = g * where(a == 0 and b >= 0, 0, out * log(a))
 * grad_a masks after multiplying by g (an inf or nan g gives 0 at b = 0);
 * grad_b before (PyTorch's pow_backward_self and pow_backward_exponent).
 * ====================================================================== */

ROW_KERNEL(pow_rows, pow(x, y))

/* ---- float32: pow_tensor_scalar's float kernels ----
 * Each of PyTorch's kernels in float: x*x, x*x*x (two roundings), 1/(x*x),
 * 1/sqrtf (rsqrt_kernel), and any other exponent through Sleef_powf8_u10
 * with the exponent as a float on whole steps of 16 (two vectors of 8),
 * std::pow(float, double) (libm's pow, rounded) on the tail; without SLEEF
 * libm's pow on every element. x holds floats; so does o after. */

/* o = x ** e for a block of BLOCK floats (vector: SLEEF's powf) */
static void pow_f32_block(const double *x, float e, double *o) {
    _Alignas(64) float t[BLOCK];
    f32_in(x, t);
    ag_vec_f32_pow(t, e, t);
    f32_out(t, o);
}

static void pow_general_f32(const double *restrict x, double e, double *restrict o, int64_t n) {
    int64_t vec = ag_vec_ready() ? n - n % TORCH_VEC_STEP_F32 : 0, i = 0;
    for (; i < vec; i += BLOCK) pow_f32_block(x + i, (float)e, o + i);
    for (i = vec; i < n; i++) o[i] = (float)pow(x[i], e);
}

static void pow_scalar_f32(const double *restrict x, double e, double *restrict o, int64_t n) {
    if (e == 0.0 || e == 1.0 || e == 0.5 || e == -1.0) { /* exact either way */
        ag_pow_scalar(x, e, o, n);
        return;
    }
    if (e != -0.5 && e != 2.0 && e != 3.0 && e != -2.0) {
        pow_general_f32(x, e, o, n);
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        float v = (float)x[i];
        o[i] = e == -0.5 ? 1.0f / sqrtf(v) : e == 2.0 ? v * v : e == 3.0 ? v * v * v
                                                              : 1.0f / (v * v);
    }
}

/* float32 a ** b of one shape: pow_tensor_tensor's float kernel, SLEEF's
 * powf on whole steps of 16 and powf on the tail (everywhere without
 * SLEEF). */
static void pow_tensors_f32(const double *x, const double *e, double *o, int64_t n) {
    int64_t vec = ag_vec_ready() ? n - n % TORCH_VEC_STEP_F32 : 0, i = 0;
    _Alignas(64) float xf[BLOCK], ef[BLOCK];
    for (; i < vec; i += BLOCK) {
        f32_in(x + i, xf);
        f32_in(e + i, ef);
        ag_vec_f32_pow_tensor(xf, ef, xf);
        f32_out(xf, o + i);
    }
    for (i = vec; i < n; i++) o[i] = powf((float)x[i], (float)e[i]);
}

/* Whether a ** b, neither one element, takes the float32 kernels: both
 * float32, one shape (a broadcast is PyTorch's strided loop: scalar) */
static bool pow_tensors_are_f32(const Tensor *a, const Tensor *b) {
    return a->dtype == AG_FLOAT32 && b->dtype == AG_FLOAT32 &&
           ag_shape_equal(a->ndim, a->shape, b->ndim, b->shape);
}

/* pow_backward's float32 formulas (pow_tensors_are_f32): grad_a = g * (b *
 * a ** (b - 1)), 0 where b is 0; grad_b = g * (out * log a), 0 where a is 0
 * and b >= 0; each product in float. lv: log a (float32's log). */
static void pow_tensors_f32_grads(const Tensor *a, const Tensor *b, const double *out,
                                  const double *lv, const double *gv, Tensor *ga, Tensor *gb) {
    const double *x = tensor_values(a), *e = tensor_values(b);
    int64_t n = a->numel;
    if (ga) {
        double *da = tensor_values(ga);
        for (int64_t i = 0; i < n; i++) da[i] = (float)e[i] - 1.0f;
        pow_tensors_f32(x, da, da, n);
        for (int64_t i = 0; i < n; i++)
            da[i] = e[i] == 0.0 ? 0.0f : (float)gv[i] * ((float)e[i] * (float)da[i]);
    }
    if (gb) {
        double *db = tensor_values(gb);
        for (int64_t i = 0; i < n; i++)
            db[i] = (float)gv[i] * ((x[i] == 0.0 && e[i] >= 0.0) ? 0.0f : (float)out[i] * (float)lv[i]);
    }
}

/* t's values in the output's shape: t itself (retained) when it has it. */
static Tensor *in_shape(Tensor *t, const Tensor *g) {
    if (ag_shape_equal(t->ndim, t->shape, g->ndim, g->shape)) return tensor_retain(t);
    return ag_broadcast_to(t, g->ndim, g->shape);
}

/* PyTorch's pow_backward_self computes exponent - 1, which a bool tensor
 * refuses: x ** mask fails at backward when x requires grad (a Python bool
 * is a number, not a tensor there: pow_zero_exponent). True, with the
 * message set and backward stopped, when it refuses. */
static bool pow_bool_exponent_refused(const Tensor *a, const Tensor *b) {
    if (!a->requires_grad || b->wrapped_number || b->dtype != AG_BOOL) return false;
    ag_fail("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    ag_alloc_failure = true;
    return true;
}

static void pow_scalar_backward(Function *self, Tensor *g);

/* log(a) as the log op computes it (SLEEF's on whole vectors: PyTorch's
 * self.log() in pow_backward_exponent, and pow_graph's), in a's shape;
 * a constant. NULL if it cannot be allocated. */
static Tensor *log_of(Tensor *a) {
    bool was_enabled = ag_set_grad_enabled(false);
    Tensor *r = tensor_log(a);
    ag_set_grad_enabled(was_enabled);
    return r;
}

static void pow_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    Tensor *a = self->inputs[0], *b = self->inputs[1];
    if (pow_bool_exponent_refused(a, b)) return;
    if (b->numel == 1) { /* recorded by the one-element exponent's path */
        pow_scalar_backward(self, g);
        return;
    }
    Tensor *av = in_shape(a, g), *bv = av ? in_shape(b, g) : NULL;
    Tensor *la = bv && b->requires_grad ? log_of(a) : NULL;
    Tensor *lv = la ? in_shape(la, g) : NULL;
    Tensor *ga = bv && a->requires_grad ? ag_tensor_new_like(g) : NULL;
    Tensor *gb = lv ? ag_tensor_new_like(g) : NULL;
    Tensor *held[] = {av, bv, la, lv};
    if (!bv || (a->requires_grad && !ga) || (b->requires_grad && !gb)) {
        for (int i = 0; i < 4; i++) tensor_release(held[i]);
        tensor_release(ga);
        tensor_release(gb);
        return;
    }
    const double *x = tensor_values(av), *e = tensor_values(bv), *out = tensor_values(self->output), *gv = tensor_values(g);
    if (pow_tensors_are_f32(a, b)) {
        pow_tensors_f32_grads(a, b, out, lv ? tensor_values(lv) : NULL, gv, ga, gb);
    } else {
        double *da = ga ? tensor_values(ga) : NULL, *db = gb ? tensor_values(gb) : NULL;
        const double *logs = gb ? tensor_values(lv) : NULL;
        for (int64_t i = 0; i < g->numel; i++) {
            if (da) da[i] = e[i] == 0.0 ? 0.0 : gv[i] * (e[i] * pow(x[i], e[i] - 1.0));
            if (db) db[i] = gv[i] * ((x[i] == 0.0 && e[i] >= 0.0) ? 0.0 : out[i] * logs[i]);
        }
    }
    for (int i = 0; i < 4; i++) tensor_release(held[i]);
    if (ga) ag_accumulate_grad(a, ga);
    if (gb) ag_accumulate_grad(b, gb);
}

/* ---- a one-element exponent: PyTorch's x ** scalar ----
 * ag has no scalar operands: a literal exponent is a 0-d tensor. With one
 * element, pow follows PyTorch's pow_tensor_scalar, whose kernels for
 * common exponents are exact products and roots, not std::pow (they differ
 * in the last bit, and at -inf and -0: sqrt(-inf) is nan where
 * pow(-inf, 0.5) is inf). Its gradient is g * (e * x ** (e - 1)) through the
 * same kernels, and 0 for e = 0 (pow_backward). The exponent's gradient,
 * when it requires grad, is the tensor-tensor rule. */

/* Any other exponent: PyTorch's Vectorized pow, SLEEF's, on whole steps of
 * TORCH_VEC_STEP and std::pow on the tail (where SLEEF is loaded); else
 * libm's pow on every element. */
static void pow_general(const double *restrict x, double e, double *restrict o, int64_t n) {
    int64_t vec = ag_vec_ready() ? n - n % TORCH_VEC_STEP : 0, i = 0;
    for (; i + BLOCK <= vec; i += BLOCK) ag_vec_pow(x + i, e, o + i);
    if (i < vec) {
        _Alignas(64) double t[BLOCK] = {0};
        memcpy(t, x + i, (size_t)(vec - i) * sizeof *t);
        ag_vec_pow(t, e, t);
        memcpy(o + i, t, (size_t)(vec - i) * sizeof *t);
    }
    for (i = vec; i < n; i++) o[i] = pow(x[i], e);
}

/* o[i] = x[i] ** e by PyTorch's kernel for e (internal.h). */
void ag_pow_scalar(const double *restrict x, double e, double *restrict o, int64_t n) {
    if (e == 0.0)
        for (int64_t i = 0; i < n; i++) o[i] = 1.0;
    else if (e == 1.0)
        for (int64_t i = 0; i < n; i++) o[i] = x[i];
    else if (e == 0.5)
        for (int64_t i = 0; i < n; i++) o[i] = sqrt(x[i]);
    else if (e == -0.5)
        for (int64_t i = 0; i < n; i++) o[i] = 1.0 / sqrt(x[i]);
    else if (e == -1.0)
        for (int64_t i = 0; i < n; i++) o[i] = 1.0 / x[i];
    else if (e == 2.0)
        for (int64_t i = 0; i < n; i++) o[i] = x[i] * x[i];
    else if (e == 3.0)
        for (int64_t i = 0; i < n; i++) o[i] = x[i] * x[i] * x[i];
    else if (e == -2.0)
        for (int64_t i = 0; i < n; i++) o[i] = 1.0 / (x[i] * x[i]);
    else
        pow_general(x, e, o, n);
}

/* x ** e by the kernels of x's type: float32's when f32 */
static void pow_scalar_as(bool f32, const double *restrict x, double e, double *restrict o,
                          int64_t n) {
    if (f32)
        pow_scalar_f32(x, e, o, n);
    else
        ag_pow_scalar(x, e, o, n);
}

/* a (..) ** e (one element) -> out (broadcast shape, a's elements in order);
 * grad_a = g * (e * a ** (e - 1)) (0 for e = 0), grad_e as pow_backward's. */
/* Whether x ** e's gradient is zeros: PyTorch's pow_backward gives zeros
 * for a number exponent equal to 0, but a Python bool never equals a
 * number there (c10::Scalar::equal), so x ** False takes the formula,
 * g * (0 * x ** -1): nan where x is 0 or g is infinite. */
static bool pow_zero_exponent(const Tensor *b) {
    return tensor_values(b)[0] == 0.0 && !(b->wrapped_number && b->dtype == AG_BOOL);
}

static void pow_scalar_backward(Function *self, Tensor *g) {
    Tensor *a = self->inputs[0], *b = self->inputs[1];
    double e = tensor_values(b)[0];
    const double *x = tensor_values(a), *gv = tensor_values(g), *out = tensor_values(self->output);
    if (a->requires_grad) {
        Tensor *ga = ag_tensor_new_like(g);
        if (!ga) return;
        bool f32 = self->output->dtype == AG_FLOAT32 && a->dtype == AG_FLOAT32;
        double *da = tensor_values(ga);
        if (pow_zero_exponent(b)) {
            memset(da, 0, (size_t)ga->numel * sizeof(double));
        } else if (f32) { /* e * x ** (e - 1) in float, then g times it */
            pow_scalar_f32(x, e - 1.0, da, ga->numel);
            for (int64_t i = 0; i < ga->numel; i++) da[i] = (float)gv[i] * ((float)e * (float)da[i]);
        } else {
            ag_pow_scalar(x, e - 1.0, da, ga->numel);
            for (int64_t i = 0; i < ga->numel; i++) da[i] = gv[i] * (e * da[i]);
        }
        ag_accumulate_grad(a, ga);
    }
    if (b->requires_grad) {
        Tensor *la = log_of(a), *gb = la ? ag_tensor_new_like(g) : NULL;
        if (!gb) {
            tensor_release(la);
            return;
        }
        double *db = tensor_values(gb);
        const double *logs = tensor_values(la);
        for (int64_t i = 0; i < gb->numel; i++)
            db[i] = gv[i] * ((x[i] == 0.0 && e >= 0.0) ? 0.0 : out[i] * logs[i]);
        tensor_release(la);
        ag_accumulate_grad(b, gb);
    }
}

/* pow's gradients as recorded ops, pow_backward's and pow_scalar_backward's
 * formulas (a one-element exponent: its kernels, by tensor_pow's own path):
 *   grad_a = where(b == 0, 0, g * (b * a ** (b - 1)))
 *   grad_b = g * where(a == 0 & b >= 0, 0, out * log(a))
 * A number exponent (x ** 3) takes PyTorch's pow(Tensor, Scalar) rule,
 * without the where: g * (3 * x ** 2) (MulBackward, as PyTorch shows it),
 * and zeros for x ** 0. */
static int pow_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    if (pow_bool_exponent_refused(self->inputs[0], self->inputs[1])) return -1;
    GradTemps t = {0};
    Tensor *a = self->inputs[0], *b = self->inputs[1], *zero = ag_grad_num(&t, 0.0);
    bool number = b->wrapped_number;
    if (ag_grad_wanted(self, 0) && number && pow_zero_exponent(b)) {
        grads[0] = ag_grad_out(&t, ag_tensor_filled_like(g, 0.0));
    } else if (ag_grad_wanted(self, 0)) {
        Tensor *b1 = ag_grad_tmp(&t, number ? tensor_number(tensor_values(b)[0] - 1.0, (AgDtype)b->dtype)
                                            : tensor_sub(b, ag_grad_num(&t, 1.0)));
        Tensor *d = ag_grad_tmp(&t, tensor_mul(b, ag_grad_tmp(&t, tensor_pow(a, b1))));
        Tensor *ga = number ? g : ag_grad_tmp(&t, tensor_mul(g, d));
        grads[0] = ag_grad_out(&t, number ? tensor_mul(g, d)
                               : tensor_where(ag_grad_tmp(&t, tensor_eq(b, zero)), zero, ga));
    }
    if (ag_grad_wanted(self, 1)) {
        Tensor *at0 = ag_grad_tmp(&t, tensor_logical_and(ag_grad_tmp(&t, tensor_eq(a, zero)),
                                                         ag_grad_tmp(&t, tensor_ge(b, zero))));
        Tensor *ol = ag_grad_tmp(&t, tensor_mul(self->output, ag_grad_tmp(&t, tensor_log(a))));
        grads[1] = ag_grad_out(&t, tensor_mul(g, ag_grad_tmp(&t, tensor_where(at0, zero, ol))));
    }
    return ag_grad_done(&t);
}

/* PyTorch's names of its overloads: x ** 2 (a number) is PowBackward0,
 * pow.Tensor_Tensor (x ** t, 2 ** x) PowBackward1. PowBackward1 saves its
 * result whenever it is recorded (its exponent's formula reads it; PyTorch
 * 1.13 saves a result unconditionally), so changing the result in place
 * is refused even when the exponent does not require grad. */
static Tensor *pow_named(Tensor *out, const Tensor *b) {
    if (out && out->grad_fn && !b->wrapped_number) {
        out->op_name = out->grad_fn->name = "PowBackward1";
        out->grad_fn->checks_versions |= AG_CHECKS_OUTPUT;
    }
    return out;
}

Tensor *tensor_pow(Tensor *a, Tensor *b) {
    if (a && b && b->numel != 1 && pow_tensors_are_f32(a, b)) {
        Tensor *out = ag_tensor_new_like(a);
        if (!out) return NULL;
        pow_tensors_f32(tensor_values(a), tensor_values(b), tensor_values(out), out->numel);
        return pow_named(ag_graph_record(out, AG_OP_POW, (Tensor *[]){a, b}, 2, NULL, 0), b);
    }
    if (!a || !b || b->numel != 1) return b ? pow_named(binary_forward(AG_OP_POW, pow_rows, a, b), b)
                                            : binary_forward(AG_OP_POW, pow_rows, a, b);
    int64_t shape[AG_MAX_DIMS];
    int ndim;
    if (ag_broadcast_shapes("pow", a, b, shape, &ndim) != 0) return NULL;
    Tensor *out = ag_tensor_new(ndim, shape); /* a's elements, in a's order */
    if (!out) return NULL;
    /* x32 ** 1.6 raises to the double 1.6, as PyTorch's scalar loop does
     * (std::pow(float, double)); its vector loop, on 8 elements at a time,
     * rounds the exponent to float first: ag follows each (float32) */
    bool f32 = a->dtype == AG_FLOAT32 && ag_result_type((Tensor *[]){a, b}, 2) == AG_FLOAT32;
    /* A tensor exponent (not a number) is PyTorch's pow.Tensor_Tensor,
     * PowBackward1, whose operands are cast to the common type first: a
     * float64 one beside x32 is rounded to float (1e-310 becomes 0) */
    double e = f32 && !b->wrapped_number ? (double)(float)tensor_values(b)[0] : tensor_values(b)[0];
    pow_scalar_as(f32, tensor_values(a), e, tensor_values(out), out->numel);
    return pow_named(ag_graph_record(out, AG_OP_POW, (Tensor *[]){a, b}, 2, NULL, 0), b);
}

const AgOpInfo ag_op_pow = {
    .id = AG_OP_POW, .name = "pow", .signature = "pow(input, exponent)", .params = "TT",
    .help = "x ** p element-wise, broadcasting",
    .rule = "grad_a = g * b * a^(b-1), grad_b = g * a^b * log(a)", .backward_name = "PowBackward",
    .binary = tensor_pow, .backward = pow_backward, .graph_backward = pow_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS,
    .grad_reads = {1 | 2, 1 | 2 | AG_CHECKS_OUTPUT}, /* grad_b reads the result too */
};
