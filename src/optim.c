/*
 * optim.c — the optimizers: SGD, Adam, AdamW, RMSprop and Adagrad, with
 * PyTorch 1.13's update rules to the last bit. Each update follows the
 * `_single_tensor_*` function of torch/optim/<name>.py line by line (the one
 * PyTorch runs on the CPU by default), including where its kernels round:
 *
 *   a.add(b, alpha=c)          fma(c, b, a)        one rounding
 *   s.addcmul(t1, t2, value=v) fma(v * t1, t2, s)  v * t1 rounded first
 *   s.addcdiv(t1, t2, value=v) s + (v * t1) / t2   three roundings
 *   mul_, sqrt, div, maximum   plain
 *
 * (measured on this machine: tests/engine/optim_reference.py --kernels);
 * for a float32 parameter the same in float (rnd, fma_r below).
 * The Python-float arithmetic of the optimizers (beta1 ** step, lr /
 * bias_correction1, 1 - lr * weight_decay) is done in doubles in the same
 * order; the build's -ffp-contract=off keeps the compiler from fusing it.
 *
 * A step never writes a parameter: a live graph may still hold it (ENGINE.md,
 * version 2). It returns a new leaf per parameter instead, and writes only
 * the optimizer's own state tensors, which nothing else can see.
 *
 * Not here: parameter groups, learning-rate schedules, sparse gradients,
 * closures, state_dict, PyTorch's foreach/fused/capturable variants.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

/* ======================================================================
 * The optimizer and its per-parameter state
 * ====================================================================== */

/* PyTorch's state[p] keys, one tensor each (those an optimizer keeps). */
enum { MOMENTUM_BUFFER, EXP_AVG, EXP_AVG_SQ, MAX_EXP_AVG_SQ, SQUARE_AVG, GRAD_AVG, SUM, ACC_DELTA,
       NUM_STATES };

typedef struct {
    bool started;                /* the first step with a gradient was taken */
    /* PyTorch's state['step'] is a float32 tensor (Adam, AdamW, Adagrad): a
     * float counts the same way, to its stall at 2^24 steps. */
    float step;
    int ndim;                    /* the parameter's shape at the first step */
    int64_t shape[AG_MAX_DIMS];
    Tensor *state[NUM_STATES];   /* NULL where this optimizer keeps none */
} Slot;

struct AgOptimizer {
    AgOptimKind kind;
    AgOptimConfig config;
    int num_params;
    Slot *slots;                 /* num_params */
    Tensor **fresh;              /* num_params: a step's new values, before they are handed out */
};

const char *ag_optim_name(AgOptimKind kind) {
    switch (kind) {
    case AG_OPTIM_SGD: return "SGD";
    case AG_OPTIM_ADAM: return "Adam";
    case AG_OPTIM_ADAMW: return "AdamW";
    case AG_OPTIM_RMSPROP: return "RMSprop";
    case AG_OPTIM_ADAGRAD: return "Adagrad";
    case AG_OPTIM_ADADELTA: return "Adadelta";
    }
    return NULL;
}

/* The defaults of each class's __init__ in PyTorch 1.13. Options the kind
 * does not take stay 0 (ag_optim_new refuses them otherwise). */
AgOptimConfig ag_optim_defaults(AgOptimKind kind) {
    AgOptimConfig c = {0};
    switch (kind) {
    case AG_OPTIM_SGD:
        c.lr = NAN; /* torch.optim.SGD's lr is `required` */
        break;
    case AG_OPTIM_ADAM:
    case AG_OPTIM_ADAMW:
        c.lr = 1e-3;
        c.beta1 = 0.9;
        c.beta2 = 0.999;
        c.eps = 1e-8;
        c.weight_decay = kind == AG_OPTIM_ADAMW ? 1e-2 : 0;
        break;
    case AG_OPTIM_RMSPROP:
        c.lr = 1e-2;
        c.alpha = 0.99;
        c.eps = 1e-8;
        break;
    case AG_OPTIM_ADAGRAD:
        c.lr = 1e-2;
        c.eps = 1e-10;
        break;
    case AG_OPTIM_ADADELTA:
        c.lr = 1.0;
        c.rho = 0.9;
        c.eps = 1e-6;
        break;
    }
    return c;
}

