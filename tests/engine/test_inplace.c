/*
 * test_inplace.c — shared data and version counters: detach and x.data
 * share elements, tensor_assign writes in place, and backward refuses a
 * saved tensor changed since it was saved. The messages are PyTorch 1.13's,
 * printed by /usr/bin/python3 with torch (the snippet beside each check).
 */
#include "harness.h"

/* A macro, not a const char *: a format string literal (-Wformat=2 at -O0) */
#define MODIFIED                                                                                 \
    "one of the variables needed for gradient computation has been modified by an inplace "   \
    "operation: [torch.DoubleTensor [2]]%s is at version 1; expected version 0 instead. Hint: " \
    "enable anomaly detection to find the operation that failed to compute its gradient, with " \
    "torch.autograd.set_detect_anomaly(True)."

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
    CHECK(tensor_values(d) == tensor_values(x) && tensor_values(data) == tensor_values(x), "detach and data share x's elements");
    CHECK(!d->requires_grad && tensor_is_leaf(d), "a detached tensor is a leaf without grad");
    CHECK(tensor_write(d, (double[]){5, 6}) == 0 && tensor_values(x)[1] == 6, "a write through detach is x's");
    /* x = torch.tensor([1., 2.], requires_grad=True); d = x.detach(); d.copy_(...)
     * print(x._version, x.data._version)  -> 1 0 */
    CHECK(tensor_version(x) == 1 && tensor_version(d) == 1, "detach shares x's counter");
    CHECK(tensor_version(data) == 0, "x.data counts its own versions");
    Tensor *dd = tensor_detach(d);
    CHECK(dd->base == x && tensor_values(dd) == tensor_values(x), "an alias of an alias shares the owner");
    tensor_release(x); /* the aliases keep the elements */
    CHECK(tensor_values(dd)[0] == 5 && tensor_values(data)[1] == 6, "aliases outlive the tensor they came from");
    tensor_release(d), tensor_release(dd), tensor_release(data);
    Tensor *c = tensor_create(SHAPE(2), (double[]){1, 2}, false), *copy = tensor_copy(c);
    CHECK(tensor_values(copy) != tensor_values(c) && tensor_values(copy)[1] == 2, "tensor_copy copies");
    tensor_release(c), tensor_release(copy);
}

static void test_assign(void) {
    Tensor *x = tensor_zeros(SHAPE(2, 3), false), *row = tensor_create(SHAPE(3), (double[]){1, 2, 3}, false);
    Tensor *alias = tensor_detach(x);
    CHECK(tensor_assign(x, row) == 0 && tensor_values(alias)[4] == 2 && tensor_version(x) == 1,
          "assign broadcasts a row into every row, seen through an alias");
    Tensor *big = tensor_ones(SHAPE(2, 2, 3), false), *bad = tensor_ones(SHAPE(2), false);
    /* torch.zeros(2, 3).copy_(...) / x += torch.ones(2, 2, 3)
     *   -> output with shape [2, 3] doesn't match the broadcast shape [2, 2, 3] */
    CHECK(tensor_assign(x, big) == -1, "a value that would grow x is refused");
    error_is("output with shape [2, 3] doesn't match the broadcast shape [2, 2, 3]");
    CHECK(tensor_assign(x, bad) == -1 && strstr(ag_error(), "cannot broadcast"),
          "shapes that do not broadcast: %s", ag_error());
    CHECK(tensor_version(x) == 1 && tensor_values(x)[5] == 3, "a refused assign changes nothing");
    Tensor *w = tensor_create(SHAPE(3), (double[]){1, 2, 3}, true);
    /* w = torch.tensor([1., 2., 3.], requires_grad=True); w.add_(1) */
    CHECK(tensor_assign(w, row) == -1, "a leaf that requires grad, with grad mode on");
    error_is("a leaf Variable that requires grad is being used in an in-place operation.");
    CHECK(assign_no_grad(w, tensor_retain(big)) == -1, "under no_grad the shape still counts");
    CHECK(assign_no_grad(w, tensor_scalar(7)) == 0 && tensor_values(w)[2] == 7 && w->requires_grad,
          "under no_grad a leaf that requires grad takes new values");
    Tensor *h = tensor_mul(w, w);
    CHECK(tensor_assign(h, row) == -1 && strstr(ag_error(), "does not record in-place"),
          "an intermediate with a graph, with grad mode on: %s", ag_error());
    CHECK(tensor_assign(x, h) == -1 && strstr(ag_error(), "does not record in-place"),
          "a value that requires grad, with grad mode on");
    Tensor *all[] = {x, row, alias, big, bad, w, h};
    for (int i = 0; i < 7; i++) tensor_release(all[i]);
}

