# Source: Dive into Deep Learning, "Dropout" (PyTorch, the d2l 0.17 version:
#   dropout_layer from scratch, a Net class calling super(Net, self).__init__(),
#   training from scratch, then nn.Dropout in nn.Sequential),
#   https://zh.d2l.ai/chapter_multilayer-perceptrons/dropout.html (code MIT-0)
# Changed: the d2l helpers it calls written out small in the file, a
#   synthetic 64-example stand-in for Fashion-MNIST, 5 epochs of batch 16,
#   accuracy asserts of train_ch3 dropped, plots printed.

import torch
from torch import nn
from torch.utils import data

# ---- d2l helpers (small versions) ----
def load_data_fashion_mnist(batch_size, resize=None):
    """Synthetic stand-in for Fashion-MNIST: 10 classes, 1x28x28 images."""
    torch.manual_seed(0)
    Wt = torch.randn(784, 10)
    def make(n):
        X = torch.randn(n, 1, 28, 28)
        y = torch.argmax(X.reshape(n, -1) @ Wt, dim=1)
        return X, y
    Xtr, ytr = make(64)
    Xte, yte = make(32)
    return (data.DataLoader(data.TensorDataset(Xtr, ytr), batch_size, shuffle=True),
            data.DataLoader(data.TensorDataset(Xte, yte), batch_size, shuffle=False))

def get_fashion_mnist_labels(labels):
    text_labels = ['t-shirt', 'trouser', 'pullover', 'dress', 'coat',
                   'sandal', 'shirt', 'sneaker', 'bag', 'ankle boot']
    return [text_labels[int(i)] for i in labels]

def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()

class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n
    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]
    def reset(self):
        self.data = [0.0] * len(self.data)
    def __getitem__(self, idx):
        return self.data[idx]

def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())

def evaluate_accuracy(net, data_iter):
    if isinstance(net, torch.nn.Module):
        net.eval()
    metric = Accumulator(2)
    with torch.no_grad():
        for X, y in data_iter:
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]

def train_epoch_ch3(net, train_iter, loss, updater):
    if isinstance(net, torch.nn.Module):
        net.train()
    metric = Accumulator(3)
    for X, y in train_iter:
        y_hat = net(X)
        l = loss(y_hat, y)
        if isinstance(updater, torch.optim.Optimizer):
            updater.zero_grad()
            l.mean().backward()
            updater.step()
        else:
            l.sum().backward()
            updater(X.shape[0])
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    return metric[0] / metric[2], metric[1] / metric[2]

def train_ch3(net, train_iter, test_iter, loss, num_epochs, updater):
    for epoch in range(num_epochs):
        train_metrics = train_epoch_ch3(net, train_iter, loss, updater)
        test_acc = evaluate_accuracy(net, test_iter)
        print(epoch + 1, train_metrics + (test_acc,))
    train_loss, train_acc = train_metrics

def predict_ch3(net, test_iter, n=6):
    for X, y in test_iter:
        break
    trues = get_fashion_mnist_labels(y)
    preds = get_fashion_mnist_labels(torch.argmax(net(X), axis=1))
    titles = [true +'\n' + pred for true, pred in zip(trues, preds)]
    print(titles[0:n])

class d2l:
    pass
d2l.load_data_fashion_mnist = load_data_fashion_mnist
d2l.get_fashion_mnist_labels = get_fashion_mnist_labels
d2l.sgd = sgd
d2l.Accumulator = Accumulator
d2l.accuracy = accuracy
d2l.evaluate_accuracy = evaluate_accuracy
d2l.train_epoch_ch3 = train_epoch_ch3
d2l.train_ch3 = train_ch3
d2l.predict_ch3 = predict_ch3
d2l.reshape = torch.reshape

# ---- section code ----
def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    # all elements dropped
    if dropout == 1:
        return torch.zeros_like(X)
    # all elements kept
    if dropout == 0:
        return X
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)

torch.manual_seed(0)
X= torch.arange(16, dtype = torch.float32).reshape((2, 8))
print(X)
print(dropout_layer(X, 0.))
print(dropout_layer(X, 0.5))
print(dropout_layer(X, 1.))

num_inputs, num_outputs, num_hiddens1, num_hiddens2 = 784, 10, 256, 256

dropout1, dropout2 = 0.2, 0.5

class Net(nn.Module):
    def __init__(self, num_inputs, num_outputs, num_hiddens1, num_hiddens2,
                 is_training = True):
        super(Net, self).__init__()
        self.num_inputs = num_inputs
        self.training = is_training
        self.lin1 = nn.Linear(num_inputs, num_hiddens1)
        self.lin2 = nn.Linear(num_hiddens1, num_hiddens2)
        self.lin3 = nn.Linear(num_hiddens2, num_outputs)
        self.relu = nn.ReLU()

    def forward(self, X):
        H1 = self.relu(self.lin1(X.reshape((-1, self.num_inputs))))
        # dropout only when training
        if self.training == True:
            # dropout after first fully connected layer
            H1 = dropout_layer(H1, dropout1)
        H2 = self.relu(self.lin2(H1))
        if self.training == True:
            # dropout after second fully connected layer
            H2 = dropout_layer(H2, dropout2)
        out = self.lin3(H2)
        return out


net = Net(num_inputs, num_outputs, num_hiddens1, num_hiddens2)

num_epochs, lr, batch_size = 5, 0.5, 16
loss = nn.CrossEntropyLoss(reduction='none')
train_iter, test_iter = d2l.load_data_fashion_mnist(batch_size)
trainer = torch.optim.SGD(net.parameters(), lr=lr)
d2l.train_ch3(net, train_iter, test_iter, loss, num_epochs, trainer)

net = nn.Sequential(nn.Flatten(),
        nn.Linear(784, 256),
        nn.ReLU(),
        # dropout after first fully connected layer
        nn.Dropout(dropout1),
        nn.Linear(256, 256),
        nn.ReLU(),
        # dropout after second fully connected layer
        nn.Dropout(dropout2),
        nn.Linear(256, 10))

def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)

net.apply(init_weights);

trainer = torch.optim.SGD(net.parameters(), lr=lr)
d2l.train_ch3(net, train_iter, test_iter, loss, num_epochs, trainer)