/* Whether a slot of o keeps state tensor `which` (PyTorch's lazy state
 * initialization, and Adagrad's in __init__). */
static bool keeps_state(const AgOptimizer *o, int which) {
    const AgOptimConfig *c = &o->config;
    bool adam = o->kind == AG_OPTIM_ADAM || o->kind == AG_OPTIM_ADAMW;
    switch (which) {
    case MOMENTUM_BUFFER:
        return (o->kind == AG_OPTIM_SGD && c->momentum != 0) ||
               (o->kind == AG_OPTIM_RMSPROP && c->momentum > 0);
    case EXP_AVG:
    case EXP_AVG_SQ: return adam;
    case MAX_EXP_AVG_SQ: return adam && c->amsgrad;
    case SQUARE_AVG: return o->kind == AG_OPTIM_RMSPROP || o->kind == AG_OPTIM_ADADELTA;
    case ACC_DELTA: return o->kind == AG_OPTIM_ADADELTA;
    case GRAD_AVG: return o->kind == AG_OPTIM_RMSPROP && c->centered;
    case SUM: return o->kind == AG_OPTIM_ADAGRAD;
    }
    return false;
}

/* ======================================================================
 * Creation: PyTorch's checks, in its order and words
 * ====================================================================== */

/* x as Python's str(float) writes it ("0.1", "1.0", "1e-08", "nan"), so that
 * a message reads as PyTorch's does. */
static const char *py_float(double x, char *buf, size_t size) {
    if (isnan(x)) return "nan";
    if (isinf(x)) return x > 0 ? "inf" : "-inf";
    int digits = 1; /* the fewest significant digits that read back as x */
    for (; digits < 17; digits++) {
        snprintf(buf, size, "%.*e", digits - 1, x);
        if (strtod(buf, NULL) == x) break;
    }
    snprintf(buf, size, "%.*e", digits - 1, x);
    int exp10 = atoi(strchr(buf, 'e') + 1);
    if (exp10 < -4 || exp10 >= 16) return buf; /* "1e-08", "1.5e+16": as C writes them */
    int decimals = digits - 1 - exp10;
    snprintf(buf, size, "%.*f%s", decimals > 0 ? decimals : 0, x, decimals > 0 ? "" : ".0");
    return buf;
}

/* Fails with PyTorch's "Invalid <what>: <x>" unless 0 <= x (so NaN fails). */
static bool nonnegative(double x, const char *what) {
    char buf[40];
    if (x >= 0.0) return true;
    ag_fail("Invalid %s: %s", what, py_float(x, buf, sizeof buf));
    return false;
}

static bool below_one(double beta, int index) {
    char buf[40];
    if (beta >= 0.0 && beta < 1.0) return true;
    ag_fail("Invalid beta parameter at index %d: %s", index, py_float(beta, buf, sizeof buf));
    return false;
}

/* The checks of each class's __init__, in its order. */
static bool check_config(AgOptimKind kind, const AgOptimConfig *c) {
    switch (kind) {
    case AG_OPTIM_SGD:
        if (isnan(c->lr)) {
            ag_fail("parameter group didn't specify a value of required optimization "
                    "parameter lr"); /* PyTorch's words: SGD has no default lr */
            return false;
        }
        if (!nonnegative(c->lr, "learning rate") || !nonnegative(c->momentum, "momentum value") ||
            !nonnegative(c->weight_decay, "weight_decay value"))
            return false;
        if (c->nesterov && (c->momentum <= 0 || c->dampening != 0)) {
            ag_fail("Nesterov momentum requires a momentum and zero dampening");
            return false;
        }
        return true;
    case AG_OPTIM_ADAM:
    case AG_OPTIM_ADAMW:
        return nonnegative(c->lr, "learning rate") && nonnegative(c->eps, "epsilon value") &&
               below_one(c->beta1, 0) && below_one(c->beta2, 1) &&
               nonnegative(c->weight_decay, "weight_decay value");
    case AG_OPTIM_RMSPROP:
        return nonnegative(c->lr, "learning rate") && nonnegative(c->eps, "epsilon value") &&
               nonnegative(c->momentum, "momentum value") &&
               nonnegative(c->weight_decay, "weight_decay value") &&
               nonnegative(c->alpha, "alpha value");
    case AG_OPTIM_ADAGRAD:
        return nonnegative(c->lr, "learning rate") && nonnegative(c->lr_decay, "lr_decay value") &&
               nonnegative(c->weight_decay, "weight_decay value") &&
               nonnegative(c->initial_accumulator_value, "initial_accumulator_value value") &&
               nonnegative(c->eps, "epsilon value");
    case AG_OPTIM_ADADELTA:
        if (!nonnegative(c->lr, "learning rate")) return false;
        if (!(c->rho >= 0.0 && c->rho <= 1.0)) {
            char buf[40];
            ag_fail("Invalid rho value: %s", py_float(c->rho, buf, sizeof buf));
            return false;
        }
        return nonnegative(c->eps, "epsilon value") &&
               nonnegative(c->weight_decay, "weight_decay value");
    }
    return false;
}

