/*
 * loss.c — the losses of torch.nn.functional, as PyTorch 1.13 defines them
 * (values, defaults, gradients, and the order of operations of each):
 *   element-wise  mse_loss, l1_loss, smooth_l1_loss, huber_loss,
 *                 binary_cross_entropy(_with_logits), kl_div,
 *                 hinge_embedding_loss
 *   class indices nll_loss, cross_entropy
 *   rows          cosine_embedding_loss, triplet_margin_loss
 *
 * Every loss is one node of the graph, even where PyTorch records several
 * ops (l1_loss, kl_div and the embedding losses are composites there): its
 * backward follows PyTorch's chain of derivatives in PyTorch's order.
 * Each computes its element losses; reduce_losses makes the reduction
 * ('mean', 'sum' or 'none') of every loss, and upstream hands each element
 * its g in backward. Not here: class weights and ignore_index for
 * nll_loss/cross_entropy, label_smoothing, probabilities as targets of
 * cross_entropy (docs/language.md, "Losses").
 */
#include "../internal.h"

#include <math.h>
#include <string.h>

/* ======================================================================
 * Reductions: one helper for every loss
 * ====================================================================== */

/* What a loss's Function keeps: its reduction and its numbers. */
typedef struct {
    AgReduction reduction;
    double n;          /* what 'mean' divides by (1 for 'sum' and 'none') */
    double param[3];   /* beta, delta, margin, p, eps: each loss says which */
    bool flag;         /* log_target, swap */
    bool weight;       /* inputs[2] is the weight */
    bool pos_weight;   /* inputs[2 + weight] is the pos_weight */
    bool float32;      /* a float32 result of a float64 input (bce_with_logits' float32
                          target): PyTorch's in-place steps round each to float, and
                          its mean sums in float */
} LossCtx;

static const char *const reduction_names[] = {"mean", "sum", "none", "batchmean"};

/* The choices, as messages list them. */
static const char *reduction_choices(bool batchmean) {
    return batchmean ? "'mean', 'batchmean', 'sum' or 'none'" : "'mean', 'sum' or 'none'";
}

/* r, checked for op (batchmean is kl_div's); -1 with a message. */
static int check_reduction(const char *op, AgReduction r, bool batchmean) {
    if (r == AG_REDUCTION_MEAN || r == AG_REDUCTION_SUM || r == AG_REDUCTION_NONE ||
        (batchmean && r == AG_REDUCTION_BATCHMEAN))
        return 0;
    ag_fail("%s: reduction must be %s, not %d", op, reduction_choices(batchmean), (int)r);
    return -1;
}

/* The reduction a call's string names (none given: 'mean'); -1 with a
 * message listing the choices. */
static int parse_reduction(int op, const AgOpArgs *a, AgReduction *r) {
    bool batchmean = op == AG_OP_KL_DIV;
    *r = AG_REDUCTION_MEAN;
    if (!a->str) return 0;
    for (int k = 0; k < (batchmean ? 4 : 3); k++)
        if (strlen(reduction_names[k]) == a->str_len &&
            memcmp(reduction_names[k], a->str, a->str_len) == 0) {
            *r = (AgReduction)k;
            return 0;
        }
    ag_fail("%s: reduction must be %s, not '%.*s'", ag_op_at(op)->name,
            reduction_choices(batchmean), (int)(a->str_len > 40 ? 40 : a->str_len), a->str);
    return -1;
}

/* What 'mean' divides the sum of count element losses by: count; for
 * 'batchmean', input's first size (1 for a 0-d input, as PyTorch); 1 for
 * 'sum' and 'none'. */
static double divisor(AgReduction r, int64_t count, const Tensor *input) {
    if (r == AG_REDUCTION_MEAN) return (double)count;
    if (r == AG_REDUCTION_BATCHMEAN) return input->ndim > 0 ? (double)input->shape[0] : 1.0;
    return 1.0;
}

/* The loss from its element losses (owned): elems itself for 'none', else
 * a new 0-d tensor holding their pairwise sum, divided by n for 'mean' and
 * 'batchmean' (nan for no elements, as PyTorch). NULL if that fails. */
static double plain_sum(const double *v, int64_t n) { return ag_sum(v, n, 1); }

/* The losses reduced as c says, their sum taken by sum (PyTorch's order for
 * that loss); elems taken. */
static Tensor *reduce_losses_by(Tensor *elems, const LossCtx *c,
                                double (*sum)(const double *, int64_t)) {
    if (!elems || c->reduction == AG_REDUCTION_NONE) return elems;
    Tensor *out = ag_tensor_new(0, NULL);
    if (out) {
        double s = sum(tensor_values(elems), elems->numel);
        tensor_values(out)[0] = c->reduction == AG_REDUCTION_SUM ? s : s / c->n;
    }
    tensor_release(elems);
    return out;
}

static double f32_sum(const double *v, int64_t n) { return ag_sum_f32(v, n, 1); }

static Tensor *reduce_losses(Tensor *elems, const LossCtx *c) {
    return reduce_losses_by(elems, c, c->float32 ? f32_sum : plain_sum);
}

/* What element i's loss receives in backward: g[i * step] for 'none', the
 * one g otherwise, and n, by which 'mean' divides it (1 otherwise). Each
 * loss applies n where PyTorch does: its composites divide g first
 * (MeanBackward), its fused losses multiply by norm = 1 / n or divide at
 * the end. */
typedef struct {
    const double *g;
    int64_t step;
    double n;
} Upstream;

static Upstream upstream(const Tensor *g, const LossCtx *c) {
    return (Upstream){tensor_values(g), c->reduction == AG_REDUCTION_NONE ? 1 : 0, c->n};
}

/* PyTorch's sum of nll_loss's picked values (nll_loss_out_frame and its
 * 2d form, 1.13): eight levels of partial sums; after element b, level
 * j + 1 takes level j's while b's level_power bits at level j are all
 * zero; then the levels are added from the lowest, starting at 0. Not
 * ag_sum's order: the two part in the last bit (cross_entropy of 8 rows).
 * In double for a float32 input too (its accumulate type), the mean
 * rounded to float at the end. */
static double nll_cascade_sum(const double *v, int64_t n) {
    enum { LEVELS = 8 };
    int64_t ceil_log2 = 1;
    while (n > 2 && ((int64_t)1 << ceil_log2) < n) ceil_log2++;
    int64_t power = ceil_log2 / LEVELS < 4 ? 4 : ceil_log2 / LEVELS;
    int64_t mask = ((int64_t)1 << power) - 1;
    double partial[LEVELS] = {0};
    for (int64_t b = 0; b < n; b++) {
        partial[0] += v[b];
        for (int j = 0; j + 1 < LEVELS && (b & (mask << (j * power))) == 0; j++) {
            partial[j + 1] += partial[j];
            partial[j] = 0;
        }
    }
    double total = 0;
    for (int j = 0; j < LEVELS; j++) total += partial[j];
    return total;
}

/* Records out (the reduced loss) for op with its ctx. */
static Tensor *record_loss(Tensor *out, int op, Tensor *const *inputs, int n, const LossCtx *c) {
    LossCtx *saved;
    out = ag_graph_record(out, op, inputs, n, (void **)&saved, sizeof *saved);
    if (saved) *saved = *c;
    return out;
}

/* t's values in shape (ndim, shape), which t broadcasts to: its own data,
 * or a copy into *copy (NULL with a message if it cannot be made). */
static const double *data_as(const Tensor *t, int ndim, const int64_t *shape, Tensor **copy) {
    *copy = NULL;
    if (ag_shape_equal(t->ndim, t->shape, ndim, shape)) return tensor_values(t);
    *copy = ag_broadcast_to(t, ndim, shape);
    return *copy ? tensor_values((*copy)) : NULL;
}

/* PyTorch's EPSILON of bce's gradient and cosine_embedding_loss: the float
 * nearest 1e-12 (9.99999996e-13), not the double. */
static const double EPSILON = 1e-12f;

/* x sign: -1, 0 or 1 (0 at 0 and nan), PyTorch's sgn of a real number. */
static double sgn(double x) { return (double)((x > 0) - (x < 0)); }

/* PyTorch's clamp_min(v, 0): nan stays nan. */
static double clamp_min0(double v) { return v < 0 ? 0.0 : v; }

/* ======================================================================
 * The element-wise losses: input x and target t (broadcast, or of one
 * shape where PyTorch requires it), and a weight w and pos_weight pw that
 * broadcast to them. Each loss has a loop computing its element losses
 * and one computing grad_x and grad_t from g.
 * ====================================================================== */

/* The operands in the element losses' shape; w and pw NULL when absent. */
typedef struct {
    const double *x, *t, *w, *pw;
    int64_t n;
} Elems;

typedef struct {
    Elems e;
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    Tensor *copy[4];
} ElemView;

static void elems_close(ElemView *v) {
    for (int k = 0; k < 4; k++) tensor_release(v->copy[k]);
}

/* Views in = {x, t, w, pw} in the broadcast shape of x and t, copying
 * only what has another shape. -1 (with a message, nothing held) if x and
 * t do not broadcast or a copy cannot be made. */
static int elems_open(const char *op, Tensor *const in[4], ElemView *v) {
    memset(v, 0, sizeof *v);
    if (ag_broadcast_shapes(op, in[0], in[1], v->shape, &v->ndim) != 0) return -1;
    const double **data[4] = {&v->e.x, &v->e.t, &v->e.w, &v->e.pw};
    for (int k = 0; k < 4; k++)
        if (in[k] && !(*data[k] = data_as(in[k], v->ndim, v->shape, &v->copy[k]))) {
            elems_close(v);
            return -1;
        }
    v->e.n = ag_shape_prod(v->shape, 0, v->ndim);
    return 0;
}

typedef void (*ElemLossFn)(const LossCtx *c, const Elems *e, double *out);
/* dx, dt: NULL when that gradient is not wanted. */
typedef void (*ElemGradFn)(const LossCtx *c, const Elems *e, Upstream u, double *dx, double *dt);

/* The forward of an element-wise loss on in = {x, t, w, pw} (checked by
 * the caller), with c's reduction and numbers. */
static Tensor *elementwise_loss(int op, Tensor *const in[4], LossCtx c, ElemLossFn losses) {
    ElemView v;
    if (elems_open(ag_op_at(op)->name, in, &v) != 0) return NULL;
    c.n = divisor(c.reduction, v.e.n, in[0]);
    c.weight = in[2] != NULL;
    c.pos_weight = in[3] != NULL;
    Tensor *elems = ag_tensor_new(v.ndim, v.shape);
    if (elems) losses(&c, &v.e, tensor_values(elems));
    elems_close(&v);
    Tensor *inputs[4];
    int n = 0;
    for (int k = 0; k < 4; k++)
        if (in[k]) inputs[n++] = in[k];
    return record_loss(reduce_losses(elems, &c), op, inputs, n, &c);
}

/* The backward of an element-wise loss: grad_x, and grad_t when the loss
 * differentiates its target, in the element losses' shape
 * (ag_accumulate_grad sums them back over broadcast dimensions). */
static void elementwise_backward(Function *self, const LossCtx *c, const Tensor *g,
                                 ElemGradFn grads, bool target_differentiable) {
    Tensor *in[4] = {self->inputs[0], self->inputs[1], NULL, NULL};
    if (c->weight) in[2] = self->inputs[2];
    if (c->pos_weight) in[3] = self->inputs[2 + c->weight];
    bool want_x = in[0]->requires_grad, want_t = target_differentiable && in[1]->requires_grad;
    ElemView v;
    if ((!want_x && !want_t) || elems_open(self->name, in, &v) != 0) return;
    Tensor *dx = want_x ? ag_tensor_new(v.ndim, v.shape) : NULL;
    Tensor *dt = want_t ? ag_tensor_new(v.ndim, v.shape) : NULL;
    if ((want_x && !dx) || (want_t && !dt)) {
        tensor_release(dx);
        tensor_release(dt);
        elems_close(&v);
        return;
    }
    grads(c, &v.e, upstream(g, c), dx ? tensor_values(dx) : NULL, dt ? tensor_values(dt) : NULL);
    elems_close(&v);
    if (dx) ag_accumulate_grad(in[0], dx);
    if (dt) ag_accumulate_grad(in[1], dt);
}

/* ---- graph_backwards: the same gradients in recorded ops ----
 * Each writes its loss's first-order loop as recorded ops in the loop's
 * order of operations (so the bits are the kernel's), each temporary kept
 * in the GradTemps its fn or helper opened. */

/* a op b, kept in s. */
static Tensor *gmul(GradTemps *s, Tensor *a, Tensor *b) { return ag_grad_tmp(s, tensor_mul(a, b)); }
static Tensor *gdiv(GradTemps *s, Tensor *a, Tensor *b) { return ag_grad_tmp(s, tensor_div(a, b)); }
static Tensor *gsub(GradTemps *s, Tensor *a, Tensor *b) { return ag_grad_tmp(s, tensor_sub(a, b)); }
static Tensor *gadd(GradTemps *s, Tensor *a, Tensor *b) { return ag_grad_tmp(s, tensor_add(a, b)); }
static Tensor *gneg(GradTemps *s, Tensor *a) { return ag_grad_tmp(s, tensor_neg(a)); }
static Tensor *gwhere(GradTemps *s, Tensor *c, Tensor *a, Tensor *b) {
    return ag_grad_tmp(s, tensor_where(c, a, b));
}

/* G = g / n, what each element loss receives (n is 1 but for 'mean'). */
static Tensor *shared_g(GradTemps *s, Tensor *g, const LossCtx *c) {
    return gdiv(s, g, ag_grad_num(s, c->n));
}

/* The operands of an element-wise loss's Function: w and pw NULL when absent. */
typedef struct {
    Tensor *x, *t, *w, *pw;
} LossOperands;

static LossOperands loss_operands(const Function *self, const LossCtx *c) {
    return (LossOperands){self->inputs[0], self->inputs[1], c->weight ? self->inputs[2] : NULL,
                          c->pos_weight ? self->inputs[2 + c->weight] : NULL};
}

/* (d w) / n, the loops' last step (d * w / u.n; d itself times an absent
 * weight's 1.0): a new reference or NULL. */
static Tensor *weighted_share(GradTemps *s, Tensor *d, Tensor *w, const LossCtx *c) {
    return tensor_div(w ? gmul(s, d, w) : d, ag_grad_num(s, c->n));
}

/* r (a new reference, or NULL) handed out of a helper's own GradTemps:
 * NULL, r released, when the helper failed. */
static Tensor *grad_result(GradTemps *s, Tensor *r) {
    ag_grad_note(s, r);
    if (ag_grad_done(s) == 0) return r;
    tensor_release(r);
    return NULL;
}

/* v in the element losses' shape, the broadcast of input and target
 * (expanded where v has a smaller one: a gradient must broadcast from
 * its input's shape). */
static Tensor *in_elems(GradTemps *s, Tensor *v, const Function *self) {
    int64_t shape[AG_MAX_DIMS];
    int ndim;
    if (ag_broadcast_shapes(self->name, self->inputs[0], self->inputs[1], shape, &ndim) != 0)
        return ag_grad_tmp(s, NULL);
    if (ag_shape_equal(v->ndim, v->shape, ndim, shape)) return v;
    return ag_grad_tmp(s, tensor_expand(v, ndim, shape));
}

/* A loss of input and target that broadcast, as PyTorch's F.mse_loss,
 * l1_loss, smooth_l1_loss, huber_loss (with a warning) and kl_div and
 * hinge_embedding_loss (silently) broadcast them. */
static Tensor *broadcast_loss(int op, Tensor *x, Tensor *t, AgReduction r, LossCtx c,
                              ElemLossFn losses) {
    const char *name = ag_op_at(op)->name;
    if (!x || !t) return ag_fail("%s: an argument is NULL", name);
    if (check_reduction(name, r, op == AG_OP_KL_DIV) != 0) return NULL;
    c.reduction = r;
    return elementwise_loss(op, (Tensor *[4]){x, t, NULL, NULL}, c, losses);
}

/* The shell's call of a loss of (input, target, reduction). */
static Tensor *call_pair(int op, const AgOpArgs *a,
                         Tensor *(*fn)(Tensor *, Tensor *, AgReduction)) {
    AgReduction r;
    return parse_reduction(op, a, &r) != 0 ? NULL : fn(a->t[0], a->t[1], r);
}

