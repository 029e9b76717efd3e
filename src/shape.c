/*
 * shape.c — shape arithmetic shared by the ops: equality, NumPy
 * broadcasting, axis normalisation, and the row iterator every broadcasting
 * loop (forward kernels, ag_accumulate_grad's reduction, ag_broadcast_to) uses.
 */
#include "internal.h"

#include <string.h>

/* Cannot overflow on a tensor's shape: checked_numel (tensor.c) bounds the
 * product of its non-zero dimensions, so every partial product is bounded
 * too (or 0). */
int64_t ag_shape_prod(const int64_t *shape, int from, int to) {
    int64_t n = 1;
    for (int i = from; i < to; i++) n *= shape[i];
    return n;
}

int ag_broadcast_shapes(const char *op, const Tensor *a, const Tensor *b,
                     int64_t *out, int *out_ndim) {
    return ag_broadcast_shapes_n(op, (const Tensor *[]){a, b}, 2, out, out_ndim);
}

/* "(2,), (3,) and (2, 2)": the shapes of ts, for a message. */
static void shapes_text(const Tensor *const *ts, int n, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && used < size; k++) {
        char s[AG_SHAPE_STR_MAX];
        const char *sep = k == 0 ? "" : k == n - 1 ? " and " : ", ";
        used += (size_t)snprintf(buf + used, size - used, "%s%s", sep,
                                 tensor_shape_str(ts[k], s, sizeof s));
    }
}

/* The message for shapes that do not broadcast (kept out of the loop below,
 * which runs for every op). */
static int broadcast_fail(const char *op, const Tensor *const *ts, int n, int i, int64_t d,
                          int64_t dk) {
    char shapes[AG_BROADCAST_MAX * (AG_SHAPE_STR_MAX + 5)];
    shapes_text(ts, n, shapes, sizeof shapes);
    ag_fail("%s: shapes %s cannot broadcast (dimension %d: %lld vs %lld)", op, shapes, i,
            (long long)d, (long long)dk);
    return -1;
}

int ag_broadcast_shapes_n(const char *op, const Tensor *const *ts, int n, int64_t *out,
                          int *out_ndim) {
    int nd = 0;
    for (int k = 0; k < n; k++)
        if (ts[k]->ndim > nd) nd = ts[k]->ndim;
    for (int i = 0; i < nd; i++) {
        /* Align from the right; a missing dimension acts as 1. */
        int64_t d = 1;
        for (int k = 0; k < n; k++) {
            int ik = ts[k]->ndim - nd + i;
            int64_t dk = ik >= 0 ? ts[k]->shape[ik] : 1;
            if (dk != d && d != 1 && dk != 1) return broadcast_fail(op, ts, n, i, d, dk);
            if (dk != 1) d = dk;
        }
        out[i] = d;
    }
    *out_ndim = nd;
    return 0;
}

int ag_normalize_axis(const char *op, int64_t axis, int ndim) {
    if (axis < -ndim || axis >= ndim) {
        if (ndim == 0)
            ag_fail("%s: axis %lld is out of range for a 0-d tensor (expected -1 or 0)", op,
                    (long long)axis);
        else
            ag_fail("%s: axis %lld is out of range for %d dimension%s (expected %d to %d)", op,
                    (long long)axis, ndim, ndim == 1 ? "" : "s", -ndim, ndim - 1);
        return -1;
    }
    return (int)(axis < 0 ? axis + ndim : axis);
}

int ag_reduce_mask(const char *op, const Tensor *x, const int64_t *dims, int ndims,
                   unsigned *mask) {
    *mask = 0;
    if (!x) return ag_fail("%s: argument is NULL", op), -1;
    if (ndims < 0 || ndims > AG_MAX_DIMS || (ndims > 0 && !dims))
        return ag_fail("%s: %d dims given (at most %d)", op, ndims, AG_MAX_DIMS), -1;
    if (ndims == 0) { /* every dimension */
        *mask = (1u << x->ndim) - 1;
        return 0;
    }
    for (int k = 0; k < ndims; k++) {
        int axis;
        if (x->ndim == 0) { /* dim 0 or -1, as PyTorch: its one element */
            if (dims[k] != 0 && dims[k] != -1) return ag_normalize_axis(op, dims[k], 0), -1;
            axis = 0;
        } else if ((axis = ag_normalize_axis(op, dims[k], x->ndim)) < 0) {
            return -1;
        }
        if (*mask >> axis & 1)
            return ag_fail("%s: dim %d appears more than once in the list of dims", op, axis), -1;
        *mask |= 1u << axis;
    }
    if (x->ndim == 0) *mask = 0; /* nothing to remove */
    return 0;
}