/* An option the kind does not take, left non-zero (PyTorch would refuse the
 * keyword; ignoring it without a word would be worse). NULL if none. */
static const char *stray_option(AgOptimKind kind, const AgOptimConfig *c) {
    bool sgd = kind == AG_OPTIM_SGD, rmsprop = kind == AG_OPTIM_RMSPROP,
         adam = kind == AG_OPTIM_ADAM || kind == AG_OPTIM_ADAMW, adagrad = kind == AG_OPTIM_ADAGRAD;
    if (!sgd && !rmsprop && c->momentum != 0) return "momentum";
    if (!sgd && c->dampening != 0) return "dampening";
    if (!sgd && c->nesterov) return "nesterov";
    if (!adam && (c->beta1 != 0 || c->beta2 != 0)) return "betas";
    if (sgd && c->eps != 0) return "eps";
    if (!rmsprop && c->alpha != 0) return "alpha";
    if (!rmsprop && c->centered) return "centered";
    if (!adagrad && c->lr_decay != 0) return "lr_decay";
    if (!adagrad && c->initial_accumulator_value != 0) return "initial_accumulator_value";
    if (kind != AG_OPTIM_ADADELTA && c->rho != 0) return "rho";
    if (!adam && c->amsgrad) return "amsgrad";
    return NULL;
}

AgOptimizer *ag_optim_new(AgOptimKind kind, const AgOptimConfig *config, int num_params) {
    const char *name = ag_optim_name(kind);
    if (!name) return ag_fail("unknown optimizer kind %d", (int)kind);
    AgOptimConfig c = config ? *config : ag_optim_defaults(kind);
    if (!check_config(kind, &c)) return NULL;
    const char *stray = stray_option(kind, &c);
    if (stray) return ag_fail("%s has no option %s", name, stray);
    if (num_params < 0) return ag_fail("%s: number of parameters must be >= 0, not %d", name, num_params);

    AgOptimizer *o = malloc(sizeof *o);
    size_t n = num_params > 0 ? (size_t)num_params : 1;
    Slot *slots = calloc(n, sizeof *slots);
    Tensor **fresh = calloc(n, sizeof *fresh);
    if (!o || !slots || !fresh) {
        free(o), free(slots), free(fresh);
        return ag_fail("out of memory creating an optimizer");
    }
    *o = (AgOptimizer){kind, c, num_params, slots, fresh};
    return o;
}

int ag_optim_configure(AgOptimizer *o, const AgOptimConfig *config) {
    if (!o || !config) return ag_fail("optimizer configure: NULL argument"), -1;
    AgOptimConfig c = *config;
    if (!check_config(o->kind, &c)) return -1;
    const char *stray = stray_option(o->kind, &c);
    if (stray) return ag_fail("%s has no option %s", ag_optim_name(o->kind), stray), -1;
    o->config = c;
    return 0;
}

void ag_optim_free(AgOptimizer *o) {
    if (!o) return;
    for (int i = 0; i < o->num_params; i++)
        for (int k = 0; k < NUM_STATES; k++) tensor_release(o->slots[i].state[k]);
    free(o->slots);
    free(o->fresh);
    free(o);
}

/* ======================================================================
 * The updates: one function per optimizer, one element at a time. Each
 * reads param p and gradient g and writes the new value to out; the state
 * tensors are the slot's. Comments quote the PyTorch line they follow.
 * ====================================================================== */

