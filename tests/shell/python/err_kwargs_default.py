print("never")
def f(**kw=1):
    pass
