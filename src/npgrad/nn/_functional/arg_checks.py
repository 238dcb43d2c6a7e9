"""``F.assert_int_or_pair``: the argument check PyTorch's functional API exposes (an int, or a pair)."""


def assert_int_or_pair(arg, arg_name, message):
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))