/* torch.maximum: NaN if either is (fmax would drop it). */
static double maximum(double a, double b) { return isnan(a) || isnan(b) ? a + b : a > b ? a : b; }

/* A float32 parameter's update runs PyTorch's float kernels: each op's
 * result rounded to float (a double computes +, -, *, / and sqrt of floats
 * and rounds once more without changing the float: double rounding is
 * innocuous there), the fused multiply-adds in float (fmaf), and every
 * Python number an op takes (alpha=, value=, mul_(beta1), add_(eps)) cast to
 * float first, as a float kernel's scalar_t. A float64 one: all as is. */
static inline double rnd(bool f32, double x) { return f32 ? (double)(float)x : x; }
static inline double fma_r(bool f32, double a, double b, double c) {
    return f32 ? (double)fmaf((float)a, (float)b, (float)c) : fma(a, b, c);
}

/* _single_tensor_sgd. first: the momentum buffer is new (PyTorch clones d_p into it). */
static void sgd_update(const AgOptimConfig *c, bool f, Slot *s, bool first, const double *p,
                       const double *g, double *out, int64_t begin, int64_t end) {
    double *buf = s->state[MOMENTUM_BUFFER] ? tensor_values(s->state[MOMENTUM_BUFFER]) : NULL;
    double dampen = rnd(f, 1 - c->dampening), momentum = rnd(f, c->momentum);
    double wd = rnd(f, c->weight_decay), minus_lr = rnd(f, -c->lr);
    for (int64_t i = begin; i < end; i++) {
        double d_p = c->maximize ? -g[i] : g[i];
        if (c->weight_decay != 0) d_p = fma_r(f, wd, p[i], d_p); /* d_p.add(param, alpha=wd) */
        if (c->momentum != 0) {
            /* buf = clone(d_p), or buf.mul_(momentum).add_(d_p, alpha=1 - dampening) */
            buf[i] = first ? d_p : fma_r(f, dampen, d_p, rnd(f, buf[i] * momentum));
            d_p = c->nesterov ? fma_r(f, momentum, buf[i], d_p) : buf[i]; /* d_p.add(buf, alpha=momentum) */
        }
        out[i] = fma_r(f, minus_lr, d_p, p[i]); /* param.add_(d_p, alpha=-lr) */
    }
}

/* _single_tensor_adam and _single_tensor_adamw (decoupled: AdamW's weight
 * decay shrinks the parameter instead of adding to the gradient). step is
 * the count after this step's increment. */
static void adam_update(const AgOptimConfig *c, bool f, bool decoupled, Slot *s, const double *p,
                        const double *g, double *out, int64_t begin, int64_t end) {
    double step = s->step; /* step_t.item() */
    double bias_correction1 = 1 - pow(c->beta1, step);
    double bias_correction2 = 1 - pow(c->beta2, step);
    double minus_step_size = rnd(f, -(c->lr / bias_correction1));
    double bias_correction2_sqrt = rnd(f, sqrt(bias_correction2));
    double shrink = rnd(f, 1 - c->lr * c->weight_decay); /* AdamW: param.mul_(1 - lr * weight_decay) */
    double one_minus_beta1 = rnd(f, 1 - c->beta1), one_minus_beta2 = rnd(f, 1 - c->beta2);
    double beta1 = rnd(f, c->beta1), beta2 = rnd(f, c->beta2), eps = rnd(f, c->eps);
    double wd = rnd(f, c->weight_decay);
    double *exp_avg = tensor_values(s->state[EXP_AVG]), *exp_avg_sq = tensor_values(s->state[EXP_AVG_SQ]);
    double *max_sq = c->amsgrad ? tensor_values(s->state[MAX_EXP_AVG_SQ]) : NULL;
    for (int64_t i = begin; i < end; i++) {
        double grad = c->maximize ? -g[i] : g[i], param = p[i];
        if (decoupled)
            param = rnd(f, param * shrink);
        else if (c->weight_decay != 0)
            grad = fma_r(f, wd, param, grad); /* grad.add(param, alpha=weight_decay) */
        /* exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1) */
        exp_avg[i] = fma_r(f, one_minus_beta1, grad, rnd(f, exp_avg[i] * beta1));
        /* exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2) */
        exp_avg_sq[i] = fma_r(f, rnd(f, one_minus_beta2 * grad), grad, rnd(f, exp_avg_sq[i] * beta2));
        double second = exp_avg_sq[i];
        if (max_sq) second = max_sq[i] = maximum(max_sq[i], exp_avg_sq[i]);
        /* (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps) */
        double denom = rnd(f, rnd(f, rnd(f, sqrt(second)) / bias_correction2_sqrt) + eps);
        /* param.addcdiv_(exp_avg, denom, value=-step_size) */
        out[i] = rnd(f, param + rnd(f, rnd(f, minus_step_size * exp_avg[i]) / denom));
    }
}

