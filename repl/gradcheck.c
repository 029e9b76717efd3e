/*
 * gradcheck.c — grad(f, a, ...) and gradcheck(f, a, ...): run a function
 * forward and backward afresh, on copies of its arguments, in a graph of
 * their own (ag_graph_push), so that neither the arguments' .grad nor the
 * graphs the user is building are touched. Inside, every variable the body
 * reads is a constant: only the arguments are differentiated (JAX's rule).
 * f is called through the evaluator's call path (a->func.invoke).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "interrupt.h"

enum { WORST_SHOWN = 5 };

/* Checks of gradcheck, as PyTorch's defaults: |a - n| <= atol + rtol |n|. */
static const double FD_STEP = 1e-6, ATOL = 1e-5, RTOL = 1e-3;

/* ======================================================================
 * Calling f
 * ====================================================================== */

/* The name of f's i-th argument: the user function's parameter; for a
 * builtin, the argument itself when it is a name, else x1, x2, ... */
static void param_name(const CallArgs *a, int i, char *buf, size_t size) {
    const UserFunc *u = a->func.user;
    const Node *arg = a->rest_node[i];
    const Node *p = u && i < u->def->num_params ? u->def->params[i]
                    : arg->kind == NODE_NAME      ? arg
                                                  : NULL;
    if (p)
        snprintf(buf, size, "%.*s", (int)(p->as.text.length > 40 ? 40 : p->as.text.length),
                 p->as.text.text);
    else
        snprintf(buf, size, "x%d", i + 1);
}

/* f(args) as a tensor; false with the error set. */
static bool call_f(Session *s, const CallArgs *a, Value *args, Tensor **out) {
    Value v;
    s->isolated++;
    bool ok = a->func.invoke(s, &a->func, args, a->num_rest, &v);
    s->isolated--;
    if (!ok) return false;
    if (v.kind != VAL_TENSOR && !value_is_scalar(&v)) {
        char what[32];
        snprintf(what, sizeof what, "%s", value_kind_name(&v));
        value_release(&v);
        return session_fail(s, a->line, a->col, "%.*s returned %s, not a tensor",
                            (int)a->func.length, a->func.name, what);
    }
    char why[200];
    *out = value_to_tensor(&v, why, sizeof why);
    value_release(&v);
    return *out || session_fail(s, a->line, a->col, "%s", why[0] ? why : ag_error());
}

/* f(args) summed to one number when it has several elements (gradcheck
 * checks the gradient of the sum); summed_shape (if not NULL) gets the shape
 * that was summed, or "". */
static bool loss_of(Session *s, const CallArgs *a, Value *args, Tensor **loss, char *summed_shape) {
    Tensor *out;
    if (!call_f(s, a, args, &out)) return false;
    if (summed_shape) summed_shape[0] = '\0';
    if (out->numel == 1) {
        *loss = out;
        return true;
    }
    if (summed_shape) tensor_shape_str(out, summed_shape, AG_SHAPE_STR_MAX);
    *loss = tensor_sum(out);
    tensor_release(out);
    return *loss ? true : session_fail(s, a->line, a->col, "%s", ag_error());
}

/* Copies of the arguments: tensors become fresh leaves that require grad
 * as the originals do (backward fills the copies' .grad, never the
 * originals'); other values are passed as they are. */
static bool copy_args(Session *s, const CallArgs *a, Value *copies) {
    for (int i = 0; i < a->num_rest; i++) {
        const Value *v = &a->rest[i];
        if (v->kind != VAL_TENSOR) {
            value_copy(v, &copies[i]);
            continue;
        }
        Tensor *t = tensor_detach(v->as.tensor);
        if (!t) {
            for (int j = 0; j < i; j++) value_release(&copies[j]);
            return session_fail(s, a->line, a->col, "%s", ag_error());
        }
        tensor_set_requires_grad(t, v->as.tensor->requires_grad);
        copies[i] = value_tensor(t);
    }
    return true;
}

static void release_all(Value *vs, int n) {
    for (int i = 0; i < n; i++) value_release(&vs[i]);
}

static bool requires_grad(const Value *v) {
    return v->kind == VAL_TENSOR && v->as.tensor->requires_grad;
}

