"""Winograd F(2x2,3x3) float32 error over sum |x||w|, vs im2col's: `python -m benchmarks.winograd_error`."""
import sys; sys.path.insert(0,'src'); sys.path.insert(0,'tests'); sys.path.insert(0,'tests/nn')
import numpy as np
import test_winograd as T
from npgrad.nn._functional import _winograd as W
eps=np.finfo(np.float32).eps
rng=np.random.default_rng(1)
for case in list(T.CASES)+[((8,64,16,16),64,1),((4,128,8,8),128,1)]:
    xs,o,p=case
    x=rng.standard_normal(xs).astype(np.float32); w=rng.standard_normal((o,xs[1],3,3)).astype(np.float32)
    pad=((p,p),(p,p)) if isinstance(p,int) else ((p[0],p[0]),(p[1],p[1]))
    y=W.conv3x3(x,w,pad)[0]
    exact,_=T._direct(x.astype(np.float64),w.astype(np.float64),p)
    d32,_=T._direct(x,w,p)
    sc=T._scale(x,w,p)
    print(xs,o,p,"wino %.2f im2col %.2f eps32 (max err / sum|x||w|)"%((np.abs(y-exact)/sc).max()/eps,(np.abs(d32-exact)/sc).max()/eps))