/* _single_tensor_rmsprop (its step count is never used in the update). */
static void rmsprop_update(const AgOptimConfig *c, bool f, Slot *s, const double *p,
                           const double *g, double *out, int64_t begin, int64_t end) {
    double *square_avg = tensor_values(s->state[SQUARE_AVG]);
    double *grad_avg = c->centered ? tensor_values(s->state[GRAD_AVG]) : NULL;
    double *buf = c->momentum > 0 ? tensor_values(s->state[MOMENTUM_BUFFER]) : NULL;
    double one_minus_alpha = rnd(f, 1 - c->alpha), alpha = rnd(f, c->alpha);
    double wd = rnd(f, c->weight_decay), eps = rnd(f, c->eps), momentum = rnd(f, c->momentum);
    double minus_lr = rnd(f, -c->lr);
    for (int64_t i = begin; i < end; i++) {
        double grad = c->maximize ? -g[i] : g[i];
        if (c->weight_decay != 0) grad = fma_r(f, wd, p[i], grad); /* grad.add(param, alpha=wd) */
        /* square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha) */
        square_avg[i] = fma_r(f, rnd(f, one_minus_alpha * grad), grad, rnd(f, square_avg[i] * alpha));
        double avg;
        if (grad_avg) {
            /* grad_avg.mul_(alpha).add_(grad, alpha=1 - alpha) */
            grad_avg[i] = fma_r(f, one_minus_alpha, grad, rnd(f, grad_avg[i] * alpha));
            /* square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_() */
            avg = rnd(f, sqrt(fma_r(f, -grad_avg[i], grad_avg[i], square_avg[i])));
        } else {
            avg = rnd(f, sqrt(square_avg[i]));
        }
        avg = rnd(f, avg + eps); /* avg.add_(eps) */
        if (buf) {
            /* buf.mul_(momentum).addcdiv_(grad, avg) */
            buf[i] = rnd(f, rnd(f, buf[i] * momentum) + rnd(f, grad / avg));
            out[i] = fma_r(f, minus_lr, buf[i], p[i]); /* param.add_(buf, alpha=-lr) */
        } else {
            /* param.addcdiv_(grad, avg, value=-lr) */
            out[i] = rnd(f, p[i] + rnd(f, rnd(f, minus_lr * grad) / avg));
        }
    }
}

/* _single_tensor_adagrad (dense gradients). step is the count after this
 * step's increment. */
static void adagrad_update(const AgOptimConfig *c, bool f, Slot *s, const double *p,
                           const double *g, double *out, int64_t begin, int64_t end) {
    double step = s->step; /* step_t.item() */
    double minus_clr = rnd(f, -(c->lr / (1 + (step - 1) * c->lr_decay)));
    double wd = rnd(f, c->weight_decay), eps = rnd(f, c->eps);
    double *sum = tensor_values(s->state[SUM]);
    for (int64_t i = begin; i < end; i++) {
        double grad = c->maximize ? -g[i] : g[i];
        if (c->weight_decay != 0) grad = fma_r(f, wd, p[i], grad); /* grad.add(param, alpha=wd) */
        sum[i] = fma_r(f, grad, grad, sum[i]);          /* state_sum.addcmul_(grad, grad, value=1) */
        double std = rnd(f, rnd(f, sqrt(sum[i])) + eps); /* state_sum.sqrt().add_(eps) */
        out[i] = rnd(f, p[i] + rnd(f, rnd(f, minus_clr * grad) / std)); /* param.addcdiv_(grad, std, value=-clr) */
    }
}