/* ======================================================================
 * mse_loss: (x - t)^2
 *   grad_x = norm * (x - t) * g, grad_t = norm * (t - x) * g, norm = 2 / n
 *   (PyTorch's mse_loss_backward, in its order)
 * ====================================================================== */

static void mse_losses(const LossCtx *c, const Elems *e, double *out) {
    (void)c;
    SIMD_LOOP for (int64_t i = 0; i < e->n; i++) {
        double d = e->x[i] - e->t[i];
        out[i] = d * d;
    }
}

static void mse_grads(const LossCtx *c, const Elems *e, Upstream u, double *dx, double *dt) {
    (void)c;
    double norm = 2.0 / u.n;
    const double *x = e->x, *t = e->t, *g = u.g;
    int64_t s = u.step;
    if (dx) SIMD_LOOP for (int64_t i = 0; i < e->n; i++) dx[i] = norm * (x[i] - t[i]) * g[i * s];
    if (dt) SIMD_LOOP for (int64_t i = 0; i < e->n; i++) dt[i] = norm * (t[i] - x[i]) * g[i * s];
}

/* PyTorch's mse_loss and huber_loss backward kernels take input and
 * target of one dtype (TensorIterator's check; pytorch#36553, open in 2.x):
 * a float32 target of a float64 input is refused at backward, where the
 * forward computed. -1 then, backward stopped. */
static int one_dtype_backward(const Function *self) {
    const Tensor *x = self->inputs[0], *t = self->inputs[1];
    if (x->dtype == t->dtype) return 0;
    ag_fail("Found dtype %s but expected %s", ag_dtype_scalar_name((AgDtype)t->dtype),
            ag_dtype_scalar_name((AgDtype)x->dtype));
    ag_alloc_failure = true; /* backward stops */
    return -1;
}

static void mse_backward(Function *self, void *ctx, Tensor *g) {
    if (one_dtype_backward(self) == 0) elementwise_backward(self, ctx, g, mse_grads, true);
}

/* grad_x = ((2 / n) (x - t)) g, grad_t = ((2 / n) (t - x)) g */
static int mse_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const LossCtx *c = ctx;
    if (one_dtype_backward(self) != 0) return -1;
    GradTemps s = {0};
    Tensor *x = self->inputs[0], *t = self->inputs[1], *norm = ag_grad_num(&s, 2.0 / c->n);
    if (ag_grad_wanted(self, 0))
        grads[0] = ag_grad_out(&s, tensor_mul(gmul(&s, norm, gsub(&s, x, t)), g));
    if (ag_grad_wanted(self, 1))
        grads[1] = ag_grad_out(&s, tensor_mul(gmul(&s, norm, gsub(&s, t, x)), g));
    return ag_grad_done(&s);
}

Tensor *tensor_mse_loss(Tensor *input, Tensor *target, AgReduction reduction) {
    return broadcast_loss(AG_OP_MSE_LOSS, input, target, reduction, (LossCtx){0}, mse_losses);
}

Tensor *tensor_mse(Tensor *pred, Tensor *target) {
    return tensor_mse_loss(pred, target, AG_REDUCTION_MEAN);
}

static Tensor *mse_call(const AgOpArgs *a) { return call_pair(AG_OP_MSE_LOSS, a, tensor_mse_loss); }

const AgOpInfo ag_op_mse_loss = {
    .id = AG_OP_MSE_LOSS, .name = "mse_loss", .alias = "mse",
    .signature = "mse_loss(input, target, *, reduction='mean')", .params = "TTs",
    .help = "(input - target)^2; input and target broadcast",
    .rule = "grad_input = g * 2 (input - target) / n, grad_target = -grad_input "
            "(n: the element count for 'mean', else 1)",
    .backward_name = "MseLossBackward", .call = mse_call, .backward = mse_backward,
    .graph_backward = mse_graph,
    .dtype_rule = AG_DTYPE_BROADCAST,
    .flags = AG_OP_SAVES_READS, .grad_reads = {1 | 2 | 4, 1 | 2 | 4, 1 | 2 | 4},
};

/* ======================================================================
 * l1_loss: |x - t|
 *   grad_x = sgn(x - t) * (g / n) (0 where x = t), grad_t = -grad_x
 *   (PyTorch: abs of x - t, then mean: MeanBackward, AbsBackward, SubBackward)
 * ====================================================================== */

static void l1_losses(const LossCtx *c, const Elems *e, double *out) {
    (void)c;
    SIMD_LOOP for (int64_t i = 0; i < e->n; i++) out[i] = fabs(e->x[i] - e->t[i]);
}

static void l1_grads(const LossCtx *c, const Elems *e, Upstream u, double *dx, double *dt) {
    (void)c;
    SIMD_LOOP for (int64_t i = 0; i < e->n; i++) {
        double d = (u.g[i * u.step] / u.n) * sgn(e->x[i] - e->t[i]);
        if (dx) dx[i] = d;
        if (dt) dt[i] = -d;
    }
}

static void l1_backward(Function *self, void *ctx, Tensor *g) {
    elementwise_backward(self, ctx, g, l1_grads, true);
}

/* d = (g / n) sign(x - t); grad_x = d, grad_t = -d */
static int l1_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    GradTemps s = {0};
    Tensor *x = self->inputs[0], *t = self->inputs[1];
    Tensor *sign = ag_grad_tmp(&s, tensor_sign(gsub(&s, x, t)));
    Tensor *d = gmul(&s, shared_g(&s, g, ctx), sign);
    if (ag_grad_wanted(self, 0)) grads[0] = ag_grad_out(&s, tensor_retain(d));
    if (ag_grad_wanted(self, 1)) grads[1] = ag_grad_out(&s, tensor_neg(d));
    return ag_grad_done(&s);
}

Tensor *tensor_l1_loss(Tensor *input, Tensor *target, AgReduction reduction) {
    return broadcast_loss(AG_OP_L1_LOSS, input, target, reduction, (LossCtx){0}, l1_losses);
}

static Tensor *l1_call(const AgOpArgs *a) { return call_pair(AG_OP_L1_LOSS, a, tensor_l1_loss); }

const AgOpInfo ag_op_l1_loss = {
    .id = AG_OP_L1_LOSS, .name = "l1_loss",
    .signature = "l1_loss(input, target, *, reduction='mean')", .params = "TTs",
    .help = "|input - target|; input and target broadcast",
    .rule = "grad_input = g / n * sign(input - target) (0 where equal), grad_target = -grad_input",
    .backward_name = "L1LossBackward", .call = l1_call, .backward = l1_backward,
    .graph_backward = l1_graph,
    .dtype_rule = AG_DTYPE_BROADCAST,
    .flags = AG_OP_SAVES_READS, .grad_reads = {1 | 2 | 4, 1 | 2 | 4, 1 | 2 | 4},
};

/* ======================================================================
 * smooth_l1_loss: z = |x - t|; z < beta ? 0.5 z^2 / beta : z - 0.5 beta
 *   d = x - t; grad_x = -norm g (d <= -beta), norm g (d >= beta), else
 *   norm d g / beta, norm = 1 / n; grad_t the same with d = t - x
 *   (beta = 0 is l1_loss, but the gradient at d = 0 is -norm g, as PyTorch)
 * ====================================================================== */

static void smooth_l1_losses(const LossCtx *c, const Elems *e, double *out) {
    double beta = c->param[0];
    SIMD_LOOP for (int64_t i = 0; i < e->n; i++) {
        double z = fabs(e->x[i] - e->t[i]);
        out[i] = z < beta ? 0.5 * z * z / beta : z - 0.5 * beta;
    }
}

/* PyTorch's smooth_l1_backward of a - b. */
static void smooth_l1_grad(const double *a, const double *b, Upstream u, double beta, int64_t n,
                           double *d) {
    double norm = 1.0 / u.n;
    SIMD_LOOP for (int64_t i = 0; i < n; i++) {
        double x = a[i] - b[i], g = u.g[i * u.step];
        d[i] = x <= -beta ? -norm * g : x >= beta ? norm * g : norm * x * g / beta;
    }
}

static void smooth_l1_grads(const LossCtx *c, const Elems *e, Upstream u, double *dx, double *dt) {
    if (dx) smooth_l1_grad(e->x, e->t, u, c->param[0], e->n, dx);
    if (dt) smooth_l1_grad(e->t, e->x, u, c->param[0], e->n, dt);
}

static void smooth_l1_backward(Function *self, void *ctx, Tensor *g) {
    elementwise_backward(self, ctx, g, smooth_l1_grads, true);
}

/* smooth_l1_grad of a - b as recorded ops: where(d <= -beta, -norm g,
 * where(d >= beta, norm g, ((norm d) g) / beta)); a new reference or NULL.
 * At beta 0 every d but nan takes a side: the middle is (norm d) g, which
 * keeps nan's nan and, unselected, sends no 0 / 0 into the second order. */
static Tensor *smooth_l1_graph_of(Tensor *a, Tensor *b, Tensor *g, const LossCtx *c) {
    GradTemps s = {0};
    double norm = 1.0 / c->n, beta = c->param[0];
    Tensor *d = gsub(&s, a, b), *above = gmul(&s, ag_grad_num(&s, norm), g);
    Tensor *mid = gmul(&s, gmul(&s, ag_grad_num(&s, norm), d), g);
    if (beta > 0) mid = gdiv(&s, mid, ag_grad_num(&s, beta));
    Tensor *upper = gwhere(&s, ag_grad_tmp(&s, tensor_ge(d, ag_grad_num(&s, beta))), above, mid);
    Tensor *lo = ag_grad_tmp(&s, tensor_le(d, ag_grad_num(&s, -beta)));
    return grad_result(&s, tensor_where(lo, gmul(&s, ag_grad_num(&s, -norm), g), upper));
}

static int smooth_l1_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    GradTemps s = {0};
    Tensor *x = self->inputs[0], *t = self->inputs[1];
    if (ag_grad_wanted(self, 0)) grads[0] = ag_grad_out(&s, smooth_l1_graph_of(x, t, g, ctx));
    if (ag_grad_wanted(self, 1)) grads[1] = ag_grad_out(&s, smooth_l1_graph_of(t, x, g, ctx));
    return ag_grad_done(&s);
}

Tensor *tensor_smooth_l1_loss(Tensor *input, Tensor *target, AgReduction reduction, double beta) {
    if (!(beta >= 0))
        return ag_fail("smooth_l1_loss: beta must not be negative, got %g", beta);
    return broadcast_loss(AG_OP_SMOOTH_L1_LOSS, input, target, reduction,
                          (LossCtx){.param = {beta}}, smooth_l1_losses);
}

static Tensor *smooth_l1_call(const AgOpArgs *a) {
    AgReduction r;
    if (parse_reduction(AG_OP_SMOOTH_L1_LOSS, a, &r) != 0) return NULL;
    return tensor_smooth_l1_loss(a->t[0], a->t[1], r, a->has_num[0] ? a->num[0] : 1.0);
}

const AgOpInfo ag_op_smooth_l1_loss = {
    .id = AG_OP_SMOOTH_L1_LOSS, .name = "smooth_l1_loss",
    .signature = "smooth_l1_loss(input, target, *, reduction='mean', beta=1.0)", .params = "TTsn",
    .help = "0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta; d = input - target",
    .rule = "grad_input = g / n * clamp((input - target) / beta, -1, 1) (at |d| = beta: +-g / n), "
            "grad_target = the same of target - input",
    .backward_name = "SmoothL1LossBackward", .call = smooth_l1_call, .backward = smooth_l1_backward,
    .graph_backward = smooth_l1_graph,
    .dtype_rule = AG_DTYPE_BROADCAST,
    .flags = AG_OP_SAVES_READS, .grad_reads = {1 | 2 | 4, 1 | 2 | 4, 1 | 2 | 4},
};

/* ======================================================================
 * huber_loss: z = |x - t|; z < delta ? 0.5 z^2 : delta (z - 0.5 delta)
 *   d = x - t; grad_x = -norm g delta (d <= -delta), norm g delta
 *   (d >= delta), else norm d g, norm = 1 / n; grad_t with d = t - x
 * ====================================================================== */

static void huber_losses(const LossCtx *c, const Elems *e, double *out) {
    double delta = c->param[0];
    SIMD_LOOP for (int64_t i = 0; i < e->n; i++) {
        double z = fabs(e->x[i] - e->t[i]);
        out[i] = z < delta ? 0.5 * z * z : delta * (z - 0.5 * delta);
    }
}

/* PyTorch's huber_backward of a - b. */
static void huber_grad(const double *a, const double *b, Upstream u, double delta, int64_t n,
                       double *d) {
    double norm = 1.0 / u.n;
    SIMD_LOOP for (int64_t i = 0; i < n; i++) {
        double x = a[i] - b[i], g = u.g[i * u.step];
        d[i] = x <= -delta ? -norm * g * delta : x >= delta ? norm * g * delta : norm * x * g;
    }
}

static void huber_grads(const LossCtx *c, const Elems *e, Upstream u, double *dx, double *dt) {
    if (dx) huber_grad(e->x, e->t, u, c->param[0], e->n, dx);
    if (dt) huber_grad(e->t, e->x, u, c->param[0], e->n, dt);
}

static void huber_backward(Function *self, void *ctx, Tensor *g) {
    if (one_dtype_backward(self) == 0) elementwise_backward(self, ctx, g, huber_grads, true);
}

/* huber_grad of a - b as recorded ops: where(d <= -delta, (-norm g) delta,
 * where(d >= delta, (norm g) delta, (norm d) g)); a new reference or NULL. */
static Tensor *huber_graph_of(Tensor *a, Tensor *b, Tensor *g, const LossCtx *c) {
    GradTemps s = {0};
    double norm = 1.0 / c->n;
    Tensor *delta = ag_grad_num(&s, c->param[0]), *d = gsub(&s, a, b);
    Tensor *above = gmul(&s, gmul(&s, ag_grad_num(&s, norm), g), delta);
    Tensor *below = gmul(&s, gmul(&s, ag_grad_num(&s, -norm), g), delta);
    Tensor *mid = gmul(&s, gmul(&s, ag_grad_num(&s, norm), d), g);
    Tensor *upper = gwhere(&s, ag_grad_tmp(&s, tensor_ge(d, delta)), above, mid);
    Tensor *lo = ag_grad_tmp(&s, tensor_le(d, ag_grad_num(&s, -c->param[0])));
    return grad_result(&s, tensor_where(lo, below, upper));
}

static int huber_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    if (one_dtype_backward(self) != 0) return -1;
    GradTemps s = {0};
    Tensor *x = self->inputs[0], *t = self->inputs[1];
    if (ag_grad_wanted(self, 0)) grads[0] = ag_grad_out(&s, huber_graph_of(x, t, g, ctx));
    if (ag_grad_wanted(self, 1)) grads[1] = ag_grad_out(&s, huber_graph_of(t, x, g, ctx));
    return ag_grad_done(&s);
}

Tensor *tensor_huber_loss(Tensor *input, Tensor *target, AgReduction reduction, double delta) {
    if (!(delta > 0)) return ag_fail("huber_loss: delta must be positive, got %g", delta);
    return broadcast_loss(AG_OP_HUBER_LOSS, input, target, reduction,
                          (LossCtx){.param = {delta}}, huber_losses);
}

static Tensor *huber_call(const AgOpArgs *a) {
    AgReduction r;
    if (parse_reduction(AG_OP_HUBER_LOSS, a, &r) != 0) return NULL;
    return tensor_huber_loss(a->t[0], a->t[1], r, a->has_num[0] ? a->num[0] : 1.0);
}

const AgOpInfo ag_op_huber_loss = {
    .id = AG_OP_HUBER_LOSS, .name = "huber_loss",
    .signature = "huber_loss(input, target, reduction='mean', delta=1.0)", .params = "TTsn",
    .help = "0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta); d = input - target",
    .rule = "grad_input = g / n * clamp(input - target, -delta, delta), "
            "grad_target = the same of target - input",
    .backward_name = "HuberLossBackward", .call = huber_call, .backward = huber_backward,
    .graph_backward = huber_graph,
    .dtype_rule = AG_DTYPE_FLOAT_ONLY,
    .flags = AG_OP_SAVES_READS, .grad_reads = {1 | 2 | 4, 1 | 2 | 4, 1 | 2 | 4},
};

