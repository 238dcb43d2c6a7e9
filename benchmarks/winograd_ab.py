"""Winograd vs the im2col paths for one 3x3 conv2d: `OPENBLAS_NUM_THREADS=1 python -m benchmarks.winograd_ab N C O H` (CPU time medians)."""
import numpy as np, sys, time
sys.path.insert(0,'src')
import npgrad as T
from npgrad.nn._functional import _winograd as W
from npgrad.nn._functional import conv as CV
rng=np.random.default_rng(0)
N,C,O,H=int(sys.argv[1]),int(sys.argv[2]),int(sys.argv[3]),int(sys.argv[4])
x=rng.standard_normal((N,C,H,H)).astype(np.float32); w=rng.standard_normal((O,C,3,3)).astype(np.float32)
g=rng.standard_normal((N,O,H,H)).astype(np.float32)
pad=((1,1),(1,1))
def tm(f,r=15):
    ts=[]
    for _ in range(r):
        t=time.process_time(); f(); ts.append(time.process_time()-t)
    return np.median(ts)*1e3
xt=T.tensor(x,requires_grad=True); wt=T.tensor(w,requires_grad=True); gt=T.tensor(g)
def npg():
    y=T.nn.functional.conv2d(xt,wt,padding=1); y.backward(gt)
def npgf():
    with T.no_grad(): T.nn.functional.conv2d(xt,wt,padding=1)
def wf(): W.conv3x3(x,w,pad)
y,v,grid=W.conv3x3(x,w,pad)
def wb(): W.conv3x3(x,w,pad); W.backward(g,w,v,x.shape,pad,grid,True,True)
for rep in range(3):
    print("fwd npgrad %.2f wino %.2f | fwd+bwd npgrad %.2f wino %.2f"%(tm(npgf),tm(wf),tm(npg),tm(wb)))
v,grid=W.input_transform(x,pad); U=W.weight_transform(w); m=np.matmul(v,U)
print("in %.2f gemm %.2f out %.2f gradT %.2f"%(tm(lambda: W.input_transform(x,pad)), tm(lambda: np.matmul(v,U)), tm(lambda: W.output_transform(m,N,grid)), tm(lambda: W.grad_transform(g,grid))))
dm=W.grad_transform(g,grid); dv=np.matmul(dm,U.transpose(0,2,1))
print("dx gemm %.2f inT %.2f dw gemm %.2f"%(tm(lambda: np.matmul(dm,U.transpose(0,2,1))), tm(lambda: W.input_grad(dv,x.shape,pad,grid)), tm(lambda: np.matmul(v.transpose(0,2,1),dm))))