/* x.unsqueeze_(0) / x.t_(): x takes a new shape and its values, in place;
 * an alias keeps its own shape; a tensor that requires grad is refused. */
static void test_assign_reshaped(void) {
    Tensor *x = tensor_create(SHAPE(2, 3), (double[]){0, 1, 2, 3, 4, 5}, false);
    Tensor *alias = tensor_detach(x), *xt = tensor_transpose(x, 0, 1);
    CHECK(tensor_assign_reshaped(x, xt) == 0 && x->ndim == 2 && x->shape[0] == 3 &&
              x->shape[1] == 2 && tensor_values(x)[1] == 3 && tensor_version(x) == 1,
          "x.t_(): x is (3, 2) with the transpose's values, one version on");
    CHECK(alias->shape[0] == 2 && tensor_values(alias)[1] == 3, "an alias keeps its shape, sees the values");
    Tensor *four = tensor_ones(SHAPE(4), false), *w = tensor_ones(SHAPE(6), true);
    CHECK(tensor_assign_reshaped(x, four) == -1 && x->shape[0] == 3 && tensor_version(x) == 1,
          "another element count is refused and changes nothing");
    CHECK(tensor_assign_reshaped(w, x) == -1 && w->ndim == 1, "a tensor that requires grad");
    Tensor *all[] = {x, alias, xt, four, w};
    for (int i = 0; i < 5; i++) tensor_release(all[i]);
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
    CHECK(assign_no_grad(c, tensor_scalar(1)) == 0 && backward(s) == 0 && x->grad && tensor_values(x->grad)[0] == 1,
          "an operand add does not read may change");
    Tensor *m = summed(tensor_mul(x, c));
    CHECK(assign_no_grad(c, tensor_scalar(2)) == 0 && backward(m) == -1 &&
              strstr(ag_error(), "is at version 2; expected version 1"),
          "one mul reads may not: %s", ag_error());
    tensor_release(s), tensor_release(m), tensor_release(c);
    tensor_release(x);
}

/* h += 1 on h = x * w: r = h + 1 recorded, then h rebased onto it. */
static Tensor *rebased(Tensor *h, Tensor *r) {
    CHECK(ag_rebase_in_place(h, r) == 0, "rebase: %s", ag_error());
    tensor_release(r);
    return h;
}

/* The values PyTorch 1.13 gives, printed by /usr/bin/python3 (the snippet
 * beside each check). */
