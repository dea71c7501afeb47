// Copyright (c) 2024 Huawei Technologies Co., Ltd. Fixture for ci-static-errors-fix tests.
#include <stdexcept>
#include <string>
#include <vector>

#define TORCH_CHECK(cond, msg) if (!(cond)) throw std::runtime_error(#cond msg)

namespace op_api {
const char* kUsage = R"doc(usage:   
  npu_add(self, other)   
)doc";

int  npu_add(int a,int b){
    TORCH_CHECK(a>=0, "a must be non-negative");
  return a+b;   
}

std::vector<std::vector<int> > nested() {
  std::vector<std::vector<int> > v;
    return v;
}

// This comment is far too long for the one hundred and twenty column limit, so clang-format will reflow it onto two lines.
int  scale(int x) {return x*2;}
}  // namespace op_api
