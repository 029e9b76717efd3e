/*
 * test_dtype.c — element types: PyTorch's promotion, each kind of op's
 * result type, conversions, float32 rounding of results and gradients, and
 * the cast op's exact derivative. Expected values: dtype_cases.h, made by
 * PyTorch (dtype_cases.py).
 */
#include "harness.h"

#include "dtype_cases.h"

/* A (2,) tensor, or a 0-d one, of dtype holding ones. */
static Tensor *ones_of(AgDtype dtype, bool zero_dim) {
    Tensor *t = zero_dim ? tensor_scalar(1.0) : tensor_ones(SHAPE(2), false);
    tensor_set_dtype(t, dtype);
    return t;
}

static void test_promotion(void) {
    int wrong = 0;
    for (size_t i = 0; i < sizeof promote_cases / sizeof promote_cases[0]; i++) {
        const PromoteCase *c = &promote_cases[i];
        Tensor *a = ones_of(c->a, c->a_0d), *b = ones_of(c->b, c->b_0d);
        AgDtype got = ag_result_type((Tensor *[]){a, b}, 2);
        Tensor *sum = tensor_add(a, b); /* add's rule is result_type */
        bool ok = got == c->want && sum && sum->dtype == c->want;
        wrong += !CHECK(ok, "result_type(%s%s, %s%s) = %s (add: %s), PyTorch %s",
                        ag_dtype_name(c->a), c->a_0d ? " 0-d" : "", ag_dtype_name(c->b),
                        c->b_0d ? " 0-d" : "", ag_dtype_name(got),
                        sum ? ag_dtype_name((AgDtype)sum->dtype) : ag_error(),
                        ag_dtype_name(c->want));
        tensor_release(a);
        tensor_release(b);
        tensor_release(sum);
    }
    CHECK(wrong == 0, "every pair of dtypes promotes as PyTorch's result_type");
}

/* A tensor and a number (tensor_number, the shell's Python numbers). */
static void test_numbers(void) {
    int wrong = 0;
    for (size_t i = 0; i < sizeof number_cases / sizeof number_cases[0]; i++) {
        const NumberCase *c = &number_cases[i];
        Tensor *a = ones_of(c->a, c->a_0d), *b = tensor_number(c->number, c->number_dtype);
        Tensor *r = tensor_mul(a, b);
        wrong += !CHECK(r && r->dtype == c->want, "%s%s * a %s number: %s, PyTorch %s",
                        ag_dtype_name(c->a), c->a_0d ? " 0-d" : "", ag_dtype_name(c->number_dtype),
                        r ? ag_dtype_name((AgDtype)r->dtype) : ag_error(), ag_dtype_name(c->want));
        tensor_release(a);
        tensor_release(b);
        tensor_release(r);
    }
    CHECK(wrong == 0, "a tensor and a number promote as PyTorch's wrapped numbers");
    /* and the number is converted before the product: 0.1f, not 0.1 */
    Tensor *x = ones_of(AG_FLOAT32, false), *tenth = tensor_number(0.1, AG_FLOAT64);
    Tensor *three = tensor_number(3, AG_INT64), *x3 = tensor_mul(x, three);
    Tensor *r = x3 ? tensor_mul(x3, tenth) : NULL;
    CHECK(r && r->dtype == AG_FLOAT32 && tensor_values(r)[0] == (double)(3.0f * 0.1f),
          "float32 3 * 0.1 is 3.0f * 0.1f");
    Tensor *all[] = {x, tenth, three, x3, r};
    for (int k = 0; k < 5; k++) tensor_release(all[k]);
}

static Tensor *run_op(const char *op, Tensor *x) {
    if (!strcmp(op, "add")) return tensor_add(x, x);
    if (!strcmp(op, "div")) return tensor_div(x, x);
    if (!strcmp(op, "exp")) return tensor_exp(x);
    if (!strcmp(op, "neg")) return tensor_neg(x);
    if (!strcmp(op, "sum")) return tensor_sum(x);
    if (!strcmp(op, "mean")) return tensor_mean(x);
    if (!strcmp(op, "argmax")) return tensor_argmax(x);
    if (!strcmp(op, "eq")) return tensor_eq(x, x);
    if (!strcmp(op, "relu")) return tensor_relu(x);
    if (!strcmp(op, "matmul")) return tensor_matmul(x, x);
    if (!strcmp(op, "floor_divide")) return tensor_floor_divide(x, x);
    if (!strcmp(op, "pow")) return tensor_pow(x, x);
    if (!strcmp(op, "where")) {
        Tensor *zero = tensor_scalar(0.0), *cond = tensor_gt(x, zero);
        Tensor *r = cond ? tensor_where(cond, x, x) : NULL;
        tensor_release(zero);
        tensor_release(cond);
        return r;
    }
    return NULL;
}