/* _single_tensor_adadelta. */
static void adadelta_update(const AgOptimConfig *c, bool f, Slot *s, const double *p,
                            const double *g, double *out, int64_t begin, int64_t end) {
    double *square_avg = tensor_values(s->state[SQUARE_AVG]);
    double *acc_delta = tensor_values(s->state[ACC_DELTA]);
    double rho = rnd(f, c->rho), one_minus_rho = rnd(f, 1 - c->rho), eps = rnd(f, c->eps);
    double wd = rnd(f, c->weight_decay), minus_lr = rnd(f, -c->lr);
    for (int64_t i = begin; i < end; i++) {
        double grad = c->maximize ? -g[i] : g[i];
        if (c->weight_decay != 0) grad = fma_r(f, wd, p[i], grad); /* grad.add(param, alpha=wd) */
        /* square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho) */
        square_avg[i] = fma_r(f, rnd(f, one_minus_rho * grad), grad, rnd(f, square_avg[i] * rho));
        double std = rnd(f, sqrt(rnd(f, square_avg[i] + eps))); /* square_avg.add(eps).sqrt_() */
        /* acc_delta.add(eps).sqrt_().div_(std).mul_(grad) */
        double delta = rnd(f, rnd(f, rnd(f, sqrt(rnd(f, acc_delta[i] + eps))) / std) * grad);
        /* acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho) */
        acc_delta[i] = fma_r(f, rnd(f, one_minus_rho * delta), delta, rnd(f, acc_delta[i] * rho));
        out[i] = fma_r(f, minus_lr, delta, p[i]); /* param.add_(delta, alpha=-lr) */
    }
}

/* ======================================================================
 * A step: check everything, allocate everything, then update
 * ====================================================================== */

static int check_step(const AgOptimizer *o, Tensor *const *params, bool has_updated) {
    char want[AG_SHAPE_STR_MAX], got[AG_SHAPE_STR_MAX];
    if (!o) return ag_fail("optimizer step: the optimizer is NULL"), -1;
    const char *name = ag_optim_name(o->kind);
    if (o->num_params > 0 && (!params || !has_updated))
        return ag_fail("%s step: the %s array is NULL", name, params ? "updated" : "params"), -1;
    for (int i = 0; i < o->num_params; i++) {
        const Tensor *p = params[i];
        const Slot *s = &o->slots[i];
        if (!p) return ag_fail("%s step: parameter %d is NULL", name, i), -1;
        if (!tensor_is_leaf(p))
            return ag_fail("%s step: parameter %d is not a leaf (it is the result of %s)", name,
                           i, p->op_name ? p->op_name : "an op"), -1;
        if (s->started && !ag_shape_equal(p->ndim, p->shape, s->ndim, s->shape))
            return ag_fail("%s step: parameter %d has shape %s, its state has shape %s", name, i,
                           tensor_shape_str(p, got, sizeof got),
                           ag_shape_str(s->ndim, s->shape, want, sizeof want)), -1;
        AG_ASSERT(!p->grad || ag_shape_equal(p->grad->ndim, p->grad->shape, p->ndim, p->shape),
                  "a leaf's gradient has its shape (accumulate_grad)");
    }
    return 0;
}

/* A slot's state tensors, made at its first step: zeros, or Adagrad's
 * initial_accumulator_value. */
static int start_slot(const AgOptimizer *o, Slot *s, const Tensor *p) {
    for (int k = 0; k < NUM_STATES; k++) {
        if (!keeps_state(o, k)) continue;
        double init = k == SUM ? o->config.initial_accumulator_value : 0.0;
        s->state[k] = ag_tensor_filled_like(p, init);
        if (!s->state[k]) return -1;
    }
    return 0;
}

static void unstart_slot(Slot *s) {
    for (int k = 0; k < NUM_STATES; k++) {
        tensor_release(s->state[k]);
        s->state[k] = NULL;
    }
}

/* Every tensor the step makes: o->fresh[i] for each parameter with a
 * gradient, and the state of slots starting now. On failure (the memory
 * limit) all of them are released again: -1 with nothing changed. */
