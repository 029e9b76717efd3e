/*
 * layers.c — the layers of seed 001 and torch.nn that are compositions of
 * recorded ops, for a C program as much as for the shell: dropout and
 * batch normalisation. (Linear is an op of its own: matmul.c's linear.)
 * Their gradients are the ops' gradients; test_layers.c checks them
 * against finite differences.
 */
#include "../internal.h"

#include <math.h>
#include <string.h>

/* a op b with b a number, as a new reference (a borrowed). */
static Tensor *with_number(Tensor *(*op)(Tensor *, Tensor *), Tensor *a, double b) {
    Tensor *n = tensor_scalar(b);
    Tensor *r = n ? op(a, n) : NULL;
    tensor_release(n);
    return r;
}

/* op(a, b), both handed over. */
static Tensor *take2(Tensor *(*op)(Tensor *, Tensor *), Tensor *a, Tensor *b) {
    Tensor *r = a && b ? op(a, b) : NULL;
    tensor_release(a);
    tensor_release(b);
    return r;
}

Tensor *tensor_dropout(Tensor *x, double p, bool training, AgGenerator *g) {
    if (!x) return ag_fail("dropout: input is NULL");
    if (!(p >= 0 && p <= 1))
        return ag_fail("dropout probability has to be between 0 and 1, but got %g", p);
    if (!training || p == 0) return tensor_retain(x);
    if (p == 1) { /* x * zeros({}, x.options()): x's dtype, an integer one too */
        Tensor *zero = tensor_scalar(0.0);
        if (zero) tensor_set_dtype(zero, (AgDtype)x->dtype);
        return take2(tensor_mul, tensor_retain(x), zero);
    }
    if (!ag_dtype_is_floating((AgDtype)x->dtype)) /* PyTorch's noise.div_(1 - p), in place */
        return ag_fail("result type %s can't be cast to the desired output type %s",
                       ag_dtype_scalar_name(ag_default_dtype()),
                       ag_dtype_scalar_name((AgDtype)x->dtype));
    /* PyTorch's: noise = bernoulli_(1 - p) (its stream), noise / (1 - p), x * noise */
    Tensor *noise = ag_tensor_new_like(x);
    if (!noise) return NULL;
    noise->dtype = x->dtype; /* empty_like: a float64 noise would promote a float32 x */
    bool was = ag_set_grad_enabled(false);
    int rc = tensor_bernoulli_(noise, 1 - p, g);
    ag_set_grad_enabled(was);
    if (rc != 0) return tensor_release(noise), NULL;
    /* noise.div_(1 - p): the Python float 1 - p becomes noise's dtype, and
     * float32's quotient is float64's rounded (53 >= 2 * 24 + 2 bits) */
    double keep = ag_dtype_convert(1 - p, (AgDtype)x->dtype);
    double *nv = tensor_values(noise);
    for (int64_t i = 0; i < noise->numel; i++) nv[i] /= keep;
    if (x->dtype == AG_FLOAT32) tensor_set_dtype(noise, AG_FLOAT32);
    Tensor *r = tensor_mul(x, noise);
    tensor_release(noise);
    return r;
}

/* The dims batch norm reduces: 0, and 2 for (N, C, L). */
static int stat_dims(const Tensor *x, int64_t *dims) {
    dims[0] = 0, dims[1] = 2;
    return x->ndim == 3 ? 2 : 1;
}

/* running = (1 - m) * running + m * batch, in place, recording nothing. */
static int update_running(Tensor *running, const Tensor *batch, double m, double scale) {
    if (!running) return 0;
    if (running->numel != batch->numel)
        return ag_fail("batch_norm: running statistics of %lld elements for %lld channels",
                       (long long)running->numel, (long long)batch->numel), -1;
    double *r = tensor_values(running);
    const double *b = tensor_values(batch);
    for (int64_t c = 0; c < running->numel; c++) r[c] = (1 - m) * r[c] + m * (b[c] * scale);
    ag_bump_version(running);
    return 0;
}