static void test_op_dtypes(void) {
    int wrong = 0;
    for (size_t i = 0; i < sizeof op_dtype_cases / sizeof op_dtype_cases[0]; i++) {
        const OpDtypeCase *c = &op_dtype_cases[i];
        Tensor *x = tensor_create(SHAPE(2), (double[]){1, c->in == AG_BOOL ? 0 : 2}, false);
        tensor_set_dtype(x, c->in);
        Tensor *r = run_op(c->op, x);
        int got = r ? (int)r->dtype : -1;
        wrong += !CHECK(got == c->want, "%s of %s: %s, PyTorch %s", c->op,
                        ag_dtype_name(c->in), r ? ag_dtype_name((AgDtype)got) : ag_error(),
                        c->want < 0 ? "refuses" : ag_dtype_name((AgDtype)c->want));
        tensor_release(x);
        tensor_release(r);
    }
    CHECK(wrong == 0, "each kind of op gives PyTorch's result type for every operand type");
}

static void test_conversions(void) {
    int wrong = 0;
    for (size_t i = 0; i < sizeof convert_cases / sizeof convert_cases[0]; i++) {
        const ConvertCase *c = &convert_cases[i];
        Tensor *x = tensor_scalar(c->in), *y = tensor_to(x, c->to);
        double got = y ? tensor_values(y)[0] : NAN;
        wrong += !CHECK(y && same_double(got, c->want) && y->dtype == c->to,
                        "%.17g to %s: %.17g, PyTorch %.17g", c->in, ag_dtype_name(c->to), got,
                        c->want);
        tensor_release(x);
        tensor_release(y);
    }
    CHECK(wrong == 0, "values convert to every dtype as PyTorch converts them");
}

/* Integer arithmetic wraps; a float32 result is the float32 operation's. */
static void test_arithmetic(void) {
    Tensor *big = tensor_create(SHAPE(1), (double[]){2147483647}, false);
    tensor_set_dtype(big, AG_INT32);
    Tensor *one = tensor_scalar(1.0);
    tensor_set_dtype(one, AG_INT64);
    Tensor *r = tensor_add(big, one);
    CHECK(r && r->dtype == AG_INT32 && tensor_values(r)[0] == -2147483648.0,
          "int32 2^31 - 1 + 1 wraps to -2^31 (an int64 0-d operand keeps int32)");
    tensor_release(r);
    Tensor *third = tensor_create(SHAPE(1), (double[]){1}, false), *three = tensor_scalar(3.0);
    tensor_set_dtype(third, AG_FLOAT32);
    r = tensor_div(third, three);
    CHECK(r && r->dtype == AG_FLOAT32 && tensor_values(r)[0] == (double)(1.0f / 3.0f),
          "float32 1 / 3 is float32's quotient (a float64 0-d operand keeps float32)");
    tensor_release(r);
    Tensor *i = tensor_create(SHAPE(2), (double[]){-1, 2}, false);
    tensor_set_dtype(i, AG_INT64);
    r = tensor_pow(i, i);
    CHECK(r && r->dtype == AG_INT64 && tensor_values(r)[0] == -1 && tensor_values(r)[1] == 4,
          "an integer tensor's negative integer powers are PyTorch's powi: (-1)^-1 = -1");
    tensor_release(r);
    Tensor *minus = tensor_scalar(-1.0);
    tensor_set_dtype(minus, AG_INT64);
    minus->wrapped_number = true; /* a Python int: x ** -1 */
    r = tensor_pow(i, minus);
    CHECK(!r && strstr(ag_error(), "Integers to negative integer powers"),
          "an integer to a Python int's negative power is PyTorch's error: %s", ag_error());
    tensor_release(minus);
    CHECK(tensor_set_requires_grad(i, true) != 0 && strstr(ag_error(), "floating point"),
          "an int64 tensor cannot require grad: %s", ag_error());
    Tensor *all[] = {big, one, third, three, i};
    for (int k = 0; k < 5; k++) tensor_release(all[k]);
}

/* to's backward: the gradient as the input's type; a float32 leaf's
 * gradient is float32. */