static void test_rebase(void) {
    int64_t live = ag_stats().live_tensors;
    Tensor *x = tensor_create(SHAPE(2), (double[]){1, 2}, true);
    Tensor *w = tensor_create(SHAPE(2), (double[]){3, 4}, true);
    Tensor *one = tensor_scalar(1), *three = tensor_scalar(3);
    /* h = x * w; a = h * 3; h += 1; (h.sum() + a.sum()).backward()
     *   -> x.grad [12., 16.], w.grad [4., 8.] */
    Tensor *h = tensor_mul(x, w), *a = tensor_mul(h, three);
    Function *mul = h->grad_fn;
    rebased(h, tensor_add(h, one));
    CHECK(tensor_values(h)[1] == 9 && tensor_version(h) == 1 && strcmp(h->op_name, "AddBackward") == 0,
          "h holds x * w + 1, at version 1, made by add");
    Tensor *old = h->grad_fn->inputs[0];
    CHECK(old != h && old->grad_fn == mul && mul->output == old && a->grad_fn->inputs[0] == old,
          "add and the earlier consumer read the old h, whose Function is mul's");
    Tensor *sh = summed(tensor_retain(h)), *sa = summed(tensor_retain(a));
    Tensor *loss = tensor_add(sh, sa);
    tensor_release(sh), tensor_release(sa);
    CHECK(backward(loss) == 0 && tensor_values(x->grad)[0] == 12 && tensor_values(x->grad)[1] == 16 &&
              tensor_values(w->grad)[0] == 4 && tensor_values(w->grad)[1] == 8,
          "the gradients are PyTorch's: %s", ag_error());
    tensor_release(h), tensor_release(a), tensor_release(loss);
    tensor_set_grad(x, NULL), tensor_set_grad(w, NULL);

    /* h = x * 1; h.mul_(w); h.sum().backward() -> x.grad [3., 4.], w.grad [1., 2.]:
     * mul_ reads h's old values (PyTorch's saved original self) */
    h = tensor_mul(x, one);
    rebased(h, tensor_mul(h, w));
    loss = summed(tensor_retain(h));
    CHECK(backward(loss) == 0 && tensor_values(x->grad)[1] == 4 && tensor_values(w->grad)[1] == 2,
          "mul_ by a tensor that requires grad reads the old h: %s", ag_error());
    tensor_release(h), tensor_release(loss);

    /* h = x * w; a = h * w; h.mul_(3); a.sum().backward() -> the saved h changed */
    h = tensor_mul(x, w), a = tensor_mul(h, w);
    rebased(h, tensor_mul(h, three));
    loss = summed(tensor_retain(a));
    char want[600];
    snprintf(want, sizeof want, MODIFIED, ", which is output 0 of MulBackward0,");
    CHECK(backward(loss) == -1, "a Function that saved h refuses backward");
    error_is(want);
    tensor_release(h), tensor_release(a), tensor_release(loss);

    /* The saved input's Function as it is now, the write's:
     * h = x * w; a = h * w; h.add_(1); a.sum().backward()
     * e = x.exp(); z = (e * w).sum(); e.add_(1); (e.sum() + z).backward()
     *   -> "..., which is output 0 of AddBackward0, is at version 1; ..." (each) */
    snprintf(want, sizeof want, MODIFIED, ", which is output 0 of AddBackward0,");
    h = tensor_mul(x, w), a = tensor_mul(h, w);
    rebased(h, tensor_add(h, one));
    loss = summed(tensor_retain(a));
    CHECK(backward(loss) == -1, "mul's saved h was written by add_");
    error_is(want);
    tensor_release(h), tensor_release(a), tensor_release(loss);
    Tensor *e = tensor_exp(x), *z = summed(tensor_mul(e, w));
    rebased(e, tensor_add(e, one));
    Tensor *se = summed(tensor_retain(e));
    loss = tensor_add(se, z);
    CHECK(backward(loss) == -1, "mul's saved exp(x) was written by add_");
    error_is(want);
    tensor_release(e), tensor_release(z), tensor_release(se), tensor_release(loss);

    /* c = torch.zeros(2); y = x + c; c += x; (c.sum() + y.sum()).backward()
     *   -> c.grad_fn AddBackward0, x.grad [2., 2.]: y's c was a constant */
    Tensor *c = tensor_zeros(SHAPE(2), false), *y = tensor_add(x, c);
    rebased(c, tensor_add(c, x));
    CHECK(c->requires_grad && !tensor_is_leaf(c) && !y->grad_fn->inputs[1]->requires_grad,
          "the constant becomes an intermediate; y keeps a constant");
    Tensor *sc = summed(tensor_retain(c)), *sy = summed(tensor_retain(y));
    loss = tensor_add(sc, sy);
    tensor_set_grad(x, NULL);
    CHECK(backward(loss) == 0 && tensor_values(x->grad)[0] == 2 && tensor_values(x->grad)[1] == 2,
          "no gradient reaches the constant y read: %s", ag_error());
    Tensor *done[] = {c, y, sc, sy, loss};
    for (int i = 0; i < 5; i++) tensor_release(done[i]);

    /* Refusals change nothing. */
    Tensor *rx = tensor_add(x, one);
    CHECK(ag_rebase_in_place(x, rx) == -1, "a leaf that requires grad");
    error_is("a leaf Variable that requires grad is being used in an in-place operation.");
    tensor_release(rx);
    h = tensor_mul(x, w);
    Tensor *zeros = tensor_zeros(SHAPE(2, 2), false);
    Tensor *other = tensor_mul(w, three), *wide = tensor_add(h, zeros);
    CHECK(ag_rebase_in_place(h, other) == -1 && tensor_version(h) == 0, "r must be an op of h");
    CHECK(ag_rebase_in_place(h, wide) == -1, "a broadcast that would grow h");
    error_is("output with shape [2] doesn't match the broadcast shape [2, 2]");
    Tensor *v = tensor_reshape(h, SHAPE(2)), *r = tensor_add(h, one);
    CHECK(ag_rebase_in_place(h, r) == -1 && strstr(ag_error(), "a view of which"),
          "a view of h in the graph: %s", ag_error());
    Tensor *all[] = {h, other, wide, v, r, x, w, one, three, zeros};
    for (int i = 0; i < 10; i++) tensor_release(all[i]);
    ag_graph_free();
    CHECK(ag_stats().live_tensors == live, "every tensor is freed with the graph");
}

void test_inplace(void) {
    test_aliases();
    test_assign();
    test_assign_reshaped();
    test_version_check();
    test_rebase();
    ag_graph_free(); /* the graphs refused backwards left */
}