/* A (C,) tensor viewed for broadcasting against x: (1, C) or (1, C, 1). */
static Tensor *per_channel(Tensor *t, const Tensor *x) {
    int64_t shape[3] = {1, t->numel, 1};
    return tensor_reshape(t, x->ndim, shape);
}

/* The batch's mean and (biased) variance over dims, kept as (1, C[, 1]),
 * into *mean and *var (new references); false on failure. */
static bool batch_stats(Tensor *x, const int64_t *dims, int nd, Tensor **mean, Tensor **var) {
    *mean = tensor_mean_dims(x, dims, nd, true);
    Tensor *centered = *mean ? tensor_sub(x, *mean) : NULL;
    Tensor *square = centered ? tensor_mul(centered, centered) : NULL;
    *var = square ? tensor_mean_dims(square, dims, nd, true) : NULL;
    tensor_release(centered);
    tensor_release(square);
    return *var != NULL;
}

/* op(y, t viewed per channel); y handed over (t NULL: y itself). */
static Tensor *per_channel_op(Tensor *(*op)(Tensor *, Tensor *), Tensor *y, Tensor *t,
                              const Tensor *x) {
    if (!y || !t) return y;
    Tensor *c = per_channel(t, x);
    Tensor *r = c ? op(y, c) : NULL;
    tensor_release(c);
    tensor_release(y);
    return r;
}

Tensor *tensor_batch_norm(Tensor *x, Tensor *running_mean, Tensor *running_var, Tensor *weight,
                          Tensor *bias, bool training, double momentum, double eps) {
    char s[AG_SHAPE_STR_MAX];
    if (!x) return ag_fail("batch_norm: input is NULL");
    if (x->ndim != 2 && x->ndim != 3)
        return ag_fail("batch_norm: expected a 2-D or 3-D input (N, C) or (N, C, L), got %s",
                       tensor_shape_str(x, s, sizeof s));
    bool from_batch = training || !running_mean || !running_var;
    int64_t n = x->numel / (x->shape[1] ? x->shape[1] : 1);
    if (training && n < 2)
        return ag_fail("Expected more than 1 value per channel when training, got input size %s",
                       tensor_shape_str(x, s, sizeof s));
    int64_t dims[2];
    int nd = stat_dims(x, dims);
    Tensor *mean = NULL, *var = NULL;
    bool ok = from_batch ? batch_stats(x, dims, nd, &mean, &var)
                         : (mean = per_channel(running_mean, x)) && (var = per_channel(running_var, x));
    if (ok && from_batch && training) { /* PyTorch's running statistics: the unbiased variance */
        ok = update_running(running_mean, mean, momentum, 1.0) == 0 &&
             update_running(running_var, var, momentum, (double)n / (double)(n - 1)) == 0;
    }
    /* PyTorch's transform: invstd = 1 / sqrt(var + eps), alpha = invstd * weight,
     * beta = bias - mean * alpha, y = x * alpha + beta (its bits, not only its value) */
    Tensor *shifted = ok ? with_number(tensor_add, var, eps) : NULL;
    Tensor *one = shifted ? tensor_scalar(1) : NULL;
    Tensor *invstd = one ? take2(tensor_div, one, tensor_sqrt(shifted)) : NULL;
    Tensor *alpha = per_channel_op(tensor_mul, invstd, weight, x);
    Tensor *shift = alpha ? tensor_mul(mean, alpha) : NULL;
    Tensor *beta = NULL;
    if (shift && bias) {
        Tensor *c = per_channel(bias, x);
        beta = c ? tensor_sub(c, shift) : NULL;
        tensor_release(c);
    } else if (shift) {
        beta = tensor_neg(shift);
    }
    Tensor *y = beta ? take2(tensor_add, tensor_mul(x, alpha), tensor_retain(beta)) : NULL;
    Tensor *all[] = {shifted, alpha, shift, beta, mean, var};
    for (int i = 0; i < 6; i++) tensor_release(all[i]);
    return y;
}

