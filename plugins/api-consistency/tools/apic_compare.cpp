// Runs the compare engine on two files and prints the result JSON: the benchmark's driver, and a
// way to use the engine without the host.
#include <cstdio>
#include <iostream>
#include <string>

#include "compare.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: apic_compare EXPECTED ACTUAL [STANDARD]\n");
    return 2;
  }
  skillrt::apic::TensorSpec e;
  e.path = argv[1];
  skillrt::apic::TensorSpec a;
  a.path = argv[2];
  skillrt::apic::CompareOptions o;
  if (argc > 3) o.standard = argv[3];
  try {
    const auto r = skillrt::apic::compare_tensors(e, a, o);
    std::cout << r.dump(1) << "\n";
    return r["verdict"] == "pass" ? 0 : 1;
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "apic_compare: %s\n", ex.what());
    return 2;
  }
}