static bool any_requires_grad_arg(Session *s, const CallArgs *a, const char *what) {
    for (int i = 0; i < a->num_rest; i++)
        if (requires_grad(&a->rest[i])) return true;
    return session_fail(s, a->line, a->col,
                        "%s: no argument requires grad, so there is nothing to differentiate "
                        "(make one with tensor(x, requires_grad=True))", what);
}

/* Runs f forward and backward on copies in a graph of its own: loss and
 * copies (with their .grad) for the caller to read and release. */
static bool forward_backward(Session *s, const CallArgs *a, Value *copies, Tensor **loss,
                             char *summed_shape) {
    if (!copy_args(s, a, copies)) return false;
    bool ok = loss_of(s, a, copies, loss, summed_shape);
    if (ok && (*loss)->requires_grad && backward(*loss) != 0)
        ok = session_fail(s, a->line, a->col, "%s", ag_error());
    if (!ok) release_all(copies, a->num_rest);
    return ok;
}

/* ======================================================================
 * grad(f, a, ...): the value and each gradient, printed
 * ====================================================================== */

/* Prints f's value and df/dparam for each argument that requires grad. */
static void print_grads(Session *s, const CallArgs *a, Tensor *value, Value *copies) {
    char prefix[128], param[64];
    snprintf(prefix, sizeof prefix, "%.*s = ", (int)a->func.length, a->func.name);
    Tensor *shown = tensor_detach(value); /* the value, without its graph's suffix */
    session_print_named(s, prefix, shown);
    tensor_release(shown);
    for (int i = 0; i < a->num_rest; i++) {
        if (!requires_grad(&copies[i])) continue;
        Tensor *t = copies[i].as.tensor;
        param_name(a, i, param, sizeof param);
        snprintf(prefix, sizeof prefix, "d%.*s/d%s = ", (int)a->func.length, a->func.name, param);
        /* An argument the value does not depend on has gradient zero. */
        Tensor *zero = t->grad ? NULL : tensor_zeros(t->ndim, t->shape, false);
        session_print_named(s, prefix, t->grad ? t->grad : zero);
        tensor_release(zero);
    }
}

BUILTIN(bi_grad) {
    (void)out;
    if (!any_requires_grad_arg(s, a, "grad")) return false;
    if (ag_graph_push() != 0) return session_fail(s, a->line, a->col, "%s", ag_error());
    Value copies[MAX_ARGS];
    Tensor *value = NULL;
    bool copied = copy_args(s, a, copies), ok = copied && call_f(s, a, copies, &value);
    if (ok && value->numel != 1) {
        char shape[AG_SHAPE_STR_MAX];
        ok = session_fail(s, a->line, a->col, "grad: %.*s returns shape %s; it must "
                          "return one element (use gradcheck, or wrap it in sum)",
                          (int)a->func.length, a->func.name,
                          tensor_shape_str(value, shape, sizeof shape));
    }
    if (ok && value->requires_grad && backward(value) != 0)
        ok = session_fail(s, a->line, a->col, "%s", ag_error());
    if (ok) print_grads(s, a, value, copies);
    if (copied) release_all(copies, a->num_rest);
    tensor_release(value);
    ag_graph_pop();
    return ok;
}

/* ======================================================================
 * gradcheck(f, a, ...): analytic against central differences
 * ====================================================================== */

typedef struct {
    double max_abs, max_rel;
    int64_t bad[WORST_SHOWN];      /* worst failing elements */
    double analytic[WORST_SHOWN], numeric[WORST_SHOWN];
    int num_bad;                   /* failing elements (all, not just shown) */
    int64_t kinks;                 /* non-differentiable elements */
    int64_t kink_at;
    double kink_left, kink_right;
    int64_t nonfinite;             /* elements whose loss or slope is inf or nan */
    int64_t nonfinite_at;
    bool unusable;                 /* perturbing it fails: used as a dimension, say */
    char why[200];
} ArgReport;

/* The loss as a number with argument i's element k moved by delta; the
 * arguments are constants here, so nothing is recorded. The loss is read
 * before the element is restored: f may return the argument itself. */
static bool loss_at(Session *s, const CallArgs *a, Value *consts, int i, int64_t k, double delta,
                    double *value) {
    Tensor *t = consts[i].as.tensor;
    double saved = t->data[k];
    t->data[k] = saved + delta;
    Tensor *loss;
    bool ok = loss_of(s, a, consts, &loss, NULL);
    if (ok) *value = loss->data[0];
    t->data[k] = saved;
    if (ok) tensor_release(loss);
    return ok;
}