Tensor *ag_reduced_new(const Tensor *x, unsigned mask, bool keepdim) {
    int64_t shape[AG_MAX_DIMS];
    int ndim = 0;
    for (int i = 0; i < x->ndim; i++)
        if (!(mask >> i & 1)) shape[ndim++] = x->shape[i];
        else if (keepdim) shape[ndim++] = 1;
    return ag_tensor_new(ndim, shape);
}

/* Strides of small broadcast against the big shape: its contiguous stride
 * where its dimension matches, 0 where it is 1 or missing. */
static void broadcast_strides(int64_t *stride, int ndim, const int64_t *shape,
                              const Tensor *small) {
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        int is = small->ndim - ndim + i;
        int64_t d = is >= 0 ? small->shape[is] : 1;
        stride[i] = (d == 1 && shape[i] != 1) ? 0 : s;
        s *= d;
    }
}

bool ag_broadcast_iter_init(BroadcastIter *it, int ndim, const int64_t *shape,
                         const Tensor *small0, const Tensor *small1) {
    return ag_broadcast_iter_init_n(it, ndim, shape, (const Tensor *[]){small0, small1},
                                    small1 ? 2 : 1);
}

bool ag_broadcast_iter_init_n(BroadcastIter *it, int ndim, const int64_t *shape,
                              const Tensor *const *smalls, int n) {
    it->ndim = ndim;
    it->count = n;
    memcpy(it->shape, shape, (size_t)ndim * sizeof *shape);
    memset(it->index, 0, sizeof it->index);
    memset(it->stride, 0, sizeof it->stride);
    memset(it->offset, 0, sizeof it->offset);
    for (int k = 0; k < n; k++) broadcast_strides(it->stride[k], ndim, shape, smalls[k]);
    it->row_len = ndim > 0 ? shape[ndim - 1] : 1;
    it->rows = ndim > 0 ? ag_shape_prod(shape, 0, ndim - 1) : 1;
    it->row = 0;
    /* 0-d: a row of one element, with unit "row stride" for every operand. */
    if (ndim == 0) {
        it->ndim = 1;
        it->shape[0] = 1;
        for (int k = 0; k < AG_BROADCAST_MAX; k++) it->stride[k][0] = 1;
    }
    return it->rows > 0 && it->row_len > 0;
}

bool ag_broadcast_iter_next(BroadcastIter *it) {
    if (++it->row >= it->rows) return false;
    for (int d = it->ndim - 2; d >= 0; d--) {
        for (int k = 0; k < it->count; k++) it->offset[k] += it->stride[k][d];
        if (++it->index[d] < it->shape[d]) break;
        for (int k = 0; k < it->count; k++) it->offset[k] -= it->stride[k][d] * it->shape[d];
        it->index[d] = 0;
    }
    return true;
}

Tensor *ag_broadcast_to(const Tensor *x, int ndim, const int64_t *shape) {
    Tensor *r = ag_tensor_new(ndim, shape);
    if (!r) return NULL;
    BroadcastIter it;
    double *dst = tensor_values(r);
    for (bool more = ag_broadcast_iter_init(&it, ndim, shape, x, NULL); more;
         more = ag_broadcast_iter_next(&it)) {
        const double *src = tensor_values(x) + it.offset[0];
        if (it.stride[0][it.ndim - 1] == 1)
            memcpy(dst, src, (size_t)it.row_len * sizeof *dst);
        else
            for (int64_t j = 0; j < it.row_len; j++) dst[j] = *src;
        dst += it.row_len;
    }
    return r;
}