/* ======================================================================
 * binary_cross_entropy and binary_cross_entropy_with_logits: input and
 * target of one shape (PyTorch requires it), weight and pos_weight
 * broadcasting to it, constants.
 * ====================================================================== */

/* -1 with a message unless x and t have one shape. */
static int same_shape(const char *op, const Tensor *x, const Tensor *t) {
    if (ag_shape_equal(x->ndim, x->shape, t->ndim, t->shape)) return 0;
    char sx[AG_SHAPE_STR_MAX], st[AG_SHAPE_STR_MAX];
    ag_fail("%s: target of shape %s and input of shape %s must have the same shape", op,
            tensor_shape_str(t, st, sizeof st), tensor_shape_str(x, sx, sizeof sx));
    return -1;
}

/* -1 with a message unless w (a weight, named what; NULL: none) broadcasts
 * to x's shape and does not require grad (PyTorch differentiates no
 * weight, and refuses one that requires grad). */
static int check_weight(const char *op, const char *what, const Tensor *w, const Tensor *x) {
    if (!w) return 0;
    int64_t shape[AG_MAX_DIMS];
    int ndim;
    char sw[AG_SHAPE_STR_MAX], sx[AG_SHAPE_STR_MAX];
    if (ag_broadcast_shapes(op, w, x, shape, &ndim) != 0 ||
        !ag_shape_equal(ndim, shape, x->ndim, x->shape)) {
        ag_fail("%s: %s of shape %s does not broadcast to the input's shape %s", op, what,
                tensor_shape_str(w, sw, sizeof sw), tensor_shape_str(x, sx, sizeof sx));
        return -1;
    }
    if (w->requires_grad) {
        ag_fail("%s is not differentiable with respect to %s: it cannot require grad", op, what);
        return -1;
    }
    return 0;
}

/* The checks both share; -1 with a message. */
static int check_bce(const char *op, const Tensor *x, const Tensor *t, const Tensor *w,
                     const Tensor *pw, AgReduction r) {
    if (!x || !t) return ag_fail("%s: an argument is NULL", op), -1;
    if (check_reduction(op, r, false) != 0 || same_shape(op, x, t) != 0 ||
        check_weight(op, "weight", w, x) != 0 || check_weight(op, "pos_weight", pw, x) != 0)
        return -1;
    return 0;
}

/* ======================================================================
 * binary_cross_entropy: (t - 1) max(log(1 - x), -100) - t max(log(x), -100),
 * times w; x in [0, 1]
 *   grad_x = g (x - t) / max((1 - x) x, EPSILON) * w / n
 *   grad_t = (log(1 - x) - log(x)) * g * w / n   (PyTorch 1.13 differentiates t)
 * ====================================================================== */

static void bce_losses(const LossCtx *c, const Elems *e, double *out) {
    (void)c;
    for (int64_t i = 0; i < e->n; i++) {
        double x = e->x[i], t = e->t[i];
        double v = (t - 1) * fmax(log(1 - x), -100.0) - t * fmax(log(x), -100.0);
        out[i] = e->w ? v * e->w[i] : v;
    }
}

static void bce_grads(const LossCtx *c, const Elems *e, Upstream u, double *dx, double *dt) {
    (void)c;
    for (int64_t i = 0; i < e->n; i++) {
        double x = e->x[i], t = e->t[i], g = u.g[i * u.step], w = e->w ? e->w[i] : 1.0;
        if (dx) dx[i] = g * (x - t) / fmax((1 - x) * x, EPSILON) * w / u.n;
        if (dt) dt[i] = (log(1 - x) - log(x)) * g * w / u.n;
    }
}

static void bce_backward(Function *self, void *ctx, Tensor *g) {
    elementwise_backward(self, ctx, g, bce_grads, true);
}

/* libm's log(v) (the loop's), as xlogy(1, v): its gradient g / v. */
static Tensor *libm_log(GradTemps *s, Tensor *v) {
    return ag_grad_tmp(s, tensor_xlogy(ag_grad_num(s, 1.0), v));
}

/* bce_grads as recorded ops (fmax(p, EPSILON) as where(p >= EPSILON, p,
 * EPSILON), nan giving EPSILON as fmax does):
 *   grad_x = (((g (x - t)) / fmax((1 - x) x, EPSILON)) w) / n
 *   grad_t = (((log(1 - x) - log(x)) g) w) / n */
static int bce_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const LossCtx *c = ctx;
    LossOperands o = loss_operands(self, c);
    GradTemps s = {0};
    Tensor *one_minus_x = gsub(&s, ag_grad_num(&s, 1.0), o.x);
    if (ag_grad_wanted(self, 0)) {
        Tensor *p = gmul(&s, one_minus_x, o.x), *eps = ag_grad_num(&s, EPSILON);
        Tensor *denom = gwhere(&s, ag_grad_tmp(&s, tensor_ge(p, eps)), p, eps);
        Tensor *d = gdiv(&s, gmul(&s, g, gsub(&s, o.x, o.t)), denom);
        grads[0] = ag_grad_out(&s, weighted_share(&s, d, o.w, c));
    }
    if (ag_grad_wanted(self, 1)) {
        Tensor *logit = gsub(&s, libm_log(&s, one_minus_x), libm_log(&s, o.x));
        grads[1] = ag_grad_out(&s, weighted_share(&s, gmul(&s, logit, g), o.w, c));
    }
    return ag_grad_done(&s);
}

Tensor *tensor_binary_cross_entropy(Tensor *input, Tensor *target, Tensor *weight,
                                    AgReduction reduction) {
    const char *op = "binary_cross_entropy";
    if (check_bce(op, input, target, weight, NULL, reduction) != 0) return NULL;
    if (target->dtype != input->dtype) /* PyTorch's kernel: one dtype (TensorIterator's) */
        return ag_fail("Found dtype %s but expected %s",
                       ag_dtype_scalar_name((AgDtype)target->dtype),
                       ag_dtype_scalar_name((AgDtype)input->dtype));
    for (int64_t i = 0; i < input->numel; i++)
        if (!(tensor_values(input)[i] >= 0 && tensor_values(input)[i] <= 1))
            return ag_fail("%s: input %g at index %lld is not in [0, 1] (probabilities: "
                           "sigmoid(x), or binary_cross_entropy_with_logits(x, ...))",
                           op, tensor_values(input)[i], (long long)i);
    return elementwise_loss(AG_OP_BINARY_CROSS_ENTROPY, (Tensor *[4]){input, target, weight, NULL},
                            (LossCtx){.reduction = reduction}, bce_losses);
}

static Tensor *bce_call(const AgOpArgs *a) {
    AgReduction r;
    if (parse_reduction(AG_OP_BINARY_CROSS_ENTROPY, a, &r) != 0) return NULL;
    return tensor_binary_cross_entropy(a->t[0], a->t[1], a->t[2], r);
}

const AgOpInfo ag_op_binary_cross_entropy = {
    .id = AG_OP_BINARY_CROSS_ENTROPY, .name = "binary_cross_entropy",
    .signature = "binary_cross_entropy(input, target, weight=None, *, reduction='mean')",
    .params = "TTts",
    .help = "-weight (target log(input) + (1 - target) log(1 - input)); input in [0, 1]",
    .rule = "grad_input = g * (input - target) / max(input (1 - input), 1e-12) * weight / n, "
            "grad_target = g * (log(1 - input) - log(input)) * weight / n",
    .backward_name = "BinaryCrossEntropyBackward", .call = bce_call, .backward = bce_backward,
    .graph_backward = bce_graph,
    .dtype_rule = AG_DTYPE_FLOATING,
    .flags = AG_OP_SAVES_READS, .grad_reads = {1 | 2 | 4, 1 | 2 | 4, 1 | 2 | 4},
};

/* ======================================================================
 * binary_cross_entropy_with_logits, stably from the logits x:
 *   m = max(-x, 0), L = log(exp(-m) + exp(-x - m)) (log(1 + exp(-x)) - m)
 *   without pw: (1 - t) x + m + L;  with pw: (1 - t) x + lw (L + m),
 *   lw = (pw - 1) t + 1;  times w
 *   grad_x = (sigmoid(x) - t) g, or ((pw t + 1 - t) sigmoid(x) - pw t) g;
 *            times w, / n
 *   grad_t = -x g, or (logsigmoid(-x) - pw logsigmoid(x)) g; times w, / n
 * ====================================================================== */

/* L = log(exp(-m) + exp(-x - m)), m = max(-x, 0), with PyTorch's
 * whole-tensor exp_ and log_ (SLEEF's); a and b: n doubles of scratch. */
static void bce_logits_log_term(const double *x, int64_t n, double *a, double *b) {
    if (n <= 0) return;
    for (int64_t i = 0; i < n; i++) {
        double m = clamp_min0(-x[i]);
        a[i] = -m, b[i] = -x[i] - m;
    }
    ag_exp_all(a, a, n);
    ag_exp_all(b, b, n);
    for (int64_t i = 0; i < n; i++) a[i] += b[i];
    ag_log_all(a, a, n);
}

static double round_f32(double v) { return (double)(float)v; }

/* With c->float32, the loss is PyTorch's (1 - t).mul_(x).add_(m).add_(L)
 * on a float32 (1 - t): each step rounded to float. */
static void bce_logits_losses(const LossCtx *c, const Elems *e, double *out) {
    double *a = malloc((size_t)(2 * e->n + 1) * sizeof *a);
    if (a) bce_logits_log_term(e->x, e->n, a, a + e->n);
    for (int64_t i = 0; i < e->n; i++) {
        double x = e->x[i], t = e->t[i], m = clamp_min0(-x);
        double L = a ? a[i] : log(exp(-m) + exp(-x - m)), v;
        if (c->float32) {
            double tx = round_f32(round_f32(1 - t) * x);
            v = e->pw ? round_f32(tx + ((e->pw[i] - 1) * t + 1) * (L + m))
                      : round_f32(round_f32(tx + m) + L);
            out[i] = e->w ? round_f32(v * e->w[i]) : v;
            continue;
        }
        v = e->pw ? (1 - t) * x + ((e->pw[i] - 1) * t + 1) * (L + m) : (1 - t) * x + m + L;
        out[i] = e->w ? v * e->w[i] : v;
    }
    free(a);
}

/* PyTorch's log_sigmoid of sign * x, -(m + log(exp(-m) + exp(-v - m))),
 * m = max(-v, 0), on n values with its whole-tensor exp and log (SLEEF's,
 * as its vectorised kernel), into out; scratch: 3 n doubles. */
static void log_sigmoid_all(const double *x, double sign, int64_t n, double *out,
                            double *scratch) {
    double *v = scratch, *a = scratch + n, *b = scratch + 2 * n;
    for (int64_t i = 0; i < n; i++) v[i] = sign * x[i];
    bce_logits_log_term(v, n, a, b);
    for (int64_t i = 0; i < n; i++) out[i] = -(clamp_min0(-v[i]) + a[i]);
}

/* log_sigmoid(-x) and log_sigmoid(x) (pos_weight's target gradient): a
 * new tensor of 5 n doubles, the first n the one, the next n the other;
 * NULL (the failure flagged) if it cannot be allocated. */
static Tensor *log_sigmoids(const double *x, int64_t n) {
    int64_t len = 5 * n + 1;
    Tensor *ls = ag_tensor_new(1, &len);
    if (!ls) return NULL;
    log_sigmoid_all(x, -1.0, n, tensor_values(ls), tensor_values(ls) + 2 * n);
    log_sigmoid_all(x, 1.0, n, tensor_values(ls) + n, tensor_values(ls) + 2 * n);
    return ls;
}

static void bce_logits_grads(const LossCtx *c, const Elems *e, Upstream u, double *dx,
                             double *dt) {
    (void)c;
    Tensor *sigmoids = dt && e->pw ? log_sigmoids(e->x, e->n) : NULL;
    if (dt && e->pw && !sigmoids) return; /* backward stops */
    const double *ls = sigmoids ? tensor_values(sigmoids) : NULL;
    /* input.sigmoid() as PyTorch's sigmoid kernel computes it (SLEEF's exp,
     * libm's on its scalar tail: unary.c), into dx first */
    if (dx) ag_sigmoid_values(e->x, dx, e->n);
    for (int64_t i = 0; i < e->n; i++) {
        double x = e->x[i], t = e->t[i], g = u.g[i * u.step], w = e->w ? e->w[i] : 1.0;
        if (dx) {
            double s = dx[i], pt = e->pw ? e->pw[i] * t : 0.0;
            double d = e->pw ? ((pt + 1 - t) * s - pt) * g : (s - t) * g;
            dx[i] = d * w / u.n;
        }
        if (dt) {
            double d = e->pw ? (ls[i] - ls[e->n + i] * e->pw[i]) * g : -x * g;
            dt[i] = d * w / u.n;
        }
    }
    tensor_release(sigmoids);
}

static void bce_logits_backward(Function *self, void *ctx, Tensor *g) {
    elementwise_backward(self, ctx, g, bce_logits_grads, true);
}

/* log_sigmoid(v) as recorded ops, log_sigmoid_all's:
 * -(m + log(exp(-m) + exp(-v - m))), m = where(-v < 0, 0, -v); a new
 * reference or NULL. */
static Tensor *log_sigmoid_graph(Tensor *v) {
    GradTemps s = {0};
    Tensor *neg_v = gneg(&s, v), *zero = ag_grad_num(&s, 0.0);
    Tensor *m = gwhere(&s, ag_grad_tmp(&s, tensor_lt(neg_v, zero)), zero, neg_v);
    Tensor *e1 = ag_grad_tmp(&s, tensor_exp(gneg(&s, m)));
    Tensor *e2 = ag_grad_tmp(&s, tensor_exp(gsub(&s, neg_v, m)));
    Tensor *lse = ag_grad_tmp(&s, tensor_log(gadd(&s, e1, e2)));
    return grad_result(&s, tensor_neg(gadd(&s, m, lse)));
}

/* bce_logits_grads as recorded ops, s = sigmoid(x), then times w, / n:
 *   grad_x = (s - t) g, or (((pw t + 1) - t) s - pw t) g
 *   grad_t = (-x) g, or (log_sigmoid(-x) - log_sigmoid(x) pw) g */
static int bce_logits_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const LossCtx *c = ctx;
    LossOperands o = loss_operands(self, c);
    GradTemps s = {0};
    if (ag_grad_wanted(self, 0)) {
        Tensor *sig = ag_grad_tmp(&s, tensor_sigmoid(o.x)), *slope = gsub(&s, sig, o.t);
        if (o.pw) {
            Tensor *pt = gmul(&s, o.pw, o.t);
            Tensor *scale = gsub(&s, gadd(&s, pt, ag_grad_num(&s, 1.0)), o.t);
            slope = gsub(&s, gmul(&s, scale, sig), pt);
        }
        grads[0] = ag_grad_out(&s, weighted_share(&s, gmul(&s, slope, g), o.w, c));
    }
    if (ag_grad_wanted(self, 1)) {
        Tensor *d;
        if (o.pw) {
            Tensor *of_neg = ag_grad_tmp(&s, log_sigmoid_graph(gneg(&s, o.x)));
            Tensor *of_x = ag_grad_tmp(&s, log_sigmoid_graph(o.x));
            d = gsub(&s, of_neg, gmul(&s, of_x, o.pw));
        } else {
            d = gneg(&s, o.x);
        }
        grads[1] = ag_grad_out(&s, weighted_share(&s, gmul(&s, d, g), o.w, c));
    }
    return ag_grad_done(&s);
}

Tensor *tensor_binary_cross_entropy_with_logits(Tensor *input, Tensor *target, Tensor *weight,
                                                AgReduction reduction, Tensor *pos_weight) {
    if (check_bce("binary_cross_entropy_with_logits", input, target, weight, pos_weight,
                  reduction) != 0)
        return NULL;
    bool float32 = input->dtype == AG_FLOAT64 && target->dtype == AG_FLOAT32;
    return elementwise_loss(AG_OP_BCE_WITH_LOGITS, (Tensor *[4]){input, target, weight, pos_weight},
                            (LossCtx){.reduction = reduction, .float32 = float32},
                            bce_logits_losses);
}

static Tensor *bce_logits_call(const AgOpArgs *a) {
    AgReduction r;
    if (parse_reduction(AG_OP_BCE_WITH_LOGITS, a, &r) != 0) return NULL;
    return tensor_binary_cross_entropy_with_logits(a->t[0], a->t[1], a->t[2], r, a->t[3]);
}

