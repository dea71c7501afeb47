#!/bin/sh
# Builds three small git repositories standing in for pytorch, torch_npu and op-plugin under $1,
# with a real failing unittest (op-plugin lacks the kernel registration for "add"), a CI log of
# that failure, a fix patch, a patch that breaks a neighbour, and a python wrapper plus git hooks
# that pause while $1/hold or $1/hold_git exists (the tests kill the pipeline there).
set -eu
root=$1
mkdir -p "$root"
root=$(cd "$root" && pwd)
# $1/hold pauses the python wrapper, $1/hold_git the git hooks (post-checkout, pre-commit).
pause() {
  echo 'if [ -e "'"$root/$1"'" ]; then touch "'"$root"'/entered"; while [ -e "'"$root/$1"'" ]; do sleep 0.05; done; fi'
}
hold=$(pause hold)
hold_git=$(pause hold_git)

mkdir -p "$root/bin"
printf '#!/bin/sh\n%s\nexec /usr/bin/python3 "$@"\n' "$hold" > "$root/bin/python"
chmod +x "$root/bin/python"

init() {
  git init -q -b "$2" "$1"
  git -C "$1" config user.name "Pipeline Test"
  git -C "$1" config user.email "pipeline@example.invalid"
  git -C "$1" config commit.gpgsign false
}
commit() {
  git -C "$1" add -A
  git -C "$1" commit -q -m "$2"
}

# pytorch
p="$root/pytorch"
init "$p" main
echo "2.7.1" > "$p/version.txt"
mkdir -p "$p/test" "$p/torch"
cat > "$p/test/test_ops.py" <<'PY'
import unittest

import torch_npu


class TestAdd(unittest.TestCase):
    def test_add(self):
        self.assertEqual(torch_npu.call("add", 2, 3), 5)

    def test_sub(self):
        self.assertEqual(torch_npu.call("sub", 5, 3), 2)

    def test_sub_negative(self):
        self.assertEqual(torch_npu.call("sub", 1, 3), -2)


if __name__ == "__main__":
    unittest.main()
PY
for i in 0 1 2 3 4 5 6 7 8; do
  cat > "$p/test/test_batch_$i.py" <<PY
import unittest

import torch_npu


class TestBatch$i(unittest.TestCase):
    def test_add_$i(self):
        self.assertEqual(torch_npu.call("add", $i, 1), $i + 1)

    def test_sub_$i(self):
        self.assertEqual(torch_npu.call("sub", $i, 1), $i - 1)


if __name__ == "__main__":
    unittest.main()
PY
done
cat > "$p/test/test_hang.py" <<'PY'
import time
import unittest


class TestHang(unittest.TestCase):
    def test_forever(self):
        time.sleep(3600)


if __name__ == "__main__":
    unittest.main()
PY
cat > "$p/test/test_cuda_only.py" <<'PY'
import unittest


class TestCudaOnly(unittest.TestCase):
    def test_cudnn_flag(self):
        raise AssertionError("Torch not compiled with CUDA enabled")


if __name__ == "__main__":
    unittest.main()
PY
echo '"""Stand-in for the torch package."""' > "$p/torch/__init__.py"
commit "$p" "pytorch 2.7.1 stand-in"
printf '#!/bin/sh\n%s\n' "$hold_git" > "$p/.git/hooks/post-checkout"
chmod +x "$p/.git/hooks/post-checkout"

# torch_npu
t="$root/torch_npu"
init "$t" v2.7.1-7.1.0
echo "2.7.1" > "$t/version.txt"
mkdir -p "$t/torch_npu"
cat > "$t/torch_npu/__init__.py" <<'PY'
from op_plugin.ops import dispatch


def call(name, *args):
    return dispatch(name, *args)
PY
commit "$t" "torch_npu 2.7.1 stand-in"

# op-plugin
o="$root/op_plugin"
init "$o" v2.7.1-7.1.0
mkdir -p "$o/op_plugin" "$o/test" "$o/.gitcode"
echo "" > "$o/op_plugin/__init__.py"
cat > "$o/op_plugin/ops.py" <<'PY'
def _sub(a, b):
    return a - b


KERNELS = {
    "sub": _sub,
}


def dispatch(name, *args):
    kernel = KERNELS.get(name)
    if kernel is None:
        raise NotImplementedError(
            "Could not run 'aten::" + name + ".Tensor' with arguments from the 'PrivateUse1' backend.")
    return kernel(*args)
PY
cat > "$o/test/test_add.py" <<'PY'
import unittest

from op_plugin.ops import dispatch


class TestAddKernel(unittest.TestCase):
    def test_add_kernel(self):
        self.assertEqual(dispatch("add", 1, 1), 2)

    def test_sub_kernel(self):
        self.assertEqual(dispatch("sub", 1, 1), 0)


if __name__ == "__main__":
    unittest.main()
PY
cat > "$o/.gitcode/PULL_REQUEST_TEMPLATE.md" <<'MD'
### 【合入来源】
（说明需求或问题来源）

### 【修改方案】
（说明修改方案）

### 【资料变更】

### 【接口变更】

### 【功能验证】

### 【CheckList】
- [ ] 已自测
MD
commit "$o" "op-plugin stand-in"
printf '#!/bin/sh\n%s\n' "$hold_git" > "$o/.git/hooks/pre-commit"
chmod +x "$o/.git/hooks/pre-commit"

# The CI log of the failure, as a torch_npu CI job would print it.
cat > "$root/ci.log" <<'LOG'
test_add (__main__.TestAdd.test_add) ... ERROR

======================================================================
ERROR: test_add (__main__.TestAdd.test_add)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/ci/pytorch/test/test_ops.py", line 8, in test_add
    self.assertEqual(torch_npu.call("add", 2, 3), 5)
  File "/ci/torch_npu/torch_npu/__init__.py", line 5, in call
    return dispatch(name, *args)
  File "/ci/op_plugin/op_plugin/ops.py", line 14, in dispatch
    raise NotImplementedError(
NotImplementedError: Could not run 'aten::add.Tensor' with arguments from the 'PrivateUse1' backend.
LOG

cat > "$root/fix.patch" <<'DIFF'
--- a/op_plugin/ops.py
+++ b/op_plugin/ops.py
@@ -1,8 +1,13 @@
+def _add(a, b):
+    return a + b
+
+
 def _sub(a, b):
     return a - b
 
 
 KERNELS = {
+    "add": _add,
     "sub": _sub,
 }
 
DIFF

cat > "$root/breaking.patch" <<'DIFF'
--- a/op_plugin/ops.py
+++ b/op_plugin/ops.py
@@ -1,8 +1,8 @@
 def _sub(a, b):
-    return a - b
+    return a + b
 
 
 KERNELS = {
-    "sub": _sub,
+    "sub": _sub, "add": _sub,
 }
 
DIFF
