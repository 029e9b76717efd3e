# Source: "The Autodiff Cookbook" (JAX documentation; Alex Wiltschko and
#   Matthew Johnson), sections "Gradients", "Let's try grad on a simple
#   logistic regression", "Hessian-vector products with grad-of-grad",
#   "Jacobians and Hessians using jacfwd and jacrev" and "Hessian-vector
#   products using both forward- and reverse-mode"
#   https://jax.readthedocs.io/en/latest/notebooks/autodiff_cookbook.html
#   (Apache-2.0)
# Changed: a translation into PyTorch's function transforms, not the
#   published code: jax.grad, jax.jacfwd, jax.jacrev, jax.jvp and
#   jax.vmap became functorch's (torch.func's in PyTorch 2: the same
#   names; PyTorch 1.13, the local reference, has them only as functorch),
#   jnp became torch; W and b, drawn with jax.random in the cookbook, are
#   fixed numbers written in the file, as are the random vectors.
import torch
from functorch import grad, jacfwd, jacrev, jvp, vjp, vmap

# grad, and grad of grad (the cookbook's first cells)
grad_tanh = grad(torch.tanh)
print(grad_tanh(torch.tensor(2.0)))
print(grad(grad(torch.tanh))(torch.tensor(2.0)))
print(grad(grad(grad(torch.tanh)))(torch.tensor(2.0)))


def sigmoid(x):
    return 0.5 * (torch.tanh(x / 2) + 1)


# Outputs probability of a label being true.
def predict(W, b, inputs):
    return sigmoid(torch.matmul(inputs, W) + b)


# Build a toy dataset.
inputs = torch.tensor([[0.52, 1.12, 0.77],
                       [0.88, -1.08, 0.15],
                       [0.52, 0.06, -1.30],
                       [0.74, -2.49, 1.39]])
targets = torch.tensor([1.0, 1.0, 0.0, 1.0])


# Training loss is the negative log-likelihood of the training examples.
def loss(W, b):
    preds = predict(W, b, inputs)
    label_probs = preds * targets + (1 - preds) * (1 - targets)
    return -torch.sum(torch.log(label_probs))


# Fixed parameters (the cookbook draws them with jax.random).
W = torch.tensor([0.1, -0.7, 0.35])
b = torch.tensor(0.25)

# Differentiate `loss` with respect to the first positional argument:
W_grad = grad(loss, argnums=0)(W, b)
print('W_grad', W_grad)

# Since argnums=0 is the default, this does the same thing:
W_grad = grad(loss)(W, b)
print('W_grad', W_grad)

# But we can choose different values too, and drop the keyword:
b_grad = grad(loss, 1)(W, b)
print('b_grad', b_grad)

# Including tuple values
W_grad, b_grad = grad(loss, (0, 1))(W, b)
print('W_grad', W_grad)
print('b_grad', b_grad)


# Hessian-vector products with grad-of-grad
def hvp(f, x, v):
    return grad(lambda x: torch.vdot(grad(f)(x), v))(x)


def f(X):
    return torch.sum(torch.tanh(X) ** 2)


X = torch.tensor([0.3, -1.2, 0.8, 2.0])
V = torch.tensor([1.0, 0.5, -0.25, 2.0])
print('hvp', hvp(f, X, V))

# Jacobians and Hessians using jacfwd and jacrev
J = jacfwd(predict, argnums=0)(W, b, inputs)
print("jacfwd result, with shape", J.shape)
print(J)

J = jacrev(predict, argnums=0)(W, b, inputs)
print("jacrev result, with shape", J.shape)
print(J)


def hessian(f):
    return jacfwd(jacrev(f))


H = hessian(f)(X)
print("hessian, with shape", H.shape)
print(H)


# Hessian-vector products using both forward- and reverse-mode
def hvp_fwd_rev(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


print('forward-over-reverse', hvp_fwd_rev(f, (X,), (V,)))


def hvp_rev_fwd(f, primals, tangents):
    g = lambda primals: jvp(f, primals, tangents)[1]
    return grad(g)(primals)


print('reverse-over-forward', hvp_rev_fwd(f, (X,), (V,)))

# vjp, and vmap of a per-example gradient
out, f_vjp = vjp(predict, W, b, inputs)
print(f_vjp(torch.ones(4))[0])
per_example = vmap(grad(lambda w, x: torch.sigmoid(torch.dot(x, w))), in_dims=(None, 0))
print(per_example(W, inputs))