const AgOpInfo ag_op_binary_cross_entropy_with_logits = {
    .id = AG_OP_BCE_WITH_LOGITS, .name = "binary_cross_entropy_with_logits",
    .signature = "binary_cross_entropy_with_logits(input, target, weight=None, *, "
                 "reduction='mean', pos_weight=None)",
    .params = "TTtst",
    .help = "binary_cross_entropy(sigmoid(input), ...), computed stably from the logits",
    .rule = "grad_input = g w / n * ((pw t + 1 - t) sigmoid(input) - pw t), grad_target = "
            "g w / n * (logsigmoid(-input) - pw logsigmoid(input)) (-g w / n * input without pw)",
    .backward_name = "BinaryCrossEntropyWithLogitsBackward", .call = bce_logits_call,
    .backward = bce_logits_backward, .graph_backward = bce_logits_graph,
    .dtype_rule = AG_DTYPE_TARGET,
    .flags = AG_OP_SAVES_READS, .grad_reads = {1 | 2 | 4, 1 | 2 | 4, 1 | 2 | 4},
};

/* ======================================================================
 * kl_div: xlogy(t, t) - t x (t log(t) - t x, 0 where t = 0), or with
 * log_target exp(t) (t - x); x holds log-probabilities
 *   G = g / n; grad_x = -G t, or -(G exp(t))
 *   grad_t = (G xlogy(t != 0, t) + G t / t) - G x (nan at t = 0, as
 *            PyTorch's xlogy), or G exp(t) + G (t - x) exp(t)
 * (PyTorch 1.13's kl_div is a composite: xlogy's two gradients are summed
 * first, then the product's is added.)
 * 'mean' is the mean over every element (PyTorch 1.13's, which warns that
 * 'batchmean', the sum over input's first size, is KL divergence's).
 * ====================================================================== */

/* PyTorch's xlogy(a, b): nan if b is nan, 0 if a is 0, else a log(b). */
static double xlogy(double a, double b) { return isnan(b) ? b : a == 0 ? 0.0 : a * log(b); }

/* exp(t) of n targets as PyTorch's at::exp(target) (the exp op's kernel,
 * SLEEF's), in a new buffer: the caller frees it; NULL if it cannot be
 * allocated, then each is libm's. */
static double *exp_targets(const double *t, int64_t n) {
    double *et = malloc((size_t)(n > 0 ? n : 1) * sizeof *et);
    if (et) ag_exp_all(t, et, n);
    return et;
}

static void kl_div_losses(const LossCtx *c, const Elems *e, double *out) {
    if (c->flag) {
        double *et = exp_targets(e->t, e->n);
        for (int64_t i = 0; i < e->n; i++)
            out[i] = (et ? et[i] : exp(e->t[i])) * (e->t[i] - e->x[i]);
        free(et);
    } else {
        for (int64_t i = 0; i < e->n; i++) out[i] = xlogy(e->t[i], e->t[i]) - e->t[i] * e->x[i];
    }
}

static void kl_div_grads(const LossCtx *c, const Elems *e, Upstream u, double *dx, double *dt) {
    double *ets = c->flag ? exp_targets(e->t, e->n) : NULL;
    for (int64_t i = 0; i < e->n; i++) {
        double x = e->x[i], t = e->t[i], G = u.g[i * u.step] / u.n;
        if (c->flag) {
            double et = ets ? ets[i] : exp(t);
            if (dx) dx[i] = -(G * et);
            if (dt) dt[i] = G * et + G * (t - x) * et;
        } else {
            if (dx) dx[i] = -G * t;
            if (dt) dt[i] = (G * xlogy(t != 0, t) + G * t / t) + -G * x;
        }
    }
    free(ets);
}

static void kl_div_backward(Function *self, void *ctx, Tensor *g) {
    elementwise_backward(self, ctx, g, kl_div_grads, true);
}

/* kl_div_grads as recorded ops, G = g / n:
 *   grad_x = (-G) t, grad_t = (G xlogy(t != 0, t) + (G t) / t) + (-G) x
 *   log_target, et = exp(t): grad_x = -(G et), grad_t = G et + (G (t - x)) et */
static int kl_div_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const LossCtx *c = ctx;
    GradTemps s = {0};
    Tensor *x = self->inputs[0], *t = self->inputs[1], *G = shared_g(&s, g, c);
    if (c->flag) {
        Tensor *et = ag_grad_tmp(&s, tensor_exp(t)), *G_et = gmul(&s, G, et);
        if (ag_grad_wanted(self, 0))
            grads[0] = ag_grad_out(&s, tensor_neg(in_elems(&s, G_et, self)));
        if (ag_grad_wanted(self, 1)) {
            Tensor *via_exp = gmul(&s, gmul(&s, G, gsub(&s, t, x)), et);
            grads[1] = ag_grad_out(&s, tensor_add(G_et, via_exp));
        }
        return ag_grad_done(&s);
    }
    Tensor *minus_G = gneg(&s, G);
    if (ag_grad_wanted(self, 0))
        grads[0] = ag_grad_out(&s, tensor_retain(in_elems(&s, gmul(&s, minus_G, t), self)));
    if (ag_grad_wanted(self, 1)) {
        Tensor *nonzero = ag_grad_tmp(&s, tensor_ne(t, ag_grad_num(&s, 0.0)));
        Tensor *log_t = gmul(&s, G, ag_grad_tmp(&s, tensor_xlogy(nonzero, t)));
        Tensor *xlogy_grad = gadd(&s, log_t, gdiv(&s, gmul(&s, G, t), t));
        grads[1] = ag_grad_out(&s, tensor_add(xlogy_grad, gmul(&s, minus_G, x)));
    }
    return ag_grad_done(&s);
}

Tensor *tensor_kl_div(Tensor *input, Tensor *target, AgReduction reduction, bool log_target) {
    return broadcast_loss(AG_OP_KL_DIV, input, target, reduction,
                          (LossCtx){.flag = log_target}, kl_div_losses);
}

static Tensor *kl_div_call(const AgOpArgs *a) {
    AgReduction r;
    if (parse_reduction(AG_OP_KL_DIV, a, &r) != 0) return NULL;
    return tensor_kl_div(a->t[0], a->t[1], r, a->flags[0]);
}

const AgOpInfo ag_op_kl_div = {
    .id = AG_OP_KL_DIV, .name = "kl_div",
    .signature = "kl_div(input, target, *, reduction='mean', log_target=False)", .params = "TTsb",
    .help = "target (log(target) - input), input log-probabilities; 'batchmean' is KL's",
    .rule = "grad_input = -g / n * target, grad_target = g / n * (log(target) + 1 - input) "
            "(log_target: -g / n * exp(target), g / n * exp(target) (target - input + 1))",
    .backward_name = "KlDivBackward", .call = kl_div_call, .backward = kl_div_backward,
    .graph_backward = kl_div_graph,
    .dtype_rule = AG_DTYPE_FLOATING,
    .flags = AG_OP_SAVES_READS, .grad_reads = {1 | 2 | 4, 1 | 2 | 4, 1 | 2 | 4},
};

/* ======================================================================
 * hinge_embedding_loss: (t != 1 ? max(0, margin - x) : 0) + (t != -1 ? x : 0)
 *   G = g / n; grad_x = (t != -1 ? G : 0) - (t != 1 and margin - x >= 0 ? G : 0)
 *   (the target is only compared: no gradient)
 * ====================================================================== */

static void hinge_losses(const LossCtx *c, const Elems *e, double *out) {
    double margin = c->param[0];
    SIMD_LOOP for (int64_t i = 0; i < e->n; i++) {
        double x = e->x[i], t = e->t[i];
        out[i] = (t != 1 ? clamp_min0(margin - x) : 0.0) + (t != -1 ? x : 0.0);
    }
}

static void hinge_grads(const LossCtx *c, const Elems *e, Upstream u, double *dx, double *dt) {
    (void)dt; /* the target is only compared */
    double margin = c->param[0];
    SIMD_LOOP for (int64_t i = 0; i < e->n; i++) {
        double x = e->x[i], t = e->t[i], G = u.g[i * u.step] / u.n;
        dx[i] = (t != -1 ? G : 0.0) + -(t != 1 && margin - x >= 0 ? G : 0.0);
    }
}

static void hinge_backward(Function *self, void *ctx, Tensor *g) {
    elementwise_backward(self, ctx, g, hinge_grads, false);
}

/* G = g / n; grad_x = where(t != -1, G, 0) + -where(t != 1 and margin - x
 * >= 0, G, 0) (the masks are constants: the second order is 0) */
static int hinge_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const LossCtx *c = ctx;
    GradTemps s = {0};
    if (!ag_grad_wanted(self, 0)) return 0; /* before any temporary: none to release */
    Tensor *x = self->inputs[0], *t = self->inputs[1], *zero = ag_grad_num(&s, 0.0);
    Tensor *G = shared_g(&s, g, c);
    Tensor *gap = gsub(&s, ag_grad_num(&s, c->param[0]), x);
    Tensor *not_similar = ag_grad_tmp(&s, tensor_ne(t, ag_grad_num(&s, 1.0)));
    Tensor *hinged = ag_grad_tmp(&s, tensor_logical_and(not_similar,
                                                        ag_grad_tmp(&s, tensor_ge(gap, zero))));
    Tensor *kept = gwhere(&s, ag_grad_tmp(&s, tensor_ne(t, ag_grad_num(&s, -1.0))), G, zero);
    grads[0] = ag_grad_out(&s, tensor_add(kept, gneg(&s, gwhere(&s, hinged, G, zero))));
    return ag_grad_done(&s);
}

Tensor *tensor_hinge_embedding_loss(Tensor *input, Tensor *target, double margin,
                                    AgReduction reduction) {
    return broadcast_loss(AG_OP_HINGE_EMBEDDING_LOSS, input, target, reduction,
                          (LossCtx){.param = {margin}}, hinge_losses);
}

static Tensor *hinge_call(const AgOpArgs *a) {
    AgReduction r;
    if (parse_reduction(AG_OP_HINGE_EMBEDDING_LOSS, a, &r) != 0) return NULL;
    return tensor_hinge_embedding_loss(a->t[0], a->t[1], a->has_num[0] ? a->num[0] : 1.0, r);
}

const AgOpInfo ag_op_hinge_embedding_loss = {
    .id = AG_OP_HINGE_EMBEDDING_LOSS, .name = "hinge_embedding_loss",
    .signature = "hinge_embedding_loss(input, target, margin=1.0, *, reduction='mean')",
    .params = "TTns",
    .help = "input where target is 1, max(0, margin - input) where it is -1",
    .rule = "grad_input = g / n where target != -1, minus g / n where target != 1 and "
            "input <= margin (the target: none)",
    .backward_name = "HingeEmbeddingLossBackward", .call = hinge_call, .backward = hinge_backward,
    .graph_backward = hinge_graph,
    .dtype_rule = AG_DTYPE_FLOATING,
    .flags = AG_OP_SAVES_READS, .grad_reads = {1 | 2 | 4, 1 | 2 | 4, 1 | 2 | 4},
};

/* ======================================================================
 * The class-index losses: input (N, C) with classes (N,), (N, C, d1, ...)
 * with (N, d1, ...), or (C,) with (); lane (o, i) is the C values of
 * input along dimension 1 at target element j = o * inner + i.
 * ====================================================================== */

typedef struct {
    int64_t outer, C, inner;
    bool last; /* dimension 1 is input's last (1-D or 2-D): PyTorch's log_softmax vectorised */
} ClassLanes;

/* Checks input's and target's shapes and the classes; -1 with a message. */
static int class_lanes(const char *op, const Tensor *x, const Tensor *t, ClassLanes *l) {
    char sx[AG_SHAPE_STR_MAX], st[AG_SHAPE_STR_MAX];
    bool ok = x->ndim == 1 ? t->ndim == 0
                           : x->ndim >= 2 && t->ndim == x->ndim - 1 && t->shape[0] == x->shape[0];
    for (int k = 2; ok && k < x->ndim; k++) ok = t->shape[k - 1] == x->shape[k];
    if (!ok)
        return ag_fail("%s: input %s and target %s do not match: expected (N, C) and (N,), "
                       "(N, C, d1, ...) and (N, d1, ...), or (C,) and ()", op,
                       tensor_shape_str(x, sx, sizeof sx), tensor_shape_str(t, st, sizeof st)), -1;
    if (t->requires_grad)
        return ag_fail("%s: classes are indices and cannot require grad", op), -1;
    l->outer = x->ndim == 1 ? 1 : x->shape[0];
    l->C = x->ndim == 1 ? x->shape[0] : x->shape[1];
    l->inner = x->ndim == 1 ? 1 : ag_shape_prod(x->shape, 2, x->ndim);
    l->last = x->ndim <= 2;
    for (int64_t j = 0; j < t->numel; j++) {
        double c = tensor_values(t)[j];
        if (!(c >= 0 && c < (double)l->C) || c != floor(c))
            return ag_fail("%s: class %g at index %lld is not an integer in [0, %lld)", op, c,
                           (long long)j, (long long)l->C), -1;
    }
    return 0;
}

/* The checks, then the element losses (the target's shape) by fill(x, t,
 * lanes, out), reduced and recorded. */
static Tensor *class_loss(int op, Tensor *x, Tensor *t, AgReduction r,
                          bool (*fill)(const Tensor *, const Tensor *, ClassLanes, double *)) {
    const char *name = ag_op_at(op)->name;
    ClassLanes l;
    if (!x || !t) return ag_fail("%s: an argument is NULL", name);
    if (check_reduction(name, r, false) != 0 || class_lanes(name, x, t, &l) != 0) return NULL;
    LossCtx c = {.reduction = r, .n = divisor(r, t->numel, x)};
    Tensor *elems = ag_tensor_new(t->ndim, t->shape);
    if (elems && !fill(x, t, l, tensor_values(elems))) {
        tensor_release(elems);
        return NULL;
    }
    return record_loss(reduce_losses_by(elems, &c, nll_cascade_sum), op, (Tensor *[]){x, t}, 2, &c);
}

/* The index of input's element at class k of target element j. */
static int64_t class_index(ClassLanes l, int64_t j, int64_t k) {
    int64_t o = j / l.inner, i = j % l.inner;
    return (o * l.C + k) * l.inner + i;
}

/* The lanes of an input class_lanes has checked. */
static ClassLanes lanes_of(const Tensor *x) {
    return (ClassLanes){x->ndim == 1 ? 1 : x->shape[0], x->ndim == 1 ? x->shape[0] : x->shape[1],
                        x->ndim == 1 ? 1 : ag_shape_prod(x->shape, 2, x->ndim), x->ndim <= 2};
}

/* The one-hot of the target's classes in input's shape, a constant of
 * dtype (kept in s). */
static Tensor *class_onehot(GradTemps *s, const Tensor *x, const Tensor *t, AgDtype dtype) {
    ClassLanes l = lanes_of(x);
    Tensor *m = ag_grad_tmp(s, ag_tensor_filled_like(x, 0.0));
    if (!m) return NULL;
    for (int64_t j = 0; j < t->numel; j++) tensor_values(m)[class_index(l, j, (int64_t)tensor_values(t)[j])] = 1.0;
    tensor_set_dtype(m, dtype);
    return m;
}

/* v (0-d, or the target's shape for 'none') along each lane: a dim of 1
 * inserted at input's class dimension. */
static Tensor *along_lanes(GradTemps *s, Tensor *v) {
    return v->ndim == 0 ? v : ag_grad_tmp(s, tensor_unsqueeze(v, 1));
}

/* ======================================================================
 * nll_loss: -input[class] in each lane
 *   grad_input = -(g / n) at the class, 0 elsewhere (PyTorch's order)
 * ====================================================================== */

static bool nll_fill(const Tensor *x, const Tensor *t, ClassLanes l, double *out) {
    for (int64_t j = 0; j < t->numel; j++)
        out[j] = -tensor_values(x)[class_index(l, j, (int64_t)tensor_values(t)[j])];
    return true;
}

static void nll_backward(Function *self, void *ctx, Tensor *g) {
    Tensor *x = self->inputs[0], *t = self->inputs[1];
    ClassLanes l = lanes_of(x);
    Upstream u = upstream(g, ctx);
    Tensor *dx = ag_tensor_filled_like(x, 0.0);
    if (!dx) return;
    for (int64_t j = 0; j < t->numel; j++)
        tensor_values(dx)[class_index(l, j, (int64_t)tensor_values(t)[j])] = -(u.g[j * u.step] / u.n);
    ag_accumulate_grad(x, dx);
}