/* Keeps the WORST_SHOWN largest errors, largest first. */
static void note_failure(ArgReport *r, int64_t k, double analytic, double numeric) {
    double err = fabs(analytic - numeric);
    int at = r->num_bad < WORST_SHOWN ? r->num_bad : WORST_SHOWN;
    while (at > 0 && fabs(r->analytic[at - 1] - r->numeric[at - 1]) < err) at--;
    if (at < WORST_SHOWN) {
        int last = r->num_bad < WORST_SHOWN ? r->num_bad : WORST_SHOWN - 1;
        for (int j = last; j > at; j--) {
            r->bad[j] = r->bad[j - 1];
            r->analytic[j] = r->analytic[j - 1];
            r->numeric[j] = r->numeric[j - 1];
        }
        r->bad[at] = k;
        r->analytic[at] = analytic;
        r->numeric[at] = numeric;
    }
    r->num_bad++;
}

/* One element's comparison, into r. */
static void compare_element(ArgReport *r, int64_t k, double f0, double up, double down,
                            double analytic) {
    double numeric = (up - down) / (2 * FD_STEP);
    double left = (f0 - down) / FD_STEP, right = (up - f0) / FD_STEP;
    if (!isfinite(numeric) || !isfinite(analytic) || !isfinite(left) || !isfinite(right)) {
        if (r->nonfinite++ == 0) r->nonfinite_at = k; /* reported apart, not counted */
        return;
    }
    if (fabs(left - right) > 1e-3 * (1 + fabs(left) + fabs(right))) {
        if (r->kinks++ == 0) r->kink_at = k, r->kink_left = left, r->kink_right = right;
        return;
    }
    /* Relative to the larger magnitude, but never to less than ATOL: a true
     * zero measured as 1e-10 is not an infinite relative error. */
    double err = fabs(analytic - numeric);
    double rel = err / fmax(fmax(fabs(analytic), fabs(numeric)), ATOL);
    if (err > r->max_abs) r->max_abs = err;
    if (rel > r->max_rel) r->max_rel = rel;
    if (!(err <= ATOL + RTOL * fabs(numeric))) note_failure(r, k, analytic, numeric);
}

/* Compares argument i's analytic gradient with central differences. An
 * argument whose perturbation makes f fail (it is used as a dimension or an
 * index) is reported as not differentiable. False only on an interrupt. */
static bool check_arg(Session *s, const CallArgs *a, Value *consts, int i, double f0,
                      const Tensor *grad, ArgReport *r) {
    memset(r, 0, sizeof *r);
    for (int64_t k = 0; k < consts[i].as.tensor->numel; k++) {
        if (session_interrupted) return session_fail(s, a->line, a->col, "interrupted");
        double up, down;
        if (!loss_at(s, a, consts, i, k, FD_STEP, &up) ||
            !loss_at(s, a, consts, i, k, -FD_STEP, &down)) {
            if (session_interrupted) return false;
            r->unusable = true;
            snprintf(r->why, sizeof r->why, "%.150s", s->error);
            return true;
        }
        compare_element(r, k, f0, up, down, grad ? grad->data[k] : 0.0);
    }
    return true;
}

/* "(1, 2)": the index of element k of t. */
static void index_str(const Tensor *t, int64_t k, char *buf, size_t size) {
    int64_t idx[AG_MAX_DIMS];
    for (int d = t->ndim - 1; d >= 0; d--) {
        idx[d] = t->shape[d] ? k % t->shape[d] : 0;
        k = t->shape[d] ? k / t->shape[d] : 0;
    }
    ag_shape_str(t->ndim, idx, buf, size);
}

/* An error for the report: below 1e-6 only its bound, since those digits
 * are rounding noise that differs between builds (vector math, BLAS). */
static const char *error_str(double e, char *buf, size_t size) {
    if (e < 1e-6) snprintf(buf, size, "< 1e-6");
    else snprintf(buf, size, "%.1e", e);
    return buf;
}

