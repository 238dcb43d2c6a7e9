"""npgrad's operators, one family per module; importing this package attaches them to Tensor."""
from . import arith, broadcast, unary, reduce, movement, indexing, linalg, select, compare  # noqa: F401
from . import inplace  # noqa: F401  (after the families: it wraps their methods)

inplace.register_generic_inplace()

from .arith import *  # noqa: E402,F401,F403
from .broadcast import *  # noqa: E402,F401,F403
from .unary import *  # noqa: E402,F401,F403
from .reduce import *  # noqa: E402,F401,F403
from .movement import *  # noqa: E402,F401,F403
from .indexing import *  # noqa: E402,F401,F403
from .linalg import *  # noqa: E402,F401,F403
from .select import *  # noqa: E402,F401,F403
from .compare import *  # noqa: E402,F401,F403
