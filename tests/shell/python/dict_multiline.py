# Dicts and sets written over several lines, inside indented blocks, then
# indexed or called (makemore's split_loss: x, y = {...}[split]), and a line
# break after a key's ':'. Expected: CPython's.
import torch


def split_loss(split):
    x, y = {
        'train': (1, 2),
        'val': (3, 4),
        'test': (5, 6),
    }[split]
    return x + y


print(split_loss('val'))
if True:
    table = {1: 2,
        3: 4}[3]
    name = {'a':
            'alpha',
            'b': 'beta'}.get('b')
    s = {1,
         2, 2,
      3}
    print(table, name, sorted(s))
for k in range(2):
    d = {
        i: i * i
        for i in range(3)
    }
    print(k, d, {'x': torch.tensor([1.0,
                                    2.0])}['x'].sum())
print({'nested': {'inner':
                  [1, 2]}}['nested']['inner'])