/* grad_input = where(onehot(class), -(g / n), 0), g along the lanes */
static int nll_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    GradTemps s = {0};
    if (!ag_grad_wanted(self, 0)) return 0;
    Tensor *mask = class_onehot(&s, self->inputs[0], self->inputs[1], AG_BOOL);
    Tensor *gc = along_lanes(&s, gneg(&s, shared_g(&s, g, ctx)));
    grads[0] = ag_grad_out(&s, tensor_where(mask, gc, ag_grad_num(&s, 0.0)));
    return ag_grad_done(&s);
}

Tensor *tensor_nll_loss(Tensor *input, Tensor *classes, AgReduction reduction) {
    return class_loss(AG_OP_NLL_LOSS, input, classes, reduction, nll_fill);
}

static Tensor *nll_call(const AgOpArgs *a) { return call_pair(AG_OP_NLL_LOSS, a, tensor_nll_loss); }

const AgOpInfo ag_op_nll_loss = {
    .id = AG_OP_NLL_LOSS, .name = "nll_loss",
    .signature = "nll_loss(input, target, *, reduction='mean')", .params = "TTs",
    .help = "-input[target] along dim 1: log-probabilities (N, C), classes (N,)",
    .rule = "grad_input = -g / n at each target's class, 0 elsewhere",
    .backward_name = "NllLossBackward", .call = nll_call, .backward = nll_backward,
    .graph_backward = nll_graph,
    .dtype_rule = AG_DTYPE_FIRST,
    .flags = AG_OP_SAVES_READS, .grad_reads = {1 | 2 | 4, 1 | 2 | 4, 1 | 2 | 4},
};

/* ======================================================================
 * cross_entropy: nll_loss(log_softmax(input, 1)): per lane
 *   -(x[class] - max - logsumexp(x - max))
 *   grad_input = gc * (onehot(class) - softmax(lane)), gc = -(g / n)
 * PyTorch's order of operations: log_softmax is (x - max) - logsumexp
 * (adding max and logsumexp first rounds logsumexp away next to a logit of
 * 1e16), and the gradient is log_softmax's backward of nll's gc at the class.
 * ====================================================================== */

/* Which of PyTorch's log_softmax lanes lane j is (nn.c). */
static AgLane class_lane_kind(ClassLanes l, int64_t j) {
    int64_t i = j % l.inner;
    return l.last ? AG_LANE_LAST : i < l.inner - l.inner % 4 ? AG_LANE_VEC : AG_LANE_SCALAR;
}

/* Lane j of x, contiguous (copied into buf when the lane is strided), and
 * its max and logsumexp (buf[C ..] their scratch). */
static const double *class_lane(const Tensor *x, ClassLanes l, int64_t j, double *buf,
                                double *m, double *lse) {
    const double *v = tensor_values(x) + class_index(l, j, 0);
    if (l.inner > 1) {
        for (int64_t k = 0; k < l.C; k++) buf[k] = v[k * l.inner];
        v = buf;
    }
    ag_lane_logsumexp(v, l.C, 1, class_lane_kind(l, j), buf + l.C, m, lse);
    return v;
}

/* A scratch tensor of two lanes, for class_lane. */
static Tensor *lane_scratch(ClassLanes l) {
    int64_t len = 2 * l.C;
    return ag_tensor_new(1, &len);
}

static bool cross_entropy_fill(const Tensor *x, const Tensor *t, ClassLanes l, double *out) {
    if (t->numel == 0) return true;
    Tensor *scratch = lane_scratch(l);
    if (!scratch) return false;
    for (int64_t j = 0; j < t->numel; j++) {
        double m, lse;
        const double *v = class_lane(x, l, j, tensor_values(scratch), &m, &lse);
        out[j] = -(v[(int64_t)tensor_values(t)[j]] - m - lse);
    }
    tensor_release(scratch);
    return true;
}

/* dx: log_softmax's backward of nll's gradient per lane (gc = -(g / n) at
 * the class, 0 elsewhere; its sum is gc): g - exp(y) * sum(g) fused, exp as
 * PyTorch's kernel has it (nn.c). The kernel of cross_entropy's backward
 * and of cross_entropy_backward; false if its scratch cannot be made. */
static bool cross_entropy_grads(const Tensor *x, const Tensor *t, Upstream u, Tensor *dx) {
    ClassLanes l = lanes_of(x);
    Tensor *scratch = t->numel > 0 ? lane_scratch(l) : NULL;
    if (t->numel > 0 && !scratch) return false;
    for (int64_t j = 0; j < t->numel; j++) {
        double m, lse, gc = -(u.g[j * u.step] / u.n);
        int64_t cls = (int64_t)tensor_values(t)[j];
        const double *v = class_lane(x, l, j, tensor_values(scratch), &m, &lse);
        double *d = tensor_values(dx) + class_index(l, j, 0), *e = tensor_values(scratch) + l.C;
        for (int64_t k = 0; k < l.C; k++) e[k] = v[k] - m - lse;
        ag_lane_exp(e, l.C, class_lane_kind(l, j), e);
        for (int64_t k = 0; k < l.C; k++) d[k * l.inner] = fma(-e[k], gc, k == cls ? gc : 0.0);
    }
    tensor_release(scratch);
    return true;
}

static void cross_entropy_backward(Function *self, void *ctx, Tensor *g) {
    Tensor *x = self->inputs[0], *dx = ag_tensor_new_like(x);
    if (dx && !cross_entropy_grads(x, self->inputs[1], upstream(g, ctx), dx)) {
        tensor_release(dx);
        return;
    }
    if (dx) ag_accumulate_grad(x, dx);
}

/* grad_input = cross_entropy_backward(g, input, target): the kernel's
 * fma, as an op that can be differentiated */
static int cross_entropy_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const LossCtx *c = ctx;
    GradTemps s = {0};
    if (ag_grad_wanted(self, 0))
        grads[0] = ag_grad_out(&s, tensor_cross_entropy_backward(g, self->inputs[0],
                                                                 self->inputs[1], c->reduction));
    return ag_grad_done(&s);
}

Tensor *tensor_cross_entropy_loss(Tensor *input, Tensor *classes, AgReduction reduction) {
    return class_loss(AG_OP_CROSS_ENTROPY, input, classes, reduction, cross_entropy_fill);
}

Tensor *tensor_cross_entropy(Tensor *logits, Tensor *classes) {
    return tensor_cross_entropy_loss(logits, classes, AG_REDUCTION_MEAN);
}

static Tensor *cross_entropy_call(const AgOpArgs *a) {
    return call_pair(AG_OP_CROSS_ENTROPY, a, tensor_cross_entropy_loss);
}

const AgOpInfo ag_op_cross_entropy = {
    .id = AG_OP_CROSS_ENTROPY, .name = "cross_entropy",
    .signature = "cross_entropy(input, target, *, reduction='mean')", .params = "TTs",
    .help = "nll_loss(log_softmax(input, 1), target): logits (N, C), classes (N,)",
    .rule = "grad_input = g / n * (softmax(input) - onehot(target)) along dim 1",
    .backward_name = "NllLossBackward", .call = cross_entropy_call,
    .backward = cross_entropy_backward, .graph_backward = cross_entropy_graph,
    .dtype_rule = AG_DTYPE_FIRST,
    .flags = AG_OP_SAVES_READS, .grad_reads = {1 | 2 | 4, 1 | 2 | 4, 1 | 2 | 4},
};

/* ======================================================================
 * cross_entropy_backward (hidden): cross_entropy's input gradient D for
 * the loss's g, cross_entropy_grads' bits, differentiable. With p =
 * softmax(input) along the lanes, gc = -(g / n) and gg D's gradient:
 *   D = gc (onehot - p)
 *   grad_input = ((-gc) p) (gg - sum_lane(gg p))
 *   grad_g = sum_lane(gg (onehot - p)) (-1 / n), in g's shape
 * Its first-order backward is the same formula (ag_apply_by_graph).
 * ====================================================================== */

/* Each lane's largest value, a constant of x's shape with the class
 * dimension 1 (kept in s): softmax does not move with it. */
static Tensor *lane_max(GradTemps *s, const Tensor *x) {
    ClassLanes l = lanes_of(x);
    int64_t shape[AG_MAX_DIMS];
    memcpy(shape, x->shape, (size_t)x->ndim * sizeof *shape);
    shape[x->ndim == 1 ? 0 : 1] = 1;
    Tensor *m = ag_grad_tmp(s, ag_tensor_new(x->ndim, shape));
    for (int64_t j = 0; m && j < l.outer * l.inner; j++) {
        double top = -INFINITY;
        for (int64_t k = 0; k < l.C; k++) top = fmax(top, tensor_values(x)[class_index(l, j, k)]);
        tensor_values(m)[j] = top;
    }
    return m;
}

/* softmax(x) along the lanes, exp(x - max) / sum_lane(exp(x - max)), as
 * recorded ops (kept in s). */
static Tensor *lane_softmax(GradTemps *s, Tensor *x) {
    int64_t dim = x->ndim == 1 ? 0 : 1;
    Tensor *e = ag_grad_tmp(s, tensor_exp(gsub(s, x, lane_max(s, x))));
    return gdiv(s, e, ag_grad_tmp(s, tensor_sum_dims(e, &dim, 1, true)));
}

static int cross_entropy_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    const LossCtx *c = ctx;
    GradTemps s = {0};
    Tensor *g = self->inputs[0], *x = self->inputs[1];
    int64_t dim = x->ndim == 1 ? 0 : 1;
    Tensor *p = lane_softmax(&s, x);
    if (ag_grad_wanted(self, 1)) {
        Tensor *gc = along_lanes(&s, gneg(&s, shared_g(&s, g, c)));
        Tensor *gg_p = ag_grad_tmp(&s, tensor_sum_dims(gmul(&s, gg, p), &dim, 1, true));
        grads[1] = ag_grad_out(&s, tensor_mul(gmul(&s, gneg(&s, gc), p), gsub(&s, gg, gg_p)));
    }
    if (ag_grad_wanted(self, 0)) {
        Tensor *onehot = class_onehot(&s, x, self->inputs[2], AG_FLOAT64);
        Tensor *per_class =
            gmul(&s, gmul(&s, gg, gsub(&s, onehot, p)), ag_grad_num(&s, -1.0 / c->n));
        grads[0] = ag_grad_out(&s, g->ndim == 0 ? tensor_sum(per_class)
                                                : tensor_sum_dims(per_class, &dim, 1, false));
    }
    return ag_grad_done(&s);
}

static void cross_entropy_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, cross_entropy_backward_graph);
}

Tensor *tensor_cross_entropy_backward(Tensor *grad, Tensor *input, Tensor *classes,
                                      AgReduction reduction) {
    const char *name = "cross_entropy_backward";
    ClassLanes l;
    if (!grad || !input || !classes) return ag_fail("%s: an argument is NULL", name);
    if (check_reduction(name, reduction, false) != 0 || class_lanes(name, input, classes, &l) != 0)
        return NULL;
    bool none = reduction == AG_REDUCTION_NONE;
    if (none ? !ag_shape_equal(grad->ndim, grad->shape, classes->ndim, classes->shape)
             : grad->ndim != 0)
        return ag_fail("%s: grad must have %s", name,
                       none ? "the classes' shape for 'none'" : "no dimensions");
    LossCtx c = {.reduction = reduction, .n = divisor(reduction, classes->numel, input)};
    Tensor *dx = ag_tensor_new_like(input);
    if (dx && !cross_entropy_grads(input, classes, upstream(grad, &c), dx)) {
        tensor_release(dx);
        return NULL;
    }
    return record_loss(dx, AG_OP_CROSS_ENTROPY_BACKWARD, (Tensor *[]){grad, input, classes}, 3, &c);
}

static Tensor *cross_entropy_backward_call(const AgOpArgs *a) {
    AgReduction r;
    if (parse_reduction(AG_OP_CROSS_ENTROPY_BACKWARD, a, &r) != 0) return NULL;
    return tensor_cross_entropy_backward(a->t[0], a->t[1], a->t[2], r);
}

const AgOpInfo ag_op_cross_entropy_backward = {
    .id = AG_OP_CROSS_ENTROPY_BACKWARD, .name = "cross_entropy_backward",
    .signature = "cross_entropy_backward(grad, input, target, *, reduction='mean')",
    .params = "TTTs",
    .help = "cross_entropy's gradient of input: an op so that it can be differentiated",
    .rule = "grad_input = gc p (sum(gg p) - gg), grad_grad = -sum(gg (onehot - p)) / n "
            "(p = softmax(input), gc = -grad / n)",
    .backward_name = "CrossEntropyBackwardBackward", .call = cross_entropy_backward_call,
    .backward = cross_entropy_backward_backward, .graph_backward = cross_entropy_backward_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FIRST,
};

/* ======================================================================
 * Rows: the embedding losses compare vectors along the last dimension.
 * ====================================================================== */

/* The sum of a[k] * b[k] over k < n, pairwise (tmp holds the products). */
static double dot(const double *a, const double *b, int64_t n, double *tmp) {
    SIMD_LOOP for (int64_t k = 0; k < n; k++) tmp[k] = a[k] * b[k];
    return ag_sum(tmp, n, 1);
}

/* A scratch tensor of n doubles (one element when n is 0). */
static Tensor *row_scratch(int64_t n) {
    int64_t len = n > 0 ? n : 1;
    return ag_tensor_new(1, &len);
}

/* ======================================================================
 * cosine_embedding_loss: rows a, b (N, D) with targets y (N,), or
 * vectors (D,) with y ():
 *   p = sum(a b), m1 = sum(a^2) + EPSILON, m2 = sum(b^2) + EPSILON,
 *   denom = sqrt(m1 m2), cos = p / denom
 *   (y == 1 ? 1 - cos : 0) + (y == -1 ? max(0, cos - margin) : 0)
 * Backward, PyTorch's chain in its order: G = g / n,
 *   gcos = -(y == 1 ? G : 0) + (y == -1 and cos - margin >= 0 ? G : 0),
 *   dp = gcos / denom, ddenom = -gcos ((p / denom) / denom),
 *   dm = ddenom / (2 denom); grad_a = 2 (dm m2 a) + dp b, grad_b likewise
 * input1 and input2 broadcast, and y with their rows. As in PyTorch, p is
 * summed over the broadcast rows, m1 and m2 over a's and b's own: a (N, 1)
 * against b (N, 3) has m1 = a^2, not 3 a^2. Then a's m1 part of the
 * gradient is made in a's own shape, dm summed over the rows a is
 * broadcast to (PyTorch's sum_to: a sum op's order, ag_sum), and added to
 * the reduced dp b part.
 * ====================================================================== */

typedef struct {
    double p, m1, m2, denom, cos;
} CosineRow;

/* a and b: the row in the rows' shape (D values); a_own, b_own: the row
 * of a and of b themselves (Da, Db values: D, or 1 when broadcast). */
static CosineRow cosine_row(const double *a, const double *b, int64_t D, const double *a_own,
                            int64_t Da, const double *b_own, int64_t Db, double *tmp) {
    CosineRow r;
    r.p = dot(a, b, D, tmp);
    r.m1 = dot(a_own, a_own, Da, tmp) + EPSILON;
    r.m2 = dot(b_own, b_own, Db, tmp) + EPSILON;
    r.denom = sqrt(r.m1 * r.m2);
    r.cos = r.p / r.denom;
    return r;
}

/* The rows' shapes: a and b broadcast to (N, D) (or (D,) for a 0-d target)
 * and the target to (N,) (or ()); -1 with a message. */
typedef struct {
    int ndim;              /* of a and b: 1 or 2 */
    int64_t shape[2];      /* (N, D) or (D,) */
    int64_t N, D;
    int64_t rows[2], len[2]; /* a's and b's own rows (1 for vectors) and row length */
} CosineShape;

/* Row r's own values of input k (0: a, 1: b), which has s->rows[k] rows. */
static const double *cosine_own(const Tensor *t, const CosineShape *s, int k, int64_t r) {
    return tensor_values(t) + (s->rows[k] == 1 ? 0 : r) * s->len[k];
}

