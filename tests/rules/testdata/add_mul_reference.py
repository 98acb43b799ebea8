"""NumPy reference of eltwise.py's add_mul, for ttl_operation_test."""


def reference(a, b, c):
    return a * b + c
