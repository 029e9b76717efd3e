# Source: Dive into Deep Learning, "Concise Implementation of Softmax
#   Regression" (PyTorch tab, d2l 0.17: 3.7), with d2l 0.17's train_ch3 and
#   its helpers (accuracy, evaluate_accuracy, Accumulator, train_epoch_ch3:
#   3.6 "Implementation of Softmax Regression from Scratch")
#   https://d2l.ai/chapter_linear-classification/softmax-regression-concise.html
#   https://github.com/d2l-ai/d2l-en/blob/v0.17.6/chapter_linear-networks/softmax-regression-concise.md
#   https://github.com/d2l-ai/d2l-en/blob/v0.17.6/chapter_linear-networks/softmax-regression-scratch.md
#   (code MIT-0, text CC BY-SA 4.0)
# Changed: Fashion-MNIST replaced by made-up 1x28x28 "images" of 10 classes
#   (each a class's random pattern plus noise: 1000 for training, 500 for
#   testing), made in the file by load_data_fashion_mnist, which returns
#   DataLoaders as d2l's does (num_workers dropped); the helpers of d2l's
#   train_ch3 defined in the file as d2l 0.17 defines them, the Animator
#   replaced by one that prints the points it would plot (to 6 decimals:
#   ag's matrix products round differently from the BLAS under PyTorch in
#   the last bits); added
#   torch.manual_seed(0) (needs PyTorch's random stream: the data, the
#   weights and the shuffles).  The labels are int64 in PyTorch and float64
#   in ag (no integer dtypes yet), so none is printed.

import torch
from torch import nn
from torch.utils import data

torch.manual_seed(0)  # added


def load_data_fashion_mnist(batch_size):  # changed: made-up data
    """Made-up images of 10 classes in place of Fashion-MNIST."""
    patterns = torch.rand(10, 1, 28, 28)
    def make(n):
        y = torch.randint(0, 10, (n,))
        X = 0.4 * patterns[y] + 0.6 * torch.rand(n, 1, 28, 28)
        return data.TensorDataset(X, y)
    return (data.DataLoader(make(1000), batch_size, shuffle=True),
            data.DataLoader(make(500), batch_size, shuffle=False))


class Animator:  # changed: prints what d2l's Animator plots
    def __init__(self, xlabel=None, ylabel=None, legend=None, xlim=None,
                 ylim=None):
        self.legend = legend

    def add(self, x, y):
        print(f'epoch {x}:', ', '.join(f'{name} {v:.6f}' for name, v in zip(self.legend, y)))


def accuracy(y_hat, y):  #@save
    """Compute the number of correct predictions."""
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


def evaluate_accuracy(net, data_iter):  #@save
    """Compute the accuracy for a model on a dataset."""
    if isinstance(net, torch.nn.Module):
        net.eval()  # Set the model to evaluation mode
    metric = Accumulator(2)  # No. of correct predictions, no. of predictions

    with torch.no_grad():
        for X, y in data_iter:
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]


class Accumulator:  #@save
    """For accumulating sums over `n` variables."""
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def reset(self):
        self.data = [0.0] * len(self.data)

    def __getitem__(self, idx):
        return self.data[idx]


def train_epoch_ch3(net, train_iter, loss, updater):  #@save
    """The training loop defined in Chapter 3."""
    # Set the model to training mode
    if isinstance(net, torch.nn.Module):
        net.train()
    # Sum of training loss, sum of training accuracy, no. of examples
    metric = Accumulator(3)
    for X, y in train_iter:
        # Compute gradients and update parameters
        y_hat = net(X)
        l = loss(y_hat, y)
        if isinstance(updater, torch.optim.Optimizer):
            # Using PyTorch in-built optimizer & loss criterion
            updater.zero_grad()
            l.mean().backward()
            updater.step()
        else:
            # Using custom built optimizer & loss criterion
            l.sum().backward()
            updater(X.shape[0])
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    # Return training loss and training accuracy
    return metric[0] / metric[2], metric[1] / metric[2]


def train_ch3(net, train_iter, test_iter, loss, num_epochs, updater):  #@save
    """Train a model (defined in Chapter 3)."""
    animator = Animator(xlabel='epoch', xlim=[1, num_epochs], ylim=[0.3, 0.9],
                        legend=['train loss', 'train acc', 'test acc'])
    for epoch in range(num_epochs):
        train_metrics = train_epoch_ch3(net, train_iter, loss, updater)
        test_acc = evaluate_accuracy(net, test_iter)
        animator.add(epoch + 1, train_metrics + (test_acc,))
    train_loss, train_acc = train_metrics
    assert train_loss < 0.5, train_loss
    assert train_acc <= 1 and train_acc > 0.7, train_acc
    assert test_acc <= 1 and test_acc > 0.7, test_acc


batch_size = 256
train_iter, test_iter = load_data_fashion_mnist(batch_size)

# PyTorch does not implicitly reshape the inputs. Thus we define the flatten
# layer to reshape the inputs before the linear layer in our network
net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))

def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)

net.apply(init_weights);

loss = nn.CrossEntropyLoss(reduction='none')

trainer = torch.optim.SGD(net.parameters(), lr=0.1)

num_epochs = 10
train_ch3(net, train_iter, test_iter, loss, num_epochs, trainer)