static int cosine_shape(const Tensor *a, const Tensor *b, const Tensor *y, CosineShape *s) {
    const char *op = "cosine_embedding_loss";
    char sa[AG_SHAPE_STR_MAX], sb[AG_SHAPE_STR_MAX], sy[AG_SHAPE_STR_MAX];
    tensor_shape_str(a, sa, sizeof sa), tensor_shape_str(b, sb, sizeof sb);
    tensor_shape_str(y, sy, sizeof sy);
    if (y->ndim > 1)
        return ag_fail("%s: the target must be 0-d or 1-d (one per row), got %s", op, sy), -1;
    if (a->ndim != y->ndim + 1 || b->ndim != y->ndim + 1)
        return ag_fail("%s: a %s target expects %s inputs, got %s and %s", op, sy,
                       y->ndim ? "2-d (N, D)" : "1-d (D,)", sa, sb), -1;
    if (ag_broadcast_shapes(op, a, b, s->shape, &s->ndim) != 0) return -1;
    s->D = s->shape[s->ndim - 1];
    s->N = 1;
    for (int k = 0; k < 2; k++) {
        const Tensor *t = k ? b : a;
        s->rows[k] = t->ndim == 2 ? t->shape[0] : 1;
        s->len[k] = t->shape[t->ndim - 1];
    }
    if (y->ndim == 1) {
        int64_t rows = s->shape[0], n = y->shape[0];
        if (rows != n && rows != 1 && n != 1)
            return ag_fail("%s: target %s does not match the %lld rows of the inputs %s and %s",
                           op, sy, (long long)rows, sa, sb), -1;
        s->N = s->shape[0] = rows == 1 ? n : rows;
    }
    return 0;
}

/* a, b and y's values in the rows' shapes (copies where needed). */
typedef struct {
    const double *a, *b, *y;
    Tensor *copy[3];
} CosineData;

static void cosine_close(CosineData *d) {
    for (int k = 0; k < 3; k++) tensor_release(d->copy[k]);
}

static int cosine_open(const Tensor *a, const Tensor *b, const Tensor *y, const CosineShape *s,
                       CosineData *d) {
    memset(d, 0, sizeof *d);
    d->a = data_as(a, s->ndim, s->shape, &d->copy[0]);
    d->b = d->a ? data_as(b, s->ndim, s->shape, &d->copy[1]) : NULL;
    d->y = d->b ? data_as(y, s->ndim - 1, s->shape, &d->copy[2]) : NULL;
    if (d->y) return 0;
    cosine_close(d);
    return -1;
}

static void cosine_backward(Function *self, void *ctx, Tensor *g) {
    LossCtx *c = ctx;
    Tensor *a = self->inputs[0], *b = self->inputs[1], *y = self->inputs[2];
    CosineShape s;
    CosineData d;
    if (cosine_shape(a, b, y, &s) != 0 || cosine_open(a, b, y, &s, &d) != 0) return;
    Tensor *da = ag_tensor_new(s.ndim, s.shape), *db = ag_tensor_new(s.ndim, s.shape);
    Tensor *tmp = s.N > 0 ? row_scratch(s.D) : NULL;
    if (!da || !db || (s.N > 0 && !tmp)) {
        tensor_release(da), tensor_release(db), tensor_release(tmp);
        cosine_close(&d);
        return;
    }
    /* Where a (b) has the rows' shape, its whole gradient is made per row;
     * else its m part apart, in its own shape, from dm summed per own row. */
    bool full[2] = {ag_shape_equal(a->ndim, a->shape, s.ndim, s.shape),
                    ag_shape_equal(b->ndim, b->shape, s.ndim, s.shape)};
    Tensor *dm[2] = {NULL, NULL}, *dmine[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++)
        if (!full[k] && (!(dm[k] = ag_tensor_new(1, &s.N)) ||
                         !(dmine[k] = ag_tensor_new_like(k ? b : a)))) {
            for (int j = 0; j <= k; j++) tensor_release(dm[j]), tensor_release(dmine[j]);
            tensor_release(da), tensor_release(db), tensor_release(tmp);
            cosine_close(&d);
            return;
        }
    for (int k = 0; k < 2; k++)
        if (dm[k]) memset(tensor_values(dm[k]), 0, (size_t)dm[k]->numel * sizeof(double));
    Upstream u = upstream(g, c);
    double margin = c->param[0];
    for (int64_t r = 0; r < s.N; r++) {
        const double *ar = d.a + r * s.D, *br = d.b + r * s.D;
        CosineRow w = cosine_row(ar, br, s.D, cosine_own(a, &s, 0, r), s.len[0],
                                 cosine_own(b, &s, 1, r), s.len[1], tensor_values(tmp));
        double G = u.g[r * u.step] / u.n, yr = d.y[r];
        double gcos = -(yr == 1 ? G : 0.0) + (w.cos - margin >= 0 ? (yr == -1 ? G : 0.0) : 0.0);
        double dp = gcos / w.denom, dden = -gcos * ((w.p / w.denom) / w.denom);
        double dprod = dden / (2 * w.denom), dm1 = dprod * w.m2, dm2 = dprod * w.m1;
        double *dar = tensor_values(da) + r * s.D, *dbr = tensor_values(db) + r * s.D;
        if (full[0]) {
            SIMD_LOOP for (int64_t k = 0; k < s.D; k++) dar[k] = 2 * (dm1 * ar[k]) + dp * br[k];
        } else {
            SIMD_LOOP for (int64_t k = 0; k < s.D; k++) dar[k] = dp * br[k];
            tensor_values(dm[0])[r] = dm1;
        }
        if (full[1]) {
            SIMD_LOOP for (int64_t k = 0; k < s.D; k++) dbr[k] = 2 * (dm2 * br[k]) + dp * ar[k];
        } else {
            SIMD_LOOP for (int64_t k = 0; k < s.D; k++) dbr[k] = dp * ar[k];
            tensor_values(dm[1])[r] = dm2;
        }
    }
    for (int k = 0; k < 2; k++)
        if (dm[k]) { /* 2 (dm x): x * x's gradient, dm x from each side */
            /* one row serving every row: dm summed as PyTorch's sum_to sums */
            const double *dmk = tensor_values(dm[k]), *xk = tensor_values(k ? b : a);
            double *mine = tensor_values(dmine[k]);
            double all = s.rows[k] == 1 ? ag_sum(dmk, s.N, 1) : 0.0;
            for (int64_t i = 0; i < dmine[k]->numel; i++) {
                double own = s.rows[k] == 1 ? all : dmk[i / s.len[k]];
                mine[i] = 2 * (own * xk[i]);
            }
        }
    tensor_release(tmp);
    cosine_close(&d);
    ag_accumulate_grad(a, da); /* reduced to a's shape: then its m part added */
    if (dmine[0]) ag_accumulate_grad(a, dmine[0]);
    ag_accumulate_grad(b, db);
    if (dmine[1]) ag_accumulate_grad(b, dmine[1]);
    tensor_release(dm[0]), tensor_release(dm[1]);
}

/* The sum of u v along the last dimension: a new reference or NULL. */
static Tensor *row_dot(Tensor *u, Tensor *v) {
    GradTemps s = {0};
    int64_t last = (u->ndim > v->ndim ? u->ndim : v->ndim) - 1;
    return grad_result(&s, tensor_sum_dims(gmul(&s, u, v), &last, 1, false));
}

/* v, one value per row, along the last dimension of the rows (a 0-d v as it is). */
static Tensor *along_rows(GradTemps *s, Tensor *v) {
    return v->ndim == 0 ? v : ag_grad_tmp(s, tensor_unsqueeze(v, v->ndim));
}

/* gcos = -where(y == 1, G, 0) + where(cos - margin >= 0, where(y == -1, G,
 * 0), 0), G = g / n: a new reference or NULL. */
static Tensor *cosine_gcos(Tensor *g, Tensor *y, Tensor *cos, const LossCtx *c) {
    GradTemps s = {0};
    Tensor *G = shared_g(&s, g, c), *zero = ag_grad_num(&s, 0.0);
    Tensor *similar = gwhere(&s, ag_grad_tmp(&s, tensor_eq(y, ag_grad_num(&s, 1.0))), G, zero);
    Tensor *dissimilar = gwhere(&s, ag_grad_tmp(&s, tensor_eq(y, ag_grad_num(&s, -1.0))), G, zero);
    Tensor *gap = gsub(&s, cos, ag_grad_num(&s, c->param[0]));
    Tensor *hinged = gwhere(&s, ag_grad_tmp(&s, tensor_ge(gap, zero)), dissimilar, zero);
    return grad_result(&s, tensor_add(gneg(&s, similar), hinged));
}

/* u's gradient, cosine_backward's: 2 (dm u) + dp v where u has the rows'
 * shape; else dp v (in the rows' shape) summed to u's shape, plus 2 (dm u)
 * with dm summed over the rows u's one row serves. A new reference or NULL. */
static Tensor *cosine_side(Tensor *u, Tensor *v, Tensor *dm, Tensor *dp, const CosineShape *sh) {
    GradTemps s = {0};
    Tensor *cross = gmul(&s, along_rows(&s, dp), v);
    if (ag_shape_equal(u->ndim, u->shape, sh->ndim, sh->shape)) {
        Tensor *own = gmul(&s, ag_grad_num(&s, 2.0), gmul(&s, along_rows(&s, dm), u));
        return grad_result(&s, tensor_add(own, cross));
    }
    if (u->ndim == 2 && u->shape[0] == 1 && sh->N > 1) dm = ag_grad_tmp(&s, tensor_sum(dm));
    int64_t dims[2];
    int nd = 0;
    for (int d = 0; d < sh->ndim; d++)
        if (u->shape[d] == 1 && sh->shape[d] != 1) dims[nd++] = d;
    Tensor *rows = ag_grad_tmp(&s, tensor_expand(cross, sh->ndim, sh->shape));
    Tensor *summed = ag_grad_tmp(&s, tensor_sum_dims(rows, dims, nd, true));
    Tensor *own = gmul(&s, ag_grad_num(&s, 2.0), gmul(&s, along_rows(&s, dm), u));
    return grad_result(&s, tensor_add(summed, own));
}

/* cosine_backward's chain as recorded ops (sums along the last dimension):
 *   p = sum(a b), m1 = sum(a a) + EPSILON, m2 = sum(b b) + EPSILON,
 *   denom = sqrt(m1 m2), cos = p / denom, gcos (cosine_gcos),
 *   dp = gcos / denom, dprod = (-gcos ((p / denom) / denom)) / (2 denom),
 *   grad_a = cosine_side(a, b, dprod m2), grad_b = cosine_side(b, a, dprod m1) */
static int cosine_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const LossCtx *c = ctx;
    Tensor *a = self->inputs[0], *b = self->inputs[1], *y = self->inputs[2];
    CosineShape sh;
    if (cosine_shape(a, b, y, &sh) != 0) return -1;
    GradTemps s = {0};
    Tensor *eps = ag_grad_num(&s, EPSILON), *p = ag_grad_tmp(&s, row_dot(a, b));
    Tensor *m1 = gadd(&s, ag_grad_tmp(&s, row_dot(a, a)), eps);
    Tensor *m2 = gadd(&s, ag_grad_tmp(&s, row_dot(b, b)), eps);
    Tensor *denom = ag_grad_tmp(&s, tensor_sqrt(gmul(&s, m1, m2)));
    Tensor *gcos = ag_grad_tmp(&s, cosine_gcos(g, y, gdiv(&s, p, denom), c));
    Tensor *dp = gdiv(&s, gcos, denom);
    Tensor *dden = gmul(&s, gneg(&s, gcos), gdiv(&s, gdiv(&s, p, denom), denom));
    Tensor *dprod = gdiv(&s, dden, gmul(&s, ag_grad_num(&s, 2.0), denom));
    if (ag_grad_wanted(self, 0))
        grads[0] = ag_grad_out(&s, cosine_side(a, b, gmul(&s, dprod, m2), dp, &sh));
    if (ag_grad_wanted(self, 1))
        grads[1] = ag_grad_out(&s, cosine_side(b, a, gmul(&s, dprod, m1), dp, &sh));
    return ag_grad_done(&s);
}

Tensor *tensor_cosine_embedding_loss(Tensor *input1, Tensor *input2, Tensor *target,
                                     double margin, AgReduction reduction) {
    const char *op = "cosine_embedding_loss";
    if (!input1 || !input2 || !target) return ag_fail("%s: an argument is NULL", op);
    CosineShape s;
    CosineData d;
    if (check_reduction(op, reduction, false) != 0 || cosine_shape(input1, input2, target, &s) != 0)
        return NULL;
    if (cosine_open(input1, input2, target, &s, &d) != 0) return NULL;
    Tensor *elems = ag_tensor_new(s.ndim - 1, s.shape);
    Tensor *tmp = elems && s.N > 0 ? row_scratch(s.D) : NULL;
    if (tmp)
        for (int64_t r = 0; r < s.N; r++) {
            const double *ao = cosine_own(input1, &s, 0, r), *bo = cosine_own(input2, &s, 1, r);
            CosineRow w = cosine_row(d.a + r * s.D, d.b + r * s.D, s.D, ao, s.len[0], bo, s.len[1],
                                     tensor_values(tmp));
            double cos = w.cos, y = d.y[r];
            tensor_values(elems)[r] = (y == 1 ? 1 - cos : 0.0) + (y == -1 ? clamp_min0(cos - margin) : 0.0);
        }
    tensor_release(tmp);
    cosine_close(&d);
    if (elems && s.N > 0 && !tmp) {
        tensor_release(elems);
        return NULL;
    }
    LossCtx c = {.reduction = reduction, .n = divisor(reduction, s.N, input1), .param = {margin}};
    return record_loss(reduce_losses(elems, &c), AG_OP_COSINE_EMBEDDING_LOSS,
                       (Tensor *[]){input1, input2, target}, 3, &c);
}

static Tensor *cosine_call(const AgOpArgs *a) {
    AgReduction r;
    if (parse_reduction(AG_OP_COSINE_EMBEDDING_LOSS, a, &r) != 0) return NULL;
    return tensor_cosine_embedding_loss(a->t[0], a->t[1], a->t[2],
                                        a->has_num[0] ? a->num[0] : 0.0, r);
}

const AgOpInfo ag_op_cosine_embedding_loss = {
    .id = AG_OP_COSINE_EMBEDDING_LOSS, .name = "cosine_embedding_loss",
    .signature = "cosine_embedding_loss(input1, input2, target, margin=0, *, reduction='mean')",
    .params = "TTTns",
    .help = "per row: 1 - cos where target is 1, max(0, cos - margin) where -1",
    .rule = "grad_input1 = gcos * (input2 / |input1||input2| - cos input1 / |input1|^2), "
            "gcos = -g / n where target is 1, g / n where -1 and cos >= margin; input2 alike",
    .backward_name = "CosineEmbeddingLossBackward", .call = cosine_call,
    .backward = cosine_backward, .graph_backward = cosine_graph,
    .dtype_rule = AG_DTYPE_FLOATING,
    .flags = AG_OP_SAVES_READS, .grad_reads = {1 | 2 | 4, 1 | 2 | 4, 1 | 2 | 4},
};

/* ======================================================================
 * triplet_margin_loss: rows a, p, n (the last dimension; one ndim,
 * broadcasting, each pair on its own: a (N, 1) against p (N, 1) is a
 * distance of one value even when n is (N, 3)):
 * max(0, (margin + d(a, p)) - d(a, n)),
 * d(u, v) = ||u - v + eps||_p; with swap, d(a, n) = min(d(a, n), d(p, n))
 *   G = g / n; gz = G where the sum >= 0, else 0; d(a, p) gets gz, d(a, n)
 *   -gz (with swap, to the smaller distance; half each when equal);
 *   a distance's gradient goes to u, its negative to v (norm_backward)
 * ====================================================================== */

/* ||v||_2 as PyTorch's norm kernel computes it along the last dimension:
 * one sum in order, each square fused into it (acc + v*v, which its
 * build contracts into a fused multiply-add). A pairwise sum of rounded
 * squares differed by an ulp, and margin + d(a, p) - d(a, n) cancels: a
 * loss of 1.5 was 65536 ulps off. */
static double norm2(const double *v, int64_t n) {
    double acc = 0.0;
    for (int64_t k = 0; k < n; k++) acc = fma(v[k], v[k], acc);
    return sqrt(acc);
}

