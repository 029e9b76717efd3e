/*
 * shape.c — shape arithmetic shared by the ops: equality, NumPy
 * broadcasting, axis normalisation, and the row iterator every broadcasting
 * loop (forward kernels, ag_accumulate_grad's reduction, ag_broadcast_to) uses.
 */
#include "internal.h"

#include <string.h>

bool ag_shape_equal(int na, const int64_t *a, int nb, const int64_t *b) {
    if (na != nb) return false;
    for (int i = 0; i < na; i++)
        if (a[i] != b[i]) return false;
    return true;
}

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
    int n = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (int i = 0; i < n; i++) {
        /* Align from the right; a missing dimension acts as 1. */
        int ia = a->ndim - n + i, ib = b->ndim - n + i;
        int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            char sa[AG_SHAPE_STR_MAX], sb[AG_SHAPE_STR_MAX];
            ag_fail("%s: shapes %s and %s cannot broadcast (dimension %d: %lld vs %lld)", op,
                    tensor_shape_str(a, sa, sizeof sa), tensor_shape_str(b, sb, sizeof sb), i,
                    (long long)da, (long long)db);
            return -1;
        }
        out[i] = da == 1 ? db : da;
    }
    *out_ndim = n;
    return 0;
}

int ag_normalize_axis(const char *op, int axis, int ndim) {
    if (axis < -ndim || axis >= ndim) {
        if (ndim == 0)
            ag_fail("%s: axis %d is out of range for a 0-d tensor (expected -1 or 0)", op, axis);
        else
            ag_fail("%s: axis %d is out of range for %d dimension%s (expected %d to %d)", op,
                    axis, ndim, ndim == 1 ? "" : "s", -ndim, ndim - 1);
        return -1;
    }
    return axis < 0 ? axis + ndim : axis;
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
    it->ndim = ndim;
    memcpy(it->shape, shape, (size_t)ndim * sizeof *shape);
    memset(it->index, 0, sizeof it->index);
    broadcast_strides(it->stride[0], ndim, shape, small0);
    if (small1)
        broadcast_strides(it->stride[1], ndim, shape, small1);
    else
        memset(it->stride[1], 0, sizeof it->stride[1]);
    it->offset[0] = it->offset[1] = 0;
    it->row_len = ndim > 0 ? shape[ndim - 1] : 1;
    it->rows = ndim > 0 ? ag_shape_prod(shape, 0, ndim - 1) : 1;
    it->row = 0;
    /* 0-d: a row of one element, with unit "row stride" for both. */
    if (ndim == 0) {
        it->ndim = 1;
        it->shape[0] = 1;
        it->stride[0][0] = it->stride[1][0] = 1;
    }
    return it->rows > 0 && it->row_len > 0;
}

bool ag_broadcast_iter_next(BroadcastIter *it) {
    if (++it->row >= it->rows) return false;
    for (int d = it->ndim - 2; d >= 0; d--) {
        it->offset[0] += it->stride[0][d];
        it->offset[1] += it->stride[1][d];
        if (++it->index[d] < it->shape[d]) break;
        it->offset[0] -= it->stride[0][d] * it->shape[d];
        it->offset[1] -= it->stride[1][d] * it->shape[d];
        it->index[d] = 0;
    }
    return true;
}

Tensor *ag_broadcast_to(const Tensor *x, int ndim, const int64_t *shape) {
    Tensor *r = ag_tensor_new(ndim, shape);
    if (!r) return NULL;
    BroadcastIter it;
    double *dst = r->data;
    for (bool more = ag_broadcast_iter_init(&it, ndim, shape, x, NULL); more;
         more = ag_broadcast_iter_next(&it)) {
        const double *src = x->data + it.offset[0];
        if (it.stride[0][it.ndim - 1] == 1)
            memcpy(dst, src, (size_t)it.row_len * sizeof *dst);
        else
            for (int64_t j = 0; j < it.row_len; j++) dst[j] = *src;
        dst += it.row_len;
    }
    return r;
}
