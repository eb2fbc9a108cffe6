import torch


class Meter:
    def __init__(self):
        self.avg = 0

    def update(self, v):
        self.avg = v


def train(model, loader):
    top1 = Meter()
    for x in loader:
        x = x.cuda()
        out = model(x)
        top1.update(out.sum())
        print("{top1.avg:.3f}".format(other=top1))
        print("{.avg}".format())
        print("{0.avg} {5.avg}".format(top1))
