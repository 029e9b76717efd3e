/*
 * test_inplace.c — shared data and version counters: detach and x.data
 * share elements, tensor_assign writes in place, and backward refuses a
 * saved tensor changed since it was saved. The messages are PyTorch 1.13's,
 * printed by /usr/bin/python3 with torch (the snippet beside each check).
 */
#include "harness.h"

static const char *const MODIFIED =
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.DoubleTensor [2]]%s is at version 1; expected version 0 instead. Hint: "
    "enable anomaly detection to find the operation that failed to compute its gradient, with "
    "torch.autograd.set_detect_anomaly(True).";

static bool error_is(const char *want) {
    return CHECK(strcmp(ag_error(), want) == 0, "message: %s\n  expected: %s", ag_error(), want);
}

/* sum(t), t handed over. */
static Tensor *summed(Tensor *t) {
    Tensor *s = tensor_sum(t);
    tensor_release(t);
    return s;
}

/* Writes value into t under no_grad, value handed over. */
static int assign_no_grad(Tensor *t, Tensor *value) {
    bool was = ag_set_grad_enabled(false);
    int rc = tensor_assign(t, value);
    ag_set_grad_enabled(was);
    tensor_release(value);
    return rc;
}

static void test_aliases(void) {
    Tensor *x = tensor_create(SHAPE(2), (double[]){1, 2}, true);
    Tensor *d = tensor_detach(x), *data = tensor_data(x);
    CHECK(d->data == x->data && data->data == x->data, "detach and data share x's elements");
    CHECK(!d->requires_grad && tensor_is_leaf(d), "a detached tensor is a leaf without grad");
    CHECK(tensor_write(d, (double[]){5, 6}) == 0 && x->data[1] == 6, "a write through detach is x's");
    /* x = torch.tensor([1., 2.], requires_grad=True); d = x.detach(); d.copy_(...)
     * print(x._version, x.data._version)  -> 1 0 */
    CHECK(tensor_version(x) == 1 && tensor_version(d) == 1, "detach shares x's counter");
    CHECK(tensor_version(data) == 0, "x.data counts its own versions");
    Tensor *dd = tensor_detach(d);
    CHECK(dd->base == x && dd->data == x->data, "an alias of an alias shares the owner");
    tensor_release(x); /* the aliases keep the elements */
    CHECK(dd->data[0] == 5 && data->data[1] == 6, "aliases outlive the tensor they came from");
    tensor_release(d), tensor_release(dd), tensor_release(data);
    Tensor *c = tensor_create(SHAPE(2), (double[]){1, 2}, false), *copy = tensor_copy(c);
    CHECK(copy->data != c->data && copy->data[1] == 2, "tensor_copy copies");
    tensor_release(c), tensor_release(copy);
}

static void test_assign(void) {
    Tensor *x = tensor_zeros(SHAPE(2, 3), false), *row = tensor_create(SHAPE(3), (double[]){1, 2, 3}, false);
    Tensor *alias = tensor_detach(x);
    CHECK(tensor_assign(x, row) == 0 && alias->data[4] == 2 && tensor_version(x) == 1,
          "assign broadcasts a row into every row, seen through an alias");
    Tensor *big = tensor_ones(SHAPE(2, 2, 3), false), *bad = tensor_ones(SHAPE(2), false);
    /* torch.zeros(2, 3).copy_(...) / x += torch.ones(2, 2, 3)
     *   -> output with shape [2, 3] doesn't match the broadcast shape [2, 2, 3] */
    CHECK(tensor_assign(x, big) == -1, "a value that would grow x is refused");
    error_is("output with shape [2, 3] doesn't match the broadcast shape [2, 2, 3]");
    CHECK(tensor_assign(x, bad) == -1 && strstr(ag_error(), "cannot broadcast"),
          "shapes that do not broadcast: %s", ag_error());
    CHECK(tensor_version(x) == 1 && x->data[5] == 3, "a refused assign changes nothing");
    Tensor *w = tensor_create(SHAPE(3), (double[]){1, 2, 3}, true);
    /* w = torch.tensor([1., 2., 3.], requires_grad=True); w.add_(1) */
    CHECK(tensor_assign(w, row) == -1, "a leaf that requires grad, with grad mode on");
    error_is("a leaf Variable that requires grad is being used in an in-place operation.");
    CHECK(assign_no_grad(w, tensor_retain(big)) == -1, "under no_grad the shape still counts");
    CHECK(assign_no_grad(w, tensor_scalar(7)) == 0 && w->data[2] == 7 && w->requires_grad,
          "under no_grad a leaf that requires grad takes new values");
    Tensor *h = tensor_mul(w, w);
    CHECK(tensor_assign(h, row) == -1 && strstr(ag_error(), "does not record in-place"),
          "an intermediate with a graph, with grad mode on: %s", ag_error());
    CHECK(tensor_assign(x, h) == -1 && strstr(ag_error(), "does not record in-place"),
          "a value that requires grad, with grad mode on");
    Tensor *all[] = {x, row, alias, big, bad, w, h};
    for (int i = 0; i < 7; i++) tensor_release(all[i]);
}

/* Backward through a tensor changed since a Function saved it. */
static void test_version_check(void) {
    char want[600];
    Tensor *x = tensor_create(SHAPE(2), (double[]){1, 2}, true);
    Tensor *y = tensor_mul(x, x), *loss = tensor_sum(y);
    assign_no_grad(x, tensor_scalar(0)); /* x -= 1 under torch.no_grad() */
    CHECK(backward(loss) == -1, "backward through a changed leaf is refused");
    snprintf(want, sizeof want, MODIFIED, "");
    error_is(want);
    CHECK(x->grad == NULL, "and x.grad is untouched");
    tensor_release(y), tensor_release(loss);

    Tensor *e = tensor_exp(x), *z = summed(tensor_mul(e, e));
    assign_no_grad(e, tensor_scalar(1)); /* y += 1 under no_grad, y = x.exp() */
    CHECK(backward(z) == -1, "backward through a changed output is refused");
    snprintf(want, sizeof want, MODIFIED, ", which is output 0 of ExpBackward0,");
    error_is(want);
    tensor_release(e), tensor_release(z);

    /* add saves nothing: a constant operand changed after it is harmless
     * (PyTorch: c = torch.zeros(2); y = x + c; c.add_(1); y.sum().backward() works) */
    Tensor *c = tensor_zeros(SHAPE(2), false), *s = summed(tensor_add(x, c));
    CHECK(assign_no_grad(c, tensor_scalar(1)) == 0 && backward(s) == 0 && x->grad && x->grad->data[0] == 1,
          "an operand add does not read may change");
    Tensor *m = summed(tensor_mul(x, c));
    CHECK(assign_no_grad(c, tensor_scalar(2)) == 0 && backward(m) == -1 &&
              strstr(ag_error(), "is at version 2; expected version 1"),
          "one mul reads may not: %s", ag_error());
    tensor_release(s), tensor_release(m), tensor_release(c);
    tensor_release(x);
}

void test_inplace(void) {
    test_aliases();
    test_assign();
    test_version_check();
    ag_graph_free(); /* the graphs refused backwards left */
}
