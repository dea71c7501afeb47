# How the torch dispatcher binds a boxed call to a Python kernel (torch 1.13).
import torch
from torch.library import Library
lib = Library("audit", "DEF")
lib.define("pos_default(Tensor x, float eps=0.5, *, int mode=1) -> Tensor")
lib.define("kw_only(Tensor x, *, int mode=1, int? other=None) -> Tensor")
lib.define("two_out(Tensor x) -> (Tensor, Tensor)")
lib.define("two_out3(Tensor x) -> (Tensor, Tensor)")
lib.define("one_out2(Tensor x) -> Tensor")
lib.define("void_out(Tensor x) -> ()")
lib.define("multi(Tensor x, float eps=0.5, *, int mode=1) -> Tensor")
seen = {}
def rec(name):
    def deco(f):
        def w(*a, **k):
            seen[name] = (len(a), sorted(k))
            return f(*a, **k)
        return w
    return deco
# Meta fn 1: positional 'eps' renamed & WITHOUT default; kw-only 'mode' taken positional with other default
@rec("A")
def a_meta(x, epsilon, mode=7):
    print("   A bound epsilon=%r mode=%r" % (epsilon, mode)); return torch.empty_like(x)
# Meta fn 2: kw-only schema arg renamed -> 'modus'
@rec("B")
def b_meta(x, *, modus=1, other=None):
    print("   B bound modus=%r" % modus); return torch.empty_like(x)
# Meta fn 3: schema positional declared keyword-only
@rec("C")
def c_meta(x, *, eps=0.5, mode=1):
    print("   C bound eps=%r mode=%r" % (eps, mode)); return torch.empty_like(x)
lib.impl("pos_default", a_meta, "Meta")
lib.impl("kw_only", b_meta, "Meta")
lib.impl("two_out", lambda x: torch.empty_like(x), "Meta")   # returns 1 tensor, schema says 2
lib.impl("two_out3", lambda x: (x, x, x), "Meta")               # 3 returned vs 2
lib.impl("one_out2", lambda x: (x, x), "Meta")                   # tuple returned vs 1
lib.impl("void_out", lambda x: x, "Meta")                        # tensor returned vs ()
@rec("D")
def d_meta(x, mode, eps=0.5):   # Meta param named like the kw-only arg, placed where 'eps' binds
    print("   D bound mode=%r eps=%r" % (mode, eps)); return torch.empty_like(x)
lib.impl("multi", d_meta, "Meta")
lib2 = Library("audit2", "DEF")
lib2.define("pos_default(Tensor x, float eps=0.5, *, int mode=1) -> Tensor")
lib2.impl("pos_default", c_meta, "Meta")
x = torch.empty(2, device="meta")
def call(desc, fn):
    try:
        with torch.inference_mode():   # skip the Autograd key: the custom op has no autograd kernel here
            r = fn(); print("OK   ", desc, "->", type(r).__name__ + ("[%d]" % len(r) if isinstance(r, tuple) else ""), seen)
    except Exception as e:
        print("FAIL ", desc, "->", type(e).__name__ + ":", str(e).splitlines()[0][:150])
    seen.clear()
call("pos_default(x)                 [eps omitted]", lambda: torch.ops.audit.pos_default(x))
call("pos_default(x, 0.5)            [eps == default]", lambda: torch.ops.audit.pos_default(x, 0.5))
call("pos_default(x, 0.25)           [eps by position]", lambda: torch.ops.audit.pos_default(x, 0.25))
call("pos_default(x, eps=0.25)       [eps given by name at call site]", lambda: torch.ops.audit.pos_default(x, eps=0.25))
call("pos_default(x, 0.25, mode=1)   [kw-only == default -> py default 7]", lambda: torch.ops.audit.pos_default(x, 0.25, mode=1))
call("pos_default(x, 0.25, mode=3)   [kw-only passed by name]", lambda: torch.ops.audit.pos_default(x, 0.25, mode=3))
call("kw_only(x)                     [renamed kw-only, default]", lambda: torch.ops.audit.kw_only(x))
call("kw_only(x, mode=3)             [renamed kw-only, non-default]", lambda: torch.ops.audit.kw_only(x, mode=3))
call("audit2.pos_default(x)          [schema positional kw-only in py]", lambda: torch.ops.audit2.pos_default(x))
call("audit2.pos_default(x, 0.25)    [schema positional kw-only in py]", lambda: torch.ops.audit2.pos_default(x, 0.25))
call("two_out(x)                     [1 returned vs 2 in schema]", lambda: torch.ops.audit.two_out(x))
call("two_out3(x)                    [3 returned vs 2 in schema]", lambda: torch.ops.audit.two_out3(x))
call("one_out2(x)                    [(t, t) returned vs 1 in schema]", lambda: torch.ops.audit.one_out2(x))
call("void_out(x)                    [tensor returned vs () in schema]", lambda: torch.ops.audit.void_out(x))
call("multi(x, 0.25)                 [py (x, mode, eps): eps value lands in 'mode']", lambda: torch.ops.audit.multi(x, 0.25))
call("multi(x)                       [py 'mode' has no default, nothing passed]", lambda: torch.ops.audit.multi(x))
call("multi(x, 0.25, mode=3)         [mode bound positionally AND by name]", lambda: torch.ops.audit.multi(x, 0.25, mode=3))
