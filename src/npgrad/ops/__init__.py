"""npgrad's operators, one family per module; importing this package attaches them to Tensor."""
from . import arith, broadcast, unary, reduce, movement, indexing, linalg, select, compare  # noqa: F401
from . import sorting, counting, cumulative, distance, special, decomp  # noqa: F401,E402
from . import softmax_methods  # noqa: F401,E402
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
from .sorting import *  # noqa: E402,F401,F403
from .counting import *  # noqa: E402,F401,F403
from .cumulative import *  # noqa: E402,F401,F403
from .distance import *  # noqa: E402,F401,F403
from .special import *  # noqa: E402,F401,F403
from .decomp import *  # noqa: E402,F401,F403
from .softmax_methods import *  # noqa: E402,F401,F403
