/*
 * gradcheck.c — grad(f, a, ...), gradcheck(f, a, ...) and gradgradcheck(f,
 * a, ...) (gradcheck of f's vector-Jacobian product): run a function
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
    if (i == a->num_rest) { /* gradgradcheck's extra argument */
        snprintf(buf, size, "grad_output");
        return;
    }
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

/* Copies of the n arguments args: tensors become fresh leaves that
 * require grad as the originals do (backward fills the copies' .grad,
 * never the originals'); other values are passed as they are. */
static bool copy_args(Session *s, const CallArgs *a, int n, const Value *args, Value *copies) {
    for (int i = 0; i < n; i++) {
        const Value *v = &args[i];
        if (v->kind != VAL_TENSOR) {
            value_copy(v, &copies[i]);
            continue;
        }
        Tensor *t = tensor_copy(v->as.tensor);
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

/* ======================================================================
 * grad(f, a, ...): the value and each gradient, printed
 * ====================================================================== */

/* Prints f's value and df/dparam for each argument that requires grad. */
static void print_grads(Session *s, const CallArgs *a, Tensor *value, Value *copies) {
    char prefix[128], param[64];
    snprintf(prefix, sizeof prefix, "%.*s = ", (int)a->func.length, a->func.name);
    Tensor *shown = tensor_copy(value); /* the value, without its graph's suffix */
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

/* grad's value: the gradient of the one argument that requires grad, or a
 * tuple of them in order (zeros for one the value does not depend on). */
static bool grads_value(Session *s, const CallArgs *a, Value *copies, Value *out) {
    int n = 0;
    for (int i = 0; i < a->num_rest; i++) n += requires_grad(&copies[i]);
    ValueList *l = n > 1 ? value_list_new(n, true) : NULL;
    if (n > 1 && !l) return session_fail(s, a->line, a->col, "MemoryError");
    for (int i = 0, k = 0; i < a->num_rest; i++) {
        if (!requires_grad(&copies[i])) continue;
        Tensor *t = copies[i].as.tensor;
        Tensor *g = t->grad ? tensor_retain(t->grad) : tensor_zeros(t->ndim, t->shape, false);
        if (!g) {
            if (l) value_release(&(Value){.kind = VAL_LIST, .as.list = l});
            return session_fail(s, a->line, a->col, "%s", ag_error());
        }
        if (l) l->items[k++] = value_tensor(g);
        else *out = value_tensor(g);
    }
    if (l) *out = (Value){.kind = VAL_LIST, .as.list = l};
    return true;
}

/* grad(f, x, ...) as a statement of its own prints f's value and each
 * gradient; as a value (g = grad(f, x)) it returns the gradients instead
 * (grads_value), printing nothing. */
static BUILTIN(bi_grad) {
    *out = value_void();
    if (!any_requires_grad_arg(s, a, "grad")) return false;
    if (ag_graph_push() != 0) return session_fail(s, a->line, a->col, "%s", ag_error());
    Value copies[MAX_ARGS];
    Tensor *value = NULL;
    bool copied = copy_args(s, a, a->num_rest, a->rest, copies), ok = copied && call_f(s, a, copies, &value);
    if (ok && value->numel != 1) {
        char shape[AG_SHAPE_STR_MAX];
        ok = session_fail(s, a->line, a->col, "grad: %.*s returns shape %s; it must "
                          "return one element (use gradcheck, or wrap it in sum)",
                          (int)a->func.length, a->func.name,
                          tensor_shape_str(value, shape, sizeof shape));
    }
    if (ok && value->requires_grad && backward(value) != 0)
        ok = session_fail(s, a->line, a->col, "%s", ag_error());
    bool shown = a->line == s->statement_call_line && a->col == s->statement_call_col;
    if (ok && shown) print_grads(s, a, value, copies);
    else if (ok) ok = grads_value(s, a, copies, out);
    if (copied) release_all(copies, a->num_rest);
    tensor_release(value);
    ag_graph_pop();
    return ok;
}

/* ======================================================================
 * gradcheck(f, a, ...): analytic against central differences, entry by
 * entry of the Jacobian, as PyTorch's gradcheck
 * ====================================================================== */

/* The Jacobian is checked entry by entry, as PyTorch's gradcheck does:
 * entry (j, k) is d out[j] / d arg[k]. An entry is a single number: for a
 * function that returns one element, j is always 0. */
typedef struct {
    double max_abs, max_rel;
    int64_t bad_out[WORST_SHOWN], bad[WORST_SHOWN]; /* worst failing entries */
    double analytic[WORST_SHOWN], numeric[WORST_SHOWN];
    int64_t num_bad;               /* failing entries (all, not just shown) */
    int64_t checked;               /* entries compared (not excluded) */
    int64_t kinks;                 /* non-differentiable entries */
    int64_t kink_out, kink_at;
    double kink_left, kink_right;
    int64_t nonfinite;             /* entries whose output or slope is inf or nan */
    int64_t nonfinite_out, nonfinite_at;
    bool unusable;                 /* perturbing it fails: used as a dimension, say */
    char why[200];
} ArgReport;

/* The map a check differentiates: f itself (gradcheck), or f's
 * vector-Jacobian product (gradgradcheck), a map of f's arguments and one
 * more, the grad_output v. */
typedef struct {
    const CallArgs *a; /* f, its arguments, where messages point */
    int n;             /* the map's arguments: f's, then v for the vjp */
    const Value *args; /* the n of them as given (v: random, requires grad) */
    bool vjp;
} Map;

/* The gradients of the vjp map, one per argument of f that requires grad
 * (NULL: f does not depend on it, a zero), as one tensor: that argument's
 * gradient itself when there is one, else each flattened and joined in
 * order. */
static Tensor *join_grads(Tensor **wrt, Tensor **grads, int k) {
    Tensor *flat[MAX_ARGS] = {0}, *joined = NULL;
    bool ok = true;
    for (int i = 0; ok && i < k; i++) {
        Tensor *g = grads[i] ? tensor_retain(grads[i]) : tensor_zeros(wrt[i]->ndim, wrt[i]->shape, false);
        flat[i] = k == 1 || !g ? g : tensor_reshape(g, 1, (int64_t[]){-1});
        if (k > 1) tensor_release(g);
        ok = flat[i] != NULL;
    }
    if (ok) joined = k == 1 ? tensor_retain(flat[0]) : tensor_cat(flat, k, 0);
    for (int i = 0; i < k; i++) tensor_release(flat[i]);
    return joined;
}

/* The vjp map at args (f's arguments, then v): the gradients of
 * sum(f(args) * v) with respect to each argument of f that requires grad
 * (as given: a->rest), by ag_grad with create_graph, so that they can be
 * differentiated again; PyTorch's gradgradcheck checks this map with
 * gradcheck. An argument passed as a constant (the finite differences'
 * copies) is differentiated through a leaf copy of its own. */
static bool vjp_call(Session *s, const Map *m, Value *args, Tensor **out) {
    const CallArgs *a = m->a;
    Value leaves[MAX_ARGS];
    Tensor *wrt[MAX_ARGS], *grads[MAX_ARGS] = {0}, *y = NULL, *v = args[a->num_rest].as.tensor;
    int k = 0;
    for (int i = 0; i < a->num_rest; i++) {
        if (!requires_grad(&a->rest[i])) {
            value_copy(&args[i], &leaves[i]);
            continue;
        }
        Tensor *t = args[i].as.tensor;
        t = t->requires_grad ? tensor_retain(t) : tensor_copy(t);
        if (t) tensor_set_requires_grad(t, true);
        leaves[i] = value_tensor(t);
        wrt[k++] = t;
    }
    bool ok = call_f(s, a, leaves, &y);
    if (ok && y->numel != v->numel)
        ok = session_fail(s, a->line, a->col, "%.*s returned %lld elements, then %lld",
                          (int)a->func.length, a->func.name, (long long)v->numel,
                          (long long)y->numel);
    if (ok && y->requires_grad &&
        ag_grad(1, &y, &v, k, wrt, AG_CREATE_GRAPH, true, grads) != 0)
        ok = session_fail(s, a->line, a->col, "%s", ag_error());
    if (ok && !(*out = join_grads(wrt, grads, k)))
        ok = session_fail(s, a->line, a->col, "%s", ag_error());
    for (int i = 0; i < k; i++) tensor_release(grads[i]);
    tensor_release(y);
    release_all(leaves, a->num_rest);
    return ok;
}

/* The map at args: f's value, or its vjp. */
static bool map_call(Session *s, const Map *m, Value *args, Tensor **out) {
    return m->vjp ? vjp_call(s, m, args, out) : call_f(s, m->a, args, out);
}

/* f's outputs with argument i's element k moved by delta, copied into
 * values (m of them; false if f now returns another number of elements).
 * The arguments are constants here, so nothing is recorded. The outputs
 * are read before the element is restored: f may return the
 * argument itself. */
static bool outputs_at(Session *s, const Map *map, Value *consts, int i, int64_t k,
                       double delta, int64_t m, double *values) {
    const CallArgs *a = map->a;
    Tensor *t = consts[i].as.tensor;
    double saved = tensor_values(t)[k];
    tensor_values(t)[k] = saved + delta;
    Tensor *out = NULL;
    bool ok = map_call(s, map, consts, &out);
    if (ok && out->numel != m)
        ok = session_fail(s, a->line, a->col, "it returns %lld elements, not %lld",
                          (long long)out->numel, (long long)m);
    if (ok) memcpy(values, tensor_values(out), (size_t)m * sizeof *values);
    tensor_values(t)[k] = saved;
    tensor_release(out);
    return ok;
}

/* Keeps the WORST_SHOWN largest errors, largest first. */
static void note_failure(ArgReport *r, int64_t j, int64_t k, double analytic, double numeric) {
    double err = fabs(analytic - numeric);
    int64_t shown = r->num_bad < WORST_SHOWN ? r->num_bad : WORST_SHOWN;
    int at = (int)shown;
    while (at > 0 && fabs(r->analytic[at - 1] - r->numeric[at - 1]) < err) at--;
    if (at < WORST_SHOWN) {
        int last = r->num_bad < WORST_SHOWN ? (int)r->num_bad : WORST_SHOWN - 1;
        for (int i = last; i > at; i--) {
            r->bad_out[i] = r->bad_out[i - 1];
            r->bad[i] = r->bad[i - 1];
            r->analytic[i] = r->analytic[i - 1];
            r->numeric[i] = r->numeric[i - 1];
        }
        r->bad_out[at] = j;
        r->bad[at] = k;
        r->analytic[at] = analytic;
        r->numeric[at] = numeric;
    }
    r->num_bad++;
}

/* One entry's comparison, into r. */
static void compare_entry(ArgReport *r, int64_t j, int64_t k, double f0, double up, double down,
                          double analytic) {
    double numeric = (up - down) / (2 * FD_STEP);
    double left = (f0 - down) / FD_STEP, right = (up - f0) / FD_STEP;
    if (!isfinite(numeric) || !isfinite(analytic) || !isfinite(left) || !isfinite(right)) {
        if (r->nonfinite++ == 0) r->nonfinite_out = j, r->nonfinite_at = k; /* reported apart */
        return;
    }
    if (fabs(left - right) > 1e-3 * (1 + fabs(left) + fabs(right))) {
        if (r->kinks++ == 0)
            r->kink_out = j, r->kink_at = k, r->kink_left = left, r->kink_right = right;
        return;
    }
    r->checked++;
    /* Relative to the larger magnitude, but never to less than ATOL: a true
     * zero measured as 1e-10 is not an infinite relative error. */
    double err = fabs(analytic - numeric);
    double rel = err / fmax(fmax(fabs(analytic), fabs(numeric)), ATOL);
    if (err > r->max_abs) r->max_abs = err;
    if (rel > r->max_rel) r->max_rel = rel;
    if (!(err <= ATOL + RTOL * fabs(numeric))) note_failure(r, j, k, analytic, numeric);
}

/* Compares argument i's analytic Jacobian (jac: m rows of its numel) with
 * central differences, output by output. An argument whose perturbation
 * makes f fail (it is used as a dimension or an index) is reported as not
 * differentiable. False only on an interrupt or out of memory. */
static bool check_arg(Session *s, const Map *map, Value *consts, int i, const double *f0,
                      int64_t m, const double *jac, ArgReport *r) {
    const CallArgs *a = map->a;
    memset(r, 0, sizeof *r);
    int64_t n = consts[i].as.tensor->numel;
    double *up = malloc((size_t)m * 2 * sizeof *up);
    if (!up) return session_fail(s, a->line, a->col, "out of memory");
    double *down = up + m;
    bool ok = true;
    for (int64_t k = 0; ok && k < n; k++) {
        if (session_interrupted) {
            ok = session_fail(s, a->line, a->col, "interrupted");
            break;
        }
        if (!outputs_at(s, map, consts, i, k, FD_STEP, m, up) ||
            !outputs_at(s, map, consts, i, k, -FD_STEP, m, down)) {
            if (session_interrupted) {
                ok = false;
                break;
            }
            r->unusable = true;
            snprintf(r->why, sizeof r->why, "%.150s", s->error);
            break;
        }
        for (int64_t j = 0; j < m; j++) compare_entry(r, j, k, f0[j], up[j], down[j], jac[j * n + k]);
    }
    free(up);
    return ok;
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

/* The index of entry (j, k) of the Jacobian: the argument's index, after
 * the output's ("out (1,), (0, 2)") when f returns several elements. */
static void entry_str(const Tensor *out, const Tensor *t, int64_t j, int64_t k, char *buf,
                      size_t size) {
    char in[AG_SHAPE_STR_MAX], o[AG_SHAPE_STR_MAX];
    index_str(t, k, in, sizeof in);
    if (!out || out->numel == 1) {
        snprintf(buf, size, "%s", in);
        return;
    }
    index_str(out, j, o, sizeof o);
    snprintf(buf, size, "out %s, %s", o, in);
}

/* An error for the report: below 1e-6 only its bound, since those digits
 * are rounding noise that differs between builds (vector math, BLAS). */
static const char *error_str(double e, char *buf, size_t size) {
    if (e < 1e-6) snprintf(buf, size, "< 1e-6");
    else snprintf(buf, size, "%.1e", e);
    return buf;
}

static void print_exclusions(Session *s, const Tensor *out, const Tensor *t, const ArgReport *r) {
    char idx[2 * AG_SHAPE_STR_MAX + 8];
    const char *what = out && out->numel > 1 ? "entr" : "element";
    bool entries = out && out->numel > 1;
    if (r->kinks) {
        entry_str(out, t, r->kink_out, r->kink_at, idx, sizeof idx);
        fprintf(s->out, "    not differentiable at %lld %s%s (first %s: slope %.4g from the "
                "left, %.4g from the right); not counted\n", (long long)r->kinks, what,
                entries ? (r->kinks == 1 ? "y" : "ies") : (r->kinks == 1 ? "" : "s"), idx,
                r->kink_left, r->kink_right);
    }
    if (r->nonfinite) {
        entry_str(out, t, r->nonfinite_out, r->nonfinite_at, idx, sizeof idx);
        fprintf(s->out, "    inf or nan at %lld %s%s (first %s); not counted\n",
                (long long)r->nonfinite, what,
                entries ? (r->nonfinite == 1 ? "y" : "ies") : (r->nonfinite == 1 ? "" : "s"), idx);
    }
}

/* Prints argument t's report; false when it fails (or nothing in it could
 * be checked: that is never ok). */
static bool print_report(Session *s, const char *param, const Tensor *out, const Tensor *t,
                         const ArgReport *r) {
    char shape[AG_SHAPE_STR_MAX], idx[2 * AG_SHAPE_STR_MAX + 8], abs_err[32], rel_err[32];
    tensor_shape_str(t, shape, sizeof shape);
    if (r->unusable) {
        fprintf(s->out, "  %s %s: not differentiable: f fails when it changes (%s)\n", param,
                shape, r->why);
        return true;
    }
    if (t->numel == 0 || out->numel == 0) {
        fprintf(s->out, "  %s %s: nothing to check (no elements)\n", param, shape);
        return true;
    }
    if (r->checked == 0) {
        fprintf(s->out, "  %s %s: nothing could be checked  FAIL\n", param, shape);
        print_exclusions(s, out, t, r);
        return false;
    }
    fprintf(s->out, "  %s %s: max abs error %s, max rel error %s  %s\n", param, shape,
            error_str(r->max_abs, abs_err, sizeof abs_err),
            error_str(r->max_rel, rel_err, sizeof rel_err), r->num_bad ? "FAIL" : "ok");
    print_exclusions(s, out, t, r);
    if (!r->num_bad) return true;
    fprintf(s->out, "    %-16s %14s %14s\n", "index", "analytic", "numeric");
    for (int j = 0; j < r->num_bad && j < WORST_SHOWN; j++) {
        entry_str(out, t, r->bad_out[j], r->bad[j], idx, sizeof idx);
        fprintf(s->out, "    %-16s %14.6g %14.6g\n", idx, r->analytic[j], r->numeric[j]);
    }
    if (r->num_bad > WORST_SHOWN)
        fprintf(s->out, "    ... and %lld more\n", (long long)(r->num_bad - WORST_SHOWN));
    return false;
}

/* The analytic Jacobian of f at the arguments, row j (output j) by a
 * forward and a backward of its own with grad_output one at j, as
 * PyTorch's gradcheck does: jac[i] (for each argument i that requires
 * grad) gets m rows of its numel. out gets f's output from the first
 * forward. False with the error set. */
static bool analytic_jacobian(Session *s, const Map *map, double **jac, Tensor **out) {
    const CallArgs *a = map->a;
    *out = NULL;
    int64_t m = 1;
    for (int64_t j = 0; j < m; j++) {
        if (session_interrupted) return session_fail(s, a->line, a->col, "interrupted");
        Value copies[MAX_ARGS];
        Tensor *y = NULL, *onehot = NULL;
        if (!copy_args(s, a, map->n, map->args, copies)) return false;
        bool ok = map_call(s, map, copies, &y);
        if (ok && j == 0) {
            m = y->numel;
            *out = y;
            tensor_retain(y);
            for (int i = 0; ok && i < map->n; i++) {
                if (!requires_grad(&copies[i])) continue;
                int64_t n = copies[i].as.tensor->numel;
                if (m > 0 && n > s->gradcheck_max_elements * 10 / m)
                    ok = session_fail(s, a->line, a->col, "gradcheck: a Jacobian of %lld x %lld "
                                      "entries is too many to check one by one (at most %lld)",
                                      (long long)m, (long long)n,
                                      (long long)s->gradcheck_max_elements * 10);
                else if (!(jac[i] = calloc((size_t)(m * n) + 1, sizeof **jac)))
                    ok = session_fail(s, a->line, a->col, "out of memory");
            }
        }
        if (ok && y->numel != m)
            ok = session_fail(s, a->line, a->col, "%.*s returned %lld elements, then %lld",
                              (int)a->func.length, a->func.name, (long long)m, (long long)y->numel);
        if (ok && m > 1) {
            onehot = tensor_zeros(y->ndim, y->shape, false);
            if (onehot) tensor_values(onehot)[j] = 1;
            else ok = session_fail(s, a->line, a->col, "%s", ag_error());
        }
        if (ok && m > 0 && y->requires_grad && tensor_backward(y, onehot) != 0)
            ok = session_fail(s, a->line, a->col, "%s", ag_error());
        for (int i = 0; ok && i < map->n; i++) {
            if (!requires_grad(&copies[i]) || !copies[i].as.tensor->grad) continue;
            int64_t n = copies[i].as.tensor->numel;
            memcpy(jac[i] + j * n, tensor_values(copies[i].as.tensor->grad), (size_t)n * sizeof **jac);
        }
        tensor_release(onehot);
        tensor_release(y);
        release_all(copies, map->n);
        if (!ok) return false;
    }
    return true;
}

/* Checks map's Jacobian against central differences and prints the
 * report under a title ("gradcheck f"); false only on an error. Runs in a
 * graph of its own. */
static bool run_check(Session *s, const Map *map, const char *title) {
    const CallArgs *a = map->a;
    int64_t total = 0;
    for (int i = 0; i < map->n; i++)
        if (map->args[i].kind == VAL_TENSOR) total += map->args[i].as.tensor->numel;
    if (total > s->gradcheck_max_elements)
        return session_fail(s, a->line, a->col, "%s: %lld elements are too many "
                            "to check one by one (at most %lld)", title, (long long)total,
                            (long long)s->gradcheck_max_elements);
    if (ag_graph_push() != 0) return session_fail(s, a->line, a->col, "%s", ag_error());
    double *jac[MAX_ARGS] = {0};
    Tensor *y = NULL;
    Value consts[MAX_ARGS];
    int made = 0;
    bool ok = analytic_jacobian(s, map, jac, &y), all_ok = true;
    for (; ok && made < map->n; made++) { /* constants to perturb */
        const Value *v = &map->args[made];
        if (v->kind != VAL_TENSOR) {
            value_copy(v, &consts[made]);
            continue;
        }
        Tensor *t = tensor_copy(v->as.tensor);
        if (!t) ok = session_fail(s, a->line, a->col, "%s", ag_error());
        else consts[made] = value_tensor(t);
    }
    if (ok) {
        char shape[AG_SHAPE_STR_MAX];
        fprintf(s->out, "%s", title);
        if (map->vjp)
            fprintf(s->out, " (the gradients' Jacobian, for a random grad_output of shape %s)",
                    tensor_shape_str(map->args[a->num_rest].as.tensor, shape, sizeof shape));
        else if (y->numel != 1)
            fprintf(s->out, " (it returns shape %s: checking each element's gradient)",
                    tensor_shape_str(y, shape, sizeof shape));
        fprintf(s->out, ":\n");
        int64_t checked = 0;
        for (int i = 0; ok && i < map->n; i++) {
            if (!requires_grad(&map->args[i])) continue;
            ArgReport r;
            char param[64];
            ok = check_arg(s, map, consts, i, tensor_values(y), y->numel, jac[i], &r);
            if (!ok) break;
            param_name(a, i, param, sizeof param);
            if (!print_report(s, param, y, map->args[i].as.tensor, &r)) all_ok = false;
            checked += r.checked;
        }
        /* Never ok about nothing: entries all inf, nan or kinks FAIL (as
         * PyTorch's gradcheck fails on nan); no entries at all are said so. */
        bool any_entries = false;
        for (int i = 0; i < map->n; i++)
            if (requires_grad(&map->args[i]) && map->args[i].as.tensor->numel > 0 && y->numel > 0)
                any_entries = true;
        if (ok && checked == 0 && any_entries) all_ok = false;
        if (ok) fprintf(s->out, "%s\n", !all_ok ? "FAIL" : any_entries ? "ok" : "nothing to check");
    }
    release_all(consts, made);
    for (int i = 0; i < map->n; i++) free(jac[i]);
    tensor_release(y);
    ag_graph_pop();
    return ok;
}

static BUILTIN(bi_gradcheck) {
    (void)out;
    if (!any_requires_grad_arg(s, a, "gradcheck")) return false;
    char title[128];
    snprintf(title, sizeof title, "gradcheck %.*s", (int)a->func.length, a->func.name);
    return run_check(s, &(Map){a, a->num_rest, a->rest, false}, title);
}

/* f(args) once, in a graph of its own, for the shape of its result; false
 * with the error set. */
static bool output_of(Session *s, const CallArgs *a, Tensor **y) {
    *y = NULL;
    if (ag_graph_push() != 0) return session_fail(s, a->line, a->col, "%s", ag_error());
    Value copies[MAX_ARGS];
    bool ok = copy_args(s, a, a->num_rest, a->rest, copies);
    if (ok) {
        ok = call_f(s, a, copies, y);
        release_all(copies, a->num_rest);
    }
    if (ok) { /* a constant copy, not the graph's own result */
        Tensor *c = tensor_copy(*y);
        tensor_release(*y);
        *y = c;
    }
    ag_graph_pop();
    return ok && (*y || session_fail(s, a->line, a->col, "%s", ag_error()));
}

/* gradgradcheck(f, a, ...): PyTorch's gradgradcheck. For a grad_output v
 * drawn from the seeded stream (randn, f's output's shape), the map
 * (args, v) -> vjp(f, args, v), made with create_graph, is checked as
 * gradcheck checks f: its Jacobian, by backward through the vjp's own
 * graph (the second derivatives of f, and f's Jacobian for v), against
 * central differences of the map. */
static BUILTIN(bi_gradgradcheck) {
    (void)out;
    if (!any_requires_grad_arg(s, a, "gradgradcheck")) return false;
    if (a->num_rest + 1 > MAX_ARGS)
        return session_fail(s, a->line, a->col, "gradgradcheck: at most %d arguments",
                            MAX_ARGS - 1);
    Tensor *y = NULL;
    if (!output_of(s, a, &y)) return false;
    Tensor *v = tensor_randn(y->ndim, y->shape, true);
    tensor_release(y);
    if (!v) return session_fail(s, a->line, a->col, "%s", ag_error());
    Value args[MAX_ARGS];
    for (int i = 0; i < a->num_rest; i++) args[i] = a->rest[i];
    args[a->num_rest] = value_tensor(v);
    char title[128];
    snprintf(title, sizeof title, "gradgradcheck %.*s", (int)a->func.length, a->func.name);
    bool ok = run_check(s, &(Map){a, a->num_rest + 1, args, true}, title);
    tensor_release(v);
    return ok;
}

/* ======================================================================
 * The rows of this file's builtins (builtins.c puts every file's in one
 * list, in :help's order)
 * ====================================================================== */

const Builtin grad_builtins[] = {
    {"grad", "grad(f, *args)", "prints f(a, ...) and its gradient for each argument that "
     "requires grad; as a value (g = grad(f, x)) returns the gradient (a tuple for several)",
     "runs f afresh on copies: no .grad changes, no graph is freed", bi_grad,
     BI_FUNCTION_FIRST, VAL_VOID, NULL},
    {"gradcheck", "gradcheck(f, *args)", "compares f's gradients with central finite differences",
     "prints the largest errors per argument, ok or FAIL; no .grad changes", bi_gradcheck,
     BI_VOID | BI_FUNCTION_FIRST, VAL_VOID, NULL},
    {"gradgradcheck", "gradgradcheck(f, *args)", "checks f's second derivatives: the gradients of "
     "its gradients against central finite differences of them",
     "for a random grad_output v: the Jacobian of (args, v) -> vjp(f, args, v), as gradcheck; "
     "no .grad changes", bi_gradgradcheck, BI_VOID | BI_FUNCTION_FIRST, VAL_VOID, NULL},
};
const int num_grad_builtins = sizeof grad_builtins / sizeof grad_builtins[0];