static void test_to_backward(void) {
    Tensor *x = tensor_create(SHAPE(2), (double[]){0.1, 0.2}, true);
    Tensor *w = tensor_create(SHAPE(2), (double[]){0.3, 1.0 / 3.0}, false);
    Tensor *y = tensor_to(x, AG_FLOAT32), *yw = y ? tensor_mul(y, w) : NULL;
    Tensor *loss = yw ? tensor_sum(yw) : NULL;
    CHECK(y && y->dtype == AG_FLOAT32 && tensor_values(y)[0] == (double)0.1f && yw->dtype == AG_FLOAT64,
          "x.to(float32) rounds; float32 * float64 is float64");
    CHECK(loss && tensor_backward(loss, NULL) == 0, "backward through to: %s", ag_error());
    CHECK(x->grad && x->grad->dtype == AG_FLOAT64 && tensor_values(x->grad)[0] == (double)(float)0.3 &&
              tensor_values(x->grad)[1] == (double)(float)(1.0 / 3.0),
          "x.grad is w rounded to float32 (y's gradient is float32), as float64");
    Tensor *leaf = tensor_create(SHAPE(2), (double[]){1, 2}, false);
    tensor_set_dtype(leaf, AG_FLOAT32);
    tensor_set_requires_grad(leaf, true);
    Tensor *z = tensor_mul(leaf, w), *s = z ? tensor_sum(z) : NULL;
    CHECK(z && z->dtype == AG_FLOAT64 && s && tensor_backward(s, NULL) == 0 && leaf->grad &&
              leaf->grad->dtype == AG_FLOAT32 && tensor_values(leaf->grad)[1] == (double)(float)(1.0 / 3.0),
          "a float32 leaf's gradient is float32");
    Tensor *all[] = {x, w, y, yw, loss, leaf, z, s};
    for (int k = 0; k < 8; k++) tensor_release(all[k]);
}

/* to's gradient as a recorded op (create_graph): the first-order bits, and
 * differentiable again. loss = sum(w * y^2), y = x.to(float32): the
 * gradient 2 w y in float32, as float64; its own gradient, d/dx of
 * sum(dx), is (float)w + (float)w (exact), as float64. */
static void test_to_graph(void) {
    Tensor *x = tensor_create(SHAPE(2), (double[]){0.1, -0.7}, true);
    Tensor *w = tensor_create(SHAPE(2), (double[]){0.3, 1.0 / 3.0}, false);
    Tensor *y = tensor_to(x, AG_FLOAT32), *yy = tensor_mul(y, y), *yw = tensor_mul(yy, w);
    Tensor *loss = tensor_sum(yw), *first = NULL, *dx = NULL, *d2 = NULL;
    CHECK(ag_grad(1, &loss, NULL, 1, &x, AG_RETAIN_GRAPH, false, &first) == 0,
          "first-order gradient through to: %s", ag_error());
    CHECK(ag_grad(1, &loss, NULL, 1, &x, AG_CREATE_GRAPH, false, &dx) == 0, "to, create_graph: %s",
          ag_error());
    bool same = dx && first && dx->dtype == AG_FLOAT64 && dx->requires_grad;
    for (int k = 0; same && k < 2; k++) same = same_double(tensor_values(dx)[k], tensor_values(first)[k]);
    CHECK(same, "to's create_graph gradient is float64 with the first-order bits, and a graph");
    Tensor *s = dx ? tensor_sum(dx) : NULL;
    CHECK(s && ag_grad(1, &s, NULL, 1, &x, 0, false, &d2) == 0, "to, second order: %s", ag_error());
    CHECK(d2 && d2->dtype == AG_FLOAT64 && tensor_values(d2)[0] == 2.0 * (double)(float)0.3 &&
              tensor_values(d2)[1] == 2.0 * (double)(float)(1.0 / 3.0),
          "d2/dx2 sum(w * x.float()^2) = 2 w, w rounded to float32");
    Tensor *all[] = {x, w, y, yy, yw, loss, first, dx, s, d2};
    for (int k = 0; k < 10; k++) tensor_release(all[k]);
    ag_graph_free();
}

static void test_refusals(void) {
    Tensor *b = ones_of(AG_BOOL, false), *i = ones_of(AG_INT64, false), *f = ones_of(AG_FLOAT64, false);
    Tensor *r = tensor_neg(b);
    CHECK(!r && strstr(ag_error(), "Negation, the `-` operator, on a bool tensor"), "-bool: %s",
          ag_error());
    r = tensor_mean(i);
    CHECK(!r && !strcmp(ag_error(), "mean(): could not infer output dtype. Input dtype must be "
                                    "either a floating point or complex dtype. Got: Long"),
          "mean of int64: %s", ag_error());
    r = tensor_matmul(i, f);
    CHECK(!r && !strcmp(ag_error(), "expected scalar type Long but found Double"),
          "int64 @ float64: %s", ag_error());
    CHECK(!ag_can_cast(AG_FLOAT64, AG_INT64) && !ag_can_cast(AG_INT64, AG_BOOL) &&
              ag_can_cast(AG_INT64, AG_FLOAT32) && ag_can_cast(AG_BOOL, AG_INT32),
          "can_cast as PyTorch's");
    CHECK(ag_set_default_dtype(AG_INT64) != 0 && ag_default_dtype() == AG_FLOAT64,
          "only a floating default dtype");
    tensor_release(b);
    tensor_release(i);
    tensor_release(f);
}