/* ||v||_p of n values (tmp: n doubles of scratch), as torch.norm. */
static double pnorm(const double *v, int64_t n, double p, double *tmp) {
    if (isinf(p)) {
        double m = 0.0;
        for (int64_t k = 0; k < n; k++) {
            double a = fabs(v[k]);
            if (a > m || isnan(a)) m = a;
            if (isnan(m)) break;
        }
        return m;
    }
    if (p == 2) return norm2(v, n);
    if (p == 1) {
        SIMD_LOOP for (int64_t k = 0; k < n; k++) tmp[k] = fabs(v[k]);
        return ag_sum(tmp, n, 1);
    }
    for (int64_t k = 0; k < n; k++) tmp[k] = pow(fabs(v[k]), p);
    return pow(ag_sum(tmp, n, 1), 1.0 / p);
}

/* dv = the gradient of r = ||v||_p times gr, PyTorch's norm_backward:
 * 0 where r is 0 (p > 1); at p = inf shared by the tied largest |v|. */
static void pnorm_grad(const double *v, int64_t n, double p, double r, double gr, double *dv) {
    if (p == 1) {
        SIMD_LOOP for (int64_t k = 0; k < n; k++) dv[k] = sgn(v[k]) * gr;
    } else if (p == 2) {
        SIMD_LOOP for (int64_t k = 0; k < n; k++) dv[k] = gr * (r == 0 ? 0.0 : v[k] / r);
    } else if (isinf(p)) {
        int64_t count = 0;
        for (int64_t k = 0; k < n; k++) count += fabs(v[k]) == r || isnan(v[k]);
        double share = gr / (double)count;
        for (int64_t k = 0; k < n; k++)
            dv[k] = sgn(v[k]) * (share * (double)(fabs(v[k]) == r || isnan(v[k])));
    } else if (p < 1) {
        double scale = pow(r, 1 - p);
        for (int64_t k = 0; k < n; k++)
            dv[k] = (v[k] == 0 ? 0.0 : sgn(v[k]) * pow(fabs(v[k]), p - 1)) * gr * scale;
    } else {
        double scale = r == 0 ? 0.0 : gr / pow(r, p - 1);
        for (int64_t k = 0; k < n; k++)
            dv[k] = (p < 2 ? sgn(v[k]) * pow(fabs(v[k]), p - 1) : v[k] * pow(fabs(v[k]), p - 2)) *
                    scale;
    }
}

/* ======================================================================
 * row_norm, row_norm_backward (hidden): pnorm and pnorm_grad on each row
 * of the last dimension, ops so that triplet_margin_loss's gradient has
 * the kernels' bits and can be differentiated again.
 *   row_norm: r = ||v||_p; grad_v = row_norm_backward(v, r, g)
 *   row_norm_backward: dv = F(v) gr s(r) (pnorm_grad's cases: F = v
 *   |v|^(p-2) or sign(v) |v|^(p-1), s = r^(1-p), 0 at r = 0 for p > 1);
 *   with gg its gradient: grad_v = gg (p-1) |v|^(p-2) gr s(r),
 *   grad_r = sum(gg F gr) s'(r), grad_gr = sum(gg F) s(r) (p = 1 and
 *   inf: only grad_gr, sum(gg sign(v)) and sum(gg sign(v) mask) / count)
 * Their first-order backwards are the same formulas (ag_apply_by_graph).
 * ====================================================================== */

typedef struct {
    double p;
} RowNormCtx;

/* v's shape without its last dimension (v is 1-d or more). */
static void row_shape(const Tensor *v, int *ndim, int64_t *shape) {
    *ndim = v->ndim - 1;
    memcpy(shape, v->shape, (size_t)*ndim * sizeof *shape);
}

static int row_norm_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const RowNormCtx *c = ctx;
    grads[0] = tensor_row_norm_backward(self->inputs[0], self->output, g, c->p);
    return grads[0] ? 0 : -1;
}

static void row_norm_backward_fn(Function *self, void *ctx, Tensor *g) {
    ag_apply_by_graph(self, ctx, g, row_norm_graph);
}

Tensor *tensor_row_norm(Tensor *v, double p) {
    if (!v) return ag_fail("row_norm: an argument is NULL");
    if (v->ndim < 1) return ag_fail("row_norm: v must have a dimension");
    int ndim;
    int64_t shape[AG_MAX_DIMS], D = v->shape[v->ndim - 1];
    row_shape(v, &ndim, shape);
    Tensor *out = ag_tensor_new(ndim, shape), *tmp = out ? row_scratch(D) : NULL;
    if (out && !tmp) {
        tensor_release(out);
        return NULL;
    }
    for (int64_t r = 0; out && r < out->numel; r++)
        tensor_values(out)[r] = pnorm(tensor_values(v) + r * D, D, p, tensor_values(tmp));
    tensor_release(tmp);
    RowNormCtx *saved;
    out = ag_graph_record(out, AG_OP_ROW_NORM, &v, 1, (void **)&saved, sizeof *saved);
    if (saved) saved->p = p;
    return out;
}

static Tensor *row_norm_call(const AgOpArgs *a) {
    return tensor_row_norm(a->t[0], a->has_num[0] ? a->num[0] : 2.0);
}

const AgOpInfo ag_op_row_norm = {
    .id = AG_OP_ROW_NORM, .name = "row_norm", .signature = "row_norm(input, p=2)",
    .params = "Tn", .help = "||input||_p along the last dimension: triplet_margin_loss's distance",
    .rule = "grad_input = row_norm_backward(input, output, g)", .backward_name = "RowNormBackward",
    .call = row_norm_call, .backward = row_norm_backward_fn, .graph_backward = row_norm_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FLOATING,
};

/* x ** e, kept in s. */
static Tensor *gpow(GradTemps *s, Tensor *x, double e) {
    return ag_grad_tmp(s, tensor_pow(x, ag_grad_num(s, e)));
}

/* k r^e, 0 where r is 0 for p > 1 (pnorm_grad's 0 where the norm is 0):
 * a new reference or NULL. */
static Tensor *norm_scale(Tensor *r, double e, double k, double p) {
    GradTemps s = {0};
    Tensor *v = gpow(&s, r, e), *zero = ag_grad_num(&s, 0.0);
    if (k != 1) v = gmul(&s, ag_grad_num(&s, k), v);
    if (p < 1) return grad_result(&s, tensor_retain(v));
    return grad_result(&s, tensor_where(ag_grad_tmp(&s, tensor_eq(r, zero)), zero, v));
}

/* F(v), pnorm_grad's element factor for finite p != 1: v |v|^(p-2) (p >= 2),
 * sign(v) |v|^(p-1), 0 at v = 0 for p < 1; and with slope, its derivative
 * (p-1) |v|^(p-2). A new reference or NULL. */
static Tensor *norm_factor(Tensor *v, double p, bool slope) {
    GradTemps s = {0};
    Tensor *a = ag_grad_tmp(&s, tensor_abs(v));
    if (slope) return grad_result(&s, tensor_mul(ag_grad_num(&s, p - 1), gpow(&s, a, p - 2)));
    if (p >= 2) return grad_result(&s, tensor_mul(v, gpow(&s, a, p - 2)));
    Tensor *f = gmul(&s, ag_grad_tmp(&s, tensor_sign(v)), gpow(&s, a, p - 1));
    if (p > 1) return grad_result(&s, tensor_retain(f));
    Tensor *zero = ag_grad_num(&s, 0.0);
    return grad_result(&s, tensor_where(ag_grad_tmp(&s, tensor_eq(v, zero)), zero, f));
}

/* The sum of x along its last dimension. Kept in s. */
static Tensor *sum_last(GradTemps *s, Tensor *x) {
    int64_t last = x->ndim - 1;
    return ag_grad_tmp(s, tensor_sum_dims(x, &last, 1, false));
}

/* row_norm_backward's gradients at p = 1 or inf: grad_gr = sum(gg sign(v))
 * (p = 1), or sum(gg sign(v) mask) / count (inf: mask the largest |v|). */
static int row_norm_backward_graph_flat(Function *self, double p, Tensor *gg, Tensor **grads) {
    GradTemps s = {0};
    Tensor *v = self->inputs[0], *r = self->inputs[1];
    Tensor *dir = gmul(&s, gg, ag_grad_tmp(&s, tensor_sign(v)));
    if (p == 1) {
        grads[2] = ag_grad_out(&s, tensor_sum_dims(dir, (int64_t[]){v->ndim - 1}, 1, false));
        return ag_grad_done(&s);
    }
    Tensor *top = ag_grad_tmp(&s, tensor_eq(ag_grad_tmp(&s, tensor_abs(v)), along_rows(&s, r)));
    Tensor *mask = ag_grad_tmp(&s, tensor_logical_or(top, ag_grad_tmp(&s, tensor_ne(v, v))));
    Tensor *ones = ag_grad_tmp(&s, tensor_to(mask, AG_FLOAT64));
    grads[2] = ag_grad_out(&s, tensor_div(sum_last(&s, gmul(&s, dir, ones)), sum_last(&s, ones)));
    return ag_grad_done(&s);
}

static int row_norm_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    double p = ((const RowNormCtx *)ctx)->p;
    if (p == 1 || isinf(p))
        return ag_grad_wanted(self, 2) ? row_norm_backward_graph_flat(self, p, gg, grads) : 0;
    GradTemps s = {0};
    Tensor *v = self->inputs[0], *r = self->inputs[1], *gr = self->inputs[2];
    Tensor *f = ag_grad_tmp(&s, norm_factor(v, p, false));
    Tensor *scale = ag_grad_tmp(&s, norm_scale(r, 1 - p, 1, p));
    if (ag_grad_wanted(self, 0)) {
        Tensor *per = gmul(&s, gmul(&s, gg, ag_grad_tmp(&s, norm_factor(v, p, true))),
                           along_rows(&s, gr));
        grads[0] = ag_grad_out(&s, tensor_mul(per, along_rows(&s, scale)));
    }
    Tensor *gg_f = sum_last(&s, gmul(&s, gg, f));
    if (ag_grad_wanted(self, 1)) {
        Tensor *ds = ag_grad_tmp(&s, norm_scale(r, -p, 1 - p, p));
        grads[1] = ag_grad_out(&s, tensor_mul(gmul(&s, gg_f, gr), ds));
    }
    if (ag_grad_wanted(self, 2)) grads[2] = ag_grad_out(&s, tensor_mul(gg_f, scale));
    return ag_grad_done(&s);
}

static void row_norm_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, row_norm_backward_graph);
}

Tensor *tensor_row_norm_backward(Tensor *v, Tensor *norm, Tensor *grad, double p) {
    const char *name = "row_norm_backward";
    if (!v || !norm || !grad) return ag_fail("%s: an argument is NULL", name);
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    if (v->ndim < 1) return ag_fail("%s: v must have a dimension", name);
    row_shape(v, &ndim, shape);
    if (!ag_shape_equal(norm->ndim, norm->shape, ndim, shape) ||
        !ag_shape_equal(grad->ndim, grad->shape, ndim, shape))
        return ag_fail("%s: norm and grad must have v's shape without its last dimension", name);
    Tensor *out = ag_tensor_new_like(v);
    int64_t D = v->shape[v->ndim - 1];
    for (int64_t r = 0; out && r < norm->numel; r++)
        pnorm_grad(tensor_values(v) + r * D, D, p, tensor_values(norm)[r], tensor_values(grad)[r], tensor_values(out) + r * D);
    RowNormCtx *saved;
    out = ag_graph_record(out, AG_OP_ROW_NORM_BACKWARD, (Tensor *[]){v, norm, grad}, 3,
                          (void **)&saved, sizeof *saved);
    if (saved) saved->p = p;
    return out;
}

static Tensor *row_norm_backward_call(const AgOpArgs *a) {
    return tensor_row_norm_backward(a->t[0], a->t[1], a->t[2], a->has_num[0] ? a->num[0] : 2.0);
}

const AgOpInfo ag_op_row_norm_backward = {
    .id = AG_OP_ROW_NORM_BACKWARD, .name = "row_norm_backward",
    .signature = "row_norm_backward(input, norm, grad, p=2)", .params = "TTTn",
    .help = "row_norm's gradient (PyTorch's norm_backward along the last dimension)",
    .rule = "grad_input = gg (p-1) |input|^(p-2) grad s(norm), "
            "grad_norm = sum(gg F grad) s'(norm), grad_grad = sum(gg F) s(norm) "
            "(F, s: the gradient's factors)",
    .backward_name = "RowNormBackwardBackward", .call = row_norm_backward_call,
    .backward = row_norm_backward_backward, .graph_backward = row_norm_backward_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FLOATING,
};

/* An operand's last dimension: 1 for a 0-d one (one row of one value). */
static int64_t triplet_len(const Tensor *t) { return t->ndim > 0 ? t->shape[t->ndim - 1] : 1; }

/* The rows' shape: a, p and n broadcast, one ndim, as PyTorch. Three 0-d
 * operands are one row of one value, (1,), whose loss is 0-d (PyTorch's
 * norm over dim -1 of a 0-d tensor is its absolute value). */
static int triplet_shape(Tensor *const in[3], int *ndim, int64_t *shape) {
    const char *op = "triplet_margin_loss";
    char s[3][AG_SHAPE_STR_MAX];
    for (int k = 0; k < 3; k++) tensor_shape_str(in[k], s[k], sizeof s[k]);
    if (in[1]->ndim != in[0]->ndim || in[2]->ndim != in[0]->ndim)
        return ag_fail("%s: anchor, positive and negative must have the same number of "
                       "dimensions, got %s, %s and %s", op, s[0], s[1], s[2]), -1;
    if (in[0]->ndim == 0) {
        *ndim = 1, shape[0] = 1;
        return 0;
    }
    Tensor probe = *in[0];
    if (ag_broadcast_shapes(op, in[0], in[1], probe.shape, &probe.ndim) != 0 ||
        ag_broadcast_shapes(op, &probe, in[2], shape, ndim) != 0)
        return ag_fail("%s: anchor %s, positive %s and negative %s do not broadcast", op, s[0],
                       s[1], s[2]), -1;
    return 0;
}

/* One row's distances and the vectors they measure (in tmp rows). A
 * pair's vectors have the length of the longer of its two rows: PyTorch's
 * pairwise_distance broadcasts the two, not the three. */
typedef struct {
    double *ap, *an, *pn;   /* a - p + eps, a - n + eps, p - n + eps */
    int64_t D_ap, D_an, D_pn;
    double d_ap, d_an, d_pn, z;
} TripletRow;

/* One input's row: its values and their count (the rows' D, or 1 where
 * the input is broadcast along the last dimension). */
typedef struct {
    const double *v;
    int64_t D;
} TripletSide;

/* u - v + eps over the longer of the two rows, into out; returns its length. */
static int64_t triplet_diff(TripletSide u, TripletSide v, double eps, double *out) {
    int64_t D = u.D > v.D ? u.D : v.D;
    if (u.D == D && v.D == D) {
        SIMD_LOOP for (int64_t k = 0; k < D; k++) out[k] = u.v[k] - v.v[k] + eps;
    } else {
        for (int64_t k = 0; k < D; k++) out[k] = u.v[u.D == D ? k : 0] - v.v[v.D == D ? k : 0] + eps;
    }
    return D;
}

/* Fills a row's vectors (t's ap, an, pn: D each, pn only with swap) and
 * distances; scratch: D more. */
static void triplet_row(TripletSide a, TripletSide p, TripletSide n, const LossCtx *c,
                        double *scratch, TripletRow *t) {
    double eps = c->param[2], pp = c->param[1];
    t->D_ap = triplet_diff(a, p, eps, t->ap);
    t->D_an = triplet_diff(a, n, eps, t->an);
    t->d_ap = pnorm(t->ap, t->D_ap, pp, scratch);
    t->d_an = pnorm(t->an, t->D_an, pp, scratch);
    double dneg = t->d_an;
    if (c->flag) {
        t->D_pn = triplet_diff(p, n, eps, t->pn);
        t->d_pn = pnorm(t->pn, t->D_pn, pp, scratch);
        dneg = fmin(t->d_an, t->d_pn);
        if (isnan(t->d_an) || isnan(t->d_pn)) dneg = NAN; /* at::min propagates nan */
    }
    t->z = (c->param[0] + t->d_ap) - dneg;
}

/* The three operands' values in the rows' shape, each keeping its own last
 * dimension (D, or 1), and 5 rows of scratch (when there are rows). */
