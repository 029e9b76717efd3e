# torch.optim.LBFGS's strong Wolfe line search on functions that take each of
# its branches: extrapolation, the zoom (and its steps away from a bracket's
# ends), the cubic through points in either order or with no real minimum,
# a bracket too small to split, and 25 evaluations without a bracket (a
# linear function). Polynomials, abs and relu only: no libm in the numbers.
import torch


def rosenbrock(x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


def beale(x):
    return ((1.5 - x[0] + x[0] * x[1]) ** 2 + (2.25 - x[0] + x[0] * x[1] ** 2) ** 2 +
            (2.625 - x[0] + x[0] * x[1] ** 3) ** 2)


def quartic(x):
    return (x ** 4 - 3 * x ** 2 + x).sum()


def poly6(x):
    return (x ** 6 / 6 - x ** 4 + x ** 2 / 2 + 0.3 * x).sum()


def ripple(x):
    return (x ** 2).sum() + 3 * (x * (x - 1) * (x + 1) * (x - 2)).abs().sum()


def cliff(x):
    return torch.relu(x - 0.3).sum() * 5 + (x ** 2).sum()


def linear(x):
    return x.sum()


cases = [(beale, [-0.57, 1.7], 1, 1e-9), (beale, [0.13, -2.63], 10, 1e-9),
         (quartic, [-0.57, 1.7], 1, 1e-3), (cliff, [0.5, 2.45], 10, 1e-9),
         (rosenbrock, [2.9, 1.86], 0.1, 1e-3), (ripple, [2.8, -0.14], 100, 0.1),
         (poly6, [0.68, 0.94], 3, 1e-9), (ripple, [2.66, 2.6], 1, 1e-9),
         (linear, [0.5, -0.5], 1, 1e-9)]
for f, start, lr, tolerance in cases:
    x = torch.tensor(start, requires_grad=True)
    opt = torch.optim.LBFGS([x], lr=lr, max_iter=10, history_size=3,
                            line_search_fn='strong_wolfe', tolerance_change=tolerance)

    def closure():
        opt.zero_grad()
        loss = f(x)
        loss.backward()
        return loss

    print(f.__name__, start, lr)
    for i in range(3):
        loss = opt.step(closure)
        print(' ', i, repr(loss.item()), [repr(v) for v in x.tolist()], opt.state[x]['func_evals'])