/* float32 ranges are PyTorch's float32 kernels' points, not float64's
 * rounded (values from PyTorch 1.13: torch.linspace(-1, 1, 12,
 * dtype=torch.float32), torch.arange(0, 2, 0.05, dtype=torch.float32)). */
static void test_float32_ranges(void) {
    static const double lin[] = {-1.0, -0.8181818127632141, -0.6363636255264282,
                                 -0.45454543828964233, -0.27272725105285645,
                                 -0.09090906381607056, 0.09090906381607056};
    Tensor *l = tensor_linspace_as(-1, 1, 12, AG_FLOAT32);
    bool ok = l && l->dtype == AG_FLOAT32 && l->numel == 12;
    for (int i = 0; ok && i < 7; i++) ok = tensor_values(l)[i] == lin[i];
    CHECK(ok, "float32 linspace: PyTorch's points");
    Tensor *a = tensor_arange_as(0, 2, 0.05, AG_FLOAT32);
    ok = a && a->dtype == AG_FLOAT32 && a->numel == 40 && tensor_values(a)[9] == 0.45000001788139343 &&
         tensor_values(a)[31] == 1.5500000715255737;
    CHECK(ok, "float32 arange: PyTorch's points");
    Tensor *i = tensor_arange_as(0, 5, 1, AG_INT64);
    CHECK(i && i->dtype == AG_INT64 && tensor_values(i)[4] == 4, "int64 arange");
    tensor_release(l), tensor_release(a), tensor_release(i);
}

/* A Python number (tensor_number) of dtype holding v. */
static Tensor *wrapped_number(double v, AgDtype dtype) { return tensor_number(v, dtype); }

/* Python numbers rank below 0-d tensors (PyTorch's wrapped numbers), and a
 * float one beside float32 is converted to float32 before the op. */
static void test_wrapped_numbers(void) {
    static const struct {
        AgDtype tensor, number, want;
        bool zero_dim;
    } cases[] = {
        {AG_FLOAT32, AG_FLOAT64, AG_FLOAT32, true}, /* x32 * 2.5, x 0-d */
        {AG_INT32, AG_INT64, AG_INT32, true},       /* i32 - 4 */
        {AG_BOOL, AG_INT64, AG_INT64, true},        /* b + 1 */
        {AG_INT32, AG_FLOAT64, AG_FLOAT64, true},   /* i32 * 2.5: the default dtype */
        {AG_INT64, AG_BOOL, AG_INT64, false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        Tensor *a = ones_of(cases[k].tensor, cases[k].zero_dim);
        Tensor *b = wrapped_number(2, cases[k].number);
        AgDtype got = ag_result_type((Tensor *[]){a, b}, 2);
        CHECK(got == cases[k].want, "result_type(%s, a Python %s) = %s, PyTorch %s",
              ag_dtype_name(cases[k].tensor), ag_dtype_name(cases[k].number), ag_dtype_name(got),
              ag_dtype_name(cases[k].want));
        tensor_release(a);
        tensor_release(b);
    }
    Tensor *x = tensor_create(SHAPE(1), (double[]){-0.5290198983090271}, false);
    tensor_set_dtype(x, AG_FLOAT32);
    Tensor *n = wrapped_number(2.1144957425270103, AG_FLOAT64);
    Tensor *r = tensor_add(x, n);
    float want = (float)tensor_values(x)[0] + (float)2.1144957425270103;
    CHECK(r && r->dtype == AG_FLOAT32 && tensor_values(r)[0] == (double)want,
          "x32 + 2.1144957425270103 adds the number's float32, as PyTorch: %.17g", r ? tensor_values(r)[0] : 0);
    tensor_release(r);
    tensor_release(n);
    tensor_release(x);
}

void test_dtype(void) {
    test_float32_ranges();
    test_promotion();
    test_numbers();
    test_wrapped_numbers();
    test_op_dtypes();
    test_conversions();
    test_arithmetic();
    test_to_backward();
    test_to_graph();
    test_refusals();
}