static int allocate_step(AgOptimizer *o, Tensor *const *params) {
    for (int i = 0; i < o->num_params; i++) {
        const Tensor *p = params[i];
        Slot *s = &o->slots[i];
        if (!p->grad) continue;
        if ((!s->started && start_slot(o, s, p) != 0) || !(o->fresh[i] = ag_tensor_new_like(p))) {
            for (int j = 0; j <= i; j++) {
                tensor_release(o->fresh[j]);
                o->fresh[j] = NULL;
                if (!o->slots[j].started) unstart_slot(&o->slots[j]);
            }
            return -1;
        }
    }
    return 0;
}

/* Elements [begin, end) of one parameter's update: each element alone, so
 * a large parameter's update is split between threads (the same bits). */
typedef struct {
    const AgOptimizer *o;
    Slot *s;
    bool first;
    bool f32;          /* a float32 parameter: PyTorch's float kernels */
    const double *p, *g;
    double *out;
} UpdateJob;

static void update_range(void *ctx, int64_t begin, int64_t end) {
    const UpdateJob *j = ctx;
    const AgOptimConfig *c = &j->o->config;
    bool f = j->f32;
    switch (j->o->kind) {
    case AG_OPTIM_SGD: sgd_update(c, f, j->s, j->first, j->p, j->g, j->out, begin, end); break;
    case AG_OPTIM_ADAM: adam_update(c, f, false, j->s, j->p, j->g, j->out, begin, end); break;
    case AG_OPTIM_ADAMW: adam_update(c, f, true, j->s, j->p, j->g, j->out, begin, end); break;
    case AG_OPTIM_RMSPROP: rmsprop_update(c, f, j->s, j->p, j->g, j->out, begin, end); break;
    case AG_OPTIM_ADAGRAD: adagrad_update(c, f, j->s, j->p, j->g, j->out, begin, end); break;
    case AG_OPTIM_ADADELTA: adadelta_update(c, f, j->s, j->p, j->g, j->out, begin, end); break;
    }
}

/* One parameter's update into fresh, which then takes p's place as a
 * variable (requires_grad and .grad: tensor_inherit). */
static void update_slot(AgOptimizer *o, Slot *s, const Tensor *p, Tensor *fresh) {
    bool first = !s->started;
    if (first) {
        s->started = true;
        s->ndim = p->ndim;
        memcpy(s->shape, p->shape, sizeof s->shape);
    }
    s->step += 1.0f; /* step_t += 1: float32 arithmetic, as PyTorch's */
    UpdateJob job = {o, s, first, p->dtype == AG_FLOAT32, tensor_values(p), tensor_values(p->grad),
                     tensor_values(fresh)};
    if (ag_parallel_worth(p->numel, AG_GRAIN_MATH))
        ag_parallel_for(p->numel, AG_GRAIN_MATH, update_range, &job);
    else
        update_range(&job, 0, p->numel);
    int inherited = tensor_inherit(fresh, p);
    AG_ASSERT(inherited == 0, "a fresh leaf of p's shape inherits from p");
    (void)inherited;
}

int ag_optim_step(AgOptimizer *o, Tensor *const *params, Tensor **updated) {
    if (check_step(o, params, updated != NULL) != 0 || allocate_step(o, params) != 0) return -1;
    for (int i = 0; i < o->num_params; i++)
        if (params[i]->grad) update_slot(o, &o->slots[i], params[i], o->fresh[i]);
    /* Only now, with params no longer read, so updated may be params itself. */
    for (int i = 0; i < o->num_params; i++) {
        updated[i] = params[i]->grad ? o->fresh[i] : tensor_retain(params[i]);
        o->fresh[i] = NULL;
    }
    return 0;
}

int ag_optim_step_in_place(AgOptimizer *o, Tensor *const *params) {
    if (check_step(o, params, true) != 0 || allocate_step(o, params) != 0) return -1;
    for (int i = 0; i < o->num_params; i++)
        if (params[i]->grad) update_slot(o, &o->slots[i], params[i], o->fresh[i]);
    for (int i = 0; i < o->num_params; i++) {
        if (!params[i]->grad) continue;
        memcpy(tensor_values(params[i]), tensor_values(o->fresh[i]), (size_t)params[i]->numel * sizeof(double));
        ag_bump_version(params[i]);
        tensor_release(o->fresh[i]);
        o->fresh[i] = NULL;
    }
    return 0;
}