typedef struct {
    const double *v[3];
    int64_t len[3];         /* each operand's last dimension */
    Tensor *copy[3], *scratch;
    int64_t rows, D;
} TripletData;

static void triplet_close(TripletData *d) {
    for (int k = 0; k < 3; k++) tensor_release(d->copy[k]);
    tensor_release(d->scratch);
}

static int triplet_open(Tensor *const in[3], int ndim, const int64_t *shape, TripletData *d) {
    memset(d, 0, sizeof *d);
    d->D = shape[ndim - 1];
    d->rows = ag_shape_prod(shape, 0, ndim - 1);
    for (int k = 0; k < 3; k++) {
        int64_t own[AG_MAX_DIMS];
        memcpy(own, shape, (size_t)ndim * sizeof *own);
        own[ndim - 1] = d->len[k] = triplet_len(in[k]);
        if (!(d->v[k] = data_as(in[k], ndim, own, &d->copy[k]))) {
            triplet_close(d);
            return -1;
        }
    }
    if (d->rows > 0 && !(d->scratch = row_scratch(5 * d->D))) {
        triplet_close(d);
        return -1;
    }
    return 0;
}

/* Operand k's row r. */
static TripletSide triplet_side(const TripletData *d, int k, int64_t r) {
    return (TripletSide){d->v[k] + r * d->len[k], d->len[k]};
}

/* Row r's vectors and distances, in d's scratch (rows 0 to 2; row 4 is
 * pnorm's). Only when there are rows: then there is scratch. */
static TripletRow triplet_at(const TripletData *d, int64_t r, const LossCtx *c) {
    double *s = tensor_values(d->scratch);
    TripletRow t = {.ap = s, .an = s + d->D, .pn = s + 2 * d->D};
    triplet_row(triplet_side(d, 0, r), triplet_side(d, 1, r), triplet_side(d, 2, r), c,
                s + 4 * d->D, &t);
    return t;
}

/* dst (own values) = (add ? dst : 0) + sign dv, dv of length D summed into
 * one value when own is 1 (the operand broadcast along the pair's rows:
 * PyTorch's sum_to, a sum op's order). */
static void triplet_put(double *dst, int64_t own, const double *dv, int64_t D, double sign,
                        bool add) {
    if (own == D) {
        if (add) {
            SIMD_LOOP for (int64_t k = 0; k < D; k++) dst[k] += sign * dv[k];
        } else {
            SIMD_LOOP for (int64_t k = 0; k < D; k++) dst[k] = sign * dv[k];
        }
        return;
    }
    double sum = sign * ag_sum(dv, D, 1); /* as PyTorch's sum_to sums */
    dst[0] = add ? dst[0] + sum : sum;
}

/* Row r's gradient through one distance's node (0: d(a, p), 1: d(a, n),
 * 2: d(p, n)): its vector's norm gradient to the first operand's row du,
 * its negative to the second's dv_out (each written, or added with add). */
static void triplet_node_grad(const TripletData *d, int64_t r, const LossCtx *c, Upstream u,
                              int node, double *du, bool add_u, double *dv_out, bool add_v) {
    static const int first[3] = {0, 0, 1}, second[3] = {1, 2, 2};
    TripletRow t = triplet_at(d, r, c);
    double gz = t.z >= 0 ? u.g[r * u.step] / u.n : 0.0, gneg = -gz, gswap = 0.0;
    if (c->flag) { /* at::min's backward: ties split, the larger gets 0 */
        double half = t.d_an == t.d_pn ? gneg / 2 : gneg;
        gneg = t.d_an > t.d_pn ? 0.0 : half;
        gswap = t.d_an < t.d_pn ? 0.0 : half;
    }
    const double *vec = node == 0 ? t.ap : node == 1 ? t.an : t.pn;
    int64_t D = node == 0 ? t.D_ap : node == 1 ? t.D_an : t.D_pn;
    double dist = node == 0 ? t.d_ap : node == 1 ? t.d_an : t.d_pn;
    double *dv = tensor_values(d->scratch) + 3 * d->D;
    pnorm_grad(vec, D, c->param[1], dist, node == 0 ? gz : node == 1 ? gneg : gswap, dv);
    triplet_put(du, d->len[first[node]], dv, D, 1.0, add_u);
    triplet_put(dv_out, d->len[second[node]], dv, D, -1.0, add_v);
}

static void triplet_backward(Function *self, void *ctx, Tensor *g) {
    LossCtx *c = ctx;
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    TripletData d;
    if (triplet_shape(self->inputs, &ndim, shape) != 0 ||
        triplet_open(self->inputs, ndim, shape, &d) != 0)
        return;
    Tensor *grad[3] = {NULL, NULL, NULL};
    for (int k = 0; k < 3; k++) {
        int64_t own[AG_MAX_DIMS];
        memcpy(own, shape, (size_t)ndim * sizeof *own);
        own[ndim - 1] = d.len[k];
        /* a 0-d operand's gradient is 0-d: the same one value */
        if (!(grad[k] = ag_tensor_new(self->inputs[k]->ndim == 0 ? 0 : ndim, own))) {
            for (int j = 0; j < k; j++) tensor_release(grad[j]);
            triplet_close(&d);
            return;
        }
    }
    Upstream u = upstream(g, c);
    /* PyTorch runs the later distances' nodes first (d(p, n) with swap,
     * then d(a, n), then d(a, p)), each sending its gradient to its first
     * operand, then to its second; an operand passed twice (the anchor as
     * the negative) sums them in that order: d(a, n)'s two parts cancel
     * exactly before d(a, p)'s is added. */
    int buf[3];
    for (int k = 0; k < 3; k++) {
        buf[k] = k;
        for (int j = 0; j < k; j++)
            if (self->inputs[j] == self->inputs[k]) {
                buf[k] = j;
                break;
            }
    }
    bool written[3] = {false, false, false};
    for (int node = c->flag ? 2 : 1; node >= 0; node--) {
        int su = node == 2 ? 1 : 0, sv = node == 0 ? 1 : 2;
        bool add_u = written[buf[su]], add_v = written[buf[sv]] || buf[sv] == buf[su];
        for (int64_t r = 0; r < d.rows; r++)
            triplet_node_grad(&d, r, c, u, node, tensor_values(grad[buf[su]]) + r * d.len[su], add_u,
                              tensor_values(grad[buf[sv]]) + r * d.len[sv], add_v);
        written[buf[su]] = written[buf[sv]] = true;
    }
    triplet_close(&d);
    for (int k = 0; k < 3; k++) {
        if (buf[k] == k)
            ag_accumulate_grad(self->inputs[k], grad[k]); /* takes grad[k] */
        else
            tensor_release(grad[k]); /* summed into an earlier operand's */
    }
}

/* ---- triplet_margin_loss's graph_backward ----
 * The kernel's rows as recorded ops: each pair's u - v + eps expanded to
 * the rows (its own last dimension), its distance by row_norm, each
 * node's gradient by row_norm_backward (pnorm_grad's bits), summed into
 * the operands in triplet_backward's order. The hinge and min masks are
 * constants read from the distances, as the kernel reads them. */

typedef enum { AT_LEAST, EQUAL, ABOVE, BELOW } Comparison;

/* A bool constant shaped like d: x[i] compared with y[i] for each element. */
static Tensor *triplet_mask(GradTemps *s, const Tensor *d, const double *x, const double *y,
                            Comparison test) {
    Tensor *m = ag_grad_tmp(s, ag_tensor_new(d->ndim, d->shape));
    for (int64_t i = 0; m && i < m->numel; i++)
        tensor_values(m)[i] = test == AT_LEAST ? x[i] >= y[i]
                     : test == EQUAL  ? x[i] == y[i]
                     : test == ABOVE  ? x[i] > y[i]
                                      : x[i] < y[i];
    if (m) tensor_set_dtype(m, AG_BOOL);
    return m;
}

/* Each node's gradient (new references in out): gz = where(z >= 0, g / n,
 * 0) to d(a, p), -gz to d(a, n); with swap at::min's backward (ties
 * split, the larger gets 0). z = (margin + d(a, p)) - dneg, as triplet_row. */
static int triplet_node_grads(Tensor *g, const LossCtx *c, Tensor *const dist[3], Tensor *out[3]) {
    GradTemps s = {0};
    const double *ap = tensor_values(dist[0]), *an = tensor_values(dist[1]), *pn = c->flag ? tensor_values(dist[2]) : NULL;
    Tensor *zs = ag_grad_tmp(&s, ag_tensor_new(dist[0]->ndim, dist[0]->shape));
    for (int64_t i = 0; zs && i < zs->numel; i++) {
        double dneg = an[i];
        if (pn) dneg = isnan(an[i]) || isnan(pn[i]) ? NAN : fmin(an[i], pn[i]);
        tensor_values(zs)[i] = (c->param[0] + ap[i]) - dneg;
    }
    Tensor *zero = ag_grad_num(&s, 0.0);
    Tensor *zeros = zs ? ag_grad_tmp(&s, ag_tensor_filled_like(zs, 0.0)) : NULL;
    Tensor *hinged = zs && zeros ? triplet_mask(&s, zs, tensor_values(zs), tensor_values(zeros), AT_LEAST) : NULL;
    Tensor *gz = gwhere(&s, hinged, shared_g(&s, g, c), zero), *to_neg = gneg(&s, gz);
    Tensor *to_swap = NULL;
    if (pn) {
        Tensor *tie = triplet_mask(&s, dist[1], an, pn, EQUAL);
        Tensor *half = gwhere(&s, tie, gdiv(&s, to_neg, ag_grad_num(&s, 2.0)), to_neg);
        to_neg = gwhere(&s, triplet_mask(&s, dist[1], an, pn, ABOVE), zero, half);
        to_swap = gwhere(&s, triplet_mask(&s, dist[1], an, pn, BELOW), zero, half);
    }
    Tensor *made[3] = {gz, to_neg, to_swap};
    for (int k = 0; k < 3; k++) out[k] = s.failed || !made[k] ? NULL : tensor_retain(made[k]);
    return ag_grad_done(&s);
}

/* *sum (a new reference, replaced) = *sum + sign dv, or sign dv when empty;
 * dv summed along its last dimension first when the operand's is 1. */
static void triplet_add(Tensor **sum, Tensor *dv, double sign, int64_t own) {
    GradTemps s = {0};
    Tensor *part = sign > 0 ? dv : gneg(&s, dv);
    if (own == 1 && dv->ndim > 0 && dv->shape[dv->ndim - 1] > 1)
        part = ag_grad_tmp(&s, tensor_sum_dims(part, (int64_t[]){dv->ndim - 1}, 1, true));
    Tensor *r = grad_result(&s, *sum ? tensor_add(*sum, part) : tensor_retain(part));
    tensor_release(*sum);
    *sum = r;
}

/* u - v + eps expanded to the rows (ndim, shape: the rows' shape, whose
 * last dimension becomes the pair's); kept in s. */
static Tensor *triplet_vector(GradTemps *s, Tensor *u, Tensor *v, Tensor *eps, int ndim,
                              const int64_t *shape) {
    int64_t own[AG_MAX_DIMS];
    memcpy(own, shape, (size_t)ndim * sizeof *own);
    int64_t lu = triplet_len(u), lv = triplet_len(v);
    own[ndim - 1] = lu > lv ? lu : lv;
    return ag_grad_tmp(s, tensor_expand(gadd(s, gsub(s, u, v), eps), ndim, own));
}

static int triplet_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    static const int first[3] = {0, 0, 1}, second[3] = {1, 2, 2};
    const LossCtx *c = ctx;
    Tensor *const *in = self->inputs;
    int ndim, nodes = c->flag ? 3 : 2;
    int64_t shape[AG_MAX_DIMS];
    if (triplet_shape(self->inputs, &ndim, shape) != 0) return -1;
    GradTemps s = {0};
    Tensor *eps = ag_grad_num(&s, c->param[2]), *vec[3] = {0}, *dist[3] = {0}, *gnode[3] = {0};
    for (int k = 0; k < nodes; k++) {
        vec[k] = triplet_vector(&s, in[first[k]], in[second[k]], eps, ndim, shape);
        dist[k] = ag_grad_tmp(&s, tensor_row_norm(vec[k], c->param[1]));
    }
    if (!s.failed && triplet_node_grads(g, c, dist, gnode) != 0) ag_grad_note(&s, NULL);
    for (int k = 0; k < 3; k++)
        if (gnode[k]) ag_grad_tmp(&s, gnode[k]);
    /* triplet_backward's order: later nodes first, each to its first
     * operand, then its second; an operand passed twice sums in one */
    int buf[3];
    for (int k = 0; k < 3; k++) {
        buf[k] = k;
        for (int j = k - 1; j >= 0; j--)
            if (in[j] == in[k]) buf[k] = j;
    }
    Tensor *sum[3] = {NULL, NULL, NULL};
    for (int k = nodes - 1; k >= 0 && !s.failed; k--) {
        Tensor *dv =
            ag_grad_tmp(&s, tensor_row_norm_backward(vec[k], dist[k], gnode[k], c->param[1]));
        if (!dv) break;
        triplet_add(&sum[buf[first[k]]], dv, 1.0, triplet_len(in[first[k]]));
        triplet_add(&sum[buf[second[k]]], dv, -1.0, triplet_len(in[second[k]]));
    }
    for (int k = 0; k < 3; k++) {
        if (buf[k] == k && ag_grad_wanted(self, k) && !s.failed)
            grads[k] = ag_grad_out(&s, tensor_retain(sum[k]));
        tensor_release(sum[k]);
    }
    return ag_grad_done(&s);
}

Tensor *tensor_triplet_margin_loss(Tensor *anchor, Tensor *positive, Tensor *negative,
                                   double margin, double p, double eps, bool swap,
                                   AgReduction reduction) {
    const char *op = "triplet_margin_loss";
    Tensor *in[3] = {anchor, positive, negative};
    if (!anchor || !positive || !negative) return ag_fail("%s: an argument is NULL", op);
    if (!(p > 0)) return ag_fail("%s: p must be positive (or inf), got %g", op, p);
    int ndim;
    int64_t shape[AG_MAX_DIMS];
    TripletData d;
    if (check_reduction(op, reduction, false) != 0 || triplet_shape(in, &ndim, shape) != 0 ||
        triplet_open(in, ndim, shape, &d) != 0)
        return NULL;
    LossCtx c = {.reduction = reduction, .n = divisor(reduction, d.rows, anchor),
                 .param = {margin, p, eps}, .flag = swap};
    Tensor *elems = ag_tensor_new(ndim - 1, shape);
    for (int64_t r = 0; elems && r < d.rows; r++)
        tensor_values(elems)[r] = clamp_min0(triplet_at(&d, r, &c).z);
    triplet_close(&d);
    return record_loss(reduce_losses(elems, &c), AG_OP_TRIPLET_MARGIN_LOSS, in, 3, &c);
}

static Tensor *triplet_call(const AgOpArgs *a) {
    AgReduction r;
    if (parse_reduction(AG_OP_TRIPLET_MARGIN_LOSS, a, &r) != 0) return NULL;
    return tensor_triplet_margin_loss(a->t[0], a->t[1], a->t[2], a->has_num[0] ? a->num[0] : 1.0,
                                      a->has_num[1] ? a->num[1] : 2.0,
                                      a->has_num[2] ? a->num[2] : 1e-6, a->flags[0], r);
}

const AgOpInfo ag_op_triplet_margin_loss = {
    .id = AG_OP_TRIPLET_MARGIN_LOSS, .name = "triplet_margin_loss",
    .signature = "triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, "
                 "swap=False, *, reduction='mean')",
    .params = "TTTnnnbs",
    .help = "per row: max(0, margin + d(anchor, positive) - d(anchor, negative))",
    .rule = "grad_anchor = g / n * (u(a - p) - u(a - n)) where the loss > 0 (u: the p-norm's "
            "gradient), grad_positive = -g / n * u(a - p), grad_negative = g / n * u(a - n)",
    .backward_name = "TripletMarginLossBackward", .call = triplet_call,
    .backward = triplet_backward, .graph_backward = triplet_graph,
    .dtype_rule = AG_DTYPE_FLOATING,
    .flags = AG_OP_SAVES_READS, .grad_reads = {1 | 2 | 4, 1 | 2 | 4, 1 | 2 | 4},
};