/* ======================================================================
 * layer_norm: over x's last nd dims (normalized_shape), a composition of
 * recorded ops in PyTorch's transform's order: rstd = 1 / sqrt(var + eps)
 * (var the biased one), y = x * rstd + (-rstd * mean), then * weight +
 * bias. PyTorch's kernel takes the moments by Welford's update and may
 * fuse its products: values an ulp or two apart (docs/pytorch.md). The
 * result's Function is named as PyTorch's, NativeLayerNormBackward.
 * ====================================================================== */

/* dims as PyTorch's messages write a size: [2, 3] */
static void size_text(int nd, const int64_t *dims, char *buf, size_t size) {
    size_t at = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < nd && at < size; i++)
        at += (size_t)snprintf(buf + at, size - at, "%s%lld", i ? ", " : "", (long long)dims[i]);
    if (at < size) snprintf(buf + at, size - at, "]");
}

Tensor *tensor_layer_norm(Tensor *x, int nd, const int64_t *shape, Tensor *weight, Tensor *bias,
                          double eps) {
    char sx[AG_SHAPE_STR_MAX], sn[AG_SHAPE_STR_MAX], st[AG_SHAPE_STR_MAX];
    if (!x) return ag_fail("layer_norm: input is NULL");
    if (nd < 1 || nd > AG_MAX_DIMS) return ag_fail("layer_norm: normalized_shape must have 1 to %d dims", AG_MAX_DIMS);
    size_text(nd, shape, sn, sizeof sn);
    for (int k = 0; k < 2; k++) {
        const Tensor *t = k ? bias : weight;
        if (t && (t->ndim != nd || memcmp(t->shape, shape, (size_t)nd * sizeof *shape) != 0)) {
            size_text(t->ndim, t->shape, st, sizeof st);
            return ag_fail("Expected %s to be of same shape as normalized_shape, but got %s of "
                           "shape %s and normalized_shape = %s", k ? "bias" : "weight",
                           k ? "bias" : "weight", st, sn);
        }
    }
    bool fits = nd <= x->ndim;
    for (int i = 0; fits && i < nd; i++) fits = x->shape[x->ndim - nd + i] == shape[i];
    if (!fits) {
        size_text(x->ndim, x->shape, sx, sizeof sx);
        return ag_fail("Given normalized_shape=%s, expected input with shape [*, %.*s], but got "
                       "input of size%s", sn, (int)strlen(sn) - 2, sn + 1, sx);
    }
    int64_t dims[AG_MAX_DIMS];
    for (int i = 0; i < nd; i++) dims[i] = x->ndim - nd + i;
    Tensor *mean = NULL, *var = NULL;
    bool ok = batch_stats(x, dims, nd, &mean, &var);
    Tensor *shifted = ok ? with_number(tensor_add, var, eps) : NULL;
    Tensor *one = shifted ? tensor_scalar(1) : NULL;
    Tensor *rstd = one ? take2(tensor_div, one, tensor_sqrt(shifted)) : NULL;
    Tensor *offset = rstd ? take2(tensor_mul, tensor_neg(rstd), tensor_retain(mean)) : NULL;
    Tensor *y = offset ? take2(tensor_add, tensor_mul(x, rstd), tensor_retain(offset)) : NULL;
    if (y && weight) y = take2(tensor_mul, y, tensor_retain(weight));
    if (y && bias) y = take2(tensor_add, y, tensor_retain(bias));
    if (y && y->grad_fn) y->op_name = y->grad_fn->name = "NativeLayerNormBackward";
    Tensor *all[] = {mean, var, shifted, rstd, offset};
    for (int i = 0; i < 5; i++) tensor_release(all[i]);
    return y;
}
