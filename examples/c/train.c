/*
 * train.c — ag from C: a linear regression fitted by 200 steps of Adam.
 *
 * The model is pred = X @ w + b on 8 points with 2 features, the loss
 * mean((pred - y)^2). Each step: forward, backward, then ag_optim_step,
 * which returns new leaves for w and b (the old ones are left as they were:
 * a graph may still hold them). It prints the loss along the way and the
 * parameters at the end, and checks them against PyTorch's figures for the
 * same program (examples/c/train_reference.py): exit status 1 on a
 * difference beyond 1e-12, relative.
 *
 * Build and run (make test does): make lib, then
 *   cc -Iinclude examples/c/train.c build/release/libag.a -lm && ./a.out
 * (add -lopenblas -lmvec if the library was built with them).
 */
#include <math.h>
#include <stdio.h>

#include "ag.h"

/* PyTorch 1.13's figures: /usr/bin/python3 examples/c/train_reference.py */
static const int REPORT_STEPS[] = {0, 1, 10, 50, 100, 199};
static const double TORCH_LOSS[] = {14.665000000000001, 14.018478126443485, 9.1154008935963375,
                                    0.89065699743858595, 0.037326114641971414,
                                    0.035871226926232389};
static const double TORCH_W[2] = {1.8675684971725464, -2.9461861973808889};
static const double TORCH_B = 0.46769645168493901;
static const double TOLERANCE = 1e-12; /* relative */

static bool close_to(double got, double want) {
    return fabs(got - want) <= TOLERANCE * fabs(want);
}

int main(void) {
    /* y is about 2 x0 - 3 x1 + 0.5, with noise. */
    Tensor *X = tensor_create(2, (int64_t[]){8, 2},
                              (double[]){0.5, -1.2, 1.3, 0.4, -0.7, 0.9, 2.1, -0.3,
                                         -1.5, -0.8, 0.2, 1.7, -0.4, -2.0, 1.0, 1.1}, false);
    Tensor *y = tensor_create(1, (int64_t[]){8},
                              (double[]){4.6, 1.9, -3.4, 5.2, -0.1, -4.3, 5.9, -0.8}, false);
    Tensor *w = tensor_zeros(1, (int64_t[]){2}, true); /* new references: ours */
    Tensor *b = tensor_zeros(0, NULL, true);

    AgOptimConfig config = ag_optim_defaults(AG_OPTIM_ADAM);
    config.lr = 0.05;
    AgOptimizer *adam = ag_optim_new(AG_OPTIM_ADAM, &config, 2); /* slots: w, b */
    if (!adam) {
        fprintf(stderr, "error: %s\n", ag_error());
        return 1;
    }

    int ok = 1, report = 0;
    for (int step = 0; step < 200 && ok; step++) {
        tensor_zero_grad(w); /* else backward adds to the last step's gradients */
        tensor_zero_grad(b);
        Tensor *xw = tensor_matmul(X, w);
        Tensor *pred = tensor_add(xw, b);
        Tensor *loss = tensor_mse(pred, y);
        if (!loss || backward(loss) != 0) {
            fprintf(stderr, "error: %s\n", ag_error());
            return 1;
        }
        if (report < (int)(sizeof REPORT_STEPS / sizeof REPORT_STEPS[0]) && step == REPORT_STEPS[report]) {
            int same = close_to(tensor_values(loss)[0], TORCH_LOSS[report]);
            printf("step %3d  loss %.17g  (PyTorch %.17g)%s\n", step, tensor_values(loss)[0],
                   TORCH_LOSS[report], same ? "" : "  MISMATCH");
            ok &= same;
            report++;
        }
        tensor_release(loss);
        tensor_release(pred);
        tensor_release(xw);

        /* The step hands back new leaves (new references) holding the
         * updated values; the old w and b are ours to release. */
        Tensor *params[2] = {w, b}, *updated[2];
        if (ag_optim_step(adam, params, updated) != 0) {
            fprintf(stderr, "error: %s\n", ag_error());
            return 1;
        }
        tensor_release(w);
        tensor_release(b);
        w = updated[0];
        b = updated[1];
    }

    int same = close_to(tensor_values(w)[0], TORCH_W[0]) && close_to(tensor_values(w)[1], TORCH_W[1]) &&
               close_to(tensor_values(b)[0], TORCH_B);
    printf("w = [%.17g, %.17g], b = %.17g\n", tensor_values(w)[0], tensor_values(w)[1], tensor_values(b)[0]);
    printf("PyTorch: w = [%.17g, %.17g], b = %.17g%s\n", TORCH_W[0], TORCH_W[1], TORCH_B,
           same ? "" : "  MISMATCH");
    ok &= same;

    ag_optim_free(adam);
    tensor_release(w);
    tensor_release(b);
    tensor_release(X);
    tensor_release(y);
    return ok ? 0 : 1;
}
