/*
 * test_anomaly.c — anomaly mode (PyTorch's set_detect_anomaly): backward
 * stops at the first Function whose backward produced a nan, with PyTorch's
 * message first and ag's words after it (the element, the rule's
 * arithmetic, where the forward ran); off, the same nan passes unchecked.
 */
#include "harness.h"

/* where(x > 0, sqrt(x), 0) at x = [0, 4]: the branch not taken gets g = 0,
 * and sqrt's backward at 0 is 0 / (2 sqrt(0)) = 0 / 0 = nan (PyTorch's
 * classic nan through where). */
static Tensor *where_sqrt(Tensor *x) {
    Tensor *zero = tensor_scalar(0), *pos = tensor_gt(x, zero);
    Tensor *r = tensor_sqrt(x), *w = tensor_where(pos, r, zero), *y = tensor_sum(w);
    tensor_release(zero), tensor_release(pos), tensor_release(r), tensor_release(w);
    return y;
}

static void test_sqrt_at_zero(void) {
    Tensor *x = tensor_create(SHAPE(2), (double[]){0, 4}, true);
    bool was = ag_set_detect_anomaly(true);
    CHECK(!was && ag_is_anomaly_enabled(), "anomaly mode is off by default, on when set");
    ag_set_anomaly_location("script.py", 7);
    Tensor *y = where_sqrt(x);
    ag_set_anomaly_location(NULL, 0);
    CHECK(backward(y) == -1, "a nan stops backward");
    const char *m = ag_error();
    CHECK(strncmp(m, "Function 'SqrtBackward0' returned nan values in its 0th output. ", 64) == 0,
          "PyTorch's sentence first: %s", m);
    CHECK(strstr(m, "SqrtBackward at (0,): grad_x = g / (2 sqrt(x)) = 0 / (2 sqrt(0)) = "
                    "0 / 0 = nan") != NULL, "the element and the arithmetic: %s", m);
    CHECK(strstr(m, "its forward ran at script.py:7.") != NULL, "where the forward ran: %s", m);
    CHECK(x->grad == NULL, "every .grad as before the failed backward");
    CHECK(ag_graph_size() == 0, "the graph is freed, as after any failure");
    tensor_release(y);
    ag_set_detect_anomaly(false);
    y = where_sqrt(x);
    CHECK(backward(y) == 0 && x->grad && isnan(tensor_values(x->grad)[0]) && tensor_values(x->grad)[1] == 0.25,
          "off: no check, x.grad = [nan, 0.25] as PyTorch's: %s", ag_error());
    tensor_release(y), tensor_release(x);
}

/* A binary op's second input: log(a) / b with b = 0 and a = 0 gives grad_b
 * = -g * a / b^2 = -1 * 0 / 0^2 = nan: the lowest input with a nan is
 * named; here grad_a = g / b = 1 / 0 is inf, no nan, so input 1. */
static void test_second_input(void) {
    Tensor *a = tensor_create(SHAPE(1), (double[]){0}, true);
    Tensor *b = tensor_create(SHAPE(1), (double[]){0}, true);
    ag_set_detect_anomaly(true);
    Tensor *q = tensor_div(a, b), *y = tensor_sum(q);
    CHECK(backward(y) == -1, "0 / 0's gradient is nan");
    const char *m = ag_error();
    CHECK(strncmp(m, "Function 'DivBackward0' returned nan values in its 1th output.", 62) == 0,
          "grad_a = 1 / 0 = inf is no nan: the 1th output, as PyTorch: %s", m);
    CHECK(strstr(m, "grad_b = -g * a / b^2 = -1 * 0 / 0^2 = -0 / 0 = nan") != NULL,
          "its arithmetic: %s", m);
    CHECK(strstr(m, "forward ran") == NULL, "no place given, none said: %s", m);
    ag_set_detect_anomaly(false);
    tensor_release(q), tensor_release(y), tensor_release(a), tensor_release(b);
}

/* A rule that is no formula (matmul): the element and the rule, quoted,
 * and no values: a's gradient has the output's shape here, but its
 * element (0, 0) reads a row and a column, not the (0, 0) of each. */
static void test_no_formula(void) {
    Tensor *a = tensor_create(SHAPE(2, 2), (double[]){1, 2, 3, 4}, true);
    Tensor *b = tensor_create(SHAPE(2, 2), (double[]){NAN, 1, 1, 1}, false);
    ag_set_detect_anomaly(true);
    Tensor *p = tensor_matmul(a, b), *y = tensor_sum(p);
    CHECK(backward(y) == -1, "a nan in b makes grad_a nan");
    const char *m = ag_error();
    CHECK(strstr(m, "in its 0th output. MmBackward at (0, 0) (grad_a = g @ b^T") != NULL,
          "the element and the rule: %s", m);
    CHECK(strstr(m, "g = ") == NULL, "no values of the element: %s", m);
    ag_set_detect_anomaly(false);
    tensor_release(p), tensor_release(y), tensor_release(a), tensor_release(b);
}

/* A constant operand: c * x with c = inf and g = 0 gives only x (input 1)
 * a gradient, 0 * inf = nan: PyTorch's "1th output". */
static void test_constant_operand(void) {
    Tensor *c = tensor_create(SHAPE(1), (double[]){INFINITY}, false);
    Tensor *x = tensor_create(SHAPE(1), (double[]){1}, true);
    Tensor *zero = tensor_scalar(0);
    ag_set_detect_anomaly(true);
    Tensor *p = tensor_mul(c, x), *q = tensor_mul(p, zero), *y = tensor_sum(q);
    CHECK(backward(y) == -1, "0 * inf is nan");
    const char *m = ag_error();
    CHECK(strstr(m, "'MulBackward0' returned nan values in its 1th output. MulBackward at "
                    "(0,): grad_b = g * a = 0 * inf = nan.") != NULL,
          "the second operand, one step of arithmetic: %s", m);
    ag_set_detect_anomaly(false);
    tensor_release(p), tensor_release(q), tensor_release(y);
    tensor_release(c), tensor_release(x), tensor_release(zero);
}

/* create_graph: the gradients come from the ops' graph_backwards, and are
 * checked as the first-order kernels' are; ag_grad changes nothing. */
static void test_create_graph(void) {
    Tensor *x = tensor_create(SHAPE(2), (double[]){0, 4}, true);
    ag_set_detect_anomaly(true);
    Tensor *y = where_sqrt(x), *g = NULL;
    CHECK(ag_grad(1, &y, NULL, 1, &x, AG_CREATE_GRAPH, false, &g) == -1 && g == NULL,
          "a nan in a create_graph backward stops it");
    CHECK(strstr(ag_error(), "SqrtBackward at (0,): grad_x = g / (2 sqrt(x))") != NULL,
          "named as in a first-order backward: %s", ag_error());
    ag_set_detect_anomaly(false);
    tensor_release(y), tensor_release(x);
    ag_graph_free();
}

void test_anomaly(void) {
    test_sqrt_at_zero();
    test_second_input();
    test_no_formula();
    test_constant_operand();
    test_create_graph();
}