static void print_exclusions(Session *s, const Tensor *t, const ArgReport *r) {
    char idx[AG_SHAPE_STR_MAX];
    if (r->kinks) {
        index_str(t, r->kink_at, idx, sizeof idx);
        fprintf(s->out, "    not differentiable at %lld element%s (first %s: slope %.4g from the "
                "left, %.4g from the right); not counted\n", (long long)r->kinks,
                r->kinks == 1 ? "" : "s", idx, r->kink_left, r->kink_right);
    }
    if (r->nonfinite) {
        index_str(t, r->nonfinite_at, idx, sizeof idx);
        fprintf(s->out, "    inf or nan at %lld element%s (first %s); not counted\n",
                (long long)r->nonfinite, r->nonfinite == 1 ? "" : "s", idx);
    }
}

static void print_report(Session *s, const char *param, const Tensor *t, const ArgReport *r) {
    char shape[AG_SHAPE_STR_MAX], idx[AG_SHAPE_STR_MAX], abs_err[32], rel_err[32];
    tensor_shape_str(t, shape, sizeof shape);
    if (r->unusable) {
        fprintf(s->out, "  %s %s: not differentiable: f fails when it changes (%s)\n", param,
                shape, r->why);
        return;
    }
    fprintf(s->out, "  %s %s: max abs error %s, max rel error %s  %s\n", param, shape,
            error_str(r->max_abs, abs_err, sizeof abs_err),
            error_str(r->max_rel, rel_err, sizeof rel_err), r->num_bad ? "FAIL" : "ok");
    print_exclusions(s, t, r);
    if (!r->num_bad) return;
    fprintf(s->out, "    %-16s %14s %14s\n", "index", "analytic", "numeric");
    for (int j = 0; j < r->num_bad && j < WORST_SHOWN; j++) {
        index_str(t, r->bad[j], idx, sizeof idx);
        fprintf(s->out, "    %-16s %14.6g %14.6g\n", idx, r->analytic[j], r->numeric[j]);
    }
    if (r->num_bad > WORST_SHOWN)
        fprintf(s->out, "    ... and %d more\n", r->num_bad - WORST_SHOWN);
}

/* Checks every argument that requires grad; prints; *all_ok. */
static bool check_all(Session *s, const CallArgs *a, Value *copies, double f0, bool *all_ok) {
    Value consts[MAX_ARGS];
    for (int i = 0; i < a->num_rest; i++) {
        if (copies[i].kind == VAL_TENSOR) consts[i] = value_tensor(tensor_detach(copies[i].as.tensor));
        else value_copy(&copies[i], &consts[i]);
    }
    bool ok = true;
    *all_ok = true;
    for (int i = 0; ok && i < a->num_rest; i++) {
        if (!requires_grad(&copies[i]) || !consts[i].as.tensor) continue;
        ArgReport r;
        char param[64];
        ok = check_arg(s, a, consts, i, f0, copies[i].as.tensor->grad, &r);
        if (!ok) break;
        param_name(a, i, param, sizeof param);
        print_report(s, param, copies[i].as.tensor, &r);
        if (r.num_bad) *all_ok = false;
    }
    release_all(consts, a->num_rest);
    return ok;
}

BUILTIN(bi_gradcheck) {
    (void)out;
    if (!any_requires_grad_arg(s, a, "gradcheck")) return false;
    int64_t total = 0;
    for (int i = 0; i < a->num_rest; i++)
        if (a->rest[i].kind == VAL_TENSOR) total += a->rest[i].as.tensor->numel;
    if (total > s->gradcheck_max_elements)
        return session_fail(s, a->line, a->col, "gradcheck: %lld elements are too many "
                            "to check one by one (at most %lld)", (long long)total,
                            (long long)s->gradcheck_max_elements);
    if (ag_graph_push() != 0) return session_fail(s, a->line, a->col, "%s", ag_error());
    Value copies[MAX_ARGS];
    Tensor *loss = NULL;
    char summed[AG_SHAPE_STR_MAX];
    bool ok = forward_backward(s, a, copies, &loss, summed), all_ok = true;
    if (ok) {
        fprintf(s->out, "gradcheck %.*s", (int)a->func.length, a->func.name);
        if (summed[0]) fprintf(s->out, " (it returns shape %s: checking its sum)", summed);
        fprintf(s->out, ":\n");
        ok = check_all(s, a, copies, loss->data[0], &all_ok);
        if (ok) fprintf(s->out, "%s\n", all_ok ? "ok" : "FAIL");
        release_all(copies, a->num_rest);
    }
    tensor_release(loss);
    ag_graph_pop();
    return ok;
}
